// Internal: the relative duality gap at which the l2-regularized linear solvers also stop
// (dual_cd's duals, TRON's smooth losses), besides their own rules (LIBLINEAR's).
//
// A relative gap g = (P(w) - D) / P(w) certifies P(w) - P* <= g P(w). It stops a run at
// min(tol, kGapMaxTol), and only for tol >= kGapMinTol (TRON: tol >= 1e-5, tron.cpp's
// kTronGapMinTol): a relative gap g leaves the coefficients only about sqrt(g) accurate, and a
// caller asking for a tighter tol wants the coefficients (scikit-learn's estimator checks fit at
// tol 1e-11 and compare decision values to 1e-7); the solvers' own rules alone decide those
// runs. The bound min(tol, kGapMaxTol): tol is LIBLINEAR's absolute projected-gradient bound in
// the duals, whose command-line default 0.1 (svmkit's CLI and liblinearutil, -s 1, 3, 12, 13)
// ends 1.5e-5 - 3e-4 above the optimum (official LIBLINEAR, sparse text 16,000 x 10,000 and
// 1,600 x 50,000), where a relative gap of 0.1 stopped 0.7-1.6% above it.
#pragma once

#include <algorithm>

namespace svmkit::detail {

constexpr double kGapMinTol = 1e-6;
constexpr double kGapMaxTol = 1e-4;

// The relative gap at which a run with this tol stops; 0 when the gap does not stop it.
inline double gap_stop_tol(double tol) {
  return tol >= kGapMinTol ? std::min(tol, kGapMaxTol) : 0.0;
}

}  // namespace svmkit::detail
