// Dual coordinate descent (see solvers/dual_cd.hpp for the problem, the method and the
// stopping rule).
//
// Implementation notes. The one-variable subproblem of coordinate i is
//   min_d 1/2 Qbar_ii d^2 + G_i d (+ eps |b_i + d| for SVR) over the box,
// where Qbar_ii = ||x_i||^2 + intercept_scaling^2 + D_ii is computed once and G_i, the partial
// derivative of the smooth part, costs one sparse dot product with w (w = sum a_i y_i x_i is
// kept up to date by one axpy per changed coordinate). So one visit reads the row at most
// twice and a full outer iteration is one pass (two where most coordinates move).
#include "svmkit/solvers/dual_cd.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <new>
#include <random>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "gap_stop.hpp"
#include "kept_columns.hpp"
#include "row_solve.hpp"
#include "svmkit/data.hpp"
#include "svmkit/detail/branchless.hpp"
#include "svmkit/detail/parallel.hpp"

namespace svmkit {
namespace {

using Clock = detail::SolveClock;
using detail::kNegligible;
using detail::kPollEntries;
using detail::uniform_below;
constexpr double kInf = std::numeric_limits<double>::infinity();

// The order generator: SplitMix64 (Steele, Lea, Flood 2014), one add and three multiply-xor
// steps per draw. The permutation is redrawn every outer iteration, one draw per active
// coordinate, and std::mt19937_64's state refills took about a tenth of the solve on dense
// data with few features; statistical quality beyond a fair shuffle is not needed here.
struct OrderRng {
  std::uint64_t state;
  explicit OrderRng(std::uint64_t seed) : state(seed) {}
  std::uint64_t operator()() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
};

// What both dual loops share: the data, w, the dual variables and the active set.
template <class V>
struct DualState {
  const V& X;
  const double* y;
  Index n = 0;                   // samples
  Index d = 0;                   // features (w[d] is the bias coefficient b)
  double scale = 0.0;            // the bias feature's value (0 without an intercept)
  std::vector<double> w;         // d + 1 entries
  std::vector<double> a;         // dual variables (alpha, or beta for SVR)
  std::vector<double> qd;        // Qbar_ii = ||x_i||^2 + scale^2 + D_ii
  const double* cost = nullptr;  // C_i: U_i for the non-squared losses
  bool squared = false;          // squared losses: U_i = inf, D_ii = 1 / (2 C_i)
  std::vector<double> diag;      // D_ii, stored for the squared losses only (memory: n doubles)
  std::vector<Index> index;      // the free coordinates; index[0, active) are active
  Index n_free = 0;
  Index active = 0;
  Index poll_every = 1;  // coordinate visits between interrupt polls
  // Elastic net (solve_dual_cd_elastic_net): its weights, r = sum a_i y_i x_i (w = soft(r,
  // l1) / l2 is kept beside it), and the breakpoint buffer of the exact coordinate step.
  const DualCdPenalty* elastic = nullptr;
  std::vector<double> r;
  std::vector<std::pair<double, double>> events;

  DualState(const V& view, const LinearProblem& p, bool squared)
      : X(view), y(p.y), n(view.rows), d(view.cols), cost(p.cost), squared(squared) {
    scale = p.fit_intercept ? p.intercept_scaling : 0.0;
    const auto nn = static_cast<std::size_t>(n);
    w.assign(static_cast<std::size_t>(d) + 1, 0.0);
    a.assign(nn, 0.0);
    qd.assign(nn, 0.0);
    if (squared) diag.assign(nn, 0.0);
    index.reserve(nn);
    for (Index i = 0; i < n; ++i) {
      const double c = p.cost[i];
      if (!(c > 0.0)) continue;  // a_i = 0 is the only feasible value
      if (squared) diag[i] = 0.5 / c;
      qd[i] = row_sq_norm(X, i) + scale * scale + diag_of(i);
      index.push_back(i);
    }
    n_free = active = static_cast<Index>(index.size());
    const Index per_row = stored_entries(X) / std::max<Index>(1, n) + 1;
    poll_every = std::max<Index>(256, kPollEntries / per_row);
  }

  double upper(Index i) const { return squared ? kInf : cost[i]; }   // U_i
  double diag_of(Index i) const { return squared ? diag[i] : 0.0; }  // D_ii
  // x_i.w + b * scale.
  double margin(Index i) const { return row_dot(X, i, w.data()) + w[d] * scale; }
  // w += delta * x_i (bias feature included).
  void add_row(Index i, double delta) {
    row_axpy(X, i, delta, w.data());
    w[d] += delta * scale;
  }
  // Elastic net: r += delta * x_i and w = soft(r, l1) / l2 on the row's entries (the bias
  // with its own l1 weight, 0 unless it carries the l1 term: soft(r, 0) = r).
  void add_row_elastic(Index i, double delta) {
    const double l1 = elastic->l1, inv = 1.0 / elastic->l2;
    for_each_in_row(X, i, [&](Index j, double x) {
      const double rj = (r[j] += delta * x);
      w[j] = detail::soft_threshold_nb(rj, l1) * inv;  // the branchy form mispredicted
    });
    r[d] += delta * scale;
    w[d] = detail::soft_threshold_nb(r[d], elastic->bias_l1) * inv;
  }
  // Elastic net: the exact minimizer a_i + delta of coordinate i's convex piecewise-quadratic
  // subproblem over the box, given its derivative g at delta = 0. Along t = |delta| in the
  // descent direction the derivative is -|g| + the integral of the slope, which is
  // sum c_j^2 / l2 over the entries with |r_j + delta c_j| > l1 (c_j = y_i x_ij), plus the
  // bias's and D_ii; it changes at the sorted breakpoints where an |r_j| crosses l1.
  // Most steps end before the first breakpoint (every step, once the signs of w settle), so
  // a first sweep finds the slope at 0 and the first breakpoint without storing or sorting
  // any; the breakpoints are ordered only when the root lies beyond the first one. Both paths
  // do the same arithmetic: the results are identical.
  double elastic_next(Index i, double ai, double g) {
    const double dir = g < 0.0 ? 1.0 : -1.0;
    const double tmax = dir > 0.0 ? upper(i) - ai : ai;
    const double h0 = -std::fabs(g);  // derivative along t at t = 0
    double first = kInf;
    const double slope0 = elastic_first(i, dir, &first);
    double step = tmax;
    if (first >= tmax) {
      if (slope0 > 0.0) step = std::min(0.0 - h0 / slope0, tmax);
    } else if (slope0 > 0.0 && 0.0 - h0 / slope0 <= first) {
      step = std::min(0.0 - h0 / slope0, tmax);
    } else {
      events.clear();
      double slope =
          elastic_breakpoints(i, dir, [&](double tk, double dq) { events.emplace_back(tk, dq); });
      // In increasing order through a min-heap: the root usually lies within the first few
      // breakpoints, so most of them are never ordered (the order is std::sort's: by t_k,
      // then by the slope change).
      const std::greater<std::pair<double, double>> later;
      std::make_heap(events.begin(), events.end(), later);
      double t = 0.0, h = h0;  // derivative along t, nondecreasing
      for (auto end = events.end(); end != events.begin(); --end) {
        const auto [tk, dq] = events.front();
        if (tk >= tmax) break;
        if (slope > 0.0 && t - h / slope <= tk) break;  // the root lies in this segment
        h += slope * (tk - t);
        t = tk;
        slope += dq;
        std::pop_heap(events.begin(), end, later);
      }
      if (slope > 0.0) step = std::min(t - h / slope, tmax);
    }
    return std::min(std::max(ai + dir * std::max(step, 0.0), 0.0), upper(i));
  }
  // One entry of row i along t (elastic_first, elastic_breakpoints): r_j moves at rate v.
  // Moving r_j up (v > 0) is the mirror image of moving -r_j down, so with sr = sign(v) r_j the
  // entry is active just after t = 0 (it adds q = v^2 / l2 to the slope) when sr >= l1 or
  // sr < -l1 (beyond l1, or on its boundary and moving outward); it leaves the active region
  // where sr reaches -l1 (at t = d_low / |v|, when d_low > 0) and enters it where sr reaches l1
  // (d_high / |v|, when d_high > 0). Branch-free (detail/branchless.hpp): which side of +-l1
  // each r_j lies on is data-dependent, and the branchy form mispredicted often enough to make
  // a coordinate step 4x the l2 dual's (sparse text, even at l1 = 0).
  struct ElasticEntry {
    double q, av, d_low, d_high;  // d_low <= d_high
    bool active;
  };
  static ElasticEntry elastic_entry(double rj, double v, double l1, double inv) {
    const double sr = detail::select_nb(v > 0.0, rj, -rj);
    const bool active = (sr >= l1) | (sr < -l1);  // | rather than ||: no branch
    return {v * v * inv, std::fabs(v), -l1 - sr, l1 - sr, active};
  }
  // The slope at t = 0 of coordinate i's subproblem along dir and its first breakpoint
  // (*first; kInf if none): elastic_breakpoints' slope and smallest t_k, without the events.
  double elastic_first(Index i, double dir, double* first) const {
    const double l1 = elastic->l1, inv = 1.0 / elastic->l2, yi = y[i];
    double slope = (scale * scale) * inv + diag_of(i), t_min = kInf;
    for_each_in_row(X, i, [&](Index j, double x) {
      const ElasticEntry e = elastic_entry(r[j], dir * yi * x, l1, inv);
      slope += detail::select_nb(e.active, e.q, 0.0);
      const double dist = detail::select_nb(e.d_low > 0.0, e.d_low,
                                            detail::select_nb(e.d_high > 0.0, e.d_high, kInf));
      t_min = detail::min_nb(t_min, dist / e.av);  // v = 0: +inf (dist > 0), no breakpoint
    });
    if (bias_has_l1()) {
      const ElasticEntry e = bias_entry(dir * yi);
      slope += (e.active ? e.q : 0.0) - (scale * scale) * inv;
      if (e.d_low > 0.0)
        t_min = std::min(t_min, e.d_low / e.av);
      else if (e.d_high > 0.0)
        t_min = std::min(t_min, e.d_high / e.av);
    }
    *first = t_min;
    return slope;
  }
  // The slope at t = 0 of coordinate i's subproblem along dir (elastic_next); calls
  // event(t_k, change of the slope) for each breakpoint of the row.
  template <class Event>
  double elastic_breakpoints(Index i, double dir, Event&& event) const {
    const double l1 = elastic->l1, inv = 1.0 / elastic->l2, yi = y[i];
    double slope = (scale * scale) * inv + diag_of(i);
    for_each_in_row(X, i, [&](Index j, double x) {
      const double v = dir * yi * x;
      if (v == 0.0) return;
      const ElasticEntry e = elastic_entry(r[j], v, l1, inv);
      if (e.active) slope += e.q;
      if (e.d_low > 0.0) event(e.d_low / e.av, -e.q);   // leaves the active region
      if (e.d_high > 0.0) event(e.d_high / e.av, e.q);  // enters it
    });
    if (bias_has_l1()) {  // as in elastic_first, in the same order
      const ElasticEntry e = bias_entry(dir * yi);
      slope += (e.active ? e.q : 0.0) - (scale * scale) * inv;
      if (e.d_low > 0.0) event(e.d_low / e.av, -e.q);
      if (e.d_high > 0.0) event(e.d_high / e.av, e.q);
    }
    return slope;
  }
  // Whether the bias carries an l1 term (DualCdPenalty::bias_l1 > 0, with an intercept). Then
  // both sweeps take the bias as one more entry under bias_l1 (moving at rate sign * scale),
  // in place of the always-active scale^2 / l2 they start from; without it that start stands,
  // with no breakpoint (an entry at l1 = 0 would add a spurious pair where r_b crosses 0).
  bool bias_has_l1() const { return elastic->bias_l1 > 0.0 && scale != 0.0; }
  ElasticEntry bias_entry(double sign) const {
    return elastic_entry(r[d], sign * scale, elastic->bias_l1, 1.0 / elastic->l2);
  }
  // A coordinate whose row is zero (Qbar_ii = 0: no intercept, non-squared loss) has a linear
  // subproblem: set it to its optimum, which leaves w unchanged, and never visit it again.
  template <class Optimum>
  void fix_zero_rows(Optimum&& optimum) {
    Index kept = 0;
    for (Index k = 0; k < n_free; ++k) {
      const Index i = index[k];
      if (qd[i] > 0.0)
        index[kept++] = i;
      else
        a[i] = optimum(i);
    }
    index.resize(static_cast<std::size_t>(kept));
    n_free = active = kept;
  }
  // Fisher-Yates shuffle of the active coordinates.
  void shuffle_active(OrderRng& rng) {
    for (Index k = active - 1; k > 0; --k) std::swap(index[k], index[uniform_below(rng, k + 1)]);
  }
};

// Classification duals: min 1/2 a'Qbar a - e'a, 0 <= a_i <= U_i (Hsieh et al. 2008); Elastic:
// the elastic-net dual (a compile-time choice, so the l2 loop carries no branch for it).
template <bool Elastic>
struct SvcTask {
  double max_pg = -kInf, min_pg = kInf;  // extremes of the projected gradient this iteration
  double shrink_hi = kInf;               // shrink a_i = 0 when G_i > shrink_hi
  double shrink_lo = -kInf;              // shrink a_i = U_i when G_i < shrink_lo

  void begin() {
    max_pg = -kInf;
    min_pg = kInf;
  }
  // Visits coordinate i; returns true when it is to be shrunk.
  template <class V>
  bool visit(DualState<V>& s, Index i) {
    const double yi = s.y[i];
    double& ai = s.a[i];
    const double g = yi * s.margin(i) - 1.0 + s.diag_of(i) * ai;
    double pg = g;
    if (ai == 0.0) {
      if (g > shrink_hi) return true;
      if (g > 0.0) pg = 0.0;
    } else if (ai == s.upper(i)) {
      if (g < shrink_lo) return true;
      if (g < 0.0) pg = 0.0;
    }
    max_pg = std::max(max_pg, pg);
    min_pg = std::min(min_pg, pg);
    if (std::fabs(pg) > kNegligible) {
      double next;
      if constexpr (Elastic)
        next = s.elastic_next(i, ai, g);
      else
        next = std::min(std::max(ai - g / s.qd[i], 0.0), s.upper(i));
      const double delta = (next - ai) * yi;
      ai = next;
      if (delta == 0.0) return false;
      if constexpr (Elastic)
        s.add_row_elastic(i, delta);
      else
        s.add_row(i, delta);
    }
    return false;
  }
  // Coordinate i's separable term of the dual (max form): a_i - 1/2 D_ii a_i^2 (dual_gap).
  template <class V>
  double dual_term(const DualState<V>& s, Index i) const {
    const double ai = s.a[i];
    return ai - 0.5 * s.diag_of(i) * ai * ai;
  }
  // The stopping measure of the iteration just done (0 when nothing was active).
  double measure() const { return max_pg >= min_pg ? max_pg - min_pg : 0.0; }
  bool satisfied(double tol) const { return measure() <= tol; }
  void reset_thresholds() {
    shrink_hi = kInf;
    shrink_lo = -kInf;
  }
  // The paper's rule: next iteration's thresholds are this iteration's extremes, unless
  // they have the wrong sign (then nothing is shrunk on that side).
  void update_thresholds(bool shrinking) {
    if (!shrinking) return;
    shrink_hi = max_pg > 0.0 ? max_pg : kInf;
    shrink_lo = min_pg < 0.0 ? min_pg : -kInf;
  }
};

// Smooth-loss duals (logistic, smoothed hinge): min 1/2 a'Qa - m'a + sum_i C_i h(a_i / C_i),
// 0 <= a_i <= C_i, where h is the loss's conjugate on [0, 1]: h(p) = p log p + (1-p) log(1-p)
// with m = 0 (logistic), h(p) = -sigma sqrt(p (1-p)) with m = 1 (psi_M: (t + sqrt(t^2 +
// sigma^2)) / 2 = max_p p t + sigma sqrt(p (1-p))). h' is infinite at both ends, so every a_i
// stays inside the box: the coordinate step is a safeguarded 1-D Newton method (Yu, Huang and
// Lin 2011) on whichever of a_i and C_i - a_i is smaller (no cancellation near the upper end).
// The stopping measure is the largest |d/da_i| met in an iteration (LIBLINEAR -s 7's, absolute).
struct SmoothTask {
  bool logistic = true;
  double sigma = 0.1;        // smoothed hinge: psi_M's sigma
  std::vector<double> comp;  // C_i - a_i, kept beside a_i
  double max_grad = 0.0;     // this iteration's largest |gradient|
  static constexpr int kMaxNewton = 60;
  static constexpr double kInnerTol = 1e-12;

  void begin() { max_grad = 0.0; }
  // h'(p) and h''(p) from p and q = 1 - p (both given: either may be tiny).
  double h1(double p, double q) const {
    return logistic ? std::log(p) - std::log(q) : -sigma * (q - p) / (2.0 * std::sqrt(p * q));
  }
  double h2(double p, double q) const {
    if (logistic) return 1.0 / (p * q);
    const double pq = p * q;
    return sigma / (4.0 * pq * std::sqrt(pq));
  }
  template <class V>
  bool visit(DualState<V>& s, Index i) {
    const double yi = s.y[i], c = s.cost[i], q = s.qd[i];
    const double g0 = yi * s.margin(i) - (logistic ? 0.0 : 1.0);
    double& ai = s.a[i];
    double& ci = comp[i];
    // Newton on x = the smaller of a_i, C_i - a_i; v = a_i as a function of x.
    const bool lower = ai <= ci;
    const double x0 = lower ? ai : ci, sgn = lower ? 1.0 : -1.0;
    const auto grad_at = [&](double x) {  // d/da_i of the subproblem at a_i = v(x)
      const double p = (lower ? x : c - x) / c, r = (lower ? c - x : x) / c;
      return q * sgn * (x - x0) + g0 + h1(p, r);
    };
    double gx = grad_at(x0);
    max_grad = std::max(max_grad, std::fabs(gx));
    double x = x0;
    for (int it = 0; it < kMaxNewton && std::fabs(gx) > kInnerTol * (1.0 + std::fabs(g0)); ++it) {
      const double p = (lower ? x : c - x) / c, r = (lower ? c - x : x) / c;
      const double next = x - sgn * gx / (q + h2(p, r) / c);
      x = next <= 0.0 ? 0.1 * x : (next >= c ? c - 0.1 * (c - x) : next);
      gx = grad_at(x);
    }
    const double a_new = lower ? x : c - x, c_new = lower ? c - x : x;
    const double delta = (a_new - ai) * yi;
    ai = a_new;
    ci = c_new;
    if (delta != 0.0) s.add_row(i, delta);
    return false;  // no coordinate is ever at a bound: nothing is shrunk
  }
  // Coordinate i's separable term of the dual (max form): m a_i - C_i h(a_i / C_i), from a_i
  // and C_i - a_i (both kept: either may be tiny) for dual_gap.
  template <class V>
  double dual_term(const DualState<V>& s, Index i) const {
    const double a = s.a[i], r = comp[i], c = s.cost[i];
    if (logistic)
      return -(a > 0.0 ? a * std::log(a / c) : 0.0) - (r > 0.0 ? r * std::log(r / c) : 0.0);
    return a + sigma * std::sqrt(a * r);
  }
  double measure() const { return max_grad; }
  bool satisfied(double tol) const { return max_grad <= tol; }
  void reset_thresholds() {}
  void update_thresholds(bool) {}
};

// The Gaussian-smoothed hinge's dual (psi_G(t) = sigma G(t / sigma), G(v) = v Phi(v) + phi(v)):
// min 1/2 a'Qa - e'a + sum_i C_i h(a_i / C_i) with h(p) = -sigma phi(Phi^-1(p)), the conjugate
// of psi_G (psi_G'(t) = Phi(t / sigma) = p gives t = sigma Phi^-1(p), and p t - psi_G(t) =
// -sigma phi(Phi^-1(p))), so h'(p) = sigma Phi^-1(p) and h''(p) = sigma / phi(Phi^-1(p)). Each
// a_i is kept as its quantile q_i, a_i = C_i Phi(q_i): no inverse of Phi is ever evaluated, and
// both a_i and C_i - a_i = C_i Phi(-q_i) stay accurate near either end. Coordinate i's
// subproblem derivative in q is G(q) = Q_ii C_i (Phi(q) - Phi(q_i)) + g0 + sigma q (g0 = y_i
// w.x_i - 1), increasing in q, with its root inside [(-g0 - Q_ii C_i Phi(-q_i)) / sigma,
// (-g0 + Q_ii C_i Phi(q_i)) / sigma] (Phi is in [0, 1]): a bracketed Newton method, bisection
// where a step leaves the bracket. q is kept within +-kMaxQuantile (Phi(-37.5) ~ 5e-308, the
// bound a_i = 0 or C_i up to the smallest normal double). The stopping measure is
// the largest |d/da_i| = |g0 + sigma q_i| met in an iteration, as for the other smooth duals.
struct GaussSmoothTask {
  double sigma = 0.1;
  std::vector<double> quantile;  // q_i, a_i = C_i Phi(q_i)
  double max_grad = 0.0;         // this iteration's largest |gradient|
  static constexpr int kMaxNewton = 100;
  static constexpr double kInnerTol = 1e-12;
  static constexpr double kMaxQuantile = 37.5;
  static constexpr double kStartQuantile = -6.0;  // a_i = 9.9e-10 C_i: near a = 0

  void begin() { max_grad = 0.0; }
  template <class V>
  bool visit(DualState<V>& s, Index i) {
    const double yi = s.y[i], c = s.cost[i], qc = s.qd[i] * c;
    const double g0 = yi * s.margin(i) - 1.0;
    double& qi = quantile[static_cast<std::size_t>(i)];
    const double q0 = qi;
    double gq = g0 + sigma * q0;
    max_grad = std::max(max_grad, std::fabs(gq));
    const double stop = kInnerTol * (1.0 + std::fabs(g0));
    if (std::fabs(gq) <= stop) return false;
    // Phi(q0) and its upper tail once per visit; Phi(q) - Phi(q0) from the upper tails where
    // both q and q0 are in it (no cancellation near 1): one tail function per Newton step.
    const double p0 = detail::normal_cdf(q0), r0 = detail::normal_cdf(-q0);
    const auto cdf_diff = [&](double q) {
      return q > 0.0 && q0 > 0.0 ? r0 - detail::normal_cdf(-q) : detail::normal_cdf(q) - p0;
    };
    const auto deriv = [&](double q) { return qc * cdf_diff(q) + g0 + sigma * q; };
    double lo = std::max(-kMaxQuantile, (-g0 - qc * r0) / sigma);
    double hi = std::min(kMaxQuantile, (-g0 + qc * p0) / sigma);
    double q = std::min(std::max(q0, lo), hi);
    if (q != q0) gq = deriv(q);
    for (int it = 0; it < kMaxNewton && std::fabs(gq) > stop && hi > lo; ++it) {
      (gq > 0.0 ? hi : lo) = q;
      const double next = q - gq / (qc * detail::normal_pdf(q) + sigma);
      q = next > lo && next < hi ? next : 0.5 * (lo + hi);
      gq = deriv(q);
    }
    const double change = cdf_diff(q);
    qi = q;
    s.a[i] = c * detail::normal_cdf(q);  // not p0 + change: a tiny a_i keeps its digits
    if (change != 0.0) s.add_row(i, c * change * yi);
    return false;  // no coordinate is ever at a bound: nothing is shrunk
  }
  // Coordinate i's separable term of the dual (max form): a_i - C_i h(a_i / C_i) = a_i +
  // C_i sigma phi(q_i), for dual_gap.
  template <class V>
  double dual_term(const DualState<V>& s, Index i) const {
    const double q = quantile[static_cast<std::size_t>(i)];
    return s.a[i] + s.cost[i] * sigma * detail::normal_pdf(q);
  }
  double measure() const { return max_grad; }
  bool satisfied(double tol) const { return max_grad <= tol; }
  void reset_thresholds() {}
  void update_thresholds(bool) {}
};

// Regression duals: min 1/2 b'Qbar b - y'b + eps ||b||_1, -U_i <= b_i <= U_i (Ho and Lin).
struct SvrTask {
  double epsilon = 0.0;
  double max_viol = 0.0, sum_viol = 0.0;  // this iteration's violations
  double first_sum = -1.0;                // sum of violations in the first iteration
  double shrink_at = kInf;                // last iteration's largest violation

  void begin() {
    max_viol = 0.0;
    sum_viol = 0.0;
  }
  template <class V>
  bool visit(DualState<V>& s, Index i) {
    double& bi = s.a[i];
    const double ui = s.upper(i);
    const double g = s.margin(i) - s.y[i] + s.diag_of(i) * bi;
    const double gp = g + epsilon;  // derivative for b_i > 0
    const double gn = g - epsilon;  // derivative for b_i < 0
    double viol = 0.0;
    if (bi == 0.0) {
      if (gp < 0.0)
        viol = -gp;
      else if (gn > 0.0)
        viol = gn;
      else if (gp > shrink_at && gn < -shrink_at)
        return true;  // firmly inside the kink
    } else if (bi == ui) {
      if (gp > 0.0)
        viol = gp;
      else if (gp < -shrink_at)
        return true;
    } else if (bi == -ui) {
      if (gn < 0.0)
        viol = -gn;
      else if (gn > shrink_at)
        return true;
    } else {
      viol = std::fabs(bi > 0.0 ? gp : gn);
    }
    max_viol = std::max(max_viol, viol);
    sum_viol += viol;
    if (viol > kNegligible) {
      // Minimizer of 1/2 q (z - b)^2 + g (z - b) + eps |z|, then clipped to the box.
      const double q = s.qd[i];
      double z = 0.0;
      if (gp < q * bi)
        z = bi - gp / q;
      else if (gn > q * bi)
        z = bi - gn / q;
      z = std::min(std::max(z, -ui), ui);
      const double delta = z - bi;
      bi = z;
      if (delta != 0.0) s.add_row(i, delta);
    }
    return false;
  }
  // Coordinate i's separable term of the dual (max form): y_i b_i - eps |b_i| - 1/2 D_ii b_i^2.
  template <class V>
  double dual_term(const DualState<V>& s, Index i) const {
    const double bi = s.a[i];
    return bi * s.y[i] - epsilon * std::fabs(bi) - 0.5 * s.diag_of(i) * bi * bi;
  }
  double measure() const { return first_sum > 0.0 ? sum_viol / first_sum : 0.0; }
  bool satisfied(double tol) {
    if (first_sum < 0.0) first_sum = sum_viol;
    return sum_viol <= tol * first_sum;
  }
  void reset_thresholds() { shrink_at = kInf; }
  void update_thresholds(bool shrinking) {
    if (shrinking) shrink_at = max_viol;
  }
};

// The primal's penalty at w: 1/2 ||w~||^2, or for the elastic net l2/2 ||w~||^2 + l1 ||w||_1
// (w~ = w and the bias; the bias is never l1-penalized).
template <class V>
double penalty_value(const DualState<V>& s) {
  double f = 0.0;
  for (Index j = 0; j <= s.d; ++j) f += s.w[j] * s.w[j];
  f *= 0.5;
  if (s.elastic) {
    double l1 = 0.0;
    for (Index j = 0; j < s.d; ++j) l1 += std::fabs(s.w[j]);
    f = s.elastic->l2 * f + s.elastic->l1 * l1 + s.elastic->bias_l1 * std::fabs(s.w[s.d]);
  }
  return f;
}

// C_i loss(u_i) of row i at w (u_i = y_i z_i, or z_i - y_i for regression), C_i > 0.
template <class V, class L>
double row_loss(const DualState<V>& s, const L& loss, bool regression, Index i) {
  const double z = s.margin(i);
  return s.cost[i] * loss.value(regression ? z - s.y[i] : s.y[i] * z);
}

// The relative duality gap (P(w) - D(a)) / P(w) at the current a: for the elastic net, with
// w = soft(r, l1) / l2 kept beside it, P(w) = l2/2 (||w||^2 + b^2) + l1 ||w||_1 + sum_i C_i
// loss(y_i w.x_i), D(a) = sum_i t_i(a_i) - sum_j R_j*(r_j) (the header's dual, max form); the l2
// dual is the case l1 = 0, l2 = 1, r = w. The separable terms t_i are the task's dual_term:
// a_i - 1/2 D_ii a_i^2 (hinge, squared hinge), y_i b_i - eps |b_i| - 1/2 D_ii b_i^2 with
// loss(w.x_i - y_i) (regression), m a_i - C_i h(a_i / C_i) (logistic, smoothed hinge). Every
// iterate is in the box, so the gap is a certificate (weak duality). One pass (the margins).
template <class V, class Task>
double dual_gap(const DualState<V>& s, const LossSpec& spec, const Task& task) {
  const bool regression = is_regression(spec.kind);
  double loss_sum = 0.0, dual = 0.0;
  visit_loss(spec, [&](const auto& loss) {
    for (Index i = 0; i < s.n; ++i) {
      if (!(s.cost[i] > 0.0)) continue;
      loss_sum += row_loss(s, loss, regression, i);
      dual += task.dual_term(s, i);
    }
  });
  // sum_j R_j*(r_j); the l2 dual is the elastic net's with l1 = 0, l2 = 1 and r = w.
  const double l1 = s.elastic ? s.elastic->l1 : 0.0, l2 = s.elastic ? s.elastic->l2 : 1.0;
  const std::vector<double>& r = s.elastic ? s.r : s.w;
  const double bias_excess = std::fabs(r[s.d]) - (s.elastic ? s.elastic->bias_l1 : 0.0);
  double conj = bias_excess > 0.0 ? bias_excess * bias_excess : 0.0;
  for (Index j = 0; j < s.d; ++j) {
    const double t = std::fabs(r[j]) - l1;
    if (t > 0.0) conj += t * t;
  }
  const double primal = penalty_value(s) + loss_sum;
  dual -= conj / (2.0 * l2);
  return primal > 0.0 ? std::max(primal - dual, 0.0) / primal : 0.0;
}

// Every dual stops on its own rule (the projected gradients, LIBLINEAR's; for the smooth duals
// the largest |d/da_i|) or on the relative duality gap (dual_gap) <= gap_stop_tol(tol)
// (gap_stop.hpp), whichever comes first (below, "tol" is that bound). A gap check costs one pass;
// the first comes after kGapCheckPasses passes' worth of visits, each next one kGapCheckPasses
// later or kGapCheckGrowth times later (in passes), whichever is later: O(log passes) checks in a
// long run, none in a short one, and a stop at most ~25% later than the gap allowed; but sooner (at
// least kGapCheckMinPasses later) where the gap's mean rate of decrease so far, log(first / best)
// per pass, puts its crossing of tol earlier (GapSchedule; a crossing found behind is retried at
// most kMaxMissedCrossings times in a row, every kGapCheckMinPasses): the elastic net on the regime
// matrix's sparse 16,000 x 10,000 cell had reached 9e-5 at 59 passes and was stopped at 71 (0.32
// s), now at 50 (0.22 s). (The primal value, and so the gap, is not monotone along the iterations:
// a first check at 10 passes instead of 5 moved the later checks off the low points, and a9a and
// covtype.5000 ran into max_iter again.) Measured at tol 1e-4 (regime matrix,
// LinearSVC(loss="hinge")): sparse 16,000 x 10,000 0.049 s (116 iterations) against 0.117 s (612)
// on the projected gradients alone, a9a and covtype.5000 certified where the rule alone ran into
// max_iter at the same time, objectives within 6e-5 of the longer runs'; the elastic net on that
// sparse cell 0.40 s against 0.81 s at max_iter; the smooth duals on sparse 1,600 x 50,000 (60
// entries per row) 50 -> 20 passes (psi_M) and 16 -> 8 (logistic), 2-5e-5 above the optimum.
// Where the gap never reaches tol (dna, digits, 26 classes: both end at max_iter) the checks
// cost a few percent. Below gap_stop.hpp's kGapMinTol the projected gradients alone decide.
constexpr double kGapCheckPasses = 5.0;
constexpr double kGapCheckGrowth = 1.25;
constexpr double kGapCheckMinPasses = 2.0;
constexpr int kMaxMissedCrossings = 5;

// When the next duality-gap check is due (the rule above), in passes.
class GapSchedule {
 public:
  GapSchedule(double tol, double passes) : tol_(tol), next_(passes + kGapCheckPasses) {}
  bool due(double passes) const { return passes >= next_; }
  // After a check that found gap (> tol), with passes counting its own pass. Out of line: it
  // runs a few times per fit, and the visit loop's code stays as it was.
  [[gnu::noinline]] void checked(double passes, double gap) {
    next_ = std::max(passes + kGapCheckPasses, kGapCheckGrowth * passes);
    if (!(gap > 0.0 && gap < kInf)) return;
    if (first_passes_ < 0.0) {
      first_passes_ = best_passes_ = passes;
      first_gap_ = best_gap_ = gap;
      return;
    }
    if (gap < best_gap_) {
      best_gap_ = gap;
      best_passes_ = passes;
    }
    if (!(best_gap_ < first_gap_ && best_passes_ > first_passes_)) return;
    const double rate = std::log(first_gap_ / best_gap_) / (best_passes_ - first_passes_);
    const double crossing = best_passes_ + std::log(best_gap_ / tol_) / rate;
    // A crossing already behind is a failed prediction (the gap is above tol where it was
    // to be below): the next check comes kGapCheckMinPasses later, kMaxMissedCrossings times
    // in a row at most (the gap is not monotone, and a low point may follow); then the geometric
    // schedule stands, so a gap that stalls above tol is not checked every few passes.
    missed_ = crossing <= passes ? missed_ + 1 : 0;
    if (crossing < next_ && missed_ <= kMaxMissedCrossings)
      next_ = std::max(passes + kGapCheckMinPasses, crossing);
  }

 private:
  double tol_, next_;
  double first_passes_ = -1.0, first_gap_ = 0.0, best_passes_ = 0.0, best_gap_ = 0.0;
  int missed_ = 0;  // consecutive checks whose predicted crossing was behind them
};

// The outer loop shared by both duals: shuffle, visit the active set, test, shrink. gap: the
// relative duality gap, checked as above, or nullptr.
template <class V, class Task>
SolveResult dual_loop(DualState<V>& s, Task& task, const DualCdOptions& opt, const Callbacks& cb,
                      Clock::time_point start, const LossSpec* gap = nullptr) {
  SolveResult res;
  res.status = SolverStatus::max_iter;
  OrderRng rng(static_cast<std::uint64_t>(opt.seed));
  double passes = 1.0;                                   // the pass that computed Qbar_ii
  const double gap_tol = detail::gap_stop_tol(opt.tol);  // 0: no gap stop
  GapSchedule schedule(gap_tol, passes);
  Index since_poll = 0;
  long long iter = 0;
  double last_gap = kNaN;  // the gap checked in the last iteration (its record), NaN if none
  bool out_of_passes = false;
  while (iter < opt.max_iter) {
    if (cb.poll()) {
      res.status = SolverStatus::interrupted;
      break;
    }
    s.shuffle_active(rng);
    task.begin();
    const Index visited = s.active;
    bool stopped = false;
    for (Index k = 0; k < s.active; ++k) {
      if (task.visit(s, s.index[k])) {
        --s.active;
        std::swap(s.index[k], s.index[s.active]);
        --k;  // the coordinate swapped in is visited next
      }
      if (++since_poll >= s.poll_every) {
        since_poll = 0;
        if (cb.poll()) {
          stopped = true;
          break;
        }
      }
    }
    ++iter;
    res.inner_iterations += visited;
    passes += s.n > 0 ? static_cast<double>(visited) / static_cast<double>(s.n) : 0.0;
    if (stopped) {
      res.status = SolverStatus::interrupted;
      break;
    }
    bool satisfied = task.satisfied(opt.tol);
    res.optimality = task.measure();
    bool certified = false;
    last_gap = kNaN;
    if (gap && gap_tol > 0.0 && !satisfied && schedule.due(passes)) {
      const double g = last_gap = dual_gap(s, *gap, task);
      passes += 1.0;
      schedule.checked(passes, g);
      if (g <= gap_tol) {
        certified = satisfied = true;
        res.optimality = g;
        res.message = "dual_cd: stopped by the relative duality gap " + std::to_string(g) +
                      " <= " + std::to_string(gap_tol) + " (the projected-gradient measure was " +
                      std::to_string(task.measure()) + ")";
      }
    }
    if (opt.record_history || cb.on_iteration) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.optimality = res.optimality;
      rec.inner_iterations = visited;
      rec.active_size = s.active;
      rec.passes = std::llround(passes);
      rec.gap = last_gap;
      rec.time = detail::seconds_since(start);
      if (!report_iteration(res, rec, opt.record_history, cb)) {
        res.status = SolverStatus::interrupted;
        break;
      }
    }
    if (satisfied) {
      if (certified || s.active == s.n_free) {
        res.status = SolverStatus::converged;
        break;
      }
      // Converged on the active set: reactivate everything and check again.
      s.active = s.n_free;
      task.reset_thresholds();
    } else {
      task.update_thresholds(opt.shrinking);
      // The pass budget: a caller with a faster exact finisher at hand (LinearSVR's ipm) stops
      // a run whose cost has reached the finisher's. Passes, not time: the same run on any
      // machine.
      if (opt.max_passes > 0 && passes >= static_cast<double>(opt.max_passes)) {
        out_of_passes = true;
        break;
      }
    }
  }
  // At the iteration limit the warning says how far the returned point may be from the
  // optimum: its relative duality gap (one more pass). A point at max_iter can be far off: the
  // hinge elastic net on dense 500 x 2,000 (bench_cliff_hunt.py's set, C = 1) ended 38x above
  // the optimum's objective with a projected-gradient measure of 0.89 that does not show it.
  const std::string limit = out_of_passes
                                ? "pass budget (max_passes " + std::to_string(opt.max_passes) +
                                      ", " + std::to_string(iter) + " iterations)"
                                : "iteration limit (" + std::to_string(iter) + " iterations)";
  const std::string remedy = std::string("increase ") +
                             (out_of_passes ? "max_passes" : "max_iter") + " or tol, or scale X";
  if (res.status == SolverStatus::max_iter && gap && gap_tol > 0.0) {
    // The last iteration's check, where it had one, was made at this point (nothing after a
    // check moves a): not computed twice.
    double g = last_gap;
    if (std::isnan(g)) {
      g = dual_gap(s, *gap, task);
      passes += 1.0;
    }
    res.message = "it stopped at its " + limit + " before reaching tol, with a relative duality " +
                  "gap of " + short_number(g) +
                  " at the returned point (a bound on (F - F*) / F); " + remedy;
  } else if (out_of_passes) {
    res.message = "it stopped at its " + limit + " before reaching tol; " + remedy;
  }
  res.iterations = iter;
  res.passes = std::llround(passes);
  return res;
}

// F(w) in one pass: per-row terms in parallel, summed in row order (so the value does not
// depend on the thread count).
template <class V>
double primal_objective(DualState<V>& s, const LossSpec& spec, int n_threads) {
  std::vector<double>& terms = s.qd;  // Qbar_ii is no longer needed: reuse its n doubles
  const bool regression = is_regression(spec.kind);
  // Threads only where the pass is long enough to pay for a fork/join (data.hpp).
  const int chunks = pass_chunks(s.X, resolve_threads(n_threads));
  visit_loss(spec, [&](const auto& loss) {
    parallel_chunks(s.n, chunks, [&](int, Index begin, Index end) {
      for (Index i = begin; i < end; ++i)
        terms[i] = s.cost[i] > 0.0 ? row_loss(s, loss, regression, i) : 0.0;
    });
  });
  double f = penalty_value(s);
  for (Index i = 0; i < s.n; ++i) f += terms[i];
  return f;
}

template <class V>
SolveResult solve_view(const V& X, const LinearProblem& p, const LossSpec& spec,
                       const DualCdOptions& opt, const Callbacks& cb, Clock::time_point start,
                       const DualCdPenalty* elastic = nullptr) {
  const bool squared =
      spec.kind == LossKind::squared_hinge || spec.kind == LossKind::squared_epsilon_insensitive;
  DualState<V> s(X, p, squared);
  if (elastic) {
    s.elastic = elastic;
    s.r.assign(s.w.size(), 0.0);
  }
  SolveResult res;
  if (is_regression(spec.kind)) {
    const double eps = spec.epsilon;
    s.fix_zero_rows([&](Index i) {
      // min -y_i b + eps |b| over [-U_i, U_i].
      if (p.y[i] > eps) return s.upper(i);
      if (p.y[i] < -eps) return -s.upper(i);
      return 0.0;
    });
    SvrTask task;
    task.epsilon = eps;
    res = dual_loop(s, task, opt, cb, start, &spec);
  } else if (spec.kind == LossKind::logistic || spec.kind == LossKind::smoothed_hinge) {
    SmoothTask task;
    task.logistic = spec.kind == LossKind::logistic;
    task.sigma = spec.sigma;
    task.comp.assign(static_cast<std::size_t>(s.n), 0.0);
    // Start inside the box, near a_i = 0 (LIBLINEAR -s 7's start): w = sum a_i y_i x_i.
    for (Index k = 0; k < s.n_free; ++k) {
      const Index i = s.index[k];
      const double c = p.cost[i];
      s.a[i] = std::min(1e-3 * c, 1e-8);
      task.comp[i] = c - s.a[i];
      s.add_row(i, s.a[i] * p.y[i]);
    }
    res = dual_loop(s, task, opt, cb, start, &spec);
  } else if (spec.kind == LossKind::gaussian_smoothed_hinge) {
    GaussSmoothTask task;
    task.sigma = spec.sigma;
    task.quantile.assign(static_cast<std::size_t>(s.n), 0.0);
    // Start near a = 0 as the other smooth duals: w = sum a_i y_i x_i.
    const double p0 = detail::normal_cdf(GaussSmoothTask::kStartQuantile);
    for (Index k = 0; k < s.n_free; ++k) {
      const Index i = s.index[k];
      task.quantile[static_cast<std::size_t>(i)] = GaussSmoothTask::kStartQuantile;
      s.a[i] = p0 * p.cost[i];
      s.add_row(i, s.a[i] * p.y[i]);
    }
    res = dual_loop(s, task, opt, cb, start, &spec);
  } else {
    s.fix_zero_rows([&](Index i) { return s.upper(i); });  // min -a over [0, U_i]
    if (elastic) {
      SvcTask<true> task;
      res = dual_loop(s, task, opt, cb, start, &spec);
    } else {
      SvcTask<false> task;
      res = dual_loop(s, task, opt, cb, start, &spec);
    }
  }
  res.objective = primal_objective(s, spec, opt.n_threads);
  res.passes += 1;
  if (!std::isfinite(res.objective)) res.status = SolverStatus::numerical_error;
  // w is the solution (w then b): hand it over instead of copying (n_features doubles).
  s.w.resize(static_cast<std::size_t>(s.d + (p.fit_intercept ? 1 : 0)));
  res.solution = std::move(s.w);
  return res;
}

}  // namespace

void validate_options(const DualCdOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_DUAL_CD_OPTIONS, "dual_cd", o);
}

namespace {

SolveResult solve_checked(const LinearProblem& problem, const LossSpec& loss,
                          const DualCdOptions& options, const Callbacks& callbacks,
                          const DualCdPenalty* elastic) {
  const auto start = Clock::now();
  validate_options(options);
  validate_problem(problem, loss, options.check_input);
  if (loss.kind != LossKind::hinge && loss.kind != LossKind::squared_hinge &&
      loss.kind != LossKind::logistic && loss.kind != LossKind::smoothed_hinge &&
      loss.kind != LossKind::gaussian_smoothed_hinge &&
      loss.kind != LossKind::epsilon_insensitive &&
      loss.kind != LossKind::squared_epsilon_insensitive)
    throw_invalid(std::string("dual_cd handles the losses hinge, squared_hinge, logistic, "
                              "smoothed_hinge, gaussian_smoothed_hinge, epsilon_insensitive "
                              "and squared_epsilon_insensitive, not '") +
                  to_string(loss.kind) + "'");
  if (elastic && loss.kind != LossKind::hinge && loss.kind != LossKind::squared_hinge)
    throw_invalid(std::string("dual_cd's elastic-net dual handles the losses hinge and "
                              "squared_hinge, not '") +
                  to_string(loss.kind) + "'");
  if (elastic && !(elastic->l2 > 0.0 && std::isfinite(elastic->l2)))
    throw_invalid(
        "dual_cd: the l2 weight of the elastic net must be a finite number > 0 "
        "(pure l1 has no such dual: use smsvm)");
  if (elastic && !(elastic->l1 >= 0.0 && std::isfinite(elastic->l1)))
    throw_invalid("dual_cd: the l1 weight of the elastic net must be a finite number >= 0");
  if (elastic && !(elastic->bias_l1 >= 0.0 && std::isfinite(elastic->bias_l1)))
    throw_invalid("dual_cd: the bias's l1 weight (bias_l1) must be a finite number >= 0");
  if (problem.fit_intercept && !problem.regularize_intercept)
    throw_invalid(
        "dual_cd regularizes the intercept (LIBLINEAR's bias); use regularize_intercept=True, "
        "or another solver (tron, smsvm, sgd) for an unregularized intercept");
  return detail::solve_on_rows(
      problem.X, start,
      "dual_cd: out of memory for its work vectors (n_samples + n_features doubles) or, for "
      "column-major dense X, the row-major copy of X (pass X in C order to avoid it)",
      [&](const auto& X) {
        return detail::solve_on_kept_columns(
            X, nullptr, problem.fit_intercept ? 1 : 0, [&](const auto& V, const double*) {
              return solve_view(V, problem, loss, options, callbacks, start, elastic);
            });
      });
}

}  // namespace

SolveResult solve_dual_cd(const LinearProblem& problem, const LossSpec& loss,
                          const DualCdOptions& options, const Callbacks& callbacks,
                          const double* w0) {
  (void)w0;  // no dual warm start from w alone (see the header)
  return solve_checked(problem, loss, options, callbacks, nullptr);
}

SolveResult solve_dual_cd_elastic_net(const LinearProblem& problem, const LossSpec& loss,
                                      const DualCdPenalty& penalty, const DualCdOptions& options,
                                      const Callbacks& callbacks) {
  return solve_checked(problem, loss, options, callbacks, &penalty);
}

}  // namespace svmkit
