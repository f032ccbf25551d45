// Dual coordinate descent fits (LIBLINEAR's -s 1, 3, 12, 13 duals).
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/dual_cd.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(DualCdOptions, dual_cd, SVMKIT_DUAL_CD_OPTIONS)

py::dict fit_dual_cd(const py::object& X, const py::object& y, const py::object& cost,
                     const std::string& loss, double sigma, double epsilon, bool fit_intercept,
                     double intercept_scaling, bool regularize_intercept, const py::object& w0,
                     const py::dict& options, const py::object& callback) {
  const auto opt = dual_cd_from_dict(options);  // parsed before the GIL is released
  return run_linear_loss_solve(X, y, cost, loss, sigma, epsilon, fit_intercept, intercept_scaling,
                               regularize_intercept, w0, callback,
                               [&](const LinearProblem& p, const LossSpec& l, const Callbacks& c,
                                   const double* w) { return solve_dual_cd(p, l, opt, c, w); });
}

void bind_dual_cd(py::module_& m) {
  m.def(
      "dual_cd_defaults", [] { return dual_cd_to_dict(DualCdOptions{}); },
      "Default dual coordinate descent options (the single source of the defaults).");
  m.def("dual_cd_option_records", &dual_cd_records_to_list,
        "dual_cd's option records: name, type, default, valid range and doc of each option.");
  m.def("fit_dual_cd", &fit_dual_cd, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("loss"),
        py::arg("sigma"), py::arg("epsilon"), py::arg("fit_intercept"),
        py::arg("intercept_scaling"), py::arg("regularize_intercept"), py::arg("w0"),
        py::arg("options"), py::arg("callback"));
}

}  // namespace svmkit::py_bind
