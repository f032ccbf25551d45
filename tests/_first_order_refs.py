"""Independent references for the first-order solver tests: exact QPs solved by clarabel."""

from __future__ import annotations

import clarabel
import numpy as np
import scipy.sparse as sp


def _solve(P, q, A, b, cones) -> np.ndarray:
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    settings.tol_gap_abs = 1e-10
    settings.tol_gap_rel = 1e-10
    settings.tol_feas = 1e-10
    solver = clarabel.DefaultSolver(sp.csc_matrix(P), q, sp.csc_matrix(A), b, cones, settings)
    sol = solver.solve()
    assert "Solved" in str(sol.status), sol.status
    return np.asarray(sol.x)


def hinge_primal(
    X: np.ndarray, y: np.ndarray, cost: np.ndarray, regularize_intercept: bool = True
) -> tuple[np.ndarray, float, float]:
    """min 1/2||w||^2 [+ 1/2 b^2] + sum_i cost_i xi_i, xi_i >= 1 - y_i (w.x_i + b), xi >= 0.

    Returns (w, b, optimal objective)."""
    n, d = X.shape
    nv = d + 1 + n
    P = sp.lil_matrix((nv, nv))
    for j in range(d):
        P[j, j] = 1.0
    if regularize_intercept:
        P[d, d] = 1.0
    q = np.concatenate([np.zeros(d + 1), cost])
    # -y_i (x_i.w + b) - xi_i <= -1 ; -xi_i <= 0
    A1 = sp.hstack([sp.csr_matrix(-y[:, None] * X), sp.csr_matrix(-y[:, None]), -sp.eye(n)])
    A2 = sp.hstack([sp.csr_matrix((n, d + 1)), -sp.eye(n)])
    A = sp.vstack([A1, A2])
    b = np.concatenate([-np.ones(n), np.zeros(n)])
    x = _solve(P, q, A, b, [clarabel.NonnegativeConeT(2 * n)])
    w, bias = x[:d], x[d]
    obj = (
        0.5 * w @ w
        + (0.5 * bias * bias if regularize_intercept else 0.0)
        + cost @ np.maximum(0.0, 1.0 - y * (X @ w + bias))
    )
    return w, float(bias), float(obj)


def hard_margin(
    X: np.ndarray, y: np.ndarray, fit_intercept: bool = True
) -> tuple[np.ndarray, float]:
    """min 1/2||w||^2 s.t. y_i (w.x_i + b) >= 1 (b free, or b = 0). Returns (w, b)."""
    n, d = X.shape
    nv = d + 1
    P = sp.diags(np.r_[np.ones(d), 0.0])
    q = np.zeros(nv)
    bias_col = -y[:, None] if fit_intercept else np.zeros((n, 1))
    A = sp.csr_matrix(np.hstack([-y[:, None] * X, bias_col]))
    x = _solve(P, q, A, -np.ones(n), [clarabel.NonnegativeConeT(n)])
    return x[:d], float(x[d]) if fit_intercept else 0.0


def svm_dual(
    K: np.ndarray,
    y: np.ndarray,
    cost: np.ndarray,
    regression: bool = False,
    epsilon: float = 0.0,
    equality: bool = True,
) -> tuple[np.ndarray, float]:
    """Exact min-form Wolfe dual (paper 001 eqs. 19 / 80, or 26 / 84 without the equality
    and with K + 1). Returns (variables, optimal value)."""
    n = K.shape[0]
    if regression:
        E = np.hstack([np.eye(n), -np.eye(n)])  # beta = E a
        Q = E.T @ K @ E
        q = np.concatenate([epsilon - y, epsilon + y])
        sign = np.r_[np.ones(n), -np.ones(n)]
        ub = np.concatenate([cost, cost])
    else:
        Q = (y[:, None] * K) * y[None, :]
        q = -np.ones(n)
        sign = y
        ub = cost
    m = Q.shape[0]
    Q = 0.5 * (Q + Q.T) + 1e-12 * np.eye(m)
    A_box = sp.vstack([-sp.eye(m), sp.eye(m)])
    b_box = np.concatenate([np.zeros(m), ub])
    if equality:
        A = sp.vstack([sp.csr_matrix(sign[None, :]), A_box])
        b = np.concatenate([[0.0], b_box])
        cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(2 * m)]
    else:
        A, b, cones = A_box, b_box, [clarabel.NonnegativeConeT(2 * m)]
    a = _solve(sp.csc_matrix(Q), q, A, b, cones)
    return a, float(0.5 * a @ Q @ a + q @ a)


def epsilon_qp(X, y, C, eps):
    """min 1/2 (||w||^2 + b^2) + C sum xi, xi >= |x.w + b - y| - eps, xi >= 0 (clarabel)."""
    n, d = X.shape
    P = sp.diags(np.r_[np.ones(d + 1), np.zeros(n)])
    q = np.r_[np.zeros(d + 1), np.full(n, C)]
    Xb = sp.csr_matrix(np.hstack([X, np.ones((n, 1))]))
    A = sp.vstack(
        [
            sp.hstack([Xb, -sp.eye(n)]),
            sp.hstack([-Xb, -sp.eye(n)]),
            sp.hstack([sp.csr_matrix((n, d + 1)), -sp.eye(n)]),
        ]
    ).tocsc()
    b = np.r_[eps + y, eps - y, np.zeros(n)]
    s = clarabel.DefaultSettings()
    s.verbose = False
    sol = clarabel.DefaultSolver(
        sp.csc_matrix(P), q, A, b, [clarabel.NonnegativeConeT(3 * n)], s
    ).solve()
    x = np.asarray(sol.x)
    w, b0 = x[:d], x[d]
    return float(0.5 * (w @ w + b0 * b0) + C * np.maximum(0.0, np.abs(X @ w + b0 - y) - eps).sum())
