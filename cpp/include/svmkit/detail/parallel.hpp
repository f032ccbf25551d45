// Thread counts and the OpenMP helpers every parallel pass goes through.
//
// Threading design (why threads never make a fit slower than one thread):
//
// 1. Default thread count. n_threads <= 0 means default_threads(): the smallest of
//    omp_get_max_threads() on the calling thread (OMP_NUM_THREADS, and threadpoolctl's
//    limits, which call omp_set_num_threads on that thread), the CPU affinity mask
//    (sched_getaffinity) and the cgroup CPU quota (v2 cpu.max or v1 cfs_quota_us /
//    cfs_period_us, rounded up, read once). usable_cpus() is the last two alone.
// 2. Coarse work first. Passes smaller than kEntriesPerChunk stored entries per chunk stay on
//    one thread (data.hpp), and the Python estimators fit the binary problems of a
//    multiclass fit in parallel, one single-threaded fit per thread, when there are at least
//    as many of them as threads (svmkit/_threads.py), instead of splitting every tiny pass.
// 3. Measure and back off. A fork/join costs microseconds on an idle machine but up to a
//    scheduler time slice (milliseconds) when another process holds the core a helper thread
//    needs. Every parallel_chunks region times itself: its wall time against the sum of the
//    CPU time of its chunks (what one thread would have spent). When the region saved less
//    than kMinGain of that, the calling thread runs the next regions serially for a period
//    (starting at 2 ms, times 8 after each failed probe, at most 2 s) and then probes again;
//    a successful probe resets the period. Serial mode runs the SAME chunks in chunk
//    order, each into its own buffer, so results are bitwise identical whether a region ran
//    on one thread or many: the thread count fixes the chunking, the machine's load only
//    the timing. ThreadTeam (thread_team.hpp, SMO) uses the same Backoff.
//    Process-wide settings (OMP_WAIT_POLICY, GOMP_SPINCOUNT) are left to the user: svmkit
//    does not change how other libraries in the process wait. With the back-off, libgomp's
//    idle threads stop spinning (they sleep after GOMP_SPINCOUNT) once regions stop coming.
//
// Every parallel region takes its thread count explicitly (omp_set_num_threads only affects
// the calling thread), and work is split into contiguous static chunks so that reductions are
// deterministic for a fixed thread count.
#pragma once

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>

#ifdef _OPENMP
#include <omp.h>
#endif
#if defined(__linux__)
#include <time.h>
#endif

namespace svmkit {

// CPUs this process may run on: the affinity mask, capped by the cgroup CPU quota (rounded
// up). At least 1. The quota is read once per process; the mask on every call.
int usable_cpus();

// The cgroup CPU quota in CPUs (quota / period), or 0 when there is none (or the text cannot
// be read). cgroup v2: the text of cpu.max ("max 100000" or "150000 100000").
double parse_cgroup_cpu_max(const std::string& cpu_max);
// cgroup v1: the texts of cpu.cfs_quota_us ("-1" = none) and cpu.cfs_period_us.
double parse_cgroup_v1_quota(const std::string& quota_us, const std::string& period_us);
// The CPU quota of this process's cgroup (the smallest over it and its parents), 0 if none.
double cgroup_cpu_limit();

// Number of threads to use when the caller passes n_threads <= 0 (see the header comment).
inline int default_threads() {
#ifdef _OPENMP
  return std::max(1, std::min(omp_get_max_threads(), usable_cpus()));
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

// Decides, from the measured outcome of each parallel step, when to run steps serially.
// Not thread-safe: one per calling thread (or per ThreadTeam).
class Backoff {
 public:
  using Clock = std::chrono::steady_clock;
  // A parallel step must take at most this fraction of the serial time to count as a gain.
  static constexpr double kMinGain = 0.8;
  // Seconds of serial steps after a failed step; the pause grows kGrowth times per failed
  // probe up to kMaxPause. A failed probe can cost a scheduler time slice (milliseconds on a
  // loaded machine), so on a machine that stays busy the probes cost about 1% of the time;
  // after the machine becomes idle, splitting resumes within kMaxPause.
  static constexpr double kFirstPause = 2e-3;
  static constexpr double kGrowth = 8.0;
  static constexpr double kMaxPause = 2.0;

  // True while steps should run on the calling thread alone.
  bool serial(Clock::time_point now) const { return now < resume_; }
  // Reports a parallel step: its wall time and its estimated serial time, both in seconds.
  void report(Clock::time_point now, double wall_s, double serial_s) {
    if (wall_s <= kMinGain * serial_s) {
      pause_ = kFirstPause;
      return;
    }
    resume_ =
        now + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(pause_));
    pause_ = std::min(kMaxPause, kGrowth * pause_);
  }

 private:
  Clock::time_point resume_{};
  double pause_ = kFirstPause;
};

// The back-off state of the calling thread's parallel_chunks regions.
inline Backoff& region_backoff() {
  thread_local Backoff backoff;
  return backoff;
}

// CPU time of the calling thread in seconds (wall time where no per-thread clock exists).
inline double thread_cpu_seconds() {
#if defined(__linux__)
  timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
#else
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
#endif
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

// Calls fn(chunk, begin, end) for n_chunks contiguous chunks of [0, n), in parallel unless
// the calling thread is backing off (then in chunk order on the calling thread). Chunk
// boundaries depend only on n and n_chunks, never on scheduling or load.
template <class Fn>
void parallel_chunks(std::int64_t n, int n_chunks, Fn&& fn) {
  n_chunks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(n_chunks, n)));
  const auto bounds = [&](int c, std::int64_t& b, std::int64_t& e) {
    b = n * c / n_chunks;
    e = n * (c + 1) / n_chunks;
  };
  Backoff& backoff = region_backoff();
  const auto t0 = Backoff::Clock::now();
#ifdef _OPENMP
  constexpr int kMaxTimed = 64;  // chunk timings kept on the stack; wider regions are not timed
  if (n_chunks > 1 && !backoff.serial(t0) && omp_get_level() == 0) {
    std::array<double, kMaxTimed> cpu{};
    RegionErrors errors;
#pragma omp parallel for schedule(static, 1) num_threads(n_chunks)
    for (int c = 0; c < n_chunks; ++c) {
      std::int64_t b, e;
      bounds(c, b, e);
      const double s = c < kMaxTimed ? thread_cpu_seconds() : 0.0;
      errors.run(c, [&] { fn(c, b, e); });
      if (c < kMaxTimed) cpu[c] = thread_cpu_seconds() - s;
    }
    errors.rethrow();
    if (n_chunks <= kMaxTimed) {
      const auto t1 = Backoff::Clock::now();
      double serial_s = 0.0;
      for (int c = 0; c < n_chunks; ++c) serial_s += cpu[c];
      backoff.report(t1, std::chrono::duration<double>(t1 - t0).count(), serial_s);
    }
    return;
  }
#endif
  for (int c = 0; c < n_chunks; ++c) {
    std::int64_t b, e;
    bounds(c, b, e);
    fn(c, b, e);
  }
}

// Element-wise parallel loop over [0, n) (no reduction, so any split is deterministic).
// Loops of at most kMinParallelFor elements stay on the calling thread.
constexpr std::int64_t kMinParallelFor = 1024;
template <class Fn>
void parallel_for(std::int64_t n, int n_threads, Fn&& fn) {
  if (n_threads > 1 && n > kMinParallelFor) {
    parallel_chunks(n, n_threads, [&](int, std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) fn(i);
    });
    return;
  }
  for (std::int64_t i = 0; i < n; ++i) fn(i);
}

}  // namespace svmkit
