// sgd: the primal first-order solver (solvers/sgd.hpp).
// Conversion only; the GIL is released around the solve.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/sgd.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(SgdOptions, sgd, SVMKIT_SGD_OPTIONS)

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

}  // namespace

void bind_sgd(py::module_& m) {
  m.def(
      "sgd_defaults", [] { return sgd_to_dict(SgdOptions{}); },
      "Default sgd options (the single source of the defaults).");
  m.def("sgd_option_records", &sgd_records_to_list,
        "sgd's option records: name, type, default, valid range and doc of each option.");
  m.def("fit_sgd", &fit_sgd, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("loss"),
        py::arg("sigma"), py::arg("epsilon"), py::arg("fit_intercept"),
        py::arg("intercept_scaling"), py::arg("regularize_intercept"), py::arg("w0"),
        py::arg("options"), py::arg("callback"));
}

}  // namespace svmkit::py_bind
