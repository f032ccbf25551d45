// nu-SMO: sequential minimal optimization for LIBSVM's nu formulations of kernel SVMs.
//
// Problem (Chang and Lin 2001, "Training nu-support vector classifiers: theory and
// algorithms", Neural Computation 13; Schoelkopf et al. 2001, "Estimating the support of a
// high-dimensional distribution", Neural Computation 13; Schoelkopf et al. 2000, "New support
// vector algorithms"), each in LIBSVM's scaling (bounds C_i instead of 1/l):
//     min_a  f(a) = 1/2 a^T Q a + p^T a   subject to  0 <= a_t <= U_t,
//            sum_{s_t = +1} a_t = c_+  and  sum_{s_t = -1} a_t = c_-
//   * nu-SVC:  Q_ij = y_i y_j K_ij, p = 0, U_i = C_i, s = y, c_+ = c_- = nu sum_i C_i / 2
//     (the two constraints are y^T a = 0 and e^T a = nu sum C_i); infeasible when
//     nu sum_i C_i / 2 > min(sum_{y=+1} C_i, sum_{y=-1} C_i).
//   * one-class: Q = K, p = 0, U_i = C_i, s = +1, c_+ = nu sum_i C_i (one constraint).
//   * nu-SVR:  a = [a+; a-], Q = [K -K; -K K], p = [-y; y], U = [C; C], s = [1; -1],
//     c_+ = c_- = nu sum_i C_i / 2 (e^T (a+ - a-) = 0 and e^T (a+ + a-) = nu sum C_i).
//   C_i = sample_weight_i (times class_weight_{y_i} for nu-SVC; times C for nu-SVR).
//
// Method: SMO with both multipliers of a pair taken from the same sign group, so that each
// equality constraint is kept (Chang and Lin 2001, section 4). Working pair by second-order
// information (Fan, Chen and Lin 2005, section for nu-SVM): per group g, i_g = argmax over
// I_up(g) of -s_t G_t, then j minimizing -(b_t^2 / a_t) over I_low of both groups against the
// i of its own group. The start is feasible: multipliers filled greedily in sample order up
// to c_+ and c_-. Shrinking, the kernel cache, the thread team and the feature-major copy
// are those of solve_smo (solvers/smo.hpp); shrinking compares each bounded variable with
// the extreme gradients of its own group.
//
// Stopping rule: max over groups of (max_{I_up(g)} -s G - min_{I_low(g)} -s G) <= tol, or
// max_iter iterations. rho and r from the free variables of each group (the mean of G over
// the free variables, or the midpoint of the feasible interval): r_+ and r_-, then
// rho = (r_+ - r_-) / 2 and r = (r_+ + r_-) / 2 (one-class: rho = r_+). nu-SVC returns the
// C-SVC-equivalent coefficients y_i a_i / r and bias -rho / r (Chang and Lin, Theorem 2:
// the same decision as a C-SVC with C = 1 / r); nu-SVR returns a+ - a-, bias -rho and the
// tube width epsilon = -r; one-class returns a and bias -rho (offset rho).
#pragma once

#include "svmkit/data.hpp"
#include "svmkit/kernel.hpp"
#include "svmkit/result.hpp"
#include "svmkit/solvers/smo.hpp"

namespace svmkit {

enum class NuFormulation {
  nu_svc,     // nu-support vector classification (two classes, labels +-1)
  one_class,  // one-class SVM (support estimation); y is ignored
  nu_svr,     // nu-support vector regression
};

// One nu problem over the rows of X.
struct NuProblem {
  MatrixView X;                  // training data (or the n x n Gram matrix when precomputed)
  const Index* rows = nullptr;   // optional: the problem's samples are X rows rows[0..n)
  Index n = -1;                  // number of samples (-1: all rows of X)
  const double* y = nullptr;     // labels +-1 (nu_svc), targets (nu_svr), unused (one_class)
  const double* cost = nullptr;  // per-sample upper bounds C_i >= 0 (length n)
  KernelSpec kernel;
  NuFormulation formulation = NuFormulation::nu_svc;
  double nu = 0.5;  // in (0, 1]
};

// Solves the nu dual of `problem` by SMO, with SMO's options (solvers/smo.hpp). SolveResult:
// status, solution = the decision coefficients per sample (see above), objective = f(a) of
// the problem as stated above (LIBSVM's scaling, before nu-SVC's division by r), optimality
// (KKT gap at exit), iterations, time, history; extras = SmoExtras (dual_coef = solution,
// bias, nu_r = r: nu-SVC's scale, nu-SVR's -epsilon, one-class's rho). An infeasible nu
// throws svmkit::Error ("specified nu is infeasible").
SolveResult solve_smo_nu(const NuProblem& problem, const SmoOptions& options = {},
                         const Callbacks& callbacks = {});

}  // namespace svmkit
