// NSSVM (see solvers/nssvm.hpp for the problem, the method, the stopping rule and the paper).
#include "svmkit/solvers/nssvm.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace svmkit {
namespace {

using Clock = std::chrono::steady_clock;

// Applies Theta^{-1} for Theta = Q_T^T Q_T + diag(e) (s x s), Q_T the columns y_i x_i, i in T.
// Which factorization is used depends on s, n and cg_threshold (header comment); the data
// are read through the view, so only O(s^2) (direct), O(s n + n^2) (Woodbury) or O(s + n)
// (CG) extra memory is used.
template <class V>
class WorkingSetSystem {
 public:
  enum class Mode { direct, woodbury, cg };

  WorkingSetSystem(const V& X, const double* y, const std::vector<Index>& T,
                   const std::vector<double>& e, const NssvmOptions& opt, int n_threads)
      : X_(X), y_(y), T_(T), e_(e), n_threads_(n_threads) {
    const Index s = static_cast<Index>(T.size());
    const Index n = X.cols;
    cg_tol_ = opt.cg_tol;
    max_cg_ = opt.cg_max_iter > 0 ? opt.cg_max_iter : s + 1;
    if (std::min(n, s) > opt.cg_threshold)
      mode_ = Mode::cg;
    else if (s <= n)
      mode_ = Mode::direct;
    else
      mode_ = Mode::woodbury;
    if (mode_ == Mode::direct) build_direct();
    if (mode_ == Mode::woodbury) build_woodbury();
  }

  Mode mode() const { return mode_; }
  long long cg_iterations() const { return cg_iterations_; }

  // out = Theta^{-1} rhs (both of length s).
  void solve(const Eigen::VectorXd& rhs, Eigen::VectorXd& out) {
    switch (mode_) {
      case Mode::direct:
        out = llt_.solve(rhs);
        break;
      case Mode::woodbury: {
        // Theta^{-1} = E^{-1} - E^{-1} Z (I + Z^T E^{-1} Z)^{-1} Z^T E^{-1}, Z = Q_T^T (s x n).
        const Eigen::VectorXd u = rhs.cwiseQuotient(ev_);
        const Eigen::VectorXd t = llt_.solve(Z_.transpose() * u);
        out = u - (Z_ * t).cwiseQuotient(ev_);
        break;
      }
      case Mode::cg:
        solve_cg(rhs, out);
        break;
    }
  }

 private:
  // Theta_ab = y_a y_b <x_a, x_b> + e_a [a == b], one scattered row at a time so that CSR
  // rows cost their nonzeros only.
  void build_direct() {
    const Index s = static_cast<Index>(T_.size());
    const Index n = X_.cols;
    Eigen::MatrixXd theta(s, s);
    const int chunks = static_cast<int>(std::max<Index>(1, std::min<Index>(n_threads_, s / 16)));
    std::vector<std::vector<double>> bufs(static_cast<std::size_t>(chunks),
                                          std::vector<double>(static_cast<std::size_t>(n), 0.0));
    parallel_chunks(s, chunks, [&](int c, Index b, Index e) {
      double* buf = bufs[static_cast<std::size_t>(c)].data();
      for (Index a = b; a < e; ++a) {
        const Index ia = T_[static_cast<std::size_t>(a)];
        for_each_in_row(X_, ia, [&](Index j, double v) { buf[j] += v; });
        for (Index k = 0; k <= a; ++k) {
          const Index ik = T_[static_cast<std::size_t>(k)];
          theta(a, k) = y_[ia] * y_[ik] * row_dot(X_, ik, buf);
        }
        for_each_in_row(X_, ia, [&](Index j, double) { buf[j] = 0.0; });
      }
    });
    for (Index a = 0; a < s; ++a) theta(a, a) += e_[static_cast<std::size_t>(a)];
    llt_.compute(theta.selfadjointView<Eigen::Lower>());
  }

  void build_woodbury() {
    const Index s = static_cast<Index>(T_.size());
    const Index n = X_.cols;
    Z_.setZero(s, n);
    ev_.resize(s);
    for (Index a = 0; a < s; ++a) {
      const Index i = T_[static_cast<std::size_t>(a)];
      const double yi = y_[i];
      for_each_in_row(X_, i, [&](Index j, double v) { Z_(a, j) += yi * v; });
      ev_(a) = e_[static_cast<std::size_t>(a)];
    }
    const Eigen::MatrixXd zs = ev_.cwiseSqrt().cwiseInverse().asDiagonal() * Z_;
    Eigen::MatrixXd m = Eigen::MatrixXd::Identity(n, n);
    m.selfadjointView<Eigen::Lower>().rankUpdate(zs.transpose());
    llt_.compute(m.selfadjointView<Eigen::Lower>());
  }

  void apply(const Eigen::VectorXd& p, Eigen::VectorXd& out, std::vector<double>& t) const {
    const Index s = static_cast<Index>(T_.size());
    std::fill(t.begin(), t.end(), 0.0);
    for (Index a = 0; a < s; ++a) {
      const Index i = T_[static_cast<std::size_t>(a)];
      if (p(a) != 0.0) row_axpy(X_, i, p(a) * y_[i], t.data());
    }
    parallel_for(s, n_threads_, [&](Index a) {
      const Index i = T_[static_cast<std::size_t>(a)];
      out(a) = y_[i] * row_dot(X_, i, t.data()) + e_[static_cast<std::size_t>(a)] * p(a);
    });
  }

  void solve_cg(const Eigen::VectorXd& rhs, Eigen::VectorXd& x) {
    const Index s = rhs.size();
    std::vector<double> t(static_cast<std::size_t>(X_.cols));
    x.setZero(s);
    Eigen::VectorXd r = rhs, p = rhs, q(s);
    double rr = r.squaredNorm();
    const double stop = cg_tol_ * cg_tol_ * rr;  // ||r|| <= cg_tol ||r0||, as TRON's cg_tol
    for (long long it = 0; it < max_cg_ && rr > stop && rr > 0.0; ++it) {
      apply(p, q, t);
      const double a = rr / p.dot(q);
      x += a * p;
      r -= a * q;
      const double rr_new = r.squaredNorm();
      p = r + (rr_new / rr) * p;
      rr = rr_new;
      ++cg_iterations_;
    }
  }

  const V& X_;
  const double* y_;
  const std::vector<Index>& T_;
  const std::vector<double>& e_;
  int n_threads_;
  Mode mode_ = Mode::direct;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::MatrixXd Z_;
  Eigen::VectorXd ev_;
  double cg_tol_ = 1e-5;
  long long max_cg_ = 0;
  long long cg_iterations_ = 0;
};

// The state of one iterate that the best-iterate bookkeeping keeps (O(s + n)).
struct Snapshot {
  std::vector<Index> T;        // the working set selected at this iterate
  std::vector<Index> support;  // where alpha may be nonzero (the T of the step that made it)
  std::vector<double> alpha_S;
  std::vector<double> w;
  double mu = 0.0, bias = 0.0, accuracy = -1.0, optimality = kNaN, objective = kNaN;
};

template <class V>
SolveResult solve_impl(const V& X, const double* y, const NssvmOptions& opt, const Callbacks& cb) {
  const auto t0 = Clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(Clock::now() - t0).count(); };
  const Index m = X.rows;
  const Index n = X.cols;
  // Threads only pay off for long passes: on a busy machine every parallel region can cost
  // a scheduler time slice, which dominates short passes.
  const int threads = m >= opt.parallel_min_rows ? resolve_threads(opt.n_threads) : 1;
  SolveResult res;
  NssvmExtras out;

  // Labels: both classes must be present (the constraint <alpha, y> = 0 needs them).
  Index n_pos = 0, n_neg = 0;
  for (Index i = 0; i < m; ++i) {
    if (y[i] == 1.0)
      ++n_pos;
    else if (y[i] == -1.0)
      ++n_neg;
    else
      throw_invalid("nssvm: labels y must be -1 or +1 (entry " + std::to_string(i) + " is " +
                    std::to_string(y[i]) + ")");
  }
  if (n_pos == 0 || n_neg == 0) throw_invalid("nssvm: y must contain both classes (-1 and +1)");

  const double C = opt.C;
  const double c = opt.c > 0.0 ? opt.c : opt.c_ratio * C;
  if (!(c > 0.0) || c > C) throw_invalid("nssvm: c must satisfy 0 < c <= C");
  const double eta = opt.eta > 0.0 ? opt.eta : std::min(1.0 / static_cast<double>(m), opt.eta_max);
  long long s = opt.s0 > 0 ? std::min<long long>(opt.s0, m) : nssvm_default_s0(m, n, opt.s0_scale);
  out.s0 = s;
  out.eta = eta;
  out.c = c;
  auto e_of = [&](double a) { return a >= 0.0 ? 1.0 / C : 1.0 / c; };

  // Initial point z0 = (0, mu0), mu0 the sign of the majority class (the empty classifier
  // predicting the majority), and a class-balanced T0: with alpha = 0 every |g_i| is 0 or 2,
  // so the top-s rule would pick one class only. Indices are spread evenly over each class,
  // which does not depend on how the rows are ordered within a class beyond their positions.
  std::vector<double> alpha(static_cast<std::size_t>(m), 0.0);
  std::vector<double> g(static_cast<std::size_t>(m));
  std::vector<double> work(static_cast<std::size_t>(m));  // selection keys / X w for col-major
  std::vector<Index> T;
  {
    std::vector<Index> pos, neg;
    pos.reserve(static_cast<std::size_t>(n_pos));
    neg.reserve(static_cast<std::size_t>(n_neg));
    for (Index i = 0; i < m; ++i) (y[i] > 0 ? pos : neg).push_back(i);
    Index kp = std::min<Index>(n_pos, (s + 1) / 2);
    const Index kn = std::min<Index>(n_neg, s - kp);
    kp = std::min<Index>(n_pos, s - kn);
    auto spread = [&](const std::vector<Index>& L, Index k) {
      const Index N = static_cast<Index>(L.size());
      for (Index j = 0; j < k; ++j) T.push_back(L[static_cast<std::size_t>(j * N / k)]);
    };
    spread(pos, kp);
    spread(neg, kn);
    std::sort(T.begin(), T.end());
  }
  double mu = n_pos >= n_neg ? 1.0 : -1.0;
  for (Index i = 0; i < m; ++i) g[i] = -1.0 + mu * y[i];
  std::vector<double> w(static_cast<std::size_t>(n), 0.0);
  double bias = mu;
  double accuracy = static_cast<double>(mu > 0 ? n_pos : n_neg) / static_cast<double>(m);
  double objective = 0.0;
  double alpha_sq = 0.0;  // ||alpha||^2, for ||alpha_{T^c}|| in F

  auto F_norm = [&]() {
    double gT = 0.0, aT = 0.0, ay = 0.0;
    for (Index i : T) {
      gT += g[i] * g[i];
      aT += alpha[i] * alpha[i];
      ay += alpha[i] * y[i];
    }
    return std::sqrt(gT + std::max(0.0, alpha_sq - aT) + ay * ay);
  };

  // T <- the s largest |alpha - eta g| (ties: smaller index first), sorted; O(m) on average.
  std::vector<Index> ties, support_prev;  // support_prev: where alpha may be nonzero
  auto select = [&](long long s_new) {
    if (s_new >= m) {
      T.resize(static_cast<std::size_t>(m));
      for (Index i = 0; i < m; ++i) T[i] = i;
      return;
    }
    // work[i] = |alpha_i - eta g_i| was filled by the gradient pass.
    std::nth_element(work.begin(), work.begin() + (s_new - 1), work.end(), std::greater<double>());
    const double thr = work[static_cast<std::size_t>(s_new - 1)];
    // Keys above the threshold are all taken; among keys equal to it, the smallest indices.
    T.clear();
    ties.clear();
    for (Index i = 0; i < m; ++i) {
      const double key = std::abs(alpha[i] - eta * g[i]);
      if (key > thr)
        T.push_back(i);
      else if (key == thr)
        ties.push_back(i);
    }
    ties.resize(static_cast<std::size_t>(s_new) - T.size());
    if (!ties.empty()) {
      const std::size_t mid = T.size();
      T.insert(T.end(), ties.begin(), ties.end());
      std::inplace_merge(T.begin(), T.begin() + static_cast<std::ptrdiff_t>(mid), T.end());
    }
  };

  Snapshot best;
  auto keep = [&](double fnorm, const std::vector<Index>& stepped) {
    best.T = T;
    best.support = stepped;
    best.alpha_S.resize(stepped.size());
    for (std::size_t a = 0; a < stepped.size(); ++a) best.alpha_S[a] = alpha[stepped[a]];
    best.w = w;
    best.mu = mu;
    best.bias = bias;
    best.accuracy = accuracy;
    best.optimality = fnorm;
    best.objective = objective;
  };

  double fnorm = F_norm();
  long long iter = 0, tunes = 0;
  res.status = SolverStatus::max_iter;
  bool force_tune = false;
  double acc_last_level = 0.0;  // best accuracy reached at the levels before the current
  while (true) {
    if (!std::isfinite(fnorm) || !std::isfinite(mu)) {
      res.status = SolverStatus::numerical_error;
      break;
    }
    if (fnorm <= opt.tol) {
      // Converged at this sparsity level. With tuning, grow s while that still pays: on the
      // first convergence, and afterwards while the accuracy improved by more than acc_tol
      // over the level before (the box's |ACC - MaxACC| test, MaxACC of earlier levels).
      const bool improving = tunes == 0 || accuracy > acc_last_level + opt.acc_tol;
      if (opt.tune && improving && tunes < opt.max_tunes && s < m) {
        force_tune = true;
        acc_last_level = std::max(acc_last_level, accuracy);
      } else {
        res.status = SolverStatus::converged;
        break;
      }
    }
    if (iter >= opt.max_iter) break;
    if (cb.poll()) {
      res.status = SolverStatus::interrupted;
      break;
    }
    ++iter;

    // Newton step on T (eq. 7 / eq. 9): alpha_{T^c} <- 0, (alpha_T, mu) += (d_T, d_mu).
    const Index sT = static_cast<Index>(T.size());
    std::vector<double> eT(static_cast<std::size_t>(sT));
    Eigen::VectorXd gT(sT), yT(sT), u, v;
    double ay = 0.0;
    for (Index a = 0; a < sT; ++a) {
      const Index i = T[static_cast<std::size_t>(a)];
      eT[static_cast<std::size_t>(a)] = e_of(alpha[i]);
      gT(a) = g[i];
      yT(a) = y[i];
      ay += alpha[i] * y[i];
    }
    long long inner = 0;
    {
      WorkingSetSystem<V> sys(X, y, T, eT, opt, threads);
      sys.solve(gT, u);
      sys.solve(yT, v);
      inner = sys.cg_iterations();
      res.inner_iterations += inner;
    }
    const double d_mu = (ay - yT.dot(u)) / yT.dot(v);
    std::vector<double> alpha_T(static_cast<std::size_t>(sT));
    for (Index a = 0; a < sT; ++a)
      alpha_T[static_cast<std::size_t>(a)] =
          alpha[T[static_cast<std::size_t>(a)]] - (u(a) + d_mu * v(a));
    for (Index i : support_prev) alpha[i] = 0.0;  // alpha_{T^c} <- 0 (alpha lives on the last T)
    alpha_sq = 0.0;
    for (Index a = 0; a < sT; ++a) {
      alpha[T[static_cast<std::size_t>(a)]] = alpha_T[static_cast<std::size_t>(a)];
      alpha_sq += alpha_T[static_cast<std::size_t>(a)] * alpha_T[static_cast<std::size_t>(a)];
    }
    support_prev = T;
    mu += d_mu;

    // w = Q_T alpha_T (O(s n)), the refined bias b' = mean_T (y_i - <w, x_i>), D(alpha).
    std::fill(w.begin(), w.end(), 0.0);
    for (Index i : T)
      if (alpha[i] != 0.0) row_axpy(X, i, alpha[i] * y[i], w.data());
    double b2 = 0.0, hsum = 0.0, asum = 0.0, wsq = 0.0;
    for (Index i : T) {
      b2 += y[i] - row_dot(X, i, w.data());
      hsum += 0.5 * alpha[i] * alpha[i] * e_of(alpha[i]);
      asum += alpha[i];
    }
    b2 /= static_cast<double>(std::max<Index>(1, sT));
    for (double wj : w) wsq += wj * wj;
    objective = 0.5 * wsq + hsum - asum;

    // One pass: g = Q^T w - 1 + E alpha + mu y, the selection keys, and the accuracies of
    // the biases mu and b'.
    if constexpr (is_col_major<V>::value) matvec(X, w.data(), work.data(), threads);
    const int chunks = reduction_chunks(m, threads);
    std::vector<Index> ok_mu(static_cast<std::size_t>(chunks), 0),
        ok_b2(static_cast<std::size_t>(chunks), 0);
    parallel_chunks(m, chunks, [&](int ch, Index b, Index e) {
      Index c1 = 0, c2 = 0;
      for (Index i = b; i < e; ++i) {
        double xw;
        if constexpr (is_col_major<V>::value)
          xw = work[i];
        else
          xw = row_dot(X, i, w.data());
        const double yi = y[i];
        g[i] = yi * xw - 1.0 + mu * yi + (alpha[i] != 0.0 ? e_of(alpha[i]) * alpha[i] : 0.0);
        work[i] = std::abs(alpha[i] - eta * g[i]);  // selection key of the next T
        c1 += ((xw + mu > 0.0) == (yi > 0.0));
        c2 += ((xw + b2 > 0.0) == (yi > 0.0));
      }
      ok_mu[static_cast<std::size_t>(ch)] = c1;
      ok_b2[static_cast<std::size_t>(ch)] = c2;
    });
    ++res.passes;
    Index n_ok_mu = 0, n_ok_b2 = 0;
    for (int ch = 0; ch < chunks; ++ch) {
      n_ok_mu += ok_mu[static_cast<std::size_t>(ch)];
      n_ok_b2 += ok_b2[static_cast<std::size_t>(ch)];
    }
    bias = mu;
    accuracy = static_cast<double>(n_ok_mu) / static_cast<double>(m);
    if (opt.refine_bias && n_ok_b2 > n_ok_mu) {
      bias = b2;
      accuracy = static_cast<double>(n_ok_b2) / static_cast<double>(m);
    }

    // Sparsity-level tuning, then the next working set.
    const std::vector<Index> T_prev = T;
    if (opt.tune && tunes < opt.max_tunes && s < m &&
        (force_tune || (opt.tune_every > 0 && iter % opt.tune_every == 0))) {
      s = std::min<long long>(
          m, static_cast<long long>(std::ceil(opt.tune_ratio * static_cast<double>(s))));
      ++tunes;
    }
    force_tune = false;
    select(s);
    fnorm = F_norm();
    if (accuracy >= best.accuracy) keep(fnorm, T_prev);

    if (opt.record_history || cb.on_iteration) {
      IterationRecord rec;
      rec.iteration = iter;
      rec.objective = objective;
      rec.optimality = fnorm;
      rec.step = accuracy;  // training accuracy of the iterate (also in accuracy_history)
      rec.inner_iterations = inner;
      rec.active_size = static_cast<long long>(T.size());
      rec.passes = res.passes;
      rec.time = elapsed();
      rec.accepted = T != T_prev;  // whether the working set changed
      if (opt.record_history) {
        res.history.push_back(rec);
        out.accuracy_history.push_back(accuracy);
        out.bias_history.push_back(bias);
      }
      if (cb.on_iteration && !cb.on_iteration(rec)) {
        res.status = SolverStatus::interrupted;
        break;
      }
    }
  }

  // The returned point: the last iterate, or the most accurate one (keep_best).
  out.best_accuracy = std::max(best.accuracy, accuracy);
  if (opt.keep_best && best.accuracy > accuracy + opt.acc_tol) {
    out.returned_best = true;
    T = best.T;
    std::fill(alpha.begin(), alpha.end(), 0.0);
    for (std::size_t a = 0; a < best.support.size(); ++a) alpha[best.support[a]] = best.alpha_S[a];
    w = best.w;
    mu = best.mu;
    bias = best.bias;
    accuracy = best.accuracy;
    fnorm = best.optimality;
    objective = best.objective;
  }
  if (opt.bias_search && iter > 0) {
    // Exact 1-D search of the bias maximizing the training accuracy of w: sort the decision
    // values <w, x_i>, scan the cuts between distinct values, keep a strictly better one
    // (closest to the current bias among equals). Replaces the listing's descent on a step
    // function; O(m log m) once.
    matvec(X, w.data(), work.data(), threads);
    // Decision values of each class, sorted (the two sorts run in parallel); then a merge
    // scan over the distinct values: cutting just above value v predicts negative for all
    // values <= v, so the correct count is #negatives <= v + #positives > v.
    std::vector<double> pv, nv;
    pv.reserve(static_cast<std::size_t>(n_pos));
    nv.reserve(static_cast<std::size_t>(n_neg));
    Index ok = 0;
    for (Index i = 0; i < m; ++i) {
      (y[i] > 0.0 ? pv : nv).push_back(work[i]);
      ok += ((work[i] + bias > 0.0) == (y[i] > 0.0));
    }
    parallel_chunks(2, std::min(2, threads), [&](int, Index b0, Index e0) {
      for (Index k = b0; k < e0; ++k) {
        auto& v = k == 0 ? pv : nv;
        std::sort(v.begin(), v.end());
      }
    });
    Index best_correct = ok;
    double best_b = bias;
    std::size_t ip = 0, in = 0;
    const double inf = std::numeric_limits<double>::infinity();
    while (ip < pv.size() || in < nv.size()) {
      const double cur = std::min(ip < pv.size() ? pv[ip] : inf, in < nv.size() ? nv[in] : inf);
      while (ip < pv.size() && pv[ip] == cur) ++ip;
      while (in < nv.size() && nv[in] == cur) ++in;
      if (ip == pv.size() && in == nv.size()) break;  // cutting above the largest: trivial
      const double nxt = std::min(ip < pv.size() ? pv[ip] : inf, in < nv.size() ? nv[in] : inf);
      const Index correct = static_cast<Index>(in + (pv.size() - ip));
      const double b = -0.5 * (cur + nxt);
      if (correct > best_correct || (correct == best_correct && best_correct > ok &&
                                     std::abs(b - bias) < std::abs(best_b - bias))) {
        best_correct = correct;
        best_b = b;
      }
    }
    if (best_correct > ok) {
      bias = best_b;
      accuracy = static_cast<double>(best_correct) / static_cast<double>(m);
    }
  }
  for (Index i = 0; i < m; ++i)
    if (alpha[i] != 0.0) {
      out.support.push_back(i);
      out.alpha.push_back(alpha[i]);
    }
  out.working_set = T;
  out.mu = mu;
  out.bias = bias;
  out.accuracy = accuracy;
  out.s = s;
  res.solution = w;
  res.solution.push_back(bias);
  res.objective = objective;
  res.optimality = fnorm;
  res.iterations = iter;
  res.time = elapsed();
  res.extras = std::move(out);
  return res;
}

}  // namespace

long long nssvm_default_s0(Index m, Index n, double s0_scale) {
  if (m <= n) return m;
  const double l = std::log(static_cast<double>(m) / static_cast<double>(n));
  const double s0 = std::ceil(s0_scale * static_cast<double>(n) * l * l);
  return std::min<long long>(m, std::max<long long>(2, static_cast<long long>(s0)));
}

void validate_options(const NssvmOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_NSSVM_OPTIONS, "nssvm", o);
  if (o.c > o.C) throw_invalid("nssvm option 'c' must be <= C (or <= 0 for c_ratio * C)");
}

SolveResult solve_nssvm(const MatrixView& X, const double* y, const NssvmOptions& options,
                        const Callbacks& callbacks) {
  validate_options(options);
  if (options.check_input) {
    validate_view(X, "X");
    validate_finite(X, "X");
  }
  if (rows_of(X) < 2) throw_invalid("nssvm: X needs at least 2 samples");
  if (cols_of(X) < 1) throw_invalid("nssvm: X needs at least 1 feature");
  if (y == nullptr) throw_invalid("nssvm: y is missing");
  return std::visit([&](const auto& v) { return solve_impl(v, y, options, callbacks); }, X);
}

}  // namespace svmkit
