// Crammer-Singer sequential dual method (see solvers/crammer_singer.hpp for the problem, the
// method and the stopping rule).
//
// Implementation notes. W is stored feature-major, W[j * k + m], so the k scores of a sample
// cost one read of its row with k contiguous weights per stored entry, and the update after
// the subproblem is one more read of the row. Only the active classes of a sample are scored
// and updated (shrinking), which is where the method saves work on many classes.
#include "svmkit/solvers/crammer_singer.hpp"

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
#include <vector>

#include "row_solve.hpp"
#include "svmkit/data.hpp"

namespace svmkit {
namespace {

using Clock = detail::SolveClock;
using detail::kNegligible;
using detail::kPollEntries;
using detail::uniform_below;
constexpr double kInf = std::numeric_limits<double>::infinity();

template <class V>
struct is_dense_rows : std::false_type {};
template <class T>
struct is_dense_rows<DenseRowMajorView<T>> : std::true_type {};

template <class V>
struct CsState {
  const V& X;
  const double* cost;
  Index n = 0, d = 0;
  int k = 0;
  double scale = 0.0;         // the bias feature's value (0 without an intercept)
  std::vector<double> W;      // (d + 1) * k, feature-major; row d is the bias
  std::vector<double> alpha;  // n * k
  std::vector<double> sq;     // A_i = ||x_i||^2 + scale^2
  std::vector<int> label;     // y_i
  std::vector<int> cls;       // n * k: per sample, its active classes first
  std::vector<int> n_cls;     // active classes per sample
  std::vector<Index> index;   // the visited samples; index[0, active) are active
  Index n_free = 0, active = 0;
  Index poll_every = 1;
  // Scratch of the subproblem, k entries each.
  std::vector<double> g, b, dd, sorted;
  // Dense input: the nonzeros of each row (offsets, columns, values), built once. The inner
  // loops then visit what a sparse format would store (digits-like data are half zeros) with
  // no per-entry test.
  static constexpr bool kDense = is_dense_rows<V>::value;
  std::vector<Index> nz_ptr;
  std::vector<int> nz_col;
  std::vector<double> nz_val;
  template <class Fn>
  void each_nonzero(Index i, Fn&& fn) const {
    if constexpr (kDense) {
      for (Index q = nz_ptr[i]; q < nz_ptr[i + 1]; ++q)
        fn(static_cast<Index>(nz_col[q]), nz_val[q]);
    } else {
      for_each_in_row(X, i, fn);
    }
  }

  CsState(const V& view, const LinearProblem& p, int n_classes)
      : X(view), cost(p.cost), n(view.rows), d(view.cols), k(n_classes) {
    scale = p.fit_intercept ? p.intercept_scaling : 0.0;
    const auto nn = static_cast<std::size_t>(n), kk = static_cast<std::size_t>(k);
    W.assign((static_cast<std::size_t>(d) + 1) * kk, 0.0);
    alpha.assign(nn * kk, 0.0);
    sq.assign(nn, 0.0);
    label.assign(nn, 0);
    cls.resize(nn * kk);
    n_cls.assign(nn, k);
    g.resize(kk);
    b.resize(kk);
    dd.resize(kk);
    sorted.resize(kk);
    index.reserve(nn);
    for (Index i = 0; i < n; ++i) {
      label[i] = static_cast<int>(p.y[i]);
      sq[i] = row_sq_norm(X, i) + scale * scale;
      if (cost[i] > 0.0 && sq[i] > 0.0) index.push_back(i);
    }
    n_free = active = static_cast<Index>(index.size());
    if constexpr (kDense) {
      nz_ptr.assign(nn + 1, 0);
      for (Index i = 0; i < n; ++i) {
        for_each_in_row(X, i, [&](Index j, double v) {
          if (v != 0.0) {
            nz_col.push_back(static_cast<int>(j));
            nz_val.push_back(v);
          }
        });
        nz_ptr[i + 1] = static_cast<Index>(nz_col.size());
      }
    }
    reactivate();
    const Index per_row = stored_entries(X) / std::max<Index>(1, n) + 1;
    poll_every = std::max<Index>(64, kPollEntries / (per_row * k));
  }

  void reactivate() {
    active = n_free;
    for (Index i = 0; i < n; ++i) {
      n_cls[i] = k;
      for (int m = 0; m < k; ++m) cls[i * k + m] = m;
    }
  }
  double bound(Index i, int m) const { return m == label[i] ? cost[i] : 0.0; }

  // G_m = z_im + [m != y_i] for the active classes of sample i (into g[m]).
  void gradients(Index i) {
    const int* c = &cls[i * k];
    const int na = n_cls[i];
    for (int t = 0; t < na; ++t) g[c[t]] = (c[t] != label[i] ? 1.0 : 0.0) + W[d * k + c[t]] * scale;
    double* gg = g.data();
    if (na == k) {  // every class active (the common case): a contiguous, vectorizable loop
      each_nonzero(i, [&](Index j, double v) {
        const double* wj = &W[j * k];
        for (int m = 0; m < k; ++m) gg[m] += wj[m] * v;
      });
      return;
    }
    each_nonzero(i, [&](Index j, double v) {
      const double* wj = &W[j * k];
      for (int t = 0; t < na; ++t) gg[c[t]] += wj[c[t]] * v;
    });
  }
  // W += x_i delta_m over the classes whose delta (in b) is non-zero.
  void update(Index i, const std::vector<int>& changed) {
    const int nc = static_cast<int>(changed.size());
    const int* ch = changed.data();
    const double* bb = b.data();
    each_nonzero(i, [&](Index j, double v) {
      double* wj = &W[j * k];
      for (int t = 0; t < nc; ++t) wj[ch[t]] += bb[ch[t]] * v;
    });
    for (int m : changed) W[d * k + m] += b[m] * scale;
  }
  void shuffle_active(std::mt19937_64& rng) {
    for (Index t = active - 1; t > 0; --t) std::swap(index[t], index[uniform_below(rng, t + 1)]);
  }
};

// The k-variable subproblem of one sample over its active classes c[0, na): minimizes
// sum_m (A/2 a_m^2 + B_m a_m) subject to sum_m a_m = const and a_m <= C_m, in closed form:
// a_m = (min(beta, D_m) - B_m) / A, beta from the sorted D (see the header). Writes the new
// values into a_new.
void solve_subproblem(const int* c, int na, double A, const double* a_old, const double* bnd,
                      const double* g, double* bb, double* dd, double* sorted, double* a_new) {
  double sum_b = 0.0, sum_a = 0.0, sum_d = 0.0;
  for (int t = 0; t < na; ++t) {
    const int m = c[t];
    bb[m] = g[m] - A * a_old[m];
    dd[m] = bb[m] + A * bnd[m];
    sorted[t] = dd[m];
    sum_b += bb[m];
    sum_a += a_old[m];
    sum_d += dd[m];
  }
  const double target = A * sum_a + sum_b;  // sum_m min(beta, D_m) must equal this
  std::sort(sorted, sorted + na, std::greater<double>());
  double prefix = 0.0, beta = 0.0;
  for (int r = 1; r <= na; ++r) {
    prefix += sorted[r - 1];
    beta = (target - (sum_d - prefix)) / r;
    if (r == na || beta >= sorted[r]) break;
  }
  for (int t = 0; t < na; ++t) {
    const int m = c[t];
    a_new[m] = std::min(beta, dd[m]) == dd[m] ? bnd[m] : (beta - bb[m]) / A;
  }
}

// Visits sample at position pos of the active list; returns its violation. May shrink classes
// of the sample, and the sample itself (then it swaps it out of the active part).
template <class V>
double visit(CsState<V>& s, Index i, bool shrinking, std::vector<double>& bnd,
             std::vector<double>& a_new, std::vector<int>& changed) {
  s.gradients(i);
  const int k = s.k;
  int* c = &s.cls[i * k];
  double* a = &s.alpha[i * k];
  double max_g = -kInf, min_g = kInf;
  for (int t = 0; t < s.n_cls[i]; ++t) {
    const int m = c[t];
    bnd[m] = s.bound(i, m);
    max_g = std::max(max_g, s.g[m]);
    if (a[m] < bnd[m]) min_g = std::min(min_g, s.g[m]);
  }
  if (shrinking) {
    for (int t = 0; t < s.n_cls[i]; ++t) {
      const int m = c[t];
      if (a[m] == bnd[m] && s.g[m] < min_g) {
        std::swap(c[t], c[s.n_cls[i] - 1]);
        --s.n_cls[i];
        --t;
      }
    }
  }
  const double viol = max_g - min_g;
  if (s.n_cls[i] <= 1 || !(viol > kNegligible)) return std::isfinite(viol) ? viol : 0.0;
  solve_subproblem(c, s.n_cls[i], s.sq[i], a, bnd.data(), s.g.data(), s.b.data(), s.dd.data(),
                   s.sorted.data(), a_new.data());
  changed.clear();
  for (int t = 0; t < s.n_cls[i]; ++t) {
    const int m = c[t];
    const double delta = a_new[m] - a[m];
    if (delta == 0.0) continue;
    a[m] = a_new[m];
    s.b[m] = delta;  // b is reused as the step of W's update
    changed.push_back(m);
  }
  if (!changed.empty()) s.update(i, changed);
  return viol;
}

// P(W) and -f(a) in one pass over the data.
template <class V>
void objectives(const CsState<V>& s, double& primal, double& dual) {
  double reg = 0.0;
  for (double v : s.W) reg += v * v;
  reg *= 0.5;
  double loss = 0.0, lin = 0.0;
  const int k = s.k;
  std::vector<double> z(static_cast<std::size_t>(k));
  for (Index i = 0; i < s.n; ++i) {
    for (int m = 0; m < k; ++m) {
      z[m] = s.W[s.d * k + m] * s.scale;
      if (m != s.label[i]) lin += s.alpha[i * k + m];
    }
    for_each_in_row(s.X, i, [&](Index j, double v) {
      for (int m = 0; m < k; ++m) z[m] += s.W[j * k + m] * v;
    });
    double worst = 0.0;
    const int yi = s.label[i];
    for (int m = 0; m < k; ++m)
      if (m != yi) worst = std::max(worst, 1.0 + z[m] - z[yi]);
    if (s.cost[i] > 0.0) loss += s.cost[i] * worst;
  }
  primal = reg + loss;
  dual = -(reg + lin);
}

template <class V>
SolveResult solve_view(const V& X, const LinearProblem& p, int n_classes,
                       const CrammerSingerOptions& opt, const Callbacks& cb,
                       Clock::time_point start) {
  CsState<V> s(X, p, n_classes);
  SolveResult res;
  res.status = SolverStatus::max_iter;
  std::mt19937_64 rng(static_cast<std::uint64_t>(opt.seed));
  const auto kk = static_cast<std::size_t>(n_classes);
  std::vector<double> bnd(kk), a_new(kk);
  std::vector<int> changed;
  changed.reserve(kk);
  // Reactivation threshold for the shrunk problem: loose first, halved down to tol.
  double shrink_tol = std::max(10.0 * opt.tol, 1.0);
  bool full = true;  // this iteration started with everything active
  double passes = 1.0;
  Index since_poll = 0;
  long long iter = 0;
  while (iter < opt.max_iter) {
    if (cb.poll()) {
      res.status = SolverStatus::interrupted;
      break;
    }
    s.shuffle_active(rng);
    const Index visited = s.active;
    double worst = 0.0;
    bool stopped = false;
    for (Index t = 0; t < s.active; ++t) {
      const Index i = s.index[t];
      worst = std::max(worst, visit(s, i, opt.shrinking, bnd, a_new, changed));
      if (opt.shrinking && s.n_cls[i] <= 1) {
        --s.active;
        std::swap(s.index[t], s.index[s.active]);
        --t;
      }
      if (++since_poll >= s.poll_every) {
        since_poll = 0;
        if ((stopped = cb.poll())) break;
      }
    }
    ++iter;
    res.inner_iterations += visited;
    passes += s.n > 0 ? 2.0 * static_cast<double>(visited) / static_cast<double>(s.n) : 0.0;
    if (stopped) {
      res.status = SolverStatus::interrupted;
      break;
    }
    res.optimality = worst;
    if (opt.record_history || cb.on_iteration) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.optimality = worst;
      rec.inner_iterations = visited;
      rec.active_size = s.active;
      rec.passes = std::llround(passes);
      rec.time = detail::seconds_since(start);
      if (!report_iteration(res, rec, opt.record_history, cb)) {
        res.status = SolverStatus::interrupted;
        break;
      }
    }
    if (!opt.shrinking) {
      if (worst <= opt.tol) {
        res.status = SolverStatus::converged;
        break;
      }
      continue;
    }
    if (worst <= shrink_tol) {
      if (full && worst <= opt.tol) {
        res.status = SolverStatus::converged;
        break;
      }
      s.reactivate();
      shrink_tol = std::max(0.5 * shrink_tol, opt.tol);
      full = true;
    } else {
      full = false;
    }
  }
  res.iterations = iter;
  double primal = kNaN, dual = kNaN;
  objectives(s, primal, dual);
  res.objective = primal;
  res.passes = std::llround(passes) + 1;
  if (!std::isfinite(primal)) res.status = SolverStatus::numerical_error;
  const Index width = s.d + (p.fit_intercept ? 1 : 0);
  res.solution.assign(static_cast<std::size_t>(width * n_classes), 0.0);
  for (int m = 0; m < n_classes; ++m)
    for (Index j = 0; j < width; ++j) res.solution[m * width + j] = s.W[j * n_classes + m];
  CrammerSingerExtras extras;
  extras.dual_objective = dual;
  extras.n_classes = n_classes;
  res.extras = extras;
  return res;
}

void validate_cs_problem(const LinearProblem& p, int n_classes, bool check_finite) {
  validate_view(p.X, "X");
  if (check_finite) validate_finite(p.X, "X");
  if (n_classes < 2) throw_invalid("crammer_singer needs n_classes >= 2");
  if (!p.y) throw_invalid("y is missing");
  if (!p.cost) throw_invalid("the per-sample costs are missing");
  const Index n = rows_of(p.X);
  for (Index i = 0; i < n; ++i) {
    const double yi = p.y[i];
    if (!(yi >= 0.0 && yi < n_classes && yi == std::floor(yi)))
      throw_invalid("crammer_singer targets must be class indices 0 .. n_classes-1; y[" +
                    std::to_string(i) + "] = " + detail::print_number(yi));
    if (!(p.cost[i] >= 0.0 && std::isfinite(p.cost[i])))
      throw_invalid("per-sample costs must be finite and >= 0; cost[" + std::to_string(i) +
                    "] = " + detail::print_number(p.cost[i]));
  }
  if (p.fit_intercept && !(p.intercept_scaling > 0.0 && std::isfinite(p.intercept_scaling)))
    throw_invalid("intercept_scaling must be a positive finite number");
  if (p.fit_intercept && !p.regularize_intercept)
    throw_invalid(
        "crammer_singer regularizes the intercept (LIBLINEAR's bias); use "
        "regularize_intercept=True");
}

}  // namespace

void validate_options(const CrammerSingerOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_CRAMMER_SINGER_OPTIONS, "crammer_singer", o);
}

SolveResult solve_crammer_singer(const LinearProblem& problem, int n_classes,
                                 const CrammerSingerOptions& options, const Callbacks& callbacks) {
  const auto start = Clock::now();
  validate_options(options);
  validate_cs_problem(problem, n_classes, options.check_input);
  return detail::solve_on_rows(
      problem.X, start,
      "crammer_singer: out of memory for its work arrays (n_samples * n_classes duals and "
      "n_features * n_classes weights) or, for column-major dense X, the row-major copy of X",
      [&](const auto& X) { return solve_view(X, problem, n_classes, options, callbacks, start); });
}

}  // namespace svmkit
