"""The l1-penalized hinge SVM as a linear program, solved by HiGHS (scipy.optimize.linprog).

Problem (penalty="l1", loss="hinge"; the bias b is free, as in l1_cd's and smsvm's pure-l1
hinge, and s = intercept_scaling):

    min ||w||_1 + sum_i c_i max(0, 1 - y_i (w.x_i + b s)).

HiGHS solves its dual, a linear program in the n sample variables with 2d (+1) rows:

    max sum_i a_i  s.t.  -1 <= sum_i a_i y_i x_ij <= 1 (each feature j),
                         sum_i a_i y_i = 0 (with an intercept),  0 <= a_i <= c_i,

and the row duals it returns are w and b. Used by solver="auto" to finish l1_cd's smoothing
continuation when that ends uncertified (degenerate data such as dna.scale, and larger C,
where the continuation's stages at small smoothing are ill-conditioned: on the regime matrix's
sparse 1,600 x 50,000 set at C = 3, l1_cd ran 1,000 iterations uncertified and smsvm then took
12 s, where this takes 0.3-0.5 s; bench/bench_l1_hinge_c.py). The linear algebra is HiGHS's, a
well-kept solver scipy already ships; this module only builds the program and certifies the
answer: the duality gap at a dual point made feasible by scaling bounds the relative
suboptimality, and the finisher is used only when that bound is <= tol.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from . import _core
from ._threads import stored_entries
from ._validation import scipy_view

# The largest program built (stored entries of X): the program holds X' twice (its 2d rows)
# and HiGHS a factorization beside it; above this the smsvm finisher runs instead.
MAX_LP_ENTRIES = 10_000_000


def within_budget(X: Any) -> bool:
    """Whether the program of core matrix X (its stored entries; every entry of a dense one) is
    within MAX_LP_ENTRIES."""
    return stored_entries(scipy_view(X)) <= MAX_LP_ENTRIES


def _certificate(
    Xs: sp.csr_matrix, y: np.ndarray, cost: np.ndarray, a: np.ndarray, fit_intercept: bool
) -> float:
    """A lower bound on the optimum: sum a at a made dual feasible (box, the bias's equation,
    then |X'(a y)| <= 1 by scaling)."""
    a = np.clip(a, 0.0, cost)
    if fit_intercept:  # sum_i a_i y_i = 0: the larger class's a scaled down to the smaller's
        pos, neg = a[y > 0].sum(), a[y < 0].sum()
        if pos > neg:
            a = np.where(y > 0, a * (neg / pos if pos > 0.0 else 0.0), a)
        elif neg > pos:
            a = np.where(y < 0, a * (pos / neg if neg > 0.0 else 0.0), a)
    top = float(np.abs(Xs.T @ (a * y)).max(initial=0.0))
    return float(a.sum()) / max(1.0, top)


def solve_l1_hinge(
    X: Any,
    y: np.ndarray,
    cost: np.ndarray,
    fit_intercept: bool,
    intercept_scaling: float,
    tol: float,
    time_limit: float = float("inf"),
) -> dict:
    """The result dict of the other solvers (status, solution, objective, optimality, ...):
    converged when the certified relative gap is <= tol, max_iter otherwise (HiGHS stopped at
    time_limit seconds, or its answer does not certify), numerical_error when HiGHS reports a
    failure. HiGHS cannot be interrupted: time_limit bounds the wait."""
    from scipy.optimize import linprog

    start = time.perf_counter()
    Xs = sp.csr_matrix(scipy_view(X), dtype=np.float64)
    n, d = Xs.shape
    A = (Xs.T @ sp.diags(y)).tocsr()  # row j: y_i x_ij
    A_eq = sp.csr_matrix(y[None, :]) if fit_intercept else None
    r = linprog(
        -np.ones(n),
        A_ub=sp.vstack([A, -A], format="csr"),
        b_ub=np.ones(2 * d),
        A_eq=A_eq,
        b_eq=np.zeros(1) if fit_intercept else None,
        bounds=np.column_stack([np.zeros(n), cost]),
        method="highs-ipm",  # faster than dual simplex on every set of bench_l1_hinge_c.py
        options={"time_limit": float(time_limit)} if np.isfinite(time_limit) else None,
    )
    out: dict = {
        "iterations": int(getattr(r, "nit", 0) or 0),
        "inner_iterations": 0,
        "passes": 0,
        "history": {},
    }
    if r.status != 0 or r.x is None:
        limit = r.status == 1  # an iteration or time limit
        out.update(
            status=_core.SolverStatus.max_iter if limit else _core.SolverStatus.numerical_error,
            message=f"HiGHS: {r.message}",
            solution=np.zeros(d + (1 if fit_intercept else 0)),
            objective=float("nan"),
            optimality=float("inf"),
            time=time.perf_counter() - start,
        )
        return out
    # The row duals (scipy's marginals are d(min objective)/d(right-hand side), <= 0 here).
    w = r.ineqlin.marginals[d:] - r.ineqlin.marginals[:d]
    b = -float(r.eqlin.marginals[0]) if fit_intercept else 0.0
    z = Xs @ w + b
    primal = float(np.abs(w).sum() + cost @ np.maximum(0.0, 1.0 - y * z))
    dual = _certificate(Xs, y, cost, np.asarray(r.x), fit_intercept)
    gap = max(primal - dual, 0.0) / primal if primal > 0.0 else 0.0
    certified = gap <= tol
    out.update(
        status=_core.SolverStatus.converged if certified else _core.SolverStatus.max_iter,
        message="" if certified else f"HiGHS: the certified relative gap {gap:.3g} is above tol",
        # b s is the intercept: the solution carries b, the bias feature's coefficient.
        solution=np.r_[w, b / intercept_scaling] if fit_intercept else w,
        objective=primal,
        optimality=gap,
        time=time.perf_counter() - start,
    )
    return out
