// Thin OpenMP helpers. Every parallel region takes its thread count explicitly
// (omp_set_num_threads only affects the calling thread), and work is split into
// contiguous static chunks so that reductions are deterministic for a fixed thread count.
#pragma once

#include <algorithm>
#include <cstdint>

#ifdef _OPENMP
#include <omp.h>
#endif

namespace svmkit {

// Number of threads to use when the caller passes n_threads <= 0.
inline int default_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

inline int resolve_threads(int n_threads) {
  int n = n_threads > 0 ? n_threads : default_threads();
#ifndef _OPENMP
  n = 1;
#endif
  return std::max(1, n);
}

// Calls fn(chunk, begin, end) for n_chunks contiguous chunks of [0, n) in parallel.
// Chunk boundaries depend only on n and n_chunks, never on scheduling.
template <class Fn>
void parallel_chunks(std::int64_t n, int n_chunks, Fn&& fn) {
  n_chunks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(n_chunks, n)));
  if (n_chunks == 1) {
    fn(0, std::int64_t{0}, n);
    return;
  }
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(n_chunks)
#endif
  for (int c = 0; c < n_chunks; ++c) {
    const std::int64_t begin = n * c / n_chunks;
    const std::int64_t end = n * (c + 1) / n_chunks;
    fn(c, begin, end);
  }
}

// Element-wise parallel loop over [0, n) (no reduction, so any schedule is deterministic).
template <class Fn>
void parallel_for(std::int64_t n, int n_threads, Fn&& fn) {
#ifdef _OPENMP
  if (n_threads > 1 && n > 1024) {
#pragma omp parallel for schedule(static) num_threads(n_threads)
    for (std::int64_t i = 0; i < n; ++i) fn(i);
    return;
  }
#endif
  for (std::int64_t i = 0; i < n; ++i) fn(i);
}

}  // namespace svmkit
