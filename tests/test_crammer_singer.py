"""Crammer-Singer multiclass SVM (LinearSVC(multi_class="crammer_singer"), LIBLINEAR -s 4).

References: liblinear-official -s 4 at a tight eps (its weights, the primal objective
evaluated here in numpy), clarabel solving the primal QP with one slack per sample, and
scikit-learn's LinearSVC(multi_class="crammer_singer") (LIBLINEAR inside) on iris, wine and
digits. Objectives are computed from the returned weights, never taken from svmkit.
"""

from __future__ import annotations

import warnings

import clarabel
import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from liblinear import liblinearutil
from sklearn.datasets import load_digits, load_iris, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC
from svmkit import _core

TIGHT = {"tol": 1e-9, "max_iter": 100000}


def cs_objective(X, y_idx, cost, W, b, k) -> float:
    """1/2 sum_m (||w_m||^2 + b_m^2) + sum_i C_i max(0, max_{m != y_i} 1 + z_im - z_iy_i)."""
    Z = np.asarray(X @ W.T) + b
    n = Z.shape[0]
    zy = Z[np.arange(n), y_idx]
    other = Z + 1.0
    other[np.arange(n), y_idx] = -np.inf
    loss = np.maximum(0.0, other.max(axis=1) - zy)
    return 0.5 * (np.sum(W * W) + np.sum(b * b)) + float(np.sum(cost * loss))


def core_fit(X, y_idx, cost, k, **opts):
    Xc = np.ascontiguousarray(X, dtype=np.float64)
    res = _core.fit_crammer_singer(
        Xc,
        y_idx.astype(np.float64),
        np.asarray(cost, dtype=np.float64),
        k,
        True,
        1.0,
        {**TIGHT, **opts},
        None,
    )
    sol = np.asarray(res["solution"]).reshape(k, X.shape[1] + 1)
    return res, sol[:, :-1], sol[:, -1]


def small_problem(seed=0, n=60, d=4, k=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = rng.integers(0, k, size=n)
    X += 0.8 * np.eye(k, d)[y]  # overlapping classes: many bounded duals
    return X, y


def qp_objective(X, y, cost, k) -> float:
    """The primal QP: variables (w_m, b_m) for each m and slacks xi_i >= 0 with
    z_iy_i - z_im >= 1 - xi_i (m != y_i); min 1/2 ||W||^2 + sum C_i xi_i (clarabel)."""
    n, d = X.shape
    p = k * (d + 1)
    nv = p + n
    P = sp.diags(np.r_[np.ones(p), np.zeros(n)]).tocsc()
    q = np.r_[np.zeros(p), cost]
    rows, rhs = [], []
    Xe = np.hstack([X, np.ones((n, 1))])
    for i in range(n):
        for m in range(k):
            if m == y[i]:
                continue
            r = np.zeros(nv)  # -(z_iy - z_im) - xi_i <= -1
            r[y[i] * (d + 1) : (y[i] + 1) * (d + 1)] -= Xe[i]
            r[m * (d + 1) : (m + 1) * (d + 1)] += Xe[i]
            r[p + i] = -1.0
            rows.append(r)
            rhs.append(-1.0)
        r = np.zeros(nv)
        r[p + i] = -1.0
        rows.append(r)
        rhs.append(0.0)
    A = sp.csc_matrix(np.array(rows))
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = settings.tol_gap_rel = 1e-11
    settings.tol_feas = 1e-11
    sol = clarabel.DefaultSolver(
        P, q, A, np.array(rhs), [clarabel.NonnegativeConeT(len(rhs))], settings
    ).solve()
    return float(sol.obj_val)


def test_objective_equals_exact_qp():
    X, y = small_problem()
    rng = np.random.default_rng(1)
    cost = rng.uniform(0.2, 2.0, size=y.shape[0])
    cost[:5] = 0.0  # zero costs: the sample drops out
    res, W, b = core_fit(X, y, cost, 3)
    assert res["status"] == svmkit.SolverStatus.converged
    ref = qp_objective(X, y, cost, 3)
    mine = cs_objective(X, y, cost, W, b, 3)
    assert mine == pytest.approx(ref, rel=1e-7)
    assert res["objective"] == pytest.approx(mine, rel=1e-12)
    # strong duality: the reported dual value meets the primal at the optimum
    assert res["dual_objective"] == pytest.approx(mine, rel=1e-7)


@pytest.mark.parametrize("C", [0.05, 1.0, 20.0])
@pytest.mark.parametrize("shrinking", [True, False])
def test_objective_equals_liblinear(C, shrinking):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    k = 3
    m = liblinearutil.train(y.tolist(), X.tolist(), f"-s 4 -c {C} -B 1 -e 1e-9 -q")
    labels = m.get_labels()
    Wl = np.array([m.get_decfun(labels.index(c))[0] for c in range(k)])
    bl = np.array([m.get_decfun(labels.index(c))[1] for c in range(k)])
    cost = np.full(y.shape[0], C)
    ref = cs_objective(X, y, cost, Wl, bl, k)
    res, W, b = core_fit(X, y, cost, k, shrinking=shrinking)
    mine = cs_objective(X, y, cost, W, b, k)
    assert mine == pytest.approx(ref, rel=1e-6)
    assert res["status"] == svmkit.SolverStatus.converged


@pytest.mark.parametrize("loader", [load_iris, load_wine, load_digits])
def test_predictions_equal_scikit_learn(loader):
    X, y = loader(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    kw = dict(multi_class="crammer_singer", C=0.5, tol=1e-8, max_iter=100000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sk = SkLinearSVC(dual=True, **kw).fit(X, y)
    mine = svmkit.LinearSVC(**kw).fit(X, y)
    assert mine.solver_ == "crammer_singer"
    assert mine.coef_.shape == sk.coef_.shape
    # equal labels wherever scikit-learn's best two scores are not tied to within 1e-4
    dec = np.sort(sk.decision_function(X), axis=1)
    clear = dec[:, -1] - dec[:, -2] > 1e-4
    assert clear.mean() > 0.99
    np.testing.assert_array_equal(mine.predict(X)[clear], sk.predict(X)[clear])
    n = y.shape[0]
    classes = np.unique(y)
    yi = np.searchsorted(classes, y)
    cost = np.full(n, 0.5)
    assert cs_objective(X, yi, cost, mine.coef_, mine.intercept_, len(classes)) == pytest.approx(
        cs_objective(X, yi, cost, sk.coef_, sk.intercept_, len(classes)), rel=1e-6
    )


def test_binary_reports_one_decision_function_like_scikit_learn():
    X, y = load_iris(return_X_y=True)
    X, y = X[y > 0], y[y > 0]
    kw = dict(multi_class="crammer_singer", tol=1e-9, max_iter=100000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sk = SkLinearSVC(**kw).fit(X, y)
    mine = svmkit.LinearSVC(**kw).fit(X, y)
    assert mine.coef_.shape == (1, 4) == sk.coef_.shape
    np.testing.assert_allclose(mine.coef_, sk.coef_, rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(mine.intercept_, sk.intercept_, rtol=1e-4, atol=1e-5)
    np.testing.assert_array_equal(mine.predict(X), sk.predict(X))


def test_sample_and_class_weights_enter_the_costs():
    X, y = load_iris(return_X_y=True)
    rng = np.random.default_rng(3)
    sw = rng.uniform(0.0, 3.0, size=y.shape[0])
    cw = {0: 0.5, 1: 2.0, 2: 1.0}
    kw = dict(multi_class="crammer_singer", C=0.7, tol=1e-9, max_iter=100000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        sk = SkLinearSVC(class_weight=cw, **kw).fit(X, y, sample_weight=sw)
    mine = svmkit.LinearSVC(class_weight=cw, **kw).fit(X, y, sample_weight=sw)
    cost = 0.7 * sw * np.array([cw[c] for c in y])
    ref = cs_objective(X, y, cost, sk.coef_, sk.intercept_, 3)
    assert cs_objective(X, y, cost, mine.coef_, mine.intercept_, 3) == pytest.approx(ref, rel=1e-6)
    # integer sample weights are repeated samples
    rep = rng.integers(1, 4, size=y.shape[0])
    a = svmkit.LinearSVC(**kw).fit(X, y, sample_weight=rep.astype(float))
    b = svmkit.LinearSVC(**kw).fit(np.repeat(X, rep, axis=0), np.repeat(y, rep))
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-5, atol=1e-6)


def test_sparse_float32_fortran_and_no_intercept_agree():
    X, y = load_iris(return_X_y=True)
    kw = dict(multi_class="crammer_singer", tol=1e-10, max_iter=100000)
    dense = svmkit.LinearSVC(**kw).fit(X, y)
    for Xv in (sp.csr_matrix(X), np.asfortranarray(X)):
        other = svmkit.LinearSVC(**kw).fit(Xv, y)
        np.testing.assert_allclose(other.coef_, dense.coef_, rtol=1e-6, atol=1e-8)
    f32 = svmkit.LinearSVC(multi_class="crammer_singer", tol=1e-4, max_iter=100000)
    f32.fit(X.astype(np.float32), y)
    c1 = np.ones(y.shape[0])
    f_dense = cs_objective(X, y, c1, dense.coef_, dense.intercept_, 3)
    assert cs_objective(X, y, c1, f32.coef_, f32.intercept_, 3) == pytest.approx(f_dense, rel=1e-3)
    noint = svmkit.LinearSVC(fit_intercept=False, **kw).fit(X, y)
    assert np.all(noint.intercept_ == 0.0)
    m = liblinearutil.train(y.tolist(), X.tolist(), "-s 4 -e 1e-10 -q")
    labels = m.get_labels()
    Wl = np.array([m.get_decfun(labels.index(c))[0] for c in range(3)])
    cost = np.ones(y.shape[0])
    zero = np.zeros(3)
    assert cs_objective(X, y, cost, noint.coef_, zero, 3) == pytest.approx(
        cs_objective(X, y, cost, Wl, zero, 3), rel=1e-6
    )


def test_max_iter_warns_and_callback_stops():
    X, y = load_digits(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="iteration limit"):
        svmkit.LinearSVC(multi_class="crammer_singer", max_iter=1, tol=1e-12).fit(X, y)
    seen = []
    with pytest.warns(ConvergenceWarning, match="stopped by the callback"):
        svmkit.LinearSVC(
            multi_class="crammer_singer", callback=lambda r: seen.append(r) or len(seen) < 2
        ).fit(X, y)
    assert len(seen) == 2


def test_errors_name_the_problem():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="regularizes the intercept"):
        svmkit.LinearSVC(multi_class="crammer_singer", regularize_intercept=False).fit(X, y)
    Xc = np.ascontiguousarray(X)
    cost = np.ones(y.shape[0])
    with pytest.raises(ValueError, match="class indices 0 .. n_classes-1"):
        _core.fit_crammer_singer(Xc, y + 0.5, cost, 3, True, 1.0, {}, None)
    with pytest.raises(ValueError, match="n_classes >= 2"):
        _core.fit_crammer_singer(Xc, y * 0.0, cost, 1, True, 1.0, {}, None)
    with pytest.raises(ValueError, match="per-sample costs must be finite"):
        _core.fit_crammer_singer(Xc, y.astype(float), -cost, 3, True, 1.0, {}, None)
    with pytest.raises(ValueError, match="crammer_singer option 'tol' must be > 0"):
        _core.fit_crammer_singer(Xc, y.astype(float), cost, 3, True, 1.0, {"tol": 0.0}, None)
    with pytest.raises(ValueError, match="unknown crammer_singer option"):
        _core.fit_crammer_singer(Xc, y.astype(float), cost, 3, True, 1.0, {"bogus": 1}, None)
    assert svmkit.solver_defaults("crammer_singer")["tol"] == 1e-4
