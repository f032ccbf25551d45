// LINESEARCHL1 (see line_search_l1.hpp for the problem and the method).
#include "svmkit/line_search_l1.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "svmkit/status.hpp"

namespace svmkit {
namespace {

// The breakpoint of coordinate j, or a negative value when it has none in (0, inf).
// Computed by one expression everywhere so that ties compare equal bitwise.
inline double breakpoint(double wj, double dj) {
  if (dj == 0.0 || wj == 0.0) return -1.0;
  return -wj / dj;
}

}  // namespace

LineSearchL1Result line_search_l1(const double* w, const double* d, std::int64_t m, double a,
                                  double b, double mu, double s_max) {
  if (!(a >= 0.0)) throw_invalid("line_search_l1: a must be >= 0 (and not NaN)");
  if (!(mu >= 0.0)) throw_invalid("line_search_l1: mu must be >= 0 (and not NaN)");
  if (!(s_max >= 0.0)) throw_invalid("line_search_l1: s_max must be >= 0 (and not NaN)");
  if (std::isnan(b)) throw_invalid("line_search_l1: b is NaN");
  if (m < 0) throw_invalid("line_search_l1: negative dimension");

  LineSearchL1Result r;
  // Slope at 0+: each coordinate moves with the sign it has just after s = 0.
  double slope0 = b;
  struct Bp {
    double sigma;
    double jump;  // 2 mu |d_j|
    std::int64_t j;
  };
  std::vector<Bp> bps;
  if (mu > 0.0) {
    for (std::int64_t k = 0; k < m; ++k) {
      const double wk = w[k], dk = d[k];
      if (std::isnan(wk) || std::isnan(dk)) throw_invalid("line_search_l1: w or d has NaN");
      if (dk == 0.0) continue;
      const double sigma = breakpoint(wk, dk);
      // A breakpoint that underflows to 0 (|w_j| subnormal against |d_j|) lies at s = 0: the
      // coordinate moves with the sign of d_j at once, as when w_j == 0.
      const bool at_zero = wk == 0.0 || (sigma == 0.0 && (wk > 0.0) != (dk > 0.0));
      const double sgn = at_zero ? (dk > 0.0 ? 1.0 : -1.0) : (wk > 0.0 ? 1.0 : -1.0);
      slope0 += mu * sgn * dk;
      if (sigma > 0.0 && sigma <= s_max) bps.push_back({sigma, 2.0 * mu * std::fabs(dk), k});
    }
  }
  r.slope0 = slope0;
  if (slope0 >= 0.0 || s_max == 0.0) {
    r.s = 0.0;
    return r;
  }
  std::sort(bps.begin(), bps.end(), [](const Bp& x, const Bp& y) {
    return x.sigma < y.sigma || (x.sigma == y.sigma && x.j < y.j);
  });
  const std::size_t nb = bps.size();
  // prefix[i] = sum of the jumps of breakpoints 0..i-1: right slope at sigma_i is
  // 2 a sigma_i + slope0 + prefix[i + 1], left slope is 2 a sigma_i + slope0 + prefix[i].
  std::vector<double> prefix(nb + 1, 0.0);
  for (std::size_t i = 0; i < nb; ++i) prefix[i + 1] = prefix[i] + bps[i].jump;
  const auto right = [&](std::size_t i) { return 2.0 * a * bps[i].sigma + slope0 + prefix[i + 1]; };
  const auto left = [&](std::size_t i) { return 2.0 * a * bps[i].sigma + slope0 + prefix[i]; };

  // Binary search for the first breakpoint whose right slope is >= 0 (the sequence (11) is
  // non-decreasing, so this is where it crosses zero).
  std::size_t lo = 0, hi = nb;  // answer in [lo, hi]; hi == nb: none
  while (lo < hi) {
    const std::size_t mid = lo + (hi - lo) / 2;
    if (right(mid) >= 0.0)
      hi = mid;
    else
      lo = mid + 1;
  }
  const std::size_t k = lo;
  // The interval before breakpoint k starts at s_prev with right slope slope_prev < 0.
  const double s_prev = k == 0 ? 0.0 : bps[k - 1].sigma;
  const double slope_prev = k == 0 ? slope0 : right(k - 1);
  r.j1 = k == 0 ? -1 : bps[k - 1].j;
  if (k < nb && left(k) >= 0.0 && a > 0.0) {
    // The zero is inside (s_prev, sigma_k) or exactly at sigma_k (left slope 0).
    const double s = s_prev - slope_prev / (2.0 * a);
    if (left(k) == 0.0 || s >= bps[k].sigma) {
      r.s = bps[k].sigma;
      r.j1 = r.j2 = bps[k].j;
      r.at_breakpoint = true;
    } else {
      r.s = std::max(s, s_prev);
      r.j2 = bps[k].j;
    }
    return r;
  }
  if (k < nb) {
    // left(k) <= 0 <= right(k) (or a = 0, where the slope is constant between breakpoints
    // and left(k) == right(k - 1) < 0): the minimizer is the breakpoint itself.
    r.s = bps[k].sigma;
    r.j1 = r.j2 = bps[k].j;
    r.at_breakpoint = true;
    return r;
  }
  // Past the last breakpoint the slope is still negative.
  if (a > 0.0) {
    const double s = s_prev - slope_prev / (2.0 * a);
    if (s >= s_max) {
      r.s = s_max;
    } else {
      r.s = std::max(s, s_prev);
    }
  } else {
    r.s = s_max;
    r.unbounded = !std::isfinite(s_max);
  }
  return r;
}

void apply_step_l1(const double* w, const double* d, std::int64_t m, const LineSearchL1Result& r,
                   double* out) {
  for (std::int64_t k = 0; k < m; ++k) {
    if (r.at_breakpoint && breakpoint(w[k], d[k]) == r.s)
      out[k] = 0.0;
    else
      out[k] = w[k] + r.s * d[k];
  }
}

}  // namespace svmkit
