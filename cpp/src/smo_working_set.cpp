// SMO's working-set sweeps (see smo_working_set.hpp). They work in blocks: a branch-free
// (vectorizable) pass computes each candidate's value into a small buffer, then a scalar pass of
// one compare per element finds the index. Ties go to the largest index, as in a serial `>=` /
// `<=` scan.
#include "svmkit/detail/smo_working_set.hpp"

#include <limits>

#include "svmkit/detail/simd_dispatch.hpp"

namespace svmkit {

namespace {

constexpr std::int64_t kBlock = 512;
constexpr double kInf = std::numeric_limits<double>::infinity();

SVMKIT_SIMD_INLINE double smo_update_gradient_body(double* G, const float* qi, const float* qj,
                                                   double di, double dj, const double* s,
                                                   const std::uint8_t* flags, std::int64_t b,
                                                   std::int64_t e, std::int64_t* at) {
  double v[kBlock];
  double best = -kInf;
  std::int64_t where = -1;
  for (std::int64_t k0 = b; k0 < e; k0 += kBlock) {
    const std::int64_t m = e - k0 < kBlock ? e - k0 : kBlock;
    double* g = G + k0;
    const float* a = qi + k0;
    const float* c = qj + k0;
    const double* sg = s + k0;
    const std::uint8_t* f = flags + k0;
    for (std::int64_t k = 0; k < m; ++k) {
      const double gk = g[k] + static_cast<double>(a[k]) * di + static_cast<double>(c[k]) * dj;
      g[k] = gk;
      v[k] = (f[k] & 1) ? -sg[k] * gk : -kInf;
    }
    for (std::int64_t k = 0; k < m; ++k) {
      if (v[k] >= best && (f[k] & 1)) {
        best = v[k];
        where = k0 + k;
      }
    }
  }
  *at = where;
  return best;
}

SVMKIT_SIMD_INLINE double smo_select_second_order_body(const double* G, const double* s,
                                                       const double* QD, const float* Qi,
                                                       const std::uint8_t* flags, double gmax,
                                                       double qdi, double si, double tau,
                                                       std::int64_t b, std::int64_t e, double* m2,
                                                       std::int64_t* at) {
  double v[kBlock], w[kBlock];
  double best = kInf, top0 = -kInf, top1 = -kInf, top2 = -kInf, top3 = -kInf;
  std::int64_t where = -1;
  for (std::int64_t t0 = b; t0 < e; t0 += kBlock) {
    const std::int64_t m = e - t0 < kBlock ? e - t0 : kBlock;
    const double* g = G + t0;
    const double* sg = s + t0;
    const double* qd = QD + t0;
    const float* q = Qi + t0;
    const std::uint8_t* f = flags + t0;
    for (std::int64_t t = 0; t < m; ++t) {
      const bool low = (f[t] & 2) != 0;
      const double y = sg[t] * g[t];
      const double yl = low ? y : -kInf;
      w[t] = yl;
      const double gap = gmax + yl;
      double a = qdi + qd[t] - 2.0 * si * sg[t] * static_cast<double>(q[t]);
      a = a > 0.0 ? a : tau;
      const double obj = -(gap * gap) / a;
      v[t] = gap > 0.0 ? obj : kInf;
    }
    // max of w in four interleaved lanes (exact whatever the order)
    std::int64_t t = 0;
    for (; t + 4 <= m; t += 4) {
      top0 = w[t] > top0 ? w[t] : top0;
      top1 = w[t + 1] > top1 ? w[t + 1] : top1;
      top2 = w[t + 2] > top2 ? w[t + 2] : top2;
      top3 = w[t + 3] > top3 ? w[t + 3] : top3;
    }
    for (; t < m; ++t) top0 = w[t] > top0 ? w[t] : top0;
    for (t = 0; t < m; ++t) {
      if (v[t] <= best && v[t] < kInf) {
        best = v[t];
        where = t0 + t;
      }
    }
  }
  top0 = top1 > top0 ? top1 : top0;
  top2 = top3 > top2 ? top3 : top2;
  *m2 = top2 > top0 ? top2 : top0;
  *at = where;
  return best;
}

SVMKIT_SIMD_VARIANTS(double, smo_update_gradient,
                     (double* G, const float* qi, const float* qj, double di, double dj,
                      const double* s, const std::uint8_t* flags, std::int64_t b, std::int64_t e,
                      std::int64_t* at),
                     (G, qi, qj, di, dj, s, flags, b, e, at))
SVMKIT_SIMD_VARIANTS(double, smo_select_second_order,
                     (const double* G, const double* s, const double* QD, const float* Qi,
                      const std::uint8_t* flags, double gmax, double qdi, double si, double tau,
                      std::int64_t b, std::int64_t e, double* m2, std::int64_t* at),
                     (G, s, QD, Qi, flags, gmax, qdi, si, tau, b, e, m2, at))

}  // namespace

double smo_update_gradient(double* G, const float* qi, const float* qj, double di, double dj,
                           const double* s, const std::uint8_t* flags, std::int64_t b,
                           std::int64_t e, std::int64_t* at) {
  static const auto f = SVMKIT_SIMD_PICK(smo_update_gradient);
  return f(G, qi, qj, di, dj, s, flags, b, e, at);
}

double smo_select_second_order(const double* G, const double* s, const double* QD, const float* Qi,
                               const std::uint8_t* flags, double gmax, double qdi, double si,
                               double tau, std::int64_t b, std::int64_t e, double* m2,
                               std::int64_t* at) {
  static const auto f = SVMKIT_SIMD_PICK(smo_select_second_order);
  return f(G, s, QD, Qi, flags, gmax, qdi, si, tau, b, e, m2, at);
}

}  // namespace svmkit
