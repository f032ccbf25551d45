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
#pragma once

#include "svmkit/loss.hpp"
#include "svmkit/problem.hpp"

namespace svmkit {

// L_R(w); writes g_R (length solution_size(p)), h_R if hdiag is non-null, and D (length
// rows) if curvature is non-null. w has solution_size(p) entries.
double partition_fun_grad(const LinearProblem& p, const LossSpec& loss, const double* w,
                          double* grad, double* hdiag, double* curvature, int n_threads);

// L_R(w) alone.
double partition_fun(const LinearProblem& p, const LossSpec& loss, const double* w, int n_threads);

// out = H_R s (length solution_size(p)) with the per-row curvature D of a fun_grad pass.
void partition_hess_vec(const LinearProblem& p, const double* curvature, const double* s,
                        double* out, int n_threads);

}  // namespace svmkit
