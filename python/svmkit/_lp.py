"""The l1-penalized hinge SVM as a linear program, solved by HiGHS (scipy.optimize.linprog).

Problem (penalty="l1", loss="hinge"; the bias b is free, as in l1_cd's and smsvm's pure-l1
hinge, and s = intercept_scaling):

    min ||w||_1 + sum_i c_i max(0, 1 - y_i (w.x_i + b s)).

HiGHS solves its dual, a linear program in the n sample variables with 2d (+1) rows:

    max sum_i a_i  s.t.  -1 <= sum_i a_i y_i x_ij <= 1 (each feature j),
                         sum_i a_i y_i = 0 (with an intercept),  0 <= a_i <= c_i,

and the row duals it returns are w and b. solve_l1_hinge_on_band solves the same program on
the samples near the margin of a given point only (the others held at a_i = c_i or 0), which is
a small part of the whole where the point is near the optimum; its solution is still a feasible
dual point of the whole program, so its gap certifies. Used by solver="auto" to finish l1_cd's
smoothing continuation when that ends uncertified (degenerate data such as dna.scale, and larger C,
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


# The margin-band widths solve_l1_hinge_on_band tries, in units of the margin (u_i = 1 - y_i z_i),
# narrowest first. Measured at l1_cd's uncertified points (bench/results/l1_hinge_c.md, its
# margin-band section; the regime matrix's near-separable 20,000 x 20 at C = 100 and dna.scale's
# three classes): the program on |u| <= 0.1 (407 of 20,000 samples) gave the near-separable
# set's optimum in 0.015 s where the whole program took 1.5-2.0 s; dna.scale needed 0.3 (196-257
# of 2,000 samples, 0.05-0.08 s against 0.31-0.47 s); 0.01 certified neither, and 1.0 gave the
# optimum wherever 0.3 did, at twice its time.
BAND_WIDTHS = (0.1, 0.3, 1.0)
# HiGHS's method for the whole program and for bands above BAND_SIMPLEX_ENTRIES stored entries
# (interior point: faster than dual simplex on every set of bench_l1_hinge_c.py; sparse 16,000 x
# 10,000 at C = 3, bands of 98,000-315,000 entries: 3.9-5.1 s against 23-58 s), and for the
# smaller bands (scipy's default choice, simplex here: 0.10-0.17 s against 0.16-0.27 s for
# dna.scale's bands of about 9,000 entries, 0.028 s against 0.038 s for the near-separable set's).
WHOLE_METHOD = "highs-ipm"
SMALL_BAND_METHOD = "highs"
BAND_SIMPLEX_ENTRIES = 20_000
# A band holding more than this share of the samples costs about what the whole program does.
BAND_MAX_SHARE = 0.5


def _primal(Xs: sp.csr_matrix, y: np.ndarray, cost: np.ndarray, w: np.ndarray, b: float) -> float:
    """||w||_1 + sum_i c_i max(0, 1 - y_i (x_i.w + b)), b the intercept."""
    losses = np.maximum(0.0, 1.0 - y * (Xs @ w + b))
    return float(np.abs(w).sum() + np.einsum("i,i->", cost, losses))  # no BLAS (_kernel.py)


def _dual_program(
    Xs: sp.csr_matrix,
    y: np.ndarray,
    cost: np.ndarray,
    fit_intercept: bool,
    free: np.ndarray | None,
    a_fixed: np.ndarray | None,
    time_limit: float,
    method: str,
):
    """HiGHS on the dual program (module docstring) in the variables a_i of the samples `free`
    (all when None), the others held at a_fixed. Returns (scipy's result, the full a or None,
    w, b): w and b are the row duals (scipy's marginals are d(min objective)/d(right-hand
    side), <= 0 here), the primal point of the program's optimum."""
    from scipy.optimize import linprog

    d = Xs.shape[1]
    if free is None:
        Xf, yf, cf = Xs, y, cost
        r0, s0 = np.zeros(d), 0.0
    else:
        Xf, yf, cf = Xs[free], y[free], cost[free]
        r0 = Xs.T @ (a_fixed * y)  # what the held samples put in each row
        s0 = float(np.einsum("i,i->", a_fixed, y))
    A = (Xf.T @ sp.diags(yf)).tocsr()  # row j: y_i x_ij
    r = linprog(
        -np.ones(len(yf)),
        A_ub=sp.vstack([A, -A], format="csr"),
        b_ub=np.r_[1.0 - r0, 1.0 + r0],
        A_eq=sp.csr_matrix(yf[None, :]) if fit_intercept else None,
        b_eq=np.array([-s0]) if fit_intercept else None,
        bounds=np.column_stack([np.zeros(len(yf)), cf]),
        method=method,
        options={"time_limit": float(time_limit)} if np.isfinite(time_limit) else None,
    )
    if r.status != 0 or r.x is None:
        return r, None, None, 0.0
    a = np.asarray(r.x) if free is None else a_fixed.copy()
    if free is not None:
        a[free] = r.x
    w = r.ineqlin.marginals[d:] - r.ineqlin.marginals[:d]
    b = -float(r.eqlin.marginals[0]) if fit_intercept else 0.0
    return r, a, w, b


def _certified(
    Xs, y, cost, a, candidates, fit_intercept, intercept_scaling, tol, start, extra
) -> dict:
    """The result dict at the best of the candidate (w, b) points, its gap bounded by the dual
    point a (_certificate): converged when the gap is <= tol."""
    primal, w, b = min(
        ((_primal(Xs, y, cost, w, b), w, b) for w, b in candidates), key=lambda t: t[0]
    )
    dual = _certificate(Xs, y, cost, a, fit_intercept)
    gap = max(primal - dual, 0.0) / primal if primal > 0.0 else 0.0
    certified = gap <= tol
    out = dict(extra)
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


def solve_l1_hinge_on_band(
    X: Any,
    y: np.ndarray,
    cost: np.ndarray,
    solution: np.ndarray,
    fit_intercept: bool,
    intercept_scaling: float,
    tol: float,
    time_limit: float = float("inf"),
    keep_point: bool = False,
) -> dict | None:
    """The pure l1 hinge finished from a point near its optimum (solution, as the solvers
    return it): the dual program on the samples of the margin band |u_i| <= width only, the
    others held at a_i = c_i (u_i > width) or 0 (u_i < -width), for each of BAND_WIDTHS. Its
    optimum is a dual-feasible point of the whole program (a lower bound on the optimum) and its
    row duals a primal point; the result dict (solve_l1_hinge's, with "band_samples" and
    "band_width") at the better of that point and `solution` once the bound certifies one within
    tol, None when no band does (a band past BAND_MAX_SHARE of the samples, a program that is
    infeasible or stops at the time limit). The whole program's optimum is the band program's
    when the held samples are held where the optimum has them, so a band a little wider than
    the optimum's free samples suffices. keep_point=True certifies `solution` itself (the
    result's solution is always it): a named solver's point keeps its solver's answer."""
    start = time.perf_counter()
    Xs = sp.csr_matrix(scipy_view(X), dtype=np.float64)
    n, d = Xs.shape
    sol = np.asarray(solution, dtype=np.float64)
    w0, b0 = (sol[:d], float(sol[d]) * intercept_scaling) if fit_intercept else (sol, 0.0)
    u = 1.0 - y * (Xs @ w0 + b0)
    iterations = 0
    for width in BAND_WIDTHS:
        free = np.flatnonzero(np.abs(u) <= width)
        if len(free) > BAND_MAX_SHARE * n:
            break
        if len(free) == 0:
            continue
        held = np.where(u > width, cost, 0.0)
        left = time_limit - (time.perf_counter() - start)
        if left <= 0.0:
            break
        small = np.diff(Xs.indptr)[free].sum() <= BAND_SIMPLEX_ENTRIES
        method = SMALL_BAND_METHOD if small else WHOLE_METHOD
        r, a, w, b = _dual_program(Xs, y, cost, fit_intercept, free, held, left, method)
        iterations += int(getattr(r, "nit", 0) or 0)
        if a is None:
            continue
        extra = {
            "iterations": iterations,
            "inner_iterations": 0,
            "passes": 0,
            "history": {},
            "band_samples": len(free),
            "band_width": width,
        }
        points = [(w0, b0)] if keep_point else [(w, b), (w0, b0)]
        out = _certified(
            Xs, y, cost, a, points, fit_intercept, intercept_scaling, tol, start, extra
        )
        if out["status"] == _core.SolverStatus.converged:
            return out
    return None


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
    start = time.perf_counter()
    Xs = sp.csr_matrix(scipy_view(X), dtype=np.float64)
    d = Xs.shape[1]
    r, a, w, b = _dual_program(Xs, y, cost, fit_intercept, None, None, time_limit, WHOLE_METHOD)
    extra: dict = {
        "iterations": int(getattr(r, "nit", 0) or 0),
        "inner_iterations": 0,
        "passes": 0,
        "history": {},
    }
    if a is None:
        limit = r.status == 1  # an iteration or time limit
        out = dict(extra)
        out.update(
            status=_core.SolverStatus.max_iter if limit else _core.SolverStatus.numerical_error,
            message=f"HiGHS: {r.message}",
            solution=np.zeros(d + (1 if fit_intercept else 0)),
            objective=float("nan"),
            optimality=float("inf"),
            time=time.perf_counter() - start,
        )
        return out
    return _certified(Xs, y, cost, a, [(w, b)], fit_intercept, intercept_scaling, tol, start, extra)
