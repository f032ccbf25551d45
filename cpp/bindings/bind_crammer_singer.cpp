// Crammer-Singer multiclass fits (LIBLINEAR's -s 4) and linear one-class fits (-s 21).
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/solvers/crammer_singer.hpp"
#include "svmkit/solvers/linear_one_class.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(CrammerSingerOptions, crammer_singer, SVMKIT_CRAMMER_SINGER_OPTIONS)
SVMKIT_DEFINE_OPTION_TABLE(LinearOneClassOptions, linear_one_class, SVMKIT_LINEAR_ONE_CLASS_OPTIONS)

namespace {

// The shared body: the problem without copying X, the GIL released around solve(problem, cb).
template <class Solve>
py::dict run_problem_solve(const py::object& X, const py::object& y, const py::object& cost,
                           bool fit_intercept, double intercept_scaling, const py::object& callback,
                           Solve&& solve) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem problem =
      make_problem(view, y, cost, fit_intercept, intercept_scaling, true, keep);
  return solve_without_gil(callback, [&](const Callbacks& c) { return solve(problem, c); });
}

py::dict fit_crammer_singer(const py::object& X, const py::object& y, const py::object& cost,
                            int n_classes, bool fit_intercept, double intercept_scaling,
                            const py::dict& options, const py::object& callback) {
  const auto opt = crammer_singer_from_dict(options);  // parsed before the GIL is released
  return run_problem_solve(X, y, cost, fit_intercept, intercept_scaling, callback,
                           [&](const LinearProblem& p, const Callbacks& c) {
                             return solve_crammer_singer(p, n_classes, opt, c);
                           });
}

py::dict fit_linear_one_class(const py::object& X, const py::object& cost, double nu,
                              const py::dict& options, const py::object& callback) {
  const auto opt = linear_one_class_from_dict(options);
  // y is not used by the solver; the costs stand in for it (same length, kept alive).
  return run_problem_solve(X, cost, cost, false, 1.0, callback,
                           [&](const LinearProblem& p, const Callbacks& c) {
                             return solve_linear_one_class(p, nu, opt, c);
                           });
}

}  // namespace

void bind_crammer_singer(py::module_& m) {
  register_crammer_singer_option_table();
  m.def("fit_crammer_singer", &fit_crammer_singer, py::arg("X"), py::arg("y"), py::arg("cost"),
        py::arg("n_classes"), py::arg("fit_intercept"), py::arg("intercept_scaling"),
        py::arg("options"), py::arg("callback"));
  register_linear_one_class_option_table();
  m.def("fit_linear_one_class", &fit_linear_one_class, py::arg("X"), py::arg("cost"), py::arg("nu"),
        py::arg("options"), py::arg("callback"));
}

}  // namespace svmkit::py_bind
