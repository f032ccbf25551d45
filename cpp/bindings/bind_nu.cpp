// nu-SVC, one-class SVM and nu-SVR fits (solvers/smo_nu.hpp). Conversion only.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <string>
#include <vector>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/smo_nu.hpp"

namespace svmkit::py_bind {

// The same inline definitions as bind_kernel.cpp's (SMO's options serve the nu solver).
SVMKIT_DEFINE_OPTION_TABLE(SmoOptions, smo, SVMKIT_SMO_OPTIONS)

namespace {

NuFormulation nu_formulation_from(const std::string& f) {
  if (f == "nu_svc") return NuFormulation::nu_svc;
  if (f == "one_class") return NuFormulation::one_class;
  if (f == "nu_svr") return NuFormulation::nu_svr;
  throw_invalid("unknown nu formulation '" + f + "'; expected nu_svc, one_class or nu_svr");
}

py::dict fit_smo_nu(const py::object& X, const py::object& y, const py::object& cost,
                    const py::object& rows, const std::string& kernel, double gamma, double coef0,
                    int degree, const std::string& formulation, double nu, const py::dict& options,
                    const py::object& callback) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  std::vector<Index> row_idx;
  NuProblem pr;
  pr.X = view.view;
  const Index n = select_rows(rows, rows_of(view.view), row_idx, pr.rows);
  pr.n = n;
  pr.formulation = nu_formulation_from(formulation);
  if (pr.formulation != NuFormulation::one_class) pr.y = double_ptr(y, n, "y", keep);
  pr.cost = double_ptr(cost, n, "sample costs", keep);
  pr.kernel = make_kernel_spec(kernel, gamma, coef0, degree);
  pr.nu = nu;
  const SmoOptions opt = smo_from_dict(options);
  return solve_without_gil(callback, [&](const Callbacks& c) { return solve_smo_nu(pr, opt, c); });
}

}  // namespace

void bind_nu(py::module_& m) {
  m.def("fit_smo_nu", &fit_smo_nu, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("rows"),
        py::arg("kernel"), py::arg("gamma"), py::arg("coef0"), py::arg("degree"),
        py::arg("formulation"), py::arg("nu"), py::arg("options"), py::arg("callback"),
        "nu-SVC, one-class or nu-SVR dual by SMO (solvers/smo_nu.hpp); SMO's options.");
}

}  // namespace svmkit::py_bind
