// sgd, the first-order primal solver: full-batch, mini-batch and stochastic (sub)gradient
// descent with optional momentum and adaptive per-coordinate steps.
//
// Problem: min_w F(w) = l2_penalty/2 ||w||^2 + l1_penalty ||w||_1
//                       [+ l2_penalty/2 b^2 if regularize_intercept] + sum_i C_i loss(u_i)
// over the linear model of problem.hpp (bias = last coordinate, times intercept_scaling; never
// in the l1 term), for the classification and regression losses of loss.hpp.
//
// Method: paper 001 (Meoli, "Support Vector Machines"), Algorithms 1 (gradient descent), 2
// (stochastic, mini-batches of k rows, gradient (n/k) sum over the batch), 3 (Polyak) and 4
// (Nesterov momentum), and paper 000's baselines AdaGrad, AdaDelta and Adam; l1 by a proximal
// soft threshold after each step. AdaGrad takes its composite form (Duchi, Hazan and Singer 2011):
// its accumulators see only the loss gradient, and both penalties act by their proximal map at
// each coordinate's rate (so the l2 term, too, has a closed form on untouched features).
// momentum_type "auto" is Nesterov for plain steps and none with an adaptive rule (paper 000 runs
// them without momentum); the combination is refused. Default step 1/L_F (see sgd.cpp). Sparse rows
// take lazy O(nnz) steps where the steps of the untouched features have a closed form (plain steps
// without l1, or without momentum with l1; AdaGrad with any penalty; AdaDelta without penalties;
// sgd.cpp), applied when next touched; the iterates are the dense ones up to rounding. Dense steps
// (O(d) each) remain for momentum with l1, AdaDelta with a penalty and Adam (no closed form);
// SgdExtras says which was taken and what it cost. Batches come from a permutation drawn by a
// private std::mt19937_64 (seed); results are deterministic for a fixed seed and thread count.
//
// Stopping rule (paper 001 section 7): after each epoch F(w) is evaluated (one pass); stop when
// F has not decreased below best - tol * max(1, |best|) for n_iter_no_change epochs (default 100,
// the paper's 5 stopped hinge fits early: sgd.cpp), or after max_iter epochs. return_best returns
// the best iterate seen (subgradient methods are not monotone).
#pragma once

#include <cstdint>
#include <string>

#include "svmkit/loss.hpp"
#include "svmkit/options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/result.hpp"

namespace svmkit {

// The option records (svmkit/options.hpp): type, name, default, valid range, doc.
// clang-format off
#define SVMKIT_SGD_OPTIONS(X)                                                                    \
  X(long long, max_iter, 20000, at_least(0), unbounded(),                                       \
    "maximum number of epochs (passes of batches over the data)")                               \
  X(double, tol, 1e-8, at_least(0.0), unbounded(),                                              \
    "relative objective improvement that counts as progress")                                   \
  X(long long, n_iter_no_change, 100, at_least(1), unbounded(),                                 \
    "epochs without progress before stopping (paper 001: 5)")                                   \
  X(long long, batch_size, 0, at_least(0), unbounded(),                                         \
    "rows per step; 0 (or >= n) = full batch, 1 = stochastic")                                  \
  X(double, learning_rate, 0.0, at_least(0.0), finite(),                                        \
    "step size; 0 = default (1/L_F, or the adaptive rule's)")                                   \
  X(std::string, schedule, "constant", unbounded(), unbounded(),                                \
    "\"constant\", \"inv_sqrt\" (lr/sqrt(t)) or \"inv_time\" (lr/t), t = epoch from 1")          \
  X(std::string, momentum_type, "auto", unbounded(), unbounded(),                               \
    "\"auto\" (nesterov, none with adaptive), \"none\", \"polyak\" (Alg. 3), \"nesterov\" (Alg. 4)") \
  X(double, momentum, 0.5, at_least(0.0), below(1.0),                                           \
    "beta for polyak / nesterov (paper 001 section 7)")                                         \
  X(std::string, adaptive, "none", unbounded(), unbounded(),                                    \
    "\"none\", \"adagrad\", \"adadelta\" or \"adam\"")                                          \
  X(double, adagrad_eps, 1e-8, above(0.0), unbounded(), "AdaGrad offset: step lr / sqrt(s + eps)") \
  X(double, adadelta_rho, 0.9, above(0.0), below(1.0), "AdaDelta decay (paper 000: 0.9)")       \
  X(double, adadelta_eps, 1e-8, above(0.0), unbounded(), "AdaDelta constant (paper 000: 1e-8)") \
  X(double, adam_beta1, 0.9, at_least(0.0), below(1.0), "Adam first-moment decay (paper 000: 0.9)") \
  X(double, adam_beta2, 0.8, above(0.0), below(1.0), "Adam second-moment decay (paper 000: 0.8)") \
  X(double, adam_eps, 1e-8, above(0.0), unbounded(), "Adam denominator offset")                 \
  X(double, l2_penalty, 1.0, at_least(0.0), finite(), "coefficient of 1/2 ||w||^2")             \
  X(double, l1_penalty, 0.0, at_least(0.0), finite(),                                           \
    "coefficient of ||w||_1 (proximal step; never the bias)")                                   \
  X(bool, shuffle, true, unbounded(), unbounded(),                                              \
    "draw mini-batches from a fresh permutation every epoch")                                   \
  X(std::uint64_t, seed, 0, unbounded(), unbounded(), "seed of the solver's own std::mt19937_64") \
  X(bool, lazy_steps, true, unbounded(), unbounded(),                                           \
    "sparse rows: O(nnz) steps where exact (sgd.cpp); false: dense O(d) steps (benchmarks)")     \
  X(bool, return_best, true, unbounded(), unbounded(),                                          \
    "return the best iterate seen (by epoch-end objective)")                                    \
  X(int, n_threads, 0, unbounded(), unbounded(),                                                \
    "threads; <= 0 uses the default (svmkit/detail/parallel.hpp)")                                     \
  X(bool, record_history, true, unbounded(), unbounded(), "keep one IterationRecord per epoch") \
  X(bool, check_input, true, unbounded(), unbounded(),                                          \
    "validate the problem (including finiteness of X) first")
// clang-format on

struct SgdOptions {
  SVMKIT_SGD_OPTIONS(SVMKIT_OPTION_FIELD)
};
SVMKIT_DEFINE_OPTION_RECORDS(sgd, SVMKIT_SGD_OPTIONS)

void validate_options(const SgdOptions& options);

// Solves the problem from w0 (length solution_size(problem); nullptr starts from 0).
// History: one record per epoch with objective F(w), optimality = relative improvement of
// the best objective in that epoch, step = the learning rate used, passes = cumulative passes
// (batch steps count as batch_size / n of a pass).
SolveResult solve_sgd(const LinearProblem& problem, const LossSpec& loss,
                      const SgdOptions& options = {}, const Callbacks& callbacks = {},
                      const double* w0 = nullptr);

}  // namespace svmkit
