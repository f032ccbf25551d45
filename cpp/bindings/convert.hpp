// Conversion between Python objects and svmkit's C++ types. No numerics here.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/kernel.hpp"
#include "svmkit/loss.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit::py_bind {

namespace py = pybind11;

// numpy's NPY_ARRAY_ALIGNED requirement. numpy arrays need not be aligned to their item size
// (np.frombuffer at an odd offset, pickle protocol 5 buffers, Dask blocks), and a misaligned
// double or index load is undefined behaviour (UBSan reports it). An array_t parameter with
// this flag makes numpy copy such an array (its copies are aligned); an aligned one is passed
// through as it is.
inline constexpr int kAligned = py::detail::npy_api::NPY_ARRAY_ALIGNED_;
// A read-only input array of T as a pybind11 parameter: any layout (read through strides).
template <class T>
using InArray = py::array_t<T, py::array::forcecast | kAligned>;
// The same, C-contiguous (copied when it is not).
template <class T>
using InArrayC = py::array_t<T, py::array::c_style | py::array::forcecast | kAligned>;

// `a` itself when numpy flags it aligned, else an aligned copy in the same memory order.
py::array aligned(const py::array& a);

// A view over a numpy array or a CSR tuple (data, indices, indptr, n_rows, n_cols), keeping
// the Python objects alive as long as the view is used. Nothing is copied except a misaligned
// array (see aligned()); arrays that are not in a served layout are rejected (the Python layer
// converts them first).
struct ViewHolder {
  MatrixView view;
  std::vector<py::object> keep_alive;
};
ViewHolder to_view(const py::object& X);

// A read-only double vector of the given length (or any length when expected < 0).
const double* double_ptr(const py::object& arr, long long expected, const char* name,
                         std::vector<py::object>& keep_alive);

// A stop flag for fits running on worker threads (the parallel one-vs-rest / one-vs-one loop,
// svmkit/_threads.py), bound as _core.StopToken. Passed in place of a fit's callback, it is
// read by interrupted() without the GIL: a Python callable there would take the GIL once per
// outer iteration, and two fits queueing on it ran 3.5x slower each (dual_cd on digits, 10
// one-vs-rest fits of 1000 passes: 0.012 s a fit against 0.0035 s). It also spares the
// solvers the per-iteration records that a callable receives.
struct StopToken {
  std::shared_ptr<std::atomic<bool>> flag = std::make_shared<std::atomic<bool>>(false);
};

// Callbacks that call back into Python with the GIL held. interrupted() notices Ctrl-C
// (PyErr_CheckSignals); on_iteration() calls the Python callable with a dict. A Python
// exception raised in either is kept and re-raised by rethrow_if_any() after the solve.
// on_iteration may also be a StopToken (no Python call; see above) or None.
struct PythonCallbacks {
  Callbacks callbacks;
  std::shared_ptr<std::optional<py::error_already_set>> error;
  void rethrow_if_any();
};
PythonCallbacks make_callbacks(const py::object& on_iteration);

// A LinearProblem over a converted X, borrowing y and the per-sample costs (checked to be
// contiguous float64 vectors of one entry per row); `keep` holds them alive.
LinearProblem make_problem(const ViewHolder& X, const py::object& y, const py::object& cost,
                           bool fit_intercept, double intercept_scaling, bool regularize_intercept,
                           std::vector<py::object>& keep);
// A loss by name with its parameters (unknown names raise ValueError).
LossSpec make_loss(const std::string& loss, double sigma, double epsilon);

py::dict record_to_dict(const IterationRecord& r);
// Moves the solution into the dict's array (the result is consumed).
py::dict result_to_dict(SolveResult&& r);

// The status name of a SolveResult.
std::string status_name(SolverStatus s);

// The tail every fit_* binding shares: solve(callbacks) runs with the GIL released, what the
// Python callback raised is rethrown after it, and the result becomes a dict.
template <class Solve>
py::dict solve_without_gil(const py::object& callback, Solve&& solve) {
  PythonCallbacks cb = make_callbacks(callback);
  SolveResult res;
  {
    py::gil_scoped_release release;
    res = solve(cb.callbacks);
  }
  cb.rethrow_if_any();
  return result_to_dict(std::move(res));
}

// A kernel by name with its parameters (unknown names raise ValueError).
KernelSpec make_kernel_spec(const std::string& kind, double gamma, double coef0, int degree);

// The rows a kernel solver trains on: all n_all rows of X when `rows` is None, else the given
// 1-D indices, copied into `row_idx` (which must outlive the solve). Returns their count and
// sets `rows_ptr` (nullptr for all rows).
Index select_rows(const py::object& rows, Index n_all, std::vector<Index>& row_idx,
                  const Index*& rows_ptr);

// The binding body shared by the loss-based linear solvers (TRON, sgd, dual_cd, l1_cd): builds
// the problem and the loss without copying X and runs solve(problem, loss, callbacks, w0)
// through solve_without_gil.
template <class Solve>
py::dict run_linear_loss_solve(const py::object& X, const py::object& y, const py::object& cost,
                               const std::string& loss, double sigma, double epsilon,
                               bool fit_intercept, double intercept_scaling,
                               bool regularize_intercept, const py::object& w0,
                               const py::object& callback, Solve&& solve) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem problem =
      make_problem(view, y, cost, fit_intercept, intercept_scaling, regularize_intercept, keep);
  const LossSpec spec = make_loss(loss, sigma, epsilon);
  const double* w0p =
      w0.is_none() ? nullptr : double_ptr(w0, solution_size(problem), "initial solution", keep);
  return solve_without_gil(callback,
                           [&](const Callbacks& c) { return solve(problem, spec, c, w0p); });
}

// Binds `name` as fit_NAME(X, y, cost, loss, sigma, epsilon, fit_intercept, intercept_scaling,
// regularize_intercept, w0, options, callback) for a loss-based linear solver whose options
// are parsed by from_dict (before the GIL is released) and which solve(problem, loss, opt,
// callbacks, w0) runs.
template <class FromDict, class Solve>
void def_linear_loss_fit(py::module_& m, const char* name, FromDict from_dict, Solve solve) {
  m.def(
      name,
      [from_dict, solve](const py::object& X, const py::object& y, const py::object& cost,
                         const std::string& loss, double sigma, double epsilon, bool fit_intercept,
                         double intercept_scaling, bool regularize_intercept, const py::object& w0,
                         const py::dict& options, const py::object& callback) {
        const auto opt = from_dict(options);
        return run_linear_loss_solve(
            X, y, cost, loss, sigma, epsilon, fit_intercept, intercept_scaling,
            regularize_intercept, w0, callback,
            [&](const LinearProblem& p, const LossSpec& l, const Callbacks& c, const double* w) {
              return solve(p, l, opt, c, w);
            });
      },
      py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("loss"), py::arg("sigma"),
      py::arg("epsilon"), py::arg("fit_intercept"), py::arg("intercept_scaling"),
      py::arg("regularize_intercept"), py::arg("w0"), py::arg("options"), py::arg("callback"));
}

}  // namespace svmkit::py_bind
