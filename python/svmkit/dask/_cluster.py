"""Map-reduce over persisted partitions: the client checks, the partitions of a fit, the
tree reduction and the distributed objective TRON drives."""

from __future__ import annotations

import pickle
import uuid
from typing import Any

import numpy as np

from .. import _core
from . import _tasks


class DaskFitError(RuntimeError):
    """A distributed fit could not go on (lost scheduler, or a partition lost for good)."""


def resolve_client(client: Any) -> Any:
    """The client to use (the given one or the default one), checked to be connected.

    Fails fast, without waiting for a connection timeout, when the client is closed or its
    scheduler has gone away.
    """
    from distributed import get_client

    if client is None:
        try:
            client = get_client()
        except ValueError as e:
            raise DaskFitError(
                "svmkit.dask: no Dask client; create one (distributed.Client(...)) or pass "
                "client= to the estimator"
            ) from e
    status = getattr(client, "status", None)
    address = scheduler_address(client)
    if status != "running":
        raise DaskFitError(
            f"svmkit.dask: the Dask client is not connected (status {status!r}); the scheduler "
            f"at {address} is closed or unreachable"
        )
    try:
        client.sync(client.scheduler.identity, callback_timeout=5)
    except Exception as e:
        raise DaskFitError(
            f"svmkit.dask: the scheduler at {address} does not answer ({type(e).__name__}: {e})"
        ) from e
    return client


def scheduler_address(client: Any) -> str:
    """The scheduler's address as the client knows it (also once the client is closed)."""
    for get in (
        lambda: client.scheduler.address,
        lambda: client.cluster.scheduler_address,
        lambda: client._start_arg,  # the address the client was created with
    ):
        try:
            a = get()
        except Exception:
            continue
        if isinstance(a, str) and a:
            return a
    return "(unknown)"


def gather(client: Any, futures: list) -> list:
    """client.gather with the failures of a distributed fit turned into clear errors."""
    from distributed import KilledWorker

    try:
        return client.gather(futures)
    except KilledWorker as e:
        raise DaskFitError(
            "svmkit.dask: a partition could not be computed because the workers running it "
            f"died ({e}); the fit was stopped"
        ) from e
    except (OSError, TimeoutError) as e:
        address = scheduler_address(client)
        raise DaskFitError(
            f"svmkit.dask: lost the connection to the scheduler at {address} during the fit "
            f"({type(e).__name__}: {e})"
        ) from e
    except Exception as e:
        if type(e).__name__ in ("CancelledError", "FutureCancelledError"):
            address = scheduler_address(client)
            raise DaskFitError(
                f"svmkit.dask: the fit's tasks were cancelled (scheduler at {address} closed "
                f"or restarted): {e}"
            ) from e
        raise


class TrafficMeter:
    """Bytes between the driver and the cluster, counted as the pickled sizes of the task
    arguments the driver sends and of the results it receives; and map-reduce rounds."""

    def __init__(self) -> None:
        self.sent = 0
        self.received = 0
        self.rounds = 0

    def arg(self, value: Any, copies: int) -> None:
        self.sent += copies * len(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))

    def results(self, values: list) -> None:
        self.received += sum(len(pickle.dumps(v, protocol=pickle.HIGHEST_PROTOCOL)) for v in values)


def tree_sum(client: Any, futures: list, split_every: int, meter: TrafficMeter) -> np.ndarray:
    """Sum of the tasks' small vectors (one per run of partitions, or per partition): nodes of
    split_every children on the workers until at most split_every remain, then the last level
    on the driver. The tree and the order of every addition depend only on the number of
    futures (deterministic)."""
    level = list(futures)
    while len(level) > split_every:
        level = [
            client.submit(_tasks.add, *level[i : i + split_every], pure=False)
            for i in range(0, len(level), split_every)
        ]
    parts = gather(client, level)
    meter.results(parts)
    meter.rounds += 1
    return _tasks.add(*parts)


def runs_or_singletons(groups: list | None, workers: list | None, n_parts: int) -> tuple:
    """(runs, the worker of each run): as given (svmkit.dask._data.partition_groups), or one
    run per partition with no placement."""
    runs = groups or [[p] for p in range(n_parts)]
    return runs, (workers or [None] * len(runs))


def prefer_worker(addr: str | None) -> dict:
    """submit() / compute() keywords that prefer a worker (a lost worker's tasks run
    elsewhere, where their partitions are recomputed); none for addr None."""
    return {} if addr is None else {"workers": [addr], "allow_other_workers": True}


def placement(addr: str | None) -> dict:
    """submit() keywords of a pass task: on its run's worker (prefer_worker), never cached."""
    return {"pure": False, **prefer_worker(addr)}


def sum_over_runs(owner: Any, fn: Any, args: tuple) -> np.ndarray:
    """Sum over the partitions of fn(block, targets, slot, *args, intercept): one task per run
    of partitions (each summing its run in order), then the tree reduction. owner holds the
    fit's client, blocks, targets, runs (groups, group_workers), fit_id, intercept,
    split_every and meter (DistributedObjective, svmkit.dask._smsvm.SmsvmData)."""
    owner.meter.arg(args, len(owner.groups))
    parts = [
        owner.client.submit(
            _tasks.sum_over_run,
            fn,
            [owner.blocks[p] for p in g],
            [owner.targets[p] for p in g],
            [(owner.fit_id, p) for p in g],
            args,
            owner.intercept,
            **placement(addr),
        )
        for g, addr in zip(owner.groups, owner.group_workers)
    ]
    return tree_sum(owner.client, parts, owner.split_every, owner.meter)


class DistributedObjective:
    """F(w) = 1/2 ||w||^2 [+ 1/2 b^2] + sum over partitions of their loss parts, with the
    passes of svmkit/objective.hpp run on the workers. The per-row curvature of
    the current and the trial point stays on the worker that computed it (a cache that a
    task refills from the partition when it misses, see _tasks.fun_grad), so that one pass
    is one task per run of partitions (one run per worker thread) plus the reduction."""

    def __init__(
        self,
        client: Any,
        blocks: list,
        targets: list,
        loss: tuple,
        fit_intercept: bool,
        intercept_scaling: float,
        regularize_intercept: bool,
        n_features: int,
        split_every: int,
        meter: TrafficMeter,
        groups: list | None = None,
        group_workers: list | None = None,
    ) -> None:
        self.client = client
        self.blocks = blocks
        # One pass task per run of partitions (svmkit.dask._data.partition_groups), sent to
        # the worker that holds the run; one run per partition when none are given.
        self.groups, self.group_workers = runs_or_singletons(groups, group_workers, len(blocks))
        self.targets = targets
        self.loss = loss
        self.intercept = (bool(fit_intercept), float(intercept_scaling))
        self.reg_b = bool(regularize_intercept)
        self.d = n_features
        self.split_every = split_every
        self.meter = meter
        self.passes = 0
        self.fit_id = uuid.uuid4().hex
        self._points = 0
        self._trial: tuple | None = None  # (point id, w)
        self._current: tuple | None = None
        self._directions = 0  # ids of the line search's directions (their cached margins)
        self._direction: tuple | None = None  # (id, s)
        # TRON's hessian_cutoff as loss.hpp's kept_curvature applies it (D_i < cost_i cut
        # leaves H s; 0 keeps every row), and [kept, all] of the last decision (curvature_along).
        self.cut = 0.0
        self.curvature_along = (0.0, 0.0)
        # TRON's line search reads the margins of the current point (keep_decision_values).
        self._keep_margins = False

    def fun_grad(self, w: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        c, d = self.client, self.d
        w = np.ascontiguousarray(w, dtype=np.float64)
        self._points += 1
        point = self._points
        keep = self._current[0] if self._current else None
        self.meter.arg(w, len(self.groups))
        small = [
            c.submit(
                _tasks.fun_grad_run,
                [self.blocks[p] for p in g],
                [self.targets[p] for p in g],
                w,
                self.loss,
                self.intercept,
                [(self.fit_id, p) for p in g],
                point,
                keep,
                self._keep_margins,
                **placement(self.group_workers[k]),
            )
            for k, g in enumerate(self.groups)
        ]
        tot = tree_sum(c, small, self.split_every, self.meter)
        self.passes += 1
        self._trial = (point, w)
        dim = w.shape[0]
        grad = tot[1 : 1 + dim].copy()
        hdiag = tot[1 + dim :].copy()
        grad[:d] += w[:d]
        hdiag[:d] += 1.0
        if self.intercept[0] and self.reg_b:
            grad[d] += w[d]
            hdiag[d] += 1.0
        return 0.5 * self.reg_dot(w, w) + float(tot[0]), grad, hdiag

    def accept(self) -> None:
        self._current, self._trial = self._trial, None

    def keep_decision_values(self) -> None:
        """objective.hpp's keep_decision_values: each fun_grad pass also leaves the margins of
        its point on the workers, so that the line search's first task at the point does not
        sweep the partitions again for them (one pass per Newton step saved)."""
        self._keep_margins = True

    def hess_vec(self, s: np.ndarray) -> np.ndarray:
        c, d = self.client, self.d
        s = np.ascontiguousarray(s, dtype=np.float64)
        point, w = self._current
        self.meter.arg((w, s), len(self.groups))
        parts = [
            c.submit(
                _tasks.hess_vec_run,
                [self.blocks[p] for p in g],
                [self.targets[p] for p in g],
                w,
                s,
                self.loss,
                self.intercept,
                [(self.fit_id, p) for p in g],
                point,
                self.cut,
                **placement(self.group_workers[k]),
            )
            for k, g in enumerate(self.groups)
        ]
        out = tree_sum(c, parts, self.split_every, self.meter)
        self.passes += 1
        out[:d] += s[:d]
        if self.intercept[0] and self.reg_b:
            out[d] += s[d]
        return out

    def reg_dot(self, u: np.ndarray, v: np.ndarray) -> float:
        """u.v over the regularized coordinates (objective.hpp's reg_dot)."""
        r = float(u[: self.d] @ v[: self.d])
        if self.intercept[0] and self.reg_b:
            r += float(u[self.d] * v[self.d])
        return r

    def decision(self, s: np.ndarray) -> None:
        """TRON's line search direction s: its margins X~ s and those of the current point
        stay on the workers (one pass, as the in-memory decision(s))."""
        self._directions += 1
        self._direction = (self._directions, np.ascontiguousarray(s, dtype=np.float64))
        args = (self._current, self._direction, self.loss, self.cut)
        kept, every = sum_over_runs(self, _tasks.tron_direction, args)
        self.curvature_along = (float(kept), float(every))
        self.passes += 1

    def set_hessian_cutoff(self, hessian_cutoff: float) -> None:
        """objective.hpp's set_hessian_cutoff: H s leaves out the rows whose loss'' is below
        hessian_cutoff times the loss's largest."""
        self.cut = float(hessian_cutoff) * _core.loss_d2_max(*self.loss)

    def line_loss(self, a: float) -> float:
        """The loss part of F at w + a s (objective.hpp's line_loss)."""
        args = (self._current, self._direction, float(a), True, self.loss)
        return float(sum_over_runs(self, _tasks.tron_line, args)[0])

    def line_slope(self, a: float) -> tuple[float, float]:
        """Its first two derivatives in a (objective.hpp's line_slope)."""
        args = (self._current, self._direction, float(a), False, self.loss)
        out = sum_over_runs(self, _tasks.tron_line, args)
        return float(out[0]), float(out[1])

    def release(self) -> None:
        """Drops the workers' cached curvature and margins of this fit."""
        self._trial = self._current = None
        try:
            self.client.run(_tasks.forget, self.fit_id)
        except Exception:  # a lost worker has nothing left to drop
            pass
