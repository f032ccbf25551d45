"""TRON's assembled Hessian (solver_options hessian="auto" / "assembled", objective.hpp): the
same optimum as scipy's L-BFGS and scikit-learn's liblinear with either form of the Hessian-
vector products, fewer passes over X where it assembles, and its errors. The products
themselves are checked against a dense numpy Hessian in test_objective.py."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import lbfgs_optimum, smooth_objective
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC
from svmkit import SolverStatus

FORMS = ["products", "assembled", "auto"]


def _digit_pair(sparse: bool):
    """digits 3 against 8 (few features, many rows: where the assembly pays)."""
    X, y = load_digits(return_X_y=True)
    keep = (y == 3) | (y == 8)
    X = StandardScaler().fit_transform(X[keep])
    return (sp.csr_matrix(X) if sparse else X), y[keep]


def _many_rows(sparse: bool):
    """4,000 x 30: the products of TRON's CG cost more than an assembly, so "auto" assembles."""
    X, y = make_classification(4000, 30, n_informative=10, random_state=0)
    return (sp.csr_matrix(X) if sparse else X), y


def _fit(X, y, loss: str, form: str, **kw):
    return svmkit.LinearSVC(
        loss=loss, solver="tron", tol=1e-8, solver_options={"hessian": form}, **kw
    ).fit(X, y)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss", ["squared_hinge", "logistic", "smoothed_hinge"])
@pytest.mark.parametrize("form", FORMS)
def test_every_form_reaches_the_lbfgs_optimum(form: str, loss: str, sparse: bool) -> None:
    X, y = _digit_pair(sparse)
    est = _fit(X, y, loss, form, C=0.5, sigma=0.1)
    t = np.where(y == est.classes_[1], 1.0, -1.0)
    fg = smooth_objective(X, t, 0.5, loss, 0.1, regression=False)
    ref = lbfgs_optimum(fg, X.shape[1] + 1)
    ours = fg(np.append(est.coef_[0], est.intercept_[0]))[0]
    assert est.result_[0]["status"] == SolverStatus.converged
    assert ours <= ref.fun * (1 + 1e-9) + 1e-12
    assert ours == pytest.approx(ref.fun, rel=1e-7)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_assembled_fit_matches_liblinear(sparse: bool) -> None:
    """scikit-learn's liblinear (-s 2, the squared hinge, primal) at a tight tolerance: the
    same coefficients; the assembled run sweeps X fewer times than the product run."""
    X, y = _many_rows(sparse)
    ref = SkLinearSVC(C=0.5, dual=False, tol=1e-12, max_iter=100000, intercept_scaling=1.0)
    ref.fit(X, y)
    fits = {form: _fit(X, y, "squared_hinge", form, C=0.5) for form in FORMS}
    for est in fits.values():
        np.testing.assert_allclose(est.coef_, ref.coef_, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(est.intercept_, ref.intercept_, rtol=1e-5, atol=1e-6)
    assert fits["assembled"].n_passes_ < fits["products"].n_passes_
    assert fits["auto"].n_passes_ < fits["products"].n_passes_


def test_too_many_features_fall_back_to_products() -> None:
    """dim^2 above the stored entries of X: "assembled" takes the product passes, the same
    path as "products"."""
    rng = np.random.default_rng(0)
    X = sp.random(60, 400, density=0.05, random_state=1, format="csr")
    y = rng.integers(0, 2, 60)
    a = _fit(X, y, "logistic", "assembled")
    p = _fit(X, y, "logistic", "products")
    assert a.n_passes_ == p.n_passes_
    np.testing.assert_array_equal(a.coef_, p.coef_)


@pytest.mark.parametrize("value", ["", "dense", "Assembled", "product"])
def test_invalid_hessian_form_is_named(value: str) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    est = svmkit.LinearSVC(solver="tron", solver_options={"hessian": value})
    with pytest.raises(ValueError, match="hessian.*'auto', 'products' or 'assembled'"):
        est.fit(X, y)
