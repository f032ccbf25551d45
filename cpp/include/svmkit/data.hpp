// Non-owning views over a data matrix X (n_samples x n_features) and the sweeps over it.
//
// Memory stays owned by the caller (numpy, scipy, or an embedding program); svmkit never
// copies it. Three layouts are served, each in float or double, CSR with 32- or 64-bit
// indices. Solvers are templates over the view type and are instantiated once per type at
// their entry point (std::visit over MatrixView), so inner loops have no virtual calls.
//
// Reductions over rows (X^T v) split the rows into one contiguous chunk per thread, sum
// each chunk into its own buffer and add the buffers in chunk order: results are
// deterministic for a fixed thread count.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <variant>
#include <vector>

#include "svmkit/detail/parallel.hpp"
#include "svmkit/status.hpp"

namespace svmkit {

using Index = std::int64_t;

// Dense, row-major: element (i, j) at data[i * ld + j]; ld >= cols.
template <class T>
struct DenseRowMajorView {
  using value_type = T;
  const T* data = nullptr;
  Index rows = 0;  // samples
  Index cols = 0;  // features
  Index ld = 0;    // distance between the starts of consecutive rows, in elements
};

// Dense, column-major: element (i, j) at data[j * ld + i]; ld >= rows.
template <class T>
struct DenseColMajorView {
  using value_type = T;
  const T* data = nullptr;
  Index rows = 0;
  Index cols = 0;
  Index ld = 0;  // distance between the starts of consecutive columns, in elements
};

// Compressed sparse rows: the entries of row i are data[indptr[i] .. indptr[i+1]) at the
// columns indices[...]. Indices need not be sorted; duplicates add up.
template <class T, class I>
struct CsrView {
  using value_type = T;
  using index_type = I;
  const T* data = nullptr;
  const I* indices = nullptr;
  const I* indptr = nullptr;  // rows + 1 entries, indptr[0] == 0
  Index rows = 0;
  Index cols = 0;
};

using MatrixView = std::variant<DenseRowMajorView<float>, DenseRowMajorView<double>,
                                DenseColMajorView<float>, DenseColMajorView<double>,
                                CsrView<float, std::int32_t>, CsrView<double, std::int32_t>,
                                CsrView<float, std::int64_t>, CsrView<double, std::int64_t>>;

template <class V>
struct is_col_major : std::false_type {};
template <class T>
struct is_col_major<DenseColMajorView<T>> : std::true_type {};

template <class V>
struct is_csr_view : std::false_type {};
template <class T, class I>
struct is_csr_view<CsrView<T, I>> : std::true_type {};

inline Index rows_of(const MatrixView& X) {
  return std::visit([](const auto& v) { return v.rows; }, X);
}
inline Index cols_of(const MatrixView& X) {
  return std::visit([](const auto& v) { return v.cols; }, X);
}

// Checks a view's structure (shape, strides, CSR pointers and index bounds). Throws
// svmkit::Error naming the problem. Costs one pass over the CSR indices.
void validate_view(const MatrixView& X, const char* name = "X");

// Checks that every stored value is finite. One pass over the data.
void validate_finite(const MatrixView& X, const char* name = "X");

// ---------------------------------------------------------------------------------------
// Row access (row-major and CSR). fn(j, x_ij) is called for each stored entry of row i.

template <class T, class Fn>
inline void for_each_in_row(const DenseRowMajorView<T>& X, Index i, Fn&& fn) {
  const T* row = X.data + i * X.ld;
  for (Index j = 0; j < X.cols; ++j) fn(j, static_cast<double>(row[j]));
}
template <class T, class I, class Fn>
inline void for_each_in_row(const CsrView<T, I>& X, Index i, Fn&& fn) {
  for (I k = X.indptr[i]; k < X.indptr[i + 1]; ++k)
    fn(static_cast<Index>(X.indices[k]), static_cast<double>(X.data[k]));
}

// Dense dot product with four independent accumulators, so that the compiler can keep
// several multiply-adds in flight (a single accumulator serializes on its latency).
template <class T>
inline double dense_dot(const T* x, const double* w, Index n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  Index j = 0;
  for (; j + 4 <= n; j += 4) {
    s0 += static_cast<double>(x[j]) * w[j];
    s1 += static_cast<double>(x[j + 1]) * w[j + 1];
    s2 += static_cast<double>(x[j + 2]) * w[j + 2];
    s3 += static_cast<double>(x[j + 3]) * w[j + 3];
  }
  for (; j < n; ++j) s0 += static_cast<double>(x[j]) * w[j];
  return (s0 + s1) + (s2 + s3);
}

template <class T>
inline double row_dot(const DenseRowMajorView<T>& X, Index i, const double* w) {
  return dense_dot(X.data + i * X.ld, w, X.cols);
}
// Sparse rows too: four accumulators (dna.scale's 45-nonzero rows: the single chain's add
// latency was half of dual_cd's time).
template <class T, class I>
inline double row_dot(const CsrView<T, I>& X, Index i, const double* w) {
  const T* x = X.data;
  const I* idx = X.indices;
  I k = X.indptr[i];
  const I end = X.indptr[i + 1];
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  for (; k + 4 <= end; k += 4) {
    s0 += static_cast<double>(x[k]) * w[idx[k]];
    s1 += static_cast<double>(x[k + 1]) * w[idx[k + 1]];
    s2 += static_cast<double>(x[k + 2]) * w[idx[k + 2]];
    s3 += static_cast<double>(x[k + 3]) * w[idx[k + 3]];
  }
  for (; k < end; ++k) s0 += static_cast<double>(x[k]) * w[idx[k]];
  return (s0 + s1) + (s2 + s3);
}
// Column-major rows are strided; used only where a single row is needed.
template <class T>
inline double row_dot(const DenseColMajorView<T>& X, Index i, const double* w) {
  double s = 0.0;
  for (Index j = 0; j < X.cols; ++j) s += static_cast<double>(X.data[j * X.ld + i]) * w[j];
  return s;
}
template <class T, class Fn>
inline void for_each_in_row(const DenseColMajorView<T>& X, Index i, Fn&& fn) {
  for (Index j = 0; j < X.cols; ++j) fn(j, static_cast<double>(X.data[j * X.ld + i]));
}

template <class T>
inline void row_axpy(const DenseRowMajorView<T>& X, Index i, double a, double* out) {
  const T* row = X.data + i * X.ld;
  for (Index j = 0; j < X.cols; ++j) out[j] += a * static_cast<double>(row[j]);
}
template <class T, class I>
inline void row_axpy(const CsrView<T, I>& X, Index i, double a, double* out) {
  for (I k = X.indptr[i]; k < X.indptr[i + 1]; ++k)
    out[X.indices[k]] += a * static_cast<double>(X.data[k]);
}
template <class T>
inline void row_axpy(const DenseColMajorView<T>& X, Index i, double a, double* out) {
  for (Index j = 0; j < X.cols; ++j) out[j] += a * static_cast<double>(X.data[j * X.ld + i]);
}

template <class V>
inline double row_sq_norm(const V& X, Index i) {
  double s = 0.0;
  for_each_in_row(X, i, [&](Index, double v) { s += v * v; });
  return s;
}

// ---------------------------------------------------------------------------------------
// Thread-local accumulation buffers for X^T v, reused across calls.
struct ReductionBuffers {
  std::vector<std::vector<double>> per_chunk;
  // Returns n_chunks zeroed buffers of length len.
  std::vector<std::vector<double>>& get(int n_chunks, Index len) {
    if (static_cast<int>(per_chunk.size()) < n_chunks) per_chunk.resize(n_chunks);
    for (int c = 0; c < n_chunks; ++c) per_chunk[c].assign(static_cast<std::size_t>(len), 0.0);
    return per_chunk;
  }
};

// Number of chunks for a row reduction: one per thread, but at least kRowsPerChunk rows per
// chunk, so that small problems stay single-threaded (a fork/join costs more than they do).
constexpr Index kRowsPerChunk = 1024;
inline int reduction_chunks(Index rows, int n_threads) {
  Index by_rows = rows / kRowsPerChunk;
  if (by_rows < 1) by_rows = 1;
  return static_cast<int>(std::min<Index>(n_threads, by_rows));
}

// Stored entries of a view: the work of one pass.
template <class T>
inline Index stored_entries(const DenseRowMajorView<T>& X) {
  return X.rows * X.cols;
}
template <class T>
inline Index stored_entries(const DenseColMajorView<T>& X) {
  return X.rows * X.cols;
}
template <class T, class I>
inline Index stored_entries(const CsrView<T, I>& X) {
  return static_cast<Index>(X.indptr[X.rows]);
}

// Chunks for a pass over X: one per thread, but at least kEntriesPerChunk stored entries and
// kRowsPerChunk rows each. A fork/join costs microseconds and, on a loaded machine, up to a
// scheduler time slice (milliseconds: the helper thread waits for a core), so a chunk must be
// worth several milliseconds of work for the split to pay when a core is taken: 2^20 entries
// (a sparse pass reads 1-2 ns per entry when idle). At 2^17 a sparse 8,000 x 5,000 TRON fit
// (400k entries) ran 1.9-2.2x slower with 2 threads than with 1 on the shared 2-core machine.
constexpr Index kEntriesPerChunk = Index{1} << 20;

// Adds the first n_chunks buffers into out (length len), in chunk order. The sum is split
// over threads only when it reads at least kEntriesPerChunk values per thread.
inline void reduce_chunks(const std::vector<std::vector<double>>& bufs, int n_chunks, Index len,
                          double* out, int n_threads) {
  const Index by_work = std::max<Index>(1, len * n_chunks / kEntriesPerChunk);
  parallel_for(len, static_cast<int>(std::min<Index>(n_threads, by_work)), [&](Index j) {
    double s = 0.0;
    for (int c = 0; c < n_chunks; ++c) s += bufs[c][j];
    out[j] = s;
  });
}

template <class V>
inline int pass_chunks(const V& X, int n_threads) {
  const Index by_work = std::max<Index>(1, stored_entries(X) / kEntriesPerChunk);
  return static_cast<int>(std::min<Index>(by_work, reduction_chunks(X.rows, n_threads)));
}

// out[i] = x_i . w for every row (one pass).
template <class V>
void matvec(const V& X, const double* w, double* out, int n_threads) {
  if constexpr (is_col_major<V>::value) {
    // Column sweeps: each thread owns a block of rows, so writes never collide.
    parallel_chunks(X.rows, pass_chunks(X, n_threads), [&](int, Index b, Index e) {
      for (Index i = b; i < e; ++i) out[i] = 0.0;
      for (Index j = 0; j < X.cols; ++j) {
        const auto* col = X.data + j * X.ld;
        const double wj = w[j];
        if (wj == 0.0) continue;
        for (Index i = b; i < e; ++i) out[i] += static_cast<double>(col[i]) * wj;
      }
    });
  } else {
    parallel_chunks(X.rows, pass_chunks(X, n_threads), [&](int, Index b, Index e) {
      for (Index i = b; i < e; ++i) out[i] = row_dot(X, i, w);
    });
  }
}

// out = X^T v (one pass), deterministic for a fixed thread count.
template <class V>
void rmatvec(const V& X, const double* v, double* out, int n_threads, ReductionBuffers& buf) {
  if constexpr (is_col_major<V>::value) {
    parallel_for(X.cols, X.rows * X.cols >= kEntriesPerChunk ? n_threads : 1, [&](Index j) {
      const auto* col = X.data + j * X.ld;
      double s = 0.0;
      for (Index i = 0; i < X.rows; ++i) s += static_cast<double>(col[i]) * v[i];
      out[j] = s;
    });
  } else {
    const int chunks = pass_chunks(X, n_threads);
    auto& bufs = buf.get(chunks, X.cols);
    parallel_chunks(X.rows, chunks, [&](int c, Index b, Index e) {
      double* acc = bufs[c].data();
      for (Index i = b; i < e; ++i)
        if (v[i] != 0.0) row_axpy(X, i, v[i], acc);
    });
    reduce_chunks(bufs, chunks, X.cols, out, n_threads);
  }
}

}  // namespace svmkit
