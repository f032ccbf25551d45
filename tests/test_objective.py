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


def numpy_hessian(X, y, cost, loss, w, fit_intercept, scale, reg_b, classification):
    """I_reg + X~^T diag(cost * loss''(u)) X~, written out densely."""
    d = X.shape[1]
    b = w[d] if fit_intercept else 0.0
    z = X @ w[:d] + b * scale
    u = y * z if classification else z - y
    _, _, d2 = _core.loss_eval(loss, u, 0.5, 0.2)
    Xt = np.hstack([X, np.full((X.shape[0], 1), scale)]) if fit_intercept else X
    reg = np.ones(Xt.shape[1])
    if fit_intercept and not reg_b:
        reg[-1] = 0.0
    return np.diag(reg) + Xt.T @ ((cost * d2)[:, None] * Xt)


@pytest.mark.parametrize("layout", ["C", "F", "csr32", "csr64", "csr_unsorted"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize(("loss", "classification"), LOSSES)
@pytest.mark.parametrize(("fit_intercept", "reg_b"), [(True, True), (True, False), (False, True)])
def test_assembled_hessian_products_match_numpy(
    layout, dtype, loss, classification, fit_intercept, reg_b
) -> None:
    """The assembled Hessian (TRON's hessian="assembled"/"auto" on few features) gives H s
    equal to the dense numpy Hessian's product, as the per-product pass does; unsorted CSR
    rows with duplicate indices (which add up) take the general assembly loop."""
    X, Xv, y_cls, y_reg, cost = make_problem("csr64" if layout == "csr_unsorted" else layout, dtype)
    if layout == "csr_unsorted":
        # Reverse every row's entries and split each first entry into two halves (a duplicate).
        rows, data, idx = [], [], []
        for i in range(Xv.shape[0]):
            lo, hi = Xv.indptr[i], Xv.indptr[i + 1]
            di, ii = list(Xv.data[lo:hi][::-1]), list(Xv.indices[lo:hi][::-1])
            if di:
                di = [di[0] / 2, *di[1:], di[0] / 2]
                ii = [ii[0], *ii[1:], ii[0]]
            rows.append(len(di))
            data += di
            idx += ii
        # The core's own view (as_core_matrix would sort and sum them: the C++ API need not).
        core_X = (
            np.array(data, dtype=Xv.dtype),
            np.array(idx, dtype=np.int64),
            np.r_[0, np.cumsum(rows)].astype(np.int64),
            *Xv.shape,
        )
    else:
        core_X = as_core_matrix(Xv)
    y = y_cls if classification else y_reg
    rng = np.random.default_rng(5)
    dim = X.shape[1] + (1 if fit_intercept else 0)
    w = 0.2 * rng.standard_normal(dim)
    s = rng.standard_normal(dim)
    H = numpy_hessian(X, y, cost, loss, w, fit_intercept, 1.3, reg_b, classification)
    for form in ("products", "assembled"):
        out = _core.objective_eval(
            core_X, y, cost, loss, 0.5, 0.2, fit_intercept, 1.3, reg_b, w, s, 2, form
        )
        assert out["hessian_assemblies"] == (1 if form == "assembled" else 0)
        np.testing.assert_allclose(out["hess_vec"], H @ s, rtol=1e-10, atol=1e-10)


def test_hessian_too_large_to_assemble_uses_products() -> None:
    """dim^2 above the stored entries of X: no assembly, the products stay exact."""
    X, Xv, y, _, cost = make_problem("csr64", np.float64, n=20, d=60)
    w = np.zeros(61)
    s = np.random.default_rng(6).standard_normal(61)
    out = _core.objective_eval(
        as_core_matrix(Xv), y, cost, "logistic", 0.5, 0.2, True, 1.0, True, w, s, 1, "assembled"
    )
    assert out["hessian_assemblies"] == 0
    H = numpy_hessian(X, y, cost, "logistic", w, True, 1.0, True, True)
    np.testing.assert_allclose(out["hess_vec"], H @ s, rtol=1e-10, atol=1e-10)


def test_objective_eval_refuses_an_unknown_hessian_form() -> None:
    X, Xv, y, _, cost = make_problem("C", np.float64, n=10, d=3)
    with pytest.raises(
        ValueError, match="tron option 'hessian' must be 'auto', 'products' or 'assembled', got 'x'"
    ):
        _core.objective_eval(
            as_core_matrix(Xv), y, cost, "logistic", 0.5, 0.2, True, 1.0, True, np.zeros(4),
            np.zeros(4), 1, "x",
        )  # fmt: skip
