// Dense kernels of the assembled Hessian (detail/assembled_hessian.hpp).
#include "svmkit/detail/assembled_hessian.hpp"

#include <Eigen/Dense>

namespace svmkit::detail {

void add_gram_upper(const double* B, Index rows, Index n, double* H) {
  using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const RowMat> b(B, rows, n);
  Eigen::Map<Eigen::MatrixXd> h(H, n, n);
  h.selfadjointView<Eigen::Upper>().rankUpdate(b.transpose());
}

void symmetric_upper_product(const double* H, Index n, const double* s, double* out) {
  const Eigen::Map<const Eigen::MatrixXd> h(H, n, n);
  const Eigen::Map<const Eigen::VectorXd> v(s, n);
  Eigen::Map<Eigen::VectorXd> o(out, n);
  o.noalias() = h.selfadjointView<Eigen::Upper>() * v;
}

}  // namespace svmkit::detail
