// AdaGrad on the augmented Lagrangian of the SVM dual (SVC and SVR, any kernel).
//
// Problem (min form of the Wolfe dual, paper 001):
//   SVC (eq. 19):  min_a 1/2 a'Qa - e'a,  Q_ij = y_i y_j K~_ij,  0 <= a_i <= C_i
//   SVR (eq. 80):  a = [a+; a-], min 1/2 (a+ - a-)'K~(a+ - a-) + eps e'(a+ + a-) - y'(a+ - a-),
//                  0 <= a+_i, a-_i <= C_i
// Variant "unreg_bias" (eqs. 42 / 100): K~ = K and the equality y'a = 0 (SVC) or
// e'(a+ - a-) = 0 (SVR) gets a multiplier mu; the bias is the converged multiplier.
// Variant "reg_bias" (eqs. 43 / 101): the bias is a regularized coordinate (primal
// 1/2 (||w||^2 + b^2)), K~ = K + 1 (the Hessian Q + yy'), box constraints only; b = sum_i beta_i.
//
// Method: paper 001 section 6.3 / Algorithm 7 (AdaGrad) applied as a primal-dual method to the
// augmented Lagrangian of eq. (41): descent in a, ascent in the multipliers, each coordinate
// with AdaGrad's step learning_rate / sqrt(sum of squared partial derivatives + eps), and the
// inequality multipliers projected onto lambda >= 0. The augmentation of the inequalities uses
// the standard (Rockafellar) form psi(g, l) = l g + rho/2 g^2 if l + rho g >= 0, else
// -l^2 / (2 rho): it equals eq. (41)'s term on active constraints, and unlike a square of
// every inequality residual it does not pull a away from inactive bounds, so the saddle point
// is exactly the dual optimum. The equality term is eq. (41)'s mu h + rho/2 h^2.
// Each iteration costs one product K~ beta (beta_i = y_i a_i or a+_i - a-_i): O(n d) for the
// linear kernel (two sweeps over X), O(n^2) from a precomputed Gram matrix otherwise.
//
// Stopping rule (paper 001 section 7): the change of the whole primal-dual vector
// (a, lambda, mu) between two iterations has Euclidean norm < tol, or max_iter iterations.
// The method is slow by nature (paper 001 Tables 9, 11: 10^4 - 10^5 iterations); SMO is the
// method of choice whenever it is available.
#pragma once

#include <string>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/kernel.hpp"
#include "svmkit/options.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

struct AdaGradDualProblem {
  MatrixView X;                  // n_samples x n_features
  const double* y = nullptr;     // +-1 labels (SVC) or targets (SVR)
  const double* cost = nullptr;  // per-sample upper bounds C_i > 0 (C times weights)
  bool regression = false;       // SVR instead of SVC
  double epsilon = 0.1;          // SVR insensitive-zone half width (>= 0)
  KernelSpec kernel;             // kernel (linear uses the data directly, no Gram matrix)
};

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_ADAGRAD_DUAL_OPTIONS(X)                                                           \
  X(std::string, variant, "reg_bias", unbounded(), unbounded(),                                 \
    "\"reg_bias\" (eqs. 43/101) or \"unreg_bias\" (eqs. 42/100)")                               \
  X(double, rho, 1.0, above(0.0), finite(), "augmentation weight (paper 001 section 7: 1)")     \
  X(double, learning_rate, 1.0, above(0.0), finite(), "AdaGrad rate alpha (paper 001 section 7: 1)") \
  X(double, eps, 1e-8, above(0.0), unbounded(), "AdaGrad offset in sqrt(s + eps)")              \
  X(double, tol, 1e-6, at_least(0.0), unbounded(),                                              \
    "stop when ||change of (a, lambda, mu)|| < tol")                                            \
  X(long long, max_iter, 100000, at_least(0), unbounded(), "maximum number of iterations")      \
  X(double, max_gram_mb, 1024.0, above(0.0), unbounded(),                                       \
    "largest Gram matrix (nonlinear kernels) kept in memory, MiB; above it: out_of_memory")     \
  X(long long, history_every, 10, at_least(1), unbounded(),                                     \
    "record one history row every this many iterations")                                        \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                \
    "threads; <= 0 uses the default (svmkit/detail/parallel.hpp)")                                     \
  X(bool, record_history, true, unbounded(), unbounded(), "keep the history")                   \
  X(bool, check_input, true, unbounded(), unbounded(),                                          \
    "validate the data (including finiteness of X) first")
// clang-format on

struct AdaGradDualOptions {
  SVMKIT_ADAGRAD_DUAL_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(adagrad_dual, SVMKIT_ADAGRAD_DUAL_OPTIONS)

void validate_options(const AdaGradDualOptions& options);

// SolveResult: solution = the dual variables a (n for SVC, 2n = [a+; a-] for SVR); objective =
// the min-form dual objective above at a; optimality = the largest violation of the box and
// equality constraints at a; extras = AdaGradDualExtras (coef, bias); status out_of_memory when
// the Gram matrix would exceed max_gram_mb. History: objective = dual objective, optimality =
// step norm.
SolveResult solve_adagrad_dual(const AdaGradDualProblem& problem,
                               const AdaGradDualOptions& options = {},
                               const Callbacks& callbacks = {});

}  // namespace svmkit
