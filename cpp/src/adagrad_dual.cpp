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

// The Gram matrix of a nonlinear kernel is the one allocation that grows as n^2: refused
// (status out_of_memory, with this message) above the max_gram_mb budget; empty when it fits.
std::string gram_budget_message(Index n, const KernelSpec& kernel, double max_gram_mb) {
  const double mb = static_cast<double>(n) * static_cast<double>(n) * 8.0 / (1024.0 * 1024.0);
  if (kernel.kind == KernelKind::linear || mb <= max_gram_mb) return {};
  return "adagrad_dual needs the " + std::to_string(n) + " x " + std::to_string(n) +
         " Gram matrix (" + std::to_string(mb) +
         " MiB), more than max_gram_mb = " + std::to_string(max_gram_mb) +
         "; use the smo solver for data this large";
}

// One run of AdaGrad on the augmented Lagrangian: the variables x (m = n, or 2n for SVR),
// the box multipliers lo, hi, the bias multiplier mu (unreg_bias) and their accumulators.
template <class V>
class AdaGradDualRun {
 public:
  AdaGradDualRun(const V& X, const AdaGradDualProblem& P, const AdaGradDualOptions& opt,
                 const Callbacks& cb)
      : P_(P),
        opt_(opt),
        cb_(cb),
        unreg_(opt.variant == "unreg_bias"),
        n_(X.rows),
        m_(P.regression ? 2 * X.rows : X.rows),
        kp_(X, P.kernel, !unreg_, product_threads(X, P, opt)),
        passes_(P.kernel.kind == KernelKind::linear ? 0 : 1) {
    set_terms();
    for (auto* v : {&x_, &lo_, &hi_, &sx_, &slo_, &shi_, &gx_}) v->assign(m_, 0.0);
    beta_.assign(n_, 0.0);
    kb_.assign(n_, 0.0);
  }

  SolveResult run(Clock::time_point start) {
    SolveResult res;
    res.status = SolverStatus::max_iter;
    long long it = 0;
    while (it < opt_.max_iter) {
      if (cb_.poll()) {
        res.status = SolverStatus::interrupted;
        break;
      }
      ++it;
      compute_beta();
      passes_ += kp_.apply(beta_.data(), kb_.data());
      const double step = adagrad_step();
      const bool keep = opt_.record_history && (it % opt_.history_every == 0 || it == 1);
      if ((keep || cb_.on_iteration) &&
          !report_iteration(res, record(it, step, start), keep, cb_)) {
        res.status = SolverStatus::interrupted;
        break;
      }
      if (!std::isfinite(step)) {
        res.status = SolverStatus::numerical_error;
        break;
      }
      if (step < opt_.tol) {
        res.status = SolverStatus::converged;
        break;
      }
    }
    res.iterations = it;
    finish(res);
    res.time = seconds_since(start);
    return res;
  }

 private:
  // Small products do not pay for a parallel region (and suffer badly on a loaded machine).
  static int product_threads(const V& X, const AdaGradDualProblem& P,
                             const AdaGradDualOptions& opt) {
    const double n = static_cast<double>(X.rows);
    const double work = n * (P.kernel.kind == KernelKind::linear ? 2.0 * X.cols : n);
    return work < 65536.0 ? 1 : resolve_threads(opt.n_threads);
  }

  // sigma_k: sign of variable k in beta; q_k: linear term; ub_k: upper bound.
  void set_terms() {
    sigma_.resize(m_);
    q_.resize(m_);
    ub_.resize(m_);
    for (Index k = 0; k < m_; ++k) {
      const Index i = k % n_;
      if (P_.regression) {
        sigma_[k] = k < n_ ? 1.0 : -1.0;
        q_[k] = P_.epsilon - sigma_[k] * P_.y[i];
      } else {
        sigma_[k] = P_.y[i];
        q_[k] = -1.0;
      }
      ub_[k] = P_.cost[i];
    }
  }

  void compute_beta() {
    for (Index i = 0; i < n_; ++i) beta_[i] = sigma_[i] * x_[i];
    if (P_.regression)
      for (Index i = 0; i < n_; ++i) beta_[i] += sigma_[n_ + i] * x_[n_ + i];
  }

  double dual_objective() const {
    double f = 0.0;
    for (Index i = 0; i < n_; ++i) f += 0.5 * beta_[i] * kb_[i];
    for (Index k = 0; k < m_; ++k) f += q_[k] * x_[k];
    return f;
  }

  double bias_residual() const {
    double h = 0.0;
    for (Index k = 0; k < m_; ++k) h += sigma_[k] * x_[k];
    return h;
  }

  // One AdaGrad step of every variable and multiplier (all partial derivatives at the iterate
  // the iteration started from, kb = K beta); returns the norm of the whole step.
  double adagrad_step() {
    const double rho = opt_.rho, lr = opt_.learning_rate, eps = opt_.eps;
    const double h = bias_residual();
    const double mu_eff = unreg_ ? mu_ + rho * h : 0.0;
    double step2 = 0.0;
    for (Index k = 0; k < m_; ++k) {
      const double gf = sigma_[k] * kb_[k % n_] + q_[k];
      gx_[k] = gf + mu_eff * sigma_[k] - std::max(0.0, lo_[k] - rho * x_[k]) +
               std::max(0.0, hi_[k] + rho * (x_[k] - ub_[k]));
    }
    for (Index k = 0; k < m_; ++k) {
      const double glo = std::max(-x_[k], -lo_[k] / rho);
      const double ghi = std::max(x_[k] - ub_[k], -hi_[k] / rho);
      sx_[k] += gx_[k] * gx_[k];
      slo_[k] += glo * glo;
      shi_[k] += ghi * ghi;
      const double dx = -lr * gx_[k] / std::sqrt(sx_[k] + eps);
      const double nlo = std::max(0.0, lo_[k] + lr * glo / std::sqrt(slo_[k] + eps));
      const double nhi = std::max(0.0, hi_[k] + lr * ghi / std::sqrt(shi_[k] + eps));
      step2 += dx * dx + (nlo - lo_[k]) * (nlo - lo_[k]) + (nhi - hi_[k]) * (nhi - hi_[k]);
      x_[k] += dx;
      lo_[k] = nlo;
      hi_[k] = nhi;
    }
    if (unreg_) {
      smu_ += h * h;
      const double dmu = lr * h / std::sqrt(smu_ + eps);
      mu_ += dmu;
      step2 += dmu * dmu;
    }
    return std::sqrt(step2);
  }

  IterationRecord record(long long it, double step, Clock::time_point start) const {
    IterationRecord rec;
    rec.iteration = it;
    rec.objective = dual_objective();  // at the iterate this iteration started from
    rec.optimality = step;
    rec.step = step;
    rec.passes = passes_;
    rec.time = seconds_since(start);
    return rec;
  }

  // The final measures: objective and box/equality violation at the last iterate, the
  // expansion coefficients beta and the bias.
  void finish(SolveResult& res) {
    compute_beta();
    passes_ += kp_.apply(beta_.data(), kb_.data());
    const double h = bias_residual();
    double viol = 0.0;
    for (Index k = 0; k < m_; ++k) viol = std::max({viol, -x_[k], x_[k] - ub_[k]});
    if (unreg_) viol = std::max(viol, std::fabs(h));
    double bsum = 0.0;
    for (Index i = 0; i < n_; ++i) bsum += beta_[i];
    AdaGradDualExtras out;
    out.coef = beta_;
    out.bias = unreg_ ? mu_ + opt_.rho * h : bsum;
    res.objective = dual_objective();
    res.optimality = viol;
    res.solution = x_;
    res.passes = passes_;
    res.extras = std::move(out);
  }

  static double seconds_since(Clock::time_point start) {
    return std::chrono::duration<double>(Clock::now() - start).count();
  }

  const AdaGradDualProblem& P_;
  const AdaGradDualOptions& opt_;
  const Callbacks& cb_;
  bool unreg_;
  Index n_, m_;
  KernelProduct<V> kp_;
  long long passes_;
  std::vector<double> sigma_, q_, ub_;
  std::vector<double> x_, lo_, hi_;     // variables and box multipliers
  std::vector<double> sx_, slo_, shi_;  // AdaGrad accumulators
  std::vector<double> gx_, beta_, kb_;
  double mu_ = 0.0, smu_ = 0.0;
};

template <class V>
SolveResult run(const V& X, const AdaGradDualProblem& P, const AdaGradDualOptions& opt,
                const Callbacks& cb) {
  const auto start = Clock::now();
  SolveResult res;
  res.message = gram_budget_message(X.rows, P.kernel, opt.max_gram_mb);
  if (!res.message.empty()) {
    res.status = SolverStatus::out_of_memory;
    return res;
  }
  return AdaGradDualRun<V>(X, P, opt, cb).run(start);
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
