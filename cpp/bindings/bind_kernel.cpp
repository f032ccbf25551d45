// Kernel SVMs: SMO fits, kernel-model prediction and the model format. Conversion only.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <fstream>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/detail/vec_math.hpp"
#include "svmkit/model.hpp"
#include "svmkit/probability.hpp"
#include "svmkit/solvers/smo.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(SmoOptions, smo, SVMKIT_SMO_OPTIONS)
SVMKIT_DEFINE_OPTION_TABLE(PlattOptions, platt, SVMKIT_PLATT_OPTIONS)

namespace {

SmoFormulation formulation_from(const std::string& f) {
  if (f == "svc") return SmoFormulation::svc;
  if (f == "svc_squared_hinge") return SmoFormulation::svc_squared_hinge;
  if (f == "svr") return SmoFormulation::svr;
  throw_invalid("unknown formulation '" + f + "'; expected svc, svc_squared_hinge or svr");
}

template <class T>
py::array_t<T> to_array(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

// A KernelProblem over converted arrays; `keep` and `row_idx` hold what it borrows.
KernelProblem make_kernel_problem(const ViewHolder& view, const py::object& y,
                                  const py::object& cost, const py::object& rows,
                                  const std::string& kernel, double gamma, double coef0, int degree,
                                  const std::string& formulation, double epsilon,
                                  bool regularize_intercept, std::vector<py::object>& keep,
                                  std::vector<Index>& row_idx) {
  KernelProblem pr;
  pr.X = view.view;
  const Index n = select_rows(rows, rows_of(view.view), row_idx, pr.rows);
  pr.n = n;
  pr.y = double_ptr(y, n, "y", keep);
  pr.cost = double_ptr(cost, n, "sample costs", keep);
  pr.kernel = make_kernel_spec(kernel, gamma, coef0, degree);
  pr.formulation = formulation_from(formulation);
  pr.epsilon = epsilon;
  pr.regularize_intercept = regularize_intercept;
  return pr;
}

py::dict fit_smo(const py::object& X, const py::object& y, const py::object& cost,
                 const py::object& rows, const std::string& kernel, double gamma, double coef0,
                 int degree, const std::string& formulation, double epsilon,
                 bool regularize_intercept, const py::dict& options, const py::object& callback) {
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  std::vector<Index> row_idx;
  const KernelProblem pr =
      make_kernel_problem(view, y, cost, rows, kernel, gamma, coef0, degree, formulation, epsilon,
                          regularize_intercept, keep, row_idx);
  const SmoOptions opt = smo_from_dict(options);
  return solve_without_gil(callback, [&](const Callbacks& c) { return solve_smo(pr, opt, c); });
}

template <class T>
std::vector<T> vec_of(const py::object& o) {
  if (o.is_none()) return {};
  auto a = o.cast<InArrayC<T>>();
  return std::vector<T>(a.data(), a.data() + a.size());
}

KernelModel model_from_dict(const py::dict& d) {
  KernelModel m;
  m.task = d["task"].cast<std::string>();
  if (d.contains("solver")) m.solver = d["solver"].cast<std::string>();
  if (d.contains("loss")) m.loss = d["loss"].cast<std::string>();
  m.kernel = make_kernel_spec(d["kernel"].cast<std::string>(), d["gamma"].cast<double>(),
                              d["coef0"].cast<double>(), d["degree"].cast<int>());
  m.n_features = d["n_features"].cast<Index>();
  m.classes = vec_of<double>(d["classes"]);
  m.n_support = vec_of<std::int64_t>(d["n_support"]);
  m.support = vec_of<std::int64_t>(d["support"]);
  auto coef = d["dual_coef"].cast<InArrayC<double>>();
  if (coef.ndim() != 2) throw_invalid("dual_coef must be 2-D");
  m.n_sv = coef.shape(1);
  m.dual_coef.assign(coef.data(), coef.data() + coef.size());
  m.intercept = vec_of<double>(d["intercept"]);
  if (d.contains("prob_a")) m.prob_a = vec_of<double>(d["prob_a"]);
  if (d.contains("prob_b")) m.prob_b = vec_of<double>(d["prob_b"]);
  if (d.contains("nu") && !d["nu"].is_none()) m.nu = d["nu"].cast<double>();
  if (d.contains("prob_sigma") && !d["prob_sigma"].is_none())
    m.prob_sigma = d["prob_sigma"].cast<double>();
  if (d.contains("prob_density_marks"))
    m.prob_density_marks = vec_of<double>(d["prob_density_marks"]);
  py::object sv = d["sv"];
  if (sv.is_none()) {
    m.sparse = false;
  } else if (py::isinstance<py::tuple>(sv)) {
    auto t = sv.cast<py::tuple>();
    m.sparse = true;
    m.sv_data = vec_of<double>(t[0]);
    m.sv_indices = vec_of<std::int64_t>(t[1]);
    m.sv_indptr = vec_of<std::int64_t>(t[2]);
  } else {
    auto a = sv.cast<InArrayC<double>>();
    m.sv_dense.assign(a.data(), a.data() + a.size());
  }
  return m;
}

py::dict model_to_dict(const KernelModel& m) {
  py::dict d;
  d["kind"] = "kernel";
  d["task"] = m.task;
  d["solver"] = m.solver;
  d["loss"] = m.loss;
  d["kernel"] = std::string(to_string(m.kernel.kind));
  d["gamma"] = m.kernel.gamma;
  d["coef0"] = m.kernel.coef0;
  d["degree"] = m.kernel.degree;
  d["n_features"] = m.n_features;
  d["classes"] =
      m.task == "classification" ? py::object(to_array(m.classes)) : py::object(py::none());
  d["n_support"] = to_array(m.n_support);
  d["support"] = to_array(m.support);
  const Index rows = m.n_sv > 0
                         ? static_cast<Index>(m.dual_coef.size()) / m.n_sv
                         : (m.task != "classification" ? 1 : std::max<Index>(1, m.n_classes() - 1));
  py::array_t<double> coef({static_cast<py::ssize_t>(rows), static_cast<py::ssize_t>(m.n_sv)});
  std::copy(m.dual_coef.begin(), m.dual_coef.end(), coef.mutable_data());
  d["dual_coef"] = coef;
  d["intercept"] = to_array(m.intercept);
  d["prob_a"] = m.prob_a.empty() ? py::object(py::none()) : py::object(to_array(m.prob_a));
  d["prob_b"] = m.prob_b.empty() ? py::object(py::none()) : py::object(to_array(m.prob_b));
  d["nu"] = m.nu > 0.0 ? py::object(py::float_(m.nu)) : py::object(py::none());
  d["prob_sigma"] = m.prob_sigma > 0.0 ? py::object(py::float_(m.prob_sigma)) : py::none();
  d["prob_density_marks"] = m.prob_density_marks.empty()
                                ? py::object(py::none())
                                : py::object(to_array(m.prob_density_marks));
  if (m.kernel.kind == KernelKind::precomputed) {
    d["sv"] = py::none();
  } else if (m.sparse) {
    d["sv"] = py::make_tuple(to_array(m.sv_data), to_array(m.sv_indices), to_array(m.sv_indptr));
  } else {
    py::array_t<double> sv(
        {static_cast<py::ssize_t>(m.n_sv), static_cast<py::ssize_t>(m.n_features)});
    std::copy(m.sv_dense.begin(), m.sv_dense.end(), sv.mutable_data());
    d["sv"] = sv;
  }
  return d;
}

py::dict linear_model_dict(const LinearModel& m) {
  py::dict d;
  d["kind"] = "linear";
  d["task"] = m.task;
  return d;
}

}  // namespace

namespace {

py::dict sigmoid_fit_to_dict(const SigmoidFit& f) {
  py::dict d;
  d["a"] = f.a;
  d["b"] = f.b;
  d["iterations"] = f.iterations;
  d["status"] = f.status;
  return d;
}

// The inputs of the Platt bindings: the binary kernel problem (views into X, kept alive here)
// and the SMO and Platt options.
struct PlattCall {
  ViewHolder view;
  std::vector<py::object> keep;
  std::vector<Index> row_idx;
  KernelProblem pr;
  SmoOptions so;
  PlattOptions po;
  PlattCall(const py::object& X, const py::object& y, const py::object& cost,
            const py::object& rows, const std::string& kernel, double gamma, double coef0,
            int degree, const std::string& formulation, bool regularize_intercept,
            const py::dict& smo_options, const py::dict& platt_options)
      : view(to_view(X)),
        pr(make_kernel_problem(view, y, cost, rows, kernel, gamma, coef0, degree, formulation, 0.0,
                               regularize_intercept, keep, row_idx)),
        so(smo_from_dict(smo_options)),
        po(platt_from_dict(platt_options)) {}
  PlattCall(const PlattCall&) = delete;
  PlattCall& operator=(const PlattCall&) = delete;
};

void bind_probability(py::module_& m) {
  register_platt_option_table();
  m.def(
      "fit_platt",
      [](const py::object& X, const py::object& y, const py::object& cost, const py::object& rows,
         const std::string& kernel, double gamma, double coef0, int degree,
         const std::string& formulation, bool regularize_intercept, const py::dict& smo_options,
         const py::dict& platt_options) {
        const PlattCall call(X, y, cost, rows, kernel, gamma, coef0, degree, formulation,
                             regularize_intercept, smo_options, platt_options);
        const KernelProblem& pr = call.pr;
        PythonCallbacks cb = make_callbacks(py::none());
        SigmoidFit fit;
        {
          py::gil_scoped_release release;
          fit = fit_platt(pr, call.so, call.po, cb.callbacks);
        }
        cb.rethrow_if_any();
        return sigmoid_fit_to_dict(fit);
      },
      py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("rows"), py::arg("kernel"),
      py::arg("gamma"), py::arg("coef0"), py::arg("degree"), py::arg("formulation"),
      py::arg("regularize_intercept"), py::arg("smo_options"), py::arg("platt_options"),
      "Platt sigmoid of a binary kernel problem from cross-validated SMO decision values.");
  m.def(
      "platt_cv_decisions",
      [](const py::object& X, const py::object& y, const py::object& cost, const py::object& rows,
         const std::string& kernel, double gamma, double coef0, int degree,
         const std::string& formulation, bool regularize_intercept, const py::dict& smo_options,
         const py::dict& platt_options) {
        const PlattCall call(X, y, cost, rows, kernel, gamma, coef0, degree, formulation,
                             regularize_intercept, smo_options, platt_options);
        const KernelProblem& pr = call.pr;
        py::array_t<double> dec(static_cast<py::ssize_t>(pr.n));
        py::array_t<std::int64_t> fold(static_cast<py::ssize_t>(pr.n));
        double* d = dec.mutable_data();
        auto* f = reinterpret_cast<Index*>(fold.mutable_data());
        PythonCallbacks cb = make_callbacks(py::none());
        {
          py::gil_scoped_release release;
          cross_validated_decisions(pr, call.so, call.po, d, cb.callbacks, f);
        }
        cb.rethrow_if_any();
        return py::make_tuple(dec, fold);
      },
      py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("rows"), py::arg("kernel"),
      py::arg("gamma"), py::arg("coef0"), py::arg("degree"), py::arg("formulation"),
      py::arg("regularize_intercept"), py::arg("smo_options"), py::arg("platt_options"),
      "The cross-validated decision values of fit_platt and the fold of each sample.");
  m.def(
      "fit_sigmoid",
      [](const py::object& dec, const py::object& y, const py::dict& platt_options) {
        std::vector<py::object> keep;
        auto d = dec.cast<InArrayC<double>>();
        if (d.ndim() != 1) throw_invalid("decision values must be 1-D");
        const Index n = static_cast<Index>(d.shape(0));
        const double* yp = double_ptr(y, n, "y", keep);
        return sigmoid_fit_to_dict(fit_sigmoid(d.data(), yp, n, platt_from_dict(platt_options)));
      },
      py::arg("decision"), py::arg("y"), py::arg("platt_options"),
      "Platt's sigmoid fitted to given decision values and +-1 labels.");
  m.def(
      "couple_pairwise",
      [](const InArrayC<double>& r) {
        if (r.ndim() != 3 || r.shape(1) != r.shape(2) || r.shape(1) < 2)
          throw_invalid("pairwise probabilities must be an n x k x k array with k >= 2");
        const Index n = r.shape(0), k = r.shape(1);
        for (py::ssize_t i = 0; i < r.size(); ++i)
          if (!std::isfinite(r.data()[i])) throw_invalid("pairwise probabilities must be finite");
        py::array_t<double> out({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(k)});
        for (Index s = 0; s < n; ++s)
          couple_pairwise(r.data() + s * k * k, k, out.mutable_data() + s * k);
        return out;
      },
      py::arg("r"),
      "Class probabilities from pairwise ones (Wu, Lin and Weng 2004, method 2), per sample.");
  m.def(
      "kernel_predict_proba",
      [](const py::object& X, const py::dict& model, int n_threads, double min_prob) {
        ViewHolder view = to_view(X);
        const KernelModel km = model_from_dict(model);
        const auto n = static_cast<py::ssize_t>(rows_of(view.view));
        py::array_t<double> out({n, static_cast<py::ssize_t>(std::max<Index>(km.n_classes(), 1))});
        double* o = out.mutable_data();
        {
          py::gil_scoped_release release;
          predict_proba(km, view.view, o, n_threads, min_prob);
        }
        return out;
      },
      py::arg("X"), py::arg("model"), py::arg("n_threads") = 0,
      py::arg("min_prob") = PlattOptions{}.min_prob);
}

}  // namespace

void bind_kernel(py::module_& m) {
  bind_probability(m);
  m.def(
      "vec_exp",
      [](const InArrayC<double>& x, bool single) {
        if (x.ndim() != 1) throw_invalid("vec_exp takes a 1-D array");
        py::array_t<double> out(x.shape(0));
        std::copy(x.data(), x.data() + x.shape(0), out.mutable_data());
        if (single)
          exp_inplace_single(out.mutable_data(), x.shape(0));
        else
          exp_inplace(out.mutable_data(), x.shape(0));
        return out;
      },
      py::arg("x"), py::arg("single") = false,
      "The vectorized exponential of the kernel rows (vec_math.hpp), exposed for its tests.");
  register_smo_option_table();
  m.def("fit_smo", &fit_smo, py::arg("X"), py::arg("y"), py::arg("cost"), py::arg("rows"),
        py::arg("kernel"), py::arg("gamma"), py::arg("coef0"), py::arg("degree"),
        py::arg("formulation"), py::arg("epsilon"), py::arg("regularize_intercept"),
        py::arg("options"), py::arg("callback"));
  m.def(
      "kernel_decision_function",
      [](const py::object& X, const py::dict& model, int n_threads) {
        ViewHolder view = to_view(X);
        const KernelModel km = model_from_dict(model);
        const auto n = static_cast<py::ssize_t>(rows_of(view.view));
        py::array_t<double> out({n, static_cast<py::ssize_t>(km.n_pairs())});
        double* o = out.mutable_data();
        {
          py::gil_scoped_release release;
          decision_function(km, view.view, o, n_threads);
        }
        return out;
      },
      py::arg("X"), py::arg("model"), py::arg("n_threads") = 0);
  m.def(
      "kernel_predict_class_indices",
      [](const py::object& X, const py::dict& model, int n_threads) {
        ViewHolder view = to_view(X);
        const KernelModel km = model_from_dict(model);
        std::vector<Index> idx;
        {
          py::gil_scoped_release release;
          idx = predict_class_indices(km, view.view, n_threads);
        }
        return to_array(idx);
      },
      py::arg("X"), py::arg("model"), py::arg("n_threads") = 0);
  m.def(
      "ovo_to_ovr",
      [](const InArrayC<double>& ovo, Index k) {
        if (ovo.ndim() != 2 || ovo.shape(1) != k * (k - 1) / 2)
          throw_invalid("ovo values must be n x k(k-1)/2");
        py::array_t<double> out({ovo.shape(0), static_cast<py::ssize_t>(k)});
        ovo_to_ovr(ovo.data(), ovo.shape(0), k, out.mutable_data());
        return out;
      },
      py::arg("ovo"), py::arg("n_classes"));
  m.def(
      "save_kernel_model",
      [](const std::string& path, const py::dict& model) {
        save_model(model_from_dict(model), path);
      },
      py::arg("path"), py::arg("model"));
  m.def(
      "load_any_model",
      [](const std::string& path) -> py::dict {
        AnyModel any = load_any_model(path);
        if (auto* km = std::get_if<KernelModel>(&any)) return model_to_dict(*km);
        return linear_model_dict(std::get<LinearModel>(any));
      },
      py::arg("path"));
}

}  // namespace svmkit::py_bind
