// Dual coordinate descent fits (LIBLINEAR's -s 1, 3, 12, 13 duals).
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/dual_cd.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(DualCdOptions, dual_cd, SVMKIT_DUAL_CD_OPTIONS)

void bind_dual_cd(py::module_& m) {
  register_dual_cd_option_table();
  def_linear_loss_fit(m, "fit_dual_cd", &dual_cd_from_dict,
                      [](auto&&... a) { return solve_dual_cd(a...); });
}

}  // namespace svmkit::py_bind
