// A least-recently-used cache of kernel (Q matrix) rows with a memory limit. Values are floats
// (as LIBSVM's Qfloat): kernel values above kMaxCachedKernelValue are refused before a solve.
//
// Row r holds the values of columns [0, len) for the len it was last requested with; a
// longer request extends it in place (the caller fills only the missing tail). When the
// limit would be exceeded the least recently used rows are dropped. Memory is the limit
// (at least two full rows, so the two rows of a working pair always fit together) plus
// O(n_rows) bookkeeping, whatever n is.
//
// swap_rows(i, j) follows a permutation of the problem (shrinking moves active variables to
// the front): rows i and j trade places, and entries i and j trade places inside every cached
// row long enough to hold both; a row holding only the smaller one is dropped, since that
// entry would be stale. The entry swaps are queued and applied row by row at the next get()
// (a shrinking pass makes thousands of swaps: one visit per cached row instead of one per
// swap and row). Row moves and entry swaps commute, so the result is the same.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <utility>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/status.hpp"

namespace svmkit {

// Largest |value| the cache is given (solvers check it first: kernel.hpp's
// check_kernel_fits_cache): below FLT_MAX = 3.4e38 with room for the + 1 of a regularized bias
// and for sums, so a cached row never holds inf.
constexpr double kMaxCachedKernelValue = 1e38;

class KernelCache {
 public:
  // n_rows rows of at most max_len floats; limit_bytes is the cache size.
  KernelCache(Index n_rows, Index max_len, double limit_bytes)
      : data_(static_cast<std::size_t>(n_rows), nullptr),
        len_(static_cast<std::size_t>(n_rows), 0),
        prev_(static_cast<std::size_t>(n_rows + 1), -1),
        next_(static_cast<std::size_t>(n_rows + 1), -1),
        head_(n_rows) {
    const double floats = limit_bytes / static_cast<double>(sizeof(float));
    const double floor = 2.0 * static_cast<double>(max_len);
    capacity_ = static_cast<std::size_t>(floats > floor ? floats : floor);
    prev_[head_] = next_[head_] = head_;
  }
  ~KernelCache() {
    for (float* p : data_) std::free(p);
  }
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // Returns row r with room for len values; *filled = how many leading values are valid.
  float* get(Index r, Index len, Index* filled) {
    if (!pending_.empty()) flush();
    if (in_list(r)) unlink(r);
    const Index have = len_[r];
    if (have < len) {
      const std::size_t extra = static_cast<std::size_t>(len - have);
      while (used_ + extra > capacity_ && next_[head_] != head_) drop(next_[head_]);
      void* p = std::realloc(data_[r], static_cast<std::size_t>(len) * sizeof(float));
      if (!p)
        throw_out_of_memory(static_cast<double>(len) * sizeof(float), "a kernel cache row",
                            "the kernel cache grows up to cache_size (MB); lower cache_size");
      data_[r] = static_cast<float*>(p);
      used_ += extra;
      len_[r] = len;
      *filled = have;
    } else {
      *filled = len;
      ++hits_;
    }
    link_mru(r);
    return data_[r];
  }

  void swap_rows(Index i, Index j) {
    if (i == j) return;
    const bool li = in_list(i), lj = in_list(j);
    if (li) unlink(i);
    if (lj) unlink(j);
    std::swap(data_[i], data_[j]);
    std::swap(len_[i], len_[j]);
    if (len_[i] > 0) link_mru(i);
    if (len_[j] > 0) link_mru(j);
    pending_.emplace_back(i < j ? i : j, i < j ? j : i);
  }

  // Applies the queued entry swaps to every cached row. A shrinking pass queues disjoint
  // transpositions (each position moves once), which commute: they are then sorted so that
  // each row is read in two ascending streams (prefetch-friendly; the rows of a large cache do
  // not fit in the CPU caches) and a row is dropped before any work if a swap straddles its end.
  // Overlapping swaps are applied in their order.
  void flush() {
    bool disjoint = true;
    if (mark_.size() < len_.size()) mark_.assign(len_.size(), 0);
    for (const auto& [lo, hi] : pending_) {
      if (mark_[lo] || mark_[hi]) disjoint = false;
      mark_[lo] = mark_[hi] = 1;
    }
    for (const auto& [lo, hi] : pending_) mark_[lo] = mark_[hi] = 0;
    if (disjoint) std::sort(pending_.begin(), pending_.end());
    for (Index h = next_[head_]; h != head_;) {
      const Index nxt = next_[h];
      float* d = data_[h];
      const Index len = len_[h];
      if (disjoint) {
        bool straddles = false;
        for (const auto& [lo, hi] : pending_) {
          if (lo >= len) break;  // sorted by lo: no later swap touches the row
          if (hi >= len) {
            straddles = true;
            break;
          }
        }
        if (straddles) {
          drop(h);
        } else {
          for (const auto& [lo, hi] : pending_) {
            if (lo >= len) break;
            std::swap(d[lo], d[hi]);
          }
        }
      } else {
        for (const auto& [lo, hi] : pending_) {
          if (len > hi) {
            std::swap(d[lo], d[hi]);
          } else if (len > lo) {
            drop(h);
            break;
          }
        }
      }
      h = nxt;
    }
    pending_.clear();
  }

  std::size_t capacity_floats() const { return capacity_; }
  std::size_t used_floats() const { return used_; }
  long long hits() const { return hits_; }

 private:
  bool in_list(Index r) const { return prev_[r] >= 0; }
  void unlink(Index r) {
    next_[prev_[r]] = next_[r];
    prev_[next_[r]] = prev_[r];
    prev_[r] = next_[r] = -1;
  }
  void link_mru(Index r) {
    prev_[r] = prev_[head_];
    next_[r] = head_;
    next_[prev_[head_]] = r;
    prev_[head_] = r;
  }
  void drop(Index r) {
    unlink(r);
    std::free(data_[r]);
    data_[r] = nullptr;
    used_ -= static_cast<std::size_t>(len_[r]);
    len_[r] = 0;
  }

  std::vector<float*> data_;
  std::vector<Index> len_;
  std::vector<Index> prev_, next_;  // LRU list; index n_rows is the sentinel
  Index head_;
  std::vector<std::pair<Index, Index>> pending_;  // queued entry swaps (lo, hi)
  std::vector<std::uint8_t> mark_;                // flush's disjointness check (all zero)
  std::size_t capacity_ = 0, used_ = 0;
  long long hits_ = 0;
};

}  // namespace svmkit
