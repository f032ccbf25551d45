// ipm: Mehrotra's predictor-corrector interior-point method for the hinge-loss and the
// epsilon-insensitive linear SVM with few features (solvers/ipm.hpp states the problems, the
// method and the stopping rule).
//
// Notation (ipm.hpp's smooth form): per sample i (rows of positive cost) with z_i = w.x_i + b s,
// the slack xi_i >= 0 with multiplier zA_i and the margin rows
//   P: a_i z_i + xi_i - h_i = sP_i >= 0   (multiplier zP_i)
//   M: -z_i + xi_i + y_i + eps = sM_i >= 0 (multiplier zM_i; the epsilon-insensitive loss only)
// with a_i = y_i, h_i = 1 for the hinge and a_i = 1, h_i = y_i - eps for the epsilon-insensitive
// loss; per feature j (l1 > 0) t_j with the slacks sC_j = t_j - w_j, sD_j = t_j + w_j and their
// multipliers zC_j, zD_j. Every constraint but the margin rows starts feasible and stays so (their
// Newton equations are linear and exact), so only the margin residuals rP, rM are carried.
#include "svmkit/solvers/ipm.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "hinge_certificate.hpp"
#include "kink_dual.hpp"
#include "svmkit/data.hpp"
#include "svmkit/detail/assembled_hessian.hpp"
#include "svmkit/detail/gram_kernels.hpp"
#include "svmkit/detail/parallel.hpp"

namespace svmkit {
namespace {

// Ridge added to a system that Cholesky rejects, relative to its largest diagonal entry (near
// the optimum the weights D_i span 30 orders of magnitude), then grown 100x per retry.
constexpr double kFirstRidge = 1e-13;
constexpr int kRidgeRetries = 4;
// Most row chunks forming the system, each with its own m x m partial sum (max_system_mb).
constexpr int kMaxGramChunks = 4;
// The working set's restricted solves run to this fraction of tol (and again of that when every
// feature's condition holds yet the certificate on all of them is above tol): the dual point's
// scaling onto all features costs a little of the gap.
constexpr double kWorkingSetTolFraction = 0.5;
// The working set is checked on all features once per start, at the first iterate whose
// restricted gap is at most this, and at the end: where features are missing, the start's
// remaining iterations are not spent. Measured on sparse 1,600 x 50,000 (l1, C = 1): checks at
// gaps 0.2 / 0.05 / 0.01 / only at the end took 28 / 31 / 33 / 40 iterations.
constexpr double kGrowGap = 0.2;
// In the sample form (system_form) the features with |r_j| > kNearViolation l1 join the working
// set with the violators (within the same cap). Measured on dense 240 x 5,000 (two Gaussians,
// C = 1, l1): 0.95 / 0.9 / 0.8 / 0.7 / 0.5 / none took 51 / 42 / 30 / 31 / 31 / 62 iterations
// (set 618-1000 against 571); in the feature form the same padding traded between shapes of
// sparse text (1,600 x 50,000 13.0 -> 13.9 ms, 16,000 x 10,000 0.60 -> 0.48 s) and is not used.
constexpr double kNearViolation = 0.8;
// Iterative refinement of the sample form's solves (Ipm::solve_samples): up to kMaxRefinements
// steps on the residual, until a step changes the solution by at most kRefineTol of its
// largest entry. Without them the l1 hinge on 6 x 4,000 and 20 x 600 (Gaussian, C = 1) ended at
// max_iter with a gap of 0.32 and in a numerical error, and the epsilon-insensitive loss on
// 200 x 1,500 with features scaled 0.1-10 at max_iter; with them 96 problems (hinge l1 / elastic
// net / l2, epsilon-insensitive; dense and sparse; zero and unequal costs; each intercept
// setting) took the feature form's iteration counts and objectives to 1e-4. Each step costs 4
// n_samples n_features multiply-adds, against the system's n_samples^2 n_features; a fixed
// second step took 240 x 5,000 from 0.049 to 0.058 s.
constexpr int kMaxRefinements = 4;
constexpr double kRefineTol = 1e-8;

// The form of ipm's normal equations (Ipm::factor, Ipm::factor_samples) and its MiB: the
// cheaper per iteration in floating-point operations, for na samples of positive cost, d
// features (m = d + 1 with a bias), X's stored entries and its layout. The feature form forms
// an m-square system (dense rows n m^2, sparse rows about entries^2 / n) with up to
// kMaxGramChunks partial sums and factors it (m^3 / 3); the sample form builds a dense na x d
// copy of X's scaled rows and an na-square system from it (na^2 d) and factors that (na^3 / 3).
// A form above max_mb gives way to the other where that one fits. choice (the option
// system_form) other than "auto" names the form.
struct SystemForm {
  bool samples;
  double mb;          // the chosen form's
  double feature_mb;  // the feature form's
};
SystemForm system_form(double na, double d, double m, double entries, bool sparse, double max_mb,
                       const std::string& choice) {
  constexpr double kMiB = 1024.0 * 1024.0;
  const double feature_mb = m * m * 8.0 * (1.0 + kMaxGramChunks) / kMiB;
  const double sample_mb = (na * d + na * na * (1.0 + kMaxGramChunks)) * 8.0 / kMiB;
  const double gram = sparse ? entries * entries / std::max(na, 1.0) : na * m * m;
  const double feature_flops = gram + m * m * m / 3.0;
  const double sample_flops = na * na * d + na * na * na / 3.0 + 8.0 * na * d;
  if (choice != "auto") {
    const bool samples = choice == "samples";
    return {samples, samples ? sample_mb : feature_mb, feature_mb};
  }
  bool samples = sample_flops < feature_flops;
  if (samples && sample_mb > max_mb && feature_mb <= max_mb) samples = false;
  if (!samples && feature_mb > max_mb && sample_mb <= max_mb) samples = true;
  return {samples, samples ? sample_mb : feature_mb, feature_mb};
}

// Cholesky of the system S (its triangle that llt reads), with kRidgeRetries growing ridges
// where it fails; false when every try fails.
template <class Llt>
bool factor_with_ridge(Eigen::MatrixXd& S, Llt& llt) {
  double ridge = kFirstRidge * S.diagonal().maxCoeff();
  for (int attempt = 0; attempt <= kRidgeRetries; ++attempt) {
    llt.compute(S);
    if (llt.info() == Eigen::Success) return true;
    S.diagonal().array() += ridge;
    ridge *= 100.0;
  }
  return false;
}

// One Newton direction (ipm.hpp's variables and slacks). Per sample only the slacks' changes are
// kept: the multipliers' follow from them and the complementarity targets rc (Ipm::dz), which
// keeps a hinge fit's memory at 10 doubles a sample (13 for the epsilon-insensitive loss).
struct Direction {
  std::vector<double> dw, dt, dsC, dsD, dzC, dzD;  // per feature (dt.. only with l1 > 0)
  std::vector<double> dxi, dsP, dsM;               // per sample (dsM: regression only)
  double db = 0.0;
  void resize(Index n, Index d, bool l1, bool two_sided) {
    dw.assign(static_cast<std::size_t>(d), 0.0);
    for (auto* v : {&dt, &dsC, &dsD, &dzC, &dzD})
      v->assign(l1 ? static_cast<std::size_t>(d) : 0, 0.0);
    dxi.assign(static_cast<std::size_t>(n), 0.0);
    dsP.assign(static_cast<std::size_t>(n), 0.0);
    dsM.assign(two_sided ? static_cast<std::size_t>(n) : 0, 0.0);
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
  Ipm(const V& X, const LinearProblem& p, const LossSpec& loss, const IpmPenalty& pen,
      const IpmOptions& opt, const Callbacks& cb)
      : X_(X),
        p_(p),
        pen_(pen),
        opt_(opt),
        cb_(cb),
        n_(X.rows),
        nb_(p.fit_intercept ? 1 : 0),
        d_(X.cols),
        m_(X.cols + (p.fit_intercept ? 1 : 0)),
        l1_(pen.l1 > 0.0),
        two_(loss.kind == LossKind::epsilon_insensitive),
        eps_(two_ ? loss.epsilon : 0.0),
        bias_pen_(p.fit_intercept && p.regularize_intercept && pen.l2 > 0.0 ? pen.l2 : 0.0),
        s_(p.intercept_scaling),
        threads_(resolve_threads(opt.n_threads)),
        tol_(opt.tol) {}

  // What the working set (solve_working_set) did at a check of run's grow hook: nothing to
  // add, features joined (the method starts again), the point is accepted, tol is to be
  // halved, or the run is to end (status max_iter).
  enum class Grow { none, grown, done, tighten, stop };
  // run(grow): grow(final, primal) is called at every iterate whose gap is <= tol (final =
  // true; only Grow::done ends the run as converged) and at the first of each start whose gap
  // is <= kGrowGap (primal: F at the iterate). max_iter counts from each start.
  SolveResult run() {
    return run([](bool, double) { return Grow::done; });
  }
  template <class GrowHook>
  SolveResult run(GrowHook&& grow);
  // The features that the view (X_) holds beyond the point's join it, and the method starts
  // again from its starting point (start()). Continuing instead, from the current point or from
  // a well-centred earlier iterate (Gondzio's warm start for cutting planes) with the new
  // features' pairs centred, took 20-50 short steps on sparse text (t and the dual residual of
  // a joining feature far from their optimum), a start from scratch 12-14 iterations.
  void add_features() {
    d_ = X_.cols;
    m_ = d_ + nb_;
    start();
  }
  // Feature j's diagonal in the normal equations: l2 + E_j (E_j from the pair t_j -+ w_j).
  double feature_diagonal(std::size_t k) const {
    if (!l1_) return pen_.l2;
    const double wc = zC_[k] / (t_[k] - w_[k]), wd = zD_[k] / (t_[k] + w_[k]);
    return pen_.l2 + 4.0 * wc * wd / (wc + wd);
  }
  // Whether the current start's systems are in the sample form (factor_samples).
  bool sample_form() const { return samples_; }
  // The hinge's margin multipliers at the last point, clipped into [0, cost_i]: the dual point
  // of its certificate (the working set's check on all features reads it).
  void margin_multipliers(std::vector<double>& a) const {
    a.assign(static_cast<std::size_t>(n_), 0.0);
    for (Index i = 0; i < n_; ++i)
      if (active(static_cast<std::size_t>(i)))
        a[static_cast<std::size_t>(i)] = std::clamp(zP_[i], 0.0, p_.cost[i]);
  }

 private:
  bool active(std::size_t i) const { return p_.cost[i] > 0.0; }
  // Row P's coefficient of z_i and its right-hand side.
  double coef(Index i) const { return two_ ? 1.0 : p_.y[i]; }
  double rhs_p(Index i) const { return two_ ? p_.y[i] - eps_ : 1.0; }
  // A multiplier's change for its slack's change ds (solved for the target rc): z ds + s dz = -rc.
  static double dz(double z, double s, double ds, double rc) { return -(z * ds + rc) / s; }
  // The Schur weights of sample k: D (its row of the system), the xi block S and a W_P - W_M.
  void weights(std::size_t k, double* D, double* S, double* cross) const {
    const double wa = zA_[k] / xi_[k], wp = zP_[k] / sP_[k];
    const double wm = two_ ? zM_[k] / sM_[k] : 0.0;
    *S = wa + wp + wm;
    *D = (wa * (wp + wm) + 4.0 * wp * wm) / *S;  // = wp + wm - (a wp - wm)^2 / S, a^2 = 1
    *cross = coef(static_cast<Index>(k)) * wp - wm;
  }
  void residuals();
  double certificate(double* primal);
  bool factor();
  bool factor_samples();
  // The rest of the start forms the feature form (where the sample form's system does not
  // factor or its refinement does not settle, and the feature form fits max_system_mb).
  void to_feature_form() {
    samples_ = false;
    Z_.resize(0, 0);
    parts_.clear();
    K_.resize(m_, m_);
  }
  Eigen::VectorXd woodbury(const Eigen::VectorXd& rhs) const;
  bool solve_samples(const Eigen::VectorXd& rhs, Eigen::VectorXd& sol) const;
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
  const Index n_, nb_;
  Index d_, m_;          // grow with add_features
  const bool l1_, two_;  // two_: the epsilon-insensitive loss (both margin rows)
  const double eps_, bias_pen_, s_;
  const int threads_;
  double tol_;  // opt_.tol, tightened by the working set (Grow::tighten)
  long long passes_ = 0;

  std::vector<double> w_, t_, zC_, zD_;              // per feature
  std::vector<double> xi_, sP_, zA_, zP_, sM_, zM_;  // per sample (sM_, zM_: regression)
  double b_ = 0.0;
  // The margin residuals, w's dual residual and a per-feature scratch vector (X'v). dual_.a
  // doubles as the per-sample scratch of the passes (its certificate values are set where used).
  std::vector<double> rP_, rM_, rw_, a_;
  double rb_ = 0.0;
  Eigen::MatrixXd K_;  // the normal-equation system (its upper triangle)
  Eigen::LLT<Eigen::MatrixXd, Eigen::Upper> llt_;  // reads K_'s upper triangle
  // The sample-space form of the system (factor_samples), chosen at each start where it costs
  // less: rows_ (the samples of positive cost), Z = D^1/2 X A^-1/2 on them, M = I + Z Z' and
  // its factor, A^-1/2 (A = diag(l2 + E)), D^1/2 and, with a bias, q = M^-1 D^1/2 and the bias
  // equation's Schur complement.
  bool samples_ = false;
  bool features_fit_ = false;  // whether a start may change to the feature form (system_form auto)
  std::vector<Index> rows_;
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Z_;
  Eigen::MatrixXd M_;
  std::vector<Eigen::MatrixXd> parts_;  // M's partial sums over column chunks of Z
  Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt_m_;
  Eigen::VectorXd a_half_, d_half_, q_;
  double schur_ = 0.0;
  ReductionBuffers rbuf_, gbuf_;
  hinge_cert::HingeDualPoint dual_;
  Direction dir_;  // the predictor's, then (over it) the corrector's
  std::vector<double> rcA_, rcP_, rcM_, rcC_, rcD_;  // complementarity targets of a Newton solve
  double pairs_ = 0.0;                               // number of complementary pairs
};

// Residuals at the current point: rP, rM (margins), rw_ and rb_ (stationarity in w and b).
template <class V>
void Ipm<V>::residuals() {
  matvec(X_, w_.data(), dual_.a.data(), threads_);
  ++passes_;
  double sum = 0.0;
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) {
      rP_[k] = dual_.a[k] = 0.0;
      if (two_) rM_[k] = 0.0;
      continue;
    }
    const double z = dual_.a[k] + s_ * b_;
    rP_[k] = coef(i) * z + xi_[k] - rhs_p(i) - sP_[k];
    if (two_) rM_[k] = -z + xi_[k] + p_.y[i] + eps_ - sM_[k];
    dual_.a[k] = coef(i) * zP_[k] - (two_ ? zM_[k] : 0.0);  // the z-row's multiplier
    sum += dual_.a[k];
  }
  rmatvec(X_, dual_.a.data(), rw_.data(), threads_, rbuf_);
  ++passes_;
  for (Index j = 0; j < d_; ++j) {
    const auto k = static_cast<std::size_t>(j);
    rw_[k] = pen_.l2 * w_[k] - rw_[k] + (l1_ ? zC_[k] - zD_[k] : 0.0);
  }
  rb_ = bias_pen_ * b_ - s_ * sum;
}

// The relative duality gap at (w, b) and the margin multipliers, and *primal = F(w, b); the
// margins come from rP_ (residuals() of this point). Hinge: hinge_certificate.hpp's dual value of
// a = zP clipped into the box, made feasible by scaling; epsilon-insensitive: kink_dual.hpp's of
// beta = zP - zM clipped into [-cost, cost], balanced for a free bias and scaled by its best t.
template <class V>
double Ipm<V>::certificate(double* primal) {
  double loss = 0.0;
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) {
      dual_.a[k] = 0.0;
      continue;
    }
    const double c = p_.cost[i];
    if (two_) {  // z - y from row P: z = rP - xi + y - eps + sP
      const double r = rP_[k] - xi_[k] - eps_ + sP_[k];
      loss += c * std::max(0.0, std::fabs(r) - eps_);
      dual_.a[k] = std::clamp(zP_[k] - zM_[k], -c, c);
    } else {
      loss += c * std::max(0.0, xi_[k] - sP_[k] - rP_[k]);  // 1 - y z
      dual_.a[k] = std::clamp(zP_[k], 0.0, c);
    }
  }
  double pen = 0.0;
  for (Index j = 0; j < d_; ++j) {
    const double v = w_[static_cast<std::size_t>(j)];
    pen += pen_.l1 * std::fabs(v) + 0.5 * pen_.l2 * v * v;
  }
  pen += 0.5 * bias_pen_ * b_ * b_;
  *primal = pen + loss;
  double dual;
  if (two_) {
    dual = scaled_dual_value(X_, p_, eps_, dual_.a, a_, threads_, rbuf_, pen_.l2);
  } else {
    hinge_cert::hinge_residual(X_, p_, dual_);
    dual = hinge_cert::hinge_dual_value(X_, p_, pen_, bias_pen_ > 0.0, dual_);
  }
  ++passes_;
  return *primal > 0.0 ? (*primal - dual) / *primal : 0.0;
}

// Forms and factors K = [X, s 1]' D [X, s 1] + diag(l2 + E, bias penalty); false when Cholesky
// fails even with kRidgeRetries growing ridges.
template <class V>
bool Ipm<V>::factor() {
  if (samples_) {
    if (factor_samples()) return true;
    if (!features_fit_) return false;
    to_feature_form();  // the sample form's system failed to factor
  }
  K_.setZero();
  const auto weight = [&](Index i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) return 0.0;
    double D, S, cross;
    weights(k, &D, &S, &cross);
    return D;
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
  for (Index j = 0; j < d_; ++j) K_(j, j) += feature_diagonal(static_cast<std::size_t>(j));
  if (nb_) K_(d_, d_) += bias_pen_;
  return factor_with_ridge(K_, llt_);
}

// The same system in sample space, for fewer samples than features (a working set larger than
// the data's rows, or l2 alone on wide data). With P = X' D X + A, A = diag(l2 + E) > 0 (E > 0
// with l1, l2 > 0 without), Woodbury's identity gives P^-1 = A^-1/2 (I - Z' M^-1 Z) A^-1/2 with
// Z = D^1/2 X A^-1/2 and M = I + Z Z' (rows of positive cost only; its eigenvalues are >= 1).
// The bias is eliminated last, through the scalar Schur complement
//   k - c' P^-1 c = s^2 (D^1/2)' M^-1 D^1/2 + bias penalty,  c = s X' D 1, k = s^2 sum D + pen.
// Forming M costs n^2 m / 2 multiply-adds and its factor n^3 / 3, against n m^2 / 2 and m^3 / 3.
template <class V>
bool Ipm<V>::factor_samples() {
  const auto na = static_cast<Index>(rows_.size());
  for (Index j = 0; j < d_; ++j)
    a_half_[j] = 1.0 / std::sqrt(feature_diagonal(static_cast<std::size_t>(j)));
  if constexpr (is_csr_view<V>::value) Z_.setZero();  // dense rows overwrite every entry
  for (Index r = 0; r < na; ++r) {
    const auto k = static_cast<std::size_t>(rows_[static_cast<std::size_t>(r)]);
    double D, S, cross;
    weights(k, &D, &S, &cross);
    const double h = std::sqrt(D);
    d_half_[r] = h;
    for_each_in_row(X_, static_cast<Index>(k),
                    [&](Index j, double v) { Z_(r, j) = h * v * a_half_[j]; });
  }
  ++passes_;
  // Column chunks of Z, each with its own partial sum (as factor's row chunks: deterministic for
  // a fixed thread count), summed in chunk order.
  const double work = static_cast<double>(na) * static_cast<double>(na) * static_cast<double>(d_);
  const int chunks = static_cast<int>(
      std::min<Index>({std::max<Index>(1, static_cast<Index>(work / 2.0) / kEntriesPerChunk),
                       Index{threads_}, Index{kMaxGramChunks}, std::max<Index>(1, d_)}));
  parts_.resize(static_cast<std::size_t>(chunks));
  for (Eigen::MatrixXd& part : parts_) part.resize(na, na);  // outside the parallel region
  const bool fused = detail::fused_gram_available();
  parallel_chunks(d_, chunks, [&](int c, Index b, Index e) {
    Eigen::MatrixXd& part = parts_[static_cast<std::size_t>(c)];
    part.setZero();
    if (fused)
      detail::fused_gram_lower(Z_.data() + b, na, d_, e - b, part.data(), na);
    else
      part.template selfadjointView<Eigen::Lower>().rankUpdate(Z_.middleCols(b, e - b));
  });
  M_.setIdentity();
  for (const Eigen::MatrixXd& part : parts_) M_.template triangularView<Eigen::Lower>() += part;
  if (!factor_with_ridge(M_, llt_m_)) return false;
  if (nb_) {
    q_ = llt_m_.solve(d_half_);
    schur_ = s_ * s_ * d_half_.dot(q_) + bias_pen_;
    if (!(schur_ > 0.0) || !std::isfinite(schur_)) return false;
  }
  return true;
}

// The solution of the system for rhs (factor_samples): u = M^-1 Z A^-1/2 r_w, the bias step
// db = (r_b - s (D^1/2)' u) / schur, then dw = A^-1/2 (A^-1/2 r_w - Z' (u + s db q)).
// Woodbury's solution loses the digits of the features with tiny A_j (the support, where E_j
// goes to 0) and of the samples with large D_i to cancellation in A^-1/2 r - Z' u, so
// solve_samples refines it (kMaxRefinements; the residual computed in the scaled variables).
template <class V>
Eigen::VectorXd Ipm<V>::woodbury(const Eigen::VectorXd& rhs) const {
  Eigen::VectorXd sol(m_);
  const Eigen::VectorXd r = rhs.head(d_).cwiseProduct(a_half_);
  Eigen::VectorXd u = llt_m_.solve(Z_ * r);
  if (nb_) {
    const double db = (rhs[d_] - s_ * d_half_.dot(u)) / schur_;
    u += (s_ * db) * q_;
    sol[d_] = db;
  }
  sol.head(d_) = (r - Z_.transpose() * u).cwiseProduct(a_half_);
  return sol;
}

template <class V>
bool Ipm<V>::solve_samples(const Eigen::VectorXd& rhs, Eigen::VectorXd& sol) const {
  sol = woodbury(rhs);
  for (int k = 0; k < kMaxRefinements; ++k) {
    // K sol in the scaled variables x = A^1/2 w: A^1/2 (x + Z' (Z x + s db D^1/2)).
    const Eigen::VectorXd x = sol.head(d_).cwiseQuotient(a_half_);
    const Eigen::VectorXd zx = Z_ * x;
    const double db = nb_ ? sol[d_] : 0.0;
    Eigen::VectorXd res(m_);
    res.head(d_) =
        rhs.head(d_) - (x + Z_.transpose() * (zx + (s_ * db) * d_half_)).cwiseQuotient(a_half_);
    if (nb_)
      res[d_] = rhs[d_] - s_ * d_half_.dot(zx) - (s_ * s_ * d_half_.squaredNorm() + bias_pen_) * db;
    const Eigen::VectorXd step = woodbury(res);
    sol += step;
    if (step.lpNorm<Eigen::Infinity>() <= kRefineTol * sol.lpNorm<Eigen::Infinity>()) return true;
  }
  return false;
}

// The Newton direction for the complementarity targets rc (s z - target per constraint):
// ipm.hpp's normal equations, with xi and t eliminated.
template <class V>
void Ipm<V>::solve(Direction& dir) {
  Eigen::VectorXd rhs(m_);
  // Per sample: g_xi = -r_xi - qA - qP - qM (r_xi = cost - zA - zP - zM), folded into v, the
  // coefficient of x_i in the right-hand side.
  double vsum = 0.0;
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) {
      dual_.a[k] = 0.0;
      continue;
    }
    double D, S, cross;
    weights(k, &D, &S, &cross);
    const double qa = rcA_[k] / xi_[k];
    const double qp = zP_[k] / sP_[k] * rP_[k] + rcP_[k] / sP_[k];
    const double qm = two_ ? zM_[k] / sM_[k] * rM_[k] + rcM_[k] / sM_[k] : 0.0;
    const double gxi = -(p_.cost[i] - zA_[k] - zP_[k] - (two_ ? zM_[k] : 0.0)) - qa - qp - qm;
    dir.dxi[k] = gxi;  // kept for the back substitution
    dual_.a[k] = coef(i) * qp - qm + cross / S * gxi;
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
      const double qc = rcC_[k] / sc, qd = rcD_[k] / sd;
      const double gt = -(pen_.l1 - zC_[k] - zD_[k]) - qc - qd;
      dir.dt[k] = gt;
      r += qc - qd - (wd - wc) / (wc + wd) * gt;
    }
    rhs[j] = r;
  }
  if (nb_) rhs[d_] = -rb_ - s_ * vsum;
  Eigen::VectorXd sol;
  if (!samples_) {
    sol = llt_.solve(rhs);
  } else if (!solve_samples(rhs, sol) && features_fit_) {
    // Refinement did not settle (near the optimum of a degenerate problem at a tight tol): the
    // rest of this start forms the feature form, which Cholesky solves stably.
    to_feature_form();
    if (factor()) sol = llt_.solve(rhs);
  }
  for (Index j = 0; j < d_; ++j) dir.dw[static_cast<std::size_t>(j)] = sol[j];
  dir.db = nb_ ? sol[d_] : 0.0;
  matvec(X_, dir.dw.data(), dual_.a.data(), threads_);  // x_i.dw
  ++passes_;
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    if (!active(k)) {
      dir.dxi[k] = dir.dsP[k] = 0.0;
      if (two_) dir.dsM[k] = 0.0;
      continue;
    }
    double D, S, cross;
    weights(k, &D, &S, &cross);
    const double dzi = dual_.a[k] + s_ * dir.db;  // the change of z_i
    const double dxi = (dir.dxi[k] - cross * dzi) / S;
    dir.dxi[k] = dxi;
    dir.dsP[k] = rP_[k] + coef(i) * dzi + dxi;
    if (two_) dir.dsM[k] = rM_[k] - dzi + dxi;
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
      dir.dzC[k] = -wc * dir.dsC[k] - rcC_[k] / sc;
      dir.dzD[k] = -wd * dir.dsD[k] - rcD_[k] / sd;
    }
  }
}

// The longest steps (at most 1) keeping the slacks (ap) and the multipliers (ad) nonnegative.
template <class V>
void Ipm<V>::step_lengths(const Direction& dir, double* ap, double* ad) const {
  const auto on = [&](std::size_t i) { return active(i); };
  const auto all = [](std::size_t) { return true; };
  double a = max_step(xi_, dir.dxi, on, 1.0);
  a = max_step(sP_, dir.dsP, on, a);
  if (two_) a = max_step(sM_, dir.dsM, on, a);
  double z = 1.0;
  const auto limit = [&z](double v, double dv) {
    if (dv < 0.0) z = std::min(z, -v / dv);
  };
  for (std::size_t k = 0; k < zA_.size(); ++k) {
    if (!active(k)) continue;
    limit(zA_[k], dz(zA_[k], xi_[k], dir.dxi[k], rcA_[k]));
    limit(zP_[k], dz(zP_[k], sP_[k], dir.dsP[k], rcP_[k]));
    if (two_) limit(zM_[k], dz(zM_[k], sM_[k], dir.dsM[k], rcM_[k]));
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
  const std::size_t dl = l1_ ? dz : 0, nm = two_ ? nz : 0;
  w_.assign(dz, 0.0);
  t_.assign(dl, 1.0);
  zC_.assign(dl, 0.5 * pen_.l1);
  zD_.assign(dl, 0.5 * pen_.l1);
  xi_.assign(nz, 1.0);
  sP_.assign(nz, 1.0);
  sM_.assign(nm, 1.0);
  zA_.resize(nz);
  zP_.resize(nz);
  zM_.resize(nm);
  Index n_active = 0;
  const double share = two_ ? 1.0 / 3.0 : 0.5;  // of cost_i to each multiplier of sample i
  for (Index i = 0; i < n_; ++i) {
    const auto k = static_cast<std::size_t>(i);
    zA_[k] = zP_[k] = share * p_.cost[i];
    if (two_) {
      zM_[k] = share * p_.cost[i];
      // Both margin rows feasible at z = 0 with slacks of at least 1 (y is on its own scale).
      xi_[k] = std::max(std::fabs(p_.y[i]) - eps_, 0.0) + 1.0;
      sP_[k] = xi_[k] - p_.y[i] + eps_;
      sM_[k] = xi_[k] + p_.y[i] + eps_;
    }
    n_active += p_.cost[i] > 0.0;
  }
  rP_.assign(nz, 0.0);
  rM_.assign(nm, 0.0);
  a_.assign(dz, 0.0);
  rw_.assign(dz, 0.0);
  rows_.clear();
  for (Index i = 0; i < n_; ++i)
    if (active(static_cast<std::size_t>(i))) rows_.push_back(i);
  const SystemForm form =
      system_form(static_cast<double>(rows_.size()), static_cast<double>(d_),
                  static_cast<double>(m_), static_cast<double>(stored_entries(X_)),
                  is_csr_view<V>::value, opt_.max_system_mb, opt_.system_form);
  samples_ = form.samples;
  features_fit_ = opt_.system_form == "auto" && form.feature_mb <= opt_.max_system_mb;
  const auto na = static_cast<Index>(rows_.size());
  K_.resize(samples_ ? 0 : m_, samples_ ? 0 : m_);
  Z_.resize(samples_ ? na : 0, samples_ ? d_ : 0);
  M_.resize(samples_ ? na : 0, samples_ ? na : 0);
  a_half_.resize(samples_ ? d_ : 0);
  d_half_.resize(samples_ ? na : 0);
  dual_.a.assign(nz, 0.0);
  dual_.rpos.assign(dz, 0.0);
  dual_.rneg.assign(dz, 0.0);
  dir_.resize(n_, d_, l1_, two_);
  rcA_.assign(nz, 0.0);
  rcP_.assign(nz, 0.0);
  rcM_.assign(nm, 0.0);
  rcC_.assign(dl, 0.0);
  rcD_.assign(dl, 0.0);
  pairs_ = static_cast<double>((two_ ? 3 : 2) * n_active + 2 * static_cast<Index>(dl));
}

// mu: the mean complementarity product.
template <class V>
double Ipm<V>::complementarity() const {
  double s = 0.0;
  for (std::size_t i = 0; i < xi_.size(); ++i)
    if (active(i)) s += xi_[i] * zA_[i] + sP_[i] * zP_[i] + (two_ ? sM_[i] * zM_[i] : 0.0);
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
    rcP_[i] = sP_[i] * zP_[i];
    if (two_) rcM_[i] = sM_[i] * zM_[i];
  }
  for (std::size_t j = 0; j < dl; ++j) {
    rcC_[j] = (t_[j] - w_[j]) * zC_[j];
    rcD_[j] = (t_[j] + w_[j]) * zD_[j];
  }
  solve(dir_);
  double ap = 0.0, ad = 0.0;
  step_lengths(dir_, &ap, &ad);
  // The predictor's multipliers' changes, read before the targets change.
  const auto dzs = [&](std::size_t i, double* da, double* dp, double* dm) {
    *da = dz(zA_[i], xi_[i], dir_.dxi[i], rcA_[i]);
    *dp = dz(zP_[i], sP_[i], dir_.dsP[i], rcP_[i]);
    *dm = two_ ? dz(zM_[i], sM_[i], dir_.dsM[i], rcM_[i]) : 0.0;
  };
  double aff = 0.0;
  for (std::size_t i = 0; i < nz; ++i) {
    if (!active(i)) continue;
    double da, dp, dm;
    dzs(i, &da, &dp, &dm);
    aff += (xi_[i] + ap * dir_.dxi[i]) * (zA_[i] + ad * da) +
           (sP_[i] + ap * dir_.dsP[i]) * (zP_[i] + ad * dp);
    if (two_) aff += (sM_[i] + ap * dir_.dsM[i]) * (zM_[i] + ad * dm);
  }
  for (std::size_t j = 0; j < dl; ++j)
    aff += (t_[j] - w_[j] + ap * dir_.dsC[j]) * (zC_[j] + ad * dir_.dzC[j]) +
           (t_[j] + w_[j] + ap * dir_.dsD[j]) * (zD_[j] + ad * dir_.dzD[j]);
  const double ratio = aff / pairs_ / mu;
  const double centre = std::clamp(ratio * ratio * ratio, 0.0, 1.0) * mu;
  for (std::size_t i = 0; i < nz; ++i) {
    double da, dp, dm;
    dzs(i, &da, &dp, &dm);
    rcA_[i] += dir_.dxi[i] * da - centre;
    rcP_[i] += dir_.dsP[i] * dp - centre;
    if (two_) rcM_[i] += dir_.dsM[i] * dm - centre;
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
    double da, dp, dm;
    dzs(i, &da, &dp, &dm);  // before the slacks move
    xi_[i] += ap * dir_.dxi[i];
    sP_[i] += ap * dir_.dsP[i];
    zA_[i] += ad * da;
    zP_[i] += ad * dp;
    if (two_) {
      sM_[i] += ap * dir_.dsM[i];
      zM_[i] += ad * dm;
    }
  }
  for (std::size_t j = 0; j < dl; ++j) {
    t_[j] += ap * dir_.dt[j];
    zC_[j] += ad * dir_.dzC[j];
    zD_[j] += ad * dir_.dzD[j];
  }
  return ap;
}

template <class V>
template <class GrowHook>
SolveResult Ipm<V>::run(GrowHook&& grow) {
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
  bool checked = false;           // whether this start's point was checked below kGrowGap
  long long first_iteration = 0;  // iterations before this start (max_iter is per start)
  for (;;) {
    const double mu = complementarity();
    if (!std::isfinite(primal) || !std::isfinite(gap) || !std::isfinite(mu)) {
      res.status = SolverStatus::numerical_error;
      res.message = "ipm: a non-finite objective, duality gap or complementarity appeared";
      break;
    }
    const bool final = gap <= tol_;
    if (final || (!checked && gap <= kGrowGap)) {
      checked = true;
      const Grow g = grow(final, primal);
      if (g == Grow::grown) {  // the method starts again on more features
        checked = false;
        first_iteration = res.iterations;
        residuals();
        gap = certificate(&primal);
        continue;
      }
      if (g == Grow::stop) break;  // status max_iter: the working set is full
      if (g == Grow::tighten) tol_ *= kWorkingSetTolFraction;
      if (g == Grow::done && final) {
        res.status = SolverStatus::converged;
        break;
      }
    }
    if (res.iterations - first_iteration >= opt_.max_iter) break;
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
    rec.iteration = res.iterations;
    rec.objective = primal;
    rec.optimality = rec.gap = gap;
    rec.smoothing = mu;
    rec.active_size = d_;
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

// ---- The l1 penalty on many features: a working set of features (column generation). ----
//
// With the l1 penalty the optimum uses few of many features (sparse text: 430 of 10,000, 75 of
// 50,000 on the regime matrix's cells), and a feature j with w_j = 0 is optimal exactly when
// |r_j| <= l1 at the dual point a, r = sum_i a_i y_i x_i (hinge_certificate.hpp). So ipm runs on
// the working set W's columns only (an owned copy, ColumnSubset), then checks every feature with
// its multipliers a: the certificate on all of X (w = 0 off W: the same primal value, the dual
// made feasible by scaling) ends the run once its gap is <= tol; otherwise the features with the
// largest violations |r_j| - l1 join W (at most as many as W holds or working_set_initial: W at
// most doubles) and ipm runs again from its own start (Ipm::add_features). The check also runs
// once per start mid-way (kGrowGap), so a start that lacks features ends early. W starts as
// the features with the largest |r_j| at w = 0 (a_i = cost_i, every margin violated), among
// those that violate |r_j| <= l1 there. Where the optimum needs more than
// working_set_max_features while W holds fewer features than samples, the run ends (status
// max_iter, its message says so): each start in the feature form costs about as much as one on
// all of W, cubic in its size, so a large support is better left to l1_cd. From as many
// features as samples on, the sample form's cost grows linearly with W and the cap is lifted
// (make_classification 1,000 x 3,000: 2.6 s certified, where the hand-over to l1_cd and HiGHS
// took 18-19 s). Measured (bench/bench_l1_hinge_wide.py, bench/results/l1_hinge_wide.md,
// bench/bench_ipm_sample_form.py) against l1_cd's continuation on sparse text and dense data.

// X's columns with renumber[j] >= 0 (their new numbers, 0 .. k-1, increasing with j: CSR rows
// stay sorted where X's are), as an owned matrix: CSR input as CSR, dense input as dense
// row-major.
template <class V>
struct ColumnSubset {
  using T = typename V::value_type;
  std::vector<T> data;
  DenseRowMajorView<T> view;
  void build(const V& X, const std::vector<Index>& renumber, Index k) {
    data.assign(static_cast<std::size_t>(X.rows * k), T{0});
    for (Index i = 0; i < X.rows; ++i)
      for_each_in_row(X, i, [&](Index j, double v) {
        if (renumber[j] >= 0) data[i * k + renumber[j]] += static_cast<T>(v);
      });
    view = DenseRowMajorView<T>{data.data(), X.rows, k, k};
  }
};

template <class T, class I>
struct ColumnSubset<CsrView<T, I>> {
  std::vector<T> data;
  std::vector<I> indices, indptr;
  CsrView<T, I> view;
  void build(const CsrView<T, I>& X, const std::vector<Index>& renumber, Index k) {
    data.clear();
    indices.clear();
    indptr.assign(static_cast<std::size_t>(X.rows + 1), I{0});
    for (Index i = 0; i < X.rows; ++i) {
      for (I e = X.indptr[i]; e < X.indptr[i + 1]; ++e) {
        const Index r = renumber[static_cast<std::size_t>(X.indices[e])];
        if (r < 0) continue;
        indices.push_back(static_cast<I>(r));
        data.push_back(X.data[e]);
      }
      indptr[static_cast<std::size_t>(i + 1)] = static_cast<I>(data.size());
    }
    view = CsrView<T, I>{data.data(), indices.data(), indptr.data(), X.rows, k};
  }
};

// The samples of positive cost (the rows of the sample-space form).
double active_rows(const LinearProblem& p, Index n) {
  return static_cast<double>(std::count_if(p.cost, p.cost + n, [](double c) { return c > 0.0; }));
}

// Refuses a problem whose systems fit max_system_mb in neither form (system_form).
void check_system_budget(double na, double d, double m, const IpmOptions& opt,
                         const std::string& what) {
  const double max_mb = opt.max_system_mb;
  const double mb = system_form(na, d, m, 0.0, false, max_mb, opt.system_form).mb;
  if (mb <= max_mb) return;
  throw_invalid("ipm needs " + short_number(mb) + " MiB for its normal-equation systems (" + what +
                ": the smaller of an " + std::to_string(static_cast<long long>(m)) +
                "-square system with up to " + std::to_string(kMaxGramChunks) +
                " partial sums and a copy of the " + std::to_string(static_cast<long long>(na)) +
                " samples' rows with a system on them), above the option max_system_mb = " +
                short_number(max_mb) + "; use another solver for this many features");
}

// The features ranked by violation |r_j| - l1 > 0 (largest first), those in W left out.
std::vector<Index> violators(const std::vector<double>& r, const std::vector<Index>& renumber,
                             double l1) {
  std::vector<Index> out;
  for (std::size_t j = 0; j < r.size(); ++j)
    if (renumber[j] < 0 && std::fabs(r[j]) > l1) out.push_back(static_cast<Index>(j));
  std::stable_sort(out.begin(), out.end(), [&](Index a, Index b) {
    return std::fabs(r[static_cast<std::size_t>(a)]) > std::fabs(r[static_cast<std::size_t>(b)]);
  });
  return out;
}

template <class V>
SolveResult solve_working_set(const V& X, const LinearProblem& p, const LossSpec& loss,
                              const IpmPenalty& pen, const IpmOptions& opt, const Callbacks& cb) {
  const Index n = X.rows, d = X.cols, nb = p.fit_intercept ? 1 : 0;
  const bool bias_penalized = p.fit_intercept && p.regularize_intercept && pen.l2 > 0.0;
  hinge_cert::HingeDualPoint dual;
  dual.a.assign(static_cast<std::size_t>(n), 0.0);
  dual.rpos.assign(static_cast<std::size_t>(d), 0.0);
  dual.rneg.assign(static_cast<std::size_t>(d), 0.0);
  // r = X' (a y) = rpos - rneg, kept in rpos once the dual value is taken (one sequential pass:
  // the set does not depend on the thread count).
  std::vector<double>& r = dual.rpos;
  long long passes = 0;
  const auto residual = [&] {
    hinge_cert::hinge_residual(X, p, dual);
    ++passes;
  };
  const auto finish_r = [&] {
    for (Index j = 0; j < d; ++j) r[j] -= dual.rneg[j];
  };
  // At w = 0 every margin is violated: a_i = cost_i.
  std::copy(p.cost, p.cost + n, dual.a.begin());
  residual();
  finish_r();
  // set: the working set's features in X's order (renumber: their numbers in the subset; each
  // growth starts the method again, so no feature keeps its number).
  std::vector<Index> renumber(static_cast<std::size_t>(d), -1), set;
  const auto join = [&](std::vector<Index> add, std::size_t most) {
    add.resize(std::min(add.size(), most));
    const auto k = static_cast<double>(set.size() + add.size());
    check_system_budget(active_rows(p, n), k, k + nb, opt,
                        "a working set of " + std::to_string(static_cast<long long>(k)) +
                            " features that the l1 optimum needs");
    set.insert(set.end(), add.begin(), add.end());
    std::sort(set.begin(), set.end());
    for (std::size_t t = 0; t < set.size(); ++t) renumber[set[t]] = static_cast<Index>(t);
  };
  std::vector<Index> first = violators(r, renumber, pen.l1);
  if (first.empty()) first.push_back(0);  // w = 0 is optimal: one column keeps a system
  const auto most = static_cast<std::size_t>(opt.working_set_max_features);
  const auto samples = static_cast<std::size_t>(active_rows(p, n));
  bool full = false;  // whether the run ended with violators left and the set full
  join(std::move(first), std::min(most, static_cast<std::size_t>(opt.working_set_initial)));
  ColumnSubset<V> cols;
  cols.build(X, renumber, static_cast<Index>(set.size()));
  ++passes;

  LinearProblem q = p;
  q.X = cols.view;
  IpmOptions sub = opt;
  sub.check_input = false;
  sub.tol = opt.tol * kWorkingSetTolFraction;
  using SubView = decltype(cols.view);
  using Grow = typename Ipm<SubView>::Grow;
  Ipm<SubView> ipm(cols.view, q, loss, pen, sub, cb);
  double full_gap = kNaN;
  // The relative duality gap over all features at the restricted point (primal: its F; w = 0
  // off the set gives the same F), from its margin multipliers; leaves r = X' (a y) in rpos.
  const auto full_certificate = [&](double primal) {
    ipm.margin_multipliers(dual.a);
    residual();
    const double dual_value = hinge_cert::hinge_dual_value(X, p, pen, bias_penalized, dual);
    finish_r();
    full_gap = primal > 0.0 ? std::max(primal - dual_value, 0.0) / primal : 0.0;
  };
  const auto grow = [&](bool final, double primal) {
    full_certificate(primal);
    if (final && full_gap <= opt.tol) return Grow::done;
    // In the sample form a feature costs the system little (its cost grows linearly with the
    // set), so the near-violators join too, and fewer restarts are needed. The list is ranked,
    // so its first entry says whether any feature violates its condition.
    std::vector<Index> add =
        violators(r, renumber, ipm.sample_form() ? kNearViolation * pen.l1 : pen.l1);
    if (add.empty() || !(std::fabs(r[static_cast<std::size_t>(add.front())]) > pen.l1))
      return final ? Grow::tighten : Grow::none;
    // A full set ends the run at once: where the optimum needs more features, the rest of
    // ipm's work on them is lost to the method that takes over (solving the full set to its own
    // optimum first cost 0.2-0.9 s more on sparse text at C = 10, 1,600-5,000 x 10,000-200,000).
    // The cap bounds the feature form's cubic cost; once the set holds as many features as the
    // samples (the sample form's cost grows only linearly with the set) it is lifted.
    const std::size_t cap = set.size() + nb >= samples ? static_cast<std::size_t>(d) : most;
    if (set.size() >= cap) {
      full = true;
      return Grow::stop;
    }
    join(std::move(add),
         std::min(cap - set.size(),
                  std::max(set.size(), static_cast<std::size_t>(opt.working_set_initial))));
    cols.build(X, renumber, static_cast<Index>(set.size()));
    ++passes;
    ipm.add_features();
    return Grow::grown;
  };
  SolveResult res = ipm.run(grow);
  if (res.status != SolverStatus::numerical_error) {
    full_certificate(res.objective);
    res.optimality = full_gap;
    if (res.status == SolverStatus::max_iter && full)
      res.message = "ipm: the l1 optimum needs more than working_set_max_features = " +
                    std::to_string(opt.working_set_max_features) +
                    " features; the returned point (an iterate on that many) has a relative "
                    "duality gap of " +
                    short_number(full_gap) + " (a bound on (F - F*) / F)";
    else if (res.status == SolverStatus::max_iter)
      res.message = "ipm stopped at its iteration limit (" + std::to_string(opt.max_iter) +
                    " iterations from a start; the working set starts again as it grows) with a "
                    "relative duality gap of " +
                    short_number(full_gap) + " at the returned point (a bound on (F - F*) / F)";
  }
  std::vector<double> sol = std::move(res.solution);
  res.solution.assign(static_cast<std::size_t>(d + nb), 0.0);
  for (std::size_t t = 0; t < set.size(); ++t)
    res.solution[static_cast<std::size_t>(set[t])] = sol[t];
  if (nb) res.solution[static_cast<std::size_t>(d)] = sol[set.size()];
  res.passes += passes;
  return res;
}

}  // namespace

void validate_options(const IpmOptions& o) {
  SVMKIT_CHECK_OPTION_RANGES(SVMKIT_IPM_OPTIONS, "ipm", o);
  if (o.system_form != "auto" && o.system_form != "features" && o.system_form != "samples")
    throw_invalid("ipm option 'system_form' must be 'auto', 'features' or 'samples', got '" +
                  o.system_form + "'");
}

SolveResult solve_ipm(const LinearProblem& problem, const LossSpec& loss, const IpmPenalty& penalty,
                      const IpmOptions& options, const Callbacks& callbacks) {
  validate_options(options);
  if (loss.kind != LossKind::hinge && loss.kind != LossKind::epsilon_insensitive)
    throw_invalid(std::string("ipm handles the losses 'hinge' and 'epsilon_insensitive' only, "
                              "got '") +
                  to_string(loss.kind) + "'");
  validate_problem(problem, loss, options.check_input);
  if (!(penalty.l1 >= 0.0 && std::isfinite(penalty.l1) && penalty.l2 >= 0.0 &&
        std::isfinite(penalty.l2)) ||
      penalty.l1 + penalty.l2 <= 0.0)
    throw_invalid("ipm: the penalty weights l1 and l2 must be finite, >= 0 and not both zero");
  if (loss.kind == LossKind::epsilon_insensitive && !(penalty.l1 == 0.0))
    throw_invalid("ipm solves the epsilon-insensitive loss with the l2 penalty only (l1 = 0)");
  const double m = static_cast<double>(solution_size(problem));
  const double na = active_rows(problem, rows_of(problem.X));
  const double d = static_cast<double>(cols_of(problem.X));
  const bool working_set = loss.kind == LossKind::hinge && penalty.l1 > 0.0 &&
                           cols_of(problem.X) > options.working_set_min_features;
  if (!working_set) check_system_budget(na, d, m, options, "n_features");
  try {
    return std::visit(
        [&](const auto& X) {
          if (working_set) return solve_working_set(X, problem, loss, penalty, options, callbacks);
          Ipm<std::decay_t<decltype(X)>> ipm(X, problem, loss, penalty, options, callbacks);
          return ipm.run();
        },
        problem.X);
  } catch (const std::bad_alloc&) {
    SolveResult res;
    res.status = SolverStatus::out_of_memory;
    if (working_set)
      res.message = "ipm: out of memory for its per-feature vectors (3 of " +
                    std::to_string(static_cast<long long>(m) - (problem.fit_intercept ? 1 : 0)) +
                    " doubles, about " + short_number(3.0 * 8.0 * m / (1024.0 * 1024.0)) +
                    " MiB), its copy of the working set's columns or their normal-equation "
                    "systems (bounded by the options working_set_max_features and max_system_mb)";
    else
      res.message =
          "ipm: out of memory for its normal-equation systems (about " +
          short_number(
              system_form(na, d, m, 0.0, false, options.max_system_mb, options.system_form).mb) +
          " MiB, bounded by the option max_system_mb) or its per-sample vectors";
    return res;
  }
}

}  // namespace svmkit
