"""Objective kernels: value, gradient, Hessian-vector product and Hessian diagonal against
finite differences and a plain numpy evaluation, over every data layout and dtype."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from svmkit import _core
from svmkit._validation import as_core_matrix

LOSSES = [
    ("squared_hinge", True),
    ("smoothed_hinge", True),
    ("gaussian_smoothed_hinge", True),
    ("logistic", True),
    ("squared_epsilon_insensitive", False),
    ("smoothed_epsilon_insensitive", False),
]


def make_problem(layout: str, dtype, n: int = 300, d: int = 17, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    X[rng.random((n, d)) < 0.5] = 0.0
    X = X.astype(dtype)
    y_cls = np.where(rng.random(n) < 0.4, -1.0, 1.0)
    y_reg = X.astype(np.float64) @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n)
    cost = rng.uniform(0.5, 2.0, n)
    if layout == "C":
        Xv = np.ascontiguousarray(X)
    elif layout == "F":
        Xv = np.asfortranarray(X)
    elif layout == "csr32":
        Xv = sp.csr_matrix(X)
        Xv.indices = Xv.indices.astype(np.int32)
        Xv.indptr = Xv.indptr.astype(np.int32)
    else:
        Xv = sp.csr_matrix(X)
        Xv.indices = Xv.indices.astype(np.int64)
        Xv.indptr = Xv.indptr.astype(np.int64)
    return X.astype(np.float64), Xv, y_cls, y_reg, cost


def numpy_objective(X, y, cost, loss, sigma, eps, w, fit_intercept, scale, reg_b, classification):
    d = X.shape[1]
    b = w[d] if fit_intercept else 0.0
    z = X @ w[:d] + b * scale
    u = y * z if classification else z - y
    v, _, _ = _core.loss_eval(loss, u, sigma, eps)
    reg = w[:d] @ w[:d] + (b * b if fit_intercept and reg_b else 0.0)
    return 0.5 * reg + cost @ v


def evaluate(Xv, y, cost, loss, w, s, fit_intercept=True, scale=1.3, reg_b=True, threads=2):
    return _core.objective_eval(
        as_core_matrix(Xv), y, cost, loss, 0.5, 0.2, fit_intercept, scale, reg_b, w, s, threads
    )


@pytest.mark.parametrize("layout", ["C", "F", "csr32", "csr64"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("loss", "classification"), LOSSES)
def test_value_gradient_hessian(layout, dtype, loss, classification) -> None:
    X, Xv, y_cls, y_reg, cost = make_problem(layout, dtype)
    y = y_cls if classification else y_reg
    rng = np.random.default_rng(1)
    dim = X.shape[1] + 1
    w = 0.2 * rng.standard_normal(dim)
    s = rng.standard_normal(dim)
    out = evaluate(Xv, y, cost, loss, w, s)
    f_ref = numpy_objective(X, y, cost, loss, 0.5, 0.2, w, True, 1.3, True, classification)
    assert out["f"] == pytest.approx(f_ref, rel=1e-12)
    assert out["f_only"] == pytest.approx(f_ref, rel=1e-12)
    # Gradient by central differences of the numpy objective.
    h = 1e-6
    fd = np.array(
        [
            (
                numpy_objective(
                    X, y, cost, loss, 0.5, 0.2, w + h * e, True, 1.3, True, classification
                )
                - numpy_objective(
                    X, y, cost, loss, 0.5, 0.2, w - h * e, True, 1.3, True, classification
                )
            )
            / (2 * h)
            for e in np.eye(dim)
        ]
    )
    np.testing.assert_allclose(out["grad"], fd, rtol=1e-5, atol=1e-5)
    # H s by differences of gradients (generalized Hessian for squared losses: away from kinks
    # almost surely, since the step is tiny).
    gp = evaluate(Xv, y, cost, loss, w + h * s, s)["grad"]
    gm = evaluate(Xv, y, cost, loss, w - h * s, s)["grad"]
    np.testing.assert_allclose(out["hess_vec"], (gp - gm) / (2 * h), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("layout", ["C", "F", "csr64"])
def test_hessian_diagonal(layout) -> None:
    X, Xv, y, _, cost = make_problem(layout, np.float64)
    dim = X.shape[1] + 1
    w = 0.2 * np.random.default_rng(4).standard_normal(dim)
    out = evaluate(Xv, y, cost, "logistic", w, w)
    diag = np.array(
        [evaluate(Xv, y, cost, "logistic", w, e)["hess_vec"][j] for j, e in enumerate(np.eye(dim))]
    )
    np.testing.assert_allclose(out["hess_diag"], diag, rtol=1e-10, atol=1e-10)


def test_unregularized_intercept_and_no_intercept() -> None:
    X, Xv, y, _, cost = make_problem("C", np.float64)
    rng = np.random.default_rng(2)
    w = rng.standard_normal(X.shape[1] + 1)
    s = rng.standard_normal(X.shape[1] + 1)
    a = evaluate(Xv, y, cost, "squared_hinge", w, s, reg_b=True)
    b = evaluate(Xv, y, cost, "squared_hinge", w, s, reg_b=False)
    assert a["f"] - b["f"] == pytest.approx(0.5 * w[-1] ** 2, rel=1e-10)
    assert a["grad"][-1] - b["grad"][-1] == pytest.approx(w[-1], rel=1e-10)
    c = evaluate(Xv, y, cost, "squared_hinge", w[:-1].copy(), s[:-1].copy(), fit_intercept=False)
    ref = numpy_objective(X, y, cost, "squared_hinge", 0.5, 0.2, w[:-1], False, 1.0, True, True)
    assert c["f"] == pytest.approx(ref, rel=1e-12)


@pytest.mark.parametrize("layout", ["C", "csr32"])
def test_deterministic_for_fixed_thread_count(layout) -> None:
    X, Xv, y, _, cost = make_problem(layout, np.float64, n=5000, d=40)
    rng = np.random.default_rng(3)
    w = rng.standard_normal(41)
    s = rng.standard_normal(41)
    runs = [evaluate(Xv, y, cost, "logistic", w, s, threads=2) for _ in range(3)]
    for r in runs[1:]:
        assert r["f"] == runs[0]["f"]
        assert np.array_equal(r["grad"], runs[0]["grad"])
        assert np.array_equal(r["hess_vec"], runs[0]["hess_vec"])
    one = evaluate(Xv, y, cost, "logistic", w, s, threads=1)
    np.testing.assert_allclose(one["grad"], runs[0]["grad"], rtol=1e-12)


def test_pass_counter() -> None:
    _, Xc, y, _, cost = make_problem("C", np.float64)
    _, Xf, _, _, _ = make_problem("F", np.float64)
    w = np.zeros(18)
    # fun_grad + hess_vec + fun: 3 passes row-wise; column-major needs 2 + 2 + 1.
    assert evaluate(Xc, y, cost, "squared_hinge", w, w)["passes"] == 3
    assert evaluate(Xf, y, cost, "squared_hinge", w, w)["passes"] == 5
