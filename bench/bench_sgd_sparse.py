"""sgd with batch_size=1 on sparse data: lazy O(nnz) steps against the O(d) dense steps.

The dense path is forced by lazy_steps=False; the two fits are timed alternately in one
process, for each lazy mode of sgd.cpp (plain steps with momentum; plain steps with l1 and no
momentum; AdaGrad with l1 and / or l2 (composite); AdaDelta without penalties).
Usage: python bench/bench_sgd_sparse.py [n] [d] [epochs]
"""

from __future__ import annotations

import sys
import time

import numpy as np
import scipy.sparse as sp
from svmkit import _core


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    d = int(sys.argv[2]) if len(sys.argv) > 2 else 100_000
    epochs = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    rng = np.random.default_rng(0)
    X = sp.random(n, d, density=50 / d, format="csr", random_state=0)
    X.data = rng.normal(size=X.nnz)
    y = np.where(X @ rng.normal(size=d) > 0, 1.0, -1.0)
    Xc = (X.data, X.indices, X.indptr, n, d)
    cases = {
        "plain, nesterov": {},
        "plain, l1, no momentum": {"momentum_type": "none", "l1_penalty": 1e-3},
        "adagrad, l1, l2=0": {"adaptive": "adagrad", "l1_penalty": 1e-3, "l2_penalty": 0.0},
        # composite AdaGrad (since 2026-12-07): the l2 prox has a closed form too
        "adagrad, l2=1": {"adaptive": "adagrad"},
        "adagrad, l1, l2=1": {"adaptive": "adagrad", "l1_penalty": 1e-3},
        "adadelta, l2=0": {"adaptive": "adadelta", "l2_penalty": 0.0},
    }
    print(f"n={n} d={d} nnz/row=50 epochs={epochs} batch_size=1, best of 3 (one process)")
    for label, case in cases.items():
        times = {True: [], False: []}
        sols = {}
        for _ in range(3):
            for lazy in (True, False):
                opts = {"batch_size": 1, "max_iter": epochs, "n_threads": 1, "seed": 1}
                opts.update(case, lazy_steps=lazy)
                t = time.perf_counter()
                r = _core.fit_sgd(
                    Xc, y, np.ones(n), "hinge", 0.1, 0.0, True, 1.0, False, None, opts, None
                )
                times[lazy].append(time.perf_counter() - t)
                sols[lazy] = np.asarray(r["solution"])
        diff = np.abs(sols[True] - sols[False]).max() / max(np.abs(sols[False]).max(), 1e-300)
        lazy_t, dense_t = min(times[True]), min(times[False])
        print(
            f"{label:24s} lazy {lazy_t:.3f} s  dense {dense_t:.3f} s  "
            f"speedup {dense_t / lazy_t:.0f}x  max rel diff {diff:.1e}"
        )


if __name__ == "__main__":
    main()
