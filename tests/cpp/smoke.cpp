// A C++ test of the installed API (built with -DSVMKIT_BUILD_TESTS=ON, run by ctest): trains a
// squared-hinge SVM with solve_tron on seeded data and checks the optimality conditions computed
// here, independently of the solver: the gradient of
//   F(w, b) = 1/2 (|w|^2 + b^2) + sum_i max(0, 1 - y_i (w.x_i + b))^2
// vanishes at the solution. Also checks that build_info() reports pyproject's version.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "svmkit/build_info.hpp"
#include "svmkit/solvers/tron.hpp"

namespace {

// A small linear congruential generator: the test's data must not depend on the platform.
double uniform(std::uint64_t& state) {
  state = state * 6364136223846793005ULL + 1442695040888963407ULL;
  return static_cast<double>(state >> 11) / 9007199254740992.0;
}

int fail(const char* what) {
  std::fprintf(stderr, "svmkit_cpp_smoke: FAILED: %s\n", what);
  return 1;
}

}  // namespace

int main() {
  const svmkit::BuildInfo info = svmkit::build_info();
  std::printf("svmkit %s, simd %s (cpu %s)\n", info.version.c_str(), info.simd_level.c_str(),
              info.simd_cpu.c_str());
  if (info.version != SVMKIT_VERSION_STRING) return fail("build_info().version");

  const std::int64_t n = 300, d = 5;
  std::uint64_t state = 12345;
  std::vector<double> X(n * d), y(n), cost(n, 1.0);
  for (std::int64_t i = 0; i < n; ++i) {
    double s = 0.0;
    for (std::int64_t j = 0; j < d; ++j) {
      X[i * d + j] = 2.0 * uniform(state) - 1.0;
      s += (j + 1) * X[i * d + j];
    }
    y[i] = s + 0.5 * (uniform(state) - 0.5) > 0.0 ? 1.0 : -1.0;
  }
  svmkit::LinearProblem problem;
  problem.X = svmkit::DenseRowMajorView<double>{X.data(), n, d, d};
  problem.y = y.data();
  problem.cost = cost.data();
  svmkit::TronOptions options;
  options.tol = 1e-10;
  const svmkit::SolveResult r =
      svmkit::solve_tron(problem, svmkit::LossSpec{svmkit::LossKind::squared_hinge}, options);
  // At tol = 1e-10 the trust region may stop on a line search at machine precision: both end
  // at the optimum, which the gradient check below decides.
  std::printf("status %s\n", svmkit::to_string(r.status));
  if (r.status != svmkit::SolverStatus::converged &&
      r.status != svmkit::SolverStatus::line_search_failed)
    return fail("status is neither converged nor line_search_failed");
  if (static_cast<std::int64_t>(r.solution.size()) != d + 1) return fail("solution size");

  std::vector<double> grad(d + 1);
  for (std::int64_t j = 0; j <= d; ++j) grad[j] = r.solution[j];
  double f = 0.0, norm_w = 0.0;
  for (std::int64_t j = 0; j <= d; ++j) norm_w += r.solution[j] * r.solution[j];
  f = 0.5 * norm_w;
  for (std::int64_t i = 0; i < n; ++i) {
    double m = r.solution[d];
    for (std::int64_t j = 0; j < d; ++j) m += r.solution[j] * X[i * d + j];
    const double slack = 1.0 - y[i] * m;
    if (slack <= 0.0) continue;
    f += slack * slack;
    for (std::int64_t j = 0; j < d; ++j) grad[j] -= 2.0 * slack * y[i] * X[i * d + j];
    grad[d] -= 2.0 * slack * y[i];
  }
  double gnorm = 0.0;
  for (double g : grad) gnorm += g * g;
  gnorm = std::sqrt(gnorm);
  std::printf("objective %.17g (solver %.17g), |grad| %.3g, iterations %lld\n", f, r.objective,
              gnorm, static_cast<long long>(r.iterations));
  if (!(std::fabs(f - r.objective) <= 1e-9 * f)) return fail("objective differs from F(w, b)");
  if (!(gnorm <= 1e-6 * std::sqrt(norm_w))) return fail("gradient of F is not zero");
  std::printf("svmkit_cpp_smoke: passed\n");
  return 0;
}
