// NSSVM (solvers/nssvm.hpp states the problem, the method and the stopping rule).
//
// Implementation notes (the former header's detail, with the evidence behind the defaults):
// Method (paper 003, section 2.3 and the algorithm box): an eta-stationary point z = (alpha, mu)
// solves F(z; T) = [g_T(z); alpha_{T^c}; <alpha_T, y_T>] = 0 (eq. 6), where
// g(z) = H(alpha) alpha - 1 + mu y and T holds the s largest |alpha - eta g(z)|. Each iteration
//   1. takes the Newton step of eq. 7 on the working set T: d_{T^c} = -alpha_{T^c} and, with
//      Theta = H_TT = Q_T^T Q_T + E_T (s x s), the reduced solve of eq. 9
//        d_mu = (<alpha_T, y_T> - <y_T, Theta^{-1} g_T>) / <y_T, Theta^{-1} y_T>,
//        d_T  = -Theta^{-1} (g_T + d_mu y_T).
//      Theta^{-1} is applied by a Cholesky factorization of the s x s block when s <= n, in
//      feature space by the Woodbury identity (an n x n Cholesky factorization of
//      I + Q_T E_T^{-1} Q_T^T) when s > n, and by conjugate gradients (matrix-free,
//      Theta p = Q_T^T (Q_T p) + E_T p) when min(n, s) > cg_threshold. No m x m, m x n nor s x n
//      matrix is formed: the Woodbury factor is accumulated from sparse rows or row blocks,
//      and CSR rows of T are renumbered onto the columns they touch for the direct build.
//      The Woodbury matrix is kept between iterations and moved to the next T by the rows
//      whose weight 1/e_i changed (WoodburyMatrix): on dna (2,000 x 180, s = 1,044) 5-30% of
//      the rows change per step, and SparseSVC's one-thread fit went from 0.32 s to 0.10 s.
//   2. recomputes w = Q_T alpha_T (O(s n)) and the gradient g = Q^T w - 1 + E alpha + mu y in
//      one pass over the data, which also yields the training accuracy of the iterate,
//   3. picks T_{k+1} = the s largest |alpha - eta g| by partial selection (O(m), ties broken
//      by the smaller index, so the solver is deterministic and seedless).
// The bias is mu, refined (refine_bias) by b' = mean_{i in T} (y_i - <w, x_i>) when b' gives a
// higher training accuracy (the paper's refinement), and at the end (bias_search) by the bias
// that maximizes the training accuracy of the returned w. The iterate with the highest training
// accuracy is kept (the algorithm box's MaxACC bookkeeping) and returned when the final
// iterate is worse by more than acc_tol (keep_best); that kept iterate need not be
// eta-stationary. With tune, the sparsity level grows, s <- min(m, ceil(tune_ratio * s)),
// every tune_every iterations and whenever the iteration has converged at the current level
// (the first time always, later only while the accuracy still improved by more than acc_tol
// over the previous level), at most max_tunes times (the paper's tuning, r = 1.1). The
// listing's restarts from alpha = 0 after a tuning step are not done.
//
// Stopping rule (the algorithm box): a small residual together with the accuracy test
// |ACC(alpha_k) - MaxACC| <= acc_tol. By default (scaled_tol) the residual is the listing's
// ||F||^2 / (m n) <= tol sqrt(s) log10(m) with the accuracy settled between two iterates, and
// the solve also stops when the best accuracy has not risen for stall_iter iterations (the
// listing's stop after 20 iterations). With scaled_tol off, ||F|| <= tol makes z_k a fixed
// point of the iteration
// (the Newton step is 0 and T_{k+1} = T_k), so without tuning (or with its budget spent, or
// when growing s stopped improving the accuracy) the accuracy can no longer change and the
// solve stops as converged; keep_best then returns the MaxACC iterate. Otherwise it stops at
// max_iter iterations. There is no globalization (the paper has none): an eta much larger
// than the default can make the iteration diverge, which ends with status numerical_error.
//
// Defaults (paper 003, Table 2 and the defaults of its listing): C = 0.25, c = C / 100,
// eta = min(1/m, 1e-4), s0 = ceil(s0_scale * n * (ln(m/n))^2) with s0_scale = 1. The s0
// formula is Table 2's s(beta) = beta n (log2(m/n))^2 with beta = (ln 2)^2 ~ 0.48 (~0.5, the
// table's small-m value) and reproduces the support-vector counts of Table 4 (61, 78, 96,
// 116 for m = 500 .. 4000 training samples, n = 2) and 1104 for 53,602 x 17. tol = 1e-6 and
// tuning off are the listing's defaults.
#include "svmkit/solvers/nssvm.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kept_columns.hpp"

namespace svmkit {
namespace {

using Clock = std::chrono::steady_clock;

// Rows per block when the Woodbury matrix is accumulated by rank updates.
constexpr Index kWoodburyBlockRows = 256;
// Columns per block when a dense Theta is accumulated by rank updates.
constexpr Index kDenseBlockCols = 256;

// The local column numbers of the CSR rows of a working set T (see WorkingRows). Kept by the
// solver between Newton steps: when T repeats (s = m, or a settled working set) the
// renumbering, a sort of nnz(X_T) entries, is not redone.
struct Renumbering {
  std::vector<Index> T;       // the working set it was built for
  Index u = 0;                // number of distinct columns
  std::vector<Index> local;   // local column of each stored entry of T's rows
  std::vector<Index> offset;  // start of row a in local
  bool valid = false;
};

// The rows y_i x_i, i in T, addressed by local column numbers. For CSR data whose width n
// exceeds the entries of T's rows, the columns those rows touch are renumbered 0..u-1, so that
// every work vector of the Newton solve has u <= nnz(X_T) entries instead of n (2000 x 10^6
// data would otherwise need an n-vector per thread and solve). Values are read through the view
// (no copy); dense views use their own column numbers (u = n).
template <class V>
class WorkingRows {
 public:
  WorkingRows(const V& X, const double* y, const std::vector<Index>& T, Renumbering& cache)
      : X_(X), y_(y), T_(T) {
    u_ = X.cols;
    if constexpr (is_csr_view<V>::value) {
      Index nnz = 0;
      for (Index i : T) nnz += static_cast<Index>(X.indptr[i + 1] - X.indptr[i]);
      if (nnz < X.cols) {
        if (!cache.valid || cache.T != T) renumber(nnz, cache);
        u_ = cache.u;
        local_ = cache.local.data();
        offset_ = cache.offset.data();
      }
    }
  }

  Index cols() const { return u_; }
  Index size() const { return static_cast<Index>(T_.size()); }
  const std::vector<Index>& set() const { return T_; }

  // fn(local column, y_i x_ij) for each stored entry of the a-th row of T.
  template <class Fn>
  void for_each(Index a, Fn&& fn) const {
    const Index i = T_[static_cast<std::size_t>(a)];
    const double yi = y_[i];
    if constexpr (is_csr_view<V>::value) {
      if (local_ != nullptr) {
        const Index base = offset_[a];
        for (auto k = X_.indptr[i]; k < X_.indptr[i + 1]; ++k)
          fn(local_[static_cast<std::size_t>(base + (k - X_.indptr[i]))],
             yi * static_cast<double>(X_.data[k]));
        return;
      }
    }
    for_each_in_row(X_, i, [&](Index j, double v) { fn(j, yi * v); });
  }
  // <y_i x_i, buf> for the a-th row of T (buf indexed by local columns).
  double dot(Index a, const double* buf) const {
    const Index i = T_[static_cast<std::size_t>(a)];
    if constexpr (is_csr_view<V>::value) {
      if (local_ != nullptr) {
        const Index base = offset_[a];
        double s = 0.0;
        for (auto k = X_.indptr[i]; k < X_.indptr[i + 1]; ++k)
          s += static_cast<double>(X_.data[k]) *
               buf[local_[static_cast<std::size_t>(base + (k - X_.indptr[i]))]];
        return y_[i] * s;
      }
    }
    return y_[i] * row_dot(X_, i, buf);
  }
  // dst[q * stride] = y_i x_{i, j0 + q}, q < nc, for the a-th row of T (dense views only).
  void gather(Index a, Index j0, Index nc, double* dst, Index stride) const {
    const Index i = T_[static_cast<std::size_t>(a)];
    const double yi = y_[i];
    if constexpr (is_col_major<V>::value) {
      for (Index q = 0; q < nc; ++q)
        dst[q * stride] = yi * static_cast<double>(X_.data[(j0 + q) * X_.ld + i]);
    } else if constexpr (!is_csr_view<V>::value) {
      const auto* row = X_.data + i * X_.ld + j0;
      for (Index q = 0; q < nc; ++q) dst[q * stride] = yi * static_cast<double>(row[q]);
    }
  }
  // out += c y_i x_i for the a-th row of T.
  void axpy(Index a, double c, double* out) const {
    for_each(a, [&](Index j, double v) { out[j] += c * v; });
  }

 private:
  // Local numbers of the columns that T's rows touch, in increasing column order (so the
  // result is deterministic): one sort of (column, entry) pairs, then a scan.
  void renumber(Index nnz, Renumbering& c) const {
    std::vector<std::pair<Index, Index>> pairs;
    pairs.reserve(static_cast<std::size_t>(nnz));
    c.offset.resize(T_.size());
    Index pos = 0;
    for (std::size_t a = 0; a < T_.size(); ++a) {
      const Index i = T_[a];
      c.offset[a] = pos;
      for (auto k = X_.indptr[i]; k < X_.indptr[i + 1]; ++k)
        pairs.emplace_back(static_cast<Index>(X_.indices[k]), pos++);
    }
    std::sort(pairs.begin(), pairs.end());
    c.local.assign(static_cast<std::size_t>(std::max<Index>(nnz, 1)), 0);
    Index u = 0;
    for (std::size_t q = 0; q < pairs.size(); ++q) {
      if (q > 0 && pairs[q].first != pairs[q - 1].first) ++u;
      c.local[static_cast<std::size_t>(pairs[q].second)] = u;
    }
    c.u = pairs.empty() ? 1 : u + 1;  // u = 1 with no entries keeps the local path
    c.T = T_;
    c.valid = true;
  }

  const V& X_;
  const double* y_;
  const std::vector<Index>& T_;
  Index u_ = 0;
  const Index* local_ = nullptr;   // local column of each stored entry of T's rows (CSR)
  const Index* offset_ = nullptr;  // start of row a in local_
};

// M += sum_k c_k z_k z_k^T (lower triangle) over list = (row, c_k), c_k of either sign;
// for_row(row, fn) calls fn(column, value) for each stored entry of the row. Sparse rows cost
// nnz_k^2 each as single outer products, far below a dense row's u^2 on text-like data; they
// are used while within an eighth of the dense cost (below that GEMM-speed blocks of rows,
// rank updates of 256 scaled rows with the sign of their c_k, run faster).
template <class RowFn>
void add_outer_products(Eigen::MatrixXd& m, const std::vector<std::pair<Index, double>>& list,
                        bool sparse_rows, RowFn&& for_row) {
  const Index u = m.rows();
  const auto count = static_cast<double>(list.size());
  if (sparse_rows) {
    double outer = 0.0;
    for (const auto& [row, c] : list) {
      double k = 0.0;
      for_row(row, [&](Index, double) { k += 1.0; });
      outer += k * k;
    }
    if (8.0 * outer <= count * static_cast<double>(u) * static_cast<double>(u)) {
      // Each row's entries, sorted by column, then column k = idx[q] gets rows idx[p] >= k.
      std::vector<std::pair<Index, double>> entries;
      double* md = m.data();
      for (const auto& [row, c] : list) {
        entries.clear();
        for_row(row, [&](Index j, double v) { entries.emplace_back(j, v); });
        const auto out_of_order = [](const auto& a, const auto& b) { return a.first >= b.first; };
        if (std::adjacent_find(entries.begin(), entries.end(), out_of_order) != entries.end()) {
          // Unsorted or duplicate columns (a non-canonical CSR view from C++): one entry each.
          std::sort(entries.begin(), entries.end());
          std::size_t kept = 0;
          for (std::size_t q = 1; q < entries.size(); ++q) {
            if (entries[q].first == entries[kept].first)
              entries[kept].second += entries[q].second;
            else
              entries[++kept] = entries[q];
          }
          entries.resize(kept + 1);
        }
        const std::size_t len = entries.size();
        for (std::size_t q = 0; q < len; ++q) {
          double* col = md + entries[q].first * u;
          const double cq = c * entries[q].second;
          for (std::size_t p = q; p < len; ++p) col[entries[p].first] += cq * entries[p].second;
        }
      }
      return;
    }
  }
  const Index bs =
      std::min<Index>(kWoodburyBlockRows, std::max<Index>(static_cast<Index>(list.size()), 1));
  Eigen::MatrixXd block(bs, u);
  for (const double sign : {1.0, -1.0}) {
    Index nb = 0;
    const auto flush = [&] {
      if (nb > 0) m.selfadjointView<Eigen::Lower>().rankUpdate(block.topRows(nb).transpose(), sign);
      nb = 0;
    };
    for (const auto& [row, c] : list) {
      if (!(c * sign > 0.0)) continue;
      if (nb == 0) block.setZero();
      const double sc = std::sqrt(std::abs(c));
      for_row(row, [&](Index j, double v) { block(nb, j) += sc * v; });
      if (++nb == bs) flush();
    }
    flush();
  }
}

// The Woodbury matrix M = I + sum_{i in T} z_i z_i^T / e_i (n x n, z_i = y_i x_i, lower
// triangle) of the working set, kept by the solver between Newton steps. Consecutive working
// sets share most rows and most weights 1/e_i, so M moves to the next T by adding
// (1/e_i' - 1/e_i) z_i z_i^T for the rows whose weight changed (a row leaving T: 1/e_i' = 0)
// instead of summing all s rows again (dna 2,000 x 180, s = 1,044: that sum was half of the
// solve). It is rebuilt from T's rows every kWoodburyRebuildEvery moves, which bounds the
// rounding the signed updates accumulate, and whenever the changed rows cost over half a rebuild.
constexpr long long kWoodburyRebuildEvery = 16;

template <class V>
class WoodburyMatrix {
 public:
  // M for the working set T with Theta's diagonal eT (eT[a] for T[a]).
  const Eigen::MatrixXd& update(const V& X, const double* y, const std::vector<Index>& T,
                                const std::vector<double>& eT) {
    if (weight_.empty()) {
      weight_.assign(static_cast<std::size_t>(X.rows), 0.0);
      next_.assign(static_cast<std::size_t>(X.rows), 0.0);
    }
    for (std::size_t a = 0; a < T.size(); ++a) next_[static_cast<std::size_t>(T[a])] = 1.0 / eT[a];
    changes_.clear();
    double change_cost = 0.0, full_cost = 0.0;
    const auto cost = [&](Index i) {
      if constexpr (is_csr_view<V>::value) {
        const auto k = static_cast<double>(X.indptr[i + 1] - X.indptr[i]);
        return k * k;
      }
      return static_cast<double>(X.cols) * static_cast<double>(X.cols);
    };
    for (Index i : T) {
      const double c = cost(i);
      full_cost += c;
      const double dw = next_[static_cast<std::size_t>(i)] - weight_[static_cast<std::size_t>(i)];
      if (dw != 0.0) {
        changes_.emplace_back(i, dw);
        change_cost += c;
      }
    }
    for (Index i : members_)
      if (next_[static_cast<std::size_t>(i)] == 0.0) {
        changes_.emplace_back(i, -weight_[static_cast<std::size_t>(i)]);
        change_cost += cost(i);
      }
    if (moves_ >= kWoodburyRebuildEvery || m_.rows() != X.cols || 2.0 * change_cost > full_cost) {
      allocate_or_throw(static_cast<double>(X.cols) * static_cast<double>(X.cols) * 8.0,
                        "the n x n Woodbury matrix of the Newton system", "cg_threshold",
                        [&] { m_.setIdentity(X.cols, X.cols); });
      changes_.clear();
      for (Index i : T) changes_.emplace_back(i, next_[static_cast<std::size_t>(i)]);
      moves_ = 0;
    } else {
      ++moves_;
    }
    add_outer_products(m_, changes_, is_csr_view<V>::value, [&](Index i, auto&& fn) {
      const double yi = y[i];
      for_each_in_row(X, i, [&](Index j, double v) { fn(j, yi * v); });
    });
    for (Index i : members_) weight_[static_cast<std::size_t>(i)] = 0.0;
    for (Index i : T) {
      weight_[static_cast<std::size_t>(i)] = next_[static_cast<std::size_t>(i)];
      next_[static_cast<std::size_t>(i)] = 0.0;
    }
    members_ = T;
    return m_;
  }

 private:
  Eigen::MatrixXd m_;                              // M (lower triangle); empty before the first T
  std::vector<double> weight_;                     // 1/e_i of each sample in M, 0 outside T
  std::vector<double> next_;                       // the next T's weights (zero between calls)
  std::vector<Index> members_;                     // the working set M is summed over
  std::vector<std::pair<Index, double>> changes_;  // (sample, weight change) of one move
  long long moves_ = 0;                            // moves since M was last rebuilt
};

// Applies Theta^{-1} for Theta = Q_T^T Q_T + diag(e) (s x s), Q_T the columns y_i x_i, i in T.
// Which factorization is used depends on s, n and cg_threshold (header comment); the data are
// read through the view, so the extra memory is O(s^2) (direct), O(u^2 + 256 u) (Woodbury:
// an u x u factor, accumulated from blocks of rows; in the data's columns, u = n, the solver's
// WoodburyMatrix adds O(m + n^2)) or O(s + u) (CG), u <= min(n, nnz(X_T)).
template <class V>
class WorkingSetSystem {
 public:
  enum class Mode { direct, woodbury, cg };

  WorkingSetSystem(const V& X, const double* y, const std::vector<Index>& T,
                   const std::vector<double>& e, const NssvmOptions& opt, int n_threads,
                   const Callbacks& cb, Renumbering& renumbering, WoodburyMatrix<V>* kept)
      : X_(X),
        y_(y),
        mode_(choose_mode(static_cast<Index>(T.size()), X.cols, opt.cg_threshold)),
        // The direct build keeps a column buffer per thread and CG one cleared per iteration,
        // each as long as the rows' width: renumbering (a sort of nnz(X_T)) pays for itself in
        // every mode (CG on 2000 x 10^6 data would otherwise clear 10^6 entries per step).
        rows_(X, y, T, renumbering),
        e_(e),
        n_threads_(n_threads),
        cb_(cb) {
    const Index s = static_cast<Index>(T.size());
    cg_tol_ = opt.cg_tol;
    max_cg_ = opt.cg_max_iter > 0 ? opt.cg_max_iter : s + 1;
    if (mode_ == Mode::direct) build_direct();
    if (mode_ == Mode::woodbury) build_woodbury(kept);
  }

  static Mode choose_mode(Index s, Index n, long long cg_threshold) {
    if (std::min(n, s) > cg_threshold) return Mode::cg;
    return s <= n ? Mode::direct : Mode::woodbury;
  }

  Mode mode() const { return mode_; }
  long long cg_iterations() const { return cg_iterations_; }
  bool interrupted() const { return interrupted_; }

  // out = Theta^{-1} rhs (both of length s).
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& out) {
    switch (mode_) {
      case Mode::direct:
        out = llt_.solve(rhs);
        break;
      case Mode::woodbury:
        solve_woodbury(rhs, out);
        break;
      case Mode::cg:
        solve_cg(rhs, out);
        break;
    }
  }

 private:
  // Theta_ab = <z_a, z_b> + e_a [a == b], z_a = y_a x_a, one scattered row at a time so that
  // CSR rows cost their nonzeros only.
  void build_direct() {
    const Index s = rows_.size();
    const Index u = rows_.cols();
    Eigen::MatrixXd theta(s, s);
    if constexpr (!is_csr_view<V>::value) {
      build_direct_dense(theta);
      return;
    }
    const int chunks = static_cast<int>(std::max<Index>(1, std::min<Index>(n_threads_, s / 16)));
    std::vector<std::vector<double>> bufs(static_cast<std::size_t>(chunks),
                                          std::vector<double>(static_cast<std::size_t>(u), 0.0));
    parallel_chunks(s, chunks, [&](int c, Index b, Index e) {
      double* buf = bufs[static_cast<std::size_t>(c)].data();
      for (Index a = b; a < e; ++a) {
        rows_.for_each(a, [&](Index j, double v) { buf[j] += v; });
        for (Index k = 0; k <= a; ++k) theta(a, k) = rows_.dot(k, buf);
        rows_.for_each(a, [&](Index j, double) { buf[j] = 0.0; });
      }
    });
    for (Index a = 0; a < s; ++a) theta(a, a) += e_[static_cast<std::size_t>(a)];
    llt_.compute(theta.selfadjointView<Eigen::Lower>());
  }

  // Dense rows: Theta = sum over column blocks B (s x kDenseBlockCols, gathered) of B B^T, a
  // symmetric rank update (BLAS-3 speed, O(s * 256) extra memory instead of a copy of Q_T).
  void build_direct_dense(Eigen::MatrixXd& theta) {
    const Index s = rows_.size();
    const Index u = rows_.cols();
    theta.setZero();
    const Index bc = std::min<Index>(kDenseBlockCols, std::max<Index>(u, 1));
    Eigen::MatrixXd block(s, bc);
    for (Index j0 = 0; j0 < u; j0 += bc) {
      const Index nc = std::min<Index>(bc, u - j0);
      for (Index a = 0; a < s; ++a) rows_.gather(a, j0, nc, &block(a, 0), s);
      theta.selfadjointView<Eigen::Lower>().rankUpdate(block.leftCols(nc));
    }
    for (Index a = 0; a < s; ++a) theta(a, a) += e_[static_cast<std::size_t>(a)];
    llt_.compute(theta.selfadjointView<Eigen::Lower>());
  }

  // M = I + sum_a z_a z_a^T / e_a (u x u). In the data's own columns (u = n) the solver's
  // WoodburyMatrix moves the previous M to this T; renumbered rows build it here.
  void build_woodbury(WoodburyMatrix<V>* kept) {
    if (kept != nullptr && rows_.cols() == X_.cols) {
      llt_.compute(kept->update(X_, y_, rows_.set(), e_).template selfadjointView<Eigen::Lower>());
      return;
    }
    const Index s = rows_.size();
    Eigen::MatrixXd m = Eigen::MatrixXd::Identity(rows_.cols(), rows_.cols());
    std::vector<std::pair<Index, double>> list(static_cast<std::size_t>(s));
    for (Index a = 0; a < s; ++a)
      list[static_cast<std::size_t>(a)] = {a, 1.0 / e_[static_cast<std::size_t>(a)]};
    add_outer_products(m, list, is_csr_view<V>::value,
                       [&](Index a, auto&& fn) { rows_.for_each(a, fn); });
    llt_.compute(m.selfadjointView<Eigen::Lower>());
  }

  // Theta^{-1} = E^{-1} - E^{-1} Z M^{-1} Z^T E^{-1}, Z = Q_T^T (rows z_a).
  void solve_woodbury(const Eigen::VectorXd& rhs, Eigen::VectorXd& out) {
    const Index s = rows_.size();
    Eigen::VectorXd ut(rows_.cols());
    ut.setZero();
    for (Index a = 0; a < s; ++a)
      rows_.axpy(a, rhs(a) / e_[static_cast<std::size_t>(a)], ut.data());
    const Eigen::VectorXd t = llt_.solve(ut);
    out.resize(s);
    for (Index a = 0; a < s; ++a)
      out(a) = (rhs(a) - rows_.dot(a, t.data())) / e_[static_cast<std::size_t>(a)];
  }

  // out = Theta p: t = Q_T p (u entries), then out_a = <z_a, t> + e_a p_a.
  void apply(const Eigen::VectorXd& p, Eigen::VectorXd& out, std::vector<double>& t) const {
    const Index s = rows_.size();
    std::fill(t.begin(), t.end(), 0.0);
    for (Index a = 0; a < s; ++a)
      if (p(a) != 0.0) rows_.axpy(a, p(a), t.data());
    parallel_for(s, n_threads_, [&](Index a) {
      out(a) = rows_.dot(a, t.data()) + e_[static_cast<std::size_t>(a)] * p(a);
    });
  }

  // Each iteration sweeps T's rows twice; the callbacks are polled once per iteration.
  void solve_cg(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
    const Index s = rhs.size();
    std::vector<double> t(static_cast<std::size_t>(rows_.cols()));
    x.setZero(s);
    Eigen::VectorXd r = rhs, p = rhs, q(s);
    double rr = r.squaredNorm();
    const double stop = cg_tol_ * cg_tol_ * rr;  // ||r|| <= cg_tol ||r0||, as TRON's cg_tol
    for (long long it = 0; it < max_cg_ && rr > stop && rr > 0.0; ++it) {
      if (cb_.poll()) {
        interrupted_ = true;
        break;
      }
      apply(p, q, t);
      const double a = rr / p.dot(q);
      x += a * p;
      r -= a * q;
      const double rr_new = r.squaredNorm();
      p = r + (rr_new / rr) * p;
      rr = rr_new;
      ++cg_iterations_;
    }
  }

  const V& X_;
  const double* y_;
  Mode mode_;
  WorkingRows<V> rows_;
  const std::vector<double>& e_;
  int n_threads_;
  const Callbacks& cb_;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  double cg_tol_ = 1e-5;
  long long max_cg_ = 0;
  long long cg_iterations_ = 0;
  bool interrupted_ = false;
};

// The state of one iterate that the best-iterate bookkeeping keeps (O(s)): w is rebuilt
// from (support, alpha_S) on restore, in the order it was computed, so it is bit-identical.
struct Snapshot {
  std::vector<Index> T;        // the working set selected at this iterate
  std::vector<Index> support;  // where alpha may be nonzero (the T of the step that made it)
  std::vector<double> alpha_S;
  double mu = 0.0, bias = 0.0, accuracy = -1.0, optimality = kNaN, objective = kNaN;
};

// One NSSVM solve. run() is the algorithm box's loop; each step below is one of its lines.
template <class V>
class Nssvm {
 public:
  // n_features: the n of the paper's formulas (s0, the scaled tol): X's own, also when X is
  // the view of its nonempty columns (solve_nssvm).
  Nssvm(const V& X, const double* y, const NssvmOptions& opt, const Callbacks& cb, Index n_features)
      : X_(X),
        y_(y),
        opt_(opt),
        cb_(cb),
        m_(X.rows),
        n_(X.cols),
        n_formula_(n_features),
        // Threads only pay off for long passes: on a busy machine every parallel region can
        // cost a scheduler time slice, which dominates short passes.
        threads_(X.rows >= opt.parallel_min_rows ? resolve_threads(opt.n_threads) : 1) {
    count_labels();
    C_ = opt.C;
    c_ = opt.c > 0.0 ? opt.c : opt.c_ratio * C_;
    if (!(c_ > 0.0) || c_ > C_) throw_invalid("nssvm: c must satisfy 0 < c <= C");
    eta_ = opt.eta > 0.0 ? opt.eta : std::min(1.0 / static_cast<double>(m_), opt.eta_max);
    s_ = opt.s0 > 0 ? std::min<long long>(opt.s0, m_)
                    : nssvm_default_s0(m_, n_formula_, opt.s0_scale);
    out_.s0 = s_;
    out_.eta = eta_;
    out_.c = c_;
  }

  SolveResult run();

 private:
  double e_of(double a) const { return a >= 0.0 ? 1.0 / C_ : 1.0 / c_; }

  // Labels: both classes must be present (the constraint <alpha, y> = 0 needs them).
  void count_labels() {
    for (Index i = 0; i < m_; ++i) {
      if (y_[i] == 1.0)
        ++n_pos_;
      else if (y_[i] == -1.0)
        ++n_neg_;
      else
        throw_invalid("nssvm: labels y must be -1 or +1 (entry " + std::to_string(i) + " is " +
                      std::to_string(y_[i]) + ")");
    }
    if (n_pos_ == 0 || n_neg_ == 0) throw_invalid("nssvm: y must contain both classes (-1 and +1)");
  }

  // Initial point z0 = (0, mu0), mu0 the sign of the majority class (the empty classifier
  // predicting the majority), and a class-balanced T0: with alpha = 0 every |g_i| is 0 or 2,
  // so the top-s rule would pick one class only. Indices are spread evenly over each class,
  // which does not depend on how the rows are ordered within a class beyond their positions.
  void initial_point() {
    alpha_.assign(static_cast<std::size_t>(m_), 0.0);
    g_.resize(static_cast<std::size_t>(m_));
    work_.resize(static_cast<std::size_t>(m_));
    std::vector<Index> pos, neg;
    pos.reserve(static_cast<std::size_t>(n_pos_));
    neg.reserve(static_cast<std::size_t>(n_neg_));
    for (Index i = 0; i < m_; ++i) (y_[i] > 0 ? pos : neg).push_back(i);
    Index kp = std::min<Index>(n_pos_, (s_ + 1) / 2);
    const Index kn = std::min<Index>(n_neg_, s_ - kp);
    kp = std::min<Index>(n_pos_, s_ - kn);
    const auto spread = [&](const std::vector<Index>& L, Index k) {
      const Index N = static_cast<Index>(L.size());
      for (Index j = 0; j < k; ++j) T_.push_back(L[static_cast<std::size_t>(j * N / k)]);
    };
    spread(pos, kp);
    spread(neg, kn);
    std::sort(T_.begin(), T_.end());
    mu_ = n_pos_ >= n_neg_ ? 1.0 : -1.0;
    for (Index i = 0; i < m_; ++i) g_[i] = -1.0 + mu_ * y_[i];
    // One spare slot: the solution is w followed by the bias, moved out without a copy.
    w_.reserve(static_cast<std::size_t>(n_) + 1);
    w_.assign(static_cast<std::size_t>(n_), 0.0);
    bias_ = mu_;
    accuracy_ = static_cast<double>(mu_ > 0 ? n_pos_ : n_neg_) / static_cast<double>(m_);
  }

  // ||F(z; T)|| of eq. 6.
  double f_norm() const {
    double gT = 0.0, aT = 0.0, ay = 0.0;
    for (Index i : T_) {
      gT += g_[i] * g_[i];
      aT += alpha_[i] * alpha_[i];
      ay += alpha_[i] * y_[i];
    }
    return std::sqrt(gT + std::max(0.0, alpha_sq_ - aT) + ay * ay);
  }

  // T <- the s largest |alpha - eta g| (ties: smaller index first), sorted; O(m) on average.
  // work_[i] holds the keys (filled by the gradient pass); all are finite (checked there).
  void select(long long s_new) {
    if (s_new >= m_) {
      T_.resize(static_cast<std::size_t>(m_));
      for (Index i = 0; i < m_; ++i) T_[i] = i;
      return;
    }
    std::nth_element(work_.begin(), work_.begin() + (s_new - 1), work_.end(),
                     std::greater<double>());
    const double thr = work_[static_cast<std::size_t>(s_new - 1)];
    // Keys above the threshold are all taken; among keys equal to it, the smallest indices.
    T_.clear();
    ties_.clear();
    for (Index i = 0; i < m_; ++i) {
      const double key = std::abs(alpha_[i] - eta_ * g_[i]);
      if (key > thr)
        T_.push_back(i);
      else if (key == thr)
        ties_.push_back(i);
    }
    ties_.resize(static_cast<std::size_t>(s_new) - T_.size());
    if (!ties_.empty()) {
      const std::size_t mid = T_.size();
      T_.insert(T_.end(), ties_.begin(), ties_.end());
      std::inplace_merge(T_.begin(), T_.begin() + static_cast<std::ptrdiff_t>(mid), T_.end());
    }
  }

  void keep_snapshot(double fnorm, const std::vector<Index>& stepped) {
    best_.T = T_;
    best_.support = stepped;
    best_.alpha_S.resize(stepped.size());
    for (std::size_t a = 0; a < stepped.size(); ++a) best_.alpha_S[a] = alpha_[stepped[a]];
    best_.mu = mu_;
    best_.bias = bias_;
    best_.accuracy = accuracy_;
    best_.optimality = fnorm;
    best_.objective = objective_;
  }

  // Newton step on T (eq. 7 / eq. 9): alpha_{T^c} <- 0, (alpha_T, mu) += (d_T, d_mu).
  // Returns false when the step is not finite (numerical error) or was interrupted; alpha and
  // mu are then unchanged.
  bool newton_step(long long& inner) {
    const Index sT = static_cast<Index>(T_.size());
    std::vector<double> eT(static_cast<std::size_t>(sT));
    Eigen::VectorXd gT(sT), yT(sT), u, v;
    double ay = 0.0;
    for (Index a = 0; a < sT; ++a) {
      const Index i = T_[static_cast<std::size_t>(a)];
      eT[static_cast<std::size_t>(a)] = e_of(alpha_[i]);
      gT(a) = g_[i];
      yT(a) = y_[i];
      ay += alpha_[i] * y_[i];
    }
    {
      WorkingSetSystem<V> sys(X_, y_, T_, eT, opt_, threads_, cb_, renumbering_, &woodbury_);
      sys.solve(gT, u);
      if (!sys.interrupted()) sys.solve(yT, v);
      inner = sys.cg_iterations();
      if (sys.interrupted()) {
        status_ = SolverStatus::interrupted;
        return false;
      }
    }
    const double d_mu = (ay - yT.dot(u)) / yT.dot(v);
    std::vector<double> alpha_T(static_cast<std::size_t>(sT));
    bool finite = std::isfinite(d_mu) && std::isfinite(mu_ + d_mu);
    for (Index a = 0; a < sT; ++a) {
      const double t = alpha_[T_[static_cast<std::size_t>(a)]] - (u(a) + d_mu * v(a));
      alpha_T[static_cast<std::size_t>(a)] = t;
      finite = finite && std::isfinite(t);
    }
    if (!finite) {
      status_ = SolverStatus::numerical_error;
      return false;
    }
    for (Index i : support_prev_) alpha_[i] = 0.0;  // alpha_{T^c} <- 0 (alpha lives on the last T)
    alpha_sq_ = 0.0;
    for (Index a = 0; a < sT; ++a) {
      alpha_[T_[static_cast<std::size_t>(a)]] = alpha_T[static_cast<std::size_t>(a)];
      alpha_sq_ += alpha_T[static_cast<std::size_t>(a)] * alpha_T[static_cast<std::size_t>(a)];
    }
    support_prev_ = T_;
    mu_ += d_mu;
    return true;
  }

  // w = Q_S alpha_S over the support list S, in its order (O(nnz(X_S)) for CSR, O(|S| n)
  // dense). For CSR only the entries of the rows that built the previous w are cleared: on
  // d >> n data an O(n) fill per iteration would dominate the iteration (2000 x 10^6).
  void primal_from(const std::vector<Index>& S) {
    if constexpr (is_csr_view<V>::value) {
      for (Index i : w_rows_) for_each_in_row(X_, i, [&](Index j, double) { w_[j] = 0.0; });
    } else {
      std::fill(w_.begin(), w_.end(), 0.0);
    }
    w_rows_.clear();
    for (Index i : S)
      if (alpha_[i] != 0.0) {
        row_axpy(X_, i, alpha_[i] * y_[i], w_.data());
        w_rows_.push_back(i);
      }
  }

  // w, D(alpha) and the refined bias b' = mean_T (y_i - <w, x_i>) of the paper.
  double primal_update() {
    primal_from(T_);
    // ||w||^2 = <w, Q_T alpha_T> = sum_T alpha_i y_i <x_i, w>: no O(n) sweep over w.
    double b2 = 0.0, hsum = 0.0, asum = 0.0, wsq = 0.0;
    for (Index i : T_) {
      const double xw = row_dot(X_, i, w_.data());
      b2 += y_[i] - xw;
      wsq += alpha_[i] * y_[i] * xw;
      hsum += 0.5 * alpha_[i] * alpha_[i] * e_of(alpha_[i]);
      asum += alpha_[i];
    }
    b2 /= static_cast<double>(std::max<Index>(1, static_cast<Index>(T_.size())));
    wsq = std::max(0.0, wsq);
    objective_ = 0.5 * wsq + hsum - asum;
    return b2;
  }

  // One pass: g = Q^T w - 1 + E alpha + mu y, the selection keys, and the training accuracy
  // of the biases mu and b2 (the better one is kept when refine_bias). Returns false when a
  // key is not finite (numerical error; the selection could not rank it).
  bool gradient_pass(double b2) {
    if constexpr (is_col_major<V>::value) matvec(X_, w_.data(), work_.data(), threads_);
    const int chunks = reduction_chunks(m_, threads_);
    std::vector<Index> ok_mu(static_cast<std::size_t>(chunks), 0),
        ok_b2(static_cast<std::size_t>(chunks), 0);
    std::vector<char> bad(static_cast<std::size_t>(chunks), 0);
    parallel_chunks(m_, chunks, [&](int ch, Index b, Index e) {
      Index c1 = 0, c2 = 0;
      bool nonfinite = false;
      for (Index i = b; i < e; ++i) {
        double xw;
        if constexpr (is_col_major<V>::value)
          xw = work_[i];
        else
          xw = row_dot(X_, i, w_.data());
        const double yi = y_[i];
        g_[i] = yi * xw - 1.0 + mu_ * yi + (alpha_[i] != 0.0 ? e_of(alpha_[i]) * alpha_[i] : 0.0);
        work_[i] = std::abs(alpha_[i] - eta_ * g_[i]);  // selection key of the next T
        nonfinite = nonfinite || !std::isfinite(work_[i]);
        c1 += ((xw + mu_ > 0.0) == (yi > 0.0));
        c2 += ((xw + b2 > 0.0) == (yi > 0.0));
      }
      ok_mu[static_cast<std::size_t>(ch)] = c1;
      ok_b2[static_cast<std::size_t>(ch)] = c2;
      bad[static_cast<std::size_t>(ch)] = nonfinite ? 1 : 0;
    });
    ++res_.passes;
    Index n_ok_mu = 0, n_ok_b2 = 0;
    bool finite = true;
    for (int ch = 0; ch < chunks; ++ch) {
      n_ok_mu += ok_mu[static_cast<std::size_t>(ch)];
      n_ok_b2 += ok_b2[static_cast<std::size_t>(ch)];
      finite = finite && !bad[static_cast<std::size_t>(ch)];
    }
    bias_ = mu_;
    accuracy_ = static_cast<double>(n_ok_mu) / static_cast<double>(m_);
    if (opt_.refine_bias && n_ok_b2 > n_ok_mu) {
      bias_ = b2;
      accuracy_ = static_cast<double>(n_ok_b2) / static_cast<double>(m_);
    }
    return finite && std::isfinite(objective_);
  }

  // Sparsity-level tuning (the paper's, r = tune_ratio): every tune_every iterations and when
  // forced by a converged level, at most max_tunes times.
  void maybe_tune(bool force) {
    if (opt_.tune && tunes_ < opt_.max_tunes && s_ < m_ &&
        (force || (opt_.tune_every > 0 && iter_ % opt_.tune_every == 0))) {
      s_ = std::min<long long>(
          m_, static_cast<long long>(std::ceil(opt_.tune_ratio * static_cast<double>(s_))));
      ++tunes_;
    }
  }

  // The residual test of the stopping rule: the listing's ||F||^2 / (m n) <= tol sqrt(s)
  // log10(m) with the accuracy settled (|ACC_k - ACC_{k-1}| <= acc_tol, from the second
  // iteration on) when scaled_tol, else ||F|| <= tol (a fixed point of the iteration). The
  // absolute test is scale dependent: on features scaled 1 .. 1000 (16000 x 20, C = 100 or
  // 1000) ||F|| is still ~ 7 or ~ 1e-4 after 300 iterations at an unchanged accuracy.
  bool residual_small(double fnorm) const {
    if (fnorm <= opt_.tol) return true;  // a fixed point: nothing can change any more
    if (!opt_.scaled_tol) return false;
    const double mn = static_cast<double>(m_) * static_cast<double>(n_formula_);
    const double bound =
        opt_.tol * std::sqrt(static_cast<double>(T_.size())) * std::log10(static_cast<double>(m_));
    return iter_ >= 2 && fnorm * fnorm <= bound * mn &&
           std::abs(accuracy_ - acc_prev_) <= opt_.acc_tol;
  }

  // Whether the solve stops at a small residual. With tuning, s grows while that still pays: on
  // the first convergence, and afterwards while the accuracy improved by more than acc_tol
  // over the level before (the box's |ACC - MaxACC| test, MaxACC of earlier levels).
  bool converged_at_level(bool& force_tune) {
    const bool improving = tunes_ == 0 || accuracy_ > acc_last_level_ + opt_.acc_tol;
    if (opt_.tune && improving && tunes_ < opt_.max_tunes && s_ < m_) {
      force_tune = true;
      acc_last_level_ = std::max(acc_last_level_, accuracy_);
      return false;
    }
    return true;
  }

  // One IterationRecord; false when the on_iteration callback asks to stop.
  bool record(double fnorm, long long inner, bool changed, double seconds) {
    if (!opt_.record_history && !cb_.on_iteration) return true;
    IterationRecord rec;
    rec.iteration = iter_;
    rec.objective = objective_;
    rec.optimality = fnorm;
    rec.step = accuracy_;  // training accuracy of the iterate (also in accuracy_history)
    rec.inner_iterations = inner;
    rec.active_size = static_cast<long long>(T_.size());
    rec.passes = res_.passes;
    rec.time = seconds;
    rec.accepted = changed;  // whether the working set changed
    if (opt_.record_history) {
      res_.history.push_back(rec);
      out_.accuracy_history.push_back(accuracy_);
      out_.bias_history.push_back(bias_);
    }
    return !(cb_.on_iteration && !cb_.on_iteration(rec));
  }

  // keep_best: the most accurate iterate replaces the last one when better by acc_tol.
  void restore_best(double& fnorm) {
    out_.returned_best = true;
    T_ = best_.T;
    std::fill(alpha_.begin(), alpha_.end(), 0.0);
    for (std::size_t a = 0; a < best_.support.size(); ++a)
      alpha_[best_.support[a]] = best_.alpha_S[a];
    primal_from(best_.support);
    mu_ = best_.mu;
    bias_ = best_.bias;
    accuracy_ = best_.accuracy;
    fnorm = best_.optimality;
    objective_ = best_.objective;
  }

  void search_bias();

  const V& X_;
  const double* y_;
  const NssvmOptions& opt_;
  const Callbacks& cb_;
  Index m_, n_, n_formula_;
  int threads_;
  Index n_pos_ = 0, n_neg_ = 0;
  double C_ = 0.0, c_ = 0.0, eta_ = 0.0;
  long long s_ = 0, iter_ = 0, tunes_ = 0;
  std::vector<double> alpha_, g_, work_, w_;    // work_: selection keys / X w (col-major)
  std::vector<Index> T_, ties_, support_prev_;  // support_prev_: where alpha may be nonzero
  std::vector<Index> w_rows_;                   // the rows that built w (CSR: what to clear)
  Renumbering renumbering_;                     // CSR column renumbering of the last T
  WoodburyMatrix<V> woodbury_;                  // the Woodbury matrix of the last T (s > n)
  double mu_ = 0.0, bias_ = 0.0, accuracy_ = 0.0, objective_ = 0.0;
  double alpha_sq_ = 0.0;        // ||alpha||^2, for ||alpha_{T^c}|| in F
  double acc_last_level_ = 0.0;  // best accuracy reached at the levels before the current
  double acc_prev_ = 0.0;        // training accuracy of the iterate before the current one
  long long rise_iter_ = 0;      // last iteration that raised the best accuracy by > acc_tol
  SolverStatus status_ = SolverStatus::max_iter;
  Snapshot best_;
  SolveResult res_;
  NssvmExtras out_;
};

template <class V>
SolveResult Nssvm<V>::run() {
  const auto t0 = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  initial_point();
  double fnorm = f_norm();
  bool force_tune = false;
  while (true) {
    if (residual_small(fnorm) && converged_at_level(force_tune)) {
      status_ = SolverStatus::converged;
      break;
    }
    if (opt_.stall_iter > 0 && iter_ - rise_iter_ >= opt_.stall_iter) {
      status_ = SolverStatus::converged;
      res_.message = "the best training accuracy did not rise for stall_iter iterations";
      break;
    }
    if (iter_ >= opt_.max_iter) break;
    if (cb_.poll()) {
      status_ = SolverStatus::interrupted;
      break;
    }
    ++iter_;
    acc_prev_ = accuracy_;
    long long inner = 0;
    const bool stepped = newton_step(inner);
    res_.inner_iterations += inner;
    if (!stepped) break;  // status_ says why
    const double b2 = primal_update();
    if (!gradient_pass(b2)) {
      status_ = SolverStatus::numerical_error;
      break;
    }
    const std::vector<Index> T_prev = T_;
    maybe_tune(force_tune);
    force_tune = false;
    select(s_);
    fnorm = f_norm();
    if (!std::isfinite(fnorm)) {
      status_ = SolverStatus::numerical_error;
      break;
    }
    if (accuracy_ > best_.accuracy + opt_.acc_tol) rise_iter_ = iter_;
    if (accuracy_ >= best_.accuracy) keep_snapshot(fnorm, T_prev);
    if (!record(fnorm, inner, T_ != T_prev, elapsed())) {
      status_ = SolverStatus::interrupted;
      break;
    }
  }
  // The returned point: the last iterate, or the most accurate one (keep_best). After a
  // numerical error the last finite iterate is the best one kept, if any.
  out_.best_accuracy = std::max(best_.accuracy, accuracy_);
  const bool failed = status_ == SolverStatus::numerical_error;
  if (opt_.keep_best && best_.accuracy >= 0.0 &&
      (failed || best_.accuracy > accuracy_ + opt_.acc_tol))
    restore_best(fnorm);
  if (opt_.bias_search && iter_ > 0 && !failed) search_bias();
  for (Index i = 0; i < m_; ++i)
    if (alpha_[i] != 0.0) {
      out_.support.push_back(i);
      out_.alpha.push_back(alpha_[i]);
    }
  out_.working_set = T_;
  out_.mu = mu_;
  out_.bias = bias_;
  out_.accuracy = accuracy_;
  out_.s = s_;
  res_.status = status_;
  res_.objective = objective_;
  res_.optimality = fnorm;
  res_.iterations = iter_;
  res_.solution = std::move(w_);
  res_.solution.push_back(bias_);
  res_.time = elapsed();
  res_.extras = std::move(out_);
  return std::move(res_);
}

// Exact 1-D search of the bias maximizing the training accuracy of w: sort the decision
// values <w, x_i>, scan the cuts between distinct values, keep a strictly better one
// (closest to the current bias among equals). Replaces the listing's descent on a step
// function; O(m log m) once. Skipped when a decision value is not finite (a sort over NaN
// is undefined and the scan would not advance).
template <class V>
void Nssvm<V>::search_bias() {
  matvec(X_, w_.data(), work_.data(), threads_);
  ++res_.passes;
  if (cb_.poll()) return;
  // Decision values of each class, sorted (the two sorts run in parallel); then a merge scan
  // over the distinct values: cutting just above value v predicts negative for all values
  // <= v, so the correct count is #negatives <= v + #positives > v.
  std::vector<double> pv, nv;
  pv.reserve(static_cast<std::size_t>(n_pos_));
  nv.reserve(static_cast<std::size_t>(n_neg_));
  Index ok = 0;
  for (Index i = 0; i < m_; ++i) {
    if (!std::isfinite(work_[i])) return;
    (y_[i] > 0.0 ? pv : nv).push_back(work_[i]);
    ok += ((work_[i] + bias_ > 0.0) == (y_[i] > 0.0));
  }
  parallel_chunks(2, std::min(2, threads_), [&](int, Index b0, Index e0) {
    for (Index k = b0; k < e0; ++k) {
      auto& v = k == 0 ? pv : nv;
      std::sort(v.begin(), v.end());
    }
  });
  Index best_correct = ok;
  double best_b = bias_;
  std::size_t ip = 0, in = 0;
  const double inf = std::numeric_limits<double>::infinity();
  while (ip < pv.size() || in < nv.size()) {
    const double cur = std::min(ip < pv.size() ? pv[ip] : inf, in < nv.size() ? nv[in] : inf);
    while (ip < pv.size() && pv[ip] == cur) ++ip;
    while (in < nv.size() && nv[in] == cur) ++in;
    if (ip == pv.size() && in == nv.size()) break;  // cutting above the largest: trivial
    const double nxt = std::min(ip < pv.size() ? pv[ip] : inf, in < nv.size() ? nv[in] : inf);
    const Index correct = static_cast<Index>(in + (pv.size() - ip));
    const double b = -0.5 * (cur + nxt);
    if (correct > best_correct || (correct == best_correct && best_correct > ok &&
                                   std::abs(b - bias_) < std::abs(best_b - bias_))) {
      best_correct = correct;
      best_b = b;
    }
  }
  if (best_correct > ok) {
    bias_ = best_b;
    accuracy_ = static_cast<double>(best_correct) / static_cast<double>(m_);
  }
}

}  // namespace

long long nssvm_default_s0(Index m, Index n, double s0_scale) {
  if (m <= n) return m;
  const double l = std::log(static_cast<double>(m) / static_cast<double>(n));
  const double s0 = std::ceil(s0_scale * static_cast<double>(n) * l * l);
  return std::min<long long>(m, std::max<long long>(2, static_cast<long long>(s0)));
}

void validate_options(const NssvmOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_NSSVM_OPTIONS, "nssvm", o);
  if (o.c > o.C) throw_invalid("nssvm option 'c' must be <= C (or <= 0 for c_ratio * C)");
}

SolveResult solve_nssvm(const MatrixView& X, const double* y, const NssvmOptions& options,
                        const Callbacks& callbacks) {
  validate_options(options);
  if (options.check_input) {
    validate_view(X, "X");
    validate_finite(X, "X");
  }
  if (rows_of(X) < 2) throw_invalid("nssvm: X needs at least 2 samples");
  if (cols_of(X) < 1) throw_invalid("nssvm: X needs at least 1 feature");
  if (y == nullptr) throw_invalid("nssvm: y is missing");
  return std::visit(
      [&](const auto& v) {
        // On sparse text with n >> m the nonempty columns (kept_columns.hpp) carry the whole
        // problem; the formulas keep X's n.
        return detail::solve_on_kept_columns(v, nullptr, 1, [&](const auto& kv, const double*) {
          Nssvm<std::decay_t<decltype(kv)>> solver(kv, y, options, callbacks, cols_of(X));
          return solver.run();
        });
      },
      X);
}

}  // namespace svmkit
