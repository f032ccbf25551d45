// The fused Gram kernel of detail/gram_kernels.hpp.
#include "svmkit/detail/gram_kernels.hpp"

#include "svmkit/detail/simd_dispatch.hpp"

#if SVMKIT_SIMD_MULTIVERSION
#include <immintrin.h>
#endif

namespace svmkit::detail {

#if SVMKIT_SIMD_MULTIVERSION
namespace {

using I = std::int64_t;
#define SVMKIT_TARGET_FMA __attribute__((target("avx2,fma")))

SVMKIT_TARGET_FMA inline double sum4(__m256d v) {
  const __m128d s = _mm_add_pd(_mm256_castpd256_pd128(v), _mm256_extractf128_pd(v, 1));
  return _mm_cvtsd_f64(_mm_add_sd(s, _mm_unpackhi_pd(s, s)));
}

// M(i0 + r, k0 + q) += row i0 + r . row k0 + q over [0, len), r < 3, q < 4: twelve
// accumulators, three rows' loads reused across four (16 vector registers).
SVMKIT_TARGET_FMA void block3x4(const double* Z, I ld, I len, I i0, I k0, double* M, I ldm) {
  const double* a0 = Z + i0 * ld;
  const double* a1 = a0 + ld;
  const double* a2 = a1 + ld;
  const double* b[4] = {Z + k0 * ld, Z + (k0 + 1) * ld, Z + (k0 + 2) * ld, Z + (k0 + 3) * ld};
  __m256d c0[4], c1[4], c2[4];
  for (int q = 0; q < 4; ++q) c0[q] = c1[q] = c2[q] = _mm256_setzero_pd();
  I j = 0;
  for (; j + 4 <= len; j += 4) {
    const __m256d x0 = _mm256_loadu_pd(a0 + j), x1 = _mm256_loadu_pd(a1 + j),
                  x2 = _mm256_loadu_pd(a2 + j);
    for (int q = 0; q < 4; ++q) {
      const __m256d y = _mm256_loadu_pd(b[q] + j);
      c0[q] = _mm256_fmadd_pd(x0, y, c0[q]);
      c1[q] = _mm256_fmadd_pd(x1, y, c1[q]);
      c2[q] = _mm256_fmadd_pd(x2, y, c2[q]);
    }
  }
  const double* a[3] = {a0, a1, a2};
  const __m256d* c[3] = {c0, c1, c2};
  for (int r = 0; r < 3; ++r)
    for (int q = 0; q < 4; ++q) {
      double s = sum4(c[r][q]);
      for (I t = j; t < len; ++t) s += a[r][t] * b[q][t];
      M[(i0 + r) + (k0 + q) * ldm] += s;
    }
}

SVMKIT_TARGET_FMA double dot(const double* a, const double* b, I len) {
  __m256d c = _mm256_setzero_pd();
  I j = 0;
  for (; j + 4 <= len; j += 4)
    c = _mm256_fmadd_pd(_mm256_loadu_pd(a + j), _mm256_loadu_pd(b + j), c);
  double s = sum4(c);
  for (; j < len; ++j) s += a[j] * b[j];
  return s;
}

}  // namespace

bool fused_gram_available() {
  static const bool ok = simd_level() >= SimdLevel::avx2 && __builtin_cpu_supports("fma");
  return ok;
}

// Columns in chunks of kColumns, so that a block's seven rows of them stay in L1 while the
// other rows stream past; rows in blocks of 3 against blocks of 4 up to the diagonal, the
// remainder by single dot products.
SVMKIT_TARGET_FMA void fused_gram_lower(const double* Z, I rows, I ld, I len, double* M, I ldm) {
  constexpr I kColumns = 256;
  for (I j0 = 0; j0 < len; j0 += kColumns) {
    const I jl = len - j0 < kColumns ? len - j0 : kColumns;
    const double* Zj = Z + j0;
    I i0 = 0;
    for (; i0 + 3 <= rows; i0 += 3) {
      I k0 = 0;
      for (; k0 + 4 <= i0 + 3; k0 += 4) block3x4(Zj, ld, jl, i0, k0, M, ldm);
      for (I i = i0; i < i0 + 3; ++i)
        for (I k = k0; k <= i; ++k) M[i + k * ldm] += dot(Zj + i * ld, Zj + k * ld, jl);
    }
    for (; i0 < rows; ++i0)
      for (I k = 0; k <= i0; ++k) M[i0 + k * ldm] += dot(Zj + i0 * ld, Zj + k * ld, jl);
  }
}

#else

bool fused_gram_available() {
  return false;
}

void fused_gram_lower(const double*, std::int64_t, std::int64_t, std::int64_t, double*,
                      std::int64_t) {}

#endif

}  // namespace svmkit::detail
