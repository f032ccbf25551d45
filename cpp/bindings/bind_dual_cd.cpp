// Dual coordinate descent fits (LIBLINEAR's -s 1, 3, 12, 13 duals, and the elastic-net dual).
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/dual_cd.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(DualCdOptions, dual_cd, SVMKIT_DUAL_CD_OPTIONS)

namespace {

py::dict fit_dual_cd_elastic_net(const py::object& X, const py::object& y, const py::object& cost,
                                 const std::string& loss, double l1, double l2, bool fit_intercept,
                                 double intercept_scaling, bool regularize_intercept,
                                 const py::dict& options, const py::object& callback,
                                 double bias_l1) {
  const auto opt = dual_cd_from_dict(options);  // parsed before the GIL is released
  DualCdPenalty pen;
  pen.l1 = l1;
  pen.l2 = l2;
  pen.bias_l1 = bias_l1;
  return run_linear_loss_solve(
      X, y, cost, loss, 0.1, 0.0, fit_intercept, intercept_scaling, regularize_intercept,
      py::none(), callback,
      [&](const LinearProblem& p, const LossSpec& s, const Callbacks& c, const double*) {
        return solve_dual_cd_elastic_net(p, s, pen, opt, c);
      });
}

}  // namespace

void bind_dual_cd(py::module_& m) {
  register_dual_cd_option_table();
  def_linear_loss_fit(m, "fit_dual_cd", &dual_cd_from_dict,
                      [](auto&&... a) { return solve_dual_cd(a...); });
  m.def("fit_dual_cd_elastic_net", &fit_dual_cd_elastic_net, py::arg("X"), py::arg("y"),
        py::arg("cost"), py::arg("loss"), py::arg("l1"), py::arg("l2"), py::arg("fit_intercept"),
        py::arg("intercept_scaling"), py::arg("regularize_intercept"), py::arg("options"),
        py::arg("callback"), py::arg("bias_l1") = 0.0);
}

}  // namespace svmkit::py_bind
