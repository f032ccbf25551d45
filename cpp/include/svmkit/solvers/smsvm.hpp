// SmSVM: smoothing active-set Newton method for the l2, l1-l2 and l1 hinge-loss SVM.
//
// Problem (LIBLINEAR's scale, problem.hpp; x~ = (x, intercept_scaling) with a bias):
//   min_{w,b} F = l2/2 (||w||^2 + [regularize_intercept] b^2) + l1 ||w||_1
//                 + sum_i cost_i max(0, 1 - y_i (w.x_i + b intercept_scaling))
// Divided by S = sum_i cost_i this is paper 000's form (2) with lambda = l2 / S, mu = l1 / S
// and weights v_i = cost_i / S (1/N for uniform costs). LinearSVC: l2 = 1 - rho, l1 = rho,
// rho = l1_ratio (0 for penalty "l2", 1 for "l1"). The bias is never l1-penalized.
//
// Method: paper 000 (Emirahmetoglu, Hajewski, Oliveira, Stewart, "A Smoothing Algorithm for
// l1 Support Vector Machines"), Algorithms 1-4. The hinge is smoothed to phi_alpha (loss.hpp's
// psi_M, sigma = alpha) for alpha = alpha0, beta alpha0, ...; at each alpha, guarded Newton
// steps on the active set (w_j != 0 plus activated coordinates with |g^_j| > mu) with the
// LINESEARCHL1 step (line_search_l1.hpp) and an Armijo test on the smoothed objective;
// coordinates that reach zero leave the set. Newton systems are factored densely when the
// block fits newton_memory_mb and max_dense_block, else solved by CG preconditioned with a
// sample-space (Woodbury) inverse. Pure l1 (l2 = 0) adds the Levenberg-Marquardt shift
// newton_ridge ||g_A|| to the (then singular) Newton system; it vanishes with the gradient.
// l1 and l1-l2 runs end with a polish: from the sets the smoothed solution identifies (the
// support of w with its signs, the samples on the margin) the hinge problem's optimality
// conditions are a square linear system; its solution is kept when every condition holds
// (then it is the exact optimum, certified by its duality gap) and F does not increase.
// After a failed polish the last level goes on with a smaller eta (at most three times).
// l2 runs try the same polish once, where they end (the signs of w are then free, and the
// system is refused above 512 unknowns): where it holds, the returned w is the exact optimum
// with a certified gap, not the estimate's point.
//
// Stopping rule: converged when the hinge duality gap at the dual point phi_alpha'(u_i)
// (a certificate of (F(w) - F*) / F(w)) is <= tol, or for l2 when the estimate
// (alpha/2 - E(w) + |d^T g| / 2) / F(w) at the end of a level is (not a bound: the Newton
// decrement can be small far from the optimum; measured 5.95e-4 above clarabel's optimum at
// an estimate of 9.3e-5 on bench_regimes' near-separable 16000 x 20, C = 100; so where the
// support fits certificate_memory_mb the band-repaired certificate below must confirm it, or
// the run goes on to the next level; at alpha_floor the estimate stands); otherwise
// when the level alpha_min is solved,
// |d^T g| < eta alpha (the paper's rule; l2 runs with tol > 0 go on to alpha_floor), or
// by a successful polish (l1 runs; the bound is then its duality gap; an l2 run's polish
// replaces its final point and bound the same way).
// With tol > 0 a run that ends otherwise with its bound above tol is certified once more: the
// exact problem's duality gap at dual points repaired on the margin band (l1_cd's certificate,
// bands from the final alpha to 0.1, within certificate_memory_mb); still above tol, the status
// is max_iter and message says so (converged never stands for an uncertified gap).
// max_iter bounds the Newton steps. optimality = min(gap, estimate) at the returned w. Callbacks
// are polled once per sweep over X; a non-finite objective or step gives numerical_error.
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
  X(double, newton_ridge, 1.0, at_least(0.0), finite(),                                        \
    "pure l1 (l2 = 0): Levenberg-Marquardt shift newton_ridge ||g_A|| of the Newton system")    \
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
  X(long long, polish_rounds, 20, at_least(0), unbounded(),                                     \
    "linear systems the final polish may solve for the exact optimum; 0: no polish")             \
  X(long long, projected_halvings, 0, at_least(0), unbounded(),                                 \
    "trials of s/2, s/4, ... with sign changes zeroed before backtracking on the ray")          \
  X(long long, block_rows, 256, at_least(1), unbounded(),                                       \
    "rows per GEMM block when assembling X_I^T D X_I")                                          \
  X(double, certificate_memory_mb, 8.0, at_least(0.0), unbounded(),                            \
    "most MiB of the final certificate's band repair system (k x k doubles, k the support's "  \
    "size + 1); above it the smoothed dual point is certified unrepaired")                      \
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
  double alpha = 0.0;          // > 0: start at this alpha instead of options.alpha0 (at the
                               // run's last level if below it: alpha_min, or alpha_floor for
                               // l2 runs with tol > 0)
};

void validate_options(const SmsvmOptions& options);

// Solves the problem above; SolveResult::extras holds SmsvmExtras (solver_extras.hpp).
SolveResult solve_smsvm(const LinearProblem& problem, const SmsvmPenalty& penalty,
                        const SmsvmOptions& options = {}, const Callbacks& callbacks = {},
                        const SmsvmWarmStart& warm = {});

}  // namespace svmkit
