// NSSVM (sparsity-constrained SVM, paper 003): fit_nssvm and nssvm_defaults.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/nssvm.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(NssvmOptions, nssvm, SVMKIT_NSSVM_OPTIONS)

namespace {

// Labels y (-1/+1 doubles) are encoded by the Python estimator; the solve runs without the GIL.
py::dict fit_nssvm(const py::object& X, const py::object& y, const py::dict& options,
                   const py::object& callback) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const auto m = static_cast<long long>(rows_of(view.view));
  const double* yp = double_ptr(y, m, "y", keep);
  const NssvmOptions opt = nssvm_from_dict(options);
  return solve_without_gil(callback,
                           [&](const Callbacks& c) { return solve_nssvm(view.view, yp, opt, c); });
}

}  // namespace

void bind_nssvm(py::module_& m) {
  register_nssvm_option_table();
  m.def("nssvm_default_s0", &nssvm_default_s0, py::arg("m"), py::arg("n"),
        py::arg("s0_scale") = 1.0, "Default initial sparsity level ceil(s0_scale n ln(m/n)^2).");
  m.def("fit_nssvm", &fit_nssvm, py::arg("X"), py::arg("y"), py::arg("options"),
        py::arg("callback"));
}

}  // namespace svmkit::py_bind
