// Trains a squared-hinge linear SVM with svmkit::solve_tron on a small text matrix, saves the
// model in svmkit's text format, loads it back and predicts.
//
// Usage: svmkit_consumer DATA MODEL
//   DATA: first line "n d", then n lines "label x_1 ... x_d" (labels -1 or +1).
// Prints: "objective <F>", "status <name>", one predicted label per line, the error message of a
// missing model file, then "version <svmkit version> <SIMD level>".
#include <fstream>
#include <iomanip>
#include <iostream>
#include <vector>

#include "svmkit/build_info.hpp"
#include "svmkit/model.hpp"
#include "svmkit/solvers/tron.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: svmkit_consumer DATA MODEL\n";
    return 2;
  }
  std::ifstream in(argv[1]);
  long long n = 0, d = 0;
  in >> n >> d;
  std::vector<double> X(static_cast<std::size_t>(n * d)), y(static_cast<std::size_t>(n));
  for (long long i = 0; i < n; ++i) {
    in >> y[i];
    for (long long j = 0; j < d; ++j) in >> X[i * d + j];
  }
  if (!in) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::vector<double> cost(static_cast<std::size_t>(n), 1.0);
  svmkit::LinearProblem problem;
  problem.X = svmkit::DenseRowMajorView<double>{X.data(), n, d, d};
  problem.y = y.data();
  problem.cost = cost.data();
  svmkit::TronOptions options;
  options.tol = 1e-10;
  try {
    const svmkit::SolveResult result =
        svmkit::solve_tron(problem, svmkit::LossSpec{svmkit::LossKind::squared_hinge}, options);
    svmkit::LinearModel model;
    model.solver = "tron";
    model.loss = "squared_hinge";
    model.n_features = d;
    model.classes = {-1.0, 1.0};
    model.n_rows = 1;
    model.coef.assign(result.solution.begin(), result.solution.begin() + d);
    model.intercept = {result.solution[d]};
    svmkit::save_model(model, argv[2]);
    const svmkit::LinearModel loaded = svmkit::load_model(argv[2]);
    const std::vector<double> labels = svmkit::predict(loaded, problem.X);
    std::cout << std::setprecision(17) << "objective " << result.objective << "\n"
              << "status " << svmkit::to_string(result.status) << "\n";
    for (double l : labels) std::cout << l << "\n";
    // Errors come back as svmkit::Error with a message.
    try {
      svmkit::load_model(std::string(argv[2]) + ".missing");
    } catch (const svmkit::Error& e) {
      std::cout << "error " << e.what() << "\n";
    }
    const svmkit::BuildInfo info = svmkit::build_info();
    std::cout << "version " << info.version << " " << info.simd_level << "\n";
  } catch (const svmkit::Error& e) {
    std::cerr << "svmkit error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
