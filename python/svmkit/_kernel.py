"""Kernel SVM estimators: SVC and SVR (Wolfe duals of paper 001 solved by SMO).

The solver table KERNEL_SOLVERS maps a solver name to the formulations it handles and the
function that solves one binary (or regression) dual; "adagrad_dual" plugs in beside "smo".
"""

from __future__ import annotations

import numbers
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.exceptions import NotFittedError
from sklearn.utils._available_if import available_if
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._constraints import (
    COMMON_CHECKS,
    DEGREE,
    AnyOf,
    Bool,
    DictOrNone,
    Int,
    IsCallable,
    KeyOf,
    OneOf,
    RandomState,
    Real,
    merge_solver_options,
    validate_params,
)
from ._progress import make_callback, seed_from
from ._status import SolverStatus, check_status
from ._threads import map_binary_fits, resolve_n_jobs
from ._validation import (
    as_core_matrix,
    check_classification_y,
    check_n_jobs,
    check_sample_weight,
    class_weight_vector,
    dense_if_smaller,
    encode_labels,
    label_text,
    scipy_view,
    store_params,
    validate_X_y,
)

_KERNELS = ("linear", "poly", "rbf", "gaussian", "laplacian", "sigmoid", "precomputed")


# gamma="scale" reads the variance of X in blocks of this many values: X.var() (and, for sparse
# X, X.multiply(X)) made a temporary as large as X (scikit-learn's X.var() makes it too), the
# largest Python allocation of an SVC fit on tall data: dense 16,000 x 200 (24.4 MB) peaked at
# 24.8 MB, 9.3 MB without it (tracemalloc). The sums of squares use np.einsum, not np.dot or
# np.vdot: those call OpenBLAS, which runs a block of 65,536 values on its thread pool, and its
# threads then spin for about 0.1 s after the call. An SVC(n_jobs=1) fit on dense 3,000 x 50
# used 0.12 s of CPU time in 0.06 s of wall time, and beside one other busy process (2 cores)
# took 0.108 s instead of 0.059 s (bench_regimes' busy family).
_VARIANCE_BLOCK = 1 << 16


def _sum_of_squares(x: np.ndarray) -> float:
    """sum(x * x) in float64 without BLAS (see _VARIANCE_BLOCK); x is C or F contiguous."""
    flat = x.ravel(order="K")  # a view of either layout
    return float(np.einsum("i,i->", flat, flat))


def _n_rows(X: Any) -> int:
    """Samples in X: its first dimension, or its length for a sequence without a shape (a
    callable kernel's input)."""
    shape = getattr(X, "shape", None)
    return int(shape[0]) if shape else len(X)


def _variance(X: Any) -> float:
    """The variance of every value of X (implicit zeros included), accumulated in float64 in
    blocks of _VARIANCE_BLOCK values: X.var() without its X-sized temporary."""
    total = float(np.prod(X.shape))
    if total == 0.0:
        return float("nan")
    if sp.issparse(X):
        X = X.tocsr() if X.format not in ("csr", "csc") else X
        if not X.has_canonical_format:  # duplicate entries add before they are squared
            X = X.copy()
            X.sum_duplicates()
        data = X.data
        s1 = s2 = 0.0
        for k in range(0, data.shape[0], _VARIANCE_BLOCK):
            block = np.asarray(data[k : k + _VARIANCE_BLOCK], dtype=np.float64)
            s1 += float(block.sum())
            s2 += _sum_of_squares(block)
        mean = s1 / total
        return s2 / total - mean * mean
    X = np.asarray(X)
    mean = float(X.mean(dtype=np.float64))
    rows = max(1, _VARIANCE_BLOCK // max(1, X.shape[1]))
    s2 = 0.0
    for i in range(0, X.shape[0], rows):
        diff = np.asarray(X[i : i + rows], dtype=np.float64) - mean
        s2 += _sum_of_squares(diff)
    return s2 / total


@dataclass(frozen=True)
class KernelFitRequest:
    """One binary classification or regression dual problem, ready for a solver."""

    X: Any  # core matrix (see _validation.as_core_matrix): all training rows
    rows: np.ndarray | None  # int64 indices of the rows of X in this problem (None: all)
    y: np.ndarray  # +-1 (classification) or targets (regression), float64
    cost: np.ndarray  # per-sample upper bounds C_i
    kernel: str
    gamma: float
    coef0: float
    degree: int
    formulation: str  # "svc", "svc_squared_hinge" or "svr"
    epsilon: float
    regularize_intercept: bool
    options: dict
    callback: Callable[[dict], Any] | None
    random_state: int | None


@dataclass(frozen=True)
class KernelSolverSpec:
    name: str
    formulations: frozenset[str]
    fit: Callable[[KernelFitRequest], dict]  # -> dict with dual_coef, alpha, bias, ...
    description: str
    # Solver options that the estimator sets from its own parameters of the same name
    # (a solver_options entry for one of them is refused, see merge_solver_options).
    estimator_options: tuple[str, ...] = ()


def _fit_smo(req: KernelFitRequest) -> dict:
    return _core.fit_smo(
        req.X,
        req.y,
        req.cost,
        req.rows,
        req.kernel,
        req.gamma,
        req.coef0,
        req.degree,
        req.formulation,
        req.epsilon,
        req.regularize_intercept,
        req.options,
        req.callback,
    )


def _fit_adagrad_dual(req: KernelFitRequest) -> dict:
    """AdaGrad on the augmented Lagrangian dual (paper 001, Algorithm 7): one subproblem.

    Slow by nature (a full kernel product per iteration, 10^3 - 10^5 iterations) and it keeps
    the subproblem's Gram matrix in memory: prefer "smo" except on small problems.
    """
    X = req.X
    if req.rows is not None:  # a one-vs-one pair: the solver takes its rows as a copy
        X = _take_rows(X, req.rows)
        if req.kernel == "precomputed":  # the pair's Gram matrix: its columns as well
            X = np.ascontiguousarray(X[:, req.rows])
    opts = dict(req.options)
    opts.setdefault("variant", "reg_bias" if req.regularize_intercept else "unreg_bias")
    res = _core.fit_adagrad_dual(
        X,
        req.y,
        req.cost,
        req.formulation == "svr",
        req.epsilon,
        "polynomial" if req.kernel == "poly" else req.kernel,
        req.gamma,
        req.coef0,
        req.degree,
        opts,
        req.callback,
    )
    res["dual_coef"] = np.asarray(res.pop("coef"))
    return res


def _take_rows(Xc: Any, rows: np.ndarray) -> Any:
    """The given rows of a core matrix (dense array or CSR tuple), as a new core matrix."""
    if isinstance(Xc, tuple):
        return as_core_matrix(scipy_view(Xc)[rows])
    return np.ascontiguousarray(Xc[rows])


KERNEL_SOLVERS: dict[str, KernelSolverSpec] = {
    "smo": KernelSolverSpec(
        name="smo",
        formulations=frozenset({"svc", "svc_squared_hinge", "svr"}),
        fit=_fit_smo,
        description="sequential minimal optimization on the Wolfe dual (paper 001, 6.2)",
        estimator_options=("cache_size", "shrinking", "working_set"),
    ),
    "adagrad_dual": KernelSolverSpec(
        name="adagrad_dual",
        formulations=frozenset({"svc", "svr"}),
        fit=_fit_adagrad_dual,
        description="AdaGrad on the augmented Lagrangian dual (paper 001, Algorithm 7)",
    ),
}


# Below these sizes SMO runs every step on one thread (smo.cpp: kSweepParallelMin variables,
# kernel.hpp: 2.5e5 multiply-adds per kernel row), so its thread team would only be started
# and stopped: on a busy machine that alone costs milliseconds per fit.
_SWEEP_PARALLEL_MIN = 8192
_ROW_WORK_PARALLEL_MIN = 250_000


def _team_threads(n_threads: int, n_vars: int, n_rows: int, n_features: int) -> int:
    if n_vars < _SWEEP_PARALLEL_MIN and n_rows * n_features < _ROW_WORK_PARALLEL_MIN:
        return 1
    return n_threads


class _OvoProblems:
    """The one-vs-one problems, pair p = (a, b, rows with positive cost, +-1 labels; +1 = class
    a), built when asked for: held for all k(k-1)/2 pairs at once they took 2 MB of the peak
    of a 26-class fit on 5,000 rows (LIBSVM's whole fit: 1.7 MB)."""

    def __init__(self, y_idx: np.ndarray, cost: np.ndarray, k: int) -> None:
        self._y = y_idx
        kept = np.flatnonzero(cost > 0)
        self._rows = [kept[y_idx[kept] == c] for c in range(k)]  # ascending per class
        self.pairs = [(a, b) for a in range(k) for b in range(a + 1, k)]

    def class_size(self, c: int) -> int:
        """Samples of class c with a positive cost."""
        return int(self._rows[c].shape[0])

    def __len__(self) -> int:
        return len(self.pairs)

    def __getitem__(self, p: int) -> tuple[int, int, np.ndarray, np.ndarray]:
        a, b = self.pairs[p]
        # two ascending runs: the stable sort (timsort) merges them in linear time
        rows = np.sort(np.concatenate((self._rows[a], self._rows[b])), kind="stable")
        return a, b, rows, np.where(self._y[rows] == a, 1.0, -1.0)

    def __iter__(self) -> Iterator[tuple[int, int, np.ndarray, np.ndarray]]:
        return (self[p] for p in range(len(self.pairs)))


# Parameters shared by SVC and SVR, declared once (see _constraints.py).
_KERNEL_CHECKS = {
    **COMMON_CHECKS,
    "C": Real(gt=0.0),
    "kernel": AnyOf(OneOf(*_KERNELS), IsCallable()),  # a callable: kernel(X, Y) -> Gram matrix
    "degree": DEGREE,
    "gamma": AnyOf(OneOf("scale", "auto"), Real(gt=0.0)),
    "coef0": Real(),
    "tol": Real(gt=0.0, none=True),
    "cache_size": Real(gt=0.0),
    "shrinking": Bool(),
    "max_iter": Int(ge=1, none=True, also=(-1,)),
    "solver": KeyOf(KERNEL_SOLVERS),
    "regularize_intercept": Bool(),
    "working_set": OneOf("second_order", "max_violating_pair"),
    "sigma": Real(gt=0.0, none=True),
}


def _linear_coef(dual: np.ndarray, sv: Any, starts: np.ndarray | None) -> Any:
    """sum_i dual_i x_i per decision function. One-vs-one (starts given): pair (p, q) takes
    class p's support vectors with row q - 1 of dual and class q's with row p (LIBSVM's
    layout of dual_coef_)."""
    if starts is None:
        if sp.issparse(sv):  # sparse in, sparse out (as scikit-learn)
            return (sp.csr_matrix(dual) @ sv).tocsr()
        return np.asarray(dual @ sv)
    k = starts.shape[0] - 1
    rows = []
    for p in range(k):
        for q in range(p + 1, k):
            bp, bq = slice(starts[p], starts[p + 1]), slice(starts[q], starts[q + 1])
            rows.append(dual[q - 1, bp] @ sv[bp] + dual[p, bq] @ sv[bq])
    if sp.issparse(sv):
        return sp.vstack([sp.csr_matrix(r) for r in rows]).tocsr()
    return np.vstack(rows)


class _BaseKernel(BaseEstimator):
    """Shared machinery: parameter checks, gamma, the solver call, the C++ model dict."""

    _regression = False
    _parameter_checks: dict = _KERNEL_CHECKS

    def _check_param_relations(self) -> None:
        if self.sigma is not None and self.kernel not in ("rbf", "gaussian", "laplacian"):
            raise ValueError(
                "sigma applies to the rbf (gaussian) and laplacian kernels only, "
                f"got sigma={self.sigma!r} with kernel={self.kernel!r}"
            )

    def _check_common(self) -> KernelSolverSpec:
        validate_params(self)
        return KERNEL_SOLVERS[self.solver]

    def _validate_X(self, X: Any, reset: bool, y: Any = "no_y") -> Any:
        if callable(self.kernel):
            return self._validate_for_callable(X, reset, y)
        kw = dict(accept_sparse="csr", dtype=[np.float64, np.float32], order="C", reset=reset)
        if isinstance(y, str) and y == "no_y":
            X = validate_X_y(self, X, **kw)
        else:
            X, y = validate_X_y(self, X, y, y_numeric=self._regression, **kw)
        if sp.issparse(X) and not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        if isinstance(X, np.ndarray) and X.dtype is not np.dtype(X.dtype.type):
            # The binding compares dtype objects by identity; memmaps and unpickled arrays
            # carry an equal but distinct float64 dtype object, so view with the canonical one.
            X = np.asarray(X).view(np.dtype(X.dtype.type))
        if self.kernel == "precomputed":
            if sp.issparse(X):
                raise TypeError("a precomputed kernel must be a dense array")
            if reset and X.shape[0] != X.shape[1]:
                raise ValueError(
                    f"X should be a square kernel matrix for kernel='precomputed', got {X.shape}"
                )
            if not reset and X.shape[1] != self.shape_fit_[0]:
                raise ValueError(
                    f"X.shape[1] = {X.shape[1]} should be equal to {self.shape_fit_[0]}, the "
                    "number of samples at training time"
                )
        return X if isinstance(y, str) and y == "no_y" else (X, y)

    def _core_kernel(self) -> str:
        """The kernel name the core computes with: a callable kernel's Gram matrix is passed
        as a precomputed one."""
        return "precomputed" if callable(self.kernel) else self.kernel

    def _validate_for_callable(self, X: Any, reset: bool, y: Any) -> Any:
        """A callable kernel, as scikit-learn's: X goes to it as given (numbers, strings,
        graphs: any sequence; only its length is checked against y), and from here on the fit
        and predict see the Gram matrix kernel(X, X_fit), checked by _callable_gram."""
        from sklearn.utils import check_consistent_length, column_or_1d

        no_y = isinstance(y, str) and y == "no_y"
        if not no_y:
            check_consistent_length(X, y)
            y = column_or_1d(y, warn=True)
            if self._regression:
                y = np.asarray(y, dtype=np.float64)
            if y.dtype.kind == "f" and not np.all(np.isfinite(y)):
                raise ValueError("Input y contains NaN or infinity.")
        K = self._callable_gram(X, reset)
        return K if no_y else (K, y)

    def _callable_gram(self, X: Any, reset: bool) -> np.ndarray:
        """kernel(X, X_fit) for a callable kernel, as scikit-learn calls it (X_fit is the
        training X, kept for predict); its shape and values are checked."""
        if reset:
            self._fit_X = X
        K = self.kernel(X, self._fit_X)
        if sp.issparse(K):
            K = K.toarray()
        K = np.ascontiguousarray(K, dtype=np.float64)
        want = (_n_rows(X), _n_rows(self._fit_X))
        if K.shape != want:
            raise ValueError(
                f"the callable kernel returned shape {K.shape} for inputs of {want[0]} and "
                f"{want[1]} rows; it must return kernel(X, Y) of shape {want}"
            )
        if not np.all(np.isfinite(K)):
            raise ValueError("the callable kernel returned NaN or infinity")
        return K

    def _fit_shape(self, X: Any) -> tuple:
        """shape_fit_: the training X's shape (for a callable kernel, not its Gram matrix's;
        (n_samples,) for a sequence without a shape, as scikit-learn's)."""
        if not callable(self.kernel):
            return X.shape
        return getattr(self._fit_X, "shape", (_n_rows(self._fit_X),))

    def _gamma_value(self, X: Any) -> float:
        if self.sigma is not None:  # paper 001 eqs. 127, 129: gamma = 1 / (2 sigma^2)
            return 1.0 / (2.0 * float(self.sigma) ** 2)
        if isinstance(self.gamma, str):
            if self.gamma == "auto":
                return 1.0 / X.shape[1]
            with np.errstate(over="ignore", invalid="ignore"):
                var = _variance(X)
            if not np.isfinite(var):
                if self._core_kernel() in ("linear", "precomputed"):  # gamma is not used
                    return 1.0
                raise ValueError(
                    "gamma='scale' needs the variance of X, which overflows (|X| up to "
                    f"{abs(X).max():.3g}): scale X, or give gamma as a number"
                )
            return 1.0 / (X.shape[1] * var) if var != 0 else 1.0
        return float(self.gamma)

    def _seed(self) -> int | None:
        return seed_from(getattr(self, "random_state", None))

    def _options(self, spec: KernelSolverSpec, n_threads: int, fitted: bool = True) -> dict:
        """The options of `spec`'s solver; fitted=False: for SMO run beside another solver
        (the Platt folds), without the other solver's solver_options and max_iter."""
        owned = {"n_threads": ("n_jobs", n_threads)}
        # tol=None and max_iter -1/None leave the solver's own default (its C++ options).
        if self.tol is not None:
            owned["tol"] = ("tol", float(self.tol))
        if fitted and self.max_iter not in (None, -1):
            owned["max_iter"] = ("max_iter", int(self.max_iter))
        for name in spec.estimator_options:
            value = getattr(self, name)
            if isinstance(value, (bool, np.bool_)):
                value = bool(value)
            elif isinstance(value, numbers.Real):
                value = float(value)
            owned[name] = (name, value)
        user = self.solver_options if fitted else None
        opts = merge_solver_options(type(self).__name__, user, owned)
        opts.setdefault("check_input", False)  # validated here (finiteness included)
        return opts

    def _callback(self, spec: KernelSolverSpec) -> Callable[[dict], Any] | None:
        return make_callback(spec.name, self.verbose, self.callback)

    def _solve(
        self,
        spec: KernelSolverSpec,
        Xc: Any,
        rows: np.ndarray | None,
        y: np.ndarray,
        cost: np.ndarray,
        formulation: str,
        epsilon: float,
        n_threads: int,
        callback: Any = "default",
    ) -> dict:
        req = KernelFitRequest(
            X=Xc,
            rows=None if rows is None else np.ascontiguousarray(rows, dtype=np.int64),
            y=np.ascontiguousarray(y, dtype=np.float64),
            cost=np.ascontiguousarray(cost, dtype=np.float64),
            kernel=self._core_kernel(),
            gamma=self._gamma_,
            coef0=float(self.coef0),
            degree=int(self.degree),
            formulation=formulation,
            epsilon=float(epsilon),
            regularize_intercept=bool(self.regularize_intercept),
            options=self._options(spec, n_threads),
            callback=self._callback(spec) if callback == "default" else callback,
            random_state=self._seed(),
        )
        res = spec.fit(req)
        check_status(res, type(self).__name__, spec.name, stacklevel=3)
        return res

    def _model_dict(self) -> dict:
        return self._model

    def _make_model(
        self, X: Any, support: np.ndarray, dual_coef: np.ndarray, intercept: np.ndarray
    ) -> None:
        self.support_ = support.astype(np.int32)
        if self._core_kernel() == "precomputed":
            self.support_vectors_ = np.empty((0, 0))
        else:
            self.support_vectors_ = X[support]
        # Sparse in, sparse out, as scikit-learn (its dual_coef_ is a CSR matrix after a sparse
        # fit); the C++ model keeps the dense array.
        self.dual_coef_ = sp.csr_matrix(dual_coef) if sp.issparse(X) else dual_coef
        self.intercept_ = intercept
        self._model = self._model_payload(
            X.shape[1],
            None if self._core_kernel() == "precomputed" else self.support_vectors_,
            support,
            dual_coef,
            intercept,
            self.n_support_,
            regression=self._regression,
        )

    def _model_payload(
        self,
        n_features: int,
        sv: Any,
        support: np.ndarray,
        dual_coef: np.ndarray,
        intercept: np.ndarray,
        n_support: np.ndarray,
        regression: bool,
    ) -> dict:
        """The C++ kernel model dict over support vectors sv (rows of X; None when
        precomputed) with this estimator's kernel."""
        return {
            "task": "regression" if regression else "classification",
            "solver": self.solver,
            "loss": self.loss,
            "kernel": self._core_kernel(),
            "gamma": self._gamma_,
            "coef0": float(self.coef0),
            "degree": int(self.degree),
            "n_features": n_features,
            "classes": None if regression else np.asarray(self._classes_numeric(), np.float64),
            "n_support": np.asarray(n_support, dtype=np.int64),
            "support": np.asarray(support, dtype=np.int64),
            "dual_coef": np.ascontiguousarray(dual_coef, dtype=np.float64),
            "intercept": np.ascontiguousarray(intercept, dtype=np.float64),
            "sv": None if sv is None else _sv_payload(sv),
        }

    @property
    def coef_(self) -> Any:
        """The primal weights of a linear kernel, as scikit-learn's: (1, n_features) for two
        classes, regression and the one-class SVM, else one row per class pair (0,1), (0,2), ...
        (n_classes (n_classes - 1) / 2, n_features); sparse when the support vectors are."""
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        check_is_fitted(self, "_model")
        coef = _linear_coef(self._model["dual_coef"], self.support_vectors_, self._pair_blocks())
        if sp.issparse(coef):
            coef.data.flags.writeable = False
        else:
            coef.flags.writeable = False
        return coef

    def _pair_blocks(self) -> np.ndarray | None:
        """The support vectors' class block starts (classification with > 2 classes)."""
        if self._regression or not hasattr(self, "classes_") or len(self.classes_) <= 2:
            return None
        return np.r_[0, np.cumsum(self.n_support_)].astype(np.int64)

    def _fit_one_output(
        self,
        spec: KernelSolverSpec,
        X: Any,
        rows: np.ndarray,
        y: np.ndarray,
        cost: np.ndarray,
        formulation: str,
        epsilon: float,
        n_threads: int,
    ) -> dict:
        """One solve over rows of X and the fitted attributes of its one-output model (SVR,
        NuSVR, OneClassSVM): result_, n_iter_, fit_status_, support and dual coefficients."""
        Xc = as_core_matrix(dense_if_smaller(X))  # the solve's storage; the model keeps X's
        res = self._solve(spec, Xc, rows, y, cost, formulation, epsilon, n_threads)
        self.result_ = [res]
        self.n_iter_ = int(res["iterations"])
        self.fit_status_ = int(res["status"] != SolverStatus.converged)
        coef = np.asarray(res["dual_coef"])
        nz = coef != 0
        support = rows[nz]
        self.n_support_ = np.array([support.shape[0]], dtype=np.int32)
        self._make_model(X, support, coef[nz][None, :], np.array([res["bias"]]))
        return res

    def _classes_numeric(self) -> np.ndarray:
        # The C++ model only needs the class count for prediction; labels are mapped in Python.
        return np.arange(len(self.classes_), dtype=np.float64)

    def _raw_decision(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "_model")
        X = self._validate_X(X, reset=False)
        Xc, model = self._prediction_inputs(X, self._model_dict())
        return _core.kernel_decision_function(Xc, model, self._predict_threads(X))

    def _prediction_inputs(self, X: Any, model: dict) -> tuple[Any, dict]:
        """X as the core views it and the model to predict with: a sparse X (or sparse support
        vectors) whose dense form takes no more memory is evaluated dense (dense_if_smaller),
        as the fit was: dense rows run the kernel up to 2x faster (splice, 680 support
        vectors: 6.7 -> 3.0 ms). The model keeps its sparse support vectors; their dense copy,
        n_SV x n_features, is made per call, and only for at least _DENSE_SV_MIN_ROWS rows of
        X, whose kernel work is then that many times the copy's."""
        X = dense_if_smaller(X)
        sparse_sv = isinstance(model.get("sv"), tuple)  # the payload's CSR support vectors
        if sparse_sv and not sp.issparse(X) and X.shape[0] >= _DENSE_SV_MIN_ROWS:
            dense = dense_if_smaller(self.support_vectors_)
            if not sp.issparse(dense):
                model = {**model, "sv": _sv_payload(dense)}
        return as_core_matrix(X), model

    def _predict_threads(self, X: Any) -> int:
        """n_jobs's thread count, or one thread when the kernel products are too few to split
        (the same threshold as a fit's kernel rows)."""
        n_threads = check_n_jobs(self.n_jobs)
        if X.shape[0] * len(self.support_) * X.shape[1] < _ROW_WORK_PARALLEL_MIN:
            return 1
        return n_threads

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self.kernel == "precomputed"
        return tags


class SVC(ClassifierMixin, _BaseKernel):
    """Kernel support vector classification (C-SVC) by SMO.

    For each pair of classes (one-vs-one) with labels y_i in {-1, +1} it solves the Wolfe dual
    (paper 001, eq. 19)

        min_a 1/2 a^T Q a - e^T a,  0 <= a_i <= C_i,  y^T a = 0,  Q_ij = y_i y_j K(x_i, x_j)

    with C_i = C * sample_weight_i * class_weight_{y_i}: the primal is
    1/2 ||w||^2 + sum_i C_i max(0, 1 - y_i (w.phi(x_i) + b)) with an UNREGULARIZED bias b.
    regularize_intercept=True solves instead the box-only dual with Q + y y^T (eq. 26), i.e.
    the bias is regularized (1/2 b^2 added to the primal). loss="squared_hinge" solves the
    L2-SVC dual with Q + D, D_ii = 1/(2 C_i), and no upper bound (eqs. 49-50): primal
    1/2 ||w||^2 + sum_i C_i max(0, 1 - y_i f(x_i))^2.

    Parameters follow scikit-learn's SVC: C, kernel ("linear", "poly", "rbf", "laplacian",
    "sigmoid", "precomputed", or a callable kernel(X, Y) returning the (len(X), len(Y)) Gram
    matrix, called on X as given, as scikit-learn calls it: numbers, strings or any sequence,
    only its length checked; the training X is kept for predict, and such a model is not
    written by save_model), degree, gamma ("scale", "auto" or > 0;
    the gaussian's sigma maps to gamma = 1 / (2 sigma^2)), coef0, shrinking, probability (Platt
    scaling fitted by internal 5-fold cross-validation), tol (None: the solver's default, for
    SMO a KKT gap of 1e-3 as LIBSVM), cache_size (MB), class_weight, verbose, max_iter (-1 or
    None: the solver's default, for SMO LIBSVM's cap max(10^7, 100 l) with l variables),
    decision_function_shape ("ovr" or "ovo"),
    break_ties, random_state (for the probability folds). svmkit adds: solver ("smo", or
    "adagrad_dual": AdaGrad on the augmented Lagrangian dual of paper 001, Algorithm 7, whose
    tol is the iterate movement and whose Gram matrix is kept in memory -- slow by nature,
    for small problems and for reproducing the paper; prefer "smo"), loss
    ("hinge" or "squared_hinge"), regularize_intercept, working_set ("second_order": Fan,
    Chen and Lin 2005, as LIBSVM; or "max_violating_pair": Keerthi's b_up/b_low), n_jobs
    (OpenMP threads), solver_options (further SmoOptions fields), callback (called with a
    dict every history_every iterations; returning False stops), sigma (paper 001's
    gaussian/laplacian width: when given, gamma = 1 / (2 sigma^2) replaces gamma).
    kernel="gaussian" is an alias of "rbf".

    A sparse X whose dense form takes no more memory than its own arrays (a dense
    LIBSVM-format file read by load_svmlight_file) is solved dense, up to 2.6x faster
    (_validation.dense_if_smaller); the model keeps the sparse support vectors.

    Attributes: support_, support_vectors_, dual_coef_ (n_classes-1, n_SV) in scikit-learn's
    layout (both CSR matrices after a sparse fit, as scikit-learn's), intercept_, n_support_,
    classes_, class_weight_ (the weight of each class, in the order of classes_), fit_status_
    (0 converged, 1 not), n_iter_ (per pair), shape_fit_, result_ (solver results per pair,
    with history and dual_coef; alpha = |dual_coef|), probA_, probB_.
    """

    _parameter_checks = {
        **_KERNEL_CHECKS,
        "loss": OneOf("hinge", "squared_hinge"),
        "probability": Bool(),
        "class_weight": AnyOf(OneOf("balanced"), DictOrNone()),
        "decision_function_shape": OneOf("ovr", "ovo"),
        "break_ties": Bool(),
        "random_state": RandomState(),
    }

    def __init__(
        self,
        *,
        C: float = 1.0,
        kernel: str = "rbf",
        degree: int = 3,
        gamma: Any = "scale",
        coef0: float = 0.0,
        shrinking: bool = True,
        probability: bool = False,
        tol: float | None = None,
        cache_size: float = 200,
        class_weight: Any = None,
        verbose: int = 0,
        max_iter: int | None = -1,
        decision_function_shape: str = "ovr",
        break_ties: bool = False,
        random_state: Any = None,
        solver: str = "smo",
        loss: str = "hinge",
        regularize_intercept: bool = False,
        working_set: str = "second_order",
        n_jobs: int | None = None,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
        sigma: float | None = None,
    ) -> None:
        store_params(self, locals())

    def _check_param_relations(self) -> None:
        super()._check_param_relations()
        if self.break_ties and self.decision_function_shape == "ovo":
            raise ValueError("break_ties must be False when decision_function_shape is 'ovo'")

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> SVC:
        """Fit the one-vs-one SVMs. X: (n_samples, n_features) array or sparse matrix."""
        spec = self._check_common()
        formulation = "svc_squared_hinge" if self.loss == "squared_hinge" else "svc"
        if formulation not in spec.formulations:
            raise ValueError(f"solver {spec.name!r} does not handle loss={self.loss!r}")
        n_threads = resolve_n_jobs(check_n_jobs(self.n_jobs))
        X, y = self._validate_X(X, reset=True, y=y)
        check_classification_y(y)
        classes, y_idx = encode_labels(y)
        if classes.shape[0] < 2:
            raise ValueError(
                "The number of classes has to be greater than one; got 1 class "
                f"({label_text(classes[0])}) in the data"
            )
        sw = check_sample_weight(sample_weight, X.shape[0])
        class_weight = class_weight_vector(self.class_weight, classes, y)
        cost = float(self.C) * sw * class_weight[y_idx]
        self.class_weight_ = class_weight
        self.classes_ = classes
        self._gamma_ = self._gamma_value(X)
        self.shape_fit_ = self._fit_shape(X)
        Xc = as_core_matrix(dense_if_smaller(X))  # the solves' storage; the model keeps X's
        k = classes.shape[0]
        problems = _OvoProblems(y_idx, cost, k)
        for c in range(k):
            if problems.class_size(c) == 0:
                empty = classes[c].item() if isinstance(classes[c], np.generic) else classes[c]
                raise ValueError(
                    f"class {empty!r} has zero weight in every sample (sample_weight times "
                    "class_weight): SVC needs a positive weight in each class"
                )

        def fit_pair(p: int, threads: int, stop: Any) -> dict:
            _, _, rows, yp = problems[p]
            threads = _team_threads(threads, rows.shape[0], rows.shape[0], X.shape[1])
            cb = "default" if stop is None else stop
            res = self._solve(
                spec, Xc, rows, yp, cost[rows], formulation, 0.0, threads, callback=cb
            )
            # alpha = |dual_coef| (the labels are +-1): not kept twice for every pair (26
            # classes: 325 pairs, a MB of peak memory on 5,000 rows).
            if "dual_coef" in res:
                res.pop("solution", None)
            return res

        # One-vs-one: the pair fits may run in parallel, one thread each (see _threads.py);
        # the work of a pair's pass is taken as its rows times the features.
        n_rows_pair = max(
            problems.class_size(a) + problems.class_size(b) for a, b in problems.pairs
        )
        results = map_binary_fits(
            fit_pair,
            len(problems),
            n_threads,
            n_rows_pair,
            n_rows_pair * X.shape[1],
            sequential=self._callback(spec) is not None
            or not isinstance(getattr(self, "random_state", None), (type(None), numbers.Integral)),
        )
        self.result_ = results
        self.n_iter_ = np.array([r["iterations"] for r in results], dtype=np.int32)
        self.fit_status_ = int(any(r["status"] != SolverStatus.converged for r in results))
        # Support vectors: samples with a nonzero coefficient in any pair, by class then index.
        is_sv = np.zeros(X.shape[0], dtype=bool)
        for (_, _, rows, _), res in zip(problems, results):
            is_sv[rows[res["dual_coef"] != 0]] = True
        support = np.concatenate([np.flatnonzero(is_sv & (y_idx == c)) for c in range(k)])
        self.n_support_ = np.array([np.sum(is_sv & (y_idx == c)) for c in range(k)], np.int32)
        pos = np.full(X.shape[0], -1)
        pos[support] = np.arange(support.shape[0])
        dual = np.zeros((k - 1, support.shape[0]))
        for (a, b, rows, _), res in zip(problems, results):
            dc = res["dual_coef"]
            nz = dc != 0
            r, c = rows[nz], dc[nz]
            in_a = y_idx[r] == a
            dual[b - 1, pos[r[in_a]]] = c[in_a]
            dual[a, pos[r[~in_a]]] = c[~in_a]
        intercept = np.asarray([r["bias"] for r in results], dtype=np.float64)
        if k == 2:  # scikit-learn's public sign: classes_[1] is the positive class
            dual, intercept = -dual, -intercept
        self._make_model(X, support, dual, intercept)
        if self.probability:
            self._fit_platt(spec, X, Xc, y_idx, cost, formulation, n_threads)
        else:
            self.probA_ = np.empty(0)
            self.probB_ = np.empty(0)
        return self

    # -- probability -----------------------------------------------------------------------
    def _fit_platt(self, spec, X, Xc, y_idx, cost, formulation, n_threads) -> None:
        """Platt sigmoids per class pair, fitted in C++ on LIBSVM's internal 5-fold CV."""
        del X  # the signature subclasses override (NuSVC)
        problems = _OvoProblems(y_idx, cost, len(self.classes_))
        # The CV fits always use SMO; another solver's options and max_iter do not apply.
        smo_opts = self._options(KERNEL_SOLVERS["smo"], n_threads, fitted=spec.name == "smo")
        # One seed per pair, drawn from random_state (the folds of each pair are shuffled in
        # C++ with its own seeded generator).
        seed = self._seed()
        rng = np.random.RandomState(0 if seed is None else seed)
        A, B = [], []
        for _, _, rows, yp in problems:
            platt_opts = {"seed": int(rng.randint(0, 2**31 - 1))}
            fit = _core.fit_platt(
                Xc,
                yp,
                np.ascontiguousarray(cost[rows]),
                rows.astype(np.int64),
                self._core_kernel(),
                self._gamma_,
                float(self.coef0),
                int(self.degree),
                formulation,
                bool(self.regularize_intercept),
                smo_opts,
                platt_opts,
            )
            A.append(fit["a"])
            B.append(fit["b"])
        self.probA_ = np.array(A)
        self.probB_ = np.array(B)

    def _check_proba(self) -> None:
        check_is_fitted(self, "_model")
        if not self.probability:
            raise AttributeError(
                "predict_proba is not available when probability=False; refit with probability=True"
            )
        if getattr(self, "probA_", None) is None or np.size(self.probA_) == 0:
            # probability=True set after a fit without it: scikit-learn's error and wording
            raise NotFittedError(
                "predict_proba is not available when fitted with probability=False; refit "
                "with probability=True"
            )

    @available_if(lambda self: self.probability)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities: Platt-scaled pair values, coupled pairwise (Wu, Lin and Weng
        2004) for more than two classes; computed in C++ (svmkit/probability.hpp)."""
        self._check_proba()
        X = self._validate_X(X, reset=False)
        model = dict(self._model_dict())
        model["prob_a"] = np.asarray(self.probA_, dtype=np.float64)
        model["prob_b"] = np.asarray(self.probB_, dtype=np.float64)
        Xc, model = self._prediction_inputs(X, model)
        return _core.kernel_predict_proba(Xc, model, self._predict_threads(X))

    @available_if(lambda self: self.probability)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        return np.log(self.predict_proba(X))

    # -- prediction ------------------------------------------------------------------------
    def decision_function(self, X: Any) -> np.ndarray:
        """Binary: (n,) values (> 0 means classes_[1]); else (n, k) "ovr" or (n, k(k-1)/2)."""
        raw = self._raw_decision(X)
        k = len(self.classes_)
        if k == 2:
            return raw[:, 0]
        if self.decision_function_shape == "ovr":
            return _core.ovo_to_ovr(raw, k)
        return raw

    def predict(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "_model")
        k = len(self.classes_)
        if self.break_ties and self.decision_function_shape == "ovr" and k > 2:
            return self.classes_[np.argmax(self.decision_function(X), axis=1)]
        X = self._validate_X(X, reset=False)
        Xc, model = self._prediction_inputs(X, self._model)
        idx = _core.kernel_predict_class_indices(Xc, model, self._predict_threads(X))
        return self.classes_[idx]


class SVR(RegressorMixin, _BaseKernel):
    """Kernel epsilon-support vector regression by SMO.

    Solves the Wolfe dual of paper 001 (eq. 80) with a = [a+; a-] as one 2n-variable problem:

        min 1/2 (a+ - a-)^T K (a+ - a-) + eps e^T (a+ + a-) - y^T (a+ - a-),
        0 <= a+_i, a-_i <= C_i,  e^T (a+ - a-) = 0

    (primal 1/2 ||w||^2 + sum_i C_i max(0, |y_i - f(x_i)| - eps), UNREGULARIZED bias);
    regularize_intercept=True solves the box-only dual with K + 1 (eq. 84, regularized bias).
    C_i = C * sample_weight_i. Parameters as scikit-learn's SVR plus solver, working_set,
    regularize_intercept, n_jobs, solver_options, callback (see SVC, also for the storage of
    a sparse X).
    """

    _regression = True

    _parameter_checks = {
        **_KERNEL_CHECKS,
        "loss": OneOf("epsilon_insensitive"),
        "epsilon": Real(ge=0.0),
    }

    def __init__(
        self,
        *,
        kernel: str = "rbf",
        degree: int = 3,
        gamma: Any = "scale",
        coef0: float = 0.0,
        tol: float | None = None,
        C: float = 1.0,
        epsilon: float = 0.1,
        shrinking: bool = True,
        cache_size: float = 200,
        verbose: int = 0,
        max_iter: int | None = -1,
        solver: str = "smo",
        loss: str = "epsilon_insensitive",
        regularize_intercept: bool = False,
        working_set: str = "second_order",
        n_jobs: int | None = None,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
        sigma: float | None = None,
    ) -> None:
        store_params(self, locals())

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> SVR:
        """Fit the regression. X: (n_samples, n_features) array or sparse matrix."""
        spec = self._check_common()
        if "svr" not in spec.formulations:
            raise ValueError(f"solver {spec.name!r} does not handle SVR")
        n_threads = resolve_n_jobs(check_n_jobs(self.n_jobs))
        X, y = self._validate_X(X, reset=True, y=y)
        y = np.asarray(y, dtype=np.float64)
        sw = check_sample_weight(sample_weight, X.shape[0])
        cost = float(self.C) * sw
        self._gamma_ = self._gamma_value(X)
        self.shape_fit_ = self._fit_shape(X)
        rows = np.flatnonzero(cost > 0)
        threads = _team_threads(n_threads, 2 * rows.shape[0], rows.shape[0], X.shape[1])
        self._fit_one_output(spec, X, rows, y[rows], cost[rows], "svr", self.epsilon, threads)
        return self

    def predict(self, X: Any) -> np.ndarray:
        return self._raw_decision(X)[:, 0]


# Query rows from which a prediction evaluates sparse support vectors through their dense copy
# (_BaseKernel._prediction_inputs): the copy costs about one query row's kernel work.
_DENSE_SV_MIN_ROWS = 16


def _sv_payload(S: Any) -> Any:
    if sp.issparse(S):
        S = S.tocsr()
        return (
            np.asarray(S.data, dtype=np.float64),
            np.asarray(S.indices, dtype=np.int64),
            np.asarray(S.indptr, dtype=np.int64),
        )
    return np.ascontiguousarray(S, dtype=np.float64)
