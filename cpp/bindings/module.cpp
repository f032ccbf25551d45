// The svmkit._core extension module: registers each part and maps svmkit::Error onto
// Python exceptions with the same message.
#include <pybind11/pybind11.h>

#include <new>

#include "svmkit/status.hpp"

namespace py = pybind11;

namespace svmkit::py_bind {
void bind_status(py::module_& m);
void bind_stop_token(py::module_& m);
void bind_linear(py::module_& m);
void bind_svmlight(py::module_& m);
void bind_nssvm(py::module_& m);
void bind_sgd(py::module_& m);
void bind_homotopy(py::module_& m);
void bind_adagrad_dual(py::module_& m);
void bind_smsvm(py::module_& m);
void bind_kernel(py::module_& m);
void bind_nu(py::module_& m);
void bind_dual_cd(py::module_& m);
void bind_l1_cd(py::module_& m);
void bind_ipm(py::module_& m);
void bind_crammer_singer(py::module_& m);
void bind_threads(py::module_& m);
void bind_partition(py::module_& m);
void bind_build_info(py::module_& m);
void bind_option_tables(py::module_& m);
}  // namespace svmkit::py_bind

PYBIND11_MODULE(_core, m) {
  m.doc() = "svmkit C++ core (internal; use the svmkit package)";
  static py::exception<svmkit::Error> format_error(m, "FormatError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const svmkit::Error& e) {
      switch (e.code()) {
        case svmkit::ErrorCode::invalid_argument:
          PyErr_SetString(PyExc_ValueError, e.what());
          return;
        case svmkit::ErrorCode::io_error:
          PyErr_SetString(PyExc_OSError, e.what());
          return;
        case svmkit::ErrorCode::format_error:
          py::set_error(format_error, e.what());
          return;
        case svmkit::ErrorCode::out_of_memory:
          PyErr_SetString(PyExc_MemoryError, e.what());
          return;
      }
      PyErr_SetString(PyExc_RuntimeError, e.what());
    } catch (const std::bad_alloc&) {
      // An allocation not wrapped by allocate_or_throw: still a MemoryError, never an abort.
      PyErr_SetString(PyExc_MemoryError,
                      "out of memory in the svmkit core (an allocation failed; reduce the data "
                      "size, cache_size or the solver's memory options)");
    }
  });
#ifdef _OPENMP
  m.attr("openmp") = true;
#else
  m.attr("openmp") = false;
#endif
  svmkit::py_bind::bind_status(m);
  svmkit::py_bind::bind_stop_token(m);
  svmkit::py_bind::bind_linear(m);
  svmkit::py_bind::bind_svmlight(m);
  svmkit::py_bind::bind_nssvm(m);
  svmkit::py_bind::bind_sgd(m);
  svmkit::py_bind::bind_homotopy(m);
  svmkit::py_bind::bind_adagrad_dual(m);
  svmkit::py_bind::bind_smsvm(m);
  svmkit::py_bind::bind_kernel(m);
  svmkit::py_bind::bind_nu(m);
  svmkit::py_bind::bind_dual_cd(m);
  svmkit::py_bind::bind_l1_cd(m);
  svmkit::py_bind::bind_ipm(m);
  svmkit::py_bind::bind_crammer_singer(m);
  svmkit::py_bind::bind_threads(m);
  svmkit::py_bind::bind_partition(m);
  svmkit::py_bind::bind_build_info(m);
  svmkit::py_bind::bind_option_tables(m);
}
