// sgd: the primal first-order solver (solvers/sgd.hpp).
// Conversion only; the GIL is released around the solve.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/sgd.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(SgdOptions, sgd, SVMKIT_SGD_OPTIONS)

void bind_sgd(py::module_& m) {
  register_sgd_option_table();
  def_linear_loss_fit(m, "fit_sgd", &sgd_from_dict, [](auto&&... a) { return solve_sgd(a...); });
}

}  // namespace svmkit::py_bind
