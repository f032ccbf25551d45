"""LIBLINEAR and LIBSVM model files, both ways, against liblinear-official and libsvm-official:
their model loaded into svmkit predicts the same; our model written in their format gives the
same labels through their predict."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from liblinear import liblinearutil as official_ll
from libsvm import svmutil as official_svm
from sklearn.datasets import load_diabetes, load_iris, load_wine
from sklearn.preprocessing import StandardScaler
from svmkit import _foreign_models as fm


def wine():
    X, y = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def binary_pm1():
    X, y = load_iris(return_X_y=True)
    X, y = StandardScaler().fit_transform(X[y > 0]), y[y > 0]
    return X, np.where(y == 1, -1, 1)  # -1 first: LIBLINEAR and LIBSVM swap to [+1, -1]


def their_labels(y, X, model, util="ll"):
    if util == "ll":
        return np.array(official_ll.predict(y.tolist(), X.tolist(), model, "-q")[0])
    return np.array(official_svm.svm_predict(y.tolist(), X.tolist(), model, "-q")[0])


@pytest.mark.parametrize("s", [0, 1, 2, 3, 4, 5, 7])
@pytest.mark.parametrize("data", [wine, binary_pm1])
def test_liblinear_classification_files_both_ways(tmp_path, s, data):
    X, y = data()
    m = official_ll.train(y.tolist(), X.tolist(), f"-s {s} -B 1 -q")
    path = tmp_path / "their.model"
    official_ll.save_model(str(path), m)
    est = fm.load_liblinear_model(path)
    np.testing.assert_array_equal(est.predict(X), their_labels(y, X, m))
    # write ours (a fresh svmkit fit of the same formulation), predict with theirs
    fitted = type(est)(**est.get_params()).fit(X, y)  # the same formulation, fitted by svmkit
    out = tmp_path / "ours.model"
    fm.save_liblinear_model(out, fitted)
    theirs = official_ll.load_model(str(out))
    np.testing.assert_array_equal(their_labels(y, X, theirs), fitted.predict(X))


def test_liblinear_file_with_mostly_zero_weights(tmp_path):
    """High feature indices (hashed text): the zero rows of w are written as '0', a -0.0
    keeps its sign, and the official package reads the file as svmkit's own weights."""
    X, y = wine()
    d = 200_000
    gap = sp.csr_matrix((X.shape[0], d - X.shape[1] - 1))
    Xs = sp.hstack([sp.csr_matrix(X), gap, sp.csr_matrix(X[:, :1])], format="csr")
    est = svmkit.LinearSVC(fit_intercept=False).fit(Xs, y)
    est.coef_[0, 5] = -0.0
    out = tmp_path / "ours.model"
    fm.save_liblinear_model(out, est)
    lines = out.read_text().splitlines()
    w_rows = lines[lines.index("w") + 1 :]
    assert len(w_rows) == d
    data = fm.read_liblinear_model(out)
    np.testing.assert_array_equal(np.signbit(data.w[5]), np.signbit(est.coef_[:, 5]))
    np.testing.assert_array_equal(data.w[:d].T, est.coef_)
    assert w_rows[1000] == "0 " * est.coef_.shape[0]
    theirs = official_ll.load_model(str(out))
    rows = Xs[:20]
    ref = official_ll.predict(y[:20].tolist(), rows, theirs, "-q")[0]
    np.testing.assert_array_equal(np.array(ref), est.predict(rows))


@pytest.mark.parametrize("s", [11, 12, 13])
def test_liblinear_regression_files_both_ways(tmp_path, s):
    X, y = load_diabetes(return_X_y=True)
    y = (y - y.mean()) / y.std()
    m = official_ll.train(y.tolist(), X.tolist(), f"-s {s} -B 1 -q")
    path = tmp_path / "their.model"
    official_ll.save_model(str(path), m)
    est = fm.load_liblinear_model(path)
    ref = np.array(official_ll.predict(y.tolist(), X.tolist(), m, "-q")[0])
    np.testing.assert_allclose(est.predict(X), ref, rtol=1e-12, atol=1e-12)
    fm.save_liblinear_model(tmp_path / "ours.model", est)
    theirs = official_ll.load_model(str(tmp_path / "ours.model"))
    got = np.array(official_ll.predict(y.tolist(), X.tolist(), theirs, "-q")[0])
    np.testing.assert_allclose(got, ref, rtol=1e-12, atol=1e-12)


def test_liblinear_one_class_files_both_ways(tmp_path):
    X, _ = wine()
    X = X + 1.0
    m = official_ll.train([1.0] * X.shape[0], X.tolist(), "-s 21 -n 0.3 -q")
    official_ll.save_model(str(tmp_path / "their.model"), m)
    est = fm.load_liblinear_model(tmp_path / "their.model")
    assert isinstance(est, svmkit.LinearOneClassSVM)
    np.testing.assert_array_equal(est.predict(X), their_labels(np.ones(X.shape[0]), X, m))
    fitted = svmkit.LinearOneClassSVM(nu=0.3).fit(X)
    fm.save_liblinear_model(tmp_path / "ours.model", fitted)
    theirs = official_ll.load_model(str(tmp_path / "ours.model"))
    np.testing.assert_array_equal(their_labels(np.ones(X.shape[0]), X, theirs), fitted.predict(X))


@pytest.mark.parametrize("kernel", [0, 1, 2, 3])
@pytest.mark.parametrize("data", [wine, binary_pm1])
def test_libsvm_classification_files_both_ways(tmp_path, kernel, data):
    X, y = data()
    m = official_svm.svm_train(y.tolist(), X.tolist(), f"-t {kernel} -q")
    official_svm.svm_save_model(str(tmp_path / "their.model"), m)
    est = fm.load_libsvm_model(tmp_path / "their.model", n_features=X.shape[1])
    assert isinstance(est, svmkit.SVC)
    np.testing.assert_array_equal(est.predict(X), their_labels(y, X, m, "svm"))
    kern = {0: "linear", 1: "poly", 2: "rbf", 3: "sigmoid"}[kernel]
    fitted = svmkit.SVC(kernel=kern, gamma=1.0 / X.shape[1]).fit(X, y)
    fm.save_libsvm_model(tmp_path / "ours.model", fitted)
    theirs = official_svm.svm_load_model(str(tmp_path / "ours.model"))
    np.testing.assert_array_equal(their_labels(y, X, theirs, "svm"), fitted.predict(X))


def test_libsvm_regression_files_both_ways(tmp_path):
    X, y = load_diabetes(return_X_y=True)
    y = (y - y.mean()) / y.std()
    m = official_svm.svm_train(y.tolist(), X.tolist(), "-s 3 -t 2 -q")
    official_svm.svm_save_model(str(tmp_path / "their.model"), m)
    est = fm.load_libsvm_model(tmp_path / "their.model", n_features=X.shape[1])
    # LIBSVM writes support vectors with 8 significant digits: compare with the file's model
    m = official_svm.svm_load_model(str(tmp_path / "their.model"))
    ref = np.array(official_svm.svm_predict(y.tolist(), X.tolist(), m, "-q")[0])
    np.testing.assert_allclose(est.predict(X), ref, rtol=1e-10, atol=1e-10)
    fitted = svmkit.SVR(gamma=1.0 / X.shape[1]).fit(X, y)
    fm.save_libsvm_model(tmp_path / "ours.model", fitted)
    theirs = official_svm.svm_load_model(str(tmp_path / "ours.model"))
    got = np.array(official_svm.svm_predict(y.tolist(), X.tolist(), theirs, "-q")[0])
    np.testing.assert_allclose(got, fitted.predict(X), rtol=1e-10, atol=1e-10)


def test_sparse_support_vectors_and_label_order(tmp_path):
    X, y = wine()
    y = np.array([3, 1, 2])[y]  # labels whose first occurrence order is not sorted
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    m = official_svm.svm_train(y.tolist(), Xs, "-q")
    assert m.get_labels()[0] == y[0]
    official_svm.svm_save_model(str(tmp_path / "m"), m)
    est = fm.load_libsvm_model(tmp_path / "m", n_features=X.shape[1])
    np.testing.assert_array_equal(
        est.predict(Xs.toarray()), their_labels(y, Xs.toarray(), m, "svm")
    )


_LL = "solver_type L2R_LR\nnr_class 2\n"
_SVM = "kernel_type rbf\nnr_class 2\ntotal_sv 1\nrho 0\nSV\n"
# (tool, file text, message)
FILE_ERRORS = [
    ("ll", "solver_type NOPE\nnr_class 2\nnr_feature 1\nbias -1\nw\n1\n", "solver_type 'NOPE'"),
    ("ll", _LL, "no 'w' line"),
    ("ll", _LL + "label 1 -1\nnr_feature 2\nbias -1\nw\n1\n", "1 weight rows, expected 2"),
    ("ll", _LL + "label a b\nnr_feature 1\nbias -1\nw\n1\n", "label 'a' is not a number"),
    ("ll", "solver_type ONECLASS_SVM\nnr_class 2\nnr_feature 1\nbias -1\nw\n1\n", "without 'rho'"),
    ("ll", _LL + "label 1 2 3\nnr_feature 1\nbias -1\nw\n1\n", "3 labels for nr_class 2"),
    ("ll", _LL + "label 1 2\nnr_feature 1\nbias -1\nw\nx\n", "malformed weight row"),
    ("ll", _LL + "label 1 2\nbias -1\nw\n1\n", "without 'nr_feature'"),
    ("ll", _LL + "label 1 2\nnr_feature 1\nbias -1\nw\n1 2\n", "rows of 2 values, expected 1"),
    ("svm", "svm_type c_svc\n" + _SVM.replace("rbf", "laplace") + "1 1:1\n", "'laplace' is not"),
    ("svm", "svm_type c_svc\n" + _SVM.replace("rbf", "precomputed") + "1 1:2\n", "0:serial"),
    (
        "svm",
        "svm_type c_svc\n" + _SVM.replace("total_sv 1", "total_sv 2") + "1 1:1\n",
        "1 support vectors, total_sv says 2",
    ),
    ("svm", "svm_type c_svm\n" + _SVM + "1 1:1\n", "unknown LIBSVM svm_type 'c_svm'"),
    ("svm", "svm_type c_svc\n" + _SVM + "1 1:x\n", "malformed support vector line 1"),
    # the file's own line number too (blank lines counted, as an editor shows them)
    (
        "svm",
        "svm_type c_svc\n" + _SVM + "\n1 1:x\n",
        r"malformed support vector line 1 \(file line 8\)",
    ),
    ("svm", "svm_type c_svc\nkernel_type rbf\nnr_class 2\nrho 0\nSV\n", "without 'total_sv'"),
    ("svm", "svm_type c_svc\n" + _SVM.replace("\nSV\n", "\n"), "no 'SV' line"),
]


@pytest.mark.parametrize("tool, text, message", FILE_ERRORS, ids=[c[2] for c in FILE_ERRORS])
def test_file_errors_name_the_problem(tmp_path, tool, text, message):
    bad = tmp_path / "bad.model"
    bad.write_text(text)
    load = fm.load_liblinear_model if tool == "ll" else fm.load_libsvm_model
    with pytest.raises(ValueError, match=message):
        load(bad)


def test_save_errors_name_the_problem(tmp_path):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(TypeError, match="LIBLINEAR model files hold"):
        fm.save_liblinear_model(tmp_path / "x", svmkit.SVC().fit(X, y))
    with pytest.raises(TypeError, match="LIBSVM model files hold"):
        fm.save_libsvm_model(tmp_path / "x", svmkit.LinearSVC().fit(X, y))
    with pytest.raises(ValueError, match="numeric labels"):
        fm.save_liblinear_model(
            tmp_path / "x", svmkit.LinearSVC().fit(X, np.array(["a", "b", "c"])[y])
        )


def test_more_file_errors_name_the_problem(tmp_path):
    bad = tmp_path / "bad.model"
    svm = _SVM
    bad.write_text("svm_type epsilon_svr\n" + svm + "1 3:1\n")
    with pytest.raises(ValueError, match="support vectors use 3 features, n_features is 2"):
        fm.load_libsvm_model(bad, n_features=2)
    X, y = load_iris(return_X_y=True)
    est = svmkit.LinearSVC().fit(X, y)
    est.classes_ = est.classes_ + 0.5  # scikit-learn refuses such labels in fit; a model may not
    with pytest.raises(ValueError, match="integer labels"):
        fm.save_liblinear_model(tmp_path / "x", est)
    with pytest.raises(ValueError, match="label_order must list the estimator's classes"):
        fm.liblinear_from_estimator(svmkit.LinearSVC().fit(X, y), label_order=[0, 1])
    svc = svmkit.SVC(kernel="laplacian").fit(X, y)
    with pytest.raises(ValueError, match="LIBSVM has no kernel 'laplacian'"):
        fm.save_libsvm_model(tmp_path / "x", svc)
    svc = svmkit.SVC(regularize_intercept=True).fit(X, y)
    with pytest.raises(ValueError, match="bias is not regularized"):
        fm.save_libsvm_model(tmp_path / "x", svc)
    with pytest.raises(ValueError, match="label_order must list the estimator's classes"):
        fm.libsvm_from_estimator(svmkit.SVC().fit(X, y), label_order=[0, 1])
    if getattr(svmkit, "NuSVR", None) is None:
        bad.write_text("svm_type nu_svr\n" + svm + "1 1:1\n")
        with pytest.raises(ValueError, match="needs svmkit.NuSVR"):
            fm.load_libsvm_model(bad)


def test_svm_read_problem_names_the_file(tmp_path):
    from svmkit import svmutil

    bad = tmp_path / "data.txt"
    bad.write_text("1 1:0.5\n-1 2:x\n")
    with pytest.raises(ValueError, match=rf"{bad}: malformed line 2: '-1 2:x'"):
        svmutil.svm_read_problem(str(bad))
