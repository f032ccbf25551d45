// sgd, the first-order primal solver: full-batch, mini-batch and stochastic (sub)gradient
// descent with optional momentum and adaptive per-coordinate steps.
//
// Problem: min_w F(w) = l2_penalty/2 ||w||^2 + l1_penalty ||w||_1
//                       [+ l2_penalty/2 b^2 if regularize_intercept] + sum_i C_i loss(u_i)
// over the linear model of problem.hpp (the bias b is the last coordinate, times
// intercept_scaling). Losses: hinge, squared_hinge, smoothed_hinge (and the other smooth
// classification losses), epsilon_insensitive, squared_epsilon_insensitive (and the smoothed
// one). The l1 term is never applied to the bias.
//
// Method: paper 001 (Meoli, "Support Vector Machines"), Algorithms 1 (gradient descent),
// 2 (stochastic gradient descent on a mini-batch of k rows), 3 (Polyak heavy ball) and 4
// (Nesterov momentum), plus the adaptive rules used as baselines by paper 000 section 4.2:
// AdaGrad (paper 001 Algorithm 7), AdaDelta and Adam. The l1 term is handled by a proximal
// soft-threshold after each step (per coordinate with the coordinate's effective step).
// A mini-batch gradient is the unbiased estimate (n/k) sum_{i in batch} of the loss part plus
// the full regularizer gradient. Rows of a mini-batch are processed in parallel (OpenMP)
// with per-thread buffers summed in a fixed order, so results are deterministic for a fixed
// seed and thread count. Epochs draw batches from a permutation made by a private
// std::mt19937_64 seeded from `seed` (no global RNG).
//
// Step size: learning_rate <= 0 selects paper 001 section 7's 1/L with L = (C/n) sum ||x_i||^2.
// That L bounds the curvature of the sample-AVERAGED objective F/n; svmkit minimizes the summed
// F (LIBLINEAR's form), whose curvature bound is n times larger, so the equivalent step on F is
//   1/L_F,  L_F = l2_penalty + kappa * sum_i C_i ||x~_i||^2
// (x~_i includes the intercept_scaling coordinate; kappa = sup loss'': 2 for the squared
// losses, 1/(2 sigma) for the smoothed ones, 1 for the non-smooth ones). For the squared and
// smoothed losses L_F is a true Lipschitz bound of grad F, so the default step is safe.
// The adaptive rules default to the rates of paper 000's baselines (Flux.jl defaults there:
// adagrad 0.1, adadelta 1.0 (no rate), adam 0.001).
//
// Stopping rule (paper 001 section 7): after each epoch F(w) is evaluated (one pass); the
// solve stops when F has not decreased below best - tol * max(1, |best|) for
// n_iter_no_change consecutive epochs, or after max_iter epochs. The best iterate seen is
// returned when return_best is set (subgradient methods are not monotone).
// Defaults: tol = 1e-8 as in paper 001 section 7, but n_iter_no_change = 100 (the paper's 5)
// and max_iter = 20000: subgradient steps on the hinge losses improve the best objective only
// sporadically, and 5 epochs stopped them 2e-3..2e-2 above the optimum on breast cancer
// (C = 0.1); with 100 every rule is within 5e-4 there and on heart_scale (C = 0.1 and 1),
// measured in bench/results/first_order.md. The extra 95 epochs cost little for the smooth
// losses. Larger C is ill-conditioned for the fixed step 1/L_F (L_F / l2_penalty ~ C sum
// ||x_i||^2): plain/momentum steps then need ~ L_F epochs (breast cancer, C = 1: 3e-3..2e-2
// after 20000 epochs), while adagrad/adadelta/adam still get there.
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
  X(std::string, momentum_type, "nesterov", unbounded(), unbounded(),                           \
    "\"none\", \"polyak\" (Algorithm 3) or \"nesterov\" (Algorithm 4)")                          \
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
