// One sample's share of the SmSVM gradient pass (solvers/smsvm.hpp), for the in-memory
// solver (smsvm.cpp) and the Dask partition kernel (partition_passes.cpp), so that both
// compute the same sums in the same order: phi_alpha is loss.hpp's psi_M (sigma = alpha).
#pragma once

#include <algorithm>
#include <cmath>

#include "svmkit/data.hpp"
#include "svmkit/loss.hpp"

namespace svmkit::detail {

// Sums of the pass over a range of rows (u_i = 1 - y_i z_i, v_i the sample weight).
struct SmsvmRowSums {
  double fs = 0.0;      // sum v_i phi_alpha(u_i)
  double fh = 0.0;      // sum v_i max(0, u_i)
  double dfs = 0.0;     // sum v_i (phi(u_i) - phi(u_old_i)) when the old margins are given
  double apos = 0.0;    // sum over y_i = +1 of v_i phi'(u_i)
  double aneg = 0.0;    // the same over y_i = -1
  double gb = 0.0;      // sum of the loss gradient coefficients -y_i v_i phi'(u_i)
  double gb_pos = 0.0;  // the same over y_i = +1
};

// Row i: z_i = x_i.w + bw, its sums, its loss gradient -y_i v_i phi'(u_i) x_i added to g
// (to g + nc for y_i < 0 when split); returns Dv_i = v_i phi''(u_i).
template <class V>
inline double smsvm_row(const V& X, Index i, const double* w, double bw, double yi, double vi,
                        double alpha, const double* z_old, double* z, double* g, Index nc,
                        bool split, SmsvmRowSums& s) {
  const double zi = row_dot(X, i, w) + bw;
  z[i] = zi;
  const double u = 1.0 - yi * zi;
  const MixSmoothRelu sm = mix_smooth_relu_all(u, alpha);
  s.fs += vi * sm.value;
  s.fh += vi * std::max(0.0, u);
  if (z_old) s.dfs += vi * mix_smooth_relu_diff(u, 1.0 - yi * z_old[i], alpha);
  const double c1 = -yi * vi * sm.d1;
  const bool neg = yi < 0.0;
  if (c1 != 0.0) row_axpy(X, i, c1, g + (split && neg ? nc : 0));
  s.gb += c1;
  if (!neg) s.gb_pos += c1;
  (neg ? s.aneg : s.apos) += vi * sm.d1;
  return vi * sm.d2;
}

// sqrt(Dv_i) x~_i restricted to the active set (position map pos, bias at bpos >= 0) into
// row, a row of the block whose rank updates assemble X~_A^T Dv X~_A.
template <class V, class Row>
inline void smsvm_block_row(const V& X, Index i, double dv, const Index* pos, Index bpos,
                            double scale, Row&& row) {
  const double sc = std::sqrt(dv);
  row.setZero();
  for_each_in_row(X, i, [&](Index j, double x) {
    const Index q = pos[j];
    if (q >= 0) row[q] += sc * x;
  });
  if (bpos >= 0) row[bpos] = sc * scale;
}

// The bias coordinate m of the loss gradient (both halves when split).
inline void smsvm_bias_gradient(const SmsvmRowSums& s, Index m, Index nc, double scale, bool split,
                                double* g) {
  if (split) {
    g[m] += s.gb_pos * scale;
    g[nc + m] += (s.gb - s.gb_pos) * scale;
  } else {
    g[m] += s.gb * scale;
  }
}

}  // namespace svmkit::detail
