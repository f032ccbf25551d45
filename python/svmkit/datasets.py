"""Datasets: the LIBSVM / SVMlight format, the papers' synthetic generators, shared datasets.

The reader and writer are implemented in C++ (cpp/src/svmlight.cpp); this module only checks
arguments, opens compressed files and assembles scipy matrices.

`load_svmlight_file` returns the same (X, y) as scikit-learn's reader of that name: a CSR
matrix with sorted indices (explicit zeros kept) and float64 labels, with the same
``zero_based="auto"`` rule (indices are shifted down by one unless an index 0 appears in
some file) and the same ``n_features`` rule. The index arrays are int32 whenever the matrix
fits (scikit-learn's are int64); values are equal.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import numbers
import os
from pathlib import Path
from typing import IO, Any, Union

import numpy as np
import scipy.sparse as sp

from . import _core
from ._validation import as_core_matrix

PathOrFile = Union[str, "os.PathLike[str]", IO[bytes]]

_OPENERS = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open, ".lzma": lzma.open}
_STREAM_CHUNK = 4 << 20  # bytes of decompressed text pushed to the parser at a time
_INT32_MAX = np.iinfo(np.int32).max

__all__ = [
    "dump_svmlight_file",
    "load_shared",
    "load_svmlight_file",
    "load_svmlight_files",
    "make_sparse_text_like",
    "make_two_gaussians",
    "shared_path",
]


# ---------------------------------------------------------------------------------------------
# Reading


def _check_zero_based(zero_based: Any) -> str:
    if isinstance(zero_based, str):
        if zero_based == "auto":
            return "auto"
    elif isinstance(zero_based, (bool, np.bool_)):
        return "yes" if zero_based else "no"
    raise ValueError(f"zero_based must be True, False or 'auto', got {zero_based!r}")


def _check_n_jobs(n_jobs: Any) -> int:
    if n_jobs is None:
        return 0
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, numbers.Integral) or n_jobs == 0:
        raise ValueError(f"n_jobs must be None or a non-zero integer, got {n_jobs!r}")
    if n_jobs < 0:
        return max(1, (os.cpu_count() or 1) + 1 + int(n_jobs))
    return int(n_jobs)


def _parse_one(f: PathOrFile, single: bool, zero_based: str, query_id: bool, n_jobs: int) -> dict:
    """Parse one file into the raw arrays of the C++ reader (indices as written)."""
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if not isinstance(path, str):
            path = os.fsdecode(path)
        opener = _OPENERS.get(Path(path).suffix.lower())
        if opener is None:
            return _core.read_svmlight_raw(path, single, zero_based, query_id, n_jobs)
        try:
            stream = opener(path, "rb")
        except OSError as exc:
            raise OSError(f"cannot open {path}: {exc}") from exc
        with stream:
            return _parse_stream(stream, path, single, zero_based, query_id, n_jobs)
    if hasattr(f, "read"):
        name = str(getattr(f, "name", "<stream>"))
        return _parse_stream(f, name, single, zero_based, query_id, n_jobs)
    if isinstance(f, int):
        raise TypeError("file descriptors are not supported; pass a path or a binary file object")
    raise TypeError(f"expected a path or a binary file object, got {type(f).__name__}")


def _parse_stream(
    stream: IO[bytes], name: str, single: bool, zero_based: str, query_id: bool, n_jobs: int
) -> dict:
    parser = _core.SvmlightParser(name, single, zero_based, query_id, n_jobs)
    try:
        while True:
            chunk = stream.read(_STREAM_CHUNK)
            if not chunk:
                break
            if isinstance(chunk, str):
                raise TypeError(f"{name}: the file object must be opened in binary mode")
            parser.feed(chunk)
    except (EOFError, lzma.LZMAError, gzip.BadGzipFile, OSError) as exc:
        if isinstance(exc, OSError) and not isinstance(exc, gzip.BadGzipFile):
            raise OSError(f"error reading {name}: {exc}") from exc
        raise OSError(f"{name}: corrupt compressed file: {exc}") from exc
    return parser.finish()


def _dtype_of(dtype: Any) -> tuple[np.dtype, bool]:
    try:
        dt = np.dtype(dtype)
    except TypeError as exc:
        raise TypeError(f"dtype must be a numpy dtype, got {dtype!r}") from exc
    if dt.kind not in "fiu":
        raise ValueError(f"dtype must be a real numeric dtype, got {dt}")
    return dt, dt == np.float32


def _assemble(
    raws: list[dict], n_features: Any, dt: np.dtype, zero_based: Any, query_id: bool
) -> list:
    zb = _check_zero_based(zero_based)
    shift = zb == "no" or (zb == "auto" and all(r["nnz"] > 0 and r["min_index"] > 0 for r in raws))
    if shift:
        for r in raws:
            ind = r["indices"]
            np.subtract(ind, 1, out=ind)
    # As scikit-learn: the largest index + 1, and 1 when no file has any entry.
    n_f = max((r["max_index"] - (1 if shift else 0)) if r["nnz"] else 0 for r in raws) + 1
    if n_features is None:
        n_features = n_f
    else:
        if isinstance(n_features, bool) or not isinstance(n_features, numbers.Integral):
            raise TypeError(f"n_features must be None or an integer, got {n_features!r}")
        if n_features < 0:
            raise ValueError(f"n_features must be non-negative, got {n_features}")
        if n_features > np.iinfo(np.int64).max:
            raise ValueError(f"n_features must be at most 2**63 - 1, got {n_features}")
        if n_features < n_f:
            raise ValueError(
                f"n_features was set to {n_features}, but input file contains {n_f} features"
            )
    out: list = []
    for r in raws:
        data, indices, indptr = r["data"], r["indices"], r["indptr"]
        if data.dtype != dt:
            data = data.astype(dt)
        if n_features > _INT32_MAX and indices.dtype == np.int32:
            indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
        X = sp.csr_matrix((data, indices, indptr), shape=(int(r["n_rows"]), int(n_features)))
        # The parser checked that indices increase strictly within each line.
        X.has_sorted_indices = True
        out += [X, r["labels"]]
        if query_id:
            out.append(r["qid"])
    return out


def load_svmlight_file(
    f: PathOrFile,
    *,
    n_features: int | None = None,
    dtype: Any = np.float64,
    multilabel: bool = False,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    n_jobs: int | None = None,
) -> tuple:
    """Load a dataset in LIBSVM / SVMlight format into a CSR matrix.

    Same signature and results as ``sklearn.datasets.load_svmlight_file`` (without
    ``offset``/``length``; ``multilabel`` must stay False), several times faster.

    Parameters
    ----------
    f : str, path-like or binary file object
        Files ending in .gz, .bz2, .xz or .lzma are decompressed on the fly; plain files are
        read by the C++ parser directly.
    n_features : int, optional
        Number of columns; by default the largest index found (+1 when zero-based). A smaller
        value than the data needs raises ValueError.
    dtype : numpy dtype, default float64
        dtype of X's values (float32 values are parsed as double and rounded). y is float64.
    multilabel : bool, default False
        Not supported (ValueError when True).
    zero_based : bool or "auto", default "auto"
        Whether column indices are zero-based (True) or one-based (False). "auto": one-based
        unless an index 0 appears, as in scikit-learn.
    query_id : bool, default False
        Also return the qid of each line (0 for a line without qid).
    n_jobs : int, optional
        Threads used to parse (None: all cores). The result does not depend on it.

    Returns
    -------
    X : scipy.sparse.csr_matrix of shape (n_samples, n_features)
    y : ndarray of shape (n_samples,), float64
    qid : ndarray of shape (n_samples,), int64 (only with query_id=True)

    Raises
    ------
    svmkit._core.FormatError (a ValueError)
        A malformed line; the message names the file and the 1-based line number.
    OSError
        The file cannot be opened or read.
    """
    return tuple(
        load_svmlight_files(
            [f],
            n_features=n_features,
            dtype=dtype,
            multilabel=multilabel,
            zero_based=zero_based,
            query_id=query_id,
            n_jobs=n_jobs,
        )
    )


def load_svmlight_files(
    files: Any,
    *,
    n_features: int | None = None,
    dtype: Any = np.float64,
    multilabel: bool = False,
    zero_based: bool | str = "auto",
    query_id: bool = False,
    n_jobs: int | None = None,
) -> list:
    """Load several files (a train/test pair, say) with the same number of features.

    Returns [X1, y1, X2, y2, ...] (with each file's qid after its y when query_id=True). The
    zero-based decision is taken over all files together, as in scikit-learn.
    """
    if isinstance(files, (str, os.PathLike)) or hasattr(files, "read"):
        raise TypeError("files must be a list of paths or file objects, not a single file")
    files = list(files)
    if multilabel:
        raise ValueError("multilabel=True is not supported by svmkit's reader")
    dt, single = _dtype_of(dtype)
    zb = _check_zero_based(zero_based)
    threads = _check_n_jobs(n_jobs)
    raws = [_parse_one(f, single, zb, bool(query_id), threads) for f in files]
    return _assemble(raws, n_features, dt, zero_based, bool(query_id))


# ---------------------------------------------------------------------------------------------
# Writing


def dump_svmlight_file(
    X: Any,
    y: Any,
    f: PathOrFile,
    *,
    zero_based: bool = False,
    comment: str | bytes | None = None,
    query_id: Any = None,
) -> None:
    """Write X (dense or sparse) and y in LIBSVM / SVMlight format.

    Numbers are written with the shortest text that reads back to the same double, so
    ``load_svmlight_file`` (svmkit's or scikit-learn's) returns X and y exactly. Dense rows
    store their non-zero entries; sparse rows their stored entries.

    Unlike scikit-learn, indices are one-based by default (``zero_based=False``), as LIBSVM and
    LIBLINEAR expect. `comment` lines are written first, each prefixed by "# ". Paths ending in
    .gz, .bz2 or .xz are compressed.
    """
    from sklearn.utils import check_array

    if not isinstance(zero_based, (bool, np.bool_)):
        raise TypeError(f"zero_based must be a bool, got {zero_based!r}")
    if comment is None:
        text = ""
    elif isinstance(comment, bytes):
        try:
            text = comment.decode("ascii")
        except UnicodeDecodeError as exc:
            raise ValueError("a bytes comment must be ASCII") from exc
    elif isinstance(comment, str):
        text = comment
    else:
        raise TypeError(f"comment must be str, bytes or None, got {type(comment).__name__}")
    if "\0" in text:
        raise ValueError("comment string contains NUL byte")
    Xv = check_array(X, accept_sparse="csr", dtype=(np.float64, np.float32))
    yv = check_array(y, ensure_2d=False, dtype=np.float64)
    if yv.ndim != 1:
        raise ValueError(f"expected y of shape (n_samples,), got {yv.shape}")
    if Xv.shape[0] != yv.shape[0]:
        raise ValueError(
            f"X.shape[0] and y.shape[0] should be the same, got {Xv.shape[0]} and {yv.shape[0]}"
        )
    qid = None
    if query_id is not None:
        qid = np.asarray(query_id)
        if qid.ndim != 1 or qid.shape[0] != yv.shape[0]:
            raise ValueError(f"expected query_id of shape (n_samples,), got {qid.shape}")
        if qid.dtype.kind not in "iu":
            raise ValueError(f"query_id must hold integers, got dtype {qid.dtype}")
        qid = np.ascontiguousarray(qid, dtype=np.int64)
    if sp.issparse(Xv) and not Xv.has_canonical_format:
        Xv = Xv.copy()  # sorted, duplicate-free rows, without touching the caller's matrix
        Xv.sum_duplicates()
    core = as_core_matrix(Xv)
    yv = np.ascontiguousarray(yv)
    zb = bool(zero_based)
    if isinstance(f, (str, os.PathLike)):
        path = os.fspath(f)
        if not isinstance(path, str):
            path = os.fsdecode(path)
        opener = _OPENERS.get(Path(path).suffix.lower())
        if opener is None:
            _core.write_svmlight_file(path, core, yv, qid, zb, text)
            return
        with opener(path, "wb") as out:
            _write_chunks(out, core, yv, qid, zb, text)
        return
    if hasattr(f, "write"):
        _write_chunks(f, core, yv, qid, zb, text)
        return
    raise TypeError(f"expected a path or a binary file object, got {type(f).__name__}")


def _write_chunks(out: IO[bytes], core: Any, y: np.ndarray, qid: Any, zb: bool, text: str) -> None:
    n = y.shape[0]
    step = 20000
    if n == 0 and text:
        out.write(_core.format_svmlight_rows(core, y, qid, zb, text, 0, 0))
    for start in range(0, n, step):
        out.write(_core.format_svmlight_rows(core, y, qid, zb, text, start, min(n, start + step)))


# ---------------------------------------------------------------------------------------------
# Synthetic generators (seeded; no global random state)


def _rng(random_state: Any) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    if random_state is None or (
        isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool)
    ):
        return np.random.default_rng(random_state)
    raise TypeError("random_state must be None, an int, or a numpy random generator")


def _check_count(value: Any, name: str, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
        raise ValueError(f"{name} must be an integer >= {low}, got {value!r}")
    return int(value)


def make_two_gaussians(
    n_samples: int = 10000,
    n_features: int = 50,
    *,
    centroid_scale: float | None = None,
    dtype: Any = np.float64,
    shuffle: bool = True,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Two Gaussian classes, the synthetic data of paper 000 (section 4.1.4).

    Two centroids c_1, c_2 in R^m get components drawn from N(0, 1) and are multiplied by
    `centroid_scale`; each class then draws its instances from N(c_i, I). Both classes have
    the same number of instances (class -1 gets the extra one when n_samples is odd).
    The paper does not state the scale; the default 2 / sqrt(m) keeps the expected distance
    between the centroids at about 2.8 whatever m, so the Bayes accuracy is about 92% and
    the problem is not separable. The paper's shapes: tall 10,000 x 50 (the default) and wide
    100 x 2500; issue 2's tall benchmark uses 581,012 x 54.

    Returns X of shape (n_samples, n_features) and y in {-1, +1} (float64).
    """
    n = _check_count(n_samples, "n_samples", 2)
    m = _check_count(n_features, "n_features")
    if centroid_scale is None:
        centroid_scale = 2.0 / np.sqrt(m)
    if not np.isfinite(centroid_scale) or centroid_scale < 0:
        raise ValueError(f"centroid_scale must be a finite number >= 0, got {centroid_scale!r}")
    dt = np.dtype(dtype)
    if dt not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dt}")
    rng = _rng(random_state)
    centroids = centroid_scale * rng.standard_normal((2, m))
    n_neg = n - n // 2
    y = np.empty(n, dtype=np.float64)
    y[:n_neg] = -1.0
    y[n_neg:] = 1.0
    X = rng.standard_normal((n, m))
    X[:n_neg] += centroids[0]
    X[n_neg:] += centroids[1]
    if shuffle:
        perm = rng.permutation(n)
        X, y = X[perm], y[perm]
    return np.ascontiguousarray(X, dtype=dt), y


def make_sparse_text_like(
    n_samples: int = 10000,
    n_features: int = 5000,
    density: float = 0.001,
    *,
    label_noise: float = 0.1,
    truth_density: float = 0.1,
    random_state: Any = None,
) -> tuple[sp.csr_matrix, np.ndarray]:
    """Sparse non-negative data shaped like tf-idf text features, with linear labels.

    Each row holds about density * n_features terms (at least one); terms are drawn from a
    Zipf-like frequency law (a few very common features, a long tail), the columns are then
    randomly permuted, values are exponential "term weights" and each row is scaled to unit
    Euclidean norm (as tf-idf rows are). Labels come from a sparse ground-truth hyperplane w*
    (a fraction `truth_density` of features with N(0, 1) weights): y = sign(X w* - t + e),
    with t the median of X w* (balanced classes) and e Gaussian noise whose standard
    deviation is `label_noise` times that of X w*.

    Returns X (scipy.sparse.csr_matrix, float64, sorted indices) and y in {-1, +1}.
    """
    n = _check_count(n_samples, "n_samples", 2)
    m = _check_count(n_features, "n_features")
    if not (0.0 < float(density) <= 1.0):
        raise ValueError(f"density must be in (0, 1], got {density!r}")
    if not (0.0 < float(truth_density) <= 1.0):
        raise ValueError(f"truth_density must be in (0, 1], got {truth_density!r}")
    if not (np.isfinite(label_noise) and label_noise >= 0):
        raise ValueError(f"label_noise must be a finite number >= 0, got {label_noise!r}")
    rng = _rng(random_state)
    per_row = np.maximum(1, rng.poisson(density * m, size=n))
    per_row = np.minimum(per_row, m)
    total = int(per_row.sum())
    weights = 1.0 / np.arange(1, m + 1) ** 1.1
    weights /= weights.sum()
    cols = rng.choice(m, size=total, p=weights)
    cols = rng.permutation(m)[cols]
    rows = np.repeat(np.arange(n), per_row)
    vals = rng.exponential(1.0, size=total) + 0.1
    X = sp.csr_matrix((vals, (rows, cols)), shape=(n, m))
    X.sum_duplicates()
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    X = sp.csr_matrix(sp.diags(1.0 / np.maximum(norms, 1e-300)) @ X)
    X.sort_indices()
    k = max(1, int(round(truth_density * m)))
    w = np.zeros(m)
    w[rng.choice(m, size=k, replace=False)] = rng.standard_normal(k)
    score = X @ w
    spread = float(np.std(score)) or 1.0
    score = score - np.median(score) + label_noise * spread * rng.standard_normal(n)
    y = np.where(score > 0, 1.0, -1.0)
    return X, y


# ---------------------------------------------------------------------------------------------
# The shared datasets folder (../shared/datasets beside the checkout)


def _shared_roots() -> list[Path]:
    roots = []
    env = os.environ.get("SVMKIT_SHARED_DIR")
    if env:
        roots.append(Path(env) / "datasets")
    repo = Path(__file__).resolve().parents[2]
    roots.append(repo.parent / "shared" / "datasets")
    roots.append(Path.cwd().parent / "shared" / "datasets")
    out: list[Path] = []
    for r in roots:
        if r not in out:
            out.append(r)
    return out


def shared_path(name: str) -> Path:
    """Path of a file in the shared datasets folder.

    `name` is a path inside ``datasets/`` ("heart/heart_scale", "a9a/a9a.xz") or a bare file
    name ("heart_scale", "a9a"), searched in the sub-folders, with or without ".xz". The
    folder is $SVMKIT_SHARED_DIR/datasets if set, else ../shared/datasets beside the
    repository or the working directory. FileNotFoundError names the places searched.
    """
    if not isinstance(name, str) or not name:
        raise TypeError("name must be a non-empty string")
    roots = _shared_roots()
    for root in roots:
        if not root.is_dir():
            continue
        for cand in (name, name + ".xz"):
            p = root / cand
            if p.is_file():
                return p
        if "/" not in name:
            for cand in (name, name + ".xz"):
                hits = sorted(root.glob(f"*/{cand}"))
                if hits:
                    return hits[0]
    searched = ", ".join(str(r) for r in roots)
    raise FileNotFoundError(
        f"shared dataset {name!r} not found (searched {searched}); set SVMKIT_SHARED_DIR to "
        "the folder that holds datasets/, or check the name against datasets/MANIFEST.md"
    )


def load_shared(name: str, **kwargs: Any) -> tuple:
    """Load a shared dataset by name (see `shared_path`) with `load_svmlight_file`."""
    return load_svmlight_file(shared_path(name), **kwargs)
