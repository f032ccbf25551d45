// SmSVM: smoothing active-set Newton method for the l2 and l1-l2 hinge-loss SVM.
//
// Problem (LIBLINEAR's scaling, problem.hpp, with an l1 term on w):
//
//   F(w, b) = l2/2 (||w||^2 + [regularize_intercept] b^2) + l1 ||w||_1
//             + sum_i cost_i max(0, 1 - y_i (w.x_i + b * intercept_scaling))
//
// Dividing by S = sum_i cost_i gives paper 000's form (2)
//
//   f(w) = lambda/2 ||w||^2 + mu ||w||_1 + sum_i v_i max(0, 1 - y_i w.x_i),  v_i = cost_i / S
//
// with lambda = l2 / S and mu = l1 / S; for uniform costs C (v_i = 1/N) this is exactly the
// paper's problem with lambda = l2 / (C N) and mu = l1 / (C N). LinearSVC uses scikit-learn's
// elastic-net language: l2 = 1 - rho, l1 = rho with rho = l1_ratio (0 for penalty "l2",
// 1 for "l1"), so lambda = (1 - rho) / (C N), mu = rho / (C N).
//
// Bias: the paper's augmented x~ = (x, intercept_scaling). The bias coordinate is never
// l1-penalized and is always active; it carries the l2 term lambda/2 b^2 only when
// regularize_intercept is true (LIBLINEAR's convention).
//
// Method: paper 000 (Emirahmetoglu, Hajewski, Oliveira, Stewart, "A Smoothing Algorithm for
// l1 Support Vector Machines"), Algorithms 1-4. The hinge max(0, u), u = 1 - y w.x, is
// replaced by phi_alpha(u) = (u + sqrt(alpha^2 + u^2)) / 2; the l1 term is not smoothed but
// handled by an active set (coordinates with w_j != 0, plus newly activated ones). For each
// alpha, guarded Newton steps on the active block H_II = X_I^T D X_I + lambda I (gradient and
// block from one pass over the data) with the LINESEARCHL1 step (line_search_l1.hpp) and an
// Armijo backtracking guard on the true smoothed objective f_alpha. When the predicted
// reduction |d^T g| < eta alpha, the inactive coordinates with |g^_j| > mu are activated once
// per alpha (with a gradient step on them), otherwise alpha <- beta alpha. A failed line
// search (s < s_min) also reduces alpha. Coordinates whose step lands on zero or changes
// sign leave the active set (Algorithm 2, line 20). Implementation choice: the sign-changed
// coordinates are set to zero *before* the Armijo test, which then uses the actual
// displacement g^T (w+ - w) (without this, zeroing after an accepted step can increase the
// objective a lot); backtracking stays on the ray w + s d and never passes the first sign
// change, where that coordinate lands on exactly zero. A full step costs one pass: the pass
// that evaluates f_alpha at the trial point also assembles the next gradient and block.
// With l1 = 0 every coordinate stays active (SmSVM-l2), except feature columns with no
// stored entry and w_j = 0, which are exactly decoupled (gradient and Hessian row zero) and
// stay at zero. Newton systems are solved in one of two ways:
//  * dense: the block H_AA is assembled by the gradient pass and factored (Cholesky), when
//    the block is at most max_dense_block, the problem is not wide (|A| <= n_samples or
//    n_samples > woodbury_max_samples) and (threads + 3) |A|^2 doubles fit newton_memory_mb;
//  * matrix-free: preconditioned CG to relative residual cg_tol, each Hessian-vector product
//    X_A^T Dv X_A v one fused sweep over the stored entries of X. The preconditioner is the
//    bordered (bias) Woodbury inverse of Lambda + X_T^T Dv_T X_T, where T holds the samples
//    whose curvature Dv_i ||x_i,A||^2 is largest (at least the regularization; at most
//    woodbury_max_samples, and the |T| x |T| matrix within newton_memory_mb) and Lambda is
//    lambda + the Jacobi diagonal of the remaining samples. The |T| x |T| system
//    I + S X_T Lambda^-1 X_T^T S (S = Dv_T^1/2) is built from sparse rows, never from a
//    dense copy of X. When every sample with curvature is in T the preconditioner is H_AA
//    itself (up to the ridge) and CG ends after one iteration: the sample-space Newton
//    solve of wide data (and, when that costs little, T holds every sample with Dv_i > 0).
//    Memory stays O(N + threads m) beyond that budget; X is never copied.
//
// Stopping rule (tol > 0): a bound on the relative suboptimality (F(w) - F*) / F(w), in two
// forms, whichever is smaller:
//  * the hinge duality gap (F(w) - D(a)) / F(w) at the dual point a_i = phi_alpha'(u_i) in
//    [0, 1], made feasible by scaling (duality_gap in smsvm.cpp): a certificate (weak
//    duality), evaluated by every gradient pass; it becomes small only once a level is
//    solved accurately, since it contains ||r(a) - lambda w||^2 / (2 lambda);
//  * l2 only (l1 = 0), at the end of a level (|d^T g| < eta alpha):
//    (alpha/2 - E(w) + |d^T g| / 2) / F(w), E(w) = f_alpha(w) - F(w) >= 0. Since
//    0 <= phi_alpha(u) - max(0, u) <= alpha/2 and the weights v_i sum to 1,
//    F* >= f_alpha* - alpha/2, so F(w) - F* <= alpha/2 - E(w) + (f_alpha(w) - f_alpha*);
//    the last term is estimated by the Newton decrement |d^T g| / 2 (exact for the
//    quadratic model, small by the level's own test). In effect alpha_min adapts to the
//    data: the run ends at the first level with alpha/2 - E(w) <~ tol F(w). With l1 the
//    decrement on the active set proved a poor estimate at small alpha (levels that end
//    after a few steps 1e-3 above the optimum), so l1 runs rely on the gap or the floor.
// The run stops (status converged) as soon as the bound is <= tol. Otherwise the loop of
// Algorithm 1 ends when alpha <= beta * alpha_min, i.e. after the level alpha = alpha_min
// has been solved to |d^T g| < eta alpha (the paper's rule; status converged; tol = 0 gives
// the paper's rule alone); l2 runs with tol > 0 continue below alpha_min, to alpha_floor at
// most, since their bound says when to stop. One refinement of the paper's rule: at the
// last level the activation of Algorithm 3 may run up to final_level_adjustments times
// (while some inactive |g^_j| > mu), not once. max_iter bounds the total number of Newton
// steps (status max_iter). SolveResult's optimality is the bound at the returned w (the
// duality gap alone if no level ended there).
//
// Cost accounting: passes counts sweeps over the data (gradient+Hessian passes, direction
// passes X d, Hessian-vector products of the matrix-free solve, the initial column scan).
// Interruption: callbacks.poll() is called once per sweep; the solve stops at the next
// check with the last accepted iterate. A non-finite objective gives numerical_error. The history
// has one record per Newton step: objective = F (hinge, LIBLINEAR scale) at the iterate, optimality
// = |d^T g| (the averaged scale of the paper), step = step length s, inner_iterations = the number
// of Newton steps taken so far at this alpha, active_size = |active set| (bias included), smoothing
// = alpha, radius = number of Armijo halvings, gap = the stopping rule's bound at the iterate where
// the step started, passes (cumulative), time.
#pragma once

#include <vector>

#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_SMSVM_OPTIONS(X)                                                                  \
  X(double, alpha0, 1.0, above(0.0), finite(),                                                  \
    "initial smoothing parameter alpha (paper: initially large)")                               \
  X(double, alpha_min, 1e-6, above(0.0), finite(),                                              \
    "last smoothing level of the paper's rule; l1/l1-l2 runs and tol = 0 end here; <= alpha0")  \
  X(double, alpha_floor, 1e-12, above(0.0), finite(),                                           \
    "l2 runs with tol > 0 end by their bound, below alpha_min if needed, never below this")     \
  X(double, beta, 0.1, above(0.0), below(1.0), "alpha <- beta alpha (paper: 0.1)")              \
  X(double, eta, 0.1, above(0.0), below(1.0),                                                    \
    "a level is solved when |d^T g| < eta alpha (paper: 1/10)")                                  \
  X(double, c1, 1e-4, above(0.0), below(1.0), "Armijo sufficient-decrease constant")            \
  X(double, s_min, 1e-10, above(0.0), finite(),                                                 \
    "line search failure when the Armijo step falls below it")                                  \
  X(double, s_max, 1e10, above(0.0), finite(), "largest step considered by LINESEARCHL1")       \
  X(long long, max_iter, 10000, at_least(0), unbounded(),                                       \
    "limit on the total number of Newton steps")                                                \
  X(double, newton_ridge, 1e-12, at_least(0.0), finite(),                                       \
    "added to the Newton system's diagonal, relative to its largest diagonal entry")            \
  X(long long, woodbury_max_samples, 4096, at_least(0), unbounded(),                            \
    "most samples in the sample-space (Woodbury) preconditioner of the matrix-free solve; 0: "  \
    "Jacobi preconditioning only")                                                              \
  X(long long, max_dense_block, 4096, at_least(0), unbounded(),                                 \
    "largest active block assembled and factored densely (k^2 doubles); larger ones are "      \
    "solved matrix-free")                                                                       \
  X(double, newton_memory_mb, 256.0, at_least(0.0), finite(),                                   \
    "MiB for the Newton system's dense matrices ((threads + 3) k^2 doubles for the dense "     \
    "block, |T|^2 for the Woodbury set); a block that does not fit is solved matrix-free, T "   \
    "is cut to fit; 0: matrix-free with Jacobi preconditioning only")                          \
  X(double, cg_tol, 1e-2, above(0.0), below(1.0), "CG stops when ||r|| <= cg_tol ||g_A||")      \
  X(long long, cg_max_iter, 0, at_least(0), unbounded(),                                        \
    "CG iterations per Newton step (2 passes each); 0 = the block size")                        \
  X(long long, final_level_adjustments, 10, at_least(0), unbounded(),                           \
    "times the active set may be enlarged at the last level (1 = the paper exactly)")           \
  X(long long, projected_halvings, 0, at_least(0), unbounded(),                                 \
    "trials of s/2, s/4, ... with sign changes zeroed before backtracking on the ray")          \
  X(long long, block_rows, 256, at_least(1), unbounded(),                                       \
    "rows per GEMM block when assembling X_I^T D X_I")                                          \
  X(double, tol, 1e-4, at_least(0.0), unbounded(),                                              \
    "stop when the relative suboptimality bound <= tol; 0: the paper's rule only")              \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                \
    "threads; <= 0 uses the default (svmkit/detail/parallel.hpp)")                                     \
  X(bool, record_history, true, unbounded(), unbounded(),                                       \
    "keep one IterationRecord per Newton step")                                                 \
  X(bool, check_input, true, unbounded(), unbounded(),                                          \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct SmsvmOptions {
  SVMKIT_SMSVM_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(smsvm, SVMKIT_SMSVM_OPTIONS)

// Penalty weights in F's (LIBLINEAR) scale; see the problem statement above.
struct SmsvmPenalty {
  double l2 = 1.0;  // weight of 1/2 ||w||^2 (>= 0); l2 + l1 > 0 unless the data fix w
  double l1 = 0.0;  // weight of ||w||_1 (>= 0)
};

// State carried between solves of a regularization path (warm start).
struct SmsvmWarmStart {
  const double* w0 = nullptr;  // initial solution (length solution_size), nullptr: zeros;
                               // its nonzero coordinates form the initial active set
  double alpha = 0.0;          // > 0: start at this alpha instead of options.alpha0
};

void validate_options(const SmsvmOptions& options);

// Solves the problem above; SolveResult::extras holds SmsvmExtras (solver_extras.hpp).
SolveResult solve_smsvm(const LinearProblem& problem, const SmsvmPenalty& penalty,
                        const SmsvmOptions& options = {}, const Callbacks& callbacks = {},
                        const SmsvmWarmStart& warm = {});

}  // namespace svmkit
