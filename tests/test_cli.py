"""The `svmkit` command, run as a subprocess (python -m svmkit.cli) so PATH does not matter."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn.datasets as skd
from sklearn.svm import LinearSVC as SkLinearSVC
from svmkit import cli
from svmkit.datasets import dump_svmlight_file, make_two_gaussians


def run(args: list[str], cwd: Path, module: str = "svmkit.cli") -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", module, *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


def run_here(args: list[str], cwd: Path, monkeypatch, capsys) -> subprocess.CompletedProcess:
    """Run cli.main in this process (faster than a subprocess for the error paths)."""
    monkeypatch.chdir(cwd)
    capsys.readouterr()
    try:
        status = cli.main(args)
    except SystemExit as exc:  # argparse errors
        status = exc.code
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(args, status, out, err)


def assert_clean_error(res: subprocess.CompletedProcess, status: int, pattern: str) -> None:
    assert res.returncode == status, res.stderr
    assert "Traceback" not in res.stderr + res.stdout
    assert re.search(r"svmkit: error: .*" + pattern, res.stderr), res.stderr


@pytest.fixture
def run_in(monkeypatch, capsys):
    """Runs the command in this process: run_in(args, cwd)."""

    def go(args: list[str], cwd: Path) -> subprocess.CompletedProcess:
        return run_here(args, cwd, monkeypatch, capsys)

    return go


@pytest.fixture(scope="module")
def gaussian_files(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("cli")
    X, y = make_two_gaussians(1200, 8, random_state=0)
    dump_svmlight_file(X[:900], y[:900], d / "train.txt")
    dump_svmlight_file(X[900:], y[900:], d / "test.txt")
    return d


def read_predictions(path: Path) -> np.ndarray:
    return np.array([float(s) for s in path.read_text().split()])


def test_train_predict_classification(gaussian_files: Path) -> None:
    d = gaussian_files
    res = run(["train", "-q", "-c", "2", "train.txt"], d)
    assert res.returncode == 0, res.stderr
    assert (d / "train.txt.model").is_file()  # liblinear's default model name
    res = run(["predict", "test.txt", "train.txt.model", "out.txt"], d)
    assert res.returncode == 0, res.stderr
    pred = read_predictions(d / "out.txt")
    Xte, yte = skd.load_svmlight_file(str(d / "test.txt"), n_features=8)
    Xtr, ytr = skd.load_svmlight_file(str(d / "train.txt"), n_features=8)
    # The printed accuracy is the one of the written predictions.
    m = re.search(r"Accuracy = ([0-9.]+)% \((\d+)/(\d+)\)", res.stdout)
    assert m, res.stdout
    correct = int(np.sum(pred == yte))
    assert int(m.group(2)) == correct and int(m.group(3)) == 300
    assert float(m.group(1)) == pytest.approx(100 * correct / 300, abs=1e-3)
    # Same model as LIBLINEAR's (squared hinge, C=2, regularized intercept): same predictions.
    ref = (
        SkLinearSVC(C=2.0, tol=1e-8, max_iter=100000).fit(Xtr.toarray(), ytr).predict(Xte.toarray())
    )
    assert np.mean(ref == pred) >= 0.99
    assert set(np.unique(pred)) <= {-1.0, 1.0}
    assert re.fullmatch(r"(-?1\n)+", (d / "out.txt").read_text())  # labels written as "1"/"-1"


def test_train_options_and_quiet_predict(gaussian_files: Path, run_in) -> None:
    run = run_in
    d = gaussian_files
    res = run(
        [
            "train",
            "-s",
            "tron",
            "-l",
            "logistic",
            "-e",
            "1e-6",
            "-B",
            "-1",
            "-n",
            "1",
            "train.txt",
            "m.model",
        ],
        d,
    )
    assert res.returncode == 0, res.stderr
    assert "model saved to m.model" in res.stdout
    from svmkit import load_model

    model = load_model(d / "m.model")
    assert model.loss == "logistic"
    assert np.all(np.asarray(model.intercept_) == 0)  # -B -1: no intercept, as liblinear
    res = run(["predict", "-q", "test.txt", "m.model", "o.txt"], d)
    assert res.returncode == 0 and "Accuracy" not in res.stdout
    assert len(read_predictions(d / "o.txt")) == 300


def test_cross_validation_classification(gaussian_files: Path, run_in) -> None:
    run = run_in
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    d = gaussian_files
    res = run(["train", "-v", "5", "train.txt"], d)
    assert res.returncode == 0, res.stderr
    m = re.search(r"Cross Validation Accuracy = ([0-9.]+)%", res.stdout)
    assert m, res.stdout
    X, y = skd.load_svmlight_file(str(d / "train.txt"))
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    ref = 100 * np.mean(cross_val_predict(SkLinearSVC(), X.toarray(), y, cv=cv) == y)
    assert abs(float(m.group(1)) - ref) <= 1.0


def test_regression_train_predict_and_cv(tmp_path: Path, run_in) -> None:
    run = run_in
    X, y = skd.load_diabetes(return_X_y=True)
    dump_svmlight_file(X, y, tmp_path / "diab.txt")
    res = run(["train", "-q", "--task", "regression", "-c", "10", "diab.txt"], tmp_path)
    assert res.returncode == 0, res.stderr
    res = run(["predict", "diab.txt", "diab.txt.model", "pred.txt"], tmp_path)
    assert res.returncode == 0, res.stderr
    pred = read_predictions(tmp_path / "pred.txt")
    mse = float(np.mean((pred - y) ** 2))
    r2 = float(np.corrcoef(pred, y)[0, 1] ** 2)
    m1 = re.search(r"Mean squared error = ([0-9.e+-]+) \(regression\)", res.stdout)
    m2 = re.search(r"Squared correlation coefficient = ([0-9.e+-]+) \(regression\)", res.stdout)
    assert m1 and m2, res.stdout
    assert float(m1.group(1)) == pytest.approx(mse, rel=1e-5)
    assert float(m2.group(1)) == pytest.approx(r2, rel=1e-5)
    assert r2 > 0.3
    res = run(["train", "--task", "regression", "-v", "3", "-p", "0.1", "diab.txt"], tmp_path)
    assert res.returncode == 0, res.stderr
    assert "Cross Validation Mean squared error = " in res.stdout
    assert "Cross Validation Squared correlation coefficient = " in res.stdout


def test_shared_dataset_train_predict(shared_datasets: Path, tmp_path: Path, run_in) -> None:
    run = run_in
    data = shared_datasets / "heart" / "heart_scale"
    res = run(["train", "-q", str(data), "heart.model"], tmp_path)
    assert res.returncode == 0, res.stderr
    res = run(["predict", str(data), "heart.model", "out.txt"], tmp_path)
    assert res.returncode == 0, res.stderr
    X, y = skd.load_svmlight_file(str(data))
    ref = SkLinearSVC(tol=1e-8, max_iter=100000).fit(X.toarray(), y).predict(X.toarray())
    pred = read_predictions(tmp_path / "out.txt")
    assert np.mean(ref == pred) >= 0.99
    assert re.search(r"Accuracy = [0-9.]+% \(\d+/270\)", res.stdout)


def test_predict_with_fewer_or_more_features(gaussian_files: Path, run_in) -> None:
    run = run_in
    d = gaussian_files
    assert run(["train", "-q", "train.txt", "g.model"], d).returncode == 0
    (d / "few.txt").write_text("1 1:0.5\n-1 2:-3\n")
    (d / "many.txt").write_text("1 1:0.5 20:3\n-1 2:-3\n")
    r1 = run(["predict", "few.txt", "g.model", "p1.txt"], d)
    r2 = run(["predict", "many.txt", "g.model", "p2.txt"], d)
    assert r1.returncode == 0 and r2.returncode == 0, r1.stderr + r2.stderr
    # Features beyond the model's are ignored (as LIBLINEAR does).
    assert (d / "p1.txt").read_text() == (d / "p2.txt").read_text()


def test_demo_quick_prints_credit_and_table(tmp_path: Path) -> None:
    res = run(["demo", "--quick"], tmp_path)
    assert res.returncode == 0, res.stderr
    out = res.stdout
    assert "Breast Cancer Wisconsin (Diagnostic), UCI, via scikit-learn's load_breast_cancer" in out
    assert "make_two_gaussians" in out and "make_sparse_text_like" in out
    for word in ("dataset", "svmkit estimator", "solver", "test acc", "anchor acc"):
        assert word in out
    from svmkit.cli import _demo_runs

    labels = set()
    for prefix, label, _, _, anchor in _demo_runs():
        labels.add(label)
        # Each row: dataset, estimator, the solver auto chose, accuracy, time, anchor columns.
        pattern = rf"{re.escape(prefix)} \S+\s+{re.escape(label)}\s+(\w+)\s+(\d+\.\d+)%"
        found = re.search(pattern, out)
        assert found, (prefix, label)
        if prefix == "breast_cancer":
            assert float(found.group(2)) > 90.0, label
            if anchor is not None:  # the anchor's accuracy is printed beside it
                assert re.search(rf"{re.escape(label)}\s+\w+\s+[0-9.]+%\s+\S+s\s+[0-9.]+%", out)
    # Every solver family appears (the first-order ones on the small dataset).
    assert {"tron", "dual_cd", "l1_cd", "smsvm", "sgd", "homotopy", "nssvm", "smo"} <= set(
        re.findall(r"\s(tron|dual_cd|l1_cd|smsvm|sgd|homotopy|nssvm|smo)\s", out)
    )
    assert "LinearSVC()" in labels and "SVC()" in labels and "SparseSVC()" in labels


def test_python_dash_m_svmkit(tmp_path: Path) -> None:
    res = run(["--help"], tmp_path, module="svmkit")
    assert res.returncode == 0
    assert "train" in res.stdout and "predict" in res.stdout and "demo" in res.stdout


def test_bench_runs_harness_or_explains(monkeypatch, capsys, tmp_path: Path) -> None:
    calls = []
    monkeypatch.setattr(cli.subprocess, "call", lambda cmd: calls.append(cmd) or 0)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bench").mkdir()
    (tmp_path / "bench" / "run.py").write_text("")
    assert cli.main(["bench", "--quick"]) == 0
    assert calls and calls[0][1].endswith("run.py") and calls[0][2:] == ["--quick"]
    (tmp_path / "bench" / "run.py").unlink()
    monkeypatch.setattr(cli, "__file__", str(tmp_path / "a" / "b" / "cli.py"))
    assert cli.main(["bench"]) == 0
    assert "python bench/run.py" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# Errors: "svmkit: error: ..." on stderr, status 1 (data, files) or 2 (command line)


def test_error_missing_data_file(tmp_path: Path) -> None:
    assert_clean_error(run(["train", "nope.txt"], tmp_path), 1, "cannot open data file nope.txt")


def test_error_malformed_data_file(tmp_path: Path, run_in) -> None:
    run = run_in
    (tmp_path / "bad.txt").write_text("1 1:1\n-1 2:x\n")
    res = run(["train", "bad.txt"], tmp_path)
    assert_clean_error(res, 1, r"bad\.txt, line 2: feature value 'x' is not a number")


def test_error_empty_data_file(tmp_path: Path, run_in) -> None:
    run = run_in
    (tmp_path / "empty.txt").write_text("# nothing\n")
    assert_clean_error(run(["train", "empty.txt"], tmp_path), 1, "holds no samples")


def test_error_bad_options(gaussian_files: Path, run_in) -> None:
    run = run_in
    d = gaussian_files
    assert_clean_error(run(["train", "-c", "abc", "train.txt"], d), 2, "argument -c")
    assert_clean_error(run(["train", "-v", "x", "train.txt"], d), 2, "argument -v")
    assert_clean_error(run(["train", "--task", "x", "train.txt"], d), 2, "argument --task")
    assert_clean_error(run(["frobnicate"], d), 2, "argument")
    assert_clean_error(run([], d), 2, ".*required")
    assert_clean_error(run(["train", "-s", "nosuch", "train.txt"], d), 1, "unknown solver 'nosuch'")
    assert_clean_error(run(["train", "-l", "nosuch", "train.txt"], d), 1, "loss")
    assert_clean_error(run(["train", "-c", "-1", "train.txt"], d), 1, "C")
    assert_clean_error(run(["train", "-v", "1", "train.txt"], d), 1, "n must be >= 2")
    assert_clean_error(run(["train", "-v", "5000", "train.txt"], d), 1, "exceeds 900 samples")
    assert_clean_error(run(["train", "-p", "0.1", "train.txt"], d), 1, "regression only")
    assert_clean_error(run(["train", "-g", "0.1", "train.txt"], d), 1, "kernel SVMs only")


def test_error_kernel_solver_not_available(gaussian_files: Path, run_in) -> None:
    run = run_in
    import svmkit

    res = run(["train", "-t", "2", "-g", "0.5", "train.txt"], gaussian_files)
    if hasattr(svmkit, "SVC"):  # the kernel estimators are plugged in through cli.ESTIMATORS
        assert "not available" not in res.stderr and "Traceback" not in res.stderr
    else:
        assert_clean_error(res, 1, r"kernel SVMs \(-t\) for classification are not available")


def test_error_predict_paths(gaussian_files: Path, run_in) -> None:
    run = run_in
    d = gaussian_files
    assert run(["train", "-q", "train.txt", "e.model"], d).returncode == 0
    assert_clean_error(
        run(["predict", "test.txt", "none.model", "o.txt"], d), 1, "cannot open model file"
    )
    assert_clean_error(
        run(["predict", "nope.txt", "e.model", "o.txt"], d), 1, "cannot open data file"
    )
    assert_clean_error(
        run(["predict", "test.txt", "e.model", "no_dir/o.txt"], d), 1, "cannot write output"
    )
    (d / "junk.model").write_text("not a model\n")
    res = run(["predict", "test.txt", "junk.model", "o.txt"], d)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert res.stderr.startswith("svmkit: error: ") or "\nsvmkit: error: " in res.stderr
    assert_clean_error(run(["predict", "test.txt"], d), 2, "the following arguments are required")
