// l1_cd: coordinate descent with one-dimensional Newton directions (CDN) for l1-regularized
// linear classification with the squared hinge loss (LIBLINEAR's -s 5).
//
// Problem (LIBLINEAR's scaling, problem.hpp, with an l1 term and an optional l2 part):
//
//   F(w, b) = l1 (||w||_1 + [regularize_intercept] |b|)
//             + l2/2 (||w||^2 + [regularize_intercept] b^2)
//             + sum_i cost_i max(0, 1 - y_i (w.x_i + b * intercept_scaling))^2
//
// l1 = 1, l2 = 0 is LIBLINEAR -s 5 (with -B intercept_scaling: the bias is the coordinate of a
// constant feature and carries |b|), i.e. scikit-learn's LinearSVC(penalty="l1", dual=False).
// With regularize_intercept = false the bias is unpenalized (a plain Newton coordinate).
//
// Method: Yuan, Chang, Hsieh, Lin, "A Comparison of Optimization Methods and Software for
// Large-scale L1-regularized Linear Classification" (JMLR 2010), section 4.1 (CDN). Each outer
// iteration visits the active coordinates in a seeded random order; for coordinate j the
// one-dimensional model |w_j + z| + L'_j z + 1/2 L''_j z^2 (L'' the generalized second
// derivative of the squared hinge, plus a tiny floor) is minimized in closed form (soft
// threshold) and the step z = lambda d is accepted by the Armijo rule
//   g_j(lambda d) - g_j(0) <= sigma lambda (L'_j d + l1 (|w_j + d| - |w_j|)),
// lambda = 1, beta, beta^2, ... Since the squared hinge has second derivative <= 2, the loss
// change is bounded by L'_j z + (sum_i cost_i x_ij^2) z^2; when that bound already satisfies
// the rule the exact change (one pass over column j) is skipped. The residuals
// b_i = 1 - y_i w.x_i are kept up to date after each step. Shrinking (section 4.1 / LIBLINEAR):
// a zero coordinate with -l1 + M/n < L'_j < l1 - M/n (M: the largest violation of the previous
// outer iteration, n: the number of samples) leaves the active set.
//
// Data: CDN works by columns. A column-major copy of X, with y_i folded into the values and the
// rows of zero cost dropped, is built once: sparse input -> nnz * (8 + 4) bytes (8 + 8 with more
// than 2^31 rows), dense input -> n_samples * n_features * 8 bytes, plus the bias column;
// refused (ValueError naming max_copy_mb) above max_copy_mb. Sparse input keeps only the
// features that have an entry (an empty feature's optimum is w_j = 0), so the solver's
// per-coordinate state is O(nonempty features): on text data with d >> n that is what makes
// it fast and small (one transient 8-byte count per feature while the copy is built).
//
// Stopping rule (LIBLINEAR's for -s 5): the 1-norm of the minimum-norm subgradient over the
// active set <= tol * max(min(#pos, #neg), 1) / n_samples * (the same at the first outer
// iteration of a cold start; with a warm start, its value at w = 0). The class-share factor is
// LIBLINEAR's (and so scikit-learn's LinearSVC's): the same tol means the same accuracy. When
// the rule holds on a shrunk set, the active set is reset to all coordinates and the rule must
// hold again. A shrunk run also gets a full sweep after 10, 20, 40, ... passes' worth of work
// (a coordinate shrunk too early cannot stall it). max_iter bounds the outer iterations.
#pragma once

#include "svmkit/loss.hpp"
#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_L1_CD_OPTIONS(X)                                                                  \
  X(double, tol, 1e-4, at_least(0.0), unbounded(),                                               \
    "relative tolerance of the stopping rule above (LinearSVC's 1e-4; LIBLINEAR's command "     \
    "line uses 0.01)")                                                                           \
  X(long long, max_iter, 1000, at_least(0), unbounded(), "maximum number of outer iterations")   \
  X(bool, shrinking, true, unbounded(), unbounded(),                                             \
    "drop zero coordinates that are unlikely to move from the active set")                      \
  X(long long, seed, 0, at_least(0), unbounded(), "seed of the coordinate permutations")         \
  X(double, max_copy_mb, 65536.0, above(0.0), unbounded(),                                       \
    "largest column-major copy of X allowed, in MiB")                                            \
  X(double, sigma, 0.01, above(0.0), below(1.0), "Armijo sufficient-decrease constant")          \
  X(double, beta, 0.5, above(0.0), below(1.0), "step shrink factor of the line search")          \
  X(int, max_line_search, 20, at_least(1), unbounded(), "line-search trials per coordinate step") \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                 \
    "accepted for the common interface; CDN is sequential (identical for any value)")           \
  X(bool, record_history, true, unbounded(), unbounded(),                                        \
    "keep one IterationRecord per outer iteration")                                              \
  X(bool, check_input, true, unbounded(), unbounded(),                                           \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct L1CdOptions {
  SVMKIT_L1_CD_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(l1_cd, SVMKIT_L1_CD_OPTIONS)

void validate_options(const L1CdOptions& options);

// Penalty weights of F above (scikit-learn's elastic net: l1 = rho, l2 = 1 - rho).
struct L1CdPenalty {
  double l1 = 1.0;  // weight of ||w||_1 (>= 0)
  double l2 = 0.0;  // weight of 1/2 ||w||^2 (>= 0)
};

// Solves the problem from w0 (length solution_size(problem); nullptr starts from 0).
// Only loss squared_hinge is handled (others are refused with an Error naming the loss).
// History records: objective F, optimality = the subgradient measure of the stopping rule,
// inner_iterations = coordinate steps taken, active_size = active coordinates (bias included),
// step = the largest |w_j change| of the iteration, passes (cumulative), time.
SolveResult solve_l1_cd(const LinearProblem& problem, const LossSpec& loss,
                        const L1CdPenalty& penalty, const L1CdOptions& options = {},
                        const Callbacks& callbacks = {}, const double* w0 = nullptr);

}  // namespace svmkit
