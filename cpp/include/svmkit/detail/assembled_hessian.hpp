// The dense kernels behind objective.hpp's assembled Hessian: a rank-k update of a upper
// triangle and the symmetric product. They live in assembled_hessian.cpp so that the public
// headers do not include Eigen.
#pragma once

#include "svmkit/data.hpp"

namespace svmkit::detail {

// H += B^T B on the upper triangle of H (n x n, column-major); B is rows x n, row-major.
void add_gram_upper(const double* B, Index rows, Index n, double* H);

// out = H s, H symmetric and given by its upper triangle (n x n, column-major).
void symmetric_upper_product(const double* H, Index n, const double* s, double* out);

}  // namespace svmkit::detail
