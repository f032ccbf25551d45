// sgd, the first-order primal solver (see solvers/sgd.hpp for the problem, the method, the
// default step and the stopping rule).
#include "svmkit/solvers/sgd.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace svmkit {
namespace {

using Clock = std::chrono::steady_clock;

enum class Momentum { none, polyak, nesterov };
enum class Adaptive { none, adagrad, adadelta, adam };
enum class Schedule { constant, inv_sqrt, inv_time };

Momentum momentum_from(const std::string& s) {
  if (s == "none") return Momentum::none;
  if (s == "polyak") return Momentum::polyak;
  if (s == "nesterov") return Momentum::nesterov;
  throw_invalid("momentum_type must be 'none', 'polyak' or 'nesterov', got '" + s + "'");
}
Adaptive adaptive_from(const std::string& s) {
  if (s == "none") return Adaptive::none;
  if (s == "adagrad") return Adaptive::adagrad;
  if (s == "adadelta") return Adaptive::adadelta;
  if (s == "adam") return Adaptive::adam;
  throw_invalid("adaptive must be 'none', 'adagrad', 'adadelta' or 'adam', got '" + s + "'");
}
Schedule schedule_from(const std::string& s) {
  if (s == "constant") return Schedule::constant;
  if (s == "inv_sqrt") return Schedule::inv_sqrt;
  if (s == "inv_time") return Schedule::inv_time;
  throw_invalid("schedule must be 'constant', 'inv_sqrt' or 'inv_time', got '" + s + "'");
}

// sup of loss'' (or a unit scale for the non-smooth losses): the curvature in L_F.
double curvature_bound(const LossSpec& loss) {
  switch (loss.kind) {
    case LossKind::hinge:
      return 1.0;
    case LossKind::squared_hinge:
      return 2.0;
    case LossKind::smoothed_hinge:
      return 0.5 / loss.sigma;
    case LossKind::gaussian_smoothed_hinge:
      return 0.3989422804014327 / loss.sigma;
    case LossKind::logistic:
      return 0.25;
    case LossKind::epsilon_insensitive:
      return 1.0;
    case LossKind::squared_epsilon_insensitive:
      return 2.0;
    case LossKind::smoothed_epsilon_insensitive:
      return 1.0 / loss.sigma;
  }
  return 1.0;
}

template <class V, class L>
class SgdSolver {
 public:
  SgdSolver(const V& X, const L& loss, const LinearProblem& p, const LossSpec& spec,
            const SgdOptions& opt, const Callbacks& cb)
      : X_(X),
        loss_(loss),
        p_(p),
        spec_(spec),
        opt_(opt),
        cb_(cb),
        classification_(!is_regression(spec.kind)),
        n_(X.rows),
        d_(X.cols),
        dim_(X.cols + (p.fit_intercept ? 1 : 0)),
        scale_(p.intercept_scaling),
        n_threads_(resolve_threads(opt.n_threads)) {}

  SolveResult run(const double* w0) {
    const auto start = Clock::now();
    const auto elapsed = [&] {
      return std::chrono::duration<double>(Clock::now() - start).count();
    };
    const Momentum mom = momentum_from(opt_.momentum_type);
    const Adaptive ada = adaptive_from(opt_.adaptive);
    const Schedule sched = schedule_from(opt_.schedule);
    const double beta = mom == Momentum::none ? 0.0 : opt_.momentum;
    const Index batch = (opt_.batch_size <= 0 || opt_.batch_size >= n_) ? n_ : opt_.batch_size;
    const double lr0 = opt_.learning_rate > 0.0 ? opt_.learning_rate : default_rate(ada);

    std::vector<double> w(dim_, 0.0), v(dim_, 0.0), g(dim_), point(dim_), delta(dim_), eff(dim_),
        s1(dim_, 0.0), s2(dim_, 0.0), best;
    if (w0) std::copy(w0, w0 + dim_, w.begin());
    std::vector<Index> order(static_cast<std::size_t>(n_));
    std::iota(order.begin(), order.end(), Index{0});
    std::mt19937_64 rng(opt_.seed);

    SolveResult res;
    double f = objective(w.data());
    double f_best = f;
    best = w;
    res.status = std::isfinite(f) ? SolverStatus::max_iter : SolverStatus::numerical_error;
    long long epoch = 0, stall = 0, step_count = 0;
    while (res.status == SolverStatus::max_iter && epoch < opt_.max_iter) {
      ++epoch;
      double lr = lr0;
      if (sched == Schedule::inv_sqrt) lr = lr0 / std::sqrt(static_cast<double>(epoch));
      if (sched == Schedule::inv_time) lr = lr0 / static_cast<double>(epoch);
      if (batch < n_ && opt_.shuffle) std::shuffle(order.begin(), order.end(), rng);
      bool interrupted = false;
      for (Index b = 0; b < n_; b += batch) {
        const Index e = std::min(n_, b + batch);
        if (cb_.poll()) {
          interrupted = true;
          break;
        }
        ++step_count;
        // Nesterov evaluates the gradient after the momentum move x_t - beta v_{t-1}
        // (paper 001 Algorithm 4, with the sign that matches x_{t+1} = x_t - v_t).
        for (Index j = 0; j < dim_; ++j)
          point[j] = mom == Momentum::nesterov ? w[j] - beta * v[j] : w[j];
        batch_gradient(point.data(), order.data() + b, e - b, g.data());
        for (Index j = 0; j < d_; ++j) g[j] += opt_.l2_penalty * point[j];
        if (p_.fit_intercept && p_.regularize_intercept) g[d_] += opt_.l2_penalty * point[d_];
        adaptive_step(ada, lr, step_count, g, s1, s2, delta, eff);
        for (Index j = 0; j < dim_; ++j) {
          v[j] = beta * v[j] + delta[j];
          w[j] -= v[j];
        }
        if (opt_.l1_penalty > 0.0) {
          for (Index j = 0; j < d_; ++j) {
            const double t = opt_.l1_penalty * eff[j];
            const double a = std::fabs(w[j]) - t;
            w[j] = a > 0.0 ? std::copysign(a, w[j]) : 0.0;
          }
        }
      }
      if (interrupted) {
        res.status = SolverStatus::interrupted;
        break;
      }
      f = objective(w.data());
      const double f_prev_best = f_best;
      if (f < f_best - opt_.tol * std::max(1.0, std::fabs(f_best))) {
        stall = 0;
      } else {
        ++stall;
      }
      if (f < f_best) {
        f_best = f;
        best = w;
      }
      if (opt_.record_history || cb_.on_iteration) {
        IterationRecord rec;
        rec.iteration = epoch;
        rec.objective = f;
        rec.optimality = (f_prev_best - f_best) / std::max(1.0, std::fabs(f_prev_best));
        rec.step = lr;
        rec.inner_iterations = (n_ + batch - 1) / batch;
        rec.passes = passes();
        rec.time = elapsed();
        if (opt_.record_history) res.history.push_back(rec);
        if (cb_.on_iteration && !cb_.on_iteration(rec)) {
          res.status = SolverStatus::interrupted;
          break;
        }
      }
      if (!std::isfinite(f)) {
        res.status = SolverStatus::numerical_error;
        break;
      }
      if (stall >= opt_.n_iter_no_change) {
        res.status = SolverStatus::converged;
        break;
      }
    }
    if (opt_.return_best && std::isfinite(f_best) && f_best <= f) {
      res.solution = std::move(best);
      res.objective = f_best;
    } else {
      res.solution = std::move(w);
      res.objective = f;
    }
    res.optimality = res.history.empty() ? kNaN : res.history.back().optimality;
    res.iterations = epoch;
    res.inner_iterations = step_count;
    res.passes = passes();
    res.time = elapsed();
    return res;
  }

 private:
  double default_rate(Adaptive ada) {
    switch (ada) {
      case Adaptive::adagrad:
        return 0.1;
      case Adaptive::adadelta:
        return 1.0;
      case Adaptive::adam:
        return 1e-3;
      case Adaptive::none:
        break;
    }
    // 1/L_F with L_F = l2 + kappa sum_i C_i ||x~_i||^2 (see the header).
    const double kappa = curvature_bound(spec_);
    double s = 0.0;
    for (Index i = 0; i < n_; ++i) {
      double r = row_sq_norm(X_, i);
      if (p_.fit_intercept) r += scale_ * scale_;
      s += p_.cost[i] * r;
    }
    row_visits_ += n_;
    const double lipschitz = opt_.l2_penalty + kappa * s;
    return lipschitz > 0.0 ? 1.0 / lipschitz : 1.0;
  }

  void adaptive_step(Adaptive ada, double lr, long long t, const std::vector<double>& g,
                     std::vector<double>& s1, std::vector<double>& s2, std::vector<double>& delta,
                     std::vector<double>& eff) const {
    // Adam's bias corrections depend on the step count only.
    const double c1 =
        ada == Adaptive::adam ? 1.0 - std::pow(opt_.adam_beta1, static_cast<double>(t)) : 1.0;
    const double c2 =
        ada == Adaptive::adam ? 1.0 - std::pow(opt_.adam_beta2, static_cast<double>(t)) : 1.0;
    for (Index j = 0; j < dim_; ++j) {
      const double gj = g[j];
      switch (ada) {
        case Adaptive::none:
          eff[j] = lr;
          delta[j] = lr * gj;
          break;
        case Adaptive::adagrad:  // paper 001 Algorithm 7
          s1[j] += gj * gj;
          eff[j] = lr / std::sqrt(s1[j] + opt_.adagrad_eps);
          delta[j] = eff[j] * gj;
          break;
        case Adaptive::adadelta: {  // Zeiler's rule, running averages of g^2 and dx^2
          const double rho = opt_.adadelta_rho, eps = opt_.adadelta_eps;
          s1[j] = rho * s1[j] + (1.0 - rho) * gj * gj;
          eff[j] = lr * std::sqrt(s2[j] + eps) / std::sqrt(s1[j] + eps);
          delta[j] = eff[j] * gj;
          s2[j] = rho * s2[j] + (1.0 - rho) * delta[j] * delta[j];
          break;
        }
        case Adaptive::adam: {  // Kingma and Ba with bias correction
          const double b1 = opt_.adam_beta1, b2 = opt_.adam_beta2;
          s1[j] = b1 * s1[j] + (1.0 - b1) * gj;
          s2[j] = b2 * s2[j] + (1.0 - b2) * gj * gj;
          const double mh = s1[j] / c1;
          const double vh = s2[j] / c2;
          eff[j] = lr / (std::sqrt(vh) + opt_.adam_eps);
          delta[j] = eff[j] * mh;
          break;
        }
      }
    }
  }

  // z_i = w.x_i + b * scale
  double decision(const double* w, Index i) const {
    double z = row_dot(X_, i, w);
    if (p_.fit_intercept) z += w[d_] * scale_;
    return z;
  }
  double sample_d1(Index i, double z) const {
    const double c = p_.cost[i];
    if (classification_) return c * p_.y[i] * loss_.d1(p_.y[i] * z);
    return c * loss_.d1(z - p_.y[i]);
  }
  double sample_value(Index i, double z) const {
    const double u = classification_ ? p_.y[i] * z : z - p_.y[i];
    return p_.cost[i] * loss_.value(u);
  }

  // g = (n / k) sum_{i in rows} grad of C_i loss_i at w (loss part only).
  void batch_gradient(const double* w, const Index* rows, Index k, double* g) {
    // Parallel only when the batch carries enough work to pay for a parallel region.
    const Index work = k * std::max<Index>(1, dim_);
    const int chunks =
        static_cast<int>(std::min<Index>(n_threads_, std::max<Index>(1, work / 16384)));
    auto& bufs = buf_.get(chunks, dim_);
    parallel_chunks(k, chunks, [&](int c, Index b, Index e) {
      double* acc = bufs[c].data();
      for (Index r = b; r < e; ++r) {
        const Index i = rows[r];
        const double c1 = sample_d1(i, decision(w, i));
        if (c1 == 0.0) continue;
        row_axpy(X_, i, c1, acc);
        if (p_.fit_intercept) acc[d_] += c1 * scale_;
      }
    });
    const double factor = static_cast<double>(n_) / static_cast<double>(k);
    for (Index j = 0; j < dim_; ++j) {
      double s = 0.0;
      for (int c = 0; c < chunks; ++c) s += bufs[c][j];
      g[j] = factor * s;
    }
    row_visits_ += k;
  }

  double objective(const double* w) {
    const int chunks = reduction_chunks(n_, n_threads_);
    std::vector<double> part(static_cast<std::size_t>(chunks), 0.0);
    parallel_chunks(n_, chunks, [&](int c, Index b, Index e) {
      double s = 0.0;
      for (Index i = b; i < e; ++i) s += sample_value(i, decision(w, i));
      part[c] = s;
    });
    row_visits_ += n_;
    double f = 0.0;
    for (double s : part) f += s;
    double sq = 0.0, l1 = 0.0;
    for (Index j = 0; j < d_; ++j) {
      sq += w[j] * w[j];
      l1 += std::fabs(w[j]);
    }
    if (p_.fit_intercept && p_.regularize_intercept) sq += w[d_] * w[d_];
    return f + 0.5 * opt_.l2_penalty * sq + opt_.l1_penalty * l1;
  }

  long long passes() const { return row_visits_ / std::max<Index>(1, n_); }

  V X_;
  L loss_;
  const LinearProblem& p_;
  LossSpec spec_;
  const SgdOptions& opt_;
  const Callbacks& cb_;
  bool classification_;
  Index n_, d_, dim_;
  double scale_;
  int n_threads_;
  ReductionBuffers buf_;
  long long row_visits_ = 0;
};

}  // namespace

void validate_options(const SgdOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_SGD_OPTIONS, "sgd", o);
  momentum_from(o.momentum_type);
  adaptive_from(o.adaptive);
  schedule_from(o.schedule);
}

SolveResult solve_sgd(const LinearProblem& problem, const LossSpec& loss, const SgdOptions& options,
                      const Callbacks& callbacks, const double* w0) {
  validate_options(options);
  validate_problem(problem, loss, options.check_input);
  return std::visit(
      [&](const auto& X) {
        return visit_loss(loss, [&](const auto& L) {
          SgdSolver<std::decay_t<decltype(X)>, std::decay_t<decltype(L)>> solver(
              X, L, problem, loss, options, callbacks);
          return solver.run(w0);
        });
      },
      problem.X);
}

}  // namespace svmkit
