// Fitted models as plain data, their prediction, and the versioned text model format shared
// by Python, the command line and C++ programs.
//
// Text format, version 1 (one "key value..." pair per line, numbers with 17 significant digits
// so that a save/load round trip is exact):
//
//   svmkit_model 1
//   kind linear
//   task classification            (or regression)
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
// Lines starting with '#' are comments. Unknown keys are an error, so a newer file is never
// silently misread.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

#include "svmkit/data.hpp"

namespace svmkit {

constexpr int kModelFormatVersion = 1;

struct LinearModel {
  std::string task = "classification";  // "classification" or "regression"
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

void write_model(const LinearModel& model, std::ostream& out);
LinearModel read_model(std::istream& in);  // throws Error(format_error) with the line number
void save_model(const LinearModel& model, const std::string& path);
LinearModel load_model(const std::string& path);

}  // namespace svmkit
