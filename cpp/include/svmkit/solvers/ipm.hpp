// ipm: a primal-dual interior-point method for the hinge-loss linear SVM with an l1, elastic-net
// or l2 penalty, and for the epsilon-insensitive linear SVR (l2), on data with few features (its
// Newton systems are n_features x n_features).
//
// Problems (smsvm's and l1_cd's hinge problem, LIBLINEAR's scaling; LIBLINEAR -s 13's SVR):
//
//   F(w, b) = l1 ||w||_1 + l2/2 (||w||^2 + [bias penalized] b^2)
//             + sum_i cost_i max(0, 1 - y_i (w.x_i + b s))            (hinge)
//   F(w, b) = l2/2 (||w||^2 + [bias penalized] b^2)
//             + sum_i cost_i max(0, |y_i - (w.x_i + b s)| - eps)     (epsilon_insensitive)
//
// s = intercept_scaling; the bias never carries l1 and is penalized only with l2 > 0 and
// regularize_intercept (the pure l1 hinge is a linear program). Rows of zero cost are left out.
//
// Method: Mehrotra's predictor-corrector (Mehrotra, "On the implementation of a primal-dual
// interior point method", SIAM J. Optim. 1992; Nocedal and Wright, Numerical Optimization,
// 2nd ed., sections 14.2 and 16.6) on the smooth form over (w, b, xi, t)
//
//   min l1 sum_j t_j + l2/2 ||w||^2 + [l2/2 b^2] + sum_i cost_i xi_i
//   s.t. xi_i >= 0,  -t <= w <= t  (t only with l1 > 0),  and with z_i = w.x_i + b s
//        y_i z_i + xi_i >= 1                                  (hinge)
//        z_i + xi_i >= y_i - eps,  -z_i + xi_i >= -y_i - eps  (epsilon_insensitive),
//
// started from w = 0, b = 0, t = 1 with the multipliers at equal shares of their bounds
// (cost_i / 2 or / 3, l1 / 2); the hinge starts at xi = 1 with its margin rows infeasible, the
// epsilon-insensitive loss at xi_i = max(|y_i| - eps, 0) + 1, every row feasible. Each iteration
// solves the Newton system twice (the affine predictor, then the centred corrector with
// sigma = (mu_aff / mu)^3) through its normal equations: xi and t are eliminated (diagonal
// blocks), which leaves the (n_features + 1)-square positive definite system
//   [X, s 1]' D [X, s 1] + diag(l2 + E, [l2])
// (D_i, E_j from the slacks and multipliers), formed in one pass (dense rows by blocked rank
// updates, sparse rows by their entries' products) and factored by Cholesky; or, with fewer
// samples than features where that costs less (option system_form), its sample form: Woodbury's
// identity on the n_samples-square I + Z Z', Z = D^1/2 X diag(l2 + E)^-1/2, with iterative
// refinement, the start changing to the feature form where refinement does not settle. Steps go
// 0.99 of the way to the boundary; the linear program (l2 = 0) takes separate primal and dual step
// lengths, the quadratic programs one common length.
//
// Stopping rule: a certificate, as l1_cd's, smsvm's and TRON's continuations': at every
// iteration the margin multipliers, clipped into the dual's box, are a dual point, made feasible
// by scaling (hinge_certificate.hpp, kink_dual.hpp); the run ends (converged) once the relative
// duality gap (F(w, b) - D) / F(w, b) <= tol, i.e. F is within tol of the optimum.
//
// Cost: per iteration one pass forming the system (dense: n_samples (n_features + 1)^2 / 2
// multiply-adds; sparse: the sum over rows of their stored entries squared; sample form:
// n_samples^2 n_features / 2), a Cholesky factorization ((n_features + 1)^3 / 3, or
// n_samples^3 / 3) and about six passes over X; 15-30 iterations whatever the data's scaling or
// degeneracy. It is the method for few features: solver="auto" sends the l1 and elastic-net
// hinge there (svmkit/_solvers.py, IPM_MAX_FEATURES). Memory: the system and up to 4 partial
// sums of it (the sample form: also a dense copy of the scaled rows; bounded by max_system_mb),
// and 10 doubles per sample (13 for the epsilon-insensitive loss).
//
// Many features with l1 > 0 (the hinge; more than working_set_min_features): the method runs on
// a working set of features (column generation), a copy of their columns. At the end of a start
// (and once mid-way) every feature's optimality condition is checked with the margin
// multipliers; the certificate over all features (w = 0 off the set) ends the run, otherwise
// the features that violate their condition most join the set and the method starts again.
// The systems are then those of the set (in the sample form near-violators join it too); the
// set is bounded by working_set_max_features while it holds fewer features than samples (status
// max_iter with a message where the optimum needs more) and by max_system_mb. For the sparse l1
// optimum of wide data (solver="auto": pure l1, IPM_L1_WIDE_RATIO; the dense elastic net with fewer
// samples than features).
#pragma once

#include "svmkit/loss.hpp"
#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_IPM_OPTIONS(X)                                                                    \
  X(double, tol, 1e-4, above(0.0), unbounded(),                                                  \
    "stop once the certified relative duality gap (F - D) / F is <= tol")                       \
  X(long long, max_iter, 100, at_least(0), unbounded(), "maximum number of interior-point "     \
    "iterations")                                                                                \
  X(double, step_fraction, 0.99, above(0.0), below(1.0),                                        \
    "fraction of the way to the boundary of the positive orthant each step goes")               \
  X(double, max_system_mb, 1024.0, above(0.0), unbounded(),                                     \
    "most MiB of the normal-equation systems (feature form: (n_features + 1)^2 doubles each, "  \
    "one plus up to 4 partial sums; sample form: n_samples (n_features + 5 n_samples) "          \
    "doubles); above it the solve is refused (ValueError naming this option)")                  \
  X(long long, working_set_min_features, 500, at_least(0), unbounded(),                           \
    "with l1 > 0 (hinge), data with more features than this are solved over a working set of "  \
    "features, grown until the certificate on all features is <= tol (column generation)")      \
  X(long long, working_set_initial, 100, at_least(1), unbounded(),                               \
    "most features in the first working set (those violating optimality at w = 0 most); each "  \
    "round adds at most as many as the set holds, or this many")                                 \
  X(long long, working_set_max_features, 1000, at_least(1), unbounded(),                          \
    "most features in the working set while it holds fewer than the samples (above, the sample " \
    "form's cost grows linearly with it and the cap is lifted); where the optimum needs more, "  \
    "the run ends there with status max_iter (solver='auto' then hands over to l1_cd)")           \
  X(std::string, system_form, "auto", unbounded(), unbounded(),                                  \
    "\"features\": the (n_features + 1)-square system; \"samples\": the n_samples-square one "   \
    "(Woodbury, refined); \"auto\": the one with fewer operations per iteration that fits "     \
    "max_system_mb")                                                                             \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                 \
    "threads forming the system (0: the default count); the result does not depend on it")      \
  X(bool, record_history, true, unbounded(), unbounded(),                                        \
    "keep one IterationRecord per iteration")                                                    \
  X(bool, check_input, true, unbounded(), unbounded(),                                           \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct IpmOptions {
  SVMKIT_IPM_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(ipm, SVMKIT_IPM_OPTIONS)

void validate_options(const IpmOptions& options);

// Penalty weights of F above (scikit-learn's elastic net: l1 = rho, l2 = 1 - rho).
struct IpmPenalty {
  double l1 = 1.0;  // weight of ||w||_1 (>= 0)
  double l2 = 0.0;  // weight of 1/2 ||w||^2 (>= 0; l1 + l2 > 0)
};

// Solves the problem of loss (hinge: y must be +-1; epsilon_insensitive with loss.epsilon and
// penalty.l1 = 0; others: an Error naming the loss). The solution holds w followed by b
// (fit_intercept). History records: objective F, optimality and gap = the certified relative
// duality gap, smoothing = mu (the mean complementarity product where the step started), step = the
// primal step length, passes (cumulative), time. Status: converged (certified), max_iter,
// interrupted, numerical_error (a system that Cholesky could not factor even with a ridge, or a
// non-finite value), out_of_memory.
SolveResult solve_ipm(const LinearProblem& problem, const LossSpec& loss, const IpmPenalty& penalty,
                      const IpmOptions& options = {}, const Callbacks& callbacks = {});

}  // namespace svmkit
