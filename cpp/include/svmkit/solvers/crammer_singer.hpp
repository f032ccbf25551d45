// Crammer-Singer multiclass linear SVM by the sequential dual method (LIBLINEAR's -s 4).
//
// Problem: with k classes, labels y_i in {0, ..., k-1}, per-sample costs C_i and weight vectors
// w_0 .. w_{k-1} (each with the bias b_m on the constant feature intercept_scaling, regularized,
// as LIBLINEAR's -B), minimize
//   P(W) = 1/2 sum_m (||w_m||^2 + b_m^2)
//          + sum_i C_i max(0, max_{m != y_i} (1 + z_im) - z_iy_i),   z_im = w_m.x_i + b_m s.
// Its dual (Crammer and Singer 2001, in Keerthi et al.'s form) is
//   min_a f(a) = 1/2 sum_m ||sum_i a_im x_i||^2 + sum_i sum_{m != y_i} a_im
//   s.t. sum_m a_im = 0 for every i,  a_im <= C_i^m  (C_i^m = C_i for m = y_i, else 0),
// with w_m = sum_i a_im x_i; at the optimum P(W) = -f(a).
//
// Method: Keerthi, Sundararajan, Chang, Hsieh, Lin, "A Sequential Dual Method for Large Scale
// Multi-Class Linear SVMs" (KDD 2008), as LIBLINEAR uses it: each outer iteration visits the
// active samples in a random order (std::mt19937_64 seeded by `seed`) and solves the k-variable
// subproblem of sample i exactly: a_im = (min(beta, D_m) - B_m) / A_i with A_i = ||x_i||^2 + s^2,
// B_m = G_m - A_i a_im, D_m = B_m + A_i C_i^m, and beta found by sorting D. Shrinking removes a
// class m of sample i when a_im is at its bound with G_m below every free gradient, and a sample
// once one class is left; when the shrunk problem meets a loosened tolerance everything is
// reactivated (the tolerance halves down to tol) and a full iteration must pass the test.
// Samples with C_i = 0, or with x_i = 0 and no intercept, keep a_i = 0 (their term is constant).
//
// Stopping rule: max over samples of (max_m G_im - min_{m: a_im < C_i^m} G_im) <= tol on a full
// (unshrunk) iteration, G_im = z_im + [m != y_i] the dual gradient; or max_iter outer iterations.
#pragma once

#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp). tol = 1e-4 is what scikit-learn's LinearSVC passes
// to LIBLINEAR (the command line's -s 4 default is 0.1).
// clang-format off
#define SVMKIT_CRAMMER_SINGER_OPTIONS(X)                                                         \
  X(double, tol, 1e-4, above(0.0), unbounded(),                                                  \
    "stop when the largest per-sample violation max G - min free G <= tol (LIBLINEAR's eps)")   \
  X(long long, max_iter, 1000, at_least(0), unbounded(), "maximum number of outer iterations")   \
  X(bool, shrinking, true, unbounded(), unbounded(),                                            \
    "shrink classes and samples stuck at a bound (reactivated before convergence is declared)") \
  X(long long, seed, 0, at_least(0), unbounded(),                                               \
    "seed of the solver's own std::mt19937_64 (the order of the samples)")                      \
  X(bool, record_history, true, unbounded(), unbounded(),                                       \
    "keep one IterationRecord per outer iteration")                                             \
  X(bool, check_input, true, unbounded(), unbounded(),                                          \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct CrammerSingerOptions {
  SVMKIT_CRAMMER_SINGER_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(crammer_singer, SVMKIT_CRAMMER_SINGER_OPTIONS)

void validate_options(const CrammerSingerOptions& options);

// Solves the problem for problem.y holding class indices 0 .. n_classes-1 (as doubles) and
// per-sample costs problem.cost. The solution holds n_classes blocks, w_m followed by b_m
// (b_m multiplies intercept_scaling; absent without an intercept). objective is P(W); the
// extras (CrammerSingerExtras) carry -f(a). regularize_intercept = false is refused.
SolveResult solve_crammer_singer(const LinearProblem& problem, int n_classes,
                                 const CrammerSingerOptions& options = {},
                                 const Callbacks& callbacks = {});

}  // namespace svmkit
