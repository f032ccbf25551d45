"""Per-fit latency on tiny data (iris): svmkit vs scikit-learn, fit + predict, alternated.

The Python overhead of a fit (parameter checks, dtype/layout conversion, thread-count
resolution, result conversion) dominates here; the solve itself takes microseconds.

    python bench/bench_fit_overhead.py [--repeats 200]

Prints the median and the minimum time per fit+predict for each pair and the ratios
svmkit/scikit-learn (the minimum is the figure least disturbed by other load).
The machine may be shared: the pairs alternate in one process so that load hits both alike.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import sklearn.svm as sksvm
import svmkit
from sklearn.datasets import load_iris

PAIRS = {
    "LinearSVC": (lambda: svmkit.LinearSVC(), lambda: sksvm.LinearSVC()),
    "SVC": (lambda: svmkit.SVC(), lambda: sksvm.SVC()),
}


def one(make, X, y) -> float:
    t = time.perf_counter()
    make().fit(X, y).predict(X)
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=200)
    args = ap.parse_args()
    X, y = load_iris(return_X_y=True)
    for name, (ours, theirs) in PAIRS.items():
        for _ in range(5):  # warm up both
            one(ours, X, y), one(theirs, X, y)
        a, b = [], []
        for _ in range(args.repeats):
            a.append(one(ours, X, y))
            b.append(one(theirs, X, y))
        ma, mb = float(np.median(a)), float(np.median(b))
        la, lb = float(np.min(a)), float(np.min(b))
        print(
            f"{name:10s} median: svmkit {ma * 1e6:7.0f} us  scikit-learn {mb * 1e6:7.0f} us  "
            f"ratio {ma / mb:5.2f}   min: svmkit {la * 1e6:7.0f} us  scikit-learn "
            f"{lb * 1e6:7.0f} us  ratio {la / lb:5.2f}"
        )


if __name__ == "__main__":
    main()
