// Homotopic subgradient method for the (hard-margin) linear SVM.
//
// Problem: for linearly separable data the hard-margin SVM
//   min ||w||  subject to  y_j (w.x_j + b) >= 1 for all j,
// reached as the limit lambda -> 0 of the regularized hinge problems (paper 004 eq. 2)
//   F_lambda(w, b) = lambda/2 ||w||^2 + 1/n sum_j c_j max(0, 1 - y_j (w.x_j + b))
// with per-sample weights c_j (problem.cost; 1 for the paper's setting). With lambda_min > 0
// the homotopy stops shrinking at lambda_min and the method solves the soft-margin problem
// F_{lambda_min} (= the LIBLINEAR form with C = 1 / (lambda_min n)).
//
// Method: paper 004 (Molitor, Needell, Ward), Algorithm 1. Outer iteration s = 0, 1, ...:
//   lambda_s = max(lambda_scale (s0 + s)^-p, lambda_min), t_s = ceil((s0 + s)^r),
//   eta_s = K (s0 + s - 1)^-alpha / sqrt(t_s),
// with eps0 = (log s0 - log(s0 - 1)) / log s0, alpha = min((r - 2p) / (2 (1 + eps0)), 1 - p),
// K = max(4, s0^p (s0 - 1)^alpha / 2) (the algorithm box's constant C, here `step_constant`).
// From the previous estimate, t_s subgradient steps w <- (1 - lambda_s eta_s) w +
// eta_s/n sum_{j: y_j z_j <= 1} c_j y_j x_j are taken; the next estimate is their average
// (or, with iterate = "best", the inner iterate of smallest F_lambda_s, section 6.4).
// Options: normalized steps w <- w - eta g/||g|| (section 6.1), stochastic subgradients on
// mini-batches drawn from a private std::mt19937_64 (section 6.3).
// Bias: with fit_intercept and regularize_intercept = false the bias is an unregularized
// coordinate (subgradient steps, no shrinkage), and the reported bias is recomputed from the
// final w by eq. (15), b = -(min_{y=+1} x.w + max_{y=-1} x.w) / 2, the best bias for that w
// (hard margin only; with lambda_min > 0 the iterate's own bias is reported).
// With regularize_intercept = true the bias is an ordinary (shrunk) coordinate of the data
// augmented by intercept_scaling, i.e. the hard-margin problem min ||w||^2 + b^2.
//
// Stopping rule: after each outer iteration the margin gap is bounded by a computable
// certificate. Lower bound: the normalized margin gamma(w) = min_j y_j z_j / ||w|| of the
// current estimate. Upper bound: for any convex weights a (here the violation frequencies of
// the inner iterations) the max margin is at most ||sum_j a_j y_j x_j|| (homogeneous case:
// the min-norm point of the hull of {y_j x_j}) or half the distance between a point of each
// class's hull (unregularized bias). The solve stops when (upper - lower) / upper <= tol,
// (strict, so tol = 0 runs all max_iter outer iterations) or after max_iter outer iterations.
// Non-separable data: the estimate never separates the classes (gamma(w) <= 0). When the
// iteration limit is reached with gamma(w) <= 0, HomotopyResult::separable is false (the
// bindings warn): the data are not separable, or their margin is too small to be reached in
// max_iter outer iterations (a first-order method cannot tell these apart early; e.g. the
// standardized breast-cancer data are separable but stay unseparated for 60+ outer
// iterations). Optionally (separability_check_after > 0) the solve stops early once
// gamma(w) <= 0 held for separability_patience consecutive outer iterations after
// separability_check_after outer iterations.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

struct HomotopyOptions {
  long long max_iter = 100;    // maximum number of outer iterations S
  double tol = 1e-4;           // relative margin-gap tolerance (certificate above)
  double p = 0.5;              // lambda_s = (s0 + s)^-p, 0 < p < 1
  double r = 2.0;              // t_s = (s0 + s)^r inner steps, r > 2p
  double s0 = 10.0;            // initial offset, s0 > 2
  double step_constant = 0.0;  // the algorithm box's C in eta_s; <= 0 = the box's formula
  double lambda_min = 0.0;     // floor of lambda_s; 0 = hard margin (C = inf)
  // lambda_s = lambda_scale (s0 + s)^-p; 1 = the paper. A scale k is the same as the loss
  // multiplied by 1/k (1/n turns the paper's mean hinge loss into a sum), so lambda_s reaches
  // the data's lambda' (below which the regularized solution is the hard-margin one) sooner.
  double lambda_scale = 1.0;
  std::string iterate = "average";         // "average" (Algorithm 1) or "best" (section 6.4)
  bool normalized_steps = false;           // section 6.1: steps of length eta_s along g / ||g||
  long long batch_size = 0;                // section 6.3: rows per subgradient; 0 (or >= n) = all
  std::uint64_t seed = 0;                  // seed of the solver's own std::mt19937_64 (stochastic)
  long long separability_check_after = 0;  // > 0: judge non-separability early (see above)
  long long separability_patience = 5;     // consecutive outer iterations with gamma(w) <= 0
  // Hard margin only: divide the final (w, b) by its smallest functional margin
  // min_j y_j z_j (> 0), so the hard-margin constraints hold with equality at the closest
  // points. This removes the O(lambda_s) shrinkage of ||w|| that the homotopy has not yet
  // undone; the direction (angle and margin gaps) is unchanged. false = Algorithm 1's raw
  // output. Recorded iterates are never rescaled.
  bool rescale = true;
  bool record_iterates = false;  // keep the estimate after every outer iteration
  int n_threads = 0;             // OpenMP threads; <= 0 uses the OpenMP default
  bool record_history = true;    // keep one IterationRecord per outer iteration
  bool check_input = true;       // validate the problem (including finiteness of X) first
};

// clang-format off
#define SVMKIT_HOMOTOPY_OPTIONS(X)                                                          \
  X(max_iter) X(tol) X(p) X(r) X(s0) X(step_constant) X(lambda_min) X(lambda_scale)        \
  X(iterate) X(normalized_steps) X(batch_size) X(seed) X(separability_check_after)         \
  X(separability_patience) X(rescale) X(record_iterates) X(n_threads) X(record_history)    \
  X(check_input)
// clang-format on

struct HomotopyResult {
  // solution = (w, b) with b already in units of the intercept coordinate (b * scale adds to
  // w.x); objective = F_lambda at the last lambda; history: objective F_{lambda_s}(estimate),
  // optimality = margin gap, smoothing = lambda_s, step = eta_s, inner_iterations = t_s,
  // active_size = violators at the estimate, passes = cumulative passes.
  SolveResult result;
  bool separable = true;         // false when the non-separability rule fired
  double margin = kNaN;          // normalized margin gamma(w) of the solution
  double margin_upper = kNaN;    // best upper bound on the max margin found
  double step_constant = kNaN;   // the K actually used
  std::vector<double> iterates;  // record_iterates: one row of solution_size per outer iteration
};

void validate_options(const HomotopyOptions& options);

// Solves from w0 = 0 (Algorithm 1 initializes the estimate at 0). y must be +-1.
HomotopyResult solve_homotopy(const LinearProblem& problem, const HomotopyOptions& options = {},
                              const Callbacks& callbacks = {});

}  // namespace svmkit
