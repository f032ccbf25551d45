// Option records: every solver option is declared once, in its solver's field list, with its
// type, default, valid range and a one-line doc. The options struct, the range checks, the
// Python dict conversions, `svmkit.solver_defaults()` and the docs' option tables are all
// generated from that list, so a default or a range is never written twice.
//
// A field list is an X-macro whose entries read
//
//   X(type, name, default, low, high, "one-line doc")
//
// where low and high are Bounds (at_least, above, at_most, below, finite, unbounded). String
// options use `unbounded` and list their choices in the doc; the solver checks them (and any rule
// that ties two fields together) in its own validate_options after check_option_ranges.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "svmkit/status.hpp"

namespace svmkit {

// One end of an option's valid range.
struct Bound {
  double value = 0.0;     // the limit
  bool inclusive = true;  // whether the limit itself is allowed
  bool active = false;    // false: no limit on this side
};
constexpr Bound at_least(double v) {
  return {v, true, true};
}
constexpr Bound above(double v) {
  return {v, false, true};
}
constexpr Bound at_most(double v) {
  return {v, true, true};
}
constexpr Bound below(double v) {
  return {v, false, true};
}
constexpr Bound unbounded() {
  return {0.0, true, false};
}
// Upper end "finite": every finite value is allowed, +inf is not.
constexpr Bound finite() {
  return {std::numeric_limits<double>::infinity(), false, true};
}

// What the generated tables say about one option (for bindings, docs and tools).
struct OptionRecord {
  const char* name;          // the field name, the same in C++, Python and the CLI
  const char* type;          // "double", "long long", "int", "bool" or "std::string"
  std::string default_text;  // the default, printed
  Bound low;                 // lower end of the valid range
  Bound high;                // upper end of the valid range
  const char* doc;           // one line
};

namespace detail {
// A bound or value in messages: shortest round-trip form ("0", "1e-12", "inf").
inline std::string print_number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  for (int digits = 1; digits < 17; ++digits) {
    char shorter[32];
    std::snprintf(shorter, sizeof shorter, "%.*g", digits, v);
    if (std::strtod(shorter, nullptr) == v || std::isnan(v)) return shorter;
  }
  return buf;
}
// Throws Error(invalid_argument) naming the option when value lies outside [low, high].
inline void check_range(const char* solver, const char* name, double value, Bound low, Bound high) {
  const bool bad_low = low.active && (low.inclusive ? !(value >= low.value) : !(value > low.value));
  const bool bad_high =
      high.active && (high.inclusive ? !(value <= high.value) : !(value < high.value));
  if (!(bad_low || bad_high) && !std::isnan(value)) return;
  std::string range;
  if (low.active) range += (low.inclusive ? ">= " : "> ") + print_number(low.value);
  if (low.active && high.active) range += " and ";
  if (high.active)
    range += std::isinf(high.value) ? std::string("finite")
                                    : (high.inclusive ? "<= " : "< ") + print_number(high.value);
  throw_invalid(std::string(solver) + " option '" + name + "' must be " +
                (range.empty() ? std::string("a number") : range) + ", got " + print_number(value));
}
template <class T>
inline void check_field(const char* solver, const char* name, const T& value, Bound low,
                        Bound high) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    check_range(solver, name, static_cast<double>(value), low, high);
}
inline std::string print_default(double v) {
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}
inline std::string print_default(long long v) {
  return std::to_string(v);
}
inline std::string print_default(int v) {
  return std::to_string(v);
}
inline std::string print_default(std::uint64_t v) {
  return std::to_string(v);
}
inline std::string print_default(bool v) {
  return v ? "true" : "false";
}
inline std::string print_default(const std::string& v) {
  return "\"" + v + "\"";
}
inline std::string print_default(const char* v) {
  return std::string("\"") + v + "\"";
}
}  // namespace detail

}  // namespace svmkit

// Declares the fields of an options struct from its field list.
#define SVMKIT_OPTION_FIELD(type, name, def, low, high, doc) type name = def;
// Checks one field's range (used by SVMKIT_CHECK_OPTION_RANGES).
#define SVMKIT_OPTION_CHECK(type, name, def, low, high, doc) \
  ::svmkit::detail::check_field(solver_name_, #name, options_.name, low, high);
// Appends one field's record (used by SVMKIT_OPTION_RECORDS).
#define SVMKIT_OPTION_RECORD(type, name, def, low, high, doc) \
  records_.push_back(                                         \
      {#name, #type, ::svmkit::detail::print_default(static_cast<type>(def)), low, high, doc});

// Inside a validate_options(const Options& options) body: checks every declared range.
#define SVMKIT_CHECK_OPTION_RANGES(FIELDS, solver_name, options) \
  do {                                                           \
    const char* solver_name_ = solver_name;                      \
    const auto& options_ = options;                              \
    FIELDS(SVMKIT_OPTION_CHECK)                                  \
  } while (0)

// Defines `std::vector<OptionRecord> NAME_option_records()` for a field list.
#define SVMKIT_DEFINE_OPTION_RECORDS(NAME, FIELDS)                     \
  inline std::vector<::svmkit::OptionRecord> NAME##_option_records() { \
    std::vector<::svmkit::OptionRecord> records_;                      \
    FIELDS(SVMKIT_OPTION_RECORD)                                       \
    return records_;                                                   \
  }
