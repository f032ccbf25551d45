// The process-wide SIMD level of the array kernels (see detail/simd_dispatch.hpp).
#include "svmkit/detail/simd_dispatch.hpp"

#include <cstdlib>
#include <cstring>

namespace svmkit::detail {

namespace {

struct SimdChoice {
  SimdLevel cpu = SimdLevel::baseline;
  SimdLevel level = SimdLevel::baseline;
  std::string note;
};

SimdLevel detect_cpu() {
#if SVMKIT_SIMD_MULTIVERSION
  // __builtin_cpu_supports also checks that the OS saves the wide registers (XCR0).
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return SimdLevel::avx512;
  if (__builtin_cpu_supports("avx2")) return SimdLevel::avx2;
#endif
  return SimdLevel::baseline;
}

SimdChoice choose() {
  SimdChoice c;
  c.cpu = detect_cpu();
  c.level = c.cpu;
  const char* env = std::getenv("SVMKIT_SIMD");
  if (env == nullptr || *env == '\0' || std::strcmp(env, "auto") == 0) return c;
  SimdLevel want;
  if (std::strcmp(env, "baseline") == 0) {
    want = SimdLevel::baseline;
  } else if (std::strcmp(env, "avx2") == 0) {
    want = SimdLevel::avx2;
  } else if (std::strcmp(env, "avx512") == 0) {
    want = SimdLevel::avx512;
  } else {
    // A typo must not stop the library from loading: keep the CPU's choice and say so.
    c.note = std::string("SVMKIT_SIMD='") + env +
             "' is not one of auto, baseline, avx2, avx512; using " + simd_level_name(c.level);
    return c;
  }
  if (want > c.cpu) {
    c.note = std::string("SVMKIT_SIMD=") + env + " asks for more than this " +
             (SVMKIT_SIMD_MULTIVERSION ? "CPU" : "build") + " runs; using " +
             simd_level_name(c.cpu);
    return c;
  }
  c.level = want;
  c.note = std::string("forced by SVMKIT_SIMD=") + env;
  return c;
}

const SimdChoice& choice() {
  static const SimdChoice c = choose();
  return c;
}

}  // namespace

SimdLevel simd_level() {
  return choice().level;
}
SimdLevel simd_cpu_level() {
  return choice().cpu;
}
const std::string& simd_note() {
  return choice().note;
}

const char* simd_level_name(SimdLevel level) {
  switch (level) {
    case SimdLevel::avx512:
      return "avx512";
    case SimdLevel::avx2:
      return "avx2";
    default:
      return "baseline";
  }
}

}  // namespace svmkit::detail
