// Per-partition passes of the linear objective, for solvers whose outer loop runs elsewhere
// (svmkit.dask: one task per row partition, the partial results summed on a driver).
//
// For the rows R of one partition of a LinearProblem (problem.hpp; regularize_intercept is
// ignored here) and a loss, with z_i = w.x_i + b * intercept_scaling and u_i the margin or
// residual of z_i:
//
//   loss part     L_R(w)   = sum_{i in R} cost_i loss(u_i)
//   gradient      g_R(w)   = grad of L_R (the bias coordinate last, scaled as in objective.hpp)
//   curvature     D_i      = cost_i loss''(u_i) for i in R (kept by the caller per partition)
//   Hessian diag  h_R(w)   = diag of X~^T D X~ over R
//   Hessian-vec   H_R s    = X~^T D (X~ s) over R, with the D of a previous fun_grad pass
//
// where X~ is X with the constant column intercept_scaling when fit_intercept. The
// regularizer 1/2 ||w||^2 (and 1/2 b^2) is NOT included: the driver adds it once after
// summing the partitions, so F = 1/2 ||w||^2 [+ 1/2 b^2] + sum_R L_R and likewise for the
// gradient and H s. Each pass is one sweep over the partition's rows, deterministic for a
// fixed n_threads (the partitions are summed by the driver in a fixed order).
//
// SmSVM (solvers/smsvm.hpp) over one partition, with v_i = cost_i / S (S = the sum of all
// partitions' costs, so the v of every partition sum to one), u_i = 1 - y_i z_i and
// phi_alpha the smoothed hinge (loss.hpp's psi_M with sigma = alpha):
//
//   sums          [sum v phi(u), sum v max(0, u), sum v (phi(u) - phi(u_old)),
//                  sum_{y=+1} v phi'(u), sum_{y=-1} v phi'(u)]
//   loss gradient -sum v phi'(u_i) y_i x~_i (split by class when asked: the y = +1 rows, then
//                  the y = -1 rows, for the duality gap with an unregularized bias)
//   active block  X~_A^T Dv X~_A, Dv_i = v_i phi''(u_i), A given by a position map
//
// in one sweep, plus the margins z (cached by the caller for the line search).
#pragma once

#include <vector>

#include "svmkit/loss.hpp"
#include "svmkit/problem.hpp"

namespace svmkit {

// L_R(w); writes g_R (length solution_size(p)), h_R if hdiag is non-null, D (length rows)
// if curvature is non-null, and the margins z (length rows, the same bits as
// partition_margins) if margins is non-null. w has solution_size(p) entries.
double partition_fun_grad(const LinearProblem& p, const LossSpec& loss, const double* w,
                          double* grad, double* hdiag, double* curvature, int n_threads,
                          double* margins = nullptr);

// L_R(w) alone.
double partition_fun(const LinearProblem& p, const LossSpec& loss, const double* w, int n_threads);

// out = H_R s (length solution_size(p)) with the per-row curvature D of a fun_grad pass.
void partition_hess_vec(const LinearProblem& p, const double* curvature, const double* s,
                        double* out, int n_threads);

// Layout of partition_smsvm_eval's packed output: kSmsvmSums sums, then the loss gradient
// (nc or 2 nc entries), then the k x k active block (column-major, lower triangle; only with
// hess).
constexpr int kSmsvmSums = 5;

// One SmSVM gradient pass over the partition p (p.cost holds v_i) at w and alpha. pos has
// solution_size(p) entries: the position of each coordinate in the active block or -1;
// k = the block's size. z_old (optional, rows entries) gives the margins of the previous
// point for the third sum; z (rows entries) receives the margins at w. packed has
// kSmsvmSums + (split ? 2 : 1) nc + (hess ? k k : 0) entries. One thread; rows are added in
// order and the block is assembled by rank updates of block_rows rows.
void partition_smsvm_eval(const LinearProblem& p, const double* w, double alpha,
                          const std::vector<Index>& pos, Index k, bool hess, bool split,
                          Index block_rows, const double* z_old, double* z, double* packed);

// z_i = w.x_i + b intercept_scaling over the partition (the margins of partition_smsvm_eval,
// bit for bit).
void partition_margins(const LinearProblem& p, const double* w, double* z);

// The hinge certificate's two driver-side steps (the in-memory certificate's own code,
// cpp/src/hinge_certificate.hpp), for a driver that gathers the sums and the margin band from
// its partitions. The problem is l1 ||w||_1 + l2/2 (||w||^2 + [bias_penalized] b^2) + sum_i
// C_i max(0, 1 - y_i (w.x_i + b s)) with s = intercept_scaling.
//
// The dual objective at the point with class sums sums = [sum_{y>0} a_i, sum_{y<0} a_i,
// sum_{y>0} a_i x_i (m entries), sum_{y<0} a_i x_i (m entries)], made feasible by scaling
// (a lower bound on the optimum).
// The fractions of the way from the smoothed dual point to the repaired one at which the
// certificate takes the dual value (the in-memory certificate's own points).
extern const double hinge_certificate_segment[5];

double hinge_dual_value_from_sums(const double* sums, Index m, double l1, double l2,
                                  bool fit_intercept, bool bias_penalized,
                                  double intercept_scaling);

// The margin band's repair at w (sol = w followed by b, m + 1 entries with an intercept):
// band_rows holds the band's rows y_i x_{i,S} on the support S = {j : w_j != 0} in order
// (n_band x k, row-major, k = |S| + 1 with the bias column y_i last), a (n_band entries, in
// the box [0, hi]) is changed in place to the least-norm change meeting the optimum's
// conditions at w, clipped to the box; sums as above, at the unrepaired point. False (a
// unchanged) when the band is empty or k^2 > max_gram.
bool hinge_repair_band(const double* sol, Index m, const double* band_rows, Index n_band, Index k,
                       double* a, const double* hi, const double* sums, double l1, double l2,
                       bool fit_intercept, bool bias_penalized, double intercept_scaling,
                       double max_gram);

}  // namespace svmkit
