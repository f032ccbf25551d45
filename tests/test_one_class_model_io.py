"""svmkit's own model format for the one-class SVMs (task outlier_detection): round trips of
OneClassSVM and LinearOneClassSVM, and the loader's structural checks for the new task."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from sklearn.datasets import load_iris
from svmkit import load_model, save_model


@pytest.fixture(scope="module")
def X():
    return load_iris(return_X_y=True)[0]


def _same(a, b, X):
    for name in ("predict", "decision_function", "score_samples"):
        np.testing.assert_array_equal(getattr(a, name)(X), getattr(b, name)(X), err_msg=name)


@pytest.mark.parametrize("kernel", ["rbf", "linear", "poly"])
@pytest.mark.parametrize("sparse", [False, True])
def test_one_class_svm_round_trip(tmp_path, X, kernel, sparse):
    Xf = sp.csr_matrix(X) if sparse else X
    est = svmkit.OneClassSVM(kernel=kernel, nu=0.2, gamma=0.5).fit(Xf)
    path = tmp_path / "oc.model"
    save_model(est, path)
    assert "task outlier_detection" in path.read_text()
    back = load_model(path)
    assert isinstance(back, svmkit.OneClassSVM)
    _same(est, back, Xf)
    np.testing.assert_array_equal(back.offset_, est.offset_)


def test_linear_one_class_svm_round_trip(tmp_path, X):
    est = svmkit.LinearOneClassSVM(nu=0.3).fit(X)
    path = tmp_path / "loc.model"
    save_model(est, path)
    back = load_model(path)
    assert isinstance(back, svmkit.LinearOneClassSVM)
    _same(est, back, X)
    assert back.offset_ == est.offset_


def _edit(path, old, new):
    lines = [t for t in path.read_text().splitlines() if not t.startswith("checksum ")]
    text = "\n".join(lines) + "\n"
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_one_class_structural_checks(tmp_path, X):
    path = tmp_path / "oc.model"
    save_model(svmkit.OneClassSVM(nu=0.2).fit(X), path)
    _edit(path, "n_sv ", "classes 2 0 1\nn_sv ")
    with pytest.raises(ValueError, match="an? outlier_detection model has no 'classes'"):
        load_model(path)
    save_model(svmkit.LinearOneClassSVM().fit(X), path)
    lines = path.read_text().splitlines()
    row = lines[lines.index("coef") + 1]
    icpt = next(t for t in lines if t.startswith("intercept "))
    _edit(path, "n_rows 1", "n_rows 2")
    _edit(path, icpt, icpt + " 0")
    _edit(path, row, row + "\n" + row)
    with pytest.raises(ValueError, match="outlier_detection model has exactly one weight vector"):
        load_model(path)
    save_model(svmkit.LinearOneClassSVM().fit(X), path)
    _edit(path, "task outlier_detection", "task outliers")
    with pytest.raises(ValueError, match="'classification', 'regression' or 'outlier_detection'"):
        load_model(path)
    save_model(svmkit.LinearOneClassSVM().fit(X), path)
    _edit(path, "n_features", "classes 2 0 1\nn_features")
    with pytest.raises(ValueError, match="outlier_detection model has no 'classes'"):
        load_model(path)
