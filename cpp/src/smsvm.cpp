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
#include "svmkit/detail/parallel.hpp"

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

// The sample-space solve is made exact (every sample with curvature in T) when its work is
// at most this many sweeps over X or this many flops (small problems).
constexpr double kExactPasses = 16.0;
constexpr double kExactFlops = 1e7;
// Otherwise T holds the samples with curvature Dv_i ||x_i||^2 above this multiple of the
// regularization, at most as many as a factorization within kWoodburyPasses sweeps allows
// (measured on sparse text-like data: fewer samples multiply the CG iterations, more make
// the factorization dominate).
constexpr double kWoodburyMinWeight = 1.0;
constexpr double kWoodburyPasses = 256.0;

template <class V>
struct is_csr : std::false_type {};
template <class T, class I>
struct is_csr<CsrView<T, I>> : std::true_type {};

// Element (i, j) of a dense view.
template <class T>
inline double dense_at(const DenseRowMajorView<T>& X, Index i, Index j) {
  return static_cast<double>(X.data[i * X.ld + j]);
}
template <class T>
inline double dense_at(const DenseColMajorView<T>& X, Index i, Index j) {
  return static_cast<double>(X.data[j * X.ld + i]);
}
template <class T, class I>
inline double dense_at(const CsrView<T, I>&, Index, Index) {
  return 0.0;  // not used: CSR views take the sparse branch
}

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
    chunks_ = pass_chunks(X, threads_);
    budget_ = o.newton_memory_mb * 1048576.0;
  }

  // Column occupancy and row norms (one pass): which features have nonzeros, which columns
  // row sweeps touch, and ||x_i||^2 for the choice of the Woodbury samples.
  void scan_columns() {
    ++passes_;
    col_nz_.assign(static_cast<std::size_t>(m_), 0);
    std::vector<char> stored(static_cast<std::size_t>(m_), 0);
    rownorm2_.assign(static_cast<std::size_t>(N_), 0.0);
    for (Index i = 0; i < N_; ++i) {
      double s = 0.0;
      for_each_in_row(X_, i, [&](Index j, double x) {
        stored[j] = 1;
        if (x != 0.0) col_nz_[j] = 1;
        s += x * x;
      });
      rownorm2_[i] = s;
    }
    used_cols_.clear();
    for (Index j = 0; j < m_; ++j)
      if (stored[j]) used_cols_.push_back(j);
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

  // Polls the callbacks once (each sweep over X does); the solve stops at the next check.
  bool poll_pass() {
    if (!interrupted_ && cb_.poll()) interrupted_ = true;
    return interrupted_;
  }

  // Bytes of the dense Newton path with c assembly chunks: c per-chunk blocks, H, its
  // factored copy and one transient (restriction after a drop), plus the row blocks.
  double dense_bytes(Index k, int c) const {
    const double kk = static_cast<double>(k);
    return 8.0 * ((c + 3.0) * kk * kk + c * static_cast<double>(block_rows()) * kk);
  }
  Index block_rows() const { return std::max<Index>(1, std::min<Index>(o_.block_rows, N_)); }

  // One pass over X at w: z = X~ w, the smoothed/hinge loss sums, ghat (full, loss part +
  // l2 part), Dv_i = v_i phi''(u_i) and, if hess, the active block H = X~_A^T Dv X~_A +
  // diag(l2) (lower triangle).
  PassOut eval(const std::vector<double>& w, double alpha, bool hess,
               const std::vector<double>* z_old) {
    ++passes_;
    poll_pass();
    const Index k = static_cast<Index>(A_.size());
    const int chunks = hess ? hess_chunks_ : chunks_;
    // With an unregularized bias the dual point needs sum_i v_i a_i y_i = 0, restored by
    // scaling one class's a_i; that needs the loss gradient of each class separately, so the
    // rows accumulate into two halves (no extra arithmetic).
    const std::size_t gsize = static_cast<std::size_t>(split_classes_ ? 2 * nc_ : nc_);
    const Index bs = block_rows();
    // Every buffer is sized here, before the parallel region: a failed allocation inside it
    // could not be reported (std::bad_alloc there ends the process).
    if (static_cast<int>(gbufs_.size()) < chunks) gbufs_.resize(chunks);
    for (int c = 0; c < chunks; ++c) gbufs_[c].assign(gsize, 0.0);
    std::vector<PassOut> outs(chunks);
    if (hess) {
      if (static_cast<int>(hbufs_.size()) < chunks) hbufs_.resize(chunks);
      if (static_cast<int>(bbufs_.size()) < chunks) bbufs_.resize(chunks);
      for (int c = 0; c < chunks; ++c) {
        hbufs_[c].setZero(k, k);
        bbufs_[c].resize(bs, k);
      }
    }
    // The matrix-free solve's Jacobi diagonal diag(X~^T Dv X~), from the same pass.
    if (cg_) {
      if (static_cast<int>(dbufs_.size()) < chunks) dbufs_.resize(chunks);
      for (int c = 0; c < chunks; ++c) dbufs_[c].assign(static_cast<std::size_t>(nc_), 0.0);
    }
    const double bw = p_.fit_intercept ? w[m_] * scale_ : 0.0;
    z_.resize(N_);
    dv_.resize(N_);
    parallel_chunks(N_, chunks, [&](int c, Index b, Index e) {
      std::vector<double>& gall = gbufs_[c];
      PassOut out;
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
          double* hd = dbufs_[c].data();
          const double di = dv_[i];
          for_each_in_row(X_, i, [&](Index j, double x) { hd[j] += di * x * x; });
          if (p_.fit_intercept) hd[m_] += di * scale_ * scale_;
        }
        if (hess) {
          const double sc = std::sqrt(dv_[i]);
          auto row = bbufs_[c].row(r);
          row.setZero();
          for_each_in_row(X_, i, [&](Index j, double x) {
            const Index q = pos_[j];
            if (q >= 0) row[q] += sc * x;
          });
          if (p_.fit_intercept && pos_[m_] >= 0) row[pos_[m_]] = sc * scale_;
          if (++r == bs) {
            hbufs_[c].selfadjointView<Eigen::Lower>().rankUpdate(bbufs_[c].transpose());
            r = 0;
          }
        }
      }
      if (hess && r > 0)
        hbufs_[c].selfadjointView<Eigen::Lower>().rankUpdate(bbufs_[c].topRows(r).transpose());
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
        for (Index j = 0; j < nc_; ++j) hdiag_[j] += dbufs_[c][j];
    }
    for (Index j = 0; j < nc_; ++j) ghat_[j] += (is_bias(j) ? lam_b_ : lam_) * w[j];
    h_valid_ = hess;
    if (hess) {
      H_ = hbufs_[0];
      for (int c = 1; c < chunks; ++c) H_ += hbufs_[c];
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

  // q = X~ d (one pass).
  void direction_pass(const std::vector<double>& d) {
    ++passes_;
    poll_pass();
    q_.resize(N_);
    const double bd = p_.fit_intercept ? d[m_] * scale_ : 0.0;
    matvec(X_, d.data(), q_.data(), threads_);
    for (Index i = 0; i < N_; ++i) q_[i] += bd;
  }

  // Rebuilds the active list and the position map from the active flags, and chooses how
  // the Newton systems on it are solved (see the header).
  void rebuild_active() {
    h_valid_ = false;
    A_.clear();
    pos_.assign(static_cast<std::size_t>(nc_), -1);
    for (Index j = 0; j < m_; ++j)
      if (act_[j]) A_.push_back(j);
    kw_ = static_cast<Index>(A_.size());
    if (p_.fit_intercept) A_.push_back(m_);
    for (std::size_t q = 0; q < A_.size(); ++q) pos_[A_[q]] = static_cast<Index>(q);
    const Index k = static_cast<Index>(A_.size());
    const bool wide = kw_ > N_ && N_ <= o_.woodbury_max_samples;
    hess_chunks_ = 0;
    if (!wide && k <= o_.max_dense_block) {
      // Fewer assembly chunks (threads) before giving up the dense block.
      for (int c = chunks_; c >= 1 && hess_chunks_ == 0; --c)
        if (dense_bytes(k, c) <= budget_) hess_chunks_ = c;
    }
    cg_ = hess_chunks_ == 0;
    g_valid_ = false;
    if (cg_) {
      // Release the dense path's memory; the matrix-free work vectors are O(N + m).
      H_.resize(0, 0);
      hbufs_.clear();
      bbufs_.clear();
      vfull_.assign(static_cast<std::size_t>(nc_), 0.0);
      linv_.assign(static_cast<std::size_t>(nc_), 0.0);
      if (static_cast<int>(hvbufs_.size()) < chunks_) hvbufs_.resize(chunks_);
      for (int c = 0; c < chunks_; ++c) hvbufs_[c].assign(static_cast<std::size_t>(nc_), 0.0);
      scratch_.assign(static_cast<std::size_t>(nc_), 0.0);
    }
  }

  // Newton direction on the active block: solves H_AA d_A = -g_A.
  void newton_direction(const std::vector<double>& g, std::vector<double>& d) {
    std::fill(d.begin(), d.end(), 0.0);
    const Index k = static_cast<Index>(A_.size());
    if (k == 0) return;
    if (cg_) {
      pcg_direction(g, d);
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

  // out = (H_AA + ridge I) v in one fused sweep: for each row, t = Dv_i x~_i.v, then
  // acc += t x~_i, so every stored entry is read once (twice from cache).
  void hess_vec(const Vec& v, Vec& out) {
    ++passes_;
    const Index k = static_cast<Index>(A_.size());
    for (Index t = 0; t < k; ++t) vfull_[A_[t]] = v[t];  // zero off A (rebuild_active)
    const double vb = p_.fit_intercept ? vfull_[m_] * scale_ : 0.0;
    out.resize(k);
    double sb = 0.0;
    if constexpr (is_col_major<V>::value) {
      // Column sweeps (rows are strided in this layout).
      q_.resize(N_);
      matvec(X_, vfull_.data(), q_.data(), threads_);
      for (Index i = 0; i < N_; ++i) {
        q_[i] = dv_[i] * (q_[i] + vb);
        sb += q_[i];
      }
      rmatvec(X_, q_.data(), scratch_.data(), threads_, cg_bufs_);
      for (Index t = 0; t < k; ++t) out[t] = scratch_[A_[t]];
    } else {
      const int chunks = chunks_;
      sbs_.assign(static_cast<std::size_t>(chunks), 0.0);
      parallel_chunks(N_, chunks, [&](int c, Index b, Index e) {
        double* acc = hvbufs_[c].data();
        double s = 0.0;
        for (Index i = b; i < e; ++i) {
          const double t = dv_[i] * (row_dot(X_, i, vfull_.data()) + vb);
          if (t != 0.0) row_axpy(X_, i, t, acc);
          s += t;
        }
        sbs_[c] = s;
      });
      for (Index t = 0; t < k; ++t) {
        if (is_bias(A_[t])) continue;
        double s = 0.0;
        for (int c = 0; c < chunks; ++c) s += hvbufs_[c][A_[t]];
        out[t] = s;
      }
      for (int c = 0; c < chunks; ++c) {
        sb += sbs_[c];
        // Only the columns with stored entries were touched.
        for (Index j : used_cols_) hvbufs_[c][j] = 0.0;
      }
    }
    if (p_.fit_intercept) out[k - 1] = sb * scale_;
    for (Index t = 0; t < k; ++t) out[t] += ((is_bias(A_[t]) ? lam_b_ : lam_) + cg_ridge_) * v[t];
  }
  // Sets up the preconditioner of the matrix-free solve at the current Dv (see the header):
  // Lambda (active features), the Woodbury set T, the factor of K = I + S X_T Lambda^-1
  // X_T^T S and, with a bias, the border (c, the Schur complement).
  void setup_preconditioner() {
    const Index k = static_cast<Index>(A_.size());
    double dmax = 0.0;
    for (Index t = 0; t < k; ++t)
      dmax = std::max(dmax, hdiag_[A_[t]] + (is_bias(A_[t]) ? lam_b_ : lam_));
    cg_ridge_ = o_.newton_ridge * std::max(dmax, 1e-300);
    select_woodbury_set();
    const Index nt = static_cast<Index>(T_.size());
    sT_.resize(nt);
    for (Index a = 0; a < nt; ++a) sT_[a] = std::sqrt(dv_[T_[a]]);
    // Lambda_j = lambda + ridge + the diagonal of the samples outside T.
    std::vector<double>& tdiag = scratch_;
    double tb = 0.0;
    if (gram_mode_) {
      // Every sample is in T: Lambda = lambda + ridge, K = I + S G S / Lambda with the Gram
      // matrix G = X_A X_A^T of the active set, built once per active set.
      const double lam_all = lam_ + cg_ridge_;
      for (Index t = 0; t < kw_; ++t) linv_[A_[t]] = 1.0;
      if (!g_valid_) {
        const Vec keep = sT_;
        sT_.setOnes(nt);
        build_woodbury_matrix();
        sT_ = keep;
        G_ = K_;
        G_.diagonal().array() -= 1.0;
        g_valid_ = true;
      }
      for (Index t = 0; t < kw_; ++t) linv_[A_[t]] = 1.0 / lam_all;
      K_.resize(nt, nt);
      for (Index b = 0; b < nt; ++b)
        for (Index a = b; a < nt; ++a) K_(a, b) = sT_[a] * sT_[b] * G_(a, b) / lam_all;
      K_.diagonal().array() += 1.0;
      for (Index a = 0; a < nt; ++a) tb += dv_[T_[a]];
    }
    for (Index a = 0; a < nt && !gram_mode_; ++a) {
      const double da = dv_[T_[a]];
      for_each_in_row(X_, T_[a], [&](Index j, double x) { tdiag[j] += da * x * x; });
      tb += da;
    }
    if (!gram_mode_) {
      for (Index t = 0; t < kw_; ++t) {
        const Index j = A_[t];
        const double rest = std::max(hdiag_[j] - tdiag[j], 0.0);
        linv_[j] = 1.0 / (lam_ + cg_ridge_ + rest);
      }
      clear_rows(tdiag);
    }
    if (nt > 0) {
      if (!gram_mode_) build_woodbury_matrix();
      Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(K_);  // in place
      if (llt.info() != Eigen::Success) {
        T_.clear();
        sT_.resize(0);
        for (Index t = 0; t < kw_; ++t) linv_[A_[t]] = 1.0 / (hdiag_[A_[t]] + lam_ + cg_ridge_);
      } else {
        ++woodbury_solves_;
      }
    }
    if (!p_.fit_intercept) return;
    // Bias border: c = scale X_T^T Dv_T (active features), delta = H_bb + ridge.
    const double delta = lam_b_ + cg_ridge_ + hdiag_[m_];
    border_c_.setZero(kw_);
    if (!T_.empty()) {
      for (Index a = 0; a < static_cast<Index>(T_.size()); ++a) {
        const double da = dv_[T_[a]] * scale_;
        for_each_in_row(X_, T_[a], [&](Index j, double x) { scratch_[j] += da * x; });
      }
      for (Index t = 0; t < kw_; ++t) border_c_[t] = scratch_[A_[t]];
      clear_rows(scratch_);
    }
    border_rv_ = border_c_;
    minv_features(border_rv_);
    // delta - c^T M^-1 c >= Lambda_b > 0 in exact arithmetic (P = Lambda + X~_T^T Dv X~_T).
    const double lam_b_rest = lam_b_ + cg_ridge_ + std::max(hdiag_[m_] - scale_ * scale_ * tb, 0.0);
    schur_ = std::max(delta - border_c_.dot(border_rv_), std::max(lam_b_rest, 1e-300));
  }

  // T: the samples with curvature (Dv_i > 0), or when that is costly those whose curvature
  // Dv_i ||x_i||^2 exceeds kWoodburyMinWeight (lambda + ridge); the largest first, at most
  // woodbury_max_samples, within the memory budget and the work cap; kept in row order.
  void select_woodbury_set() {
    T_.clear();
    gram_mode_ = false;
    const double n = static_cast<double>(N_);
    const double nnz = static_cast<double>(stored_entries(X_));
    // Small sample spaces: all samples, with the Gram matrix kept (G and K within the budget,
    // the factorization within kExactPasses sweeps or kExactFlops).
    if (N_ <= o_.woodbury_max_samples && 16.0 * n * n <= budget_ &&
        n * n * n / 3.0 <= std::max(kExactPasses * nnz, kExactFlops)) {
      gram_mode_ = true;
      for (Index i = 0; i < N_; ++i) T_.push_back(i);
      return;
    }
    const double cap_mem = std::floor(std::sqrt(budget_ / 8.0));
    Index tmax = static_cast<Index>(std::min<double>(
        {static_cast<double>(o_.woodbury_max_samples), cap_mem, static_cast<double>(N_)}));
    if (tmax <= 0) return;
    for (Index i = 0; i < N_; ++i)
      if (dv_[i] * rownorm2_[i] > 0.0) T_.push_back(i);
    // Every sample with curvature when the exact sample-space solve is cheap (its work within
    // kExactPasses sweeps over X, or below kExactFlops): CG then ends after one iteration.
    // Otherwise only the samples whose curvature reaches the regularization.
    const double nt = static_cast<double>(std::min<Index>(static_cast<Index>(T_.size()), tmax));
    const double exact_work = nt * nt * nt / 3.0 + 0.5 * nt * nt * nnz / static_cast<double>(N_);
    if (exact_work > std::max(kExactPasses * nnz, kExactFlops)) {
      const double floor_w = kWoodburyMinWeight * (lam_ + cg_ridge_);
      std::size_t kept = 0;
      for (Index i : T_)
        if (dv_[i] * rownorm2_[i] > floor_w) T_[kept++] = i;
      T_.resize(kept);
      // Factoring K costs |T|^3 / 3: keep it within kWoodburyPasses sweeps over X, so that
      // it never costs more than the CG iterations it saves.
      const double cap_work = std::cbrt(3.0 * kWoodburyPasses * nnz);
      tmax = std::min<Index>(tmax, std::max<Index>(1, static_cast<Index>(cap_work)));
    }
    if (static_cast<Index>(T_.size()) > tmax) {
      const auto heavier = [&](Index a, Index b) {
        const double wa = dv_[a] * rownorm2_[a], wb = dv_[b] * rownorm2_[b];
        return wa > wb || (wa == wb && a < b);
      };
      std::nth_element(T_.begin(), T_.begin() + tmax, T_.end(), heavier);
      T_.resize(static_cast<std::size_t>(tmax));
      std::sort(T_.begin(), T_.end());
    }
  }

  // Zeroes buf at the stored entries of the rows of T.
  void clear_rows(std::vector<double>& buf) const {
    for (Index i : T_) for_each_in_row(X_, i, [&](Index j, double) { buf[j] = 0.0; });
  }

  // K = I + S X_T Lambda^-1 X_T^T S (lower triangle), from sparse rows (a scatter of x_a
  // Lambda^-1 and sparse dots) or, for dense X, from blocks of columns (rank updates); X is
  // never copied whole.
  void build_woodbury_matrix() {
    const Index nt = static_cast<Index>(T_.size());
    K_.resize(nt, nt);
    if constexpr (is_csr<V>::value) {
      double work = 0.0;
      for (Index i : T_) work += static_cast<double>(X_.indptr[i + 1] - X_.indptr[i]);
      work *= 0.5 * static_cast<double>(nt);
      const int nthr = work > 1048576.0 ? threads_ : 1;
      if (static_cast<int>(kbufs_.size()) < nthr) kbufs_.resize(nthr);
      for (int c = 0; c < nthr; ++c)
        if (kbufs_[c].size() != static_cast<std::size_t>(nc_))
          kbufs_[c].assign(static_cast<std::size_t>(nc_), 0.0);
      // Nothing in the region allocates or throws (buffers sized above).
#ifdef _OPENMP
#pragma omp parallel num_threads(nthr) if (nthr > 1)
#endif
      {
#ifdef _OPENMP
        double* sc = kbufs_[omp_get_thread_num()].data();
#pragma omp for schedule(dynamic, 16)
#else
        double* sc = kbufs_[0].data();
#endif
        for (Index a = 0; a < nt; ++a) {
          const Index ia = T_[a];
          for_each_in_row(X_, ia, [&](Index j, double x) { sc[j] += x * linv_[j]; });
          for (Index b = 0; b <= a; ++b) K_(a, b) = sT_[a] * sT_[b] * row_dot(X_, T_[b], sc);
          for_each_in_row(X_, ia, [&](Index j, double) { sc[j] = 0.0; });
        }
      }
    } else {
      K_.setZero();
      const Index bw = 256;
      Eigen::MatrixXd B(nt, std::min<Index>(bw, std::max<Index>(kw_, 1)));
      for (Index j0 = 0; j0 < kw_; j0 += bw) {
        const Index nb = std::min<Index>(bw, kw_ - j0);
        for (Index a = 0; a < nt; ++a)
          for (Index q = 0; q < nb; ++q) {
            const Index j = A_[j0 + q];
            B(a, q) = sT_[a] * dense_at(X_, T_[a], j) * std::sqrt(linv_[j]);
          }
        K_.selfadjointView<Eigen::Lower>().rankUpdate(B.leftCols(nb));
      }
    }
    K_.diagonal().array() += 1.0;
  }

  // r <- M^-1 r on the active features, M = Lambda + X_T^T Dv_T X_T (Woodbury):
  // M^-1 r = u - Lambda^-1 X_T^T S K^-1 S X_T u, u = Lambda^-1 r.
  void minv_features(Vec& r) {
    for (Index t = 0; t < kw_; ++t) r[t] *= linv_[A_[t]];
    const Index nt = static_cast<Index>(T_.size());
    if (nt == 0) return;
    for (Index t = 0; t < kw_; ++t) vfull_[A_[t]] = r[t];
    Vec f(nt);
    for (Index a = 0; a < nt; ++a) f[a] = sT_[a] * row_dot(X_, T_[a], vfull_.data());
    for (Index t = 0; t < kw_; ++t) vfull_[A_[t]] = 0.0;
    K_.triangularView<Eigen::Lower>().solveInPlace(f);
    K_.triangularView<Eigen::Lower>().adjoint().solveInPlace(f);
    for (Index a = 0; a < nt; ++a) row_axpy(X_, T_[a], sT_[a] * f[a], scratch_.data());
    for (Index t = 0; t < kw_; ++t) r[t] -= linv_[A_[t]] * scratch_[A_[t]];
    clear_rows(scratch_);
  }

  // z = P^-1 r: the bordered system [[M, c], [c^T, delta]] for the bias (block elimination).
  void apply_prec(const Vec& r, Vec& z) {
    z = r;
    Vec zw = r.head(kw_);
    minv_features(zw);
    z.head(kw_) = zw;
    if (!p_.fit_intercept) return;
    const double xb = (r[kw_] - border_c_.dot(zw)) / schur_;
    z.head(kw_) -= border_rv_ * xb;
    z[kw_] = xb;
  }

  // Matrix-free Newton solve: preconditioned CG on (H_AA + ridge) d_A = -g_A to relative
  // residual cg_tol; one sweep over X per iteration.
  void pcg_direction(const std::vector<double>& g, std::vector<double>& d) {
    const Index k = static_cast<Index>(A_.size());
    Vec b(k);
    for (Index t = 0; t < k; ++t) b[t] = -g[A_[t]];
    setup_preconditioner();
    Vec x = Vec::Zero(k), r = b, z, Ap;
    apply_prec(r, z);
    Vec pdir = z;
    double rz = r.dot(z);
    const double bnorm = b.norm();
    const long long limit = o_.cg_max_iter > 0 ? o_.cg_max_iter : static_cast<long long>(k);
    for (long long it = 0; it < limit && r.norm() > o_.cg_tol * bnorm; ++it) {
      if (poll_pass()) break;
      hess_vec(pdir, Ap);
      const double pAp = pdir.dot(Ap);
      if (!(pAp > 0.0)) break;
      const double step = rz / pAp;
      x += step * pdir;
      r -= step * Ap;
      apply_prec(r, z);
      const double rz_new = r.dot(z);
      pdir = z + (rz_new / rz) * pdir;
      rz = rz_new;
      ++cg_iterations_;
    }
    for (Index t = 0; t < k; ++t) d[A_[t]] = x[t];
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
  int chunks_ = 1;       // chunks of a sweep over X (data.hpp's rule: by stored entries)
  int hess_chunks_ = 0;  // chunks of a pass that assembles the dense block (memory budget)
  double budget_ = 0.0;  // newton_memory_mb in bytes
  double S_ = 1.0, lam_ = 0.0, mu_ = 0.0, lam_b_ = 0.0, scale_ = 0.0;
  std::vector<double> v_, z_, dv_, q_, ghat_;
  std::vector<double> ztrial_;  // margins at a projected trial point
  std::vector<double> gpos_;    // loss gradient of the y = +1 rows (split_classes_ only)
  bool split_classes_ = false;  // unregularized bias: gradients accumulated per class
  bool interrupted_ = false;    // the callbacks asked to stop
  double gap_ = kNaN;           // relative duality gap at the last eval pass
  double bound_ = kNaN;         // relative suboptimality bound (stopping rule)
  bool bound_at_w_ = false;     // bound_ was computed at the current w
  std::vector<std::vector<double>> gbufs_, dbufs_;  // per-chunk gradient and diagonal sums
  std::vector<Eigen::MatrixXd> hbufs_;              // per-chunk dense blocks
  std::vector<RowMat> bbufs_;                       // per-chunk row blocks of the assembly
  std::vector<char> act_;
  std::vector<char> col_nz_;      // feature column has a nonzero entry
  std::vector<Index> used_cols_;  // columns with stored entries (touched by row sweeps)
  std::vector<double> rownorm2_;  // ||x_i||^2
  std::vector<Index> A_, pos_;
  Index kw_ = 0;
  bool cg_ = false;  // Newton systems by matrix-free PCG (dense block not used)
  bool dense_block() const { return !cg_; }
  // Matrix-free solve: diag of X~^T Dv X~, work vectors of length nc (zero off their use).
  std::vector<double> hdiag_, vfull_, scratch_, linv_, sbs_;
  std::vector<std::vector<double>> hvbufs_, kbufs_;
  ReductionBuffers cg_bufs_;
  std::vector<Index> T_;  // the Woodbury samples
  Vec sT_, border_c_, border_rv_;
  double schur_ = 1.0;
  Eigen::MatrixXd K_;  // Woodbury matrix, then its Cholesky factor (lower)
  Eigen::MatrixXd G_;  // X_A X_A^T (lower) when every sample is in T (gram_mode_)
  bool gram_mode_ = false, g_valid_ = false;
  double cg_ridge_ = 0.0;
  long long cg_iterations_ = 0;
  bool h_valid_ = false;  // H_ is the block of the current A_
  Eigen::MatrixXd H_;
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
  scan_columns();
  // Columns without a nonzero entry are decoupled: with w_j = 0 they stay at zero.
  for (Index j = 0; j < m_; ++j) act_[j] = ((!l1 && col_nz_[j]) || w[j] != 0.0) ? 1 : 0;
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
    if (poll_pass()) {
      interrupted = true;
      break;
    }
    if (have_gh && dense_block() && !h_valid_) have_gh = false;
    if (!have_gh) {
      cur = eval(w, alpha, dense_block(), nullptr);
      fh_cur = cur.fh;
      have_gh = true;
    }
    if (!std::isfinite(cur.fs) || !std::isfinite(cur.fh)) {
      status = SolverStatus::numerical_error;
      break;
    }
    if (interrupted_) {
      interrupted = true;
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
    if (interrupted_) {
      interrupted = true;
      break;
    }
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
      direction_pass(d);
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
            matvec(X_, wt.data(), ztrial_.data(), threads_);
            ++passes_;
            poll_pass();
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
        if (!accepted && !have_q) direction_pass(d);
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
