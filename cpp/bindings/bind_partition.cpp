// Per-partition objective passes for the distributed solvers (svmkit.dask). Conversion only:
// the passes are svmkit/partition_passes.hpp.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <stdexcept>

#include "convert.hpp"
#include "svmkit/partition_passes.hpp"

namespace svmkit::py_bind {
namespace {

// The problem over one partition; y and cost only when given (the Hessian product needs
// neither).
LinearProblem partition_problem(const ViewHolder& view, const py::object& y, const py::object& cost,
                                bool fit_intercept, double intercept_scaling,
                                std::vector<py::object>& keep) {
  LinearProblem p;
  if (!y.is_none()) p = make_problem(view, y, cost, fit_intercept, intercept_scaling, true, keep);
  p.X = view.view;
  p.fit_intercept = fit_intercept;
  p.intercept_scaling = intercept_scaling;
  if (!(intercept_scaling > 0.0)) throw_invalid("intercept_scaling must be > 0");
  return p;
}

// (packed, curvature): packed = [L_R, g_R, h_R] (h_R only with want_hdiag) so that the
// driver sums the partitions' packed vectors; curvature = D over the partition's rows (or
// None); with want_margins a third entry, the margins z (partition_margins' values).
py::tuple fun_grad(const py::object& X, const py::object& y, const py::object& cost,
                   const std::string& loss, double sigma, double epsilon, bool fit_intercept,
                   double intercept_scaling, const py::object& w, bool want_hdiag,
                   bool want_curvature, int n_threads, bool want_margins) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem p = partition_problem(view, y, cost, fit_intercept, intercept_scaling, keep);
  const LossSpec spec = make_loss(loss, sigma, epsilon);
  validate_problem(p, spec, false);
  const Index dim = solution_size(p);
  const double* wp = double_ptr(w, dim, "w", keep);
  py::array_t<double> packed(1 + dim * (want_hdiag ? 2 : 1));
  py::object curv_obj = py::none();
  double* curv = nullptr;
  if (want_curvature) {
    py::array_t<double> c(static_cast<py::ssize_t>(rows_of(p.X)));
    curv = c.mutable_data();
    curv_obj = c;
  }
  py::array_t<double> z(want_margins ? static_cast<py::ssize_t>(rows_of(p.X)) : 0);
  double* zp = want_margins ? z.mutable_data() : nullptr;
  double* out = packed.mutable_data();
  {
    py::gil_scoped_release release;
    out[0] = partition_fun_grad(p, spec, wp, out + 1, want_hdiag ? out + 1 + dim : nullptr, curv,
                                n_threads, zp);
  }
  if (want_margins) return py::make_tuple(packed, curv_obj, z);
  return py::make_tuple(packed, curv_obj);
}

double fun(const py::object& X, const py::object& y, const py::object& cost,
           const std::string& loss, double sigma, double epsilon, bool fit_intercept,
           double intercept_scaling, const py::object& w, int n_threads) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem p = partition_problem(view, y, cost, fit_intercept, intercept_scaling, keep);
  const LossSpec spec = make_loss(loss, sigma, epsilon);
  validate_problem(p, spec, false);
  const double* wp = double_ptr(w, solution_size(p), "w", keep);
  py::gil_scoped_release release;
  return partition_fun(p, spec, wp, n_threads);
}

py::array_t<double> hess_vec(const py::object& X, const py::object& curvature, const py::object& s,
                             bool fit_intercept, double intercept_scaling, int n_threads) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem p =
      partition_problem(view, py::none(), py::none(), fit_intercept, intercept_scaling, keep);
  validate_view(p.X, "X");
  const Index dim = solution_size(p);
  const double* cp = double_ptr(curvature, rows_of(p.X), "curvature", keep);
  const double* sp = double_ptr(s, dim, "s", keep);
  py::array_t<double> out(dim);
  double* o = out.mutable_data();
  {
    py::gil_scoped_release release;
    partition_hess_vec(p, cp, sp, o, n_threads);
  }
  return out;
}

// (packed, z) of partition_smsvm_eval; cost holds the weights v_i = cost_i / S.
py::tuple smsvm_eval(const py::object& X, const py::object& y, const py::object& v,
                     bool fit_intercept, double intercept_scaling, const py::object& w,
                     double alpha, const InArrayC<std::int64_t>& pos, bool hess, bool split,
                     Index block_rows, const py::object& z_old) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem p = partition_problem(view, y, v, fit_intercept, intercept_scaling, keep);
  const Index nc = solution_size(p);
  const Index rows = rows_of(p.X);
  if (pos.ndim() != 1 || pos.shape(0) != nc)
    throw_invalid("partition_smsvm_eval: pos must have one entry per coordinate");
  if (!(alpha > 0.0)) throw_invalid("partition_smsvm_eval: alpha must be > 0");
  if (block_rows < 1) throw_invalid("partition_smsvm_eval: block_rows must be >= 1");
  std::vector<Index> pv(static_cast<std::size_t>(nc));
  Index k = 0;
  for (Index j = 0; j < nc; ++j) {
    pv[j] = static_cast<Index>(pos.data()[j]);
    if (pv[j] >= 0) ++k;
  }
  // The positions of the active coordinates must be 0..k-1, each once (rows of the block).
  std::vector<char> seen(static_cast<std::size_t>(k), 0);
  for (Index j = 0; j < nc; ++j) {
    if (pv[j] < 0) continue;
    if (pv[j] >= k || seen[pv[j]])
      throw_invalid(
          "partition_smsvm_eval: the positions of the active coordinates must be 0.."
          "k-1, each once");
    seen[pv[j]] = 1;
  }
  const double* wp = double_ptr(w, nc, "w", keep);
  const double* zo = z_old.is_none() ? nullptr : double_ptr(z_old, rows, "z_old", keep);
  py::array_t<double> packed(kSmsvmSums + (split ? 2 : 1) * nc + (hess ? k * k : 0));
  py::array_t<double> z(static_cast<py::ssize_t>(rows));
  double* out = packed.mutable_data();
  double* zp = z.mutable_data();
  {
    py::gil_scoped_release release;
    partition_smsvm_eval(p, wp, alpha, pv, k, hess, split, block_rows, zo, zp, out);
  }
  return py::make_tuple(packed, z);
}

py::array_t<double> margins(const py::object& X, const py::object& w, bool fit_intercept,
                            double intercept_scaling) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem p =
      partition_problem(view, py::none(), py::none(), fit_intercept, intercept_scaling, keep);
  validate_view(p.X, "X");
  const double* wp = double_ptr(w, solution_size(p), "w", keep);
  py::array_t<double> z(static_cast<py::ssize_t>(rows_of(p.X)));
  double* zp = z.mutable_data();
  {
    py::gil_scoped_release release;
    partition_margins(p, wp, zp);
  }
  return z;
}

// The class sums [sum_{y>0} a, sum_{y<0} a, r+ (m), r- (m)] as a pointer, m from their length.
Index sums_features(const InArrayC<double>& sums, const char* who) {
  if (sums.ndim() != 1 || sums.shape(0) < 2 || sums.shape(0) % 2 != 0)
    throw std::invalid_argument(std::string(who) +
                                ": sums must be a 1-D array [sum a+, sum a-, r+, r-] of even "
                                "length >= 2");
  return static_cast<Index>((sums.shape(0) - 2) / 2);
}

double dual_value(const InArrayC<double>& sums, double l1, double l2, bool fit_intercept,
                  bool bias_penalized, double intercept_scaling) {
  const Index m = sums_features(sums, "hinge_dual_value");
  return hinge_dual_value_from_sums(sums.data(), m, l1, l2, fit_intercept, bias_penalized,
                                    intercept_scaling);
}

// The repaired a of the band, or None where the repair does not run.
py::object repair_band(const InArrayC<double>& sol, const InArrayC<double>& band_rows,
                       const InArrayC<double>& a, const InArrayC<double>& hi,
                       const InArrayC<double>& sums, double l1, double l2, bool fit_intercept,
                       bool bias_penalized, double intercept_scaling, double max_gram) {
  const Index m = sums_features(sums, "hinge_repair_band");
  if (sol.ndim() != 1 || sol.shape(0) != m + (fit_intercept ? 1 : 0))
    throw std::invalid_argument("hinge_repair_band: sol must hold the " + std::to_string(m) +
                                " weights" + (fit_intercept ? " and the bias" : ""));
  if (band_rows.ndim() != 2 || a.ndim() != 1 || hi.ndim() != 1 ||
      a.shape(0) != band_rows.shape(0) || hi.shape(0) != band_rows.shape(0))
    throw std::invalid_argument(
        "hinge_repair_band: band_rows must be 2-D with one row per entry of a and hi");
  const Index nb = static_cast<Index>(band_rows.shape(0)),
              k = static_cast<Index>(band_rows.shape(1));
  py::array_t<double> out(static_cast<py::ssize_t>(nb));
  std::copy(a.data(), a.data() + nb, out.mutable_data());
  bool done;
  {
    py::gil_scoped_release release;
    done = hinge_repair_band(sol.data(), m, band_rows.data(), nb, k, out.mutable_data(), hi.data(),
                             sums.data(), l1, l2, fit_intercept, bias_penalized, intercept_scaling,
                             max_gram);
  }
  return done ? py::object(out) : py::object(py::none());
}

}  // namespace

void bind_partition(py::module_& m) {
  m.def(
      "loss_d2_max",
      [](const std::string& loss, double sigma, double epsilon) {
        return visit_loss(make_loss(loss, sigma, epsilon),
                          [](const auto& L) { return L.d2_max(); });
      },
      py::arg("loss"), py::arg("sigma"), py::arg("epsilon"),
      "The largest second derivative of a loss (the scale of TRON's hessian_cutoff).");
  m.def(
      "kept_curvature",
      [](const InArrayC<double>& curvature, const InArrayC<double>& cost, double cut) {
        if (curvature.ndim() != 1 || cost.ndim() != 1 || curvature.shape(0) != cost.shape(0))
          throw std::invalid_argument(
              "kept_curvature: curvature and cost must be 1-D arrays of the same length");
        const py::ssize_t n = curvature.shape(0);
        py::array_t<double> out(n);
        const double* c = curvature.data();
        const double* w = cost.data();
        double* o = out.mutable_data();
        for (py::ssize_t i = 0; i < n; ++i) o[i] = kept_curvature(c[i], w[i], cut);
        return out;
      },
      py::arg("curvature"), py::arg("cost"), py::arg("cut"),
      "loss.hpp's kept_curvature per row: curvature_i, or 0 where curvature_i < cost_i cut "
      "(TRON's hessian_cutoff; cut = hessian_cutoff * loss_d2_max).");
  m.def("partition_fun_grad", &fun_grad, py::arg("X"), py::arg("y"), py::arg("cost"),
        py::arg("loss"), py::arg("sigma"), py::arg("epsilon"), py::arg("fit_intercept"),
        py::arg("intercept_scaling"), py::arg("w"), py::arg("want_hdiag"),
        py::arg("want_curvature"), py::arg("n_threads") = 1, py::arg("want_margins") = false,
        "Loss part of F, its gradient (and Hessian diagonal) over one row partition, packed "
        "as [L, g, h], and the per-row curvature D (svmkit/partition_passes.hpp); with "
        "want_margins also the margins z (the values partition_margins gives).");
  m.def("partition_fun", &fun, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("loss"),
        py::arg("sigma"), py::arg("epsilon"), py::arg("fit_intercept"),
        py::arg("intercept_scaling"), py::arg("w"), py::arg("n_threads") = 1,
        "Loss part of F over one row partition.");
  m.def("partition_hess_vec", &hess_vec, py::arg("X"), py::arg("curvature"), py::arg("s"),
        py::arg("fit_intercept"), py::arg("intercept_scaling"), py::arg("n_threads") = 1,
        "Loss part of H s over one row partition, with the curvature of a fun_grad pass.");
  m.def("partition_smsvm_eval", &smsvm_eval, py::arg("X"), py::arg("y"), py::arg("v"),
        py::arg("fit_intercept"), py::arg("intercept_scaling"), py::arg("w"), py::arg("alpha"),
        py::arg("pos"), py::arg("hess"), py::arg("split"), py::arg("block_rows"), py::arg("z_old"),
        "SmSVM's gradient pass over one row partition: (packed [sums, loss gradient, active "
        "block], margins z) (svmkit/partition_passes.hpp).");
  {  // hinge_certificate.hpp's kSegmentPoints: the fractions of the way to the repaired point
    py::tuple segment(std::size(hinge_certificate_segment));
    for (std::size_t q = 0; q < std::size(hinge_certificate_segment); ++q)
      segment[q] = hinge_certificate_segment[q];
    m.attr("hinge_certificate_segment") = segment;
  }
  m.def("hinge_dual_value", &dual_value, py::arg("sums"), py::arg("l1"), py::arg("l2"),
        py::arg("fit_intercept"), py::arg("bias_penalized"), py::arg("intercept_scaling"),
        "The hinge certificate's dual value at the point with class sums [sum a+, sum a-, r+, "
        "r-], made feasible by scaling (svmkit/partition_passes.hpp).");
  m.def("hinge_repair_band", &repair_band, py::arg("sol"), py::arg("band_rows"), py::arg("a"),
        py::arg("hi"), py::arg("sums"), py::arg("l1"), py::arg("l2"), py::arg("fit_intercept"),
        py::arg("bias_penalized"), py::arg("intercept_scaling"), py::arg("max_gram"),
        "The hinge certificate's margin-band repair on gathered band rows: the repaired a, or "
        "None where the band is empty or its system above max_gram (partition_passes.hpp).");
  m.def("partition_margins", &margins, py::arg("X"), py::arg("w"), py::arg("fit_intercept"),
        py::arg("intercept_scaling"), "Margins w.x_i + b intercept_scaling of one partition.");
}

}  // namespace svmkit::py_bind
