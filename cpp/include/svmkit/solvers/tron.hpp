// TRON: trust-region Newton method with (preconditioned) conjugate gradients.
//
// Problem: min_w F(w) = 1/2 ||w||^2 + sum_i C_i loss(u_i) (problem.hpp) for a twice
// (generalized) differentiable loss: smoothed_hinge (psi_M), gaussian_smoothed_hinge (psi_G),
// squared_hinge (generalized Hessian), logistic, squared_epsilon_insensitive and
// smoothed_epsilon_insensitive; epsilon_insensitive and hinge (not differentiable) by a
// smoothing continuation over smoothed_epsilon_insensitive / smoothed_hinge (psi_M), sigma
// divided by continuation_smoothing_factor per stage (10, less near tol), ended when the relative
// duality gap of the exact problem (at the smoothed dual point or at that point repaired on the
// kink's band) is <= tol (tron.cpp; objective = the exact F, optimality = that gap, history records
// carry sigma as smoothing and the gap at each stage's end; the intercept regularized, free or
// absent).
//
// Method: paper 002 (Luo, Qiao, Zhang, "Learning with Smooth Hinge Losses"), Algorithms 1
// (trust-region framework) and 2 (CG on the trust-region subproblem, stopped when
// ||r|| <= cg_tol ||g|| or at the region's boundary), with the trust-region update rules
// and constants of Lin and More's TRON as used by LIBLINEAR (eta0..2, sigma1..3 below).
// Optionally the CG is preconditioned by M = (1 - a) I + a diag(H) (a = preconditioner_weight)
// and the region is measured in the M-norm. a = 0.2 (LIBLINEAR: 0.01) took 40% fewer passes
// over X on sparse text-like data and 10% fewer over the squared hinge, logistic and smoothed
// hinge on nine dense, sparse and real sets of bench/bench_regimes.py (same stopping rule).
//
// globalization = "line_search" replaces the region by a line search along the CG direction
// (LIBLINEAR 2.4x's newton.cpp; Galli and Lin, IEEE TNNLS 2021): CG runs unconstrained to
// ||r|| <= cg_tol ||g||, and the step length minimizes F along it on the decision values.
// "auto" (the default) takes it for psi_M and psi_G, the region otherwise; for the squared hinge
// and the logistic loss the region hands the run over to the line search after its first
// rejected step (tron.cpp: why; tron_uses_line_search and tron_hands_over_to_line_search below).
// A named globalization ("trust_region", "line_search") runs alone.
//
// With the line search, the Hessian-vector products of CG leave out the rows whose loss''(u_i)
// is below hessian_cutoff (default 1e-4) times the loss's largest (loss.hpp's kept_curvature):
// psi_M and psi_G (and the hinge / epsilon-insensitive continuation's stages) curve on every
// row, and the rows far from the kink, each a vanishing part of H, made every product a full
// sweep. CG then solves with H~ <= H (still positive definite); the value, gradient,
// preconditioner and stopping rule stay exact. A safeguard returns every row when, along
// kCutoffStrikes (3) of the directions, the rows left out carry more than kCutoffTrust (10)
// times the kept ones' curvature (tron.cpp's cutoff_trusted: small data with few rows near the
// kink). While rows are left out, the line search starts at -g.s / s'Hs (the exact curvature's
// step along s; CG's s is too long by about s'Hs / s'H~s) instead of 1. Measured at 1e-4
// against 0 (best of 3; the same Newton iterations within 3): the hinge continuation on
// dna.scale 1.26 -> 0.24 s, a9a 0.64 -> 0.32 s, sparse 16,000 x 10,000 0.52 -> 0.25 s, dense
// 80,000 x 50 0.16 -> 0.14 s; psi_M on dna.scale 56 -> 36 ms, a9a 83 -> 75 ms, but dense 80,000
// x 50 41 -> 50 ms (4 Newton steps, 40% of the rows left out, not explained); psi_G on dna.scale
// 61 -> 33 ms, a9a 140 -> 109 ms.
//
// hessian = "auto" (the default) lets the objective assemble H (dim x dim, dense) at a point
// when the CG products there would cost more passes over X than the assembly (objective.hpp:
// the rule, and only where dim <= 1024 and dim^2 <= the stored entries of X); "products" makes
// every product a pass, "assembled" assembles wherever the size allows. The iterates are the
// same up to rounding. Measured at the defaults (bench/results/tron_assembled.md, best of 3):
// covtype.5000 7.6 -> 2.7 ms, a9a 26 -> 17 ms (squared hinge; logistic and psi_M alike),
// mushrooms 13.4 -> 10.4 ms, dna.scale's psi_M 41 -> 37 ms; dna's squared hinge and logistic,
// digits, dense 80,000 x 50 and sparse 16,000 x 10,000 within 2% (few products per point, or
// dim^2 above the entries of X).
//
// Stopping rule: ||grad F(w)|| <= tol * ||grad F(0)|| (relative, so a warm start converges to
// the same accuracy as a cold one) or ||grad F(w)|| <= abs_tol, or max_iter outer iterations;
// on a smooth loss with the intercept regularized or absent also once
// ||grad F(w)||^2 / (2 F(w)) <= min(tol, 1e-4) for tol >= 1e-5 (tron_stop_rule; option gap_stop).
// F is then 1-strongly convex, so F(w) - F* <= ||grad F(w)||^2 / 2: a certified relative gap, as
// dual_cd's duals stop on theirs. It is the duality gap at the dual point a_i = -C_i loss'(u_i)
// (Fenchel-Young: P - D = ||grad F||^2 / 2), and costs nothing (not in the continuation's
// stages: tron.cpp, kStageGapTol). The result's message says when the gap, not the gradient
// rule, ended the run. Measured: bench/results/tron_gap_stop.md. The smoothed hinges (psi_M,
// psi_G), which have no LIBLINEAR counterpart, stop on the gap alone wherever it applies
// (tron_stop_rule; bench/results/smooth_hinge_duals.md).
//
// Sparse X whose nonempty columns are at most half of all is solved on those columns alone
// (cpp/src/kept_columns.hpp: bit-identical results, one renumbered copy of the indices).
#pragma once

#include "svmkit/loss.hpp"
#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_TRON_OPTIONS(X)                                                                   \
  X(double, tol, 1e-4, at_least(0.0), unbounded(),                                               \
    "stop when ||grad F(w)|| <= tol ||grad F(0)|| (relative, see above)")                         \
  X(double, abs_tol, 0.0, at_least(0.0), unbounded(),                                            \
    "stop when ||grad F(w)|| <= abs_tol; 0 disables it")                                         \
  X(bool, gap_stop, true, unbounded(), unbounded(),                                              \
    "also stop on the relative gap ||grad F||^2 / (2 F) (above); false: LIBLINEAR's rule alone") \
  X(long long, max_iter, 1000, at_least(0), unbounded(), "maximum number of Newton iterations")  \
  X(double, cg_tol, 0.1, above(0.0), below(1.0),                                                  \
    "CG stops when ||r|| <= cg_tol ||g|| (paper 002's xi_t; a plain ratio, not squared)")        \
  X(double, hessian_cutoff, 1e-4, at_least(0.0), below(1.0),                                    \
    "line search: H s leaves out the rows whose loss'' is below this times its largest (above)") \
  X(long long, cg_max_iter, 0, at_least(0), unbounded(),                                         \
    "CG iterations per Newton step; 0 = the problem dimension")                                  \
  X(bool, precondition, true, unbounded(), unbounded(), "diagonal preconditioning of CG")        \
  X(double, preconditioner_weight, 0.2, at_least(0.0), below(1.0),                               \
    "a in M = (1 - a) I + a diag(H); below 1 so that M stays positive definite")                 \
  X(double, eta0, 1e-4, at_least(0.0), below(1.0),                                               \
    "accept the step if actual/predicted reduction > eta0 (line search: Armijo's constant)")     \
  X(double, eta1, 0.25, above(0.0), below(1.0), "shrink the region below this ratio")            \
  X(double, eta2, 0.75, above(0.0), below(1.0), "enlarge the region above this ratio")           \
  X(double, sigma1, 0.25, above(0.0), below(1.0), "region shrink factor on a poor step")         \
  X(double, sigma2, 0.5, above(0.0), below(1.0), "region shrink factor on a fair step")          \
  X(double, sigma3, 4.0, above(1.0), unbounded(), "region growth factor on a good step")         \
  X(std::string, globalization, "auto", unbounded(), unbounded(),                                \
    "\"trust_region\", \"line_search\" or \"auto\" (see above)")                                 \
  X(std::string, hessian, "auto", unbounded(), unbounded(),                                      \
    "Hessian-vector products: \"products\" (a pass each), \"assembled\" or \"auto\" (see above)") \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                 \
    "threads; <= 0 uses the default (svmkit/detail/parallel.hpp)")                                      \
  X(bool, record_history, true, unbounded(), unbounded(),                                        \
    "keep one IterationRecord per outer iteration")                                              \
  X(bool, check_input, true, unbounded(), unbounded(),                                           \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct TronOptions {
  SVMKIT_TRON_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(tron, SVMKIT_TRON_OPTIONS)

void validate_options(const TronOptions& options);

enum class HessianForm;  // objective.hpp

// The HessianForm of option hessian's name ("auto", "products", "assembled"); invalid_argument
// for any other name.
HessianForm tron_hessian_form(const std::string& name);

// TRON's stopping rule on a smooth loss (the rule above), decided once per fit.
struct TronStopRule {
  // The relative tol of the gradient rule ||grad F|| <= gradient_tol ||grad F(0)||: options.tol,
  // but 0 for the smoothed hinges (psi_M, psi_G) where the gap stop applies, so that the
  // certified gap alone ends their runs. LIBLINEAR's rule is relative to ||grad F(0)||, which on
  // separable data is orders of magnitude above the optimum's scale: on dense
  // make_classification 1,500 x 1,000 (C = 10) it stopped psi_G 16% and psi_M 1.1% above the
  // optimum, and on dense wide data up to 2.5x above (reported converged). The squared hinge and
  // the logistic loss keep LIBLINEAR's rule (-s 2 / -s 0, the anchors' accuracy).
  double gradient_tol = 0.0;
  // The relative duality gap at which the run also stops: min(tol, 1e-4) for tol >= 1e-5
  // (cpp/src/gap_stop.hpp) where F is 1-strongly convex; 0 (no such stop) with gap_stop off or
  // free_bias (an intercept fitted without its penalty).
  double gap_tol = 0.0;
};
TronStopRule tron_stop_rule(double tol, bool gap_stop, LossKind kind, bool free_bias);

// The message of a converged run at F = f, ||grad F|| = gnorm whose gap, not the gradient rule
// (||grad F|| <= stop), ended it; empty where the gradient rule holds.
std::string tron_gap_stop_message(double f, double gnorm, double stop, double gap_tol);

// Whether options.globalization runs the line search for this loss ("auto": psi_M and psi_G).
bool tron_uses_line_search(const TronOptions& options, LossKind kind);

// Whether the region's loop ("auto": squared hinge, logistic loss) hands a run over to the line
// search after its first rejected step (tron.cpp: why).
bool tron_hands_over_to_line_search(const TronOptions& options, LossKind kind);

// The certified smoothing continuations (this file's, and l1_cd's for the l1 / elastic-net
// hinge) divide sigma by kContinuationFactor per stage, or by less where the stage's certified
// relative gap is already near tol: by 2 gap / tol, at least kContinuationMinFactor, the sigma
// at which the gap would be tol / 2 if it were proportional to sigma (it falls faster: 15-300x
// per factor 10 on the regime matrix's cells). Stages ending just above tol were common there
// (gaps 1.02e-4 to 2.2e-4 at sigma = 0.01 and tol = 1e-4: dense 10,000 x 50 and 100,000 x 50,
// sparse 1,600 x 50,000), and the step to sigma / 10 then cost a fifth of the fit.
constexpr double kContinuationFactor = 10.0;
constexpr double kContinuationMinFactor = 2.0;
// The factor for the stage after one whose certified gap (> tol) was gap.
double continuation_smoothing_factor(double gap, double tol);

// Solves the problem from w0 (length solution_size(problem); nullptr starts from 0).
SolveResult solve_tron(const LinearProblem& problem, const LossSpec& loss,
                       const TronOptions& options = {}, const Callbacks& callbacks = {},
                       const double* w0 = nullptr);

}  // namespace svmkit
