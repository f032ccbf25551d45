"""SparseSVC: the sparsity-constrained SVM of paper 003 (NSSVM), solved in C++."""

from __future__ import annotations

import sys
from typing import Any, Callable

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._constraints import (
    COMMON_CHECKS,
    Bool,
    Int,
    OneOf,
    Real,
    merge_solver_options,
    validate_params,
)
from ._progress import make_callback
from ._status import check_status
from ._threads import map_binary_fits, resolve_n_jobs, stored_entries
from ._validation import (
    as_core_matrix,
    check_classification_y,
    check_n_jobs,
    dense_if_smaller,
    encode_labels,
    require_two_classes,
    validate_X_y,
)

_SOLVERS = ("nssvm",)


def nssvm_defaults() -> dict:
    """The default NSSVM options, read from the C++ options struct (their single source)."""
    return dict(_core.option_defaults("nssvm"))


def _core_matrix(X: Any) -> Any:
    """as_core_matrix, with every array viewed (not copied) through numpy's canonical dtype.

    The core compares dtypes by identity; arrays read back from files (e.g. read-only memmaps)
    can carry an equal but distinct dtype object, which it would reject.
    """
    Xc = as_core_matrix(X)

    def canon(a: np.ndarray) -> np.ndarray:
        return a.view(type=np.ndarray, dtype=np.dtype(a.dtype.type))

    if isinstance(Xc, tuple):
        return (canon(Xc[0]), canon(Xc[1]), canon(Xc[2]), Xc[3], Xc[4])
    return canon(Xc)


def _printer(rec: dict) -> bool:
    print(
        f"nssvm iter {rec['iteration']:4d}  D {rec['objective']:.8e}  "
        f"||F|| {rec['optimality']:.3e}  acc {rec['step']:.5f}  s {rec['active_size']}  "
        f"t {rec['time']:.3f}s",
        file=sys.stdout,
        flush=True,
    )
    return True


class SparseSVC(ClassifierMixin, BaseEstimator):
    """Linear SVM classifier with at most s support vectors (NSSVM, paper 003).

    Solves, for labels mapped to y_i in {-1, +1} (classes_[1] is +1 for two classes), the
    sparsity-constrained dual

        min_alpha 1/2 ||Q alpha||^2 + sum_i h_{c,C}(alpha_i) - sum_i alpha_i
        s.t. <alpha, y> = 0,  ||alpha||_0 <= s,      Q = [y_1 x_1, ..., y_m x_m],

    h_{c,C}(t) = t^2/(2C) (t >= 0), t^2/(2c) (t < 0), by the subspace Newton method NSSVM
    (Zhou, "Sparse SVM for Sufficient Data Reduction"). The classifier is w = Q alpha with the
    bias b = mu, the multiplier of <alpha, y> = 0 (optionally refined, see refine_bias in
    `nssvm_defaults()`). More than two classes are handled one-vs-rest.

    Every parameter left at None takes the C++ default (`svmkit.nssvm_defaults()`): C = 0.25,
    c = C/100, eta = min(1/m, 1e-4), s0 = ceil(n (ln(m/n))^2), tol = 1e-6, tuning off.
    The stopping rule is the paper listing's: ||F||^2 / (m n) <= tol sqrt(s) log10(m) with the
    training accuracy settled, or no rise of the best training accuracy for stall_iter = 20
    iterations; solver_options={"scaled_tol": False, "stall_iter": 0} restores the strict
    ||F|| <= tol (a fixed point of the iteration).

    Accuracy trade-off (what the defaults give): SparseSVC's point is a model with at most s
    support vectors, and the paper's defaults regularize 8x more than LinearSVC's (C = 0.25 is
    LinearSVC's C = 0.125). Where the data need many support vectors the sparse model is
    less accurate than LinearSVC: sparse text-like data 20000 x 10000 (50 terms a row) gives
    74.6% with 2210 SVs against LinearSVC's 85%; C = 2 (LinearSVC's C = 1) gives 77.1%, and
    C = 2 with four times the support vectors (solver_options={"s0_scale": 4}, 8837 SVs)
    82.9%, at about 70 times the default's fit time. Where m <= n every sample may be a
    support vector and C = 2 solves nearly LinearSVC's squared-hinge problem (c = C/100):
    d >> n text data 2000 x 50000 gives 63.75% against 64% (61.25% at C = 0.25), at about
    3x the default's time. bench/bench_sparse_svc.py measures these.

    Parameters
    ----------
    C : float or None
        Penalty parameter (> 0) of positive alpha (the paper's C). h(t) = t^2/(2C) is the
        conjugate of the loss (C/2) max(0, 1 - y z)^2, so SparseSVC(C=2 c) weights the squared
        hinge like LinearSVC(C=c); the paper's default 0.25 is LinearSVC's C = 0.125.
    sparsity : int or None
        Initial sparsity level s0 (maximum number of support vectors without tuning).
    tune : bool or None
        Sparsity-level tuning: s <- ceil(1.1 s) on the paper's schedule, accuracy-based stop.
    tol : float or None
        Tolerance on ||F(z; T)||, the eta-stationarity residual.
    max_iter : int or None
        Maximum number of Newton iterations.
    solver : {"nssvm"}
    n_jobs : int or None
        OpenMP threads (None: OpenMP default; -1: all cores).
    solver_options : dict or None
        Further NSSVM options by name (c, c_ratio, eta, s0_scale, tune_ratio, tune_every,
        max_tunes, acc_tol, refine_bias, keep_best, cg_threshold, cg_tol, cg_max_iter, ...);
        unknown names raise ValueError.
    callback : callable or None
        Called with a dict per iteration (its "step" entry is the training accuracy);
        returning False stops the fit.
    verbose : int
        Print one line per iteration.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    support_ : ndarray of int
        Indices of training samples with alpha_i != 0 (union over one-vs-rest problems).
    support_vectors_ : ndarray or sparse matrix, the rows of X at support_ (a sparse X whose
        dense form takes no more memory than its own arrays is solved dense, as in SVC; the
        support vectors stay sparse).
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        y_i alpha_i for each support vector (0 where a sample is not a support vector of
        that problem), so that coef_ = dual_coef_ @ support_vectors_.
    alpha_ : ndarray of shape (n_problems, n_SV), the dual variables alpha_i themselves.
    coef_ : ndarray of shape (n_problems, n_features), w = Q alpha.
    intercept_ : ndarray of shape (n_problems,)
    n_iter_ : int, the largest number of iterations over the problems.
    history_ : dict (list of dicts for more than two classes)
        Per iteration: "optimality" (||F(z; T)||), "accuracy" (training accuracy), "s"
        (working-set size), "time" (seconds since the start), "objective" (D(alpha)), "bias".
    result_ : list of dict, the raw solver results.
    n_features_in_ : int
    """

    def __init__(
        self,
        *,
        C: float | None = None,
        sparsity: int | None = None,
        tune: bool | None = None,
        tol: float | None = None,
        max_iter: int | None = None,
        solver: str = "nssvm",
        n_jobs: int | None = None,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
        verbose: int = 0,
    ) -> None:
        self.C = C
        self.sparsity = sparsity
        self.tune = tune
        self.tol = tol
        self.max_iter = max_iter
        self.solver = solver
        self.n_jobs = n_jobs
        self.solver_options = solver_options
        self.callback = callback
        self.verbose = verbose

    _parameter_checks = {
        **COMMON_CHECKS,
        "C": Real(gt=0.0, none=True),
        "sparsity": Int(ge=1, none=True),
        "tune": Bool(none=True),
        "tol": Real(ge=0.0, none=True),
        "max_iter": Int(ge=0, none=True),
        "solver": OneOf(*_SOLVERS),
    }
    # solver_options entries checked here: c <= 0 used to mean "c_ratio * C" in C++, so a
    # negative c was silently replaced; 0 (the C++ default) keeps that meaning.
    _solver_option_checks = {"c": Real(ge=0.0)}

    def _options(self, n_threads: int) -> dict:
        opts = dict(self.solver_options or {})
        unknown = sorted(set(opts) - set(nssvm_defaults()))
        if unknown:
            raise ValueError(f"SparseSVC: unknown solver option(s) {unknown}")
        for key, rule in self._solver_option_checks.items():
            if key in opts:
                rule.check(opts[key], f"solver_options[{key!r}]")
        owned = {"n_threads": ("n_jobs", n_threads)}
        for key, param in (
            ("C", "C"),
            ("s0", "sparsity"),
            ("tune", "tune"),
            ("tol", "tol"),
            ("max_iter", "max_iter"),
        ):
            value = getattr(self, param)
            if value is not None:
                owned[key] = (param, value)
        opts = merge_solver_options("SparseSVC", opts, owned)
        opts.setdefault("check_input", False)  # validated here, including finiteness of X
        return opts

    def _callback(self) -> Callable[[dict], Any] | None:
        return make_callback("nssvm", self.verbose, self.callback, printer=_printer)

    def fit(self, X: Any, y: Any) -> SparseSVC:
        """Fit the model. X: array or sparse matrix (n_samples, n_features); y: labels."""
        validate_params(self)
        n_threads = check_n_jobs(self.n_jobs)
        opts = self._options(n_threads)
        X, y = validate_X_y(
            self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], order=None
        )
        check_classification_y(y)
        classes, y_idx = encode_labels(y)
        require_two_classes(classes, "SparseSVC")
        if X.shape[0] < 2:
            raise ValueError(f"SparseSVC needs at least 2 samples, got n_samples = {X.shape[0]}")
        Xc = _core_matrix(dense_if_smaller(X))  # the solves' storage; the model keeps X's
        binary = classes.shape[0] == 2
        n_rows = 1 if binary else classes.shape[0]
        callback = self._callback()

        def fit_one(k: int, threads: int, stop: Any) -> tuple[dict, np.ndarray]:
            yk = np.where(y_idx == (1 if binary else k), 1.0, -1.0)
            cb = callback if stop is None else stop
            res = _core.fit_nssvm(Xc, yk, {**opts, "n_threads": threads}, cb)
            # Keep only the labels of the support vectors: one-vs-rest would otherwise hold
            # n_classes label vectors of n_samples entries until the end of the fit.
            return res, yk[res["support"]]

        # One-vs-rest: the binary fits may run in parallel, one thread each (see _threads.py).
        results = map_binary_fits(
            fit_one,
            n_rows,
            resolve_n_jobs(n_threads),
            X.shape[0],
            stored_entries(X),
            sequential=callback is not None,  # a user callback or verbose: one fit at a time
        )
        for res, _ in results:
            check_status(res, "SparseSVC", "nssvm", stacklevel=2)
        support = np.unique(np.concatenate([r["support"] for r, _ in results])).astype(np.intp)
        dual = np.zeros((n_rows, support.shape[0]))
        for k, (res, y_sv) in enumerate(results):
            pos = np.searchsorted(support, res["support"])
            dual[k, pos] = res["alpha"] * y_sv
        self.classes_ = classes
        self.coef_ = np.vstack([r["solution"][:-1] for r, _ in results])
        self.intercept_ = np.array([r["solution"][-1] for r, _ in results])
        self.support_ = support
        self.support_vectors_ = X[support]
        self.dual_coef_ = dual
        self._sv_class = y_idx[support].astype(np.int32)
        self.n_iter_ = int(max(r["iterations"] for r, _ in results))
        self.result_ = [r for r, _ in results]
        hists = [self._history(r) for r, _ in results]
        self.history_ = hists[0] if binary else hists
        return self

    @property
    def alpha_(self) -> np.ndarray:
        """alpha_i of each problem on support_: dual_coef_ / y_i (computed, not stored, so a
        one-vs-rest fit keeps one n_classes x n_SV matrix instead of two)."""
        check_is_fitted(self, "dual_coef_")
        n_rows = self.dual_coef_.shape[0]
        if n_rows == 1:
            y_sv = np.where(self._sv_class == 1, 1.0, -1.0)[None, :]
        else:
            y_sv = np.where(self._sv_class[None, :] == np.arange(n_rows)[:, None], 1.0, -1.0)
        return self.dual_coef_ * y_sv

    @staticmethod
    def _history(res: dict) -> dict:
        h = res["history"]
        return {
            "optimality": np.asarray(h["optimality"]),
            "accuracy": np.asarray(res["accuracy_history"]),
            "s": np.asarray(h["active_size"]),
            "time": np.asarray(h["time"]),
            "objective": np.asarray(h["objective"]),
            "bias": np.asarray(res["bias_history"]),
        }

    def _prepare(self, X: Any) -> tuple[Any, np.ndarray, np.ndarray]:
        check_is_fitted(self, "coef_")
        X = validate_X_y(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        coef = np.ascontiguousarray(self.coef_, dtype=np.float64)
        intercept = np.ascontiguousarray(self.intercept_, dtype=np.float64)
        return _core_matrix(X), coef, intercept

    def decision_function(self, X: Any) -> np.ndarray:
        """w.x + b: shape (n_samples,) for two classes, else (n_samples, n_classes)."""
        Xc, coef, intercept = self._prepare(X)
        dec = _core.linear_decision_function(Xc, coef, intercept, check_n_jobs(self.n_jobs))
        return dec[:, 0] if dec.shape[1] == 1 else dec

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels."""
        Xc, coef, intercept = self._prepare(X)
        idx = _core.linear_predict_class_indices(Xc, coef, intercept, check_n_jobs(self.n_jobs))
        return self.classes_[idx]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
