// Homotopic subgradient method: solvers/homotopy.hpp gives the problem, the method (paper 004,
// Algorithm 1) and the stopping rule. Here: the tuning evidence behind the defaults, and how
// the two certificates are computed.
//
// Scale of lambda (a documented departure, measured in bench/results/homotopy.md): with the
// paper's mean loss, Theorem 3.1's bias term vanishes only once lambda_s <= lambda' =
// 1 / (n max_j a_j) (a = hard-margin dual multipliers), which shrinks like 1/n: standardized
// iris setosa-vs-rest has lambda' = 0.0079, so the paper's schedule needs s0 + s ~ 16000
// (about 10^12 steps); the paper's own experiment (section 5) starts below lambda'. The
// default lambda_scale = 1/n measures lambda against the summed losses (LIBLINEAR's
// C_s = (s0 + s)^p), which reproduces that regime. step_scale = 3 (measured: iris 133, wine
// 106/118 outer iterations to 1e-3, against > 200 with 1) multiplies eta_s, since the box's
// step constant is too cautious for such weakly convex subproblems. lambda_scale = 1,
// step_scale = 1 is Algorithm 1 verbatim.
//
// Soft-margin gap: D is the best dual value seen, at a_j = C_j times j's violation frequency
// over the inner steps (the averaged steps make the estimate ~ sum a_j y_j x~_j), balanced
// between the classes and scaled by the best factor inside the box.
// Hard-margin gap: lower = the normalized margin of the estimate; upper = ||sum a_j y_j x_j||
// for the violation frequencies a (or half the distance between the class hulls with a free
// bias). The default tol = 1e-5 certifies ||w_r - w*|| / ||w*|| <= 4.5e-3 (measured 3.8e-4 on
// iris, 4.4e-3 on the tests' seeded gaussians); 1e-3 needs tol = 5e-7, which the O(k^-1/6)
// method does not reach on iris in 500 outer iterations (gap 3e-6).
// Farkas certificate: tried at the first s >= k, 2k, 4k, ... (k = separability_check_after)
// where the estimate does not separate the data, so its cost stays a small fraction; the
// Lawson-Hanson NNLS min_{a >= 0} ||M a||^2 + h^2 (sum a - 1)^2 over M = [y_j x~_j] (all rows,
// or the most violated ones within certificate_max_entries) gives an a whose exact bound
// <= separability_tol * max_j ||x~_j|| certifies non-separability, so separable data with a
// larger relative margin are never reported infeasible.
#include "svmkit/solvers/homotopy.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "svmkit/objective.hpp"

namespace svmkit {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

template <class V>
class Homotopy {
 public:
  Homotopy(const V& X, const LinearProblem& p, const HomotopyOptions& opt, const Callbacks& cb)
      : X_(X),
        p_(p),
        opt_(opt),
        cb_(cb),
        n_(X.rows),
        d_(X.cols),
        dim_(X.cols + (p.fit_intercept ? 1 : 0)),
        scale_(p.intercept_scaling),
        free_bias_(p.fit_intercept && !p.regularize_intercept),
        n_threads_(resolve_threads(opt.n_threads)),
        rng_(opt.seed),
        obj_(X, HingeLoss{}, p, /*classification=*/true, opt.n_threads) {}

  SolveResult run() {
    start_ = Clock::now();
    setup_schedule();
    SolveResult res;
    res.status = SolverStatus::max_iter;
    wbar_.assign(dim_, 0.0);
    w_.resize(dim_);
    wsum_.resize(dim_);
    g_.resize(dim_);
    wbest_.resize(dim_);
    freq_.resize(n_);
    order_.resize(static_cast<std::size_t>(n_));
    std::iota(order_.begin(), order_.end(), Index{0});
    long long next_check = opt_.separability_check_after;
    bool interrupted = false;
    while (s_ < opt_.max_iter) {
      const double k = opt_.s0 + static_cast<double>(s_);
      lambda_ = std::max(lambda_scale_ * std::pow(k, -opt_.p), opt_.lambda_min);
      const long long t = inner_count(k);
      const double eta =
          opt_.step_scale * K_ * std::pow(k - 1.0, -alpha_) / std::sqrt(static_cast<double>(t));
      if (!inner_iterations(t, eta)) {
        interrupted = true;
        break;
      }
      ++s_;
      next_estimate(t);
      Index violators = 0;
      const double f_bar = 0.5 * lambda_ * reg_sq(wbar_) + full_loss(wbar_.data(), &violators);
      const double lower = soft_margin() ? kNaN : normalized_margin(wbar_.data());
      gap_ = soft_margin() ? soft_margin_gap(t) : margin_gap(lower);
      if (opt_.record_iterates) {
        const std::vector<double> sol = reported(wbar_);
        out_.iterates.insert(out_.iterates.end(), sol.begin(), sol.end());
      }
      if (!record(res, f_bar, eta, t, violators)) {
        interrupted = true;
        break;
      }
      if (!std::isfinite(f_bar)) {
        res.status = SolverStatus::numerical_error;
        break;
      }
      // Farkas certificate of non-separability (hard margin only), tried at s = k, 2k, 4k, ...
      // while the estimate does not separate the data.
      if (!soft_margin() && next_check > 0 && s_ >= next_check && !(lower > 0.0)) {
        next_check *= 2;
        const double h = max_row_norm();
        out_.certificate_bound = farkas_bound(freq_, h);
        if (out_.certificate_bound <= opt_.separability_tol * h) {
          separable_ = false;
          res.status = SolverStatus::infeasible;
          res.message = infeasible_message(s_, out_.certificate_bound);
          break;
        }
      }
      if (gap_ < opt_.tol) {
        res.status = SolverStatus::converged;
        break;
      }
    }
    if (interrupted) res.status = SolverStatus::interrupted;
    finish(res);
    return res;
  }

 private:
  using Clock = std::chrono::steady_clock;

  bool soft_margin() const { return opt_.lambda_min > 0.0; }
  double elapsed() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

  // Algorithm 1's constants: eps0, alpha, the step constant K, and the scale of lambda.
  void setup_schedule() {
    const double s0 = opt_.s0, p = opt_.p, r = opt_.r;
    const double eps0 = (std::log(s0) - std::log(s0 - 1.0)) / std::log(s0);
    alpha_ = std::min((r - 2.0 * p) / (2.0 * (1.0 + eps0)), 1.0 - p);
    K_ = opt_.step_constant > 0.0
             ? opt_.step_constant
             : std::max(4.0, 0.5 * std::pow(s0, p) * std::pow(s0 - 1.0, alpha_));
    out_.step_constant = K_;
    lambda_scale_ = opt_.lambda_scale > 0.0 ? opt_.lambda_scale : 1.0 / static_cast<double>(n_);
    batch_ = (opt_.batch_size <= 0 || opt_.batch_size >= n_) ? n_ : opt_.batch_size;
  }

  // t_s = ceil(k^r); validate_options has checked that it fits a long long for every s.
  long long inner_count(double k) const {
    return static_cast<long long>(std::ceil(std::pow(k, opt_.r) - 1e-9));
  }

  // The next rows of the stochastic variant (nullptr: all rows).
  const Index* next_batch(Index* k_rows) {
    *k_rows = n_;
    if (batch_ >= n_) return nullptr;
    if (pos_ + batch_ > n_) {
      std::shuffle(order_.begin(), order_.end(), rng_);
      pos_ = 0;
    }
    const Index* rows = order_.data() + pos_;
    *k_rows = batch_;
    pos_ += batch_;
    return rows;
  }

  // t subgradient steps from wbar (Algorithm 1's inner loop); accumulates their sum, the
  // violation frequencies and (iterate = "best") the best inner iterate. False if interrupted.
  bool inner_iterations(long long t, double eta) {
    const bool track_best = opt_.iterate == "best" && batch_ == n_;
    w_ = wbar_;
    std::fill(wsum_.begin(), wsum_.end(), 0.0);
    std::fill(freq_.begin(), freq_.end(), 0.0);
    f_best_ = kInf;
    pos_ = n_;  // a fresh permutation for each outer iteration (stochastic variant)
    for (long long i = 1; i <= t; ++i) {
      if ((i & 63) == 1 && cb_.poll()) return false;
      Index k_rows = n_;
      const Index* rows = next_batch(&k_rows);
      // g = -(1/k) sum_{violators} c_j y_j x~_j, and the loss value at w (full batch).
      const double loss = violator_sum(w_.data(), rows, k_rows, g_.data(), &freq_);
      if (track_best) {
        const double f = 0.5 * lambda_ * reg_sq(w_) + loss;
        if (f < f_best_) {
          f_best_ = f;
          wbest_ = w_;
        }
      }
      take_step(eta);
      for (Index j = 0; j < dim_; ++j) wsum_[j] += w_[j];
      ++total_inner_;
    }
    return true;
  }

  void take_step(double eta) {
    if (opt_.normalized_steps) {
      // Section 6.1: a step of length eta along the full subgradient direction.
      double nrm = 0.0;
      for (Index j = 0; j < dim_; ++j) {
        g_[j] += shrinks(j) ? lambda_ * w_[j] : 0.0;
        nrm += g_[j] * g_[j];
      }
      nrm = std::sqrt(nrm);
      if (nrm > 0.0)
        for (Index j = 0; j < dim_; ++j) w_[j] -= eta * g_[j] / nrm;
    } else {
      const double shrink = 1.0 - lambda_ * eta;
      for (Index j = 0; j < dim_; ++j) w_[j] = (shrinks(j) ? shrink * w_[j] : w_[j]) - eta * g_[j];
    }
  }

  // The next estimate: the average of the inner iterates, or the best one (section 6.4).
  void next_estimate(long long t) {
    if (opt_.iterate != "best") {
      for (Index j = 0; j < dim_; ++j) wbar_[j] = wsum_[j] / static_cast<double>(t);
      return;
    }
    if (batch_ < n_) {
      wbar_ = w_;  // no full objective in the stochastic variant: keep the last iterate
      return;
    }
    // The last inner iterate was not evaluated yet.
    const double f = 0.5 * lambda_ * reg_sq(w_) + full_loss(w_.data());
    if (f < f_best_) wbest_ = w_;
    wbar_ = wbest_;
  }

  // Hard margin: lower bound gamma(wbar), upper bound from the violation frequencies.
  double margin_gap(double lower) {
    upper_best_ = std::min(upper_best_, hull_bound(freq_));
    return (lower > 0.0 && std::isfinite(upper_best_) && upper_best_ > 0.0)
               ? std::max(0.0, (upper_best_ - lower) / upper_best_)
               : kInf;
  }

  // Soft margin (lambda_min > 0): the relative duality gap of F = F_{lambda_min} at wbar.
  // With C_j = c_j / (lambda_min n), F = lambda_min (1/2 ||w||^2 + sum_j C_j hinge_j), whose
  // dual is D(a) = sum a_j - 1/2 ||sum a_j y_j x~_j||^2 over 0 <= a_j <= C_j (and
  // sum a_j y_j = 0 with a free bias). The dual point comes from the inner iterations: the
  // averaged subgradient steps give wbar ~ sum a_j y_j x~_j with a_j = C_j times the fraction
  // of inner steps in which j was a violator; it is made feasible (the larger class scaled down
  // to balance the equality; the whole scaled by the best factor within the box), and the best
  // dual value seen is kept (any feasible point bounds F* from below, whatever lambda_s was).
  double soft_margin_gap(long long t) {
    const double lam = opt_.lambda_min;
    // a_j / C_j * c_j: the violation frequency per inner step (stochastic: per visit, n/k).
    const double per_step =
        static_cast<double>(n_) / static_cast<double>(batch_) / static_cast<double>(t);
    std::vector<double> a(static_cast<std::size_t>(n_));
    double ap = 0.0, an = 0.0;
    for (Index i = 0; i < n_; ++i) {
      a[i] = freq_[i] * per_step;  // = c_j theta_j, i.e. lambda_min n a_j
      (p_.y[i] > 0 ? ap : an) += a[i];
    }
    if (free_bias_ && ap > 0.0 && an > 0.0) {
      const double fp = std::min(1.0, an / ap), fn = std::min(1.0, ap / an);
      for (Index i = 0; i < n_; ++i) a[i] *= p_.y[i] > 0 ? fp : fn;
    } else if (free_bias_) {
      std::fill(a.begin(), a.end(), 0.0);
    }
    // D in F's units for a scaled by gamma: gamma A - gamma^2 B, with
    // A = 1/n sum a_j and B = ||sum a_j y_j x~_j||^2 / (2 lambda_min n^2).
    std::vector<double> v(dim_, 0.0);
    double A = 0.0, gamma_max = kInf;
    for (Index i = 0; i < n_; ++i) {
      if (a[i] == 0.0) continue;
      A += a[i];
      gamma_max = std::min(gamma_max, p_.cost[i] / a[i]);
      row_axpy(X_, i, a[i] * p_.y[i], v.data());
      if (p_.fit_intercept) v[d_] += a[i] * p_.y[i] * scale_;
    }
    row_visits_ += n_;
    const double nn = static_cast<double>(n_);
    A /= nn;
    const double B = reg_sq(v) / (2.0 * lam * nn * nn);
    double gamma = B > 0.0 ? A / (2.0 * B) : gamma_max;
    gamma = std::max(0.0, std::min(gamma, gamma_max));
    if (std::isfinite(gamma)) dual_best_ = std::max(dual_best_, gamma * A - gamma * gamma * B);
    const double primal = 0.5 * lam * reg_sq(wbar_) + full_loss(wbar_.data());
    if (!(primal > 0.0)) return primal == 0.0 ? 0.0 : kInf;
    return std::max(0.0, (primal - dual_best_) / primal);
  }

  // One history record / callback; false when the callback asks to stop.
  bool record(SolveResult& res, double f_bar, double eta, long long t, Index violators) {
    if (!opt_.record_history && !cb_.on_iteration) return true;
    IterationRecord rec;
    rec.iteration = s_;
    rec.objective = f_bar;
    rec.optimality = gap_;
    rec.step = eta;
    rec.inner_iterations = t;
    rec.active_size = violators;
    rec.smoothing = lambda_;
    rec.passes = row_visits_ / std::max<Index>(1, n_);
    rec.time = elapsed();
    return report_iteration(res, rec, opt_.record_history, cb_);
  }

  // The reported (w, b): with a free bias in the hard-margin case, the bias of eq. (15).
  std::vector<double> reported(const std::vector<double>& w) {
    std::vector<double> sol = w;
    if (free_bias_ && !soft_margin()) sol[d_] = eq15_bias(w.data());
    return sol;
  }

  void finish(SolveResult& res) {
    std::vector<double> sol = reported(wbar_);
    if (opt_.rescale && !soft_margin() && separable_) {
      double m = kInf;
      for (Index i = 0; i < n_; ++i) m = std::min(m, p_.y[i] * z(sol.data(), i));
      row_visits_ += n_;
      if (m > 0.0 && std::isfinite(m))
        for (double& v : sol) v /= m;
    }
    out_.margin = normalized_margin(sol.data(), /*use_given_bias=*/true);
    out_.margin_upper = upper_best_;
    res.objective = 0.5 * lambda_ * reg_sq(sol) + full_loss(sol.data());
    res.solution = std::move(sol);
    res.optimality = gap_;
    res.iterations = s_;
    res.inner_iterations = total_inner_;
    res.passes = row_visits_ / std::max<Index>(1, n_);
    res.time = elapsed();
    res.extras = std::move(out_);
  }

  // The certificate in words (SolveResult::message of status infeasible).
  static std::string infeasible_message(long long s, double bound) {
    return "the data are not linearly separable (a Farkas certificate found after " +
           std::to_string(s) + " outer iterations bounds the margin by " + short_number(bound) +
           "), so the hard-margin SVM (C=inf) does not exist. Use a finite C (soft margin).";
  }
  bool shrinks(Index j) const { return !(free_bias_ && j == d_); }

  double reg_sq(const std::vector<double>& w) const {
    double s = 0.0;
    for (Index j = 0; j < dim_; ++j)
      if (shrinks(j)) s += w[j] * w[j];
    return s;
  }

  double z(const double* w, Index i) const {
    double v = row_dot(X_, i, w);
    if (p_.fit_intercept) v += w[d_] * scale_;
    return v;
  }

  // g = -(1/k) sum_{j in rows, y_j z_j <= 1} c_j y_j x~_j (rows == nullptr: all rows);
  // returns the full-batch loss 1/n sum c_j hinge(y_j z_j) (only meaningful for all rows).
  // Adds the violation indicator (times c_j) to freq.
  double violator_sum(const double* w, const Index* rows, Index k, double* g,
                      std::vector<double>* freq) {
    // Parallel only when the batch carries enough work to pay for a parallel region.
    const Index work = k * std::max<Index>(1, dim_);
    const int chunks =
        static_cast<int>(std::min<Index>(n_threads_, std::max<Index>(1, work / 16384)));
    auto& bufs = buf_.get(chunks, dim_);
    std::vector<double> part(static_cast<std::size_t>(chunks), 0.0);
    parallel_chunks(k, chunks, [&](int c, Index b, Index e) {
      double* acc = bufs[c].data();
      double ls = 0.0;
      for (Index q = b; q < e; ++q) {
        const Index i = rows ? rows[q] : q;
        const double m = p_.y[i] * z(w, i);
        if (m <= 1.0) {
          const double a = p_.cost[i] * p_.y[i];
          row_axpy(X_, i, a, acc);
          if (p_.fit_intercept) acc[d_] += a * scale_;
          ls += p_.cost[i] * (1.0 - m);
          if (freq) (*freq)[i] += p_.cost[i];
        }
      }
      part[c] = ls;
    });
    row_visits_ += k;
    const double inv = 1.0 / static_cast<double>(k);
    for (Index j = 0; j < dim_; ++j) {
      double sum = 0.0;
      for (int c = 0; c < chunks; ++c) sum += bufs[c][j];
      g[j] = -inv * sum;
    }
    double loss = 0.0;
    for (double v : part) loss += v;
    return loss * inv;
  }

  // 1/n sum_j c_j hinge(y_j z_j) (objective.hpp's pass); violators = the rows of positive loss.
  double full_loss(const double* w, Index* violators = nullptr) {
    const double loss = obj_.loss_sum(w, violators);
    row_visits_ += n_;
    return loss / static_cast<double>(n_);
  }

  // min over each class of x.w (no bias) for eq. (15).
  void class_extremes(const double* w, double* min_pos, double* max_neg) {
    double mp = kInf, mn = -kInf;
    for (Index i = 0; i < n_; ++i) {
      const double v = row_dot(X_, i, w);
      if (p_.y[i] > 0)
        mp = std::min(mp, v);
      else
        mn = std::max(mn, v);
    }
    row_visits_ += n_;
    *min_pos = mp;
    *max_neg = mn;
  }

  // Eq. (15) in units of the intercept coordinate: b * scale = -(min_+ x.w + max_- x.w) / 2.
  double eq15_bias(const double* w) {
    double mp, mn;
    class_extremes(w, &mp, &mn);
    if (!std::isfinite(mp) || !std::isfinite(mn)) return w[d_];
    return -0.5 * (mp + mn) / scale_;
  }

  // gamma(w) = min_j y_j z_j / ||w|| (norm over the shrunk coordinates). With a free bias and
  // use_given_bias false, the bias of eq. (15) is used (the best bias for w).
  double normalized_margin(const double* w, bool use_given_bias = false) {
    double nrm = 0.0;
    for (Index j = 0; j < dim_; ++j)
      if (shrinks(j)) nrm += w[j] * w[j];
    nrm = std::sqrt(nrm);
    if (!(nrm > 0.0)) return -kInf;
    if (free_bias_ && !use_given_bias) {
      double mp, mn;
      class_extremes(w, &mp, &mn);
      return 0.5 * (mp - mn) / nrm;
    }
    double m = kInf;
    for (Index i = 0; i < n_; ++i) m = std::min(m, p_.y[i] * z(w, i));
    row_visits_ += n_;
    return m / nrm;
  }

  // Upper bound on the max margin from convex weights a_j (violation frequencies): the norm of
  // the hull point sum a_j y_j x~_j / sum a_j, or with a free bias half the distance between
  // the two class hull points. Infinite when a class has no weight.
  double hull_bound(const std::vector<double>& a) {
    std::vector<double> u(dim_, 0.0);
    double ap = 0.0, an = 0.0;
    for (Index i = 0; i < n_; ++i) (p_.y[i] > 0 ? ap : an) += a[i];
    if (free_bias_) {
      if (!(ap > 0.0 && an > 0.0)) return kInf;
    } else if (!(ap + an > 0.0)) {
      return kInf;
    }
    for (Index i = 0; i < n_; ++i) {
      if (a[i] == 0.0) continue;
      const double wgt =
          free_bias_ ? a[i] * p_.y[i] / (p_.y[i] > 0 ? ap : an) : a[i] * p_.y[i] / (ap + an);
      row_axpy(X_, i, wgt, u.data());
      if (p_.fit_intercept && !free_bias_) u[d_] += wgt * scale_;
    }
    row_visits_ += n_;
    double nrm = 0.0;
    for (Index j = 0; j < dim_; ++j)
      if (shrinks(j)) nrm += u[j] * u[j];
    nrm = std::sqrt(nrm);
    return free_bias_ ? 0.5 * nrm : nrm;
  }

  double max_row_norm() {
    double m = 0.0;
    for (Index i = 0; i < n_; ++i) {
      double q = row_sq_norm(X_, i);
      if (p_.fit_intercept) q += scale_ * scale_;
      m = std::max(m, q);
    }
    row_visits_ += n_;
    return std::sqrt(m);
  }

  // Bound on the max margin from nonnegative weights a on the rows S: hull_bound() of a.
  double bound_from(const std::vector<Index>& S, const Eigen::VectorXd& a) {
    std::vector<double> full(static_cast<std::size_t>(n_), 0.0);
    for (std::size_t q = 0; q < S.size(); ++q) full[S[q]] = std::max(0.0, a[q]);
    return hull_bound(full);
  }

  // Farkas certificate: nonnegative least squares (Lawson-Hanson active set)
  //   min_{a >= 0} ||M a||^2 + h^2 (sum a - 1)^2,  M = [y_j x~_j]_{j in S},
  // h = max ||x~_j||, on all rows or the most frequently violated ones that fit.
  // Its optimum is 0 exactly when those rows are not separable; the returned bound is evaluated
  // from the computed a >= 0, so it is a valid bound whatever the solver's accuracy.
  double farkas_bound(const std::vector<double>& freq, double h) {
    // All rows when the dense (d + 2) x n matrix fits in certificate_max_entries (the optimum
    // is then 0 iff the data are not separable); otherwise the most frequently violated rows
    // that fit (a non-separable subset suffices, but the violators need not contain one).
    const auto cap = static_cast<std::size_t>(opt_.certificate_max_entries / (dim_ + 2));
    if (cap < static_cast<std::size_t>(dim_ + 2) || dim_ > opt_.certificate_max_dim) return kInf;
    std::vector<Index> S(static_cast<std::size_t>(n_));
    std::iota(S.begin(), S.end(), Index{0});
    if (S.size() > cap) {
      std::partial_sort(
          S.begin(), S.begin() + static_cast<std::ptrdiff_t>(cap), S.end(),
          [&](Index u, Index v) { return freq[u] > freq[v] || (freq[u] == freq[v] && u < v); });
      S.resize(cap);
      std::sort(S.begin(), S.end());
    }
    const auto m = static_cast<Eigen::Index>(S.size());
    const auto rows = static_cast<Eigen::Index>(dim_ + 1);
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(rows, m);
    for (Eigen::Index q = 0; q < m; ++q) {
      const Index i = S[static_cast<std::size_t>(q)];
      row_axpy(X_, i, p_.y[i], B.col(q).data());
      if (p_.fit_intercept) B(d_, q) = p_.y[i] * scale_;
      B(rows - 1, q) = h;
    }
    row_visits_ += static_cast<long long>(m);
    Eigen::VectorXd c = Eigen::VectorXd::Zero(rows);
    c[rows - 1] = h;
    Eigen::VectorXd a = Eigen::VectorXd::Zero(m), z(m);
    std::vector<char> passive(static_cast<std::size_t>(m), 0);
    const double gtol = 1e-12 * h * h * static_cast<double>(rows);
    long long budget = opt_.certificate_max_iter;
    auto solve_passive = [&](Eigen::VectorXd& out) {
      std::vector<Eigen::Index> P;
      for (Eigen::Index q = 0; q < m; ++q)
        if (passive[static_cast<std::size_t>(q)]) P.push_back(q);
      Eigen::MatrixXd BP(rows, static_cast<Eigen::Index>(P.size()));
      for (std::size_t k = 0; k < P.size(); ++k) BP.col(static_cast<Eigen::Index>(k)) = B.col(P[k]);
      const Eigen::VectorXd zp = BP.completeOrthogonalDecomposition().solve(c);
      out.setZero();
      for (std::size_t k = 0; k < P.size(); ++k) out[P[k]] = zp[static_cast<Eigen::Index>(k)];
    };
    while (budget-- > 0) {
      const Eigen::VectorXd wgrad = B.transpose() * (c - B * a);
      Eigen::Index j = -1;
      double best = gtol;
      for (Eigen::Index q = 0; q < m; ++q)
        if (!passive[static_cast<std::size_t>(q)] && wgrad[q] > best) {
          best = wgrad[q];
          j = q;
        }
      if (j < 0) break;  // KKT conditions hold: a is optimal
      passive[static_cast<std::size_t>(j)] = 1;
      for (;;) {
        solve_passive(z);
        double step = 1.0;
        bool feasible = true;
        for (Eigen::Index q = 0; q < m; ++q)
          if (passive[static_cast<std::size_t>(q)] && z[q] <= 0.0) {
            feasible = false;
            const double den = a[q] - z[q];
            if (den > 0.0) step = std::min(step, a[q] / den);
          }
        if (feasible) {
          a = z;
          break;
        }
        a += step * (z - a);
        bool any = false;
        for (Eigen::Index q = 0; q < m; ++q)
          if (passive[static_cast<std::size_t>(q)] && a[q] <= 1e-300) {
            passive[static_cast<std::size_t>(q)] = 0;
            a[q] = 0.0;
            any = true;
          }
        if (!any || budget-- <= 0) break;  // guard against cycling on degenerate data
      }
    }
    return bound_from(S, a);
  }

  V X_;
  const LinearProblem& p_;
  const HomotopyOptions& opt_;
  const Callbacks& cb_;
  Index n_, d_, dim_;
  double scale_;
  bool free_bias_;
  int n_threads_;
  ReductionBuffers buf_;
  long long row_visits_ = 0;
  // Solve state (the steps of run() share it).
  Clock::time_point start_;
  double alpha_ = 0.0, K_ = 0.0, lambda_scale_ = 0.0, lambda_ = 1.0;
  Index batch_ = 0, pos_ = 0;
  std::vector<double> wbar_, w_, wsum_, g_, wbest_, freq_;
  std::vector<Index> order_;
  std::mt19937_64 rng_;
  double f_best_ = kInf, upper_best_ = kInf, dual_best_ = -kInf, gap_ = kNaN;
  long long s_ = 0, total_inner_ = 0;
  bool separable_ = true;
  HomotopyExtras out_;
  LinearObjective<V, HingeLoss> obj_;
};

}  // namespace

void validate_options(const HomotopyOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_HOMOTOPY_OPTIONS, "homotopy", o);
  if (!(o.r > 2.0 * o.p))
    throw_invalid("homotopy option 'r' must be > 2p, got " + std::to_string(o.r));
  // t_s = ceil((s0 + s)^r) inner steps is cast to a long long: the largest one (s = max_iter - 1)
  // must fit (a double above 2^62 would make the cast undefined behaviour).
  if (o.max_iter > 0) {
    const double t_max = std::pow(o.s0 + static_cast<double>(o.max_iter - 1), o.r);
    if (!(t_max <= 4.0e18))
      throw_invalid("homotopy: the inner step count t_s = (s0 + s)^r overflows (" +
                    std::to_string(t_max) + " at s = max_iter - 1); lower r, s0 or max_iter");
  }
  if (o.iterate != "average" && o.iterate != "best")
    throw_invalid("homotopy option 'iterate' must be 'average' or 'best', got '" + o.iterate + "'");
}

SolveResult solve_homotopy(const LinearProblem& problem, const HomotopyOptions& options,
                           const Callbacks& callbacks) {
  validate_options(options);
  LossSpec hinge;
  hinge.kind = LossKind::hinge;
  validate_problem(problem, hinge, options.check_input);
  return std::visit(
      [&](const auto& X) {
        Homotopy<std::decay_t<decltype(X)>> solver(X, problem, options, callbacks);
        return solver.run();
      },
      problem.X);
}

}  // namespace svmkit
