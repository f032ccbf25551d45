// Kernel models: validation, prediction (one-vs-one voting) and the "kind kernel" text format.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "model_text.hpp"
#include "svmkit/detail/parallel.hpp"
#include "svmkit/model.hpp"

namespace svmkit {

void validate_model(const KernelModel& m) {
  if (!is_model_task(m.task))
    throw_invalid(
        "model task must be 'classification', 'regression' or 'outlier_detection', got '" + m.task +
        "'");
  validate_kernel(m.kernel);
  if (m.n_features <= 0) throw_invalid("model n_features must be positive");
  if (m.n_sv < 0) throw_invalid("model n_sv must be >= 0");
  const Index rows = m.task != "classification" ? 1 : std::max<Index>(1, m.n_classes() - 1);
  if (m.task == "classification") {
    if (m.n_classes() < 2) throw_invalid("a classification model needs at least two classes");
    if (static_cast<Index>(m.n_support.size()) != m.n_classes())
      throw_invalid("model n_support must have one entry per class");
    Index total = 0;
    for (Index c : m.n_support) {
      if (c < 0) throw_invalid("model n_support entries must be >= 0");
      total += c;
    }
    if (total != m.n_sv) throw_invalid("model n_support does not add up to n_sv");
  }
  // Sizes are compared by division so that a huge declared size cannot overflow.
  const auto size_is = [](std::size_t size, Index a, Index b) {
    return a == 0 || b == 0 ? size == 0
                            : size % static_cast<std::size_t>(a) == 0 &&
                                  static_cast<Index>(size / static_cast<std::size_t>(a)) == b;
  };
  if (!size_is(m.dual_coef.size(), rows, m.n_sv))
    throw_invalid("model dual_coef has " + std::to_string(m.dual_coef.size()) +
                  " values, expected " + std::to_string(rows) + " x " + std::to_string(m.n_sv));
  if (static_cast<Index>(m.intercept.size()) != m.n_pairs())
    throw_invalid("model intercept has " + std::to_string(m.intercept.size()) +
                  " values, expected " + std::to_string(m.n_pairs()));
  if (!m.prob_a.empty() || !m.prob_b.empty()) {
    if (static_cast<Index>(m.prob_a.size()) != m.n_pairs() ||
        static_cast<Index>(m.prob_b.size()) != m.n_pairs())
      throw_invalid("model prob_a/prob_b must have one value per class pair");
  }
  if (!(m.nu >= 0.0 && m.nu <= 1.0))
    throw_invalid("model nu must be in [0, 1] (0: not a nu formulation)");
  if (!(m.prob_sigma >= 0.0 && std::isfinite(m.prob_sigma)))
    throw_invalid("model prob_sigma must be a finite positive number");
  if (m.prob_sigma > 0.0 && m.task != "regression")
    throw_invalid("model prob_sigma belongs to a regression model");
  if (!m.prob_density_marks.empty()) {
    if (m.task != "outlier_detection")
      throw_invalid("model prob_density_marks belong to an outlier_detection model");
    if (static_cast<int>(m.prob_density_marks.size()) != kOneClassMarks)
      throw_invalid("model prob_density_marks must have " + std::to_string(kOneClassMarks) +
                    " values");
    for (std::size_t i = 0; i < m.prob_density_marks.size(); ++i)
      if (!std::isfinite(m.prob_density_marks[i]) ||
          (i > 0 && m.prob_density_marks[i] < m.prob_density_marks[i - 1]))
        throw_invalid("model prob_density_marks must be finite and nondecreasing");
  }
  if (m.kernel.kind == KernelKind::precomputed) {
    if (static_cast<Index>(m.support.size()) != m.n_sv)
      throw_invalid("a precomputed-kernel model needs the support indices");
    for (Index s : m.support)
      if (s < 0 || s >= m.n_features) throw_invalid("model support index out of range");
    return;
  }
  if (!m.support.empty() && static_cast<Index>(m.support.size()) != m.n_sv)
    throw_invalid("model support has the wrong length");
  if (m.sparse) {
    if (static_cast<Index>(m.sv_indptr.size()) != m.n_sv + 1 || m.sv_indptr[0] != 0)
      throw_invalid("model sparse support vectors: bad indptr");
    for (Index i = 0; i < m.n_sv; ++i)
      if (m.sv_indptr[i + 1] < m.sv_indptr[i]) throw_invalid("model sparse indptr decreases");
    if (static_cast<Index>(m.sv_indices.size()) != m.sv_indptr[m.n_sv] ||
        m.sv_data.size() != m.sv_indices.size())
      throw_invalid("model sparse support vectors: bad sizes");
    for (Index j : m.sv_indices)
      if (j < 0 || j >= m.n_features) throw_invalid("model sparse column index out of range");
  } else if (!size_is(m.sv_dense.size(), m.n_sv, m.n_features)) {
    throw_invalid("model support vectors have the wrong size");
  }
}

namespace {

template <class Fn>
void with_sv_view(const KernelModel& m, Fn&& fn) {
  if (m.sparse) {
    fn(CsrView<double, std::int64_t>{
        m.sv_data.data(), reinterpret_cast<const std::int64_t*>(m.sv_indices.data()),
        reinterpret_cast<const std::int64_t*>(m.sv_indptr.data()), m.n_sv, m.n_features});
  } else {
    fn(DenseRowMajorView<double>{m.sv_dense.data(), m.n_sv, m.n_features, m.n_features});
  }
}

}  // namespace

void decision_function(const KernelModel& m, const MatrixView& X, double* out, int n_threads) {
  validate_model(m);
  if (cols_of(X) != m.n_features)
    throw_invalid("X has " + std::to_string(cols_of(X)) + " features, but the model expects " +
                  std::to_string(m.n_features) +
                  (m.kernel.kind == KernelKind::precomputed ? " (training samples)" : ""));
  const int nt = resolve_threads(n_threads);
  const Index n = rows_of(X), nsv = m.n_sv, pairs = m.n_pairs();
  const bool multi = m.task == "classification" && m.n_classes() > 2;
  std::vector<Index> start;
  if (multi) {
    start.assign(static_cast<std::size_t>(m.n_classes() + 1), 0);
    for (Index c = 0; c < m.n_classes(); ++c) start[c + 1] = start[c] + m.n_support[c];
  }
  const Index* cols = m.kernel.kind == KernelKind::precomputed ? m.support.data() : nullptr;
  std::visit(
      [&](const auto& A) {
        with_sv_view(m, [&](const auto& B) {
          using VA = std::decay_t<decltype(A)>;
          using VB = std::decay_t<decltype(B)>;
          KernelEvaluator<VA, VB> ev(A, B, m.kernel, 1);
          // Split rows between threads only when there is enough work to pay for the region.
          const double work = static_cast<double>(n) * static_cast<double>(nsv + 1) *
                              static_cast<double>(m.n_features + 24);
          const int chunks =
              work < 2.5e5 ? 1 : static_cast<int>(std::max<Index>(1, std::min<Index>(nt, n / 16)));
          parallel_chunks(n, chunks, [&](int, Index b, Index e) {
            auto scratch = ev.make_scratch();
            std::vector<double> k(static_cast<std::size_t>(nsv));
            for (Index i = b; i < e; ++i) {
              ev.row_serial(i, cols, 0, nsv, k.data(), scratch);
              if (!multi) {
                double s = m.intercept[0];
                for (Index t = 0; t < nsv; ++t) s += m.dual_coef[t] * k[t];
                out[i] = s;
                continue;
              }
              Index p = 0;
              for (Index a = 0; a < m.n_classes(); ++a) {
                for (Index c = a + 1; c < m.n_classes(); ++c, ++p) {
                  double s = m.intercept[p];
                  const double* ca = m.dual_coef.data() + (c - 1) * nsv;
                  const double* cc = m.dual_coef.data() + a * nsv;
                  for (Index t = start[a]; t < start[a + 1]; ++t) s += ca[t] * k[t];
                  for (Index t = start[c]; t < start[c + 1]; ++t) s += cc[t] * k[t];
                  out[i * pairs + p] = s;
                }
              }
            }
          });
        });
      },
      X);
}

std::vector<Index> predict_class_indices(const KernelModel& m, const MatrixView& X, int n_threads) {
  if (m.task != "classification") throw_invalid("predict_class_indices needs a classifier");
  const Index n = rows_of(X), pairs = m.n_pairs(), k = m.n_classes();
  std::vector<double> dec(static_cast<std::size_t>(n * pairs));
  decision_function(m, X, dec.data(), n_threads);
  std::vector<Index> idx(static_cast<std::size_t>(n));
  std::vector<Index> votes(static_cast<std::size_t>(k));
  for (Index i = 0; i < n; ++i) {
    if (k == 2) {
      idx[i] = dec[i] > 0.0 ? 1 : 0;
      continue;
    }
    std::fill(votes.begin(), votes.end(), 0);
    Index p = 0;
    for (Index a = 0; a < k; ++a)
      for (Index c = a + 1; c < k; ++c, ++p) ++votes[dec[i * pairs + p] > 0.0 ? a : c];
    idx[i] = std::max_element(votes.begin(), votes.end()) - votes.begin();
  }
  return idx;
}

std::vector<double> predict(const KernelModel& m, const MatrixView& X, int n_threads) {
  if (m.task != "classification") {
    std::vector<double> dec(static_cast<std::size_t>(rows_of(X)));
    decision_function(m, X, dec.data(), n_threads);
    if (m.task == "outlier_detection")
      for (double& v : dec) v = v > 0 ? 1.0 : -1.0;
    return dec;
  }
  const auto idx = predict_class_indices(m, X, n_threads);
  std::vector<double> labels(idx.size());
  for (std::size_t i = 0; i < idx.size(); ++i) labels[i] = m.classes[idx[i]];
  return labels;
}

void ovo_to_ovr(const double* ovo, Index n, Index k, double* out) {
  const Index pairs = k * (k - 1) / 2;
  std::vector<double> votes(static_cast<std::size_t>(k)), conf(static_cast<std::size_t>(k));
  for (Index i = 0; i < n; ++i) {
    std::fill(votes.begin(), votes.end(), 0.0);
    std::fill(conf.begin(), conf.end(), 0.0);
    Index p = 0;
    for (Index a = 0; a < k; ++a)
      for (Index c = a + 1; c < k; ++c, ++p) {
        const double d = ovo[i * pairs + p];
        conf[a] += d;
        conf[c] -= d;
        votes[d > 0.0 ? a : c] += 1.0;
      }
    for (Index a = 0; a < k; ++a)
      out[i * k + a] = votes[a] + conf[a] / (3.0 * (std::fabs(conf[a]) + 1.0));
  }
}

void write_model(const KernelModel& m, std::ostream& dest) {
  validate_model(m);
  std::ostringstream out;
  model_text::prepare_stream(out);
  out << "svmkit_model " << kModelFormatVersion << "\n";
  out << "kind kernel\n";
  out << "task " << m.task << "\n";
  out << "solver " << (m.solver.empty() ? "unknown" : m.solver) << "\n";
  out << "loss " << (m.loss.empty() ? "unknown" : m.loss) << "\n";
  out << "kernel " << to_string(m.kernel.kind) << "\n";
  out << "gamma " << m.kernel.gamma << "\ncoef0 " << m.kernel.coef0 << "\ndegree "
      << m.kernel.degree << "\n";
  out << "n_features " << m.n_features << "\n";
  if (m.task == "classification") {
    out << "classes " << m.classes.size();
    for (double c : m.classes) out << ' ' << c;
    out << "\n";
  }
  out << "n_sv " << m.n_sv << "\n";
  if (m.task == "classification") {
    out << "n_support " << m.n_support.size();
    for (Index c : m.n_support) out << ' ' << c;
    out << "\n";
  }
  const auto list = [&](const char* key, const std::vector<double>& v) {
    out << key;
    for (double x : v) out << ' ' << x;
    out << "\n";
  };
  list("intercept", m.intercept);
  if (!m.prob_a.empty()) {
    list("prob_a", m.prob_a);
    list("prob_b", m.prob_b);
  }
  if (m.nu > 0.0) out << "nu " << m.nu << "\n";
  if (m.prob_sigma > 0.0) out << "prob_sigma " << m.prob_sigma << "\n";
  if (!m.prob_density_marks.empty()) list("prob_density_marks", m.prob_density_marks);
  if (!m.support.empty()) {
    out << "support " << m.support.size();
    for (Index s : m.support) out << ' ' << s;
    out << "\n";
  }
  out << "storage " << (m.sparse ? "sparse" : "dense") << "\n";
  const Index rows = static_cast<Index>(m.dual_coef.size()) / std::max<Index>(1, m.n_sv);
  out << "dual_coef\n";
  for (Index r = 0; r < (m.n_sv > 0 ? rows : 0); ++r) {
    for (Index t = 0; t < m.n_sv; ++t) out << (t ? " " : "") << m.dual_coef[r * m.n_sv + t];
    out << "\n";
  }
  if (m.kernel.kind != KernelKind::precomputed) {
    out << "sv\n";
    for (Index t = 0; t < m.n_sv; ++t) {
      if (m.sparse) {
        for (Index k = m.sv_indptr[t]; k < m.sv_indptr[t + 1]; ++k)
          out << (k > m.sv_indptr[t] ? " " : "") << m.sv_indices[k] << ':' << m.sv_data[k];
      } else {
        for (Index j = 0; j < m.n_features; ++j)
          out << (j ? " " : "") << m.sv_dense[t * m.n_features + j];
      }
      out << "\n";
    }
  }
  out << "end\n";
  const std::string body = out.str();
  dest << body << model_text::checksum_line(body);
  if (!dest) throw Error(ErrorCode::io_error, "failed to write the model");
}

namespace {

using model_text::bad;
using model_text::Entry;
using model_text::kMaxIndex;
using model_text::kMaxInt;

std::vector<double> numbers(const Entry& e) {
  std::vector<double> v;
  for (const auto& t : e.values) v.push_back(model_text::number(t, e.line));
  return v;
}

std::vector<Index> indices(const Entry& e, const std::string& what) {
  std::vector<Index> v;
  for (const auto& t : e.counted()) v.push_back(model_text::integer(t, e.line, 0, kMaxInt, what));
  return v;
}

// The one-line keys; false when `e` is not one of them.
bool read_scalar_key(const Entry& e, KernelModel& m) {
  const std::string& key = e.key;
  if (key == "kind") {
    if (e.one() != "kernel") bad(e.line, "expected 'kind kernel'");
  } else if (key == "task") {
    m.task = model_text::task(e);
  } else if (key == "solver") {
    m.solver = model_text::name(e);
  } else if (key == "loss") {
    m.loss = model_text::name(e);
  } else if (key == "kernel") {
    try {
      m.kernel.kind = kernel_kind_from_string(e.one());
    } catch (const Error& err) {
      bad(e.line, err.what());
    }
  } else if (key == "gamma") {
    m.kernel.gamma = model_text::number(e.one(), e.line);
  } else if (key == "coef0") {
    m.kernel.coef0 = model_text::number(e.one(), e.line);
  } else if (key == "degree") {
    m.kernel.degree = static_cast<int>(model_text::integer(e.one(), e.line, 0, kMaxInt, "degree"));
  } else if (key == "n_features") {
    m.n_features = model_text::integer(e.one(), e.line, 1, kMaxIndex, "n_features");
  } else if (key == "classes") {
    m.classes = model_text::class_labels(e);
  } else if (key == "n_sv") {
    m.n_sv = model_text::integer(e.one(), e.line, 0, kMaxInt, "n_sv");
  } else if (key == "n_support") {
    m.n_support = indices(e, "n_support entry");
  } else if (key == "intercept") {
    m.intercept = numbers(e);
  } else if (key == "prob_a") {
    m.prob_a = numbers(e);
  } else if (key == "prob_b") {
    m.prob_b = numbers(e);
  } else if (key == "nu") {
    m.nu = model_text::number(e.one(), e.line);
    if (!(m.nu > 0.0 && m.nu <= 1.0)) bad(e.line, "nu must be in (0, 1]");
  } else if (key == "prob_sigma") {
    m.prob_sigma = model_text::number(e.one(), e.line);
    if (!(m.prob_sigma > 0.0)) bad(e.line, "prob_sigma must be positive");
  } else if (key == "prob_density_marks") {
    m.prob_density_marks = numbers(e);
  } else if (key == "support") {
    m.support = indices(e, "support index");
  } else if (key == "storage") {
    if (e.one() != "dense" && e.values[0] != "sparse")
      bad(e.line, "storage must be dense or sparse");
    m.sparse = e.values[0] == "sparse";
  } else {
    return false;
  }
  return true;
}

// The "dual_coef" block: max(1, k-1) lines (regression: 1) of n_sv values.
void read_dual_coef(model_text::Lines& lines, const Entry& e, const model_text::Seen& seen,
                    KernelModel& m) {
  seen.require_before("task", e);
  seen.require_before("n_sv", e);
  if (m.task == "classification") seen.require_before("classes", e);
  const Index rows = m.task != "classification" ? 1 : std::max<Index>(1, m.n_classes() - 1);
  const Index n_rows = m.n_sv > 0 ? rows : 0;
  lines.check_fits(model_text::checked_product(n_rows, m.n_sv, kMaxIndex, e.line, "dual_coef"),
                   "dual_coef");
  std::string raw;
  for (Index r = 0; r < n_rows; ++r) {
    if (!lines.next(raw)) bad(lines.line(), "file ends inside 'dual_coef'");
    const auto toks = model_text::tokens(raw);
    if (static_cast<Index>(toks.size()) != m.n_sv)
      bad(lines.line(), "dual_coef row has the wrong number of values (" +
                            std::to_string(toks.size()) + ", expected " + std::to_string(m.n_sv) +
                            ")");
    for (const auto& t : toks) m.dual_coef.push_back(model_text::number(t, lines.line()));
  }
}

// One sparse support vector: "j:v" pairs, columns in range and strictly increasing.
void read_sparse_row(const std::string& raw, long line, KernelModel& m) {
  Index prev = -1;
  for (const auto& tok : model_text::tokens(raw)) {
    const auto colon = tok.find(':');
    if (colon == std::string::npos)
      bad(line, "sparse entry " + model_text::quote(tok) + " is not j:v");
    const Index j =
        model_text::integer(tok.substr(0, colon), line, 0, m.n_features - 1, "column index");
    if (j <= prev) bad(line, "sparse column indices must increase strictly");
    prev = j;
    m.sv_indices.push_back(j);
    m.sv_data.push_back(model_text::number(tok.substr(colon + 1), line));
  }
  m.sv_indptr.push_back(static_cast<Index>(m.sv_indices.size()));
}

// The "sv" block: n_sv lines, dense (n_features values) or sparse (possibly empty lines).
void read_sv(model_text::Lines& lines, const Entry& e, const model_text::Seen& seen,
             KernelModel& m) {
  for (const char* key : {"n_features", "n_sv", "storage", "kernel"}) seen.require_before(key, e);
  if (m.kernel.kind == KernelKind::precomputed)
    bad(e.line, "a precomputed-kernel model has no 'sv'");
  std::string raw;
  if (m.sparse) {
    lines.check_fits(m.n_sv, "sv", 1);
    m.sv_indptr.assign(1, 0);
    for (Index t = 0; t < m.n_sv; ++t) {
      if (!lines.next_row(raw)) bad(lines.line(), "file ends inside 'sv'");
      read_sparse_row(raw, lines.line(), m);
    }
    return;
  }
  lines.check_fits(model_text::checked_product(m.n_sv, m.n_features, kMaxIndex, e.line, "sv"),
                   "sv");
  for (Index t = 0; t < m.n_sv; ++t) {
    if (!lines.next(raw)) bad(lines.line(), "file ends inside 'sv'");
    const auto toks = model_text::tokens(raw);
    if (static_cast<Index>(toks.size()) != m.n_features)
      bad(lines.line(), "sv row has " + std::to_string(toks.size()) + " values, expected " +
                            std::to_string(m.n_features));
    for (const auto& tok : toks) m.sv_dense.push_back(model_text::number(tok, lines.line()));
  }
}

// The keys every file of this kind carries, and the ones that must be absent.
void check_keys(const model_text::Seen& seen, const KernelModel& m, long line) {
  for (const char* key : {"kind", "task", "kernel", "gamma", "coef0", "degree", "n_features",
                          "n_sv", "intercept", "storage", "dual_coef"})
    seen.require(key, line);
  if (m.task == "classification") {
    seen.require("classes", line);
    seen.require("n_support", line);
  } else if (seen.has("classes") || seen.has("n_support")) {
    bad(line, "a " + m.task + " model has no 'classes' or 'n_support'");
  }
  if (m.kernel.kind == KernelKind::precomputed)
    seen.require("support", line);
  else
    seen.require("sv", line);
  if (seen.has("prob_a") != seen.has("prob_b")) bad(line, "'prob_a' and 'prob_b' go together");
}

}  // namespace

KernelModel read_kernel_model(std::istream& in) {
  const model_text::Text text = model_text::slurp(in);
  KernelModel m;
  model_text::Lines lines(text.bytes, text.body_end);
  model_text::Seen seen;
  std::string raw;
  bool header = false, done = false;
  while (!done && lines.next(raw)) {
    const Entry e = model_text::split(raw, lines.line());
    if (!header) {
      model_text::check_header(e);
      header = true;
      continue;
    }
    seen.add(e);
    if (read_scalar_key(e, m)) continue;
    if (e.key == "dual_coef")
      read_dual_coef(lines, e, seen, m);
    else if (e.key == "sv")
      read_sv(lines, e, seen, m);
    else if (e.key == "end")
      done = true;
    else
      bad(e.line, "unknown key '" + e.key + "'");
  }
  if (!header) throw Error(ErrorCode::format_error, "empty model file");
  if (!done) bad(lines.line(), "missing 'end'");
  model_text::check_trailer(lines);
  check_keys(seen, m, lines.line());
  try {
    validate_model(m);
  } catch (const Error& e) {
    throw Error(ErrorCode::format_error,
                "inconsistent model file: " + model_text::printable(e.what()));
  }
  text.verify();
  return m;
}

void save_model(const KernelModel& m, const std::string& path) {
  std::ofstream out(path);
  if (!out) throw Error(ErrorCode::io_error, "cannot open '" + path + "' for writing");
  write_model(m, out);
}

AnyModel read_any_model(std::istream& in) {
  std::stringstream buf;
  buf << in.rdbuf();
  const std::string text = buf.str();
  std::istringstream scan(text);
  std::string line;
  bool kernel = false;
  while (std::getline(scan, line)) {
    std::istringstream ls(line);
    std::string key, value;
    ls >> key >> value;
    if (key == "kind") {
      kernel = value == "kernel";
      break;
    }
  }
  std::istringstream again(text);
  if (kernel) return read_kernel_model(again);
  return read_model(again);
}

AnyModel load_any_model(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error(ErrorCode::io_error, "cannot open model file '" + path + "'");
  return read_any_model(in);
}

}  // namespace svmkit
