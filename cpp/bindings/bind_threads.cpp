// Thread counts: what a fit may use (affinity, cgroup quota, OpenMP limits) and the cgroup
// parsers, exposed for svmkit._threads and its tests.
#include <pybind11/pybind11.h>

#include "svmkit/detail/parallel.hpp"

namespace py = pybind11;

namespace svmkit::py_bind {

void bind_threads(py::module_& m) {
  m.def("default_threads", &default_threads,
        "Threads a fit uses by default on the calling thread: min of omp_get_max_threads() "
        "(OMP_NUM_THREADS, threadpoolctl), the affinity mask and the cgroup CPU quota.");
  m.def("usable_cpus", &usable_cpus,
        "CPUs the process may run on: the affinity mask capped by the cgroup CPU quota.");
  m.def("cgroup_cpu_limit", &cgroup_cpu_limit,
        "The cgroup CPU quota of this process in CPUs (0.0: none).");
  m.def("parse_cgroup_cpu_max", &parse_cgroup_cpu_max, py::arg("text"),
        "CPUs allowed by the text of a cgroup v2 cpu.max file (0.0: no limit).");
  m.def("parse_cgroup_v1_quota", &parse_cgroup_v1_quota, py::arg("quota_us"), py::arg("period_us"),
        "CPUs allowed by the texts of cgroup v1 cpu.cfs_quota_us and cpu.cfs_period_us "
        "(0.0: no limit).");
}

}  // namespace svmkit::py_bind
