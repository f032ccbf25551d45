// homotopy: the homotopic subgradient method (solvers/homotopy.hpp).
// Conversion only; the GIL is released around the solve.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/homotopy.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(HomotopyOptions, homotopy, SVMKIT_HOMOTOPY_OPTIONS)

namespace {

py::dict fit_homotopy(const py::object& X, const py::object& y, const py::object& cost,
                      bool fit_intercept, double intercept_scaling, bool regularize_intercept,
                      const py::dict& options, const py::object& callback) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem problem =
      make_problem(view, y, cost, fit_intercept, intercept_scaling, regularize_intercept, keep);
  const HomotopyOptions opt = homotopy_from_dict(options);
  return solve_without_gil(callback,
                           [&](const Callbacks& c) { return solve_homotopy(problem, opt, c); });
}

}  // namespace

void bind_homotopy(py::module_& m) {
  register_homotopy_option_table();
  m.def("fit_homotopy", &fit_homotopy, py::arg("X"), py::arg("y"), py::arg("cost"),
        py::arg("fit_intercept"), py::arg("intercept_scaling"), py::arg("regularize_intercept"),
        py::arg("options"), py::arg("callback"));
}

}  // namespace svmkit::py_bind
