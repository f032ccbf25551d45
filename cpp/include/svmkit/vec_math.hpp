// Array kernels for the hot loops of the kernel solvers, compiled three times (baseline x86-64,
// AVX2 and AVX-512) and picked at load time by the CPU (GCC/Clang function multiversioning on
// x86-64 ELF; one portable version elsewhere).
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

// The two sweeps of an SMO iteration over variables [b, e) (solvers/smo.hpp). flags bit 0:
// the variable is in I_up, bit 1: in I_low; s = +-1 signs; Q rows are float (the cache).

// G[k] += qi[k] di + qj[k] dj, and the maximum of -s[k] G[k] over I_up with its largest
// index (*at = -1 and -infinity when I_up is empty).
double smo_update_gradient(double* G, const float* qi, const float* qj, double di, double dj,
                           const double* s, const std::uint8_t* flags, std::int64_t b,
                           std::int64_t e, std::int64_t* at);

// Second-order working-set choice of j given i (Fan, Chen and Lin 2005): over t in I_low,
// *m2 = max s_t G_t, and *at = the largest index minimizing -(gmax + s_t G_t)^2 / a_t where
// gmax + s_t G_t > 0, a_t = qdi + QD_t - 2 si s_t Qi_t (tau when not positive), returned as
// the minimum value (+infinity and *at = -1 when there is no such t).
double smo_select_second_order(const double* G, const double* s, const double* QD, const float* Qi,
                               const std::uint8_t* flags, double gmax, double qdi, double si,
                               double tau, std::int64_t b, std::int64_t e, double* m2,
                               std::int64_t* at);

}  // namespace svmkit
