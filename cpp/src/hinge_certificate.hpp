// The certificate of the exact hinge problem with l1 / l2 penalties at a given w: the relative
// duality gap at a dual point taken from a smoothing of width sigma and repaired on the margin
// band. Shared by l1_cd's smoothing continuation (its stage ends) and SmSVM (its final point).
// Internal to the library (not installed); Pen is any struct with l1 and l2 weights.
#pragma once

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/loss.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {
namespace hinge_cert {

// The margin band of the certificate: samples with |u_i| <= kMarginBand * sigma are the
// candidates for 0 < a_i < C_i (phi_sigma' is within 0.5 % of 0 or 1 outside it).
constexpr double kMarginBand = 10.0;
// The band system's ridge, relative to its largest diagonal entry (repair_band).
constexpr double kGramRidge = 1e-12;
// The certificate takes the best dual value at these fractions of the way from the smoothed
// dual point to the repaired one (0 and 1 included): every point of the segment is in the box,
// so each is a valid bound after hinge_dual_value's scalings, and the repair's least-norm change
// can overshoot (a band about as large as the support: on standardized digits at sigma = 0.01
// the repaired point's gap was 2.2 where the smoothed point's was 4e-3).
constexpr double kSegmentPoints[] = {0.0, 0.25, 0.5, 0.75, 1.0};
// Rounds of the certificate's clipping (each fixes the samples the last one pushed out of the box).
constexpr int kCertificateRounds = 20;

struct HingeCertificate {
  double gap = kNaN;      // (P(w) - D(a)) / P(w) at the repaired dual point
  double primal = kNaN;   // P(w): l1 ||w||_1 + sum_i C_i max(0, 1 - y_i (w.x_i + b s))
  long long passes = 0;   // sweeps over X it took
  double band_work = 0;   // multiply-adds of the band repair's Gram systems (estimate)
  bool repaired = false;  // whether the band repair ran (within certificate_memory_mb)
};

// The relative duality gap of the hinge problem at w, l1 ||w||_1 + l2/2 (||w||^2 + [bias
// penalized] b^2) + sum_i C_i max(0, 1 - y_i (w.x_i + b s)) (the bias never carries l1; it is
// penalized only with l2 > 0 and regularize_intercept), from the dual point of the smoothing
// sigma, repaired on the margin band. With r = sum_i a_i y_i x_i the dual is
//   l2 = 0: max sum_i a_i  s.t.  0 <= a_i <= C_i,  sum_i a_i y_i = 0,  |r_j| <= l1;
//   l2 > 0: max sum_i a_i - 1/(2 l2) (||S_l1(r)||^2 + [bias penalized] (s sum_i a_i y_i)^2)
//           s.t.  0 <= a_i <= C_i  (and sum_i a_i y_i = 0 with a free bias),
// S_l1 the soft threshold. a_i = C_i phi_sigma'(u_i) is near the dual optimum only as well as
// the stage was solved, and at small sigma a_i is very sensitive to u_i; so a_i is set to C_i
// (u_i > band), 0 (u_i < -band) and, on the band M, corrected by the least-norm change that meets
// the optimum's conditions at w (r_j = l1 sign(w_j) + l2 w_j on the support S, and
// s sum a_i y_i = l2 b or sum a_i y_i = 0 for the bias), clipped to the box. Any remaining
// infeasibility is removed by scaling (the larger class's a down to the smaller's sum with a
// free bias; with l2 = 0 every a by l1 / max |r_j|), so the gap is a certificate (weak duality)
// whatever the sets were.
struct HingeDualPoint {
  std::vector<double> a;     // the dual variables
  std::vector<Index> band;   // the samples with |1 - y_i (w.x_i + b s)| <= kMarginBand * sigma
  std::vector<double> rpos;  // sum over positive samples of a_i x_i
  std::vector<double> rneg;  // sum over negative samples of a_i x_i
};

template <class V>
void hinge_residual(const V& X, const LinearProblem& p, HingeDualPoint& d) {
  std::fill(d.rpos.begin(), d.rpos.end(), 0.0);
  std::fill(d.rneg.begin(), d.rneg.end(), 0.0);
  for (Index i = 0; i < X.rows; ++i)
    if (d.a[i] != 0.0) row_axpy(X, i, d.a[i], p.y[i] > 0.0 ? d.rpos.data() : d.rneg.data());
}

// The band's rows restricted to the support (and the bias), as sparse lists: band sample q
// holds the entries [start[q], start[q + 1]) of (row, val) (row = position in the support).
struct BandRows {
  std::vector<std::size_t> start{0};
  std::vector<Index> row;
  std::vector<double> val;
};

// What the band's change has to supply (t = rhs - A a_M): on the support S, r_j = l1 sign(w_j)
// + l2 w_j; for the bias (last entry, with an intercept) s sum a_i y_i = l2 b, or 0 with a free
// bias. r = rpos - rneg and ay = sum_i a_i y_i at the current dual point; sol = w followed by b.
inline Eigen::VectorXd repair_targets(const std::vector<Index>& S, const double* sol, Index m,
                                      double l1, double l2, const double* rpos, const double* rneg,
                                      double ay, bool fit_intercept, bool bias_penalized,
                                      double intercept_scaling) {
  const Index k = static_cast<Index>(S.size()) + (fit_intercept ? 1 : 0);
  Eigen::VectorXd t(k);
  for (Index s = 0; s < static_cast<Index>(S.size()); ++s) {
    const Index j = S[s];
    t[s] = l1 * (sol[j] > 0.0 ? 1.0 : -1.0) + l2 * sol[j] - (rpos[j] - rneg[j]);
  }
  if (fit_intercept) t[k - 1] = (bias_penalized ? l2 * sol[m] / intercept_scaling : 0.0) - ay;
  return t;
}

// The repair's rounds on the band (a_M in the box [0, hi], changed in place; t as above): the
// least-norm change A_F' y with (A_F A_F') y = t over the free samples F, the samples it pushes
// out of the box fixed at the bound and the rest solved again, up to kCertificateRounds; false
// when the system is empty or its k x k Gram matrix is above max_gram entries (a_M unchanged).
// The k x k system is built from the rows' support entries (sum of their squares, so sparse
// rows cost little) and solved by LDLT, where a dense least-squares solve of A_F costs
// k |F| min(k, |F|). A slightly singular system (fewer band samples than support features,
// ties) gets a ridge of kGramRidge times its largest diagonal entry: any change is a valid dual
// point after the scalings of hinge_dual_value, so the system only has to be solved well
// enough to make the certificate tight. Shared by repair_band and the distributed driver
// (partition_passes.hpp: hinge_repair_band), which gathers the band's rows itself.
inline bool repair_band_rounds(const BandRows& A, Index k, Eigen::VectorXd t, Eigen::VectorXd& aM,
                               const Eigen::VectorXd& hi, double max_gram, double* work) {
  const Index nm = static_cast<Index>(aM.size());
  if (k == 0 || nm == 0 || static_cast<double>(k) * static_cast<double>(k) > max_gram) return false;
  const auto& start = A.start;
  const auto& row = A.row;
  const auto& val = A.val;
  std::vector<Index> free(static_cast<std::size_t>(nm));
  for (Index q = 0; q < nm; ++q) free[q] = q;
  // G = A_F A_F' over the free samples, built once and downdated as samples leave F: its strict
  // upper triangle in M and its diagonal in gdiag, so that each round factors G + ridge I in
  // place in M's lower triangle (LDLT reads and writes only that one): one k x k matrix where a
  // copy of G and LDLT's own took three (15 of the 31 MB peak on sparse 16,000 x 10,000, k =
  // 460).
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(k, k);
  Eigen::VectorXd gdiag = Eigen::VectorXd::Zero(k);
  const auto add_samples = [&](const std::vector<Index>& qs, double sign) {
    for (const Index q : qs) {
      for (std::size_t e = start[q]; e < start[q + 1]; ++e) {
        gdiag[row[e]] += sign * val[e] * val[e];
        for (std::size_t f = e + 1; f < start[q + 1]; ++f)
          M(std::min(row[e], row[f]), std::max(row[e], row[f])) += sign * val[e] * val[f];
      }
      const double len = static_cast<double>(start[q + 1] - start[q]);
      *work += len * len;
    }
  };
  add_samples(free, 1.0);
  const double ridge = kGramRidge * std::max(gdiag.maxCoeff(), 0.0);
  for (int round = 0; round < kCertificateRounds && !free.empty(); ++round) {
    for (Index c = 0; c < k; ++c)
      for (Index r = c + 1; r < k; ++r) M(r, c) = M(c, r);
    M.diagonal() = gdiag.array() + ridge;
    *work += static_cast<double>(k) * static_cast<double>(k) * static_cast<double>(k) / 3.0;
    const Eigen::LDLT<Eigen::Ref<Eigen::MatrixXd>> factor(M);
    const Eigen::VectorXd yv = factor.solve(t);
    if (!yv.allFinite()) break;
    std::vector<Index> still, left;
    for (const Index q : free) {
      double delta = 0.0;
      for (std::size_t e = start[q]; e < start[q + 1]; ++e) delta += val[e] * yv[row[e]];
      const double v = aM[q] + delta;
      const double clipped = std::min(std::max(v, 0.0), hi[q]);
      // The change actually made comes off what is left to supply.
      for (std::size_t e = start[q]; e < start[q + 1]; ++e) t[row[e]] -= val[e] * (clipped - aM[q]);
      aM[q] = clipped;
      (v == clipped ? still : left).push_back(q);
    }
    if (left.empty()) break;
    add_samples(left, -1.0);
    free.swap(still);
  }
  return true;
}

// The least-norm change of a on the band that meets the optimum's conditions at w (above,
// repair_band_rounds), from the band's rows of X; false when the system is empty or above
// max_gram entries (a unchanged; the option certificate_memory_mb, 8 MiB by default: k <= 1024).
template <class V, class Pen>
bool repair_band(const V& X, const LinearProblem& p, const Pen& pen, const std::vector<double>& sol,
                 bool bias_penalized, double max_gram, HingeDualPoint& d, double* work) {
  const Index m = X.cols;
  std::vector<Index> S;
  for (Index j = 0; j < m; ++j)
    if (sol[j] != 0.0) S.push_back(j);
  const Index k = static_cast<Index>(S.size()) + (p.fit_intercept ? 1 : 0);
  const Index nm = static_cast<Index>(d.band.size());
  if (k == 0 || nm == 0 || static_cast<double>(k) * static_cast<double>(k) > max_gram) return false;
  std::vector<Index> spos(static_cast<std::size_t>(m), -1);
  for (Index t = 0; t < static_cast<Index>(S.size()); ++t) spos[S[t]] = t;
  BandRows A;
  A.start.reserve(static_cast<std::size_t>(nm) + 1);
  for (Index q = 0; q < nm; ++q) {
    const Index i = d.band[q];
    for_each_in_row(X, i, [&](Index j, double x) {
      if (spos[j] >= 0) {
        A.row.push_back(spos[j]);
        A.val.push_back(p.y[i] * x);
      }
    });
    if (p.fit_intercept) {
      A.row.push_back(k - 1);
      A.val.push_back(p.y[i]);
    }
    A.start.push_back(A.row.size());
  }
  double ay = 0.0;
  if (p.fit_intercept)
    for (Index i = 0; i < X.rows; ++i) ay += d.a[i] * p.y[i];
  const Eigen::VectorXd t =
      repair_targets(S, sol.data(), m, pen.l1, pen.l2, d.rpos.data(), d.rneg.data(), ay,
                     p.fit_intercept, bias_penalized, p.intercept_scaling);
  Eigen::VectorXd aM(nm), hi(nm);  // the box is [0, hi]
  for (Index q = 0; q < nm; ++q) {
    aM[q] = d.a[d.band[q]];
    hi[q] = p.cost[d.band[q]];
  }
  repair_band_rounds(A, k, t, aM, hi, max_gram, work);
  for (Index q = 0; q < nm; ++q) d.a[d.band[q]] = aM[q];
  return true;
}

// The dual objective at a point given by its sums, apos = sum_{y>0} a_i, aneg = sum_{y<0} a_i
// and rpos / rneg = sum_{y>0 / y<0} a_i x_i (m entries each), made feasible by the scalings
// above. Shared with the distributed driver (partition_passes.hpp: hinge_dual_value_from_sums).
inline double hinge_dual_value_sums(double apos, double aneg, const double* rpos,
                                    const double* rneg, Index m, double l1, double l2,
                                    bool fit_intercept, bool bias_penalized,
                                    double intercept_scaling) {
  double tpos = 1.0, tneg = 1.0;
  if (fit_intercept && !bias_penalized) {
    if (apos > aneg)
      tpos = aneg / apos;
    else if (aneg > 0.0)
      tneg = apos / aneg;
  }
  const double asum = tpos * apos + tneg * aneg;
  if (l2 == 0.0) {
    double rmax = 0.0;
    for (Index j = 0; j < m; ++j) rmax = std::max(rmax, std::fabs(tpos * rpos[j] - tneg * rneg[j]));
    return (rmax > l1 ? l1 / rmax : 1.0) * asum;
  }
  double shrunk = 0.0;  // ||S_l1(r)||^2 (+ the bias's term)
  for (Index j = 0; j < m; ++j) {
    const double t = std::fabs(tpos * rpos[j] - tneg * rneg[j]) - l1;
    if (t > 0.0) shrunk += t * t;
  }
  const double ay = intercept_scaling * (tpos * apos - tneg * aneg);
  if (bias_penalized) shrunk += ay * ay;
  return asum - shrunk / (2.0 * l2);
}

// The dual objective at a, made feasible by the scalings above.
template <class V, class Pen>
double hinge_dual_value(const V& X, const LinearProblem& p, const Pen& pen, bool bias_penalized,
                        const HingeDualPoint& d) {
  double apos = 0.0, aneg = 0.0;
  for (Index i = 0; i < X.rows; ++i) (p.y[i] > 0.0 ? apos : aneg) += d.a[i];
  return hinge_dual_value_sums(apos, aneg, d.rpos.data(), d.rneg.data(), X.cols, pen.l1, pen.l2,
                               p.fit_intercept, bias_penalized, p.intercept_scaling);
}

template <class V, class Pen>
HingeCertificate hinge_certificate(const V& X, const LinearProblem& p, const Pen& pen,
                                   const std::vector<double>& sol, double sigma, double max_gram) {
  HingeCertificate c;
  const Index n = X.rows, m = X.cols;
  const bool bias_penalized = p.fit_intercept && p.regularize_intercept && pen.l2 > 0.0;
  const double beta = p.fit_intercept ? sol[static_cast<std::size_t>(m)] : 0.0;
  HingeDualPoint d;
  d.a.assign(static_cast<std::size_t>(n), 0.0);
  d.rpos.resize(static_cast<std::size_t>(m));
  d.rneg.resize(static_cast<std::size_t>(m));
  std::vector<double> z(static_cast<std::size_t>(n));
  matvec(X, sol.data(), z.data(), 1);
  double primal = bias_penalized ? 0.5 * pen.l2 * beta * beta : 0.0;
  for (Index j = 0; j < m; ++j)
    primal += pen.l1 * std::fabs(sol[j]) + 0.5 * pen.l2 * sol[j] * sol[j];
  const double band = kMarginBand * sigma;
  for (Index i = 0; i < n; ++i) {
    const double ui = 1.0 - p.y[i] * (z[i] + beta * p.intercept_scaling);
    primal += p.cost[i] * std::max(ui, 0.0);
    if (p.cost[i] == 0.0) continue;
    if (ui > band) {
      d.a[i] = p.cost[i];
    } else if (ui >= -band) {
      d.a[i] = p.cost[i] * detail::mix_smooth_relu_d1(ui, sigma);
      d.band.push_back(i);
    }
  }
  c.primal = primal;
  hinge_residual(X, p, d);
  c.passes = 2;  // the margins, r
  double dual = hinge_dual_value(X, p, pen, bias_penalized, d);
  const HingeDualPoint smoothed = d;
  if (repair_band(X, p, pen, sol, bias_penalized, max_gram, d, &c.band_work)) {
    hinge_residual(X, p, d);
    ++c.passes;
    c.repaired = true;
    // a and r are linear in each other: the points of the segment mix both.
    HingeDualPoint mix = d;
    for (const double th : kSegmentPoints) {
      if (th == 0.0) continue;  // the smoothed point's value is `dual` already
      for (std::size_t i = 0; i < mix.a.size(); ++i)
        mix.a[i] = (1.0 - th) * smoothed.a[i] + th * d.a[i];
      for (std::size_t j = 0; j < mix.rpos.size(); ++j) {
        mix.rpos[j] = (1.0 - th) * smoothed.rpos[j] + th * d.rpos[j];
        mix.rneg[j] = (1.0 - th) * smoothed.rneg[j] + th * d.rneg[j];
      }
      dual = std::max(dual, hinge_dual_value(X, p, pen, bias_penalized, mix));
    }
  }
  const double gap = std::max(primal - dual, 0.0);
  c.gap = primal > 0.0 ? gap / primal : gap;
  return c;
}

}  // namespace hinge_cert
}  // namespace svmkit
