// l1_cd fits (CDN for the l1 / elastic-net squared-hinge SVM).
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/l1_cd.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(L1CdOptions, l1_cd, SVMKIT_L1_CD_OPTIONS)

namespace {

py::dict fit_l1_cd(const py::object& X, const py::object& y, const py::object& cost,
                   const std::string& loss, double l1, double l2, bool fit_intercept,
                   double intercept_scaling, bool regularize_intercept, const py::object& w0,
                   const py::dict& options, const py::object& callback, double sigma) {
  const auto opt = l1_cd_from_dict(options);  // parsed before the GIL is released
  L1CdPenalty pen;
  pen.l1 = l1;
  pen.l2 = l2;
  return run_linear_loss_solve(X, y, cost, loss, sigma, 0.0, fit_intercept, intercept_scaling,
                               regularize_intercept, w0, callback,
                               [&](const LinearProblem& p, const LossSpec& s, const Callbacks& c,
                                   const double* w) { return solve_l1_cd(p, s, pen, opt, c, w); });
}

}  // namespace

void bind_l1_cd(py::module_& m) {
  register_l1_cd_option_table();
  m.def("fit_l1_cd", &fit_l1_cd, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("loss"),
        py::arg("l1"), py::arg("l2"), py::arg("fit_intercept"), py::arg("intercept_scaling"),
        py::arg("regularize_intercept"), py::arg("w0"), py::arg("options"), py::arg("callback"),
        py::arg("sigma") = 0.1);
}

}  // namespace svmkit::py_bind
