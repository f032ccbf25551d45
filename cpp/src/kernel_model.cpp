// Kernel models: validation, prediction (one-vs-one voting) and the "kind kernel" text format.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "model_text.hpp"
#include "svmkit/model.hpp"
#include "svmkit/parallel.hpp"

namespace svmkit {

void validate_model(const KernelModel& m) {
  if (m.task != "classification" && m.task != "regression")
    throw_invalid("model task must be 'classification' or 'regression', got '" + m.task + "'");
  validate_kernel(m.kernel);
  if (m.n_features <= 0) throw_invalid("model n_features must be positive");
  if (m.n_sv < 0) throw_invalid("model n_sv must be >= 0");
  const Index rows = m.task == "regression" ? 1 : std::max<Index>(1, m.n_classes() - 1);
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
  if (static_cast<Index>(m.dual_coef.size()) != rows * m.n_sv)
    throw_invalid("model dual_coef has " + std::to_string(m.dual_coef.size()) +
                  " values, expected " + std::to_string(rows * m.n_sv));
  if (static_cast<Index>(m.intercept.size()) != m.n_pairs())
    throw_invalid("model intercept has " + std::to_string(m.intercept.size()) +
                  " values, expected " + std::to_string(m.n_pairs()));
  if (!m.prob_a.empty() || !m.prob_b.empty()) {
    if (static_cast<Index>(m.prob_a.size()) != m.n_pairs() ||
        static_cast<Index>(m.prob_b.size()) != m.n_pairs())
      throw_invalid("model prob_a/prob_b must have one value per class pair");
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
  } else if (static_cast<Index>(m.sv_dense.size()) != m.n_sv * m.n_features) {
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
  if (m.task == "regression") {
    std::vector<double> dec(static_cast<std::size_t>(rows_of(X)));
    decision_function(m, X, dec.data(), n_threads);
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

void write_model(const KernelModel& m, std::ostream& out) {
  validate_model(m);
  out << std::setprecision(17);
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
  if (!out) throw Error(ErrorCode::io_error, "failed to write the model");
}

KernelModel read_kernel_model(std::istream& in) {
  KernelModel m;
  std::string raw;
  using model_text::bad;
  const auto num = model_text::number;
  const auto inum = model_text::integer;
  model_text::Lines lines(in);
  long line = 0;
  bool header = false, done = false, have_coef = false, have_intercept = false;
  const auto next_line = [&](std::string& s) {
    const bool ok = lines.next(s);
    line = lines.line();
    return ok;
  };
  const auto doubles = [&](const std::vector<std::string>& toks, std::vector<double>& v) {
    v.clear();
    for (const auto& t : toks) v.push_back(num(t, line));
  };
  while (!done && next_line(raw)) {
    const model_text::Entry e = model_text::split(raw, line);
    const std::string& key = e.key;
    const std::vector<std::string>& toks = e.values;
    const auto one = [&]() -> const std::string& { return e.one(); };
    const auto counted = [&]() { return e.counted(); };
    if (!header) {
      model_text::check_header(e);
      header = true;
    } else if (key == "kind") {
      if (one() != "kernel") bad(line, "expected 'kind kernel'");
    } else if (key == "task") {
      m.task = one();
    } else if (key == "solver") {
      m.solver = one();
    } else if (key == "loss") {
      m.loss = one();
    } else if (key == "kernel") {
      try {
        m.kernel.kind = kernel_kind_from_string(one());
      } catch (const Error& e) {
        bad(line, e.what());
      }
    } else if (key == "gamma") {
      m.kernel.gamma = num(one(), line);
    } else if (key == "coef0") {
      m.kernel.coef0 = num(one(), line);
    } else if (key == "degree") {
      m.kernel.degree = static_cast<int>(inum(one(), line));
    } else if (key == "n_features") {
      m.n_features = inum(one(), line);
    } else if (key == "classes") {
      for (const auto& t : counted()) m.classes.push_back(num(t, line));
    } else if (key == "n_sv") {
      m.n_sv = inum(one(), line);
      if (m.n_sv < 0) bad(line, "n_sv must be >= 0");
    } else if (key == "n_support") {
      for (const auto& t : counted()) m.n_support.push_back(inum(t, line));
    } else if (key == "intercept") {
      doubles(toks, m.intercept);
      have_intercept = true;
    } else if (key == "prob_a") {
      doubles(toks, m.prob_a);
    } else if (key == "prob_b") {
      doubles(toks, m.prob_b);
    } else if (key == "support") {
      for (const auto& t : counted()) m.support.push_back(inum(t, line));
    } else if (key == "storage") {
      if (one() != "dense" && toks[0] != "sparse") bad(line, "storage must be dense or sparse");
      m.sparse = toks[0] == "sparse";
    } else if (key == "dual_coef") {
      const Index rows =
          m.task == "regression" ? 1 : std::max<Index>(1, static_cast<Index>(m.classes.size()) - 1);
      for (Index r = 0; r < (m.n_sv > 0 ? rows : 0); ++r) {
        if (!next_line(raw)) bad(line, "file ends inside 'dual_coef'");
        std::istringstream rs(raw);
        Index count = 0;
        for (std::string t; rs >> t; ++count) m.dual_coef.push_back(num(t, line));
        if (count != m.n_sv) bad(line, "dual_coef row has the wrong number of values");
      }
      have_coef = true;
    } else if (key == "sv") {
      if (m.n_features <= 0) bad(line, "'sv' before n_features");
      m.sv_indptr.assign(1, 0);
      for (Index t = 0; t < m.n_sv; ++t) {
        if (!next_line(raw)) bad(line, "file ends inside 'sv'");
        std::istringstream rs(raw);
        Index count = 0;
        for (std::string tok; rs >> tok; ++count) {
          if (m.sparse) {
            const auto colon = tok.find(':');
            if (colon == std::string::npos) bad(line, "sparse entry '" + tok + "' is not j:v");
            m.sv_indices.push_back(inum(tok.substr(0, colon), line));
            m.sv_data.push_back(num(tok.substr(colon + 1), line));
          } else {
            m.sv_dense.push_back(num(tok, line));
          }
        }
        if (m.sparse)
          m.sv_indptr.push_back(static_cast<Index>(m.sv_indices.size()));
        else if (count != m.n_features)
          bad(line, "sv row has " + std::to_string(count) + " values, expected " +
                        std::to_string(m.n_features));
      }
      if (!m.sparse) m.sv_indptr.clear();
    } else if (key == "end") {
      done = true;
    } else {
      bad(line, "unknown key '" + key + "'");
    }
  }
  if (!header) throw Error(ErrorCode::format_error, "empty model file");
  if (!done) bad(line, "missing 'end'");
  if (!have_intercept || !have_coef) bad(line, "missing 'intercept' or 'dual_coef'");
  try {
    validate_model(m);
  } catch (const Error& e) {
    throw Error(ErrorCode::format_error, std::string("inconsistent model file: ") + e.what());
  }
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
