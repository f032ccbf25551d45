// SmSVM fits (paper 000) and the LINESEARCHL1 kernel for property tests.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <limits>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/line_search_l1.hpp"
#include "svmkit/solvers/smsvm.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(SmsvmOptions, smsvm, SVMKIT_SMSVM_OPTIONS)

namespace {

py::dict fit_smsvm(const py::object& X, const py::object& y, const py::object& cost, double l2,
                   double l1, bool fit_intercept, double intercept_scaling,
                   bool regularize_intercept, const py::object& w0, double warm_alpha,
                   const py::dict& options, const py::object& callback) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem p =
      make_problem(view, y, cost, fit_intercept, intercept_scaling, regularize_intercept, keep);
  const SmsvmOptions opt = smsvm_from_dict(options);
  SmsvmPenalty pen;
  pen.l2 = l2;
  pen.l1 = l1;
  SmsvmWarmStart warm;
  warm.w0 = w0.is_none() ? nullptr : double_ptr(w0, solution_size(p), "initial solution", keep);
  warm.alpha = warm_alpha;
  return solve_without_gil(callback,
                           [&](const Callbacks& c) { return solve_smsvm(p, pen, opt, c, warm); });
}

py::dict line_search_l1_py(const InArrayC<double>& w, const InArrayC<double>& d, double a, double b,
                           double mu, double s_max) {
  if (w.ndim() != 1 || d.ndim() != 1 || w.shape(0) != d.shape(0))
    throw_invalid("line_search_l1: w and d must be 1-D arrays of the same length");
  const auto m = static_cast<std::int64_t>(w.shape(0));
  const LineSearchL1Result r = line_search_l1(w.data(), d.data(), m, a, b, mu, s_max);
  py::array_t<double> out(static_cast<py::ssize_t>(m));
  apply_step_l1(w.data(), d.data(), m, r, out.mutable_data());
  py::dict res;
  res["s"] = r.s;
  res["j1"] = r.j1;
  res["j2"] = r.j2;
  res["at_breakpoint"] = r.at_breakpoint;
  res["unbounded"] = r.unbounded;
  res["slope0"] = r.slope0;
  res["w_new"] = out;
  return res;
}

}  // namespace

void bind_smsvm(py::module_& m) {
  register_smsvm_option_table();
  m.def("fit_smsvm", &fit_smsvm, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("l2"),
        py::arg("l1"), py::arg("fit_intercept"), py::arg("intercept_scaling"),
        py::arg("regularize_intercept"), py::arg("w0"), py::arg("warm_alpha"), py::arg("options"),
        py::arg("callback"));
  m.def("line_search_l1", &line_search_l1_py, py::arg("w"), py::arg("d"), py::arg("a"),
        py::arg("b"), py::arg("mu"), py::arg("s_max") = std::numeric_limits<double>::infinity(),
        "Minimizes a s^2 + b s + mu ||w + s d||_1 over [0, s_max] (paper 000, Algorithm 4).");
}

}  // namespace svmkit::py_bind
