// NSSVM: subspace Newton method for the sparsity-constrained SVM dual.
//
// Problem (paper 003, Zhou "Sparse SVM for Sufficient Data Reduction"; m samples, n features;
// Q = [y_1 x_1, ..., y_m x_m], labels y_i in {-1, +1}):
//   min_alpha D(alpha) = 1/2 ||Q alpha||^2 + sum_i h_{c,C}(alpha_i) - <1, alpha>
//   s.t.      <alpha, y> = 0,  ||alpha||_0 <= s,
// h_{c,C}(t) = t^2 / (2C) for t >= 0, t^2 / (2c) for t < 0 (C >= c > 0). The classifier is
// w = Q alpha; the bias is the multiplier mu of <alpha, y> = 0 (or its refinements below).
//
// Method (paper 003, section 2.3 and its algorithm box): Newton steps on the
// eta-stationarity equations F(z; T) = [g_T(z); alpha_{T^c}; <alpha_T, y_T>] = 0 (eq. 6),
// g(z) = H(alpha) alpha - 1 + mu y, T = the s largest |alpha - eta g|. Each iteration solves
// the reduced system of eq. 9 with Theta = Q_T^T Q_T + E_T (s x s): a Cholesky factorization
// when s <= n, the Woodbury identity (an n x n factor) when s > n, CG when min(n, s) >
// cg_threshold; then one pass over X gives g, the training accuracy and the next T (partial
// selection, ties to the smaller index: deterministic, seedless). The bias may be refined
// (refine_bias, bias_search), the most accurate iterate kept (keep_best), and s grown by
// tune_ratio (tune). Memory beyond the data: O(m + s^2) or O(n^2), never m x n or s x n.
//
// Stopping rule (the algorithm box and its listing): converged when the residual is small,
// ||F(z_k; T_k)||^2 / (m n) <= tol sqrt(s) log10(m) (scaled_tol, the listing's scaling; the
// absolute ||F|| <= tol otherwise), and the accuracy is settled, |ACC_k - ACC_{k-1}| <= acc_tol
// (with tuning, the box's |ACC - MaxACC| test), or when the best training accuracy has not
// risen by acc_tol for stall_iter iterations (the listing's accuracy stop; the selection can
// cycle between working sets on badly scaled data); else max_iter. Callbacks are polled once
// per iteration and per CG iteration. A non-finite step, objective or gradient stops with
// numerical_error. Defaults: paper 003's Table 2 and listing (C = 0.25, c = C/100,
// eta = min(1/m, 1e-4), s0 = ceil(n (ln(m/n))^2), tol = 1e-6 scaled, no tuning).
//
// Sparse X whose nonempty columns are at most half of all is solved on those columns alone
// (cpp/src/kept_columns.hpp: one renumbered copy of the indices); n in the formulas stays X's.
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
    "residual tolerance: see scaled_tol (with the accuracy condition)")                         \
  X(bool, scaled_tol, true, unbounded(), unbounded(),                                           \
    "the listing's test ||F||^2/(m n) <= tol sqrt(s) log10(m); false: ||F|| <= tol")            \
  X(long long, stall_iter, 20, at_least(0), unbounded(),                                        \
    "stop once the best training accuracy has not risen by acc_tol for this many iterations"   \
    " (0: off)")                                                                                \
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
