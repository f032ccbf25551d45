// The lower triangle of Z Z' for a row-major Z, by dot products of its rows in 3 x 4 register
// blocks with fused multiply-adds (x86-64 AVX2 + FMA): the system of ipm's sample form
// (ipm.cpp, factor_samples), 2.4x faster than Eigen's rank update compiled for the wheels'
// baseline x86-64 (240 x 857: 0.93 against 2.2 ms). Unlike the array kernels
// (detail/simd_dispatch.hpp), whose versions give the same bits, this one fuses multiply-adds:
// fused_gram_available() says whether this process runs it (the SIMD level, SVMKIT_SIMD
// included, at least avx2, and the CPU has FMA); callers use Eigen's rank update otherwise, so
// the results differ in rounding between such processes.
#pragma once

#include <cstdint>

namespace svmkit::detail {

bool fused_gram_available();

// M(i, k) += sum_{j < len} Z[i ld + j] Z[k ld + j] for k <= i < rows; M is column-major with
// leading dimension ldm (entries above the diagonal inside the 3 x 4 blocks are written too).
// Only where fused_gram_available().
void fused_gram_lower(const double* Z, std::int64_t rows, std::int64_t ld, std::int64_t len,
                      double* M, std::int64_t ldm);

}  // namespace svmkit::detail
