// Solver-specific outputs carried in SolveResult::extras (one alternative per solver that has
// any). Everything every solver reports (status, solution, objective, optimality, counts,
// time, history) lives in SolveResult itself; these structs hold only what is particular to
// one method.
#pragma once

#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "svmkit/data.hpp"

namespace svmkit {

// solve_smsvm (solvers/smsvm.hpp).
struct SmsvmExtras {
  double final_alpha = 0.0;              // the last alpha at which a Newton step was taken
  double smoothed_objective = 0.0;       // f_alpha at the solution, in F's (LIBLINEAR) scale
  long long line_search_failures = 0;    // Armijo searches that fell below s_min
  long long active_set_adjustments = 0;  // activations of inactive coordinates (Algorithm 3)
  long long woodbury_solves = 0;         // matrix-free Newton solves with a sample-space
                                         // (Woodbury) preconditioner
  long long cg_iterations = 0;           // CG iterations of the matrix-free Newton solves
  bool polished = false;                 // l1 runs: the final polish gave the solution
  long long polish_rounds = 0;           // linear systems solved by the final polish
};

// solve_smo (solvers/smo.hpp). SolveResult::solution holds alpha per sample: a_i (SVC, >= 0)
// or a+_i - a-_i (SVR).
struct SmoExtras {
  std::vector<double> dual_coef;  // per sample: y_i a_i (SVC) or a+_i - a-_i (SVR)
  double bias = 0.0;              // the intercept b of f(x) = sum_i dual_coef_i K(x_i, x) + b
  long long kernel_rows = 0;      // kernel rows computed (cache misses)
  long long cache_hits = 0;       // kernel rows served from the cache
  double cache_peak_mb = 0.0;     // peak kernel-cache memory used, MB
  bool feature_major = false;     // kernel rows came from a feature-major copy of X (smo.cpp)
  // solve_smo_nu only (solvers/smo_nu.hpp): the multiplier r of the e^T a constraint
  // (nu-SVC's scale, nu-SVR's -epsilon, one-class's rho); NaN for solve_smo.
  double nu_r = std::numeric_limits<double>::quiet_NaN();
};

// solve_homotopy (solvers/homotopy.hpp). Non-separable data end with status infeasible and the
// Farkas certificate in SolveResult::message.
struct HomotopyExtras {
  static constexpr double nan = std::numeric_limits<double>::quiet_NaN();
  double certificate_bound = nan;  // last Farkas bound on the max margin tried (NaN: none)
  double margin = nan;             // normalized margin gamma(w) of the solution
  double margin_upper = nan;       // best upper bound on the max margin found
  double step_constant = nan;      // the step constant K actually used
  std::vector<double> iterates;    // record_iterates: one row of solution_size per outer iteration
};

// solve_nssvm (solvers/nssvm.hpp). SolveResult::solution is w followed by the bias.
struct NssvmExtras {
  std::vector<Index> support;      // indices i with alpha_i != 0, increasing
  std::vector<double> alpha;       // alpha_i on support (y_i alpha_i is the weight of x_i in w)
  std::vector<Index> working_set;  // the final working set T (increasing)
  double mu = 0.0;                 // multiplier of <alpha, y> = 0 at the returned point
  double bias = 0.0;               // the returned intercept (mu or its refinement)
  double accuracy = 0.0;           // training accuracy of the returned model
  double best_accuracy = 0.0;      // best training accuracy over the iterates
  bool returned_best = false;      // whether keep_best replaced the last iterate
  long long s = 0;                 // final sparsity level
  long long s0 = 0;                // initial sparsity level (after defaults)
  double eta = 0.0;                // eta used
  double c = 0.0;                  // c used
  std::vector<double> accuracy_history;  // training accuracy after each iteration
  std::vector<double> bias_history;      // bias after each iteration
};

// solve_adagrad_dual (solvers/adagrad_dual.hpp). SolveResult::solution holds the dual
// variables a (n for SVC, 2n = [a+; a-] for SVR); SolveResult::optimality is the largest
// violation of the box and equality constraints.
struct AdaGradDualExtras {
  std::vector<double> coef;  // dual coefficients: y_i a_i (SVC) or a+_i - a-_i (SVR), length n
  double bias = 0.0;         // intercept b of f(x) = sum_i coef_i K(x_i, x) + b
};

// solve_crammer_singer (solvers/crammer_singer.hpp).
struct CrammerSingerExtras {
  double dual_objective = 0.0;  // -f(a): the dual value in the primal's sign (P - it = gap)
  int n_classes = 0;            // k: the solution holds k blocks
};

// solve_linear_one_class (solvers/linear_one_class.hpp).
struct LinearOneClassExtras {
  double rho = 0.0;             // the offset: decision(x) = w.x - rho
  double dual_objective = 0.0;  // f(a) = 1/2 ||w||^2 (LIBSVM's one-class dual value)
  std::vector<double> alpha;    // the dual variables a_i in [0, U_i]
};

// solve_sgd (solvers/sgd.hpp): how the steps were taken, and their cost in coordinate updates.
struct SgdExtras {
  std::string step_mode;  // "dense" (every coordinate every step) or the lazy closed form used
                          // for the features a step does not touch: "linear", "shrink",
                          // "adagrad" or "adadelta" (sgd.cpp, LazyMode)
  long long coordinate_updates = 0;  // coordinate steps plus lazy catch-ups, over the whole run
};

// The one optional member of SolveResult for solver-specific outputs; monostate for solvers
// that have none (TRON, dual_cd, l1_cd, ipm).
using SolverExtras =
    std::variant<std::monostate, SmsvmExtras, SmoExtras, HomotopyExtras, NssvmExtras,
                 AdaGradDualExtras, CrammerSingerExtras, LinearOneClassExtras, SgdExtras>;

}  // namespace svmkit
