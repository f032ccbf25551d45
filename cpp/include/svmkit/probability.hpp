// Probability estimates for kernel SVMs, as LIBSVM makes them.
//
// Problem 1 (Platt scaling): given decision values f_i and labels y_i = +-1, fit
// P(y = +1 | f) = 1 / (1 + exp(A f + B)) by minimizing the cross entropy against the regularized
// targets t_i = (N+ + 1) / (N+ + 2) for y_i = +1 and 1 / (N- + 2) for y_i = -1 (Platt 1999).
// Method: Newton's method on (A, B) with a ridge sigma on the Hessian and a backtracking
// (Armijo) line search, every term of the objective and its derivatives written in the
// overflow-free form of Lin, Lin and Weng (2007), "A note on Platt's probabilistic outputs for
// support vector machines", Machine Learning 68. Stopping rule: both gradient components below
// eps in absolute value, a line search that cannot decrease the objective with a step of at
// least min_step, or max_iter iterations. The decision values come from an internal k-fold
// cross-validation on the training set (shuffled with a seeded generator; a fold whose
// training part holds one class only gives that class's +-1), as LIBSVM does.
//
// Problem 2 (pairwise coupling, multi-class): given r_ij ~ P(class i | i or j) for every pair,
// find the class probabilities p minimizing sum_i sum_{j != i} (r_ji p_i - r_ij p_j)^2 subject
// to sum_i p_i = 1: the second method of Wu, Lin and Weng (2004), "Probability estimates for
// multi-class classification by pairwise coupling", JMLR 5, the one LIBSVM uses. The objective
// is 2 p^T Q p with Q_ii = sum_{j != i} r_ji^2 and Q_ij = -r_ji r_ij; with every r_ij in (0, 1)
// the minimizer solves the optimality system [Q e; e^T 0] [p; b] = [0; 1] and is non-negative
// (Wu, Lin and Weng, Theorem 2), so it is computed exactly by one LU factorization of that
// (k+1) x (k+1) system per sample instead of LIBSVM's fixed-point iteration (which converges to
// the same point, stopping at a tolerance of 0.005 / k).
#pragma once

#include <cstdint>

#include "svmkit/data.hpp"
#include "svmkit/model.hpp"
#include "svmkit/options.hpp"
#include "svmkit/result.hpp"
#include "svmkit/solvers/smo.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_PLATT_OPTIONS(X)                                                                  \
  X(int, folds, 5, at_least(2), unbounded(), "cross-validation folds for the decision values")  \
  X(std::uint64_t, seed, 0, unbounded(), unbounded(), "seed of the fold shuffle")               \
  X(long long, max_iter, 100, at_least(1), unbounded(), "Newton iterations of the sigmoid fit")  \
  X(double, min_step, 1e-10, above(0.0), below(1.0), "smallest line-search step before giving up") \
  X(double, sigma, 1e-12, at_least(0.0), finite(), "ridge added to the Hessian's diagonal")     \
  X(double, eps, 1e-5, above(0.0), finite(), "gradient tolerance")                              \
  X(double, min_prob, 1e-7, above(0.0), below(0.5),                                             \
    "pair probabilities are clipped to [min_prob, 1 - min_prob]")
// clang-format on

struct PlattOptions {
  SVMKIT_PLATT_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(platt, SVMKIT_PLATT_OPTIONS)

void validate_options(const PlattOptions& options);

struct SigmoidFit {
  double a = 0.0, b = 0.0;  // P(+1 | f) = 1 / (1 + exp(a f + b))
  long long iterations = 0;
  SolverStatus status = SolverStatus::max_iter;  // converged, max_iter or line_search_failed
};

// Fits the sigmoid to decision values dec[0..n) with labels y (> 0: positive class).
SigmoidFit fit_sigmoid(const double* dec, const double* y, Index n, const PlattOptions& options);

// 1 / (1 + exp(a f + b)), evaluated without overflow.
double sigmoid_probability(double f, double a, double b);

// Cross-validated decision values of a binary kernel problem (problem.y = +-1): dec[i] is the
// value of sample i from the model trained on the folds without it, positive for +1. If fold
// is not null, fold[i] receives the fold that held sample i out.
void cross_validated_decisions(const KernelProblem& problem, const SmoOptions& smo,
                               const PlattOptions& options, double* dec,
                               const Callbacks& callbacks = {}, Index* fold = nullptr);

// Both steps: the sigmoid of a binary kernel problem from its cross-validated decisions.
SigmoidFit fit_platt(const KernelProblem& problem, const SmoOptions& smo,
                     const PlattOptions& options, const Callbacks& callbacks = {});

// Pairwise coupling of one sample: r is k x k row-major with r[i k + j] = P(i | i or j) for
// i != j (the diagonal is ignored); writes the k class probabilities to p.
void couple_pairwise(const double* r, Index k, double* p);

// Class probabilities of a classification model with prob_a / prob_b: out is n x n_classes,
// row-major, classes in model order. min_prob clips the pair probabilities (PlattOptions).
void predict_proba(const KernelModel& model, const MatrixView& X, double* out, int n_threads = 0,
                   double min_prob = 1e-7);

}  // namespace svmkit
