// ipm: Mehrotra's predictor-corrector interior-point method for the hinge-loss linear SVM with
// few features (solvers/ipm.hpp states the problem, the method and the stopping rule).
//
// Notation (ipm.hpp's smooth form): per sample i (rows of positive cost) the hinge slack xi_i
// with multiplier zA_i, the margin slack sB_i = y_i (w.x_i + b s) + xi_i - 1 with multiplier
// zB_i; per feature j (l1 > 0) t_j with the slacks sC_j = t_j - w_j, sD_j = t_j + w_j and their
// multipliers zC_j, zD_j. Every constraint but the margin rows starts feasible and stays so (their
// Newton equations are linear and exact), so only the margin residual rB is carried.
#include "svmkit/solvers/ipm.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

#include "hinge_certificate.hpp"
#include "svmkit/data.hpp"
#include "svmkit/detail/assembled_hessian.hpp"
#include "svmkit/detail/parallel.hpp"

namespace svmkit {
namespace {

// Ridge added to a system that Cholesky rejects, relative to its largest diagonal entry (near
// the optimum the weights D_i span 30 orders of magnitude), then grown 100x per retry.
constexpr double kFirstRidge = 1e-13;
constexpr int kRidgeRetries = 4;
// Most row chunks forming the system, each with its own m x m partial sum (max_system_mb).
constexpr int kMaxGramChunks = 4;

// One Newton direction (ipm.hpp's variables and slacks).
// Per sample only the slacks' changes are kept (16 bytes a sample): the multipliers' follow from
// them and the complementarity targets rc (Ipm::dzA, Ipm::dzB), which keeps a tall fit's memory
// at 10 doubles a sample.
struct Direction {
  std::vector<double> dw, dt, dsC, dsD, dzC, dzD;  // per feature (dt.. only with l1 > 0)
  std::vector<double> dxi, dsB;                    // per sample
  double db = 0.0;
  void resize(Index n, Index d, bool l1) {
    dw.assign(static_cast<std::size_t>(d), 0.0);
    for (auto* v : {&dt, &dsC, &dsD, &dzC, &dzD})
      v->assign(l1 ? static_cast<std::size_t>(d) : 0, 0.0);
    for (auto* v : {&dxi, &dsB}) v->assign(static_cast<std::size_t>(n), 0.0);
  }
};

// The largest a in (0, 1] with v + a dv >= 0 (entries i with keep(i) only).
template <class Keep>
double max_step(const std::vector<double>& v, const std::vector<double>& dv, Keep&& keep,
                double a) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (dv[i] < 0.0 && keep(i)) a = std::min(a, -v[i] / dv[i]);
  return a;
}

template <class V>
class Ipm {
 public:
  Ipm(const V& X, const LinearProblem& p, const IpmPenalty& pen, const IpmOptions& opt,
      const Callbacks& cb)
      : X_(X),
        p_(p),
        pen_(pen),
        opt_(opt),
        cb_(cb),
        n_(X.rows),
        d_(X.cols),
        nb_(p.fit_intercept ? 1 : 0),
        m_(X.cols + (p.fit_intercept ? 1 : 0)),
        l1_(pen.l1 > 0.0),
        bias_pen_(p.fit_intercept && p.regularize_intercept && pen.l2 > 0.0 ? pen.l2 : 0.0),
        s_(p.intercept_scaling),
        threads_(resolve_threads(opt.n_threads)) {}

  SolveResult run();

 private:
  bool active(std::size_t i) const { return p_.cost[i] > 0.0; }
  // The multipliers' changes of sample k in direction dir (solved for the targets rcA_, rcB_).
  double dzA(std::size_t k, const Direction& dir) const {
    return -(zA_[k] * dir.dxi[k] + rcA_[k]) / xi_[k];
  }
  double dzB(std::size_t k, const Direction& dir) const {
    return -(zB_[k] * dir.dsB[k] + rcB_[k]) / sB_[k];
  }
  void residuals();
  double certificate(double* primal);
  bool factor();
  void solve(Direction& dir);
  void step_lengths(const Direction& dir, double* ap, double* ad) const;
  void start();
  double complementarity() const;
  double predictor_corrector(double mu);

  const V& X_;
  const LinearProblem& p_;
  const IpmPenalty& pen_;
  const IpmOptions& opt_;
  const Callbacks& cb_;
  const Index n_, d_, nb_, m_;
  const bool l1_;
  const double bias_pen_, s_;
  const int threads_;
  long long passes_ = 0;

  std::vector<double> w_, t_, zC_, zD_;    // per feature
  std::vector<double> xi_, sB_, zA_, zB_;  // per sample
  double b_ = 0.0;
  // The margin residual, w's dual residual and a per-feature scratch vector (X'v). dual_.a
  // doubles as the per-sample scratch of the passes (its certificate values are set where used).
  std::vector<double> rB_, rw_, a_;
  double rb_ = 0.0;
  Eigen::MatrixXd K_;  // the normal-equation system (its upper triangle)
  Eigen::LLT<Eigen::MatrixXd, Eigen::Upper> llt_;  // reads K_'s upper triangle
  ReductionBuffers rbuf_, gbuf_;
  hinge_cert::HingeDualPoint dual_;
  Direction dir_;                              // the predictor's, then (over it) the corrector's
  std::vector<double> rcA_, rcB_, rcC_, rcD_;  // complementarity targets of a Newton solve
  double pairs_ = 0.0;                         // number of complementary pairs
};

// Residuals at the current point: rB (margins), rw_ and rb_ (stationarity in w and b).
template <class V>
void Ipm<V>::residuals() {
  matvec(X_, w_.data(), dual_.a.data(), threads_);
  ++passes_;
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    rB_[k] = active(k) ? p_.y[i] * (dual_.a[k] + s_ * b_) + xi_[k] - 1.0 - sB_[k] : 0.0;
    dual_.a[k] = active(k) ? p_.y[i] * zB_[k] : 0.0;
  }
  rmatvec(X_, dual_.a.data(), rw_.data(), threads_, rbuf_);
  ++passes_;
  for (Index j = 0; j < d_; ++j) {
    const auto k = static_cast<std::size_t>(j);
    rw_[k] = pen_.l2 * w_[k] - rw_[k] + (l1_ ? zC_[k] - zD_[k] : 0.0);
  }
  double yz = 0.0;
  for (Index i = 0; i < n_; ++i) yz += dual_.a[static_cast<std::size_t>(i)];
  rb_ = bias_pen_ * b_ - s_ * yz;
}

// The relative duality gap at (w, b) and the multipliers zB (hinge_certificate.hpp's dual value
// of a = zB clipped into the box, made feasible by scaling); *primal = F(w, b). The margins
// y_i (w.x_i + b s) come from rB_ (residuals() of this point).
template <class V>
double Ipm<V>::certificate(double* primal) {
  double loss = 0.0;
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) {
      dual_.a[k] = 0.0;
      continue;
    }
    loss += p_.cost[i] * std::max(0.0, xi_[k] - sB_[k] - rB_[k]);  // 1 - margin
    dual_.a[k] = std::clamp(zB_[k], 0.0, p_.cost[i]);
  }
  double pen = 0.0;
  for (Index j = 0; j < d_; ++j) {
    const double v = w_[static_cast<std::size_t>(j)];
    pen += pen_.l1 * std::fabs(v) + 0.5 * pen_.l2 * v * v;
  }
  pen += 0.5 * bias_pen_ * b_ * b_;
  *primal = pen + loss;
  hinge_cert::hinge_residual(X_, p_, dual_);
  ++passes_;
  const double dual = hinge_cert::hinge_dual_value(X_, p_, pen_, bias_pen_ > 0.0, dual_);
  return *primal > 0.0 ? (*primal - dual) / *primal : 0.0;
}

// Forms and factors K = [X, s 1]' D [X, s 1] + diag(l2 + E, bias penalty); false when Cholesky
// fails even with kRidgeRetries growing ridges.
template <class V>
bool Ipm<V>::factor() {
  K_.setZero();
  const auto weight = [&](Index i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) return 0.0;
    const double wa = zA_[k] / xi_[k], wb = zB_[k] / sB_[k];
    return wa * wb / (wa + wb);
  };
  Index entries = stored_entries(X_);
  if constexpr (!is_csr_view<V>::value) entries = n_ * m_;  // a dense row's rank-1 update: m
  // Row chunks as every other pass (deterministic for a fixed thread count), each with its own
  // m x m buffer (bounded by max_system_mb, checked in solve_ipm).
  const double work = static_cast<double>(entries) * static_cast<double>(m_) / 2.0;
  const Index by_work = std::max<Index>(1, static_cast<Index>(work) / kEntriesPerChunk);
  const int chunks = static_cast<int>(
      std::min<Index>({by_work, reduction_chunks(n_, threads_), Index{kMaxGramChunks}}));
  detail::add_weighted_gram(
      X_, n_, [](Index k) { return k; }, weight, p_.fit_intercept, s_, chunks, threads_, gbuf_,
      K_.data());
  ++passes_;
  for (Index j = 0; j < d_; ++j) {
    const auto k = static_cast<std::size_t>(j);
    double e = 0.0;
    if (l1_) {
      const double wc = zC_[k] / (t_[k] - w_[k]), wd = zD_[k] / (t_[k] + w_[k]);
      e = 4.0 * wc * wd / (wc + wd);
    }
    K_(j, j) += pen_.l2 + e;
  }
  if (nb_) K_(d_, d_) += bias_pen_;
  double ridge = kFirstRidge * K_.diagonal().maxCoeff();
  for (int attempt = 0; attempt <= kRidgeRetries; ++attempt) {
    llt_.compute(K_);
    if (llt_.info() == Eigen::Success) return true;
    K_.diagonal().array() += ridge;
    ridge *= 100.0;
  }
  return false;
}

// The Newton direction for the complementarity targets rc (s z - target per constraint):
// ipm.hpp's normal equations, with xi and t eliminated.
template <class V>
void Ipm<V>::solve(Direction& dir) {
  const auto &rcA = rcA_, &rcB = rcB_, &rcC = rcC_, &rcD = rcD_;
  Eigen::VectorXd rhs(m_);
  // Per sample: g_xi = -(r_xi) - qA - qB with r_xi = cost - zA - zB, folded into v.
  double vsum = 0.0;
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) {
      dual_.a[k] = 0.0;
      continue;
    }
    const double wa = zA_[k] / xi_[k], wb = zB_[k] / sB_[k];
    const double qa = rcA[k] / xi_[k], qb = wb * rB_[k] + rcB[k] / sB_[k];
    const double gxi = -(p_.cost[i] - zA_[k] - zB_[k]) - qa - qb;
    dir.dxi[k] = gxi;  // kept for the back substitution
    dual_.a[k] = p_.y[i] * (qb + wb / (wa + wb) * gxi);
    vsum += dual_.a[k];
  }
  rmatvec(X_, dual_.a.data(), a_.data(), threads_, rbuf_);  // a_ as scratch: X' v
  ++passes_;
  for (Index j = 0; j < d_; ++j) {
    const auto k = static_cast<std::size_t>(j);
    double r = -rw_[k] - a_[k];
    if (l1_) {
      const double sc = t_[k] - w_[k], sd = t_[k] + w_[k];
      const double wc = zC_[k] / sc, wd = zD_[k] / sd;
      const double qc = rcC[k] / sc, qd = rcD[k] / sd;
      const double gt = -(pen_.l1 - zC_[k] - zD_[k]) - qc - qd;
      dir.dt[k] = gt;
      r += qc - qd - (wd - wc) / (wc + wd) * gt;
    }
    rhs[j] = r;
  }
  if (nb_) rhs[d_] = -rb_ - s_ * vsum;
  const Eigen::VectorXd sol = llt_.solve(rhs);
  for (Index j = 0; j < d_; ++j) dir.dw[static_cast<std::size_t>(j)] = sol[j];
  dir.db = nb_ ? sol[d_] : 0.0;
  matvec(X_, dir.dw.data(), dual_.a.data(), threads_);  // x_i.dw
  ++passes_;
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) {
      dir.dxi[k] = dir.dsB[k] = 0.0;
      continue;
    }
    const double wa = zA_[k] / xi_[k], wb = zB_[k] / sB_[k];
    const double mdir = p_.y[i] * (dual_.a[k] + s_ * dir.db);
    const double dxi = (dir.dxi[k] - wb * mdir) / (wa + wb);
    dir.dxi[k] = dxi;
    dir.dsB[k] = rB_[k] + mdir + dxi;
  }
  if (l1_) {
    for (Index j = 0; j < d_; ++j) {
      const auto k = static_cast<std::size_t>(j);
      const double sc = t_[k] - w_[k], sd = t_[k] + w_[k];
      const double wc = zC_[k] / sc, wd = zD_[k] / sd;
      const double dt = (dir.dt[k] - (wd - wc) * dir.dw[k]) / (wc + wd);
      dir.dt[k] = dt;
      dir.dsC[k] = dt - dir.dw[k];
      dir.dsD[k] = dt + dir.dw[k];
      dir.dzC[k] = -wc * dir.dsC[k] - rcC[k] / sc;
      dir.dzD[k] = -wd * dir.dsD[k] - rcD[k] / sd;
    }
  }
}

// The longest steps (at most 1) keeping the slacks (ap) and the multipliers (ad) nonnegative.
template <class V>
void Ipm<V>::step_lengths(const Direction& dir, double* ap, double* ad) const {
  const auto on = [&](std::size_t i) { return active(i); };
  const auto all = [](std::size_t) { return true; };
  double a = max_step(xi_, dir.dxi, on, 1.0);
  a = max_step(sB_, dir.dsB, on, a);
  double z = 1.0;
  for (std::size_t k = 0; k < zA_.size(); ++k) {
    if (!active(k)) continue;
    const double da = dzA(k, dir), db = dzB(k, dir);
    if (da < 0.0) z = std::min(z, -zA_[k] / da);
    if (db < 0.0) z = std::min(z, -zB_[k] / db);
  }
  if (l1_) {
    for (Index j = 0; j < d_; ++j) {
      const auto k = static_cast<std::size_t>(j);
      const double sc = t_[k] - w_[k], sd = t_[k] + w_[k];
      if (dir.dsC[k] < 0.0) a = std::min(a, -sc / dir.dsC[k]);
      if (dir.dsD[k] < 0.0) a = std::min(a, -sd / dir.dsD[k]);
    }
    z = max_step(zC_, dir.dzC, all, z);
    z = max_step(zD_, dir.dzD, all, z);
  }
  *ap = a;
  *ad = z;
}

// The starting point (ipm.hpp) and the work vectors.
template <class V>
void Ipm<V>::start() {
  const auto nz = static_cast<std::size_t>(n_), dz = static_cast<std::size_t>(d_);
  const std::size_t dl = l1_ ? dz : 0;
  w_.assign(dz, 0.0);
  t_.assign(dl, 1.0);
  zC_.assign(dl, 0.5 * pen_.l1);
  zD_.assign(dl, 0.5 * pen_.l1);
  xi_.assign(nz, 1.0);
  sB_.assign(nz, 1.0);
  zA_.resize(nz);
  zB_.resize(nz);
  Index n_active = 0;
  for (Index i = 0; i < n_; ++i) {
    zA_[static_cast<std::size_t>(i)] = zB_[static_cast<std::size_t>(i)] = 0.5 * p_.cost[i];
    n_active += p_.cost[i] > 0.0;
  }
  rB_.assign(nz, 0.0);
  a_.assign(dz, 0.0);
  rw_.assign(dz, 0.0);
  K_.resize(m_, m_);
  dual_.a.assign(nz, 0.0);
  dual_.rpos.assign(dz, 0.0);
  dual_.rneg.assign(dz, 0.0);
  dir_.resize(n_, d_, l1_);
  rcA_.assign(nz, 0.0);
  rcB_.assign(nz, 0.0);
  rcC_.assign(dl, 0.0);
  rcD_.assign(dl, 0.0);
  pairs_ = static_cast<double>(2 * n_active + 2 * static_cast<Index>(dl));
}

// mu: the mean complementarity product.
template <class V>
double Ipm<V>::complementarity() const {
  double s = 0.0;
  for (std::size_t i = 0; i < xi_.size(); ++i)
    if (active(i)) s += xi_[i] * zA_[i] + sB_[i] * zB_[i];
  for (std::size_t j = 0; j < t_.size(); ++j)
    s += (t_[j] - w_[j]) * zC_[j] + (t_[j] + w_[j]) * zD_[j];
  return s / pairs_;
}

// One step of Mehrotra's method from a factored system: the affine predictor (complementarity
// target 0), the centring sigma = (mu_aff / mu)^3, the corrector with the predictor's
// second-order term, and the move. Returns the primal step length.
template <class V>
double Ipm<V>::predictor_corrector(double mu) {
  const std::size_t nz = xi_.size(), dl = t_.size();
  for (std::size_t i = 0; i < nz; ++i) {
    rcA_[i] = xi_[i] * zA_[i];
    rcB_[i] = sB_[i] * zB_[i];
  }
  for (std::size_t j = 0; j < dl; ++j) {
    rcC_[j] = (t_[j] - w_[j]) * zC_[j];
    rcD_[j] = (t_[j] + w_[j]) * zD_[j];
  }
  solve(dir_);
  double ap = 0.0, ad = 0.0;
  step_lengths(dir_, &ap, &ad);
  double aff = 0.0;
  for (std::size_t i = 0; i < nz; ++i)
    if (active(i))
      aff += (xi_[i] + ap * dir_.dxi[i]) * (zA_[i] + ad * dzA(i, dir_)) +
             (sB_[i] + ap * dir_.dsB[i]) * (zB_[i] + ad * dzB(i, dir_));
  for (std::size_t j = 0; j < dl; ++j)
    aff += (t_[j] - w_[j] + ap * dir_.dsC[j]) * (zC_[j] + ad * dir_.dzC[j]) +
           (t_[j] + w_[j] + ap * dir_.dsD[j]) * (zD_[j] + ad * dir_.dzD[j]);
  const double ratio = aff / pairs_ / mu;
  const double centre = std::clamp(ratio * ratio * ratio, 0.0, 1.0) * mu;
  // The corrector's targets (the predictor's multipliers are read before rc changes).
  for (std::size_t i = 0; i < nz; ++i) {
    const double da = dzA(i, dir_), db = dzB(i, dir_);
    rcA_[i] += dir_.dxi[i] * da - centre;
    rcB_[i] += dir_.dsB[i] * db - centre;
  }
  for (std::size_t j = 0; j < dl; ++j) {
    rcC_[j] += dir_.dsC[j] * dir_.dzC[j] - centre;
    rcD_[j] += dir_.dsD[j] * dir_.dzD[j] - centre;
  }
  solve(dir_);
  step_lengths(dir_, &ap, &ad);
  ap *= opt_.step_fraction;
  ad *= opt_.step_fraction;
  if (pen_.l2 > 0.0) ap = ad = std::min(ap, ad);  // a quadratic program couples w and z
  for (std::size_t j = 0; j < w_.size(); ++j) w_[j] += ap * dir_.dw[j];
  b_ += ap * dir_.db;
  for (std::size_t i = 0; i < nz; ++i) {
    if (!active(i)) continue;
    const double da = dzA(i, dir_), db = dzB(i, dir_);  // before the slacks move
    xi_[i] += ap * dir_.dxi[i];
    sB_[i] += ap * dir_.dsB[i];
    zA_[i] += ad * da;
    zB_[i] += ad * db;
  }
  for (std::size_t j = 0; j < dl; ++j) {
    t_[j] += ap * dir_.dt[j];
    zC_[j] += ad * dir_.dzC[j];
    zD_[j] += ad * dir_.dzD[j];
  }
  return ap;
}

template <class V>
SolveResult Ipm<V>::run() {
  const auto t0 = std::chrono::steady_clock::now();
  const auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  start();
  SolveResult res;
  res.status = SolverStatus::max_iter;
  double primal = kNaN;
  residuals();
  double gap = certificate(&primal);
  for (long long it = 1;; ++it) {
    const double mu = complementarity();
    if (!std::isfinite(primal) || !std::isfinite(gap) || !std::isfinite(mu)) {
      res.status = SolverStatus::numerical_error;
      res.message = "ipm: a non-finite objective, duality gap or complementarity appeared";
      break;
    }
    if (gap <= opt_.tol) {
      res.status = SolverStatus::converged;
      break;
    }
    if (it > opt_.max_iter) break;
    if (cb_.poll()) {
      res.status = SolverStatus::interrupted;
      break;
    }
    if (!factor()) {
      res.status = SolverStatus::numerical_error;
      res.message =
          "ipm: the Newton system could not be factored (Cholesky) at mu = " + short_number(mu) +
          ", relative duality gap " + short_number(gap);
      break;
    }
    if (cb_.poll()) {
      res.status = SolverStatus::interrupted;
      break;
    }
    IterationRecord rec;
    rec.step = predictor_corrector(mu);
    ++res.iterations;
    residuals();
    gap = certificate(&primal);
    rec.iteration = it;
    rec.objective = primal;
    rec.optimality = rec.gap = gap;
    rec.smoothing = mu;
    rec.passes = passes_;
    rec.time = elapsed();
    if (!report_iteration(res, rec, opt_.record_history, cb_)) {
      res.status = SolverStatus::interrupted;
      break;
    }
  }
  res.solution.assign(static_cast<std::size_t>(m_), 0.0);
  std::copy(w_.begin(), w_.end(), res.solution.begin());
  if (nb_) res.solution[static_cast<std::size_t>(d_)] = b_;
  res.objective = primal;
  res.optimality = gap;
  res.passes = passes_;
  res.time = elapsed();
  if (res.status == SolverStatus::max_iter)
    res.message = "ipm stopped at its iteration limit (" + std::to_string(opt_.max_iter) +
                  " iterations) with a relative duality gap of " + short_number(gap) +
                  " at the returned point (a bound on (F - F*) / F)";
  return res;
}

}  // namespace

void validate_options(const IpmOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_IPM_OPTIONS, "ipm", o);
}

SolveResult solve_ipm(const LinearProblem& problem, const IpmPenalty& penalty,
                      const IpmOptions& options, const Callbacks& callbacks) {
  validate_options(options);
  validate_problem(problem, LossSpec{LossKind::hinge}, options.check_input);
  if (!(penalty.l1 >= 0.0 && std::isfinite(penalty.l1) && penalty.l2 >= 0.0 &&
        std::isfinite(penalty.l2)) ||
      penalty.l1 + penalty.l2 <= 0.0)
    throw_invalid("ipm: the penalty weights l1 and l2 must be finite, >= 0 and not both zero");
  const double m = static_cast<double>(solution_size(problem));
  const double mb = m * m * 8.0 * (1.0 + kMaxGramChunks) / (1024.0 * 1024.0);
  if (mb > options.max_system_mb)
    throw_invalid(
        "ipm needs " + short_number(mb) + " MiB for its " +
        std::to_string(static_cast<long long>(m)) + " x " +
        std::to_string(static_cast<long long>(m)) +
        " normal-equation systems (n_features + 1 squared, with up to " +
        std::to_string(kMaxGramChunks) + " partial sums), above the option max_system_mb = " +
        short_number(options.max_system_mb) + "; use another solver for this many features");
  try {
    return std::visit(
        [&](const auto& X) {
          Ipm<std::decay_t<decltype(X)>> ipm(X, problem, penalty, options, callbacks);
          return ipm.run();
        },
        problem.X);
  } catch (const std::bad_alloc&) {
    SolveResult res;
    res.status = SolverStatus::out_of_memory;
    res.message = "ipm: out of memory for its " + std::to_string(static_cast<long long>(m)) +
                  "-square normal-equation systems (about " + short_number(mb) +
                  " MiB, bounded by the option max_system_mb) or its per-sample vectors";
    return res;
  }
}

}  // namespace svmkit
