"""svmkit.dask against the in-memory fit, and the traffic of a distributed TRON fit.

Runs (each a fresh LocalCluster, processes, 1 thread per worker):
  1. timing: svmkit.LinearSVC(solver=the Dask estimator's choice or --solver, n_jobs=2) in
     memory beside svmkit.dask.LinearSVC on 2 workers x 1 thread, same data (generated on the
     workers by a seeded generator, then gathered once for the in-memory fit), alternately,
     best of R;
  2. per-round overhead: an empty map-reduce with the tasks of one pass (one per run of
     partitions, i.e. per worker thread), best of 20;
  3. traffic: bytes the driver sends (pickled task arguments) and receives (reduced vectors)
     per pass, and the workers' outgoing transfer bytes (scheduler-side transfer logs);
  4. a dataset larger than each worker's memory_limit, fitted.

Usage: python bench/bench_dask.py [--n 200000] [--d 100] [--chunks 8] [--repeats 2]
                                  [--big-n 1500000] [--limit 1GiB]
Timings are noisy on a shared 2-core machine; compare ratios measured in one run.
"""

from __future__ import annotations

import argparse
import contextlib
import platform
import time
from pathlib import Path

import numpy as np

LINES: list[str] = []


def out(line: str = "") -> None:
    """Print a result line and keep it for bench/results/dask.md."""
    print(line, flush=True)
    LINES.append(line)


REGRESSION_LOSSES = ("epsilon_insensitive", "squared_epsilon_insensitive")


def make(n: int, d: int, chunks: int, seed: int = 0, regression: bool = False):
    import dask.array as da

    rows = -(-n // chunks)
    rs = da.random.RandomState(seed)
    X = rs.standard_normal((n, d), chunks=(rows, d))
    w = np.random.default_rng(seed).standard_normal(d) / np.sqrt(d)
    noise = rs.standard_normal(n, chunks=rows)
    if regression:
        return X, X @ w + 0.5 * noise
    y = da.where(X @ w + 0.5 * noise > 0, 1, -1)
    return X, y


@contextlib.contextmanager
def cluster_with_data(n: int, d: int, chunks: int, regression: bool):
    """A fresh LocalCluster (2 workers x 1 thread, processes) with make()'s data persisted on
    it: yields (client, X, y, Xn, yn), the dask collections and their in-memory copies."""
    from distributed import Client, LocalCluster

    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        X, y = make(n, d, chunks, regression=regression)
        X, y = client.persist([X, y])
        Xn, yn = client.compute([X, y], sync=True)
        yield client, X, y, Xn, yn


def worker_out_bytes(client) -> int:
    def total(dask_worker):
        return int(getattr(dask_worker, "transfer_outgoing_bytes_total", 0))

    return sum(client.run(total).values())


def empty_round(client, n_tasks: int, reps=20) -> float:
    from svmkit.dask import _tasks

    s = np.zeros(101)
    best = np.inf
    for _ in range(reps):
        t = time.perf_counter()
        futs = [client.submit(_tasks.add, s, pure=False) for _ in range(n_tasks)]
        client.gather(futs)
        best = min(best, time.perf_counter() - t)
    return best


def timing(args) -> None:
    import svmkit
    import svmkit.dask as sd

    # The Dask estimators' "auto": smsvm for the hinge with the l1 / elastic-net penalties,
    # tron otherwise (the hinge with l2 by its smoothing continuation).
    auto = "smsvm" if args.loss == "hinge" and args.penalty != "l2" else "tron"
    solver = auto if args.solver == "auto" else args.solver
    regression = args.loss in REGRESSION_LOSSES
    params = dict(loss=args.loss, C=args.C, tol=args.tol, solver=solver)
    if not regression:
        params["penalty"] = args.penalty
    InMemory = svmkit.LinearSVR if regression else svmkit.LinearSVC
    Distributed = sd.LinearSVR if regression else sd.LinearSVC
    with cluster_with_data(args.n, args.d, args.chunks, regression) as (client, X, y, Xn, yn):
        t_mem, t_dask = [], []
        for _ in range(args.repeats):
            t = time.perf_counter()
            local = InMemory(**params, n_jobs=2).fit(Xn, yn)
            t_mem.append(time.perf_counter() - t)
            out0 = worker_out_bytes(client)
            t = time.perf_counter()
            est = Distributed(**params)
            est.client = client
            dist = est.fit(X, y)
            t_dask.append(time.perf_counter() - t)
            out1 = worker_out_bytes(client)
        r_l, r_d = local.result_[0], dist.result_[0]
        from svmkit.dask._data import persist

        parts = persist(client, X, y, None)
        # A summed pass is one task per run of partitions (one run per worker thread); SmSVM's
        # final polish (elasticnet) still sends one task per partition.
        n_tasks = len(parts.groups)
        t_round = empty_round(client, n_tasks)
        del parts
        rounds = r_d["rounds"]
        out(
            f"data {args.n} x {args.d} float64 dense, {args.chunks} partitions, {args.loss}, "
            f"penalty {params.get('penalty', 'l2')}, solver {solver}"
            + (
                f" (smoothing stages, certified gap {r_d['optimality']:.2e})"
                if solver == "tron" and args.loss in ("hinge", "epsilon_insensitive")
                else ""
            )
        )
        out(
            f"in-memory 2 threads: best {min(t_mem):.3f} s  ({r_l['iterations']} it, "
            f"{r_l['inner_iterations']} CG, {r_l['passes']} passes, "
            f"f = {r_l['objective']:.12e})"
        )
        out(
            f"dask 2x1:            best {min(t_dask):.3f} s  ({r_d['iterations']} it, "
            f"{r_d['inner_iterations']} CG, {r_d['passes']} passes, {rounds} rounds, "
            f"f = {r_d['objective']:.12e})"
        )
        out(f"ratio dask / in-memory: {min(t_dask) / min(t_mem):.2f}")
        out(
            f"relative objective difference: "
            f"{abs(r_d['objective'] - r_l['objective']) / abs(r_l['objective']):.2e}"
        )
        out(
            f"empty map-reduce round ({n_tasks} tasks for {args.chunks} partitions): "
            f"{t_round * 1e3:.1f} ms; "
            f"x {rounds} rounds = {t_round * rounds:.3f} s of the fit"
        )
        out(
            f"per outer iteration: {rounds / max(1, r_d['iterations']):.1f} rounds, "
            f"overhead ~ {t_round * rounds / max(1, r_d['iterations']) * 1e3:.0f} ms"
        )
        out(
            f"driver -> cluster: {r_d['bytes_sent']} B ({r_d['bytes_sent'] / rounds:.0f} B "
            f"per pass); cluster -> driver: {r_d['bytes_received']} B "
            f"({r_d['bytes_received'] / rounds:.0f} B per pass)"
        )
        it = max(1, r_d["iterations"])
        out(
            f"per outer iteration: {r_d['bytes_sent'] / it:.0f} B sent, "
            f"{r_d['bytes_received'] / it:.0f} B received by the driver"
        )
        out(
            f"worker -> worker/driver transfers during one dask fit (transfer logs): "
            f"{out1 - out0} B ({(out1 - out0) / rounds:.0f} B per pass)"
        )


def big(args) -> None:
    import dask
    import svmkit.dask as sd
    from distributed import Client, LocalCluster

    # Each worker must hold its half; the spill-to-disk target is lifted so that the
    # partitions stay in memory (they fit in each worker's limit, the whole set does not).
    with (
        dask.config.set(
            {
                "distributed.worker.memory.target": False,
                "distributed.worker.memory.spill": False,
                "distributed.worker.memory.pause": 0.95,
                "distributed.worker.memory.terminate": 0.98,
            }
        ),
        LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            memory_limit=args.limit,
            dashboard_address=None,
        ) as cluster,
        Client(cluster) as client,
    ):
        regression = args.loss in REGRESSION_LOSSES
        X, y = make(args.big_n, args.d, 2 * args.chunks, seed=1, regression=regression)
        limit = client.run(lambda dask_worker: dask_worker.memory_manager.memory_limit)
        t = time.perf_counter()
        Distributed = sd.LinearSVR if regression else sd.LinearSVC
        est = Distributed(loss=args.loss, C=args.C, tol=args.tol)
        est.client = client
        dist = est.fit(X, y)
        el = time.perf_counter() - t
        r = dist.result_[0]
        out(
            f"big: X {args.big_n} x {args.d} float64 = {X.nbytes / 2**20:.0f} MiB; "
            f"memory_limit per worker {min(limit.values()) / 2**20:.0f} MiB; fitted in "
            f"{el:.2f} s (incl. generating the data on the workers), status "
            f"{r['status'].name}, {r['iterations']} it, {r['passes']} passes"
        )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=200_000)
    p.add_argument("--d", type=int, default=100)
    p.add_argument("--chunks", type=int, default=8)
    p.add_argument("--repeats", type=int, default=2)
    p.add_argument(
        "--loss",
        default="logistic",
        help="'hinge' runs tron's continuation (l2) or SmSVM; epsilon_insensitive / "
        "squared_epsilon_insensitive run LinearSVR",
    )
    p.add_argument("--penalty", default="l2", help="l1 / elasticnet with --loss hinge")
    p.add_argument(
        "--solver",
        default="auto",
        choices=("auto", "tron", "smsvm"),
        help="auto: the Dask estimator's choice (smsvm for hinge with l1 / elasticnet, else tron)",
    )
    p.add_argument("--C", type=float, default=1.0)
    p.add_argument("--tol", type=float, default=1e-4)
    p.add_argument("--big-n", type=int, default=1_500_000)
    p.add_argument("--limit", default="1GiB")
    p.add_argument("--skip-big", action="store_true")
    p.add_argument(
        "--write",
        nargs="?",
        const="dask_measured.txt",
        default=None,
        help="write the lines to bench/results/<name> (default dask_measured.txt)",
    )
    args = p.parse_args()
    out(
        f"Command: `python bench/bench_dask.py --n {args.n} --d {args.d} --chunks {args.chunks}"
        f" --repeats {args.repeats} --big-n {args.big_n} --limit {args.limit}"
        f" --loss {args.loss} --penalty {args.penalty} --solver {args.solver}"
        + (" --skip-big" if args.skip_big else "")
        + (f" --write {args.write}" if args.write else "")
        + "`"
        f" ({platform.node() or 'host'}, 2 cores shared with other jobs: timings are noisy)"
    )
    out()
    timing(args)
    if not args.skip_big:
        big(args)
    if args.write:
        path = Path(__file__).resolve().parent / "results" / args.write
        path.write_text("\n".join(LINES) + "\n")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
