#include "svmkit/kernel.hpp"

namespace svmkit {

const char* to_string(KernelKind kind) {
  switch (kind) {
    case KernelKind::linear:
      return "linear";
    case KernelKind::polynomial:
      return "poly";
    case KernelKind::rbf:
      return "rbf";
    case KernelKind::laplacian:
      return "laplacian";
    case KernelKind::sigmoid:
      return "sigmoid";
    case KernelKind::precomputed:
      return "precomputed";
  }
  return "unknown";
}

KernelKind kernel_kind_from_string(const std::string& name) {
  if (name == "linear") return KernelKind::linear;
  if (name == "poly" || name == "polynomial") return KernelKind::polynomial;
  if (name == "rbf" || name == "gaussian") return KernelKind::rbf;
  if (name == "laplacian") return KernelKind::laplacian;
  if (name == "sigmoid") return KernelKind::sigmoid;
  if (name == "precomputed") return KernelKind::precomputed;
  throw_invalid("unknown kernel '" + name +
                "'; expected one of: linear, poly, rbf, laplacian, sigmoid, precomputed");
}

void validate_kernel(const KernelSpec& s) {
  const bool uses_gamma = s.kind == KernelKind::polynomial || s.kind == KernelKind::rbf ||
                          s.kind == KernelKind::laplacian || s.kind == KernelKind::sigmoid;
  if (uses_gamma && !(s.gamma > 0.0 && std::isfinite(s.gamma)))
    throw_invalid("kernel gamma must be a positive finite number, got " + std::to_string(s.gamma));
  if (!std::isfinite(s.coef0)) throw_invalid("kernel coef0 must be finite");
  if (s.kind == KernelKind::polynomial && s.degree < 1)
    throw_invalid("polynomial kernel degree must be >= 1, got " + std::to_string(s.degree));
}

}  // namespace svmkit
