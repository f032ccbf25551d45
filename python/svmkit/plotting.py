"""Convergence plots from a solver's history, like the papers' figures.

matplotlib is imported only when a plot is drawn (`pip install svmkit[plot]`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np


def _history(result: Any) -> dict:
    """The history columns of a result dict, an estimator's result_ entry, or a history."""
    if hasattr(result, "result_"):
        result = result.result_[0]
    if isinstance(result, dict) and "history" in result:
        return result["history"]
    if isinstance(result, dict) and "objective" in result:
        return result
    raise TypeError("expected a solver result dict, its 'history', or a fitted estimator")


def objective_gap(result: Any, f_star: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(iterations, objective - f_star) of a history; f_star defaults to the smallest
    objective seen (then the last points are 0 and dropped from log plots)."""
    h = _history(result)
    it = np.asarray(h["iteration"], dtype=float)
    obj = np.asarray(h["objective"], dtype=float)
    if f_star is None:
        f_star = float(np.nanmin(obj))
    return it, obj - f_star


def plot_convergence(
    results: Any | Sequence[Any],
    f_star: float | None = None,
    *,
    labels: Sequence[str] | None = None,
    x: str = "iteration",
    relative: bool = True,
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Plot the objective gap |f - f*| (relative to |f*| by default) against iterations (or
    x="passes" / "time") on log-log axes, one line per result. Returns the matplotlib Axes.

    results: one or several result dicts (svmkit._core fit_* output, estimator.result_[k]) or
    fitted estimators. f_star: the optimal objective (from an exact solver); when None each
    history's best value is used.
    """
    import matplotlib.pyplot as plt  # lazily: plotting is optional

    if isinstance(results, dict) or hasattr(results, "result_"):
        results = [results]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    for k, res in enumerate(results):
        h = _history(res)
        obj = np.asarray(h["objective"], dtype=float)
        fs = float(np.nanmin(obj)) if f_star is None else float(f_star)
        gap = np.abs(obj - fs)
        if relative and fs != 0.0:
            gap = gap / abs(fs)
        xs = np.asarray(h[x], dtype=float)
        keep = (gap > 0) & np.isfinite(gap) & (xs > 0)
        label = labels[k] if labels is not None else f"run {k}"
        ax.loglog(xs[keep], gap[keep], label=label)
    ax.set_xlabel(x)
    ax.set_ylabel("relative objective gap" if relative else "objective gap")
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return ax


def plot_series(
    xs: Sequence[np.ndarray],
    ys: Sequence[np.ndarray],
    labels: Sequence[str],
    *,
    xlabel: str = "iterations",
    ylabel: str = "",
    ax: Any = None,
    title: str | None = None,
) -> Any:
    """Several positive series on log-log axes (e.g. ||w - w*||, angle and margin gaps)."""
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4))
    for x_, y_, lab in zip(xs, ys, labels):
        x_, y_ = np.asarray(x_, dtype=float), np.asarray(y_, dtype=float)
        keep = (x_ > 0) & (y_ > 0) & np.isfinite(y_)
        ax.loglog(x_[keep], y_[keep], label=lab)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if title:
        ax.set_title(title)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    return ax
