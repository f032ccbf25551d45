// The pieces the model-file readers share (model.cpp for "kind linear", kernel_model.cpp for
// "kind kernel"): line reading with comments and CRLF, "key value ..." lines, and number
// parsing whose errors name the line. Internal to the library.
#pragma once

#include <cmath>
#include <istream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/model.hpp"
#include "svmkit/status.hpp"

namespace svmkit::model_text {

[[noreturn]] inline void bad(long line, const std::string& what) {
  throw Error(ErrorCode::format_error, "model file line " + std::to_string(line) + ": " + what);
}

// A finite number (nan and inf are rejected: a model with them cannot predict).
inline double number(const std::string& tok, long line) {
  double v = 0.0;
  std::size_t used = 0;
  try {
    v = std::stod(tok, &used);
  } catch (const std::logic_error&) {
    bad(line, "'" + tok + "' is not a number");
  }
  if (used != tok.size()) bad(line, "'" + tok + "' is not a number");
  if (!std::isfinite(v)) bad(line, "'" + tok + "' is not a finite number");
  return v;
}

inline Index integer(const std::string& tok, long line) {
  const double v = number(tok, line);
  if (v != std::floor(v)) bad(line, "'" + tok + "' is not an integer");
  return static_cast<Index>(v);
}

// Reads the lines that carry content: blank lines and '#' comments are skipped, a trailing
// CR (CRLF files) is dropped, and the 1-based number of the last line read is kept.
class Lines {
 public:
  explicit Lines(std::istream& in) : in_(in) {}
  bool next(std::string& s) {
    while (std::getline(in_, s)) {
      ++line_;
      if (!s.empty() && s.back() == '\r') s.pop_back();
      if (s.empty() || s[0] == '#') continue;
      return true;
    }
    return false;
  }
  long line() const { return line_; }

 private:
  std::istream& in_;
  long line_ = 0;
};

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
    const Index count = integer(values[0], line);
    if (static_cast<Index>(values.size()) != count + 1)
      bad(line, "'" + key + "' count does not match the values given");
    return {values.begin() + 1, values.end()};
  }
};

inline Entry split(const std::string& raw, long line) {
  Entry e;
  e.line = line;
  std::istringstream ls(raw);
  ls >> e.key;
  for (std::string t; ls >> t;) e.values.push_back(t);
  return e;
}

// The first content line must be "svmkit_model VERSION" with a version this build reads.
inline void check_header(const Entry& e) {
  if (e.key != "svmkit_model")
    bad(e.line, "not an svmkit model file (missing 'svmkit_model' header)");
  const Index version = integer(e.one(), e.line);
  if (version != kModelFormatVersion)
    bad(e.line, "unsupported model format version " + std::to_string(version) +
                    " (this build reads version " + std::to_string(kModelFormatVersion) + ")");
}

}  // namespace svmkit::model_text
