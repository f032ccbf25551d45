"""Independent references for the solver tests: the exact QPs of the SVM problems, solved by
clarabel (an interior-point conic solver that shares nothing with svmkit).

One module for every test file (formerly written five times across tests/):

- `solve_qp`: min 1/2 x'Px + q'x subject to b - Ax in the given cones.
- `primal_svm`: the primal with slack variables for the hinge, squared hinge,
  epsilon-insensitive and squared epsilon-insensitive losses, with l2 and l1 penalties, per-
  sample costs, an optional intercept (regularized or not) and LIBLINEAR's intercept scaling.
- `hinge_primal`: primal_svm for the plain hinge-loss SVM.
- `hard_margin`: the hard-margin SVM (separable data).
- `box_qp`: min 1/2 a'Pa + q'a, 0 <= a <= upper, optionally eq'a = 0 (the kernel duals).
- `svm_dual`: the Wolfe dual of C-SVC or epsilon-SVR from a kernel matrix.
- `nssvm_subproblem`: NSSVM's subproblem on a working set T (paper 003).
- `smooth_objective`, `lbfgs_optimum`: the regularized smooth-loss objective in numpy (losses
  from `_core.loss_eval`, checked against finite differences and closed forms in
  test_losses.py) and its minimum by scipy's L-BFGS-B.
"""

from __future__ import annotations

import clarabel
import numpy as np
import scipy.sparse as sp

__all__ = [
    "box_qp",
    "hard_margin",
    "hinge_primal",
    "lbfgs_optimum",
    "nssvm_subproblem",
    "primal_svm",
    "smooth_objective",
    "solve_qp",
    "svm_dual",
]


def smooth_objective(X, t, C, loss, sigma, regression, reg_b=True):
    """F(w, b) = 1/2 ||w||^2 + 1/2 b^2 (reg_b) + C sum loss(u) and its gradient, in numpy."""
    from svmkit import _core

    def fg(v):
        w, b = v[:-1], v[-1]
        z = X @ w + b
        u = z - t if regression else t * z
        val, d1, _ = _core.loss_eval(loss, np.asarray(u, dtype=np.float64), sigma, 0.0)
        dz = C * d1 if regression else C * t * d1
        g = np.append(w + X.T @ dz, dz.sum() + (b if reg_b else 0.0))
        return 0.5 * (w @ w + (b * b if reg_b else 0.0)) + C * val.sum(), g

    return fg


def lbfgs_optimum(fg, dim: int):
    """min F by scipy's L-BFGS-B from 0, run to its tightest tolerances."""
    import scipy.optimize

    opts = {"maxiter": 20000, "ftol": 1e-15, "gtol": 1e-10}
    return scipy.optimize.minimize(fg, np.zeros(dim), jac=True, method="L-BFGS-B", options=opts)


def solve_qp(P, q, A, b, cones, tol: float = 1e-10, max_iter: int = 500):
    """min 1/2 x'Px + q'x  s.t.  b - Ax in cones (clarabel's form; P's upper triangle is read).

    Returns clarabel's solution (x, z, obj_val); asserts that it solved."""
    s = clarabel.DefaultSettings()
    s.verbose = False
    s.tol_gap_abs = s.tol_gap_rel = s.tol_feas = tol
    s.max_iter = max_iter
    sol = clarabel.DefaultSolver(
        sp.triu(sp.csc_matrix(P)).tocsc(),
        np.asarray(q, dtype=float),
        sp.csc_matrix(A),
        np.asarray(b, dtype=float),
        cones,
        s,
    ).solve()
    assert str(sol.status) in ("Solved", "AlmostSolved"), sol.status
    return sol


def primal_svm(
    X,
    y,
    cost,
    *,
    loss: str = "hinge",
    l2: float = 1.0,
    l1: float = 0.0,
    epsilon: float = 0.0,
    fit_intercept: bool = True,
    reg_b: bool = True,
    l1_bias: bool = False,
    scaling: float = 1.0,
    tol: float = 1e-10,
) -> tuple[np.ndarray, float, float]:
    """The exact primal, over (w, b, xi, t) with z_i = x_i.w + b * scaling:

        min l2/2 (||w||^2 + [reg_b] b^2) + l1 (||w||_1 + [l1_bias] |b|) + sum_i c_i s(xi_i)

    with s(xi) = xi ("hinge", "epsilon_insensitive") or xi^2 (the "squared_" losses), and
    xi_i >= 1 - y_i z_i (classification) or xi_i >= |z_i - y_i| - epsilon (regression),
    xi >= 0, -t <= (w, b) <= t. fit_intercept=False pins b = 0. Returns (w, b, objective)."""
    X = sp.csr_matrix(X)
    y = np.asarray(y, dtype=float)
    cost = np.broadcast_to(np.asarray(cost, dtype=float), (X.shape[0],))
    n, m = X.shape
    k = m + 1  # the coordinates that may carry a penalty: w and b
    squared = loss.startswith("squared")
    pen2 = np.r_[np.ones(m), 1.0 if reg_b else 0.0]
    pen1 = np.r_[np.ones(m), 1.0 if l1_bias else 0.0]
    P = sp.diags(np.r_[l2 * pen2, 2.0 * cost if squared else np.zeros(n), np.zeros(k)])
    q = np.r_[np.zeros(k), np.zeros(n) if squared else cost, l1 * pen1]
    Z = sp.hstack([X, sp.csr_matrix(np.full((n, 1), scaling if fit_intercept else 0.0))])
    eye_n, zk = sp.eye(n), sp.csr_matrix((n, k))
    if "epsilon" in loss:  # z - xi <= y + eps, -z - xi <= -y + eps
        blocks = [sp.hstack([Z, -eye_n, zk]), sp.hstack([-Z, -eye_n, zk])]
        rhs = [y + epsilon, -y + epsilon]
    else:  # -y z - xi <= -1
        blocks = [sp.hstack([-sp.diags(y) @ Z, -eye_n, zk])]
        rhs = [-np.ones(n)]
    blocks.append(sp.hstack([sp.csr_matrix((n, k)), -eye_n, zk]))  # xi >= 0
    rhs.append(np.zeros(n))
    eye_k, zkn = sp.eye(k), sp.csr_matrix((k, n))
    blocks += [sp.hstack([eye_k, zkn, -eye_k]), sp.hstack([-eye_k, zkn, -eye_k])]  # |.| <= t
    rhs += [np.zeros(k), np.zeros(k)]
    if not fit_intercept:  # b = 0
        blocks.append(sp.csr_matrix(([1.0, -1.0], ([0, 1], [m, m])), shape=(2, 2 * k + n)))
        rhs.append(np.zeros(2))
    A = sp.vstack(blocks).tocsc()
    sol = solve_qp(P, q, A, np.concatenate(rhs), [clarabel.NonnegativeConeT(A.shape[0])], tol)
    x = np.asarray(sol.x)
    return x[:m], float(x[m]), float(sol.obj_val)


def hinge_primal(X, y, cost, regularize_intercept: bool = True):
    """primal_svm for the hinge loss with l2 = 1: returns (w, b, objective)."""
    return primal_svm(X, y, cost, reg_b=regularize_intercept)


def hard_margin(X, y, fit_intercept: bool = True) -> tuple[np.ndarray, float]:
    """min 1/2||w||^2 s.t. y_i (w.x_i + b) >= 1 (b free, or b = 0). Returns (w, b)."""
    n, d = X.shape
    P = sp.diags(np.r_[np.ones(d), 0.0])
    bias_col = -y[:, None] if fit_intercept else np.zeros((n, 1))
    A = sp.csr_matrix(np.hstack([-y[:, None] * X, bias_col]))
    x = np.asarray(solve_qp(P, np.zeros(d + 1), A, -np.ones(n), [clarabel.NonnegativeConeT(n)]).x)
    return x[:d], float(x[d]) if fit_intercept else 0.0


def box_qp(P, q, upper, eq=None, tol: float = 1e-10) -> tuple[np.ndarray, float]:
    """min 1/2 a'Pa + q'a, 0 <= a <= upper (inf allowed), optionally eq'a = 0.

    Returns (a, optimal value)."""
    P = np.asarray(P, dtype=float)
    n = len(q)
    rows, b, cones = [], [], []
    if eq is not None:
        rows.append(sp.csr_matrix(np.asarray(eq, dtype=float)[None, :]))
        b.append(np.zeros(1))
        cones.append(clarabel.ZeroConeT(1))
    fin = np.isfinite(upper)
    rows += [-sp.eye(n, format="csr"), sp.eye(n, format="csr")[fin]]
    b += [np.zeros(n), np.asarray(upper, dtype=float)[fin]]
    cones.append(clarabel.NonnegativeConeT(n + int(fin.sum())))
    a = np.asarray(solve_qp(P, q, sp.vstack(rows), np.concatenate(b), cones, tol).x)
    return a, float(0.5 * a @ P @ a + q @ a)


def svm_dual(K, y, cost, regression=False, epsilon=0.0, equality=True):
    """Exact min-form Wolfe dual (paper 001 eqs. 19 / 80, or 26 / 84 without the equality
    and with K + 1). Returns (variables, optimal value): a (classification) or [a+; a-]."""
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
        ub = np.asarray(cost, dtype=float)
    Q = 0.5 * (Q + Q.T) + 1e-12 * np.eye(Q.shape[0])
    return box_qp(Q, q, ub, sign if equality else None)


def nssvm_subproblem(X, y, T, C, c) -> tuple[np.ndarray, float]:
    """min_a 1/2 ||Q_T a||^2 + sum h_{c,C}(a_i) - sum a_i  s.t. <a, y_T> = 0 (paper 003).

    a = p - q with p, q >= 0 makes h exact: h(a) = p^2/(2C) + q^2/(2c) at the optimum.
    Returns (a, mu), mu the multiplier of the equality."""
    Z = y[T, None] * X[T]
    K = Z @ Z.T
    s = len(T)
    eye = np.eye(s)
    P = np.block([[K + eye / C, -K], [-K, K + eye / c]])
    q = np.r_[-np.ones(s), np.ones(s)]
    A = np.vstack([np.r_[y[T], -y[T]][None, :], -np.eye(2 * s)])
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(2 * s)]
    sol = solve_qp(P, q, A, np.zeros(2 * s + 1), cones)
    x = np.asarray(sol.x)
    return x[:s] - x[s:], float(np.asarray(sol.z)[0])


def write_libsvm_file(path, X, y) -> str:
    """(X, y) as a LIBSVM-format file (1-based indices, zeros left out, 17 digits); its path."""
    with open(path, "w") as fh:
        for xi, yi in zip(X, y):
            feats = " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(xi) if v != 0)
            fh.write(f"{yi:.17g} {feats}\n")
    return str(path)


# ---- Seeded l1 problems shared by tests/test_smsvm.py and bench/bench_smsvm_l1_gaps.py ----


def sparse_truth(n, m, seed):
    """Gaussian X (n x m) with labels from a 3-sparse w plus noise."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, m))
    w = np.zeros(m)
    w[:3] = 2.0 * rng.standard_normal(3)
    return X, np.where(X @ w + 0.3 * rng.standard_normal(n) > 0, 1.0, -1.0)


def low_rank_60x20():
    """60 x 20 data of rank 3 plus noise (ill-conditioned Newton blocks)."""
    rng = np.random.default_rng(2)
    n, m = 60, 20
    Z = rng.standard_normal((n, 3))
    X = Z @ rng.standard_normal((3, m)) + 0.3 * rng.standard_normal((n, m))
    return X, np.where(X[:, 0] - X[:, 1] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)


def seed_c_rand(seed: int = 1) -> None:
    """srand() of the C library (glibc) that liblinear-official and libsvm-official draw their
    coordinate orders and folds from: process-wide state, so without a seed their results
    depend on what the tests run before drew (LIBLINEAR's solvers may stop at an iteration
    cap or a loose eps at an order-dependent point)."""
    import ctypes
    import sys

    try:  # the process's C library: glibc / libSystem, or the MSVC runtime on Windows
        libc = ctypes.cdll.msvcrt if sys.platform == "win32" else ctypes.CDLL(None)
        libc.srand(ctypes.c_uint(seed))
    except (OSError, AttributeError):  # no C library to seed: nothing draws from it then
        pass


def scaled_separable(n: int = 1500, d: int = 20):
    """Nearly separable rows (1% flipped labels), features on scales 1 to 1000: C * mean ||x||^2
    is far above HINGE_DUAL_SCALE (the regime matrix's near-separable set, smaller), and
    smoothing methods end with their smoothed dual point's gap far above tol."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((n, d))
    y = np.where(X @ rng.standard_normal(d) > 0, 1.0, -1.0)
    y[rng.random(n) < 0.01] *= -1.0
    return X * np.logspace(0, 3, d), y


def margin_separable(n: int = 1000, d: int = 20, seed: int = 4):
    """Rows at least 0.05 from a random hyperplane, 0.5% of the labels flipped, features on
    scales 1 to 1000 (the regime matrix's near-separable set, bench_regimes._separable): at
    C >= 10 l1_cd's pure-l1 continuation ends uncertified near the optimum."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(d)
    X = rng.standard_normal((2 * n, d))
    z = X @ w / np.linalg.norm(w)
    keep = np.abs(z) > 0.05
    X, z = X[keep][:n], z[keep][:n]
    y = np.where(z > 0, 1.0, -1.0)
    y[rng.random(n) < 0.005] *= -1.0
    return X * np.logspace(0, 3, d), y
