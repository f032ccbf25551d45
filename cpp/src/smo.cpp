// SMO (see solvers/smo.hpp for the problem, the method and the stopping rule).
#include "svmkit/solvers/smo.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "svmkit/detail/kernel_cache.hpp"
#include "svmkit/detail/smo_working_set.hpp"
#include "svmkit/detail/thread_team.hpp"
#include "svmkit/detail/vec_math.hpp"
#include "svmkit/solvers/smo_nu.hpp"

namespace svmkit {

void validate_options(const SmoOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_SMO_OPTIONS, "smo", o);
  if (o.working_set != "second_order" && o.working_set != "max_violating_pair")
    throw_invalid("smo option 'working_set' must be 'second_order' or 'max_violating_pair', got '" +
                  o.working_set + "'");
}

namespace {

// Largest |K(x, x)| and squared row norm accepted: leaves room for sums over many samples.
constexpr double kMaxKernelValue = 1e100;

// max_iter 0 is LIBSVM's cap max(10^7, 100 l) (l variables); < 0 is no limit.
long long iteration_limit(long long max_iter, Index l) {
  if (max_iter != 0) return max_iter;
  return std::max<long long>(10000000, 100 * static_cast<long long>(l));
}

using Clock = std::chrono::steady_clock;
constexpr double kInf = std::numeric_limits<double>::infinity();

// Rows of Q (signed, including the +1 of a regularized bias, excluding the diagonal D)
// restricted to the positions [0, len) of the solver's current permutation.
class QRows {
 public:
  explicit QRows(ThreadTeam& team) : team_(team) {}
  virtual ~QRows() = default;
  virtual const float* row(Index pos, Index len) = 0;
  virtual void swap(Index a, Index b) = 0;
  virtual double diag(Index pos) const = 0;  // Q_pos,pos without D
  long long computed = 0;
  long long hits = 0;
  double peak_mb = 0.0;
  bool feature_major = false;  // rows computed from the feature-major copy

 protected:
  ThreadTeam& team_;  // the solver's threads (see thread_team.hpp)
};

// A feature-major double copy (d x n) of the problem's samples, for kernels of a dot product
// with few features (d <= kMaxFeatures): a block of a kernel row is then d passes of
// contiguous multiply-adds across columns (vectorized; vec_math.hpp) instead of one short dot
// product per column through the sample index. Classification keeps the copy in the solver's
// order (swap follows shrinking), so the columns of a row are contiguous. The copy is charged
// to the cache budget and used only when it takes at most half of it, for sparse input whose
// kernel matrix is at least kMinMatrixToCache times the cache (use_feature_major: why).
class FeatureMajor {
 public:
  static constexpr Index kMaxFeatures = 128;
  static constexpr double kMinMatrixToCache = 4.0;

  static double bytes_for(Index n, Index d) {
    return static_cast<double>(n) * static_cast<double>(d + 1) * sizeof(double);
  }

  template <class V>
  void build(const V& X, const std::vector<Index>& xrow, int nt) {
    n_ = static_cast<Index>(xrow.size());
    d_ = X.cols;
    xt_.assign(static_cast<std::size_t>(n_ * d_), 0.0);
    norm_.assign(static_cast<std::size_t>(n_), 0.0);
    a_.assign(static_cast<std::size_t>(d_), 0.0);
    parallel_for(n_, n_ * d_ > 1000000 ? nt : 1, [&](Index t) {
      for_each_in_row(X, xrow[t], [&](Index k, double v) { xt_[k * n_ + t] += v; });
      double sq = 0.0;
      for (Index k = 0; k < d_; ++k) {
        const double v = xt_[k * n_ + t];
        if (v != 0.0) sq += v * v;  // the order and the zero skip of dots_feature_major
      }
      norm_[t] = sq;
    });
    on_ = true;
  }
  bool on() const { return on_; }
  void swap(Index a, Index b) {
    for (Index k = 0; k < d_; ++k) std::swap(xt_[k * n_ + a], xt_[k * n_ + b]);
    std::swap(norm_[a], norm_[b]);
  }
  // Loads sample t as the left operand; returns its squared norm.
  double load(Index t) {
    for (Index k = 0; k < d_; ++k) a_[k] = xt_[k * n_ + t];
    return norm_[t];
  }
  void dots(Index b, Index e, double* out) const {
    dots_feature_major(xt_.data(), n_, d_, a_.data(), b, e, out);
  }
  const double* norms() const { return norm_.data(); }

 private:
  bool on_ = false;
  Index n_ = 0, d_ = 0;
  std::vector<double> xt_, norm_, a_;
};

// Whether the feature-major copy applies; returns the cache budget left for rows.
// Measured (bench_regimes cells, SVC/SVR defaults): on dense input it gains nothing (5,000 x
// 50: 0.113 s with it, 0.106 s without, best of 7; 20,000 x 50: 1.32 s, 1.29 s, best of 2),
// since dense rows are already contiguous; on sparse input it gains 1.38x on a9a (32,561 x
// 123: 2.04 s against 2.81 s, one fit each, the cache full either way) and 10-20% on
// mushrooms and covtype.5000 (best of 7).
// Where the kernel matrix fits the cache the copy is memory on top of the cached rows (2 to
// 7 MB above LIBSVM's peak on those two sets), so it is built only when the matrix is at
// least kMinMatrixToCache times the budget: the cache then fills and bounds the peak anyway.
template <class V>
bool use_feature_major(const V& X, const KernelSpec& spec, Index n, double* cache_bytes) {
  if constexpr (!is_csr_view<V>::value) {
    return false;
  } else {
    const KernelKind k = spec.kind;
    if (k != KernelKind::linear && k != KernelKind::polynomial && k != KernelKind::rbf &&
        k != KernelKind::sigmoid)
      return false;
    if (X.cols > FeatureMajor::kMaxFeatures) return false;
    const double matrix_bytes = static_cast<double>(n) * static_cast<double>(n) * sizeof(float);
    if (matrix_bytes < FeatureMajor::kMinMatrixToCache * *cache_bytes) return false;
    const double bytes = FeatureMajor::bytes_for(n, X.cols);
    if (bytes > 0.5 * *cache_bytes) return false;
    *cache_bytes -= bytes;
    return true;
  }
}

// Classification: one variable per sample; the cache follows the permutation.
template <class V>
class ClassQ final : public QRows {
 public:
  ClassQ(const V& X, const KernelSpec& spec, ThreadTeam& team, std::vector<Index> xrow,
         std::vector<double> sign, double r, double cache_bytes)
      : QRows(team),
        ev_(X, X, spec, team.size()),
        xrow_(std::move(xrow)),
        sign_(std::move(sign)),
        r_(r),
        fm_on_(use_feature_major(X, spec, static_cast<Index>(xrow_.size()), &cache_bytes)),
        cache_(static_cast<Index>(xrow_.size()), static_cast<Index>(xrow_.size()), cache_bytes),
        scratch_(ev_.make_scratch()),
        tmp_(xrow_.size()) {
    if (fm_on_) fm_.build(X, xrow_, team.size());
    feature_major = fm_on_;
    kdiag_.resize(xrow_.size());
    for (std::size_t t = 0; t < xrow_.size(); ++t) kdiag_[t] = ev_.self(xrow_[t]) + r_;
  }
  const float* row(Index pos, Index len) override {
    Index filled = 0;
    float* d = cache_.get(pos, len, &filled);
    if (filled < len) {
      ++computed;
      double an = 0.0;
      if (fm_on_)
        an = fm_.load(pos);
      else
        ev_.load_row(xrow_[pos], scratch_);
      const double sp = sign_[pos], r = r_;
      const Index* cols = xrow_.data();
      const double* sg = sign_.data();
      double* tmp = tmp_.data();
      team_.chunks(len - filled, ev_.parallel_chunks_for(len - filled), [&](int, Index b, Index e) {
        b += filled;
        e += filled;
        if (fm_on_) {
          fm_.dots(b, e, tmp);
          ev_.from_dots(an, fm_.norms(), b, e, tmp, true);
        } else {
          ev_.values(scratch_, cols, b, e, tmp, true);
        }
        for (Index j = b; j < e; ++j) d[j] = static_cast<float>(sp * sg[j] * (tmp[j] + r));
      });
      peak_mb = std::max(peak_mb, cache_.used_floats() * 4.0 / 1048576.0);
    } else {
      ++hits;
    }
    return d;
  }
  void swap(Index a, Index b) override {
    cache_.swap_rows(a, b);
    if (fm_on_) fm_.swap(a, b);
    std::swap(xrow_[a], xrow_[b]);
    std::swap(sign_[a], sign_[b]);
    std::swap(kdiag_[a], kdiag_[b]);
  }
  double diag(Index pos) const override { return kdiag_[pos]; }

 private:
  KernelEvaluator<V, V> ev_;
  std::vector<Index> xrow_;
  std::vector<double> sign_;
  double r_;
  bool fm_on_;
  FeatureMajor fm_;
  KernelCache cache_;
  std::vector<double> kdiag_;
  typename KernelEvaluator<V, V>::Scratch scratch_;
  std::vector<double> tmp_;  // kernel values of the row being computed, before rounding
};

// Regression: two variables (a+, a-) per sample; the cache holds kernel rows per sample over
// all n samples and Q rows are assembled into one of two buffers. The two buffers remember
// which row they hold (until the next swap), since the working-set selection and the update
// ask for the same row in turn.
template <class V>
class RegQ final : public QRows {
 public:
  RegQ(const V& X, const KernelSpec& spec, ThreadTeam& team, std::vector<Index> xrow, double r,
       double cache_bytes)
      : QRows(team),
        ev_(X, X, spec, team.size()),
        xrow_(std::move(xrow)),
        n_(static_cast<Index>(xrow_.size())),
        r_(r),
        fm_on_(use_feature_major(X, spec, n_, &cache_bytes)),
        cache_(n_, n_, cache_bytes),
        scratch_(ev_.make_scratch()),
        tmp_(static_cast<std::size_t>(n_)) {
    if (fm_on_) fm_.build(X, xrow_, team.size());
    feature_major = fm_on_;
    // Positions index their sample through 32-bit integers (a faster gather) whenever they fit.
    wide_ = n_ > std::numeric_limits<std::int32_t>::max();
    if (wide_)
      sample64_.resize(static_cast<std::size_t>(2 * n_));
    else
      sample_.resize(static_cast<std::size_t>(2 * n_));
    sign_.resize(static_cast<std::size_t>(2 * n_));
    for (Index t = 0; t < 2 * n_; ++t) {
      if (wide_)
        sample64_[t] = t < n_ ? t : t - n_;
      else
        sample_[t] = static_cast<std::int32_t>(t < n_ ? t : t - n_);
      sign_[t] = t < n_ ? 1.0f : -1.0f;
    }
    kdiag_.resize(static_cast<std::size_t>(n_));
    for (Index t = 0; t < n_; ++t) kdiag_[t] = ev_.self(xrow_[t]) + r_;
    buf_[0].resize(static_cast<std::size_t>(2 * n_));
    buf_[1].resize(static_cast<std::size_t>(2 * n_));
  }
  const float* row(Index pos, Index len) override {
    for (int b = 0; b < 2; ++b) {
      if (held_[b] == pos && held_len_[b] >= len) {
        next_ = b ^ 1;  // keep this one: the other buffer is the one to overwrite
        ++hits;
        return buf_[b].data();
      }
    }
    const Index s = sample_of(pos);
    Index filled = 0;
    float* k = cache_.get(s, n_, &filled);
    const int b = next_;
    float* out = buf_[b].data();
    next_ ^= 1;
    held_[b] = pos;
    held_len_[b] = len;
    const float sp = sign_[pos], rf = static_cast<float>(r_);
    if (filled < n_) {
      ++computed;
      double an = 0.0;
      if (fm_on_)
        an = fm_.load(s);
      else
        ev_.load_row(xrow_[s], scratch_);
      const Index* cols = xrow_.data();
      double* tmp = tmp_.data();
      team_.chunks(n_ - filled, ev_.parallel_chunks_for(n_ - filled), [&](int, Index b0, Index e0) {
        b0 += filled;
        e0 += filled;
        if (fm_on_) {
          fm_.dots(b0, e0, tmp);
          ev_.from_dots(an, fm_.norms(), b0, e0, tmp, true);
        } else {
          ev_.values(scratch_, cols, b0, e0, tmp, true);
        }
        for (Index j = b0; j < e0; ++j) k[j] = static_cast<float>(tmp[j]);
      });
      peak_mb = std::max(peak_mb, cache_.used_floats() * 4.0 / 1048576.0);
    } else {
      ++hits;
    }
    const int chunks = len >= kAssembleParallelMin ? ev_.n_threads() : 1;
    team_.chunks(len, chunks, [&](int, Index b0, Index e0) {
      if (wide_)
        gather_signed(k, sample64_.data() + b0, sign_.data() + b0, sp, rf, e0 - b0, out + b0);
      else
        gather_signed(k, sample_.data() + b0, sign_.data() + b0, sp, rf, e0 - b0, out + b0);
    });
    return out;
  }
  void swap(Index a, Index b) override {
    if (wide_)
      std::swap(sample64_[a], sample64_[b]);
    else
      std::swap(sample_[a], sample_[b]);
    std::swap(sign_[a], sign_[b]);
    held_[0] = held_[1] = -1;
  }
  double diag(Index pos) const override { return kdiag_[sample_of(pos)]; }

 private:
  static constexpr Index kAssembleParallelMin = 32768;  // below, one thread assembles faster
  KernelEvaluator<V, V> ev_;
  std::vector<Index> xrow_;
  Index n_;
  double r_;
  bool fm_on_;
  FeatureMajor fm_;  // in sample order (the cache rows are per sample)
  KernelCache cache_;
  typename KernelEvaluator<V, V>::Scratch scratch_;
  std::vector<double> tmp_;
  Index sample_of(Index pos) const { return wide_ ? sample64_[pos] : sample_[pos]; }

  bool wide_ = false;                   // more than 2^31 - 1 samples: 64-bit sample indices
  std::vector<std::int32_t> sample_;    // sample of each position (int32: a faster gather)
  std::vector<std::int64_t> sample64_;  // the same when wide_
  std::vector<float> sign_;
  std::vector<double> kdiag_;
  std::vector<float> buf_[2];
  Index held_[2] = {-1, -1};    // position whose row each buffer holds (-1: none)
  Index held_len_[2] = {0, 0};  // and how many leading entries
  int next_ = 0;
};

// What the C-SVC/SVR solver and the nu solver share, over positions 0..l-1 of a permutation of
// the variables (shrunk ones at the back): the variables a in [0, U] with signs s, the linear
// term p and the diagonal D added to Q; the gradient G = p + (Q + D) a and Gbar = sum over
// upper-bounded t of U_t Q_t (to rebuild shrunk gradients); the two-variable step; the outer
// loop with its no-progress guard; and the exit measures. Derived supplies select(&i, &j) (the
// KKT gap over the active variables), step(i, j) (false when nothing changed), has_pair(i, j),
// shrink(), refresh_flags(t), swap_flags(a, b) and sweep_flags() (the I_up/I_low bytes the
// gradient sweep reads to find the next first index).
template <class Derived>
class SmoCore {
 public:
  const std::vector<double>& alpha_original() const { return alpha_out_; }

 protected:
  SmoCore(QRows& Q, std::vector<double> s, std::vector<double> p, std::vector<double> U,
          std::vector<double> D, std::vector<double> alpha, const SmoOptions& opt,
          const Callbacks& cb, ThreadTeam& team)
      : Q_(Q),
        l_(static_cast<Index>(s.size())),
        s_(std::move(s)),
        p_(std::move(p)),
        U_(std::move(U)),
        D_(std::move(D)),
        alpha_(std::move(alpha)),
        opt_(opt),
        cb_(cb),
        second_order_(opt.working_set == "second_order"),
        team_(team),
        nt_(team.size()) {
    part_.resize(static_cast<std::size_t>(nt_));
    if (D_.empty()) D_.assign(l_, 0.0);  // no diagonal term (the nu solver)
    G_ = p_;
    Gbar_.assign(l_, 0.0);
    QD_.resize(l_);
    orig_.resize(l_);
    for (Index t = 0; t < l_; ++t) {
      QD_[t] = Q_.diag(t) + D_[t];
      orig_[t] = t;
      // A kernel value this large makes the gradient sums overflow, and SMO would then
      // select pairs forever on inf/nan gradients: refuse it with a clear message.
      if (!(std::fabs(QD_[t]) <= kMaxKernelValue))
        throw_invalid(
            "the kernel values K(x, x) overflow (|K| > 1e100 or not finite): scale X "
            "or choose smaller gamma/coef0/degree");
    }
    active_ = l_;
  }

  Derived& self() { return static_cast<Derived&>(*this); }

  // The outer loop, then the exit measures over every variable in the original order.
  SolveResult run_loop() {
    const auto start = Clock::now();
    SolveResult base;
    long long iter = 0;
    double gap = kInf;
    const SolverStatus status = iterate(base, iter, gap, start);
    unshrink_all();
    Index i = -1, j = -1;
    gap = self().select(&i, &j);
    base.status = status;
    base.iterations = iter;
    base.optimality = gap;
    base.objective = objective();
    if (!std::isfinite(base.objective) || !std::isfinite(gap))
      base.status = SolverStatus::numerical_error;
    base.time = std::chrono::duration<double>(Clock::now() - start).count();
    report(base, iter, gap, start);
    if (!opt_.record_history) base.history.clear();
    SmoExtras ex;
    ex.kernel_rows = Q_.computed;
    ex.cache_hits = Q_.hits;
    ex.cache_peak_mb = Q_.peak_mb;
    ex.feature_major = Q_.feature_major;
    base.extras = std::move(ex);
    alpha_out_.assign(l_, 0.0);
    for (Index t = 0; t < l_; ++t) alpha_out_[orig_[t]] = alpha_[t];
    return base;
  }

  // Selection, the gap test over all variables before stopping, the step, Ctrl-C polls and
  // history. A step that changes nothing (below one ulp of its variables) gets one retry over
  // all variables (a shrunk one may give a better pair); a second one ends the run with
  // line_search_failed, since the same pair would be selected forever.
  SolverStatus iterate(SolveResult& base, long long& iter, double& gap, Clock::time_point start) {
    const long long interval =
        std::max<long long>(1, std::min<long long>(l_, opt_.shrink_interval));
    // The first shrink after interval + 1 iterations, as LIBSVM's counter: one sooner took other
    // paths where shrinking later unshrinks (linear-kernel SVR: 5,937 iterations, not 8,237).
    long long counter = interval + 1, stalls = 0;
    const long long max_iter = iteration_limit(opt_.max_iter, l_);
    while (max_iter < 0 || iter < max_iter) {
      if (--counter == 0) {
        counter = interval;
        if (opt_.shrinking) self().shrink();
      }
      Index i = -1, j = -1;
      gap = self().select(&i, &j);
      // Kernel values overflowed (e.g. a linear or polynomial kernel of huge features): the
      // comparisons of the selection are meaningless from here on.
      if (!std::isfinite(gap)) return SolverStatus::numerical_error;
      if (gap < opt_.tol || !self().has_pair(i, j)) {
        unshrink_all();
        gap = self().select(&i, &j);
        if (gap < opt_.tol || !self().has_pair(i, j)) return SolverStatus::converged;
        counter = 1;  // shrink again at the next iteration
      }
      ++iter;
      if (self().step(i, j)) {
        stalls = 0;
      } else if (++stalls > 1) {
        base.message =
            "no progress: the step on the working pair is below one ulp of its "
            "variables (KKT gap " +
            std::to_string(gap) + " > tol)";
        return SolverStatus::line_search_failed;
      } else {
        unshrink_all();
      }
      if (iter % opt_.poll_interval == 0 && cb_.poll()) return SolverStatus::interrupted;
      if (iter % opt_.history_every == 0 && !report(base, iter, gap, start))
        return SolverStatus::interrupted;
    }
    return SolverStatus::max_iter;
  }

  bool at_upper(Index t) const { return alpha_[t] >= U_[t]; }
  bool at_lower(Index t) const { return alpha_[t] <= 0.0; }

  // Sweeps over the active variables are split between threads only when long enough to
  // repay a parallel region (a few microseconds). Every split sweep keeps each chunk's best
  // candidate and merges the chunks in order with the serial loop's tie rule, so the chosen
  // indices, hence the iterates, do not depend on the number of threads.
  int sweep_chunks(Index count) const { return count >= kSweepParallelMin ? nt_ : 1; }

  // The two-variable step along s_i e_i - s_j e_j, clipped to the box (landing exactly on a
  // bound when clipped there, so bound tests stay exact), then G and Gbar. False when neither
  // variable changed. The gradient sweep also finds the next i = argmax over sweep_flags()'s
  // I_up of -s G (one pass fewer; the same order and tie rule as the selection).
  bool pair_step(Index i, Index j) {
    const float* Qi = Q_.row(i, active_);
    const float* Qj = Q_.row(j, active_);
    const double si = s_[i], sj = s_[j];
    double a = QD_[i] + QD_[j] - 2.0 * si * sj * static_cast<double>(Qi[j]);
    if (a <= 0.0) a = opt_.tau;
    const double b = -si * G_[i] + sj * G_[j];
    const double max_i = si > 0 ? U_[i] - alpha_[i] : alpha_[i];
    const double max_j = sj > 0 ? alpha_[j] : U_[j] - alpha_[j];
    const double t = std::min(std::max(0.0, b / a), std::min(max_i, max_j));
    const double old_i = alpha_[i], old_j = alpha_[j];
    double ni = t == max_i ? (si > 0 ? U_[i] : 0.0) : old_i + si * t;
    double nj = t == max_j ? (sj > 0 ? 0.0 : U_[j]) : old_j - sj * t;
    alpha_[i] = std::min(std::max(ni, 0.0), U_[i]);
    alpha_[j] = std::min(std::max(nj, 0.0), U_[j]);
    self().refresh_flags(i);
    self().refresh_flags(j);
    const double di = alpha_[i] - old_i, dj = alpha_[j] - old_j;
    if (di == 0.0 && dj == 0.0) return false;
    G_[i] += D_[i] * di;
    G_[j] += D_[j] * dj;
    const std::uint8_t* flags = self().sweep_flags();
    const int chunks = team_.chunks(active_, sweep_chunks(active_), [&](int c, Index b0, Index e0) {
      Index at = -1;
      const double m =
          smo_update_gradient(G_.data(), Qi, Qj, di, dj, s_.data(), flags, b0, e0, &at);
      part_[c] = {m, 0.0, at};
    });
    next_gmax_ = -kInf;
    next_i_ = -1;
    for (int c = 0; c < chunks; ++c)
      if (part_[c].at >= 0 && part_[c].a >= next_gmax_) {
        next_gmax_ = part_[c].a;
        next_i_ = part_[c].at;
      }
    next_valid_ = true;
    update_gbar(i, old_i);
    update_gbar(j, old_j);
    return true;
  }

  // Gbar_t = sum over variables at their (finite) upper bound of U_j Q_jt, needed to rebuild
  // the gradient of shrunk variables.
  void update_gbar(Index i, double old) {
    if (!std::isfinite(U_[i])) return;
    const bool was = old >= U_[i], now = at_upper(i);
    if (was == now) return;
    const float* Qi = Q_.row(i, l_);
    const double c = now ? U_[i] : -U_[i];
    for (Index k = 0; k < l_; ++k) Gbar_[k] += c * static_cast<double>(Qi[k]);
  }

  // Moves the variables shrinkable(t) says are done to the back (out of the active range).
  template <class Shrinkable>
  void compact(Shrinkable&& shrinkable) {
    for (Index t = 0; t < active_; ++t) {
      if (!shrinkable(t)) continue;
      --active_;
      while (active_ > t) {
        if (!shrinkable(active_)) {
          swap(t, active_);
          break;
        }
        --active_;
      }
    }
  }

  void swap(Index a, Index b) {
    Q_.swap(a, b);
    std::swap(s_[a], s_[b]);
    std::swap(p_[a], p_[b]);
    std::swap(U_[a], U_[b]);
    std::swap(D_[a], D_[b]);
    std::swap(alpha_[a], alpha_[b]);
    std::swap(G_[a], G_[b]);
    std::swap(Gbar_[a], Gbar_[b]);
    std::swap(QD_[a], QD_[b]);
    std::swap(orig_[a], orig_[b]);
    self().swap_flags(a, b);
    next_valid_ = false;
  }

  // Rebuilds the gradient of the shrunk variables from Gbar and the free active ones (by
  // rows of the inactive or of the free variables, whichever reads fewer kernel values) and
  // makes every variable active.
  void unshrink_all() {
    next_valid_ = false;
    if (active_ == l_) return;
    for (Index t = active_; t < l_; ++t) G_[t] = Gbar_[t] + p_[t] + D_[t] * alpha_[t];
    Index nfree = 0;
    for (Index t = 0; t < active_; ++t)
      if (!at_upper(t) && !at_lower(t)) ++nfree;
    const double by_free = static_cast<double>(nfree) * static_cast<double>(l_);
    const double by_inactive =
        2.0 * static_cast<double>(active_) * static_cast<double>(l_ - active_);
    if (nfree > 0 && by_free > by_inactive) {
      for (Index t = active_; t < l_; ++t) {
        const float* Qt = Q_.row(t, active_);
        double add = 0.0;
        for (Index k = 0; k < active_; ++k)
          if (!at_upper(k) && !at_lower(k)) add += alpha_[k] * static_cast<double>(Qt[k]);
        G_[t] += add;
      }
    } else if (nfree > 0) {
      for (Index k = 0; k < active_; ++k) {
        if (at_upper(k) || at_lower(k)) continue;
        const float* Qk = Q_.row(k, l_);
        const double a = alpha_[k];
        for (Index t = active_; t < l_; ++t) G_[t] += a * static_cast<double>(Qk[t]);
      }
    }
    active_ = l_;
  }

  double objective() const {
    double f = 0.0;
    for (Index t = 0; t < l_; ++t) f += alpha_[t] * (G_[t] + p_[t]);
    return 0.5 * f;
  }

  bool report(SolveResult& base, long long iter, double gap, Clock::time_point start) {
    IterationRecord r;
    r.iteration = iter;
    r.objective = objective();  // uses the stored gradient (stale for shrunk variables)
    r.optimality = gap;
    r.active_size = active_;
    r.inner_iterations = Q_.computed;
    r.time = std::chrono::duration<double>(Clock::now() - start).count();
    return report_iteration(base, r, opt_.record_history, cb_);
  }

  // A chunk's best candidate: values a (and b) at index at (-1: none in the chunk).
  struct Part {
    double a, b;
    Index at;
  };
  static constexpr Index kSweepParallelMin = 8192;  // shorter sweeps stay on one thread

  QRows& Q_;
  Index l_;
  std::vector<double> s_, p_, U_, D_, alpha_;
  const SmoOptions& opt_;
  const Callbacks& cb_;
  bool second_order_;
  ThreadTeam& team_;
  int nt_;
  std::vector<Part> part_;
  std::vector<double> G_, Gbar_, QD_;
  std::vector<Index> orig_;
  Index active_ = 0;
  bool unshrunk_ = false;
  bool next_valid_ = false;  // next_i_ / next_gmax_ hold the next selection's first index
  Index next_i_ = -1;
  double next_gmax_ = -kInf;
  std::vector<double> alpha_out_;
};

// C-SVC and epsilon-SVR (and the box-only duals of a regularized bias): one pair in the whole
// set (equality) or one variable at a time (no equality constraint).
class Solver final : public SmoCore<Solver> {
 public:
  Solver(QRows& Q, Index l, std::vector<double> s, std::vector<double> p, std::vector<double> U,
         std::vector<double> D, bool equality, const SmoOptions& opt, const Callbacks& cb,
         ThreadTeam& team)
      : SmoCore(Q, std::move(s), std::move(p), std::move(U), std::move(D),
                std::vector<double>(static_cast<std::size_t>(l), 0.0), opt, cb, team),
        equality_(equality) {
    flags_.resize(l_);
    for (Index t = 0; t < l_; ++t) flags_[t] = flags_of(t);
  }

  SolveResult run() {
    SolveResult base = run_loop();
    auto& ex = std::get<SmoExtras>(base.extras);
    ex.bias = bias();
    sign_out_.assign(l_, 0.0);
    for (Index t = 0; t < l_; ++t) sign_out_[orig_[t]] = s_[t];
    return base;
  }

  const std::vector<double>& sign_original() const { return sign_out_; }

 private:
  friend class SmoCore<Solver>;

  // Membership in I_up (bit 0) and I_low (bit 1), kept in one byte per variable so that the
  // selection sweeps read a byte instead of three doubles.
  std::uint8_t flags_of(Index t) const {
    const bool up = s_[t] > 0 ? alpha_[t] < U_[t] : alpha_[t] > 0.0;
    const bool low = s_[t] > 0 ? alpha_[t] > 0.0 : alpha_[t] < U_[t];
    return static_cast<std::uint8_t>((up ? 1 : 0) | (low ? 2 : 0));
  }
  bool in_up(Index t) const { return flags_[t] & 1; }
  bool in_low(Index t) const { return flags_[t] & 2; }
  void refresh_flags(Index t) { flags_[t] = flags_of(t); }
  void swap_flags(Index a, Index b) { std::swap(flags_[a], flags_[b]); }
  const std::uint8_t* sweep_flags() const { return flags_.data(); }
  bool has_pair(Index, Index) const { return true; }
  // Both steps return false when the variables did not change (a step below one ulp).
  bool step(Index i, Index j) { return equality_ ? pair_step(i, j) : update_single(i); }

  // Picks the working set; returns the KKT gap over the active variables.
  double select(Index* pi, Index* pj) {
    if (!equality_) return select_single(pi);
    double gmax = -kInf;
    Index i = -1;
    if (next_valid_) {
      // Found during the previous gradient update (same sweep order and tie rule).
      gmax = next_gmax_;
      i = next_i_;
      next_valid_ = false;
    } else {
      const int chunks = team_.chunks(active_, sweep_chunks(active_), [&](int c, Index b, Index e) {
        double m = -kInf;
        Index at = -1;
        for (Index t = b; t < e; ++t) {
          if (in_up(t)) {
            const double v = -s_[t] * G_[t];
            if (v >= m) {
              m = v;
              at = t;
            }
          }
        }
        part_[c] = {m, 0.0, at};
      });
      for (int c = 0; c < chunks; ++c)
        if (part_[c].at >= 0 && part_[c].a >= gmax) {
          gmax = part_[c].a;
          i = part_[c].at;
        }
    }
    double gmax2 = -kInf;
    Index j = -1;
    if (i < 0) {
      *pi = *pj = -1;
      return 0.0;
    }
    int chunks = 1;
    if (second_order_) {
      const float* Qi = Q_.row(i, active_);
      const double si = s_[i], qdi = QD_[i], tau = opt_.tau;
      chunks = team_.chunks(active_, sweep_chunks(active_), [&](int c, Index b, Index e) {
        double m2 = -kInf;
        Index at = -1;
        const double best =
            smo_select_second_order(G_.data(), s_.data(), QD_.data(), Qi, flags_.data(), gmax, qdi,
                                    si, tau, b, e, &m2, &at);
        part_[c] = {m2, best, at};
      });
      double best = kInf;
      for (int c = 0; c < chunks; ++c) {
        gmax2 = std::max(gmax2, part_[c].a);
        if (part_[c].at >= 0 && part_[c].b <= best) {
          best = part_[c].b;
          j = part_[c].at;
        }
      }
    } else {
      chunks = team_.chunks(active_, sweep_chunks(active_), [&](int c, Index b0, Index e0) {
        double m2 = -kInf;
        Index at = -1;
        for (Index t = b0; t < e0; ++t) {
          if (!in_low(t)) continue;
          const double sg = s_[t] * G_[t];
          if (sg >= m2) {
            m2 = sg;
            at = t;
          }
        }
        part_[c] = {m2, 0.0, at};
      });
      for (int c = 0; c < chunks; ++c)
        if (part_[c].at >= 0 && part_[c].a >= gmax2) {
          gmax2 = part_[c].a;
          j = part_[c].at;
        }
    }
    *pi = i;
    *pj = j;
    if (j < 0) return std::max(0.0, gmax + gmax2);  // no violating partner
    return gmax + gmax2;
  }

  static double projected(double g, double a, double u) {
    if (a <= 0.0) return std::min(g, 0.0);
    if (a >= u) return std::max(g, 0.0);
    return g;
  }

  double select_single(Index* pi) {
    double worst = 0.0, best_gain = -1.0;
    Index i = -1;
    for (Index t = 0; t < active_; ++t) {
      const double pg = projected(G_[t], alpha_[t], U_[t]);
      const double v = std::fabs(pg);
      if (v > worst) worst = v;
      if (v == 0.0) continue;
      double gain;
      if (second_order_) {
        const double na = std::min(std::max(alpha_[t] - G_[t] / QD_[t], 0.0), U_[t]);
        const double d = na - alpha_[t];
        gain = -(G_[t] * d + 0.5 * QD_[t] * d * d);
      } else {
        gain = v;
      }
      if (gain > best_gain) {
        best_gain = gain;
        i = t;
      }
    }
    *pi = i;
    last_violation_ = worst;
    return worst;
  }

  bool update_single(Index i) {
    if (i < 0) return false;
    const float* Qi = Q_.row(i, active_);
    const double old = alpha_[i];
    const double na = std::min(std::max(old - G_[i] / QD_[i], 0.0), U_[i]);
    alpha_[i] = na;
    flags_[i] = flags_of(i);
    const double d = na - old;
    if (d == 0.0) return false;
    for (Index k = 0; k < active_; ++k) G_[k] += static_cast<double>(Qi[k]) * d;
    G_[i] += D_[i] * d;
    update_gbar(i, old);
    return true;
  }

  bool shrinkable(Index t, double gmax1, double gmax2) const {
    if (!equality_) {
      if (at_lower(t)) return G_[t] > last_violation_;
      if (at_upper(t)) return -G_[t] > last_violation_;
      return false;
    }
    if (at_upper(t)) return s_[t] > 0 ? -G_[t] > gmax1 : -G_[t] > gmax2;
    if (at_lower(t)) return s_[t] > 0 ? G_[t] > gmax2 : G_[t] > gmax1;
    return false;
  }

  void shrink() {
    next_valid_ = false;
    double gmax1 = -kInf, gmax2 = -kInf;
    double violation = last_violation_;
    if (equality_) {
      for (Index t = 0; t < active_; ++t) {
        if (in_up(t)) gmax1 = std::max(gmax1, -s_[t] * G_[t]);
        if (in_low(t)) gmax2 = std::max(gmax2, s_[t] * G_[t]);
      }
      violation = gmax1 + gmax2;
    }
    if (!unshrunk_ && violation <= 10.0 * opt_.tol) {
      unshrunk_ = true;
      unshrink_all();
    }
    compact([&](Index t) { return shrinkable(t, gmax1, gmax2); });
  }

  double bias() const {
    if (!equality_) {
      double b = 0.0;
      for (Index t = 0; t < l_; ++t) b += s_[t] * alpha_[t];
      return b;
    }
    double ub = kInf, lb = -kInf, sum = 0.0;
    Index nfree = 0;
    for (Index t = 0; t < l_; ++t) {
      const double yg = s_[t] * G_[t];
      if (at_upper(t)) {
        if (s_[t] < 0)
          ub = std::min(ub, yg);
        else
          lb = std::max(lb, yg);
      } else if (at_lower(t)) {
        if (s_[t] > 0)
          ub = std::min(ub, yg);
        else
          lb = std::max(lb, yg);
      } else {
        ++nfree;
        sum += yg;
      }
    }
    double rho;
    if (nfree > 0)
      rho = sum / static_cast<double>(nfree);
    else if (std::isfinite(ub) && std::isfinite(lb))
      rho = 0.5 * (ub + lb);
    else
      rho = std::isfinite(ub) ? ub : (std::isfinite(lb) ? lb : 0.0);
    return -rho;
  }

  bool equality_;
  std::vector<std::uint8_t> flags_;
  double last_violation_ = kInf;
  std::vector<double> sign_out_;
};

void validate_problem(const KernelProblem& pr, Index n, bool check_finite) {
  validate_view(pr.X, "X");
  validate_kernel(pr.kernel);
  if (n <= 0) throw_invalid("the problem has no samples");
  if (!pr.y) throw_invalid("y is missing");
  if (!pr.cost) throw_invalid("sample costs are missing");
  const Index nx = rows_of(pr.X);
  if (pr.kernel.kind == KernelKind::precomputed && cols_of(pr.X) != nx)
    throw_invalid("a precomputed kernel must be a square Gram matrix, got " + std::to_string(nx) +
                  " x " + std::to_string(cols_of(pr.X)));
  if (pr.rows) {
    for (Index i = 0; i < n; ++i)
      if (pr.rows[i] < 0 || pr.rows[i] >= nx) throw_invalid("sample index out of range");
  } else if (n > nx) {
    throw_invalid("n exceeds the number of rows of X");
  }
  for (Index i = 0; i < n; ++i) {
    if (!(pr.cost[i] >= 0.0) || !std::isfinite(pr.cost[i]))
      throw_invalid("sample costs must be finite and >= 0");
    if (!std::isfinite(pr.y[i])) throw_invalid("y must be finite");
    if (pr.formulation != SmoFormulation::svr && pr.y[i] != 1.0 && pr.y[i] != -1.0)
      throw_invalid("classification labels must be +1 or -1");
  }
  if (pr.formulation == SmoFormulation::svr && (!(pr.epsilon >= 0.0) || !std::isfinite(pr.epsilon)))
    throw_invalid("epsilon must be finite and >= 0");
  if (check_finite) validate_finite(pr.X, "X");
  check_kernel_fits_cache(pr.kernel, pr.X, pr.rows, n);  // the float cache would hold inf
  // rbf rows use squared row norms (|a|^2 + |b|^2 - 2 a.b): inf - inf would be NaN and SMO
  // would then select pairs forever. One pass, whatever check_input says.
  if (pr.kernel.kind == KernelKind::rbf) {
    std::visit(
        [&](const auto& V) {
          for (Index i = 0; i < rows_of(pr.X); ++i)
            if (!(row_sq_norm(V, i) <= kMaxKernelValue))
              throw_invalid("a row of X has a squared norm above 1e100 (row " + std::to_string(i) +
                            "): scale X");
        },
        pr.X);
  }
}

}  // namespace

SolveResult solve_smo(const KernelProblem& pr, const SmoOptions& opt, const Callbacks& cb) {
  validate_options(opt);
  const Index n = pr.n >= 0 ? pr.n : rows_of(pr.X);
  validate_problem(pr, n, opt.check_input);
  const int nt = resolve_threads(opt.n_threads);
  const double cache_bytes = opt.cache_size * 1048576.0;
  const double r = pr.regularize_intercept ? 1.0 : 0.0;
  const bool equality = !pr.regularize_intercept;
  std::vector<Index> xrow(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) xrow[i] = pr.rows ? pr.rows[i] : i;
  ThreadTeam team(nt);

  return std::visit(
      [&](const auto& V) -> SolveResult {
        using View = std::decay_t<decltype(V)>;
        if (pr.formulation == SmoFormulation::svr) {
          const Index l = 2 * n;
          std::vector<double> s(l), p(l), U(l), D(l, 0.0);
          for (Index i = 0; i < n; ++i) {
            s[i] = 1.0;
            s[i + n] = -1.0;
            p[i] = pr.epsilon - pr.y[i];
            p[i + n] = pr.epsilon + pr.y[i];
            U[i] = U[i + n] = pr.cost[i];
          }
          RegQ<View> Q(V, pr.kernel, team, xrow, r, cache_bytes);
          Solver solver(Q, l, std::move(s), std::move(p), std::move(U), std::move(D), equality, opt,
                        cb, team);
          SolveResult res = solver.run();
          const auto& a = solver.alpha_original();
          auto& ex = std::get<SmoExtras>(res.extras);
          res.solution.resize(n);
          ex.dual_coef.resize(n);
          for (Index i = 0; i < n; ++i) {
            ex.dual_coef[i] = a[i] - a[i + n];
            res.solution[i] = ex.dual_coef[i];
          }
          return res;
        }
        const bool l2 = pr.formulation == SmoFormulation::svc_squared_hinge;
        std::vector<double> s(n), p(n, -1.0), U(n), D(n, 0.0);
        for (Index i = 0; i < n; ++i) {
          s[i] = pr.y[i];
          if (l2) {
            U[i] = pr.cost[i] > 0.0 ? kInf : 0.0;
            D[i] = pr.cost[i] > 0.0 ? 0.5 / pr.cost[i] : 0.0;
          } else {
            U[i] = pr.cost[i];
          }
        }
        ClassQ<View> Q(V, pr.kernel, team, xrow, s, r, cache_bytes);
        Solver solver(Q, n, std::move(s), std::move(p), std::move(U), std::move(D), equality, opt,
                      cb, team);
        SolveResult res = solver.run();
        res.solution = solver.alpha_original();
        auto& ex = std::get<SmoExtras>(res.extras);
        ex.dual_coef.resize(n);
        for (Index i = 0; i < n; ++i) ex.dual_coef[i] = pr.y[i] * res.solution[i];
        return res;
      },
      pr.X);
}

// ------------------------------------------------------------------------------------------
// nu formulations (solvers/smo_nu.hpp): nu-SVC, one-class and nu-SVR on the row sources
// above. A separate solver since the pair is taken within a sign group, the start is a
// nonzero feasible point and rho, r come from the two groups.
namespace {

class NuSolver final : public SmoCore<NuSolver> {
 public:
  // alpha: the feasible start; groups: 1 (one-class, every s = +1) or 2.
  NuSolver(QRows& Q, std::vector<double> s, std::vector<double> p, std::vector<double> U,
           std::vector<double> alpha, const SmoOptions& opt, const Callbacks& cb, ThreadTeam& team)
      : SmoCore(Q, std::move(s), std::move(p), std::move(U), {}, std::move(alpha), opt, cb, team) {
    flags_[0].resize(l_);
    flags_[1].resize(l_);
    for (Index t = 0; t < l_; ++t) refresh_flags(t);
  }

  SolveResult run() {
    init_gradient();
    SolveResult base = run_loop();
    group_rho(&r_[0], &r_[1]);
    return base;
  }

  double r_plus() const { return r_[0]; }   // r of the s = +1 group
  double r_minus() const { return r_[1]; }  // r of the s = -1 group

  bool two_groups_ = true;     // false for one-class (every s = +1)
  bool paired_start_ = false;  // nu-SVR: variables t and t + l/2 start equal (see init_gradient)

 private:
  friend class SmoCore<NuSolver>;

  int group(Index t) const { return s_[t] > 0 ? 0 : 1; }
  // flags_[g][t]: bit 0 = t in I_up, bit 1 = t in I_low, both 0 when t is not in group g
  // (so SMO's sweeps of vec_math.hpp run over one group by their flags alone).
  void refresh_flags(Index t) {
    const bool up = s_[t] > 0 ? alpha_[t] < U_[t] : alpha_[t] > 0.0;
    const bool low = s_[t] > 0 ? alpha_[t] > 0.0 : alpha_[t] < U_[t];
    const auto f = static_cast<std::uint8_t>((up ? 1 : 0) | (low ? 2 : 0));
    flags_[group(t)][t] = f;
    flags_[1 - group(t)][t] = 0;
  }
  void swap_flags(Index a, Index b) {
    std::swap(flags_[0][a], flags_[0][b]);
    std::swap(flags_[1][a], flags_[1][b]);
  }
  // The update's sweep finds group +1's next i (the same order and tie rule as first_of_group).
  const std::uint8_t* sweep_flags() const { return flags_[0].data(); }
  bool has_pair(Index, Index j) const { return j >= 0; }
  bool step(Index i, Index j) { return pair_step(i, j); }

  // G = p + Q a at the start, and Gbar = sum over upper-bounded t of U_t Q_t.
  void init_gradient() {
    // nu-SVR's start has a+_i = a-_i with equal bounds: Q a = 0 and the upper-bounded pairs
    // cancel in Gbar, so no kernel row is needed (LIBSVM computes them all).
    if (paired_start_) return;
    for (Index t = 0; t < l_; ++t) {
      if (at_lower(t)) continue;
      const float* Qt = Q_.row(t, l_);
      const double a = alpha_[t];
      const bool up = at_upper(t);
      const double u = U_[t];
      team_.chunks(l_, sweep_chunks(l_), [&](int, Index b, Index e) {
        for (Index k = b; k < e; ++k) G_[k] += a * static_cast<double>(Qt[k]);
        if (up)
          for (Index k = b; k < e; ++k) Gbar_[k] += u * static_cast<double>(Qt[k]);
      });
    }
  }

  // max over I_up of group g of -s G (and its index), over the active variables.
  double first_of_group(int g, Index* at) {
    const std::uint8_t* f = flags_[g].data();
    const int chunks = team_.chunks(active_, sweep_chunks(active_), [&](int c, Index b, Index e) {
      double m = -kInf;
      Index w = -1;
      for (Index t = b; t < e; ++t)
        if (f[t] & 1) {
          const double v = -s_[t] * G_[t];
          if (v >= m) {
            m = v;
            w = t;
          }
        }
      part_[c] = {m, 0.0, w};
    });
    double best = -kInf;
    *at = -1;
    for (int c = 0; c < chunks; ++c)
      if (part_[c].at >= 0 && part_[c].a >= best) {
        best = part_[c].a;
        *at = part_[c].at;
      }
    return best;
  }

  // The partner in group g of i (gmax = -s_i G_i): returns the selection value (lower is
  // better; +inf: none) in *value, the partner in *at, and max_{I_low(g)} s G.
  double second_of_group(int g, Index i, double gmax, double* value, Index* at) {
    const std::uint8_t* f = flags_[g].data();
    double gmax2 = -kInf;
    *value = kInf;
    *at = -1;
    if (second_order_ && i >= 0) {
      const float* Qi = Q_.row(i, active_);
      const double si = s_[i], qdi = QD_[i], tau = opt_.tau;
      const int chunks = team_.chunks(active_, sweep_chunks(active_), [&](int c, Index b, Index e) {
        double m2 = -kInf;
        Index w = -1;
        const double v = smo_select_second_order(G_.data(), s_.data(), QD_.data(), Qi, f, gmax, qdi,
                                                 si, tau, b, e, &m2, &w);
        part_[c] = {m2, v, w};
      });
      for (int c = 0; c < chunks; ++c) {
        gmax2 = std::max(gmax2, part_[c].a);
        if (part_[c].at >= 0 && part_[c].b <= *value) {
          *value = part_[c].b;
          *at = part_[c].at;
        }
      }
      return gmax2;
    }
    // max_violating_pair (or no i in this group): the extreme of I_low.
    Index w = -1;
    for (Index t = 0; t < active_; ++t)
      if ((f[t] & 2) && s_[t] * G_[t] >= gmax2) {
        gmax2 = s_[t] * G_[t];
        w = t;
      }
    if (i >= 0 && w >= 0 && gmax + gmax2 > 0.0) {
      *value = -(gmax + gmax2);
      *at = w;
    }
    return gmax2;
  }

  // Picks the pair (both in one group); returns the KKT gap over the active variables.
  double select(Index* pi, Index* pj) {
    double gap = 0.0, best = kInf;
    *pi = *pj = -1;
    for (int g = 0; g < 2; ++g) {
      if (g == 1 && !two_groups_) break;
      Index i = next_i_;
      double gmax = next_gmax_;
      if (g == 1 || !next_valid_) gmax = first_of_group(g, &i);
      if (g == 0) next_valid_ = false;
      double value = kInf;
      Index j = -1;
      const double gmax2 = second_of_group(g, i, gmax, &value, &j);
      if (i >= 0 && std::isfinite(gmax2)) gap = std::max(gap, gmax + gmax2);
      if (!std::isfinite(gmax) && i >= 0) gap = gmax;  // non-finite gradients
      if (j >= 0 && value <= best) {
        best = value;
        *pi = i;
        *pj = j;
      }
    }
    return gap;
  }

  // Extreme gradients per group: m[g][0] = max_{I_up(g)} -s G, m[g][1] = max_{I_low(g)} s G.
  void extremes(double m[2][2]) const {
    m[0][0] = m[0][1] = m[1][0] = m[1][1] = -kInf;
    for (Index t = 0; t < active_; ++t) {
      const int g = group(t);
      const std::uint8_t f = flags_[g][t];
      if (f & 1) m[g][0] = std::max(m[g][0], -s_[t] * G_[t]);
      if (f & 2) m[g][1] = std::max(m[g][1], s_[t] * G_[t]);
    }
  }

  // A bounded variable that cannot join a violating pair of its group: in I_up only, it is
  // no i while -s G stays below min_{I_low} -s G; in I_low only, no j while above the max.
  bool shrinkable(Index t, const double m[2][2]) const {
    const int g = group(t);
    const double sg = s_[t] * G_[t];
    switch (flags_[g][t]) {
      case 0:
        return true;  // U_t = 0: never moves
      case 1:
        return sg > m[g][1];
      case 2:
        return sg < -m[g][0];
      default:
        return false;  // free
    }
  }

  void shrink() {
    next_valid_ = false;
    double m[2][2];
    extremes(m);
    if (!unshrunk_ && std::max(m[0][0] + m[0][1], m[1][0] + m[1][1]) <= 10.0 * opt_.tol) {
      unshrunk_ = true;
      unshrink_all();
      extremes(m);
    }
    compact([&](Index t) { return shrinkable(t, m); });
  }

  // r of each group: the mean of s G over its free variables, else the midpoint of the
  // interval the bounded ones allow (+-infinity sides dropped).
  void group_rho(double* r_plus, double* r_minus) const {
    double ub[2] = {kInf, kInf}, lb[2] = {-kInf, -kInf}, sum[2] = {0.0, 0.0};
    Index nfree[2] = {0, 0};
    for (Index t = 0; t < l_; ++t) {
      const int g = group(t);
      const double sg = s_[t] * G_[t];
      const bool up = at_upper(t), low = at_lower(t);
      if (up && low) continue;  // U_t = 0: no information
      if ((up && s_[t] < 0) || (low && s_[t] > 0))
        ub[g] = std::min(ub[g], sg);
      else if (up || low)
        lb[g] = std::max(lb[g], sg);
      else {
        ++nfree[g];
        sum[g] += sg;
      }
    }
    double r[2];
    for (int g = 0; g < 2; ++g) {
      if (nfree[g] > 0)
        r[g] = sum[g] / static_cast<double>(nfree[g]);
      else if (std::isfinite(ub[g]) && std::isfinite(lb[g]))
        r[g] = 0.5 * (ub[g] + lb[g]);
      else
        r[g] = std::isfinite(ub[g]) ? ub[g] : (std::isfinite(lb[g]) ? lb[g] : 0.0);
    }
    *r_plus = r[0];
    *r_minus = -r[1];  // group -1 holds s G = -G: its r is defined on G itself
  }

  std::vector<std::uint8_t> flags_[2];
  double r_[2] = {0.0, 0.0};
};

// Fills a[t] for the t of one group in order, each min(U_t, what is left of total).
void greedy_fill(const std::vector<double>& U, const std::vector<double>& s, double sign,
                 double total, std::vector<double>& a) {
  for (std::size_t t = 0; t < U.size(); ++t) {
    if (s[t] != sign) continue;
    a[t] = std::min(U[t], total);
    total -= a[t];
  }
}

}  // namespace

SolveResult solve_smo_nu(const NuProblem& pr, const SmoOptions& opt, const Callbacks& cb) {
  validate_options(opt);
  const Index n = pr.n >= 0 ? pr.n : rows_of(pr.X);
  if (!(pr.nu > 0.0 && pr.nu <= 1.0)) throw_invalid("nu must be in (0, 1]");
  // The checks of solve_smo's problem (labels +-1 for nu-SVC only).
  KernelProblem kp;
  kp.X = pr.X;
  kp.rows = pr.rows;
  kp.n = n;
  kp.cost = pr.cost;
  kp.kernel = pr.kernel;
  kp.formulation =
      pr.formulation == NuFormulation::nu_svc ? SmoFormulation::svc : SmoFormulation::svr;
  std::vector<double> ones;
  if (pr.formulation == NuFormulation::one_class) {
    ones.assign(static_cast<std::size_t>(std::max<Index>(n, 0)), 1.0);
    kp.y = ones.data();
  } else {
    kp.y = pr.y;
  }
  validate_problem(kp, n, opt.check_input);
  double total = 0.0, pos = 0.0;
  for (Index i = 0; i < n; ++i) {
    total += pr.cost[i];
    if (kp.y[i] > 0) pos += pr.cost[i];
  }
  if (!(total > 0.0)) throw_invalid("the sample costs are all zero");
  if (pr.formulation == NuFormulation::nu_svc && pr.nu * total / 2.0 > std::min(pos, total - pos))
    throw_invalid(
        "specified nu is infeasible: nu * (n_+ + n_-) / 2 > min(n_+, n_-) (weighted "
        "class sizes " +
        std::to_string(pos) + " and " + std::to_string(total - pos) +
        "); choose nu <= 2 min(n_+, n_-) / (n_+ + n_-)");
  const int nt = resolve_threads(opt.n_threads);
  const double cache_bytes = opt.cache_size * 1048576.0;
  std::vector<Index> xrow(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) xrow[i] = pr.rows ? pr.rows[i] : i;
  ThreadTeam team(nt);
  const double nu_total = pr.nu * total;

  return std::visit(
      [&](const auto& V) -> SolveResult {
        using View = std::decay_t<decltype(V)>;
        if (pr.formulation == NuFormulation::nu_svr) {
          const Index l = 2 * n;
          std::vector<double> s(l), p(l), U(l), a(l, 0.0);
          double left = nu_total / 2.0;
          for (Index i = 0; i < n; ++i) {
            s[i] = 1.0;
            s[i + n] = -1.0;
            p[i] = -pr.y[i];
            p[i + n] = pr.y[i];
            U[i] = U[i + n] = pr.cost[i];
            a[i] = a[i + n] = std::min(left, pr.cost[i]);
            left -= a[i];
          }
          RegQ<View> Q(V, pr.kernel, team, xrow, 0.0, cache_bytes);
          NuSolver solver(Q, std::move(s), std::move(p), std::move(U), std::move(a), opt, cb, team);
          solver.paired_start_ = true;
          SolveResult res = solver.run();
          const auto& al = solver.alpha_original();
          auto& ex = std::get<SmoExtras>(res.extras);
          // Free a+: w.x - y = r_+ = -b - eps; free a-: y - w.x = r_- = b - eps.
          ex.bias = -(solver.r_plus() - solver.r_minus()) / 2.0;
          ex.nu_r = (solver.r_plus() + solver.r_minus()) / 2.0;
          ex.dual_coef.resize(n);
          for (Index i = 0; i < n; ++i) ex.dual_coef[i] = al[i] - al[i + n];
          res.solution = ex.dual_coef;
          return res;
        }
        const bool svc = pr.formulation == NuFormulation::nu_svc;
        std::vector<double> s(n), p(n, 0.0), U(n), a(n, 0.0);
        for (Index i = 0; i < n; ++i) {
          s[i] = svc ? pr.y[i] : 1.0;
          U[i] = pr.cost[i];
        }
        greedy_fill(U, s, 1.0, svc ? nu_total / 2.0 : nu_total, a);
        if (svc) greedy_fill(U, s, -1.0, nu_total / 2.0, a);
        ClassQ<View> Q(V, pr.kernel, team, xrow, s, 0.0, cache_bytes);
        NuSolver solver(Q, s, std::move(p), std::move(U), std::move(a), opt, cb, team);
        solver.two_groups_ = svc;
        SolveResult res = solver.run();
        const auto& al = solver.alpha_original();
        auto& ex = std::get<SmoExtras>(res.extras);
        ex.dual_coef.resize(n);
        if (!svc) {
          ex.bias = -solver.r_plus();
          ex.nu_r = solver.r_plus();
          ex.dual_coef = al;
        } else {
          const double r = (solver.r_plus() + solver.r_minus()) / 2.0;
          const double rho = (solver.r_plus() - solver.r_minus()) / 2.0;
          ex.nu_r = r;
          if (!(r > 0.0) || !std::isfinite(r)) {
            res.status = SolverStatus::numerical_error;
            res.message = "nu-SVC: the margin scale r is not positive (r = " + std::to_string(r) +
                          "); the classes cannot be separated at this nu";
            ex.bias = 0.0;
            for (Index i = 0; i < n; ++i) ex.dual_coef[i] = s[i] * al[i];
          } else {
            ex.bias = -rho / r;
            for (Index i = 0; i < n; ++i) ex.dual_coef[i] = s[i] * al[i] / r;
          }
        }
        res.solution = ex.dual_coef;
        return res;
      },
      pr.X);
}

}  // namespace svmkit
