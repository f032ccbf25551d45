// SMO: sequential minimal optimization for the Wolfe duals of kernel SVMs.
//
// Problem (paper 001, Meoli, "Support Vector Machines"): with K the kernel matrix of the
// training samples (section 5) and every formulation written as
//     min_a  f(a) = 1/2 a^T Q a + p^T a   subject to  0 <= a_t <= U_t  [and  s^T a = 0]
//   * C-SVC, hinge loss (eq. 19):  Q_ij = y_i y_j K_ij, p = -1, U_i = C_i, s = y.
//   * regularized bias, box only (eq. 26): Q + y y^T (kernel K + 1), no equality constraint;
//     the intercept is then b = sum_i a_i y_i (the bias rides on a constant feature 1).
//   * L2-SVC, squared hinge (eqs. 49-50): Q + D with D_ii = 1/(2 C_i), U_i = +infinity.
//   * epsilon-SVR (eq. 80, section 6.2.2): a = [a+; a-] with 2n variables, s = [1; -1],
//     Q = [K -K; -K K], p = [eps - y; eps + y], U = [C; C]; the box-only variant is eq. 84.
//   C_i = C * sample_weight_i * class_weight_{y_i} are per-sample upper bounds.
//
// Method: SMO (paper 001, section 6.2, Algorithms 5-6: two multipliers at a time, solved
// analytically on the segment cut by the box and the equality constraint). The working pair
// is chosen by
//   * "second_order" (default): Fan, Chen and Lin (2005), "Working set selection using second
//     order information for training SVM", JMLR 6: i = argmax_{t in I_up} -s_t g_t, then j
//     minimizing -(b_it^2 / a_it) over t in I_low with -s_t g_t < -s_i g_i, where
//     b_it = -s_i g_i + s_t g_t and a_it = Q_ii + Q_tt - 2 s_i s_t Q_it (tau if not positive);
//   * "max_violating_pair": Keerthi et al.'s b_up/b_low pair (paper 001 Algorithms 5-6):
//     i = argmax_{I_up} -s g, j = argmin_{I_low} -s g.
// Without the equality constraint (regularized bias) one variable is updated at a time: the
// coordinate with the largest projected gradient (max_violating_pair) or the largest
// predicted decrease g_t^2 / Q_tt (second_order), solved exactly and clipped to the box.
// Shrinking (Joachims; as in LIBSVM): bounded variables that cannot join a violating pair are
// set aside every min(l, shrink_interval) iterations, first after one more (LIBSVM's counter);
// the gradient of the set-aside variables is rebuilt before the final check (and once when the
// gap first falls below 10 tol).
// Kernel rows come from an LRU cache of cache_size MB (kernel_cache.hpp; float values, as
// LIBSVM's Qfloat). Implementation choices for speed, none of which changes the iterates:
//   * kernel rows are computed block-wise: dot products or distances first, then one
//     vectorized exponential over the block (vec_math.hpp, multiversioned for AVX2);
//   * with at most 128 features and a dot-product kernel (linear, poly, rbf, sigmoid) the
//     samples are also kept as a feature-major double copy in the solver's order (charged to
//     cache_size; used only when it takes at most half of it), so a row block is d contiguous
//     multiply-add passes instead of one short dot product per sample;
//   * the gradient update and the working-set sweeps are branch-free block loops;
//   * kernel rows, sweeps over long active sets and SVR row assembly are split between
//     n_threads threads of a ThreadTeam (thread_team.hpp: short spin, then sleep), each chunk
//     keeping its best candidate and chunks merged in order with the serial tie rule, so the
//     result is bitwise the same for any number of threads.
//
// Stopping rule: the KKT gap m(a) - M(a) = max_{I_up} -s g - min_{I_low} -s g <= tol over all
// variables (paper 001 eq. 137 / 153, Keerthi's b_low <= b_up + 2 tol with 2 tol -> tol);
// for the box-only variant max_t |projected gradient_t| <= tol; or max_iter iterations (default
// LIBSVM's cap max(10^7, 100 l): status max_iter); or no progress (a step below one ulp of the
// pair's variables, again after the gradient is rebuilt: status line_search_failed).
// The bias is -rho with rho the mean of s_t g_t over free variables, or the midpoint of the
// feasible interval when none is free (as LIBSVM computes it; paper 001 eqs. 24, 83 average
// over the support vectors as well).
#pragma once

#include <string>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/kernel.hpp"
#include "svmkit/options.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

enum class SmoFormulation {
  svc,                // hinge-loss C-SVC
  svc_squared_hinge,  // L2-SVC (squared hinge)
  svr,                // epsilon-insensitive SVR
};

// One kernel SVM dual problem over the rows of X.
struct KernelProblem {
  MatrixView X;                  // training data (or the n x n Gram matrix when precomputed)
  const Index* rows = nullptr;   // optional: the problem's samples are X rows rows[0..n)
  Index n = -1;                  // number of samples (-1: all rows of X)
  const double* y = nullptr;     // labels +-1 (classification) or targets (regression)
  const double* cost = nullptr;  // per-sample C_i >= 0 (length n)
  KernelSpec kernel;
  SmoFormulation formulation = SmoFormulation::svc;
  double epsilon = 0.1;               // SVR tube half-width (>= 0)
  bool regularize_intercept = false;  // true: box-only dual (eq. 26 / 84 / 50)
};

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_SMO_OPTIONS(X)                                                                    \
  X(double, tol, 1e-3, above(0.0), finite(),                                                    \
    "KKT gap tolerance (scikit-learn's and LIBSVM's tol)")                                      \
  X(long long, max_iter, 0, at_least(-1), unbounded(),                                          \
    "iteration limit; 0 = LIBSVM's max(10^7, 100 l) for l variables; -1 = none")               \
  X(double, cache_size, 200.0, above(0.0), finite(),                                            \
    "kernel cache size in MB (at least two rows are kept)")                                     \
  X(bool, shrinking, true, unbounded(), unbounded(), "shrinking heuristic")                     \
  X(long long, shrink_interval, 1000, at_least(1), unbounded(),                                 \
    "iterations between shrinking passes (capped at the number of variables)")                  \
  X(std::string, working_set, "second_order", unbounded(), unbounded(),                         \
    "\"second_order\" or \"max_violating_pair\"")                                              \
  X(double, tau, 1e-12, above(0.0), finite(),                                                   \
    "curvature floor for non-positive-definite kernels")                                        \
  X(long long, history_every, 1000, at_least(1), unbounded(),                                   \
    "one history record / callback every this many iterations")                                 \
  X(long long, poll_interval, 1000, at_least(1), unbounded(),                                   \
    "iterations between polls of the interrupt hook")                                           \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                \
    "threads; <= 0 uses the default (svmkit/detail/parallel.hpp)")                                     \
  X(bool, record_history, true, unbounded(), unbounded(),                                       \
    "keep the history records in the result")                                                   \
  X(bool, check_input, true, unbounded(), unbounded(),                                          \
    "validate the problem (finiteness of X included)")
// clang-format on

struct SmoOptions {
  SVMKIT_SMO_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(smo, SVMKIT_SMO_OPTIONS)

void validate_options(const SmoOptions& options);

// Solves the dual of `problem` by SMO. SolveResult: status, solution = alpha per sample (a_i for
// SVC, >= 0; a+_i - a-_i for SVR), objective (dual, minimized form), optimality (KKT gap at exit
// over all variables), iterations, time, history; extras = SmoExtras (dual_coef, bias, cache).
SolveResult solve_smo(const KernelProblem& problem, const SmoOptions& options = {},
                      const Callbacks& callbacks = {});

}  // namespace svmkit
