// TRON (see solvers/tron.hpp for the problem, the method and the stopping rule).
#include "svmkit/solvers/tron.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "gap_stop.hpp"
#include "kept_columns.hpp"
#include "kink_dual.hpp"
#include "svmkit/objective.hpp"

namespace svmkit {
namespace {

using Clock = std::chrono::steady_clock;

// The line search's Newton iterations on the step length: at most this many, stopping once a
// changes by less than kLineStepRelTol relative (the step need not be exact; each costs O(n)).
constexpr int kLineNewtonSteps = 20;
constexpr double kLineStepRelTol = 1e-1;
// F's relative rounding error that the approximate Armijo condition tolerates.
constexpr double kLineRoundoff = 1e-10;
// The line search's CG also stops once ||r|| <= kResidualFloor * (the final gradient threshold):
// the new gradient is about r, so solving further would not end the run sooner.
constexpr double kResidualFloor = 0.5;
// hessian_cutoff is dropped after kCutoffStrikes directions with s'Hs > kCutoffTrust s'H~s
// (cutoff_trusted).
constexpr double kCutoffTrust = 10.0;
constexpr int kCutoffStrikes = 3;

double dot(const std::vector<double>& a, const std::vector<double>& b) {
  double s = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) s += a[i] * b[i];
  return s;
}
double norm(const std::vector<double>& a) {
  return std::sqrt(dot(a, a));
}

// Steihaug CG on min g.s + 1/2 s'Hs, ||s||_M <= delta, preconditioned by diagonal M.
// Returns the number of CG iterations; s and r = -g - H s on exit. Sets *interrupted
// when the interrupt hook fires (s is then still a usable step).
template <class Obj>
long long trust_region_cg(Obj& obj, const std::vector<double>& g, const std::vector<double>& m,
                          double delta, double cg_tol, long long max_cg, std::vector<double>& s,
                          std::vector<double>& r, bool* reached_boundary, const Callbacks& cb,
                          bool* interrupted, double residual_floor = 0.0) {
  const std::size_t n = g.size();
  std::vector<double> z(n), d(n), hd(n);
  std::fill(s.begin(), s.end(), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    r[i] = -g[i];
    z[i] = r[i] / m[i];
    d[i] = z[i];
  }
  double ztr = dot(z, r);
  const double tol = cg_tol * std::sqrt(ztr);
  *reached_boundary = false;
  long long it = 0;
  while (it < max_cg) {
    if (std::sqrt(ztr) <= tol) break;
    if (cb.poll()) {
      *interrupted = true;
      break;
    }
    ++it;
    obj.hess_vec(d.data(), hd.data());
    const double dhd = dot(d, hd);
    if (!(dhd > 0.0) && !std::isfinite(delta)) break;  // no region to step to: keep s
    const double alpha = ztr / dhd;
    // ||s + alpha d||_M^2 decides whether the full CG step stays inside the region.
    double sms = 0.0, smd = 0.0, dmd = 0.0;
    for (std::size_t i = 0; i < n; ++i) {
      sms += s[i] * m[i] * s[i];
      smd += s[i] * m[i] * d[i];
      dmd += d[i] * m[i] * d[i];
    }
    const double next = sms + 2.0 * alpha * smd + alpha * alpha * dmd;
    if (!(dhd > 0.0) || next > delta * delta) {
      // Step to the boundary: tau >= 0 with ||s + tau d||_M = delta.
      const double gap = std::max(0.0, delta * delta - sms);
      const double rad = std::sqrt(smd * smd + dmd * gap);
      const double tau = smd >= 0.0 ? gap / (smd + rad) : (rad - smd) / dmd;
      for (std::size_t i = 0; i < n; ++i) {
        s[i] += tau * d[i];
        r[i] -= tau * hd[i];
      }
      *reached_boundary = true;
      break;
    }
    for (std::size_t i = 0; i < n; ++i) {
      s[i] += alpha * d[i];
      r[i] -= alpha * hd[i];
      z[i] = r[i] / m[i];
    }
    if (residual_floor > 0.0 && norm(r) <= residual_floor) break;
    const double ztr_new = dot(z, r);
    const double beta = ztr_new / ztr;
    for (std::size_t i = 0; i < n; ++i) d[i] = z[i] + beta * d[i];
    ztr = ztr_new;
  }
  return it;
}

// TRON's trust-region update: the radius after a step of M-norm snorm with actual and
// predicted reductions actred, prered; a is the step-length estimate from a quadratic fit
// along s (gs = g.s, df = f_new - f).
double next_radius(const TronOptions& opt, double delta, double snorm, double gs, double df,
                   double actred, double prered) {
  const double curv = df - gs;
  const double a = curv <= 0.0 ? opt.sigma3 : std::max(opt.sigma1, -0.5 * (gs / curv));
  if (actred < opt.eta0 * prered) return std::min(a * snorm, opt.sigma2 * delta);
  if (actred < opt.eta1 * prered)
    return std::max(opt.sigma1 * delta, std::min(a * snorm, opt.sigma2 * delta));
  if (actred < opt.eta2 * prered)
    return std::max(opt.sigma1 * delta, std::min(a * snorm, opt.sigma3 * delta));
  return std::max(delta, std::min(a * snorm, opt.sigma3 * delta));
}

// Whether w is within tol: ||g|| <= stop (the gradient rule), or the relative duality gap
// ||g||^2 / (2 F) <= gap_tol (tron_stop_rule: F is then 1-strongly convex, so F - F* <=
// ||g||^2 / 2; 0 turns it off).
bool within_tol(double f, double gnorm, double stop, double gap_tol) {
  return gnorm <= stop || 0.5 * gnorm * gnorm <= gap_tol * f;
}

// The message of a run that ended (status) where the gap, not the gradient rule, stopped it.
std::string gap_stop_message(SolverStatus status, double f, double gnorm, double stop,
                             double gap_tol) {
  return status == SolverStatus::converged ? tron_gap_stop_message(f, gnorm, stop, gap_tol)
                                           : std::string();
}

// The status after a step: max_iter while the iteration goes on.
SolverStatus status_after_step(double f, double gnorm, double stop, double gap_tol, double actred,
                               double prered) {
  if (!std::isfinite(f) || !std::isfinite(gnorm)) return SolverStatus::numerical_error;
  if (within_tol(f, gnorm, stop, gap_tol)) return SolverStatus::converged;
  if (f < -1.0e32) return SolverStatus::numerical_error;
  // No decrease is possible any more: the model and the function agree to rounding.
  if ((std::fabs(actred) <= 0.0 && prered <= 0.0) ||
      (std::fabs(actred) <= 1e-12 * std::fabs(f) && std::fabs(prered) <= 1e-12 * std::fabs(f)))
    return SolverStatus::line_search_failed;
  return SolverStatus::max_iter;
}

// Fills the result's final fields (both loops end the same way).
void finish(SolveResult& res, std::vector<double>&& w, double f, double gnorm, long long iter,
            long long passes, double seconds) {
  res.solution = std::move(w);
  res.objective = f;
  res.optimality = gnorm;
  res.iterations = iter;
  res.passes = passes;
  res.time = seconds;
}

// The step length along s from the current point of obj (f, and g.s = gs < 0): safeguarded
// Newton iterations on the slope of phi(a) = F(w + a s) from a = 1, each O(n_samples) on the
// decision values (dz = X~ s), then halving until Armijo's condition phi(a) <= f + eta0 a gs
// (or its approximate form below) holds. The losses are convex, so phi is; each Newton iterate
// stays within [a / 4, 4 a] of the last. Returns 0 when no step of length >= 1e-12 decreases F
// enough (line_search_failed).
template <class Obj>
double line_search_step(Obj& obj, const std::vector<double>& w, const std::vector<double>& s,
                        const std::vector<double>& dz, double f, double gs, double eta0,
                        double a_start = 1.0) {
  const double ww = obj.reg_dot(w.data(), w.data()), ws = obj.reg_dot(w.data(), s.data()),
               ss = obj.reg_dot(s.data(), s.data());
  const auto phi = [&](double a) {
    return 0.5 * (ww + a * (2.0 * ws + a * ss)) + obj.line_loss(dz.data(), a);
  };
  double a = a_start;
  for (int k = 0; k < kLineNewtonSteps; ++k) {
    double d1 = 0.0, d2 = 0.0;
    obj.line_slope(dz.data(), a, &d1, &d2);
    d1 += ws + a * ss;
    d2 += ss;
    if (!(d2 > 0.0)) break;
    const double next = std::clamp(a - d1 / d2, 0.25 * a, 4.0 * a);
    const bool done = std::fabs(next - a) <= kLineStepRelTol * a;
    a = next;
    if (done) break;
  }
  // Armijo's condition, or near the optimum, where F's decrease is below its rounding error,
  // Hager and Zhang's approximate one (SIAM J. Optim. 2005): F within rounding of f and the
  // slope at a at most (1 - 2 eta0) |g.s| (for a quadratic, the exact minimizer passes).
  const auto acceptable = [&](double step) {
    const double value = phi(step);
    if (value <= f + eta0 * step * gs) return true;
    if (!(value <= f + kLineRoundoff * std::fabs(f))) return false;
    double d1 = 0.0, d2 = 0.0;
    obj.line_slope(dz.data(), step, &d1, &d2);
    return d1 + ws + step * ss <= (1.0 - 2.0 * eta0) * -gs;
  };
  while (!acceptable(a)) {
    a *= 0.5;
    if (a < 1e-12) return 0.0;
  }
  return a;
}

// What the region's loop hands over to the line search (tron_core): the result so far (history,
// CG steps), its iterations, the clock of its start and ||grad F(0)||, so that the continued run
// keeps the same stopping rule without evaluating F at 0 again.
struct HandOver {
  SolveResult res;
  long long iterations = 0;
  Clock::time_point start;
  double gnorm0 = 0.0;
};

// hessian_cutoff's safeguard: CG's direction s solved H~ s = -g with H~ <= H (the rows below the
// cutoff left out). When along s the rows left out carry much more curvature than the kept ones
// (s'Hs > kCutoffTrust s'H~s, both O(n) on the decision values dz) the direction is a strike
// against the cutoff, and after kCutoffStrikes strikes every row returns (false). A single
// strike is common at w = 0, where every margin is 0 and the psi_M rows can all sit just under
// the cutoff. Measured: breast_cancer, C = 10, hinge continuation at 1e-3 took 1423 iterations
// against 62 with every row, median ratio 187 (82 with the safeguard); dna.scale's psi_M: ratio
// 1.01 median, one strike at w = 0.
template <class Obj>
bool cutoff_trusted(Obj& obj, const std::vector<double>& s, const std::vector<double>& dz,
                    double gs, int* strikes, double* a_start) {
  double kept = 0.0, all = 0.0;
  obj.curvature_along(dz.data(), &kept, &all);
  const double ss = obj.reg_dot(s.data(), s.data());
  // s is too long by about s'Hs / s'H~s: the line search starts at the exact curvature's
  // Newton step along s instead of 1 (one 1-D Newton step less, each O(n) with square roots).
  if (kept < all && gs < 0.0) *a_start = -gs / (all + ss);
  if (all + ss <= kCutoffTrust * (kept + ss) || ++*strikes < kCutoffStrikes) return true;
  obj.set_hessian_cutoff(0.0);
  return false;
}

// Newton-CG with a line search (globalization = "line_search"): the same CG (no region), the
// same preconditioner and stopping rule as the trust-region loop below. With from, the run
// continues one that the region's loop handed over at w0.
template <class Obj>
SolveResult line_search_core(Obj& obj, const TronOptions& opt, double gap_tol, const Callbacks& cb,
                             const double* w0, HandOver* from = nullptr) {
  const auto start = from ? from->start : Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::size_t n = static_cast<std::size_t>(obj.dim());
  SolveResult res = from ? std::move(from->res) : SolveResult{};
  std::vector<double> w(n, 0.0), g(n), hdiag(n), m(n, 1.0), s(n), r(n),
      dz(static_cast<std::size_t>(obj.n_samples()));
  obj.keep_decision_values();
  double gnorm0 = 0.0, f = 0.0;
  if (from) {
    gnorm0 = from->gnorm0;
  } else {
    f = obj.fun_grad(w.data(), g.data(), hdiag.data());
    obj.accept();
    gnorm0 = norm(g);  // the reference is taken at w = 0, as in the region's loop
  }
  if (w0) {
    std::copy(w0, w0 + n, w.begin());
    f = obj.fun_grad(w.data(), g.data(), hdiag.data());
    obj.accept();
  }
  double gnorm = norm(g);
  const auto precond = [&] {
    if (!opt.precondition) return;
    for (std::size_t i = 0; i < n; ++i)
      m[i] = (1.0 - opt.preconditioner_weight) + opt.preconditioner_weight * hdiag[i];
  };
  precond();
  const double stop = std::max(opt.tol * gnorm0, opt.abs_tol);
  const long long max_cg = opt.cg_max_iter > 0 ? opt.cg_max_iter : static_cast<long long>(n);
  const double no_region = std::numeric_limits<double>::infinity();
  const auto status_here = [&] {
    if (!std::isfinite(f) || !std::isfinite(gnorm)) return SolverStatus::numerical_error;
    return within_tol(f, gnorm, stop, gap_tol) ? SolverStatus::converged : SolverStatus::max_iter;
  };
  res.status = status_here();
  long long iter = from ? from->iterations : 0;
  bool cutoff_on = !from && opt.hessian_cutoff > 0.0;  // a handed-over run keeps every row
  if (cutoff_on) obj.set_hessian_cutoff(opt.hessian_cutoff);
  int strikes = 0;
  while (res.status == SolverStatus::max_iter && iter < opt.max_iter) {
    ++iter;
    bool boundary = false, interrupted = false;
    const long long cg_it = trust_region_cg(obj, g, m, no_region, opt.cg_tol, max_cg, s, r,
                                            &boundary, cb, &interrupted, kResidualFloor * stop);
    res.inner_iterations += cg_it;
    if (interrupted) {
      res.status = SolverStatus::interrupted;
      break;
    }
    const double gs = dot(g, s);
    obj.decision(s.data(), dz.data());
    double a_start = 1.0;
    if (cutoff_on) cutoff_on = cutoff_trusted(obj, s, dz, gs, &strikes, &a_start);
    const double a = gs < 0.0 ? line_search_step(obj, w, s, dz, f, gs, opt.eta0, a_start) : 0.0;
    if (a == 0.0) {
      res.status = SolverStatus::line_search_failed;
      break;
    }
    for (std::size_t i = 0; i < n; ++i) w[i] += a * s[i];
    f = obj.fun_grad(w.data(), g.data(), hdiag.data());
    obj.accept();
    gnorm = norm(g);
    precond();
    if (opt.record_history || cb.on_iteration) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.objective = f;
      rec.optimality = gnorm;
      rec.step = a * norm(s);
      rec.inner_iterations = cg_it;
      rec.passes = obj.passes();
      rec.time = elapsed();
      if (!report_iteration(res, rec, opt.record_history, cb)) {
        res.status = SolverStatus::interrupted;
        break;
      }
    }
    res.status = status_here();
  }
  res.message = gap_stop_message(res.status, f, gnorm, stop, gap_tol);
  finish(res, std::move(w), f, gnorm, iter, obj.passes(), elapsed());
  return res;
}

// hand_over: after the first rejected step, the run continues with the line search from the
// current point (tron_hands_over_to_line_search below: why).
template <class Obj>
SolveResult tron_core(Obj& obj, const TronOptions& opt, double gap_tol, const Callbacks& cb,
                      const double* w0, bool hand_over) {
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::size_t n = static_cast<std::size_t>(obj.dim());
  SolveResult res;
  // hdiag serves only the preconditioner m: it holds the last evaluated point's Hessian
  // diagonal, which m takes over once that point is accepted (no second buffer for the
  // current point; every n-vector counts in the fit's peak memory).
  std::vector<double> w(n, 0.0), g(n), hdiag(n), m(n, 1.0), s(n), r(n), w_new(n), g_new(n);

  // The reference gradient norm is taken at w = 0.
  double f = obj.fun_grad(w.data(), g.data(), hdiag.data());
  obj.accept();
  const double gnorm0 = norm(g);
  if (w0) {
    std::copy(w0, w0 + n, w.begin());
    f = obj.fun_grad(w.data(), g.data(), hdiag.data());
    obj.accept();
  }
  double gnorm = norm(g);
  const auto precond = [&](const std::vector<double>& h) {
    if (!opt.precondition) return;
    for (std::size_t i = 0; i < n; ++i)
      m[i] = (1.0 - opt.preconditioner_weight) + opt.preconditioner_weight * h[i];
  };
  precond(hdiag);
  const auto m_norm_inv = [&](const std::vector<double>& v) {
    double s2 = 0.0;
    for (std::size_t i = 0; i < n; ++i) s2 += v[i] * v[i] / m[i];
    return std::sqrt(s2);
  };
  double delta = m_norm_inv(g);
  const double stop = std::max(opt.tol * gnorm0, opt.abs_tol);
  const long long max_cg = opt.cg_max_iter > 0 ? opt.cg_max_iter : static_cast<long long>(n);

  res.status = SolverStatus::max_iter;
  if (!std::isfinite(f) || !std::isfinite(gnorm)) {
    res.status = SolverStatus::numerical_error;
  } else if (within_tol(f, gnorm, stop, gap_tol)) {
    res.status = SolverStatus::converged;
  }
  long long iter = 0;
  bool first = true;
  while (res.status == SolverStatus::max_iter && iter < opt.max_iter) {
    ++iter;
    bool boundary = false, interrupted = false;
    const long long cg_it =
        trust_region_cg(obj, g, m, delta, opt.cg_tol, max_cg, s, r, &boundary, cb, &interrupted);
    res.inner_iterations += cg_it;
    if (interrupted) {
      res.status = SolverStatus::interrupted;
      break;
    }
    for (std::size_t i = 0; i < n; ++i) w_new[i] = w[i] + s[i];
    const double gs = dot(g, s);
    const double prered = -0.5 * (gs - dot(s, r));
    const double f_new = obj.fun_grad(w_new.data(), g_new.data(), hdiag.data());
    const double actred = f - f_new;

    double snorm = 0.0;
    for (std::size_t i = 0; i < n; ++i) snorm += s[i] * m[i] * s[i];
    snorm = std::sqrt(snorm);
    if (first) {
      delta = std::min(delta, snorm);
      first = false;
    }
    delta = next_radius(opt, delta, snorm, gs, f_new - f, actred, prered);

    const bool accepted = std::isfinite(f_new) && actred > opt.eta0 * prered;
    if (accepted) {
      w.swap(w_new);
      g.swap(g_new);
      obj.accept();
      f = f_new;
      gnorm = norm(g);
      precond(hdiag);
    }
    if (opt.record_history || cb.on_iteration) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.objective = f;
      rec.optimality = gnorm;
      rec.step = accepted ? snorm : 0.0;
      rec.inner_iterations = cg_it;
      rec.radius = delta;
      rec.passes = obj.passes();
      rec.time = elapsed();
      rec.accepted = accepted;
      if (!report_iteration(res, rec, opt.record_history, cb)) {
        res.status = SolverStatus::interrupted;
        break;
      }
    }
    res.status = status_after_step(f, gnorm, stop, gap_tol, actred, prered);
    if (hand_over && !accepted && res.status == SolverStatus::max_iter && iter < opt.max_iter) {
      HandOver from{std::move(res), iter, start, gnorm0};
      return line_search_core(obj, opt, gap_tol, cb, w.data(), &from);
    }
  }
  res.message = gap_stop_message(res.status, f, gnorm, stop, gap_tol);
  finish(res, std::move(w), f, gnorm, iter, obj.passes(), elapsed());
  return res;
}

}  // namespace

// What globalization "auto" resolves to. The smoothed hinges' curvature changes within sigma of
// the margin, so the region's quadratic model fails beyond short steps and the region stays
// small: the line search took 1.1-2.9x less time on six sets of bench/bench_regimes.py (tall
// dense 10000 x 50, sparse 2000 x 50000 and 20000 x 10000, dna, mushrooms, a9a; e.g. dna 267 ->
// 39 Newton steps for psi_M, sparse 20000 x 10000 psi_G 557 -> 190 ms), slower only for psi_G on
// a9a (1.2x). For the squared hinge and the logistic loss the two were mixed (0.4-1.4x: the
// region's boundary ends the early CG runs sooner), so paper 002's region stays; so it does for
// the smoothed epsilon-insensitive loss (the line search 1.0-3.3x slower on five regression sets:
// its trial steps cost two psi_M per sample, and the region needed few more CG steps there).
// The hand-over ("auto", squared hinge and logistic loss): a rejected step means the quadratic
// model failed along a CG direction the region had bounded. The squared hinge's generalized
// Hessian changes wherever a margin crosses 1, and on one-hot data with many ties (mushrooms)
// the region then shrank and stayed small: 72 Newton steps and 323 CG steps where the line
// search, which finds the best length along an unbounded CG step, took 10 and 137 (26 -> 10 ms
// in bench/bench_regimes.py, LIBLINEAR -s 2 5 ms). Where no step is rejected the region's loop
// runs to the end: it was 1.1-1.4x faster than the line search on a9a and covtype, whose early CG
// runs the boundary ends sooner.
bool tron_hands_over_to_line_search(const TronOptions& o, LossKind kind) {
  return o.globalization == "auto" &&
         (kind == LossKind::squared_hinge || kind == LossKind::logistic);
}

bool tron_uses_line_search(const TronOptions& o, LossKind kind) {
  if (o.globalization == "auto")
    return kind == LossKind::smoothed_hinge || kind == LossKind::gaussian_smoothed_hinge;
  return o.globalization == "line_search";
}

HessianForm tron_hessian_form(const std::string& name) {
  if (name == "auto") return HessianForm::automatic;
  if (name == "products") return HessianForm::products;
  if (name == "assembled") return HessianForm::assembled;
  throw_invalid("tron option 'hessian' must be 'auto', 'products' or 'assembled', got '" + name +
                "'");
}

void validate_options(const TronOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_TRON_OPTIONS, "tron", o);
  if (o.tol == 0.0 && o.abs_tol == 0.0 && o.max_iter <= 0)
    throw_invalid("tol, abs_tol and max_iter cannot all be zero");
  if (!(o.eta0 < o.eta1 && o.eta1 < o.eta2))
    throw_invalid("TRON requires 0 <= eta0 < eta1 < eta2 < 1");
  if (!(o.sigma1 < o.sigma2)) throw_invalid("TRON requires 0 < sigma1 < sigma2 < 1 < sigma3");
  tron_hessian_form(o.hessian);
  if (o.globalization != "trust_region" && o.globalization != "line_search" &&
      o.globalization != "auto")
    throw_invalid(
        "tron option 'globalization' must be 'trust_region', 'line_search' or 'auto', got '" +
        o.globalization + "'");
}

namespace {

// TRON on a smooth loss from w_start (null: 0).
template <class View>
SolveResult run_tron(const View& X, const LinearProblem& problem, const LossSpec& loss,
                     const TronOptions& options, const Callbacks& callbacks, const double* w_start,
                     double gap_tol) {
  return visit_loss(loss, [&](const auto& L) {
    LinearObjective<View, std::decay_t<decltype(L)>> obj(X, L, problem, !is_regression(loss.kind),
                                                         options.n_threads);
    obj.set_hessian_form(tron_hessian_form(options.hessian));
    if (tron_uses_line_search(options, loss.kind))
      return line_search_core(obj, options, gap_tol, callbacks, w_start);
    return tron_core(obj, options, gap_tol, callbacks, w_start,
                     tron_hands_over_to_line_search(options, loss.kind));
  });
}

// The band repair of the smoothed dual point. At the optimum beta_i = -cost_i sign(u_i) where
// |u_i| > eps, 0 where |u_i| < eps, and X~' beta = w~ fixes the rest (the samples on the tube's
// edges). The smoothed beta_i misses that last condition by a little on each band sample, and
// with large C or badly scaled features X~' beta then misses w~ by enough to leave a gap of
// 1e-4..1e-3 at a w that is optimal to 1e-7 (near-separable data, features on scales 1-1000,
// C = 100). The repair puts the samples off the band (| |u_i| - eps | > kBandWidth sigma) at
// their exact values and moves the band's by the least-norm delta with X~_S' delta = w~ - X~'
// beta, clipping to the box and solving again for the unclipped ones (kRepairRounds). Only when
// the band's Gram systems are cheap (sum over the rounds of |S| dim^2 <= kRepairFlops: at the
// early, wide stages the band holds most samples and the repair would not pay; near-separable
// 16,000 x 20 spent 50 ms there in 5 rounds against 90 ms for the whole fit). The band's rows
// are read from X in each round, never copied: a dense copy of a 16,000-row band cost 5.6 MB
// of peak memory there, against 1 MB for the whole fit without it. Any repaired point is dual
// feasible, so the gap stays a bound whatever the repair achieves. With a free bias the
// system's bias row asks for s sum_i beta_i = 0 (the dual constraint) instead of = b.
constexpr double kBandWidth = 10.0;
constexpr double kRepairFlops = 1 << 23;
constexpr int kRepairRounds = 5;

struct BandRepair {
  bool repaired = false;
  long long passes = 0;
};

// The two non-differentiable losses the continuation solves, in the dual variable beta
// (X~' beta = w~ at the optimum, D(beta) = beta'y - eps ||beta||_1 - 1/2 ||X~' beta||^2):
//   epsilon_insensitive, u_i = z_i - y_i: |beta_i| <= C_i, kink at |u_i| = eps;
//   hinge (eps = 0), u_i = 1 - y_i z_i: y_i beta_i in [0, C_i] (beta_i = y_i a_i, a the usual
//   dual), kink at u_i = 0.
struct KinkGeometry {
  bool hinge = false;
  double epsilon = 0.0;
  // The distance of u from the kink (its sign: beyond it, in the loss's linear part).
  double beyond(double u) const { return hinge ? u : std::fabs(u) - epsilon; }
  // beta_i off the band: its bound beyond the kink, 0 before it.
  double exact(double u, double y, double c) const {
    if (beyond(u) <= 0.0) return 0.0;
    return hinge ? std::copysign(c, y) : -std::copysign(c, u);
  }
  double lower(double y, double c) const { return hinge ? (y > 0.0 ? 0.0 : -c) : -c; }
  double upper(double y, double c) const { return hinge ? (y > 0.0 ? c : 0.0) : c; }
};

template <class View>
BandRepair repair_on_band(const View& X, const LinearProblem& p, const KinkGeometry& kink,
                          double sigma, const std::vector<double>& w, const std::vector<double>& u,
                          std::vector<double>& beta) {
  BandRepair out;
  const Index n = X.rows, d = X.cols;
  const bool has_b = p.fit_intercept;
  const Index dim = d + (has_b ? 1 : 0);
  const double s = p.intercept_scaling;
  std::vector<Index> band;
  for (Index i = 0; i < n; ++i) {
    const double c = p.cost[i];
    if (!(c > 0.0)) continue;
    if (std::fabs(kink.beyond(u[i])) <= kBandWidth * sigma)
      band.push_back(i);
    else
      beta[i] = kink.exact(u[i], p.y[i], c);
  }
  if (band.empty()) {  // every sample at its exact value
    out.repaired = true;
    return out;
  }
  const double dim2 = static_cast<double>(dim) * static_cast<double>(dim);
  if (static_cast<double>(band.size()) * dim2 > kRepairFlops) return out;
  // The residual w~ - X~' beta (one pass). The band's rows are read from X in each round (no
  // dense copy: the repair's memory is the dim x dim system).
  Eigen::VectorXd r = Eigen::Map<const Eigen::VectorXd>(w.data(), dim);
  if (has_b && !p.regularize_intercept) r(d) = 0.0;  // the constraint s sum beta_i = 0
  for (Index i = 0; i < n; ++i) {
    if (beta[i] == 0.0) continue;
    row_axpy(X, i, -beta[i], r.data());
    if (has_b) r(d) -= beta[i] * s;
  }
  out.passes = 1;
  Eigen::MatrixXd G(dim, dim);
  Eigen::VectorXd step(dim);
  double flops = 0.0;
  for (int round = 0; round < kRepairRounds && !band.empty(); ++round) {
    flops += static_cast<double>(band.size()) * dim2;
    if (round > 0 && flops > kRepairFlops) break;
    // G = X~_S' X~_S over the free band rows S (lower triangle, then mirrored).
    G.setZero();
    for (const Index i : band) {
      for_each_in_row(X, i, [&](Index j, double xj) {
        for_each_in_row(X, i, [&](Index k, double xk) {
          if (k <= j) G(j, k) += xj * xk;
        });
        if (has_b) G(d, j) += s * xj;
      });
      if (has_b) G(d, d) += s * s;
    }
    G.triangularView<Eigen::StrictlyUpper>() = G.transpose();
    // A tiny ridge keeps the solve defined when the band spans fewer than dim directions.
    G.diagonal().array() += 1e-12 * std::max(G.trace() / static_cast<double>(dim), 1e-300);
    step = G.ldlt().solve(r);
    if (!step.allFinite()) return out;
    // delta_i = x~_i . step on each free row, clipped to the box; a clipped row leaves S.
    std::vector<Index> still_free;
    still_free.reserve(band.size());
    for (const Index i : band) {
      const double c = p.cost[i];
      const double b = beta[i] + row_dot(X, i, step.data()) + (has_b ? s * step(d) : 0.0);
      const double bc = std::min(kink.upper(p.y[i], c), std::max(kink.lower(p.y[i], c), b));
      const double moved = bc - beta[i];
      beta[i] = bc;
      row_axpy(X, i, -moved, r.data());
      if (has_b) r(d) -= moved * s;
      if (bc == b) still_free.push_back(i);
    }
    const bool clipped = still_free.size() < band.size();
    band.swap(still_free);
    if (!clipped) break;
  }
  out.repaired = true;
  return out;
}

// The epsilon-insensitive loss max(0, |u| - eps) (LinearSVR's default) is not differentiable;
// TRON solves it (and the hinge, below) by a smoothing continuation, as l1_cd does the l1 hinge.
// Each stage minimizes the primal with psi_M(u - eps) + psi_M(-u - eps)
// (smoothed_epsilon_insensitive) for sigma = sigma0, sigma0 / 10, ... (less near tol:
// continuation_smoothing_factor, tron.hpp), warm started from the last
// stage and run to kStageTol * tol (a loose stage leaves a poor dual point: near-separable data
// with features on scales 1-1000 took 12 stages at tol, 5 at tol / 100). After each stage
// beta_i = -cost_i L_sigma'(u_i) (|beta_i| <= cost_i) is a point of the exact problem's dual
//   D(beta) = -1/2 ||X~' beta||^2 + beta'y - eps ||beta||_1,
// scaled by the t in [0, 1] that maximizes D(t beta) (two passes); when that leaves a gap above
// tol, also the point repaired on the tube's band (repair_on_band, two more passes). The run
// ends (converged) once (P(w) - D) / P(w) <= tol: the objective is certified within tol. sigma0 is
// 0.1 times the standard deviation of y (the residuals' scale). A stage whose gap is not
// below the last one's goes on at its sigma with a 100x tighter stage tol (at most
// kStageRetries times in a run: near-separable data with features on scales 1-1000 need it
// at sigma = 1e-3 sigma0); after that, or below kMinSmoothing * sigma0, the run ends
// uncertified (max_iter) at the point of smallest gap (the Newton systems grow
// ill-conditioned as 1 / sigma: measured from sigma ~ 1e-8 sigma0 on). An unregularized intercept
// adds the dual constraint sum beta_i = 0, which the smoothed point meets only to the stage's
// tolerance: the dual value balances it first (balance_free_bias), and the band repair asks for it.
// Measured (regime matrix, LinearSVR() at tol 1e-4): tall dense 80,000 x 50 0.32 s against
// dual_cd's 12 s at max_iter (whose objective was 0.6% higher); wide sparse data keep dual_cd
// (1,600 x 50,000: 8 ms against 0.5 s). Near-separable 16,000 x 20 (scales 1-1000, C = 100 and
// 1000): without the band repair 0.19 / 0.09 s ending uncertified (gap 2e-4 / 1.2e-4, status
// max_iter); with it 0.055 / 0.052 s, certified at 5.7e-6 after 4 stages.
// The hinge loss (LinearSVC(loss="hinge"), penalty l2) runs the same continuation over psi_M
// (smoothed_hinge), sigma0 = 0.1, with the dual in beta_i = y_i a_i (KinkGeometry). Measured at
// tol 1e-4: near-separable 16,000 x 20 (scales 1-1000, C = 100) certified at 4.6e-6 in 0.06 s
// where SmSVM took 0.16 s and stopped 5.9e-4 above the optimum; dense 200,000 x 50 0.38 s
// against SmSVM's 2.2 s (the auto rule: svmkit/_solvers.py, HINGE_TRON_MIN_SAMPLES).
constexpr double kStageTol = 1e-2;
// A stage's run does not stop on its smoothed problem's gap (tron_stop_rule), only on the gradient
// rule at kStageTol * tol. With the gap stop (at 1e-6 for tol 1e-4) the hinge continuation took
// 0.30 -> 0.21 s on sparse 16,000 x 10,000 and 121 -> 94 ms on dna.scale, 140 -> 131 ms on dense
// 100,000 x 50 (same certified objectives), but a stage then ends about 1e-6 from its smoothed
// optimum, and svmkit.dask's continuation, whose sigma steps differ from the in-memory ones by
// the reduction order (1e-5 relative), ended 5e-8 apart from the in-memory fit where the
// distributed fit must agree to 1e-8 (tests/test_dask.py).
constexpr double kStageGapTol = 0.0;
constexpr double kMinSmoothing = 1e-9;
constexpr int kStageRetries = 2;

// sigma0 of the continuation: 0.1 (the hinge's margins are on the scale 1), or for the
// epsilon-insensitive loss 0.1 times the standard deviation of y (the residuals' scale).
double initial_smoothing(const LinearProblem& p, const KinkGeometry& kink) {
  if (kink.hinge) return 0.1;
  const Index n = rows_of(p.X);
  double sum = 0.0, sum2 = 0.0, count = 0.0;
  for (Index i = 0; i < n; ++i) {
    if (!(p.cost[i] > 0.0)) continue;
    sum += p.y[i];
    sum2 += p.y[i] * p.y[i];
    count += 1.0;
  }
  const double mean = count > 0.0 ? sum / count : 0.0;
  const double spread = count > 0.0 ? std::sqrt(std::max(sum2 / count - mean * mean, 0.0)) : 0.0;
  return spread > 0.0 ? 0.1 * spread : 0.1;
}

// At a stage's end: u_i into z (1 - y_i z_i for the hinge, z_i - y_i otherwise), the smoothed
// dual point beta_i = -cost_i L_sigma'(.) (in beta_i = y_i a_i for the hinge) and the exact
// loss sum_i cost_i loss(u_i) (one pass).
template <class View>
double stage_end_point(const View& X, const LinearProblem& p, const KinkGeometry& kink,
                       double sigma, const std::vector<double>& w, int threads,
                       std::vector<double>& z, std::vector<double>& beta) {
  const Index n = X.rows, d = X.cols;
  matvec(X, w.data(), z.data(), threads);
  const double bs = p.fit_intercept ? w[static_cast<std::size_t>(d)] * p.intercept_scaling : 0.0;
  double loss_sum = 0.0;
  if (kink.hinge) {
    const SmoothedHingeLoss L{sigma};
    for (Index i = 0; i < n; ++i) {
      const double yz = p.y[i] * (z[i] + bs);
      z[i] = 1.0 - yz;
      loss_sum += p.cost[i] * std::max(0.0, z[i]);
      beta[i] = -p.y[i] * p.cost[i] * L.d1(yz);
    }
  } else {
    const SmoothedEpsilonInsensitiveLoss L{kink.epsilon, sigma};
    for (Index i = 0; i < n; ++i) {
      z[i] += bs - p.y[i];
      loss_sum += p.cost[i] * std::max(0.0, std::fabs(z[i]) - kink.epsilon);
      beta[i] = -p.cost[i] * L.d1(z[i]);
    }
  }
  return loss_sum;
}

template <class View>
SolveResult kink_continuation(const View& X, const LinearProblem& p, const LossSpec& loss,
                              const TronOptions& options, const Callbacks& cb, const double* w0) {
  const auto start = Clock::now();
  const Index n = X.rows, d = X.cols;
  const std::size_t dim = static_cast<std::size_t>(d + (p.fit_intercept ? 1 : 0));
  const bool reg_b = p.fit_intercept && p.regularize_intercept;
  KinkGeometry kink;
  kink.hinge = loss.kind == LossKind::hinge;
  kink.epsilon = kink.hinge ? 0.0 : loss.epsilon;
  const double sigma0 = initial_smoothing(p, kink);

  SolveResult res;
  std::vector<double> w(dim, 0.0), z(static_cast<std::size_t>(n)), beta(z.size()), v(dim);
  if (w0) std::copy(w0, w0 + dim, w.begin());
  ReductionBuffers buf;
  const int threads = resolve_threads(options.n_threads);
  LossSpec smooth = loss;
  smooth.kind = kink.hinge ? LossKind::smoothed_hinge : LossKind::smoothed_epsilon_insensitive;
  TronOptions stage = options;
  stage.tol = options.tol * kStageTol;
  stage.record_history = false;
  long long passes = 0;
  double sigma = sigma0;
  Callbacks stage_cb;
  stage_cb.interrupted = cb.interrupted;
  stage_cb.on_iteration = [&](const IterationRecord& rec) {
    IterationRecord r = rec;
    r.iteration += res.iterations;
    r.passes += passes;
    r.smoothing = sigma;
    r.time = std::chrono::duration<double>(Clock::now() - start).count();
    return report_iteration(res, r, options.record_history, cb);
  };
  res.status = SolverStatus::max_iter;
  SolveResult best;  // the stage end of smallest gap so far
  best.optimality = std::numeric_limits<double>::infinity();
  int retries = 0;
  for (bool first = true;; first = false) {
    // max_iter bounds the Newton steps of all stages (0: a single evaluation of the start).
    stage.max_iter = options.max_iter - res.iterations;
    if (stage.max_iter <= 0 && !first) break;
    smooth.sigma = sigma;
    SolveResult r = run_tron(X, p, smooth, stage, stage_cb, w.data(), kStageGapTol);
    w = std::move(r.solution);
    res.iterations += r.iterations;
    res.inner_iterations += r.inner_iterations;
    passes += r.passes;
    if (r.status == SolverStatus::interrupted || r.status == SolverStatus::numerical_error) {
      res.status = r.status;
      break;
    }
    // The exact objective and the dual point: the smoothed one, and the one repaired on the
    // kink's band (two to four passes).
    const double loss_sum = stage_end_point(X, p, kink, sigma, w, threads, z, beta);
    double reg = 0.0;
    for (std::size_t j = 0; j < dim; ++j)
      if (static_cast<Index>(j) < d || reg_b) reg += w[j] * w[j];
    res.objective = 0.5 * reg + loss_sum;
    double dual = scaled_dual_value(X, p, kink.epsilon, beta, v, threads, buf);
    passes += 2;
    if (res.objective - dual > options.tol * res.objective) {
      const BandRepair rep = repair_on_band(X, p, kink, sigma, w, z, beta);
      passes += rep.passes;
      if (rep.repaired) {
        dual = std::max(dual, scaled_dual_value(X, p, kink.epsilon, beta, v, threads, buf));
        passes += 1;
      }
    }
    res.optimality = std::max(res.objective - dual, 0.0) / std::max(res.objective, 1e-300);
    if (options.record_history && !res.history.empty()) res.history.back().gap = res.optimality;
    if (!std::isfinite(res.objective)) {
      res.status = SolverStatus::numerical_error;
      break;
    }
    if (res.optimality <= options.tol) {
      res.status = SolverStatus::converged;
      break;
    }
    if (res.optimality >= best.optimality && retries < kStageRetries) {
      // The stage ended too early for its dual point (its tol is relative to ||grad F(0)||,
      // loose on badly scaled data): it goes on from here, at this sigma, 100x tighter.
      ++retries;
      stage.tol *= 1e-2;
      continue;
    }
    if (res.optimality >= best.optimality) {
      // A smaller sigma no longer helps (the stage's Newton systems grow as ill-conditioned as
      // 1 / sigma): the run ends uncertified at the best certified point.
      w = std::move(best.solution);
      res.objective = best.objective;
      res.optimality = best.optimality;
      break;
    }
    best.solution = w;
    best.objective = res.objective;
    best.optimality = res.optimality;
    sigma /= continuation_smoothing_factor(res.optimality, options.tol);
    if (sigma < kMinSmoothing * sigma0) break;
  }
  res.solution = std::move(w);
  res.passes = passes;
  res.time = std::chrono::duration<double>(Clock::now() - start).count();
  return res;
}

}  // namespace

std::string tron_gap_stop_message(double f, double gnorm, double stop, double gap_tol) {
  if (gnorm <= stop || !(f > 0.0)) return {};
  const std::string rule = stop > 0.0 ? "the gradient rule asked ||g|| <= " + short_number(stop)
                                      : "for this loss the gap alone decides";
  return "tron: stopped by the relative duality gap ||g||^2 / (2 F) = " +
         short_number(0.5 * gnorm * gnorm / f) + " <= " + short_number(gap_tol) +
         " (F is 1-strongly convex; " + rule + ")";
}

// TRON's tol bounds the gradient relative to its value at 0, so a tight tol asks for the
// coefficients, and a relative gap g leaves them only about sqrt(g) accurate: at tol 1e-6 the
// gap stop left LinearSVC(loss="logistic")'s probabilities 4e-5 from LIBLINEAR's on wine
// (tests/test_liblinear_probability.py). The gap stops TRON only from tol 1e-5 on.
constexpr double kTronGapMinTol = 1e-5;

TronStopRule tron_stop_rule(double tol, bool gap_stop, LossKind kind, bool free_bias) {
  TronStopRule rule;
  rule.gap_tol = !gap_stop || free_bias || tol < kTronGapMinTol ? 0.0 : detail::gap_stop_tol(tol);
  const bool smoothed_hinge =
      kind == LossKind::smoothed_hinge || kind == LossKind::gaussian_smoothed_hinge;
  rule.gradient_tol = smoothed_hinge && rule.gap_tol > 0.0 ? 0.0 : tol;
  return rule;
}

double continuation_smoothing_factor(double gap, double tol) {
  if (!(gap > 0.0) || !(tol > 0.0)) return kContinuationFactor;
  return std::clamp(2.0 * gap / tol, kContinuationMinFactor, kContinuationFactor);
}

SolveResult solve_tron(const LinearProblem& problem, const LossSpec& loss,
                       const TronOptions& options, const Callbacks& callbacks, const double* w0) {
  validate_options(options);
  validate_problem(problem, loss, options.check_input);
  const bool kinked = loss.kind == LossKind::epsilon_insensitive || loss.kind == LossKind::hinge;
  const auto solve = [&](const auto& X, const double* w_start) {
    using View = std::decay_t<decltype(X)>;
    if (kinked) return kink_continuation<View>(X, problem, loss, options, callbacks, w_start);
    const bool free_bias = problem.fit_intercept && !problem.regularize_intercept;
    const TronStopRule rule = tron_stop_rule(options.tol, options.gap_stop, loss.kind, free_bias);
    TronOptions run = options;
    run.tol = rule.gradient_tol;
    return run_tron<View>(X, problem, loss, run, callbacks, w_start, rule.gap_tol);
  };
  return std::visit(
      [&](const auto& X) {
        return detail::solve_on_kept_columns(X, w0, problem.fit_intercept ? 1 : 0, solve);
      },
      problem.X);
}

}  // namespace svmkit
