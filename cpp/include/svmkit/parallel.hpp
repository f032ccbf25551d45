// Thin OpenMP helpers. Every parallel region takes its thread count explicitly
// (omp_set_num_threads only affects the calling thread), and work is split into
// contiguous static chunks so that reductions are deterministic for a fixed thread count.
#pragma once

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>

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

// An exception that escapes an OpenMP region calls std::terminate (the interpreter dies). Work
// run inside a region is wrapped in RegionErrors::run, which keeps the first exception (by chunk
// index, so the same one whatever the schedule) and rethrows it on the calling thread once the
// region has ended: a std::bad_alloc there becomes a MemoryError in Python, not an abort.
class RegionErrors {
 public:
  template <class Fn>
  void run(std::int64_t index, Fn&& fn) noexcept {
    try {
      fn();
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      if (!error_ || index < index_) {
        error_ = std::current_exception();
        index_ = index;
      }
    }
  }
  void rethrow() const {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::mutex mutex_;
  std::exception_ptr error_;
  std::int64_t index_ = 0;
};

// Calls fn(chunk, begin, end) for n_chunks contiguous chunks of [0, n) in parallel.
// Chunk boundaries depend only on n and n_chunks, never on scheduling.
template <class Fn>
void parallel_chunks(std::int64_t n, int n_chunks, Fn&& fn) {
  n_chunks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(n_chunks, n)));
  if (n_chunks == 1) {
    fn(0, std::int64_t{0}, n);
    return;
  }
  RegionErrors errors;
#ifdef _OPENMP
#pragma omp parallel for schedule(static, 1) num_threads(n_chunks)
#endif
  for (int c = 0; c < n_chunks; ++c) {
    const std::int64_t begin = n * c / n_chunks;
    const std::int64_t end = n * (c + 1) / n_chunks;
    errors.run(c, [&] { fn(c, begin, end); });
  }
  errors.rethrow();
}

// Element-wise parallel loop over [0, n) (no reduction, so any schedule is deterministic).
template <class Fn>
void parallel_for(std::int64_t n, int n_threads, Fn&& fn) {
#ifdef _OPENMP
  if (n_threads > 1 && n > 1024) {
    RegionErrors errors;
#pragma omp parallel num_threads(n_threads)
    {
      // Static contiguous blocks, one per thread, with the guard around the whole block (a
      // guard per element would keep the loop from vectorizing).
      const std::int64_t t = omp_get_thread_num(), nt = omp_get_num_threads();
      const std::int64_t begin = n * t / nt, end = n * (t + 1) / nt;
      errors.run(t, [&] {
        for (std::int64_t i = begin; i < end; ++i) fn(i);
      });
    }
    errors.rethrow();
    return;
  }
#endif
  for (std::int64_t i = 0; i < n; ++i) fn(i);
}

}  // namespace svmkit
