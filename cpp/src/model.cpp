#include "svmkit/model.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include "model_text.hpp"
#include "svmkit/detail/parallel.hpp"

namespace svmkit {

void validate_model(const LinearModel& m) {
  if (!is_model_task(m.task))
    throw_invalid(
        "model task must be 'classification', 'regression' or 'outlier_detection', got '" + m.task +
        "'");
  if (m.n_features <= 0) throw_invalid("model n_features must be positive");
  if (m.n_rows <= 0) throw_invalid("model n_rows must be positive");
  // Overflow-safe: n_rows * n_features is formed only when it cannot overflow.
  if (m.n_features > std::numeric_limits<Index>::max() / m.n_rows ||
      static_cast<Index>(m.coef.size()) != m.n_rows * m.n_features)
    throw_invalid("model coef has " + std::to_string(m.coef.size()) + " values, expected " +
                  std::to_string(m.n_rows) + " x " + std::to_string(m.n_features));
  if (static_cast<Index>(m.intercept.size()) != m.n_rows)
    throw_invalid("model intercept has " + std::to_string(m.intercept.size()) +
                  " values, expected " + std::to_string(m.n_rows));
  if (m.task == "classification") {
    const Index k = static_cast<Index>(m.classes.size());
    if (k < 2) throw_invalid("a classification model needs at least two classes");
    if (!((k == 2 && m.n_rows == 1) || (k > 2 && m.n_rows == k)))
      throw_invalid(
          "model with " + std::to_string(k) + " classes must have " +
          (k == 2 ? std::string("1 weight vector") : std::to_string(k) + " weight vectors"));
  } else if (m.n_rows != 1) {
    throw_invalid("a " + m.task + " model has exactly one weight vector");
  }
}

void decision_function(const LinearModel& m, const MatrixView& X, double* out, int n_threads) {
  validate_model(m);
  if (cols_of(X) != m.n_features)
    throw_invalid("X has " + std::to_string(cols_of(X)) + " features, but the model expects " +
                  std::to_string(m.n_features));
  const int nt = resolve_threads(n_threads);
  const Index k = m.n_rows;
  std::visit(
      [&](const auto& V) {
        parallel_for(V.rows, nt, [&](Index i) {
          for (Index r = 0; r < k; ++r)
            out[i * k + r] = row_dot(V, i, m.coef.data() + r * m.n_features) + m.intercept[r];
        });
      },
      X);
}

std::vector<Index> predict_class_indices(const LinearModel& m, const MatrixView& X, int n_threads) {
  const Index n = rows_of(X), k = m.n_rows;
  std::vector<double> dec(static_cast<std::size_t>(n * k));
  decision_function(m, X, dec.data(), n_threads);
  std::vector<Index> idx(static_cast<std::size_t>(n));
  for (Index i = 0; i < n; ++i) {
    if (k == 1) {
      idx[i] = dec[i] > 0.0 ? 1 : 0;
    } else {
      Index best = 0;
      for (Index r = 1; r < k; ++r)
        if (dec[i * k + r] > dec[i * k + best]) best = r;
      idx[i] = best;
    }
  }
  return idx;
}

std::vector<double> predict(const LinearModel& m, const MatrixView& X, int n_threads) {
  if (m.task != "classification") {
    std::vector<double> dec(static_cast<std::size_t>(rows_of(X)));
    decision_function(m, X, dec.data(), n_threads);
    if (m.task == "outlier_detection")
      for (double& v : dec) v = v > 0 ? 1.0 : -1.0;
    return dec;
  }
  const std::vector<Index> idx = predict_class_indices(m, X, n_threads);
  std::vector<double> labels(idx.size());
  for (std::size_t i = 0; i < idx.size(); ++i) labels[i] = m.classes[idx[i]];
  return labels;
}

void write_model(const LinearModel& m, std::ostream& dest) {
  validate_model(m);
  std::ostringstream out;
  model_text::prepare_stream(out);
  out << "svmkit_model " << kModelFormatVersion << "\n";
  out << "kind linear\n";
  out << "task " << m.task << "\n";
  out << "solver " << (m.solver.empty() ? "unknown" : m.solver) << "\n";
  out << "loss " << (m.loss.empty() ? "unknown" : m.loss) << "\n";
  out << "n_features " << m.n_features << "\n";
  if (m.task == "classification") {
    out << "classes " << m.classes.size();
    for (double c : m.classes) out << ' ' << c;
    out << "\n";
  }
  out << "intercept_scaling " << m.intercept_scaling << "\n";
  out << "n_rows " << m.n_rows << "\n";
  out << "intercept";
  for (double b : m.intercept) out << ' ' << b;
  out << "\ncoef\n";
  for (Index r = 0; r < m.n_rows; ++r) {
    for (Index j = 0; j < m.n_features; ++j) out << (j ? " " : "") << m.coef[r * m.n_features + j];
    out << "\n";
  }
  out << "end\n";
  const std::string body = out.str();
  dest << body << model_text::checksum_line(body);
  if (!dest) throw Error(ErrorCode::io_error, "failed to write the model");
}

namespace {

// The "coef" block: n_rows lines of n_features values, sized against the file first.
void read_coef(model_text::Lines& lines, const model_text::Entry& e, LinearModel& m) {
  using model_text::bad;
  const Index total =
      model_text::checked_product(m.n_rows, m.n_features, model_text::kMaxIndex, e.line, "coef");
  lines.check_fits(total, "coef");
  m.coef.reserve(static_cast<std::size_t>(total));
  std::string raw;
  for (Index r = 0; r < m.n_rows; ++r) {
    if (!lines.next(raw)) bad(lines.line(), "file ends inside 'coef'");
    const auto toks = model_text::tokens(raw);
    if (static_cast<Index>(toks.size()) != m.n_features)
      bad(lines.line(), "coef row has " + std::to_string(toks.size()) + " values, expected " +
                            std::to_string(m.n_features));
    for (const auto& t : toks) m.coef.push_back(model_text::number(t, lines.line()));
  }
}

}  // namespace

LinearModel read_model(std::istream& in) {
  using model_text::bad;
  using model_text::number;
  const model_text::Text text = model_text::slurp(in);
  LinearModel m;
  model_text::Lines lines(text.bytes, text.body_end);
  model_text::Seen seen;
  std::string raw;
  bool header = false, done = false;
  while (!done && lines.next(raw)) {
    const model_text::Entry e = model_text::split(raw, lines.line());
    const long line = e.line;
    if (!header) {
      model_text::check_header(e);
      header = true;
      continue;
    }
    seen.add(e);
    if (e.key == "kind") {
      if (e.one() != "linear")
        bad(line, "model kind '" + e.values[0] + "' is not supported by this reader");
    } else if (e.key == "task") {
      m.task = model_text::task(e);
    } else if (e.key == "solver") {
      m.solver = model_text::name(e);
    } else if (e.key == "loss") {
      m.loss = model_text::name(e);
    } else if (e.key == "n_features") {
      m.n_features = model_text::integer(e.one(), line, 1, model_text::kMaxIndex, "n_features");
    } else if (e.key == "classes") {
      m.classes = model_text::class_labels(e);
    } else if (e.key == "intercept_scaling") {
      m.intercept_scaling = number(e.one(), line);
    } else if (e.key == "n_rows") {
      m.n_rows = model_text::integer(e.one(), line, 1, model_text::kMaxIndex, "n_rows");
    } else if (e.key == "intercept") {
      for (const auto& t : e.values) m.intercept.push_back(number(t, line));
    } else if (e.key == "coef") {
      seen.require_before("n_rows", e);
      seen.require_before("n_features", e);
      read_coef(lines, e, m);
    } else if (e.key == "end") {
      done = true;
    } else {
      bad(line, "unknown key '" + e.key + "'");
    }
  }
  if (!header) throw Error(ErrorCode::format_error, "empty model file");
  if (!done) bad(lines.line(), "missing 'end'");
  model_text::check_trailer(lines);
  for (const char* key : {"kind", "task", "n_features", "n_rows", "intercept", "coef"})
    seen.require(key, lines.line());
  if (m.task == "classification") seen.require("classes", lines.line());
  if (m.task != "classification" && seen.has("classes"))
    bad(lines.line(), "a " + m.task + " model has no 'classes'");
  try {
    validate_model(m);
  } catch (const Error& e) {
    throw Error(ErrorCode::format_error,
                "inconsistent model file: " + model_text::printable(e.what()));
  }
  text.verify();
  return m;
}

void save_model(const LinearModel& m, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw Error(ErrorCode::io_error, "cannot open '" + path + "' for writing");
  write_model(m, out);
}

LinearModel load_model(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::io_error, "cannot open model file '" + path + "'");
  return read_model(in);
}

}  // namespace svmkit
