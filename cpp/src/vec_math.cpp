// Array kernels of the kernel solvers (see vec_math.hpp). Each is an always-inline body compiled
// for baseline x86-64, AVX2 and AVX-512 and chosen once per process (detail/simd_dispatch.hpp);
// results do not depend on the version chosen.
#include "svmkit/detail/vec_math.hpp"

#include <cstring>
#include <limits>

#include "svmkit/detail/simd_dispatch.hpp"

namespace svmkit {

namespace {

inline std::int64_t bits_of(double x) {
  std::int64_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}
inline double from_bits(std::int64_t b) {
  double x;
  std::memcpy(&x, &b, sizeof x);
  return x;
}

SVMKIT_SIMD_INLINE void exp_inplace_body(double* x, std::int64_t n) {
  // exp(v) = 2^k exp(r), v = k ln2 + r, k = round(v / ln2). ln2 is split in a part with few
  // mantissa bits (k * hi is exact for |k| <= 2^11) and the rest, so r is accurate to ~1 ulp.
  constexpr double log2e = 1.4426950408889634;
  constexpr double ln2_hi = 6.93147180369123816490e-01;
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  // Adding 1.5 * 2^52 rounds to an integer held in the low mantissa bits (round to nearest).
  constexpr double shifter = 6755399441055744.0;
  constexpr double lo_limit = -708.0;  // below: the result is taken as 0 (true value < 3.3e-308)
  constexpr double hi_limit = 709.78;  // above: overflow
  constexpr double inf = std::numeric_limits<double>::infinity();
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    // Clamp into the range where the reduction is exact; the true result is patched below.
    double c = v < lo_limit ? lo_limit : v;
    c = c > hi_limit ? hi_limit : c;
    const double t = c * log2e + shifter;
    const double k = t - shifter;
    const double r = (c - k * ln2_hi) - k * ln2_lo;
    // Taylor polynomial of exp on |r| <= 0.347 (truncation error < 5e-18), evaluated by
    // Estrin's scheme: a short dependency chain, so consecutive elements overlap in the CPU.
    const double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
    const double q0 = 1.0 + r;
    const double q1 = 1.0 / 2.0 + r * (1.0 / 6.0);
    const double q2 = 1.0 / 24.0 + r * (1.0 / 120.0);
    const double q3 = 1.0 / 720.0 + r * (1.0 / 5040.0);
    const double q4 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
    const double q5 = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);
    const double q6 = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
    const double h0 = q0 + r2 * q1, h1 = q2 + r2 * q3, h2 = q4 + r2 * q5;
    const double u0 = h0 + r4 * h1, u1 = h2 + r4 * q6;
    const double p = u0 + r8 * u1;
    // 2^(k-1) from the integer in t's low bits: the exponent field is (k - 1 + 1023) mod 2^11,
    // valid since -1021 <= k <= 1024 after clamping; the factor 2 is applied after the product
    // so that k = 1024 (results near the overflow limit) stays finite.
    const std::int64_t e =
        static_cast<std::int64_t>(static_cast<std::uint64_t>(bits_of(t) + 1022) << 52);
    double y = (p * from_bits(e)) * 2.0;
    y = v < lo_limit ? 0.0 : y;
    y = v > hi_limit ? inf : y;
    y = v != v ? v : y;  // NaN in, NaN out
    x[i] = y;
  }
}

SVMKIT_SIMD_INLINE void exp_inplace_single_body(double* x, std::int64_t n) {
  // The reduction of exp_inplace with a degree-7 Taylor polynomial: truncation error below
  // 7.5e-9 relative on |r| <= 0.347, well under float's half ulp (6e-8). Only the lower clamp
  // is needed for arguments <= 0.
  constexpr double log2e = 1.4426950408889634;
  constexpr double ln2_hi = 6.93147180369123816490e-01;
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  constexpr double shifter = 6755399441055744.0;
  constexpr double lo_limit = -708.0;
  for (std::int64_t i = 0; i < n; ++i) {
    const double v = x[i];
    double c = v < lo_limit ? lo_limit : v;
    c = c > 0.0 ? 0.0 : c;
    const double t = c * log2e + shifter;
    const double k = t - shifter;
    const double r = (c - k * ln2_hi) - k * ln2_lo;
    const double r2 = r * r, r4 = r2 * r2;
    const double q0 = 1.0 + r;
    const double q1 = 1.0 / 2.0 + r * (1.0 / 6.0);
    const double q2 = 1.0 / 24.0 + r * (1.0 / 120.0);
    const double q3 = 1.0 / 720.0 + r * (1.0 / 5040.0);
    const double p = (q0 + r2 * q1) + r4 * (q2 + r2 * q3);
    const std::int64_t e = static_cast<std::int64_t>(static_cast<std::uint64_t>(bits_of(t) + 1023)
                                                     << 52);  // 2^k, -1021 <= k <= 0
    const double y = p * from_bits(e);
    x[i] = v < lo_limit ? 0.0 : y;
  }
}

SVMKIT_SIMD_INLINE void neg_scaled_dist_body(double an, const double* nb, double g, std::int64_t b,
                                             std::int64_t e, double* out) {
  for (std::int64_t j = b; j < e; ++j) {
    const double d = an + nb[j] - 2.0 * out[j];
    out[j] = -g * (d > 0.0 ? d : 0.0);
  }
}

SVMKIT_SIMD_INLINE void rbf_from_dots_body(double an, const double* nb, double g, std::int64_t b,
                                           std::int64_t e, double* out, bool single) {
  constexpr std::int64_t block = 1024;  // distances then exponentials, block by block (in L1)
  for (std::int64_t j0 = b; j0 < e; j0 += block) {
    const std::int64_t j1 = e - j0 < block ? e : j0 + block;
    neg_scaled_dist_body(an, nb, g, j0, j1, out);
    if (single)
      exp_inplace_single_body(out + j0, j1 - j0);
    else
      exp_inplace_body(out + j0, j1 - j0);
  }
}

template <class Index>
SVMKIT_SIMD_INLINE void gather_signed_body(const float* k, const Index* idx, const float* sign,
                                           float sp, float r, std::int64_t len, float* out) {
  for (std::int64_t j = 0; j < len; ++j) out[j] = sp * sign[j] * (k[idx[j]] + r);
}

SVMKIT_SIMD_INLINE double dot8_body(const double* a, const double* b, std::int64_t n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0, s6 = 0.0, s7 = 0.0;
  std::int64_t k = 0;
  for (; k + 8 <= n; k += 8) {
    s0 += a[k] * b[k];
    s1 += a[k + 1] * b[k + 1];
    s2 += a[k + 2] * b[k + 2];
    s3 += a[k + 3] * b[k + 3];
    s4 += a[k + 4] * b[k + 4];
    s5 += a[k + 5] * b[k + 5];
    s6 += a[k + 6] * b[k + 6];
    s7 += a[k + 7] * b[k + 7];
  }
  for (; k < n; ++k) s0 += a[k] * b[k];
  return ((s0 + s4) + (s1 + s5)) + ((s2 + s6) + (s3 + s7));
}

SVMKIT_SIMD_INLINE void dots_feature_major_body(const double* xt, std::int64_t ld, std::int64_t d,
                                                const double* a, std::int64_t b, std::int64_t e,
                                                double* out) {
  // The features with a[k] != 0, four at a time: each pass over the columns adds four terms in
  // increasing k (the same order as one term per pass), so out[] is loaded and stored a quarter
  // as often. Tiles of 1024 columns keep out[] in L1 between passes.
  constexpr std::int64_t tile = 1024;
  std::int64_t nz_small[64];
  std::int64_t* nz = nz_small;
  std::int64_t* nz_heap = nullptr;
  if (d > 64) nz = nz_heap = new std::int64_t[static_cast<std::size_t>(d)];
  std::int64_t m = 0;
  for (std::int64_t k = 0; k < d; ++k)
    if (a[k] != 0.0) nz[m++] = k;
  for (std::int64_t j0 = b; j0 < e; j0 += tile) {
    const std::int64_t j1 = e - j0 < tile ? e : j0 + tile;
    for (std::int64_t j = j0; j < j1; ++j) out[j] = 0.0;
    std::int64_t q = 0;
    for (; q + 4 <= m; q += 4) {
      const double* x0 = xt + nz[q] * ld;
      const double* x1 = xt + nz[q + 1] * ld;
      const double* x2 = xt + nz[q + 2] * ld;
      const double* x3 = xt + nz[q + 3] * ld;
      const double a0 = a[nz[q]], a1 = a[nz[q + 1]], a2 = a[nz[q + 2]], a3 = a[nz[q + 3]];
      for (std::int64_t j = j0; j < j1; ++j) {
        double o = out[j];
        o += x0[j] * a0;
        o += x1[j] * a1;
        o += x2[j] * a2;
        o += x3[j] * a3;
        out[j] = o;
      }
    }
    for (; q < m; ++q) {
      const double* x0 = xt + nz[q] * ld;
      const double a0 = a[nz[q]];
      for (std::int64_t j = j0; j < j1; ++j) out[j] += x0[j] * a0;
    }
  }
  delete[] nz_heap;
}

SVMKIT_SIMD_VARIANTS(void, exp_inplace, (double* x, std::int64_t n), (x, n))
SVMKIT_SIMD_VARIANTS(void, exp_inplace_single, (double* x, std::int64_t n), (x, n))
SVMKIT_SIMD_VARIANTS(void, rbf_from_dots,
                     (double an, const double* nb, double g, std::int64_t b, std::int64_t e,
                      double* out, bool single),
                     (an, nb, g, b, e, out, single))
SVMKIT_SIMD_VARIANTS(void, gather_signed,
                     (const float* k, const std::int32_t* idx, const float* sign, float sp, float r,
                      std::int64_t len, float* out),
                     (k, idx, sign, sp, r, len, out))
SVMKIT_SIMD_VARIANTS(double, dot8, (const double* a, const double* b, std::int64_t n), (a, b, n))
SVMKIT_SIMD_VARIANTS(void, dots_feature_major,
                     (const double* xt, std::int64_t ld, std::int64_t d, const double* a,
                      std::int64_t b, std::int64_t e, double* out),
                     (xt, ld, d, a, b, e, out))

}  // namespace

void exp_inplace(double* x, std::int64_t n) {
  static const auto f = SVMKIT_SIMD_PICK(exp_inplace);
  f(x, n);
}

void exp_inplace_single(double* x, std::int64_t n) {
  static const auto f = SVMKIT_SIMD_PICK(exp_inplace_single);
  f(x, n);
}

void rbf_from_dots(double an, const double* nb, double g, std::int64_t b, std::int64_t e,
                   double* out, bool single) {
  static const auto f = SVMKIT_SIMD_PICK(rbf_from_dots);
  f(an, nb, g, b, e, out, single);
}

void gather_signed(const float* k, const std::int32_t* idx, const float* sign, float sp, float r,
                   std::int64_t len, float* out) {
  static const auto f = SVMKIT_SIMD_PICK(gather_signed);
  f(k, idx, sign, sp, r, len, out);
}

void gather_signed(const float* k, const std::int64_t* idx, const float* sign, float sp, float r,
                   std::int64_t len, float* out) {
  // 64-bit indices are rare (n >= 2^31): one version serves.
  gather_signed_body(k, idx, sign, sp, r, len, out);
}

double dot8(const double* a, const double* b, std::int64_t n) {
  static const auto f = SVMKIT_SIMD_PICK(dot8);
  return f(a, b, n);
}

void dots_feature_major(const double* xt, std::int64_t ld, std::int64_t d, const double* a,
                        std::int64_t b, std::int64_t e, double* out) {
  static const auto f = SVMKIT_SIMD_PICK(dots_feature_major);
  f(xt, ld, d, a, b, e, out);
}

}  // namespace svmkit
