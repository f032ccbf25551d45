"""The functions that run inside Dask tasks on the workers: preparing a partition once, the
per-class targets, and the objective passes (thin calls into svmkit._core, one thread each so
that a partition's result does not depend on which worker computes it)."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import scipy.sparse as sp

from .. import _core
from .._validation import as_core_matrix


def prepare_block(X: Any, y: Any, sw: Any) -> tuple:
    """One row partition in the core's layout: (X as the core views it, y, sample weights).

    Dense blocks become C-contiguous (row-major passes), sparse blocks CSR; X must be finite.
    """
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        if not np.all(np.isfinite(X.data)):
            raise ValueError("svmkit.dask: X contains NaN or infinity")
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
) -> np.ndarray:
    """[L, g, diag H] of the partition at w (the small vector that is reduced); D at w is
    kept in this worker's cache under (slot, point), dropping the slot's points other than
    keep (the current point)."""
    y, cost = targets
    packed, curv = _core.partition_fun_grad(
        block[0], y, cost, *loss, *intercept, w, want_hdiag=True, want_curvature=True, n_threads=1
    )
    _store(slot, point, curv, keep)
    return packed


def hess_vec(
    block: tuple,
    targets: tuple,
    w: np.ndarray,
    s: np.ndarray,
    loss: tuple,
    intercept: tuple,
    slot: tuple,
    point: int,
) -> np.ndarray:
    """H_R s of the partition at the point w (whose D is cached under (slot, point))."""
    with _LOCK:
        curv = _CURVATURE.get(slot, {}).get(point)
    if curv is None:
        y, cost = targets
        _, curv = _core.partition_fun_grad(
            block[0],
            y,
            cost,
            *loss,
            *intercept,
            w,
            want_hdiag=False,
            want_curvature=True,
            n_threads=1,
        )
        # This worker missed: it is not where the slot's passes ran (a task stolen or a
        # restarted worker); keeping only this point bounds its cache at one per slot.
        _store(slot, point, curv, point)
    return _core.partition_hess_vec(block[0], curv, s, *intercept, n_threads=1)


def forget(fit: str) -> int:
    """Drops the cached curvature of a finished fit; returns the number of slots dropped."""
    with _LOCK:
        slots = [k for k in _CURVATURE if k[0] == fit]
        for k in slots:
            del _CURVATURE[k]
    return len(slots)


def add(*parts: np.ndarray) -> np.ndarray:
    """The sum of partial results, in the given order (a node of the reduction tree)."""
    out = np.array(parts[0], dtype=np.float64, copy=True)
    for p in parts[1:]:
        out += p
    return out


def decision(X: Any, coef: np.ndarray, intercept: np.ndarray) -> np.ndarray:
    """Decision values (n, n_rows) of a block."""
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
    return _core.linear_decision_function(as_core_matrix(X), coef, intercept, 1)


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


def predict_block(X: Any, coef: np.ndarray, intercept: np.ndarray, classes: np.ndarray):
    """Predicted labels of a block."""
    if hasattr(X, "to_numpy"):
        X = X.to_numpy()
    if not sp.issparse(X):
        X = np.asarray(X)
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
    return classes[_core.linear_predict_class_indices(as_core_matrix(X), coef, intercept, 1)]


def bad_targets(block: tuple) -> bool:
    """Whether a partition's regression targets are not all finite."""
    return not bool(np.all(np.isfinite(np.asarray(block[1], dtype=np.float64))))
