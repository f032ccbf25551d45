// Status and error types shared by every solver and by the I/O layer.
#pragma once

#include <new>
#include <stdexcept>
#include <string>

namespace svmkit {

// How a solve ended. Separate from errors: a solve that ran returns a status; a call that
// could not run (bad input, I/O failure) throws svmkit::Error.
enum class SolverStatus {
  converged,           // the stopping rule was met
  max_iter,            // the iteration limit was reached first
  line_search_failed,  // no further decrease could be made (step or trust region collapsed)
  interrupted,         // the interrupt hook or the callback asked to stop
  numerical_error,     // a non-finite value appeared in the objective or the iterate
  infeasible,          // the problem has no solution; SolveResult::message states the
                       // certificate (e.g. the homotopy's proof that the data are not separable)
  out_of_memory,       // an allocation the solve needed failed; SolveResult::message names the
                       // size and the option that bounds it
};

const char* to_string(SolverStatus status);

// A number in a message, to three significant digits ("0.00062", "1.2e+04"), independent of the
// C locale (a message read in a de_DE session still says 0.5, not 0,5).
std::string short_number(double value);

// Categories of error, so that bindings can map them onto their own exception types.
enum class ErrorCode {
  invalid_argument,  // a parameter value or an input array is not acceptable
  io_error,          // a file could not be opened, read or written
  format_error,      // a file was read but its content is malformed
  out_of_memory,     // an allocation failed; the message names its size and the option that
                     // bounds it (Python: MemoryError)
};

// The one exception type thrown by svmkit. The message names the problem.
class Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

[[noreturn]] inline void throw_invalid(const std::string& message) {
  throw Error(ErrorCode::invalid_argument, message);
}

// Throws Error(out_of_memory) for a failed allocation of `bytes` bytes holding `what`, naming
// the option (or input size) that controls it, e.g. "cache_size".
[[noreturn]] void throw_out_of_memory(double bytes, const std::string& what,
                                      const std::string& controlled_by);

// Runs alloc() (a resize, a reserve, a make_unique); a std::bad_alloc or std::length_error it
// throws becomes throw_out_of_memory(bytes, what, controlled_by).
template <class Alloc>
void allocate_or_throw(double bytes, const char* what, const char* controlled_by, Alloc&& alloc) {
  try {
    alloc();
  } catch (const std::bad_alloc&) {
    throw_out_of_memory(bytes, what, controlled_by);
  } catch (const std::length_error&) {
    throw_out_of_memory(bytes, what, controlled_by);
  }
}

}  // namespace svmkit
