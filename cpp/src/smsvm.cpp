// SmSVM (solvers/smsvm.hpp states the problem, the method and the stopping rule).
//
// Implementation notes (the former header's detail, with the evidence behind the choices):
// Bias: the paper's augmented x~ = (x, intercept_scaling). The bias coordinate is never
// l1-penalized and is always active; it carries the l2 term lambda/2 b^2 only when
// regularize_intercept is true (LIBLINEAR's convention).
//
// Method: paper 000 (Emirahmetoglu, Hajewski, Oliveira, Stewart, "A Smoothing Algorithm for
// l1 Support Vector Machines"), Algorithms 1-4. The hinge max(0, u), u = 1 - y w.x, is
// replaced by phi_alpha(u) = (u + sqrt(alpha^2 + u^2)) / 2; the l1 term is not smoothed but
// handled by an active set (coordinates with w_j != 0, plus newly activated ones). For each
// alpha, guarded Newton steps on the active block H_II = X_I^T D X_I + lambda I (gradient and
// block from one pass over the data) with the LINESEARCHL1 step (line_search_l1.hpp) and an
// Armijo backtracking guard on the true smoothed objective f_alpha. When the predicted
// reduction |d^T g| < eta alpha, the inactive coordinates with |g^_j| > mu are activated once
// per alpha (with a gradient step on them), otherwise alpha <- beta alpha. A failed line
// search (s < s_min) also reduces alpha. Coordinates whose step lands on zero or changes
// sign leave the active set (Algorithm 2, line 20). Implementation choice: the sign-changed
// coordinates are set to zero *before* the Armijo test, which then uses the actual
// displacement g^T (w+ - w) (without this, zeroing after an accepted step can increase the
// objective a lot); backtracking stays on the ray w + s d and never passes the first sign
// change, where that coordinate lands on exactly zero. A full step costs one pass: the pass
// that evaluates f_alpha at the trial point also assembles the next gradient and block.
// With l1 = 0 every coordinate stays active (SmSVM-l2), except feature columns with no
// stored entry and w_j = 0, which are exactly decoupled (gradient and Hessian row zero) and
// stay at zero. Newton systems are solved in one of two ways:
//  * dense: the block H_AA is assembled by the gradient pass and factored (Cholesky), when
//    the block is at most max_dense_block, the problem is not wide (|A| <= n_samples or
//    n_samples > woodbury_max_samples) and (threads + 3) |A|^2 doubles fit newton_memory_mb;
//  * matrix-free: preconditioned CG to relative residual cg_tol, each Hessian-vector product
//    X_A^T Dv X_A v one fused sweep over the stored entries of X. The preconditioner is the
//    bordered (bias) Woodbury inverse of Lambda + X_T^T Dv_T X_T, where T holds the samples
//    whose curvature Dv_i ||x_i,A||^2 is largest (at least the regularization; at most
//    woodbury_max_samples, and the |T| x |T| matrix within newton_memory_mb) and Lambda is
//    lambda + the Jacobi diagonal of the remaining samples. The |T| x |T| system
//    I + S X_T Lambda^-1 X_T^T S (S = Dv_T^1/2) is built from sparse rows, never from a
//    dense copy of X. When every sample with curvature is in T the preconditioner is H_AA
//    itself (up to the shift rho) and CG ends after one iteration: the sample-space Newton
//    solve of wide data (and, when that costs little, T holds every sample with Dv_i > 0).
//    Memory stays O(N + threads m) beyond that budget; X is never copied.
//
// Stopping rule (tol > 0): the relative suboptimality (F(w) - F*) / F(w) bounded or (l2)
// estimated, whichever is smaller:
//  * the hinge duality gap (F(w) - D(a)) / F(w) at the dual point a_i = phi_alpha'(u_i) in
//    [0, 1], made feasible by scaling (duality_gap in smsvm.cpp): a certificate (weak
//    duality), evaluated by every gradient pass; it becomes small only once a level is
//    solved accurately, since it contains ||r(a) - lambda w||^2 / (2 lambda);
//  * l2 only (l1 = 0), at the end of a level (|d^T g| < eta alpha):
//    (alpha/2 - E(w) + |d^T g| / 2) / F(w), E(w) = f_alpha(w) - F(w) >= 0. Since
//    0 <= phi_alpha(u) - max(0, u) <= alpha/2 and the weights v_i sum to 1,
//    F* >= f_alpha* - alpha/2, so F(w) - F* <= alpha/2 - E(w) + (f_alpha(w) - f_alpha*);
//    the last term is estimated by the Newton decrement |d^T g| / 2 (exact for the
//    quadratic model, small by the level's own test; not a bound: on near-separable data
//    the run ended 5.95e-4 above the optimum at an estimate of 9.3e-5, see smsvm.hpp). In effect
//    alpha_min adapts to the data: the run ends at the first level with alpha/2 - E(w) <~ tol F(w).
//    With l1 the decrement on the active set proved a poor estimate at small alpha (levels that end
//    after a few steps 1e-3 above the optimum), so l1 runs rely on the gap or the floor.
// The run stops (status converged) as soon as the bound is <= tol. Otherwise the loop of
// Algorithm 1 ends when alpha <= beta * alpha_min, i.e. after the level alpha = alpha_min
// has been solved to |d^T g| < eta alpha (the paper's rule; status converged; tol = 0 gives
// the paper's rule alone); l2 runs with tol > 0 continue below alpha_min, to alpha_floor at
// most, since their bound says when to stop. With tol > 0 a bound still above tol there gets
// the band-repaired certificate (Smsvm::certify); above tol after it, the status is max_iter. One
// refinement of the paper's rule: at the last level the activation of Algorithm 3 may run up to
// final_level_adjustments times (while some inactive |g^_j| > mu), not once. max_iter bounds the
// total number of Newton steps (status max_iter). SolveResult's optimality is the bound at the
// returned w (the duality gap alone if no level ended there).
//
// Cost accounting: passes counts sweeps over the data (gradient+Hessian passes, direction
// passes X d, Hessian-vector products of the matrix-free solve, the initial column scan).
// Interruption: callbacks.poll() is called once per sweep; the solve stops at the next
// check with the last accepted iterate. A non-finite objective gives numerical_error. The history
// has one record per Newton step: objective = F (hinge, LIBLINEAR scale) at the iterate, optimality
// = |d^T g| (the averaged scale of the paper), step = step length s, inner_iterations = the number
// of Newton steps taken so far at this alpha, active_size = |active set| (bias included), smoothing
// = alpha, radius = number of Armijo halvings, gap = the stopping rule's bound at the iterate where
// the step started, passes (cumulative), time.
#include "svmkit/solvers/smsvm.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <variant>
#include <vector>

#include "hinge_certificate.hpp"
#include "svmkit/detail/parallel.hpp"
#include "svmkit/detail/smsvm_rows.hpp"
#include "svmkit/line_search_l1.hpp"
#include "svmkit/loss.hpp"

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
// Relative diagonal shift of the l2 Newton systems (newton_shift).
constexpr double kConditioningShift = 1e-12;
// Final polish (polish()): the margin set starts as the samples with |u_i| <= kPolishMargin
// alpha; kPolishTol bounds the violations of the optimality conditions (in u, a_i and
// |r_j| / mu) that still count as satisfied, kPolishResidual the relative residual of a
// consistent polish system.
constexpr double kPolishMargin = 10.0;
constexpr double kPolishTol = 1e-9;
constexpr double kPolishResidual = 1e-9;
// l2 runs polish only systems of at most this many unknowns (features with w_j != 0, the bias
// and the margin samples): every feature is in the support there, and the dense solve costs
// O(n^3). Measured on 8 l2 fits (breast_cancer raw and standardized, dna, near-separable
// 16,000 x 20, two_gaussians 10,000 x 50, sparse 2,000 x 50,000, 400 x 8): 0-12% more time;
// polished (exact, certified) on breast_cancer and dna, the estimate's point kept elsewhere.
constexpr Index kL2PolishMaxSystem = 512;
// Every run: a margin set of more than kPolishMarginPerUnknown times the unknowns of x =
// (w_S, b) plus kPolishMarginSlack ends the polish (the Newton steps go on). Z_M x = 1 has
// at most as many independent rows as x has coordinates, so at a nondegenerate optimum M
// is no larger; a check that moves many more samples onto the margin comes from wrong sets.
// Measured on the hinge elastic net, near-separable 4,800 x 20 (scales 1-1000, C = 1):
// rounds that grew M from 17 to 1,332-3,048 samples cost 0.6-3 s each in the dense solve,
// 1.4 s of the fit's 1.5 s.
constexpr double kPolishMarginPerUnknown = 4.0;
constexpr double kPolishMarginSlack = 32.0;
// l1 runs: after a failed polish the last level goes on with eta scaled by 0.1, down to
// this scale (measured: eta 1e-3 at the last level identifies the sets of the small pure-l1
// problems of tests/test_smsvm.py, eta 1e-1 does not).
constexpr double kMinEtaScale = 1e-3;
// certify(): the band widths tried after the final alpha (those above it). Measured on
// near-separable 4,000 x 20, scales 1-1000, C = 100 (bench_regimes' set): pure l1 gaps 0.96
// (widths 1e-6 to 1e-4), 2.4e-3 (1e-3), 7.6e-4 (1e-2), 2.2e-2 (0.1) at a point 2.4e-8 above
// the optimum; its elastic net and raw australian's certified (1.9e-5, 7.6e-6) where the
// smoothed dual point gave 2.3 and 27.7.
constexpr double kCertifyWidths[] = {1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1};

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

// phi_alpha(u) = psi_M(u; alpha) of loss.hpp (u = 1 - y z is the hinge argument).
inline detail::MixSmoothRelu smooth_hinge(double u, double alpha) {
  return detail::mix_smooth_relu_all(u, alpha);
}
inline double smooth_diff(double u1, double u0, double alpha) {
  return detail::mix_smooth_relu_diff(u1, u0, alpha);
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
      double* g = gbufs_[c].data();
      detail::SmsvmRowSums rs;
      Index r = 0;
      for (Index i = b; i < e; ++i) {
        dv_[i] = detail::smsvm_row(X_, i, w.data(), bw, p_.y[i], v_[i], alpha,
                                   z_old ? z_old->data() : nullptr, z_.data(), g, nc_,
                                   split_classes_, rs);
        if (cg_) {
          double* hd = dbufs_[c].data();
          const double di = dv_[i];
          for_each_in_row(X_, i, [&](Index j, double x) { hd[j] += di * x * x; });
          if (p_.fit_intercept) hd[m_] += di * scale_ * scale_;
        }
        if (hess) {
          detail::smsvm_block_row(X_, i, dv_[i], pos_.data(), p_.fit_intercept ? pos_[m_] : -1,
                                  scale_, bbufs_[c].row(r));
          if (++r == bs) {
            hbufs_[c].selfadjointView<Eigen::Lower>().rankUpdate(bbufs_[c].transpose());
            r = 0;
          }
        }
      }
      if (hess && r > 0)
        hbufs_[c].selfadjointView<Eigen::Lower>().rankUpdate(bbufs_[c].topRows(r).transpose());
      if (p_.fit_intercept) detail::smsvm_bias_gradient(rs, m_, nc_, scale_, split_classes_, g);
      outs[c] = PassOut{rs.fs, rs.fh, rs.dfs, rs.apos, rs.aneg};
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

  // The shift rho of the Newton system (H_AA + rho I) d_A = -g_A. Any rho > 0 keeps d a
  // descent direction with d_A = 0 <=> g_A = 0, so no choice changes the solutions, only the
  // path. With an l2 term H_AA is positive definite; rho = kConditioningShift max_q H_qq only
  // conditions the system at small alpha (where Dv_i reaches v_i / alpha). Pure l1
  // (lambda = 0) leaves H_AA = X~_A^T Dv X~_A singular whenever the active columns are
  // dependent on the samples (|A| > N: wide data): there rho = newton_ridge ||g_A||
  // (Levenberg-Marquardt), which bounds the step in directions without curvature by
  // ||g_A|| / rho (the l1 line search then stops it at its breakpoints) and vanishes as g_A
  // does, so the last steps are Newton steps.
  double newton_shift(const std::vector<double>& g) const {
    if (lam_ > 0.0) {
      double dmax = 0.0;
      for (Index t = 0; t < static_cast<Index>(A_.size()); ++t) {
        const Index j = A_[t];
        const double hjj = cg_ ? hdiag_[j] : H_(t, t);
        dmax = std::max(dmax, hjj + (cg_ ? (is_bias(j) ? lam_b_ : lam_) : 0.0));
      }
      return kConditioningShift * std::max(dmax, 1e-300);
    }
    double g2 = 0.0;
    for (Index j : A_) g2 += g[j] * g[j];
    return o_.newton_ridge * std::sqrt(g2);
  }

  // Newton direction on the active block: solves (H_AA + rho I) d_A = -g_A.
  void newton_direction(const std::vector<double>& g, std::vector<double>& d) {
    std::fill(d.begin(), d.end(), 0.0);
    const Index k = static_cast<Index>(A_.size());
    if (k == 0) return;
    const double rho = newton_shift(g);
    if (lam_ == 0.0 && rho == 0.0) return;  // g_A = 0 (or newton_ridge = 0): no step
    if (cg_) {
      cg_ridge_ = rho;
      pcg_direction(g, d);
      return;
    }
    Vec rhs(k);
    for (Index q = 0; q < k; ++q) rhs[q] = -g[A_[q]];
    const Vec sol = shifted_cholesky_solve(rho, rhs);
    for (Index q = 0; q < k; ++q) d[A_[q]] = sol[q];
  }

  // (H_AA + shift I)^-1 rhs by Cholesky. Should the factorization fail in floating point (a
  // block that is singular to rounding), the shift grows from 1e-14 max_q H_qq by factors of
  // 10 until it succeeds (a descent direction either way); NaN when H_AA is not finite.
  Vec shifted_cholesky_solve(double shift, const Vec& rhs) const {
    const Index k = rhs.size();
    double dmax = 0.0;
    for (Index q = 0; q < k; ++q) dmax = std::max(dmax, H_(q, q));
    Eigen::MatrixXd Hs;
    for (int attempt = 0; attempt < 40 && std::isfinite(dmax); ++attempt) {
      Hs = H_;
      Hs.diagonal().array() += shift;
      Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>, Eigen::Lower> llt(Hs);  // in place
      if (llt.info() == Eigen::Success) return llt.solve(rhs);
      shift = std::max(10.0 * shift, 1e-14 * std::max(dmax, 1e-300));
    }
    return Vec::Constant(k, kNaN);
  }

  // out = (H_AA + rho I) v in one fused sweep: for each row, t = Dv_i x~_i.v, then
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
    select_woodbury_set();
    const Index nt = static_cast<Index>(T_.size());
    sT_.resize(nt);
    for (Index a = 0; a < nt; ++a) sT_[a] = std::sqrt(dv_[T_[a]]);
    // Lambda_j = lambda + rho + the diagonal of the samples outside T.
    std::vector<double>& tdiag = scratch_;
    double tb = 0.0;
    if (gram_mode_) {
      // Every sample is in T: Lambda = lambda + rho, K = I + S G S / Lambda with the Gram
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
    // Bias border: c = scale X_T^T Dv_T (active features), delta = H_bb + rho.
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
  // Dv_i ||x_i||^2 exceeds kWoodburyMinWeight (lambda + rho); the largest first, at most
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
    if constexpr (is_csr_view<V>::value) {
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

  // Matrix-free Newton solve: preconditioned CG on (H_AA + rho I) d_A = -g_A to relative
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

  // ---- Final polish: the exact hinge optimum from the smoothed solution. ----
  //
  // The smoothed solution at alpha identifies, up to O(alpha), the support S of w with its
  // signs and the samples on the margin M (u_i = 0); the others have a_i = 1 (u_i > 0, set E)
  // or a_i = 0 (u_i < 0). Given these sets the optimality conditions of the hinge problem are
  // a square linear system in x = (w_S, b) and beta_i = v_i a_i (i in M):
  //   L x + mu s_S - r_E - Z^T beta = 0,   Z x = 1,
  // Z_i = y_i x~_{i,S}, L = diag(lambda, lambda_b), r_E = sum_E v_i y_i x~_{i,S}. Its solution
  // is the optimum when the sets were right: 0 <= a_M <= 1, the samples outside M stay on
  // their side, sign(w_S) = s_S and |r_j| <= mu off S (r = sum v_i a_i y_i x~_i). Violations
  // move the offending samples and coordinates between the sets and the system is solved
  // again (at most polish_rounds times). The point is kept only when every condition holds
  // and F does not increase; its duality gap at that a (a certificate) becomes the reported
  // bound. Pure l1 (lambda = 0) is a linear program: this is the step that ends it exactly,
  // where the smoothed Newton steps (singular without lambda) stall above the optimum.
  struct PolishState {
    std::vector<Index> S;  // support, with signs sgn
    std::vector<double> sgn;
    std::vector<signed char> side;  // per sample: 1 (a = 1), 0 (margin), -1 (a = 0)
  };

  // z = X~ w (one pass).
  void margins(const std::vector<double>& w, std::vector<double>& z) {
    ++passes_;
    poll_pass();
    z.resize(N_);
    matvec(X_, w.data(), z.data(), threads_);
    const double bw = p_.fit_intercept ? w[m_] * scale_ : 0.0;
    for (Index i = 0; i < N_; ++i) z[i] += bw;
  }

  // r = sum_i v_i a_i y_i x~_i (one pass).
  void dual_residual(const std::vector<double>& a, std::vector<double>& r) {
    ++passes_;
    r.assign(static_cast<std::size_t>(nc_), 0.0);
    double rb = 0.0;
    for (Index i = 0; i < N_; ++i) {
      const double c = v_[i] * a[i] * p_.y[i];
      if (c == 0.0) continue;
      row_axpy(X_, i, c, r.data());
      rb += c;
    }
    if (p_.fit_intercept) r[m_] = rb * scale_;
  }

  // The sets at w: S = {w_j != 0}; M = the samples with |u_i| <= tau, tau a few alpha (where
  // phi_alpha' is neither 0 nor 1 to O(alpha)).
  PolishState polish_sets(const std::vector<double>& z, double alpha) const {
    PolishState ps;
    for (Index j = 0; j < m_; ++j) {
      if (w_[j] != 0.0) {
        ps.S.push_back(j);
        ps.sgn.push_back(w_[j] > 0.0 ? 1.0 : -1.0);
      }
    }
    const double tau = kPolishMargin * alpha;
    ps.side.resize(static_cast<std::size_t>(N_));
    for (Index i = 0; i < N_; ++i) {
      const double u = 1.0 - p_.y[i] * z[i];
      ps.side[i] = std::fabs(u) <= tau ? 0 : (u > 0.0 ? 1 : -1);
    }
    return ps;
  }

  // Pure l1 is a linear program: at a (nondegenerate) vertex as many samples lie on the
  // margin as x = (w_S, b) has coordinates. M is completed to that size by the samples
  // closest to the margin at z, so that the polish system is square and regular.
  void complete_vertex(PolishState& ps, const std::vector<double>& z) const {
    const Index nx = static_cast<Index>(ps.S.size()) + (p_.fit_intercept ? 1 : 0);
    Index nm = static_cast<Index>(std::count(ps.side.begin(), ps.side.end(), 0));
    if (nm >= nx) return;
    std::vector<Index> out;
    for (Index i = 0; i < N_; ++i)
      if (ps.side[i] != 0) out.push_back(i);
    const auto closer = [&](Index a, Index b) {
      return std::fabs(1.0 - p_.y[a] * z[a]) < std::fabs(1.0 - p_.y[b] * z[b]);
    };
    const Index add = std::min<Index>(nx - nm, static_cast<Index>(out.size()));
    std::partial_sort(out.begin(), out.begin() + add, out.end(), closer);
    for (Index q = 0; q < add; ++q) ps.side[out[q]] = 0;
  }

  // Solves the polish system for the sets ps: wp (all coordinates) and a (all samples).
  // False when the system is inconsistent (the sets cannot be right).
  bool polish_solve(const PolishState& ps, std::vector<double>& wp, std::vector<double>& a) {
    const Index k = static_cast<Index>(ps.S.size());
    const Index nx = k + (p_.fit_intercept ? 1 : 0);
    std::vector<Index> M;
    for (Index i = 0; i < N_; ++i)
      if (ps.side[i] == 0) M.push_back(i);
    const Index nm = static_cast<Index>(M.size());
    const Index n = nx + nm;
    std::vector<Index> spos(static_cast<std::size_t>(m_), -1);
    for (Index t = 0; t < k; ++t) spos[ps.S[t]] = t;
    Eigen::MatrixXd K = Eigen::MatrixXd::Zero(n, n);
    Vec rhs = Vec::Zero(n);
    for (Index t = 0; t < k; ++t) {
      K(t, t) = lam_;
      rhs[t] = -mu_ * ps.sgn[t];
    }
    if (p_.fit_intercept) K(k, k) = lam_b_;
    // r_E on S (and the bias), the Z rows of M.
    for (Index i = 0; i < N_; ++i) {
      if (ps.side[i] != 1) continue;
      const double c = v_[i] * p_.y[i];
      for_each_in_row(X_, i, [&](Index j, double x) {
        if (spos[j] >= 0) rhs[spos[j]] += c * x;
      });
      if (p_.fit_intercept) rhs[k] += c * scale_;
    }
    for (Index q = 0; q < nm; ++q) {
      const Index i = M[q];
      const double yi = p_.y[i];
      for_each_in_row(X_, i, [&](Index j, double x) {
        if (spos[j] >= 0) K(nx + q, spos[j]) = yi * x;
      });
      if (p_.fit_intercept) K(nx + q, k) = yi * scale_;
      for (Index t = 0; t < nx; ++t) K(t, nx + q) = -K(nx + q, t);
      rhs[nx + q] = 1.0;
    }
    const Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(K);
    const Vec sol = cod.solve(rhs);
    const double res = (K * sol - rhs).norm();
    if (!sol.allFinite() || !(res <= kPolishResidual * (1.0 + rhs.norm()))) return false;
    wp.assign(static_cast<std::size_t>(nc_), 0.0);
    for (Index t = 0; t < k; ++t) wp[ps.S[t]] = sol[t];
    if (p_.fit_intercept) wp[m_] = sol[k];
    a.assign(static_cast<std::size_t>(N_), 0.0);
    for (Index i = 0; i < N_; ++i) a[i] = ps.side[i] == 1 ? 1.0 : 0.0;
    for (Index q = 0; q < nm; ++q) a[M[q]] = sol[nx + q] / v_[M[q]];
    return true;
  }

  // Checks the optimality conditions at (wp, a) (z at wp) and moves the violators between
  // the sets; true when nothing was violated (a is then clipped into [0, 1]).
  bool polish_check(PolishState& ps, std::vector<double>& wp, std::vector<double>& a,
                    const std::vector<double>& z) {
    bool ok = true;
    for (Index i = 0; i < N_; ++i) {
      const double u = 1.0 - p_.y[i] * z[i];
      if (ps.side[i] == 0) {
        if (a[i] < -kPolishTol || a[i] > 1.0 + kPolishTol) {
          ps.side[i] = a[i] < 0.0 ? -1 : 1;
          ok = false;
        }
        a[i] = std::min(std::max(a[i], 0.0), 1.0);
      } else if (ps.side[i] * u < -kPolishTol) {
        ps.side[i] = 0;
        ok = false;
      }
    }
    std::vector<Index> S;
    std::vector<double> sgn;
    for (std::size_t t = 0; t < ps.S.size(); ++t) {
      const Index j = ps.S[t];
      if (!l1_ && wp[j] != 0.0) ps.sgn[t] = wp[j] > 0.0 ? 1.0 : -1.0;  // l2: no sign condition
      if (wp[j] * ps.sgn[t] < 0.0) {
        wp[j] = 0.0;
        ok = false;
        continue;
      }
      S.push_back(j);
      sgn.push_back(ps.sgn[t]);
    }
    std::vector<double> r;
    dual_residual(a, r);
    const double rtol = kPolishTol * std::max(mu_, 1e-300);
    for (Index j = 0; j < m_; ++j) {
      if (wp[j] != 0.0 || !(std::fabs(r[j]) > mu_ + rtol)) continue;
      if (std::find(S.begin(), S.end(), j) != S.end()) continue;
      S.push_back(j);
      sgn.push_back(r[j] > 0.0 ? 1.0 : -1.0);
      ok = false;
    }
    ps.S.swap(S);
    ps.sgn.swap(sgn);
    if (ok) polish_gap_ = polish_duality_gap(wp, a, r, z);
    return ok;
  }

  // (P(w) - D(a)) / P(w) at the polished point (averaged scale); the dual point a is exact
  // up to rounding, its l1 constraints |r_j| <= mu restored by scaling (duality_gap).
  double polish_duality_gap(const std::vector<double>& w, const std::vector<double>& a,
                            const std::vector<double>& r, const std::vector<double>& z) const {
    double theta = 1.0;
    if (lam_ == 0.0) {
      double rmax = 0.0;
      for (Index j = 0; j < m_; ++j) rmax = std::max(rmax, std::fabs(r[j]));
      if (rmax > mu_) theta = mu_ / rmax;
    }
    double dual = 0.0;
    for (Index i = 0; i < N_; ++i) dual += v_[i] * a[i];
    dual *= theta;
    for (Index j = 0; j < nc_; ++j) {
      const double l = is_bias(j) ? lam_b_ : lam_;
      if (l == 0.0) continue;
      const double e = std::max(std::fabs(theta * r[j]) - (is_bias(j) ? 0.0 : mu_), 0.0);
      dual -= e * e / (2.0 * l);
    }
    const double primal = hinge_from_z(z) + reg(w);
    const double gap = std::max(primal - dual, 0.0);
    return primal > 0.0 ? gap / primal : gap;
  }

  // The polish loop; w_ is replaced only by a point that satisfies the optimality conditions
  // and does not increase F.
  bool polish() {
    if (o_.polish_rounds <= 0 || interrupted_) return false;
    std::vector<double> z, wp, a, zp;
    margins(w_, z);
    const double f0 = hinge_from_z(z) + reg(w_);
    PolishState ps = polish_sets(z, std::max(alpha_, alpha_end_));
    for (long long round = 0; round < o_.polish_rounds; ++round) {
      const double n = static_cast<double>(ps.S.size()) + 1.0 +
                       static_cast<double>(std::count(ps.side.begin(), ps.side.end(), 0));
      // The dense system, its factorization and the copy (3 n^2 doubles) within the budget.
      if (n > static_cast<double>(o_.max_dense_block) || 24.0 * n * n > budget_) return false;
      if (!l1_ && n > static_cast<double>(kL2PolishMaxSystem)) return false;
      const double nx = static_cast<double>(ps.S.size()) + (p_.fit_intercept ? 1.0 : 0.0);
      if (n - nx > kPolishMarginPerUnknown * nx + kPolishMarginSlack) return false;
      ++polish_rounds_;
      if (lam_ == 0.0) complete_vertex(ps, round == 0 ? z : zp);
      if (poll_pass() || !polish_solve(ps, wp, a)) return false;
      margins(wp, zp);
      if (!polish_check(ps, wp, a, zp)) continue;
      if (!(hinge_from_z(zp) + reg(wp) <= f0)) return false;
      w_ = wp;
      polished_ = true;
      have_gh_ = false;
      gap_met_ = false;
      bound_ = polish_gap_;
      bound_at_w_ = true;
      return true;
    }
    return false;
  }

  // The polish at the end of the last level (once per eta): a success ends the run.
  bool final_polish() {
    if (o_.polish_rounds <= 0 || polish_tried_at_ == eta_scale_) return false;
    polish_tried_at_ = eta_scale_;
    if (!polish()) return false;
    gap_met_ = true;
    return true;
  }

  // ---- Algorithm 1's loop, in named steps (run() below strings them together). ----

  // What the end of a Newton step's direction test decided (Algorithm 3).
  enum class LevelEnd { activated, next_level, stop, tightened };
  // An accepted or rejected step: its length, the Armijo halvings, and whether the trial pass
  // left the gradient (and block) of the new point behind.
  struct StepOutcome {
    double s = 0.0;
    long long halvings = 0;
    bool accepted = false;
    bool gh_at_trial = false;
  };
  // The trial point's sign changes: whether any coordinate was zeroed, and the first
  // breakpoint on the ray (where a coordinate lands on exactly zero).
  struct Trial {
    bool flipped = false;
    double sigma_min = std::numeric_limits<double>::infinity();
  };

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // Algorithm 1, lines 2-5: w0, the initial active set and the first activation; the
  // smoothing levels of the run.
  void start_run(const SmsvmWarmStart& warm) {
    w_.assign(static_cast<std::size_t>(nc_), 0.0);
    d_.assign(static_cast<std::size_t>(nc_), 0.0);
    g_.assign(static_cast<std::size_t>(nc_), 0.0);
    wt_.assign(static_cast<std::size_t>(nc_), 0.0);
    if (warm.w0) std::copy(warm.w0, warm.w0 + nc_, w_.begin());
    l1_ = mu_ > 0.0;
    act_.assign(static_cast<std::size_t>(nc_), 0);
    scan_columns();
    // Columns without a nonzero entry are decoupled: with w_j = 0 they stay at zero.
    for (Index j = 0; j < m_; ++j) act_[j] = ((!l1_ && col_nz_[j]) || w_[j] != 0.0) ? 1 : 0;
    if (p_.fit_intercept) act_[m_] = 1;
    // Loop while alpha > beta alpha_end; the relative slack absorbs the rounding of repeated
    // alpha <- beta alpha so that alpha_end itself is the last level. l2 runs with tol > 0
    // end by their bound and may go below alpha_min (data whose optimum is small need it),
    // down to alpha_floor. Everything else ends at alpha_min.
    alpha_end_ = (o_.tol > 0.0 && !l1_) ? o_.alpha_floor : o_.alpha_min;
    alpha_stop_ = o_.beta * alpha_end_ * (1.0 + 1e-9);
    // A warm start below the last level starts at it: that level is always solved (a warm alpha
    // of 1e-8 < alpha_min once ended the run at once, reported converged, 5e-4 above the
    // optimum, where the paper's rule asks for the level alpha_min).
    alpha_ = warm.alpha > 0.0 ? std::max(warm.alpha, alpha_end_) : o_.alpha0;
    rebuild_active();
    if (l1_) {
      eval(w_, alpha_, false, nullptr);
      for (Index j = 0; j < m_; ++j)
        if (!act_[j] && std::fabs(ghat_[j]) > mu_) act_[j] = 1;
      rebuild_active();
    }
  }

  // The gradient pass at w (and the dense block when that path is used), unless the last
  // pass left them. False when the run stops (numerical error, interruption).
  bool ensure_gradient() {
    if (have_gh_ && dense_block() && !h_valid_) have_gh_ = false;
    if (!have_gh_) {
      cur_ = eval(w_, alpha_, dense_block(), nullptr);
      fh_cur_ = cur_.fh;
      have_gh_ = true;
    }
    if (!std::isfinite(cur_.fs) || !std::isfinite(cur_.fh)) {
      status_ = SolverStatus::numerical_error;
      return false;
    }
    if (interrupted_) {
      status_ = SolverStatus::interrupted;
      return false;
    }
    return true;
  }

  // Sign-consistent active set: an active coordinate at zero whose |g^_j| <= mu is optimal
  // at zero (0 is in its subdifferential g^_j + mu [-1, 1]); in the Newton system it would
  // carry the pseudo-gradient g^_j - mu sign(g^_j), of the wrong sign, so it leaves the set.
  void prune_zero_coordinates() {
    bool pruned = false;
    for (Index j = 0; j < m_; ++j) {
      if (act_[j] && w_[j] == 0.0 && std::fabs(ghat_[j]) <= mu_) {
        act_[j] = 0;
        pruned = true;
      }
    }
    if (pruned) shrink_active();
  }

  // Algorithm 2, lines 1-5: the l1-aware gradient g on the active set and the Newton step d
  // (newton_direction). A coordinate at zero moves only into the orthant of -g_j, where the
  // linearization mu sign(w_j) holds (its other half is dropped, as in orthant-wise methods),
  // so d^T g is the directional derivative. Returns d^T g.
  double direction() {
    std::fill(g_.begin(), g_.end(), 0.0);
    for (Index j : A_) {
      double gj = ghat_[j];
      if (!is_bias(j) && l1_) {
        // |g^_j| > mu at w_j = 0 (prune_zero_coordinates).
        const double sj = w_[j] != 0.0 ? w_[j] : -ghat_[j];
        gj += mu_ * (sj > 0.0 ? 1.0 : -1.0);
      }
      g_[j] = gj;
    }
    newton_direction(g_, d_);
    double dec = 0.0;
    for (Index j : A_) {
      if (l1_ && !is_bias(j) && w_[j] == 0.0 && d_[j] * g_[j] > 0.0) d_[j] = 0.0;
      dec += d_[j] * g_[j];
    }
    return dec;
  }

  void next_level() {
    alpha_ *= o_.beta;
    adjust_ = true;
    have_gh_ = false;
    level_steps_ = 0;
  }

  // Algorithm 3, when the predicted reduction |d^T g| < eta alpha (or d is no descent
  // direction): activate the inactive coordinates with |g^_j| > mu once per alpha (with a
  // gradient step on them; dec is updated), or end the level: the stopping rule's bound at w,
  // then alpha <- beta alpha.
  LevelEnd end_of_level(double& dec) {
    std::vector<Index> J;
    if (l1_)
      for (Index j = 0; j < m_; ++j)
        if (!act_[j] && std::fabs(ghat_[j]) > mu_) J.push_back(j);
    const bool last_level = alpha_ <= alpha_end_ * (1.0 + 1e-9);
    const bool may_adjust =
        adjust_ || (last_level && final_adjust_used_ < o_.final_level_adjustments);
    if (!J.empty() && may_adjust) {
      if (last_level) ++final_adjust_used_;
      for (Index j : J) {
        const double gj = ghat_[j] - mu_ * (ghat_[j] > 0.0 ? 1.0 : -1.0);
        g_[j] = gj;
        d_[j] = -gj;
        act_[j] = 1;
      }
      dec = 0.0;
      for (Index j = 0; j < nc_; ++j) dec += d_[j] * g_[j];
      adjust_ = false;
      ++adjustments_;
      return LevelEnd::activated;
    }
    if (l1_ && last_level && final_polish()) return LevelEnd::stop;
    if (l1_ && last_level && o_.polish_rounds > 0 && dec < 0.0 && eta_scale_ > kMinEtaScale) {
      // The polish failed: the last level is solved more accurately, with a fresh budget of
      // activations (the sets it must identify include the coordinates they add).
      eta_scale_ *= 0.1;
      final_adjust_used_ = 0;
      return LevelEnd::tightened;
    }
    // The level is solved (l2 only, see the header): alpha/2 - E(w) bounds the smoothing
    // part rigorously; |d^T g| / 2 < eta alpha / 2 estimates f_alpha(w) - f_alpha*.
    const double F = cur_.fh + reg(w_);
    const double slack = std::max(0.5 * alpha_ - (cur_.fs - cur_.fh), 0.0);
    const double est = (slack + 0.5 * std::fabs(dec)) / std::max(F, 1e-300);
    if (!l1_) bound_ = std::min(gap_, est);  // with l1, est is no bound (see the header)
    if (o_.tol > 0.0 && !l1_ && est <= o_.tol) {
      // The estimate is no bound (1.1e-4 above the optimum at an estimate of 4.7e-5 on
      // near-separable data scaled 1-1000): where the band repair fits, the certificate has to
      // confirm it, else the run goes on to the next level; at the last level (alpha_floor) or
      // with a support too large to repair, the estimate's stop stands (see the header).
      const bool last = alpha_ * o_.beta <= alpha_stop_;
      const bool repairable = certificate_repairable();
      const double cert = gap_ <= o_.tol || !repairable ? gap_ : certify(alpha_);
      if (cert <= o_.tol) bound_ = cert;
      if (cert <= o_.tol || last || !repairable) {
        gap_met_ = true;
        return LevelEnd::stop;
      }
    }
    next_level();
    return LevelEnd::next_level;
  }

  // a = d^T H d / 2 of LINESEARCHL1's model: from the assembled block, or from X d (one
  // pass; the block H_JJ of newly activated coordinates is not assembled).
  double model_curvature(bool adjusted, bool& have_q) {
    double acoef = 0.0;
    if (!adjusted && dense_block()) {
      const Index k = static_cast<Index>(A_.size());
      Vec dA(k);
      for (Index q = 0; q < k; ++q) dA[q] = d_[A_[q]];
      return 0.5 * dA.dot(H_.selfadjointView<Eigen::Lower>() * dA);
    }
    direction_pass(d_);
    have_q = true;
    for (Index i = 0; i < N_; ++i) acoef += dv_[i] * q_[i] * q_[i];
    for (Index j = 0; j < nc_; ++j) acoef += (is_bias(j) ? lam_b_ : lam_) * d_[j] * d_[j];
    return 0.5 * acoef;
  }

  // Trial point w+ = w + s d (exact zeros at a breakpoint). Coordinates that change sign are
  // set to zero (Algorithm 2, line 20); that moves w+ off the ray, so the Armijo test uses
  // the actual displacement g^T (w+ - w) (equal to s d^T g when nothing flips).
  Trial trial_point(const LineSearchL1Result& ls) {
    apply_step_l1(w_.data(), d_.data(), m_, ls, wt_.data());
    if (p_.fit_intercept) wt_[m_] = w_[m_] + ls.s * d_[m_];
    Trial tr;
    if (!l1_) return tr;
    for (Index j = 0; j < m_; ++j) {
      if (w_[j] != 0.0 && d_[j] != 0.0 && ((w_[j] > 0.0) != (d_[j] > 0.0)))
        tr.sigma_min = std::min(tr.sigma_min, -w_[j] / d_[j]);
      if (w_[j] != 0.0 && wt_[j] != 0.0 && ((w_[j] > 0.0) != (wt_[j] > 0.0))) {
        wt_[j] = 0.0;
        tr.flipped = true;
      }
    }
    return tr;
  }

  // Algorithm 2, lines 9-14: LINESEARCHL1 on the quadratic model a s^2 + b s + mu ||w + s d||_1,
  // then the Armijo guard on the true smoothed objective f_alpha (armijo()).
  StepOutcome take_step(double dec, bool adjusted) {
    double bcoef = 0.0;
    for (Index j = 0; j < nc_; ++j) bcoef += d_[j] * ghat_[j];
    bool have_q = false;
    const double acoef = model_curvature(adjusted, have_q);
    if (adjusted) rebuild_active();  // the trial pass assembles H on the enlarged set
    const LineSearchL1Result ls =
        line_search_l1(w_.data(), d_.data(), m_, std::max(acoef, 0.0), bcoef, mu_, o_.s_max);
    StepOutcome st;
    st.s = ls.s;
    const Trial tr = trial_point(ls);
    if (st.s > 0.0) armijo(st, tr, have_q, dec);
    return st;
  }

  // The full step is evaluated by a pass that also assembles the gradient and the Hessian
  // block at w+, so an accepted full step costs one pass; backtracking reuses X d.
  void armijo(StepOutcome& st, const Trial& tr, bool have_q, double dec) {
    double pred = 0.0;
    for (Index j = 0; j < nc_; ++j) pred += g_[j] * (wt_[j] - w_[j]);
    z_keep_ = z_;
    const PassOut trial = eval(wt_, alpha_, dense_block(), &z_keep_);
    const double df = trial.dfs + reg_diff(wt_, w_);
    if (pred < 0.0 && std::isfinite(df) && df <= o_.c1 * pred) {
      st.accepted = true;
      st.gh_at_trial = true;
      cur_ = trial;
      fh_cur_ = trial.fh;
      return;
    }
    if (!have_q && !tr.flipped) {
      q_.resize(N_);
      for (Index i = 0; i < N_; ++i) q_[i] = (z_[i] - z_keep_[i]) / st.s;
      have_q = true;
    }
    z_ = z_keep_;
    have_gh_ = false;
    if (tr.flipped && projected_backtrack(st, tr.sigma_min)) return;
    if (!have_q) direction_pass(d_);
    ray_backtrack(st, tr.sigma_min, dec);
    if (st.accepted) {
      for (Index i = 0; i < N_; ++i) z_[i] += st.s * q_[i];
      fh_cur_ = hinge_from_z(z_);
    }
  }

  // Projected backtracking first (as in orthant-wise methods): halve s while the step still
  // changes signs, zeroing those coordinates, so that one step can drop many coordinates;
  // each trial costs one pass (X w+). True when a trial was accepted (z_ is then at it).
  bool projected_backtrack(StepOutcome& st, double sigma_min) {
    double sp = 0.5 * st.s;
    for (long long t = 0; t < o_.projected_halvings && sp > sigma_min; ++t) {
      ++st.halvings;
      bool any_flip = false;
      for (Index j = 0; j < nc_; ++j) wt_[j] = w_[j] + sp * d_[j];
      for (Index j = 0; j < m_; ++j) {
        if (w_[j] != 0.0 && wt_[j] != 0.0 && ((w_[j] > 0.0) != (wt_[j] > 0.0))) {
          wt_[j] = 0.0;
          any_flip = true;
        }
      }
      if (!any_flip) break;
      double pred_p = 0.0;
      for (Index j = 0; j < nc_; ++j) pred_p += g_[j] * (wt_[j] - w_[j]);
      ztrial_.resize(N_);
      matvec(X_, wt_.data(), ztrial_.data(), threads_);
      ++passes_;
      poll_pass();
      const double bw = p_.fit_intercept ? wt_[m_] * scale_ : 0.0;
      double dfs = 0.0;
      for (Index i = 0; i < N_; ++i) {
        ztrial_[i] += bw;
        dfs += v_[i] * smooth_diff(1.0 - p_.y[i] * ztrial_[i], 1.0 - p_.y[i] * z_[i], alpha_);
      }
      const double dfp = dfs + reg_diff(wt_, w_);
      if (pred_p < 0.0 && std::isfinite(dfp) && dfp <= o_.c1 * pred_p) {
        st.accepted = true;
        st.s = sp;
        z_.swap(ztrial_);
        fh_cur_ = hinge_from_z(z_);
        return true;
      }
      sp *= 0.5;
    }
    return false;
  }

  // Backtracking on the ray, never past the first sign change (where that coordinate lands
  // on exactly zero), so that z + s X d is exact; q_ = X~ d.
  void ray_backtrack(StepOutcome& st, double sigma_min, double dec) {
    st.s = std::min(0.5 * st.s, sigma_min);
    ++st.halvings;
    while (true) {
      const bool landing = st.s == sigma_min;
      if (st.s < o_.s_min && !landing) return;
      for (Index j = 0; j < nc_; ++j) wt_[j] = w_[j] + st.s * d_[j];
      if (landing)
        for (Index j = 0; j < m_; ++j)
          if (w_[j] != 0.0 && d_[j] != 0.0 && -w_[j] / d_[j] == st.s) wt_[j] = 0.0;
      double dfs = 0.0;
      for (Index i = 0; i < N_; ++i) {
        const double u0 = 1.0 - p_.y[i] * z_[i];
        dfs += v_[i] * smooth_diff(u0 - p_.y[i] * st.s * q_[i], u0, alpha_);
      }
      const double dff = dfs + reg_diff(wt_, w_);
      if (std::isfinite(dff) && dff <= o_.c1 * st.s * dec) {
        st.accepted = true;
        return;
      }
      st.s *= 0.5;
      ++st.halvings;
    }
  }

  // Lines 20-21: w <- w+; coordinates at zero leave the active set (sign changes were zeroed).
  void commit_step(bool gh_at_trial) {
    bool dropped = false;
    if (l1_) {
      for (Index j = 0; j < m_; ++j) {
        if (act_[j] && wt_[j] == 0.0) {
          act_[j] = 0;
          dropped = true;
        }
      }
    }
    w_.swap(wt_);
    bound_at_w_ = false;
    if (gh_at_trial) have_gh_ = true;
    if (dropped) shrink_active();
  }

  // Rebuilds the active set after coordinates left it. The gradient pass stays valid; the
  // dense block is restricted to the new set when it was assembled for the old one.
  void shrink_active() {
    const std::vector<Index> old_pos = pos_;
    const bool h_was_valid = h_valid_;
    rebuild_active();
    if (have_gh_ && cg_) return;
    if (have_gh_ && dense_block() && h_was_valid) {
      const Index k = static_cast<Index>(A_.size());
      Eigen::MatrixXd Hn(k, k);
      for (Index a = 0; a < k; ++a)
        for (Index b = 0; b <= a; ++b) {
          const Index oa = old_pos[A_[a]], ob = old_pos[A_[b]];
          Hn(a, b) = oa >= ob ? H_(oa, ob) : H_(ob, oa);
        }
      H_ = Hn;
      h_valid_ = true;
      return;
    }
    have_gh_ = false;
  }

  // One history record; false when the on_iteration callback asks to stop.
  bool record_step(SolveResult& res, double dec, const StepOutcome& st) {
    if (!o_.record_history && !cb_.on_iteration) return true;
    IterationRecord rec;
    rec.iteration = iter_;
    rec.objective = S_ * (fh_cur_ + reg(w_));
    rec.optimality = std::fabs(dec);
    rec.step = st.accepted ? st.s : 0.0;
    rec.inner_iterations = level_steps_;
    rec.active_size = static_cast<long long>(A_.size());
    rec.smoothing = st.accepted ? alpha_ : alpha_ / o_.beta;
    rec.radius = static_cast<double>(st.halvings);
    rec.gap = bound_;
    rec.passes = passes_;
    rec.time = elapsed();
    rec.accepted = st.accepted;
    if (o_.record_history) res.history.push_back(rec);
    if (cb_.on_iteration && !cb_.on_iteration(rec)) {
      status_ = SolverStatus::interrupted;
      return false;
    }
    return true;
  }

  // One turn of Algorithm 1's loop: a Newton step at the current alpha, an activation, or
  // the end of a level. False when the run stops (status_ says how).
  bool iterate(SolveResult& res) {
    if (alpha_ <= alpha_stop_) return false;  // the smoothing floor: the paper's end
    if (iter_ >= o_.max_iter) {
      status_ = SolverStatus::max_iter;
      return false;
    }
    if (poll_pass()) {
      status_ = SolverStatus::interrupted;
      return false;
    }
    if (!ensure_gradient()) return false;
    // The gap of the last pass belongs to w: stop once it certifies tol.
    bound_ = gap_;
    bound_at_w_ = true;
    if (o_.tol > 0.0 && gap_ <= o_.tol) {
      gap_met_ = true;
      return false;
    }
    if (l1_) prune_zero_coordinates();
    double dec = direction();
    if (interrupted_) {
      status_ = SolverStatus::interrupted;
      return false;
    }
    if (!std::isfinite(dec)) {
      status_ = SolverStatus::numerical_error;
      return false;
    }
    bool adjusted = false;
    if (!(dec < 0.0) || std::fabs(dec) < o_.eta * eta_scale_ * alpha_) {
      const LevelEnd end = end_of_level(dec);
      if (end == LevelEnd::stop) return false;
      if (end == LevelEnd::next_level) return true;
      adjusted = end == LevelEnd::activated;
    }
    ++iter_;
    ++level_steps_;
    const StepOutcome st = take_step(dec, adjusted);
    if (!st.accepted) {
      // Lines 15-18: line search failure reduces alpha; w is kept.
      ++ls_fail_;
      next_level();
    } else {
      commit_step(st.gh_at_trial);
    }
    return record_step(res, dec, st);
  }

  // The final objective F at w (hinge, LIBLINEAR scale) and its bound, from exact margins
  // (one pass unless the last pass was already at w).
  SolveResult finish(SolveResult& res, SmsvmExtras* info) {
    if (interrupted_ && status_ != SolverStatus::numerical_error)
      status_ = SolverStatus::interrupted;
    const double a_fin = std::max(alpha_, alpha_end_);
    if (!(have_gh_ && gap_met_)) {
      eval(w_, a_fin, false, nullptr);
      bound_ = bound_at_w_ ? std::min(bound_, gap_) : gap_;
    }
    const bool ended = status_ == SolverStatus::converged || status_ == SolverStatus::max_iter;
    if (ended && o_.tol > 0.0 && !(bound_ <= o_.tol)) {
      const double cert = certify(a_fin);
      if (cert < bound_ || std::isnan(bound_)) bound_ = cert;
    }
    if (status_ == SolverStatus::converged && o_.tol > 0.0 && !(bound_ <= o_.tol)) {
      // The paper's rule ended the run (the level alpha_min solved) without a bound <= tol.
      status_ = SolverStatus::max_iter;
      res.message = "the smoothing reached its last level (alpha = " + short_number(a_fin) +
                    ") with a certified relative duality gap of " + short_number(bound_) +
                    " above tol; lower alpha_min" + (l1_ ? "" : " or alpha_floor") +
                    ", or raise tol";
    }
    double fs = 0.0;
    for (Index i = 0; i < N_; ++i) fs += v_[i] * smooth_hinge(1.0 - p_.y[i] * z_[i], a_fin).value;
    res.status = status_;
    res.objective = S_ * (hinge_from_z(z_) + reg(w_));
    if (!std::isfinite(res.objective)) res.status = SolverStatus::numerical_error;
    res.solution = w_;
    res.optimality = bound_;
    res.iterations = iter_;
    res.inner_iterations = iter_;
    res.passes = passes_;
    res.time = elapsed();
    if (info) {
      info->final_alpha = a_fin;
      info->smoothed_objective = S_ * (fs + reg(w_));
      info->line_search_failures = ls_fail_;
      info->active_set_adjustments = adjustments_;
      info->woodbury_solves = woodbury_solves_;
      info->cg_iterations = cg_iterations_;
      info->polished = polished_;
      info->polish_rounds = polish_rounds_;
    }
    return res;
  }

  // The exact problem's certificate at w from a dual point repaired on the margin band
  // (hinge_certificate.hpp): the smallest relative duality gap found, NaN when none was
  // computed. Where the smoothed dual point phi_alpha'(u) leaves a gap above tol near an
  // optimum (gaps of 1-28 at points within 1e-7 of clarabel's optimum) the repaired one need
  // not. The margins of a point that is not exact are off by more than alpha, so the band is
  // widened from alpha (kCertifyWidths) until the gap is <= tol; each try costs three sweeps
  // and a k x k system within certificate_memory_mb (none when the support is larger:
  // certificate_repairable; the unrepaired point would be the smoothed one again).
  double certify(double alpha) {
    const SmsvmPenalty pen{lam_ * S_, mu_ * S_};
    double best = kNaN;
    if (!certificate_repairable()) return best;
    const auto at = [&](double sigma) {
      const auto c = hinge_cert::hinge_certificate(X_, p_, pen, w_, sigma, certificate_gram());
      passes_ += c.passes;
      if (c.gap < best || std::isnan(best)) best = c.gap;
      return best <= o_.tol;
    };
    if (at(alpha)) return best;
    for (const double sigma : kCertifyWidths)
      if (sigma > alpha && at(sigma)) break;
    return best;
  }
  double certificate_gram() const { return o_.certificate_memory_mb * 1048576.0 / sizeof(double); }
  // Whether the band repair's k x k system (k = support of w + bias) fits certificate_memory_mb.
  bool certificate_repairable() const {
    double k = p_.fit_intercept ? 1.0 : 0.0;
    for (Index j = 0; j < m_; ++j) k += w_[j] != 0.0 ? 1.0 : 0.0;
    return k > 0.0 && k * k <= certificate_gram();
  }

  // State of the run.
  Clock::time_point start_;
  std::vector<double> w_, d_, g_, wt_, z_keep_;  // iterate, direction, l1-aware gradient, trial
  double alpha_ = 1.0, alpha_end_ = 0.0, alpha_stop_ = 0.0;
  bool l1_ = false;       // mu > 0
  bool adjust_ = true;    // Algorithm 3 may still activate coordinates at this alpha
  bool have_gh_ = false;  // ghat_, H_ (or dv_), z_ are valid at (w, alpha, A_)
  bool gap_met_ = false;  // the stopping rule's bound met tol
  PassOut cur_;           // sums of the last pass at w
  double fh_cur_ = 0.0;   // hinge part of F at w
  SolverStatus status_ = SolverStatus::converged;
  long long iter_ = 0, level_steps_ = 0, ls_fail_ = 0, adjustments_ = 0, final_adjust_used_ = 0;

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
  // Final polish: whether it replaced w, its rounds, the duality gap at its point; the
  // scale of eta at the last level (reduced after a failed polish) and the scale of the
  // last polish attempt.
  double eta_scale_ = 1.0, polish_tried_at_ = 0.0;
  bool polished_ = false;
  long long polish_rounds_ = 0;
  double polish_gap_ = kNaN;
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

// Algorithm 1: smoothing levels alpha <- beta alpha, guarded Newton steps at each.
template <class V>
SolveResult Smsvm<V>::run(const SmsvmWarmStart& warm, SmsvmExtras* info) {
  const SerialEigenGuard serial_eigen;
  start_ = Clock::now();
  SolveResult res;
  start_run(warm);
  while (iterate(res)) {
  }
  // Runs that ended before the last level's polish (a step limit, a certified gap) try it.
  const bool ended = status_ == SolverStatus::converged || status_ == SolverStatus::max_iter;
  if (ended && !polished_ && polish_tried_at_ != eta_scale_) polish();
  return finish(res, info);
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
