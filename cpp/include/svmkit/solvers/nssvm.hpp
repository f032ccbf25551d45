// NSSVM: subspace Newton method for the sparsity-constrained SVM dual.
//
// Problem (paper 003, Zhou "Sparse SVM for Sufficient Data Reduction"; m = samples,
// n = features): with Q = [y_1 x_1, ..., y_m x_m] (n x m) and labels y_i in {-1, +1},
//
//   min_alpha D(alpha) = 1/2 ||Q alpha||^2 + sum_i h_{c,C}(alpha_i) - <1, alpha>
//   s.t.      <alpha, y> = 0,  ||alpha||_0 <= s,
//
// h_{c,C}(t) = t^2 / (2C) for t >= 0 and t^2 / (2c) for t < 0 (C >= c > 0). D is strongly
// convex (Hessian H(alpha) = Q^T Q + E(alpha), E diagonal with 1/C or 1/c), so the only
// non-convexity is the cardinality constraint. The primal classifier is w = Q alpha and the
// bias is the multiplier mu of <alpha, y> = 0 (the dual stationarity reads
// h'(alpha_i) = 1 - y_i (<w, x_i> + mu)).
//
// Method (paper 003, section 2.3 and the algorithm box): an eta-stationary point z = (alpha, mu)
// solves F(z; T) = [g_T(z); alpha_{T^c}; <alpha_T, y_T>] = 0 (eq. 6), where
// g(z) = H(alpha) alpha - 1 + mu y and T holds the s largest |alpha - eta g(z)|. Each iteration
//   1. takes the Newton step of eq. 7 on the working set T: d_{T^c} = -alpha_{T^c} and, with
//      Theta = H_TT = Q_T^T Q_T + E_T (s x s), the reduced solve of eq. 9
//        d_mu = (<alpha_T, y_T> - <y_T, Theta^{-1} g_T>) / <y_T, Theta^{-1} y_T>,
//        d_T  = -Theta^{-1} (g_T + d_mu y_T).
//      Theta^{-1} is applied by a Cholesky factorization of the s x s block when s <= n, in
//      feature space by the Woodbury identity (an n x n Cholesky factorization of
//      I + Q_T E_T^{-1} Q_T^T) when s > n, and by conjugate gradients (matrix-free,
//      Theta p = Q_T^T (Q_T p) + E_T p) when min(n, s) > cg_threshold. No m x m (nor m x n)
//      matrix is ever formed: the memory beyond the data is O(m + s^2 + s n).
//   2. recomputes w = Q_T alpha_T (O(s n)) and the gradient g = Q^T w - 1 + E alpha + mu y in
//      one pass over the data, which also yields the training accuracy of the iterate,
//   3. picks T_{k+1} = the s largest |alpha - eta g| by partial selection (O(m), ties broken
//      by the smaller index, so the solver is deterministic and seedless).
// The bias is mu, refined (refine_bias) by b' = mean_{i in T} (y_i - <w, x_i>) when b' gives a
// higher training accuracy (the paper's refinement), and at the end (bias_search) by the bias
// that maximizes the training accuracy of the returned w. The iterate with the highest training
// accuracy is kept (the algorithm box's MaxACC bookkeeping) and returned when the final
// iterate is worse by more than acc_tol (keep_best); that kept iterate need not be
// eta-stationary. With tune, the sparsity level grows, s <- min(m, ceil(tune_ratio * s)),
// every tune_every iterations and whenever the iteration has converged at the current level
// (the first time always, later only while the accuracy still improved by more than acc_tol
// over the previous level), at most max_tunes times (the paper's tuning, r = 1.1). The
// listing's restarts from alpha = 0 after a tuning step are not done.
//
// Stopping rule (the algorithm box): ||F(z_k; T_k)|| <= tol together with the accuracy test
// |ACC(alpha_k) - MaxACC| <= acc_tol. ||F|| <= tol makes z_k a fixed point of the iteration
// (the Newton step is 0 and T_{k+1} = T_k), so without tuning (or with its budget spent, or
// when growing s stopped improving the accuracy) the accuracy can no longer change and the
// solve stops as converged; keep_best then returns the MaxACC iterate. Otherwise it stops at
// max_iter iterations. There is no globalization (the paper has none): an eta much larger
// than the default can make the iteration diverge, which ends with status numerical_error.
//
// Defaults (paper 003, Table 2 and the defaults of its listing): C = 0.25, c = C / 100,
// eta = min(1/m, 1e-4), s0 = ceil(s0_scale * n * (ln(m/n))^2) with s0_scale = 1. The s0
// formula is Table 2's s(beta) = beta n (log2(m/n))^2 with beta = (ln 2)^2 ~ 0.48 (~0.5, the
// table's small-m value) and reproduces the support-vector counts of Table 4 (61, 78, 96,
// 116 for m = 500 .. 4000 training samples, n = 2) and 1104 for 53,602 x 17. tol = 1e-6 and
// tuning off are the listing's defaults.
#pragma once

#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/options.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_NSSVM_OPTIONS(X)                                                                  \
  X(double, C, 0.25, above(0.0), finite(),                                                      \
    "penalty of positive alpha: h = t^2/(2C) for t >= 0 (Table 2)")                             \
  X(double, c, 0.0, unbounded(), finite(),                                                      \
    "penalty of negative alpha: t^2/(2c) for t < 0, <= C; <= 0 means c = c_ratio * C")          \
  X(double, c_ratio, 0.01, above(0.0), at_most(1.0), "c = c_ratio C by default (Table 2: 1/100)") \
  X(double, eta, 0.0, unbounded(), finite(),                                                    \
    "step of the selection alpha - eta g; <= 0 means min(1/m, eta_max)")                        \
  X(double, eta_max, 1e-4, above(0.0), finite(), "cap of the default eta (min(1/m, 1e-4))")     \
  X(long long, s0, 0, unbounded(), unbounded(),                                                 \
    "initial sparsity level; <= 0 means the formula above; values above m are clamped")         \
  X(double, s0_scale, 1.0, above(0.0), finite(), "factor of n (ln(m/n))^2 in the s0 formula")   \
  X(double, tol, 1e-6, at_least(0.0), unbounded(),                                              \
    "stop when ||F(z; T)|| <= tol (with the accuracy condition)")                               \
  X(long long, max_iter, 1000, at_least(0), unbounded(), "maximum number of Newton iterations") \
  X(bool, tune, false, unbounded(), unbounded(),                                                \
    "sparsity-level tuning (the listing's default is off)")                                     \
  X(double, tune_ratio, 1.1, above(1.0), finite(), "r in s <- ceil(r s)")                       \
  X(long long, tune_every, 10, at_least(1), unbounded(),                                        \
    "tune every this many iterations (the box: multiples of 10)")                               \
  X(long long, max_tunes, 10, at_least(0), unbounded(), "at most this many increases of s")     \
  X(double, acc_tol, 1e-4, at_least(0.0), unbounded(),                                          \
    "accuracy tolerance of the stopping rule and of keep_best")                                 \
  X(bool, refine_bias, true, unbounded(), unbounded(),                                          \
    "try b' = mean_T (y_i - <w, x_i>) and keep the better bias")                                \
  X(bool, keep_best, true, unbounded(), unbounded(),                                            \
    "return the most accurate iterate if the last one is worse")                                \
  X(bool, bias_search, true, unbounded(), unbounded(),                                          \
    "finally replace the bias by the training-accuracy-maximizing one when strictly better")    \
  X(long long, cg_threshold, 1000, at_least(0), unbounded(),                                    \
    "use CG for the Newton system when min(n, s) exceeds this")                                 \
  X(double, cg_tol, 1e-5, above(0.0), unbounded(),                                              \
    "CG stops when ||r|| <= cg_tol ||r0|| (a plain ratio, as TRON's)")                          \
  X(long long, cg_max_iter, 0, unbounded(), unbounded(),                                        \
    "CG iteration limit per solve; <= 0 means s + 1")                                           \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                \
    "threads; <= 0 uses the default (svmkit/detail/parallel.hpp)")                                     \
  X(long long, parallel_min_rows, 100000, unbounded(), unbounded(),                             \
    "use n_threads only when m >= this (short passes run faster on one thread)")                \
  X(bool, record_history, true, unbounded(), unbounded(),                                       \
    "keep one IterationRecord per iteration (and the accuracy and bias histories)")             \
  X(bool, check_input, true, unbounded(), unbounded(),                                          \
    "validate X (structure and finiteness) and y first")
// clang-format on

struct NssvmOptions {
  SVMKIT_NSSVM_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(nssvm, SVMKIT_NSSVM_OPTIONS)

void validate_options(const NssvmOptions& options);

// Solves the problem above for X (m x n) and labels y (m entries, each -1 or +1).
// SolveResult: solution = w (n entries) followed by the bias; optimality = ||F(z; T)|| at the
// returned point (NaN for a kept best iterate that was never re-checked); objective = D(alpha);
// extras = NssvmExtras (support, alpha, ...). History: objective D, optimality ||F(z_k; T_k)||,
// active_size s_k, time; NssvmExtras::accuracy_history[k] and bias_history[k] are the training
// accuracy and bias of the iterate after iteration k.
SolveResult solve_nssvm(const MatrixView& X, const double* y, const NssvmOptions& options = {},
                        const Callbacks& callbacks = {});

// The default initial sparsity level for m samples and n features (see above).
long long nssvm_default_s0(Index m, Index n, double s0_scale);

}  // namespace svmkit
