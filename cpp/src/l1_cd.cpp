// l1_cd: CDN for the l1 (elastic-net) squared-hinge SVM (see solvers/l1_cd.hpp for the problem,
// the method and the stopping rule).
#include "svmkit/solvers/l1_cd.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "hinge_certificate.hpp"
#include "svmkit/data.hpp"
#include "svmkit/detail/branchless.hpp"
#include "svmkit/solvers/tron.hpp"

namespace svmkit {
namespace {

using Clock = std::chrono::steady_clock;

// Floor of the one-dimensional second derivative, so that a coordinate whose column meets no
// active row still gets a finite Newton direction.
constexpr double kCurvatureFloor = 1e-12;
// newGLMNET's model damping after a failed line search (Glmnet::increase_damping): the first
// fraction of each column's curvature bound, the growth per further failure, the largest (the
// model's diagonal then bounds the loss's curvature along each coordinate), and the factor that
// relaxes it after each accepted step. Needed where the loss's curvature vanishes far from its
// kink: psi_G at w = 0 with sigma = 0.1 has loss'' = phi(10) / 0.1 ~ 1e-21 on every row, so the
// undamped Newton step was ~1e12 and every trial failed (gaussian_smoothed_hinge with the l1
// penalty returned w = 0 and line_search_failed on every data set).
constexpr double kFirstDamping = 1e-4;
constexpr double kDampingGrowth = 10.0;
constexpr double kMaxDamping = 1.0;
constexpr double kDampingRelax = 0.1;
// Directions shorter than this are not worth a line search.
constexpr double kTinyStep = 1e-12;
// Stored entries visited between two polls of the interrupt hook inside an outer iteration.
constexpr double kPollEntries = 4.0 * (1 << 20);
// A shrunk run gets a full sweep after this many passes' worth of work since the last one. The
// shrinking test is a heuristic: a coordinate shrunk early can be needed at the optimum, and
// when the problem on the shrunk set converges slowly (correlated features) the stopping rule
// alone would not bring it back for a long time. The interval doubles after each forced sweep,
// so they cost O(log(passes)) passes in all.
constexpr double kRecheckPasses = 10.0;
// newGLMNET's banded model (Glmnet::build_band) costs about two sweeps of the active columns (the
// compact copy, then X d on every row for the line search): an inner solve switches to it after
// kBandAfterPasses exact passes (most models are solved by then), when its rows are at most
// kBandMaxShare of the kept rows. Measured against the exact model (hessian_cutoff = 0, same
// tol; bench/results/regimes.md's data): dna.scale psi_M / psi_G l1 0.26 / 0.29 s -> 0.13 /
// 0.11 s, its hinge l1 1.60 -> 1.12 s; sparse 20,000 x 10,000 hinge l1 3.6 -> 1.5 s; sparse
// 2,500 x 50,000 psi_G elastic net 0.064 -> 0.041 s; dense 12,500 x 50 psi_G l1 0.057 -> 0.040
// s, psi_M l1 0.024 s both (a band of 40-50% of the rows: the copy costs what it saves).
constexpr long long kBandAfterPasses = 3;
constexpr double kBandMaxShare = 0.5;
// The band's safeguard (Glmnet::judge_band): along each banded direction d the curvature the
// model left out, |d'(H - H~)d| (the other rows' off-diagonal part), is compared with the
// model's d'H~d. A model that far off makes newGLMNET a slow fixed-point iteration: on 800 x 300
// sparse text at sigma = 0.1, hessian_cutoff = 0.3 (ratio 0.88-0.96 on every direction) and 0.9
// ran into max_iter at tol 1e-9 where the exact model converges in 95 iterations; 1e-2 (median
// 0.52, at most 0.66) converges. After kBandStrikes directions above kBandTrust the solve keeps
// the exact model. At the default 1e-4 the ratio was at most 0.14 on every direction of
// bench/bench_l1_cd_band.py's cells but one (1.04, on dna.scale psi_G l1).
constexpr double kBandTrust = 0.75;
constexpr int kBandStrikes = 3;
// newGLMNET on the squared hinge stops at this fraction of LIBLINEAR's -s 5 rule: its measure,
// taken exactly at the start of a Newton iteration, falls faster than CDN's, summed during a
// sweep, and at the same tol it stopped 5-20x further from the optimum (standardized
// breast_cancer, C = 1: relative gaps 8.2e-2 / 7.1e-3 / 1.6e-4 at tol 1e-2 / 1e-3 / 1e-4, CDN's
// 1.5e-2 / 6.9e-4 / 8.1e-6). At a tenth of tol it stops within CDN's gaps: 7.1e-3 / 1.6e-4 /
// 3.7e-6 (run_cdn has the timings).
constexpr double kSquaredHingeTolScale = 0.1;

// How a newGLMNET solve reads max_iter and tol. The default is newGLMNET's own (LIBLINEAR -s 6):
// max_iter bounds the Newton iterations, tol is the rule's. The squared hinge keeps -s 5's
// meaning (its method there is CDN): max_iter bounds the coordinate sweeps and the rule runs at
// kSquaredHingeTolScale * tol (run_cdn passes kSquaredHingeBudget).
struct GlmnetBudget {
  bool max_iter_counts_sweeps = false;  // max_iter bounds the inner sweeps, not the iterations
  double tol_scale = 1.0;               // factor on tol in the stopping rule
  // Give up (Glmnet::stalled()) once an inner solve spends this many sweeps (it stops there,
  // its step is taken) at a point that already meets the rule at tol itself (tol_scale asks
  // for more); 0: never.
  long long stall_sweeps = 0;
};
// The squared hinge's newGLMNET hands over to CDN (run_cdn, default method only) once an inner
// solve spends kInnerStallSweeps sweeps at a point whose measure already meets -s 5's rule at tol
// itself: its coordinate descent on the quadratic model crawls where columns are collinear (a
// singular Hessian block, under its own rule at tol / 10), where CDN's one-variable Newton steps
// on the true objective meet -s 5's rule at once. Measured on make_classification(20,000, 100,
// n_informative=33) with its default 2 redundant (collinear) columns, C = 1: newGLMNET 1.57 s
// into max_iter (100-sweep inner solves from its 14th iteration, 1.5e-6 above CDN's objective by
// then), now 0.21 s converged (CDN alone 0.077 s, scikit-learn's liblinear 0.17 s). A cap of 20
// sweeps, or without the rule's condition, handed a9a, dna.scale, digits and the 26-class cell
// over too and made them 2-10x slower; as it is, the other sets of bench_l1_cd_methods.py take
// the same time, and mushrooms (handed over) ends converged 1.0e-2 above the best objective found
// where newGLMNET alone ran into max_iter 5.7e-4 above it (accuracy 100% both).
constexpr long long kInnerStallSweeps = 100;
constexpr GlmnetBudget kSquaredHingeBudget{true, kSquaredHingeTolScale, kInnerStallSweeps};

// Per-row costs: one value for every row (the common case: C without sample or class weights,
// no memory traffic) or one per row.
struct UniformCost {
  double c;
  double operator[](Index) const { return c; }
};
struct RowCost {
  const double* c;
  double operator[](Index i) const { return c[i]; }
};

using Lane0 = std::integral_constant<int, 0>;
using Lane1 = std::integral_constant<int, 1>;
// How many entries ahead the residual of a row is prefetched.
constexpr Index kPrefetch = 16;

// max(x, 0) and (b > 0 ? v : 0) without a branch (detail/branchless.hpp): whether a residual
// is positive is close to a coin flip over the rows of a column.
using detail::positive_part;
using detail::where_positive;

// Sparse column-major copy: column j holds (row, y_row * x_row,j) for rows of nonzero cost,
// rows renumbered to the kept ones, sorted by row, duplicates merged (explicit zeros are kept:
// they cost time, not accuracy). Only the features with a stored entry in a kept row get a
// column (on text data with d >> n most features are empty, and an empty column's optimum is
// w_j = 0: the loss does not depend on it and l1 + l2 > 0), so every per-coordinate vector of
// the solver is O(nonempty columns), not O(n_features). The bias column, when present, is last.
template <class Idx>
struct SparseColumns {
  std::vector<Index> ptr;  // n_cols + 1 offsets
  std::vector<Idx> row;    // kept-row number of each entry
  std::vector<double> val;
  std::vector<Index> feature;  // column j's index in the solution (w then b)
  Index n_cols() const { return static_cast<Index>(feature.size()); }
  Index original(Index j) const { return feature[j]; }
  template <class Fn>
  void each(Index j, Fn&& fn) const {
    const Idx* r = row.data();
    const double* v = val.data();
    for (Index k = ptr[j], e = ptr[j + 1]; k < e; ++k) fn(static_cast<Index>(r[k]), v[k]);
  }
  // The same with fn(lane, row, value), lane alternating 0, 1 (a compile-time constant): two
  // independent accumulator chains per sum halve the wait on floating-point add latency.
  template <class Fn>
  void each2(Index j, const double* pf, Fn&& fn) const {
    const Idx* r = row.data();
    const double* v = val.data();
    Index k = ptr[j];
    const Index e = ptr[j + 1];
    for (; k + 2 + kPrefetch <= e; k += 2) {
      __builtin_prefetch(pf + r[k + kPrefetch]);
      __builtin_prefetch(pf + r[k + kPrefetch + 1]);
      fn(Lane0{}, static_cast<Index>(r[k]), v[k]);
      fn(Lane1{}, static_cast<Index>(r[k + 1]), v[k + 1]);
    }
    for (; k + 2 <= e; k += 2) {
      fn(Lane0{}, static_cast<Index>(r[k]), v[k]);
      fn(Lane1{}, static_cast<Index>(r[k + 1]), v[k + 1]);
    }
    if (k < e) fn(Lane0{}, static_cast<Index>(r[k]), v[k]);
  }
  Index length(Index j) const { return ptr[j + 1] - ptr[j]; }
};

// Dense column-major copy: column j at val[j * rows], values y_i * x_ij over the kept rows.
struct DenseColumns {
  Index rows = 0;
  Index cols = 0;  // features, plus the bias column
  std::vector<double> val;
  Index n_cols() const { return cols; }
  Index original(Index j) const { return j; }
  template <class Fn>
  void each(Index j, Fn&& fn) const {
    const double* c = val.data() + j * rows;
    for (Index i = 0; i < rows; ++i) fn(i, c[i]);
  }
  double at(Index j, Index i) const { return val[j * rows + i]; }
  template <class Fn>
  void each2(Index j, const double*, Fn&& fn) const {
    const double* c = val.data() + j * rows;
    Index i = 0;
    for (; i + 2 <= rows; i += 2) {
      fn(Lane0{}, i, c[i]);
      fn(Lane1{}, i + 1, c[i + 1]);
    }
    if (i < rows) fn(Lane0{}, i, c[i]);
  }
  Index length(Index) const { return rows; }
};

// The rows of nonzero cost (zero-cost rows never change F) and their labels.
struct KeptRows {
  std::vector<Index> original;  // kept row -> original row
  std::vector<Index> renumber;  // original row -> kept row, or -1
};
KeptRows kept_rows(const LinearProblem& p) {
  KeptRows k;
  const Index n = rows_of(p.X);
  k.renumber.assign(static_cast<std::size_t>(n), -1);
  for (Index i = 0; i < n; ++i)
    if (p.cost[i] > 0.0) {
      k.renumber[i] = static_cast<Index>(k.original.size());
      k.original.push_back(i);
    }
  return k;
}

void check_copy_budget(double bytes, const L1CdOptions& opt) {
  const double mb = bytes / (1024.0 * 1024.0);
  if (mb > opt.max_copy_mb)
    throw_invalid("l1_cd needs a column-major copy of X of " + std::to_string(mb) +
                  " MiB, more than max_copy_mb = " + std::to_string(opt.max_copy_mb) +
                  "; raise the option max_copy_mb or use another solver");
}

// Builds the sparse copy from CSR input (one counting pass, one filling pass). The counts
// over all features are the one transient O(n_features) buffer.
template <class Idx, class T, class I>
SparseColumns<Idx> sparse_copy(const CsrView<T, I>& X, const LinearProblem& p, const KeptRows& k,
                               const L1CdOptions& opt) {
  const Index n_kept = static_cast<Index>(k.original.size());
  std::vector<Index> next(static_cast<std::size_t>(X.cols), 0);  // counts, then fill cursors
  Index nnz = 0;
  for (Index r = 0; r < n_kept; ++r) {
    const Index i = k.original[r];
    for (I q = X.indptr[i]; q < X.indptr[i + 1]; ++q) ++next[static_cast<Index>(X.indices[q])];
    nnz += static_cast<Index>(X.indptr[i + 1] - X.indptr[i]);
  }
  Index nonempty = 0;
  for (Index j = 0; j < X.cols; ++j) nonempty += next[j] > 0 ? 1 : 0;
  const Index nc = nonempty + (p.fit_intercept ? 1 : 0);
  if (p.fit_intercept) nnz += n_kept;
  check_copy_budget(static_cast<double>(nnz) * (sizeof(double) + sizeof(Idx)) + 16.0 * (nc + 1),
                    opt);
  SparseColumns<Idx> c;
  c.ptr.reserve(static_cast<std::size_t>(nc + 1));
  c.feature.reserve(static_cast<std::size_t>(nc));
  c.ptr.push_back(0);
  for (Index j = 0; j < X.cols; ++j) {
    if (next[j] == 0) continue;
    const Index begin = c.ptr.back();
    c.ptr.push_back(begin + next[j]);
    c.feature.push_back(j);
    next[j] = begin;
  }
  Index bias_next = c.ptr.back();
  if (p.fit_intercept) {
    c.ptr.push_back(bias_next + n_kept);
    c.feature.push_back(X.cols);
  }
  c.row.resize(static_cast<std::size_t>(nnz));
  c.val.resize(static_cast<std::size_t>(nnz));
  // Rows in increasing order: each column comes out sorted by row, duplicates adjacent.
  for (Index r = 0; r < n_kept; ++r) {
    const Index i = k.original[r];
    const double yi = p.y[i];
    for (I q = X.indptr[i]; q < X.indptr[i + 1]; ++q) {
      const Index pos = next[static_cast<Index>(X.indices[q])]++;
      c.row[pos] = static_cast<Idx>(r);
      c.val[pos] = yi * static_cast<double>(X.data[q]);
    }
    if (p.fit_intercept) {
      const Index pos = bias_next++;
      c.row[pos] = static_cast<Idx>(r);
      c.val[pos] = yi * p.intercept_scaling;
    }
  }
  next = std::vector<Index>();  // release before the solver allocates
  // Merge duplicates in place.
  Index out = 0;
  for (Index j = 0; j < nc; ++j) {
    const Index b = c.ptr[j], e = c.ptr[j + 1];
    c.ptr[j] = out;
    for (Index q = b; q < e; ++q) {
      if (out > c.ptr[j] && c.row[out - 1] == c.row[q]) {
        c.val[out - 1] += c.val[q];
      } else {
        c.row[out] = c.row[q];
        c.val[out++] = c.val[q];
      }
    }
  }
  c.ptr[nc] = out;
  c.row.resize(static_cast<std::size_t>(out));
  c.val.resize(static_cast<std::size_t>(out));
  return c;
}

// Builds the dense copy from dense input of either layout.
template <class V>
DenseColumns dense_copy(const V& X, const LinearProblem& p, const KeptRows& k,
                        const L1CdOptions& opt) {
  const Index n_kept = static_cast<Index>(k.original.size());
  const Index nc = X.cols + (p.fit_intercept ? 1 : 0);
  check_copy_budget(8.0 * static_cast<double>(n_kept) * static_cast<double>(nc), opt);
  DenseColumns c;
  c.rows = n_kept;
  c.cols = nc;
  c.val.resize(static_cast<std::size_t>(n_kept * nc));
  for (Index r = 0; r < n_kept; ++r) {
    const Index i = k.original[r];
    const double yi = p.y[i];
    for_each_in_row(X, i, [&](Index j, double v) { c.val[j * n_kept + r] = yi * v; });
    if (p.fit_intercept) c.val[(nc - 1) * n_kept + r] = yi * p.intercept_scaling;
  }
  return c;
}

// A Fisher-Yates shuffle of a[0..n) with our own bounded draws, so that the order depends
// only on the seed (std::shuffle's algorithm is left to the standard library).
void shuffle(std::vector<Index>& a, Index n, std::mt19937_64& rng) {
  for (Index s = 0; s + 1 < n; ++s) {
    const auto span = static_cast<std::uint64_t>(n - s);
    const std::uint64_t r = rng();
    // Multiply-shift instead of a division (spans below 2^32, i.e. always in practice).
    const std::uint64_t u = span <= 0xffffffffULL ? ((r >> 32) * span) >> 32 : r % span;
    const Index t = s + static_cast<Index>(u);
    std::swap(a[s], a[t]);
  }
}

// The CDN iterations over one column store.
template <class Cols, class Cost>
class Cdn {
 public:
  Cdn(const Cols& cols, Cost cost, Index n_kept, Index n_solution, Index n_samples,
      const LinearProblem& p, const L1CdPenalty& pen, const L1CdOptions& opt, const Callbacks& cb,
      double total_entries)
      : cols_(cols),
        cost_(cost),
        b_(static_cast<std::size_t>(n_kept), 1.0),
        nc_(cols.n_cols()),
        n_solution_(n_solution),
        n_samples_(n_samples),
        opt_(opt),
        cb_(cb),
        total_entries_(std::max(1.0, total_entries)),
        rng_(static_cast<std::uint64_t>(opt.seed)) {
    pen_l1_ = pen.l1;
    pen_l2_ = pen.l2;
    free_bias_ = p.fit_intercept && !p.regularize_intercept;
    // sum_i cost_i x_ij^2: the curvature bound of the squared hinge along coordinate j.
    col_sq_.assign(static_cast<std::size_t>(nc_), 0.0);
    for (Index j = 0; j < nc_; ++j) {
      double s = 0.0;
      cols_.each(j, [&](Index i, double v) { s += cost_[i] * v * v; });
      col_sq_[j] = s;
    }
    entries_ += total_entries_;
    // LIBLINEAR scales the tolerance of its l1 solvers by the share of the smaller class.
    Index pos = 0;
    for (Index i = 0; i < n_samples; ++i) pos += p.y[i] > 0.0 ? 1 : 0;
    balance_ = static_cast<double>(std::max<Index>(std::min(pos, n_samples - pos), 1)) /
               static_cast<double>(std::max<Index>(n_samples, 1));
  }

  SolveResult run(const double* w0);

 private:
  // Sets b = 1 - y .* (X w) from scratch (one pass).
  void recompute_residuals() {
    std::fill(b_.begin(), b_.end(), 1.0);
    for (Index j = 0; j < nc_; ++j) {
      const double wj = w_[j];
      if (wj == 0.0) continue;
      cols_.each(j, [&](Index i, double v) { b_[i] -= wj * v; });
    }
    entries_ += total_entries_;
  }
  double objective() const {
    double f = 0.0;
    for (std::size_t i = 0; i < b_.size(); ++i)
      if (b_[i] > 0.0) f += cost_[static_cast<Index>(i)] * b_[i] * b_[i];
    // A coordinate leaves the active set only at w_j = 0 (visit), so the penalty is a sum over
    // the active set: the history's objective after each sweep must not cost O(n_features)
    // (on sparse 2,000 x 50,000 it was 30% of the fit, 940 sweeps over ~290 active columns).
    for (Index s = 0; s < active_; ++s) {
      const Index j = order_[s];
      f += l1(j) * std::fabs(w_[j]) + 0.5 * l2(j) * w_[j] * w_[j];
    }
    return f;
  }
  // The stopping measure at w = 0 (every b_i = 1), the reference of a warm start.
  double measure_at_zero() {
    double total = 0.0;
    for (Index j = 0; j < nc_; ++j) {
      double g = 0.0;
      cols_.each(j, [&](Index i, double v) { g += cost_[i] * v; });
      total += std::max(0.0, std::fabs(-2.0 * g) - l1(j));
    }
    entries_ += total_entries_;
    return total;
  }
  bool poll_if_due() {
    if (entries_ - entries_at_poll_ < kPollEntries) return false;
    entries_at_poll_ = entries_;
    return cb_.poll();
  }
  // One coordinate: returns false when j is shrunk out of the active set.
  bool visit(Index j, double shrink_margin, double* violation);
  // Armijo backtracking along z = lambda d; b follows the trial point. Returns the step taken.
  double line_search(Index j, double d, double g, double g_loss);
  // One outer iteration over active_ coordinates; returns the stopping measure.
  double sweep(double shrink_margin, double* max_violation, bool* interrupted);
  SolveResult finish(SolveResult res, double measure);

  const Cols& cols_;
  Cost cost_;
  std::vector<double> b_;  // residuals 1 - y_i w.x_i of the kept rows
  Index nc_;               // columns of the store (nonempty features, then the bias)
  Index n_solution_;       // n_features (+ 1 with an intercept)
  Index n_samples_;
  const L1CdOptions& opt_;
  const Callbacks& cb_;
  double total_entries_;
  std::mt19937_64 rng_;
  // The penalty weights of coordinate j: one pair for all, except a free bias (the last column).
  double l1(Index j) const { return free_bias_ && j == nc_ - 1 ? 0.0 : pen_l1_; }
  double l2(Index j) const { return free_bias_ && j == nc_ - 1 ? 0.0 : pen_l2_; }

  std::vector<double> w_, col_sq_;
  double pen_l1_ = 0.0, pen_l2_ = 0.0;
  std::vector<Index> order_;  // order_[0 .. active_) are the active coordinates
  Index active_ = 0;
  bool free_bias_ = false;
  double balance_ = 1.0;  // min(#positive, #negative) / n_samples (at least 1 / n_samples)
  double entries_ = 0.0, entries_at_poll_ = 0.0, entries_at_full_ = 0.0;
  double recheck_ = kRecheckPasses;
  long long steps_ = 0, failures_ = 0;
  double max_change_ = 0.0;
};

template <class Cols, class Cost>
double Cdn<Cols, Cost>::line_search(Index j, double d, double g, double g_loss) {
  const double wj = w_[j], l1 = this->l1(j), l2 = this->l2(j);
  const double delta = g * d + l1 * (std::fabs(wj + d) - std::fabs(wj));
  double z = d, at = 0.0;  // trial step and the step b currently reflects
  // The loss over column j's rows at z = 0, summed in the first exact evaluation's pass (most
  // steps pass the bound test and never need it).
  double loss_old = 0.0;
  for (int t = 0; t < opt_.max_line_search; ++t) {
    const double pen = l1 * (std::fabs(wj + z) - std::fabs(wj)) + l2 * (wj * z + 0.5 * z * z);
    const double bound = pen + g_loss * z + col_sq_[j] * z * z;
    const double target = opt_.sigma * (z / d) * delta;
    if (bound <= target) {
      const double move = z - at;
      cols_.each(j, [&](Index i, double v) { b_[i] -= move * v; });
      entries_ += static_cast<double>(cols_.length(j));
      return z;
    }
    // Exact loss change over the rows of column j, moving b to the trial point on the way.
    const double move = z - at;
    double ln[2] = {0.0, 0.0};
    if (t == 0) {
      double lo[2] = {0.0, 0.0};
      cols_.each2(j, b_.data(), [&](auto lane, Index i, double v) {
        const double b0 = b_[i];
        const double bi = b0 - move * v;
        b_[i] = bi;
        const double p0 = positive_part(b0);
        const double bp = positive_part(bi);
        lo[lane] += cost_[i] * p0 * p0;
        ln[lane] += cost_[i] * bp * bp;
      });
      loss_old = lo[0] + lo[1];
    } else {
      cols_.each2(j, b_.data(), [&](auto lane, Index i, double v) {
        const double bi = b_[i] - move * v;
        b_[i] = bi;
        const double bp = positive_part(bi);
        ln[lane] += cost_[i] * bp * bp;
      });
    }
    const double loss_new = ln[0] + ln[1];
    entries_ += static_cast<double>(cols_.length(j));
    at = z;
    if (pen + (loss_new - loss_old) <= target) return z;
    z *= opt_.beta;
  }
  // No acceptable step: undo, from scratch so that accumulated rounding goes too.
  ++failures_;
  recompute_residuals();
  return 0.0;
}

template <class Cols, class Cost>
bool Cdn<Cols, Cost>::visit(Index j, double shrink_margin, double* violation) {
  // Branch-free (positive_part, where_positive).
  double gs[2] = {0.0, 0.0}, hs[2] = {0.0, 0.0};
  if constexpr (std::is_same_v<Cost, UniformCost>) {
    cols_.each2(j, b_.data(), [&](auto lane, Index i, double v) {
      const double bi = b_[i];
      const double bp = positive_part(bi);
      const double on = where_positive(bi, v);
      gs[lane] += v * bp;
      hs[lane] += on * v;
    });
    for (int q = 0; q < 2; ++q) {
      gs[q] *= cost_.c;
      hs[q] *= cost_.c;
    }
  } else {
    cols_.each2(j, b_.data(), [&](auto lane, Index i, double v) {
      const double bi = b_[i], c = cost_[i];
      const double bp = positive_part(bi);
      const double on = where_positive(bi, c * v);
      gs[lane] += c * v * bp;
      hs[lane] += on * v;
    });
  }
  double g = gs[0] + gs[1], h = hs[0] + hs[1];
  entries_ += static_cast<double>(cols_.length(j));
  const double wj = w_[j], l1 = this->l1(j), l2 = this->l2(j);
  const double g_loss = -2.0 * g;
  g = g_loss + l2 * wj;
  h = 2.0 * h + l2 + kCurvatureFloor;
  const double gp = g + l1, gn = g - l1;
  const bool penalized = !(free_bias_ && j == nc_ - 1);
  if (!penalized) {
    *violation = std::fabs(g);
  } else if (wj > 0.0) {
    *violation = std::fabs(gp);
  } else if (wj < 0.0) {
    *violation = std::fabs(gn);
  } else if (gp < 0.0) {
    *violation = -gp;
  } else if (gn > 0.0) {
    *violation = gn;
  } else {
    *violation = 0.0;
    // Deep inside the dead zone: unlikely to leave zero soon.
    if (gp > shrink_margin && gn < -shrink_margin) return false;
  }
  // Minimizer of l1 |wj + d| + g d + h/2 d^2 (soft threshold).
  double d;
  if (gp <= h * wj)
    d = -gp / h;
  else if (gn >= h * wj)
    d = -gn / h;
  else
    d = -wj;
  // A move to zero is taken however small (w_j lands on 0 exactly): a coordinate left at
  // 1e-18 would count its full violation |g + l1| in the stopping measure forever.
  if (d == 0.0 || (d != -wj && std::fabs(d) < kTinyStep)) return true;
  ++steps_;
  const double z = line_search(j, d, g, g_loss);
  w_[j] = wj + z;
  max_change_ = std::max(max_change_, std::fabs(z));
  return true;
}

template <class Cols, class Cost>
double Cdn<Cols, Cost>::sweep(double shrink_margin, double* max_violation, bool* interrupted) {
  shuffle(order_, active_, rng_);
  double measure = 0.0, vmax = 0.0;
  for (Index s = 0; s < active_; ++s) {
    const Index j = order_[s];
    double v = 0.0;
    if (!visit(j, shrink_margin, &v)) {
      std::swap(order_[s], order_[active_ - 1]);
      --active_;
      --s;
      continue;
    }
    measure += v;
    vmax = std::max(vmax, v);
    if (poll_if_due()) {
      *interrupted = true;
      break;
    }
  }
  *max_violation = vmax;
  return measure;
}

template <class Cols, class Cost>
SolveResult Cdn<Cols, Cost>::run(const double* w0) {
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  SolveResult res;
  w_.assign(static_cast<std::size_t>(nc_), 0.0);
  double reference = -1.0;  // cold start: the first iteration's measure
  if (w0) {
    for (Index j = 0; j < nc_; ++j) w_[j] = w0[cols_.original(j)];
    reference = measure_at_zero();
    recompute_residuals();
  }
  order_.resize(static_cast<std::size_t>(nc_));
  for (Index j = 0; j < nc_; ++j) order_[j] = j;
  active_ = nc_;
  const double inf = std::numeric_limits<double>::infinity();
  double prev_max = inf, measure = kNaN;
  res.status = SolverStatus::max_iter;
  long long iter = 0;
  while (iter < opt_.max_iter) {
    ++iter;
    const long long steps_before = steps_;
    max_change_ = 0.0;
    bool interrupted = cb_.poll();
    double vmax = 0.0;
    if (active_ < nc_ && entries_ - entries_at_full_ > recheck_ * total_entries_) {
      active_ = nc_;
      prev_max = inf;
      recheck_ *= 2.0;  // forced sweeps cost O(log) passes over a long run
    }
    if (active_ == nc_) entries_at_full_ = entries_;
    if (!interrupted)
      measure = sweep(opt_.shrinking ? prev_max / static_cast<double>(n_samples_) : inf, &vmax,
                      &interrupted);
    if (interrupted) {
      res.status = SolverStatus::interrupted;
      break;
    }
    if (reference < 0.0) reference = measure;
    bool done = false;
    if (!std::isfinite(measure)) {
      res.status = SolverStatus::numerical_error;
      done = true;
    } else if (measure <= opt_.tol * balance_ * reference) {
      if (active_ == nc_) {
        res.status = SolverStatus::converged;
        done = true;
      } else {  // converged on the shrunk set: check every coordinate again
        active_ = nc_;
        vmax = inf;
      }
    }
    prev_max = vmax;
    if (opt_.record_history || cb_.on_iteration) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.objective = objective();
      rec.optimality = measure;
      rec.step = max_change_;
      rec.inner_iterations = steps_ - steps_before;
      rec.active_size = active_;
      rec.passes = static_cast<long long>(std::ceil(entries_ / total_entries_));
      rec.time = elapsed();
      if (!report_iteration(res, rec, opt_.record_history, cb_) && !done) {
        res.status = SolverStatus::interrupted;
        done = true;
      }
    }
    if (done) break;
  }
  res.iterations = iter;
  res = finish(std::move(res), measure);
  res.time = elapsed();
  return res;
}

template <class Cols, class Cost>
SolveResult Cdn<Cols, Cost>::finish(SolveResult res, double measure) {
  // The objective from exact residuals, free of the rounding the updates accumulated.
  recompute_residuals();
  res.objective = objective();
  res.optimality = measure;
  if (!std::isfinite(res.objective)) res.status = SolverStatus::numerical_error;
  res.inner_iterations = steps_;
  res.passes = static_cast<long long>(std::ceil(entries_ / total_entries_));
  // Features without a column sit at their optimum 0.
  res.solution.assign(static_cast<std::size_t>(n_solution_), 0.0);
  for (Index j = 0; j < nc_; ++j) res.solution[cols_.original(j)] = w_[j];
  return res;
}

// loss(u + du) - loss(u) without the cancellation of subtracting two values (the line search
// compares it with a predicted decrease that goes to 0 near the optimum).
// psi_M(t) = (t + r(t)) / 2, r = sqrt(t^2 + s^2): the difference of the square roots is
// (a^2 - b^2) / (r(a) + r(b)), here with a - b = -du.
inline double loss_change(const SmoothedHingeLoss& l, double u, double du) {
  const double b = 1.0 - u, a = b - du;
  const double ra = std::hypot(a, l.sigma), rb = std::hypot(b, l.sigma);
  return -0.5 * du * (1.0 + (a + b) / (ra + rb));
}
// The squared hinge: max(0, 1 - u - du)^2 - max(0, 1 - u)^2 = (a - b)(a + b).
inline double loss_change(const SquaredHingeLoss&, double u, double du) {
  const double a = std::max(0.0, 1.0 - u - du), b = std::max(0.0, 1.0 - u);
  return (a - b) * (a + b);
}
// psi_G: the integral of its derivative -Phi((1 - u - x) / sigma) over [0, du], by 5-point
// Gauss-Legendre while the step is within sigma (where Phi is smooth on that scale); a direct
// difference for longer steps (far from the optimum, where no digits are at stake).
inline double loss_change(const GaussianSmoothedHingeLoss& l, double u, double du) {
  if (!(std::fabs(du) <= l.sigma)) return l.value(u + du) - l.value(u);
  static constexpr double kNodes[5] = {0.0, -0.5384693101056831, 0.5384693101056831,
                                       -0.9061798459386640, 0.9061798459386640};
  static constexpr double kWeights[5] = {0.5688888888888889, 0.4786286704993665, 0.4786286704993665,
                                         0.2369268850561891, 0.2369268850561891};
  double sum = 0.0;
  for (int k = 0; k < 5; ++k) sum += kWeights[k] * l.d1(u + 0.5 * du * (1.0 + kNodes[k]));
  return 0.5 * du * sum;
}

// newGLMNET over one column store (see solvers/l1_cd.hpp): outer Newton iterations, each
// minimizing the l1-regularized quadratic model by CDN with its own shrinking, then a line search
// on F along the direction. Loss: LogisticLoss (LIBLINEAR -s 6), or a smoothed hinge of
// loss.hpp (value, d1, d2 at the margin u); the logistic loss keeps its overflow-free weights and
// its cancellation-free line-search differences.
template <class Cols, class Cost, class Loss>
class Glmnet {
 public:
  Glmnet(const Cols& cols, Cost cost, Loss loss, Index n_kept, Index n_solution, Index n_samples,
         const LinearProblem& p, const L1CdPenalty& pen, const L1CdOptions& opt,
         const Callbacks& cb, double total_entries, GlmnetBudget budget = {})
      : cols_(cols),
        cost_(cost),
        loss_(loss),
        budget_(budget),
        n_kept_(n_kept),
        nc_(cols.n_cols()),
        n_solution_(n_solution),
        n_samples_(n_samples),
        opt_(opt),
        cb_(cb),
        total_entries_(std::max(1.0, total_entries)),
        rng_(static_cast<std::uint64_t>(opt.seed)) {
    pen_l1_ = pen.l1;
    pen_l2_ = pen.l2;
    const bool free_bias = p.fit_intercept && !p.regularize_intercept;
    has_bias_ = p.fit_intercept;
    bias_l1_ = free_bias ? 0.0 : pen.l1;
    bias_l2_ = free_bias ? 0.0 : pen.l2;
    Index pos = 0;
    for (Index i = 0; i < n_samples; ++i) pos += p.y[i] > 0.0 ? 1 : 0;
    balance_ = static_cast<double>(std::max<Index>(std::min(pos, n_samples - pos), 1)) /
               static_cast<double>(std::max<Index>(n_samples, 1));
    const auto nk = static_cast<std::size_t>(n_kept);
    const auto ncs = static_cast<std::size_t>(nc_);
    z_.assign(nk, 0.0);
    s_.assign(nk, 0.0);
    q_.assign(nk, 0.0);
    dd_.assign(nk, 0.0);
    xtd_.assign(nk, 0.0);
    w_.assign(ncs, 0.0);
    d_.assign(ncs, 0.0);
    grad_.assign(ncs, 0.0);
    hess_.assign(ncs, 0.0);
    order_.resize(ncs);
    inner_.resize(ncs);
  }

  SolveResult run(const double* w0);

  // The hinge's problem (as smsvm's): the bias carries l2 as regularize_intercept says, never l1.
  void exempt_bias_from_l1() { bias_l1_ = 0.0; }
  // The current iterate in the problem's columns (zero on the columns without an entry).
  std::vector<double> solution() const {
    std::vector<double> out(static_cast<std::size_t>(n_solution_), 0.0);
    for (Index j = 0; j < nc_; ++j) out[cols_.original(j)] = w_[j];
    return out;
  }
  // Whether run() gave up on an inner solve of GlmnetBudget::stall_sweeps sweeps.
  bool stalled() const { return stalled_; }
  // Inner sweeps spent (the unit of max_iter under max_iter_counts_sweeps).
  long long sweeps() const { return total_inner_; }

 private:
  double l1(Index j) const { return has_bias_ && j == nc_ - 1 ? bias_l1_ : pen_l1_; }
  double l2(Index j) const { return has_bias_ && j == nc_ - 1 ? bias_l2_ : pen_l2_; }
  // What the model's diagonal adds at j beyond the rows' curvature: l2, the floor and the
  // Levenberg-Marquardt damping (gradient(), build_band and judge_band share it).
  double diagonal_shift(Index j) const {
    return l2(j) + kCurvatureFloor + (damping_ > 0.0 ? damping_ * bound_[j] : 0.0);
  }
  // Margins z = (y .* X) w from scratch (one pass).
  void recompute_margins() {
    std::fill(z_.begin(), z_.end(), 0.0);
    for (Index j = 0; j < nc_; ++j) {
      const double wj = w_[j];
      if (wj != 0.0) cols_.each(j, [&](Index i, double v) { z_[i] += wj * v; });
    }
    entries_ += total_entries_;
  }
  double objective() const {
    double f = 0.0;
    for (Index i = 0; i < n_kept_; ++i) f += cost_[i] * loss_.value(z_[i]);
    for (Index j = 0; j < nc_; ++j) f += l1(j) * std::fabs(w_[j]) + 0.5 * l2(j) * w_[j] * w_[j];
    return f;
  }
  // The minimum-norm subgradient's magnitude at coordinate j (g: the smooth part's gradient).
  double violation(Index j, double wj, double g) const {
    const double l1 = this->l1(j), gp = g + l1, gn = g - l1;
    if (wj > 0.0) return std::fabs(gp);
    if (wj < 0.0) return std::fabs(gn);
    return gp < 0.0 ? -gp : (gn > 0.0 ? gn : 0.0);
  }
  bool poll_if_due() {
    if (entries_ - entries_at_poll_ < kPollEntries) return false;
    entries_at_poll_ = entries_;
    return cb_.poll();
  }
  // Row weights at the current margins, then the gradient and Hessian diagonal of the active
  // coordinates; shrinks zero coordinates deep in the dead zone. Returns the stopping measure.
  double gradient(double shrink_margin, double* vmax);
  // CDN on the quadratic model; returns false when interrupted.
  bool inner(double reference);
  // The banded model's compact copy (hessian_cutoff): the active columns' entries in the rows
  // whose Hessian weight is at least the cutoff times the largest, and each column's curvature
  // from the other rows; false (the exact model is used) when the band is too wide to pay.
  bool build_band();
  // After a banded inner solve (xtd_ holds (y .* X) d on every kept row): counts a strike when
  // the curvature the band left out along d exceeds kBandTrust times the model's.
  void judge_band();
  // The model's coordinate step at j, given g, the model's gradient along j at d (damping
  // added here): sets d_j and calls update(change of d_j) to update the row products. Returns
  // j's violation for the stopping measure, or -1 when j is to be shrunk from the inner set.
  template <class Update>
  double inner_step(Index j, double g, double margin, Update&& update);
  // Armijo search along d; returns the step (0 when it fails).
  double line_search();
  // After a failed line search: adds (more) damping * bound_j to the model's diagonal and to
  // the active coordinates' curvatures; false once damping is at kMaxDamping (then the failure
  // stands).
  bool increase_damping();
  SolveResult finish(SolveResult res, double measure);

  static constexpr bool kLogistic = std::is_same_v<Loss, LogisticLoss>;
  const Cols& cols_;
  Cost cost_;
  Loss loss_;
  GlmnetBudget budget_;
  Index n_kept_, nc_, n_solution_, n_samples_;
  const L1CdOptions& opt_;
  const Callbacks& cb_;
  double total_entries_;
  std::mt19937_64 rng_;
  double pen_l1_ = 0.0, pen_l2_ = 0.0, balance_ = 1.0;
  bool has_bias_ = false;
  double bias_l1_ = 0.0, bias_l2_ = 0.0;  // the bias's own penalty weights
  // Per kept row: margin, sigmoid(-margin), cost * sigmoid(-margin) (minus the loss
  // derivative), the Hessian weight cost * p (1 - p), and (y .* X) d.
  std::vector<double> z_, q_, s_, dd_, xtd_;
  std::vector<double> w_, d_, grad_, hess_;  // per column
  std::vector<Index> order_, inner_;         // outer and inner active sets (prefixes)
  Index active_ = 0;
  // The banded model (build_band): per band row its kept row's Hessian weight and (y .* X) d;
  // per active column its band entries (band_ptr_ by slot, band_slot_ by column) and the
  // curvature of the rows left out (their diagonal part only: H~ = X_B' D_B X_B + diag(X_R' D_R
  // X_R) + (l2 + floor) I, positive definite, so d is still a descent direction); band_of_row_:
  // kept row -> band row or -1; band_rows_: band row -> kept row.
  // The copy's entries are 4-byte rows and float values (8 bytes, against 16): the banded model
  // is an approximation already, and it is used consistently (its H~ is X~_B' D_B X~_B + the
  // diagonal with X~_B the rounded values), so d stays a descent direction.
  std::vector<Index> band_of_row_, band_rows_, band_ptr_, band_slot_;
  std::vector<std::int32_t> band_row_;
  std::vector<float> band_val_;
  std::vector<double> band_dd_, band_xtd_, rest_diag_;
  int band_strikes_ = 0;  // judge_band; at kBandStrikes the exact model is kept
  // F at w, for the history: evaluated once, then moved by each accepted step's change, which
  // the line search computes anyway (an evaluation per iteration, a transcendental per row,
  // cost 4-21% of the fit: dense 10,000 x 50 logistic l1 0.0143 -> 0.0114 s). finish()
  // evaluates the returned objective from scratch.
  double f_ = kNaN;
  double inner_eps_ = 1.0;
  double entries_ = 0.0, entries_at_poll_ = 0.0;
  long long inner_passes_ = 0, total_inner_ = 0;
  bool stalled_ = false;
  long long stall_cap_ = 0;  // this iteration's inner sweep cap (0: none; see run())
  // Levenberg-Marquardt damping of the quadratic model (increase_damping): its diagonal gets
  // damping_ * bound_j, bound_j = loss.d2_max() * sum_i cost_i x_ij^2 (the column's curvature
  // with every row at the loss's peak), filled at the first failure.
  double damping_ = 0.0;
  std::vector<double> bound_;
};

template <class Cols, class Cost, class Loss>
bool Glmnet<Cols, Cost, Loss>::increase_damping() {
  if (damping_ >= kMaxDamping) return false;
  if (bound_.empty()) {
    bound_.assign(static_cast<std::size_t>(nc_), 0.0);
    const double peak = loss_.d2_max();
    for (Index j = 0; j < nc_; ++j) {
      double b = 0.0;
      cols_.each(j, [&](Index i, double v) { b += cost_[i] * v * v; });
      bound_[j] = peak * b;
    }
    entries_ += total_entries_;
  }
  const double before = damping_;
  damping_ = damping_ == 0.0 ? kFirstDamping : std::min(kMaxDamping, damping_ * kDampingGrowth);
  for (Index s = 0; s < active_; ++s) hess_[order_[s]] += (damping_ - before) * bound_[order_[s]];
  return true;
}

template <class Cols, class Cost, class Loss>
double Glmnet<Cols, Cost, Loss>::gradient(double shrink_margin, double* vmax) {
  for (Index i = 0; i < n_kept_; ++i) {
    const double zi = z_[i], c = cost_[i];
    if constexpr (kLogistic) {
      // p = sigmoid(z), q = 1 - p from one exponential of -|z| (no overflow, no cancellation).
      const double e = std::exp(-std::fabs(zi)), r = 1.0 / (1.0 + e);
      const double p = zi >= 0.0 ? r : e * r, q = zi >= 0.0 ? e * r : r;
      q_[i] = q;
      s_[i] = c * q;
      dd_[i] = c * p * q;
    } else {
      s_[i] = -c * loss_.d1(zi);
      dd_[i] = c * loss_.d2(zi);
    }
  }
  double measure = 0.0, top = 0.0;
  for (Index s = 0; s < active_; ++s) {
    const Index j = order_[s];
    double gs[2] = {0.0, 0.0}, hs[2] = {0.0, 0.0};
    cols_.each2(j, s_.data(), [&](auto lane, Index i, double v) {
      gs[lane] += s_[i] * v;
      hs[lane] += dd_[i] * v * v;
    });
    entries_ += static_cast<double>(cols_.length(j));
    const double wj = w_[j];
    const double g = -(gs[0] + gs[1]) + l2(j) * wj;
    grad_[j] = g;
    hess_[j] = hs[0] + hs[1] + diagonal_shift(j);
    const double l1 = this->l1(j);
    if (wj == 0.0 && l1 > 0.0 && g + l1 > shrink_margin && g - l1 < -shrink_margin) {
      std::swap(order_[s], order_[active_ - 1]);
      --active_;
      --s;
      continue;
    }
    const double v = violation(j, wj, g);
    measure += v;
    top = std::max(top, v);
  }
  *vmax = top;
  return measure;
}

template <class Cols, class Cost, class Loss>
bool Glmnet<Cols, Cost, Loss>::build_band() {
  if (!(opt_.hessian_cutoff > 0.0) || band_strikes_ >= kBandStrikes) return false;
  double top = 0.0;
  for (Index i = 0; i < n_kept_; ++i) top = std::max(top, dd_[i]);
  const double floor = opt_.hessian_cutoff * top;
  band_of_row_.resize(static_cast<std::size_t>(n_kept_));
  band_rows_.clear();
  for (Index i = 0; i < n_kept_; ++i) {
    const bool kept = dd_[i] > 0.0 && dd_[i] >= floor;
    band_of_row_[i] = kept ? static_cast<Index>(band_rows_.size()) : -1;
    if (kept) band_rows_.push_back(i);
  }
  const auto nb = static_cast<Index>(band_rows_.size());
  if (static_cast<double>(nb) > kBandMaxShare * static_cast<double>(n_kept_) ||
      nb > std::numeric_limits<std::int32_t>::max())
    return false;
  band_dd_.resize(static_cast<std::size_t>(nb));
  band_xtd_.resize(static_cast<std::size_t>(nb));
  for (Index b = 0; b < nb; ++b) {
    band_dd_[b] = dd_[band_rows_[b]];
    band_xtd_[b] = xtd_[band_rows_[b]];
  }
  band_slot_.resize(static_cast<std::size_t>(nc_));
  rest_diag_.resize(static_cast<std::size_t>(nc_));
  band_ptr_.assign(1, 0);
  band_row_.clear();
  band_val_.clear();
  if constexpr (std::is_same_v<Cols, DenseColumns>) {  // every column has the band's nb rows
    band_row_.reserve(static_cast<std::size_t>(nb * active_));
    band_val_.reserve(static_cast<std::size_t>(nb * active_));
  }
  for (Index s = 0; s < active_; ++s) {
    const Index j = order_[s];
    // The other rows' curvature is the column's (in hess_, from gradient()) less the band's.
    double in_band = diagonal_shift(j);
    const auto keep = [&](Index b, double v) {
      const double x = static_cast<float>(v);  // the value the model uses
      band_row_.push_back(static_cast<std::int32_t>(b));
      band_val_.push_back(static_cast<float>(x));
      in_band += band_dd_[b] * x * x;
    };
    if constexpr (std::is_same_v<Cols, DenseColumns>) {  // the band's rows read directly
      for (Index b = 0; b < nb; ++b) keep(b, cols_.at(j, band_rows_[b]));
      entries_ += static_cast<double>(nb);
    } else {
      cols_.each(j, [&](Index i, double v) {
        if (band_of_row_[i] >= 0) keep(band_of_row_[i], v);
      });
      entries_ += static_cast<double>(cols_.length(j));
    }
    rest_diag_[j] = std::max(0.0, hess_[j] - in_band);
    band_slot_[j] = s;
    band_ptr_.push_back(static_cast<Index>(band_row_.size()));
  }
  return true;
}

template <class Cols, class Cost, class Loss>
void Glmnet<Cols, Cost, Loss>::judge_band() {
  // Along d: the model's curvature d'H~d = (the band rows' part) + d' diag(X_R' D_R X_R) d + the
  // (l2 + floor + damping) terms; the exact model has d'X_R' D_R X_R d in place of the middle
  // term, from the rows (xtd_).
  double model = 0.0, left_out = 0.0;
  for (Index i = 0; i < n_kept_; ++i) {
    const double c = dd_[i] * xtd_[i] * xtd_[i];
    (band_of_row_[i] >= 0 ? model : left_out) += c;
  }
  for (Index s = 0; s < active_; ++s) {
    const Index j = order_[s];
    const double dj2 = d_[j] * d_[j];
    model += (rest_diag_[j] + diagonal_shift(j)) * dj2;
    left_out -= rest_diag_[j] * dj2;
  }
  if (std::fabs(left_out) > kBandTrust * model) ++band_strikes_;
}

template <class Cols, class Cost, class Loss>
template <class Update>
double Glmnet<Cols, Cost, Loss>::inner_step(Index j, double g, double margin, Update&& update) {
  const double h = hess_[j], dj = d_[j], wpd = w_[j] + dj, l1 = this->l1(j);
  if (damping_ > 0.0) g += damping_ * bound_[j] * dj;
  const double gp = g + l1, gn = g - l1;
  if (wpd == 0.0 && l1 > 0.0 && gp > margin && gn < -margin) return -1.0;
  const double v = violation(j, wpd, g);
  // Minimizer of l1 |wpd + z| + g z + h/2 z^2. A move to zero lands on zero exactly
  // (d_j = -w_j), however small: a coordinate left at 1e-18 would count its full
  // violation |g + l1| forever while no step is worth taking.
  double d_new;
  if (gp <= h * wpd)
    d_new = dj - gp / h;
  else if (gn >= h * wpd)
    d_new = dj - gn / h;
  else
    d_new = -w_[j];
  const double z = d_new - dj;
  if (z == 0.0 || (d_new != -w_[j] && std::fabs(z) < kTinyStep)) return v;
  d_[j] = d_new;
  update(z);
  return v;
}

template <class Cols, class Cost, class Loss>
bool Glmnet<Cols, Cost, Loss>::inner(double reference) {
  bool banded = false;
  std::fill(xtd_.begin(), xtd_.end(), 0.0);
  Index n_inner = active_;
  std::copy(order_.begin(), order_.begin() + active_, inner_.begin());
  for (Index s = 0; s < active_; ++s) d_[order_[s]] = 0.0;
  double prev_max = std::numeric_limits<double>::infinity();
  inner_passes_ = 0;
  const std::int32_t* brow = nullptr;
  const float* bval = nullptr;
  long long max_passes = opt_.max_inner_iter;
  if (stall_cap_ > 0) max_passes = std::min(max_passes, stall_cap_);
  if (budget_.max_iter_counts_sweeps)
    max_passes = std::min(max_passes, opt_.max_iter - total_inner_);
  while (inner_passes_ < max_passes) {
    if (!banded && inner_passes_ == kBandAfterPasses && build_band()) {
      banded = true;
      brow = band_row_.data();
      bval = band_val_.data();
    }
    ++inner_passes_;
    shuffle(inner_, n_inner, rng_);
    const double margin = prev_max / static_cast<double>(n_samples_);
    double norm1 = 0.0, vmax = 0.0;
    for (Index s = 0; s < n_inner; ++s) {
      const Index j = inner_[s];
      double v;
      // The model's gradient along j at d: grad_j + (X' D X d)_j + (l2 + floor) d_j, the
      // banded model's with only the band's rows off its diagonal.
      if (banded) {
        const Index b0 = band_ptr_[band_slot_[j]], b1 = band_ptr_[band_slot_[j] + 1];
        double q0 = 0.0, q1 = 0.0;
        Index k = b0;
        for (; k + 2 <= b1; k += 2) {
          q0 += band_dd_[brow[k]] * double{bval[k]} * band_xtd_[brow[k]];
          q1 += band_dd_[brow[k + 1]] * double{bval[k + 1]} * band_xtd_[brow[k + 1]];
        }
        if (k < b1) q0 += band_dd_[brow[k]] * double{bval[k]} * band_xtd_[brow[k]];
        entries_ += static_cast<double>(b1 - b0);
        const double g = grad_[j] + q0 + q1 + (rest_diag_[j] + l2(j) + kCurvatureFloor) * d_[j];
        v = inner_step(j, g, margin, [&](double z) {
          for (Index e = b0; e < b1; ++e) band_xtd_[brow[e]] += z * double{bval[e]};
          entries_ += static_cast<double>(b1 - b0);
        });
      } else {
        double qs[2] = {0.0, 0.0};
        cols_.each2(j, xtd_.data(),
                    [&](auto lane, Index i, double x) { qs[lane] += dd_[i] * x * xtd_[i]; });
        entries_ += static_cast<double>(cols_.length(j));
        const double g = grad_[j] + qs[0] + qs[1] + (l2(j) + kCurvatureFloor) * d_[j];
        v = inner_step(j, g, margin, [&](double z) {
          cols_.each(j, [&](Index i, double x) { xtd_[i] += z * x; });
          entries_ += static_cast<double>(cols_.length(j));
        });
      }
      if (v < 0.0) {  // shrunk from the inner set
        std::swap(inner_[s], inner_[n_inner - 1]);
        --n_inner;
        --s;
        continue;
      }
      norm1 += v;
      vmax = std::max(vmax, v);
      if (poll_if_due()) return false;
    }
    prev_max = vmax;
    if (norm1 <= inner_eps_ * reference) {
      if (n_inner == active_) break;
      n_inner = active_;  // converged on the shrunk set: check all of the outer set again
      std::copy(order_.begin(), order_.begin() + active_, inner_.begin());
      prev_max = std::numeric_limits<double>::infinity();
    }
  }
  if (banded) {  // (y .* X) d on every kept row, for the line search
    std::fill(xtd_.begin(), xtd_.end(), 0.0);
    for (Index s = 0; s < active_; ++s) {
      const Index j = order_[s];
      const double dj = d_[j];
      if (dj == 0.0) continue;
      cols_.each(j, [&](Index i, double x) { xtd_[i] += dj * x; });
      entries_ += static_cast<double>(cols_.length(j));
    }
    judge_band();
  }
  // A model solved in one pass was solved too loosely to matter: ask for more next time.
  if (inner_passes_ == 1) inner_eps_ *= 0.25;
  total_inner_ += inner_passes_;
  return true;
}

template <class Cols, class Cost, class Loss>
double Glmnet<Cols, Cost, Loss>::line_search() {
  double delta = 0.0;  // the model's predicted decrease: G.d + l1 (||w + d||_1 - ||w||_1)
  for (Index s = 0; s < active_; ++s) {
    const Index j = order_[s];
    delta += grad_[j] * d_[j] + l1(j) * (std::fabs(w_[j] + d_[j]) - std::fabs(w_[j]));
  }
  double lambda = 1.0;
  for (int t = 0; t < opt_.max_line_search; ++t) {
    double change = 0.0;
    for (Index s = 0; s < active_; ++s) {
      const Index j = order_[s];
      const double wj = w_[j], step = lambda * d_[j];
      change += l1(j) * (std::fabs(wj + step) - std::fabs(wj)) + l2(j) * (wj + 0.5 * step) * step;
    }
    // Logistic: per row, loss(z + a) - loss(z) = log1p(sigmoid(-z) expm1(-a)), accurate however
    // small the step (the difference of two losses loses every digit near the optimum).
    for (Index i = 0; i < n_kept_; ++i) {
      const double t_i = xtd_[i];
      if (t_i == 0.0) continue;
      if constexpr (kLogistic)
        change += cost_[i] * std::log1p(q_[i] * std::expm1(-lambda * t_i));
      else
        change += cost_[i] * loss_change(loss_, z_[i], lambda * t_i);
    }
    if (change <= opt_.sigma * lambda * delta) {
      for (Index s = 0; s < active_; ++s) w_[order_[s]] += lambda * d_[order_[s]];
      for (Index i = 0; i < n_kept_; ++i) z_[i] += lambda * xtd_[i];
      f_ += change;
      return lambda;
    }
    lambda *= opt_.beta;
  }
  return 0.0;
}

template <class Cols, class Cost, class Loss>
SolveResult Glmnet<Cols, Cost, Loss>::run(const double* w0) {
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const double inf = std::numeric_limits<double>::infinity();
  SolveResult res;
  for (Index j = 0; j < nc_; ++j) order_[j] = j;
  active_ = nc_;
  double reference = -1.0, vmax = 0.0;  // cold start: the first iteration's measure
  if (w0) {                             // a warm start is measured against w = 0 (z = 0 here)
    reference = gradient(inf, &vmax);
    for (Index j = 0; j < nc_; ++j) w_[j] = w0[cols_.original(j)];
    recompute_margins();
  }
  const bool report = opt_.record_history || static_cast<bool>(cb_.on_iteration);
  if (report) f_ = objective();
  double prev_max = inf, measure = kNaN;
  res.status = SolverStatus::max_iter;
  long long iter = 0;
  while (iter < opt_.max_iter) {
    ++iter;
    if (cb_.poll()) {
      res.status = SolverStatus::interrupted;
      break;
    }
    // Every iteration shrinks afresh from all coordinates (LIBLINEAR's -s 6 does; one gradient
    // pass over the shrunk ones): a set carried over from earlier iterations can leave out a
    // feature of the optimum's support. So did ours until it converged on the set, and on the
    // regime matrix's sparse 16,000 x 10,000 logistic l1 fit iterations 8-25 of 30 improved the
    // wrong 150-feature set (support 181): 521 -> 315 passes, 0.25 -> 0.19 s (LIBLINEAR -s 6:
    // 0.19 s). Over 61 l1 / elastic-net fits (logistic, psi_M, psi_G, the hinge's stages; dense,
    // sparse and real sets) passes fell 4% (geometric mean) and time 11%; the most taken was
    // 1.53x the passes (a9a psi_G l1). A shrunk coordinate sits at 0 with |g| < l1: no violation,
    // so the measure below is over every coordinate.
    active_ = nc_;
    measure = gradient(opt_.shrinking ? prev_max / static_cast<double>(n_samples_) : inf, &vmax);
    if (reference < 0.0) reference = measure;
    bool done = false, step = false;
    double lambda = 0.0;
    inner_passes_ = 0;
    if (!std::isfinite(measure)) {
      res.status = SolverStatus::numerical_error;
      done = true;
    } else if (measure <= budget_.tol_scale * opt_.tol * balance_ * reference) {
      res.status = SolverStatus::converged;
      done = true;
    } else if (budget_.max_iter_counts_sweeps && total_inner_ >= opt_.max_iter) {
      done = true;  // the sweeps are spent: status max_iter
    } else {
      step = true;
      // The stall cap applies once the measure meets the rule at tol itself (GlmnetBudget).
      stall_cap_ = budget_.stall_sweeps > 0 && measure <= opt_.tol * balance_ * reference
                       ? std::min(budget_.stall_sweeps, opt_.max_inner_iter)
                       : 0;
      bool interrupted = false;
      for (;;) {  // a failed line search is retried on a more damped model (increase_damping)
        if (!inner(reference)) {
          interrupted = true;
          break;
        }
        lambda = line_search();
        if (lambda > 0.0 || !increase_damping()) break;
      }
      if (interrupted) {
        res.status = SolverStatus::interrupted;
        break;
      }
      if (lambda > 0.0 && damping_ > 0.0) {  // relax after an accepted step
        damping_ *= kDampingRelax;
        if (damping_ < kFirstDamping) damping_ = 0.0;
      }
      if (lambda == 0.0) {
        res.status = SolverStatus::line_search_failed;
        res.message = "l1_cd: no step along the Newton direction decreased the objective enough";
        done = true;
      }
      if (!done && stall_cap_ > 0 && inner_passes_ >= stall_cap_) {
        stalled_ = done = true;  // status max_iter: the caller goes on with another method
        res.message = "l1_cd: newGLMNET's inner solve stalled";
      }
    }
    prev_max = vmax;
    if (report) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.objective = f_;
      rec.optimality = measure;
      rec.step = step ? lambda : 0.0;
      rec.accepted = !step || lambda > 0.0;
      rec.inner_iterations = inner_passes_;
      rec.active_size = active_;
      rec.passes = static_cast<long long>(std::ceil(entries_ / total_entries_));
      rec.time = elapsed();
      if (!report_iteration(res, rec, opt_.record_history, cb_) && !done) {
        res.status = SolverStatus::interrupted;
        done = true;
      }
    }
    if (done) break;
  }
  res.iterations = iter;
  res = finish(std::move(res), measure);
  res.time = elapsed();
  return res;
}

template <class Cols, class Cost, class Loss>
SolveResult Glmnet<Cols, Cost, Loss>::finish(SolveResult res, double measure) {
  recompute_margins();  // the objective free of the rounding the updates accumulated
  res.objective = objective();
  res.optimality = measure;
  if (!std::isfinite(res.objective)) res.status = SolverStatus::numerical_error;
  res.inner_iterations = total_inner_;
  if (budget_.max_iter_counts_sweeps) res.iterations = total_inner_;  // the unit max_iter bounds
  res.passes = static_cast<long long>(std::ceil(entries_ / total_entries_));
  res.solution = solution();
  return res;
}

// ---- The hinge loss: smoothing continuation with a certified stop (solvers/l1_cd.hpp). ----

// The certificate itself (hinge_certificate.hpp) is shared with SmSVM.
using namespace hinge_cert;

// The continuation gives up (status max_iter) when a stage's certified gap is above this
// fraction of the previous stage's: on degenerate data (dna: binary features, many ties; small
// correlated data such as 300 rows of breast_cancer) the stages stop approaching the linear
// program's optimum at 1e-4 - 2e-4 relative (a retry with a 100x tighter stage tolerance ran
// into max_iter there; stage tolerances tol * sigma / hinge_smoothing certified most of them
// but took 3-4x longer on the regime matrix's sparse cells), and each further stage costs more.
constexpr double kStallRatio = 0.5;
// The certificate during a stage: first after kMinCheckPasses of the stage's passes, then after
// max(kMinCheckPasses, kCheckGrowth x the stage's passes so far, kCheckCostRatio x its own
// cost in passes) more (the band solve's multiply-adds counted as entries of a pass).
constexpr double kMinCheckPasses = 10.0;
constexpr double kCheckGrowth = 0.25;
constexpr double kCheckCostRatio = 10.0;
// A stage at sigma stops at tol * max(1, sigma / kStageTolSmoothing) of newGLMNET's rule: its
// optimum is only a start for the next stage (the certified gap at the end of the first stage,
// sigma = 0.1, was 1.4e-2 on sparse 16,000 x 10,000 text, whatever the stage's accuracy), and
// solving it to tol's rule was most of the run (sigma = 0.1 took 1,070 of 2,063 passes there,
// 950 of them moving the objective by 6e-6 relative). Measured with hinge l1 / elastic net 0.5,
// C = 1, tol 1e-4, each certified: sparse 16,000 x 10,000 1.56 / 1.66 s -> 0.68 / 0.75 s, sparse
// 2,500 x 50,000 0.100 / 0.089 -> 0.040 / 0.045 s, dense 10,000 x 50 0.055 / 0.058 -> 0.035 /
// 0.036 s; dna.scale's (handed to HiGHS either way) took the same time. 1e-2 and 3e-3 saved a
// third as much on the first (the stages' ends moved the next sigma's step,
// continuation_smoothing_factor). Only where C * mean_i ||x_i||^2 (costs with their weights) is
// at most kLooseStageMaxScale: newGLMNET's rule is relative to the gradient at w = 0, which on
// badly scaled data lies far above the optimum's scale (near-separable rows with features on
// scales 1-1000, tests' margin_separable / scaled_separable at 1,000-16,000 rows, C = 10 and
// 100: loose stages left 6 of 20 elastic-net fits uncertified, as against 4 at tol's rule, and
// at C = 100 the first stage stopped after 4 of its iterations); it is LinearSVC's
// HINGE_DUAL_SCALE, the scale above which the hinge's dual stalls.
constexpr double kStageTolSmoothing = 1e-3;
constexpr double kLooseStageMaxScale = 200.0;

// Why the continuation ends uncertified after a stage at sigma whose certificate is cert (the
// previous stage's repaired gap last_gap, NaN if none), or "" to go on to the next stage.
std::string hinge_stage_end(const HingeCertificate& cert, double sigma, double last_gap,
                            const L1CdOptions& opt) {
  if (sigma / kContinuationFactor < opt.hinge_smoothing_min)
    return "l1_cd: the hinge duality gap " + std::to_string(cert.gap) +
           " is above tol at the smallest smoothing (hinge_smoothing_min)";
  // A stall is judged only between two repaired certificates: an unrepaired one (its band
  // system above certificate_memory_mb) is the smoothed point's gap, a few % whatever the stage
  // did, and stopping there once handed solver="auto" to the slow smsvm finisher (400 s
  // against 4 s, when a dense band system of 2735 rows x 434 support columns was too large).
  if (cert.repaired && cert.gap > kStallRatio * last_gap)
    return "l1_cd: the hinge duality gap stalled at " + std::to_string(cert.gap) + " (smoothing " +
           std::to_string(sigma) + "): the stages do not identify the optimum's margin set";
  return "";
}

// The continuation's smoothing schedule: each stage's sigma and tolerance, and the step after it.
struct HingeSchedule {
  double sigma;            // this stage's smoothing
  bool loose;              // stages above kStageTolSmoothing stop early (kLooseStageMaxScale)
  double last_gap = kNaN;  // the previous stage's repaired gap (NaN: no stall test)

  HingeSchedule(double sigma0, bool loose_stages) : sigma(sigma0), loose(loose_stages) {}

  double stage_tol(double tol) const {
    return loose ? tol * std::max(1.0, sigma / kStageTolSmoothing) : tol;
  }

  // After a stage (at stage_tol) whose certificate is cert: "" with the next stage's sigma set,
  // or why the continuation ends uncertified.
  std::string advance(const HingeCertificate& cert, const L1CdOptions& opt) {
    std::string end = hinge_stage_end(cert, sigma, last_gap, opt);
    if (!end.empty()) return end;
    // sigma / 10, or a smaller step near tol (tron.hpp's continuation_smoothing_factor; the
    // factor 10 measured on dense 10000 x 50 and sparse 2000 x 50000, both certified at sigma =
    // 0.001: 0.1 -> 0.001 in one step took 1.5-1.6x the time of 0.1 -> 0.01 -> 0.001, starting
    // at 0.001 5-7x). The stage after a smaller step is not judged for a stall against this one:
    // only a reduction to tol / 2 is asked of it.
    const double factor = continuation_smoothing_factor(cert.gap, opt.tol);
    last_gap = cert.repaired && factor == kContinuationFactor ? cert.gap : kNaN;
    sigma /= factor;
    return "";
  }
};

// The hinge loss: newGLMNET on phi_sigma for sigma = hinge_smoothing, / 10, ... (each stage warm
// started from the last), until the certificate above is <= tol or sigma < hinge_smoothing_min.
template <class Cols, class V>
SolveResult run_hinge(const Cols& cols, const V& X, const std::vector<double>& cost,
                      const LinearProblem& p, const L1CdPenalty& pen, const L1CdOptions& opt,
                      const Callbacks& cb, const double* w0, double total_entries, double scale) {
  const auto start = Clock::now();
  const Index nc = solution_size(p);
  const Index n = rows_of(p.X);
  const auto n_kept = static_cast<Index>(cost.size());
  std::vector<double> w = w0 ? std::vector<double>(w0, w0 + nc) : std::vector<double>(nc, 0.0);
  SolveResult res;
  res.status = SolverStatus::converged;
  long long iters = 0, passes = 0, inner = 0;
  double time0 = 0.0;
  HingeSchedule schedule(opt.hinge_smoothing, scale <= kLooseStageMaxScale);
  const double& sigma = schedule.sigma;
  // The band repair's k x k Gram matrix is built only within certificate_memory_mb. Without it
  // the certificate is the smoothed point's: on 400 x 300 sparse text (tests' text(0..2)) it
  // stayed at 9e-4 - 3e-3 down to sigma = 1e-6 where the true gap was 1e-8 - 2e-6 (70,000 -
  // 100,000 passes to max_iter, against 1,200 - 7,000 to a repaired certificate <= 1e-4).
  const double max_gram = opt.certificate_memory_mb * 1048576.0 / sizeof(double);
  HingeCertificate cert;
  for (;;) {
    L1CdOptions o = opt;
    o.max_iter = opt.max_iter - iters;
    o.record_history = false;
    o.tol = schedule.stage_tol(opt.tol);
    Callbacks stage;
    stage.interrupted = cb.interrupted;
    Glmnet<Cols, RowCost, SmoothedHingeLoss> g(cols, RowCost{cost.data()}, SmoothedHingeLoss{sigma},
                                               n_kept, nc, n, p, pen, o, stage, total_entries);
    g.exempt_bias_from_l1();  // as smsvm: the bias is never l1-penalized
    // The certificate is also taken during the stage (a stage runs to its own stopping rule,
    // which can lie far below tol's gap: the last stage ended 15-20x below it on the regime
    // matrix's cells), on a schedule that keeps its cost near a tenth of the stage's work.
    bool stop_asked = false, certified = false, over_budget = false;
    long long check_passes = 0;  // passes of this stage's certificates
    double next_check = kMinCheckPasses;
    HingeCertificate mid;
    std::vector<double> mid_w;
    stage.on_iteration = [&](const IterationRecord& r0) {
      IterationRecord r = r0;
      const auto done = static_cast<double>(r0.passes);
      if (done >= next_check) {  // the record then carries the certificate's gap
        std::vector<double> now = g.solution();
        HingeCertificate c = hinge_certificate(X, p, pen, now, sigma, max_gram);
        check_passes += c.passes;
        const double cost = static_cast<double>(c.passes) + c.band_work / total_entries;
        next_check =
            done + std::max({kMinCheckPasses, kCheckGrowth * done, kCheckCostRatio * cost});
        r.gap = c.gap;
        if (c.gap <= opt.tol) {
          certified = true;
          mid = c;
          mid_w = std::move(now);
        }
      }
      r.iteration += iters;
      r.smoothing = sigma;
      r.passes += passes + check_passes;
      r.time += time0;
      const bool go = report_iteration(res, r, opt.record_history, cb);
      stop_asked = stop_asked || !go;
      over_budget = opt.hinge_max_passes > 0 && r.passes >= opt.hinge_max_passes;
      return go && !certified && !over_budget;
    };
    SolveResult st = g.run(iters == 0 && !w0 ? nullptr : w.data());
    iters += st.iterations;
    passes += st.passes + check_passes;
    inner += st.inner_iterations;
    time0 = std::chrono::duration<double>(Clock::now() - start).count();
    if (certified) {
      w = std::move(mid_w);
      cert = mid;
      res.status = SolverStatus::converged;
      break;
    }
    w = std::move(st.solution);
    const bool usable = st.status == SolverStatus::converged ||
                        st.status == SolverStatus::line_search_failed ||
                        st.status == SolverStatus::max_iter || (over_budget && !stop_asked);
    if (usable) {
      cert = hinge_certificate(X, p, pen, w, sigma, max_gram);
      passes += cert.passes;
      if (!res.history.empty()) res.history.back().gap = cert.gap;
    }
    if (usable && cert.gap <= opt.tol) {
      res.status = SolverStatus::converged;
      break;
    }
    if (over_budget && !stop_asked) {
      res.status = SolverStatus::max_iter;
      res.message = "l1_cd: the hinge duality gap " + std::to_string(cert.gap) +
                    " is above tol after hinge_max_passes passes";
      break;
    }
    if (st.status != SolverStatus::converged || stop_asked) {
      res.status = stop_asked ? SolverStatus::interrupted : st.status;
      res.message = st.message;
      break;
    }
    const std::string end = schedule.advance(cert, opt);
    if (!end.empty()) {
      res.status = SolverStatus::max_iter;
      res.message = end;
      break;
    }
  }
  if (std::isnan(cert.primal)) cert = hinge_certificate(X, p, pen, w, sigma, max_gram);
  res.objective = cert.primal;
  res.optimality = cert.gap;
  if (!std::isfinite(res.objective)) res.status = SolverStatus::numerical_error;
  res.iterations = iters;
  res.inner_iterations = inner;
  res.passes = passes;
  res.solution = std::move(w);
  res.time = std::chrono::duration<double>(Clock::now() - start).count();
  return res;
}

template <class Cols, class V>
SolveResult run_cdn(const Cols& cols, const V& X, const KeptRows& k, const LinearProblem& p,
                    const L1CdPenalty& pen, const L1CdOptions& opt, const Callbacks& cb,
                    const double* w0, double total_entries, const LossSpec& loss) {
  const auto n_kept = static_cast<Index>(k.original.size());
  std::vector<double> cost(k.original.size());
  for (Index r = 0; r < n_kept; ++r) cost[r] = p.cost[k.original[r]];
  const bool uniform =
      std::all_of(cost.begin(), cost.end(), [&](double c) { return c == cost.front(); });
  const Index nc = solution_size(p);
  const Index n = rows_of(p.X);
  // Glmnet reads the costs per row only outside its inner loops: one instantiation per loss.
  const auto glmnet = [&](auto l, GlmnetBudget budget = {}) {
    Glmnet<Cols, RowCost, decltype(l)> g(cols, RowCost{cost.data()}, l, n_kept, nc, n, p, pen, opt,
                                         cb, total_entries, budget);
    return g.run(w0);
  };
  if (loss.kind == LossKind::hinge) {
    // C * mean ||x_i||^2 over the kept rows (HingeSchedule), read by columns from the store (in
    // order whatever X's layout; y_i^2 = 1 and the bias column left out).
    double scale = 0.0;
    for (Index j = 0; j < cols.n_cols(); ++j)
      if (cols.original(j) < X.cols)
        cols.each(j, [&](Index i, double v) { scale += cost[i] * v * v; });
    scale /= static_cast<double>(std::max<Index>(1, n_kept));
    return run_hinge(cols, X, cost, p, pen, opt, cb, w0, total_entries, scale);
  }
  if (loss.kind == LossKind::logistic) return glmnet(LogisticLoss{});
  if (loss.kind == LossKind::smoothed_hinge) return glmnet(SmoothedHingeLoss{loss.sigma});
  if (loss.kind == LossKind::gaussian_smoothed_hinge)
    return glmnet(GaussianSmoothedHingeLoss{loss.sigma});
  // newGLMNET on the squared hinge where n >= d, CDN otherwise. Measured against CDN
  // (bench/bench_l1_cd_methods.py, l1, LinearSVC's defaults, best of 3; relative gap to the
  // optimum in parentheses): dna.scale 3 classes 0.42 -> 0.10 s (3.6e-4 both), digits
  // standardized 0.80 -> 0.11 s (1.8e-6 -> 4.0e-7), mushrooms 0.22 -> 0.05 s (7.1e-3 -> 7.7e-3),
  // 26 classes 16,000 x 16 1.61 -> 0.51 s, iris 5.0 -> 2.1 ms, dense 8,000 x 50 35 -> 22 ms, a9a
  // 1.34 -> 1.21 s; equal within 5% on covtype.5000 (both at max_iter) and sparse 16,000 x 10,000.
  // Passes over the data (deterministic), newGLMNET / CDN: mushrooms 357 / 955, dna.scale 1,332 /
  // 4,526, digits 2,215 / 6,795, 26 classes 5,234 / 6,503, a9a 1,960 / 1,926, sparse 16,000 x
  // 10,000 1,296 / 1,142; with more features than samples 1.4-1.7x CDN's (sparse 1,600 x 50,000
  // 546 / 390, 20% flipped labels 688 / 400, 1,600 x 10^6 486 / 341, dense 240 x 5,000 166 /
  // 111), where the regime matrix read the cells 1.4-2.2x slower. Without the sweep bound
  // (max_iter counting Newton iterations of up to max_inner_iter sweeps) covtype.5000 took 1.4 s
  // against CDN's 0.12 s.
  // CDN from start (null: w = 0), with one cost per row only where the costs differ.
  const auto cdn_run = [&](const double* start, const L1CdOptions& o, const Callbacks& c) {
    if (uniform) {
      Cdn<Cols, UniformCost> cdn(cols, UniformCost{n_kept ? cost.front() : 0.0}, n_kept, nc, n, p,
                                 pen, o, c, total_entries);
      return cdn.run(start);
    }
    Cdn<Cols, RowCost> cdn(cols, RowCost{cost.data()}, n_kept, nc, n, p, pen, o, c, total_entries);
    return cdn.run(start);
  };
  const bool use_glmnet =
      opt.squared_hinge_method == 1 || (opt.squared_hinge_method == 0 && n_kept >= cols.n_cols());
  if (!use_glmnet) return cdn_run(w0, opt, cb);
  GlmnetBudget budget = kSquaredHingeBudget;
  if (opt.squared_hinge_method != 0) budget.stall_sweeps = 0;  // newGLMNET asked for by name
  Glmnet<Cols, RowCost, SquaredHingeLoss> g(cols, RowCost{cost.data()}, SquaredHingeLoss{}, n_kept,
                                            nc, n, p, pen, opt, cb, total_entries, budget);
  SolveResult res = g.run(w0);
  if (!g.stalled()) return res;
  // CDN goes on from newGLMNET's point with the sweeps left (kInnerStallSweeps). Its records
  // are counted on from newGLMNET's, in the history and for the caller's on_iteration alike.
  L1CdOptions rest = opt;
  rest.max_iter = std::max<long long>(1, opt.max_iter - g.sweeps());
  rest.record_history = false;
  SolveResult merged;  // collects the history: newGLMNET's records, then CDN's shifted ones
  merged.history = std::move(res.history);
  const long long first_iterations = merged.history.empty() ? 0 : merged.history.back().iteration;
  Callbacks shifted;
  shifted.interrupted = cb.interrupted;
  shifted.on_iteration = [&](const IterationRecord& r0) {
    IterationRecord r = r0;
    r.iteration += first_iterations;
    r.passes += res.passes;
    r.time += res.time;
    return report_iteration(merged, r, opt.record_history, cb);
  };
  SolveResult out = cdn_run(res.solution.data(), rest, shifted);
  out.history = std::move(merged.history);
  out.iterations += g.sweeps();
  out.inner_iterations += res.inner_iterations;
  out.passes += res.passes;
  out.time += res.time;
  return out;
}

template <class V>
SolveResult solve_view(const V& X, const LinearProblem& p, const L1CdPenalty& pen,
                       const L1CdOptions& opt, const Callbacks& cb, const double* w0,
                       const LossSpec& loss) {
  const KeptRows k = kept_rows(p);
  if constexpr (std::is_same_v<V, CsrView<typename V::value_type, std::int32_t>> ||
                std::is_same_v<V, CsrView<typename V::value_type, std::int64_t>>) {
    if (static_cast<Index>(k.original.size()) <= std::numeric_limits<std::int32_t>::max()) {
      const auto cols = sparse_copy<std::int32_t>(X, p, k, opt);
      return run_cdn(cols, X, k, p, pen, opt, cb, w0, static_cast<double>(cols.val.size()), loss);
    }
    const auto cols = sparse_copy<std::int64_t>(X, p, k, opt);
    return run_cdn(cols, X, k, p, pen, opt, cb, w0, static_cast<double>(cols.val.size()), loss);
  } else {
    const auto cols = dense_copy(X, p, k, opt);
    return run_cdn(cols, X, k, p, pen, opt, cb, w0, static_cast<double>(cols.val.size()), loss);
  }
}

}  // namespace

void validate_options(const L1CdOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_L1_CD_OPTIONS, "l1_cd", o);
}

SolveResult solve_l1_cd(const LinearProblem& problem, const LossSpec& loss,
                        const L1CdPenalty& penalty, const L1CdOptions& options,
                        const Callbacks& callbacks, const double* w0) {
  validate_options(options);
  validate_problem(problem, loss, options.check_input);
  if (loss.kind != LossKind::squared_hinge && loss.kind != LossKind::logistic &&
      loss.kind != LossKind::smoothed_hinge && loss.kind != LossKind::gaussian_smoothed_hinge &&
      loss.kind != LossKind::hinge)
    throw_invalid(std::string("l1_cd handles the losses 'squared_hinge', 'logistic', "
                              "'smoothed_hinge', 'gaussian_smoothed_hinge' and 'hinge' only, "
                              "got '") +
                  to_string(loss.kind) + "'");
  if (options.hinge_smoothing_min > options.hinge_smoothing)
    throw_invalid("l1_cd option 'hinge_smoothing_min' must be <= hinge_smoothing");
  if (!(penalty.l1 >= 0.0 && std::isfinite(penalty.l1) && penalty.l2 >= 0.0 &&
        std::isfinite(penalty.l2)) ||
      penalty.l1 + penalty.l2 <= 0.0)
    throw_invalid("l1_cd: the penalty weights l1 and l2 must be finite, >= 0 and not both zero");
  if (w0) {
    const Index n = solution_size(problem);
    for (Index j = 0; j < n; ++j)
      if (!std::isfinite(w0[j]))
        throw_invalid("l1_cd: the initial solution contains NaN or infinity at index " +
                      std::to_string(j));
  }
  try {
    return std::visit(
        [&](const auto& X) {
          return solve_view(X, problem, penalty, options, callbacks, w0, loss);
        },
        problem.X);
  } catch (const std::bad_alloc&) {
    SolveResult res;
    res.status = SolverStatus::out_of_memory;
    const double bytes =
        static_cast<double>(std::visit(
            [](const auto& v) { return static_cast<double>(stored_entries(v)); }, problem.X)) *
        12.0;
    // Each feature also has a count while the copy is built and a weight after it: for a
    // CSR matrix declaring billions of columns these, not the copy, are what fails.
    const double per_feature = static_cast<double>(cols_of(problem.X)) * sizeof(double);
    const auto mib = [](double b) {
      return std::to_string(static_cast<long long>(std::ceil(b / (1024.0 * 1024.0))));
    };
    res.message = "l1_cd: out of memory for the column-major copy of X (about " + mib(bytes) +
                  " MiB, bounded by the option max_copy_mb) or its per-feature vectors (" +
                  mib(per_feature) + " MiB each for " + std::to_string(cols_of(problem.X)) +
                  " features)";
    return res;
  }
}

}  // namespace svmkit
