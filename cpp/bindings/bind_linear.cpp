// Linear models: TRON fits, prediction and the model format.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include "convert.hpp"
#include "options.hpp"
#include "svmkit/detail/parallel.hpp"
#include "svmkit/model.hpp"
#include "svmkit/objective.hpp"
#include "svmkit/solvers/tron.hpp"

namespace svmkit::py_bind {

SVMKIT_DEFINE_OPTION_TABLE(TronOptions, tron, SVMKIT_TRON_OPTIONS)

LinearModel model_from_arrays(const std::string& task, const InArray<double>& coef,
                              const InArray<double>& intercept, const py::object& classes) {
  LinearModel m;
  m.task = task;
  if (coef.ndim() != 2) throw_invalid("coef must be 2-D");
  m.n_rows = coef.shape(0);
  m.n_features = coef.shape(1);
  auto c = coef.unchecked<2>();
  m.coef.resize(static_cast<std::size_t>(m.n_rows * m.n_features));
  for (Index r = 0; r < m.n_rows; ++r)
    for (Index j = 0; j < m.n_features; ++j) m.coef[r * m.n_features + j] = c(r, j);
  auto b = intercept.unchecked<1>();
  for (py::ssize_t i = 0; i < b.shape(0); ++i) m.intercept.push_back(b(i));
  if (!classes.is_none()) m.classes = classes.cast<std::vector<double>>();
  return m;
}

// A classification model over the given weights, for decision values and class indices.
LinearModel prediction_model(const InArray<double>& coef, const InArray<double>& intercept) {
  LinearModel m = model_from_arrays("classification", coef, intercept, py::none());
  m.classes.assign(m.n_rows == 1 ? 2 : static_cast<std::size_t>(m.n_rows), 0.0);
  return m;
}

py::dict model_to_dict(const LinearModel& m) {
  py::dict d;
  d["kind"] = "linear";
  d["task"] = m.task;
  d["solver"] = m.solver;
  d["loss"] = m.loss;
  py::array_t<double> coef(
      {static_cast<py::ssize_t>(m.n_rows), static_cast<py::ssize_t>(m.n_features)});
  std::copy(m.coef.begin(), m.coef.end(), coef.mutable_data());
  d["coef"] = coef;
  d["intercept"] =
      py::array_t<double>(static_cast<py::ssize_t>(m.intercept.size()), m.intercept.data());
  d["classes"] = m.task == "classification"
                     ? py::object(py::array_t<double>(static_cast<py::ssize_t>(m.classes.size()),
                                                      m.classes.data()))
                     : py::object(py::none());
  d["intercept_scaling"] = m.intercept_scaling;
  return d;
}

// Loss values and derivatives at each u (for tests against finite differences and closed forms).
py::tuple loss_eval(const std::string& loss, const InArray<double>& u, double sigma,
                    double epsilon) {
  const LossSpec spec = make_loss(loss, sigma, epsilon);
  validate_loss(spec);
  auto uu = u.unchecked<1>();
  const py::ssize_t n = uu.shape(0);
  py::array_t<double> v(n), d1(n), d2(n);
  visit_loss(spec, [&](const auto& L) {
    for (py::ssize_t i = 0; i < n; ++i) {
      v.mutable_at(i) = L.value(uu(i));
      d1.mutable_at(i) = L.d1(uu(i));
      d2.mutable_at(i) = L.d2(uu(i));
    }
  });
  return py::make_tuple(v, d1, d2);
}

// F, grad F, H s and diag(H) at w (for tests of the objective kernels), plus passes used.
py::dict objective_eval(const py::object& X, const py::object& y, const py::object& cost,
                        const std::string& loss, double sigma, double epsilon, bool fit_intercept,
                        double intercept_scaling, bool regularize_intercept, const py::object& w,
                        const py::object& s, int n_threads, const std::string& hessian) {
  const HessianForm form = tron_hessian_form(hessian);
  ViewHolder view = to_view(X);
  std::vector<py::object> keep;
  const LinearProblem problem =
      make_problem(view, y, cost, fit_intercept, intercept_scaling, regularize_intercept, keep);
  const LossSpec spec = make_loss(loss, sigma, epsilon);
  validate_problem(problem, spec, true);
  const auto dim = solution_size(problem);
  const double* wp = double_ptr(w, dim, "w", keep);
  const double* sp = double_ptr(s, dim, "s", keep);
  py::array_t<double> g(dim), hs(dim), hdiag(dim);
  double f = 0.0, f_only = 0.0;
  long long passes = 0, assemblies = 0;
  std::visit(
      [&](const auto& V) {
        visit_loss(spec, [&](const auto& L) {
          LinearObjective<std::decay_t<decltype(V)>, std::decay_t<decltype(L)>> obj(
              V, L, problem, !is_regression(spec.kind), n_threads);
          f = obj.fun_grad(wp, g.mutable_data(), hdiag.mutable_data());
          obj.accept();
          obj.set_hessian_form(form);
          obj.hess_vec(sp, hs.mutable_data());
          assemblies = obj.hessian_assemblies();
          f_only = obj.fun(wp);
          passes = obj.passes();
        });
      },
      problem.X);
  py::dict d;
  d["f"] = f;
  d["f_only"] = f_only;
  d["grad"] = g;
  d["hess_vec"] = hs;
  d["hess_diag"] = hdiag;
  d["passes"] = passes;
  d["hessian_assemblies"] = assemblies;
  return d;
}

void bind_linear(py::module_& m) {
  m.def("loss_eval", &loss_eval, py::arg("loss"), py::arg("u"), py::arg("sigma") = 0.1,
        py::arg("epsilon") = 0.0);
  // Test hook: an exception thrown inside an OpenMP region (chunk 1 of 2, or one element of a
  // parallel_for) must reach Python as the matching exception instead of std::terminate.
  m.def(
      "_parallel_region_error_probe",
      [](const std::string& what, bool element_loop) {
        auto fail = [&] {
          if (what == "bad_alloc") throw std::bad_alloc();
          throw_out_of_memory(1e12, "a probe buffer", "the probe's option");
        };
        py::gil_scoped_release release;
        if (element_loop)
          parallel_for(1 << 16, 2, [&](Index i) {
            if (i == 40000) fail();
          });
        else
          parallel_chunks(1000, 2, [&](int c, Index, Index) {
            if (c == 1) fail();
          });
      },
      py::arg("what"), py::arg("element_loop"));
  // Test hook: the addresses the core reads X (and a 1-D float64 vector) from, so that a test
  // sees whether to_view / double_ptr passed the NumPy buffer itself or an aligned copy.
  m.def(
      "_core_read_addresses",
      [](const py::object& X, const py::object& vec) {
        ViewHolder view = to_view(X);
        py::list out;
        std::visit(
            [&](const auto& v) {
              out.append(reinterpret_cast<std::uintptr_t>(v.data));
              if constexpr (is_csr_view<std::decay_t<decltype(v)>>::value) {
                out.append(reinterpret_cast<std::uintptr_t>(v.indices));
                out.append(reinterpret_cast<std::uintptr_t>(v.indptr));
              }
            },
            view.view);
        std::vector<py::object> keep;
        out.append(reinterpret_cast<std::uintptr_t>(double_ptr(vec, -1, "vec", keep)));
        return out;
      },
      py::arg("X"), py::arg("vec"));
  m.def("objective_eval", &objective_eval, py::arg("X"), py::arg("y"), py::arg("cost"),
        py::arg("loss"), py::arg("sigma"), py::arg("epsilon"), py::arg("fit_intercept"),
        py::arg("intercept_scaling"), py::arg("regularize_intercept"), py::arg("w"), py::arg("s"),
        py::arg("n_threads"), py::arg("hessian") = "products");
  register_tron_option_table();
  def_linear_loss_fit(m, "fit_tron", &tron_from_dict, [](auto&&... a) { return solve_tron(a...); });
  // TRON's globalization rules (solvers/tron.hpp), which the Dask port asks so that each rule
  // lives in one place.
  const auto def_tron_rule = [&m](const char* name, bool (*rule)(const TronOptions&, LossKind),
                                  const char* doc) {
    m.def(
        name,
        [rule](const std::string& globalization, const std::string& loss) {
          TronOptions o;
          o.globalization = globalization;
          validate_options(o);
          return rule(o, loss_kind_from_string(loss));
        },
        py::arg("globalization"), py::arg("loss"), doc);
  };
  def_tron_rule("tron_uses_line_search", &tron_uses_line_search,
                "Whether TRON's globalization runs the line search for this loss "
                "(solvers/tron.hpp); the Dask port asks it so that the rule lives in one place.");
  def_tron_rule("tron_hands_over_to_line_search", &tron_hands_over_to_line_search,
                "Whether TRON's region loop continues with the line search after its first "
                "rejected step, for this loss (solvers/tron.hpp); the Dask port asks it too.");
  m.def(
      "tron_stop_rule",
      [](double tol, bool gap_stop, const std::string& loss, bool free_bias) {
        const TronStopRule r =
            tron_stop_rule(tol, gap_stop, loss_kind_from_string(loss), free_bias);
        return std::make_pair(r.gradient_tol, r.gap_tol);
      },
      py::arg("tol"), py::arg("gap_stop"), py::arg("loss"), py::arg("free_bias"),
      "TRON's stopping rule on a smooth loss, (gradient_tol, gap_tol): the relative tol of the "
      "gradient rule (0 where the gap alone decides: the smoothed hinges) and the relative "
      "duality gap at which the run also stops (0 for none); solvers/tron.hpp. The Dask port "
      "asks it too.");
  m.def("tron_gap_stop_message", &tron_gap_stop_message, py::arg("f"), py::arg("gnorm"),
        py::arg("stop"), py::arg("gap_tol"),
        "The message of a converged TRON run that its gap, not the gradient rule, ended (empty "
        "otherwise; solvers/tron.hpp); the Dask port asks it too.");
  m.def("continuation_smoothing_factor", &continuation_smoothing_factor, py::arg("gap"),
        py::arg("tol"),
        "The factor by which TRON's certified continuation divides sigma after a stage whose "
        "certified gap (> tol) was gap (solvers/tron.hpp); the Dask port asks it too.");
  m.def(
      "linear_decision_function",
      [](const py::object& X, const InArray<double>& coef, const InArray<double>& intercept,
         int n_threads) {
        ViewHolder view = to_view(X);
        const LinearModel model = prediction_model(coef, intercept);
        const auto n = static_cast<py::ssize_t>(rows_of(view.view));
        py::array_t<double> out({n, static_cast<py::ssize_t>(model.n_rows)});
        double* o = out.mutable_data();
        {
          py::gil_scoped_release release;
          decision_function(model, view.view, o, n_threads);
        }
        return out;
      },
      py::arg("X"), py::arg("coef"), py::arg("intercept"), py::arg("n_threads") = 0);
  m.def(
      "linear_predict_class_indices",
      [](const py::object& X, const InArray<double>& coef, const InArray<double>& intercept,
         int n_threads) {
        ViewHolder view = to_view(X);
        const LinearModel model = prediction_model(coef, intercept);
        std::vector<Index> idx;
        {
          py::gil_scoped_release release;
          idx = predict_class_indices(model, view.view, n_threads);
        }
        return py::array_t<Index>(static_cast<py::ssize_t>(idx.size()), idx.data());
      },
      py::arg("X"), py::arg("coef"), py::arg("intercept"), py::arg("n_threads") = 0);
  m.def(
      "save_linear_model",
      [](const std::string& path, const std::string& task, const std::string& solver,
         const std::string& loss, const InArray<double>& coef, const InArray<double>& intercept,
         const py::object& classes, double intercept_scaling) {
        LinearModel model = model_from_arrays(task, coef, intercept, classes);
        model.solver = solver;
        model.loss = loss;
        model.intercept_scaling = intercept_scaling;
        save_model(model, path);
      },
      py::arg("path"), py::arg("task"), py::arg("solver"), py::arg("loss"), py::arg("coef"),
      py::arg("intercept"), py::arg("classes"), py::arg("intercept_scaling"));
  m.def(
      "load_linear_model", [](const std::string& path) { return model_to_dict(load_model(path)); },
      py::arg("path"));
}

}  // namespace svmkit::py_bind
