// Homotopic subgradient method for the hard-margin (and soft-margin) linear SVM.
//
// Problem: for linearly separable data the hard-margin SVM min ||w|| s.t. y_j (w.x_j + b) >= 1,
// reached as lambda -> 0 of the regularized hinge problems (paper 004 eq. 2)
//   F_lambda(w, b) = lambda/2 ||w||^2 + 1/n sum_j c_j max(0, 1 - y_j (w.x_j + b))
// (c_j = problem.cost). With lambda_min > 0 the homotopy stops shrinking at lambda_min and solves
// the soft-margin F_{lambda_min} (LIBLINEAR's form with C = 1 / (lambda_min n)). The bias is an
// unregularized coordinate (regularize_intercept = false; hard margin: reported by eq. 15) or a
// shrunk coordinate of the data augmented by intercept_scaling.
//
// Method: paper 004 (Molitor, Needell, Ward), Algorithm 1: outer iterations s with
// lambda_s = max(lambda_scale (s0 + s)^-p, lambda_min), t_s = ceil((s0 + s)^r) subgradient steps
// of size eta_s = step_scale K (s0 + s - 1)^-alpha / sqrt(t_s) from the previous estimate, whose
// average (or best iterate, section 6.4) is the next estimate. Options: normalized steps (6.1),
// seeded mini-batches (6.3). Defaults lambda_scale = 1/n and step_scale = 3 depart from the paper
// (the reasons and measurements: homotopy.cpp and bench/results/homotopy.md).
//
// Stopping rule: after each outer iteration, soft margin: the relative duality gap (P - D) / P of
// F_{lambda_min} < tol (D from the violation frequencies of the inner steps; it bounds
// (P - F*) / P); hard margin: the relative margin gap (upper - lower) / upper < tol between the
// normalized margin of the estimate and a hull bound on the max margin (it bounds ||w - w*|| /
// ||w*|| by sqrt(1/(1 - gap)^2 - 1)); or max_iter outer iterations. Hard margin on data that are
// not separable: a Farkas certificate (nonnegative least squares, tried at s = k, 2k, 4k, ...
// while the estimate does not separate the data) stops with status infeasible.
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
  X(double, tol, 1e-5, at_least(0.0), unbounded(),                                             \
    "relative margin gap (hard margin) or duality gap (soft margin) to stop at")                \
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
