// SmSVM (see solvers/smsvm.hpp for the problem, the method and the stopping rule).
#include "svmkit/solvers/smsvm.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "svmkit/line_search_l1.hpp"
#include "svmkit/parallel.hpp"

namespace svmkit {

void validate_options(const SmsvmOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_SMSVM_OPTIONS, "smsvm", o);
  if (o.alpha_min > o.alpha0) throw_invalid("smsvm option 'alpha_min' must be <= alpha0");
  if (o.alpha_floor > o.alpha_min) throw_invalid("smsvm option 'alpha_floor' must be <= alpha_min");
}

namespace {

using Clock = std::chrono::steady_clock;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using Vec = Eigen::VectorXd;

// phi_alpha(u) = (u + sqrt(alpha^2 + u^2)) / 2 and its first two derivatives, written without
// cancellation for u << 0.
struct Smooth {
  double phi, d1, d2;
};
inline Smooth smooth_hinge(double u, double alpha) {
  const double a2 = alpha * alpha;
  const double r = std::sqrt(a2 + u * u);
  Smooth s;
  if (u >= 0.0) {
    s.phi = 0.5 * (u + r);
    s.d1 = 0.5 * (1.0 + u / r);
  } else {
    s.phi = 0.5 * a2 / (r - u);
    s.d1 = 0.5 * a2 / (r * (r - u));
  }
  s.d2 = 0.5 * a2 / (r * r * r);
  return s;
}
// phi_alpha(u1) - phi_alpha(u0) without cancellation.
inline double smooth_diff(double u1, double u0, double alpha) {
  const double a2 = alpha * alpha;
  const double r1 = std::sqrt(a2 + u1 * u1), r0 = std::sqrt(a2 + u0 * u0);
  return 0.5 * (u1 - u0) + 0.5 * (u1 - u0) * (u1 + u0) / (r1 + r0);
}

template <class V>
class Smsvm {
 public:
  Smsvm(const V& X, const LinearProblem& p, const SmsvmPenalty& pen, const SmsvmOptions& o,
        const Callbacks& cb)
      : X_(X),
        p_(p),
        o_(o),
        cb_(cb),
        N_(X.rows),
        m_(X.cols),
        nc_(X.cols + (p.fit_intercept ? 1 : 0)),
        threads_(resolve_threads(o.n_threads)) {
    S_ = 0.0;
    for (Index i = 0; i < N_; ++i) S_ += p.cost[i];
    if (!(S_ > 0.0)) throw_invalid("smsvm: the per-sample costs sum to zero");
    v_.resize(N_);
    for (Index i = 0; i < N_; ++i) v_[i] = p.cost[i] / S_;
    lam_ = pen.l2 / S_;
    mu_ = pen.l1 / S_;
    lam_b_ = p.regularize_intercept ? lam_ : 0.0;
    scale_ = p.fit_intercept ? p.intercept_scaling : 0.0;
    split_classes_ = p.fit_intercept && lam_b_ == 0.0;
  }

  SolveResult run(const SmsvmWarmStart& warm, SmsvmExtras* info);

 private:
  struct PassOut {
    double fs = 0.0;    // sum v_i phi_alpha(u_i)
    double fh = 0.0;    // sum v_i max(0, u_i)
    double dfs = 0.0;   // sum v_i (phi(u_i) - phi(u_old_i)) when z_old is given
    double apos = 0.0;  // sum over y_i = +1 of v_i phi'(u_i) (the dual point of the gap)
    double aneg = 0.0;  // the same over y_i = -1
  };

  bool is_bias(Index j) const { return p_.fit_intercept && j == m_; }

  // Threads pay off only when a pass has enough work (thread start-up and barriers cost
  // microseconds, milliseconds on a loaded machine): one chunk per ~2^20 matrix entries.
  int pass_chunks() const {
    const double work = static_cast<double>(N_) * static_cast<double>(std::max<Index>(m_, 1));
    const int by_work = static_cast<int>(std::min<double>(threads_, 1.0 + work / 1048576.0));
    return std::max(1, std::min(by_work, reduction_chunks(N_, threads_)));
  }

  // One pass over X at w: z = X~ w, the smoothed/hinge loss sums, ghat (full, loss part +
  // l2 part), Dv_i = v_i phi''(u_i) and, if hess, the active block H = X~_A^T Dv X~_A +
  // diag(l2) (lower triangle).
  PassOut eval(const std::vector<double>& w, double alpha, bool hess,
               const std::vector<double>* z_old) {
    ++passes_;
    const Index k = static_cast<Index>(A_.size());
    const int chunks = pass_chunks();
    gbufs_.resize(chunks);
    // With an unregularized bias the dual point needs sum_i v_i a_i y_i = 0, restored by
    // scaling one class's a_i; that needs the loss gradient of each class separately, so the
    // rows accumulate into two halves (no extra arithmetic).
    const std::size_t gsize = static_cast<std::size_t>(split_classes_ ? 2 * nc_ : nc_);
    std::vector<PassOut> outs(chunks);
    std::vector<Eigen::MatrixXd> hbufs(hess ? chunks : 0);
    // The CG solve's Jacobi preconditioner: diag(X~^T Dv X~), from the same pass.
    std::vector<std::vector<double>> dbufs(cg_ ? chunks : 0);
    const Index bs = std::max<Index>(1, std::min<Index>(o_.block_rows, N_));
    const double bw = p_.fit_intercept ? w[m_] * scale_ : 0.0;
    z_.resize(N_);
    dv_.resize(N_);
    parallel_chunks(N_, chunks, [&](int c, Index b, Index e) {
      std::vector<double>& gall = gbufs_[c];
      gall.assign(gsize, 0.0);
      PassOut out;
      RowMat B;
      if (hess) {
        hbufs[c] = Eigen::MatrixXd::Zero(k, k);
        B.resize(bs, k);
      }
      Index r = 0;
      double gb = 0.0, gb_pos = 0.0;
      for (Index i = b; i < e; ++i) {
        const double zi = row_dot(X_, i, w.data()) + bw;
        z_[i] = zi;
        const double yi = p_.y[i], vi = v_[i];
        const double u = 1.0 - yi * zi;
        const Smooth sm = smooth_hinge(u, alpha);
        out.fs += vi * sm.phi;
        out.fh += vi * std::max(0.0, u);
        if (z_old) out.dfs += vi * smooth_diff(u, 1.0 - yi * (*z_old)[i], alpha);
        const double c1 = -yi * vi * sm.d1;
        const bool neg = yi < 0.0;
        double* g = gall.data() + (split_classes_ && neg ? nc_ : 0);
        if (c1 != 0.0) row_axpy(X_, i, c1, g);
        gb += c1;
        if (!neg) gb_pos += c1;
        (neg ? out.aneg : out.apos) += vi * sm.d1;
        dv_[i] = vi * sm.d2;
        if (cg_) {
          std::vector<double>& hd = dbufs[c];
          if (hd.empty()) hd.assign(static_cast<std::size_t>(nc_), 0.0);
          const double di = dv_[i];
          for_each_in_row(X_, i, [&](Index j, double x) { hd[j] += di * x * x; });
          if (p_.fit_intercept) hd[m_] += di * scale_ * scale_;
        }
        if (hess) {
          const double sc = std::sqrt(dv_[i]);
          auto row = B.row(r);
          row.setZero();
          for_each_in_row(X_, i, [&](Index j, double x) {
            const Index q = pos_[j];
            if (q >= 0) row[q] += sc * x;
          });
          if (p_.fit_intercept && pos_[m_] >= 0) row[pos_[m_]] = sc * scale_;
          if (++r == bs) {
            hbufs[c].selfadjointView<Eigen::Lower>().rankUpdate(B.transpose());
            r = 0;
          }
        }
      }
      if (hess && r > 0)
        hbufs[c].selfadjointView<Eigen::Lower>().rankUpdate(B.topRows(r).transpose());
      if (p_.fit_intercept) {
        if (split_classes_) {
          gall[m_] += gb_pos * scale_;
          gall[nc_ + m_] += (gb - gb_pos) * scale_;
        } else {
          gall[m_] += gb * scale_;
        }
      }
      outs[c] = out;
    });
    PassOut tot;
    ghat_.assign(static_cast<std::size_t>(nc_), 0.0);
    if (split_classes_) gpos_.assign(static_cast<std::size_t>(nc_), 0.0);
    for (int c = 0; c < chunks; ++c) {
      tot.fs += outs[c].fs;
      tot.fh += outs[c].fh;
      tot.dfs += outs[c].dfs;
      tot.apos += outs[c].apos;
      tot.aneg += outs[c].aneg;
      for (Index j = 0; j < nc_; ++j) ghat_[j] += gbufs_[c][j];
      if (split_classes_) {
        for (Index j = 0; j < nc_; ++j) {
          gpos_[j] += gbufs_[c][j];
          ghat_[j] += gbufs_[c][nc_ + j];
        }
      }
    }
    gap_ = duality_gap(tot, w);
    if (cg_) {
      hdiag_.assign(static_cast<std::size_t>(nc_), 0.0);
      for (int c = 0; c < chunks; ++c)
        for (std::size_t j = 0; j < dbufs[c].size(); ++j) hdiag_[j] += dbufs[c][j];
    }
    for (Index j = 0; j < nc_; ++j) ghat_[j] += (is_bias(j) ? lam_b_ : lam_) * w[j];
    h_valid_ = hess;
    if (hess) {
      H_ = hbufs[0];
      for (int c = 1; c < chunks; ++c) H_ += hbufs[c];
      for (Index q = 0; q < k; ++q) H_(q, q) += is_bias(A_[q]) ? lam_b_ : lam_;
    }
    return tot;
  }

  // Relative duality gap (P(w) - D(a)) / P(w) of the hinge problem at the dual point
  // a_i = phi_alpha'(u_i) in [0, 1] (averaged scale; ghat_ holds the loss gradient
  // -sum v_i a_i y_i x~_i on entry). The dual of P(w) = sum_j (l_j/2 w_j^2 + mu_j |w_j|) +
  // sum v_i max(0, u_i) is D(a) = sum v_i a_i - sum_j conj_j(r_j), r = sum v_i a_i y_i x~_i,
  // conj_j(t) = max(|t| - mu_j, 0)^2 / (2 l_j), and for l_j = 0 the constraint |r_j| <= mu_j.
  // Feasibility is restored by scaling: one class's a_i for the unregularized bias (r_b = 0),
  // all a_i for l1-only coordinates. Any a in [0, 1] gives a lower bound, so the gap
  // certifies P(w) - P* at every pass, whatever alpha is (weak duality).
  double duality_gap(const PassOut& t, const std::vector<double>& w) const {
    double tpos = 1.0, tneg = 1.0;
    if (split_classes_) {
      if (t.apos > t.aneg)
        tpos = t.apos > 0.0 ? t.aneg / t.apos : 1.0;
      else
        tneg = t.aneg > 0.0 ? t.apos / t.aneg : 1.0;
    }
    const auto r_of = [&](Index j) {
      if (!split_classes_) return -ghat_[j];
      return -(tpos * gpos_[j] + tneg * (ghat_[j] - gpos_[j]));
    };
    double theta = 1.0;
    if (lam_ == 0.0) {
      double rmax = 0.0;
      for (Index j = 0; j < m_; ++j) rmax = std::max(rmax, std::fabs(r_of(j)));
      if (rmax > mu_) theta = mu_ / rmax;
    }
    double conj = 0.0;
    for (Index j = 0; j < nc_; ++j) {
      const double l = is_bias(j) ? lam_b_ : lam_;
      if (l == 0.0) continue;  // feasible by the scalings above
      const double mj = is_bias(j) ? 0.0 : mu_;
      const double e = std::max(std::fabs(theta * r_of(j)) - mj, 0.0);
      conj += e * e / (2.0 * l);
    }
    const double dual = theta * (tpos * t.apos + tneg * t.aneg) - conj;
    const double primal = t.fh + reg(w);
    const double gap = std::max(primal - dual, 0.0);
    return primal > 0.0 ? gap / primal : gap;
  }

  // q = X~ d (one pass), d nonzero only on A.
  void direction_pass(const std::vector<double>& d, bool only_active) {
    ++passes_;
    q_.resize(N_);
    const double bd = p_.fit_intercept ? d[m_] * scale_ : 0.0;
    if (woodbury_ && only_active) {
      Vec dw(kw_);
      for (Index t = 0; t < kw_; ++t) dw[t] = d[A_[t]];
      Eigen::Map<Vec>(q_.data(), N_) = XA_ * dw;
      for (Index i = 0; i < N_; ++i) q_[i] += bd;
      return;
    }
    matvec(X_, d.data(), q_.data(), pass_chunks());
    for (Index i = 0; i < N_; ++i) q_[i] += bd;
  }

  // Rebuilds the active list and the position map from the active flags.
  void rebuild_active() {
    h_valid_ = false;
    A_.clear();
    pos_.assign(static_cast<std::size_t>(nc_), -1);
    for (Index j = 0; j < m_; ++j)
      if (act_[j]) A_.push_back(j);
    kw_ = static_cast<Index>(A_.size());
    if (p_.fit_intercept) A_.push_back(m_);
    for (std::size_t q = 0; q < A_.size(); ++q) pos_[A_[q]] = static_cast<Index>(q);
    woodbury_ = kw_ > N_ && N_ <= o_.woodbury_max_samples;
    cg_ = !woodbury_ && static_cast<Index>(A_.size()) > o_.max_dense_block;
    if (woodbury_) gather_active();
  }

  // XA = the active feature columns as a dense N x kw block, and G = XA XA^T (one pass).
  void gather_active() {
    ++passes_;
    XA_.setZero(N_, kw_);
    parallel_for(N_, pass_chunks(), [&](Index i) {
      for_each_in_row(X_, i, [&](Index j, double x) {
        const Index q = pos_[j];
        if (q >= 0 && q < kw_) XA_(i, q) += x;
      });
    });
    G_.noalias() = XA_ * XA_.transpose();
  }

  // Newton direction on the active block: solves H_AA d_A = -g_A.
  void newton_direction(const std::vector<double>& g, std::vector<double>& d) {
    std::fill(d.begin(), d.end(), 0.0);
    const Index k = static_cast<Index>(A_.size());
    if (k == 0) return;
    if (woodbury_) {
      woodbury_direction(g, d);
      return;
    }
    if (cg_) {
      cg_direction(g, d);
      return;
    }
    Vec rhs(k);
    for (Index q = 0; q < k; ++q) rhs[q] = -g[A_[q]];
    Eigen::MatrixXd Hs = H_;
    double dmax = 0.0;
    for (Index q = 0; q < k; ++q) dmax = std::max(dmax, Hs(q, q));
    const double ridge = o_.newton_ridge * std::max(dmax, 1e-300);
    for (Index q = 0; q < k; ++q) Hs(q, q) += ridge;
    Vec sol;
    Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt(Hs);
    if (llt.info() == Eigen::Success) {
      sol = llt.solve(rhs);
    } else {
      Eigen::LDLT<Eigen::MatrixXd, Eigen::Lower> ldlt(Hs);
      sol = ldlt.solve(rhs);
    }
    for (Index q = 0; q < k; ++q) d[A_[q]] = sol[q];
  }

  // H_AA v for the CG solve, from two passes: q = X~ v (v zero off A), then X~^T (Dv q).
  void active_hess_vec(const Vec& v, Vec& out) {
    const Index k = static_cast<Index>(A_.size());
    cg_full_.assign(static_cast<std::size_t>(nc_), 0.0);
    for (Index t = 0; t < k; ++t) cg_full_[A_[t]] = v[t];
    q_.resize(N_);
    matvec(X_, cg_full_.data(), q_.data(), threads_);
    const double bv = p_.fit_intercept ? cg_full_[m_] * scale_ : 0.0;
    double sb = 0.0;
    for (Index i = 0; i < N_; ++i) {
      q_[i] = dv_[i] * (q_[i] + bv);
      sb += q_[i];
    }
    cg_out_.assign(static_cast<std::size_t>(nc_), 0.0);
    rmatvec(X_, q_.data(), cg_out_.data(), threads_, cg_bufs_);
    if (p_.fit_intercept) cg_out_[m_] = sb * scale_;
    passes_ += 2;
    out.resize(k);
    for (Index t = 0; t < k; ++t)
      out[t] = cg_out_[A_[t]] + (is_bias(A_[t]) ? lam_b_ : lam_) * v[t] + cg_ridge_ * v[t];
  }

  // Large active blocks that Woodbury does not cover: conjugate gradients on H_AA d = -g_A
  // with Jacobi preconditioning (the diagonal comes from the gradient pass), to relative
  // residual cg_tol; the block is never formed, so memory stays O(N + m).
  void cg_direction(const std::vector<double>& g, std::vector<double>& d) {
    const Index k = static_cast<Index>(A_.size());
    Vec b(k), diag(k);
    double dmax = 0.0;
    for (Index t = 0; t < k; ++t) {
      b[t] = -g[A_[t]];
      diag[t] = hdiag_[A_[t]] + (is_bias(A_[t]) ? lam_b_ : lam_);
      dmax = std::max(dmax, diag[t]);
    }
    cg_ridge_ = o_.newton_ridge * std::max(dmax, 1e-300);
    for (Index t = 0; t < k; ++t) diag[t] = std::max(diag[t] + cg_ridge_, 1e-300);
    Vec x = Vec::Zero(k), r = b, z = r.cwiseQuotient(diag), pdir = z, Ap;
    double rz = r.dot(z);
    const double bnorm = b.norm();
    const long long limit = o_.cg_max_iter > 0 ? o_.cg_max_iter : static_cast<long long>(k);
    for (long long it = 0; it < limit && r.norm() > o_.cg_tol * bnorm; ++it) {
      active_hess_vec(pdir, Ap);
      const double pAp = pdir.dot(Ap);
      if (!(pAp > 0.0)) break;
      const double step = rz / pAp;
      x += step * pdir;
      r -= step * Ap;
      z = r.cwiseQuotient(diag);
      const double rz_new = r.dot(z);
      pdir = z + (rz_new / rz) * pdir;
      rz = rz_new;
      ++cg_iterations_;
    }
    for (Index t = 0; t < k; ++t) d[A_[t]] = x[t];
  }

  // Sample-space solve for kw > N: M = lam I + XA^T Dv XA by Woodbury,
  // M^-1 r = (r - XA^T S K^-1 S XA r) / lam with S = Dv^1/2, K = lam I + S G S;
  // the bias (constant column) by the Schur complement of the bordered system.
  void woodbury_direction(const std::vector<double>& g, std::vector<double>& d) {
    ++woodbury_solves_;
    Vec sD(N_);
    for (Index i = 0; i < N_; ++i) sD[i] = std::sqrt(dv_[i]);
    double dmax = 0.0;
    for (Index t = 0; t < kw_; ++t) {
      double s = 0.0;
      for (Index i = 0; i < N_; ++i) s += dv_[i] * XA_(i, t) * XA_(i, t);
      dmax = std::max(dmax, s + lam_);
    }
    const double lam = lam_ + o_.newton_ridge * std::max(dmax, 1e-300);
    Eigen::MatrixXd K = sD.asDiagonal() * G_ * sD.asDiagonal();
    K.diagonal().array() += lam;
    Eigen::LLT<Eigen::MatrixXd> llt(K);
    const auto minv = [&](const Vec& r) -> Vec {
      Vec t = sD.cwiseProduct(XA_ * r);
      Vec s = llt.solve(t);
      return (r - XA_.transpose() * sD.cwiseProduct(s)) / lam;
    };
    Vec gw(kw_);
    for (Index t = 0; t < kw_; ++t) gw[t] = g[A_[t]];
    const Vec pv = minv(gw);
    if (p_.fit_intercept) {
      Vec dvv = Eigen::Map<const Vec>(dv_.data(), N_);
      const Vec c = XA_.transpose() * dvv * scale_;
      const double delta = dvv.sum() * scale_ * scale_ + lam_b_ + o_.newton_ridge * dmax;
      const Vec rv = minv(c);
      const double db = (-g[m_] + c.dot(pv)) / (delta - c.dot(rv));
      for (Index t = 0; t < kw_; ++t) d[A_[t]] = -pv[t] - rv[t] * db;
      d[m_] = db;
    } else {
      for (Index t = 0; t < kw_; ++t) d[A_[t]] = -pv[t];
    }
  }

  // lam/2 ||w||^2 (+ lam_b/2 b^2) + mu ||w||_1.
  double reg(const std::vector<double>& w) const {
    double s2 = 0.0, s1 = 0.0;
    for (Index j = 0; j < m_; ++j) {
      s2 += w[j] * w[j];
      s1 += std::fabs(w[j]);
    }
    double r = 0.5 * lam_ * s2 + mu_ * s1;
    if (p_.fit_intercept) r += 0.5 * lam_b_ * w[m_] * w[m_];
    return r;
  }
  // reg(w1) - reg(w0) without cancellation.
  double reg_diff(const std::vector<double>& w1, const std::vector<double>& w0) const {
    double r = 0.0;
    for (Index j = 0; j < nc_; ++j) {
      const double l = is_bias(j) ? lam_b_ : lam_;
      r += 0.5 * l * (w1[j] - w0[j]) * (w1[j] + w0[j]);
      if (!is_bias(j)) r += mu_ * (std::fabs(w1[j]) - std::fabs(w0[j]));
    }
    return r;
  }
  double hinge_from_z(const std::vector<double>& z) const {
    double s = 0.0;
    for (Index i = 0; i < N_; ++i) s += v_[i] * std::max(0.0, 1.0 - p_.y[i] * z[i]);
    return s;
  }

  const V& X_;
  const LinearProblem& p_;
  const SmsvmOptions& o_;
  const Callbacks& cb_;
  Index N_, m_, nc_;
  int threads_;
  double S_ = 1.0, lam_ = 0.0, mu_ = 0.0, lam_b_ = 0.0, scale_ = 0.0;
  std::vector<double> v_, z_, dv_, q_, ghat_;
  std::vector<double> ztrial_;  // margins at a projected trial point
  std::vector<double> gpos_;    // loss gradient of the y = +1 rows (split_classes_ only)
  bool split_classes_ = false;  // unregularized bias: gradients accumulated per class
  double gap_ = kNaN;           // relative duality gap at the last eval pass
  double bound_ = kNaN;         // relative suboptimality bound (stopping rule)
  bool bound_at_w_ = false;     // bound_ was computed at the current w
  std::vector<std::vector<double>> gbufs_;
  std::vector<char> act_;
  std::vector<Index> A_, pos_;
  Index kw_ = 0;
  bool woodbury_ = false;
  bool cg_ = false;  // Newton systems by CG (active block too large to form)
  bool dense_block() const { return !woodbury_ && !cg_; }
  std::vector<double> hdiag_, cg_full_, cg_out_;  // diag of X~^T Dv X~; CG work vectors
  ReductionBuffers cg_bufs_;
  double cg_ridge_ = 0.0;
  long long cg_iterations_ = 0;
  bool h_valid_ = false;  // H_ is the block of the current A_
  RowMat XA_;
  Eigen::MatrixXd G_, H_;
  long long passes_ = 0, woodbury_solves_ = 0;
};

// Eigen parallelizes large products with OpenMP on its own (omp_get_max_threads threads),
// which ignores n_threads and, on a loaded machine, costs far more than it saves for the
// small dense products here. The calling thread's nthreads ICV is set to 1 for the solve
// (restored after); svmkit's own parallel regions pass their thread count explicitly.
struct SerialEigenGuard {
#ifdef _OPENMP
  int saved = omp_get_max_threads();
  SerialEigenGuard() { omp_set_num_threads(1); }
  ~SerialEigenGuard() { omp_set_num_threads(saved); }
#endif
};

template <class V>
SolveResult Smsvm<V>::run(const SmsvmWarmStart& warm, SmsvmExtras* info) {
  const SerialEigenGuard serial_eigen;
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  SolveResult res;
  std::vector<double> w(nc_, 0.0), d(nc_, 0.0), g(nc_, 0.0), wt(nc_, 0.0), z_keep;
  if (warm.w0) std::copy(warm.w0, warm.w0 + nc_, w.begin());
  const bool l1 = mu_ > 0.0;
  act_.assign(static_cast<std::size_t>(nc_), 0);
  for (Index j = 0; j < m_; ++j) act_[j] = (!l1 || w[j] != 0.0) ? 1 : 0;
  if (p_.fit_intercept) act_[m_] = 1;
  double alpha = warm.alpha > 0.0 ? warm.alpha : o_.alpha0;
  // Algorithm 1: loop while alpha > beta alpha_min; the relative slack absorbs the rounding
  // of repeated alpha <- beta alpha so that alpha_min itself is the last level.
  // l2 runs with tol > 0 end by their bound; they may continue below alpha_min (data whose
  // optimum is small need it) down to alpha_floor. Everything else ends at alpha_min.
  const bool l1_run = mu_ > 0.0;
  const double alpha_end = (o_.tol > 0.0 && !l1_run) ? o_.alpha_floor : o_.alpha_min;
  const double alpha_stop = o_.beta * alpha_end * (1.0 + 1e-9);
  long long ls_fail = 0, adjustments = 0, level_steps = 0, final_adjust_used = 0;
  bool interrupted = false;

  // Algorithm 1, lines 2-5: initial inactive/active sets and the first activation.
  rebuild_active();
  if (l1) {
    eval(w, alpha, false, nullptr);
    for (Index j = 0; j < m_; ++j)
      if (!act_[j] && std::fabs(ghat_[j]) > mu_) act_[j] = 1;
    rebuild_active();
  }
  bool adjust = true;
  bool have_gh = false;  // ghat_, H_ (or dv_), z_ are valid at (w, alpha, A_)
  PassOut cur;
  double fh_cur = 0.0;
  SolverStatus status = SolverStatus::converged;
  long long iter = 0;

  bool gap_met = false;
  while (true) {
    if (alpha <= alpha_stop) {
      // The smoothing floor: the paper's end of the run (status converged).
      break;
    }
    if (iter >= o_.max_iter) {
      status = SolverStatus::max_iter;
      break;
    }
    if (cb_.poll()) {
      interrupted = true;
      break;
    }
    if (have_gh && dense_block() && !h_valid_) have_gh = false;
    if (!have_gh) {
      cur = eval(w, alpha, dense_block(), nullptr);
      fh_cur = cur.fh;
      have_gh = true;
    }
    if (!std::isfinite(cur.fs)) {
      status = SolverStatus::numerical_error;
      break;
    }
    // The gap of the last pass belongs to w (have_gh): stop once it certifies tol.
    bound_ = gap_;
    bound_at_w_ = true;
    if (o_.tol > 0.0 && gap_ <= o_.tol) {
      gap_met = true;
      break;
    }
    // Algorithm 2, lines 1-5: the l1-aware gradient on the active set and the Newton step.
    std::fill(g.begin(), g.end(), 0.0);
    for (Index j : A_) {
      double gj = ghat_[j];
      if (!is_bias(j) && l1) {
        if (w[j] != 0.0)
          gj += mu_ * (w[j] > 0.0 ? 1.0 : -1.0);
        else
          gj -= mu_ * (ghat_[j] > 0.0 ? 1.0 : (ghat_[j] < 0.0 ? -1.0 : 0.0));
      }
      g[j] = gj;
    }
    newton_direction(g, d);
    double dec = 0.0;
    for (Index j : A_) dec += d[j] * g[j];
    bool adjusted = false;
    if (!(dec < 0.0) || std::fabs(dec) < o_.eta * alpha) {
      // Algorithm 3: activate J once per alpha (gradient step on it) or reduce alpha.
      std::vector<Index> J;
      if (l1)
        for (Index j = 0; j < m_; ++j)
          if (!act_[j] && std::fabs(ghat_[j]) > mu_) J.push_back(j);
      const bool last_level = alpha <= alpha_end * (1.0 + 1e-9);
      const bool may_adjust =
          adjust || (last_level && final_adjust_used < o_.final_level_adjustments);
      if (!J.empty() && may_adjust) {
        if (last_level) ++final_adjust_used;
        for (Index j : J) {
          const double gj = ghat_[j] - mu_ * (ghat_[j] > 0.0 ? 1.0 : -1.0);
          g[j] = gj;
          d[j] = -gj;
          act_[j] = 1;
        }
        dec = 0.0;
        for (Index j = 0; j < nc_; ++j) dec += d[j] * g[j];
        adjust = false;
        adjusted = true;
        ++adjustments;
      } else {
        // The level is solved: the stopping rule's bound at w, see the header (l2 only). alpha/2 -
        // E(w) bounds the smoothing part rigorously; |d^T g| / 2 < eta alpha / 2 estimates
        // f_alpha(w) - f_alpha*.
        const double F = cur.fh + reg(w);
        const double slack = std::max(0.5 * alpha - (cur.fs - cur.fh), 0.0);
        const double est = (slack + 0.5 * std::fabs(dec)) / std::max(F, 1e-300);
        bound_ = std::min(gap_, est);
        if (o_.tol > 0.0 && !l1 && est <= o_.tol) {
          gap_met = true;
          break;
        }
        alpha *= o_.beta;
        adjust = true;
        have_gh = false;
        level_steps = 0;
        continue;
      }
    }
    ++iter;
    ++level_steps;
    // Algorithm 2, line 9: LINESEARCHL1 on the quadratic model a s^2 + b s + mu ||w + s d||_1.
    double bcoef = 0.0;
    for (Index j = 0; j < nc_; ++j) bcoef += d[j] * ghat_[j];
    double acoef = 0.0;
    bool have_q = false;
    if (!adjusted && dense_block()) {
      const Index k = static_cast<Index>(A_.size());
      Vec dA(k);
      for (Index q = 0; q < k; ++q) dA[q] = d[A_[q]];
      acoef = 0.5 * dA.dot(H_.selfadjointView<Eigen::Lower>() * dA);
    } else {
      // The block H_JJ of newly activated coordinates is not assembled: d^T H d from X d.
      direction_pass(d, !adjusted);
      have_q = true;
      for (Index i = 0; i < N_; ++i) acoef += dv_[i] * q_[i] * q_[i];
      for (Index j = 0; j < nc_; ++j) acoef += (is_bias(j) ? lam_b_ : lam_) * d[j] * d[j];
      acoef *= 0.5;
    }
    if (adjusted) rebuild_active();  // the trial pass assembles H on the enlarged set
    const LineSearchL1Result ls =
        line_search_l1(w.data(), d.data(), m_, std::max(acoef, 0.0), bcoef, mu_, o_.s_max);
    double s = ls.s;
    // Trial point w+ = w + s d (exact zeros at a breakpoint). Coordinates that change sign are
    // set to zero (Algorithm 2, line 20); that moves w+ off the ray, so the Armijo test below
    // uses the actual displacement g^T (w+ - w) (equal to s d^T g when nothing flips).
    apply_step_l1(w.data(), d.data(), m_, ls, wt.data());
    if (p_.fit_intercept) wt[m_] = w[m_] + s * d[m_];
    bool flipped = false;
    double sigma_min = std::numeric_limits<double>::infinity();  // first sign change on the ray
    if (l1) {
      for (Index j = 0; j < m_; ++j) {
        if (w[j] != 0.0 && d[j] != 0.0 && ((w[j] > 0.0) != (d[j] > 0.0)))
          sigma_min = std::min(sigma_min, -w[j] / d[j]);
        if (w[j] != 0.0 && wt[j] != 0.0 && ((w[j] > 0.0) != (wt[j] > 0.0))) {
          wt[j] = 0.0;
          flipped = true;
        }
      }
    }
    // Armijo guard on the true smoothed objective f_alpha (Algorithm 2, lines 10-14). The
    // full step is evaluated by a pass that also assembles the gradient and the Hessian block
    // at w+, so an accepted full step costs one pass; backtracking reuses X d.
    long long halvings = 0;
    bool accepted = false;
    bool gh_at_trial = false;
    if (s > 0.0) {
      double pred = 0.0;
      for (Index j = 0; j < nc_; ++j) pred += g[j] * (wt[j] - w[j]);
      z_keep = z_;
      const PassOut trial = eval(wt, alpha, dense_block(), &z_keep);
      const double df = trial.dfs + reg_diff(wt, w);
      if (pred < 0.0 && std::isfinite(df) && df <= o_.c1 * pred) {
        accepted = true;
        gh_at_trial = true;
        cur = trial;
        fh_cur = trial.fh;
      } else {
        if (!have_q && !flipped) {
          q_.resize(N_);
          for (Index i = 0; i < N_; ++i) q_[i] = (z_[i] - z_keep[i]) / s;
          have_q = true;
        }
        z_ = z_keep;
        bool projected_ok = false;
        // Projected backtracking first (as in orthant-wise methods): halve s while the step
        // still changes signs, zeroing those coordinates, so that one step can drop many
        // coordinates; each trial costs one pass (X w+). Then the ray below.
        if (flipped) {
          double sp = 0.5 * s;
          for (long long t = 0; t < o_.projected_halvings && sp > sigma_min; ++t) {
            ++halvings;
            bool any_flip = false;
            for (Index j = 0; j < nc_; ++j) wt[j] = w[j] + sp * d[j];
            for (Index j = 0; j < m_; ++j) {
              if (w[j] != 0.0 && wt[j] != 0.0 && ((w[j] > 0.0) != (wt[j] > 0.0))) {
                wt[j] = 0.0;
                any_flip = true;
              }
            }
            if (!any_flip) break;
            double pred_p = 0.0;
            for (Index j = 0; j < nc_; ++j) pred_p += g[j] * (wt[j] - w[j]);
            ztrial_.resize(N_);
            matvec(X_, wt.data(), ztrial_.data(), pass_chunks());
            ++passes_;
            const double bw = p_.fit_intercept ? wt[m_] * scale_ : 0.0;
            double dfs = 0.0;
            for (Index i = 0; i < N_; ++i) {
              ztrial_[i] += bw;
              dfs += v_[i] * smooth_diff(1.0 - p_.y[i] * ztrial_[i], 1.0 - p_.y[i] * z_[i], alpha);
            }
            const double dfp = dfs + reg_diff(wt, w);
            if (pred_p < 0.0 && std::isfinite(dfp) && dfp <= o_.c1 * pred_p) {
              accepted = true;
              projected_ok = true;
              s = sp;
              z_.swap(ztrial_);
              fh_cur = hinge_from_z(z_);
              break;
            }
            sp *= 0.5;
          }
        }
        if (!accepted && !have_q) direction_pass(d, true);
        // Backtrack on the ray, never past the first sign change (where that coordinate
        // lands on exactly zero), so that z + s X d is exact.
        if (!accepted) {
          s = std::min(0.5 * s, sigma_min);
          ++halvings;
        }
        while (!accepted) {
          const bool landing = s == sigma_min;
          if (s < o_.s_min && !landing) break;
          for (Index j = 0; j < nc_; ++j) wt[j] = w[j] + s * d[j];
          if (landing)
            for (Index j = 0; j < m_; ++j)
              if (w[j] != 0.0 && d[j] != 0.0 && -w[j] / d[j] == s) wt[j] = 0.0;
          double dfs = 0.0;
          for (Index i = 0; i < N_; ++i) {
            const double u0 = 1.0 - p_.y[i] * z_[i];
            dfs += v_[i] * smooth_diff(u0 - p_.y[i] * s * q_[i], u0, alpha);
          }
          const double dff = dfs + reg_diff(wt, w);
          if (std::isfinite(dff) && dff <= o_.c1 * s * dec) {
            accepted = true;
            break;
          }
          s *= 0.5;
          ++halvings;
        }
        if (accepted && !projected_ok) {
          for (Index i = 0; i < N_; ++i) z_[i] += s * q_[i];
          fh_cur = hinge_from_z(z_);
        }
        have_gh = false;
      }
    }
    if (!accepted) {
      // Lines 15-18: line search failure reduces alpha; w is kept.
      ++ls_fail;
      alpha *= o_.beta;
      adjust = true;
      have_gh = false;
      level_steps = 0;
    } else {
      // Lines 20-21: coordinates at zero leave the active set (sign changes were zeroed above).
      bool dropped = false;
      if (l1) {
        for (Index j = 0; j < m_; ++j) {
          if (act_[j] && wt[j] == 0.0) {
            act_[j] = 0;
            dropped = true;
          }
        }
      }
      w.swap(wt);
      bound_at_w_ = false;
      if (gh_at_trial) have_gh = true;
      if (dropped) {
        // Restrict H to the new active set when it is still valid.
        const std::vector<Index> old_pos = pos_;
        const bool h_was_valid = h_valid_;
        rebuild_active();
        if (have_gh && cg_) {
          // Nothing to restrict: the gradient pass stays valid for the smaller set.
        } else if (have_gh && dense_block() && h_was_valid) {
          const Index k = static_cast<Index>(A_.size());
          Eigen::MatrixXd Hn(k, k);
          for (Index a = 0; a < k; ++a)
            for (Index b = 0; b <= a; ++b) {
              const Index oa = old_pos[A_[a]], ob = old_pos[A_[b]];
              Hn(a, b) = oa >= ob ? H_(oa, ob) : H_(ob, oa);
            }
          H_ = Hn;
          h_valid_ = true;
        } else {
          have_gh = false;
        }
      }
    }
    if (o_.record_history || cb_.on_iteration) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.objective = S_ * (fh_cur + reg(w));
      rec.optimality = std::fabs(dec);
      rec.step = accepted ? s : 0.0;
      rec.inner_iterations = level_steps;
      rec.active_size = static_cast<long long>(A_.size());
      rec.smoothing = accepted ? alpha : alpha / o_.beta;
      rec.radius = static_cast<double>(halvings);
      rec.gap = bound_;
      rec.passes = passes_;
      rec.time = elapsed();
      rec.accepted = accepted;
      if (o_.record_history) res.history.push_back(rec);
      if (cb_.on_iteration && !cb_.on_iteration(rec)) {
        interrupted = true;
        break;
      }
    }
  }
  if (interrupted) status = SolverStatus::interrupted;
  // Final objective F at w (hinge, LIBLINEAR scale) and its gap, from exact margins (one
  // pass unless the last pass was already at w).
  const double a_fin = std::max(alpha, alpha_end);
  if (!(have_gh && gap_met)) {
    eval(w, a_fin, false, nullptr);
    bound_ = bound_at_w_ ? std::min(bound_, gap_) : gap_;
  }
  double fs = 0.0;
  for (Index i = 0; i < N_; ++i) fs += v_[i] * smooth_hinge(1.0 - p_.y[i] * z_[i], a_fin).phi;
  res.status = status;
  res.solution = w;
  res.objective = S_ * (hinge_from_z(z_) + reg(w));
  res.optimality = bound_;
  res.iterations = iter;
  res.inner_iterations = iter;
  res.passes = passes_;
  res.time = elapsed();
  if (info) {
    info->final_alpha = a_fin;
    info->smoothed_objective = S_ * (fs + reg(w));
    info->line_search_failures = ls_fail;
    info->active_set_adjustments = adjustments;
    info->woodbury_solves = woodbury_solves_;
    info->cg_iterations = cg_iterations_;
  }
  return res;
}

}  // namespace

SolveResult solve_smsvm(const LinearProblem& problem, const SmsvmPenalty& penalty,
                        const SmsvmOptions& options, const Callbacks& callbacks,
                        const SmsvmWarmStart& warm) {
  validate_options(options);
  LossSpec hinge;
  hinge.kind = LossKind::hinge;
  validate_problem(problem, hinge, options.check_input);
  if (!(penalty.l2 >= 0.0) || !std::isfinite(penalty.l2))
    throw_invalid("smsvm: the l2 weight must be a finite number >= 0");
  if (!(penalty.l1 >= 0.0) || !std::isfinite(penalty.l1))
    throw_invalid("smsvm: the l1 weight must be a finite number >= 0");
  if (!(penalty.l2 + penalty.l1 > 0.0))
    throw_invalid("smsvm: at least one of the l2 and l1 weights must be positive");
  if (warm.alpha < 0.0 || !std::isfinite(warm.alpha))
    throw_invalid("smsvm: the warm-start alpha must be a finite number >= 0");
  if (warm.w0) {
    for (Index j = 0; j < solution_size(problem); ++j)
      if (!std::isfinite(warm.w0[j])) throw_invalid("smsvm: the initial solution has NaN or inf");
  }
  return std::visit(
      [&](const auto& X) {
        using V = std::decay_t<decltype(X)>;
        Smsvm<V> solver(X, problem, penalty, options, callbacks);
        SmsvmExtras extras;
        SolveResult res = solver.run(warm, &extras);
        res.extras = extras;
        return res;
      },
      problem.X);
}

}  // namespace svmkit
