// The CPUs a process may use: affinity mask and cgroup CPU quota (see parallel.hpp).
#include "svmkit/detail/parallel.hpp"

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#if defined(__linux__)
#include <sched.h>
#endif

namespace svmkit {

namespace {

bool read_text(const std::string& path, std::string& out) {
  std::ifstream f(path);
  if (!f) return false;
  std::ostringstream s;
  s << f.rdbuf();
  out = s.str();
  return true;
}

// Parses a whole non-negative or negative integer token; false on anything else.
bool parse_number(const std::string& token, double& out) {
  if (token.empty()) return false;
  char* end = nullptr;
  const double v = std::strtod(token.c_str(), &end);
  if (end != token.c_str() + token.size() || !std::isfinite(v)) return false;
  out = v;
  return true;
}

std::string first_token(const std::string& text) {
  std::istringstream s(text);
  std::string t;
  s >> t;
  return t;
}

// The cgroup v2 path of this process ("0::/path" in /proc/self/cgroup), "" if none.
std::string cgroup_v2_path() {
  std::string text;
  if (!read_text("/proc/self/cgroup", text)) return "";
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line))
    if (line.rfind("0::", 0) == 0) return line.substr(3);
  return "";
}

// The smallest positive limit of a and b (0 = no limit).
double min_limit(double a, double b) {
  if (a <= 0.0) return b;
  if (b <= 0.0) return a;
  return std::min(a, b);
}

int affinity_cpus() {
#if defined(__linux__)
  // A set sized for many CPUs: sched_getaffinity fails if the set is smaller than the kernel's.
  for (int ncpu = 1024; ncpu <= (1 << 16); ncpu *= 4) {
    cpu_set_t* set = CPU_ALLOC(ncpu);
    if (set == nullptr) break;
    const std::size_t size = CPU_ALLOC_SIZE(ncpu);
    CPU_ZERO_S(size, set);
    const int rc = sched_getaffinity(0, size, set);
    const int count = rc == 0 ? CPU_COUNT_S(size, set) : 0;
    CPU_FREE(set);
    if (rc == 0) return std::max(1, count);
  }
#endif
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

}  // namespace

double parse_cgroup_cpu_max(const std::string& cpu_max) {
  std::istringstream s(cpu_max);
  std::string quota, period = "100000";
  s >> quota;
  if (!(s >> period)) period = "100000";  // the kernel's default period when only one field
  double q = 0.0, p = 0.0;
  if (quota == "max" || !parse_number(quota, q) || !parse_number(period, p)) return 0.0;
  if (q <= 0.0 || p <= 0.0) return 0.0;
  return q / p;
}

double parse_cgroup_v1_quota(const std::string& quota_us, const std::string& period_us) {
  double q = 0.0, p = 0.0;
  if (!parse_number(first_token(quota_us), q) || !parse_number(first_token(period_us), p))
    return 0.0;
  if (q <= 0.0 || p <= 0.0) return 0.0;  // -1: no quota
  return q / p;
}

double cgroup_cpu_limit() {
  double limit = 0.0;
  std::string text;
  // cgroup v2: the process's own group and every parent up to the root of the mount.
  std::string path = cgroup_v2_path();
  for (;;) {
    while (path.size() > 1 && path.back() == '/') path.pop_back();
    const std::string dir = "/sys/fs/cgroup" + (path == "/" ? std::string() : path);
    if (read_text(dir + "/cpu.max", text)) limit = min_limit(limit, parse_cgroup_cpu_max(text));
    if (path.empty() || path == "/") break;
    const auto slash = path.rfind('/');
    path = slash == std::string::npos ? std::string() : path.substr(0, slash);
    if (path.empty()) path = "/";
  }
  // cgroup v1: the cpu controller's mount (as seen from inside the group).
  for (const char* dir : {"/sys/fs/cgroup/cpu", "/sys/fs/cgroup/cpu,cpuacct"}) {
    std::string quota, period;
    if (read_text(std::string(dir) + "/cpu.cfs_quota_us", quota) &&
        read_text(std::string(dir) + "/cpu.cfs_period_us", period))
      limit = min_limit(limit, parse_cgroup_v1_quota(quota, period));
  }
  return limit;
}

int usable_cpus() {
  static const double quota = cgroup_cpu_limit();  // read once: limits rarely change
  int n = affinity_cpus();
  if (quota > 0.0) n = std::min(n, static_cast<int>(std::ceil(quota - 1e-9)));
  return std::max(1, n);
}

}  // namespace svmkit
