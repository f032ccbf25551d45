// A linear learning problem: the data, the targets, the per-sample costs and how the bias
// enters. Arrays are borrowed; the caller keeps them alive during a solve.
#pragma once

#include "svmkit/data.hpp"
#include "svmkit/loss.hpp"

namespace svmkit {

// Regularized empirical risk over a linear model z_i = w.x_i + b * intercept_scaling:
//
//   F(w, b) = 1/2 ||w||^2 + [regularize_intercept] 1/2 b^2 + sum_i cost_i * loss(u_i)
//
// with u_i = y_i z_i (classification) or u_i = z_i - y_i (regression). This is LIBLINEAR's
// form; the papers' form lambda/2 ||w||^2 + 1/N sum loss is the same problem divided by
// C N with cost_i = C and lambda = 1 / (C N).
struct LinearProblem {
  MatrixView X;                      // n_samples x n_features
  const double* y = nullptr;         // targets: +-1 for classification, reals for regression
  const double* cost = nullptr;      // per-sample costs C_i >= 0 (C times sample and class weights)
  bool fit_intercept = true;         // append the bias b as the last coordinate of the solution
  double intercept_scaling = 1.0;    // the constant feature value that multiplies b (> 0)
  bool regularize_intercept = true;  // include 1/2 b^2 in F (LIBLINEAR does)
};

// Number of coordinates of the solution vector: n_features (+1 with an intercept).
inline Index solution_size(const LinearProblem& p) {
  return cols_of(p.X) + (p.fit_intercept ? 1 : 0);
}

// Checks shapes, costs, labels and the view's structure; throws Error naming the problem.
// check_finite additionally sweeps X once for NaN/inf.
void validate_problem(const LinearProblem& p, const LossSpec& loss, bool check_finite);

}  // namespace svmkit
