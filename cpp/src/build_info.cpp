// svmkit::build_info(). The compile-time strings come from CMake as definitions on this file only,
// so changing them rebuilds one file.
#include "svmkit/build_info.hpp"

#ifdef _OPENMP
#include <omp.h>
#endif

#include "svmkit/detail/simd_dispatch.hpp"

#ifndef SVMKIT_BUILD_COMPILER
#define SVMKIT_BUILD_COMPILER "unknown"
#endif
#ifndef SVMKIT_BUILD_TYPE
#define SVMKIT_BUILD_TYPE ""
#endif
#ifndef SVMKIT_BUILD_FLAGS
#define SVMKIT_BUILD_FLAGS ""
#endif

namespace svmkit {

BuildInfo build_info() {
  BuildInfo info;
  info.version = SVMKIT_VERSION_STRING;
  info.compiler = SVMKIT_BUILD_COMPILER;
  info.build_type = SVMKIT_BUILD_TYPE;
  info.cxx_flags = SVMKIT_BUILD_FLAGS;
  info.simd_level = detail::simd_level_name(detail::simd_level());
  info.simd_cpu = detail::simd_level_name(detail::simd_cpu_level());
  info.simd_note = detail::simd_note();
  info.simd_multiversioned = SVMKIT_SIMD_MULTIVERSION != 0;
#ifdef _OPENMP
  info.openmp_version = _OPENMP;
  info.openmp_max_threads = omp_get_max_threads();
#endif
  return info;
}

}  // namespace svmkit
