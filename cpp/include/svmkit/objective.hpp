// Objective kernels over a data view: value, gradient, Hessian-vector product and Hessian
// diagonal of F(w, b) (see problem.hpp), each in a single sweep over X for row-major and
// CSR data (two for column-major). Every sweep increments passes().
//
// fun_grad() evaluates at a trial point and keeps the per-sample curvature D_i = cost_i *
// loss''(u_i) in a trial buffer; accept() makes the trial point current. hess_vec() uses the
// current point's D, so a rejected trial step never corrupts it (TRON needs this).
//
// hess_vec() forms H s in one of two ways (HessianForm). A product is a pass over the rows of
// non-zero curvature; when the dimension is small (dim^2 at most the stored entries of X and
// dim <= kMaxAssembledDim) H can instead be assembled once at a point (X~^T D X~, dense, one
// pass) and each product is then a dim x dim multiply. CG asks for 5-20 products per Newton
// step, so on data with few features the assembly saves most of the passes (mushrooms,
// 6,499 x 112: 221 passes, 11 Newton steps). `automatic` assembles when the products at a
// point are expected to cost more than the assembly, both estimated in stored entries: at the
// first point once the products there have cost as much as the assembly (at most twice the
// better choice made in hindsight), at later points at the first product when the last
// point's count of products (consecutive Newton steps need similar CG counts) would cost
// kAssemblyMargin times the assembly. The two forms give the same products up to rounding.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/detail/assembled_hessian.hpp"
#include "svmkit/loss.hpp"
#include "svmkit/problem.hpp"

namespace svmkit {

// How LinearObjective::hess_vec forms H s (see above).
enum class HessianForm {
  automatic,  // assemble H when the products at a point would cost more than assembling it
  products,   // one pass over the curved rows of X per product
  assembled,  // assemble H at every point that asks for a product (where the size allows)
};

// The largest dimension (features + bias) whose Hessian may be assembled: 8 MB of doubles.
// The Hessian is also never larger than the stored entries of X.
constexpr Index kMaxAssembledDim = 1024;
// Cost of one entry pair of the assembly, in units of one stored entry of a product pass:
// dense rows go through a blocked rank-k update (several multiply-adds per load), sparse
// rows through scattered adds.
// Measured on one core: CSR 0.54-0.67 ns per pair against 0.6-0.66 ns per entry of a product
// (mushrooms, dna.scale); dense 0.17 ns against 0.29-0.45 (80,000 x 50, 20,000 x 16; Eigen's
// rank-k update at this build's SSE2 width).
constexpr double kDensePairCost = 0.5;
constexpr double kSparsePairCost = 1.0;
// Cost of one entry of an assembled product (the dim x dim symmetric multiply), in the same
// unit: 0.13-0.21 ns per entry at dim 55-1024 (Eigen, one core) against 0.6 ns per entry of a
// CSR product pass and 0.29-0.45 ns of a dense one. Counting it as a whole entry undervalued
// the assembly wherever few rows keep curvature (hessian_cutoff): on dna.scale's psi_M, one
// thread, "assembled" took 47.6 ms, "products" 54.0 and auto 62.5 (52-53 ms with this cost).
constexpr double kAssembledProductCost = 0.3;
// Past the first point the assembly must be expected to save this multiple of its cost (the
// expected product count is a guess; a wrong guess costs the difference).
constexpr double kAssemblyMargin = 1.5;
// fun_grad skips the rows without slope and curvature when at least this share of the rows
// were such at the last evaluation (the test is then predictable).
constexpr double kFlatRowShare = 0.75;

template <class V, class L>
class LinearObjective {
 public:
  LinearObjective(const V& X, const L& loss, const LinearProblem& p, bool classification,
                  int n_threads)
      : X_(X),
        loss_(loss),
        y_(p.y),
        cost_(p.cost),
        fit_intercept_(p.fit_intercept),
        scale_(p.intercept_scaling),
        reg_b_(p.regularize_intercept),
        classification_(classification),
        n_threads_(resolve_threads(n_threads)),
        d_trial_(static_cast<std::size_t>(X.rows)),
        d_current_(static_cast<std::size_t>(X.rows)) {}

  Index dim() const { return X_.cols + (fit_intercept_ ? 1 : 0); }
  Index n_features() const { return X_.cols; }
  Index n_samples() const { return X_.rows; }
  long long passes() const { return passes_; }
  int n_threads() const { return n_threads_; }

  // F(w) and its gradient at w; if hdiag is non-null, also diag of the Hessian at w.
  double fun_grad(const double* w, double* grad, double* hdiag) {
    const Index d = X_.cols;
    const double b = fit_intercept_ ? w[d] : 0.0;
    double loss_sum = 0.0, grad_b = 0.0, hdiag_b = 0.0;
    if constexpr (is_col_major<V>::value) {
      std::vector<double>& z = scratch_;
      z.resize(static_cast<std::size_t>(X_.rows));
      matvec(X_, w, z.data(), n_threads_);
      ++passes_;
      std::vector<double>& coef = scratch2_;
      coef.resize(static_cast<std::size_t>(X_.rows));
      for (Index i = 0; i < X_.rows; ++i) {
        double c1, c2;
        if (keep_z_) z_trial_[i] = z[i] + b * scale_;
        loss_sum += sample_terms(i, z[i] + b * scale_, &c1, &c2);
        coef[i] = c1;
        d_trial_[i] = c2;
        grad_b += c1;
        hdiag_b += c2;
      }
      const int col_threads = pass_chunks(X_, n_threads_) > 1 ? n_threads_ : 1;
      parallel_for(d, col_threads, [&](Index j) {
        const auto* col = X_.data + j * X_.ld;
        double g = 0.0, h = 0.0;
        for (Index i = 0; i < X_.rows; ++i) {
          const double x = static_cast<double>(col[i]);
          g += coef[i] * x;
          h += d_trial_[i] * x * x;
        }
        grad[j] = g + w[j];
        if (hdiag) hdiag[j] = h + 1.0;
      });
      ++passes_;
    } else {
      const int chunks = pass_chunks(X_, n_threads_);
      auto& gbufs = gbuf_.get(chunks, d);
      auto& hbufs = hbuf_.get(hdiag ? chunks : 0, d);
      std::vector<double> part(static_cast<std::size_t>(4 * chunks), 0.0);
      // Rows with neither slope nor curvature (the squared hinge beyond the margin) add
      // nothing; skipping them pays only when they are most rows (separable data): at about
      // half, interleaved with the others, the test mispredicts and cost 6-8% on sparse text.
      const bool skip_flat = flat_share_ >= kFlatRowShare;
      parallel_chunks(X_.rows, chunks, [&](int c, Index begin, Index end) {
        double* g = gbufs[c].data();
        double* h = hdiag ? hbufs[c].data() : nullptr;
        double lsum = 0.0, gb = 0.0, hb = 0.0, flat = 0.0;
        for (Index i = begin; i < end; ++i) {
          double c1, c2;
          const double zi = row_dot(X_, i, w) + b * scale_;
          if (keep_z_) z_trial_[i] = zi;
          lsum += sample_terms(i, zi, &c1, &c2);
          d_trial_[i] = c2;
          gb += c1;
          hb += c2;
          if (h) {
            const bool flat_row = (c1 == 0.0) & (c2 == 0.0);
            flat += flat_row ? 1.0 : 0.0;
            if (skip_flat && flat_row) continue;
            for_each_in_row(X_, i, [&](Index j, double x) {
              g[j] += c1 * x;
              h[j] += c2 * x * x;
            });
          } else if (c1 != 0.0) {
            row_axpy(X_, i, c1, g);
          }
        }
        part[4 * c] = lsum;
        part[4 * c + 1] = gb;
        part[4 * c + 2] = hb;
        part[4 * c + 3] = flat;
      });
      ++passes_;
      reduce_chunks(gbufs, chunks, d, grad, n_threads_);
      for (Index j = 0; j < d; ++j) grad[j] += w[j];
      if (hdiag) {
        reduce_chunks(hbufs, chunks, d, hdiag, n_threads_);
        for (Index j = 0; j < d; ++j) hdiag[j] += 1.0;
      }
      double flat = 0.0;
      for (int c = 0; c < chunks; ++c) {
        loss_sum += part[4 * c];
        grad_b += part[4 * c + 1];
        hdiag_b += part[4 * c + 2];
        flat += part[4 * c + 3];
      }
      if (hdiag && X_.rows > 0) flat_share_ = flat / static_cast<double>(X_.rows);
    }
    double reg = 0.0;
    for (Index j = 0; j < d; ++j) reg += w[j] * w[j];
    if (fit_intercept_) {
      grad[d] = grad_b * scale_ + (reg_b_ ? b : 0.0);
      if (hdiag) hdiag[d] = hdiag_b * scale_ * scale_ + (reg_b_ ? 1.0 : 0.0);
      if (reg_b_) reg += b * b;
    }
    return 0.5 * reg + loss_sum;
  }

  // F(w) alone (one pass, no gradient work).
  double fun(const double* w) {
    const Index d = X_.cols;
    const double b = fit_intercept_ ? w[d] : 0.0;
    const int chunks = pass_chunks(X_, n_threads_);
    std::vector<double> part(static_cast<std::size_t>(chunks), 0.0);
    parallel_chunks(X_.rows, chunks, [&](int c, Index begin, Index end) {
      double s = 0.0;
      for (Index i = begin; i < end; ++i) s += sample_value(i, row_dot(X_, i, w) + b * scale_);
      part[c] = s;
    });
    ++passes_;
    double loss_sum = 0.0;
    for (double s : part) loss_sum += s;
    double reg = 0.0;
    for (Index j = 0; j < d; ++j) reg += w[j] * w[j];
    if (fit_intercept_ && reg_b_) reg += b * b;
    return 0.5 * reg + loss_sum;
  }

  // The loss part sum_i cost_i loss(u_i) of F at w (one pass, no regularizer); with `active`,
  // also the number of samples of positive loss (the hinge's margin violators). For solvers
  // that weight the regularizer themselves (sgd, homotopy).
  double loss_sum(const double* w, Index* active = nullptr) {
    const double b = fit_intercept_ ? w[X_.cols] : 0.0;
    const int chunks = pass_chunks(X_, n_threads_);
    std::vector<double> part(static_cast<std::size_t>(chunks), 0.0);
    std::vector<Index> count(static_cast<std::size_t>(chunks), 0);
    parallel_chunks(X_.rows, chunks, [&](int c, Index begin, Index end) {
      double s = 0.0;
      Index k = 0;
      for (Index i = begin; i < end; ++i) {
        const double z = row_dot(X_, i, w) + b * scale_;
        const double v = loss_.value(classification_ ? y_[i] * z : z - y_[i]);
        s += cost_[i] * v;
        k += v > 0.0 ? 1 : 0;
      }
      part[c] = s;
      count[c] = k;
    });
    ++passes_;
    double loss_sum = 0.0;
    Index k = 0;
    for (int c = 0; c < chunks; ++c) {
      loss_sum += part[c];
      k += count[c];
    }
    if (active) *active = k;
    return loss_sum;
  }

  // Makes the last fun_grad point the current one (its curvature is used by hess_vec), and
  // lists the rows of non-zero curvature: the row-major / CSR hess_vec visits only those (for
  // the squared hinge near a separating w, a small fraction of the rows, interleaved with the
  // others so that a per-row test would mispredict). The column-major hess_vec sweeps every
  // row and needs no list.
  void accept() {
    d_current_.swap(d_trial_);
    if (keep_z_) z_current_.swap(z_trial_);
    if (products_here_ > 0) products_before_ = products_here_;
    products_here_ = 0;
    list_curved_rows();
  }

  // How hess_vec forms its products (default automatic).
  void set_hessian_form(HessianForm form) {
    form_ = form;
    hess_ready_ = false;
  }
  // Number of times H was assembled so far.
  long long hessian_assemblies() const { return assemblies_; }

  // Rows below hessian_cutoff times the loss's largest loss'' leave hess_vec from now on
  // (loss.hpp's kept_curvature; the value, gradient and Hessian diagonal stay exact; 0, the
  // default: every row with curvature).
  void set_hessian_cutoff(double hessian_cutoff) {
    curvature_cut_ = hessian_cutoff * loss_.d2_max();
    list_curved_rows();
  }

  // out = H s with H = I_reg + X~^T D X~ at the current point (one pass; two column-major).
  void hess_vec(const double* s, double* out) {
    if (use_assembled()) {
      detail::symmetric_upper_product(hess_.data(), dim(), s, out);
      return;
    }
    const Index d = X_.cols;
    const double sb = fit_intercept_ ? s[d] : 0.0;
    double out_b = 0.0;
    if constexpr (is_col_major<V>::value) {
      std::vector<double>& t = scratch_;
      t.resize(static_cast<std::size_t>(X_.rows));
      matvec(X_, s, t.data(), n_threads_);
      for (Index i = 0; i < X_.rows; ++i) {
        t[i] = kept_curvature(d_current_[i], cost_[i], curvature_cut_) * (t[i] + sb * scale_);
        out_b += t[i];
      }
      rmatvec(X_, t.data(), out, n_threads_, gbuf_);
      passes_ += 2;
    } else {
      const int chunks = pass_chunks(X_, n_threads_);
      auto& bufs = gbuf_.get(chunks, d);
      std::vector<double> part(static_cast<std::size_t>(chunks), 0.0);
      const auto n_curved = static_cast<Index>(curved_rows_.size());
      parallel_chunks(n_curved, chunks, [&](int c, Index begin, Index end) {
        double* acc = bufs[c].data();
        double ob = 0.0;
        for (Index k = begin; k < end; ++k) {
          const Index i = curved_rows_[static_cast<std::size_t>(k)];
          const double a = d_current_[i] * (row_dot(X_, i, s) + sb * scale_);
          row_axpy(X_, i, a, acc);
          ob += a;
        }
        part[c] = ob;
      });
      ++passes_;
      reduce_chunks(bufs, chunks, d, out, n_threads_);
      for (double v : part) out_b += v;
    }
    for (Index j = 0; j < d; ++j) out[j] += s[j];
    if (fit_intercept_) out[d] = out_b * scale_ + (reg_b_ ? sb : 0.0);
  }

  // Decision values z_i = w.x_i + b * scale for all samples (one pass).
  void decision(const double* w, double* z) {
    matvec(X_, w, z, n_threads_);
    ++passes_;
    if (fit_intercept_) {
      const double bs = w[X_.cols] * scale_;
      for (Index i = 0; i < X_.rows; ++i) z[i] += bs;
    }
  }

  // Makes fun_grad keep the decision values of its point (accept() makes them current), for
  // line_loss. Costs two vectors of n_samples doubles, so only the line search asks for it.
  void keep_decision_values() {
    keep_z_ = true;
    z_trial_.resize(static_cast<std::size_t>(X_.rows));
    z_current_.resize(static_cast<std::size_t>(X_.rows));
  }

  // Along a direction s from the current point w (keep_decision_values), with dz = decision(s):
  // line_loss(dz, a) is the loss part of F at w + a s, line_slope(dz, a, ...) its first two
  // derivatives in a. O(n_samples), no pass over X, so a line search can afford many trial
  // steps; apart because a search needs the slopes at most trials and the value at few (each
  // costs transcendental functions per sample: the Gaussian-smoothed hinge's value is the
  // dearest).
  double line_loss(const double* dz, double a) {
    double v = 0.0;
    line_sums(dz, a, &v, nullptr, nullptr);
    return v;
  }
  void line_slope(const double* dz, double a, double* d1, double* d2) {
    line_sums(dz, a, nullptr, d1, d2);
  }

  // Along a direction s with dz = decision(s): sum_i D_i dz_i^2 over the rows hess_vec keeps
  // (*kept) and over all rows (*all), at the current point (O(n_samples), no pass over X). With
  // reg_dot(s, s) added, s'H~s and s'Hs.
  void curvature_along(const double* dz, double* kept, double* all) const {
    double k = 0.0, a = 0.0;
    for (Index i = 0; i < X_.rows; ++i) {
      const double d = d_current_[i], q = d * dz[i] * dz[i];
      a += q;
      if (kept_curvature(d, cost_[i], curvature_cut_) != 0.0) k += q;
    }
    *kept = k;
    *all = a;
  }

  // u.v over the regularized coordinates (w, and b when the intercept is regularized).
  double reg_dot(const double* u, const double* v) const {
    double s = 0.0;
    for (Index j = 0; j < X_.cols; ++j) s += u[j] * v[j];
    if (fit_intercept_ && reg_b_) s += u[X_.cols] * v[X_.cols];
    return s;
  }

 private:
  // Also estimates the costs of a product and of an assembly at this point (hess_vec).
  void list_curved_rows() {
    hess_ready_ = false;
    const double k_bias = fit_intercept_ ? 1.0 : 0.0;
    double entries = 0.0, pairs = 0.0;
    if constexpr (is_col_major<V>::value) {
      Index kept = 0;
      for (Index i = 0; i < X_.rows; ++i)
        if (kept_curvature(d_current_[i], cost_[i], curvature_cut_) != 0.0) ++kept;
      const double k = static_cast<double>(X_.cols) + k_bias;
      entries = static_cast<double>(X_.rows) * static_cast<double>(X_.cols);  // every row
      pairs = static_cast<double>(kept) * k * (k + 1.0) / 2.0;
    } else {
      // Sized exactly (a count first): push_back's doubling held up to twice the rows, and
      // every n_samples vector counts in a fit's peak memory.
      Index n_curved = 0;
      for (Index i = 0; i < X_.rows; ++i)
        n_curved += kept_curvature(d_current_[i], cost_[i], curvature_cut_) != 0.0 ? 1 : 0;
      curved_rows_.clear();
      if (static_cast<std::size_t>(n_curved) > curved_rows_.capacity()) {
        curved_rows_.shrink_to_fit();
        curved_rows_.reserve(static_cast<std::size_t>(n_curved));
      }
      for (Index i = 0; i < X_.rows; ++i) {
        if (kept_curvature(d_current_[i], cost_[i], curvature_cut_) == 0.0) continue;
        curved_rows_.push_back(i);
        const double k = static_cast<double>(row_entries(i)) + k_bias;
        entries += k;
        pairs += k * (k + 1.0) / 2.0;
      }
    }
    product_cost_ = 2.0 * entries + static_cast<double>(dim());
    assembly_cost_ = pairs * (is_csr_view<V>::value ? kSparsePairCost : kDensePairCost);
  }

  Index row_entries(Index i) const {
    if constexpr (is_csr_view<V>::value) {
      return static_cast<Index>(X_.indptr[i + 1] - X_.indptr[i]);
    } else {
      return X_.cols;
    }
  }

  // Whether this product uses the assembled H (assembling it first when the form says so).
  bool use_assembled() {
    const long long done = products_here_++;
    if (hess_ready_) return true;
    const Index n = dim();
    if (form_ == HessianForm::products || n > kMaxAssembledDim || n * n > stored_entries(X_))
      return false;
    if (form_ == HessianForm::automatic) {
      const double saved =
          product_cost_ - kAssembledProductCost * static_cast<double>(n) * static_cast<double>(n);
      const bool worth = products_before_ > 0
                             ? static_cast<double>(products_before_ - done) * saved >=
                                   kAssemblyMargin * assembly_cost_
                             : static_cast<double>(done) * product_cost_ >= assembly_cost_;
      if (!(saved > 0.0) || !worth) return false;
    }
    assemble_hessian();
    return true;
  }

  // hess_ = the upper triangle of I_reg + X~^T D X~ at the current point (one pass over the
  // rows with curvature).
  void assemble_hessian() {
    const Index d = X_.cols, n = dim();
    const std::size_t nn = static_cast<std::size_t>(n) * static_cast<std::size_t>(n);
    hess_.assign(nn, 0.0);
    const bool listed = !is_col_major<V>::value;
    const Index count = listed ? static_cast<Index>(curved_rows_.size()) : X_.rows;
    const Index by_work = std::max<Index>(1, static_cast<Index>(assembly_cost_) / kEntriesPerChunk);
    const int chunks =
        static_cast<int>(std::min<Index>(by_work, reduction_chunks(count, n_threads_)));
    detail::add_weighted_gram(
        X_, count, [&](Index k) { return listed ? curved_rows_[static_cast<std::size_t>(k)] : k; },
        [&](Index i) { return kept_curvature(d_current_[i], cost_[i], curvature_cut_); },
        fit_intercept_, scale_, chunks, n_threads_, abuf_, hess_.data());
    for (Index j = 0; j < d; ++j) hess_[static_cast<std::size_t>(j * n + j)] += 1.0;
    if (fit_intercept_ && reg_b_) hess_[static_cast<std::size_t>(d * n + d)] += 1.0;
    ++passes_;
    ++assemblies_;
    hess_ready_ = true;
  }

  // The sums of line_loss (value) and line_slope (d1, d2); a null pointer skips its sum.
  void line_sums(const double* dz, double a, double* value, double* d1, double* d2) {
    const int chunks = reduction_chunks(X_.rows / 16, n_threads_);  // ~16x cheaper than a row
    std::vector<double> part(static_cast<std::size_t>(3 * chunks), 0.0);
    parallel_chunks(X_.rows, chunks, [&](int c, Index begin, Index end) {
      double v = 0.0, g = 0.0, h = 0.0;
      for (Index i = begin; i < end; ++i) {
        const double z = z_current_[i] + a * dz[i];
        const double du = classification_ ? y_[i] * dz[i] : dz[i];
        const double u = classification_ ? y_[i] * z : z - y_[i];
        if (value) v += cost_[i] * loss_.value(u);
        if (d1) {
          g += cost_[i] * loss_.d1(u) * du;
          h += cost_[i] * loss_.d2(u) * du * du;
        }
      }
      part[3 * c] = v;
      part[3 * c + 1] = g;
      part[3 * c + 2] = h;
    });
    double v = 0.0, g = 0.0, h = 0.0;
    for (int c = 0; c < chunks; ++c) {
      v += part[3 * c];
      g += part[3 * c + 1];
      h += part[3 * c + 2];
    }
    if (value) *value = v;
    if (d1) {
      *d1 = g;
      *d2 = h;
    }
  }

  // cost_i * loss(u_i) and its first and second derivative with respect to z_i.
  double sample_terms(Index i, double z, double* c1, double* c2) const {
    const double c = cost_[i];
    if (classification_) {
      const double u = y_[i] * z;
      *c1 = c * y_[i] * loss_.d1(u);
      *c2 = c * loss_.d2(u);
      return c * loss_.value(u);
    }
    const double u = z - y_[i];
    *c1 = c * loss_.d1(u);
    *c2 = c * loss_.d2(u);
    return c * loss_.value(u);
  }
  double sample_value(Index i, double z) const {
    const double u = classification_ ? y_[i] * z : z - y_[i];
    return cost_[i] * loss_.value(u);
  }

  V X_;
  L loss_;
  const double* y_;
  const double* cost_;
  bool fit_intercept_;
  double scale_;
  bool reg_b_;
  bool classification_;
  int n_threads_;
  double curvature_cut_ = 0.0;  // hessian_cutoff * loss''s largest d2
  std::vector<double> d_trial_, d_current_;
  std::vector<Index> curved_rows_;  // the rows hess_vec keeps (kept_curvature != 0), in order
  bool keep_z_ = false;
  std::vector<double> z_trial_, z_current_;  // decision values (keep_decision_values)
  std::vector<double> scratch_, scratch2_;
  ReductionBuffers gbuf_, hbuf_;
  long long passes_ = 0;
  // The assembled Hessian (hess_vec): its upper triangle, column-major, dim() x dim().
  HessianForm form_ = HessianForm::automatic;
  std::vector<double> hess_;
  bool hess_ready_ = false;                            // hess_ is H at the current point
  long long products_here_ = 0, products_before_ = 0;  // hess_vec calls at this / the last point
  long long assemblies_ = 0;
  double flat_share_ = 0.0;  // share of rows without slope and curvature at the last fun_grad
  double product_cost_ = 0.0, assembly_cost_ = 0.0;  // in stored entries (list_curved_rows)
  ReductionBuffers abuf_;
};

}  // namespace svmkit
