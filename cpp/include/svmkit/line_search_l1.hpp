// LINESEARCHL1: the exact minimizer of a quadratic plus an l1 term along a ray.
//
// Problem: minimize j(s) = a s^2 + b s + mu ||w + s d||_1 over 0 <= s <= s_max, with a >= 0,
// mu >= 0 (paper 000, Emirahmetoglu, Hajewski, Oliveira, Stewart, "A Smoothing Algorithm for
// l1 Support Vector Machines", Section 2.3, Algorithm 4 and equations (9)-(11)).
//
// Method: j is convex and piecewise quadratic; its derivative
//   j'(s) = 2 a s + b + mu sum_k sign(w_k + s d_k) d_k
// is non-decreasing and jumps by 2 mu |d_k| at each breakpoint sigma_k = -w_k / d_k > 0
// (coordinates with d_k = 0 have no breakpoint). The breakpoints are sorted (O(m log m)),
// the one-sided slopes j'(sigma^-), j'(sigma^+) form a non-decreasing sequence (11), and a
// binary search finds where it crosses zero: either at a breakpoint (the minimizer is that
// breakpoint and its coordinate lands exactly on zero) or inside an interval, where the
// minimizer is sigma_i - j'(sigma_i^+) / (2a). The slope at 0+ uses the one-sided sign of
// w_k + 0+ d_k, so coordinates with w_k = 0 and d_k != 0 contribute mu |d_k| (they are
// leaving zero). The result is clipped to [0, s_max].
//
// Exact zeros: in floating point w_j + (-w_j / d_j) d_j need not be 0. When the minimizer is
// a breakpoint, the result names its coordinate (j1 == j2) and apply_step_l1 sets every
// coordinate whose breakpoint equals s (ties included) to exactly 0.
#pragma once

#include <cstdint>
#include <limits>

namespace svmkit {

struct LineSearchL1Result {
  double s = 0.0;              // the minimizer in [0, s_max]
  std::int64_t j1 = -1;        // coordinate of the breakpoint bracketing s from the left (-1: 0)
  std::int64_t j2 = -1;        // coordinate bracketing s from the right (-1: none / s_max)
  bool at_breakpoint = false;  // s is a breakpoint: j1 == j2 names its coordinate
  bool unbounded = false;      // a = 0 and the slope stays negative: s = s_max was forced
  double slope0 = 0.0;         // j'(0+); the minimizer is 0 when it is >= 0
};

// Minimizes a s^2 + b s + mu ||w + s d||_1 over [0, s_max] (m coordinates).
// Throws svmkit::Error (invalid_argument) for a < 0, mu < 0, s_max < 0 or NaN inputs.
LineSearchL1Result line_search_l1(const double* w, const double* d, std::int64_t m, double a,
                                  double b, double mu,
                                  double s_max = std::numeric_limits<double>::infinity());

// out = w + s d, with every coordinate whose breakpoint -w_j / d_j equals s set to exactly 0
// when r.at_breakpoint (the floating-point issue described after Algorithm 3 of paper 000).
void apply_step_l1(const double* w, const double* d, std::int64_t m, const LineSearchL1Result& r,
                   double* out);

}  // namespace svmkit
