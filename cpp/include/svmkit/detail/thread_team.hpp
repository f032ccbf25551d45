// A team of persistent threads for many short parallel steps (the SMO iteration: a kernel row,
// a gradient sweep, a working-set sweep, each a few to a hundred microseconds, thousands of
// times per second).
//
// Why not an OpenMP parallel region per step: between regions libgomp's idle threads spin for
// a long while (GOMP_SPINCOUNT) before sleeping. With steps microseconds apart the helpers then
// never sleep, and on a machine with more runnable threads than cores they take CPU time from
// the thread doing the serial part; measured on a loaded 2-core machine, an SMO fit with 2
// threads ran 8 to 30 times slower than with 1 (OMP_WAIT_POLICY=passive fixed it, but that is
// a process-wide setting). Here an idle helper spins for a short time (spin_us) and then
// sleeps on a condition variable, and the caller waits for the helpers by spinning and then
// yielding. Work is split into the same contiguous chunks as parallel_chunks (parallel.hpp),
// chunk c always on thread c, so results are deterministic for a fixed thread count.
//
// Back-off (svmkit::Backoff, parallel.hpp): calls are grouped into windows of kWindow calls or
// kWindowSeconds of wall time, whichever ends first. When a window's wall time was not below
// Backoff::kMinGain times its serial estimate (the caller's own chunk time times the number
// of chunks), the helpers are not getting a core (more runnable threads than cores) and the
// calls of the next pause (2 ms, growing 8x per failed probe up to 2 s) run on the calling
// thread alone. Callers of SMO's kind compute the same values whatever the split (each chunk's
// result is merged in chunk order with the serial rule), so this changes the time, not the
// result.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

#include "svmkit/detail/parallel.hpp"

namespace svmkit {

class ThreadTeam {
 public:
  // n_threads in total, the calling thread included (n_threads - 1 helpers are started).
  explicit ThreadTeam(int n_threads, double spin_us = 50.0)
      : n_(n_threads < 1 ? 1 : n_threads), spin_(spin_us * 1e-6) {
    for (int id = 1; id < n_; ++id) helpers_.emplace_back([this, id] { loop(id); });
  }
  ~ThreadTeam() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      epoch_.fetch_add(1);
    }
    cv_.notify_all();
    for (auto& t : helpers_) t.join();
  }
  ThreadTeam(const ThreadTeam&) = delete;
  ThreadTeam& operator=(const ThreadTeam&) = delete;

  int size() const { return n_; }

  // Calls fn(c, begin, end) for up to n_chunks contiguous chunks of [0, n) (capped at the team
  // size and at n; 1 while backing off); chunk 0 runs on the calling thread. Returns, when all
  // are done, the number of chunks used (callers merging per-chunk results must use it).
  // fn must not throw.
  template <class Fn>
  int chunks(std::int64_t n, int n_chunks, Fn&& fn) {
    if (n_chunks > n_) n_chunks = n_;
    if (n_chunks > n) n_chunks = static_cast<int>(n < 1 ? 1 : n);
    if (n_chunks > 1 && backoff_.serial(Backoff::Clock::now())) n_chunks = 1;
    if (n_chunks <= 1) {
      fn(0, std::int64_t{0}, n);
      return 1;
    }
    auto body = [&](int c) {
      if (c < n_chunks) fn(c, n * c / n_chunks, n * (c + 1) / n_chunks);
    };
    Task<decltype(body)> task(body);
    task_ = &task;
    pending_.store(n_ - 1, std::memory_order_relaxed);
    epoch_.fetch_add(1);  // seq_cst: ordered against the helpers' sleepers_ increments
    if (sleepers_.load() > 0) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
      }
      cv_.notify_all();
    }
    const auto t0 = std::chrono::steady_clock::now();
    body(0);
    // Wait for the helpers: spin briefly, then yield the core to them.
    const auto start = std::chrono::steady_clock::now();
    int k = 0;
    while (pending_.load(std::memory_order_acquire) > 0) {
      if (++k < 64) continue;
      k = 0;
      if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() > spin_)
        std::this_thread::yield();
    }
    const auto t1 = std::chrono::steady_clock::now();
    const double work = std::chrono::duration<double>(start - t0).count();
    serial_s_ += work * n_chunks;
    wall_s_ += work + std::chrono::duration<double>(t1 - start).count();
    if (++window_ == kWindow || wall_s_ >= kWindowSeconds) {
      backoff_.report(t1, wall_s_, serial_s_);
      window_ = 0;
      serial_s_ = wall_s_ = 0.0;
    }
    return n_chunks;
  }

 private:
  struct TaskBase {
    virtual void run(int id) = 0;

   protected:
    ~TaskBase() = default;
  };
  template <class F>
  struct Task final : TaskBase {
    explicit Task(F& f) : f_(f) {}
    void run(int id) override { f_(id); }
    F& f_;
  };

  void loop(int id) {
    std::uint64_t seen = 0;
    for (;;) {
      std::uint64_t e = epoch_.load(std::memory_order_acquire);
      const auto start = std::chrono::steady_clock::now();
      int k = 0;
      while (e == seen) {
        if (++k >= 64) {
          k = 0;
          if (std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() >
              spin_) {
            std::unique_lock<std::mutex> lock(mutex_);
            sleepers_.fetch_add(1);  // seq_cst, before the predicate's epoch_ load
            cv_.wait(lock, [&] { return epoch_.load() != seen; });
            sleepers_.fetch_sub(1);
          }
        }
        e = epoch_.load(std::memory_order_acquire);
      }
      seen = e;
      if (stop_) return;
      task_->run(id);
      pending_.fetch_sub(1, std::memory_order_release);
    }
  }

  static constexpr int kWindow = 64;                // calls per back-off decision, at most
  static constexpr double kWindowSeconds = 200e-6;  // wall time per decision, at most

  int n_;
  double spin_;  // seconds an idle thread spins before sleeping
  int window_ = 0;
  double serial_s_ = 0.0, wall_s_ = 0.0;  // serial estimate / wall time of the window's calls
  // The constructing thread's back-off state (shared with its parallel_chunks regions and kept
  // across solves, so that a machine found busy is not probed again at every fit's start).
  // chunks() must be called from the thread that constructed the team.
  Backoff& backoff_ = region_backoff();
  std::vector<std::thread> helpers_;
  std::atomic<std::uint64_t> epoch_{0};  // bumped once per chunks() call (and at shutdown)
  std::atomic<int> pending_{0};          // helpers still running the current task
  std::atomic<int> sleepers_{0};         // helpers blocked on cv_
  TaskBase* task_ = nullptr;             // written before epoch_ is bumped
  bool stop_ = false;                    // written under mutex_ before the last bump
  std::mutex mutex_;
  std::condition_variable cv_;
};

}  // namespace svmkit
