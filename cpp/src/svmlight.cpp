// LIBSVM / SVMlight reader and writer (see svmlight.hpp for the format and the guarantees).
#include "svmkit/svmlight.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <clocale>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <memory>
#include <ostream>
#include <system_error>
#include <type_traits>
#include <variant>

#include "svmkit/detail/parallel.hpp"
#include "text_escape.hpp"

namespace svmkit {

namespace {

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// The whitespace of Python's bytes.split(), which scikit-learn's reader uses.
inline bool is_space(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

const char* token_end(const char* p, const char* e) {
  while (p < e && !is_space(*p)) ++p;
  return p;
}

// Quoted token for error messages, at most 60 bytes, non-ASCII bytes as \xNN.
std::string quote(const char* b, const char* e) {
  return detail::quote(std::string_view(b, static_cast<std::size_t>(e - b)), 60);
}

// A leading '+' is accepted (as Python's int() and float() do) but not "+-" or "++".
inline const char* skip_plus(const char* p, const char* e) {
  if (p < e && *p == '+' && p + 1 < e && p[1] != '+' && p[1] != '-') return p + 1;
  return p;
}

// The value Python's float() gives a decimal number that std::from_chars found out of range:
// +-inf on overflow, +-0 on underflow. strtod decides which, on the token with its '.'
// replaced by the C library's current decimal point (strtod follows LC_NUMERIC: under a
// comma locale "1.5e999" would otherwise stop at the '.' and read 1).
double out_of_range_value(const char* b, const char* e) {
  std::string tok(b, e);
  const char point = *std::localeconv()->decimal_point;
  for (char& c : tok)
    if (c == '.') c = point;
  return std::strtod(tok.c_str(), nullptr);
}

// Parses a double starting at p; returns the end of the number or nullptr when there is no
// number. Out-of-range values become +-inf or 0 as Python's float() gives them.
inline const char* parse_double(const char* p, const char* e, double& v) {
  p = skip_plus(p, e);
  auto r = std::from_chars(p, e, v);
  if (r.ec == std::errc()) return r.ptr;
  if (r.ec == std::errc::result_out_of_range) {
    v = out_of_range_value(p, r.ptr);
    return r.ptr;
  }
  return nullptr;
}

inline const char* parse_int(const char* p, const char* e, std::int64_t& v) {
  p = skip_plus(p, e);
  auto r = std::from_chars(p, e, v);
  if (r.ec != std::errc()) return nullptr;
  return r.ptr;
}

// The rows parsed from one contiguous range of complete lines.
struct Piece {
  std::vector<double> labels;
  std::vector<std::int64_t> row_end;  // entries stored up to the end of each row (local)
  std::vector<std::int64_t> cols;
  std::vector<double> vals;
  std::vector<std::int64_t> qids;
  std::int64_t lines = 0;  // lines consumed, blank and comment lines included
  std::int64_t min_col = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_col = -1;
  bool failed = false;
  std::int64_t error_line = 0;  // 1-based within the piece
  std::string error;
};

// Parses the line [p, e) (comment already cut off). Returns false with `err` set when the
// line is malformed.
bool parse_line(const char* p, const char* e, Piece& out, bool reject_zero, bool keep_qid,
                std::string& err) {
  while (p < e && is_space(*p)) ++p;
  if (p == e) return true;  // blank or comment-only line
  double label = 0.0;
  {
    const char* te = token_end(p, e);
    const char* q = parse_double(p, te, label);
    if (q != te) {
      err = "label " + quote(p, te) + " is not a number";
      return false;
    }
    p = te;
  }
  while (p < e && is_space(*p)) ++p;
  std::int64_t qid = 0;
  if (e - p >= 3 && std::memcmp(p, "qid", 3) == 0) {
    const char* te = token_end(p, e);
    const char* colon =
        static_cast<const char*>(std::memchr(p, ':', static_cast<std::size_t>(te - p)));
    if (colon == nullptr || parse_int(colon + 1, te, qid) != te) {
      err = "expected qid:<integer>, got " + quote(p, te);
      return false;
    }
    p = te;
    while (p < e && is_space(*p)) ++p;
  }
  std::int64_t prev = -1;
  std::int64_t first = -1;
  while (p < e) {
    const char* t = p;
    std::int64_t idx = 0;
    const char* q = parse_int(t, e, idx);
    if (q == nullptr || q == e || *q != ':') {
      const char* te = token_end(t, e);
      const char* colon =
          static_cast<const char*>(std::memchr(t, ':', static_cast<std::size_t>(te - t)));
      if (colon == nullptr)
        err = "expected <index>:<value>, got " + quote(t, te);
      else
        err = "feature index " + quote(t, colon) + " is not an integer (in " + quote(t, te) + ")";
      return false;
    }
    if (idx == std::numeric_limits<std::int64_t>::max()) {
      // The number of features (largest index + 1) must fit in int64.
      err = "feature index " + std::to_string(idx) + " is too large";
      return false;
    }
    if (idx < 0 || (reject_zero && idx == 0)) {
      err =
          "invalid feature index " + std::to_string(idx) +
          (idx < 0 ? " (indices must be non-negative)" : " (index 0 found with zero_based=False)");
      return false;
    }
    if (idx <= prev) {
      err = "feature indices must be sorted and unique: " + std::to_string(idx) + " after " +
            std::to_string(prev);
      return false;
    }
    double v = 0.0;
    const char* ve = parse_double(q + 1, e, v);
    if (ve == nullptr || (ve < e && !is_space(*ve))) {
      const char* te = token_end(t, e);
      err = "feature value " + quote(q + 1, te) + " is not a number (in " + quote(t, te) + ")";
      return false;
    }
    out.cols.push_back(idx);
    out.vals.push_back(v);
    if (first < 0) first = idx;
    prev = idx;
    p = ve;
    while (p < e && is_space(*p)) ++p;
  }
  if (first >= 0) {
    out.min_col = std::min(out.min_col, first);
    out.max_col = std::max(out.max_col, prev);
  }
  out.labels.push_back(label);
  out.row_end.push_back(static_cast<std::int64_t>(out.cols.size()));
  if (keep_qid) out.qids.push_back(qid);
  return true;
}

// Parses the complete lines in [p, end); the range ends right after a newline, or at the end
// of the input (a last line without newline).
void parse_range(const char* p, const char* end, Piece& out, bool reject_zero, bool keep_qid) {
  while (p < end) {
    const char* nl =
        static_cast<const char*>(std::memchr(p, '\n', static_cast<std::size_t>(end - p)));
    const char* line_end = nl ? nl : end;
    const char* next = nl ? nl + 1 : end;
    ++out.lines;
    const char* hash =
        static_cast<const char*>(std::memchr(p, '#', static_cast<std::size_t>(line_end - p)));
    if (hash != nullptr) line_end = hash;
    if (!parse_line(p, line_end, out, reject_zero, keep_qid, out.error)) {
      out.failed = true;
      out.error_line = out.lines;
      return;
    }
    p = next;
  }
}

}  // namespace

Index SvmlightData::n_features() const {
  if (max_index < 0) return 0;
  return shifted ? max_index : max_index + 1;
}

struct SvmlightParser::Impl {
  std::string source;
  SvmlightReadOptions opt;
  std::unique_ptr<char[]> buf;
  std::size_t cap = 0;
  std::size_t len = 0;
  std::size_t no_newline_before = 0;  // buf[0, this) was searched and holds no newline
  std::int64_t lines_done = 0;
  std::vector<Piece> pieces;
  bool finished = false;

  void reserve(std::size_t extra) {
    if (len + extra <= cap) return;
    std::size_t ncap = std::max(cap * 2, len + extra);
    std::unique_ptr<char[]> nb(new char[ncap]);
    if (len > 0) std::memcpy(nb.get(), buf.get(), len);
    buf = std::move(nb);
    cap = ncap;
  }

  // Parses [data, data + n) (complete lines) in parallel parts and appends the pieces in order.
  void parse_block(const char* data, std::size_t n) {
    if (n == 0) return;
    const int threads = resolve_threads(opt.num_threads);
    // More parts than threads, handed out dynamically: a thread that is descheduled (the
    // machine may be shared) holds up the block less. The pieces keep file order, so the
    // result does not depend on which thread parsed which part.
    int parts = threads == 1 ? 1 : 4 * threads;
    if (n < (std::size_t{1} << 18)) parts = 1;  // not worth starting threads
    // Part boundaries: right after the first newline at or past an equal split.
    std::vector<std::size_t> bounds(static_cast<std::size_t>(parts) + 1, n);
    bounds[0] = 0;
    for (int k = 1; k < parts; ++k) {
      std::size_t pos = std::max(bounds[k - 1], n * static_cast<std::size_t>(k) / parts);
      const void* nl = pos < n ? std::memchr(data + pos, '\n', n - pos) : nullptr;
      bounds[k] = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - data) + 1 : n;
    }
    const std::size_t first = pieces.size();
    pieces.resize(first + static_cast<std::size_t>(parts));
    const bool reject_zero = opt.zero_based == ZeroBased::no;
    const bool keep_qid = opt.query_id;
    auto parse_part = [&](int k) {
      Piece& pc = pieces[first + static_cast<std::size_t>(k)];
      const std::size_t lo = bounds[static_cast<std::size_t>(k)];
      const std::size_t hi = bounds[static_cast<std::size_t>(k) + 1];
      parse_range(data + lo, data + hi, pc, reject_zero, keep_qid);
    };
    if (parts == 1) {
      parse_part(0);
    } else {
      RegionErrors errors;  // a bad_alloc in a part is rethrown here, not an abort
#ifdef _OPENMP
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads)
#endif
      for (int k = 0; k < parts; ++k) errors.run(k, [&] { parse_part(k); });
      errors.rethrow();
    }
    // Report the first malformed line in file order (deterministic whatever the threads).
    for (std::size_t k = first; k < pieces.size(); ++k) {
      const Piece& pc = pieces[k];
      if (pc.failed) {
        const std::int64_t line = lines_done + pc.error_line;
        throw Error(ErrorCode::format_error,
                    source + ", line " + std::to_string(line) + ": " + pc.error);
      }
      lines_done += pc.lines;
    }
  }

  // Parses the complete lines in the buffer and keeps the unfinished last one.
  void flush(bool final) {
    if (final) {
      parse_block(buf.get(), len);
      len = 0;
      return;
    }
    std::size_t i = len;
    while (i > no_newline_before && buf[i - 1] != '\n') --i;
    if (i == no_newline_before) {
      no_newline_before = len;  // one long line so far; wait for its end
      return;
    }
    parse_block(buf.get(), i);
    std::memmove(buf.get(), buf.get() + i, len - i);
    len -= i;
    no_newline_before = 0;
  }
};

SvmlightParser::SvmlightParser(std::string source, SvmlightReadOptions options)
    : impl_(std::make_unique<Impl>()) {
  if (options.block_bytes < 1024) throw_invalid("SvmlightReadOptions.block_bytes must be >= 1024");
  impl_->source = std::move(source);
  impl_->opt = options;
}

SvmlightParser::~SvmlightParser() = default;

char* SvmlightParser::prepare(std::size_t n) {
  if (impl_->finished) throw_invalid("SvmlightParser: prepare() after finish()");
  impl_->reserve(n);
  return impl_->buf.get() + impl_->len;
}

void SvmlightParser::commit(std::size_t n) {
  if (impl_->len + n > impl_->cap) throw_invalid("SvmlightParser: commit() beyond prepare()");
  impl_->len += n;
  if (impl_->len >= impl_->opt.block_bytes) impl_->flush(false);
}

void SvmlightParser::feed(const char* data, std::size_t size) {
  if (size == 0) return;
  char* dst = prepare(size);
  std::memcpy(dst, data, size);
  commit(size);
}

std::int64_t SvmlightParser::lines() const {
  return impl_->lines_done;
}

SvmlightData SvmlightParser::finish() {
  if (impl_->finished) throw_invalid("SvmlightParser: finish() called twice");
  impl_->flush(true);
  impl_->finished = true;
  std::vector<Piece>& pieces = impl_->pieces;
  SvmlightData d;
  const std::size_t np = pieces.size();
  std::vector<std::int64_t> row_off(np + 1, 0), nnz_off(np + 1, 0);
  std::int64_t min_col = std::numeric_limits<std::int64_t>::max();
  for (std::size_t k = 0; k < np; ++k) {
    row_off[k + 1] = row_off[k] + static_cast<std::int64_t>(pieces[k].labels.size());
    nnz_off[k + 1] = nnz_off[k] + static_cast<std::int64_t>(pieces[k].cols.size());
    d.max_index = std::max(d.max_index, pieces[k].max_col);
    min_col = std::min(min_col, pieces[k].min_col);
  }
  d.n_rows = row_off[np];
  d.nnz = nnz_off[np];
  d.min_index = d.max_index >= 0 ? min_col : -1;
  d.use_int64 = d.nnz > kInt32Max || d.n_rows > kInt32Max || d.max_index >= kInt32Max;
  const bool single = impl_->opt.single_precision;
  const bool keep_qid = impl_->opt.query_id;
  const auto nnz = static_cast<std::size_t>(d.nnz);
  const auto nrows = static_cast<std::size_t>(d.n_rows);
  d.labels.resize(nrows);
  if (keep_qid) d.qid.resize(nrows);
  if (single)
    d.values32.resize(nnz);
  else
    d.values64.resize(nnz);
  if (d.use_int64) {
    d.indices64.resize(nnz);
    d.indptr64.assign(nrows + 1, 0);
  } else {
    d.indices32.resize(nnz);
    d.indptr32.assign(nrows + 1, 0);
  }
  // Each piece is copied to its own offsets, so the parallel copy is deterministic.
  const int threads = resolve_threads(impl_->opt.num_threads);
  auto copy_piece = [&](std::size_t k) {
    Piece& pc = pieces[k];
    const std::size_t r0 = static_cast<std::size_t>(row_off[k]);
    const std::size_t z0 = static_cast<std::size_t>(nnz_off[k]);
    std::copy(pc.labels.begin(), pc.labels.end(), d.labels.begin() + r0);
    if (keep_qid) std::copy(pc.qids.begin(), pc.qids.end(), d.qid.begin() + r0);
    if (single) {
      for (std::size_t z = 0; z < pc.vals.size(); ++z)
        d.values32[z0 + z] = static_cast<float>(pc.vals[z]);
    } else {
      std::copy(pc.vals.begin(), pc.vals.end(), d.values64.begin() + z0);
    }
    if (d.use_int64) {
      std::copy(pc.cols.begin(), pc.cols.end(), d.indices64.begin() + z0);
      for (std::size_t r = 0; r < pc.row_end.size(); ++r)
        d.indptr64[r0 + r + 1] = static_cast<std::int64_t>(z0) + pc.row_end[r];
    } else {
      for (std::size_t z = 0; z < pc.cols.size(); ++z)
        d.indices32[z0 + z] = static_cast<std::int32_t>(pc.cols[z]);
      for (std::size_t r = 0; r < pc.row_end.size(); ++r)
        d.indptr32[r0 + r + 1] = static_cast<std::int32_t>(z0 + pc.row_end[r]);
    }
    pc = Piece();  // free the piece's memory as soon as it is copied
  };
  parallel_chunks(static_cast<std::int64_t>(np), threads, [&](int, std::int64_t b, std::int64_t e) {
    for (std::int64_t k = b; k < e; ++k) copy_piece(static_cast<std::size_t>(k));
  });
  pieces.clear();
  return d;
}

void finalize_indices(std::vector<SvmlightData*> files, ZeroBased zero_based) {
  bool shift = zero_based == ZeroBased::no;
  if (zero_based == ZeroBased::automatic) {
    shift = !files.empty();
    for (const SvmlightData* f : files)
      if (f->nnz == 0 || f->min_index == 0) shift = false;
  }
  if (!shift) return;
  for (SvmlightData* f : files) {
    if (f->shifted) throw_invalid("finalize_indices: indices were already shifted");
    for (auto& i : f->indices32) --i;
    for (auto& i : f->indices64) --i;
    f->shifted = true;
  }
}

SvmlightData parse_svmlight_file(const std::string& path, const SvmlightReadOptions& options) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) {
    throw Error(ErrorCode::io_error, "cannot open " + path + ": " + std::strerror(errno));
  }
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> guard(f, &std::fclose);
  SvmlightParser parser(path, options);
  const std::size_t step = std::max<std::size_t>(options.block_bytes, 1024);
  for (;;) {
    char* dst = parser.prepare(step);
    const std::size_t n = std::fread(dst, 1, step, f);
    parser.commit(n);
    if (n < step) {
      if (std::ferror(f)) throw Error(ErrorCode::io_error, "error reading " + path);
      break;
    }
  }
  return parser.finish();
}

SvmlightData read_svmlight_file(const std::string& path, const SvmlightReadOptions& options) {
  SvmlightData d = parse_svmlight_file(path, options);
  finalize_indices({&d}, options.zero_based);
  return d;
}

// ---------------------------------------------------------------------------------------------
// Writer

namespace {

inline void put_double(std::string& s, double v) {
  char tmp[40];
  // Shortest text that reads back to the same double (std::to_chars without precision).
  auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
  s.append(tmp, r.ptr);
}

inline void put_int(std::string& s, std::int64_t v) {
  char tmp[24];
  auto r = std::to_chars(tmp, tmp + sizeof(tmp), v);
  s.append(tmp, r.ptr);
}

// CSR rows write their stored entries (explicit zeros included, as scikit-learn does).
template <class T, class I>
void append_row(std::string& s, const CsrView<T, I>& X, Index i, std::int64_t base) {
  std::int64_t prev = -1;
  for (auto k = X.indptr[i]; k < X.indptr[i + 1]; ++k) {
    const auto j = static_cast<std::int64_t>(X.indices[k]);
    if (j <= prev)
      throw_invalid("write_svmlight: CSR row " + std::to_string(i) +
                    " has unsorted or duplicate column indices");
    prev = j;
    s.push_back(' ');
    put_int(s, j + base);
    s.push_back(':');
    put_double(s, static_cast<double>(X.data[k]));
  }
}

// Dense rows write their non-zero entries.
template <class View>
void append_row(std::string& s, const View& X, Index i, std::int64_t base) {
  for_each_in_row(X, i, [&](Index j, double v) {
    if (v == 0.0) return;
    s.push_back(' ');
    put_int(s, static_cast<std::int64_t>(j) + base);
    s.push_back(':');
    put_double(s, v);
  });
}

}  // namespace

void write_svmlight(std::ostream& out, const MatrixView& X, const double* y,
                    const std::int64_t* qid, Index row_begin, Index row_end,
                    const SvmlightWriteOptions& options) {
  const Index n = rows_of(X);
  if (row_begin < 0 || row_end > n || row_begin > row_end)
    throw_invalid("write_svmlight: row range out of bounds");
  if (y == nullptr && row_end > row_begin) throw_invalid("write_svmlight: labels are missing");
  if (options.comment.find('\0') != std::string::npos)
    throw_invalid("write_svmlight: the comment contains a NUL byte");
  std::string s;
  if (row_begin == 0 && !options.comment.empty()) {
    std::size_t pos = 0;
    while (pos <= options.comment.size()) {
      std::size_t nl = options.comment.find('\n', pos);
      if (nl == std::string::npos) nl = options.comment.size();
      std::string line = options.comment.substr(pos, nl - pos);
      if (!line.empty() && line.back() == '\r') line.pop_back();
      s += "# " + line + "\n";
      pos = nl + 1;
    }
  }
  const std::int64_t base = options.zero_based ? 0 : 1;
  std::visit(
      [&](const auto& V) {
        for (Index i = row_begin; i < row_end; ++i) {
          put_double(s, y[i]);
          if (qid != nullptr) {
            s += " qid:";
            put_int(s, qid[i]);
          }
          append_row(s, V, i, base);
          s.push_back('\n');
          if (s.size() > (std::size_t{1} << 20)) {
            out.write(s.data(), static_cast<std::streamsize>(s.size()));
            s.clear();
          }
        }
      },
      X);
  out.write(s.data(), static_cast<std::streamsize>(s.size()));
}

void write_svmlight_file(const std::string& path, const MatrixView& X, const double* y,
                         const std::int64_t* qid, const SvmlightWriteOptions& options) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out)
    throw Error(ErrorCode::io_error,
                "cannot open " + path + " for writing: " + std::strerror(errno));
  write_svmlight(out, X, y, qid, 0, rows_of(X), options);
  out.flush();
  if (!out) throw Error(ErrorCode::io_error, "error writing " + path);
}

}  // namespace svmkit
