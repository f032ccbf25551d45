"""The nu formulations kept in saved models: svmkit's own format (the "nu" line) and LIBSVM's
(svm_type nu_svc / nu_svr / one_class), both ways against libsvm-official; LIBSVM's -b 1
fields of regression and one-class models in svmkit's format; older files without them."""

from __future__ import annotations

import re

import numpy as np
import pytest
import svmkit
from libsvm import svmutil as official
from references import write_libsvm_file
from sklearn.datasets import load_diabetes, load_iris
from sklearn.preprocessing import MinMaxScaler
from svmkit import cli, load_model, save_model, svmutil
from svmkit._foreign_models import load_libsvm_model, save_libsvm_model


@pytest.fixture(scope="module")
def data():
    X, y = load_iris(return_X_y=True)
    X = MinMaxScaler((-1, 1)).fit_transform(X)
    Xr, yr = load_diabetes(return_X_y=True)
    Xr = MinMaxScaler((-1, 1)).fit_transform(Xr)[:120]
    yr = (yr[:120] - yr[:120].mean()) / yr[:120].std()
    return X, y, Xr, yr


def _rows(X):
    return [{j + 1: float(v) for j, v in enumerate(r)} for r in X]


def _fitted(name, data):
    X, y, Xr, yr = data
    if name == "NuSVC":
        return svmkit.NuSVC(nu=0.3, gamma=0.5).fit(X, y), X
    if name == "NuSVC2":
        return svmkit.NuSVC(nu=0.4, gamma=0.5).fit(X[y > 0], y[y > 0]), X[y > 0]
    if name == "NuSVR":
        return svmkit.NuSVR(nu=0.35, C=2.0, gamma=0.1).fit(Xr, yr), Xr
    return svmkit.OneClassSVM(nu=0.2, gamma=0.5).fit(X), X


@pytest.mark.parametrize("name", ["NuSVC", "NuSVC2", "NuSVR", "OneClassSVM"])
def test_svmkit_format_keeps_nu(tmp_path, data, name):
    est, X = _fitted(name, data)
    path = tmp_path / "m.txt"
    save_model(est, path)
    assert float(re.search(r"\nnu (\S+)\n", path.read_text()).group(1)) == est.nu
    back = load_model(path)
    assert type(back) is type(est)
    assert back.nu == est.nu
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
    if hasattr(est, "decision_function"):
        np.testing.assert_allclose(back.decision_function(X), est.decision_function(X), rtol=1e-12)
    save_model(back, tmp_path / "again.txt")  # a loaded model saves the same file
    assert (tmp_path / "again.txt").read_text() == path.read_text()


def test_svmkit_format_without_nu_reads_as_before(tmp_path, data):
    """Files written before the "nu" line existed load as they did: the C / epsilon types."""
    est, X = _fitted("NuSVR", data)
    path = tmp_path / "m.txt"
    save_model(est, path)
    text = path.read_text()
    body = re.sub(r"nu [^\n]*\n", "", text.split("checksum")[0])
    path.write_text(body)  # no checksum line: an older file
    back = load_model(path)
    assert type(back) is svmkit.SVR
    np.testing.assert_allclose(back.predict(X), est.predict(X), rtol=1e-12)


@pytest.mark.parametrize(
    "old,new,message",
    [
        (r"\nnu \S+\n", "\nnu 0\n", "nu must be in \\(0, 1\\]"),
        (r"\nnu \S+\n", "\nnu 1.5\n", "nu must be in \\(0, 1\\]"),
        (r"\nnu \S+\n", "\nnu x\n", "line"),
        (r"\nnu \S+\n", "\nnu 0.5\nprob_sigma -1\n", "prob_sigma must be positive"),
        (
            r"\nnu \S+\n",
            "\nnu 0.5\nprob_sigma 1\n",
            "prob_sigma belongs to a regression model",
        ),
        (
            r"\nnu \S+\n",
            "\nnu 0.5\nprob_density_marks 1 2 3 4 5 6 7 8 9 10\n",
            "prob_density_marks belong to an outlier_detection model",
        ),
    ],
)
def test_svmkit_format_errors(tmp_path, data, old, new, message):
    est, _ = _fitted("NuSVC", data)
    path = tmp_path / "m.txt"
    save_model(est, path)
    path.write_text(re.sub(old, new, path.read_text().split("checksum")[0]))
    with pytest.raises(ValueError, match=message):
        load_model(path)


@pytest.mark.parametrize(
    "marks,message",
    [
        ("1 2 3 4 5 6 7 8 9", "prob_density_marks must have 10 values"),
        ("1 2 3 4 5 6 7 8 10 9", "prob_density_marks must be finite and nondecreasing"),
    ],
)
def test_svmkit_format_marks_errors(tmp_path, data, marks, message):
    est, _ = _fitted("OneClassSVM", data)
    path = tmp_path / "m.txt"
    save_model(est, path)
    text = path.read_text().split("checksum")[0]
    path.write_text(text.replace("\nstorage", f"\nprob_density_marks {marks}\nstorage"))
    with pytest.raises(ValueError, match=message):
        load_model(path)


def test_svmkit_format_keeps_libsvm_probability_models(tmp_path, data):
    """svmutil's -b 1 regression / one-class models (sigma, marks) survive svmkit's format."""
    X, _, Xr, yr = data
    for est, Z in (
        (svmutil.svm_train(list(yr), Xr, "-s 4 -b 1 -q").estimator, Xr),
        (svmutil.svm_train(np.zeros(X.shape[0]), X, "-s 2 -b 1 -q").estimator, X),
    ):
        path = tmp_path / "m.txt"
        save_model(est, path)
        back = load_model(path)
        assert type(back) is type(est) and back.nu == est.nu
        for attr in ("prob_sigma_", "prob_density_marks_"):
            if hasattr(est, attr):
                np.testing.assert_array_equal(getattr(back, attr), getattr(est, attr))
        np.testing.assert_allclose(back.predict(Z), est.predict(Z), rtol=1e-12)


# -- LIBSVM's format ---------------------------------------------------------------------------


@pytest.mark.parametrize("name,code", [("NuSVC2", 1), ("NuSVR", 4), ("OneClassSVM", 2)])
def test_libsvm_format_nu_types_both_ways(tmp_path, data, name, code):
    """Our file: libsvm-official reads the nu type and predicts our labels / values. (A LIBSVM
    file has no nu line: LIBSVM's predictor does not need it, and its reader refuses unknown
    lines, so nu itself cannot travel in that format.)"""
    est, X = _fitted(name, data)
    path = str(tmp_path / "m.model")
    save_libsvm_model(path, est)
    kind = {1: "nu_svc", 4: "nu_svr", 2: "one_class"}[code]
    assert open(path).readline().split() == ["svm_type", kind]
    theirs = official.svm_load_model(path)
    assert theirs.get_svm_type() == code
    labels, _, _ = official.svm_predict([0.0] * X.shape[0], _rows(X), theirs, "-q")
    np.testing.assert_allclose(labels, est.predict(X), rtol=1e-9, atol=1e-9)
    back = load_libsvm_model(path)
    assert type(back) is type(est)
    np.testing.assert_allclose(back.predict(X), est.predict(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("svm_type,cls", [("1", svmkit.NuSVC), ("4", svmkit.NuSVR)])
def test_svm_train_nu_types_in_libsvm_files(tmp_path, data, svm_type, cls):
    """`svmkit svm-train -s 1 / -s 4` writes nu_svc / nu_svr models that libsvm-official loads
    as those types and predicts as ours; libsvm-official's own nu file loads as NuSVC / NuSVR."""
    X, y, Xr, yr = data
    if svm_type == "1":
        X, y = X[y > 0], y[y > 0]  # two classes (3-class nu-SVC crashes the official predict)
    else:
        X, y = Xr, yr
    train = write_libsvm_file(tmp_path / "t.txt", X, y)
    model, out = str(tmp_path / "t.model"), str(tmp_path / "t.out")
    assert cli.main(["svm-train", "-s", svm_type, "-n", "0.4", "-q", train, model]) == 0
    assert open(model).readline().split() == ["svm_type", "nu_svc" if svm_type == "1" else "nu_svr"]
    theirs = official.svm_load_model(model)
    assert theirs.get_svm_type() == int(svm_type)
    assert cli.main(["svm-predict", "-q", train, model, out]) == 0
    ours = np.array([float(v) for v in open(out).read().split()])
    labels, _, _ = official.svm_predict(list(y), _rows(X), theirs, "-q")
    np.testing.assert_allclose(ours, labels, rtol=1e-9, atol=1e-9)
    ref = official.svm_train(list(y), _rows(X), f"-s {svm_type} -n 0.4 -q")
    official.svm_save_model(model, ref)
    m = svmutil.svm_load_model(model)
    assert m.get_svm_type() == int(svm_type) and type(m.estimator) is cls
    # (their file keeps SVs to 8 digits: the loaded model is the reference, not ref)
    labels, _, _ = official.svm_predict(list(y), _rows(X), official.svm_load_model(model), "-q")
    mine, _, _ = svmutil.svm_predict(list(y), X, m, "-q")
    np.testing.assert_allclose(mine, labels, rtol=1e-9, atol=1e-9)
