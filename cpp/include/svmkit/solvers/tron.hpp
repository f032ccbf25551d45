// TRON: trust-region Newton method with (preconditioned) conjugate gradients.
//
// Problem: min_w F(w) = 1/2 ||w||^2 + sum_i C_i loss(u_i) (problem.hpp) for a twice
// (generalized) differentiable loss: smoothed_hinge (psi_M), gaussian_smoothed_hinge (psi_G),
// squared_hinge (generalized Hessian), logistic, squared_epsilon_insensitive and
// smoothed_epsilon_insensitive.
//
// Method: paper 002 (Luo, Qiao, Zhang, "Learning with Smooth Hinge Losses"), Algorithms 1
// (trust-region framework) and 2 (CG on the trust-region subproblem, stopped when
// ||r|| <= cg_tol ||g|| or at the region's boundary), with the trust-region update rules
// and constants of Lin and More's TRON as used by LIBLINEAR (eta0..2, sigma1..3 below).
// Optionally the CG is preconditioned by M = (1 - a) I + a diag(H) (a = preconditioner_weight)
// and the region is measured in the M-norm.
//
// Stopping rule: ||grad F(w)|| <= tol * ||grad F(0)|| (relative, so a warm start converges to
// the same accuracy as a cold one) or ||grad F(w)|| <= abs_tol, or max_iter outer iterations.
#pragma once

#include "svmkit/loss.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

struct TronOptions {
  double tol = 1e-4;                    // relative gradient-norm tolerance (see above)
  double abs_tol = 0.0;                 // absolute gradient-norm tolerance; 0 disables it
  long long max_iter = 1000;            // maximum number of outer (Newton) iterations
  double cg_tol = 0.1;                  // CG stops when ||r|| <= cg_tol ||g|| (paper 002's xi_t)
  long long max_cg_iter = 0;            // CG iteration limit per Newton step; 0 = problem dimension
  bool precondition = true;             // diagonal preconditioning of CG
  double preconditioner_weight = 0.01;  // a in M = (1 - a) I + a diag(H)
  double eta0 = 1e-4;                   // accept the step if actual/predicted reduction > eta0
  double eta1 = 0.25;                   // shrink the region below this ratio
  double eta2 = 0.75;                   // enlarge the region above this ratio
  double sigma1 = 0.25;                 // region update factors
  double sigma2 = 0.5;
  double sigma3 = 4.0;
  int n_threads = 0;           // OpenMP threads; <= 0 uses the OpenMP default
  bool record_history = true;  // keep one IterationRecord per outer iteration
  bool check_input = true;     // validate the problem (including finiteness of X) first
};

// The option fields, for bindings and tools that map names to fields (one options table).
#define SVMKIT_TRON_OPTIONS(X)                                                                     \
  X(tol)                                                                                           \
  X(abs_tol) X(max_iter) X(cg_tol) X(max_cg_iter) X(precondition) X(preconditioner_weight) X(eta0) \
      X(eta1) X(eta2) X(sigma1) X(sigma2) X(sigma3) X(n_threads) X(record_history) X(check_input)

void validate_options(const TronOptions& options);

// Solves the problem from w0 (length solution_size(problem); nullptr starts from 0).
SolveResult solve_tron(const LinearProblem& problem, const LossSpec& loss,
                       const TronOptions& options = {}, const Callbacks& callbacks = {},
                       const double* w0 = nullptr);

}  // namespace svmkit
