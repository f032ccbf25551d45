"""SVC/SVR by SMO against LIBSVM (scikit-learn), clarabel and the KKT conditions."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import box_qp
from sklearn import svm as sksvm
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_iris,
    load_svmlight_file,
    load_wine,
    make_circles,
    make_moons,
)
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.metrics.pairwise import pairwise_kernels
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from svmkit import SolverStatus, _core

TOL = 1e-7


def _scaled(X):
    return StandardScaler().fit_transform(X)


def _kernel_matrix(X, Y, kernel, gamma, coef0=0.0, degree=3):
    if kernel == "laplacian":
        from scipy.spatial.distance import cdist

        return np.exp(-gamma * cdist(X, Y, "cityblock"))
    if kernel == "precomputed":
        return X
    return pairwise_kernels(
        X, Y, metric=kernel, gamma=gamma, coef0=coef0, degree=degree, filter_params=True
    )


def _svc_dual(coef, K):
    """LIBSVM's minimized dual 1/2 a'Qa - e'a from signed coefficients y_i a_i."""
    return 0.5 * coef @ K @ coef - np.abs(coef).sum()


def _binary(name):
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
        return _scaled(X)[:300], y[:300]
    if name == "moons":
        return make_moons(300, noise=0.25, random_state=0)
    if name == "circles":
        return make_circles(300, noise=0.1, factor=0.5, random_state=1)
    raise KeyError(name)


KERNELS = [
    ("rbf", {}),
    ("linear", {}),
    ("poly", {"degree": 3, "coef0": 1.0}),
    ("sigmoid", {"coef0": 0.0, "gamma": 0.01}),
]


def _compare_binary(X, y, kernel, params, C=1.0, ws="second_order"):
    mine = svmkit.SVC(kernel=kernel, C=C, tol=TOL, working_set=ws, **params).fit(X, y)
    ref = sksvm.SVC(kernel=kernel, C=C, tol=TOL, **params).fit(X, y)
    g = mine._gamma_
    K = _kernel_matrix(X, X, kernel, g, params.get("coef0", 0.0), params.get("degree", 3))
    a = np.zeros(len(y))
    a[mine.support_] = mine.dual_coef_[0]
    b = np.zeros(len(y))
    b[ref.support_] = ref.dual_coef_[0]
    fa, fb = _svc_dual(a, K), _svc_dual(b, K)
    assert abs(fa - fb) <= 1e-4 * abs(fb)
    da, db = mine.decision_function(X), ref.decision_function(X)
    assert np.max(np.abs(da - db)) <= 1e-3 * max(1.0, np.max(np.abs(db)))
    assert np.mean(mine.predict(X) == ref.predict(X)) >= 0.999
    assert mine.result_[0]["optimality"] < TOL
    assert mine.fit_status_ == 0
    return mine, ref


@pytest.mark.parametrize("data", ["breast_cancer", "moons", "circles"])
@pytest.mark.parametrize("kernel,params", KERNELS)
def test_svc_matches_libsvm(data, kernel, params):
    X, y = _binary(data)
    _compare_binary(X, y, kernel, params)


@pytest.mark.parametrize("ws", ["second_order", "max_violating_pair"])
@pytest.mark.parametrize("C", [0.1, 10.0])
def test_svc_working_sets_and_C(ws, C):
    X, y = _binary("moons")
    _compare_binary(X, y, "rbf", {}, C=C, ws=ws)


def test_laplacian_against_independent_qp():
    """LIBSVM has no laplacian kernel: check against clarabel on the same dual."""
    X, y = _binary("moons")
    X, y = X[:150], y[:150]
    m = svmkit.SVC(kernel="laplacian", gamma=0.5, tol=TOL).fit(X, y)
    K = _kernel_matrix(X, X, "laplacian", 0.5)
    ys = np.where(y == 1, 1.0, -1.0)
    a, _ = box_qp(ys[:, None] * K * ys[None, :], -np.ones(len(y)), np.ones(len(y)), ys)
    coef = np.zeros(len(y))
    coef[m.support_] = m.dual_coef_[0]
    assert abs(_svc_dual(coef, K) - _svc_dual(a * ys, K)) <= 1e-4 * abs(_svc_dual(a * ys, K))
    assert m.result_[0]["optimality"] < TOL


@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_squared_hinge_dual_against_clarabel(kernel):
    X, y = _binary("breast_cancer")
    X, y = X[:200], y[:200]
    C = 0.7
    m = svmkit.SVC(kernel=kernel, loss="squared_hinge", C=C, tol=TOL).fit(X, y)
    K = _kernel_matrix(X, X, kernel, m._gamma_)
    ys = np.where(y == 1, 1.0, -1.0)
    P = ys[:, None] * K * ys[None, :] + np.eye(len(y)) / (2 * C)
    a_ref, f_ref = box_qp(P, -np.ones(len(y)), np.full(len(y), np.inf), ys)
    a = np.zeros(len(y))
    a[m.support_] = m.dual_coef_[0] * ys[m.support_]
    f = 0.5 * a @ P @ a - a.sum()
    assert abs(f - f_ref) <= 1e-6 * abs(f_ref)
    assert m.result_[0]["optimality"] < TOL


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_regularized_bias_against_clarabel(loss):
    X, y = _binary("moons")
    C = 2.0
    m = svmkit.SVC(kernel="rbf", gamma=1.0, C=C, loss=loss, regularize_intercept=True, tol=TOL).fit(
        X, y
    )
    K = _kernel_matrix(X, X, "rbf", 1.0)
    ys = np.where(y == 1, 1.0, -1.0)
    P = ys[:, None] * (K + 1.0) * ys[None, :]
    upper = np.full(len(y), C)
    if loss == "squared_hinge":
        P = P + np.eye(len(y)) / (2 * C)
        upper = np.full(len(y), np.inf)
    a_ref, f_ref = box_qp(P, -np.ones(len(y)), upper)
    a = np.zeros(len(y))
    a[m.support_] = m.dual_coef_[0] * ys[m.support_]
    f = 0.5 * a @ P @ a - a.sum()
    assert abs(f - f_ref) <= 1e-6 * abs(f_ref)
    # The bias is the coordinate of the constant feature: b = sum_i y_i a_i.
    assert m.intercept_[0] == pytest.approx(np.sum(a * ys), rel=1e-9, abs=1e-12)
    dec = K @ (a * ys) + np.sum(a * ys)
    assert np.allclose(m.decision_function(X), dec, atol=1e-8)


def test_svr_regularized_bias_against_clarabel():
    X, y = load_diabetes(return_X_y=True)
    X, y = _scaled(X)[:150], (y[:150] - y.mean()) / y.std()
    C, eps = 1.0, 0.1
    m = svmkit.SVR(C=C, epsilon=eps, gamma=0.1, regularize_intercept=True, tol=TOL).fit(X, y)
    K = _kernel_matrix(X, X, "rbf", 0.1) + 1.0
    n = len(y)
    P = np.block([[K, -K], [-K, K]])
    q = np.concatenate([eps - y, eps + y])
    a_ref, f_ref = box_qp(P, q, np.full(2 * n, C))
    beta = np.zeros(n)
    beta[m.support_] = m.dual_coef_[0]
    f = 0.5 * beta @ K @ beta + eps * np.abs(beta).sum() - y @ beta
    assert abs(f - f_ref) <= 1e-6 * abs(f_ref)


@pytest.mark.parametrize("kernel,params", KERNELS[:3] + [("laplacian", {"gamma": 0.1})])
def test_svr_matches_libsvm(kernel, params):
    X, y = load_diabetes(return_X_y=True)
    X, y = _scaled(X)[:300], (y[:300] - y.mean()) / y.std()
    mine = svmkit.SVR(kernel=kernel, C=1.0, epsilon=0.1, tol=TOL, **params).fit(X, y)
    K = _kernel_matrix(X, X, kernel, mine._gamma_, params.get("coef0", 0.0))
    beta = np.zeros(len(y))
    beta[mine.support_] = mine.dual_coef_[0]
    f = 0.5 * beta @ K @ beta + 0.1 * np.abs(beta).sum() - y @ beta
    assert mine.result_[0]["optimality"] < TOL
    if kernel == "laplacian":  # not in LIBSVM: independent QP instead
        n = len(y)
        P = np.block([[K, -K], [-K, K]])
        q = np.concatenate([0.1 - y, 0.1 + y])
        e = np.concatenate([np.ones(n), -np.ones(n)])
        _, f_ref = box_qp(P, q, np.ones(2 * n), e)
        assert abs(f - f_ref) <= 1e-4 * abs(f_ref)
        return
    ref = sksvm.SVR(kernel=kernel, C=1.0, epsilon=0.1, tol=TOL, **params).fit(X, y)
    b = np.zeros(len(y))
    b[ref.support_] = ref.dual_coef_[0]
    f_ref = 0.5 * b @ K @ b + 0.1 * np.abs(b).sum() - y @ b
    assert abs(f - f_ref) <= 1e-4 * abs(f_ref)
    pa, pb = mine.predict(X), ref.predict(X)
    assert np.max(np.abs(pa - pb)) <= 1e-3 * max(1.0, np.max(np.abs(pb)))


@pytest.mark.parametrize("shape", ["ovr", "ovo"])
@pytest.mark.parametrize("data", ["wine", "digits"])
def test_multiclass_matches_libsvm(shape, data):
    if data == "wine":
        X, y = load_wine(return_X_y=True)
        X = _scaled(X)
    else:
        X, y = load_digits(return_X_y=True)
        X, y = X[:500] / 16.0, y[:500]
    kw = dict(C=3.0, tol=1e-6, decision_function_shape=shape)
    a = svmkit.SVC(**kw).fit(X, y)
    b = sksvm.SVC(**kw).fit(X, y)
    np.testing.assert_array_equal(a.n_support_, b.n_support_)
    np.testing.assert_array_equal(a.support_, b.support_)
    np.testing.assert_allclose(a.dual_coef_, b.dual_coef_, atol=1e-4)
    np.testing.assert_allclose(a.intercept_, b.intercept_, atol=1e-4)
    da, db = a.decision_function(X), b.decision_function(X)
    assert da.shape == db.shape
    assert np.max(np.abs(da - db)) <= 1e-3 * max(1.0, np.abs(db).max())
    assert np.mean(a.predict(X) == b.predict(X)) >= 0.999
    bt = svmkit.SVC(break_ties=True, **kw).fit(X, y) if shape == "ovr" else None
    if bt is not None:
        ref = sksvm.SVC(break_ties=True, **kw).fit(X, y)
        assert np.mean(bt.predict(X) == ref.predict(X)) >= 0.999


def test_class_and_sample_weight_match_libsvm():
    X, y = _binary("breast_cancer")
    rng = np.random.RandomState(0)
    sw = rng.uniform(0.2, 3.0, len(y))
    sw[:5] = 0.0
    kw = dict(C=2.0, tol=TOL, class_weight={0: 3.0, 1: 0.5})
    a = svmkit.SVC(**kw).fit(X, y, sample_weight=sw)
    b = sksvm.SVC(**kw).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-3)
    assert not set(a.support_) & set(range(5))
    bal = svmkit.SVC(class_weight="balanced", tol=TOL).fit(X, y)
    ref = sksvm.SVC(class_weight="balanced", tol=TOL).fit(X, y)
    np.testing.assert_allclose(bal.decision_function(X), ref.decision_function(X), atol=1e-3)
    Xr, yr = load_diabetes(return_X_y=True)
    Xr, yr = _scaled(Xr)[:200], (yr[:200] - yr.mean()) / yr.std()
    swr = rng.uniform(0.5, 2.0, len(yr))
    r1 = svmkit.SVR(tol=TOL).fit(Xr, yr, sample_weight=swr)
    r2 = sksvm.SVR(tol=TOL).fit(Xr, yr, sample_weight=swr)
    np.testing.assert_allclose(r1.predict(Xr), r2.predict(Xr), atol=1e-3)


def test_sparse_float32_and_precomputed_match_dense():
    X, y = _binary("breast_cancer")
    dense = svmkit.SVC(tol=TOL).fit(X, y)
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    ref = sksvm.SVC(tol=TOL).fit(Xs, y)
    mine = svmkit.SVC(tol=TOL).fit(Xs, y)
    np.testing.assert_allclose(mine.decision_function(Xs), ref.decision_function(Xs), atol=1e-3)
    f32 = svmkit.SVC(tol=TOL).fit(X.astype(np.float32), y)
    np.testing.assert_allclose(f32.decision_function(X), dense.decision_function(X), atol=1e-3)
    K = _kernel_matrix(X, X, "rbf", dense._gamma_)
    pre = svmkit.SVC(kernel="precomputed", tol=TOL).fit(K, y)
    np.testing.assert_allclose(pre.decision_function(K), dense.decision_function(X), atol=1e-3)
    refp = sksvm.SVC(kernel="precomputed", tol=TOL).fit(K, y)
    np.testing.assert_allclose(pre.decision_function(K), refp.decision_function(K), atol=1e-3)


def _very_wide(n_features=400_000):
    """breast_cancer's 30 standardized features spread over n_features columns, training rows
    (300) and test rows (100) with 5 extra entries each in columns no training row stores."""
    X, y = _binary("breast_cancer")
    Xt, _ = load_breast_cancer(return_X_y=True)
    Xt = StandardScaler().fit(load_breast_cancer(return_X_y=True)[0][:300]).transform(Xt[300:400])
    rng = np.random.default_rng(0)
    cols = rng.choice(n_features, 40, replace=False)
    used, extra = cols[:30], cols[30:]
    train = sp.csr_matrix(
        (X.ravel(), (np.repeat(np.arange(300), 30), np.tile(used, 300))), shape=(300, n_features)
    )
    rows = np.r_[np.repeat(np.arange(100), 30), np.repeat(np.arange(100), 5)]
    where = np.r_[np.tile(used, 100), rng.choice(extra, 500)]
    vals = np.r_[Xt.ravel(), rng.standard_normal(500)]
    test = sp.csr_matrix((vals, (rows, where)), shape=(100, n_features))
    test.sum_duplicates()
    return train, y, test


@pytest.mark.parametrize("kernel,params", [*KERNELS, ("laplacian", {"gamma": 0.05})])
def test_very_wide_sparse_rows_match_libsvm(kernel, params):
    """Sparse rows over 400,000 features (past the 10^5 above which a kernel row's scratch is
    renumbered to the features the other side stores: kernel.hpp renumber_columns): the fit
    and the decision values on test rows with features no training row has match LIBSVM's on
    the same sparse data (laplacian: LIBSVM on the precomputed kernel of the used columns)."""
    X, y, T = _very_wide()
    mine = svmkit.SVC(kernel=kernel, tol=TOL, **params).fit(X, y)
    if kernel == "laplacian":
        cols = np.unique(np.r_[X.indices, T.indices])
        Xd, Td = X[:, cols].toarray(), T[:, cols].toarray()
        g = params["gamma"]
        ref = sksvm.SVC(kernel="precomputed", tol=TOL).fit(_kernel_matrix(Xd, Xd, kernel, g), y)
        expect = ref.decision_function(_kernel_matrix(Td, Xd, kernel, g))
    else:
        ref = sksvm.SVC(kernel=kernel, tol=TOL, **params).fit(X, y)
        expect = ref.decision_function(T)
    got = mine.decision_function(T)
    assert np.max(np.abs(got - expect)) <= 1e-3 * max(1.0, np.max(np.abs(expect)))
    assert mine.result_[0]["optimality"] < TOL


def test_cache_size_bound_and_no_shrinking():
    X, y = make_moons(1500, noise=0.3, random_state=0)
    big = svmkit.SVC(tol=1e-5, cache_size=200).fit(X, y)
    small = svmkit.SVC(tol=1e-5, cache_size=0.2, shrinking=False).fit(X, y)
    assert small.result_[0]["cache_peak_mb"] <= 0.2 + 1e-9
    assert big.result_[0]["cache_peak_mb"] > 0.2
    assert small.result_[0]["kernel_rows"] > big.result_[0]["kernel_rows"]
    ref = sksvm.SVC(tol=1e-5).fit(X, y)
    for m in (big, small):
        np.testing.assert_allclose(m.decision_function(X), ref.decision_function(X), atol=1e-3)


def test_probability_platt():
    X, y = load_wine(return_X_y=True)
    X = _scaled(X)
    m = svmkit.SVC(probability=True, random_state=0).fit(X, y)
    p = m.predict_proba(X)
    assert p.shape == (len(y), 3)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    assert np.mean(p.argmax(1) == np.searchsorted(m.classes_, m.predict(X))) > 0.95
    np.testing.assert_allclose(np.exp(m.predict_log_proba(X)), p)
    with pytest.warns(FutureWarning):
        ref = sksvm.SVC(probability=True, random_state=0).fit(X, y)
    # Different random folds: close, not equal.
    assert np.max(np.abs(p - ref.predict_proba(X))) < 0.15
    Xb, yb = _binary("moons")
    mb = svmkit.SVC(probability=True, random_state=0).fit(Xb, yb)
    pb = mb.predict_proba(Xb)
    assert np.mean((pb[:, 1] > 0.5) == (mb.decision_function(Xb) > 0)) > 0.97
    with pytest.raises(AttributeError, match="has no attribute 'predict_proba'"):
        svmkit.SVC().fit(Xb, yb).predict_proba(Xb)


def test_save_load_round_trip(tmp_path):
    X, y = load_wine(return_X_y=True)
    X = _scaled(X)
    for est in (svmkit.SVC(kernel="poly", coef0=1.0), svmkit.SVC(probability=True, random_state=0)):
        est.fit(X, y + 1)
        svmkit.save_model(est, tmp_path / "m.txt")
        back = svmkit.load_model(tmp_path / "m.txt")
        np.testing.assert_array_equal(back.predict(X), est.predict(X))
        np.testing.assert_allclose(back.decision_function(X), est.decision_function(X))
        if est.probability:
            np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X))
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    r = svmkit.SVR(kernel="laplacian").fit(Xs, X[:, 0])
    svmkit.save_model(r, tmp_path / "r.txt")
    back = svmkit.load_model(tmp_path / "r.txt")
    np.testing.assert_allclose(back.predict(Xs), r.predict(Xs))
    assert "kind kernel" in (tmp_path / "r.txt").read_text()
    lin = svmkit.LinearSVC().fit(X, y)
    svmkit.save_model(lin, tmp_path / "l.txt")
    assert isinstance(svmkit.load_model(tmp_path / "l.txt"), svmkit.LinearSVC)
    (tmp_path / "bad.txt").write_text("svmkit_model 1\nkind kernel\nkernel nope\nend\n")
    with pytest.raises(ValueError, match="unknown kernel"):
        svmkit.load_model(tmp_path / "bad.txt")


def test_history_callback_and_interrupt():
    X, y = make_moons(2000, noise=0.3, random_state=0)
    seen = []
    m = svmkit.SVC(
        C=10.0, solver_options={"history_every": 50}, callback=lambda r: seen.append(r) or True
    ).fit(X, y)
    assert len(seen) >= 2 and all(np.isfinite(r["optimality"]) for r in seen)
    with pytest.warns(UserWarning, match="iteration limit"):
        m = svmkit.SVC(C=10.0, max_iter=5).fit(X, y)
    assert m.fit_status_ == 1 and m.n_iter_[0] == 5
    stop = svmkit.SVC(C=10.0, solver_options={"history_every": 10}, callback=lambda r: False).fit(
        X, y
    )
    assert stop.result_[0]["status"] == SolverStatus.interrupted


@pytest.mark.parametrize(
    "params,match",
    [
        ({"kernel": "nope"}, "kernel must be one of"),
        ({"C": 0.0}, "C must be >"),
        ({"gamma": "bad"}, "gamma must be one of"),
        ({"gamma": -1.0}, "gamma must be >"),
        ({"tol": 0.0}, "tol must be >"),
        ({"cache_size": 0}, "cache_size must be >"),
        ({"degree": -1}, "degree must be >="),
        ({"max_iter": 0}, "max_iter must be"),
        ({"working_set": "x"}, "working_set must be one of"),
        ({"solver": "x"}, "solver must be one of"),
        ({"loss": "x"}, "loss must be one of"),
        ({"decision_function_shape": "x"}, "decision_function_shape must be one of"),
        ({"break_ties": True, "decision_function_shape": "ovo"}, "break_ties must be False"),
        ({"solver_options": {"nope": 1}}, "unknown smo option"),
    ],
)
def test_svc_errors(params, match):
    X, y = _binary("moons")
    with pytest.raises(ValueError, match=match):
        svmkit.SVC(**params).fit(X, y)


def test_other_errors():
    X, y = _binary("moons")
    with pytest.raises(ValueError, match="greater than one"):
        svmkit.SVC().fit(X, np.zeros(len(y)))
    with pytest.raises(ValueError, match="square kernel"):
        svmkit.SVC(kernel="precomputed").fit(X, y)
    with pytest.raises(ValueError, match="zero"):
        svmkit.SVC().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="non-negative"):
        svmkit.SVC().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="epsilon must be >="):
        svmkit.SVR(epsilon=-1.0).fit(X, y.astype(float))
    with pytest.raises(ValueError, match="loss must be one of"):
        svmkit.SVR(loss="hinge").fit(X, y.astype(float))
    with pytest.raises(TypeError, match="callback must be callable"):
        svmkit.SVC(callback=3).fit(X, y)
    with pytest.raises(TypeError, match="solver_options must be a dict"):
        svmkit.SVC(solver_options=3).fit(X, y)
    m = svmkit.SVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :1])
    K = _kernel_matrix(X, X, "rbf", 1.0)
    p = svmkit.SVC(kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match="expecting 300 features"):
        p.predict(K[:, :10])
    with pytest.raises(ValueError, match="not a number|unknown key|not an svmkit"):
        import tempfile

        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("hello\n")
        svmkit.load_model(f.name)
    with pytest.raises(ValueError, match="formulation"):
        _core.fit_smo(
            X, np.ones(len(y)), np.ones(len(y)), None, "rbf", 1.0, 0.0, 3, "x", 0.1, False, {}, None
        )
    with pytest.raises(ValueError, match="labels must be"):
        _core.fit_smo(
            X,
            np.full(len(y), 2.0),
            np.ones(len(y)),
            None,
            "rbf",
            1.0,
            0.0,
            3,
            "svc",
            0.1,
            False,
            {},
            None,
        )
    with pytest.raises(ValueError, match="costs"):
        _core.fit_smo(
            X,
            np.ones(len(y)),
            -np.ones(len(y)),
            None,
            "rbf",
            1.0,
            0.0,
            3,
            "svc",
            0.1,
            False,
            {},
            None,
        )
    with pytest.raises(ValueError, match="out of range"):
        _core.fit_smo(
            X,
            np.ones(2),
            np.ones(2),
            np.array([0, 10**6]),
            "rbf",
            1.0,
            0.0,
            3,
            "svc",
            0.1,
            False,
            {},
            None,
        )


def test_solver_table_and_defaults():
    from svmkit._kernel import KERNEL_SOLVERS

    assert "smo" in KERNEL_SOLVERS
    d = _core.option_defaults("smo")
    assert d["tol"] == 1e-3 and d["working_set"] == "second_order" and d["max_iter"] == 0
    rec = {r["name"]: r for r in _core.option_records("smo")}
    assert "max(10^7, 100 l)" in rec["max_iter"]["doc"]


def test_default_iteration_cap_is_libsvms():
    """max_iter 0 (the default, and SVC(max_iter=-1)) is LIBSVM's cap max(10^7, 100 l): a fit
    that cannot converge (linear kernel on features of 1e5: K ~ 1e10 in a float cache, the
    gradient noise exceeds tol) stops there with a ConvergenceWarning instead of never."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) * 1e5
    y = np.where(rng.normal(size=40) + X[:, 0] / 1e5 > 0, 1.0, -1.0)
    r = _core.fit_smo(X, y, np.ones(40), None, "linear", 1.0, 0.0, 3, "svc", 0.0, False, {}, None)
    assert r["status"] == SolverStatus.max_iter and r["iterations"] == 10**7
    with pytest.raises(ValueError, match="max_iter"):
        _core.fit_smo(
            X, y, np.ones(40), None, "linear", 1, 0, 3, "svc", 0, False, {"max_iter": -2}, None
        )


def _stalling_kernel():
    """A crafted indefinite kernel (seeded): with a large tau, the working pair's curvature
    becomes tau and its step 3.3 / 1e30 is below one ulp of both of its variables."""
    rng = np.random.default_rng(6)
    n = int(rng.integers(3, 6))
    A = rng.uniform(-2, 2, size=(n, n))
    K = (A + A.T) / 2
    np.fill_diagonal(K, 1.0)
    y = np.where(rng.normal(size=n) > 0, 1.0, -1.0)
    y[0], y[-1] = 1.0, -1.0
    return K, y


@pytest.mark.parametrize("shrinking", [True, False])
def test_step_below_one_ulp_stops(shrinking):
    """Before the fix the same pair was selected until max_iter (forever by default)."""
    K, y = _stalling_kernel()
    opts = {"tau": 1e30, "shrinking": shrinking, "max_iter": 10**6}
    r = _core.fit_smo(
        K, y, np.full(len(y), 10.0), None, "precomputed", 1, 0, 3, "svc", 0, False, opts, None
    )
    assert r["status"] == SolverStatus.line_search_failed and r["iterations"] < 10
    assert r["optimality"] > 1e-3 and "below one ulp" in r["message"]
    with pytest.warns(UserWarning, match="no further decrease was possible"):
        # SVC maps the first class (-1) to +1: -y gives the solver the same problem
        svmkit.SVC(kernel="precomputed", C=10.0, solver_options={"tau": 1e30}).fit(K, -y)


def _shared(shared_datasets, name):
    X, y = load_svmlight_file(str(shared_datasets / name))
    X = MinMaxScaler(feature_range=(-1, 1)).fit_transform(X.toarray())
    return X, y


@pytest.mark.parametrize(
    "path,kernel",
    [
        ("svmguide1/svmguide1", "rbf"),
        ("sonar/sonar", "poly"),
        ("splice/splice", "rbf"),
        ("iris/iris", "linear"),
    ],
)
def test_shared_classification(shared_datasets, path, kernel):
    X, y = _shared(shared_datasets, path)
    keep = np.random.RandomState(0).permutation(len(y))[:1500]
    X, y = X[keep], y[keep]
    kw = dict(kernel=kernel, C=1.0, tol=1e-6, coef0=1.0 if kernel == "poly" else 0.0)
    a = svmkit.SVC(**kw).fit(X, y)
    b = sksvm.SVC(**kw).fit(X, y)
    da, db = a.decision_function(X), b.decision_function(X)
    assert np.max(np.abs(da - db)) <= 1e-3 * max(1.0, np.abs(db).max())
    assert np.mean(a.predict(X) == b.predict(X)) >= 0.999
    assert all(r["optimality"] < 1e-6 for r in a.result_)


def test_shared_regression(shared_datasets):
    X, y = _shared(shared_datasets, "housing/housing_scale")
    y = (y - y.mean()) / y.std()
    a = svmkit.SVR(C=3.0, tol=1e-6).fit(X, y)
    b = sksvm.SVR(C=3.0, tol=1e-6).fit(X, y)
    assert np.max(np.abs(a.predict(X) - b.predict(X))) <= 1e-3 * np.abs(b.predict(X)).max()
    assert a.result_[0]["optimality"] < 1e-6


def test_sigma_and_gaussian_alias():
    X, y = _binary("moons")
    a = svmkit.SVC(kernel="gaussian", sigma=0.5, tol=TOL).fit(X, y)
    b = sksvm.SVC(kernel="rbf", gamma=1.0 / (2 * 0.5**2), tol=TOL).fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=1e-6)
    with pytest.raises(ValueError, match="sigma applies"):
        svmkit.SVC(kernel="linear", sigma=1.0).fit(X, y)
    with pytest.raises(ValueError, match="sigma must be >"):
        svmkit.SVR(sigma=0.0).fit(X, y.astype(float))


@pytest.mark.parametrize(
    "opts,match",
    [
        ({"shrink_interval": 0}, "shrink_interval"),
        ({"tau": 0.0}, "tau"),
        ({"history_every": 0}, "history_every"),
        ({"poll_interval": 0}, "poll_interval"),
        ({"working_set": "x"}, "working_set"),
        ({"tol": "a"}, "wrong type"),
    ],
)
def test_cpp_option_errors(opts, match):
    X, y = _binary("moons")
    with pytest.raises(ValueError, match=match):
        _core.fit_smo(
            X,
            np.where(y == 1, 1.0, -1.0),
            np.ones(len(y)),
            None,
            "rbf",
            1.0,
            0.0,
            3,
            "svc",
            0.1,
            False,
            opts,
            None,
        )


@pytest.mark.parametrize(
    "edit,match",
    [
        (lambda t: t.replace("end\n", ""), "missing 'end'"),
        (lambda t: t.replace("storage dense", "storage weird"), "storage must be"),
        (lambda t: t.replace("kernel rbf", "kernel foo"), "unknown kernel"),
        (lambda t: t.replace("n_sv ", "n_sv 1"), "wrong number|inconsistent|ends inside"),
        (lambda t: t.replace("gamma ", "gamma x"), "not a number|not a finite"),
        (lambda t: t.replace("svmkit_model 1", "svmkit_model 7"), "unsupported model format"),
        (lambda t: t + "", None),
    ],
)
def test_kernel_model_file_errors(tmp_path, edit, match):
    X, y = _binary("moons")
    m = svmkit.SVC().fit(X, y)
    path = tmp_path / "m.txt"
    svmkit.save_model(m, path)
    path.write_text(edit(path.read_text()))
    if match is None:
        np.testing.assert_array_equal(svmkit.load_model(path).predict(X), m.predict(X))
        return
    with pytest.raises(ValueError, match=match):
        svmkit.load_model(path)


@pytest.mark.parametrize("Est", [svmkit.SVC, svmkit.SVR])
@pytest.mark.parametrize(
    "kernel, params, match",
    [
        # the float cache's bound (1e38) is checked before the 1e100 guard on K(x, x)
        ("linear", {}, "kernel values up to .* exceed what the float kernel cache holds"),
        ("poly", {"gamma": 1e-3}, "kernel values up to .* exceed what the float kernel cache"),
        ("rbf", {"gamma": 1e-3}, "squared norm above 1e100"),
    ],
)
def test_overflowing_kernel_values_raise_instead_of_hanging(Est, kernel, params, match):
    # Finite but huge features make K(x, x) or |x|^2 overflow; SMO would then loop forever on
    # inf/nan gradients. The fit must refuse with a message that names the problem.
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    with pytest.raises(ValueError, match=match):
        Est(kernel=kernel, **params).fit(X[:60] * 1e200, y[:60])
    # A degree that overflows on ordinary data is refused the same way.
    if kernel == "poly":
        with pytest.raises(ValueError, match=match):
            Est(kernel="poly", degree=200, gamma=10.0, coef0=10.0).fit(X[:60], y[:60])


@pytest.mark.parametrize(
    "kernel,scale,params",
    [
        ("linear", 2e19, {}),  # K ~ 1.2e39 (diagonal 1.2e39 < the 1e100 guard)
        ("poly", 1e7, {"degree": 3, "gamma": 1.0, "coef0": 0.0}),  # K ~ 1e42
    ],
)
def test_kernel_values_above_the_float_cache_are_refused(kernel, scale, params):
    """Kernel values between 3.4e38 and the 1e100 guard overflowed the float kernel cache (inf
    in the cached rows); they are now refused with a clear error, and 1e37 still fits."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 3))
    y = np.where(X[:, 0] > 0, 1, 0)
    with pytest.raises(ValueError, match="exceed what the float kernel cache holds"):
        svmkit.SVC(kernel=kernel, **params).fit(X * scale, y)
    with pytest.raises(ValueError, match="exceed what the float kernel cache holds"):
        svmkit.SVR(kernel=kernel, **params).fit(X * scale, X[:, 1])
    small = X / np.linalg.norm(X, axis=1).max() * 3e18  # max ||x||^2 = 9e36: accepted
    if kernel == "linear":
        with warnings.catch_warnings():  # only the absence of the error matters here
            warnings.simplefilter("ignore", ConvergenceWarning)
            svmkit.SVC(kernel="linear", max_iter=100).fit(small, y)


def test_precomputed_off_diagonal_above_the_float_cache_is_refused():
    """An indefinite precomputed kernel can hold huge off-diagonal values with a small
    diagonal: the check reads the problem's block."""
    K = np.eye(4)
    K[0, 3] = K[3, 0] = 1e39
    y = np.array([0, 0, 1, 1])
    with pytest.raises(ValueError, match="kernel values up to 1e\\+39 exceed"):
        svmkit.SVC(kernel="precomputed").fit(K, y)
    # a zero-weight sample is not in the problem: its values do not count
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        svmkit.SVC(kernel="precomputed", max_iter=100).fit(K, y, sample_weight=[1, 1, 1, 0])


@pytest.mark.parametrize("name, extra", [("SVC", {}), ("NuSVC", {"nu": 0.1})])
@pytest.mark.parametrize("class_weight", [None, "balanced", {0: 2.0, 2: 0.5}])
def test_class_weight_attribute_is_scikit_learns(name, extra, class_weight):
    """class_weight_: the weight of each class in the order of classes_, as scikit-learn's."""
    X, y = load_iris(return_X_y=True)
    keep = np.r_[0:50, 50:90, 100:150]  # unequal classes, so "balanced" differs from ones
    X, y = X[keep], y[keep]
    ours = getattr(svmkit, name)(class_weight=class_weight, **extra).fit(X, y)
    theirs = getattr(sksvm, name)(class_weight=class_weight, **extra).fit(X, y)
    np.testing.assert_allclose(ours.class_weight_, theirs.class_weight_, rtol=1e-15)


def test_one_class_message_names_the_label():
    with pytest.raises(ValueError, match=r"got 1 class \(2\.0\) in the data"):
        svmkit.SVC().fit(np.eye(3), np.full(3, 2.0))


@pytest.mark.parametrize("name", ["SVC", "NuSVC"])
def test_probability_set_after_the_fit_is_not_fitted(name):
    """As scikit-learn: probability=True set on a model fitted without it raises
    NotFittedError (a ValueError and an AttributeError), naming the refit."""
    X, y = load_iris(return_X_y=True)
    est = getattr(svmkit, name)().fit(X, y)
    est.probability = True
    with pytest.raises(NotFittedError, match="fitted with probability=False"):
        est.predict_proba(X)
    theirs = getattr(sksvm, name)().fit(X, y)
    theirs.probability = True
    with pytest.raises(NotFittedError, match="fitted with probability=False"):
        theirs.predict_proba(X)


def quadratic_kernel(A, B):
    """(a.b + 1)^2: a module-level callable, so that the fitted models pickle."""
    G = A @ B.T
    return (np.asarray(G.todense() if sp.issparse(G) else G) + 1.0) ** 2


@pytest.mark.parametrize(
    "name, task, extra",
    [
        ("SVC", "multiclass", {}),
        ("NuSVC", "multiclass", {}),
        ("SVR", "regression", {"C": 10.0}),
        ("NuSVR", "regression", {"C": 10.0}),
        ("OneClassSVM", "novelty", {}),
    ],
)
@pytest.mark.parametrize("sparse", [False, True])
def test_callable_kernel_matches_scikit_learn(name, task, extra, sparse):
    """kernel=callable: the Gram matrix kernel(X, X_fit) of scikit-learn's estimators, the
    same support and decision values (LIBSVM's algorithm on the same matrix)."""
    if task == "regression":
        X, y = load_diabetes(return_X_y=True)
        X, y = X[:200], y[:200]
    else:
        X, y = load_iris(return_X_y=True)
        X = StandardScaler().fit_transform(X)
    Xs = sp.csr_matrix(X) if sparse else X
    ours = getattr(svmkit, name)(kernel=quadratic_kernel, **extra)
    theirs = getattr(sksvm, name)(kernel=quadratic_kernel, **extra)
    args = (Xs,) if task == "novelty" else (Xs, y)
    ours.fit(*args)
    theirs.fit(*args)
    np.testing.assert_array_equal(ours.support_, theirs.support_)
    assert ours.support_vectors_.shape == (0, 0) and ours.shape_fit_ == X.shape
    got = ours.predict(Xs) if task == "regression" else ours.decision_function(Xs)
    want = theirs.predict(Xs) if task == "regression" else theirs.decision_function(Xs)
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-7 * np.abs(want).max())


def test_callable_kernel_model_pickles_and_refuses_save_model(tmp_path):
    import pickle

    X, y = load_iris(return_X_y=True)
    est = svmkit.SVC(kernel=quadratic_kernel, probability=True, random_state=0).fit(X, y)
    back = pickle.loads(pickle.dumps(est))
    # equal up to the rounding of the Gram product (BLAS may sum in another order for the
    # unpickled training X's alignment)
    np.testing.assert_allclose(back.predict_proba(X), est.predict_proba(X), rtol=1e-10)
    with pytest.raises(ValueError, match="cannot write a model with a callable kernel"):
        svmkit.save_model(est, tmp_path / "m.txt")


@pytest.mark.parametrize(
    "kernel, match",
    [
        (lambda A, B: (A @ B.T)[:, :3], r"returned shape \(150, 3\) .* of shape \(150, 150\)"),
        (lambda A, B: np.full((A.shape[0], B.shape[0]), np.nan), "returned NaN or infinity"),
        (5, "kernel must be one of .* or a callable, got 5"),
    ],
)
def test_callable_kernel_errors(kernel, match):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match=match):
        svmkit.SVC(kernel=kernel).fit(X, y)


def spectrum_kernel(A, B):
    """Shared character 2-grams of two lists of strings (a string kernel: X is not numeric)."""

    def grams(s: str) -> dict:
        out: dict = {}
        for i in range(len(s) - 1):
            out[s[i : i + 2]] = out.get(s[i : i + 2], 0) + 1
        return out

    ga, gb = [grams(a) for a in A], [grams(b) for b in B]
    return np.array([[sum(c * g.get(k, 0) for k, c in f.items()) for g in gb] for f in ga], float)


def random_words(n: int, seed: int) -> tuple[list, np.ndarray]:
    """n distinct seeded strings of 'ab', 'cd' and 'ef' (no ties between rows); the target is
    the share of 'ab' it was drawn with."""
    rng = np.random.default_rng(seed)
    seen: dict = {}
    while len(seen) < n:
        q = rng.uniform(0.1, 0.8)
        seen.setdefault("".join(rng.choice(["ab", "cd", "ef"], 8, p=[q, 0.8 - q, 0.2])), q)
    return list(seen), np.array(list(seen.values()))


@pytest.mark.parametrize(
    "name, task",
    [
        ("SVC", "clf"),
        ("NuSVC", "clf"),
        ("SVR", "reg"),
        ("NuSVR", "reg"),
        ("OneClassSVM", "novelty"),
    ],
)
def test_callable_kernel_takes_non_numeric_X_as_scikit_learn(name, task):
    """A callable kernel gets X as given (strings here), as scikit-learn's: the same support and
    decision values on the same Gram matrix; shape_fit_ is (n_samples,) for a list."""
    words, share = random_words(80, 0)
    y = (share > 0.45).astype(int) if task == "clf" else share
    args = (words,) if task == "novelty" else (words, y)
    # At a tight tol: the integer Gram matrix ties gradients, which each breaks its own way, so
    # at the default tol the two stop at different points within it. The decision values at
    # the optimum are unique (the duals need not be).
    ours = getattr(svmkit, name)(kernel=spectrum_kernel, tol=1e-10).fit(*args)
    theirs = getattr(sksvm, name)(kernel=spectrum_kernel, tol=1e-10).fit(*args)
    assert ours.shape_fit_ == (80,) == theirs.shape_fit_
    test, _ = random_words(30, 1)
    got = ours.predict(test) if task == "reg" else ours.decision_function(test)
    want = theirs.predict(test) if task == "reg" else theirs.decision_function(test)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * np.abs(want).max())


@pytest.mark.parametrize(
    "name, y, match",
    [
        ("SVC", [0, 1] * 10, "inconsistent numbers of samples"),
        ("SVR", [0.5] * 20 + [np.nan], "Input y contains NaN"),
    ],
)
def test_callable_kernel_input_errors(name, y, match):
    words, _ = random_words(21, 2)
    with pytest.raises(ValueError, match=match):
        getattr(svmkit, name)(kernel=spectrum_kernel).fit(words, y)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize(
    "layout", ["dense", "dense_float32", "fortran", "csr", "csr_float32", "csc", "csr_duplicates"]
)
@pytest.mark.parametrize("Est, SkEst", [(svmkit.SVC, sksvm.SVC), (svmkit.SVR, sksvm.SVR)])
def test_gamma_scale_matches_scikit_learn(Est, SkEst, layout) -> None:
    # gamma="scale" = 1 / (n_features X.var()), read in blocks (no X-sized temporary): scikit-
    # learn's value on every layout, more rows than one block holds, and a mean far from 0.
    rng = np.random.default_rng(5)
    X = rng.standard_normal((700, 120)) * rng.uniform(0.1, 3.0, 120) + 4.0
    X[rng.random(X.shape) < 0.6] = 0.0
    y = (X[:, 0] + X[:, 1] > 4.0).astype(float) if Est is svmkit.SVC else X[:, 0] - X[:, 2]
    ref = SkEst().fit(X, y)._gamma
    if layout == "csr_duplicates":  # each stored entry split in two: the values add first
        A = sp.csr_matrix(X)
        counts = np.diff(A.indptr)
        Xin = sp.csr_matrix(
            (
                np.repeat(A.data, 2) * np.tile([0.25, 0.75], A.nnz),
                np.repeat(A.indices, 2),
                np.r_[0, np.cumsum(2 * counts)],
            ),
            shape=X.shape,
        )
        assert not Xin.has_canonical_format
    else:
        Xin = {
            "dense": X,
            "dense_float32": X.astype(np.float32),
            "fortran": np.asfortranarray(X),
            "csr": sp.csr_matrix(X),
            "csr_float32": sp.csr_matrix(X, dtype=np.float32),
            "csc": sp.csc_matrix(X),
        }[layout]
    # float32 input is rounded before its variance is taken; the rest agree to rounding.
    rtol = 1e-6 if "float32" in layout else 1e-12
    assert Est(max_iter=5).fit(Xin, y)._gamma_ == pytest.approx(ref, rel=rtol)


@pytest.mark.parametrize("layout", ["dense", "fortran", "csr"])
def test_gamma_scale_runs_no_blas(monkeypatch, layout) -> None:
    # OpenBLAS threads spin for about 0.1 s after a threaded call, taking a core from the fit on
    # a busy machine (bench_regimes' busy family): the variance's sums of squares avoid BLAS.
    rng = np.random.default_rng(6)
    X = rng.standard_normal((2000, 60))  # two blocks of _VARIANCE_BLOCK values
    y = (X[:, 0] > 0).astype(float)
    Xin = {"dense": X, "fortran": np.asfortranarray(X), "csr": sp.csr_matrix(X)}[layout]

    def no_blas(*args, **kwargs):
        raise AssertionError("BLAS call on SVC's fit path")

    for name in ("dot", "vdot", "inner", "matmul"):
        monkeypatch.setattr(np, name, no_blas)
    gamma = svmkit.SVC(max_iter=5).fit(Xin, y)._gamma_
    monkeypatch.undo()
    assert gamma == pytest.approx(1.0 / (X.shape[1] * X.var()), rel=1e-12)
