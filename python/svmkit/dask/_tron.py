"""TRON's outer loop on the driver, over an objective whose passes run on the workers.

A line-by-line port of cpp/src/tron.cpp (trust region of Lin and More as in LIBLINEAR, Steihaug CG
with the diagonal preconditioner, the same constants, stopping rule and statuses) so that the
distributed fit takes the same steps as the in-memory one; only the order in which the partitions'
sums are added differs. With globalization "line_search" (the default for the smoothed hinges, and
for the squared hinge and logistic loss after the region's first rejected step) the
line search of tron.cpp runs on margins the workers keep: each trial step is one round of small
tasks. The objective supplies F, grad F and diag H at a trial point (`fun_grad`), makes that point
current (`accept`) and the product H s at the current point (`hess_vec`), each one map-reduce over
the partitions.
"""

from __future__ import annotations

import math
import time
from typing import Any, Callable

import numpy as np

from .. import _core
from .._core import SolverStatus
from . import _tasks


def _trust_region_cg(obj, g, m, delta, cg_tol, max_cg, poll, residual_floor=0.0):
    """Steihaug CG on min g.s + 1/2 s'Hs, ||s||_M <= delta; returns (s, r, iterations,
    interrupted)."""
    n = g.shape[0]
    s = np.zeros(n)
    r = -g
    z = r / m
    d = z.copy()
    ztr = float(z @ r)
    tol = cg_tol * math.sqrt(ztr)
    it = 0
    while it < max_cg:
        if math.sqrt(ztr) <= tol:
            break
        if poll():
            return s, r, it, True
        it += 1
        hd = obj.hess_vec(d)
        dhd = float(d @ hd)
        if not dhd > 0.0 and not math.isfinite(delta):
            break  # no region to step to: keep s
        alpha = ztr / dhd if dhd != 0.0 else math.inf
        sms = float(s @ (m * s))
        smd = float(s @ (m * d))
        dmd = float(d @ (m * d))
        nxt = sms + 2.0 * alpha * smd + alpha * alpha * dmd
        if not (dhd > 0.0) or nxt > delta * delta:
            gap = max(0.0, delta * delta - sms)
            rad = math.sqrt(smd * smd + dmd * gap)
            tau = gap / (smd + rad) if smd >= 0.0 else (rad - smd) / dmd
            s = s + tau * d
            r = r - tau * hd
            break
        s = s + alpha * d
        r = r - alpha * hd
        z = r / m
        if residual_floor > 0.0 and float(np.linalg.norm(r)) <= residual_floor:
            break
        ztr_new = float(z @ r)
        beta = ztr_new / ztr
        d = z + beta * d
        ztr = ztr_new
    return s, r, it, False


def _record(it, f, gnorm, step, cg_it, delta, passes, t, accepted) -> dict:
    return {
        "iteration": it,
        "objective": f,
        "optimality": gnorm,
        "step": step,
        "inner_iterations": cg_it,
        "active_size": -1,
        "smoothing": math.nan,
        "radius": delta,
        "gap": math.nan,
        "passes": passes,
        "time": t,
        "accepted": accepted,
    }


# tron.cpp's line-search constants.
_LINE_NEWTON_STEPS = 20
_LINE_STEP_REL_TOL = 1e-1
_LINE_ROUNDOFF = 1e-10
_RESIDUAL_FLOOR = 0.5
# hessian_cutoff's safeguard (tron.cpp's kCutoffTrust, kCutoffStrikes, cutoff_trusted).
_CUTOFF_TRUST = 10.0
_CUTOFF_STRIKES = 3


def _line_search_step(obj: Any, w, s, f: float, gs: float, eta0: float, a0: float = 1.0) -> float:
    """tron.cpp's line_search_step from a0: the step length along s (0: the search failed)."""
    ww, ws, ss = obj.reg_dot(w, w), obj.reg_dot(w, s), obj.reg_dot(s, s)

    def phi(a: float) -> float:
        return 0.5 * (ww + a * (2.0 * ws + a * ss)) + obj.line_loss(a)

    a = a0
    for _ in range(_LINE_NEWTON_STEPS):
        d1, d2 = obj.line_slope(a)
        d1 += ws + a * ss
        d2 += ss
        if not d2 > 0.0:
            break
        nxt = min(max(a - d1 / d2, 0.25 * a), 4.0 * a)
        done = abs(nxt - a) <= _LINE_STEP_REL_TOL * a
        a = nxt
        if done:
            break

    def acceptable(step: float) -> bool:
        value = phi(step)
        if value <= f + eta0 * step * gs:
            return True
        if not value <= f + _LINE_ROUNDOFF * abs(f):
            return False
        d1, _ = obj.line_slope(step)
        return d1 + ws + step * ss <= (1.0 - 2.0 * eta0) * -gs

    while not acceptable(a):
        a *= 0.5
        if a < 1e-12:
            return 0.0
    return a


def _report(rec: dict, opt: dict, history: list, callback: Any) -> bool:
    """Keeps the record and calls the callback; False when the callback asks to stop."""
    if opt["record_history"]:
        history.append(rec)
    out = callback(rec) if callback is not None else None
    return out is None or bool(out)


def _start(obj: Any, dim: int, w0: np.ndarray | None, gnorm0: float | None = None) -> tuple:
    """(w, F, grad, diag H, ||grad F(0)||): the reference gradient is taken at w = 0 (unless
    gnorm0, handed over by the region's loop, is given), then the run starts from w0 when given
    (tron.cpp)."""
    w = np.zeros(dim)
    f = g = hdiag = None
    if gnorm0 is None:
        f, g, hdiag = obj.fun_grad(w)
        obj.accept()
        gnorm0 = float(np.linalg.norm(g))
    if w0 is not None:
        w = np.array(w0, dtype=np.float64)
        f, g, hdiag = obj.fun_grad(w)
        obj.accept()
    return w, f, g, hdiag, gnorm0


def _within_tol(f: float, gnorm: float, stop: float, gap_tol: float) -> bool:
    """tron.cpp's within_tol: the gradient rule, or the relative duality gap ||g||^2 / (2 F) <=
    gap_tol (_core.tron_stop_rule; 0 turns it off)."""
    return gnorm <= stop or 0.5 * gnorm * gnorm <= gap_tol * f


def _gap_stop_message(status, f: float, gnorm: float, stop: float, gap_tol: float) -> str:
    """tron.cpp's gap_stop_message: what a run that the gap, not the gradient rule, ended says."""
    if status != SolverStatus.converged:
        return ""
    return _core.tron_gap_stop_message(f, gnorm, stop, gap_tol)


def _line_search_tron(
    obj, dim, opt, w0, callback, poll, gap_tol: float, hand_over: dict | None = None
) -> dict:
    """tron.cpp's line_search_core: Newton-CG with the line search (globalization). hand_over
    (from the region's loop: history, it, inner, start, gnorm0) continues that run at w0."""
    h = hand_over or {}
    start = h.get("start", time.perf_counter())
    obj.keep_decision_values()  # as tron.cpp's line_search_core
    w, f, g, hdiag, gnorm0 = _start(obj, dim, w0, h.get("gnorm0"))
    gnorm = float(np.linalg.norm(g))
    aw = float(opt["preconditioner_weight"])

    def precond(h):
        return (1.0 - aw) + aw * h if opt["precondition"] else np.ones(dim)

    m = precond(hdiag)
    stop = max(float(opt["tol"]) * gnorm0, float(opt["abs_tol"]))
    max_cg = int(opt["cg_max_iter"]) if int(opt["cg_max_iter"]) > 0 else dim

    def status_here():
        if not (math.isfinite(f) and math.isfinite(gnorm)):
            return SolverStatus.numerical_error
        if _within_tol(f, gnorm, stop, gap_tol):
            return SolverStatus.converged
        return SolverStatus.max_iter

    status = status_here()
    history = h.get("history", [])
    it, inner = h.get("it", 0), h.get("inner", 0)
    # tron.cpp: a run that starts with the line search leaves the rows below hessian_cutoff out
    # of H s until cutoff_trusted's strikes; a handed-over run keeps every row.
    cutoff_on = not hand_over and float(opt["hessian_cutoff"]) > 0.0
    obj.set_hessian_cutoff(float(opt["hessian_cutoff"]) if cutoff_on else 0.0)
    strikes = 0
    while status == SolverStatus.max_iter and it < int(opt["max_iter"]):
        it += 1
        s, _, cg_it, interrupted = _trust_region_cg(
            obj, g, m, math.inf, float(opt["cg_tol"]), max_cg, poll, _RESIDUAL_FLOOR * stop
        )
        inner += cg_it
        if interrupted:
            status = SolverStatus.interrupted
            break
        gs = float(g @ s)
        obj.decision(s)
        a0 = 1.0
        if cutoff_on:
            kept, every = obj.curvature_along
            ss = obj.reg_dot(s, s)
            if kept < every and gs < 0.0:
                a0 = -gs / (every + ss)
            if every + ss > _CUTOFF_TRUST * (kept + ss):
                strikes += 1
                if strikes >= _CUTOFF_STRIKES:
                    obj.set_hessian_cutoff(0.0)
                    cutoff_on = False
        a = _line_search_step(obj, w, s, f, gs, float(opt["eta0"]), a0) if gs < 0.0 else 0.0
        if a == 0.0:
            status = SolverStatus.line_search_failed
            break
        w = w + a * s
        f, g, hdiag = obj.fun_grad(w)
        obj.accept()
        gnorm = float(np.linalg.norm(g))
        m = precond(hdiag)
        if opt["record_history"] or callback is not None:
            rec = _record(
                it, f, gnorm, a * float(np.linalg.norm(s)), cg_it, math.nan, obj.passes,
                time.perf_counter() - start, True,
            )  # fmt: skip
            if not _report(rec, opt, history, callback):
                status = SolverStatus.interrupted
                break
        status = status_here()
    message = _gap_stop_message(status, f, gnorm, stop, gap_tol)
    return _result(status, w, f, gnorm, it, inner, obj, start, history, message)


def tron(
    obj: Any,
    dim: int,
    opt: dict,
    w0: np.ndarray | None = None,
    callback: Callable[[dict], Any] | None = None,
    poll: Callable[[], bool] = lambda: False,
    gap_tol: float = 0.0,
) -> dict:
    """Runs TRON (options as svmkit.solver_defaults("tron")); returns the result dict of
    _core.fit_tron (status, solution, objective, optimality, iterations, inner_iterations,
    passes, time, history, message). gap_tol: _core.tron_stop_rule's of the problem at opt's tol
    (tron.cpp's solve_tron; 0 in kink_continuation's stages)."""
    if _core.tron_uses_line_search(opt["globalization"], obj.loss[0]):
        return _line_search_tron(obj, dim, opt, w0, callback, poll, gap_tol)
    hand_over = _core.tron_hands_over_to_line_search(opt["globalization"], obj.loss[0])
    start = time.perf_counter()
    w, f, g, hdiag, gnorm0 = _start(obj, dim, w0)
    gnorm = float(np.linalg.norm(g))
    aw = float(opt["preconditioner_weight"])
    m = np.ones(dim)

    def precond(h):
        return (1.0 - aw) + aw * h if opt["precondition"] else m

    m = precond(hdiag)
    delta = math.sqrt(float(np.sum(g * g / m)))
    stop = max(float(opt["tol"]) * gnorm0, float(opt["abs_tol"]))
    max_cg = int(opt["cg_max_iter"]) if int(opt["cg_max_iter"]) > 0 else dim
    status = SolverStatus.max_iter
    if not (math.isfinite(f) and math.isfinite(gnorm)):
        status = SolverStatus.numerical_error
    elif _within_tol(f, gnorm, stop, gap_tol):
        status = SolverStatus.converged
    history: list[dict] = []
    it = inner = 0
    first = True
    while status == SolverStatus.max_iter and it < int(opt["max_iter"]):
        it += 1
        s, r, cg_it, interrupted = _trust_region_cg(
            obj, g, m, delta, float(opt["cg_tol"]), max_cg, poll
        )
        inner += cg_it
        if interrupted:
            status = SolverStatus.interrupted
            break
        w_new = w + s
        gs = float(g @ s)
        prered = -0.5 * (gs - float(s @ r))
        f_new, g_new, hdiag_new = obj.fun_grad(w_new)
        actred = f - f_new
        snorm = math.sqrt(float(s @ (m * s)))
        if first:
            delta = min(delta, snorm)
            first = False
        curv = f_new - f - gs
        a = opt["sigma3"] if curv <= 0.0 else max(opt["sigma1"], -0.5 * (gs / curv))
        if actred < opt["eta0"] * prered:
            delta = min(a * snorm, opt["sigma2"] * delta)
        elif actred < opt["eta1"] * prered:
            delta = max(opt["sigma1"] * delta, min(a * snorm, opt["sigma2"] * delta))
        elif actred < opt["eta2"] * prered:
            delta = max(opt["sigma1"] * delta, min(a * snorm, opt["sigma3"] * delta))
        else:
            delta = max(delta, min(a * snorm, opt["sigma3"] * delta))
        accepted = math.isfinite(f_new) and actred > opt["eta0"] * prered
        if accepted:
            w, g, hdiag = w_new, g_new, hdiag_new
            obj.accept()
            f = f_new
            gnorm = float(np.linalg.norm(g))
            m = precond(hdiag)
        if opt["record_history"] or callback is not None:
            rec = _record(
                it,
                f,
                gnorm,
                snorm if accepted else 0.0,
                cg_it,
                delta,
                obj.passes,
                time.perf_counter() - start,
                accepted,
            )
            if not _report(rec, opt, history, callback):
                status = SolverStatus.interrupted
                break
        if not (math.isfinite(f) and math.isfinite(gnorm)):
            status = SolverStatus.numerical_error
            break
        if _within_tol(f, gnorm, stop, gap_tol):
            status = SolverStatus.converged
            break
        if f < -1.0e32:
            status = SolverStatus.numerical_error
            break
        if (abs(actred) <= 0.0 and prered <= 0.0) or (
            abs(actred) <= 1e-12 * abs(f) and abs(prered) <= 1e-12 * abs(f)
        ):
            status = SolverStatus.line_search_failed
            break
        if hand_over and not accepted and it < int(opt["max_iter"]):
            handed = dict(history=history, it=it, inner=inner, start=start, gnorm0=gnorm0)
            return _line_search_tron(obj, dim, opt, w, callback, poll, gap_tol, handed)
    message = _gap_stop_message(status, f, gnorm, stop, gap_tol)
    return _result(status, w, f, gnorm, it, inner, obj, start, history, message)


def _result(status, w, f, gnorm, it, inner, obj, start, history, message: str = "") -> dict:
    return {
        "status": status,
        "message": message,
        "solution": w,
        "objective": f,
        "optimality": gnorm,
        "iterations": it,
        "inner_iterations": inner,
        "passes": obj.passes,
        "time": time.perf_counter() - start,
        "history": _history_columns(history),
    }


_INT_FIELDS = ("iteration", "inner_iterations", "active_size", "passes")


def _history_columns(history: list[dict]) -> dict:
    """The history as columns, like the C++ result's."""
    keys = (
        "iteration",
        "objective",
        "optimality",
        "step",
        "inner_iterations",
        "active_size",
        "smoothing",
        "radius",
        "gap",
        "passes",
        "time",
        "accepted",
    )
    out = {}
    for k in keys:
        dtype = np.int64 if k in _INT_FIELDS else (bool if k == "accepted" else np.float64)
        out[k] = np.array([h[k] for h in history], dtype=dtype)
    return out


# tron.cpp's kink_continuation (see the comment there for the method): for the hinge and the
# epsilon-insensitive loss, stages of TRON on the smoothed loss at sigma = sigma0, sigma0 / 10,
# ... (less near tol: _core.continuation_smoothing_factor), each ended by the duality gap of the
# exact problem (one map-reduce round of two sweeps, _tasks.kink_gap; when that gap is above
# tol, the band repair adds two to seven rounds of small sums, _band_repair).
_STAGE_TOL = 1e-2
_MIN_SMOOTHING = 1e-9
_STAGE_RETRIES = 2
# tron.cpp's repair_on_band: its flop budget and rounds.
_REPAIR_FLOPS = float(1 << 23)
_REPAIR_ROUNDS = 5


def _scaled_dual(lin: float, v: np.ndarray) -> float:
    """D(t beta) at the best t in [0, 1] from beta.y - eps ||beta||_1 and X~' beta."""
    q = float(v @ v)
    t = min(1.0, max(0.0, lin / q)) if q > 0.0 else 1.0
    return t * lin - 0.5 * t * t * q


def _band_repair(
    sums, w, dim: int, kink: tuple, sigma: float, balance: tuple
) -> tuple[float | None, int]:
    """tron.cpp's repair_on_band over the partitions: the band's Gram system is reduced to the
    driver, which solves it for each step s; the partitions replay the steps (stateless tasks:
    a lost worker's partition is recomputed). balance: the free bias's scales of the smoothed
    point (_tasks.kink_dual). Returns (the repaired scaled dual value or None, the passes
    tron.cpp counts for it)."""

    def dual_at(steps: list) -> float:
        lin, v, _ = _tasks.kink_dual(sums("band_dual", w, kink, sigma, balance, steps), kink, dim)
        return _scaled_dual(lin, v)

    tot = sums("band_setup", w, kink, sigma, balance, _REPAIR_FLOPS)
    n_band = int(tot[0])
    gram = tot[1 : 1 + dim * dim].reshape(dim, dim)
    if n_band == 0:
        return dual_at([]), 1
    if n_band * float(dim) * dim > _REPAIR_FLOPS:
        return None, 0
    target = w.copy()
    if kink[2]:
        target[-1] = 0.0  # a free bias: s sum_i beta_i = 0 (the dual constraint), not = b
    r = target + tot[1 + dim * dim :]
    steps: list[np.ndarray] = []
    free, flops = n_band, 0.0
    for k in range(_REPAIR_ROUNDS):
        flops += free * float(dim) * dim
        if free == 0 or (k > 0 and flops > _REPAIR_FLOPS):
            break
        ridge = 1e-12 * max(float(np.trace(gram)) / dim, 1e-300)
        s = np.linalg.solve(gram + ridge * np.eye(dim), r)
        if not np.all(np.isfinite(s)):
            return None, 1
        steps.append(s)
        out = sums("band_round", w, kink, sigma, balance, steps)
        clipped, free = int(out[0]), int(out[1])
        r = r - out[2 : 2 + dim]
        gram = out[2 + dim :].reshape(dim, dim)
        if clipped == 0:
            break
    return dual_at(steps), 2


def kink_tron(
    make_obj: Callable[[float], Any],
    sums: Callable[..., np.ndarray],
    dim: int,
    n_features: int,
    reg_b: bool,
    kink: tuple,
    opt: dict,
    w0: np.ndarray | None = None,
    callback: Callable[[dict], Any] | None = None,
    poll: Callable[[], bool] = lambda: False,
) -> dict:
    """kink: ("hinge", 0.0, free bias) or ("epsilon_insensitive", epsilon, free bias)
    (svmkit.dask._tasks);
    make_obj(sigma): a DistributedObjective of the smoothed loss at sigma (its release() is
    called after the stage); sums(fn, args): the sum of a task over the partitions."""
    start = time.perf_counter()
    if kink[0] == "hinge":
        sigma0 = 0.1  # tron.cpp's initial_smoothing: the margins are on the scale 1
    else:
        count, total, total2 = sums("moments")
        mean = total / count if count > 0.0 else 0.0
        spread = math.sqrt(max(total2 / count - mean * mean, 0.0)) if count > 0.0 else 0.0
        sigma0 = 0.1 * spread if spread > 0.0 else 0.1
    sigma = sigma0
    w = np.zeros(dim) if w0 is None else np.array(w0, dtype=np.float64)
    stage_opt = dict(opt, tol=float(opt["tol"]) * _STAGE_TOL, record_history=False)
    history: list[dict] = []
    done = {"it": 0, "inner": 0, "passes": 0}
    status = SolverStatus.max_iter
    objective = gap = math.nan
    best = (math.inf, None, math.nan)  # (gap, w, objective)
    retries = 0

    def report(rec: dict) -> bool:
        rec = dict(rec, iteration=rec["iteration"] + done["it"], smoothing=sigma)
        rec["passes"] += done["passes"]
        rec["time"] = time.perf_counter() - start
        return _report(rec, opt, history, callback)

    first = True
    while True:
        stage_opt["max_iter"] = int(opt["max_iter"]) - done["it"]
        if stage_opt["max_iter"] <= 0 and not first:
            break
        first = False
        obj = make_obj(sigma)
        try:
            r = tron(obj, dim, stage_opt, w0=w, callback=report, poll=poll)  # no gap stop
        finally:
            obj.release()
        w = np.asarray(r["solution"], dtype=np.float64)
        done["it"] += r["iterations"]
        done["inner"] += r["inner_iterations"]
        done["passes"] += r["passes"]
        if r["status"] in (SolverStatus.interrupted, SolverStatus.numerical_error):
            status = r["status"]
            break
        tot = sums("gap", w, kink, float(sigma))
        done["passes"] += 2
        loss_sum = float(tot[0])
        lin, v, balance = _tasks.kink_dual(tot[1:], kink, dim)
        dual = _scaled_dual(lin, v)
        reg = float(w[:n_features] @ w[:n_features])
        if reg_b:
            reg += float(w[n_features] * w[n_features])
        objective = 0.5 * reg + loss_sum
        if objective - dual > float(opt["tol"]) * objective:
            repaired, passes = _band_repair(sums, w, dim, kink, float(sigma), balance)
            done["passes"] += passes
            if repaired is not None:
                dual = max(dual, repaired)
        gap = max(objective - dual, 0.0) / max(objective, 1e-300)
        if opt["record_history"] and history:
            history[-1]["gap"] = gap
        if not math.isfinite(objective):
            status = SolverStatus.numerical_error
            break
        if gap <= float(opt["tol"]):
            status = SolverStatus.converged
            break
        if gap >= best[0] and retries < _STAGE_RETRIES:
            retries += 1
            stage_opt["tol"] *= 1e-2
            continue
        if gap >= best[0]:
            gap, w, objective = best[0], best[1], best[2]
            break
        best = (gap, w.copy(), objective)
        sigma /= _core.continuation_smoothing_factor(gap, float(opt["tol"]))
        if sigma < _MIN_SMOOTHING * sigma0:
            break
    return {
        "status": status,
        "message": "",
        "solution": w,
        "objective": objective,
        "optimality": gap,
        "iterations": done["it"],
        "inner_iterations": done["inner"],
        "passes": done["passes"],
        "time": time.perf_counter() - start,
        "history": _history_columns(history),
    }
