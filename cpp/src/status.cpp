// Solver statuses in words and the out-of-memory error (status.hpp).
#include "svmkit/status.hpp"

#include <charconv>
#include <cstdio>
#include <string>

namespace svmkit {

const char* to_string(SolverStatus s) {
  switch (s) {
    case SolverStatus::converged:
      return "converged";
    case SolverStatus::max_iter:
      return "max_iter";
    case SolverStatus::line_search_failed:
      return "line_search_failed";
    case SolverStatus::interrupted:
      return "interrupted";
    case SolverStatus::numerical_error:
      return "numerical_error";
    case SolverStatus::infeasible:
      return "infeasible";
    case SolverStatus::out_of_memory:
      return "out_of_memory";
  }
  return "unknown";
}

std::string short_number(double value) {
  char buf[32];
  const auto out = std::to_chars(buf, buf + sizeof buf, value, std::chars_format::general, 3);
  return std::string(buf, out.ptr);
}

void throw_out_of_memory(double bytes, const std::string& what, const std::string& controlled_by) {
  char size[64];
  if (bytes >= 1024.0 * 1024.0 * 1024.0)
    std::snprintf(size, sizeof size, "%.1f GiB", bytes / (1024.0 * 1024.0 * 1024.0));
  else
    std::snprintf(size, sizeof size, "%.1f MiB", bytes / (1024.0 * 1024.0));
  throw Error(ErrorCode::out_of_memory, std::string("out of memory: could not allocate ") + size +
                                            " for " + what + "; " + controlled_by);
}

}  // namespace svmkit
