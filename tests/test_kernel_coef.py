"""coef_ of the kernel estimators with a linear kernel, against scikit-learn's."""

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from sklearn import svm as sk
from sklearn.datasets import load_iris, make_regression


def _iris(n_classes):
    X, y = load_iris(return_X_y=True)
    keep = y < n_classes
    return X[keep], y[keep]


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    ("ours", "theirs", "params"),
    [(svmkit.SVC, sk.SVC, {"C": 0.5}), (svmkit.NuSVC, sk.NuSVC, {"nu": 0.3})],
)
def test_classifier_coef_matches_sklearn(n_classes, sparse, ours, theirs, params):
    X, y = _iris(n_classes)
    Xf = sp.csr_matrix(X) if sparse else X
    a = ours(kernel="linear", tol=1e-8, **params).fit(Xf, y)
    b = theirs(kernel="linear", tol=1e-8, **params).fit(Xf, y)
    ca, cb = a.coef_, b.coef_
    assert sp.issparse(ca) == sp.issparse(cb)
    ca = ca.toarray() if sp.issparse(ca) else ca
    cb = cb.toarray() if sp.issparse(cb) else cb
    assert ca.shape == (n_classes * (n_classes - 1) // 2, X.shape[1])
    # nu-SVC: scikit-learn's bundled LIBSVM scales the pairs without a free support vector
    # differently from libsvm-official (up to ~0.6%); svmkit equals libsvm-official there
    # (tests/test_nu_svm.py::test_nu_svc_multiclass_decisions_equal_libsvm_official).
    rtol = 1e-3 if ours is svmkit.SVC else 1e-2
    np.testing.assert_allclose(ca, cb, rtol=rtol, atol=1e-3)
    # the decision function is coef_ x + intercept_ (binary) or its one-vs-one values
    a.set_params(decision_function_shape="ovo")
    dec = a.decision_function(X).reshape(len(X), -1)
    np.testing.assert_allclose(X @ ca.T + a.intercept_, dec, rtol=1e-8, atol=1e-8)
    assert not ca.flags.writeable if isinstance(a.coef_, np.ndarray) else True


@pytest.mark.parametrize(
    ("ours", "theirs", "params"),
    [(svmkit.SVR, sk.SVR, {"C": 2.0, "epsilon": 0.5}), (svmkit.NuSVR, sk.NuSVR, {"nu": 0.4})],
)
def test_regressor_coef_matches_sklearn(ours, theirs, params):
    X, y = make_regression(n_samples=80, n_features=5, noise=5.0, random_state=0)
    y = y / np.abs(y).max()
    a = ours(kernel="linear", tol=1e-8, **params).fit(X, y)
    b = theirs(kernel="linear", tol=1e-8, **params).fit(X, y)
    assert a.coef_.shape == (1, 5)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-3, atol=1e-4)


def test_one_class_coef_matches_sklearn():
    X, _ = _iris(3)
    a = svmkit.OneClassSVM(kernel="linear", nu=0.2, tol=1e-8).fit(X)
    b = sk.OneClassSVM(kernel="linear", nu=0.2, tol=1e-8).fit(X)
    assert a.coef_.shape == (1, 4)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("est", [svmkit.SVC(), svmkit.SVR(kernel="poly"), svmkit.OneClassSVM()])
def test_coef_needs_linear_kernel(est):
    X, y = _iris(2)
    est.fit(X) if isinstance(est, svmkit.OneClassSVM) else est.fit(X, y)
    with pytest.raises(AttributeError, match="coef_ is only available when using a linear kernel"):
        _ = est.coef_
    assert not hasattr(est, "coef_")


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize(
    ("ours", "theirs", "task"),
    [
        (svmkit.SVC, sk.SVC, "clf"),
        (svmkit.NuSVC, sk.NuSVC, "clf"),
        (svmkit.SVR, sk.SVR, "reg"),
        (svmkit.NuSVR, sk.NuSVR, "reg"),
        (svmkit.OneClassSVM, sk.OneClassSVM, "novelty"),
    ],
)
def test_dual_coef_and_support_vectors_have_sklearns_types(sparse, ours, theirs, task, tmp_path):
    """After a sparse fit scikit-learn's dual_coef_ and support_vectors_ are CSR matrices (and
    dense after a dense fit); code written against scikit-learn (``dual_coef_.toarray()``)
    must run unchanged. A saved and loaded model keeps the types."""
    if task == "reg":
        X, y = make_regression(80, 5, noise=5.0, random_state=0)
    else:
        X, y = _iris(3)
    Xf = sp.csr_matrix(X) if sparse else X
    fit = (lambda e: e.fit(Xf)) if task == "novelty" else (lambda e: e.fit(Xf, y))
    a, b = fit(ours(tol=1e-8)), fit(theirs(tol=1e-8))
    for attr in ("dual_coef_", "support_vectors_"):
        assert sp.issparse(getattr(a, attr)) == sp.issparse(getattr(b, attr)) == sparse, attr
    dense = a.dual_coef_.toarray() if sparse else a.dual_coef_
    ref = b.dual_coef_.toarray() if sparse else b.dual_coef_
    assert dense.shape == ref.shape
    np.testing.assert_allclose(dense, ref, rtol=1e-3, atol=1e-3)
    path = tmp_path / "model.svmkit"
    svmkit.save_model(a, path)
    c = svmkit.load_model(path)
    assert sp.issparse(c.dual_coef_) == sparse
    got = c.dual_coef_.toarray() if sparse else c.dual_coef_
    np.testing.assert_array_equal(got, dense)
    score = "predict" if task == "reg" else "decision_function"
    np.testing.assert_allclose(getattr(c, score)(X), getattr(a, score)(X), rtol=1e-12)
