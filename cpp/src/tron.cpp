// TRON (see solvers/tron.hpp for the problem, the method and the stopping rule).
#include "svmkit/solvers/tron.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "svmkit/objective.hpp"

namespace svmkit {
namespace {

using Clock = std::chrono::steady_clock;

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
                          bool* interrupted) {
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

// The status after a step: max_iter while the iteration goes on.
SolverStatus status_after_step(double f, double gnorm, double stop, double actred, double prered) {
  if (!std::isfinite(f) || !std::isfinite(gnorm)) return SolverStatus::numerical_error;
  if (gnorm <= stop) return SolverStatus::converged;
  if (f < -1.0e32) return SolverStatus::numerical_error;
  // No decrease is possible any more: the model and the function agree to rounding.
  if ((std::fabs(actred) <= 0.0 && prered <= 0.0) ||
      (std::fabs(actred) <= 1e-12 * std::fabs(f) && std::fabs(prered) <= 1e-12 * std::fabs(f)))
    return SolverStatus::line_search_failed;
  return SolverStatus::max_iter;
}

template <class Obj>
SolveResult tron_core(Obj& obj, const TronOptions& opt, const Callbacks& cb, const double* w0) {
  const auto start = Clock::now();
  const auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - start).count(); };
  const std::size_t n = static_cast<std::size_t>(obj.dim());
  SolveResult res;
  std::vector<double> w(n, 0.0), g(n), hdiag(n), m(n, 1.0), s(n), r(n), w_new(n), g_new(n),
      hdiag_new(n);

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
  } else if (gnorm <= stop) {
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
    const double f_new = obj.fun_grad(w_new.data(), g_new.data(), hdiag_new.data());
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
      hdiag.swap(hdiag_new);
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
    res.status = status_after_step(f, gnorm, stop, actred, prered);
  }
  res.solution = std::move(w);
  res.objective = f;
  res.optimality = gnorm;
  res.iterations = iter;
  res.passes = obj.passes();
  res.time = elapsed();
  return res;
}

}  // namespace

void validate_options(const TronOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_TRON_OPTIONS, "tron", o);
  if (o.tol == 0.0 && o.abs_tol == 0.0 && o.max_iter <= 0)
    throw_invalid("tol, abs_tol and max_iter cannot all be zero");
  if (!(o.eta0 < o.eta1 && o.eta1 < o.eta2))
    throw_invalid("TRON requires 0 <= eta0 < eta1 < eta2 < 1");
  if (!(o.sigma1 < o.sigma2)) throw_invalid("TRON requires 0 < sigma1 < sigma2 < 1 < sigma3");
}

SolveResult solve_tron(const LinearProblem& problem, const LossSpec& loss,
                       const TronOptions& options, const Callbacks& callbacks, const double* w0) {
  validate_options(options);
  validate_problem(problem, loss, options.check_input);
  if (!is_smooth(loss.kind))
    throw_invalid(std::string("TRON needs a twice differentiable loss; '") + to_string(loss.kind) +
                  "' is not (use the smsvm or sgd solver)");
  const bool classification = !is_regression(loss.kind);
  return std::visit(
      [&](const auto& X) {
        return visit_loss(loss, [&](const auto& L) {
          LinearObjective<std::decay_t<decltype(X)>, std::decay_t<decltype(L)>> obj(
              X, L, problem, classification, options.n_threads);
          return tron_core(obj, options, callbacks, w0);
        });
      },
      problem.X);
}

}  // namespace svmkit
