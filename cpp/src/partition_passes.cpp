// Per-partition passes (see svmkit/partition_passes.hpp).
#include "svmkit/partition_passes.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

#include "hinge_certificate.hpp"
#include "svmkit/detail/smsvm_rows.hpp"
#include "svmkit/status.hpp"

namespace svmkit {
namespace {

// cost_i loss(u_i) and its first and second derivatives in z_i.
template <class L>
double row_terms(const L& loss, bool classification, double y, double c, double z, double* c1,
                 double* c2) {
  const double u = classification ? y * z : z - y;
  *c1 = c * (classification ? y : 1.0) * loss.d1(u);
  *c2 = c * loss.d2(u);
  return c * loss.value(u);
}

template <class V, class L>
double fun_grad_impl(const V& X, const L& loss, const LinearProblem& p, bool classification,
                     const double* w, double* grad, double* hdiag, double* curv, int n_threads,
                     double* margins) {
  const Index d = X.cols;
  const double scale = p.intercept_scaling;
  const double b = p.fit_intercept ? w[d] : 0.0;
  const double bw = b * scale;
  const int nt = resolve_threads(n_threads);
  const int chunks = pass_chunks(X, nt);
  ReductionBuffers gbuf, hbuf;
  auto& gbufs = gbuf.get(chunks, d);
  auto& hbufs = hbuf.get(hdiag ? chunks : 0, d);
  std::vector<double> part(static_cast<std::size_t>(3 * chunks), 0.0);
  parallel_chunks(X.rows, chunks, [&](int c, Index begin, Index end) {
    double* g = gbufs[c].data();
    double* h = hdiag ? hbufs[c].data() : nullptr;
    double lsum = 0.0, gb = 0.0, hb = 0.0;
    for (Index i = begin; i < end; ++i) {
      double c1, c2;
      const double z = row_dot(X, i, w) + bw;  // partition_margins' arithmetic
      lsum += row_terms(loss, classification, p.y[i], p.cost[i], z, &c1, &c2);
      if (curv) curv[i] = c2;
      if (margins) margins[i] = z;
      gb += c1;
      hb += c2;
      if (h) {
        for_each_in_row(X, i, [&](Index j, double x) {
          g[j] += c1 * x;
          h[j] += c2 * x * x;
        });
      } else if (c1 != 0.0) {
        row_axpy(X, i, c1, g);
      }
    }
    part[3 * c] = lsum;
    part[3 * c + 1] = gb;
    part[3 * c + 2] = hb;
  });
  reduce_chunks(gbufs, chunks, d, grad, nt);
  if (hdiag) reduce_chunks(hbufs, chunks, d, hdiag, nt);
  double loss_sum = 0.0, grad_b = 0.0, hdiag_b = 0.0;
  for (int c = 0; c < chunks; ++c) {
    loss_sum += part[3 * c];
    grad_b += part[3 * c + 1];
    hdiag_b += part[3 * c + 2];
  }
  if (p.fit_intercept) {
    grad[d] = grad_b * scale;
    if (hdiag) hdiag[d] = hdiag_b * scale * scale;
  }
  return loss_sum;
}

template <class V, class L>
double fun_impl(const V& X, const L& loss, const LinearProblem& p, bool classification,
                const double* w, int n_threads) {
  const double b = p.fit_intercept ? w[X.cols] : 0.0;
  const int nt = resolve_threads(n_threads);
  const int chunks = pass_chunks(X, nt);
  std::vector<double> part(static_cast<std::size_t>(chunks), 0.0);
  parallel_chunks(X.rows, chunks, [&](int c, Index begin, Index end) {
    double s = 0.0, c1, c2;
    for (Index i = begin; i < end; ++i)
      s += row_terms(loss, classification, p.y[i], p.cost[i],
                     row_dot(X, i, w) + b * p.intercept_scaling, &c1, &c2);
    part[c] = s;
  });
  double loss_sum = 0.0;
  for (double s : part) loss_sum += s;
  return loss_sum;
}

template <class V>
void hess_vec_impl(const V& X, const LinearProblem& p, const double* curv, const double* s,
                   double* out, int n_threads) {
  const Index d = X.cols;
  const double scale = p.intercept_scaling;
  const double sb = p.fit_intercept ? s[d] : 0.0;
  const int nt = resolve_threads(n_threads);
  const int chunks = pass_chunks(X, nt);
  ReductionBuffers buf;
  auto& bufs = buf.get(chunks, d);
  std::vector<double> part(static_cast<std::size_t>(chunks), 0.0);
  parallel_chunks(X.rows, chunks, [&](int c, Index begin, Index end) {
    double* acc = bufs[c].data();
    double ob = 0.0;
    for (Index i = begin; i < end; ++i) {
      const double di = curv[i];
      if (di == 0.0) continue;
      const double a = di * (row_dot(X, i, s) + sb * scale);
      row_axpy(X, i, a, acc);
      ob += a;
    }
    part[c] = ob;
  });
  reduce_chunks(bufs, chunks, d, out, nt);
  if (p.fit_intercept) {
    double out_b = 0.0;
    for (double v : part) out_b += v;
    out[d] = out_b * scale;
  }
}

using RowBlock = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// The SmSVM pass (see the header): row sums in row order; the block by rank updates of
// sqrt(Dv_i) x~_i,A rows, block_rows at a time.
template <class V>
void smsvm_eval_impl(const V& X, const LinearProblem& p, const double* w, double alpha,
                     const std::vector<Index>& pos, Index k, bool hess, bool split, Index bs,
                     const double* z_old, double* z, double* packed) {
  const Index m = X.cols;
  const Index nc = m + (p.fit_intercept ? 1 : 0);
  const double scale = p.fit_intercept ? p.intercept_scaling : 0.0;
  const double bw = p.fit_intercept ? w[m] * scale : 0.0;
  double* sums = packed;
  double* g = packed + kSmsvmSums;
  std::fill(packed, packed + kSmsvmSums + (split ? 2 : 1) * nc, 0.0);
  Eigen::MatrixXd H;
  RowBlock B;
  if (hess) {
    H.setZero(k, k);
    B.resize(std::max<Index>(1, bs), k);
  }
  const Index bpos = p.fit_intercept ? pos[m] : -1;
  Index r = 0;
  detail::SmsvmRowSums rs;
  for (Index i = 0; i < X.rows; ++i) {
    const double dv =
        detail::smsvm_row(X, i, w, bw, p.y[i], p.cost[i], alpha, z_old, z, g, nc, split, rs);
    if (hess) {
      detail::smsvm_block_row(X, i, dv, pos.data(), bpos, scale, B.row(r));
      if (++r == bs) {
        H.selfadjointView<Eigen::Lower>().rankUpdate(B.transpose());
        r = 0;
      }
    }
  }
  if (hess && r > 0) H.selfadjointView<Eigen::Lower>().rankUpdate(B.topRows(r).transpose());
  if (p.fit_intercept) detail::smsvm_bias_gradient(rs, m, nc, scale, split, g);
  sums[0] = rs.fs;
  sums[1] = rs.fh;
  sums[2] = rs.dfs;
  sums[3] = rs.apos;
  sums[4] = rs.aneg;
  if (hess) {
    double* h = g + (split ? 2 : 1) * nc;
    for (Index b = 0; b < k; ++b)
      for (Index a = 0; a < k; ++a) h[b * k + a] = a >= b ? H(a, b) : 0.0;
  }
}

}  // namespace

void partition_smsvm_eval(const LinearProblem& p, const double* w, double alpha,
                          const std::vector<Index>& pos, Index k, bool hess, bool split,
                          Index block_rows, const double* z_old, double* z, double* packed) {
  std::visit(
      [&](const auto& X) {
        smsvm_eval_impl(X, p, w, alpha, pos, k, hess, split, block_rows, z_old, z, packed);
      },
      p.X);
}

void partition_margins(const LinearProblem& p, const double* w, double* z) {
  std::visit(
      [&](const auto& X) {
        const double bw = p.fit_intercept ? w[X.cols] * p.intercept_scaling : 0.0;
        for (Index i = 0; i < X.rows; ++i) z[i] = row_dot(X, i, w) + bw;
      },
      p.X);
}

double partition_fun_grad(const LinearProblem& p, const LossSpec& loss, const double* w,
                          double* grad, double* hdiag, double* curvature, int n_threads,
                          double* margins) {
  const bool classification = !is_regression(loss.kind);
  return std::visit(
      [&](const auto& X) {
        return visit_loss(loss, [&](const auto& L) {
          return fun_grad_impl(X, L, p, classification, w, grad, hdiag, curvature, n_threads,
                               margins);
        });
      },
      p.X);
}

double partition_fun(const LinearProblem& p, const LossSpec& loss, const double* w, int n_threads) {
  const bool classification = !is_regression(loss.kind);
  return std::visit(
      [&](const auto& X) {
        return visit_loss(
            loss, [&](const auto& L) { return fun_impl(X, L, p, classification, w, n_threads); });
      },
      p.X);
}

void partition_hess_vec(const LinearProblem& p, const double* curvature, const double* s,
                        double* out, int n_threads) {
  std::visit([&](const auto& X) { hess_vec_impl(X, p, curvature, s, out, n_threads); }, p.X);
}

const double hinge_certificate_segment[5] = {
    hinge_cert::kSegmentPoints[0], hinge_cert::kSegmentPoints[1], hinge_cert::kSegmentPoints[2],
    hinge_cert::kSegmentPoints[3], hinge_cert::kSegmentPoints[4]};
static_assert(std::size(hinge_cert::kSegmentPoints) == 5, "hinge_certificate_segment's length");

double hinge_dual_value_from_sums(const double* sums, Index m, double l1, double l2,
                                  bool fit_intercept, bool bias_penalized,
                                  double intercept_scaling) {
  return hinge_cert::hinge_dual_value_sums(sums[0], sums[1], sums + 2, sums + 2 + m, m, l1, l2,
                                           fit_intercept, bias_penalized, intercept_scaling);
}

bool hinge_repair_band(const double* sol, Index m, const double* band_rows, Index n_band, Index k,
                       double* a, const double* hi, const double* sums, double l1, double l2,
                       bool fit_intercept, bool bias_penalized, double intercept_scaling,
                       double max_gram) {
  std::vector<Index> S;
  for (Index j = 0; j < m; ++j)
    if (sol[j] != 0.0) S.push_back(j);
  if (k != static_cast<Index>(S.size()) + (fit_intercept ? 1 : 0))
    throw_invalid("hinge_repair_band: the band rows have " + std::to_string(k) +
                  " columns; the support and the bias need " +
                  std::to_string(S.size() + (fit_intercept ? 1 : 0)));
  hinge_cert::BandRows A;  // the dense rows as the sparse lists of the in-memory repair
  A.start.reserve(static_cast<std::size_t>(n_band) + 1);
  for (Index q = 0; q < n_band; ++q) {
    for (Index c = 0; c < k; ++c) {
      const double v = band_rows[q * k + c];
      if (v != 0.0) {
        A.row.push_back(c);
        A.val.push_back(v);
      }
    }
    A.start.push_back(A.row.size());
  }
  const double ay = sums[0] - sums[1];
  const Eigen::VectorXd t =
      hinge_cert::repair_targets(S, sol, m, l1, l2, sums + 2, sums + 2 + m, ay, fit_intercept,
                                 bias_penalized, intercept_scaling);
  Eigen::VectorXd aM = Eigen::Map<const Eigen::VectorXd>(a, n_band);
  const Eigen::VectorXd box = Eigen::Map<const Eigen::VectorXd>(hi, n_band);
  double work = 0.0;
  if (!hinge_cert::repair_band_rounds(A, k, t, aM, box, max_gram, &work)) return false;
  Eigen::Map<Eigen::VectorXd>(a, n_band) = aM;
  return true;
}

}  // namespace svmkit
