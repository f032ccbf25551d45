// The dual value of the epsilon-insensitive (and, in beta_i = y_i a_i, the hinge) problem with
// an l2 penalty at a feasible dual point, made to respect a free bias's constraint. Shared by
// TRON's smoothing continuation (its stage certificates) and ipm (its stopping rule). Internal to
// the library (not installed).
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/problem.hpp"

namespace svmkit {

// An unregularized (free) intercept adds the dual constraint sum_i beta_i = 0. The smoothed
// point meets it only to the stage's tolerance (the smoothed primal's derivative in b is
// -s sum_i beta_i), so the larger of the positive and the negative parts is scaled down to the
// other's size: the box of every beta_i contains 0, so the point stays feasible.
inline void balance_free_bias(std::vector<double>& beta) {
  double pos = 0.0, neg = 0.0;
  for (const double b : beta) (b > 0.0 ? pos : neg) += std::fabs(b);
  if (pos == neg) return;
  const bool shrink_pos = pos > neg;
  const double t = shrink_pos ? neg / pos : pos / neg;
  for (double& b : beta)
    if (shrink_pos ? b > 0.0 : b < 0.0) b *= t;
}

// D(t beta) for the t in [0, 1] that maximizes it (beta feasible: |beta_i| <= cost_i, so every
// t beta is), D(beta) = beta'y - eps ||beta||_1 - 1/(2 l2) ||X~' beta||^2 (the bias's coordinate
// of X~' beta only when it is regularized), the dual of l2/2 ||w~||^2 + sum_i cost_i
// max(0, |z_i - y_i| - eps). One pass (v = X' beta). A free bias first balances beta in place
// (balance_free_bias).
template <class View>
double scaled_dual_value(const View& X, const LinearProblem& p, double epsilon,
                         std::vector<double>& beta, std::vector<double>& v, int threads,
                         ReductionBuffers& buf, double l2 = 1.0) {
  const Index n = X.rows, d = X.cols;
  const bool reg_b = p.fit_intercept && p.regularize_intercept;
  if (p.fit_intercept && !p.regularize_intercept) balance_free_bias(beta);
  double lin = 0.0, beta_sum = 0.0;
  for (Index i = 0; i < n; ++i) {
    lin += beta[i] * p.y[i] - epsilon * std::fabs(beta[i]);
    beta_sum += beta[i];
  }
  rmatvec(X, beta.data(), v.data(), threads, buf);
  double q = 0.0;
  for (Index j = 0; j < d; ++j) q += v[j] * v[j];
  if (reg_b) q += (beta_sum * p.intercept_scaling) * (beta_sum * p.intercept_scaling);
  q /= l2;
  const double t = q > 0.0 ? std::min(1.0, std::max(0.0, lin / q)) : 1.0;
  return t * lin - 0.5 * t * t * q;
}

}  // namespace svmkit
