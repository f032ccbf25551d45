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
//   eta_s = step_scale K (s0 + s - 1)^-alpha / sqrt(t_s),
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
// Scale of lambda (a documented departure, measured in bench/results/homotopy.md): with the
// paper's mean loss, lambda_s = (s0 + s)^-p. Theorem 3.1's bias term L lambda_s / (2 lambda'^2)
// vanishes only once lambda_s <= lambda', and lambda' = 1 / (n max_j a_j) (a = hard-margin dual
// multipliers) shrinks like 1/n for the mean loss: standardized iris setosa-vs-rest has
// lambda' = 0.0079, so the paper's schedule needs s0 + s ~ 16000 (about 10^12 steps). The
// paper's own experiment (section 5) has lambda' = 0.5 > lambda_0 = 10^-1/2, i.e. the schedule
// starts below lambda'. The default lambda_scale = 1/n measures lambda against the summed
// losses (LIBLINEAR's C_s = 1/(n lambda_s) = (s0 + s)^p; there n lambda' = 1/max_j a_j is
// about 1 for standardized data), which reproduces that regime. With lambda that small the
// fixed-lambda subproblems are weakly convex and the box's step constant C is too cautious;
// step_scale = 3 (ours, measured: iris 133, wine 106/118 outer iterations to 1e-3, against
// > 200 with 1) multiplies eta_s. lambda_scale = 1, step_scale = 1 is Algorithm 1 verbatim.
//
// Stopping rule: after each outer iteration the margin gap is bounded by a computable
// certificate. Lower bound: the normalized margin gamma(w) = min_j y_j z_j / ||w|| of the
// current estimate. Upper bound: for any convex weights a (here the violation frequencies of
// the inner iterations) the max margin is at most ||sum_j a_j y_j x_j|| (homogeneous case:
// the min-norm point of the hull of {y_j x_j}) or half the distance between a point of each
// class's hull (unregularized bias). The solve stops when (upper - lower) / upper < tol
// (strict, so tol = 0 runs all max_iter outer iterations) or after max_iter outer iterations.
// The gap g also certifies the solution itself: the rescaled solution w_r (rescale = true) is
// feasible with ||w_r|| = 1/lower and ||w*|| >= 1/upper, and w* is the min-norm point of the
// (convex) feasible set, so ||w_r - w*||^2 <= ||w_r||^2 - ||w*||^2, i.e.
//   ||w_r - w*|| / ||w*|| <= sqrt(1/(1 - g)^2 - 1) ~ sqrt(2 g).
// The default tol = 1e-5 certifies 4.5e-3 (measured: 3.8e-4 on iris, 4.4e-3 on the seeded
// gaussians of the tests); a certified 1e-3 needs tol = 5e-7, which the O(k^-1/6) method
// does not reach on iris in 500 outer iterations (gap 3e-6).
//
// Non-separable data (Farkas): the data are not separable iff some a >= 0, a != 0 has
// sum_j a_j y_j x~_j = 0 (x~ = x with the intercept column), and for any a >= 0 the bound
// above, computed from a, bounds the max margin. From separability_check_after on, whenever
// the estimate does not separate the data (gamma(w) <= 0; tried at the first such s >= k,
// then >= 2k, 4k, ..., k = separability_check_after, so its cost stays a small fraction), the
// nonnegative least-squares problem min_{a >= 0} ||M a||^2 + h^2 (sum a - 1)^2 (M = [y_j x~_j]
// over all rows, or the most frequently violated rows when the dense (d + 2) x n matrix would
// exceed certificate_max_entries; h = max_j ||x~_j||; skipped above certificate_max_dim
// coordinates) is solved by the Lawson-Hanson
// active-set method; its optimum is 0 iff those rows are not separable. The bound is
// recomputed from the a >= 0 found. If it is <= separability_tol * max_j ||x~_j||
// the data are certified non-separable (to that relative margin) and the solve stops with
// status infeasible (the certificate in SolveResult::message). The bound is evaluated exactly from
// a >= 0, so separable data with a larger relative margin can never be reported non-separable.
// Separable data that the estimate has not separated by max_iter end with status max_iter
// (separable stays true).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

struct HomotopyOptions {
  long long max_iter = 300;    // maximum number of outer iterations S; the run costs about
                               // (s0 + S)^3 / 3 passes (t_s = (s0 + s)^2): 10^7 for S = 300
  double tol = 1e-5;           // relative margin-gap tolerance (certificate above)
  double p = 0.5;              // lambda_s = (s0 + s)^-p, 0 < p < 1
  double r = 2.0;              // t_s = (s0 + s)^r inner steps, r > 2p
  double s0 = 10.0;            // initial offset, s0 > 2
  double step_constant = 0.0;  // the algorithm box's C in eta_s; <= 0 = the box's formula
  double step_scale = 3.0;     // eta_s multiplier (see "Scale of lambda"); 1 = Algorithm 1
  double lambda_min = 0.0;     // floor of lambda_s; 0 = hard margin (C = inf)
  // lambda_s = lambda_scale (s0 + s)^-p; 1 = the paper's mean loss, 0 (default) = 1/n, i.e.
  // lambda relative to the summed losses (see "Scale of lambda" above).
  double lambda_scale = 0.0;
  std::string iterate = "average";         // "average" (Algorithm 1) or "best" (section 6.4)
  bool normalized_steps = false;           // section 6.1: steps of length eta_s along g / ||g||
  long long batch_size = 0;                // section 6.3: rows per subgradient; 0 (or >= n) = all
  std::uint64_t seed = 0;                  // seed of the solver's own std::mt19937_64 (stochastic)
  long long separability_check_after = 5;  // first s of the Farkas certificate; 0 = never
  double separability_tol = 1e-9;          // certified relative margin bound that means "none"
  long long certificate_max_iter = 1000;   // active-set iterations per certificate attempt
  long long certificate_max_entries = 4000000;  // dense certificate matrix cap (32 MB)
  // No certificate above this many coordinates (d + intercept): each active-set step solves a
  // dense least-squares problem with up to d + 2 rows and columns (O(d^3)).
  long long certificate_max_dim = 512;
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
  X(max_iter) X(tol) X(p) X(r) X(s0) X(step_constant) X(step_scale) X(lambda_min)          \
  X(lambda_scale) X(iterate) X(normalized_steps) X(batch_size) X(seed)                      \
  X(separability_check_after) X(separability_tol) X(certificate_max_iter)                    \
  X(certificate_max_entries) X(certificate_max_dim) X(rescale) X(record_iterates)          \
  X(n_threads) X(record_history) X(check_input)
// clang-format on

void validate_options(const HomotopyOptions& options);

// Solves from w0 = 0 (Algorithm 1 initializes the estimate at 0). y must be +-1.
// SolveResult: solution = (w, b) with b in units of the intercept coordinate (b * scale adds to
// w.x); objective = F_lambda at the last lambda; status infeasible (certificate in message) on
// certified non-separable data; extras = HomotopyExtras. History: objective
// F_{lambda_s}(estimate), optimality = margin gap, smoothing = lambda_s, step = eta_s,
// inner_iterations = t_s, active_size = violators at the estimate, passes = cumulative passes.
SolveResult solve_homotopy(const LinearProblem& problem, const HomotopyOptions& options = {},
                           const Callbacks& callbacks = {});

}  // namespace svmkit
