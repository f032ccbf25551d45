// Linear one-class SVM, two-variable dual coordinate descent (see solvers/linear_one_class.hpp
// for the problem, the method and the stopping rule).
//
// Implementation notes. One outer iteration costs one pass for the gradients plus, per pair,
// three row reads (G_i, G_j and x_i.x_j through a scattered copy of x_i) and two row axpys.
// The gradients used to order the pairs are those of the pass; the step itself uses exact ones.
#include "svmkit/solvers/linear_one_class.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <new>
#include <numeric>
#include <string>
#include <type_traits>
#include <vector>

#include "row_solve.hpp"
#include "svmkit/data.hpp"

namespace svmkit {
namespace {

using Clock = detail::SolveClock;
using detail::kNegligible;
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class V>
struct is_dense_row_major : std::false_type {};
template <class T>
struct is_dense_row_major<DenseRowMajorView<T>> : std::true_type {};

template <class V>
struct OneClassState {
  const V& X;
  const double* upper;  // U_i
  Index n = 0, d = 0;
  std::vector<double> w, a, g, sq;
  std::vector<double> scatter;  // x_i scattered for x_i.x_j; zero between uses
  std::vector<Index> down, up;  // candidates of the pairs (heaps of sample indices)
  std::vector<Index> touched;   // samples used by this sweep's pairs
  std::vector<Index> act;       // samples with U_i > 0; act[0, n_act) are active (shrinking)
  Index n_act = 0;
  std::vector<char> used;

  OneClassState(const V& view, const double* u, double nu) : X(view), upper(u) {
    n = view.rows;
    d = view.cols;
    const auto nn = static_cast<std::size_t>(n);
    w.assign(static_cast<std::size_t>(d), 0.0);
    a.assign(nn, 0.0);
    g.assign(nn, 0.0);
    sq.assign(nn, 0.0);
    scatter.assign(static_cast<std::size_t>(d), 0.0);
    used.assign(nn, 0);
    down.reserve(nn);
    up.reserve(nn);
    touched.reserve(nn);
    act.reserve(nn);
    double total = 0.0;
    for (Index i = 0; i < n; ++i) total += upper[i];
    double left = nu * total;
    // LIBSVM's start: fill the bounds in order until the sum constraint holds.
    for (Index i = 0; i < n && left > 0.0; ++i) {
      a[i] = std::min(upper[i], left);
      left -= a[i];
    }
    for (Index i = 0; i < n; ++i) {
      sq[i] = row_sq_norm(X, i);
      if (a[i] != 0.0) row_axpy(X, i, a[i], w.data());
      if (upper[i] > 0.0) act.push_back(i);
    }
    n_act = static_cast<Index>(act.size());
  }
  double dot_rows(Index i, Index j) {
    if constexpr (is_dense_row_major<V>::value) {
      // Dense rows: a direct dot product (the scatter costs three passes instead of one).
      const auto* xi = X.data + i * X.ld;
      const auto* xj = X.data + j * X.ld;
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      Index c = 0;
      for (; c + 4 <= d; c += 4) {
        s0 += static_cast<double>(xi[c]) * static_cast<double>(xj[c]);
        s1 += static_cast<double>(xi[c + 1]) * static_cast<double>(xj[c + 1]);
        s2 += static_cast<double>(xi[c + 2]) * static_cast<double>(xj[c + 2]);
        s3 += static_cast<double>(xi[c + 3]) * static_cast<double>(xj[c + 3]);
      }
      for (; c < d; ++c) s0 += static_cast<double>(xi[c]) * static_cast<double>(xj[c]);
      return (s0 + s1) + (s2 + s3);
    }
    for_each_in_row(X, i, [&](Index c, double v) { scatter[c] += v; });
    const double s = row_dot(X, j, scatter.data());
    for_each_in_row(X, i, [&](Index c, double) { scatter[c] = 0.0; });
    return s;
  }
  // The two-variable step on (i, j): a_i -= t, a_j += t.
  void pair_step(Index i, Index j) {
    const double gi = row_dot(X, i, w.data()), gj = row_dot(X, j, w.data());
    if (!(gi - gj > kNegligible)) return;
    const double q = sq[i] + sq[j] - 2.0 * dot_rows(i, j);
    const double room = std::min(a[i], upper[j] - a[j]);
    const double t = q > 0.0 ? std::min((gi - gj) / q, room) : room;
    if (!(t > 0.0)) return;
    a[i] = t == a[i] ? 0.0 : a[i] - t;
    a[j] = t == upper[j] - a[j] ? upper[j] : a[j] + t;
    row_axpy(X, i, -t, w.data());
    row_axpy(X, j, t, w.data());
  }
  // Gradients of the active samples (one pass over them) and their KKT violation. With
  // shrink, then drops the samples at a bound whose gradient lies beyond every candidate of the
  // other side (a_i = 0 with G_i above all G of a_j > 0, a_i = U_i with G_i below all G of
  // a_j < U_j): no pair can move them now; reactivate() brings them back before convergence.
  double gradients_and_violation(bool shrink) {
    double hi = -kInf, lo = kInf;
    for (Index t = 0; t < n_act; ++t) {
      const Index i = act[t];
      g[i] = row_dot(X, i, w.data());
      if (a[i] > 0.0) hi = std::max(hi, g[i]);
      if (a[i] < upper[i]) lo = std::min(lo, g[i]);
    }
    if (shrink) {
      for (Index t = 0; t < n_act; ++t) {
        const Index i = act[t];
        if ((a[i] == 0.0 && g[i] > hi) || (a[i] == upper[i] && g[i] < lo))
          std::swap(act[t--], act[--n_act]);
      }
    }
    return hi > -kInf && lo < kInf ? hi - lo : 0.0;
  }
  void reactivate() { n_act = static_cast<Index>(act.size()); }
  // One sweep of pair steps in the order of the (stale) gradients; returns the pairs taken.
  // The two orders are heaps, so an iteration that takes p pairs costs O(n + p log n) beyond
  // the steps (a full sort would dominate on problems where few pairs move).
  Index sweep(double tol) {
    down.clear();
    up.clear();
    for (Index t = 0; t < n_act; ++t) {
      const Index i = act[t];
      if (a[i] > 0.0) down.push_back(i);
      if (a[i] < upper[i]) up.push_back(i);
    }
    auto larger_first = [&](Index x, Index y) { return g[x] < g[y]; };   // max-heap of G
    auto smaller_first = [&](Index x, Index y) { return g[x] > g[y]; };  // min-heap of G
    std::make_heap(down.begin(), down.end(), larger_first);
    std::make_heap(up.begin(), up.end(), smaller_first);
    auto pop = [](std::vector<Index>& h, auto cmp) {
      std::pop_heap(h.begin(), h.end(), cmp);
      const Index top = h.back();
      h.pop_back();
      return top;
    };
    Index pairs = 0;
    touched.clear();
    while (!down.empty() && !up.empty()) {
      if (used[down.front()]) {
        pop(down, larger_first);
        continue;
      }
      if (used[up.front()] || up.front() == down.front()) {
        pop(up, smaller_first);
        continue;
      }
      const Index i = pop(down, larger_first), j = pop(up, smaller_first);
      if (!(g[i] - g[j] > tol)) break;
      used[i] = used[j] = 1;
      touched.push_back(i);
      touched.push_back(j);
      pair_step(i, j);
      ++pairs;
    }
    for (Index t : touched) used[t] = 0;
    return pairs;
  }
  double rho() const {
    double sum = 0.0, hi = -kInf, lo = kInf;
    Index free = 0;
    for (Index i = 0; i < n; ++i) {
      if (upper[i] <= 0.0) continue;
      if (a[i] > 0.0 && a[i] < upper[i]) {
        sum += g[i];
        ++free;
      } else if (a[i] == 0.0) {
        lo = std::min(lo, g[i]);  // rho <= G_i
      } else {
        hi = std::max(hi, g[i]);  // rho >= G_i
      }
    }
    if (free > 0) return sum / static_cast<double>(free);
    if (!std::isfinite(hi)) return lo;
    if (!std::isfinite(lo)) return hi;
    return 0.5 * (hi + lo);
  }
};

template <class V>
SolveResult solve_view(const V& X, const LinearProblem& p, double nu,
                       const LinearOneClassOptions& opt, const Callbacks& cb,
                       Clock::time_point start) {
  OneClassState<V> s(X, p.cost, nu);
  SolveResult res;
  res.status = SolverStatus::max_iter;
  long long iter = 0;
  long long passes = 1;
  while (true) {
    if (cb.poll()) {
      res.status = SolverStatus::interrupted;
      break;
    }
    const bool full = s.n_act == static_cast<Index>(s.act.size());
    res.optimality = s.gradients_and_violation(opt.shrinking);
    ++passes;
    if (res.optimality <= opt.tol) {
      if (full) {
        res.status = SolverStatus::converged;
        break;
      }
      s.reactivate();  // converged on the active set: check everything again
      continue;
    }
    if (iter >= opt.max_iter) break;
    const Index pairs = s.sweep(opt.tol);
    ++iter;
    res.inner_iterations += pairs;
    passes += s.n > 0 ? (3 * pairs + s.n - 1) / s.n : 0;
    if (opt.record_history || cb.on_iteration) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.optimality = res.optimality;  // measured before this iteration's steps
      rec.inner_iterations = pairs;
      rec.passes = passes;
      rec.time = detail::seconds_since(start);
      if (!report_iteration(res, rec, opt.record_history, cb)) {
        res.status = SolverStatus::interrupted;
        break;
      }
    }
  }
  if (res.status != SolverStatus::converged) {  // fresh G of every sample for rho
    s.reactivate();
    s.gradients_and_violation(false);
  }
  res.iterations = iter;
  res.passes = passes;
  const double rho = s.rho();
  double reg = 0.0, total = 0.0, slack = 0.0;
  for (double v : s.w) reg += v * v;
  reg *= 0.5;
  for (Index i = 0; i < s.n; ++i) {
    total += s.upper[i];
    slack += s.upper[i] * std::max(0.0, rho - s.g[i]);
  }
  res.objective = reg - rho * nu * total + slack;
  if (!std::isfinite(res.objective)) res.status = SolverStatus::numerical_error;
  res.solution = s.w;
  LinearOneClassExtras extras;
  extras.rho = rho;
  extras.dual_objective = reg;
  extras.alpha = std::move(s.a);
  res.extras = std::move(extras);
  return res;
}

void validate_one_class_problem(const LinearProblem& p, double nu, bool check_finite) {
  validate_view(p.X, "X");
  if (check_finite) validate_finite(p.X, "X");
  if (!(nu > 0.0 && nu <= 1.0))
    throw_invalid("linear_one_class: nu must be in (0, 1], got " + detail::print_number(nu));
  if (!p.cost) throw_invalid("the per-sample costs are missing");
  const Index n = rows_of(p.X);
  if (n < 1) throw_invalid("linear_one_class needs at least one sample");
  double total = 0.0;
  for (Index i = 0; i < n; ++i) {
    if (!(p.cost[i] >= 0.0 && std::isfinite(p.cost[i])))
      throw_invalid("per-sample costs must be finite and >= 0; cost[" + std::to_string(i) +
                    "] = " + detail::print_number(p.cost[i]));
    total += p.cost[i];
  }
  if (!(total > 0.0)) throw_invalid("linear_one_class: the per-sample costs are all zero");
}

}  // namespace

void validate_options(const LinearOneClassOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_LINEAR_ONE_CLASS_OPTIONS, "linear_one_class", o);
}

SolveResult solve_linear_one_class(const LinearProblem& problem, double nu,
                                   const LinearOneClassOptions& options,
                                   const Callbacks& callbacks) {
  const auto start = Clock::now();
  validate_options(options);
  validate_one_class_problem(problem, nu, options.check_input);
  return detail::solve_on_rows(
      problem.X, start,
      "linear_one_class: out of memory for its work vectors (a few n_samples + n_features "
      "arrays) or, for column-major dense X, the row-major copy of X",
      [&](const auto& X) { return solve_view(X, problem, nu, options, callbacks, start); });
}

}  // namespace svmkit
