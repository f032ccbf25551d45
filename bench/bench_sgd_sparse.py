"""sgd with batch_size=1 on sparse data: lazy O(nnz) steps against the O(d) dense steps.

The dense path is forced by l1_penalty=1e-300 (a soft threshold that changes nothing at this
scale, but the lazy path does not handle l1); the two fits are timed alternately in one process.
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
    times = {"lazy": [], "dense": []}
    sols = {}
    for _ in range(3):
        for name, extra in (("lazy", {}), ("dense", {"l1_penalty": 1e-300})):
            opts = {"batch_size": 1, "max_iter": epochs, "n_threads": 1, "seed": 1, **extra}
            t = time.perf_counter()
            r = _core.fit_sgd(
                Xc, y, np.ones(n), "hinge", 0.1, 0.0, True, 1.0, False, None, opts, None
            )
            times[name].append(time.perf_counter() - t)
            sols[name] = np.asarray(r["solution"])
    diff = np.abs(sols["lazy"] - sols["dense"]).max() / np.abs(sols["dense"]).max()
    lazy, dense = min(times["lazy"]), min(times["dense"])
    print(f"n={n} d={d} nnz/row=50 epochs={epochs} batch_size=1, best of 3 (one process)")
    print(f"lazy  {lazy:.3f} s   dense {dense:.3f} s   speedup {dense / lazy:.0f}x")
    print(f"max relative difference of the solutions: {diff:.2e}")


if __name__ == "__main__":
    main()
