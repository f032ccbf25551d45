"""Turning dask collections into persisted row partitions on the workers."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import _tasks


@dataclass
class Partitions:
    """A fit's data on the workers: one future per row partition holding (X as the core
    views it, y, sample weights, rows, cols). The futures keep their lineage, so a partition
    lost with its worker is recomputed from the source collection."""

    blocks: list
    n_samples: int
    n_features: int
    feature_names: np.ndarray | None
    # Runs of partition indices, one per worker thread (see partition_runs), and the worker
    # each run was placed on: a TRON pass is one task per run, not per partition.
    groups: list = field(default_factory=list)
    group_workers: list = field(default_factory=list)
    # Per partition, from persist's checks: (labels, counts) of y (persist(labels=True)),
    # else whether y is all finite.
    summaries: list = field(default_factory=list)


def partition_groups(n_parts: int, n_slots: int) -> list[list[int]]:
    """Partitions 0..n_parts-1 as min(n_parts, n_slots) contiguous runs of near-equal length.

    A pass over the data costs one task per run: the scheduler's cost of a round grows with
    its tasks (an empty round over 8 partitions took 26 ms, over 2 partitions 11 ms, on 2
    workers; bench/results/dask.md), so one run per worker thread keeps the rounds short.
    The runs depend only on the two counts, so the order of every addition (within a run,
    then across runs) is fixed whatever worker a task lands on.
    """
    k = max(1, min(n_parts, n_slots))
    bounds = [i * n_parts // k for i in range(k + 1)]
    return [list(range(bounds[i], bounds[i + 1])) for i in range(k)]


def partition_runs(
    n_parts: int, slots: list[str], locations: list[str | None]
) -> tuple[list[list[int]], list[str]]:
    """(runs of partitions, the worker of each run): one run per worker thread (slots).

    Where every partition's X chunk already sits on a worker (data persisted before the fit,
    locations from source_locations), each worker's partitions, in index order, make its runs
    (one per thread of that worker): the fit then reads every partition where it lies, where
    contiguous runs would first move about half of the data between workers (200,000 x 100
    float64 persisted on 2 workers, 8 partitions: 0.33 s of transfers before the first pass).
    That plan is used when its runs are as balanced as the contiguous ones (sizes within one
    of each other, one run per slot or per partition); otherwise, and for data not yet on the
    cluster (each partition is then computed on its run's worker), the contiguous runs of
    partition_groups, run i on slot i. Either way the runs are fixed for the fit, so a lost
    worker's runs are recomputed elsewhere with the same summation order.
    """
    runs = partition_groups(n_parts, len(slots))
    contiguous = (runs, [slots[i * len(slots) // len(runs)] for i in range(len(runs))])
    if any(loc is None or loc not in slots for loc in locations):
        return contiguous
    by_worker: dict[str, list[int]] = {}
    for p, loc in enumerate(locations):
        by_worker.setdefault(loc, []).append(p)  # type: ignore[arg-type]
    local_runs, workers = [], []
    for addr in sorted(set(slots)):
        mine = by_worker.get(addr, [])
        for sub in partition_groups(len(mine), slots.count(addr)) if mine else []:
            local_runs.append([mine[i] for i in sub])
            workers.append(addr)
    sizes = [len(r) for r in local_runs]
    if len(local_runs) != len(runs) or max(sizes) - min(sizes) > 1:
        return contiguous
    return local_runs, workers


def source_locations(client: Any, X: Any, xs: list) -> list[str | None]:
    """The worker holding each partition's X chunk when X is persisted on the cluster (waits
    for a persist still running), else None for every partition."""
    from distributed import futures_of, wait

    futures = futures_of(X)
    if not futures:
        return [None] * len(xs)
    wait(futures)
    held = client.who_has(futures)
    out: list[str | None] = []
    for x in xs:
        addrs = held.get(x.key) or ()
        out.append(sorted(addrs)[0] if addrs else None)
    return out


def worker_slots(client: Any) -> list[str]:
    """One entry per worker thread (the worker's address), workers in address order."""
    info = client.scheduler_info()["workers"]
    return [a for a in sorted(info) for _ in range(max(1, int(info[a].get("nthreads", 1))))]


def is_dask_frame(v: Any) -> bool:
    """Whether v is a dask DataFrame or Series (without importing dask.dataframe, which
    needs pandas and pyarrow, when it is not in use)."""
    return type(v).__module__.startswith("dask.dataframe") or type(v).__module__.startswith(
        "dask_expr"
    )


def as_dask_array(X: Any, name: str = "X") -> Any:
    """X as a 2-D dask array with one block across the columns (rows stay as chunked)."""
    import dask.array as da

    if is_dask_frame(X):
        X = X.to_dask_array(lengths=True)
    elif not isinstance(X, da.Array):
        raise TypeError(
            f"svmkit.dask estimators take {name} as a dask array or dask DataFrame chunked by "
            f"rows, got {type(X).__name__}; use svmkit.LinearSVC / svmkit.LinearSVR for "
            "in-memory data"
        )
    if X.ndim != 2:
        raise ValueError(f"svmkit.dask: {name} must be 2-D, got {X.ndim}-D")
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    if X.numblocks[1] > 1:
        X = X.rechunk({1: -1})
    return X


def _as_vector(v: Any, chunks: tuple, name: str, n: int) -> Any:
    """A 1-D dask array of length n chunked like X's rows."""
    import dask.array as da

    if is_dask_frame(v):
        v = v.to_dask_array(lengths=True)
    if not isinstance(v, da.Array):
        v = np.asarray(v)
        if v.ndim == 2 and v.shape[1] == 1:
            v = v[:, 0]
        if v.ndim != 1 or v.shape[0] != n:
            raise ValueError(f"svmkit.dask: {name} must have shape ({n},), got {v.shape}")
        return da.from_array(v, chunks=(chunks,))
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    if v.ndim != 1:
        raise ValueError(f"svmkit.dask: {name} must be 1-D, got {v.ndim}-D")
    if any(np.isnan(c) for c in v.chunks[0]):
        v = v.compute_chunk_sizes()
    if v.shape[0] != n:
        raise ValueError(f"svmkit.dask: {name} has {v.shape[0]} entries but X has {n} rows")
    return v.rechunk((chunks,))


def persist(client: Any, X: Any, y: Any, sample_weight: Any, labels: bool = False) -> Partitions:
    """Persists the row partitions of (X, y, sample_weight) on the workers and waits for
    them (so that bad input fails here, with the partition's message). labels: summarize y
    as class labels (counts) rather than regression targets (finite or not)."""
    import dask

    from ._cluster import gather, prefer_worker

    names = None
    if hasattr(X, "columns") and all(isinstance(c, str) for c in X.columns):
        names = np.asarray(list(X.columns), dtype=object)
    X = as_dask_array(X)
    n, d = int(X.shape[0]), int(X.shape[1])
    if n == 0 or d == 0:
        raise ValueError(f"svmkit.dask: X has shape ({n}, {d}); at least one sample and feature")
    chunks = X.chunks[0]
    y = _as_vector(y, chunks, "y", n)
    xs = X.to_delayed().ravel()
    ys = y.to_delayed().ravel()
    if sample_weight is None:
        ws = [None] * len(xs)
    else:
        ws = _as_vector(sample_weight, chunks, "sample_weight", n).to_delayed().ravel()
    prep = dask.delayed(_tasks.prepare_block, pure=True)
    slots = worker_slots(client)
    if slots:
        # Each run's partitions are placed on one worker (a preference: a lost worker's runs
        # are recomputed elsewhere), so that the run's pass task finds its data in place.
        groups, group_workers = partition_runs(len(xs), slots, source_locations(client, X, xs))
    else:  # no worker yet (a cluster still scaling up): one run per partition, unplaced
        groups = [[p] for p in range(len(xs))]
        group_workers = [None] * len(groups)
    blocks: list = [None] * len(xs)
    for g, addr in zip(groups, group_workers):
        futs = client.compute([prep(xs[p], ys[p], ws[p]) for p in g], **prefer_worker(addr))
        for p, f in zip(g, futs):
            blocks[p] = f
    checks = [
        client.submit(
            _tasks.summarize_run, [blocks[p] for p in g], labels, pure=False, **prefer_worker(addr)
        )
        for g, addr in zip(groups, group_workers)
    ]
    per_part: list = [None] * len(blocks)
    for g, out in zip(groups, gather(client, checks)):
        for p, v in zip(g, out):
            per_part[p] = v
    msgs = [m for m, _ in per_part if m]
    if msgs:
        raise ValueError(msgs[0])
    return Partitions(blocks, n, d, names, groups, group_workers, [v for _, v in per_part])
