"""Distributed linear SVMs on Dask: svmkit.dask.LinearSVC and svmkit.dask.LinearSVR.

Install with ``pip install "svmkit[dask]"``. The estimators take dask arrays (dense or
scipy.sparse CSR blocks) and dask DataFrames chunked by rows, keep the partitions on the
workers and run the solver's outer loop (TRON for the smooth losses, SmSVM for the hinge
loss) on the client, one task per run of partitions (one run per worker thread) per pass
(see LinearSVC's docstring). A
fitted model is an ordinary in-memory model: ``to_local()``.
"""

from __future__ import annotations

try:
    import dask  # noqa: F401
    import distributed  # noqa: F401
except ImportError as e:  # pragma: no cover - exercised only without the extra
    raise ImportError('svmkit.dask needs dask[distributed]: pip install "svmkit[dask]"') from e

from ._cluster import DaskFitError
from ._estimators import LinearSVC, LinearSVR

__all__ = ["DaskFitError", "LinearSVC", "LinearSVR"]
