// The two sweeps of an SMO iteration over variables [b, e) (solvers/smo.hpp): the gradient update
// with the first-order choice of i, and the second-order choice of j. Vectorized, compiled for
// baseline x86-64, AVX2 and AVX-512 and chosen at run time (detail/simd_dispatch.hpp), with the
// same results whatever the version.
//
// flags bit 0: the variable is in I_up, bit 1: in I_low; s = +-1 signs; Q rows are float (the
// kernel cache).
#pragma once

#include <cstdint>

namespace svmkit {

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
