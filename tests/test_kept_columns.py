"""TRON and dual_cd on sparse data whose columns are mostly empty (text with d >> n).

Both solve on the nonempty columns only (cpp/src/kept_columns.hpp) when those are at most
half of all. An empty column's optimum is w_j = 0 and it contributes exact zeros to every
sum, so the fit must be bit-identical to the fit on X with the empty columns removed, with
zeros put back; the objective is checked against LIBLINEAR (scikit-learn) independently.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from sklearn.svm import LinearSVC as SkLinearSVC
from svmkit.datasets import make_sparse_text_like


@pytest.fixture(scope="module")
def wide():
    X, y = make_sparse_text_like(400, 6000, 0.004, label_noise=0.05, random_state=3)
    X = sp.csr_matrix(X)
    used = np.flatnonzero(np.diff(X.tocsc().indptr) > 0)
    assert 0 < used.size <= X.shape[1] // 2  # the compressed path applies
    return X, y, used


def squared_hinge_objective(X, y, coef, intercept, C=1.0):
    z = y * (X @ coef + intercept)
    return 0.5 * (coef @ coef + intercept**2) + C * np.sum(np.maximum(0.0, 1.0 - z) ** 2)


def fit_pair(make, X, used, y, dtype=np.float64):
    full = make().fit(X.astype(dtype), y)
    dropped = make().fit(X[:, used].astype(dtype), y)
    return full, dropped


CASES = [
    ("tron", dict(loss="squared_hinge", solver="tron")),
    ("tron-logistic", dict(loss="logistic", solver="tron")),
    ("tron-psi_G", dict(loss="gaussian_smoothed_hinge", solver="tron")),
    ("tron-no-intercept", dict(solver="tron", fit_intercept=False)),
    ("dual_cd-hinge", dict(loss="hinge", solver="dual_cd")),
    ("dual_cd-squared", dict(loss="squared_hinge", solver="dual_cd")),
    ("dual_cd-enet", dict(loss="hinge", penalty="elasticnet", solver="dual_cd")),
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["f64", "f32"])
@pytest.mark.parametrize("kw", [c[1] for c in CASES], ids=[c[0] for c in CASES])
def test_empty_columns_change_nothing(wide, kw, dtype):
    X, y, used = wide
    full, dropped = fit_pair(lambda: svmkit.LinearSVC(**kw), X, used, y, dtype)
    empty = np.setdiff1d(np.arange(X.shape[1]), used)
    assert np.all(full.coef_[:, empty] == 0.0)
    np.testing.assert_array_equal(full.coef_[:, used], dropped.coef_)
    np.testing.assert_array_equal(full.intercept_, dropped.intercept_)
    assert full.n_iter_ == dropped.n_iter_


@pytest.mark.parametrize(
    "loss, solver", [("epsilon_insensitive", "dual_cd"), ("squared_epsilon_insensitive", "tron")]
)
def test_linear_svr_on_empty_columns(wide, loss, solver):
    X, _, used = wide
    y = np.asarray(X[:, used[:40]].sum(axis=1)).ravel()
    y += 0.05 * np.random.default_rng(0).standard_normal(y.size)
    full, dropped = fit_pair(lambda: svmkit.LinearSVR(loss=loss, solver=solver), X, used, y)
    np.testing.assert_array_equal(full.coef_[used], dropped.coef_)
    assert np.all(np.delete(full.coef_, used) == 0.0)


@pytest.mark.parametrize("solver", ["tron", "dual_cd"])
def test_objective_matches_liblinear(wide, solver):
    """The optimum itself, against LIBLINEAR (-s 2) at a tight tolerance."""
    X, y, _ = wide
    yy = np.where(y == np.unique(y)[1], 1.0, -1.0)
    ours = svmkit.LinearSVC(solver=solver, tol=1e-8, max_iter=100000).fit(X, y)
    ref = SkLinearSVC(dual=False, tol=1e-10, max_iter=100_000).fit(X, y)
    f = squared_hinge_objective(X, yy, ours.coef_[0], ours.intercept_[0])
    f_ref = squared_hinge_objective(X, yy, ref.coef_[0], ref.intercept_[0])
    assert abs(f - f_ref) <= 1e-6 * f_ref


def test_warm_start_nonzero_on_an_empty_column(wide):
    """A start that is nonzero on an empty column runs on all columns: the column goes to 0."""
    X, y, _ = wide
    est = svmkit.LinearSVC(solver="tron", warm_start=True, tol=1e-8)
    est.fit(X, y)
    empty = np.flatnonzero(np.diff(X.tocsc().indptr) == 0)[0]
    est.coef_[0, empty] = 0.5
    est.fit(X, y)
    assert abs(est.coef_[0, empty]) <= 1e-6
    cold = svmkit.LinearSVC(solver="tron", tol=1e-8).fit(X, y)
    yy = np.where(y == est.classes_[1], 1.0, -1.0)
    f = squared_hinge_objective(X, yy, est.coef_[0], est.intercept_[0])
    f_cold = squared_hinge_objective(X, yy, cold.coef_[0], cold.intercept_[0])
    assert abs(f - f_cold) <= 1e-8 * f_cold


def test_sparse_svc_on_empty_columns(wide):
    """NSSVM (SparseSVC) also runs on the nonempty columns; with its n-dependent formulas
    fixed (sparsity given, absolute tol) the fit equals the one on X without them."""
    X, y, used = wide
    make = lambda: svmkit.SparseSVC(sparsity=150, solver_options={"scaled_tol": False})  # noqa: E731
    full, dropped = fit_pair(make, X, used, y)
    empty = np.setdiff1d(np.arange(X.shape[1]), used)
    assert np.all(full.coef_[:, empty] == 0.0)
    np.testing.assert_array_equal(full.coef_[:, used], dropped.coef_)
    np.testing.assert_array_equal(full.intercept_, dropped.intercept_)


def test_sparse_svc_keeps_the_formulas_of_all_columns():
    """The default sparsity level s0 = ceil(n (ln(m/n))^2) uses X's n, not the kept count:
    400 samples using 120 of 6,000 columns (the kept count would give s0 = 174 < m)."""
    rng = np.random.default_rng(5)
    dense = rng.standard_normal((400, 120)) * (rng.random((400, 120)) < 0.2)
    y = np.where(dense @ rng.standard_normal(120) > 0, 1.0, -1.0)
    cols = np.sort(rng.choice(6000, 120, replace=False))
    X = sp.hstack([sp.csr_matrix(dense), sp.csr_matrix((400, 6000 - 120))]).tocsc()
    X = X[:, np.argsort(np.r_[cols, np.setdiff1d(np.arange(6000), cols)])].tocsr()
    est = svmkit.SparseSVC().fit(X, y)
    m, n = X.shape
    assert est.result_[0]["s0"] == min(m, int(np.ceil(n * np.log(m / n) ** 2))) == m
    assert np.all(np.delete(est.coef_[0], cols) == 0.0)
