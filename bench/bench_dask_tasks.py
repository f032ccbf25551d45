"""Where a distributed fit's time goes: the workers' compute per task kind beside the fit's
wall time (the rest is coordination: scheduling, transfers, the driver's steps).

One fresh LocalCluster (2 workers x 1 thread, processes), the seeded data of bench_dask.make;
the in-memory fit (n_jobs=2) for scale, one warm-up distributed fit, then one distributed fit
under distributed.get_task_stream. Prints the compute seconds and task count per task kind
(the function name of the task key), the sum over tasks per worker, and the fit's wall time.

Usage: python bench/bench_dask_tasks.py [--loss epsilon_insensitive] [--n 200000] [--d 100]
                                        [--chunks 8]
"""

from __future__ import annotations

import argparse
import collections
import time

from bench_dask import REGRESSION_LOSSES, cluster_with_data


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--loss", default="epsilon_insensitive")
    ap.add_argument("--n", type=int, default=200_000)
    ap.add_argument("--d", type=int, default=100)
    ap.add_argument("--chunks", type=int, default=8)
    args = ap.parse_args()

    import distributed
    import svmkit
    import svmkit.dask as sd

    regression = args.loss in REGRESSION_LOSSES
    InMemory = svmkit.LinearSVR if regression else svmkit.LinearSVC
    Distributed = sd.LinearSVR if regression else sd.LinearSVC
    params = {"loss": args.loss}
    with cluster_with_data(args.n, args.d, args.chunks, regression) as (client, X, y, Xn, yn):
        t = time.perf_counter()
        InMemory(**params, n_jobs=2).fit(Xn, yn)
        t_mem = time.perf_counter() - t
        est = Distributed(**params)
        est.client = client
        est.fit(X, y)  # warm-up: imports and the workers' first calls
        with distributed.get_task_stream(client) as ts:
            t = time.perf_counter()
            est.fit(X, y)
            t_dask = time.perf_counter() - t
        kinds: dict[str, list] = collections.defaultdict(lambda: [0, 0.0])
        workers: dict[str, float] = collections.defaultdict(float)
        for task in ts.data:
            key = task["key"] if isinstance(task["key"], str) else task["key"][0]
            kind = key.split("-", 1)[0]
            for s in task["startstops"]:
                if s["action"] == "compute":
                    kinds[kind][0] += 1
                    kinds[kind][1] += s["stop"] - s["start"]
                    workers[task["worker"]] += s["stop"] - s["start"]
        rounds = est.result_[0].get("rounds", "-")
        print(f"{args.n} x {args.d}, {args.chunks} partitions, {args.loss}")
        print(f"in-memory fit (2 threads): {t_mem:.3f} s; dask fit: {t_dask:.3f} s", end="")
        print(f", {rounds} rounds")
        for kind, (count, seconds) in sorted(kinds.items(), key=lambda kv: -kv[1][1]):
            print(f"  {kind:24s} {count:5d} tasks  {seconds:.3f} s compute")
        for w, seconds in sorted(workers.items()):
            print(f"  worker {w}: {seconds:.3f} s compute")
        busiest = max(workers.values(), default=0.0)
        if isinstance(rounds, int) and rounds > 0:
            print(
                f"wall time beyond the busiest worker's compute: {t_dask - busiest:.3f} s "
                f"({(t_dask - busiest) / rounds * 1e3:.1f} ms per round)"
            )


if __name__ == "__main__":
    main()
