// First-order solvers: sgd (primal), homotopy (hard-margin), adagrad_dual (kernel dual).
// Conversion only; the GIL is released around every solve.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/adagrad_dual.hpp"
#include "svmkit/solvers/first_order.hpp"
#include "svmkit/solvers/homotopy.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_CONVERSIONS(FirstOrderOptions, first_order, SVMKIT_FIRST_ORDER_OPTIONS)
SVMKIT_DEFINE_OPTION_CONVERSIONS(HomotopyOptions, homotopy, SVMKIT_HOMOTOPY_OPTIONS)
SVMKIT_DEFINE_OPTION_CONVERSIONS(AdaGradDualOptions, adagrad_dual, SVMKIT_ADAGRAD_DUAL_OPTIONS)

namespace {

py::dict fit_first_order(const py::object& X, const py::object& y, const py::object& cost,
                         const std::string& loss, double sigma, double epsilon, bool fit_intercept,
                         double intercept_scaling, bool regularize_intercept, const py::object& w0,
                         const py::dict& options, const py::object& callback) {
  const auto opt =
      first_order_from_dict(options);  // parsed (and validated) before the GIL is released
  return run_linear_loss_solve(X, y, cost, loss, sigma, epsilon, fit_intercept, intercept_scaling,
                               regularize_intercept, w0, callback,
                               [&](const LinearProblem& p, const LossSpec& l, const Callbacks& c,
                                   const double* w) { return solve_first_order(p, l, opt, c, w); });
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
      "first_order_defaults", [] { return first_order_to_dict(FirstOrderOptions{}); },
      "Default sgd options (the single source of the defaults).");
  m.def(
      "homotopy_defaults", [] { return homotopy_to_dict(HomotopyOptions{}); },
      "Default homotopy options (the single source of the defaults).");
  m.def(
      "adagrad_dual_defaults", [] { return adagrad_dual_to_dict(AdaGradDualOptions{}); },
      "Default adagrad_dual options (the single source of the defaults).");
  m.def("fit_first_order", &fit_first_order, py::arg("X"), py::arg("y"), py::arg("cost"),
        py::arg("loss"), py::arg("sigma"), py::arg("epsilon"), py::arg("fit_intercept"),
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
