"""Feature scaling as LIBSVM's svm-scale does it (`svmkit scale`).

Each feature j is mapped linearly from [min_j, max_j] onto [lower, upper], where min_j and max_j
are taken over all samples with a missing (sparse) entry counting as 0; a feature with
min_j == max_j carries no information and is dropped. An entry whose scaled value is 0 is not
written, so data stays sparse when 0 maps to 0 (lower = 0 on non-negative features); with the
default lower = -1 the zeros of a sparse feature become -1 and are written.

The parameter file (`-s` to save, `-r` to restore) has svm-scale's layout:

    y                     (only when the targets are scaled)
    y_lower y_upper
    y_min y_max
    x
    lower upper
    index min max         (one line per kept feature, 1-based)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import IO

import numpy as np
import scipy.sparse as sp


class ScaleError(ValueError):
    """A bad scaling request or a malformed parameter file."""


@dataclass
class ScaleParams:
    """What svm-scale saves: the target range and the per-feature source ranges."""

    lower: float = -1.0
    upper: float = 1.0
    feature_min: np.ndarray = field(default_factory=lambda: np.zeros(0))
    feature_max: np.ndarray = field(default_factory=lambda: np.zeros(0))
    y_range: tuple[float, float] | None = None  # (y_lower, y_upper) when targets are scaled
    y_source: tuple[float, float] | None = None  # (y_min, y_max) over the data


def _check_range(lower: float, upper: float, what: str) -> None:
    if not (np.isfinite(lower) and np.isfinite(upper)) or not lower < upper:
        raise ScaleError(
            f"{what}: the lower limit must be below the upper one, got {lower} {upper}"
        )


def find_params(
    X: sp.csr_matrix,
    y: np.ndarray,
    lower: float = -1.0,
    upper: float = 1.0,
    y_range: tuple[float, float] | None = None,
) -> ScaleParams:
    """Per-feature ranges of X (implicit zeros included) and, with y_range, of y."""
    _check_range(lower, upper, "-l/-u")
    X = sp.csr_matrix(X)
    n, d = X.shape
    fmin = np.asarray(X.min(axis=0).todense()).ravel() if n else np.zeros(d)
    fmax = np.asarray(X.max(axis=0).todense()).ravel() if n else np.zeros(d)
    params = ScaleParams(lower, upper, fmin, fmax)
    if y_range is not None:
        _check_range(*y_range, "-y")
        params.y_range = (float(y_range[0]), float(y_range[1]))
        params.y_source = (float(np.min(y)), float(np.max(y))) if len(y) else (0.0, 0.0)
    return params


def _map(v: np.ndarray, lo: np.ndarray, hi: np.ndarray, lower: float, upper: float) -> np.ndarray:
    """lower + (upper - lower) (v - lo) / (hi - lo), exact at both ends (as svm-scale)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        out = lower + (upper - lower) * (v - lo) / (hi - lo)
    out = np.where(v == lo, lower, out)
    return np.where(v == hi, upper, out)


def apply_params(
    X: sp.csr_matrix, y: np.ndarray, params: ScaleParams
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Scale X (and y when the parameters scale targets); constant features are dropped."""
    X = sp.csr_matrix(X, dtype=np.float64)
    n, d = X.shape
    known = params.feature_min.shape[0]
    # Features beyond the parameter file (or constant in it) carry no scale: dropped.
    lo = np.zeros(d)
    hi = np.zeros(d)
    m = min(d, known)
    lo[:m], hi[:m] = params.feature_min[:m], params.feature_max[:m]
    keep = hi > lo
    cols = X.indices
    vals = _map(X.data, lo[cols], hi[cols], params.lower, params.upper)
    vals = np.where(keep[cols], vals, 0.0)
    stored = sp.csr_matrix((vals, cols, X.indptr), shape=(n, d))
    zero_image = np.where(keep, _map(np.zeros(d), lo, hi, params.lower, params.upper), 0.0)
    dense_cols = np.flatnonzero(zero_image != 0.0)
    if dense_cols.size:
        # Implicit zeros of these features map to a nonzero: write them everywhere not stored.
        present = sp.csr_matrix((np.ones_like(X.data), cols, X.indptr), shape=(n, d))[:, dense_cols]
        fill = np.ones((n, dense_cols.size)) - present.toarray()
        filler = sp.csr_matrix(fill * zero_image[dense_cols])
        expand = sp.csr_matrix(
            (np.ones(dense_cols.size), (np.arange(dense_cols.size), dense_cols)),
            shape=(dense_cols.size, d),
        )
        stored = stored + filler @ expand
    stored = sp.csr_matrix(stored)
    stored.eliminate_zeros()
    stored.sort_indices()
    y_out = np.asarray(y, dtype=np.float64)
    if params.y_range is not None and params.y_source is not None:
        y_lo, y_hi = params.y_source
        if y_hi > y_lo:
            y_out = _map(y_out, np.float64(y_lo), np.float64(y_hi), *params.y_range)
    return stored, y_out


def write_params(params: ScaleParams, out: IO[str]) -> None:
    """svm-scale's parameter file, in its number format (%.16g: the same file as svm-scale
    writes); constant features are not listed."""
    if params.y_range is not None and params.y_source is not None:
        out.write("y\n{:.16g} {:.16g}\n{:.16g} {:.16g}\n".format(*params.y_range, *params.y_source))
    out.write(f"x\n{params.lower:.16g} {params.upper:.16g}\n")
    for j in np.flatnonzero(params.feature_max > params.feature_min):
        out.write(f"{j + 1} {params.feature_min[j]:.16g} {params.feature_max[j]:.16g}\n")


def _floats(line: str, count: int, where: str) -> list[float]:
    parts = line.split()
    if len(parts) != count:
        raise ScaleError(f"{where}: expected {count} numbers, got {line.strip()!r}")
    try:
        values = [float(p) for p in parts]
    except ValueError:
        raise ScaleError(f"{where}: not a number in {line.strip()!r}") from None
    if not all(np.isfinite(values)):
        raise ScaleError(f"{where}: non-finite value in {line.strip()!r}")
    return values


def read_params(lines: list[str], source: str) -> ScaleParams:
    """Parse a parameter file written by svm-scale -s (or `svmkit scale -s`)."""
    rows = [(k + 1, ln) for k, ln in enumerate(lines) if ln.strip()]
    params = ScaleParams()
    pos = 0

    def need(what: str) -> tuple[int, str]:
        if pos >= len(rows):
            raise ScaleError(f"{source}: ends before {what}")
        return rows[pos]

    k, ln = need("the 'x' or 'y' header")
    if ln.strip() == "y":
        k, ln = rows[pos + 1] if pos + 1 < len(rows) else need("the y limits")
        y_lower, y_upper = _floats(ln, 2, f"{source}:{k}")
        k, ln = rows[pos + 2] if pos + 2 < len(rows) else need("the y range")
        params.y_range = (y_lower, y_upper)
        params.y_source = tuple(_floats(ln, 2, f"{source}:{k}"))  # type: ignore[assignment]
        pos += 3
        k, ln = need("the 'x' header")
    if ln.strip() != "x":
        raise ScaleError(f"{source}:{k}: expected 'x', got {ln.strip()!r}")
    pos += 1
    k, ln = need("the x limits")
    params.lower, params.upper = _floats(ln, 2, f"{source}:{k}")
    _check_range(params.lower, params.upper, f"{source}:{k}")
    pos += 1
    index, fmin, fmax = [], [], []
    for k, ln in rows[pos:]:
        parts = ln.split()
        if len(parts) != 3:
            raise ScaleError(f"{source}:{k}: expected 'index min max', got {ln.strip()!r}")
        try:
            j = int(parts[0])
        except ValueError:
            raise ScaleError(f"{source}:{k}: bad feature index {parts[0]!r}") from None
        if j < 1 or j > 2**31 - 1:
            raise ScaleError(f"{source}:{k}: feature index {j} out of range")
        lo, hi = _floats(" ".join(parts[1:]), 2, f"{source}:{k}")
        index.append(j)
        fmin.append(lo)
        fmax.append(hi)
    d = max(index, default=0)
    try:  # the largest index sizes two arrays (as in svm-scale); a huge one must not escape
        params.feature_min = np.zeros(d)
        params.feature_max = np.zeros(d)
    except MemoryError:
        raise ScaleError(f"{source}: feature index {d} is too large to hold its ranges") from None
    idx = np.asarray(index, dtype=np.int64) - 1
    params.feature_min[idx] = fmin
    params.feature_max[idx] = fmax
    return params


def format_problem(X: sp.csr_matrix, y: np.ndarray, out: IO[str]) -> None:
    """LIBSVM text, as svm-scale prints it: label with %.17g, 1-based index:value with %g."""
    X = sp.csr_matrix(X)
    for i in range(X.shape[0]):
        a, b = X.indptr[i], X.indptr[i + 1]
        # each number followed by a space, as svm-scale prints them
        items = "".join(f"{j + 1}:{v:g} " for j, v in zip(X.indices[a:b], X.data[a:b]))
        out.write(f"{y[i]:.17g} {items}\n")
