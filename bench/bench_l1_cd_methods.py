"""l1_cd's two methods for the l1 / elastic-net squared hinge: newGLMNET (squared_hinge_method 1,
the default where n_samples >= n_features) against CDN (2, LIBLINEAR -s 5's method).

Both at LinearSVC's defaults (C=1, tol=1e-4, max_iter=1000 coordinate sweeps), alternately in one
process, best of --rounds fits each. Reports the wall time, the relative gap to the optimum (a
newGLMNET fit at tol=1e-9, max_iter=10^5), the statuses of the one-vs-rest fits and n_iter_.
Sets: the real sets of ../shared/datasets (a9a, covtype.5000, mushrooms, dna.scale; skipped with a
note where the folder is absent), scikit-learn's iris and standardized digits, and the regime
matrix's generated cells (dense 8,000 x 50, sparse 1,600 x 50,000 and 16,000 x 10,000 text-like,
dense 240 x 5,000, 26 classes 16,000 x 16).

    python bench/bench_l1_cd_methods.py [--penalty l1|elasticnet] [--rounds 3] [--only iris]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import svmkit
from bench_regimes import REAL_SETS, _many_classes, _shared, _tall, _text
from sklearn.datasets import load_digits, load_iris
from sklearn.preprocessing import StandardScaler


def sets():
    for name, train, test, _, nf in REAL_SETS[:4]:
        try:
            d = _shared(train, test, "clf", nf)
        except (FileNotFoundError, OSError) as exc:
            print(f"skipping {name}: {exc}")
            continue
        yield name.split()[0], d.Xtr, d.ytr
    X, y = load_iris(return_X_y=True)
    yield "iris", X, y
    X, y = load_digits(return_X_y=True)
    yield "digits", StandardScaler().fit_transform(X), y
    for name, d in (
        ("dense 8000x50", _tall(10000, 50)),
        ("sparse 1600x50000", _text(2000, 50000, 60)),
        ("sparse 16000x10000", _text(20000, 10000, 50)),
        ("dense 240x5000", _tall(300, 5000)),
        ("26 classes 16000x16", _many_classes(20000)),
    ):
        yield name, d.Xtr, d.ytr


def objective(m, X, y, l1_ratio: float) -> float:
    """The sum over the one-vs-rest problems of LIBLINEAR's primal (the bias a weight)."""
    W, B, total = np.atleast_2d(m.coef_), np.atleast_1d(m.intercept_), 0.0
    for k in range(W.shape[0]):
        pos = m.classes_[k] if len(m.classes_) > 2 else m.classes_[1]
        z = np.where(y == pos, 1.0, -1.0) * (X @ W[k] + B[k])
        w = np.r_[W[k], B[k]]
        pen = l1_ratio * np.abs(w).sum() + (1.0 - l1_ratio) / 2.0 * (w @ w)
        total += pen + np.sum(np.maximum(0.0, 1.0 - z) ** 2)
    return float(total)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--penalty", choices=("l1", "elasticnet"), default="l1")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated set names")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    ratio = 1.0 if args.penalty == "l1" else 0.5
    only = set(filter(None, args.only.split(",")))
    print("| set | method | time (ms) | gap | statuses | n_iter_ |")
    print("|---|---|---|---|---|---|")
    for name, X, y in sets():
        if only and name not in only:
            continue
        best = svmkit.LinearSVC(penalty=args.penalty, tol=1e-9, max_iter=100000).fit(X, y)
        f_best = objective(best, X, y, ratio)
        methods = {"newGLMNET": {"squared_hinge_method": 1}, "CDN": {"squared_hinge_method": 2}}
        times = {k: np.inf for k in methods}
        fitted = {}
        for _ in range(args.rounds):
            for label, opts in methods.items():
                t0 = time.perf_counter()
                fitted[label] = svmkit.LinearSVC(penalty=args.penalty, solver_options=opts).fit(
                    X, y
                )
                times[label] = min(times[label], time.perf_counter() - t0)
        for label, m in fitted.items():
            gap = (objective(m, X, y, ratio) - f_best) / f_best
            statuses = sorted({r["status"].name for r in m.result_})
            print(
                f"| {name} | {label} | {1000 * times[label]:.1f} | {gap:.2e} | "
                f"{', '.join(statuses)} | {m.n_iter_} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
