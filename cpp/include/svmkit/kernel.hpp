// Kernel functions over data views and kernel rows K(x_i, X).
//
//   linear      K(a, b) = a.b
//   polynomial  K(a, b) = (gamma a.b + coef0)^degree
//   rbf         K(a, b) = exp(-gamma ||a - b||^2)       (gaussian; gamma = 1 / (2 sigma^2))
//   laplacian   K(a, b) = exp(-gamma ||a - b||_1)
//   sigmoid     K(a, b) = tanh(gamma a.b + coef0)
//   precomputed K(i, j) = X[i, j]                        (X is the n x n Gram matrix)
//
// Rows are computed in parallel over j with OpenMP; rbf uses precomputed squared row norms
// (||a - b||^2 = ||a||^2 + ||b||^2 - 2 a.b), clamped at 0 against rounding.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "svmkit/data.hpp"

namespace svmkit {

enum class KernelKind { linear, polynomial, rbf, laplacian, sigmoid, precomputed };

struct KernelSpec {
  KernelKind kind = KernelKind::rbf;
  double gamma = 1.0;  // > 0 (for linear and precomputed it is unused)
  double coef0 = 0.0;  // polynomial and sigmoid offset
  int degree = 3;      // polynomial degree (>= 1)
};

const char* to_string(KernelKind kind);
KernelKind kernel_kind_from_string(const std::string& name);  // throws Error on unknown names
void validate_kernel(const KernelSpec& spec);

// x_i . x_j for two rows of possibly different views (row-major, column-major or CSR).
// CSR rows are handled by merging when both are sparse (indices need not be sorted: a dense
// scatter buffer is used instead), so callers use KernelEvaluator below for speed.

// Evaluates kernel rows between the rows of A (the "left" data, e.g. support vectors or
// training points) and the rows of B. Holds the squared norms of both for rbf, and a dense
// scratch row for sparse or strided rows.
template <class VA, class VB>
class KernelEvaluator {
 public:
  KernelEvaluator(const VA& A, const VB& B, const KernelSpec& spec, int n_threads)
      : A_(A), B_(B), spec_(spec), n_threads_(resolve_threads(n_threads)) {
    if (spec_.kind == KernelKind::rbf) {
      norm_a_ = squared_norms(A_);
      norm_b_ = squared_norms(B_);
    }
  }

  // out[j] = K(a_i, b_j) for j in [0, B.rows).
  void row(Index i, double* out) const {
    if (spec_.kind == KernelKind::precomputed) {
      // A is the Gram matrix between A's samples and B's samples; row i is its row.
      parallel_for(B_.rows, n_threads_, [&](Index j) { out[j] = entry_of(A_, i, j); });
      return;
    }
    std::vector<double> dense(static_cast<std::size_t>(A_.cols), 0.0);
    for_each_in_row(A_, i, [&](Index j, double v) { dense[j] += v; });
    const double* a = dense.data();
    if (spec_.kind == KernelKind::laplacian) {
      parallel_for(B_.rows, n_threads_,
                   [&](Index j) { out[j] = std::exp(-spec_.gamma * l1_dist(a, j)); });
      return;
    }
    parallel_for(B_.rows, n_threads_, [&](Index j) { out[j] = from_dot(row_dot(B_, j, a), i, j); });
  }

  // K(a_i, b_j) for a single pair.
  double operator()(Index i, Index j) const {
    if (spec_.kind == KernelKind::precomputed) return entry_of(A_, i, j);
    std::vector<double> dense(static_cast<std::size_t>(A_.cols), 0.0);
    for_each_in_row(A_, i, [&](Index k, double v) { dense[k] += v; });
    if (spec_.kind == KernelKind::laplacian)
      return std::exp(-spec_.gamma * l1_dist(dense.data(), j));
    return from_dot(row_dot(B_, j, dense.data()), i, j);
  }

  // K(a_i, a_i) computed from A alone.
  double self(Index i) const {
    if (spec_.kind == KernelKind::precomputed) return entry_of(A_, i, i);
    if (spec_.kind == KernelKind::rbf || spec_.kind == KernelKind::laplacian) return 1.0;
    const double d = row_sq_norm(A_, i);
    return apply_dot(d);
  }

  const KernelSpec& spec() const { return spec_; }

 private:
  template <class V>
  static std::vector<double> squared_norms(const V& X) {
    std::vector<double> n(static_cast<std::size_t>(X.rows));
    for (Index i = 0; i < X.rows; ++i) n[i] = row_sq_norm(X, i);
    return n;
  }
  template <class V>
  static double entry_of(const V& X, Index i, Index j) {
    double v = 0.0;
    for_each_in_row(X, i, [&](Index k, double x) {
      if (k == j) v += x;
    });
    return v;
  }
  double l1_dist(const double* a, Index j) const {
    // sum_k |a_k - b_jk| = sum over b's stored entries |a_k - b_k| + sum over others |a_k|.
    double s = 0.0, a_on_b = 0.0;
    for_each_in_row(B_, j, [&](Index k, double v) {
      s += std::fabs(a[k] - v);
      a_on_b += std::fabs(a[k]);
    });
    double a_total = 0.0;
    for (Index k = 0; k < A_.cols; ++k) a_total += std::fabs(a[k]);
    return s + (a_total - a_on_b);
  }
  double apply_dot(double d) const {
    switch (spec_.kind) {
      case KernelKind::linear:
        return d;
      case KernelKind::polynomial:
        return std::pow(spec_.gamma * d + spec_.coef0, spec_.degree);
      case KernelKind::sigmoid:
        return std::tanh(spec_.gamma * d + spec_.coef0);
      default:
        return d;
    }
  }
  double from_dot(double d, Index i, Index j) const {
    if (spec_.kind == KernelKind::rbf) {
      const double dist = std::max(0.0, norm_a_[i] + norm_b_[j] - 2.0 * d);
      return std::exp(-spec_.gamma * dist);
    }
    return apply_dot(d);
  }

  VA A_;
  VB B_;
  KernelSpec spec_;
  int n_threads_;
  std::vector<double> norm_a_, norm_b_;
};

}  // namespace svmkit
