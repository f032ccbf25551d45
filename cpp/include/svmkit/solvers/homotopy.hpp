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
// Separable data that the estimate has not separated by max_iter end with status max_iter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_HOMOTOPY_OPTIONS(X)                                                               \
  X(long long, max_iter, 300, at_least(0), unbounded(),                                         \
    "outer iterations S; the run costs about (s0 + S)^3 / 3 passes (10^7 for S = 300)")         \
  X(double, tol, 1e-5, at_least(0.0), unbounded(), "relative margin-gap tolerance (certificate above)") \
  X(double, p, 0.5, above(0.0), below(1.0), "lambda_s = (s0 + s)^-p")                           \
  X(double, r, 2.0, unbounded(), finite(), "t_s = (s0 + s)^r inner steps; r > 2p")              \
  X(double, s0, 10.0, above(2.0), finite(), "initial offset")                                   \
  X(double, step_constant, 0.0, at_least(0.0), finite(),                                        \
    "the algorithm box's C in eta_s; 0 = the box's formula")                                    \
  X(double, step_scale, 3.0, above(0.0), finite(),                                              \
    "eta_s multiplier (see Scale of lambda); 1 = Algorithm 1")                                  \
  X(double, lambda_min, 0.0, at_least(0.0), finite(), "floor of lambda_s; 0 = hard margin (C = inf)") \
  X(double, lambda_scale, 0.0, at_least(0.0), finite(),                                         \
    "lambda_s = lambda_scale (s0 + s)^-p; 1 = the paper's mean loss, 0 = 1/n (summed losses)")  \
  X(std::string, iterate, "average", unbounded(), unbounded(),                                  \
    "\"average\" (Algorithm 1) or \"best\" (section 6.4)")                                      \
  X(bool, normalized_steps, false, unbounded(), unbounded(),                                    \
    "section 6.1: steps of length eta_s along g / ||g||")                                       \
  X(long long, batch_size, 0, at_least(0), unbounded(),                                         \
    "section 6.3: rows per subgradient; 0 (or >= n) = all")                                     \
  X(std::uint64_t, seed, 0, unbounded(), unbounded(),                                           \
    "seed of the solver's own std::mt19937_64 (stochastic)")                                    \
  X(long long, separability_check_after, 5, at_least(0), unbounded(),                           \
    "first s of the Farkas certificate; 0 = never")                                             \
  X(double, separability_tol, 1e-9, at_least(0.0), finite(),                                    \
    "certified relative margin bound that means none")                                          \
  X(long long, certificate_max_iter, 1000, at_least(0), unbounded(),                            \
    "active-set iterations per certificate attempt")                                            \
  X(long long, certificate_max_entries, 4000000, at_least(0), unbounded(),                      \
    "dense certificate matrix cap (entries; 32 MB)")                                            \
  X(long long, certificate_max_dim, 512, at_least(0), unbounded(),                              \
    "no certificate above this many coordinates (each active-set step is O(d^3))")              \
  X(bool, rescale, true, unbounded(), unbounded(),                                              \
    "hard margin: divide (w, b) by its smallest functional margin (direction unchanged)")       \
  X(bool, record_iterates, false, unbounded(), unbounded(),                                     \
    "keep the estimate after every outer iteration")                                            \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                \
    "threads; <= 0 uses the default (svmkit/detail/parallel.hpp)")                                     \
  X(bool, record_history, true, unbounded(), unbounded(),                                       \
    "keep one IterationRecord per outer iteration")                                             \
  X(bool, check_input, true, unbounded(), unbounded(),                                          \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct HomotopyOptions {
  SVMKIT_HOMOTOPY_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(homotopy, SVMKIT_HOMOTOPY_OPTIONS)

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
