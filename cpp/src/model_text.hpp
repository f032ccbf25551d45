// The pieces the model-file readers share (model.cpp for "kind linear", kernel_model.cpp for
// "kind kernel"): line reading with comments and CRLF, "key value ..." lines, number parsing
// whose errors name the line, the checksum line, and the size checks that keep a corrupt or
// hostile file from making the reader allocate more than the file could hold. Numbers are
// parsed and printed locale-independently (std::from_chars, a classic-locale stream): a
// model saved under one LC_NUMERIC loads under any other. Internal to the library.
#pragma once

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <istream>
#include <iterator>
#include <limits>
#include <locale>
#include <ostream>
#include <set>
#include <string>
#include <system_error>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/model.hpp"
#include "svmkit/status.hpp"
#include "text_escape.hpp"

namespace svmkit::model_text {

using detail::printable;  // bytes outside printable ASCII as \xNN (text_escape.hpp)

[[noreturn]] inline void bad(long line, const std::string& what) {
  throw Error(ErrorCode::format_error,
              "model file line " + std::to_string(line) + ": " + printable(what));
}

// Quoted token for messages, at most 40 bytes (a corrupt line can be very long).
inline std::string quote(const std::string& tok) {
  return detail::quote(tok, 40);
}

// A finite number (nan and inf are rejected: a model with them cannot predict). One leading
// '+' is accepted, as std::stod did before.
inline double number(const std::string& tok, long line) {
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (b != e && *b == '+' && e - b > 1 && b[1] != '-' && b[1] != '+') ++b;
  double v = 0.0;
  const auto r = std::from_chars(b, e, v);
  if (r.ec == std::errc::result_out_of_range) bad(line, quote(tok) + " is out of range");
  if (r.ec != std::errc() || r.ptr != e) bad(line, quote(tok) + " is not a number");
  if (!std::isfinite(v)) bad(line, quote(tok) + " is not a finite number");
  return v;
}

// A decimal integer in [low, high]; `what` names it in the message.
inline Index integer(const std::string& tok, long line, Index low, Index high,
                     const std::string& what) {
  const char* b = tok.data();
  const char* e = b + tok.size();
  if (b != e && *b == '+' && e - b > 1 && b[1] != '-') ++b;
  std::int64_t v = 0;
  const auto r = std::from_chars(b, e, v);
  if (r.ec == std::errc::result_out_of_range ||
      (r.ec == std::errc() && r.ptr == e && (v < low || v > high)))
    bad(line, what + " " + quote(tok) + " is out of range [" + std::to_string(low) + ", " +
                  std::to_string(high) + "]");
  if (r.ec != std::errc() || r.ptr != e) bad(line, what + " " + quote(tok) + " is not an integer");
  return static_cast<Index>(v);
}

constexpr Index kMaxIndex = std::numeric_limits<std::int64_t>::max() / 4;
constexpr Index kMaxInt = std::numeric_limits<int>::max();

// a * b, or a format error naming `what` when the product overflows or exceeds `limit`.
inline Index checked_product(Index a, Index b, Index limit, long line, const std::string& what) {
  if (a < 0 || b < 0 || (a != 0 && b > limit / a))
    bad(line, what + " (" + std::to_string(a) + " x " + std::to_string(b) +
                  ") is larger than the file could hold");
  return a * b;
}

// 64-bit FNV-1a: cheap, and any single corrupted byte changes it. CR bytes are skipped so
// that a file whose line ends were converted to CRLF still verifies.
inline std::uint64_t fnv1a64(const char* p, std::size_t n) {
  std::uint64_t h = 14695981039346656037ULL;
  for (std::size_t i = 0; i < n; ++i) {
    if (p[i] == '\r') continue;
    h ^= static_cast<unsigned char>(p[i]);
    h *= 1099511628211ULL;
  }
  return h;
}

inline std::string checksum_line(const std::string& body) {
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx",
                static_cast<unsigned long long>(fnv1a64(body.data(), body.size())));
  return std::string("checksum fnv1a64 ") + hex + "\n";
}

// Prints numbers with 17 significant digits in the classic locale, whatever the global one.
inline void prepare_stream(std::ostream& out) {
  out.imbue(std::locale::classic());
  out.precision(17);
}

// Reads the lines that carry content from a whole file held in memory: blank lines and '#'
// comments are skipped, a trailing CR (CRLF files) is dropped, and the 1-based number of the
// last line read and the bytes left after it are kept (for the size checks).
class Lines {
 public:
  explicit Lines(const std::string& text, std::size_t end) : text_(text), end_(end) {}
  bool next(std::string& s) { return read(s, true); }
  // A data row that may be empty (a sparse support vector with no nonzero): only '#'
  // comment lines are skipped.
  bool next_row(std::string& s) { return read(s, false); }
  long line() const { return line_; }
  // Bytes after the last line read: each further value needs at least two of them.
  Index remaining() const { return static_cast<Index>(end_ - pos_); }
  // Fails with a format error when `count` values (or lines: bytes_each = 1) cannot fit in
  // the rest of the file, before anything of that size is allocated.
  void check_fits(Index count, const std::string& what, Index bytes_each = 2) const {
    if (count > remaining() / bytes_each + 1)
      bad(line_, what + " declares " + std::to_string(count) + " values but only " +
                     std::to_string(remaining()) + " bytes follow");
  }

 private:
  bool read(std::string& s, bool skip_blank) {
    while (pos_ < end_) {
      std::size_t nl = text_.find('\n', pos_);
      if (nl == std::string::npos || nl > end_) nl = end_;
      s.assign(text_, pos_, nl - pos_);
      pos_ = nl < end_ ? nl + 1 : end_;
      ++line_;
      if (!s.empty() && s.back() == '\r') s.pop_back();
      if ((skip_blank && s.empty()) || (!s.empty() && s[0] == '#')) continue;
      return true;
    }
    return false;
  }

  const std::string& text_;
  std::size_t end_;
  std::size_t pos_ = 0;
  long line_ = 0;
};

// The whole stream, and where the model body ends: a trailing "checksum fnv1a64 HEX" line
// (written by save since the checksum was introduced; older files have none) is cut off and
// verified by verify() once the body has parsed, so that a structural error is reported
// with its own line and the checksum catches what still parses (an edited digit).
struct Text {
  std::string bytes;
  std::size_t body_end = 0;
  std::string checksum;  // the checksum line as written ("" when absent)
  long checksum_line_no = 0;

  void verify() const {
    if (checksum.empty()) return;
    const std::string want = checksum_line(bytes.substr(0, body_end));
    if (checksum + "\n" != want)
      bad(checksum_line_no, "checksum mismatch: the file is corrupt (expected '" +
                                want.substr(0, want.size() - 1) + "')");
  }
};

inline Text slurp(std::istream& in) {
  Text t;
  t.bytes.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  t.body_end = t.bytes.size();
  std::size_t end = t.bytes.size();
  while (end > 0 && (t.bytes[end - 1] == '\n' || t.bytes[end - 1] == '\r')) --end;
  const std::size_t start = end == 0 ? 0 : t.bytes.rfind('\n', end - 1) + 1;
  if (t.bytes.compare(start, 9, "checksum ") != 0) return t;
  t.checksum = t.bytes.substr(start, end - start);
  t.checksum_line_no = 1;
  for (std::size_t i = 0; i < start; ++i) t.checksum_line_no += t.bytes[i] == '\n';
  t.body_end = start;
  return t;
}

// One "key value ..." line.
struct Entry {
  std::string key;
  std::vector<std::string> values;
  long line = 0;

  const std::string& one() const {
    if (values.size() != 1) bad(line, "'" + key + "' takes exactly one value");
    return values[0];
  }
  // "key COUNT v1 ... vCOUNT": the values after the count, checked against it.
  std::vector<std::string> counted() const {
    if (values.empty()) bad(line, "'" + key + "' needs a count");
    const Index count =
        integer(values[0], line, 0, static_cast<Index>(values.size()), "'" + key + "' count");
    if (static_cast<Index>(values.size()) != count + 1)
      bad(line, "'" + key + "' count does not match the values given");
    return {values.begin() + 1, values.end()};
  }
};

inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f' || c == '\n';
}

// Whitespace-separated tokens of one line.
inline std::vector<std::string> tokens(const std::string& raw) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < raw.size()) {
    while (i < raw.size() && is_space(raw[i])) ++i;
    const std::size_t b = i;
    while (i < raw.size() && !is_space(raw[i])) ++i;
    if (i > b) out.emplace_back(raw, b, i - b);
  }
  return out;
}

inline Entry split(const std::string& raw, long line) {
  Entry e;
  e.line = line;
  std::vector<std::string> t = tokens(raw);
  if (t.empty()) return e;
  e.key = t[0];
  e.values.assign(t.begin() + 1, t.end());
  return e;
}

// Remembers which keys a reader has seen: a repeated key is an error, and the keys every
// file must carry are checked at the end.
class Seen {
 public:
  void add(const Entry& e) {
    if (!keys_.insert(e.key).second) bad(e.line, "duplicate key '" + e.key + "'");
  }
  bool has(const std::string& key) const { return keys_.count(key) != 0; }
  void require(const std::string& key, long line) const {
    if (!has(key)) bad(line, "missing required key '" + key + "'");
  }
  void require_before(const std::string& key, const Entry& e) const {
    if (!has(key)) bad(e.line, "'" + e.key + "' before '" + key + "'");
  }

 private:
  std::set<std::string> keys_;
};

// Class labels: finite, distinct and strictly increasing as written (the order the
// decision values refer to).
inline std::vector<double> class_labels(const Entry& e) {
  std::vector<double> out;
  for (const auto& t : e.counted()) {
    const double v = number(t, e.line);
    if (!out.empty() && !(v > out.back()))
      bad(e.line, "class labels must be distinct and sorted increasingly ('" + t + "' after " +
                      quote(e.values[out.size()]) + ")");
    out.push_back(v);
  }
  if (out.size() < 2) bad(e.line, "a classification model needs at least two classes");
  return out;
}

// The first content line must be "svmkit_model VERSION" with a version this build reads.
inline void check_header(const Entry& e) {
  if (e.key != "svmkit_model")
    bad(e.line, "not an svmkit model file (missing 'svmkit_model' header)");
  const Index version = integer(e.one(), e.line, 0, kMaxInt, "version");
  if (version != kModelFormatVersion)
    bad(e.line, "unsupported model format version " + std::to_string(version) +
                    " (this build reads version " + std::to_string(kModelFormatVersion) + ")");
}

// An informative name (solver, loss): printable ASCII, as it is handed to Python as str.
inline std::string name(const Entry& e) {
  const std::string& v = e.one();
  if (printable(v) != v) bad(e.line, "'" + e.key + "' must be printable ASCII, got '" + v + "'");
  return v;
}

// The task line: "classification", "regression" or "outlier_detection".
inline std::string task(const Entry& e) {
  const std::string& t = e.one();
  if (!is_model_task(t))
    bad(e.line,
        "task must be 'classification', 'regression' or 'outlier_detection', got " + quote(t));
  return t;
}

// Nothing but comments and blank lines may follow 'end' (the checksum line is cut off
// before parsing).
inline void check_trailer(Lines& lines) {
  std::string raw;
  if (lines.next(raw)) bad(lines.line(), "content after 'end'");
}

}  // namespace svmkit::model_text
