// Runtime choice of the instruction set for the array kernels (vec_math.cpp,
// smo_working_set.cpp). A wheel is compiled for baseline x86-64, so each kernel is compiled three
// times (baseline, AVX2, AVX-512: GCC/Clang target attributes on one always-inline body) and a
// pointer to one version is chosen once, on first use, from the CPU's features; the environment
// variable SVMKIT_SIMD=baseline|avx2|avx512 forces a level (never above what the CPU runs).
// Elsewhere (MSVC, other architectures) only the baseline version exists.
//
// Results do not depend on the version: those files are compiled with -ffp-contract=off (no fused
// multiply-add) and every reduction has a fixed association order written in the source. The one
// exception follows the same level: ipm's Gram kernel (detail/gram_kernels.hpp) fuses
// multiply-adds from AVX2 up, so its results differ in rounding from the baseline's.
#pragma once

#include <string>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && \
    !defined(SVMKIT_NO_MULTIVERSION)
#define SVMKIT_SIMD_MULTIVERSION 1
#define SVMKIT_TARGET_AVX2 __attribute__((target("avx2")))
#define SVMKIT_TARGET_AVX512 __attribute__((target("avx512f")))
#define SVMKIT_SIMD_INLINE inline __attribute__((always_inline))
#else
#define SVMKIT_SIMD_MULTIVERSION 0
#define SVMKIT_SIMD_INLINE inline
#endif

namespace svmkit::detail {

enum class SimdLevel { baseline = 0, avx2 = 1, avx512 = 2 };

// The level every dispatched kernel uses in this process (decided on the first call).
SimdLevel simd_level();
// The best level this CPU (and OS) can run, and whether the kernels were multiversioned.
SimdLevel simd_cpu_level();
// "baseline", "avx2" or "avx512".
const char* simd_level_name(SimdLevel level);
// Why the level differs from the CPU's best (a forced level, an ignored SVMKIT_SIMD value);
// empty when the CPU's best is used.
const std::string& simd_note();

template <class F>
F simd_select(F baseline, F avx2, F avx512) {
  switch (simd_level()) {
    case SimdLevel::avx512:
      return avx512;
    case SimdLevel::avx2:
      return avx2;
    default:
      return baseline;
  }
}

}  // namespace svmkit::detail

// SVMKIT_SIMD_VARIANTS(ret, name, (params), (args)) defines name_baseline, name_avx2 and
// name_avx512, each the inlined body name_body compiled for its instruction set;
// SVMKIT_SIMD_PICK(name) is the pointer to the one chosen for this process.
#if SVMKIT_SIMD_MULTIVERSION
#define SVMKIT_SIMD_VARIANTS(ret, name, params, args) \
  SVMKIT_TARGET_AVX512 ret name##_avx512 params {     \
    return name##_body args;                          \
  }                                                   \
  SVMKIT_TARGET_AVX2 ret name##_avx2 params {         \
    return name##_body args;                          \
  }                                                   \
  ret name##_baseline params {                        \
    return name##_body args;                          \
  }
#define SVMKIT_SIMD_PICK(name) \
  ::svmkit::detail::simd_select(&name##_baseline, &name##_avx2, &name##_avx512)
#else
#define SVMKIT_SIMD_VARIANTS(ret, name, params, args) \
  ret name##_baseline params {                        \
    return name##_body args;                          \
  }
#define SVMKIT_SIMD_PICK(name) (&name##_baseline)
#endif
