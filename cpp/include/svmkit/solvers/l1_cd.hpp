// l1_cd: newGLMNET for l1-regularized linear classification (LIBLINEAR's -s 6 method, here for
// the logistic loss, the smoothed hinges and, by default, the squared hinge of -s 5), and
// coordinate descent with one-dimensional Newton directions (CDN, -s 5's own method) for the
// squared hinge where there are more features than samples (option squared_hinge_method).
//
// Problem (LIBLINEAR's scaling, problem.hpp, with an l1 term and an optional l2 part):
//
//   F(w, b) = l1 (||w||_1 + [regularize_intercept] |b|)
//             + l2/2 (||w||^2 + [regularize_intercept] b^2)
//             + sum_i cost_i loss(y_i (w.x_i + b * intercept_scaling)),
//   loss(u) = max(0, 1 - u)^2 (squared_hinge) or log(1 + exp(-u)) (logistic), or a smoothed
//   hinge (smoothed_hinge psi_M, gaussian_smoothed_hinge psi_G; loss.hpp), which newGLMNET
//   solves as the logistic loss (its Newton model from the loss's first two derivatives).
//
// l1 = 1, l2 = 0 is LIBLINEAR -s 5 / -s 6 (with -B intercept_scaling: the bias is the coordinate
// of a constant feature and carries |b|), i.e. scikit-learn's LinearSVC(penalty="l1",
// dual=False) and LogisticRegression(penalty="l1", solver="liblinear"). With
// regularize_intercept = false the bias is unpenalized (a plain Newton coordinate).
//
// Squared hinge, default method where the rows with a cost are at least as many as the features
// with an entry (option squared_hinge_method; CDN below otherwise): newGLMNET below, with its
// Newton model from the squared hinge's generalized second derivative (2 where 1 - u > 0), the line
// search's loss change computed without cancellation, and -s 5's meaning of tol and max_iter:
// max_iter bounds the coordinate sweeps (the inner passes), and the rule runs at tol / 10 (at the
// same tol newGLMNET stopped 5-20x further from the optimum than CDN). Once its measure meets the
// rule at tol itself, an inner solve that spends max_inner_iter sweeps (collinear columns: a
// singular model) hands the run over to CDN from its point (default method only). l1_cd.cpp
// (above run_cdn, kInnerStallSweeps) has the measurements behind both.
//
// Squared hinge, CDN (squared_hinge_method): Yuan, Chang, Hsieh, Lin, "A Comparison of Optimization
// Methods and Software for Large-scale L1-regularized Linear Classification" (JMLR 2010), section
// 4.1.
// Each outer iteration visits the active coordinates in a seeded random order; for coordinate j
// the one-dimensional model |w_j + z| + L'_j z + 1/2 L''_j z^2 (L'' the generalized second
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
// Logistic, method: newGLMNET, Yuan, Ho, Lin, "An Improved GLMNET for L1-regularized Logistic
// Regression" (JMLR 2012). Each outer (Newton) iteration computes the gradient G and the
// Hessian weights D_i = cost_i p_i (1 - p_i) (p_i = sigmoid(y_i w.x_i)) once (one pass, n
// exponentials), shrinks as above (outer level), and minimizes the model
//   q(d) = G.d + 1/2 d'(X'DX + (l2 + 1e-12) I)d + l1 (||w + d||_1 - ||w||_1)
// by CDN over the active coordinates (closed-form soft-threshold steps, X d kept up to date),
// with its own shrinking and stopping rule: the model's subgradient 1-norm <= inner_eps * (the
// reference of the outer rule), inner_eps starting at 1 and divided by 4 whenever an inner
// solve takes a single pass; at most max_inner_iter passes. An inner solve that runs into
// max_inner_iter is followed by an outer iteration over every coordinate (LIBLINEAR keeps the
// shrunk set until it converges on it, which kept features of the optimum's support out for
// thousands of passes on the hinge continuation's stages). Then w += lambda d with the Armijo
// rule F(w + lambda d) - F(w) <= sigma lambda (G.d + l1 (||w + d||_1 - ||w||_1)), lambda = 1,
// beta, ...; when no lambda in max_line_search trials is acceptable, the model is damped
// (Levenberg-Marquardt: its diagonal gets mu * loss.d2_max() * sum_i cost_i x_ij^2, mu = 1e-4,
// 1e-3, ..., 1, relaxed 10x after each accepted step) and solved again: psi_G's curvature
// vanishes far from its kink (1e-21 on every row at w = 0 with sigma = 0.1), where the
// undamped step was ~1e12. Still none at mu = 1 -> status line_search_failed.
//
// Hinge loss (the bias is never l1-penalized, as in smsvm, and carries l2/2 b^2 only with
// l2 > 0 and regularize_intercept, so the problem is smsvm's: with l2 = 0 its pure-l1 linear
// program  min ||w||_1 + sum_i cost_i max(0, 1 - y_i (w.x_i + b s))  scaled by l1, with l2 > 0
// its elastic net): a smoothing continuation. newGLMNET minimizes the problem with the hinge
// replaced by phi_sigma(u) = (u + sqrt(u^2 + sigma^2)) / 2 (paper 000's smoothing, psi_M),
// for sigma = hinge_smoothing, hinge_smoothing / 10, ... (a smaller step where a stage ends
// near tol: tron.hpp's continuation_smoothing_factor), each stage warm started from the
// last and stopped by the rule below, at tol * max(1, sigma / 0.001) where C * mean ||x_i||^2 <=
// 200 (its optimum only starts the next stage; on badly scaled data the rule, relative to the
// gradient at w = 0, would stop it far from it). After each stage a dual point of the hinge
// problem is built from phi_sigma' and repaired on the margin band (the least-norm change that
// meets the optimality conditions of the support, through the k x k Gram system of the band's rows
// on the support, within certificate_memory_mb: k <= 1024 by default; the best dual value on the
// segment from the smoothed point to the repaired one, since the least-norm change can overshoot;
// then scaled into the dual's feasible set; the elastic net's dual has no constraint on X'a, so
// only the bias's needs scaling), and the run ends (converged) as soon as its relative duality gap
// (P(w) - D(a)) / P(w) <= tol: the objective is certified within tol of the optimum. The
// certificate is also taken during a stage, after 10 of its passes and then after max(10, a quarter
// of the stage's passes so far, 10x the certificate's own cost) more, since a stage's own rule can
// end far below tol's gap (1.5-20x below on the regime matrix's cells; passes at tol 1e-4, l1 /
// elastic net 0.5: dense 10000 x 50 598 -> 196 / 335 -> 147, sparse 2000 x 50000 2841 -> 2311 /
// 7760 -> 1470, sparse 20000 x 10000 +1% / 6181 -> 3976, digits +0.4% / 453088 -> 304243). Below
// hinge_smoothing_min, or when a stage's gap is above half the previous stage's, both repaired
// (degenerate data, where the smoothed optima stop approaching the LP's: dna.scale stalls about
// 2e-4 above it; a support too large to repair (above certificate_memory_mb) leaves the smoothed
// point's gap, which is no evidence of a stall), the run ends with status max_iter (uncertified;
// optimality = the last gap; LinearSVC's solver="auto" then finishes: HiGHS solves the pure
// l1's linear program, smsvm the elastic net or what HiGHS does not certify).
// objective = P(w), the hinge objective; optimality = the gap; history records carry sigma as
// smoothing and the gap of each certificate (every stage's last record, and those where one was
// taken during a stage). Measured against smsvm (the same problem) on the regime matrix's cells:
// dense 10000 x 50 0.13 s vs 1.7 s, sparse 2000 x 50000 0.22 s vs 6.7 s, sparse 20000 x 10000 5.4 s
// vs over 20 s; smsvm's Newton steps at small smoothing take many Armijo halvings before its polish
// certifies the point. The elastic net (l1_ratio 0.5) against dual_cd's dual: dense 100000 x 50
// 0.72 s vs 17 s (max_iter), but sparse 20000 x 500 1.1 s vs 0.27 s (LinearSVC's solver="auto"
// rule, svmkit/_solvers.py ENET_CD_RATIO).
//
// Data: both work by columns. A column-major copy of X, with y_i folded into the values and the
// rows of zero cost dropped, is built once: sparse input -> nnz * (8 + 4) bytes (8 + 8 with more
// than 2^31 rows), dense input -> n_samples * n_features * 8 bytes, plus the bias column;
// refused (ValueError naming max_copy_mb) above max_copy_mb. Sparse input keeps only the
// features that have an entry (an empty feature's optimum is w_j = 0), so the solver's
// per-coordinate state is O(nonempty features): on text data with d >> n that is what makes
// it fast and small (one transient 8-byte count per feature while the copy is built).
//
// newGLMNET's model: an inner solve still unsolved after three passes continues on a banded model
// (option hessian_cutoff, as tron's): only the rows whose loss'' is at least hessian_cutoff times
// the largest stay coupled, the others keep their diagonal. The smoothed hinges (and the hinge's
// stages) curve on every row but vanishingly far from the kink, so near the optimum the band is a
// few percent of the rows and each pass costs that share; the line search stays exact. A
// safeguard keeps the exact model for the rest of the solve once, along three directions, the
// curvature the band left out exceeded 0.75 times the model's (a large hessian_cutoff made the
// iteration crawl).
//
// Stopping rule (LIBLINEAR's for -s 5 and -s 6): the 1-norm of the minimum-norm subgradient
// over the active set <= tol * max(min(#pos, #neg), 1) / n_samples * (the same at the first
// outer iteration of a cold start; with a warm start, its value at w = 0). The class-share
// factor is LIBLINEAR's (and so scikit-learn's): the same tol means the same accuracy. The
// squared hinge (CDN) keeps its shrunk set across sweeps: when the rule holds on it, the set is
// reset to all coordinates and the rule must hold again, and a shrunk run also gets a full sweep
// after 10, 20, 40, ... passes' worth of work (a coordinate shrunk too early cannot stall it).
// newGLMNET shrinks afresh from all coordinates at every Newton iteration, as LIBLINEAR's -s 6.
// max_iter bounds the coordinate sweeps for the squared hinge (either method; the result's
// iterations counts them, and newGLMNET records one history entry per Newton iteration), the
// Newton iterations for the other losses.
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
  X(long long, max_iter, 1000, at_least(0), unbounded(),                                         \
    "maximum number of outer iterations (coordinate sweeps for the squared hinge)")              \
  X(bool, shrinking, true, unbounded(), unbounded(),                                             \
    "drop zero coordinates that are unlikely to move from the active set")                      \
  X(long long, seed, 0, at_least(0), unbounded(), "seed of the coordinate permutations")         \
  X(double, max_copy_mb, 65536.0, above(0.0), unbounded(),                                       \
    "largest column-major copy of X allowed, in MiB")                                            \
  X(double, sigma, 0.01, above(0.0), below(1.0), "Armijo sufficient-decrease constant")          \
  X(double, beta, 0.5, above(0.0), below(1.0), "step shrink factor of the line search")          \
  X(int, max_line_search, 20, at_least(1), unbounded(),                                          \
    "line-search trials per step (per coordinate step, per Newton step for the logistic loss)")  \
  X(double, hinge_smoothing, 0.1, above(0.0), unbounded(),                                      \
    "hinge loss: the smoothing sigma of the first stage (each next stage divides it by 10)")     \
  X(double, hinge_smoothing_min, 1e-6, above(0.0), unbounded(),                                  \
    "hinge loss: the smallest smoothing tried before the run ends uncertified (max_iter)")      \
  X(long long, hinge_max_passes, 0, at_least(0), unbounded(),                                  \
    "hinge loss: end the continuation uncertified (max_iter) after this many passes; 0: no "    \
    "limit (LinearSVC's solver='auto' sets it where HiGHS finishes the pure l1)")               \
  X(double, certificate_memory_mb, 8.0, at_least(0.0), unbounded(),                            \
    "hinge loss: most MiB of the certificate's band repair system (k x k doubles, k the "      \
    "support's size + 1); above it the smoothed dual point is certified unrepaired")            \
  X(double, hessian_cutoff, 1e-4, at_least(0.0), below(1.0),                                    \
    "logistic and smoothed losses: after 3 inner passes the Newton model couples only the rows " \
    "whose loss'' is at least this times the largest (larger: cheaper passes, a cruder model); " \
    "0: every row")                                                                              \
  X(long long, max_inner_iter, 100, at_least(1), unbounded(),                                    \
    "newGLMNET: most coordinate passes over the quadratic model of one Newton iteration")       \
  X(int, squared_hinge_method, 0, at_least(0), at_most(2),                                      \
    "squared hinge: 0 newGLMNET when the rows with a cost are at least as many as the features " \
    "with an entry (CDN goes on where its inner solves stall), CDN otherwise; 1 newGLMNET; "     \
    "2 CDN (LIBLINEAR -s 5's method)")                                                           \
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
// The losses squared_hinge, logistic, smoothed_hinge, gaussian_smoothed_hinge and hinge are
// handled (others: an Error naming the loss).
// History records: objective F, optimality = the subgradient measure of the stopping rule,
// inner_iterations = coordinate steps taken (logistic: inner passes), active_size = active
// coordinates (bias included), step = the largest |w_j change| of the iteration (logistic: the
// line search's lambda, 0 when no Newton step was taken), passes (cumulative), time.
SolveResult solve_l1_cd(const LinearProblem& problem, const LossSpec& loss,
                        const L1CdPenalty& penalty, const L1CdOptions& options = {},
                        const Callbacks& callbacks = {}, const double* w0 = nullptr);

}  // namespace svmkit
