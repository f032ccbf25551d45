// Platt scaling with cross-validated decision values, and pairwise coupling (see
// probability.hpp for the problems, the methods and the papers).
#include "svmkit/probability.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "svmkit/detail/parallel.hpp"
#include "svmkit/kernel.hpp"

namespace svmkit {

void validate_options(const PlattOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_PLATT_OPTIONS, "probability", o);
}

namespace {

// log(1 + exp(-|z|)) based pieces: with p = 1 / (1 + exp(z)) the loss of target t is
// t z + log(1 + exp(-z)) for z >= 0 and (t - 1) z + log(1 + exp(z)) otherwise (both equal
// -t log(p) - (1 - t) log(1 - p), written so that no exp overflows).
double platt_loss(double z, double t) {
  return z >= 0.0 ? t * z + std::log1p(std::exp(-z)) : (t - 1.0) * z + std::log1p(std::exp(z));
}

double platt_objective(const double* dec, const std::vector<double>& t, Index n, double a,
                       double b) {
  double f = 0.0;
  for (Index i = 0; i < n; ++i) f += platt_loss(dec[i] * a + b, t[i]);
  return f;
}

}  // namespace

double sigmoid_probability(double f, double a, double b) {
  const double z = f * a + b;
  if (z >= 0.0) {
    const double e = std::exp(-z);
    return e / (1.0 + e);
  }
  return 1.0 / (1.0 + std::exp(z));
}

SigmoidFit fit_sigmoid(const double* dec, const double* y, Index n, const PlattOptions& o) {
  validate_options(o);
  if (n <= 0) throw_invalid("the sigmoid fit needs at least one decision value");
  double n_pos = 0.0, n_neg = 0.0;
  for (Index i = 0; i < n; ++i) {
    if (!std::isfinite(dec[i])) throw_invalid("decision values must be finite");
    if (y[i] > 0)
      n_pos += 1.0;
    else
      n_neg += 1.0;
  }
  // Regularized targets (Platt): they keep A and B finite on separable decision values.
  const double hi = (n_pos + 1.0) / (n_pos + 2.0), lo = 1.0 / (n_neg + 2.0);
  std::vector<double> t(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) t[i] = y[i] > 0 ? hi : lo;
  SigmoidFit fit;
  double a = 0.0, b = std::log((n_neg + 1.0) / (n_pos + 1.0));
  double f = platt_objective(dec, t, n, a, b);
  fit.status = SolverStatus::max_iter;
  long long it = 0;
  for (; it < o.max_iter; ++it) {
    // Gradient and Hessian of the objective in (a, b); p = P(+1 | f), d2 = p (1 - p).
    double h11 = o.sigma, h22 = o.sigma, h21 = 0.0, g1 = 0.0, g2 = 0.0;
    for (Index i = 0; i < n; ++i) {
      const double p = sigmoid_probability(dec[i], a, b);
      const double d2 = p * (1.0 - p);
      h11 += dec[i] * dec[i] * d2;
      h22 += d2;
      h21 += dec[i] * d2;
      const double d1 = t[i] - p;
      g1 += dec[i] * d1;
      g2 += d1;
    }
    if (std::fabs(g1) < o.eps && std::fabs(g2) < o.eps) {
      fit.status = SolverStatus::converged;
      break;
    }
    const double det = h11 * h22 - h21 * h21;
    const double da = -(h22 * g1 - h21 * g2) / det;
    const double db = -(-h21 * g1 + h11 * g2) / det;
    const double gd = g1 * da + g2 * db;  // directional derivative (negative: descent)
    double step = 1.0;
    bool moved = false;
    while (step >= o.min_step) {
      const double na = a + step * da, nb = b + step * db;
      const double nf = platt_objective(dec, t, n, na, nb);
      if (nf < f + 1e-4 * step * gd) {
        a = na;
        b = nb;
        f = nf;
        moved = true;
        break;
      }
      step *= 0.5;
    }
    if (!moved) {
      fit.status = SolverStatus::line_search_failed;
      ++it;
      break;
    }
  }
  fit.a = a;
  fit.b = b;
  fit.iterations = it;
  return fit;
}

void cross_validated_decisions(const KernelProblem& pr, const SmoOptions& smo,
                               const PlattOptions& o, double* dec, const Callbacks& cb,
                               Index* fold) {
  validate_options(o);
  validate_options(smo);
  const Index n = pr.n >= 0 ? pr.n : rows_of(pr.X);
  if (n <= 0) throw_invalid("the problem has no samples");
  if (!pr.y || !pr.cost) throw_invalid("y and the sample costs are required");
  if (pr.formulation == SmoFormulation::svr)
    throw_invalid("Platt scaling applies to classification problems");
  std::vector<Index> xrow(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) xrow[i] = pr.rows ? pr.rows[i] : i;
  // Fisher-Yates shuffle with a seeded generator (the modulo bias of 64-bit draws is nil).
  std::vector<Index> perm(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) perm[i] = i;
  std::mt19937_64 rng(o.seed);
  for (Index i = 0; i + 1 < n; ++i) {
    const Index j = i + static_cast<Index>(rng() % static_cast<std::uint64_t>(n - i));
    std::swap(perm[i], perm[j]);
  }
  const int nt = resolve_threads(smo.n_threads);
  SmoOptions sub_opt = smo;
  sub_opt.record_history = false;
  Callbacks sub_cb;
  sub_cb.interrupted = cb.interrupted;
  std::vector<Index> rows;
  std::vector<double> ys, cs;
  for (int f = 0; f < o.folds; ++f) {
    const Index begin = n * f / o.folds, end = n * (f + 1) / o.folds;
    if (begin == end) continue;
    if (fold)
      for (Index q = begin; q < end; ++q) fold[perm[q]] = f;
    rows.clear();
    ys.clear();
    cs.clear();
    Index n_pos = 0, n_neg = 0;
    for (Index q = 0; q < n; ++q) {
      if (q >= begin && q < end) continue;
      const Index s = perm[q];
      rows.push_back(xrow[s]);
      ys.push_back(pr.y[s]);
      cs.push_back(pr.cost[s]);
      (pr.y[s] > 0 ? n_pos : n_neg) += 1;
    }
    if (n_pos == 0 || n_neg == 0) {
      // One class (or nothing) to learn from: every held-out sample gets that class's sign.
      const double v = n_pos > 0 ? 1.0 : (n_neg > 0 ? -1.0 : 0.0);
      for (Index q = begin; q < end; ++q) dec[perm[q]] = v;
      continue;
    }
    KernelProblem sub = pr;
    sub.rows = rows.data();
    sub.n = static_cast<Index>(rows.size());
    sub.y = ys.data();
    sub.cost = cs.data();
    const SolveResult res = solve_smo(sub, sub_opt, sub_cb);
    if (res.status == SolverStatus::interrupted) return;  // the caller re-raises
    if (res.status == SolverStatus::numerical_error)
      throw_invalid("Platt scaling: a cross-validation fit became non-finite; check X and C");
    const auto& fit = std::get<SmoExtras>(res.extras);
    std::vector<Index> sv;
    std::vector<double> coef;
    for (std::size_t t = 0; t < rows.size(); ++t) {
      if (fit.dual_coef[t] != 0.0) {
        sv.push_back(rows[t]);
        coef.push_back(fit.dual_coef[t]);
      }
    }
    const Index nsv = static_cast<Index>(sv.size());
    std::visit(
        [&](const auto& V) {
          using View = std::decay_t<decltype(V)>;
          const KernelEvaluator<View, View> ev(V, V, pr.kernel, 1);
          const Index count = end - begin;
          const double work = static_cast<double>(count) * static_cast<double>(nsv + 1) *
                              static_cast<double>(cols_of(pr.X) + 24);
          const int chunks = work < 2.5e5 ? 1 : nt;
          parallel_chunks(count, chunks, [&](int, Index b0, Index e0) {
            auto scratch = ev.make_scratch();
            std::vector<double> k(static_cast<std::size_t>(nsv));
            for (Index q = begin + b0; q < begin + e0; ++q) {
              const Index s = perm[q];
              ev.row_serial(xrow[s], sv.data(), 0, nsv, k.data(), scratch);
              double v = fit.bias;
              for (Index t = 0; t < nsv; ++t) v += coef[t] * k[t];
              dec[s] = v;
            }
          });
        },
        pr.X);
  }
}

SigmoidFit fit_platt(const KernelProblem& pr, const SmoOptions& smo, const PlattOptions& o,
                     const Callbacks& cb) {
  const Index n = pr.n >= 0 ? pr.n : rows_of(pr.X);
  std::vector<double> dec(static_cast<std::size_t>(std::max<Index>(n, 0)), 0.0);
  cross_validated_decisions(pr, smo, o, dec.data(), cb);
  if (cb.poll()) {
    SigmoidFit none;
    none.status = SolverStatus::interrupted;
    return none;
  }
  return fit_sigmoid(dec.data(), pr.y, n, o);
}

void couple_pairwise(const double* r, Index k, double* p) {
  if (k < 2) throw_invalid("pairwise coupling needs at least two classes");
  Eigen::MatrixXd Q = Eigen::MatrixXd::Zero(k, k);
  for (Index i = 0; i < k; ++i) {
    for (Index j = 0; j < k; ++j) {
      if (j == i) continue;
      const double rji = r[j * k + i], rij = r[i * k + j];
      Q(i, i) += rji * rji;
      Q(i, j) = -rji * rij;
    }
  }
  // The optimality system [Q e; e^T 0] [p; b] = [0; 1], solved directly (it is nonsingular
  // also for k = 2, where Q itself has rank one).
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(k + 1, k + 1);
  M.topLeftCorner(k, k) = Q;
  M.col(k).head(k).setOnes();
  M.row(k).head(k).setOnes();
  Eigen::VectorXd rhs = Eigen::VectorXd::Zero(k + 1);
  rhs(k) = 1.0;
  Eigen::VectorXd x = M.partialPivLu().solve(rhs).head(k);
  if (!x.allFinite()) x = M.fullPivLu().solve(rhs).head(k);
  double s = 0.0;
  for (Index i = 0; i < k; ++i) s += std::max(0.0, x(i));
  for (Index i = 0; i < k; ++i)
    p[i] = s > 0.0 && std::isfinite(s) ? std::max(0.0, x(i)) / s : 1.0 / static_cast<double>(k);
}

void predict_proba(const KernelModel& m, const MatrixView& X, double* out, int n_threads,
                   double min_prob) {
  validate_model(m);
  if (m.task != "classification")
    throw_invalid("probability estimates need a classification model");
  if (m.prob_a.empty())
    throw_invalid(
        "the model has no probability parameters (prob_a, prob_b); train it with probability "
        "estimates");
  if (!(min_prob > 0.0) || !(min_prob < 0.5))
    throw_invalid("probability min_prob must be in (0, 0.5)");
  const Index n = rows_of(X), k = m.n_classes(), pairs = m.n_pairs();
  std::vector<double> dec(static_cast<std::size_t>(n * pairs));
  decision_function(m, X, dec.data(), n_threads);
  const auto clip = [&](double v) { return std::min(std::max(v, min_prob), 1.0 - min_prob); };
  const int nt = resolve_threads(n_threads);
  const double work = static_cast<double>(n) * static_cast<double>(k * k * k + pairs);
  parallel_chunks(n, work < 1e6 ? 1 : nt, [&](int, Index b, Index e) {
    std::vector<double> r(static_cast<std::size_t>(k * k), 0.0);
    for (Index i = b; i < e; ++i) {
      double* o = out + i * k;
      if (k == 2) {
        // The binary value is positive for classes[1]; the sigmoid is P(classes[0]).
        const double p = clip(sigmoid_probability(-dec[i], m.prob_a[0], m.prob_b[0]));
        o[0] = p;
        o[1] = 1.0 - p;
        continue;
      }
      Index q = 0;
      for (Index a = 0; a < k; ++a) {
        for (Index c = a + 1; c < k; ++c, ++q) {
          const double p = clip(sigmoid_probability(dec[i * pairs + q], m.prob_a[q], m.prob_b[q]));
          r[a * k + c] = p;
          r[c * k + a] = 1.0 - p;
        }
      }
      couple_pairwise(r.data(), k, o);
    }
  });
}

}  // namespace svmkit
