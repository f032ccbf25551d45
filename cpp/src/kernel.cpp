#include "svmkit/kernel.hpp"

#include <limits>
#include <vector>

#include "svmkit/detail/kernel_cache.hpp"

namespace svmkit {

const char* to_string(KernelKind kind) {
  switch (kind) {
    case KernelKind::linear:
      return "linear";
    case KernelKind::polynomial:
      return "poly";
    case KernelKind::rbf:
      return "rbf";
    case KernelKind::laplacian:
      return "laplacian";
    case KernelKind::sigmoid:
      return "sigmoid";
    case KernelKind::precomputed:
      return "precomputed";
  }
  return "unknown";
}

KernelKind kernel_kind_from_string(const std::string& name) {
  if (name == "linear") return KernelKind::linear;
  if (name == "poly" || name == "polynomial") return KernelKind::polynomial;
  if (name == "rbf" || name == "gaussian") return KernelKind::rbf;
  if (name == "laplacian") return KernelKind::laplacian;
  if (name == "sigmoid") return KernelKind::sigmoid;
  if (name == "precomputed") return KernelKind::precomputed;
  throw_invalid("unknown kernel '" + name +
                "'; expected one of: linear, poly, rbf, laplacian, sigmoid, precomputed");
}

void validate_kernel(const KernelSpec& s) {
  const bool uses_gamma = s.kind == KernelKind::polynomial || s.kind == KernelKind::rbf ||
                          s.kind == KernelKind::laplacian || s.kind == KernelKind::sigmoid;
  if (uses_gamma && !(s.gamma > 0.0 && std::isfinite(s.gamma)))
    throw_invalid("kernel gamma must be a positive finite number, got " + std::to_string(s.gamma));
  if (!std::isfinite(s.coef0)) throw_invalid("kernel coef0 must be finite");
  if (s.kind == KernelKind::polynomial && s.degree < 1)
    throw_invalid("polynomial kernel degree must be >= 1, got " + std::to_string(s.degree));
}

namespace {

// max_i ||x_i||^2 over the problem's samples.
template <class V>
double max_sq_norm(const V& X, const Index* rows, Index n) {
  double m = 0.0;
  for (Index t = 0; t < n; ++t) {
    const double q = row_sq_norm(X, rows ? rows[t] : t);
    if (!(q <= m)) m = q;  // keeps a NaN
    if (std::isnan(m)) break;
  }
  return m;
}

// max |A_ij| over the problem's rows and columns of a precomputed Gram matrix.
template <class V>
double max_abs_block(const V& X, const Index* rows, Index n) {
  std::vector<char> in(static_cast<std::size_t>(X.cols), rows ? 0 : 1);
  if (rows) {
    for (Index t = 0; t < n; ++t)
      if (rows[t] >= 0 && rows[t] < X.cols) in[static_cast<std::size_t>(rows[t])] = 1;
  } else {
    std::fill(in.begin() + std::min<Index>(n, X.cols), in.end(), 0);
  }
  double m = 0.0;
  for (Index t = 0; t < n; ++t)
    for_each_in_row(X, rows ? rows[t] : t, [&](Index j, double v) {
      if (in[static_cast<std::size_t>(j)] && !(std::fabs(v) <= m)) m = std::fabs(v);
    });
  return m;
}

}  // namespace

double kernel_value_bound(const KernelSpec& spec, const MatrixView& X, const Index* rows, Index n) {
  switch (spec.kind) {
    case KernelKind::rbf:
    case KernelKind::laplacian:
    case KernelKind::sigmoid:
      return 1.0;
    case KernelKind::linear:
      return std::visit([&](const auto& V) { return max_sq_norm(V, rows, n); }, X);
    case KernelKind::polynomial: {
      const double m = std::visit([&](const auto& V) { return max_sq_norm(V, rows, n); }, X);
      return std::pow(spec.gamma * m + std::fabs(spec.coef0), spec.degree);
    }
    case KernelKind::precomputed:
      return std::visit([&](const auto& V) { return max_abs_block(V, rows, n); }, X);
  }
  return std::numeric_limits<double>::quiet_NaN();
}

void check_kernel_fits_cache(const KernelSpec& spec, const MatrixView& X, const Index* rows,
                             Index n) {
  const double bound = kernel_value_bound(spec, X, rows, n);
  if (bound <= kMaxCachedKernelValue) return;
  throw_invalid("kernel values up to " + short_number(bound) +
                " exceed what the float kernel cache holds (|K| <= 1e38): scale X or choose a "
                "smaller gamma/coef0/degree");
}

}  // namespace svmkit
