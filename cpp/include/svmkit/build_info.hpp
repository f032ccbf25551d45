// How this copy of the svmkit library was built and what it chose at run time: the version, the
// compiler and flags, the SIMD level of the array kernels, OpenMP. Python's svmkit.show_config()
// and `svmkit --version` print it; a C++ program can log it.
#pragma once

#include <string>

#include "svmkit/version.hpp"

namespace svmkit {

struct BuildInfo {
  std::string version;     // SVMKIT_VERSION_STRING (pyproject.toml's version)
  std::string compiler;    // compiler id and version, e.g. "GNU 12.2.0"
  std::string build_type;  // CMake build type, e.g. "Release"
  std::string cxx_flags;   // the C++ flags of the build type (no -march=native in wheels)
  std::string simd_level;  // level the array kernels run at: "baseline", "avx2" or "avx512"
  std::string simd_cpu;    // best level this CPU runs (baseline when not multiversioned)
  std::string simd_note;   // why simd_level differs from simd_cpu (SVMKIT_SIMD), else empty
  bool simd_multiversioned = false;  // kernels compiled for several levels (x86-64 GCC/Clang)
  int openmp_version = 0;            // _OPENMP (yyyymm) at compile time; 0 without OpenMP
  int openmp_max_threads = 1;        // omp_get_max_threads() now (OMP_NUM_THREADS); 1 without
};

// Never throws (beyond std::bad_alloc); cheap, but not meant for hot loops.
BuildInfo build_info();

}  // namespace svmkit
