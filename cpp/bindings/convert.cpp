#include "convert.hpp"

#include <pybind11/native_enum.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "options.hpp"
#include "svmkit/problem.hpp"
#include "svmkit/status.hpp"

namespace svmkit::py_bind {

namespace {
// Whether a numpy dtype is T in native byte order (dtype identity is not enough: views such as
// memmaps carry equal but distinct dtype objects).
template <class T>
bool dtype_is(const py::dtype& dt) {
  const char kind = dt.kind();
  const char order = dt.byteorder();
  const std::uint16_t probe = 1;
  const bool little = *reinterpret_cast<const unsigned char*>(&probe) == 1;
  const char native_order = little ? '<' : '>';
  const bool native = order == '=' || order == '|' || order == native_order;
  if (!native || static_cast<std::size_t>(dt.itemsize()) != sizeof(T)) return false;
  if constexpr (std::is_floating_point_v<T>) return kind == 'f';
  return kind == 'i';
}

template <class T>
MatrixView dense_view(const py::array& a) {
  const auto item = static_cast<py::ssize_t>(sizeof(T));
  const py::ssize_t rows = a.shape(0), cols = a.shape(1);
  const py::ssize_t s0 = a.strides(0), s1 = a.strides(1);
  const T* data = static_cast<const T*>(a.data());
  // A dimension of length 1 has an arbitrary stride; treat it as contiguous.
  const bool c_inner = s1 == item || cols == 1;
  const bool f_inner = s0 == item || rows == 1;
  if (c_inner && (rows == 1 || (s0 > 0 && s0 % item == 0 && s0 / item >= cols)))
    return DenseRowMajorView<T>{data, rows, cols, rows == 1 ? cols : s0 / item};
  if (f_inner && (cols == 1 || (s1 > 0 && s1 % item == 0 && s1 / item >= rows)))
    return DenseColMajorView<T>{data, rows, cols, cols == 1 ? rows : s1 / item};
  throw_invalid("X must be contiguous along rows or columns (C or Fortran order)");
}

template <class T, class I>
MatrixView csr_view(const py::array& data, const py::array& indices, const py::array& indptr,
                    long long rows, long long cols) {
  if (rows < 0 || cols < 0) throw_invalid("CSR shape must be non-negative");
  if (indptr.ndim() != 1 || indptr.shape(0) != rows + 1)
    throw_invalid("CSR indptr must have n_rows + 1 entries");
  if (indices.ndim() != 1 || data.ndim() != 1 || indices.shape(0) != data.shape(0))
    throw_invalid("CSR data and indices must be 1-D arrays of equal length");
  for (const py::array* a : {&data, &indices, &indptr})
    if (!(a->flags() & py::array::c_style)) throw_invalid("CSR arrays must be contiguous");
  const I* ip = static_cast<const I*>(indptr.data());
  if (ip[rows] > static_cast<I>(data.shape(0)))
    throw_invalid("CSR indptr[-1] exceeds the number of stored entries");
  return CsrView<T, I>{static_cast<const T*>(data.data()), static_cast<const I*>(indices.data()),
                       ip, rows, cols};
}
}  // namespace

py::array aligned(const py::array& a) {
  if (a.flags() & kAligned) return a;
  return a.attr("copy")("K");  // keeps C or Fortran order, so the view takes the same path
}

ViewHolder to_view(const py::object& X) {
  ViewHolder h;
  if (py::isinstance<py::tuple>(X)) {
    auto t = X.cast<py::tuple>();
    if (t.size() != 5)
      throw_invalid("a CSR matrix is passed as (data, indices, indptr, n_rows, n_cols)");
    auto data = aligned(t[0].cast<py::array>());
    auto indices = aligned(t[1].cast<py::array>());
    auto indptr = aligned(t[2].cast<py::array>());
    const auto rows = t[3].cast<long long>(), cols = t[4].cast<long long>();
    h.keep_alive = {data, indices, indptr};
    if (!indices.dtype().equal(indptr.dtype()))
      throw_invalid("CSR indices and indptr must have the same integer type");
    const bool f32 = dtype_is<float>(data.dtype());
    const bool f64 = dtype_is<double>(data.dtype());
    const bool i32 = dtype_is<std::int32_t>(indices.dtype());
    const bool i64 = dtype_is<std::int64_t>(indices.dtype());
    if (!(f32 || f64)) throw_invalid("X values must be float32 or float64");
    if (!(i32 || i64)) throw_invalid("CSR indices must be int32 or int64");
    if (f32 && i32) h.view = csr_view<float, std::int32_t>(data, indices, indptr, rows, cols);
    if (f64 && i32) h.view = csr_view<double, std::int32_t>(data, indices, indptr, rows, cols);
    if (f32 && i64) h.view = csr_view<float, std::int64_t>(data, indices, indptr, rows, cols);
    if (f64 && i64) h.view = csr_view<double, std::int64_t>(data, indices, indptr, rows, cols);
    // The one place where Python data enters the core: every fit, predict and kernel call
    // reads X through this view, so a malformed CSR structure (an index out of range, a
    // decreasing indptr) is refused here, once, before any solver or predictor indexes with it.
    validate_view(h.view, "X");
    return h;
  }
  if (!py::isinstance<py::array>(X)) throw_invalid("X must be a numpy array or a CSR tuple");
  auto a = aligned(X.cast<py::array>());
  if (a.ndim() != 2) throw_invalid("X must be a 2-D array, got " + std::to_string(a.ndim()) + "-D");
  h.keep_alive = {a};
  if (dtype_is<float>(a.dtype()))
    h.view = dense_view<float>(a);
  else if (dtype_is<double>(a.dtype()))
    h.view = dense_view<double>(a);
  else
    throw_invalid("X must be float32 or float64");
  validate_view(h.view, "X");
  return h;
}

const double* double_ptr(const py::object& obj, long long expected, const char* name,
                         std::vector<py::object>& keep_alive) {
  if (!py::isinstance<py::array>(obj)) throw_invalid(std::string(name) + " must be a numpy array");
  auto a = aligned(obj.cast<py::array>());
  if (!dtype_is<double>(a.dtype()) || a.ndim() != 1 || !(a.flags() & py::array::c_style))
    throw_invalid(std::string(name) + " must be a contiguous 1-D float64 array");
  if (expected >= 0 && a.shape(0) != expected)
    throw_invalid(std::string(name) + " has length " + std::to_string(a.shape(0)) + ", expected " +
                  std::to_string(expected));
  keep_alive.push_back(a);
  return static_cast<const double*>(a.data());
}

void PythonCallbacks::rethrow_if_any() {
  if (error && error->has_value()) {
    py::error_already_set e = std::move(**error);
    error->reset();
    throw e;
  }
}

PythonCallbacks make_callbacks(const py::object& on_iteration) {
  PythonCallbacks pc;
  pc.error = std::make_shared<std::optional<py::error_already_set>>();
  auto err = pc.error;
  // Signals reach only Python's main thread: a solve running on another thread (the parallel
  // one-vs-rest fits, svmkit/_threads.py) polls without taking the GIL, so that parallel fits
  // do not queue on it once per pass; they are stopped through a StopToken.
  const py::module_ threading = py::module_::import("threading");
  const bool main_thread = threading.attr("current_thread")().is(threading.attr("main_thread")());
  std::shared_ptr<std::atomic<bool>> stop;
  if (py::isinstance<StopToken>(on_iteration)) stop = on_iteration.cast<const StopToken&>().flag;
  pc.callbacks.interrupted = [err, main_thread, stop]() {
    if (stop && stop->load(std::memory_order_relaxed)) return true;
    if (!main_thread) return err->has_value();
    py::gil_scoped_acquire gil;
    if (err->has_value()) return true;
    if (PyErr_CheckSignals() != 0) {
      err->emplace();  // takes the pending KeyboardInterrupt
      return true;
    }
    return false;
  };
  if (!on_iteration.is_none() && !stop) {
    py::object fn = on_iteration;
    pc.callbacks.on_iteration = [err, fn](const IterationRecord& r) {
      py::gil_scoped_acquire gil;
      try {
        py::object out = fn(record_to_dict(r));
        return out.is_none() || out.cast<bool>();
      } catch (py::error_already_set& e) {
        err->emplace(std::move(e));
        return false;
      }
    };
  }
  return pc;
}

py::dict record_to_dict(const IterationRecord& r) {
  py::dict d;
  d["iteration"] = r.iteration;
  d["objective"] = r.objective;
  d["optimality"] = r.optimality;
  d["step"] = r.step;
  d["inner_iterations"] = r.inner_iterations;
  d["active_size"] = r.active_size;
  d["smoothing"] = r.smoothing;
  d["radius"] = r.radius;
  d["gap"] = r.gap;
  d["passes"] = r.passes;
  d["time"] = r.time;
  d["accepted"] = r.accepted;
  return d;
}

void bind_stop_token(py::module_& m) {
  py::class_<StopToken>(m, "StopToken",
                        "A stop flag passed in place of a fit's callback: set() stops the fits "
                        "holding it at their next poll (at least once per pass), without the GIL.")
      .def(py::init<>())
      .def(
          "set", [](StopToken& t) { t.flag->store(true); }, "Stop the fits holding this token.")
      .def(
          "is_set", [](const StopToken& t) { return t.flag->load(); }, "Whether set() was called.");
}

void bind_status(py::module_& m) {
  py::native_enum<SolverStatus>(m, "SolverStatus", "enum.Enum",
                                "How a solve ended (svmkit/status.hpp); turned into warnings or "
                                "exceptions by svmkit._status.check_status.")
      .value("converged", SolverStatus::converged, "the stopping rule was met")
      .value("max_iter", SolverStatus::max_iter, "the iteration limit was reached first")
      .value("line_search_failed", SolverStatus::line_search_failed,
             "no further decrease could be made")
      .value("interrupted", SolverStatus::interrupted, "the interrupt hook or callback stopped it")
      .value("numerical_error", SolverStatus::numerical_error, "a non-finite value appeared")
      .value("infeasible", SolverStatus::infeasible,
             "the problem has no solution; the result's message states the certificate")
      .value("out_of_memory", SolverStatus::out_of_memory,
             "an allocation failed or exceeded its budget; the message names the option")
      .finalize();
}

namespace {
template <class T>
py::array_t<T> vector_array(const std::vector<T>& v) {
  return py::array_t<T>(static_cast<py::ssize_t>(v.size()), v.data());
}

// A vector handed to NumPy without a copy: the array owns it through a capsule.
py::array_t<double> owned_array(std::vector<double>&& v) {
  auto* owned = new std::vector<double>(std::move(v));
  py::capsule release(owned, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>(static_cast<py::ssize_t>(owned->size()), owned->data(), release);
}

// One function per extras type: adds its fields to the result dict.
void add_extras(py::dict&, const SolveResult&, const std::monostate&) {}
void add_extras(py::dict& d, const SolveResult&, const SmsvmExtras& e) {
  d["final_alpha"] = e.final_alpha;
  d["smoothed_objective"] = e.smoothed_objective;
  d["line_search_failures"] = e.line_search_failures;
  d["active_set_adjustments"] = e.active_set_adjustments;
  d["woodbury_solves"] = e.woodbury_solves;
  d["cg_iterations"] = e.cg_iterations;
  d["polished"] = e.polished;
  d["polish_rounds"] = e.polish_rounds;
}
void add_extras(py::dict& d, const SolveResult&, const SmoExtras& e) {
  d["dual_coef"] = vector_array(e.dual_coef);
  d["bias"] = e.bias;
  d["kernel_rows"] = e.kernel_rows;
  d["cache_hits"] = e.cache_hits;
  d["cache_peak_mb"] = e.cache_peak_mb;
  d["feature_major"] = e.feature_major;
  d["nu_r"] = e.nu_r;
}
void add_extras(py::dict& d, const SolveResult& r, const HomotopyExtras& e) {
  d["certificate_bound"] = e.certificate_bound;
  d["margin"] = e.margin;
  d["margin_upper"] = e.margin_upper;
  d["step_constant"] = e.step_constant;
  // One row per recorded outer iteration.
  const auto dim = static_cast<py::ssize_t>(r.solution.size());
  const auto rows = dim > 0 ? static_cast<py::ssize_t>(e.iterates.size()) / dim : 0;
  py::array_t<double> it({rows, dim});
  std::copy(e.iterates.begin(), e.iterates.end(), it.mutable_data());
  d["iterates"] = it;
}
void add_extras(py::dict& d, const SolveResult&, const NssvmExtras& e) {
  d["support"] = vector_array(e.support);
  d["alpha"] = vector_array(e.alpha);
  d["working_set"] = vector_array(e.working_set);
  d["mu"] = e.mu;
  d["bias"] = e.bias;
  d["accuracy"] = e.accuracy;
  d["best_accuracy"] = e.best_accuracy;
  d["returned_best"] = e.returned_best;
  d["s"] = e.s;
  d["s0"] = e.s0;
  d["eta"] = e.eta;
  d["c"] = e.c;
  d["accuracy_history"] = vector_array(e.accuracy_history);
  d["bias_history"] = vector_array(e.bias_history);
}
void add_extras(py::dict& d, const SolveResult&, const AdaGradDualExtras& e) {
  d["coef"] = vector_array(e.coef);
  d["bias"] = e.bias;
}
void add_extras(py::dict& d, const SolveResult&, const CrammerSingerExtras& e) {
  d["dual_objective"] = e.dual_objective;
  d["n_classes"] = e.n_classes;
}
void add_extras(py::dict& d, const SolveResult&, const SgdExtras& e) {
  d["step_mode"] = e.step_mode;
  d["coordinate_updates"] = e.coordinate_updates;
}
void add_extras(py::dict& d, const SolveResult&, const LinearOneClassExtras& e) {
  d["rho"] = e.rho;
  d["dual_objective"] = e.dual_objective;
  d["alpha"] = vector_array(e.alpha);
}

// The history as columns, ready for plotting, in one pass over the records. Filled through raw
// pointers into the fresh (contiguous) arrays: mutable_at's per-element checks cost about 0.1 ms
// on a 3 x 1000-iteration iris fit, a tenth of its time.
template <class T, std::size_t N>
void add_history_columns(py::dict& hist, const std::vector<IterationRecord>& history,
                         const std::pair<const char*, T IterationRecord::*> (&fields)[N]) {
  std::array<T*, N> out{};
  for (std::size_t k = 0; k < N; ++k) {
    py::array_t<T> column(static_cast<py::ssize_t>(history.size()));
    out[k] = column.mutable_data();
    hist[fields[k].first] = column;
  }
  for (std::size_t i = 0; i < history.size(); ++i)
    for (std::size_t k = 0; k < N; ++k) out[k][i] = history[i].*(fields[k].second);
}

py::dict history_dict(const std::vector<IterationRecord>& history) {
  using R = IterationRecord;
  static const std::pair<const char*, long long R::*> counts[] = {
      {"iteration", &R::iteration},
      {"inner_iterations", &R::inner_iterations},
      {"active_size", &R::active_size},
      {"passes", &R::passes}};
  static const std::pair<const char*, double R::*> values[] = {{"objective", &R::objective},
                                                               {"optimality", &R::optimality},
                                                               {"step", &R::step},
                                                               {"smoothing", &R::smoothing},
                                                               {"radius", &R::radius},
                                                               {"gap", &R::gap},
                                                               {"time", &R::time}};
  static const std::pair<const char*, bool R::*> flags[] = {{"accepted", &R::accepted}};
  // The documented column order (the Dask ports' too): a key keeps its place when reassigned.
  static const char* const order[] = {
      "iteration",   "objective", "optimality", "step", "inner_iterations",
      "active_size", "smoothing", "radius",     "gap",  "passes",
      "time",        "accepted"};
  py::dict hist;
  for (const char* name : order) hist[name] = py::none();
  add_history_columns(hist, history, counts);
  add_history_columns(hist, history, values);
  add_history_columns(hist, history, flags);
  return hist;
}
}  // namespace

py::dict result_to_dict(SolveResult&& r) {
  py::dict d;
  d["status"] = r.status;
  d["message"] = r.message;
  d["objective"] = r.objective;
  d["optimality"] = r.optimality;
  d["iterations"] = r.iterations;
  d["inner_iterations"] = r.inner_iterations;
  d["passes"] = r.passes;
  d["time"] = r.time;
  d["history"] = history_dict(r.history);
  std::visit([&](const auto& e) { add_extras(d, r, e); }, r.extras);
  // Last: the extras above read its size. Handed over, not copied (n_features doubles).
  d["solution"] = owned_array(std::move(r.solution));
  return d;
}

LinearProblem make_problem(const ViewHolder& X, const py::object& y, const py::object& cost,
                           bool fit_intercept, double intercept_scaling, bool regularize_intercept,
                           std::vector<py::object>& keep) {
  LinearProblem p;
  p.X = X.view;
  const auto n = static_cast<long long>(rows_of(X.view));
  p.y = double_ptr(y, n, "y", keep);
  p.cost = double_ptr(cost, n, "sample costs", keep);
  p.fit_intercept = fit_intercept;
  p.intercept_scaling = intercept_scaling;
  p.regularize_intercept = regularize_intercept;
  return p;
}

KernelSpec make_kernel_spec(const std::string& kind, double gamma, double coef0, int degree) {
  KernelSpec k;
  k.kind = kernel_kind_from_string(kind);
  k.gamma = gamma;
  k.coef0 = coef0;
  k.degree = degree;
  return k;
}

Index select_rows(const py::object& rows, Index n_all, std::vector<Index>& row_idx,
                  const Index*& rows_ptr) {
  rows_ptr = nullptr;
  if (rows.is_none()) return n_all;
  auto r = rows.cast<InArrayC<std::int64_t>>();
  if (r.ndim() != 1) throw_invalid("rows must be 1-D");
  row_idx.assign(r.data(), r.data() + r.shape(0));
  rows_ptr = row_idx.data();
  return static_cast<Index>(row_idx.size());
}

LossSpec make_loss(const std::string& loss, double sigma, double epsilon) {
  LossSpec spec;
  spec.kind = loss_kind_from_string(loss);
  spec.sigma = sigma;
  spec.epsilon = epsilon;
  return spec;
}

py::list option_records_to_list(const std::vector<OptionRecord>& records) {
  py::list out;
  auto bound = [](const Bound& b) -> py::object {
    if (!b.active) return py::none();
    return py::make_tuple(b.value, b.inclusive);
  };
  for (const auto& r : records) {
    py::dict d;
    d["name"] = r.name;
    d["type"] = r.type;
    d["default"] = r.default_text;
    d["low"] = bound(r.low);
    d["high"] = bound(r.high);
    d["doc"] = r.doc;
    out.append(d);
  }
  return out;
}

namespace {
struct OptionTableEntry {
  py::dict (*defaults)();
  py::list (*records)();
};
std::map<std::string, OptionTableEntry>& option_tables() {
  static std::map<std::string, OptionTableEntry> tables;
  return tables;
}
const OptionTableEntry& option_table_entry(const std::string& name) {
  const auto& tables = option_tables();
  const auto it = tables.find(name);
  if (it == tables.end()) {
    std::string known;
    for (const auto& [key, entry] : tables) known += (known.empty() ? "" : ", ") + key;
    throw_invalid("unknown option table '" + name + "' (known: " + known + ")");
  }
  return it->second;
}
}  // namespace

void register_option_table(const std::string& name, py::dict (*defaults)(), py::list (*records)()) {
  option_tables()[name] = OptionTableEntry{defaults, records};
}

void bind_option_tables(py::module_& m) {
  m.def(
      "option_defaults",
      [](const std::string& name) { return option_table_entry(name).defaults(); }, py::arg("name"),
      "Default options of one solver's table (the single source of the defaults).");
  m.def(
      "option_records", [](const std::string& name) { return option_table_entry(name).records(); },
      py::arg("name"),
      "One solver's option records: name, type, default, valid range and doc of each.");
  m.def(
      "option_table_names",
      [] {
        std::vector<std::string> names;
        for (const auto& [key, entry] : option_tables()) names.push_back(key);
        return names;
      },
      "The names of the registered option tables, sorted.");
}

}  // namespace svmkit::py_bind
