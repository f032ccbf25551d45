// svmkit._core.build_info(): svmkit::build_info() as a dict (svmkit.show_config prints it).
#include <pybind11/pybind11.h>

#include "svmkit/build_info.hpp"

namespace py = pybind11;

namespace svmkit::py_bind {

void bind_build_info(py::module_& m) {
  m.def(
      "build_info",
      []() {
        const BuildInfo b = build_info();
        py::dict d;
        d["version"] = b.version;
        d["compiler"] = b.compiler;
        d["build_type"] = b.build_type;
        d["cxx_flags"] = b.cxx_flags;
        d["simd_level"] = b.simd_level;
        d["simd_cpu"] = b.simd_cpu;
        d["simd_note"] = b.simd_note;
        d["simd_multiversioned"] = b.simd_multiversioned;
        d["openmp_version"] = b.openmp_version;
        d["openmp_max_threads"] = b.openmp_max_threads;
        return d;
      },
      "How the C++ core was built and the SIMD level it chose (svmkit.show_config prints it).");
  m.attr("__version__") = SVMKIT_VERSION_STRING;
}

}  // namespace svmkit::py_bind
