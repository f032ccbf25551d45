// First-order solvers: sgd (primal), homotopy (hard-margin), adagrad_dual (kernel dual).
// Conversion only; the GIL is released around every solve.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/adagrad_dual.hpp"
#include "svmkit/solvers/homotopy.hpp"
#include "svmkit/solvers/sgd.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(SgdOptions, sgd, SVMKIT_SGD_OPTIONS)
SVMKIT_DEFINE_OPTION_TABLE(HomotopyOptions, homotopy, SVMKIT_HOMOTOPY_OPTIONS)
SVMKIT_DEFINE_OPTION_TABLE(AdaGradDualOptions, adagrad_dual, SVMKIT_ADAGRAD_DUAL_OPTIONS)

namespace {

py::dict fit_sgd(const py::object& X, const py::object& y, const py::object& cost,
                 const std::string& loss, double sigma, double epsilon, bool fit_intercept,
                 double intercept_scaling, bool regularize_intercept, const py::object& w0,
                 const py::dict& options, const py::object& callback) {
  const auto opt = sgd_from_dict(options);  // parsed (and validated) before the GIL is released
  return run_linear_loss_solve(X, y, cost, loss, sigma, epsilon, fit_intercept, intercept_scaling,
                               regularize_intercept, w0, callback,
                               [&](const LinearProblem& p, const LossSpec& l, const Callbacks& c,
                                   const double* w) { return solve_sgd(p, l, opt, c, w); });
}

py::dict fit_homotopy(const py::object& X, const py::object& y, const py::object& cost,
                      bool fit_intercept, double intercept_scaling, bool regularize_intercept,
                      const py::dict& options, const py::object& callback) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem problem =
      make_problem(view, y, cost, fit_intercept, intercept_scaling, regularize_intercept, keep);
  const HomotopyOptions opt = homotopy_from_dict(options);
  PythonCallbacks cb = make_callbacks(callback);
  SolveResult res;
  {
    py::gil_scoped_release release;
    res = solve_homotopy(problem, opt, cb.callbacks);
  }
  cb.rethrow_if_any();
  return result_to_dict(res);
}

py::dict fit_adagrad_dual(const py::object& X, const py::object& y, const py::object& cost,
                          bool regression, double epsilon, const std::string& kernel, double gamma,
                          double coef0, int degree, const py::dict& options,
                          const py::object& callback) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const auto n = static_cast<long long>(rows_of(view.view));
  AdaGradDualProblem p;
  p.X = view.view;
  p.y = double_ptr(y, n, "y", keep);
  p.cost = double_ptr(cost, n, "sample costs", keep);
  p.regression = regression;
  p.epsilon = epsilon;
  p.kernel.kind = kernel_kind_from_string(kernel);
  p.kernel.gamma = gamma;
  p.kernel.coef0 = coef0;
  p.kernel.degree = degree;
  const AdaGradDualOptions opt = adagrad_dual_from_dict(options);
  PythonCallbacks cb = make_callbacks(callback);
  SolveResult res;
  {
    py::gil_scoped_release release;
    res = solve_adagrad_dual(p, opt, cb.callbacks);
  }
  cb.rethrow_if_any();
  return result_to_dict(res);
}

}  // namespace

void bind_first_order(py::module_& m) {
  m.def(
      "sgd_defaults", [] { return sgd_to_dict(SgdOptions{}); },
      "Default sgd options (the single source of the defaults).");
  m.def("sgd_option_records", &sgd_records_to_list,
        "sgd's option records: name, type, default, valid range and doc of each option.");
  m.def(
      "homotopy_defaults", [] { return homotopy_to_dict(HomotopyOptions{}); },
      "Default homotopy options (the single source of the defaults).");
  m.def("homotopy_option_records", &homotopy_records_to_list,
        "The homotopy's option records: name, type, default, valid range and doc.");
  m.def(
      "adagrad_dual_defaults", [] { return adagrad_dual_to_dict(AdaGradDualOptions{}); },
      "Default adagrad_dual options (the single source of the defaults).");
  m.def("adagrad_dual_option_records", &adagrad_dual_records_to_list,
        "adagrad_dual's option records: name, type, default, valid range and doc.");
  m.def("fit_sgd", &fit_sgd, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("loss"),
        py::arg("sigma"), py::arg("epsilon"), py::arg("fit_intercept"),
        py::arg("intercept_scaling"), py::arg("regularize_intercept"), py::arg("w0"),
        py::arg("options"), py::arg("callback"));
  m.def("fit_homotopy", &fit_homotopy, py::arg("X"), py::arg("y"), py::arg("cost"),
        py::arg("fit_intercept"), py::arg("intercept_scaling"), py::arg("regularize_intercept"),
        py::arg("options"), py::arg("callback"));
  m.def("fit_adagrad_dual", &fit_adagrad_dual, py::arg("X"), py::arg("y"), py::arg("cost"),
        py::arg("regression"), py::arg("epsilon"), py::arg("kernel"), py::arg("gamma"),
        py::arg("coef0"), py::arg("degree"), py::arg("options"), py::arg("callback"));
}

}  // namespace svmkit::py_bind
