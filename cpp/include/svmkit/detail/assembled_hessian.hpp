// The dense kernels behind objective.hpp's assembled Hessian: a rank-k update of a upper
// triangle and the symmetric product. They live in assembled_hessian.cpp so that the public
// headers do not include Eigen.
#pragma once

#include <cmath>
#include <vector>

#include "svmkit/data.hpp"

namespace svmkit::detail {

// H += B^T B on the upper triangle of H (n x n, column-major); B is rows x n, row-major.
void add_gram_upper(const double* B, Index rows, Index n, double* H);

// out = H s, H symmetric and given by its upper triangle (n x n, column-major).
void symmetric_upper_product(const double* H, Index n, const double* s, double* out);

// Dense rows gathered into a block before add_gram_upper (64 x n doubles per thread; 256 was no
// faster on 80,000 x 50).
constexpr Index kGramBlockRows = 64;

// Adds weight x~_i x~_i^T of CSR row i to the upper triangle h (column-major, n x n, n =
// X.cols + [fit_intercept]), x~_i = (x_i, scale). Rows with strictly increasing indices (scipy's
// canonical form) take a branch-free loop whose writes run down one column; others (unsorted,
// duplicates adding up as in every other pass) the general one.
template <class T, class I>
void add_sparse_row_gram(const CsrView<T, I>& X, Index i, double weight, bool fit_intercept,
                         double scale, double* h) {
  const Index d = X.cols, n = d + (fit_intercept ? 1 : 0);
  const auto b0 = X.indptr[i], b1 = X.indptr[i + 1];
  const auto* idx = X.indices;
  const auto* val = X.data;
  bool sorted = true;
  for (auto a = b0 + 1; a < b1 && sorted; ++a) sorted = idx[a - 1] < idx[a];
  for (auto a = b0; a < b1; ++a) {
    const Index ja = static_cast<Index>(idx[a]);
    const double xa = weight * static_cast<double>(val[a]);
    double* col = h + ja * n;
    if (sorted) {
      for (auto b = b0; b < a; ++b) col[idx[b]] += xa * static_cast<double>(val[b]);
    } else {
      for (auto b = b0; b < a; ++b) {
        const Index jb = static_cast<Index>(idx[b]);
        const double v = xa * static_cast<double>(val[b]);
        h[std::max(ja, jb) * n + std::min(ja, jb)] += ja == jb ? 2.0 * v : v;
      }
    }
    col[ja] += xa * static_cast<double>(val[a]);
    if (fit_intercept) h[d * n + ja] += xa * scale;
  }
  if (fit_intercept) h[d * n + d] += weight * scale * scale;
}

// h (the upper triangle, column-major, n x n, n = X.cols + [fit_intercept]) +=
// sum_k weight(i) x~_i x~_i^T over the rows i = row_at(k), k < count, x~_i = (x_i, scale); rows
// of weight 0 are skipped. Dense rows are gathered into blocks of kGramBlockRows scaled rows and
// added by add_gram_upper (a rank-k update); sparse rows by add_sparse_row_gram. The rows are
// split into `chunks` contiguous ranges, each summed into its own buffer (bufs) and the buffers
// added in chunk order: deterministic for a given chunk count. h is not cleared.
template <class V, class RowAt, class WeightAt>
void add_weighted_gram(const V& X, Index count, RowAt&& row_at, WeightAt&& weight,
                       bool fit_intercept, double scale, int chunks, int n_threads,
                       ReductionBuffers& bufs_store, double* h) {
  const Index d = X.cols, n = d + (fit_intercept ? 1 : 0);
  const Index nn = n * n;
  auto& bufs = bufs_store.get(chunks > 1 ? chunks : 0, nn);
  parallel_chunks(count, chunks, [&](int c, Index begin, Index end) {
    double* acc = chunks > 1 ? bufs[c].data() : h;
    std::vector<double> block;
    Index filled = 0;
    if constexpr (!is_csr_view<V>::value)
      block.assign(static_cast<std::size_t>(kGramBlockRows * n), 0.0);
    for (Index k = begin; k < end; ++k) {
      const Index i = row_at(k);
      const double wt = weight(i);
      if (wt == 0.0) continue;
      if constexpr (is_csr_view<V>::value) {
        add_sparse_row_gram(X, i, wt, fit_intercept, scale, acc);
      } else {
        double* row = block.data() + filled * n;
        const double sc = std::sqrt(wt);
        for_each_in_row(X, i, [&](Index j, double x) { row[j] = sc * x; });
        if (fit_intercept) row[d] = sc * scale;
        if (++filled == kGramBlockRows) {
          add_gram_upper(block.data(), filled, n, acc);
          filled = 0;
        }
      }
    }
    if (filled > 0) add_gram_upper(block.data(), filled, n, acc);
  });
  if (chunks > 1) {  // as reduce_chunks, adding to h
    const Index by_work = std::max<Index>(1, nn * chunks / kEntriesPerChunk);
    parallel_for(nn, static_cast<int>(std::min<Index>(n_threads, by_work)), [&](Index q) {
      double s = 0.0;
      for (int c = 0; c < chunks; ++c) s += bufs[c][static_cast<std::size_t>(q)];
      h[q] += s;
    });
  }
}

}  // namespace svmkit::detail
