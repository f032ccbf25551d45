// Kernel functions over data views and kernel rows K(a_i, B).
//
//   linear      K(a, b) = a.b
//   polynomial  K(a, b) = (gamma a.b + coef0)^degree
//   rbf         K(a, b) = exp(-gamma ||a - b||^2)       (gaussian; gamma = 1 / (2 sigma^2))
//   laplacian   K(a, b) = exp(-gamma ||a - b||_1)
//   sigmoid     K(a, b) = tanh(gamma a.b + coef0)
//   precomputed K(i, j) = A[i, j]                        (A holds kernel values directly)
//
// Paper 001, section 5 (eqs. 123-130). A row K(a_i, b_c) for a list of columns c is computed
// by first scattering a_i into a dense double buffer once (so sparse and strided rows cost
// O(nnz) to read), then one dot product or distance per column; on sparse data with more than
// 131,072 features the buffer spans only the features the columns' samples store
// (renumber_columns), not every feature. rbf uses precomputed squared row norms
// (||a - b||^2 = ||a||^2 + ||b||^2 - 2 a.b, clamped at 0 against rounding).
// A block of a row is computed in two passes: the distances or dot products of the block into
// the output, then the exponential over the whole block at once (vec_math.hpp: vectorized,
// unlike one std::exp call per value). `row` is parallel over the columns (OpenMP);
// `row_serial` with a caller-owned Scratch is for callers that parallelize over rows
// themselves (prediction); `load_row` + `values` let a solver split a row between its own
// threads. Nothing allocates per row.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/detail/vec_math.hpp"

namespace svmkit {

enum class KernelKind { linear, polynomial, rbf, laplacian, sigmoid, precomputed };

struct KernelSpec {
  KernelKind kind = KernelKind::rbf;
  double gamma = 1.0;  // > 0 (for linear and precomputed it is unused)
  double coef0 = 0.0;  // polynomial and sigmoid offset
  int degree = 3;      // polynomial degree (>= 0; scikit-learn allows 0)
};

const char* to_string(KernelKind kind);
KernelKind kernel_kind_from_string(const std::string& name);  // throws Error on unknown names
void validate_kernel(const KernelSpec& spec);

// An upper bound on |K(x_i, x_j)| over the problem's samples (rows[0..n) of X, or its first n
// rows when rows is null): 1 for rbf, laplacian and sigmoid; max ||x||^2 for linear (Cauchy-
// Schwarz); (gamma max ||x||^2 + |coef0|)^degree for polynomial; the largest |A_ij| of the
// problem's block for precomputed. One pass over X; inf on overflow, NaN on NaN data.
double kernel_value_bound(const KernelSpec& spec, const MatrixView& X, const Index* rows, Index n);

// Throws Error when kernel values of the problem could exceed kMaxCachedKernelValue
// (kernel_cache.hpp): they would become inf in the float kernel cache.
void check_kernel_fits_cache(const KernelSpec& spec, const MatrixView& X, const Index* rows,
                             Index n);

// The index type of a CSR view (int for the other views, whose index copies stay empty).
template <class V, class = void>
struct csr_index {
  using type = int;
};
template <class V>
struct csr_index<V, std::void_t<typename V::index_type>> {
  using type = typename V::index_type;
};
template <class V>
using csr_index_t = typename csr_index<V>::type;

namespace kernel_detail {

// dense_dot (four accumulators) is svmkit::dense_dot from data.hpp.
template <class T>
inline double dense_l1(const T* b, const double* a, Index d) {
  double s0 = 0.0, s1 = 0.0;
  Index k = 0;
  for (; k + 2 <= d; k += 2) {
    s0 += std::fabs(static_cast<double>(b[k]) - a[k]);
    s1 += std::fabs(static_cast<double>(b[k + 1]) - a[k + 1]);
  }
  for (; k < d; ++k) s0 += std::fabs(static_cast<double>(b[k]) - a[k]);
  return s0 + s1;
}

template <class T>
inline double dot_with(const DenseRowMajorView<T>& B, Index j, const double* a) {
  return dense_dot(B.data + j * B.ld, a, B.cols);
}
// Double rows of 16 features or more go to the multiversioned (AVX2/AVX-512) dot product.
inline double dot_with(const DenseRowMajorView<double>& B, Index j, const double* a) {
  if (B.cols >= 16) return dot8(B.data + j * B.ld, a, B.cols);
  return dense_dot(B.data + j * B.ld, a, B.cols);
}
template <class V>
inline double dot_with(const V& B, Index j, const double* a) {
  return row_dot(B, j, a);
}
// ||a - b_j||_1 given a_abs_total = ||a||_1.
template <class T>
inline double l1_with(const DenseRowMajorView<T>& B, Index j, const double* a, double) {
  return dense_l1(B.data + j * B.ld, a, B.cols);
}
template <class T, class I>
inline double l1_with(const CsrView<T, I>& B, Index j, const double* a, double a_total) {
  // sum over b's stored entries |a_k - b_k| + sum over the others |a_k|.
  double s = 0.0, a_on_b = 0.0;
  for (I k = B.indptr[j]; k < B.indptr[j + 1]; ++k) {
    const double ak = a[B.indices[k]];
    s += std::fabs(ak - static_cast<double>(B.data[k]));
    a_on_b += std::fabs(ak);
  }
  return s + std::max(0.0, a_total - a_on_b);
}
template <class T>
inline double l1_with(const DenseColMajorView<T>& B, Index j, const double* a, double) {
  double s = 0.0;
  for (Index k = 0; k < B.cols; ++k)
    s += std::fabs(static_cast<double>(B.data[k * B.ld + j]) - a[k]);
  return s;
}

}  // namespace kernel_detail

// Evaluates kernel values between rows of A (the "left" data: training points, or test
// points in prediction) and rows of B. For the precomputed kernel A itself holds the kernel
// values and column c of A is sample c of B.
template <class VA, class VB>
class KernelEvaluator {
 public:
  // Per-thread scratch: a dense copy of the current row of A.
  struct Scratch {
    std::vector<double> dense;
    Index loaded = -1;    // row of A currently scattered into dense (-1: none)
    double a_norm = 0.0;  // its squared l2 norm (rbf) or l1 norm (laplacian)
  };

  KernelEvaluator(const VA& A, const VB& B, const KernelSpec& spec, int n_threads)
      : A_(A), B_(B), spec_(spec), n_threads_(resolve_threads(n_threads)), work_cols_(A.cols) {
    if (spec_.kind == KernelKind::rbf) norm_b_ = squared_norms(B_, n_threads_);
    if constexpr (is_csr_view<VA>::value && is_csr_view<VB>::value) renumber_columns();
  }

  // Not copyable: A_ and B_ may view the evaluator's own index copies (renumber_columns).
  KernelEvaluator(const KernelEvaluator&) = delete;
  KernelEvaluator& operator=(const KernelEvaluator&) = delete;

  Scratch make_scratch() const {
    Scratch s;
    s.dense.assign(static_cast<std::size_t>(dense_len()), 0.0);
    return s;
  }

  // out[j] = K(a_i, b_{cols[j]}) for j in [begin, end) (cols == nullptr: b_j), parallel over j.
  template <class Out>
  void row(Index i, const Index* cols, Index begin, Index end, Out* out) {
    load(i, own_scratch());
    const Scratch& s = scratch_;
    double* buf = nullptr;
    if constexpr (std::is_same_v<Out, double>) {
      buf = out;
    } else {
      if (static_cast<Index>(tmp_.size()) < end) tmp_.resize(static_cast<std::size_t>(end));
      buf = tmp_.data();
    }
    // A parallel region costs microseconds (much more on a loaded machine), so only rows
    // with roughly 100 microseconds of work or more are split between threads.
    const int chunks = parallel_chunks_for(end - begin);
    parallel_chunks(end - begin, chunks, [&](int, Index b, Index e) {
      values(s, cols, begin + b, begin + e, buf, false);
      if constexpr (!std::is_same_v<Out, double>) {
        for (Index j = begin + b; j < begin + e; ++j) out[j] = static_cast<Out>(buf[j]);
      }
    });
  }

  // How many threads a row block of `count` columns is worth (1 below about 100 microseconds).
  int parallel_chunks_for(Index count) const {
    const double work = static_cast<double>(count) * (static_cast<double>(work_cols_) + 24.0);
    return n_threads_ == 1 || work < 2.5e5 ? 1 : n_threads_;
  }

  // The same, single-threaded, with the caller's scratch (safe to call from many threads).
  template <class Out>
  void row_serial(Index i, const Index* cols, Index begin, Index end, Out* out, Scratch& s) const {
    load(i, s);
    if constexpr (std::is_same_v<Out, double>) {
      values(s, cols, begin, end, out, false);
    } else {
      for (Index j = begin; j < end; ++j) out[j] = static_cast<Out>(value(s, col(cols, j)));
    }
  }

  // Scatters row i of A into s (a no-op when it is already there).
  void load_row(Index i, Scratch& s) const { load(i, s); }

  // out[j] = K(a_i, b_{cols[j]}) for j in [begin, end) with a_i loaded in s; single-threaded.
  // single = true: the exponential of rbf and laplacian only to float accuracy (relative error
  // below 1e-8), for values that are stored as float anyway.
  void values(const Scratch& s, const Index* cols, Index begin, Index end, double* out,
              bool single) const {
    const double* a = s.dense.data();
    switch (spec_.kind) {
      case KernelKind::precomputed:
        for (Index j = begin; j < end; ++j) out[j] = a[col(cols, j)];
        return;
      case KernelKind::laplacian:
        for (Index j = begin; j < end; ++j)
          out[j] = -spec_.gamma * kernel_detail::l1_with(B_, col(cols, j), a, s.a_norm);
        break;
      case KernelKind::rbf: {
        const double an = s.a_norm, g = spec_.gamma;
        const double* nb = norm_b_.data();
        for (Index j = begin; j < end; ++j) {
          const Index c = col(cols, j);
          const double d = kernel_detail::dot_with(B_, c, a);
          out[j] = -g * std::max(0.0, an + nb[c] - 2.0 * d);
        }
        break;
      }
      default:
        for (Index j = begin; j < end; ++j)
          out[j] = apply_dot(kernel_detail::dot_with(B_, col(cols, j), a));
        return;
    }
    if (single)
      exp_inplace_single(out + begin, end - begin);
    else
      exp_inplace(out + begin, end - begin);
  }

  // For the kernels of a dot product (linear, polynomial, rbf through the distance, sigmoid):
  // out[j] holds a . b_j on entry and K(a, b_j) on exit, j in [begin, end);
  // an = ||a||^2 and nb[j] = ||b_j||^2 (read for rbf only). single: as in values().
  void from_dots(double an, const double* nb, Index begin, Index end, double* out,
                 bool single) const {
    if (spec_.kind == KernelKind::rbf) {
      rbf_from_dots(an, nb, spec_.gamma, begin, end, out, single);
      return;
    }
    for (Index j = begin; j < end; ++j) out[j] = apply_dot(out[j]);
  }

  // K(a_i, b_c) for a single pair.
  double operator()(Index i, Index c) {
    load(i, own_scratch());
    return value(scratch_, c);
  }

  // K(a_i, a_i) when A and B hold the same samples (the diagonal of a training kernel).
  double self(Index i) const {
    if (spec_.kind == KernelKind::precomputed) return entry_of(A_, i, i);
    if (spec_.kind == KernelKind::rbf || spec_.kind == KernelKind::laplacian) return 1.0;
    return apply_dot(row_sq_norm(A_, i));
  }

  const KernelSpec& spec() const { return spec_; }
  int n_threads() const { return n_threads_; }

 private:
  static Index col(const Index* cols, Index j) { return cols ? cols[j] : j; }
  Index dense_len() const { return A_.cols; }
  // The evaluator's own scratch (row, operator()), sized at its first use: the solvers and
  // prediction bring their own (make_scratch), so most evaluators never need it (n_features
  // doubles: 0.4 MB at 50,000 features).
  Scratch& own_scratch() {
    if (scratch_.dense.empty()) scratch_.dense.assign(static_cast<std::size_t>(dense_len()), 0.0);
    return scratch_;
  }

  // Very wide sparse data (hashed or n-gram features): the scratch of a row would hold every
  // feature, per thread (8 MB at 10^6 features, for 2,000 rows of 60 entries). Above
  // kMaxScratchBytes the columns are renumbered to the features B stores (sorted, at most its
  // stored entries), plus one slot where A's other features land (B never reads it; they count
  // only in A's norms, taken from the values): A_ and B_ then view renumbered index copies, and
  // each kernel value is the same sum in the same order.
  static constexpr double kMaxScratchBytes = 1 << 20;
  void renumber_columns() {
    if (spec_.kind == KernelKind::precomputed) return;  // A's columns are B's samples
    if (static_cast<double>(A_.cols) * sizeof(double) <= kMaxScratchBytes) return;
    using IA = typename VA::index_type;
    using IB = typename VB::index_type;
    const auto nnz_b = static_cast<std::size_t>(B_.indptr[B_.rows]);
    std::vector<IB> features(B_.indices, B_.indices + nnz_b);
    std::sort(features.begin(), features.end());
    features.erase(std::unique(features.begin(), features.end()), features.end());
    if (2 * static_cast<Index>(features.size()) > A_.cols) return;  // no saving worth a copy
    const auto slot = [&](Index j) {
      const auto it = std::lower_bound(features.begin(), features.end(), j);
      return it != features.end() && static_cast<Index>(*it) == j
                 ? it - features.begin()
                 : features.end() - features.begin();
    };
    const bool same =
        static_cast<const void*>(A_.indices) == static_cast<const void*>(B_.indices) &&
        static_cast<const void*>(A_.indptr) == static_cast<const void*>(B_.indptr);
    b_index_.resize(nnz_b);
    for (std::size_t k = 0; k < nnz_b; ++k) b_index_[k] = static_cast<IB>(slot(B_.indices[k]));
    B_.indices = b_index_.data();
    if (same && std::is_same_v<IA, IB>) {
      A_.indices = reinterpret_cast<const IA*>(b_index_.data());
    } else {
      const auto nnz_a = static_cast<std::size_t>(A_.indptr[A_.rows]);
      a_index_.resize(nnz_a);
      for (std::size_t k = 0; k < nnz_a; ++k) a_index_[k] = static_cast<IA>(slot(A_.indices[k]));
      A_.indices = a_index_.data();
    }
    A_.cols = B_.cols = static_cast<Index>(features.size()) + 1;
  }

  template <class V>
  static std::vector<double> squared_norms(const V& X, int nt) {
    std::vector<double> n(static_cast<std::size_t>(X.rows));
    parallel_for(X.rows, X.rows * (X.cols + 1) > 1000000 ? nt : 1,
                 [&](Index i) { n[i] = row_sq_norm(X, i); });
    return n;
  }
  template <class V>
  static double entry_of(const V& X, Index i, Index j) {
    double v = 0.0;
    for_each_in_row(X, i, [&](Index k, double x) {
      if (k == j) v += x;
    });
    return v;
  }

  void load(Index i, Scratch& s) const {
    if (s.loaded == i) return;
    if (s.loaded >= 0) {
      // Clear only what the previous row wrote (O(nnz) for sparse rows).
      for_each_in_row(A_, s.loaded, [&](Index k, double) { s.dense[k] = 0.0; });
    }
    // Duplicate CSR entries add up in the buffer; the norms assume canonical rows (the Python
    // layer sums duplicates first), so each stored entry is read once.
    double sq = 0.0, l1 = 0.0;
    for_each_in_row(A_, i, [&](Index k, double v) {
      s.dense[k] += v;
      sq += v * v;
      l1 += std::fabs(v);
    });
    s.a_norm = spec_.kind == KernelKind::laplacian ? l1 : sq;
    s.loaded = i;
  }

  double value(const Scratch& s, Index c) const {
    const double* a = s.dense.data();
    switch (spec_.kind) {
      case KernelKind::precomputed:
        return a[c];
      case KernelKind::laplacian:
      case KernelKind::rbf: {
        double v = 0.0;
        values(s, &c, 0, 1, &v, false);  // the same arithmetic as whole rows
        return v;
      }
      default:
        return apply_dot(kernel_detail::dot_with(B_, c, a));
    }
  }

  double apply_dot(double d) const {
    switch (spec_.kind) {
      case KernelKind::linear:
        return d;
      case KernelKind::polynomial: {
        const double base = spec_.gamma * d + spec_.coef0;
        switch (spec_.degree) {
          case 0:
            return 1.0;
          case 1:
            return base;
          case 2:
            return base * base;
          case 3:
            return base * base * base;
          default:
            return std::pow(base, spec_.degree);
        }
      }
      case KernelKind::sigmoid:
        return std::tanh(spec_.gamma * d + spec_.coef0);
      default:
        return d;
    }
  }

  VA A_;
  VB B_;
  KernelSpec spec_;
  int n_threads_;
  Index work_cols_;  // A's features as given (the thread split's work estimate)
  // renumber_columns' index copies (empty unless the columns were renumbered).
  std::vector<csr_index_t<VA>> a_index_;
  std::vector<csr_index_t<VB>> b_index_;
  std::vector<double> norm_b_;
  Scratch scratch_;
  std::vector<double> tmp_;  // row() into float: the double values before rounding
};

}  // namespace svmkit
