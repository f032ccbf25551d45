// Linear one-class SVM by two-variable dual coordinate descent (LIBLINEAR's -s 21).
//
// Problem (Scholkopf et al.'s one-class SVM with a linear kernel, in LIBSVM's scaling): with
// per-sample bounds U_i (the costs; 1 for unweighted data, LIBLINEAR's case) and 0 < nu <= 1,
//   min_{w, rho, xi} 1/2 ||w||^2 - rho nu sum_i U_i + sum_i U_i xi_i
//   s.t. w.x_i >= rho - xi_i, xi_i >= 0,
// whose dual is
//   min_a f(a) = 1/2 ||sum_i a_i x_i||^2   s.t. 0 <= a_i <= U_i, sum_i a_i = nu sum_i U_i,
// with w = sum_i a_i x_i; the decision function is w.x - rho. There is no bias feature (rho is
// the offset); problem.fit_intercept is ignored.
//
// Method: dual coordinate descent on pairs of variables, as LIBLINEAR 2.4x does for -s 21
// (Chou, Lin and Lin, "Dual Coordinate-Descent Methods for Linear One-Class SVM and SVDD",
// SDM 2020): each outer iteration computes the gradients G_i = w.x_i in one pass, orders the
// variables that may decrease (a_i > 0) by decreasing G and those that may increase (a_j < U_j)
// by increasing G, and walks down both lists together, updating each pair (i, j) (each index at
// most once) by the exact two-variable step t = (G_i - G_j) / ||x_i - x_j||^2, clipped to the
// box, with G_i and G_j recomputed from the current w. The first pair is the maximal violating
// pair, so every outer iteration makes at least an SMO step. Shrinking leaves out of the passes
// the samples at a bound whose gradient lies beyond every candidate of the other side; they are
// reactivated when the rest meets tol, and convergence is declared on a full pass only. The start
// is LIBSVM's: a_i = U_i in order until the sum is reached. rho is the mean G over the free
// variables (the midpoint of the KKT interval when none is free).
//
// Stopping rule: max_{a_i > 0} G_i - min_{a_j < U_j} G_j <= tol (absolute, LIBLINEAR's eps),
// or max_iter outer iterations.
#pragma once

#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp). tol = 0.01 is LIBLINEAR's -s 21 default.
// clang-format off
#define SVMKIT_LINEAR_ONE_CLASS_OPTIONS(X)                                                       \
  X(double, tol, 0.01, above(0.0), unbounded(),                                                  \
    "stop when max_{a_i > 0} G_i - min_{a_j < U_j} G_j <= tol (LIBLINEAR's eps)")                \
  X(long long, max_iter, 1000, at_least(0), unbounded(), "maximum number of outer iterations")   \
  X(bool, shrinking, true, unbounded(), unbounded(),                                             \
    "leave out samples stuck at a bound (reactivated before convergence is declared)")           \
  X(bool, record_history, true, unbounded(), unbounded(),                                        \
    "keep one IterationRecord per outer iteration")                                              \
  X(bool, check_input, true, unbounded(), unbounded(),                                           \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct LinearOneClassOptions {
  SVMKIT_LINEAR_ONE_CLASS_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(linear_one_class, SVMKIT_LINEAR_ONE_CLASS_OPTIONS)

void validate_options(const LinearOneClassOptions& options);

// Solves the problem for 0 < nu <= 1 with U_i = problem.cost (problem.y is not used). The
// solution is w; objective is the primal value at (w, rho), which equals -f(a) at the optimum;
// the extras (LinearOneClassExtras) carry rho, f(a) and the dual variables.
SolveResult solve_linear_one_class(const LinearProblem& problem, double nu,
                                   const LinearOneClassOptions& options = {},
                                   const Callbacks& callbacks = {});

}  // namespace svmkit
