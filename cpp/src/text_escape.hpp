// Quoting a file's bytes in an error message, shared by the LIBSVM reader (svmlight.cpp) and
// the model-file readers (model_text.hpp). Internal to the library.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace svmkit::detail {

// Bytes outside printable ASCII are written as \xNN: a corrupt file's bytes quoted in a
// message must still make valid UTF-8, else Python raises UnicodeDecodeError instead of the
// reader's own error naming the line.
inline std::string printable(std::string_view s) {
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const unsigned char c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f) {
      out += ch;
    } else {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

// 'token' in quotes, made printable and cut to max_len bytes ("..." marks the cut: a
// malformed line can be very long).
inline std::string quote(std::string_view tok, std::size_t max_len) {
  const bool cut = tok.size() > max_len;
  const std::string_view shown = cut ? tok.substr(0, max_len - 3) : tok;
  return "'" + printable(shown) + (cut ? "...'" : "'");
}

}  // namespace svmkit::detail
