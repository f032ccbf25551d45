// What every solver returns and how it reports progress.
#pragma once

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "svmkit/solver_extras.hpp"
#include "svmkit/status.hpp"

namespace svmkit {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One row of a solver's history. Fields a solver does not have stay NaN or -1.
struct IterationRecord {
  long long iteration = 0;          // outer iteration number, from 1
  double objective = kNaN;          // objective value at the iterate after this iteration
  double optimality = kNaN;         // gradient norm, KKT violation or gap, as the solver defines
  double step = kNaN;               // norm of the step taken (0 if rejected) or step length
  long long inner_iterations = -1;  // CG iterations, working-set steps, ... in this iteration
  long long active_size = -1;       // active set / working set / support size
  double smoothing = kNaN;          // smoothing parameter (alpha, sigma, lambda) where there is one
  double radius = kNaN;             // trust-region radius or similar
  double gap = kNaN;                // relative duality gap (P - D) / P where the solver has one
  long long passes = 0;             // cumulative passes over the data
  double time = 0.0;                // cumulative wall time in seconds
  bool accepted = true;             // whether the step was accepted
};

// Hooks a caller passes to a solve. Both are optional.
struct Callbacks {
  // Called after every outer iteration; return false to stop (status interrupted).
  std::function<bool(const IterationRecord&)> on_iteration;
  // Polled at least once per pass over the data; return true to stop (status interrupted).
  // Bindings use it to notice Ctrl-C.
  std::function<bool()> interrupted;

  bool poll() const { return interrupted && interrupted(); }
};

// The result of a solve.
struct SolveResult {
  SolverStatus status = SolverStatus::max_iter;
  std::vector<double> solution;    // the solver's variables (w followed by b for linear solvers)
  double objective = kNaN;         // objective at the solution
  double optimality = kNaN;        // final value of the solver's stopping measure
  long long iterations = 0;        // outer iterations
  long long inner_iterations = 0;  // total inner iterations (CG steps, ...)
  long long passes = 0;            // passes over the data
  double time = 0.0;               // wall time in seconds
  std::vector<IterationRecord> history;  // one record per outer iteration (if recorded)
  std::string message;  // what the status means here: the certificate for infeasible, the size
                        // and the option that bounds it for out_of_memory; may be empty
  SolverExtras extras;  // solver-specific outputs (solver_extras.hpp); monostate if none
};

// The end of an outer iteration, for every solver: rec goes to res.history when record_history
// is set and to callbacks.on_iteration. False when the callback asks to stop (the solver then
// ends with status interrupted).
inline bool report_iteration(SolveResult& res, const IterationRecord& rec, bool record_history,
                             const Callbacks& callbacks) {
  if (record_history) res.history.push_back(rec);
  return !callbacks.on_iteration || callbacks.on_iteration(rec);
}

}  // namespace svmkit
