// adagrad_dual: AdaGrad on the augmented Lagrangian kernel dual (solvers/adagrad_dual.hpp).
// Conversion only; the GIL is released around the solve.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/adagrad_dual.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(AdaGradDualOptions, adagrad_dual, SVMKIT_ADAGRAD_DUAL_OPTIONS)

namespace {

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
  p.kernel = make_kernel_spec(kernel, gamma, coef0, degree);
  const AdaGradDualOptions opt = adagrad_dual_from_dict(options);
  return solve_without_gil(callback,
                           [&](const Callbacks& c) { return solve_adagrad_dual(p, opt, c); });
}

}  // namespace

void bind_adagrad_dual(py::module_& m) {
  register_adagrad_dual_option_table();
  m.def("fit_adagrad_dual", &fit_adagrad_dual, py::arg("X"), py::arg("y"), py::arg("cost"),
        py::arg("regression"), py::arg("epsilon"), py::arg("kernel"), py::arg("gamma"),
        py::arg("coef0"), py::arg("degree"), py::arg("options"), py::arg("callback"));
}

}  // namespace svmkit::py_bind
