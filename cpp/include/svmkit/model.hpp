// Fitted models as plain data, their prediction, and the versioned text model format shared
// by Python, the command line and C++ programs.
//
// Text format, version 1 (one "key value..." pair per line, numbers with 17 significant digits
// so that a save/load round trip is exact):
//
//   svmkit_model 1
//   kind linear
//   task classification            (or regression, or outlier_detection: the one-class SVM)
//   solver tron                    (informative)
//   loss squared_hinge             (informative)
//   n_features 30
//   classes 2 0 1                  (count, then the labels; absent for regression)
//   intercept_scaling 1
//   n_rows 1                       (weight vectors: 1 for binary or regression, one per class
//                                   for one-vs-rest with more than two classes)
//   intercept 0.123                (n_rows values)
//   coef                           (then n_rows lines of n_features values)
//   ...
//   end
//
// Kernel models ("kind kernel", same version) after the common header lines:
//
//   kind kernel
//   task classification            (or regression)
//   solver smo / loss hinge        (informative)
//   kernel rbf                     (linear, poly, rbf, laplacian, sigmoid, precomputed)
//   gamma 0.5 / coef0 0 / degree 3
//   n_features 30                  (precomputed: the number of training samples)
//   classes 2 0 1                  (classification only)
//   n_sv 57
//   n_support 2 30 27              (count, then support vectors per class; classification)
//   intercept 0.123                (binary: 1 value; k classes: k(k-1)/2, pairs (0,1),(0,2)..)
//   prob_a ... / prob_b ...        (optional Platt parameters, one per intercept)
//   nu 0.5                         (optional: a nu formulation (LIBSVM's nu_svc, nu_svr,
//                                   one_class) and its nu; absent for C-SVC / epsilon-SVR)
//   prob_sigma 0.7                 (optional, regression: LIBSVM's Laplace scale of the
//                                   residuals, its -b 1 probability model)
//   prob_density_marks m1 ... m10  (optional, outlier_detection: LIBSVM's 10 density marks of
//                                   the decision values, its one-class -b 1 model)
//   support 57 i1 i2 ...           (training indices of the support vectors)
//   storage dense                  (or sparse)
//   dual_coef                      (then max(1, k-1) lines of n_sv values)
//   sv                             (then n_sv lines: n_features values, or "j:v" pairs for
//   end                             sparse storage, 0-based columns)
//
// Lines starting with '#' are comments. Unknown keys are an error, so a newer file is never
// silently misread. Files written by save end with "checksum fnv1a64 HEX" after 'end': the
// 64-bit FNV-1a hash of every byte before that line (CR bytes skipped), verified on load when
// present (older files without it still load). The readers parse numbers
// locale-independently and refuse, as ErrorCode::format_error naming the line: a missing or
// repeated key, class labels that are not strictly increasing, integers out of range,
// declared sizes that overflow or exceed what the rest of the file could hold (checked
// before anything is allocated), and content after 'end'.
#pragma once

#include <iosfwd>
#include <string>
#include <variant>
#include <vector>

#include "svmkit/data.hpp"
#include "svmkit/kernel.hpp"

namespace svmkit {

constexpr int kModelFormatVersion = 1;
// LIBSVM's one-class probability model has this many density marks.
constexpr int kOneClassMarks = 10;

// A model's task: "classification" (classes; one weight vector / pair per class or pair),
// "regression" or "outlier_detection" (the one-class SVM): the last two have one decision
// function and no classes; an outlier detector predicts +1 where its decision value is > 0
// (an inlier) and -1 elsewhere.
inline bool is_model_task(const std::string& task) {
  return task == "classification" || task == "regression" || task == "outlier_detection";
}

struct LinearModel {
  std::string task = "classification";  // see is_model_task
  std::string solver;                   // the solver that produced it (informative)
  std::string loss;                     // the loss it minimized (informative)
  Index n_features = 0;
  std::vector<double> classes;     // class labels, sorted (classification only)
  Index n_rows = 0;                // number of weight vectors
  std::vector<double> coef;        // n_rows x n_features, row-major
  std::vector<double> intercept;   // n_rows (already multiplied by intercept_scaling)
  double intercept_scaling = 1.0;  // the bias feature value used in training (informative)
};

// Checks the model's internal consistency; throws Error naming the problem.
void validate_model(const LinearModel& model);

// Decision values: out is n_samples x n_rows, row-major. One pass over X.
void decision_function(const LinearModel& model, const MatrixView& X, double* out,
                       int n_threads = 0);

// Index into classes of the predicted class for each sample: argmax of the decision values,
// or for a binary model 1 where the decision value is > 0 and 0 otherwise.
std::vector<Index> predict_class_indices(const LinearModel& model, const MatrixView& X,
                                         int n_threads = 0);

// Predicted labels (classification: the class with the largest decision value, or
// classes[1] where the binary decision value is > 0) or values (regression).
std::vector<double> predict(const LinearModel& model, const MatrixView& X, int n_threads = 0);

// A kernel SVM: support vectors, dual coefficients laid out as LIBSVM and scikit-learn lay
// them out (row r-1 / r of the class pairs, see dual_coef), intercepts per class pair.
struct KernelModel {
  std::string task = "classification";  // see is_model_task
  std::string solver;                   // informative
  std::string loss;                     // informative
  KernelSpec kernel;
  Index n_features = 0;          // columns of X (precomputed: training samples)
  std::vector<double> classes;   // sorted labels (classification)
  std::vector<Index> n_support;  // support vectors per class, in class order
  Index n_sv = 0;
  // Support vectors, grouped by class in class order. Dense: sv_dense is n_sv x n_features
  // row-major. Sparse: CSR in sv_indptr / sv_indices / sv_data.
  bool sparse = false;
  std::vector<double> sv_dense;
  std::vector<Index> sv_indptr, sv_indices;
  std::vector<double> sv_data;
  std::vector<Index> support;  // training indices (used by the precomputed kernel)
  // dual_coef: max(1, k-1) rows x n_sv, row-major. For the pair of classes (a, b), a < b, the
  // coefficient of a support vector of class a is in row b-1 and of class b in row a. For a
  // binary model the single row is y_i alpha_i with classes[1] as +1.
  std::vector<double> dual_coef;
  std::vector<double> intercept;       // one per pair (binary / regression: 1)
  std::vector<double> prob_a, prob_b;  // Platt sigmoid per pair (empty when not fitted)
  // The nu formulations keep their nu, so that a loaded model is the estimator that was saved;
  // 0 for the C / epsilon formulations.
  double nu = 0.0;
  // LIBSVM's other -b 1 models: a regression's Laplace scale of cross-validated residuals (0:
  // none) and a one-class SVM's kOneClassMarks density marks (empty: none).
  double prob_sigma = 0.0;
  std::vector<double> prob_density_marks;

  Index n_classes() const { return static_cast<Index>(classes.size()); }
  Index n_pairs() const {
    const Index k = n_classes();
    return task != "classification" ? 1 : (k == 2 ? 1 : k * (k - 1) / 2);
  }
};

void validate_model(const KernelModel& model);

// Raw decision values: regression and binary n x 1 (binary: > 0 means classes[1]); multiclass
// n x k(k-1)/2 one-vs-one values in pair order (> 0 votes for the first class of the pair).
void decision_function(const KernelModel& model, const MatrixView& X, double* out,
                       int n_threads = 0);

// One-vs-one voting (ties to the lowest class index, as LIBSVM); binary: sign.
std::vector<Index> predict_class_indices(const KernelModel& model, const MatrixView& X,
                                         int n_threads = 0);
std::vector<double> predict(const KernelModel& model, const MatrixView& X, int n_threads = 0);

// scikit-learn's "ovr" shape from one-vs-one values: votes plus a confidence term in
// (-1/3, 1/3) (votes_k + s_k / (3 (|s_k| + 1)), s_k the summed pair confidences).
void ovo_to_ovr(const double* ovo, Index n, Index n_classes, double* out);

void write_model(const KernelModel& model, std::ostream& out);
KernelModel read_kernel_model(std::istream& in);
void save_model(const KernelModel& model, const std::string& path);

using AnyModel = std::variant<LinearModel, KernelModel>;
// Reads either kind of model file.
AnyModel read_any_model(std::istream& in);
AnyModel load_any_model(const std::string& path);

void write_model(const LinearModel& model, std::ostream& out);
LinearModel read_model(std::istream& in);  // throws Error(format_error) with the line number
void save_model(const LinearModel& model, const std::string& path);
LinearModel load_model(const std::string& path);

}  // namespace svmkit
