"""Thread counts and the coarse parallel loop over the binary problems of a multiclass fit.

The design is described in cpp/include/svmkit/detail/parallel.hpp. Here:

- `resolve_n_jobs` maps scikit-learn's n_jobs onto a thread count. None means what the
  process may really use, as seen from the calling thread: the CPU affinity mask, the cgroup
  CPU quota, OMP_NUM_THREADS and threadpoolctl's limits (`_core.default_threads()`, which
  must run on the thread that calls fit, since threadpoolctl's limit is per thread).
- `map_binary_fits` runs the independent binary fits of a one-vs-rest or one-vs-one model.
  When there are at least as many fits as threads and splitting each pass would not pay,
  it runs them on a pool of threads, one single-threaded fit per thread (the GIL is released
  during each solve). A fit with n_threads=1 computes the same numbers wherever it runs, so
  coef_ is bitwise identical to the sequential loop with n_jobs=1.
"""

from __future__ import annotations

from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from typing import Any, Callable

from . import _core

# Passes below this many stored entries per chunk stay on one thread in C++
# (kEntriesPerChunk, data.hpp); rows likewise (kRowsPerChunk).
_ENTRIES_PER_CHUNK = 1 << 20
_ROWS_PER_CHUNK = 1024
# Below this many stored entries in all fits together a pool costs more than it saves.
_MIN_POOL_WORK = 1 << 16


def default_threads() -> int:
    """Threads a fit uses by default on the calling thread (affinity, cgroup, OpenMP limits)."""
    return int(_core.default_threads())


def usable_cpus() -> int:
    """CPUs this process may run on: the affinity mask capped by the cgroup CPU quota."""
    return int(_core.usable_cpus())


def resolve_n_jobs(n_jobs: int | None) -> int:
    """The thread count for an already validated n_jobs (None, > 0, or < 0)."""
    if n_jobs is None or n_jobs == 0:
        return default_threads()
    if n_jobs < 0:  # -1: every usable CPU, -2: all but one, ...
        return max(1, usable_cpus() + 1 + int(n_jobs))
    return int(n_jobs)


def use_pool(n_fits: int, n_threads: int, n_rows: int, n_entries: int) -> bool:
    """Whether the binary fits run on a pool (one single-threaded fit per thread).

    Chosen when there are at least as many fits as threads and either twice as many, or
    each pass is too small to be split over all threads inside a fit.
    """
    if n_threads < 2 or n_fits < 2 or n_fits < n_threads:
        return False
    if n_entries * n_fits < _MIN_POOL_WORK:
        return False
    by_rows = max(1, n_rows // _ROWS_PER_CHUNK)
    inner = min(n_threads, by_rows, max(1, n_entries // _ENTRIES_PER_CHUNK))
    return n_fits >= 2 * n_threads or inner < n_threads


def stored_entries(X: Any) -> int:
    """Stored entries of X (nonzeros of a sparse matrix): the work of one pass."""
    nnz = getattr(X, "nnz", None)
    if nnz is not None:
        return int(nnz)
    return int(X.shape[0]) * int(X.shape[1])


def map_binary_fits(
    fit_one: Callable[[int, int, Any], Any],
    n_fits: int,
    n_threads: int,
    n_rows: int,
    n_entries: int,
    sequential: bool = False,
) -> list:
    """[fit_one(k, threads, stop) for k in range(n_fits)], maybe on a thread pool.

    fit_one(k, threads, stop) fits problem k with `threads` threads; stop is None in the
    sequential loop, and on the pool a `_core.StopToken` to pass to the C++ fit in place of
    its callback: it is set once another fit failed or the caller was interrupted (Ctrl-C
    reaches only the main thread), so that running fits stop early. The fits read it without
    the GIL (a Python callable there took the GIL once per outer iteration, and fits queueing
    on it ran up to 3.5x slower each). sequential=True (a user callback or verbose output,
    which expect one fit at a time) forces the plain loop.
    """
    if sequential or not use_pool(n_fits, n_threads, n_rows, n_entries):
        return [fit_one(k, n_threads, None) for k in range(n_fits)]
    stop = _core.StopToken()

    def task(k: int) -> Any:
        if stop.is_set():
            return None
        return fit_one(k, 1, stop)

    workers = min(n_threads, n_fits)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="svmkit-fit") as pool:
        futures = [pool.submit(task, k) for k in range(n_fits)]
        try:
            # Wait in short slices: a signal (Ctrl-C) may be delivered to any thread, and
            # Python runs its handler only when the main thread executes bytecode; a plain
            # blocking result() would notice it only when a fit ends.
            pending = set(futures)
            while pending:
                _, pending = wait(pending, timeout=0.05, return_when=FIRST_EXCEPTION)
                if any(f.done() and f.exception() is not None for f in futures):
                    break
            return [f.result() for f in futures]
        except BaseException:
            stop.set()
            for f in futures:
                f.cancel()
            raise
