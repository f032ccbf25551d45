"""Input validation and zero-copy conversion to what the C++ core accepts.

Everything a user passes is checked here, before it reaches C++, so that bad input gets a
ValueError or TypeError naming the problem. Arrays that are already in a layout the core
serves (float32/float64, C or Fortran order; CSR with int32/int64 indices; aligned to the
item size) are passed as views, never copied.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

import numpy as np
import scipy.sparse as sp

CoreMatrix = Any  # a 2-D numpy array or a CSR tuple (data, indices, indptr, n_rows, n_cols)

_NO_Y = "no_validation"


@functools.cache
def _param_names(cls: type) -> tuple[str, ...]:
    # scikit-learn's _get_param_names inspects the __init__ signature on every call: 0.17 ms,
    # 6% of a 3 ms fit that constructs its estimator (sparse 2,000 x 50,000, the hinge).
    return tuple(cls._get_param_names())


def store_params(estimator: Any, params: dict) -> None:
    """scikit-learn's __init__ rule: store each constructor argument unchanged under its name
    (params is the constructor's locals(); validation happens in fit). A subclass whose
    __init__ adds parameters and calls its parent's stores the ones it adds itself."""
    for name in _param_names(type(estimator)):
        if name in params:
            setattr(estimator, name, params[name])


def check_sparse_structure(X: Any) -> None:
    """Refuse a CSR/CSC matrix whose index arrays are inconsistent, naming the problem.

    scipy builds such matrices without complaint (``csr_matrix((data, indices, indptr))``
    or an edit of ``.indices``), and both scipy's own routines and the core would then read
    and write out of bounds. One pass over the index arrays.
    """
    if not sp.issparse(X) or X.format not in ("csr", "csc"):
        return
    n_major, n_minor = X.shape if X.format == "csr" else X.shape[::-1]
    what = "column" if X.format == "csr" else "row"
    indptr, indices = np.asarray(X.indptr), np.asarray(X.indices)
    if indptr.ndim != 1 or indptr.shape[0] != n_major + 1:
        raise ValueError(f"X: sparse indptr has {indptr.shape[0]} entries, expected {n_major + 1}")
    if indptr[0] != 0:
        raise ValueError(f"X: sparse indptr[0] must be 0, got {indptr[0]}")
    steps = np.diff(indptr)
    if steps.size and steps.min() < 0:
        row = int(np.argmax(steps < 0))
        raise ValueError(f"X: sparse indptr is not non-decreasing at row {row}")
    nnz = int(indptr[-1])
    if nnz > indices.shape[0] or nnz > np.asarray(X.data).shape[0]:
        raise ValueError(
            f"X: sparse indptr[-1] = {nnz} exceeds the {indices.shape[0]} stored entries"
        )
    if nnz:
        used = indices[:nnz]
        lo, hi = int(used.min()), int(used.max())
        if lo < 0:
            raise ValueError(f"X: {what} index {lo} is negative (out of range [0, {n_minor}))")
        if hi >= n_minor:
            raise ValueError(f"X: {what} index {hi} out of range [0, {n_minor})")


_FLOAT_DTYPES = (np.dtype(np.float64), np.dtype(np.float32))
_FAST_KWARGS = frozenset({"accept_sparse", "dtype", "order", "reset", "y_numeric"})


def _all_finite(a: np.ndarray) -> bool:
    # The sum is finite iff every entry is, unless finite entries overflow it: then the slow
    # path decides (and names the problem).
    with np.errstate(over="ignore", invalid="ignore"):
        return bool(np.isfinite(a.sum()))


def _fast_X(estimator: Any, X: Any, reset: bool, order: str | None) -> np.ndarray | None:
    """X itself when it is a finite float32/float64 2-D ndarray in the wanted layout, after
    the bookkeeping validate_data does (n_features_in_, feature_names_in_); None otherwise,
    and the caller takes scikit-learn's path, which also words every error."""
    if type(X) is not np.ndarray or X.ndim != 2 or X.dtype not in _FLOAT_DTYPES:
        return None
    if X.shape[0] < 1 or X.shape[1] < 1:
        return None
    if not (X.flags.c_contiguous or (order is None and X.flags.f_contiguous)):
        return None
    if reset:
        if hasattr(estimator, "feature_names_in_"):
            return None
    else:
        if hasattr(estimator, "feature_names_in_"):
            return None
        expected = getattr(estimator, "n_features_in_", None)
        if expected is not None and expected != X.shape[1]:
            return None
    if not _all_finite(X):
        return None
    if reset:
        estimator.n_features_in_ = X.shape[1]
    return X


def _fast_y(y: Any, n: int) -> bool:
    return (
        type(y) is np.ndarray
        and y.ndim == 1
        and y.shape[0] == n
        and y.dtype.kind in "iuf"
        and (y.dtype.kind != "f" or _all_finite(y))
    )


_INDEX_DTYPES = (np.dtype(np.int32), np.dtype(np.int64))


def _fast_csr(estimator: Any, X: Any, reset: bool, kwargs: dict) -> Any:
    """X itself when it is a CSR matrix of finite float32/float64 values the caller accepts
    as it is, after the structure check and validate_data's bookkeeping (n_features_in_);
    None otherwise (scikit-learn's path). validate_data's generic dispatch costs about 0.2 ms
    a call on CSR input (its dataframe probes; 38 us here on 2000 x 50000), 4% of a 5 ms fit."""
    if type(X) not in (sp.csr_matrix, sp.csr_array):
        return None
    accept = kwargs.get("accept_sparse", False)
    if not (accept is True or accept == "csr" or (isinstance(accept, list) and "csr" in accept)):
        return None
    dtype = kwargs.get("dtype", "numeric")
    if X.dtype not in _FLOAT_DTYPES:
        return None
    if not (
        (isinstance(dtype, str) and dtype == "numeric")
        or (isinstance(dtype, list) and X.dtype in [np.dtype(t) for t in dtype])
    ):
        return None
    if X.indices.dtype not in _INDEX_DTYPES or X.indptr.dtype not in _INDEX_DTYPES:
        return None
    if X.shape[0] < 1 or X.shape[1] < 1 or hasattr(estimator, "feature_names_in_"):
        return None
    if not reset:
        expected = getattr(estimator, "n_features_in_", None)
        if expected is not None and expected != X.shape[1]:
            return None
    check_sparse_structure(X)
    if not _all_finite(X.data):
        return None
    if reset:
        estimator.n_features_in_ = X.shape[1]
    return X


def validate_X_y(estimator: Any, X: Any, y: Any = _NO_Y, **kwargs: Any) -> Any:
    """scikit-learn's validate_data, after the sparse structure check (the one entry point).

    Returns X, or (X, y) when y is given, exactly as validate_data does. A finite float
    ndarray already in the wanted layout, or a finite float CSR matrix (the common cases),
    takes a fast path that does what validate_data does to it, without its generic dispatch
    (about 100 us per call on ndarrays, 165 us on CSR).
    """
    no_y = isinstance(y, str) and y == _NO_Y
    # y first: a fast X with a y that needs scikit-learn's path would have X checked twice
    # (the CSR structure check is a pass over the indices).
    shape = getattr(X, "shape", None)
    rows = shape[0] if shape else None  # no shape, or a 0-d array: scikit-learn's message
    if kwargs.keys() <= _FAST_KWARGS and (no_y or _fast_y(y, rows)):
        reset = kwargs.get("reset", True)
        Xf = _fast_X(estimator, X, reset, kwargs.get("order"))
        if Xf is None:
            Xf = _fast_csr(estimator, X, reset, kwargs)
        if Xf is not None:
            return Xf if no_y else (Xf, y)
    from sklearn.utils.validation import validate_data

    check_sparse_structure(X)
    if no_y:
        return validate_data(estimator, X, **kwargs)
    return validate_data(estimator, X, y, **kwargs)


def check_classification_y(y: np.ndarray) -> None:
    """scikit-learn's check_classification_targets, without its dispatch for plain integer
    labels or integral floats (the common case)."""
    if type(y) is np.ndarray and y.ndim == 1:
        if y.dtype.kind in "iu":
            return
        # rint, not np.mod: the same test (finite y) at 5 us instead of 140 us on 6,499 labels.
        if y.dtype.kind == "f" and _all_finite(y) and np.array_equal(y, np.rint(y)):
            return
    from sklearn.utils.multiclass import check_classification_targets

    check_classification_targets(y)


def encode_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(classes, index of each label in classes): np.unique(y, return_inverse=True) for a 1-D y.

    np.unique's inverse sorts the labels with a stable argsort: 2.6 ms for 16,000 float labels,
    6% of a 40 ms sparse LinearSVC fit. Sorting the values alone and a binary search for each
    label give the same arrays in 0.1 ms; for two classes a comparison does (5 us against the
    search's 55 us on 6,499 labels)."""
    classes = np.unique(y)
    if classes.shape[0] == 2 and y.dtype.kind in "iuf":
        return classes, (y == classes[1]).astype(np.intp)
    return classes, np.searchsorted(classes, y).astype(np.intp, copy=False)


def label_text(label: Any) -> str:
    """A class label as Python writes it (1.0, 'spam'), not as numpy's repr (np.float64(1.0))."""
    return repr(label.item() if isinstance(label, np.generic) else label)


def require_two_classes(classes: np.ndarray, who: str) -> None:
    """A classifier's fit needs two classes at least."""
    if classes.shape[0] < 2:
        raise ValueError(
            f"{who} needs samples of at least two classes in the data, but the data contains "
            f"only one class: {label_text(classes[0])}"
        )


def class_weight_vector(class_weight: Any, classes: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Per-class weights (in the order of `classes`) from None, "balanced" or a dict; every
    weight finite and >= 0 (the one rule for every classifier)."""
    from ._constraints import Real

    cw = class_weight
    if cw is None:
        return np.ones(classes.shape[0])
    if isinstance(cw, str) and cw == "balanced":
        from sklearn.utils.class_weight import compute_class_weight

        return compute_class_weight("balanced", classes=classes, y=y)
    if isinstance(cw, dict):
        # scikit-learn's rule (compute_class_weight): keys for labels absent from y are
        # ignored (a cross-validation fold may miss a rare class), unless some class of y is
        # then left without a weight, which points at misspelled keys.
        labels = classes.tolist()
        missing = [c for c in labels if c not in cw]
        if missing and len(cw) != len(labels) - len(missing):
            present = set(labels)
            extra = [c for c in cw if c not in present]
            raise ValueError(
                f"class_weight gives no weight for the classes {missing!r} of y, and weights "
                f"for labels not in y: {extra!r}"
            )
        out = np.ones(classes.shape[0])
        rule = Real(ge=0.0)
        for i, c in enumerate(classes):
            if c in cw:
                v = cw[c]
                rule.check(v, f"class_weight[{label_text(c)}]")
                out[i] = float(v)
        return out
    raise ValueError(f"class_weight must be None, 'balanced' or a dict, got {cw!r}")


def dense_if_smaller(X: Any) -> Any:
    """X itself, or, for a sparse matrix whose dense form takes no more memory than its own
    arrays (values, column indices and row pointers: about two thirds of the entries stored,
    with float64 values and int32 indices), that dense form in C order.

    solver="auto" of the linear estimators, the kernel estimators, SparseSVC (their models
    keep X's own support vectors), liblinearutil.train and `svmkit train` (whose -s names a
    solver) solve on it: a dense matrix in a sparse container is what
    load_svmlight_file returns for every LIBSVM-format file, and the solvers' dense rows run
    up to 2.7x faster than the same rows read through their indices (bench/
    bench_dense_storage.py). The linear auto rules then see the data as dense, so the hinge
    loss on badly scaled data (raw LIBSVM files) gets the rule for that case instead of
    dual_cd, which ran into max_iter up to 10x above the optimum there. The copy costs no more
    than the input's own size."""
    if not sp.issparse(X):
        return X
    n_rows, n_cols = X.shape
    dense_bytes = n_rows * n_cols * X.dtype.itemsize
    if (
        n_rows == 0
        or n_cols == 0
        or dense_bytes > X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    ):
        return X
    return np.ascontiguousarray(X.toarray())


def scipy_view(Xc: CoreMatrix) -> Any:
    """A core matrix as numpy or scipy sees it: a CSR tuple wrapped (not copied) as a scipy CSR
    matrix, a dense array as it is."""
    if isinstance(Xc, tuple):
        data, indices, indptr, n_rows, n_cols = Xc
        return sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_cols), copy=False)
    return Xc


def as_core_matrix(X: Any) -> CoreMatrix:
    """Return X in a form the C++ core views without copying.

    X must already be validated (2-D, numeric, finite). Dense arrays in C or Fortran order
    and float32/float64 pass through; other dense arrays are copied to C order, and arrays
    whose data are not aligned to their item size are copied (aligned). CSR matrices
    with float32/float64 values and int32/int64 indices pass through; any other sparse format,
    and a CSR matrix with unsorted or duplicate indices, is converted to canonical CSR (a copy).
    """
    if sp.issparse(X):
        if X.format != "csr":
            X = X.tocsr()
        if not X.has_canonical_format:
            # Duplicate entries of a row are one value to scipy but two to a solver that
            # squares stored entries (dual_cd's ||x_i||^2): sum them (and sort) on a copy.
            X = X.copy()
            X.sum_duplicates()
        data = X.data
        if data.dtype not in (np.float32, np.float64):
            data = data.astype(np.float64)
        indices, indptr = X.indices, X.indptr
        if indices.dtype not in (np.int32, np.int64):
            indices = indices.astype(np.int64)
        if indptr.dtype != indices.dtype:
            common = np.promote_types(indptr.dtype, indices.dtype)
            indices, indptr = indices.astype(common, copy=False), indptr.astype(common, copy=False)
        return (
            _aligned(np.ascontiguousarray(data)),
            _aligned(np.ascontiguousarray(indices)),
            _aligned(np.ascontiguousarray(indptr)),
            int(X.shape[0]),
            int(X.shape[1]),
        )
    X = np.asarray(X)
    if X.dtype not in (np.float32, np.float64):
        X = X.astype(np.float64)
    if not (_inner_contiguous(X, 1) or _inner_contiguous(X, 0)):
        X = np.ascontiguousarray(X)
    return _aligned(X)


def _aligned(a: np.ndarray) -> np.ndarray:
    """a itself, or an aligned copy (same memory order) when its data are not aligned to the
    item size (np.frombuffer at an odd offset, pickle protocol 5 buffers): the core reads
    doubles and indices with aligned loads. The core copies such arrays too (every entry
    point); copying here once keeps a fit that calls the core several times from copying X
    at each call."""
    return a if a.flags.aligned else np.array(a, order="K", copy=True)


def _inner_contiguous(X: np.ndarray, axis: int) -> bool:
    """Whether X is contiguous along `axis` with a regular stride along the other one."""
    item = X.itemsize
    other = 1 - axis
    if X.shape[axis] > 1 and X.strides[axis] != item:
        return False
    if X.shape[other] > 1:
        s = X.strides[other]
        return s > 0 and s % item == 0 and s // item >= X.shape[axis]
    return True


def check_scalar_param(
    value: Any,
    name: str,
    *,
    kind: Any = numbers.Real,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    allow_none: bool = False,
) -> None:
    """One check in the old call form, for code not yet on a declared table (the dask
    estimators); it builds the rule of _constraints.py, so messages and logic are the same.
    New code declares `_parameter_checks` instead."""
    from ._constraints import Bool, Int, Real

    kinds = kind if isinstance(kind, tuple) else (kind,)
    bounds = {
        ("gt" if not low_inclusive else "ge"): low,
        ("lt" if not high_inclusive else "le"): high,
    }
    bounds = {k: v for k, v in bounds.items() if v is not None}
    if numbers.Integral in kinds:
        rule = Int(none=allow_none, bool_ok=bool in kinds, **bounds)
    elif bool in kinds:
        rule = Bool(none=allow_none)
    else:
        rule = Real(none=allow_none, **bounds)
    rule.check(value, name)


def check_choice(value: Any, name: str, choices: tuple[str, ...]) -> None:
    """The declared OneOf rule in the old call form (see check_scalar_param)."""
    from ._constraints import OneOf

    OneOf(*choices).check(value, name)


def check_n_jobs(n_jobs: Any) -> int:
    """Map scikit-learn's n_jobs onto a thread count (0 = svmkit's default, resolved in C++
    on the calling thread: affinity mask, cgroup quota, OMP_NUM_THREADS, threadpoolctl)."""
    if n_jobs is None:
        return 0
    from ._constraints import NJobs

    NJobs().check(n_jobs, "n_jobs")
    if n_jobs < 0:  # -1: every CPU the process may use (affinity mask, cgroup quota)
        from ._threads import resolve_n_jobs

        return resolve_n_jobs(int(n_jobs))
    return int(n_jobs)


def check_sample_weight(sample_weight: Any, n_samples: int) -> np.ndarray:
    """Validate sample weights (None means all ones); returns a float64 array."""
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    if isinstance(sample_weight, numbers.Number):  # one weight for all: the same checks
        sw = np.full(n_samples, sample_weight, dtype=np.float64)
    else:
        sw = np.asarray(sample_weight)
    if sw.ndim != 1:
        raise ValueError(f"sample_weight must be 1-D, got shape {sw.shape}")
    if sw.shape[0] != n_samples:
        raise ValueError(f"sample_weight has {sw.shape[0]} entries, but X has {n_samples} samples")
    try:
        sw = sw.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("sample_weight must be numeric") from exc
    if not np.all(np.isfinite(sw)):
        raise ValueError("sample_weight contains NaN or infinity")
    if np.any(sw < 0):
        raise ValueError("sample_weight must be non-negative")
    if not np.any(sw > 0):
        raise ValueError("sample_weight is zero for every sample; at least one must be positive")
    return sw
