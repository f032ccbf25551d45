// sgd, the first-order primal solver (solvers/sgd.hpp gives the problem, the method and the
// stopping rule). The details behind them:
//
// Step size: learning_rate <= 0 selects paper 001 section 7's 1/L with L = (C/n) sum ||x_i||^2.
// That L bounds the curvature of the sample-AVERAGED objective F/n; svmkit minimizes the summed
// F (LIBLINEAR's form), whose curvature bound is n times larger, so the equivalent step on F is
//   1/L_F,  L_F = l2_penalty + kappa * sum_i C_i ||x~_i||^2
// (x~_i includes the intercept_scaling coordinate; kappa = sup loss'': 2 for the squared
// losses, 1/(2 sigma) for the smoothed ones, 1 for the non-smooth ones). For the squared and
// smoothed losses L_F is a true Lipschitz bound of grad F, so the default step is safe.
// The adaptive rules default to the rates of paper 000's baselines (Flux.jl defaults there:
// adagrad 0.1, adadelta 1.0 (no rate), adam 0.001).
//
// Stopping rule (paper 001 section 7): after each epoch F(w) is evaluated (one pass); the
// solve stops when F has not decreased below best - tol * max(1, |best|) for
// n_iter_no_change consecutive epochs, or after max_iter epochs. The best iterate seen is
// returned when return_best is set (subgradient methods are not monotone).
// Defaults: tol = 1e-8 as in paper 001 section 7, but n_iter_no_change = 100 (the paper's 5)
// and max_iter = 20000: subgradient steps on the hinge losses improve the best objective only
// sporadically, and 5 epochs stopped them 2e-3..2e-2 above the optimum on breast cancer
// (C = 0.1); with 100 every rule is within 5.2e-4 there and on heart_scale (C = 0.1 and 1),
// measured in bench/results/first_order.md. The extra 95 epochs cost little for the smooth
// losses. Larger C is ill-conditioned for the fixed step 1/L_F (L_F / l2_penalty ~ C sum
// ||x_i||^2): plain/momentum steps then need ~ L_F epochs (breast cancer, C = 1: 3e-3..2e-2
// after 20000 epochs), while adagrad/adadelta/adam still get there.
//
// Lazy steps (lazy_epoch): used for CSR data and batches that touch fewer features than d on
// average, when the steps of a feature outside the batch (no loss gradient) have a closed form
// (LazyMode below): plain steps without l1 ((w_j, v_j) follows one 2 x 2 linear map per step:
// l2 shrink and momentum; lr is constant within an epoch), plain steps without momentum with l1
// (shrink then soft threshold, an affine map clipped at zero), AdaGrad with any penalty (its
// composite form keeps the rate constant while a feature is untouched: k proximal maps compose
// to one, clipped at zero) and AdaDelta without l1 and l2 (decaying averages). The
// per-epoch tables are built once and applied when the feature is next touched or at the
// epoch's end. Measured 2000 x 10^5 sparse, 50 nonzeros a row, batch_size 1:
// 76-240x faster than dense steps on a shared, loaded machine, 2 epochs (bench/bench_sgd_sparse.py;
// 420-660x when measured alone); composite AdaGrad with l2 (with and without l1), 3 epochs,
// 122-203x (0.024-0.026 s against 2.9-5.4 s, 2026-12-07). The interrupt hook (which takes
// the GIL in Python) is polled every min(n, 4096) rows, not every step.
#include "svmkit/solvers/sgd.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <numeric>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "svmkit/objective.hpp"

namespace svmkit {
namespace {

enum class Momentum { none, polyak, nesterov };
enum class Adaptive { none, adagrad, adadelta, adam };
enum class Schedule { constant, inv_sqrt, inv_time };

Adaptive adaptive_from(const std::string& s);

// "auto": Nesterov momentum (Algorithm 4) for plain steps, none with an adaptive rule (paper
// 000 runs AdaGrad, AdaDelta and Adam without momentum; Adam carries its own first moment).
Momentum momentum_from(const std::string& s, Adaptive ada) {
  Momentum m;
  if (s == "auto")
    return ada == Adaptive::none ? Momentum::nesterov : Momentum::none;
  else if (s == "none")
    m = Momentum::none;
  else if (s == "polyak")
    m = Momentum::polyak;
  else if (s == "nesterov")
    m = Momentum::nesterov;
  else
    throw_invalid("momentum_type must be 'auto', 'none', 'polyak' or 'nesterov', got '" + s + "'");
  if (m != Momentum::none && ada != Adaptive::none)
    throw_invalid("sgd: momentum_type='" + s +
                  "' cannot be combined with an adaptive rule "
                  "(adaptive != 'none'); the adaptive rules run without momentum: use "
                  "momentum_type='auto' or 'none'");
  return m;
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

// A 2 x 2 map of (w_j, v_j), row-major.
using Map2 = std::array<double, 4>;

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
        n_threads_(resolve_threads(opt.n_threads)),
        ada_(adaptive_from(opt.adaptive)),
        mom_(momentum_from(opt.momentum_type, ada_)),
        composite_(ada_ == Adaptive::adagrad),
        beta_(mom_ == Momentum::none ? 0.0 : opt.momentum),
        batch_((opt.batch_size <= 0 || opt.batch_size >= X.rows) ? X.rows : opt.batch_size),
        // Ctrl-C is polled (taking the GIL in Python) every poll_rows_ rows: at least once per
        // pass, but not once per stochastic step.
        poll_rows_(std::min<Index>(X.rows, 4096)),
        obj_(X, loss, p, !is_regression(spec.kind), opt.n_threads) {}

  SolveResult run(const double* w0) {
    start_ = Clock::now();
    const Schedule sched = schedule_from(opt_.schedule);
    const double lr0 = opt_.learning_rate > 0.0 ? opt_.learning_rate : default_rate();
    for (auto* vec : {&w_, &v_, &s1_, &s2_}) vec->assign(dim_, 0.0);
    for (auto* vec : {&g_, &point_, &delta_, &eff_}) vec->resize(dim_);
    if (w0) std::copy(w0, w0 + dim_, w_.begin());
    order_.resize(static_cast<std::size_t>(n_));
    std::iota(order_.begin(), order_.end(), Index{0});
    std::mt19937_64 rng(opt_.seed);
    lazy_ = lazy_mode();
    const bool lazy = lazy_ != LazyMode::off;

    SolveResult res;
    double f = objective(w_.data());
    double f_best = f;
    std::vector<double> best = w_;
    res.status = std::isfinite(f) ? SolverStatus::max_iter : SolverStatus::numerical_error;
    long long epoch = 0, stall = 0;
    while (res.status == SolverStatus::max_iter && epoch < opt_.max_iter) {
      ++epoch;
      double lr = lr0;
      if (sched == Schedule::inv_sqrt) lr = lr0 / std::sqrt(static_cast<double>(epoch));
      if (sched == Schedule::inv_time) lr = lr0 / static_cast<double>(epoch);
      if (batch_ < n_ && opt_.shuffle) std::shuffle(order_.begin(), order_.end(), rng);
      if (!(lazy ? lazy_epoch(lr) : dense_epoch(lr))) {
        res.status = SolverStatus::interrupted;
        break;
      }
      f = objective(w_.data());
      const double f_prev_best = f_best;
      if (f < f_best - opt_.tol * std::max(1.0, std::fabs(f_best))) {
        stall = 0;
      } else {
        ++stall;
      }
      if (f < f_best) {
        f_best = f;
        best = w_;
      }
      const double improvement = (f_prev_best - f_best) / std::max(1.0, std::fabs(f_prev_best));
      if (!record(res, epoch, f, improvement, lr)) {
        res.status = SolverStatus::interrupted;
        break;
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
      res.solution = w_;
      res.objective = f;
    }
    res.optimality = res.history.empty() ? kNaN : res.history.back().optimality;
    res.iterations = epoch;
    res.inner_iterations = step_count_;
    res.passes = passes();
    res.time = elapsed();
    res.extras = SgdExtras{lazy_names[static_cast<int>(lazy_)], coordinate_updates_};
    return res;
  }

 private:
  using Clock = std::chrono::steady_clock;

  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // Polls the interrupt hook every poll_rows_ rows (and at the first step); true = stop.
  bool poll(Index rows) {
    rows_since_poll_ += rows;
    if (rows_since_poll_ < poll_rows_ && step_count_ > 1) return false;
    rows_since_poll_ = 0;
    return cb_.poll();
  }

  // One history record / callback per epoch; false when the callback asks to stop.
  bool record(SolveResult& res, long long epoch, double f, double improvement, double lr) {
    if (!opt_.record_history && !cb_.on_iteration) return true;
    IterationRecord rec;
    rec.iteration = epoch;
    rec.objective = f;
    rec.optimality = improvement;
    rec.step = lr;
    rec.inner_iterations = (n_ + batch_ - 1) / batch_;
    rec.passes = passes();
    rec.time = elapsed();
    return report_iteration(res, rec, opt_.record_history, cb_);
  }

  // How the features a step does not touch are brought up to date (lazy_epoch). Each mode is
  // a closed form of the dense steps' arithmetic on a coordinate whose loss gradient is zero:
  //  * linear: plain steps without l1 (any momentum): (w_j, v_j) follows one 2 x 2 linear map;
  //  * shrink: plain steps, no momentum, l1: w_j <- S_t(c w_j), c = 1 - lr l2 in [0, 1], t = lr
  //    l1, whose k-fold composition is |w_j| <- c^k |w_j| - t (1 + c + ... + c^(k-1)), clipped
  //    at 0 (monotone for c in [0, 1], so a coordinate that reaches 0 stays there);
  //  * adagrad: composite AdaGrad (the penalties by their proximal map, not in the gradient):
  //    g_j = 0 leaves the accumulator and the rate eff_j = lr / sqrt(s_j + eps) unchanged, so k
  //    steps |w_j| <- (|w_j| - eff_j l1)_+ / (1 + eff_j l2) compose to one affine map clipped at
  //    0 (catch_up);
  //  * adadelta: AdaDelta without l1 and l2 on the features: both running averages decay by
  //    rho^k, w_j does not move.
  // Adam (its bias-corrected first moment keeps moving w_j) and AdaDelta with a penalty (its
  // rate changes every step, also on untouched features: no closed form) take dense steps, as
  // do momentum with l1 (the soft threshold of the 2 x 2 map's iterates has no closed form).
  enum class LazyMode { off, linear, shrink, adagrad, adadelta };
  static constexpr const char* lazy_names[] = {"dense", "linear", "shrink", "adagrad", "adadelta"};

  // Sparse rows and batches that touch fewer coordinates than there are, in one of the modes
  // above: steps cost O(nnz of the batch) (lazy_epoch).
  LazyMode lazy_mode() const {
    if constexpr (is_csr_view<V>::value) {
      if (!opt_.lazy_steps || batch_ >= n_) return LazyMode::off;
      const double nnz = static_cast<double>(X_.indptr[X_.rows]);
      if (static_cast<double>(batch_) * nnz / static_cast<double>(n_) >= static_cast<double>(d_))
        return LazyMode::off;
      const bool l1 = opt_.l1_penalty > 0.0, l2 = opt_.l2_penalty > 0.0;
      switch (ada_) {
        case Adaptive::none:
          if (!l1) return LazyMode::linear;
          return mom_ == Momentum::none ? LazyMode::shrink : LazyMode::off;
        case Adaptive::adagrad:  // composite: any penalty has a closed form
          return LazyMode::adagrad;
        case Adaptive::adadelta:
          return (l1 || l2) ? LazyMode::off : LazyMode::adadelta;
        case Adaptive::adam:
          return LazyMode::off;
      }
    }
    return LazyMode::off;
  }

  // One epoch of dense steps (every coordinate every step). False if interrupted.
  bool dense_epoch(double lr) {
    for (Index b = 0; b < n_; b += batch_) {
      const Index e = std::min(n_, b + batch_);
      if (poll(e - b)) return false;
      ++step_count_;
      // Nesterov evaluates the gradient after the momentum move x_t - beta v_{t-1}
      // (paper 001 Algorithm 4, with the sign that matches x_{t+1} = x_t - v_t).
      for (Index j = 0; j < dim_; ++j)
        point_[j] = mom_ == Momentum::nesterov ? w_[j] - beta_ * v_[j] : w_[j];
      batch_gradient(point_.data(), order_.data() + b, e - b, g_.data());
      if (!composite_)
        for (Index j = 0; j < dim_; ++j) g_[j] += l2_of(j) * point_[j];
      adaptive_step(lr);
      for (Index j = 0; j < dim_; ++j) {
        v_[j] = beta_ * v_[j] + delta_[j];
        w_[j] -= v_[j];
      }
      coordinate_updates_ += dim_;
      if (composite_) {
        for (Index j = 0; j < dim_; ++j) adagrad_prox(j);
      } else if (opt_.l1_penalty > 0.0) {
        for (Index j = 0; j < d_; ++j) soft_threshold(j, opt_.l1_penalty * eff_[j]);
      }
    }
    return true;
  }

  double l2_of(Index j) const { return j < d_ || p_.regularize_intercept ? opt_.l2_penalty : 0.0; }

  // The step of one coordinate whose loss gradient is g_loss: dense_epoch's arithmetic
  // (gradient at the momentum point, adaptive rule, momentum, l1 soft threshold).
  void coord_step(Index j, double g_loss, double lr, double c1, double c2) {
    const double pt = mom_ == Momentum::nesterov ? w_[j] - beta_ * v_[j] : w_[j];
    g_[j] = g_loss;
    if (!composite_) g_[j] += l2_of(j) * pt;
    adaptive_coord(j, lr, c1, c2);
    v_[j] = beta_ * v_[j] + delta_[j];
    w_[j] -= v_[j];
    ++coordinate_updates_;
    if (composite_) {
      adagrad_prox(j);
    } else if (opt_.l1_penalty > 0.0 && j < d_) {
      soft_threshold(j, opt_.l1_penalty * eff_[j]);
    }
  }

  // AdaGrad's composite step (Duchi, Hazan and Singer 2011): the penalties' proximal map at
  // coordinate j's rate eff_j, w_j <- S_{eff_j l1}(w_j) / (1 + eff_j l2) (l1 never on the bias).
  void adagrad_prox(Index j) {
    if (j < d_ && opt_.l1_penalty > 0.0) soft_threshold(j, opt_.l1_penalty * eff_[j]);
    const double l2 = l2_of(j);
    if (l2 > 0.0) w_[j] /= 1.0 + eff_[j] * l2;
  }

  void soft_threshold(Index j, double t) {
    const double a = std::fabs(w_[j]) - t;
    w_[j] = a > 0.0 ? std::copysign(a, w_[j]) : 0.0;
  }

  // The per-epoch tables of the lazy modes (lr is constant within an epoch), for k <= steps
  // skipped steps: linear, the powers A^k of the 2 x 2 map; shrink, c^k and 1 + c + ... +
  // c^(k-1); adadelta, rho^k. False when the mode does not apply at this lr (shrink with
  // c = 1 - lr l2 < 0): the epoch then takes dense steps.
  bool build_lazy_tables(double lr, Index steps) {
    const std::size_t n = static_cast<std::size_t>(steps + 1);
    if (lazy_ == LazyMode::linear) {
      const double a = lr * opt_.l2_penalty, nb = mom_ == Momentum::nesterov ? beta_ : 0.0;
      // point = w - nb v; v' = beta v + a point; w' = w - v'.
      const Map2 A = {1.0 - a, -(beta_ - a * nb), a, beta_ - a * nb};
      powers_.resize(n);
      powers_[0] = {1.0, 0.0, 0.0, 1.0};
      for (Index k = 1; k <= steps; ++k) {
        const Map2& P = powers_[k - 1];
        powers_[k] = {A[0] * P[0] + A[1] * P[2], A[0] * P[1] + A[1] * P[3],
                      A[2] * P[0] + A[3] * P[2], A[2] * P[1] + A[3] * P[3]};
      }
    } else if (lazy_ == LazyMode::shrink || lazy_ == LazyMode::adadelta) {
      const double c = lazy_ == LazyMode::shrink ? 1.0 - lr * opt_.l2_penalty : opt_.adadelta_rho;
      if (!(c >= 0.0 && c <= 1.0)) return false;
      cpow_.resize(n);
      geo_.resize(n);
      cpow_[0] = 1.0;
      geo_[0] = 0.0;
      for (Index k = 1; k <= steps; ++k) {
        cpow_[k] = c * cpow_[k - 1];
        geo_[k] = geo_[k - 1] + cpow_[k - 1];
      }
    }
    lazy_t_ = lr * opt_.l1_penalty;
    return true;
  }

  // Brings feature j from its last step to step q (the steps it sat out of; see LazyMode).
  void catch_up(Index j, Index q) {
    const Index k = q - last_[j];
    if (k == 0) return;
    last_[j] = q;
    ++coordinate_updates_;
    switch (lazy_) {
      case LazyMode::linear: {
        const Map2& P = powers_[k];
        const double w = w_[j], v = v_[j];
        w_[j] = P[0] * w + P[1] * v;
        v_[j] = P[2] * w + P[3] * v;
        break;
      }
      case LazyMode::shrink: {
        // v_j (= the last step, unused without momentum) is left as it was.
        const double a = cpow_[k] * std::fabs(w_[j]) - lazy_t_ * geo_[k];
        w_[j] = a > 0.0 ? std::copysign(a, w_[j]) : 0.0;
        break;
      }
      case LazyMode::adagrad: {
        // k composite steps at the constant rate eff: |w| <- c (|w| - t)_+ with c = 1 / (1 +
        // eff l2), t = eff l1, so |w| <- c^k |w| - t (c + ... + c^k) clipped at 0 (decreasing:
        // one clip at the end is the k clips), where c + ... + c^k = (1 - c^k) / (eff l2).
        const double eff = lr_ / std::sqrt(s1_[j] + opt_.adagrad_eps);
        const double t = opt_.l1_penalty * eff, el2 = eff * opt_.l2_penalty;
        const double kd = static_cast<double>(k);
        if (el2 > 0.0) {
          const double log_ck = -kd * std::log1p(el2);
          const double a = std::exp(log_ck) * std::fabs(w_[j]) + t * std::expm1(log_ck) / el2;
          w_[j] = a > 0.0 ? std::copysign(a, w_[j]) : 0.0;
        } else if (t > 0.0) {
          soft_threshold(j, kd * t);
        }
        break;
      }
      case LazyMode::adadelta:
        s1_[j] *= cpow_[k];
        s2_[j] *= cpow_[k];
        break;
      case LazyMode::off:
        break;
    }
  }

  // One epoch of lazy steps on sparse rows: a step updates only the features of its batch
  // (after catching them up) and the bias; the others catch up when next touched or at the end
  // of the epoch. The same iterates as dense_epoch up to rounding. False if interrupted.
  bool lazy_epoch(double lr) {
    if constexpr (is_csr_view<V>::value) {
      const Index steps = (n_ + batch_ - 1) / batch_;
      if (!build_lazy_tables(lr, steps)) return dense_epoch(lr);
      lr_ = lr;
      last_.assign(static_cast<std::size_t>(d_), 0);
      acc_.assign(static_cast<std::size_t>(d_), 0.0);
      mark_.assign(static_cast<std::size_t>(d_), -1);
      Index q = 0;
      for (Index b = 0; b < n_; b += batch_, ++q) {
        const Index e = std::min(n_, b + batch_);
        if (poll(e - b)) {
          for (Index j = 0; j < d_; ++j) catch_up(j, q);
          return false;
        }
        ++step_count_;
        lazy_step(order_.data() + b, e - b, q, lr);
      }
      for (Index j = 0; j < d_; ++j) catch_up(j, steps);
      return true;
    } else {
      (void)lr;
      return true;
    }
  }

  void lazy_step(const Index* rows, Index k, Index q, double lr) {
    const double factor = static_cast<double>(n_) / static_cast<double>(k);  // as batch_gradient
    touched_.clear();
    for (Index r = 0; r < k; ++r)
      for_each_in_row(X_, rows[r], [&](Index j, double) {
        if (mark_[j] == q) return;
        mark_[j] = q;
        touched_.push_back(j);
        catch_up(j, q);
      });
    // The decision values at the (Nesterov) point, then the loss gradient, as batch_gradient.
    const bool nesterov = mom_ == Momentum::nesterov;
    const double pb = !p_.fit_intercept ? 0.0 : nesterov ? w_[d_] - beta_ * v_[d_] : w_[d_];
    coef_.resize(static_cast<std::size_t>(k));
    for (Index r = 0; r < k; ++r) {
      double z = 0.0;
      for_each_in_row(X_, rows[r], [&](Index j, double x) {
        z += x * (nesterov ? w_[j] - beta_ * v_[j] : w_[j]);
      });
      if (p_.fit_intercept) z += pb * scale_;
      coef_[r] = sample_d1(rows[r], z);
    }
    double acc_b = 0.0;
    for (Index r = 0; r < k; ++r) {
      const double c1 = coef_[r];
      if (c1 == 0.0) continue;
      for_each_in_row(X_, rows[r], [&](Index j, double x) { acc_[j] += c1 * x; });
      acc_b += c1 * scale_;
    }
    row_visits_ += k;
    const double c1 = adam_correction(opt_.adam_beta1), c2 = adam_correction(opt_.adam_beta2);
    for (Index j : touched_) {
      coord_step(j, factor * acc_[j], lr, c1, c2);
      acc_[j] = 0.0;
      last_[j] = q + 1;
    }
    if (p_.fit_intercept) coord_step(d_, factor * acc_b, lr, c1, c2);
  }

  double default_rate() {
    switch (ada_) {
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

  // Adam's bias correction 1 - beta^t at the current step (1 for the other rules).
  double adam_correction(double beta) const {
    return ada_ == Adaptive::adam ? 1.0 - std::pow(beta, static_cast<double>(step_count_)) : 1.0;
  }

  // delta = the step of each coordinate from g, eff = its effective rate (for the l1 prox).
  void adaptive_step(double lr) {
    const double c1 = adam_correction(opt_.adam_beta1), c2 = adam_correction(opt_.adam_beta2);
    for (Index j = 0; j < dim_; ++j) adaptive_coord(j, lr, c1, c2);
  }

  // The adaptive rule on coordinate j (c1, c2: Adam's bias corrections of this step).
  void adaptive_coord(Index j, double lr, double c1, double c2) {
    const double gj = g_[j];
    switch (ada_) {
      case Adaptive::none:
        eff_[j] = lr;
        delta_[j] = lr * gj;
        break;
      case Adaptive::adagrad:  // paper 001 Algorithm 7
        s1_[j] += gj * gj;
        eff_[j] = lr / std::sqrt(s1_[j] + opt_.adagrad_eps);
        delta_[j] = eff_[j] * gj;
        break;
      case Adaptive::adadelta: {  // Zeiler's rule, running averages of g^2 and dx^2
        const double rho = opt_.adadelta_rho, eps = opt_.adadelta_eps;
        s1_[j] = rho * s1_[j] + (1.0 - rho) * gj * gj;
        eff_[j] = lr * std::sqrt(s2_[j] + eps) / std::sqrt(s1_[j] + eps);
        delta_[j] = eff_[j] * gj;
        s2_[j] = rho * s2_[j] + (1.0 - rho) * delta_[j] * delta_[j];
        break;
      }
      case Adaptive::adam: {  // Kingma and Ba with bias correction
        const double b1 = opt_.adam_beta1, b2 = opt_.adam_beta2;
        s1_[j] = b1 * s1_[j] + (1.0 - b1) * gj;
        s2_[j] = b2 * s2_[j] + (1.0 - b2) * gj * gj;
        const double mh = s1_[j] / c1;
        const double vh = s2_[j] / c2;
        eff_[j] = lr / (std::sqrt(vh) + opt_.adam_eps);
        delta_[j] = eff_[j] * mh;
        break;
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

  // F(w): the loss part from objective.hpp's pass, the penalties weighted here.
  double objective(const double* w) {
    const double f = obj_.loss_sum(w);
    row_visits_ += n_;
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
  Adaptive ada_;
  Momentum mom_;
  bool composite_;  // AdaGrad: the penalties by their proximal map at each coordinate's rate
  double beta_;
  Index batch_, poll_rows_;
  ReductionBuffers buf_;
  long long row_visits_ = 0, step_count_ = 0;
  long long coordinate_updates_ = 0;  // coordinate steps and lazy catch-ups (SgdExtras)
  Index rows_since_poll_ = 0;
  Clock::time_point start_;
  std::vector<double> w_, v_, g_, point_, delta_, eff_, s1_, s2_;  // iterate, momentum, steps
  std::vector<Index> order_;
  // lazy_epoch's state: powers of the step map, each feature's last step, the batch's
  // gradient accumulator, its features and its per-row loss derivatives.
  LazyMode lazy_ = LazyMode::off;
  double lr_ = 0.0, lazy_t_ = 0.0;  // the epoch's rate and l1 threshold lr l1
  std::vector<Map2> powers_;
  std::vector<double> cpow_, geo_;  // c^k and 1 + c + ... + c^(k-1) (shrink; adadelta: rho^k)
  std::vector<Index> last_, mark_, touched_;
  std::vector<double> acc_, coef_;
  LinearObjective<V, L> obj_;
};

}  // namespace

void validate_options(const SgdOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_SGD_OPTIONS, "sgd", o);
  momentum_from(o.momentum_type, adaptive_from(o.adaptive));
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
