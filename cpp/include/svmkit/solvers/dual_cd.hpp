// Dual coordinate descent with shrinking for L2-regularized linear SVMs and SVR.
//
// Problem: min_w F(w) = 1/2 ||w||^2 + sum_i C_i loss(u_i) (problem.hpp) with the bias as the
// last coordinate of w on the constant feature intercept_scaling, regularized (LIBLINEAR's
// bias; regularize_intercept = false is refused: it would add an equality constraint).
// With x_i extended by the bias feature, each loss is solved through its dual
//   hinge / squared_hinge (y = +-1):           min 1/2 a'(Q + D)a - e'a,  0 <= a_i <= U_i,
//     Q_ij = y_i y_j x_i.x_j, w = sum a_i y_i x_i;
//   epsilon_insensitive / squared_eps_ins.:   min 1/2 b'(Q + D)b - y'b + eps ||b||_1,
//     -U_i <= b_i <= U_i, Q_ij = x_i.x_j, w = sum b_i x_i;
// with U_i = C_i, D = 0 for the non-squared losses and U_i = inf, D_ii = 1/(2 C_i) for the
// squared ones; logistic / smoothed_hinge (psi_M) / gaussian_smoothed_hinge (psi_G):
//   min 1/2 a'Qa - m'a + sum_i C_i h(a_i / C_i),  0 <= a_i <= C_i,
// h(p) = p log p + (1 - p) log(1 - p), m = 0 (logistic), h(p) = -sigma sqrt(p (1 - p)), m = 1
// (psi_M(t) = (t + sqrt(t^2 + sigma^2)) / 2), h(p) = -sigma phi(Phi^-1(p)), m = 1 (psi_G(t) =
// sigma G(t / sigma), G(v) = v Phi(v) + phi(v)), whose coordinates never reach the bounds: each
// step is a safeguarded 1-D Newton method (Yu, Huang and Lin, "Dual coordinate descent
// methods for logistic regression and maximum entropy models", Machine Learning 85, 2011 =
// LIBLINEAR -s 7; for psi_G a bracketed Newton method on the quantile q_i, a_i = C_i Phi(q_i),
// dual_cd.cpp), started from a_i = min(1e-3 C_i, 1e-8) (psi_G: C_i Phi(-6)), without
// shrinking.
// Samples with C_i = 0 keep a_i = 0 and are never visited.
//
// Method: Hsieh, Chang, Lin, Keerthi, Sundararajan, "A Dual Coordinate Descent Method for
// Large-scale Linear SVM" (ICML 2008), the basic method and its shrinking variant, and Ho and Lin,
// "Large-scale Linear Support Vector Regression" (JMLR 2012) for the regression duals: each
// outer iteration visits the active coordinates in a random order (SplitMix64 seeded by
// `seed`), takes the exact one-variable minimizer (a Newton step on a quadratic, projected
// onto the box; for SVR the soft-thresholded step), and keeps w up to date. Coordinates at a
// bound whose gradient pushes against it by more than last iteration's largest violation are
// shrunk; at convergence on the active set every coordinate is reactivated and one full
// iteration must pass the test again. Warm start: the dual cannot be recovered from w, so a
// w0 is ignored and the solve starts from a = 0. A column-major view is copied once to
// row-major (n * d values of its own type; out_of_memory if that fails); sparse X whose
// nonempty columns are at most half of all is solved on those columns alone
// (cpp/src/kept_columns.hpp: bit-identical results, one renumbered copy of the indices). The solve
// is sequential; n_threads serves only the final primal objective pass, and the result does not
// depend on it.
//
// Elastic net (solve_dual_cd_elastic_net; hinge and squared hinge): the primal
//   min_w l2/2 (||w||^2 + b^2) + l1 ||w||_1 + bias_l1 |b| + sum_i C_i loss(u_i),  l2 > 0,
//   l1, bias_l1 >= 0
// (bias_l1 = 0: the bias is not l1-penalized, as in smsvm; bias_l1 = l1: LIBLINEAR -s 5's bias
// feature) has the dual
//   min_a sum_j R_j*(r_j) + 1/2 a'Da - e'a over the same box, r = sum a_i y_i x_i,
// R_j*(t) = max(|t| - l1_j, 0)^2 / (2 l2) (l1_j = l1, the bias's bias_l1), and
// w_j = soft(r_j, l1_j) / l2.
// R* is piecewise quadratic, so each coordinate's subproblem is minimized exactly by walking the
// sorted breakpoints where |r_j| crosses l1 (O(nnz_i log nnz_i) per visit); r and w are kept
// up to date on the row's entries. The gradient, projected gradient, shrinking and stopping
// rule are those of the l2 dual (G_i = y_i w.x_i - 1 + D_ii a_i). With l1 = 0 and l2 = 1 this
// is the method above. Pure l1 (l2 = 0) has no such dual: smsvm solves it.
//
// Stopping rule (LIBLINEAR's, absolute for classification as in scikit-learn's LinearSVC):
// classification: max PG - min PG over the active set <= tol (projected gradients);
// logistic / smoothed hinges: max_i |d/da_i| over an iteration <= tol (absolute, LIBLINEAR -s 7's);
// regression: sum_i |PG_i| <= tol * (the same sum in the first iteration) (relative);
// every dual (hinge, squared hinge, l2 and elastic net; logistic, smoothed hinges; regression)
// with tol >= 1e-6 also stops (converged) when the
// relative duality gap (P(w) - D(a)) / P(w) is <= min(tol, 1e-4) (tol is LIBLINEAR's absolute
// bound; cpp/src/gap_stop.hpp), checked at geometrically spaced passes,
// sooner where the gap's decrease so far predicts its crossing of that bound (dual_cd.cpp:
// dual_gap, GapSchedule; a certificate, optimality then holds the gap); or max_iter outer
// iterations, or max_passes passes where set (status max_iter; the message then states the
// relative duality gap at the returned point, computed in one more pass, since the
// projected-gradient measure does not show how far the point is from the optimum).
#pragma once

#include "svmkit/loss.hpp"
#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range and doc.
// The default tol = 1e-4 is what scikit-learn's LinearSVC / LinearSVR pass to LIBLINEAR (its
// command line's own default is the looser 0.1).
// clang-format off
#define SVMKIT_DUAL_CD_OPTIONS(X)                                                                \
  X(double, tol, 1e-4, above(0.0), unbounded(),                                                   \
    "stop when max PG - min PG <= tol (classification, absolute) or sum |PG| <= tol * its "      \
    "first value (regression); LIBLINEAR's eps")                                                  \
  X(long long, max_iter, 1000, at_least(0), unbounded(), "maximum number of outer iterations")    \
  X(long long, max_passes, 0, at_least(0), unbounded(),                                          \
    "end uncertified (max_iter) once this many passes' worth of coordinate visits and gap "     \
    "checks are spent; 0: no limit (LinearSVR's solver='auto' sets it where ipm finishes)")     \
  X(bool, shrinking, true, unbounded(), unbounded(),                                             \
    "shrink coordinates stuck at a bound (reactivated before convergence is declared)")          \
  X(long long, seed, 0, at_least(0), unbounded(),                                                \
    "seed of the solver's own SplitMix64 generator (the order of the coordinates)")           \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                 \
    "threads of the final objective pass; <= 0 uses the default (svmkit/detail/parallel.hpp)")         \
  X(bool, record_history, true, unbounded(), unbounded(),                                        \
    "keep one IterationRecord per outer iteration")                                              \
  X(bool, check_input, true, unbounded(), unbounded(),                                           \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct DualCdOptions {
  SVMKIT_DUAL_CD_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(dual_cd, SVMKIT_DUAL_CD_OPTIONS)

void validate_options(const DualCdOptions& options);

// Solves the problem for loss hinge, squared_hinge, logistic, smoothed_hinge,
// gaussian_smoothed_hinge, epsilon_insensitive or squared_epsilon_insensitive. The solution is w
// followed by b (b multiplies intercept_scaling); objective is the primal F at it. History records
// carry the stopping measure as optimality, the active-set size, the gap where it was checked (NaN
// elsewhere), and NaN objectives. w0 is ignored (see above).
SolveResult solve_dual_cd(const LinearProblem& problem, const LossSpec& loss,
                          const DualCdOptions& options = {}, const Callbacks& callbacks = {},
                          const double* w0 = nullptr);

// The elastic-net penalty of solve_dual_cd_elastic_net: l2/2 (||w||^2 + b^2) + l1 ||w||_1.
struct DualCdPenalty {
  double l2 = 1.0;       // weight of the l2 term (> 0; the bias carries l2/2 b^2)
  double l1 = 0.0;       // weight of the l1 term on w (>= 0)
  double bias_l1 = 0.0;  // weight of an l1 term bias_l1 |b| on the bias (>= 0; 0: smsvm's
                         // problem; l1: LIBLINEAR -s 5's, whose bias is a feature like the others)
};

// The elastic-net dual (see above) for loss hinge or squared_hinge; the bias must be
// regularized. The solution is w followed by b; objective is the primal F at it.
SolveResult solve_dual_cd_elastic_net(const LinearProblem& problem, const LossSpec& loss,
                                      const DualCdPenalty& penalty,
                                      const DualCdOptions& options = {},
                                      const Callbacks& callbacks = {});

}  // namespace svmkit
