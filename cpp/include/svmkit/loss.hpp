// The loss family. Each loss is a small value type with value(u), d1(u) and d2(u), the loss
// and its first and second derivative in its own argument u:
//   classification losses take the margin u = y * z (y in {-1, +1}, z = w.x + b);
//   regression losses take the residual u = z - y.
// For non-smooth losses d1 is a subgradient and d2 the generalized second derivative
// (0 or the one-sided value), as used by generalized-Newton methods.
//
// Smoothed hinge losses (t = 1 - u is the hinge argument, sigma > 0 the smoothing):
//   psi_M(t) = (t + sqrt(t^2 + sigma^2)) / 2        paper 002 psi_M, and paper 000's
//                                                    phi_alpha with alpha = sigma
//   psi_G(t) = t Phi(t/sigma) + sigma phi(t/sigma)   paper 002 psi_G (Phi, phi: normal CDF/PDF)
// Both are evaluated without subtracting nearly equal numbers for t << 0 (see below).
#pragma once

#include <cmath>
#include <string>

#include "svmkit/detail/branchless.hpp"
#include "svmkit/status.hpp"

namespace svmkit {

enum class LossKind {
  hinge,                         // max(0, 1 - u)
  squared_hinge,                 // max(0, 1 - u)^2
  smoothed_hinge,                // psi_M(1 - u; sigma) = phi_alpha, alpha = sigma
  gaussian_smoothed_hinge,       // psi_G(1 - u; sigma)
  logistic,                      // log(1 + exp(-u))
  epsilon_insensitive,           // max(0, |u| - epsilon)
  squared_epsilon_insensitive,   // max(0, |u| - epsilon)^2
  smoothed_epsilon_insensitive,  // psi_M(u - epsilon) + psi_M(-u - epsilon)
};

// A loss and its parameters.
struct LossSpec {
  LossKind kind = LossKind::squared_hinge;
  double sigma = 0.1;    // smoothing parameter of the smoothed losses (> 0)
  double epsilon = 0.0;  // insensitive-zone half width of the regression losses (>= 0)
};

const char* to_string(LossKind kind);
LossKind loss_kind_from_string(const std::string& name);  // throws Error on an unknown name
bool is_regression(LossKind kind);
bool is_smooth(LossKind kind);  // differentiable with a usable second derivative
void validate_loss(const LossSpec& spec);

namespace detail {
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

inline double normal_pdf(double v) {
  return kInvSqrt2Pi * std::exp(-0.5 * v * v);
}
inline double normal_cdf(double v) {
  return 0.5 * std::erfc(-v * kInvSqrt2);
}

// G(v) = v Phi(v) + phi(v) = E[max(0, v + N(0,1))], accurate for all v.
// For v < -5 both terms nearly cancel; there G(v) = phi(v) K / (x + K) with x = -v and
// K = 1/(x + 2/(x + 3/(x + ...))), the tail of the continued fraction of Mills' ratio
// R(x) = 1/(x + K): then 1 - x R(x) = K / (x + K) has no cancellation.
inline double gauss_smooth_relu(double v) {
  if (v >= -5.0) {
    if (v > 40.0) return v;  // Phi(v) == 1 and phi(v) == 0 in double precision
    return v * normal_cdf(v) + normal_pdf(v);
  }
  const double x = -v;
  if (x > 40.0) return 0.0;  // below the smallest subnormal
  const int terms = 10 + static_cast<int>(600.0 / (x * x));
  double tail = 0.0;
  for (int k = terms; k >= 1; --k) tail = k / (x + tail);
  return normal_pdf(x) * tail / (x + tail);
}

// psi_M(t) = (t + r) / 2, r = hypot(t, sigma); for t < 0 written as sigma^2 / (2 (r - t)).
inline double mix_smooth_relu(double t, double sigma) {
  const double r = std::hypot(t, sigma);
  if (t >= 0.0) return 0.5 * (t + r);
  return 0.5 * sigma * (sigma / (r - t));
}
// d/dt psi_M = (1 + t / r) / 2; for t < 0 written as sigma^2 / (2 r (r - t)).
inline double mix_smooth_relu_d1(double t, double sigma) {
  const double r = std::hypot(t, sigma);
  if (t >= 0.0) return 0.5 * (1.0 + t / r);
  return 0.5 * (sigma / r) * (sigma / (r - t));
}
// d2/dt2 psi_M = sigma^2 / (2 r^3), ordered to avoid overflow and underflow.
inline double mix_smooth_relu_d2(double t, double sigma) {
  const double r = std::hypot(t, sigma);
  const double q = sigma / r;
  return 0.5 * q * q / r;
}
// psi_M with its first two derivatives from one square root (the formulas above), for passes
// that need all three per sample (SmSVM). hypot only where t^2 could overflow.
struct MixSmoothRelu {
  double value, d1, d2;
};
inline MixSmoothRelu mix_smooth_relu_all(double t, double sigma) {
  const double s2 = sigma * sigma;
  const double r = std::fabs(t) < 1e150 ? std::sqrt(s2 + t * t) : std::hypot(t, sigma);
  MixSmoothRelu out;
  if (t >= 0.0) {
    out.value = 0.5 * (t + r);
    out.d1 = 0.5 * (1.0 + t / r);
  } else {
    out.value = 0.5 * s2 / (r - t);
    out.d1 = 0.5 * s2 / (r * (r - t));
  }
  out.d2 = 0.5 * s2 / (r * r * r);
  return out;
}
// psi_M(t1) - psi_M(t0) without cancellation: (t1 - t0) (1 + (t1 + t0) / (r1 + r0)) / 2.
inline double mix_smooth_relu_diff(double t1, double t0, double sigma) {
  const double s2 = sigma * sigma;
  const double r1 = std::sqrt(s2 + t1 * t1), r0 = std::sqrt(s2 + t0 * t0);
  return 0.5 * (t1 - t0) + 0.5 * (t1 - t0) * (t1 + t0) / (r1 + r0);
}
}  // namespace detail

// Each loss gives value, d1, d2 at the margin (or residual) u, and d2_max, the largest d2 (the
// scale of hessian_cutoff below).
struct HingeLoss {
  double value(double u) const { return u < 1.0 ? 1.0 - u : 0.0; }
  double d1(double u) const { return u < 1.0 ? -1.0 : 0.0; }
  double d2(double) const { return 0.0; }
  double d2_max() const { return 0.0; }
};

// Branch-free (detail/branchless.hpp): whether a row is inside the margin is close to a coin
// flip over the rows of a pass.
struct SquaredHingeLoss {
  double value(double u) const {
    const double t = detail::positive_part(1.0 - u);
    return t * t;
  }
  double d1(double u) const { return -2.0 * detail::positive_part(1.0 - u); }
  double d2(double u) const { return detail::where_positive(1.0 - u, 2.0); }  // u < 1
  double d2_max() const { return 2.0; }
};

struct SmoothedHingeLoss {  // psi_M / phi_alpha
  double sigma;
  double value(double u) const { return detail::mix_smooth_relu(1.0 - u, sigma); }
  double d1(double u) const { return -detail::mix_smooth_relu_d1(1.0 - u, sigma); }
  double d2(double u) const { return detail::mix_smooth_relu_d2(1.0 - u, sigma); }
  double d2_max() const { return 0.5 / sigma; }
};

struct GaussianSmoothedHingeLoss {  // psi_G
  double sigma;
  double value(double u) const { return sigma * detail::gauss_smooth_relu((1.0 - u) / sigma); }
  double d1(double u) const { return -detail::normal_cdf((1.0 - u) / sigma); }
  double d2(double u) const { return detail::normal_pdf((1.0 - u) / sigma) / sigma; }
  double d2_max() const { return detail::normal_pdf(0.0) / sigma; }
};

struct LogisticLoss {
  double value(double u) const {
    return u >= 0.0 ? std::log1p(std::exp(-u)) : -u + std::log1p(std::exp(u));
  }
  double d1(double u) const {
    if (u >= 0.0) {
      const double e = std::exp(-u);
      return -e / (1.0 + e);
    }
    return -1.0 / (1.0 + std::exp(u));
  }
  double d2(double u) const {
    const double e = std::exp(-std::fabs(u));
    return e / ((1.0 + e) * (1.0 + e));
  }
  double d2_max() const { return 0.25; }
};

struct EpsilonInsensitiveLoss {
  double epsilon;
  double value(double u) const {
    const double a = std::fabs(u) - epsilon;
    return a > 0.0 ? a : 0.0;
  }
  double d1(double u) const {
    if (std::fabs(u) <= epsilon) return 0.0;
    return u > 0.0 ? 1.0 : -1.0;
  }
  double d2(double) const { return 0.0; }
  double d2_max() const { return 0.0; }
};

struct SquaredEpsilonInsensitiveLoss {
  double epsilon;
  double value(double u) const {
    const double a = std::fabs(u) - epsilon;
    return a > 0.0 ? a * a : 0.0;
  }
  double d1(double u) const {
    const double a = std::fabs(u) - epsilon;
    if (a <= 0.0) return 0.0;
    return u > 0.0 ? 2.0 * a : -2.0 * a;
  }
  double d2(double u) const { return std::fabs(u) > epsilon ? 2.0 : 0.0; }
  double d2_max() const { return 2.0; }
};

struct SmoothedEpsilonInsensitiveLoss {
  double epsilon;
  double sigma;
  double value(double u) const {
    return detail::mix_smooth_relu(u - epsilon, sigma) +
           detail::mix_smooth_relu(-u - epsilon, sigma);
  }
  double d1(double u) const {
    return detail::mix_smooth_relu_d1(u - epsilon, sigma) -
           detail::mix_smooth_relu_d1(-u - epsilon, sigma);
  }
  double d2(double u) const {
    return detail::mix_smooth_relu_d2(u - epsilon, sigma) +
           detail::mix_smooth_relu_d2(-u - epsilon, sigma);
  }
  double d2_max() const { return 0.5 / sigma; }  // one kink's peak (the other adds < 1e-3 x it)
};

// The per-row curvature cost_i loss''(u_i) = c2 that a Hessian-vector product keeps: 0 when
// loss''(u_i) < cutoff * loss.d2_max(), i.e. c2 < cost_i * cutoff * d2_max (TRON's option
// hessian_cutoff; the smoothed hinges and the logistic loss curve on every row, and far from the
// kink a row's curvature is a vanishing part of H that still costs a full sweep per product).
inline double kept_curvature(double c2, double cost, double cut) {
  return c2 < cost * cut ? 0.0 : c2;
}

// Calls fn(loss_object) with the concrete loss type named by spec.
template <class Fn>
decltype(auto) visit_loss(const LossSpec& spec, Fn&& fn) {
  switch (spec.kind) {
    case LossKind::hinge:
      return fn(HingeLoss{});
    case LossKind::squared_hinge:
      return fn(SquaredHingeLoss{});
    case LossKind::smoothed_hinge:
      return fn(SmoothedHingeLoss{spec.sigma});
    case LossKind::gaussian_smoothed_hinge:
      return fn(GaussianSmoothedHingeLoss{spec.sigma});
    case LossKind::logistic:
      return fn(LogisticLoss{});
    case LossKind::epsilon_insensitive:
      return fn(EpsilonInsensitiveLoss{spec.epsilon});
    case LossKind::squared_epsilon_insensitive:
      return fn(SquaredEpsilonInsensitiveLoss{spec.epsilon});
    case LossKind::smoothed_epsilon_insensitive:
      return fn(SmoothedEpsilonInsensitiveLoss{spec.epsilon, spec.sigma});
  }
  throw_invalid("unknown loss kind");
}

}  // namespace svmkit
