// Reading and writing the LIBSVM / SVMlight text format.
//
// One sample per line:  <label> [qid:<int>] <index>:<value> <index>:<value> ...  [# comment]
// Everything from '#' to the end of the line is a comment; blank lines are skipped; tokens are
// separated by any ASCII whitespace (so CRLF line ends work); the last line may lack its
// newline. Indices must be non-negative and strictly increasing within a line (as LIBSVM and
// scikit-learn require). The result matches scikit-learn's load_svmlight_file: CSR with sorted
// indices, explicit zeros kept, float64 labels.
//
// The parser is streaming: bytes are fed in any pieces (a plain file read by read_svmlight_file,
// or decompressed bytes pushed from Python) and complete lines are parsed in blocks of a few MB.
// Each block is split at line boundaries into one part per thread and parsed in parallel; the
// parts are concatenated in file order, so the output does not depend on the thread count.
// A malformed line throws Error(format_error) naming the source and the 1-based line number
// (bytes outside printable ASCII are quoted as \xNN). Numbers are parsed independently of the
// C locale (LC_NUMERIC); an index of 2^63 - 1 or more is refused (n_features must fit int64).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/status.hpp"

namespace svmkit {

// How feature indices in the file are numbered.
enum class ZeroBased {
  automatic,  // as scikit-learn: one-based (shifted down by one) unless an index 0 appears
  yes,        // indices are used as they are
  no,         // indices start at 1 and are shifted down by one; an index 0 is an error
};

// Options of the reader.
struct SvmlightReadOptions {
  // Store feature values as float32 instead of float64 (labels are always float64). Values
  // are parsed as double and then rounded, as scikit-learn does.
  bool single_precision = false;
  // Only used to reject index 0 while parsing (ZeroBased::no); the shift itself is applied by
  // finalize_indices (read_svmlight_file does it), so that several files can share a decision.
  ZeroBased zero_based = ZeroBased::automatic;
  // Keep the qid of each line (0 for lines without one).
  bool query_id = false;
  // Bytes collected before a block of complete lines is parsed (a few MB amortizes the
  // thread start-up and keeps memory for the pending text small).
  std::size_t block_bytes = std::size_t{8} << 20;
  // OpenMP threads used to parse a block (<= 0: all available).
  int num_threads = 0;
};

// A parsed file in CSR form. Exactly one of values64/values32 is filled (single_precision),
// and exactly one of the index pairs (use_int64 tells which): 32-bit indices when the number
// of stored entries, rows and columns all fit, as scipy would choose.
struct SvmlightData {
  Index n_rows = 0;
  std::int64_t nnz = 0;
  // Largest and smallest feature index as written in the file (-1 / -1 when no entry), before
  // any zero-based shift.
  std::int64_t max_index = -1;
  std::int64_t min_index = -1;
  // True once finalize_indices shifted indices down by one.
  bool shifted = false;
  std::vector<double> labels;     // n_rows
  std::vector<std::int64_t> qid;  // n_rows when requested, else empty
  std::vector<double> values64;   // nnz values (double precision)
  std::vector<float> values32;    // nnz values (single precision)
  bool use_int64 = false;
  std::vector<std::int32_t> indices32, indptr32;  // column indices (nnz) and row pointers
  std::vector<std::int64_t> indices64, indptr64;  // (n_rows + 1), 64-bit variant
  // Number of features after finalize_indices: max index + 1 (after the shift, if any).
  Index n_features() const;
};

// Incremental parser. Feed the bytes of one file in order, then call finish() once.
class SvmlightParser {
 public:
  // `source` names the file in error messages.
  SvmlightParser(std::string source, SvmlightReadOptions options);
  ~SvmlightParser();
  SvmlightParser(const SvmlightParser&) = delete;
  SvmlightParser& operator=(const SvmlightParser&) = delete;

  // Appends bytes; parses every complete line once block_bytes have accumulated.
  void feed(const char* data, std::size_t size);
  // Zero-copy variant of feed: prepare(n) returns room for n bytes, commit(k <= n) adds the
  // k bytes written there.
  char* prepare(std::size_t n);
  void commit(std::size_t n);
  // Parses what is left (a last line without newline included) and returns the data with the
  // indices as written in the file (no zero-based shift; see finalize_indices).
  SvmlightData finish();

  // Lines fully consumed so far (for progress reports).
  std::int64_t lines() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Applies the zero-based rule to one or more files read together: with ZeroBased::no, or
// automatic when every file has entries and none has an index 0, indices are shifted down by
// one in all of them (as scikit-learn's load_svmlight_files).
void finalize_indices(std::vector<SvmlightData*> files, ZeroBased zero_based);

// Parses a plain (uncompressed) file, leaving indices as written (see finalize_indices).
// Throws Error(io_error) when it cannot be read and Error(format_error) on a malformed line.
SvmlightData parse_svmlight_file(const std::string& path, const SvmlightReadOptions& options);

// Reads a plain (uncompressed) file. Throws Error(io_error) when it cannot be read and
// Error(format_error) on a malformed line. Indices are finalized for this file alone.
SvmlightData read_svmlight_file(const std::string& path, const SvmlightReadOptions& options);

// Options of the writer.
struct SvmlightWriteOptions {
  bool zero_based = false;  // write indices starting at 0 (true) or 1 (false, as LIBSVM)
  std::string comment;      // written first, each line prefixed by "# " (may be empty)
};

// Writes rows [row_begin, row_end) of X with labels y (and qid, when not null) in the text
// format. Dense rows write their non-zero entries; CSR rows write their stored entries, whose
// indices must be strictly increasing. Numbers use the shortest text that reads back to the
// same double. The comment is written only when row_begin == 0.
void write_svmlight(std::ostream& out, const MatrixView& X, const double* y,
                    const std::int64_t* qid, Index row_begin, Index row_end,
                    const SvmlightWriteOptions& options);

// Writes the whole of X to a file (Error(io_error) when it cannot be written).
void write_svmlight_file(const std::string& path, const MatrixView& X, const double* y,
                         const std::int64_t* qid, const SvmlightWriteOptions& options);

}  // namespace svmkit
