// Loss names, and the validation of views, losses and linear problems (data.hpp, loss.hpp,
// problem.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "svmkit/data.hpp"
#include "svmkit/loss.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/status.hpp"

namespace svmkit {

namespace {
struct LossName {
  LossKind kind;
  const char* name;
  bool regression;
  bool smooth;
};
constexpr LossName kLosses[] = {
    {LossKind::hinge, "hinge", false, false},
    {LossKind::squared_hinge, "squared_hinge", false, true},
    {LossKind::smoothed_hinge, "smoothed_hinge", false, true},
    {LossKind::gaussian_smoothed_hinge, "gaussian_smoothed_hinge", false, true},
    {LossKind::logistic, "logistic", false, true},
    {LossKind::epsilon_insensitive, "epsilon_insensitive", true, false},
    {LossKind::squared_epsilon_insensitive, "squared_epsilon_insensitive", true, true},
    {LossKind::smoothed_epsilon_insensitive, "smoothed_epsilon_insensitive", true, true},
};
const LossName& entry(LossKind k) {
  for (const auto& e : kLosses)
    if (e.kind == k) return e;
  throw_invalid("unknown loss kind");
}
}  // namespace

const char* to_string(LossKind kind) {
  return entry(kind).name;
}
bool is_regression(LossKind kind) {
  return entry(kind).regression;
}
bool is_smooth(LossKind kind) {
  return entry(kind).smooth;
}

LossKind loss_kind_from_string(const std::string& name) {
  for (const auto& e : kLosses)
    if (name == e.name) return e.kind;
  std::string known;
  for (const auto& e : kLosses) known += std::string(known.empty() ? "" : ", ") + e.name;
  throw_invalid("unknown loss '" + name + "'; expected one of: " + known);
}

void validate_loss(const LossSpec& spec) {
  entry(spec.kind);
  const bool smoothed = spec.kind == LossKind::smoothed_hinge ||
                        spec.kind == LossKind::gaussian_smoothed_hinge ||
                        spec.kind == LossKind::smoothed_epsilon_insensitive;
  if (smoothed && !(spec.sigma > 0.0 && std::isfinite(spec.sigma)))
    throw_invalid("the smoothing parameter sigma must be a positive finite number, got " +
                  std::to_string(spec.sigma));
  if (is_regression(spec.kind) && !(spec.epsilon >= 0.0 && std::isfinite(spec.epsilon)))
    throw_invalid("epsilon must be a finite number >= 0, got " + std::to_string(spec.epsilon));
}

namespace {
template <class T>
void check_dense(Index rows, Index cols, Index ld, Index min_ld, const T* data, const char* name) {
  if (rows <= 0 || cols <= 0)
    throw_invalid(std::string(name) + " must have at least one row and one column, got shape (" +
                  std::to_string(rows) + ", " + std::to_string(cols) + ")");
  if (ld < min_ld)
    throw_invalid(std::string(name) + ": leading dimension " + std::to_string(ld) +
                  " is smaller than " + std::to_string(min_ld));
  if (!data) throw_invalid(std::string(name) + ": null data pointer");
}
}  // namespace

void validate_view(const MatrixView& X, const char* name) {
  std::visit(
      [&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, DenseRowMajorView<float>> ||
                      std::is_same_v<V, DenseRowMajorView<double>>) {
          check_dense(v.rows, v.cols, v.ld, v.cols, v.data, name);
        } else if constexpr (std::is_same_v<V, DenseColMajorView<float>> ||
                             std::is_same_v<V, DenseColMajorView<double>>) {
          check_dense(v.rows, v.cols, v.ld, v.rows, v.data, name);
        } else {
          if (v.rows <= 0 || v.cols <= 0)
            throw_invalid(std::string(name) + " must have at least one row and one column");
          if (!v.indptr) throw_invalid(std::string(name) + ": null indptr");
          if (v.indptr[0] != 0) throw_invalid(std::string(name) + ": indptr[0] must be 0");
          for (Index i = 0; i < v.rows; ++i)
            if (v.indptr[i + 1] < v.indptr[i])
              throw_invalid(std::string(name) + ": indptr is not non-decreasing at row " +
                            std::to_string(i));
          const Index nnz = static_cast<Index>(v.indptr[v.rows]);
          if (nnz > 0 && (!v.indices || !v.data))
            throw_invalid(std::string(name) + ": null data or indices");
          // A branch-free min/max (vectorized) finds whether any index is out of range;
          // only then does a second loop find the first one for the message.
          using I = std::decay_t<decltype(v.indices[0])>;
          I lo = 0, hi = 0;
          if (nnz > 0) lo = hi = v.indices[0];
          for (Index k = 0; k < nnz; ++k) {
            lo = std::min(lo, v.indices[k]);
            hi = std::max(hi, v.indices[k]);
          }
          if (lo < 0 || static_cast<Index>(hi) >= v.cols) {  // lo = hi = 0 when empty
            for (Index k = 0; k < nnz; ++k)
              if (v.indices[k] < 0 || v.indices[k] >= v.cols)
                throw_invalid(std::string(name) + ": column index " +
                              std::to_string(static_cast<long long>(v.indices[k])) +
                              " out of range [0, " + std::to_string(v.cols) + ")");
          }
        }
      },
      X);
}

void validate_finite(const MatrixView& X, const char* name) {
  bool ok = true;
  std::visit(
      [&](const auto& v) {
        using V = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<V, DenseRowMajorView<float>> ||
                      std::is_same_v<V, DenseRowMajorView<double>>) {
          for (Index i = 0; i < v.rows && ok; ++i)
            for (Index j = 0; j < v.cols; ++j) ok &= std::isfinite(v.data[i * v.ld + j]);
        } else if constexpr (std::is_same_v<V, DenseColMajorView<float>> ||
                             std::is_same_v<V, DenseColMajorView<double>>) {
          for (Index j = 0; j < v.cols && ok; ++j)
            for (Index i = 0; i < v.rows; ++i) ok &= std::isfinite(v.data[j * v.ld + i]);
        } else {
          const Index nnz = static_cast<Index>(v.indptr[v.rows]);
          for (Index k = 0; k < nnz; ++k) ok &= std::isfinite(v.data[k]);
        }
      },
      X);
  if (!ok) throw_invalid(std::string(name) + " contains NaN or infinity");
}

void validate_problem(const LinearProblem& p, const LossSpec& loss, bool check_finite) {
  validate_view(p.X, "X");
  validate_loss(loss);
  if (check_finite) validate_finite(p.X, "X");
  const Index n = rows_of(p.X);
  if (!p.y) throw_invalid("y is missing");
  if (!p.cost) throw_invalid("the per-sample costs are missing");
  const bool classification = !is_regression(loss.kind);
  for (Index i = 0; i < n; ++i) {
    if (!std::isfinite(p.y[i]))
      throw_invalid("y contains NaN or infinity at index " + std::to_string(i));
    if (classification && p.y[i] != 1.0 && p.y[i] != -1.0)
      throw_invalid("classification targets must be -1 or +1; y[" + std::to_string(i) +
                    "] = " + std::to_string(p.y[i]));
    if (!(p.cost[i] >= 0.0 && std::isfinite(p.cost[i])))
      throw_invalid("per-sample costs must be finite and >= 0; cost[" + std::to_string(i) +
                    "] = " + std::to_string(p.cost[i]));
  }
  if (p.fit_intercept && !(p.intercept_scaling > 0.0 && std::isfinite(p.intercept_scaling)))
    throw_invalid("intercept_scaling must be a positive finite number");
}

}  // namespace svmkit
