// Conversion between Python objects and svmkit's C++ types. No numerics here.
#pragma once

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/loss.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit::py_bind {

namespace py = pybind11;

// A view over a numpy array or a CSR tuple (data, indices, indptr, n_rows, n_cols), keeping
// the Python objects alive as long as the view is used. Nothing is copied: arrays that are
// not in a served layout are rejected (the Python layer converts them first).
struct ViewHolder {
  MatrixView view;
  std::vector<py::object> keep_alive;
};
ViewHolder to_view(const py::object& X);

// A read-only double vector of the given length (or any length when expected < 0).
const double* double_ptr(const py::object& arr, long long expected, const char* name,
                         std::vector<py::object>& keep_alive);

// Callbacks that call back into Python with the GIL held. interrupted() notices Ctrl-C
// (PyErr_CheckSignals); on_iteration() calls the Python callable with a dict. A Python
// exception raised in either is kept and re-raised by rethrow_if_any() after the solve.
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
py::dict result_to_dict(const SolveResult& r);

// The status name of a SolveResult.
std::string status_name(SolverStatus s);

// The binding body shared by the loss-based linear solvers (TRON, sgd): builds the problem
// and the loss without copying X, releases the GIL around solve(problem, loss, callbacks, w0)
// and rethrows what the Python callback raised.
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
  PythonCallbacks cb = make_callbacks(callback);
  SolveResult res;
  {
    py::gil_scoped_release release;
    res = solve(problem, spec, cb.callbacks, w0p);
  }
  cb.rethrow_if_any();
  return result_to_dict(res);
}

}  // namespace svmkit::py_bind
