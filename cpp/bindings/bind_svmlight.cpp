// LIBSVM / SVMlight reading and writing (svmkit/svmlight.hpp). Parsed arrays are handed to
// numpy without a copy (the vectors move into capsules); the GIL is released while parsing.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "convert.hpp"
#include "svmkit/svmlight.hpp"

namespace svmkit::py_bind {

namespace {

template <class T>
py::array_t<T> to_numpy(std::vector<T>&& v) {
  auto* heap = new std::vector<T>(std::move(v));
  py::capsule owner(heap, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({static_cast<py::ssize_t>(heap->size())}, {sizeof(T)}, heap->data(), owner);
}

ZeroBased zero_based_from(const std::string& s) {
  if (s == "auto") return ZeroBased::automatic;
  if (s == "yes") return ZeroBased::yes;
  if (s == "no") return ZeroBased::no;
  throw_invalid("zero_based must be 'auto', 'yes' or 'no', got '" + s + "'");
}

SvmlightReadOptions read_options(bool single_precision, const std::string& zero_based,
                                 bool query_id, int num_threads, std::size_t block_bytes) {
  SvmlightReadOptions o;
  o.single_precision = single_precision;
  o.zero_based = zero_based_from(zero_based);
  o.query_id = query_id;
  o.num_threads = num_threads;
  if (block_bytes > 0) o.block_bytes = block_bytes;
  return o;
}

// The raw result: indices as written in the file (the caller applies the zero-based rule).
py::dict data_to_dict(SvmlightData&& d, bool single_precision, bool query_id) {
  py::dict out;
  out["n_rows"] = d.n_rows;
  out["nnz"] = d.nnz;
  out["min_index"] = d.min_index;
  out["max_index"] = d.max_index;
  out["labels"] = to_numpy(std::move(d.labels));
  out["qid"] = query_id ? py::object(to_numpy(std::move(d.qid))) : py::object(py::none());
  out["data"] = single_precision ? py::object(to_numpy(std::move(d.values32)))
                                 : py::object(to_numpy(std::move(d.values64)));
  if (d.use_int64) {
    out["indices"] = to_numpy(std::move(d.indices64));
    out["indptr"] = to_numpy(std::move(d.indptr64));
  } else {
    out["indices"] = to_numpy(std::move(d.indices32));
    out["indptr"] = to_numpy(std::move(d.indptr32));
  }
  return out;
}

class PySvmlightParser {
 public:
  PySvmlightParser(const std::string& source, bool single_precision, const std::string& zero_based,
                   bool query_id, int num_threads, std::size_t block_bytes)
      : single_(single_precision),
        qid_(query_id),
        parser_(source,
                read_options(single_precision, zero_based, query_id, num_threads, block_bytes)) {}

  void feed(const py::buffer& b) {
    py::buffer_info info = b.request();
    const auto size = static_cast<std::size_t>(info.size * info.itemsize);
    const char* ptr = static_cast<const char*>(info.ptr);
    py::gil_scoped_release release;
    parser_.feed(ptr, size);
  }

  py::dict finish() {
    SvmlightData d;
    {
      py::gil_scoped_release release;
      d = parser_.finish();
    }
    return data_to_dict(std::move(d), single_, qid_);
  }

  std::int64_t lines() const { return parser_.lines(); }

 private:
  bool single_;
  bool qid_;
  SvmlightParser parser_;
};

py::dict read_raw(const std::string& path, bool single_precision, const std::string& zero_based,
                  bool query_id, int num_threads, std::size_t block_bytes) {
  SvmlightReadOptions o =
      read_options(single_precision, zero_based, query_id, num_threads, block_bytes);
  // Python applies the zero-based rule itself (it may span several files), so parse raw.
  SvmlightData d;
  {
    py::gil_scoped_release release;
    d = parse_svmlight_file(path, o);
  }
  return data_to_dict(std::move(d), single_precision, query_id);
}

const std::int64_t* qid_ptr(const py::object& qid, Index n, std::vector<py::object>& keep) {
  if (qid.is_none()) return nullptr;
  auto arr = InArrayC<std::int64_t>::ensure(qid);
  if (!arr || arr.ndim() != 1 || arr.shape(0) != n)
    throw_invalid("query_id must be a 1-D integer array with one entry per row");
  keep.push_back(arr);
  return arr.data();
}

SvmlightWriteOptions write_options(bool zero_based, const std::string& comment) {
  SvmlightWriteOptions o;
  o.zero_based = zero_based;
  o.comment = comment;
  return o;
}

void write_file(const std::string& path, const py::object& X, const py::object& y,
                const py::object& qid, bool zero_based, const std::string& comment) {
  ViewHolder v = to_view(X);
  std::vector<py::object> keep;
  const Index n = rows_of(v.view);
  const double* yp = double_ptr(y, n, "y", keep);
  const std::int64_t* qp = qid_ptr(qid, n, keep);
  const SvmlightWriteOptions o = write_options(zero_based, comment);
  py::gil_scoped_release release;
  write_svmlight_file(path, v.view, yp, qp, o);
}

py::bytes format_rows(const py::object& X, const py::object& y, const py::object& qid,
                      bool zero_based, const std::string& comment, Index row_begin, Index row_end) {
  ViewHolder v = to_view(X);
  std::vector<py::object> keep;
  const Index n = rows_of(v.view);
  const double* yp = double_ptr(y, n, "y", keep);
  const std::int64_t* qp = qid_ptr(qid, n, keep);
  const SvmlightWriteOptions o = write_options(zero_based, comment);
  std::ostringstream out;
  {
    py::gil_scoped_release release;
    write_svmlight(out, v.view, yp, qp, row_begin, row_end, o);
  }
  return py::bytes(out.str());
}

}  // namespace

void bind_svmlight(py::module_& m) {
  py::class_<PySvmlightParser>(m, "SvmlightParser",
                               "Incremental LIBSVM/SVMlight parser: feed(bytes) then finish()")
      .def(py::init<const std::string&, bool, const std::string&, bool, int, std::size_t>(),
           py::arg("source"), py::arg("single_precision") = false, py::arg("zero_based") = "auto",
           py::arg("query_id") = false, py::arg("num_threads") = 0, py::arg("block_bytes") = 0)
      .def("feed", &PySvmlightParser::feed, py::arg("data"))
      .def("finish", &PySvmlightParser::finish)
      .def_property_readonly("lines", &PySvmlightParser::lines);
  m.def("read_svmlight_raw", &read_raw, py::arg("path"), py::arg("single_precision") = false,
        py::arg("zero_based") = "auto", py::arg("query_id") = false, py::arg("num_threads") = 0,
        py::arg("block_bytes") = 0,
        "Parse a plain LIBSVM/SVMlight file; indices as written (no zero-based shift).");
  m.def("write_svmlight_file", &write_file, py::arg("path"), py::arg("X"), py::arg("y"),
        py::arg("query_id"), py::arg("zero_based"), py::arg("comment"));
  m.def("format_svmlight_rows", &format_rows, py::arg("X"), py::arg("y"), py::arg("query_id"),
        py::arg("zero_based"), py::arg("comment"), py::arg("row_begin"), py::arg("row_end"));
}

}  // namespace svmkit::py_bind
