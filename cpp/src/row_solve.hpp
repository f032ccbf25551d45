// What the row-wise coordinate-descent solvers (dual_cd, crammer_singer, linear_one_class)
// share around their solve: a row-oriented view of X, the out-of-memory status and the time.
#pragma once

#include <chrono>
#include <cstdint>
#include <new>
#include <type_traits>
#include <variant>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/result.hpp"

namespace svmkit::detail {

using SolveClock = std::chrono::steady_clock;

// Violations (projected gradients) at or below this are treated as zero: no update is made
// (avoids updates that change w by rounding noise only).
constexpr double kNegligible = 1e-12;
// Stored entries read between two interrupt polls inside an outer iteration (a few ms).
constexpr Index kPollEntries = Index{1} << 22;

// A uniform integer in [0, k) from one draw of a 64-bit generator (multiply-shift; k < 2^32
// in practice), for the coordinate permutations.
template <class Rng>
Index uniform_below(Rng& rng, Index k) {
  const std::uint64_t r = rng();
  if (k <= Index{0xffffffff})
    return static_cast<Index>(((r >> 32) * static_cast<std::uint64_t>(k)) >> 32);
  return static_cast<Index>(r % static_cast<std::uint64_t>(k));
}

// Seconds since start, for IterationRecord::time and SolveResult::time.
inline double seconds_since(SolveClock::time_point start) {
  return std::chrono::duration<double>(SolveClock::now() - start).count();
}

// Column-major rows are strided; the coordinate loops read whole rows, so copy once.
template <class T>
std::vector<T> row_major_copy(const DenseColMajorView<T>& X) {
  std::vector<T> out(static_cast<std::size_t>(X.rows * X.cols));
  for (Index j = 0; j < X.cols; ++j)
    for (Index i = 0; i < X.rows; ++i) out[i * X.cols + j] = X.data[j * X.ld + i];
  return out;
}

// Runs solve(view) on X as a row-oriented view (a row-major copy of column-major dense X), then
// sets the wall time since start. A bad_alloc (work arrays or the copy) becomes status
// out_of_memory with oom_message, which names the arrays and the sizes that bound them.
template <class Solve>
SolveResult solve_on_rows(const MatrixView& X, SolveClock::time_point start,
                          const char* oom_message, Solve&& solve) {
  SolveResult res;
  try {
    res = std::visit(
        [&](const auto& V) {
          using View = std::decay_t<decltype(V)>;
          if constexpr (is_col_major<View>::value) {
            using T = typename View::value_type;
            const std::vector<T> copy = row_major_copy(V);
            return solve(DenseRowMajorView<T>{copy.data(), V.rows, V.cols, V.cols});
          } else {
            return solve(V);
          }
        },
        X);
  } catch (const std::bad_alloc&) {
    res = SolveResult{};
    res.status = SolverStatus::out_of_memory;
    res.message = oom_message;
  }
  res.time = seconds_since(start);
  return res;
}

}  // namespace svmkit::detail
