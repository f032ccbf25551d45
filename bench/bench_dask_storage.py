"""svmkit.dask on dense data in CSR partitions (a LIBSVM file's layout): each partition
prepared as given (the storage rule switched off on the workers: svmkit.dask._tasks.
dense_if_smaller replaced by the identity, the behaviour before 2026-12-08) and dense (on).

A LocalCluster of 2 worker processes x 1 thread; seeded Gaussian data, n x d, in `--chunks`
CSR row blocks; svmkit.dask.LinearSVC(loss=..., solver="tron") fitted alternately with the
rule off and on, best of `--repeats`, beside the in-memory 2-thread fit on the dense array.

Usage: python bench/bench_dask_storage.py [--n 200000] [--d 50] [--chunks 8] [--repeats 3]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np


def _rule_off() -> None:
    import svmkit.dask._tasks as tasks

    tasks.dense_if_smaller = lambda X: X


def _rule_on() -> None:
    import svmkit._validation as validation
    import svmkit.dask._tasks as tasks

    tasks.dense_if_smaller = validation.dense_if_smaller


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--n", type=int, default=200_000)
    p.add_argument("--d", type=int, default=50)
    p.add_argument("--chunks", type=int, default=8)
    p.add_argument("--repeats", type=int, default=3)
    args = p.parse_args()
    warnings.simplefilter("ignore")
    import dask.array as da
    import scipy.sparse as sp
    import svmkit
    import svmkit.dask as sd
    from distributed import Client, LocalCluster

    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, args.d))
    y = np.where(X @ rng.standard_normal(args.d) + 0.3 * rng.standard_normal(args.n) > 0, 1, -1)
    rows = -(-args.n // args.chunks)
    Xs = sp.csr_matrix(X)
    blocks = [Xs[i : i + rows] for i in range(0, args.n, rows)]
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as cluster,
        Client(cluster) as client,
    ):
        Xd = da.concatenate(
            [da.from_array(b, chunks=b.shape, asarray=False) for b in blocks], axis=0
        )
        yd = da.from_array(y, chunks=rows)
        print("| loss | rule off (CSR) s | rule on (dense) s | ratio | in memory 2 threads s |")
        print("|---|---|---|---|---|")
        for loss in ("squared_hinge", "logistic"):
            best = {}
            for _ in range(args.repeats):
                for mode, switch in (("off", _rule_off), ("on", _rule_on)):
                    client.run(switch)
                    t0 = time.perf_counter()
                    sd.LinearSVC(loss=loss, solver="tron").fit(Xd, yd)
                    best[mode] = min(best.get(mode, np.inf), time.perf_counter() - t0)
            t0 = time.perf_counter()
            svmkit.LinearSVC(loss=loss, solver="tron", n_jobs=2).fit(X, y)
            local = time.perf_counter() - t0
            print(
                f"| {loss} | {best['off']:.3f} | {best['on']:.3f} | "
                f"{best['on'] / best['off']:.2f} | {local:.3f} |",
                flush=True,
            )


if __name__ == "__main__":
    main()
