"""Cliff hunt: svmkit's defaults against scikit-learn on shapes and C values the regime matrix
does not hold.

The regime matrix (bench_regimes.py) fixes one cell per regime; this sweeps a grid around them:
four kinds of data (dense make_classification with its default 2 redundant columns, the same
with features scaled 1 to 1000, sparse text-like, sparse 0/1 indicator features), three shapes
(3,000 x 30, 500 x 2,000, 20,000 x 100) and C in {0.01, 1, 100}, for LinearSVC's squared hinge,
hinge, l1, logistic, hinge + elastic net and hinge + l1, and SVC (up to 5,000 rows). The anchor is
scikit-learn's estimator for the same model (LinearSVC, LogisticRegression(solver="liblinear"),
SVC), or SGDClassifier where scikit-learn has no exact solver (the hinge with l1 / elastic net;
alpha = 1 / (C n), a different stopping point). One fit each in a forked child with a time limit;
training accuracy beside each. A cell is a cliff where svmkit takes over 3x the anchor's time and
over 0.2 s, or does not finish.

    python bench/bench_cliff_hunt.py [--timeout 30] [--only hinge_l1,hinge_enet] [--out FILE]
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings
from functools import partial
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp
import sklearn.linear_model as sklm
import sklearn.svm as sksvm
import svmkit
from bench_regimes import run_isolated
from harness import Table, command_line, write_section
from sklearn.datasets import make_classification
from svmkit.datasets import make_sparse_text_like

KINDS = ("dense", "scaled", "sparse", "binary")
SHAPES = ((3000, 30), (500, 2000), (20000, 100))
CS = (0.01, 1.0, 100.0)
CLIFF_RATIO = 3.0
CLIFF_SECONDS = 0.2
SVC_MAX_ROWS = 5000


def data(kind: str, n: int, d: int, seed: int = 0) -> tuple[Any, np.ndarray]:
    rng = np.random.default_rng(seed)
    if kind in ("dense", "scaled"):
        X, y = make_classification(
            n, d, n_informative=max(2, d // 3), flip_y=0.05, random_state=seed
        )
        return (X * np.logspace(0, 3, d) if kind == "scaled" else X), y
    if kind == "sparse":
        X, y = make_sparse_text_like(n, d, min(0.5, 40.0 / d), label_noise=0.05, random_state=seed)
        return sp.csr_matrix(X), y
    X = (rng.random((n, d)) < 0.1).astype(float)  # 0/1 indicator features
    y = (X[:, : d // 2].sum(1) > X[:, d // 2 :].sum(1)).astype(int)
    flip = rng.random(n) < 0.05
    y[flip] = 1 - y[flip]
    return sp.csr_matrix(X), y


def _sgd(penalty: str) -> Callable[[float, int], Any]:
    return lambda C, n: sklm.SGDClassifier(loss="hinge", penalty=penalty, alpha=1.0 / (C * n))


# name -> (svmkit's default for the model, the anchor as a function of (C, n_samples))
ESTIMATORS: dict[str, tuple[Callable[[float], Any], Callable[[float, int], Any]]] = {
    "LinearSVC()": (lambda C: svmkit.LinearSVC(C=C), lambda C, n: sksvm.LinearSVC(C=C)),
    "hinge": (
        lambda C: svmkit.LinearSVC(C=C, loss="hinge"),
        lambda C, n: sksvm.LinearSVC(C=C, loss="hinge"),
    ),
    "l1": (
        lambda C: svmkit.LinearSVC(C=C, penalty="l1"),
        lambda C, n: sksvm.LinearSVC(C=C, penalty="l1", dual=False),
    ),
    "logistic": (
        lambda C: svmkit.LinearSVC(C=C, loss="logistic"),
        lambda C, n: sklm.LogisticRegression(C=C, solver="liblinear"),
    ),
    "hinge_enet": (
        lambda C: svmkit.LinearSVC(C=C, loss="hinge", penalty="elasticnet"),
        _sgd("elasticnet"),
    ),
    "hinge_l1": (lambda C: svmkit.LinearSVC(C=C, loss="hinge", penalty="l1"), _sgd("l1")),
    "SVC": (lambda C: svmkit.SVC(C=C), lambda C, n: sksvm.SVC(C=C)),
}


def timed(make: Callable[[], Any], X: Any, y: np.ndarray, limit: float) -> tuple[Any, float]:
    """(seconds or "timeout" / an error, training accuracy) of one fit in a forked child."""

    def child() -> tuple[float, float]:
        warnings.simplefilter("ignore")
        est = make()
        t0 = time.perf_counter()
        est.fit(X, y)
        return time.perf_counter() - t0, float(est.score(X, y))

    status, out = run_isolated(child, limit)
    if status == "ok":
        return out
    return ("timeout" if status == "timeout" else f"error: {out}"), float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--only", default="", help="comma-separated estimator names")
    ap.add_argument("--out", default=None, help="write the section here, not bench/results")
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    table = Table(
        ["data", "C", "model", "svmkit s", "svmkit acc", "anchor", "anchor s", "anchor acc",
         "ratio", "cliff"]
    )  # fmt: skip
    cliffs = []
    for kind, (n, d) in itertools.product(KINDS, SHAPES):
        X, y = data(kind, n, d)
        for C in CS:
            for name, (ours, anchor) in ESTIMATORS.items():
                if (only and name not in only) or (name == "SVC" and n > SVC_MAX_ROWS):
                    continue
                t_o, acc_o = timed(partial(ours, C), X, y, args.timeout)
                t_a, acc_a = timed(partial(anchor, C, n), X, y, args.timeout)
                finished = isinstance(t_o, float)
                ratio = t_o / t_a if finished and isinstance(t_a, float) else float("nan")
                cliff = not finished or (ratio > CLIFF_RATIO and t_o > CLIFF_SECONDS)
                cell = f"{kind} {n}x{d}"
                label = type(anchor(C, n)).__name__
                table.add(cell, C, name, t_o, acc_o, label, t_a, acc_a, ratio,
                          "CLIFF" if cliff else "")  # fmt: skip
                if cliff:
                    ours_s = f"{t_o:.3g} s" if finished else t_o
                    anchor_s = f"{t_a:.3g} s" if isinstance(t_a, float) else t_a
                    cliffs.append(f"- {cell}, C={C}, {name}: {ours_s} against {label} {anchor_s}")
                print(table.markdown().splitlines()[-1], flush=True)
    body = (
        f"{len(table.rows)} cells; cliffs (svmkit over {CLIFF_RATIO:g}x the anchor and over "
        f"{CLIFF_SECONDS:g} s, or not finished within {args.timeout:g} s): {len(cliffs)}.\n\n"
        + "\n".join(cliffs)
        + "\n\n"
        + table.markdown()
    )
    if args.out:
        with open(args.out, "w") as f:
            f.write(body + "\n")
        print(body)
    else:
        write_section("cliff_hunt", "Cliff hunt: defaults off the regime matrix's cells", body,
                      command_line())  # fmt: skip


if __name__ == "__main__":
    main()
