// Array kernels for the hot loops of the kernel solvers, compiled three times (baseline x86-64,
// AVX2 and AVX-512) and picked once per process from the CPU's features or the environment
// variable SVMKIT_SIMD (detail/simd_dispatch.hpp; one portable version elsewhere).
//
// Results do not depend on the version chosen: the file is compiled with -ffp-contract=off (no
// fused multiply-add) and every reduction has a fixed association order written out in the
// source, so all versions perform the same IEEE operations in the same order, only more of
// them per instruction.
#pragma once

#include <cstdint>

namespace svmkit {

// x[k] <- exp(x[k]) for k in [0, n). Accurate to about 1 ulp (Cody-Waite reduction by ln 2 and
// a degree-13 Taylor polynomial on |r| <= ln(2)/2); written without branches so that the loop
// vectorizes, unlike calls to std::exp. Arguments below -708 give 0 (std::exp gives at most
// 3.3e-308 there); arguments above 709.78 give +infinity; NaN stays NaN.
void exp_inplace(double* x, std::int64_t n);

// The same for arguments x[k] <= 0 (larger ones are taken as 0) to single precision: relative
// error below 1e-8, so that the values rounded to float (the kernel cache of the SMO solver) are
// those of std::exp up to rare one-ulp ties. About half the work of exp_inplace.
void exp_inplace_single(double* x, std::int64_t n);

// sum_k a[k] b[k] with eight interleaved partial sums (fixed order; see above).
double dot8(const double* a, const double* b, std::int64_t n);

// out[j] <- exp(-g max(0, an + nb[j] - 2 out[j])) for j in [b, e): rbf values from dot products
// (out) and squared norms, clamped against rounding; single: exp_inplace_single's accuracy.
void rbf_from_dots(double an, const double* nb, double g, std::int64_t b, std::int64_t e,
                   double* out, bool single);

// out[j] = sp sign[j] (k[idx[j]] + r) for j in [0, len): a signed row of the SVR matrix
// assembled from a kernel row over the samples.
void gather_signed(const float* k, const std::int32_t* idx, const float* sign, float sp, float r,
                   std::int64_t len, float* out);
void gather_signed(const float* k, const std::int64_t* idx, const float* sign, float sp, float r,
                   std::int64_t len, float* out);

// out[j] = sum_k xt[k ld + j] a[k] for j in [b, e): dot products of a with the columns of a
// feature-major (d x ld) matrix, k in increasing order, skipping the k with a[k] == 0 (exact:
// those terms are zero), so one-hot data costs its non-zeros only.
void dots_feature_major(const double* xt, std::int64_t ld, std::int64_t d, const double* a,
                        std::int64_t b, std::int64_t e, double* out);

}  // namespace svmkit
