// ipm fits (the interior-point method for the l1 / elastic-net / l2 hinge-loss SVM and the
// epsilon-insensitive SVR).
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/ipm.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(IpmOptions, ipm, SVMKIT_IPM_OPTIONS)

namespace {

py::dict fit_ipm(const py::object& X, const py::object& y, const py::object& cost,
                 const std::string& loss, double l1, double l2, bool fit_intercept,
                 double intercept_scaling, bool regularize_intercept, const py::dict& options,
                 const py::object& callback, double epsilon) {
  const auto opt = ipm_from_dict(options);  // parsed before the GIL is released
  IpmPenalty pen;
  pen.l1 = l1;
  pen.l2 = l2;
  return run_linear_loss_solve(X, y, cost, loss, 0.1, epsilon, fit_intercept, intercept_scaling,
                               regularize_intercept, py::none(), callback,
                               [&](const LinearProblem& p, const LossSpec& s, const Callbacks& c,
                                   const double*) { return solve_ipm(p, s, pen, opt, c); });
}

}  // namespace

void bind_ipm(py::module_& m) {
  register_ipm_option_table();
  m.def("fit_ipm", &fit_ipm, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("loss"),
        py::arg("l1"), py::arg("l2"), py::arg("fit_intercept"), py::arg("intercept_scaling"),
        py::arg("regularize_intercept"), py::arg("options"), py::arg("callback"),
        py::arg("epsilon") = 0.0);
}

}  // namespace svmkit::py_bind
