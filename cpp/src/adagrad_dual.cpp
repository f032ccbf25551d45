// AdaGrad on the augmented Lagrangian dual (see solvers/adagrad_dual.hpp for the problem, the
// method and the stopping rule).
#include "svmkit/solvers/adagrad_dual.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

namespace svmkit {
namespace {

using Clock = std::chrono::steady_clock;

// out = K~ beta with K~ = K (+ 1 for reg_bias). Linear kernels go through the data
// (X (X' beta)); other kernels use a Gram matrix computed once.
template <class V>
class KernelProduct {
 public:
  KernelProduct(const V& X, const KernelSpec& spec, bool plus_one, int n_threads)
      : X_(X),
        linear_(spec.kind == KernelKind::linear),
        plus_one_(plus_one),
        n_threads_(n_threads),
        n_(X.rows) {
    if (linear_) {
      w_.resize(static_cast<std::size_t>(X.cols));
      return;
    }
    allocate_or_throw(static_cast<double>(n_) * static_cast<double>(n_) * 8.0,
                      "adagrad_dual's Gram matrix",
                      "the option max_gram_mb bounds it (or use the smo solver)",
                      [&] { gram_.resize(static_cast<std::size_t>(n_ * n_)); });
    const KernelEvaluator<V, V> ev(X, X, spec, n_threads);
    // One row per task, each thread with its own scratch row.
    const int chunks = static_cast<int>(std::min<Index>(resolve_threads(n_threads), n_));
    parallel_chunks(n_, chunks, [&](int, Index begin, Index end) {
      auto scratch = ev.make_scratch();
      for (Index i = begin; i < end; ++i)
        ev.row_serial(i, nullptr, 0, n_, gram_.data() + i * n_, scratch);
    });
  }

  // Returns the number of passes over X this product took.
  int apply(const double* beta, double* out) {
    double sum = 0.0;
    if (plus_one_)
      for (Index i = 0; i < n_; ++i) sum += beta[i];
    if (linear_) {
      rmatvec(X_, beta, w_.data(), n_threads_, buf_);
      matvec(X_, w_.data(), out, n_threads_);
      if (plus_one_)
        for (Index i = 0; i < n_; ++i) out[i] += sum;
      return 2;
    }
    parallel_for(n_, n_threads_, [&](Index i) {
      const double* row = gram_.data() + i * n_;
      double s = 0.0;
      for (Index j = 0; j < n_; ++j) s += row[j] * beta[j];
      out[i] = s + sum;
    });
    return 0;
  }

 private:
  V X_;
  bool linear_, plus_one_;
  int n_threads_;
  Index n_;
  std::vector<double> w_, gram_;
  ReductionBuffers buf_;
};

template <class V>
SolveResult run(const V& X, const AdaGradDualProblem& P, const AdaGradDualOptions& opt,
                const Callbacks& cb) {
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const int threads = resolve_threads(opt.n_threads);
  const bool unreg = opt.variant == "unreg_bias";
  const Index n = X.rows;
  const Index m = P.regression ? 2 * n : n;
  // Small products do not pay for a parallel region (and suffer badly on a loaded machine).
  const double work = static_cast<double>(n) *
                      (P.kernel.kind == KernelKind::linear ? 2.0 * X.cols : static_cast<double>(n));
  SolveResult res;
  // The Gram matrix of a nonlinear kernel is the one allocation that grows as n^2: refused
  // (status out_of_memory) above the max_gram_mb budget.
  const double mb = static_cast<double>(n) * static_cast<double>(n) * 8.0 / (1024.0 * 1024.0);
  if (P.kernel.kind != KernelKind::linear && mb > opt.max_gram_mb) {
    res.status = SolverStatus::out_of_memory;
    res.message = "adagrad_dual needs the " + std::to_string(n) + " x " + std::to_string(n) +
                  " Gram matrix (" + std::to_string(mb) +
                  " MiB), more than max_gram_mb = " + std::to_string(opt.max_gram_mb) +
                  "; use the smo solver for data this large";
    return res;
  }
  KernelProduct<V> kp(X, P.kernel, !unreg, work < 65536.0 ? 1 : threads);
  long long passes = P.kernel.kind == KernelKind::linear ? 0 : 1;

  // sigma_k: sign of variable k in beta; q_k: linear term; ub_k: upper bound.
  std::vector<double> sigma(m), q(m), ub(m);
  for (Index k = 0; k < m; ++k) {
    const Index i = k % n;
    if (P.regression) {
      sigma[k] = k < n ? 1.0 : -1.0;
      q[k] = P.epsilon - sigma[k] * P.y[i];
    } else {
      sigma[k] = P.y[i];
      q[k] = -1.0;
    }
    ub[k] = P.cost[i];
  }
  std::vector<double> x(m, 0.0), lo(m, 0.0), hi(m, 0.0);     // variables and box multipliers
  std::vector<double> sx(m, 0.0), slo(m, 0.0), shi(m, 0.0);  // AdaGrad accumulators
  std::vector<double> beta(n), kb(n), gx(m);
  double mu = 0.0, smu = 0.0;
  const double rho = opt.rho, lr = opt.learning_rate, eps = opt.eps;

  AdaGradDualExtras out;
  res.status = SolverStatus::max_iter;
  const auto compute_beta = [&] {
    for (Index i = 0; i < n; ++i) beta[i] = sigma[i] * x[i];
    if (P.regression)
      for (Index i = 0; i < n; ++i) beta[i] += sigma[n + i] * x[n + i];
  };
  const auto dual_objective = [&] {
    double f = 0.0;
    for (Index i = 0; i < n; ++i) f += 0.5 * beta[i] * kb[i];
    for (Index k = 0; k < m; ++k) f += q[k] * x[k];
    return f;
  };

  long long it = 0;
  while (it < opt.max_iter) {
    if (cb.poll()) {
      res.status = SolverStatus::interrupted;
      break;
    }
    ++it;
    compute_beta();
    passes += kp.apply(beta.data(), kb.data());
    double h = 0.0;
    for (Index k = 0; k < m; ++k) h += sigma[k] * x[k];
    const double mu_eff = unreg ? mu + rho * h : 0.0;
    double step2 = 0.0;
    // All partial derivatives use the iterate at the start of the iteration.
    for (Index k = 0; k < m; ++k) {
      const Index i = k % n;
      const double gf = sigma[k] * kb[i] + q[k];
      gx[k] = gf + mu_eff * sigma[k] - std::max(0.0, lo[k] - rho * x[k]) +
              std::max(0.0, hi[k] + rho * (x[k] - ub[k]));
    }
    for (Index k = 0; k < m; ++k) {
      const double glo = std::max(-x[k], -lo[k] / rho);
      const double ghi = std::max(x[k] - ub[k], -hi[k] / rho);
      sx[k] += gx[k] * gx[k];
      slo[k] += glo * glo;
      shi[k] += ghi * ghi;
      const double dx = -lr * gx[k] / std::sqrt(sx[k] + eps);
      const double nlo = std::max(0.0, lo[k] + lr * glo / std::sqrt(slo[k] + eps));
      const double nhi = std::max(0.0, hi[k] + lr * ghi / std::sqrt(shi[k] + eps));
      step2 += dx * dx + (nlo - lo[k]) * (nlo - lo[k]) + (nhi - hi[k]) * (nhi - hi[k]);
      x[k] += dx;
      lo[k] = nlo;
      hi[k] = nhi;
    }
    if (unreg) {
      smu += h * h;
      const double dmu = lr * h / std::sqrt(smu + eps);
      mu += dmu;
      step2 += dmu * dmu;
    }
    const double step = std::sqrt(step2);
    const bool record =
        (opt.record_history && (it % opt.history_every == 0 || it == 1)) || cb.on_iteration;
    if (record) {
      IterationRecord rec;
      rec.iteration = it;
      rec.objective = dual_objective();  // at the iterate this iteration started from
      rec.optimality = step;
      rec.step = step;
      rec.passes = passes;
      rec.time = elapsed();
      if (opt.record_history && (it % opt.history_every == 0 || it == 1))
        res.history.push_back(rec);
      if (cb.on_iteration && !cb.on_iteration(rec)) {
        res.status = SolverStatus::interrupted;
        break;
      }
    }
    if (!std::isfinite(step)) {
      res.status = SolverStatus::numerical_error;
      break;
    }
    if (step < opt.tol) {
      res.status = SolverStatus::converged;
      break;
    }
  }
  compute_beta();
  passes += kp.apply(beta.data(), kb.data());
  double h = 0.0, viol = 0.0;
  for (Index k = 0; k < m; ++k) {
    h += sigma[k] * x[k];
    viol = std::max({viol, -x[k], x[k] - ub[k]});
  }
  if (unreg) viol = std::max(viol, std::fabs(h));
  double bsum = 0.0;
  for (Index i = 0; i < n; ++i) bsum += beta[i];
  out.coef = beta;
  out.bias = unreg ? mu + rho * h : bsum;
  res.objective = dual_objective();
  res.optimality = viol;
  res.solution = x;
  res.iterations = it;
  res.passes = passes;
  res.time = elapsed();
  res.extras = std::move(out);
  return res;
}

}  // namespace

void validate_options(const AdaGradDualOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_ADAGRAD_DUAL_OPTIONS, "adagrad_dual", o);
  if (o.variant != "reg_bias" && o.variant != "unreg_bias")
    throw_invalid("adagrad_dual option 'variant' must be 'reg_bias' or 'unreg_bias', got '" +
                  o.variant + "'");
}

SolveResult solve_adagrad_dual(const AdaGradDualProblem& P, const AdaGradDualOptions& opt,
                               const Callbacks& cb) {
  validate_options(opt);
  validate_kernel(P.kernel);
  validate_view(P.X);
  if (opt.check_input) validate_finite(P.X);
  const Index n = rows_of(P.X);
  if (!P.y || !P.cost) throw_invalid("adagrad_dual: y and the sample costs are required");
  if (P.kernel.kind == KernelKind::precomputed && cols_of(P.X) != n)
    throw_invalid("a precomputed kernel must be a square n x n Gram matrix");
  for (Index i = 0; i < n; ++i) {
    if (!std::isfinite(P.y[i])) throw_invalid("y contains NaN or infinity");
    if (!P.regression && P.y[i] != 1.0 && P.y[i] != -1.0)
      throw_invalid("adagrad_dual classification needs labels +1/-1");
    if (!(P.cost[i] > 0.0) || !std::isfinite(P.cost[i]))
      throw_invalid("the sample costs (C times weights) must be finite and > 0");
  }
  if (P.regression && !(P.epsilon >= 0.0 && std::isfinite(P.epsilon)))
    throw_invalid("epsilon must be a finite number >= 0");
  return std::visit([&](const auto& X) { return run(X, P, opt, cb); }, P.X);
}

}  // namespace svmkit
