"""`svmkit scale` against libsvm-official's own scaling (commonutil.csr_scale) and by hand."""

from __future__ import annotations

import io

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer
from svmkit import cli
from svmkit.datasets import dump_svmlight_file, load_svmlight_file

commonutil = pytest.importorskip("libsvm.commonutil", reason="libsvm-official is not installed")


def _run(args: list[str], capsys) -> tuple[int, str, str]:
    code = cli.main(["scale", *args])
    out, err = capsys.readouterr()
    return code, out, err


def _parse(text: str, n_features: int) -> tuple[sp.csr_matrix, np.ndarray]:
    X, y = load_svmlight_file(io.BytesIO(text.encode()), n_features=n_features, zero_based=False)
    return X, y


@pytest.fixture
def cancer_file(tmp_path):
    X, y = load_breast_cancer(return_X_y=True)
    X = X[:200].copy()
    X[:, 3] = 7.0  # a constant feature: svm-scale drops it
    path = tmp_path / "cancer.txt"
    dump_svmlight_file(X, y[:200], path, zero_based=False)
    return path, X, y[:200]


@pytest.fixture
def sparse_file(tmp_path):
    rng = np.random.default_rng(0)
    X = sp.random(120, 40, density=0.1, random_state=1, format="csr") * 5.0
    y = rng.integers(0, 3, size=120).astype(float)
    path = tmp_path / "sparse.txt"
    dump_svmlight_file(X, y, path, zero_based=False)
    return path, sp.csr_matrix(X), y


def _reference(X, lower=-1.0, upper=1.0, fit_on=None):
    fit_on = X if fit_on is None else fit_on
    param = commonutil.csr_find_scale_param(sp.csr_matrix(fit_on), lower=lower, upper=upper)
    return commonutil.csr_scale(sp.csr_matrix(X), param).toarray()


def test_default_limits_match_libsvm(cancer_file, capsys):
    path, X, y = cancer_file
    code, out, _ = _run([str(path)], capsys)
    assert code == 0
    got, got_y = _parse(out, X.shape[1])
    np.testing.assert_allclose(got.toarray(), _reference(X), rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(got_y, y)
    assert got[:, 3].nnz == 0  # the constant feature is not written


def test_lower_zero_keeps_sparse_data_sparse(sparse_file, capsys):
    path, X, _ = sparse_file
    code, out, err = _run(["-l", "0", "-u", "1", str(path)], capsys)
    assert code == 0 and "warning" not in err
    got, _ = _parse(out, X.shape[1])
    np.testing.assert_allclose(got.toarray(), _reference(X, 0.0, 1.0), rtol=1e-5, atol=1e-6)
    assert got.nnz <= X.nnz


def test_default_lower_on_sparse_data_warns_about_density(sparse_file, capsys):
    path, X, _ = sparse_file
    code, out, err = _run([str(path)], capsys)
    assert code == 0
    assert "use -l 0 rather than the default -l -1" in err
    got, _ = _parse(out, X.shape[1])
    np.testing.assert_allclose(got.toarray(), _reference(X), rtol=1e-5, atol=1e-6)


def test_save_then_restore_scales_new_data_with_the_saved_ranges(sparse_file, tmp_path, capsys):
    path, X, y = sparse_file
    params = tmp_path / "range"
    assert _run(["-l", "0", "-s", str(params), str(path)], capsys)[0] == 0
    text = params.read_text().splitlines()
    assert text[0] == "x" and text[1].split() == ["0", "1"]
    X_test = sp.random(30, 40, density=0.2, random_state=7, format="csr") * 6.0
    test_path = tmp_path / "test.txt"
    dump_svmlight_file(X_test, np.ones(30), test_path, zero_based=False)
    code, out, _ = _run(["-r", str(params), str(test_path)], capsys)
    assert code == 0
    got, _ = _parse(out, 40)
    want = _reference(X_test, 0.0, 1.0, fit_on=X)
    np.testing.assert_allclose(got.toarray(), want, rtol=1e-5, atol=1e-6)


def test_targets_scaled_with_y(cancer_file, tmp_path, capsys):
    path, X, y = cancer_file
    params = tmp_path / "range"
    code, out, _ = _run(["-y", "-1", "1", "-s", str(params), str(path)], capsys)
    assert code == 0
    _, got_y = _parse(out, X.shape[1])
    want = -1.0 + 2.0 * (y - y.min()) / (y.max() - y.min())
    np.testing.assert_allclose(got_y, want, rtol=1e-12)
    lines = params.read_text().splitlines()
    assert lines[0] == "y" and lines[3] == "x"
    # restoring the file scales the targets the same way
    code, out2, _ = _run(["-r", str(params), str(path)], capsys)
    assert code == 0 and out2 == out


@pytest.mark.parametrize(
    "args, message",
    [
        (["-l", "1", "-u", "0"], "lower limit must be below the upper one"),
        (["-y", "2", "1"], "lower limit must be below the upper one"),
        (["-s", "{tmp}/a", "-r", "{tmp}/b"], "-s and -r cannot be combined"),
        (["-l", "0", "-r", "{tmp}/range"], "come from the restore file"),
    ],
)
def test_bad_options_are_named(cancer_file, tmp_path, capsys, args, message):
    path, _, _ = cancer_file
    (tmp_path / "range").write_text("x\n-1 1\n1 0 1\n")
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    code, _, err = _run([*args, str(path)], capsys)
    assert code == 1
    assert message in err


@pytest.mark.parametrize(
    "content, message",
    [
        ("", "ends before"),
        ("z\n", "expected 'x'"),
        ("x\n-1\n", "expected 2 numbers"),
        ("x\n-1 1\n3 0\n", "expected 'index min max'"),
        ("x\n-1 1\nfoo 0 1\n", "bad feature index"),
        ("x\n-1 1\n0 0 1\n", "out of range"),
        ("x\n-1 1\n2 0 nan\n", "non-finite"),
        ("x\n1 -1\n", "lower limit must be below"),
    ],
)
def test_malformed_restore_file_names_the_line(cancer_file, tmp_path, capsys, content, message):
    path, _, _ = cancer_file
    params = tmp_path / "range"
    params.write_text(content)
    code, _, err = _run(["-r", str(params), str(path)], capsys)
    assert code == 1
    assert message in err


def test_saved_parameters_use_svm_scales_number_format(tmp_path, capsys):
    """svm-scale writes its parameter file with %.16g: a range of 4.3 reads '4.3' (not
    %.17g's 4.2999999999999998), so the file is byte for byte svm-scale's."""
    data = tmp_path / "d.txt"
    data.write_text("1 1:4.3 2:0.1\n-1 1:7.9 2:0.7\n")
    params = tmp_path / "p.txt"
    assert cli.main(["scale", "-s", str(params), str(data)]) == 0
    capsys.readouterr()
    assert params.read_text() == "x\n-1 1\n1 4.3 7.9\n2 0.1 0.7\n"


def test_scaled_lines_end_as_svm_scales(tmp_path, capsys):
    """svm-scale prints every number followed by a space (so each line ends with one)."""
    data = tmp_path / "d.txt"
    data.write_text("1 1:4.3 2:0.1\n-1 1:7.9 2:0.7\n")
    assert cli.main(["scale", str(data)]) == 0
    assert capsys.readouterr().out == "1 1:-1 2:-1 \n-1 1:1 2:1 \n"
