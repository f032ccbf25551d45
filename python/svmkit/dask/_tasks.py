"""The functions that run inside Dask tasks on the workers: preparing a partition once, the
per-class targets, and the objective passes (thin calls into svmkit._core, one thread each so
that a partition's result does not depend on which worker computes it)."""

from __future__ import annotations

import threading
import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._validation import as_core_matrix, dense_if_smaller, scipy_view


def prepare_block(X: Any, y: Any, sw: Any) -> tuple:
    """One row partition in the core's layout: (X as the core views it, y, sample weights).

    Dense blocks become C-contiguous (row-major passes), sparse blocks CSR, or dense where
    that takes no more memory (dense_if_smaller, as the in-memory solver="auto": dense data
    in a sparse container, such as a LIBSVM file's, pass faster as dense rows); X must be
    finite.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if not np.all(np.isfinite(X.data)):
            raise ValueError("svmkit.dask: X contains NaN or infinity")
        X = dense_if_smaller(X)
    else:
        if hasattr(X, "to_numpy"):  # a pandas DataFrame partition
            X = X.to_numpy()
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X = np.ascontiguousarray(X)
        if X.ndim != 2:
            raise ValueError(f"svmkit.dask: X blocks must be 2-D, got {X.ndim}-D")
        if not np.all(np.isfinite(X)):
            raise ValueError("svmkit.dask: X contains NaN or infinity")
    y = np.asarray(y.to_numpy() if hasattr(y, "to_numpy") else y).ravel()
    if sw is None:
        sw = np.ones(y.shape[0])
    else:
        sw = np.ascontiguousarray(np.asarray(sw, dtype=np.float64).ravel())
    if y.shape[0] != X.shape[0] or sw.shape[0] != X.shape[0]:
        raise ValueError(
            f"svmkit.dask: a partition has {X.shape[0]} rows of X but {y.shape[0]} of y and "
            f"{sw.shape[0]} sample weights"
        )
    return (as_core_matrix(X), y, sw, X.shape[0], X.shape[1])


def class_targets(block: tuple, classes: np.ndarray, positive: int, C: float, cw: np.ndarray):
    """(y in {-1, +1}, costs) of one binary problem: classes[positive] against the rest, costs
    C * sample weight * class weight (the in-memory estimator's product, in its order)."""
    idx = np.searchsorted(classes, block[1])
    y = np.where(idx == positive, 1.0, -1.0)
    return y, np.ascontiguousarray(C * block[2] * cw[idx])


def regression_targets(block: tuple, C: float):
    """(y, costs C * sample weight) of a regression problem."""
    return np.ascontiguousarray(np.asarray(block[1], dtype=np.float64)), C * block[2]


# Test hook (tests/test_dask.py, a worker killed while a task runs): while _HOLD > 0 a pass
# task entering this worker process marks _HOLDING and sleeps _HOLD seconds. Zero in use.
_HOLD = 0.0
_HOLDING = False


def set_test_hold(seconds: float) -> None:
    """Arms (seconds > 0) or disarms the test hook of this worker process."""
    global _HOLD, _HOLDING
    _HOLD, _HOLDING = float(seconds), False


def is_holding() -> bool:
    return _HOLDING


def _test_hold() -> None:
    global _HOLDING
    if _HOLD > 0.0:
        _HOLDING = True
        time.sleep(_HOLD)


# The per-row curvature D of the fits running on this worker process, by (fit, partition)
# and point: at most the current point and the latest trial point of each partition. It is
# a cache, not state: a task that misses it (a restarted worker, a partition recomputed
# elsewhere) recomputes D from the partition and the point, with the same bits.
_CURVATURE: dict = {}
_LOCK = threading.Lock()


def _store(slot: tuple, point: int, curv: np.ndarray, keep: int | None) -> None:
    with _LOCK:
        points = _CURVATURE.setdefault(slot, {})
        for k in [k for k in points if k != keep]:
            del points[k]
        points[point] = curv


def fun_grad(
    block: tuple,
    targets: tuple,
    w: np.ndarray,
    loss: tuple,
    intercept: tuple,
    slot: tuple,
    point: int,
    keep: int | None,
    keep_margins: bool = False,
) -> np.ndarray:
    """[L, g, diag H] of the partition at w (the small vector that is reduced); D at w is
    kept in this worker's cache under (slot, point), dropping the slot's points other than
    keep (the current point). keep_margins (TRON's line search) also caches the margins z at
    w, which the same sweep computes, as _margins_at would (the same bits): the line search's
    tasks then read them instead of sweeping the partition again."""
    _test_hold()
    y, cost = targets
    out = _core.partition_fun_grad(
        block[0], y, cost, *loss, *intercept, w, want_hdiag=True, want_curvature=True,
        n_threads=1, want_margins=keep_margins,
    )  # fmt: skip
    _store(slot, point, out[1], keep)
    if keep_margins:
        _put(slot, ("z", point), out[2])
    return out[0]


def hess_vec(
    block: tuple,
    targets: tuple,
    w: np.ndarray,
    s: np.ndarray,
    loss: tuple,
    intercept: tuple,
    slot: tuple,
    point: int,
    cut: float = 0.0,
) -> np.ndarray:
    """H_R s of the partition at the point w (whose D is cached under (slot, point)),
    without the rows whose D_i < cost_i cut (TRON's hessian_cutoff, loss.hpp's
    kept_curvature)."""
    _test_hold()
    # A miss: this worker is not where the slot's passes ran (a task stolen or a restarted
    # worker); _curvature keeps only this point, which bounds its cache at one per slot.
    curv = _curvature(block, targets, w, loss, intercept, slot, point)
    kept = _kept(curv, targets[1], cut)
    return _core.partition_hess_vec(block[0], kept, s, *intercept, n_threads=1)


def _kept(curv: np.ndarray, cost: np.ndarray, cut: float) -> np.ndarray:
    """loss.hpp's kept_curvature over the rows (D_i, or 0 where D_i < cost_i cut), through
    the core so that the rule has one implementation."""
    return _core.kept_curvature(curv, cost, cut) if cut > 0.0 else curv


def _curvature(block, targets, w, loss, intercept, slot, point) -> np.ndarray:
    """D at the point (cached under (slot, point), else recomputed from the partition)."""
    with _LOCK:
        curv = _CURVATURE.get(slot, {}).get(point)
    if curv is None:
        y, cost = targets
        _, curv = _core.partition_fun_grad(
            block[0], y, cost, *loss, *intercept, w, want_hdiag=False, want_curvature=True,
            n_threads=1,
        )  # fmt: skip
        _store(slot, point, curv, point)
    return curv


def fun_grad_run(
    blocks: list,
    targets: list,
    w: np.ndarray,
    loss: tuple,
    intercept: tuple,
    slots: list,
    point: int,
    keep: int | None,
    keep_margins: bool = False,
) -> np.ndarray:
    """fun_grad over a run of partitions, summed in the run's order (one task per run)."""
    return add(
        *(
            fun_grad(block, t, w, loss, intercept, slot, point, keep, keep_margins)
            for block, t, slot in zip(blocks, targets, slots)
        )
    )


def hess_vec_run(
    blocks: list,
    targets: list,
    w: np.ndarray,
    s: np.ndarray,
    loss: tuple,
    intercept: tuple,
    slots: list,
    point: int,
    cut: float = 0.0,
) -> np.ndarray:
    """hess_vec over a run of partitions, summed in the run's order (one task per run)."""
    return add(
        *(
            hess_vec(block, t, w, s, loss, intercept, slot, point, cut)
            for block, t, slot in zip(blocks, targets, slots)
        )
    )


def tron_direction(block, targets, slot, point, direction, loss, cut, intercept) -> np.ndarray:
    """TRON's line search: caches the margins at the current point = (id, w) and q = X~ s of
    direction = (id, s) on this worker (one sweep: the pass of the in-memory decision(s));
    returns [sum D_i q_i^2 over the rows H s keeps (cut), the same over all rows]
    (objective.hpp's curvature_along, for hessian_cutoff's safeguard)."""
    _margins_at(block, slot, point, intercept)
    q = _direction_margins(block, slot, (direction[0], ("x", direction[1])), intercept)
    if cut <= 0.0:  # every row is kept: the safeguard does not look (tron.cpp)
        return np.zeros(2)
    curv = _curvature(block, targets, point[1], loss, intercept, slot, point[0])
    q2 = q * q
    return np.array([float(np.sum(_kept(curv, targets[1], cut) * q2)), float(np.sum(curv * q2))])


def tron_line(block, targets, slot, point, direction, a, want_value, loss, intercept):
    """The partition's sums of objective.hpp's line_sums at w + a s: [loss] (want_value) or
    [slope, curvature] in a, on the cached z and q (recomputed from the partition on a miss)."""
    y, cost = targets
    z = _margins_at(block, slot, point, intercept)
    q = _direction_margins(block, slot, (direction[0], ("x", direction[1])), intercept)
    regression = loss[0].endswith("epsilon_insensitive")
    zz = z + a * q
    u, du = (zz - y, q) if regression else (y * zz, y * q)
    v, d1, d2 = _core.loss_eval(loss[0], np.ascontiguousarray(u), loss[1], loss[2])
    if want_value:
        return np.array([float(cost @ v)])
    return np.array([float(cost @ (d1 * du)), float(cost @ (d2 * du * du))])


def sum_over_run(fn: Any, blocks: list, targets: list, slots: list, args: tuple, intercept):
    """sum of fn(block, targets, slot, *args, intercept) over a run of partitions, in the
    run's order (one task per run; svmkit.dask._cluster.sum_over_runs)."""
    return add(
        *(fn(block, t, slot, *args, intercept) for block, t, slot in zip(blocks, targets, slots))
    )


def target_moments(block, targets, slot, intercept) -> np.ndarray:
    """[count, sum, sum of squares] of the partition's targets of positive cost (the scale of
    tron.cpp's first smoothing level)."""
    y, cost = targets
    yy = y[cost > 0.0]
    return np.array([float(yy.size), float(np.sum(yy)), float(np.sum(yy * yy))])


# The kinked losses of tron.cpp's continuation (its KinkGeometry), as the tasks' kink argument
# (name, eps, free bias): ("hinge", 0.0, .) with u_i = 1 - y_i z_i, y_i beta_i in [0, C_i], kink
# at u_i = 0; or ("epsilon_insensitive", eps, .) with u_i = z_i - y_i, |beta_i| <= C_i, kink at
# |u_i| = eps. In beta (beta_i = y_i a_i for the hinge) both duals read D = beta'y -
# eps ||beta||_1 - 1/2 ||X~' beta||^2; a free (unregularized) bias adds sum_i beta_i = 0, which
# the driver meets by scaling the positive or the negative betas (tron.cpp's balance_free_bias).
# So the tasks return the dual's sums split by the sign of beta (_dual_sums; the driver adds
# them up, scaled with a free bias: kink_dual) and take the driver's scales as balance =
# (t_pos, t_neg), (1, 1) without a free bias.


def _is_hinge(kink: tuple) -> bool:
    return kink[0] == "hinge"


def _kink_margins(block, targets, w, kink, intercept) -> np.ndarray:
    """u_i of the kink at w on the partition (one sweep)."""
    z = _core.partition_margins(block[0], w, *intercept)
    return 1.0 - targets[0] * z if _is_hinge(kink) else z - targets[0]


def _beyond(u, kink) -> np.ndarray:
    """The distance of u from the kink (positive: in the loss's linear part)."""
    return u if _is_hinge(kink) else np.abs(u) - kink[1]


def _smoothed_beta(u, targets, kink, sigma) -> np.ndarray:
    """beta_i = -cost_i L_sigma'(.) of the smoothed loss (psi_M of the margin 1 - u for the
    hinge, times y_i)."""
    y, cost = targets
    if _is_hinge(kink):
        _, d1, _ = _core.loss_eval("smoothed_hinge", np.ascontiguousarray(1.0 - u), sigma, 0.0)
        return -y * cost * d1
    _, d1, _ = _core.loss_eval(
        "smoothed_epsilon_insensitive", np.ascontiguousarray(u), sigma, kink[1]
    )
    return -cost * d1


def _box(targets, kink) -> tuple[np.ndarray, np.ndarray]:
    """The bounds of beta."""
    y, cost = targets
    if _is_hinge(kink):
        return np.where(y > 0.0, 0.0, -cost), np.where(y > 0.0, cost, 0.0)
    return -cost, cost


def _dual_linear(beta, targets, kink) -> float:
    """beta'y - eps ||beta||_1."""
    return float(beta @ targets[0]) - kink[1] * float(np.sum(np.abs(beta)))


def _free_bias(kink) -> bool:
    return bool(kink[2])


def _dual_sums(block, beta, targets, kink, intercept) -> np.ndarray:
    """beta'y - eps ||beta||_1 and X~' beta for the positive and the negative betas, with their
    sums: [lin+, lin-, sum beta+, -sum beta-, X~' beta+, X~' beta-] (kink_dual adds them up)."""
    pos, neg = np.maximum(beta, 0.0), np.minimum(beta, 0.0)
    return np.concatenate(
        [
            [_dual_linear(pos, targets, kink), _dual_linear(neg, targets, kink)],
            [float(pos.sum()), -float(neg.sum())],
            _tilde_t(block[0], pos, intercept),
            _tilde_t(block[0], neg, intercept),
        ]
    )


def balance_scales(pos_sum: float, neg_sum: float) -> tuple[float, float]:
    """tron.cpp's balance_free_bias: the scales (t_pos, t_neg) that make sum_i beta_i = 0."""
    if pos_sum == neg_sum:
        return 1.0, 1.0
    if pos_sum > neg_sum:
        return neg_sum / pos_sum, 1.0
    return 1.0, pos_sum / neg_sum


def kink_dual(sums: np.ndarray, kink, dim: int) -> tuple[float, np.ndarray, tuple]:
    """(beta'y - eps ||beta||_1, X~' beta, the balance scales) from _dual_sums' total, the
    betas balanced with a free bias."""
    free = _free_bias(kink)
    tp, tn = balance_scales(float(sums[2]), float(sums[3])) if free else (1.0, 1.0)
    lin = tp * float(sums[0]) + tn * float(sums[1])
    v = tp * sums[4 : 4 + dim] + tn * sums[4 + dim : 4 + 2 * dim]
    if free:
        v[-1] = 0.0  # the bias's coordinate, s sum_i beta_i, is 0 once balanced (a constraint)
    return lin, v, (tp, tn)


def kink_gap(block, targets, slot, w, kink, sigma, intercept) -> np.ndarray:
    """The partition's sums of the duality gap of tron.cpp's kink continuation at w: the exact
    loss, then _dual_sums at the smoothed dual point (one sweep for the margins, two for
    X~' beta+ and X~' beta-; counted as tron.cpp's two passes)."""
    u = _kink_margins(block, targets, w, kink, intercept)
    exact = targets[1] @ np.maximum(_beyond(u, kink), 0.0)
    beta = _smoothed_beta(u, targets, kink, sigma)
    return np.concatenate([[float(exact)], _dual_sums(block, beta, targets, kink, intercept)])


def _on_band(u, cost, kink, sigma) -> np.ndarray:
    """The repair's band: positive cost and |beyond(u_i)| <= kBandWidth sigma."""
    return (cost > 0.0) & (np.abs(_beyond(u, kink)) <= KINK_BAND_WIDTH * sigma)


def _band_state(block, targets, u, kink, sigma, balance, intercept, steps) -> tuple:
    """tron.cpp's repair_on_band on one partition at u, replayed from its start: the smoothed
    beta (balanced by the driver's scales with a free bias: balance = (t_pos, t_neg), else
    (1, 1)) put at the exact values off the band, then the band's moves by the driver's solutions
    steps[0], steps[1], ... (delta = A s on the free band rows, clipped to the box; a clipped
    row leaves the free set). Returns (X~'s band rows (dense), beta, free mask, X~_S' (the
    last step's moves), rows the last step clipped)."""
    X = scipy_view(block[0])
    y, cost = targets
    fit_intercept, scaling = intercept
    beta = _smoothed_beta(u, targets, kink, sigma)
    beta = np.where(beta > 0.0, balance[0] * beta, balance[1] * beta)
    on_band = _on_band(u, cost, kink, sigma)
    off = (cost > 0.0) & ~on_band
    if _is_hinge(kink):
        linear = np.copysign(cost[off], y[off])
    else:
        linear = -np.copysign(cost[off], u[off])
    beta[off] = np.where(_beyond(u[off], kink) > 0.0, linear, 0.0)
    lo, hi = _box(targets, kink)
    band = np.flatnonzero(on_band)
    rows = X[band]
    rows = rows.toarray() if sp.issparse(rows) else np.asarray(rows, dtype=np.float64)
    if fit_intercept:
        rows = np.hstack([rows, np.full((band.size, 1), float(scaling))])
    free = np.ones(band.size, dtype=bool)
    moved_sum, clipped = np.zeros(rows.shape[1]), 0
    for s in steps:
        idx = np.flatnonzero(free)
        at = band[idx]
        b = beta[at] + rows[idx] @ s
        bc = np.minimum(hi[at], np.maximum(lo[at], b))
        moved_sum = rows[idx].T @ (bc - beta[at])
        beta[at] = bc
        out = bc != b
        free[idx[out]] = False
        clipped = int(out.sum())
    return rows, beta, free, moved_sum, clipped


# tron.cpp's kBandWidth: the band of the repair is |beyond(u_i)| <= this many sigma.
KINK_BAND_WIDTH = 10.0


def kink_band_setup(block, targets, slot, w, kink, sigma, balance, budget, intercept) -> np.ndarray:
    """[band rows, their Gram matrix X~_S' X~_S (dim x dim), -X~' beta] of the partition at the
    start of the band repair (tron.cpp's repair_on_band). A band whose Gram system alone costs
    more than budget flops (the repair's, which the driver then refuses) is only counted."""
    dim = w.shape[0]
    u = _kink_margins(block, targets, w, kink, intercept)
    n_band = int(np.count_nonzero(_on_band(u, targets[1], kink, sigma)))
    if n_band * float(dim) * dim > budget:
        return np.concatenate([[float(n_band)], np.zeros(dim * dim + dim)])
    rows, beta, _, _, _ = _band_state(block, targets, u, kink, sigma, balance, intercept, [])
    gram = (rows.T @ rows).ravel()
    return np.concatenate([[float(n_band)], gram, -_tilde_t(block[0], beta, intercept)])


def kink_band_round(block, targets, slot, w, kink, sigma, balance, steps, intercept) -> np.ndarray:
    """[rows the last step clipped, rows still free, X~_S' (the last step's moves), the free
    band rows' Gram matrix] of the partition after the repair's steps."""
    u = _kink_margins(block, targets, w, kink, intercept)
    rows, _, free, moved_sum, clipped = _band_state(
        block, targets, u, kink, sigma, balance, intercept, steps
    )
    kept = rows[free]
    return np.concatenate([[float(clipped), float(free.sum())], moved_sum, (kept.T @ kept).ravel()])


def kink_band_dual(block, targets, slot, w, kink, sigma, balance, steps, intercept) -> np.ndarray:
    """_dual_sums of the partition at the repaired dual point."""
    u = _kink_margins(block, targets, w, kink, intercept)
    _, beta, _, _, _ = _band_state(block, targets, u, kink, sigma, balance, intercept, steps)
    return _dual_sums(block, beta, targets, kink, intercept)


def _tilde_t(X, beta, intercept) -> np.ndarray:
    """X~' beta: X' beta and, with an intercept, intercept_scaling * sum(beta)."""
    v = np.asarray(scipy_view(X).T @ beta, dtype=np.float64).ravel()
    return np.append(v, float(intercept[1]) * float(np.sum(beta))) if intercept[0] else v


def forget(fit: str) -> int:
    """Drops what a finished fit cached on this worker (curvature, margins); returns the
    number of slots dropped."""
    with _LOCK:
        dropped = 0
        for cache in (_CURVATURE, _VECTORS):
            slots = [k for k in cache if k[0] == fit]
            for k in slots:
                del cache[k]
            dropped += len(slots)
    return dropped


def add(*parts: np.ndarray) -> np.ndarray:
    """The sum of partial results, in the given order (a node of the reduction tree)."""
    out = np.array(parts[0], dtype=np.float64, copy=True)
    for p in parts[1:]:
        out += p
    return out


def decision(X: Any, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """Decision values (n, n_rows) of a block."""
    return _core.linear_decision_function(_predict_matrix(X), coef, intercept, 1)


def _predict_matrix(X: Any) -> Any:
    """A block to predict on (a pandas partition, an array or CSR) as the core views it."""
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
    return as_core_matrix(X)


def check_weights(block: tuple) -> str:
    """'' or the message for invalid sample weights in a partition."""
    sw = block[2]
    if not np.all(np.isfinite(sw)):
        return "svmkit.dask: sample_weight contains NaN or infinity"
    if np.any(sw < 0):
        return "svmkit.dask: sample_weight must be non-negative"
    return ""


def label_counts(block: tuple) -> tuple:
    """(distinct labels, their counts) of a partition."""
    return np.unique(block[1], return_counts=True)


def summarize_run(blocks: list, labels: bool) -> list:
    """Per partition of a run: ('' or the invalid-weights message, (distinct labels, their
    counts) of y when labels, else whether y is all finite): the checks that end persist,
    one task per run instead of two rounds of one task per partition."""
    return [(check_weights(b), label_counts(b) if labels else not bad_targets(b)) for b in blocks]


def predict_block(X: Any, coef: np.ndarray, intercept: np.ndarray, classes: np.ndarray):
    """Predicted labels of a block."""
    return classes[_core.linear_predict_class_indices(_predict_matrix(X), coef, intercept, 1)]


def bad_targets(block: tuple) -> bool:
    """Whether a partition's regression targets are not all finite."""
    return not bool(np.all(np.isfinite(np.asarray(block[1], dtype=np.float64))))


# ---- SmSVM (svmkit.dask._smsvm): the margins z = X~ w of the points a fit visits and the
# direction margins q = X~ d stay on the worker, by (fit, partition) and id, so that the line
# search runs on them without a sweep over X. Like the curvature above this is a cache: every
# task carries the recipe of the vectors it reads ((id, w) for margins; (id, recipe) for q) and
# a worker that misses recomputes them from the partition, with the same bits.
_VECTORS: dict = {}
_KEEP_VECTORS = 6


def _cached(slot: tuple, key: tuple, make: Any) -> np.ndarray:
    with _LOCK:
        v = _VECTORS.get(slot, {}).get(key)
    if v is None:
        v = make()
        _put(slot, key, v)
    return v


def _put(slot: tuple, key: tuple, v: np.ndarray) -> None:
    with _LOCK:
        vecs = _VECTORS.setdefault(slot, {})
        vecs.pop(key, None)
        vecs[key] = v
        while len(vecs) > _KEEP_VECTORS:
            del vecs[next(iter(vecs))]


def _margins_at(block: tuple, slot: tuple, point: tuple, intercept: tuple) -> np.ndarray:
    """z at point = (id, w), from the cache or the partition."""
    pid, w = point
    return _cached(slot, ("z", pid), lambda: _core.partition_margins(block[0], w, *intercept))


def _direction_margins(block: tuple, slot: tuple, qspec: tuple, intercept: tuple) -> np.ndarray:
    """q of qspec = (id, ("x", d)) (q = X~ d) or (id, ("diff", trial, current, s)) (q = (z at
    trial - z at current) / s, as the in-memory solver forms it after a rejected full step)."""
    qid, recipe = qspec

    def make() -> np.ndarray:
        if recipe[0] == "x":
            return _core.partition_margins(block[0], recipe[1], *intercept)
        zt = _margins_at(block, slot, recipe[1], intercept)
        z0 = _margins_at(block, slot, recipe[2], intercept)
        return (zt - z0) / recipe[3]

    return _cached(slot, ("q", qid), make)


def _smooth_parts(t: np.ndarray, alpha: float) -> tuple:
    """(phi_alpha(t), phi_alpha''(t)) elementwise (loss.hpp's mix_smooth_relu_all)."""
    s2 = alpha * alpha
    r = np.sqrt(s2 + t * t)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = np.where(t >= 0.0, 0.5 * (t + r), 0.5 * s2 / (r - t))
    return value, 0.5 * s2 / (r * r * r)


def _smooth_diff(t1: np.ndarray, t0: np.ndarray, alpha: float) -> np.ndarray:
    """phi_alpha(t1) - phi_alpha(t0) without cancellation (loss.hpp's mix_smooth_relu_diff)."""
    s2 = alpha * alpha
    r1, r0 = np.sqrt(s2 + t1 * t1), np.sqrt(s2 + t0 * t0)
    return 0.5 * (t1 - t0) + 0.5 * (t1 - t0) * (t1 + t0) / (r1 + r0)


def smsvm_eval(block, targets, slot, w, alpha, pos, hess, split, block_rows, pid, old, intercept):
    """SmSVM's gradient pass at w ([sums, loss gradient, active block], see
    _core.partition_smsvm_eval); the margins at w are kept under pid; old = (id, w) of the
    previous point for the objective difference, or None."""
    _test_hold()
    y, v = targets
    z_old = None if old is None else _margins_at(block, slot, old, intercept)
    packed, z = _core.partition_smsvm_eval(
        block[0], y, v, *intercept, w, alpha, pos, hess, split, block_rows, z_old
    )
    _put(slot, ("z", pid), z)
    return packed


def smsvm_direction(block, targets, slot, point, qspec, alpha, intercept):
    """q = X~ d kept under qspec's id; returns [sum_i Dv_i q_i^2] at the point's margins."""
    y, v = targets
    z = _margins_at(block, slot, point, intercept)
    q = _direction_margins(block, slot, qspec, intercept)
    _, d2 = _smooth_parts(1.0 - y * z, alpha)
    return np.array([np.sum((v * d2) * q * q)])


def smsvm_ray(block, targets, slot, point, qspec, steps, alpha, intercept):
    """For each s of steps: [sum v (phi(u0 - y s q) - phi(u0)), sum v max(0, 1 - y (z + s q))]
    on the ray z + s q (the Armijo trials of one round), concatenated."""
    y, v = targets
    z = _margins_at(block, slot, point, intercept)
    q = _direction_margins(block, slot, qspec, intercept)
    u0 = 1.0 - y * z
    out = np.empty(2 * len(steps))
    for t, s in enumerate(steps):
        out[2 * t] = np.sum(v * _smooth_diff(u0 - y * s * q, u0, alpha))
        out[2 * t + 1] = np.sum(v * np.maximum(0.0, 1.0 - y * (z + s * q)))
    return out


def smsvm_project(block, targets, slot, point, trial, alpha, intercept):
    """Margins at trial = (id, w+) (kept) and [sum v (phi(u+) - phi(u)), hinge sum at w+]."""
    y, v = targets
    z = _margins_at(block, slot, point, intercept)
    zt = _margins_at(block, slot, trial, intercept)
    dfs = np.sum(v * _smooth_diff(1.0 - y * zt, 1.0 - y * z, alpha))
    return np.array([dfs, np.sum(v * np.maximum(0.0, 1.0 - y * zt))])


def smsvm_sums(block, targets, slot, point, alpha, intercept):
    """[sum v phi_alpha(u), sum v max(0, u)] at the point's margins."""
    y, v = targets
    u = 1.0 - y * _margins_at(block, slot, point, intercept)
    value, _ = _smooth_parts(u, alpha)
    return np.array([np.sum(v * value), np.sum(v * np.maximum(0.0, u))])


# ---- SmSVM's final polish of l1-l2 runs (smsvm.cpp's polish): the sets of the samples (1:
# a = 1, 0: on the margin, -1: a = 0) stay on the workers as task results; each round gathers
# only the margin rows' support columns.


def _row_matrix(X: Any) -> Any:
    """A partition as a matrix that can be sliced by rows and columns."""
    if isinstance(X, tuple):  # CSR as the core views it: (data, indices, indptr, rows, cols)
        return sp.csr_matrix((X[0], X[1], X[2]), shape=(X[3], X[4]))
    return np.asarray(X)


def polish_sides(block, targets, slot, point, tau, intercept):
    """The sets at point's margins: side 0 where |u_i| <= tau, else sign(u_i); returns
    (side, [hinge sum at point, samples on the margin])."""
    y, v = targets
    u = 1.0 - y * _margins_at(block, slot, point, intercept)
    side = np.where(np.abs(u) <= tau, 0, np.where(u > 0.0, 1, -1)).astype(np.int8)
    return side, np.array([np.sum(v * np.maximum(0.0, u)), np.count_nonzero(side == 0)])


def polish_closest(block, targets, slot, side, point, count, intercept):
    """(indices, |u_i|) of the partition's count samples off the margin set (side != 0)
    closest to the margin at point (smsvm.cpp's complete_vertex, one partition's offer)."""
    y, _ = targets
    u = 1.0 - y * _margins_at(block, slot, point, intercept)
    cand = np.flatnonzero(side != 0)
    dist = np.abs(u[cand])
    if cand.size > count:
        keep = np.argpartition(dist, count - 1)[:count]
        cand, dist = cand[keep], dist[keep]
    return cand, dist


def polish_mark(block, targets, slot, side, picks, intercept):
    """side with the picked samples moved onto the margin set (side 0)."""
    side = side.copy()
    side[picks] = 0
    return side


def polish_rows(block, targets, slot, side, support, intercept):
    """((Z_M, v_M), r_E): the margin rows y_i x~_{i,S} on the support S (with the bias
    column), their weights, and sum over side 1 of v_i y_i x~_{i,S}."""
    y, v = targets
    fit_intercept, scale = intercept
    XS = _row_matrix(block[0])[:, support]
    on, above = side == 0, side == 1
    Z = XS[on]
    Z = (Z.toarray() if sp.issparse(Z) else np.asarray(Z)) * y[on][:, None]
    c = v[above] * y[above]
    rE = np.asarray(XS[above].T @ c, dtype=np.float64).ravel()
    if fit_intercept:
        Z = np.c_[Z, y[on] * scale]
        rE = np.r_[rE, scale * np.sum(c)]
    return (Z, v[on]), rE


def polish_check(block, targets, slot, side, beta, point, tol, intercept):
    """smsvm.cpp's polish_check on a partition at the polished point's margins: a_i (1 / 0 /
    beta_i / v_i), the samples that violate their set move; returns (new side, [violations,
    hinge sum, sum v a, samples on the margin, r = sum v_i a_i y_i x~_i])."""
    y, v = targets
    fit_intercept, scale = intercept
    u = 1.0 - y * _margins_at(block, slot, point, intercept)
    side = side.copy()
    on = np.flatnonzero(side == 0)
    a = (side == 1).astype(np.float64)
    a[on] = beta / v[on]
    out_low, out_high = a[on] < -tol, a[on] > 1.0 + tol
    side[on[out_low]] = -1
    side[on[out_high]] = 1
    a[on] = np.clip(a[on], 0.0, 1.0)
    off = side.copy()
    off[on] = 0  # the samples on the margin before this check are not tested below
    wrong = (off != 0) & (off * u < -tol)
    side[wrong] = 0
    violations = np.count_nonzero(out_low) + np.count_nonzero(out_high) + np.count_nonzero(wrong)
    c = v * a * y
    r = np.asarray(_row_matrix(block[0]).T @ c, dtype=np.float64).ravel()
    if fit_intercept:
        r = np.r_[r, scale * np.sum(c)]
    head = [violations, np.sum(v * np.maximum(0.0, u)), np.sum(v * a), np.count_nonzero(side == 0)]
    return side, np.r_[np.array(head, dtype=np.float64), r]


# hinge_certificate.hpp's kMarginBand: the repair's band is |u_i| <= this many sigma.
CERT_MARGIN_BAND = 10.0


def _mix_smooth_relu_d1(t: np.ndarray, sigma: float) -> np.ndarray:
    """loss.hpp's mix_smooth_relu_d1 (psi_M'), the same operations."""
    r = np.hypot(t, sigma)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(t >= 0.0, 0.5 * (1.0 + t / r), 0.5 * (sigma / r) * (sigma / (r - t)))


def _cert_point(y, v, u, sigma) -> tuple:
    """hinge_certificate's starting dual point: a_i = v_i beyond the band, 0 below it,
    v_i psi_M'(u_i) on it (samples with v_i > 0); returns (a, band indices)."""
    band_w = CERT_MARGIN_BAND * sigma
    a = np.where(u > band_w, v, 0.0)
    band = np.flatnonzero((v != 0.0) & (u <= band_w) & (u >= -band_w))
    a[band] = v[band] * _mix_smooth_relu_d1(u[band], sigma)
    a[v == 0.0] = 0.0
    return a, band


def _class_sums(X, y, a) -> np.ndarray:
    """[sum_{y>0} a_i, sum_{y<0} a_i, sum_{y>0} a_i x_i, sum_{y<0} a_i x_i]."""
    pos = y > 0.0
    ap, an = np.where(pos, a, 0.0), np.where(pos, 0.0, a)
    rp = np.asarray(X.T @ ap, dtype=np.float64).ravel()
    rn = np.asarray(X.T @ an, dtype=np.float64).ravel()
    return np.r_[np.sum(ap), np.sum(an), rp, rn]


def smsvm_cert_band(block, targets, slot, point, sigma, support, max_values, intercept):
    """hinge_certificate.hpp's first sweeps on a partition at point's margins: ([hinge sum,
    the class sums of the smoothed dual point a], the band: (indices, a, v, its rows
    y_i x_{i,S} on the support S with the bias column y_i), or None when the rows would hold
    more than max_values values)."""
    y, v = targets
    u = 1.0 - y * _margins_at(block, slot, point, intercept)
    a, band = _cert_point(y, v, u, sigma)
    X = _row_matrix(block[0])
    head = np.r_[np.sum(v * np.maximum(u, 0.0)), _class_sums(X, y, a)]
    if band.size * (support.size + (1 if intercept[0] else 0)) > max_values:
        return head, None
    rows = X[band][:, support]
    rows = (rows.toarray() if sp.issparse(rows) else np.asarray(rows)) * y[band][:, None]
    if intercept[0]:
        rows = np.c_[rows, y[band]]
    return head, (band, a[band], v[band], rows)


def smsvm_cert_change(block, targets, slot, band, change, intercept):
    """The class sums of the repair's change of a on the partition's band rows."""
    y, _ = targets
    X = _row_matrix(block[0])[band]
    return _class_sums(X, y[band], change)


def smsvm_weights(targets: tuple, total: float) -> tuple:
    """(y, v = cost / total) of one binary SmSVM problem."""
    return targets[0], targets[1] / total


def cost_sum(targets: tuple) -> np.ndarray:
    """[sum of the partition's costs]."""
    return np.array([np.sum(targets[1])])


def nonzero_columns(block: tuple) -> np.ndarray:
    """1.0 for each column with a nonzero entry in the partition, else 0.0."""
    X = block[0]
    if isinstance(X, tuple):  # CSR as the core views it: (data, indices, indptr, rows, cols)
        data, indices = X[0], X[1]
        hit = np.bincount(indices[data != 0], minlength=X[4])
        return (hit > 0).astype(np.float64)
    return np.any(np.asarray(X) != 0, axis=0).astype(np.float64)
