"""The SMO solver's fast paths against scikit-learn (LIBSVM): the feature-major copy for
low-dimensional data and the general kernel-row path beside it, the thread team (results must
not depend on the number of threads), and the deferred kernel-cache swaps under shrinking."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from sklearn import svm as sksvm
from sklearn.datasets import load_digits, make_friedman1, make_moons


def test_results_do_not_depend_on_threads():
    # n = 10,000 two-dimensional samples: kernel rows and gradient / selection sweeps are long
    # enough to be split between threads.
    X, y = make_moons(10000, noise=0.3, random_state=0)
    one = svmkit.SVC(gamma=1.0, n_jobs=1).fit(X, y)
    two = svmkit.SVC(gamma=1.0, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.dual_coef_, two.dual_coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)
    assert one.n_iter_[0] == two.n_iter_[0]
    ref = sksvm.SVC(gamma=1.0).fit(X, y)
    Xt = X[:2000]
    np.testing.assert_allclose(two.decision_function(Xt), ref.decision_function(Xt), atol=2e-3)
    assert np.mean(two.predict(Xt) == ref.predict(Xt)) >= 0.999
    Xr, yr = make_friedman1(6000, noise=1.0, random_state=0)
    r1 = svmkit.SVR(gamma=0.2, n_jobs=1).fit(Xr, yr)
    r2 = svmkit.SVR(gamma=0.2, n_jobs=2).fit(Xr, yr)
    np.testing.assert_array_equal(r1.dual_coef_, r2.dual_coef_)
    rr = sksvm.SVR(gamma=0.2).fit(Xr, yr)
    np.testing.assert_allclose(r2.predict(Xr[:500]), rr.predict(Xr[:500]), atol=5e-3)


@pytest.mark.parametrize(
    "kind",
    ["dense", "float32", "sparse", "wide", "laplacian", "tiny_cache", "poly", "no_shrinking"],
)
def test_kernel_row_paths_match_libsvm(kind):
    """The same problem through each way of computing kernel rows: feature-major copy (dense,
    float32 and sparse input, polynomial), the per-sample path (more than 128 features; the
    laplacian kernel; a cache too small to hold the copy), with and without shrinking."""
    X, y = load_digits(n_class=2, return_X_y=True)
    X = X / 16.0
    params = {"C": 10.0, "gamma": 0.02, "tol": 1e-5}
    ref_params = dict(params)
    Xin = X
    if kind == "float32":
        Xin = X.astype(np.float32)
    elif kind == "sparse":
        Xin = sp.csr_matrix(X)
    elif kind == "wide":  # 192 features: above the feature-major limit of 128
        X = np.hstack([X, np.zeros((X.shape[0], 64)), X[:, :64]])
        Xin = X
    elif kind == "laplacian":
        params["kernel"] = "laplacian"
        ref_params["kernel"] = "precomputed"
    elif kind == "tiny_cache":
        params["cache_size"] = 0.1  # the 0.2 MB copy would take more than half of it
    elif kind == "poly":
        params.update(kernel="poly", degree=2, coef0=1.0, gamma=0.05)
        ref_params = dict(params)
    elif kind == "no_shrinking":
        params["shrinking"] = False
    mine = svmkit.SVC(**params).fit(Xin, y)
    if kind == "laplacian":
        from scipy.spatial.distance import cdist

        K = np.exp(-0.02 * cdist(X, X, "cityblock"))
        ref = sksvm.SVC(**ref_params).fit(K, y)
        ref_dec = ref.decision_function(K)
    else:
        ref = sksvm.SVC(**ref_params).fit(X, y)
        ref_dec = ref.decision_function(X)
    np.testing.assert_allclose(mine.decision_function(Xin), ref_dec, atol=1e-3)
    assert np.array_equal(np.sort(mine.support_), np.sort(ref.support_)) or (
        abs(len(mine.support_) - len(ref.support_)) <= 2
    )
