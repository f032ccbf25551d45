"""LIBSVM's nu formulations: NuSVC, NuSVR and OneClassSVM (solvers/smo_nu.hpp).

Each estimator reuses the kernel machinery of _kernel.py (validation, one-vs-one assembly,
the C++ kernel model and its prediction) and swaps the binary solve for _core.fit_smo_nu:
the same SMO core, cache, shrinking and thread team as SVC, with the pair taken within a
sign group (Chang and Lin 2001; Fan, Chen and Lin 2005).
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from sklearn.base import OutlierMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._constraints import Real
from ._kernel import SVC, SVR, KernelSolverSpec, _BaseKernel
from ._status import check_status
from ._threads import resolve_n_jobs
from ._validation import as_core_matrix, check_n_jobs, check_sample_weight, store_params

NU = Real(gt=0.0, le=1.0)


def _declare_checks(cls: type, base: dict) -> type:
    """The base estimator's declared rules for the parameters cls has, plus nu."""
    table = {**base, "nu": NU}
    cls._parameter_checks = {name: table[name] for name in cls._get_param_names()}
    return cls


class _NuSolve:
    """The binary solve of the nu estimators (replaces _BaseKernel._solve)."""

    _nu_formulation = "nu_svc"

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
        res = _core.fit_smo_nu(
            Xc,
            np.ascontiguousarray(y, dtype=np.float64),
            np.ascontiguousarray(cost, dtype=np.float64),
            None if rows is None else np.ascontiguousarray(rows, dtype=np.int64),
            self._core_kernel(),
            self._gamma_,
            float(self.coef0),
            int(self.degree),
            self._nu_formulation,
            float(self.nu),
            self._options(spec, n_threads),
            self._callback(spec) if callback == "default" else callback,
        )
        check_status(res, type(self).__name__, "smo", stacklevel=3)
        return res


_NU_DOC_COMMON = """
    Parameters follow scikit-learn's: nu (in (0, 1]), kernel ("linear", "poly", "rbf",
    "laplacian", "sigmoid", "precomputed", or a callable as in SVC), degree, gamma ("scale",
    "auto" or > 0), coef0, shrinking, tol (None: SMO's default KKT gap, 1e-3 as LIBSVM),
    cache_size (MB), verbose, max_iter (-1 or None: no limit). svmkit adds working_set
    ("second_order" or "max_violating_pair"), n_jobs (threads), solver_options (further
    SmoOptions fields), callback (called with each history record; return False to stop) and
    sigma (the rbf width: gamma = 1 / (2 sigma^2)).
"""


class NuSVC(_NuSolve, SVC):
    """nu-support vector classification (LIBSVM -s 1) by SMO, one-vs-one for k > 2 classes.

    For each pair of classes with labels y_i in {-1, +1} it solves (Chang and Lin 2001, in
    LIBSVM's scaling)

        min_a 1/2 a^T Q a,  0 <= a_i <= C_i,  y^T a = 0,  e^T a = nu sum_i C_i,
        Q_ij = y_i y_j K(x_i, x_j),  C_i = sample_weight_i * class_weight_{y_i}

    the dual of min 1/2 ||w||^2 - nu rho + (1/n) sum_i C_i xi_i subject to
    y_i (w.phi(x_i) + b) >= rho - xi_i, xi_i >= 0 (UNREGULARIZED bias; with unit weights
    nu bounds the fraction of margin errors from above and of support vectors from below).
    The model is stored as the equivalent C-SVC (coefficients y_i a_i / r, bias -rho / r,
    with r the multiplier of e^T a = nu sum C_i), as LIBSVM and scikit-learn do. nu is
    infeasible when nu (n_+ + n_-) / 2 > min(n_+, n_-) for some pair (weighted class sizes):
    a ValueError "specified nu is infeasible". class_weight multiplies the per-sample bounds
    as sample_weight does (LIBSVM and scikit-learn ignore class_weight for nu-SVC, so the
    two agree only for class_weight=None). probability=True fits Platt sigmoids on 5-fold
    cross-validated nu-SVC decision values (a fold where nu is infeasible uses the largest
    feasible nu).
    """

    __doc__ += (
        _NU_DOC_COMMON
        + """
    Attributes (scikit-learn's): support_, support_vectors_, dual_coef_ (n_classes-1, n_SV;
    both CSR after a sparse fit), intercept_, n_support_, classes_, fit_status_, n_iter_,
    shape_fit_, probA_, probB_, result_ (per-pair solver results: objective of the problem
    above, nu_r = r, history).
    """
    )

    # Fixed parameters of the SVC machinery (not constructor parameters of NuSVC).
    C = 1.0
    loss = "hinge"
    solver = "smo"
    regularize_intercept = False

    def __init__(
        self,
        *,
        nu: float = 0.5,
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
        working_set: str = "second_order",
        n_jobs: int | None = None,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
        sigma: float | None = None,
    ) -> None:
        store_params(self, locals())

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> NuSVC:
        """Fit the one-vs-one nu-SVMs. X: (n_samples, n_features) array or sparse matrix."""
        return super().fit(X, y, sample_weight)

    def _fit_platt(self, spec, X, Xc, y_idx, cost, formulation, n_threads) -> None:
        """Platt sigmoids per class pair on 5-fold cross-validated nu-SVC decision values."""
        seed = self._seed()
        rng = np.random.RandomState(0 if seed is None else seed)
        opts = self._options(spec, n_threads)
        opts["record_history"] = False
        k = len(self.classes_)
        A, B = [], []
        for a in range(k):
            for b in range(a + 1, k):
                rows = np.flatnonzero(((y_idx == a) | (y_idx == b)) & (cost > 0))
                yp = np.where(y_idx[rows] == a, 1.0, -1.0)
                fold_rng = np.random.RandomState(rng.randint(0, 2**31 - 1))
                dec = self._cv_decisions(Xc, X, rows, yp, cost[rows], opts, fold_rng)
                fit = _core.fit_sigmoid(dec, yp, {})
                A.append(fit["a"])
                B.append(fit["b"])
        self.probA_ = np.array(A)
        self.probB_ = np.array(B)

    def _cv_decisions(self, Xc, X, rows, yp, cost, opts, rng, folds: int = 5) -> np.ndarray:
        n = rows.shape[0]
        perm = rng.permutation(n)
        dec = np.zeros(n)
        for f in range(folds):
            held = perm[n * f // folds : n * (f + 1) // folds]
            if held.shape[0] == 0:
                continue
            train = np.setdiff1d(perm, held, assume_unique=True)
            yt, ct = yp[train], cost[train]
            pos, neg = ct[yt > 0].sum(), ct[yt < 0].sum()
            if pos == 0 or neg == 0:  # one class to learn from: its sign
                dec[held] = 1.0 if pos > 0 else -1.0
                continue
            nu = min(float(self.nu), 2.0 * min(pos, neg) / (pos + neg))
            res = _core.fit_smo_nu(
                Xc, yt, ct, rows[train].astype(np.int64), self._core_kernel(), self._gamma_,
                float(self.coef0), int(self.degree), "nu_svc", nu, opts, None,
            )  # fmt: skip
            coef = np.asarray(res["dual_coef"])
            nz = coef != 0
            support = rows[train][nz]
            model = self._model_payload(
                X.shape[1],
                None if self._core_kernel() == "precomputed" else X[support],
                support,
                coef[nz][None, :],
                np.array([res["bias"]]),
                np.array([support.shape[0]]),
                regression=True,
            )
            Xh = X[rows[held]]
            if self._core_kernel() == "precomputed":
                Xh = np.ascontiguousarray(Xh)
            dec[held] = _core.kernel_decision_function(as_core_matrix(Xh), model, 1)[:, 0]
        return dec


class NuSVR(_NuSolve, SVR):
    """nu-support vector regression (LIBSVM -s 4) by SMO.

    Solves, with a = [a+; a-] as one 2n-variable problem (Schoelkopf et al. 2000, in
    LIBSVM's scaling),

        min 1/2 (a+ - a-)^T K (a+ - a-) - y^T (a+ - a-),
        0 <= a+_i, a-_i <= C_i,  e^T (a+ - a-) = 0,  e^T (a+ + a-) = nu sum_i C_i

    the dual of min 1/2 ||w||^2 + sum_i C_i (nu eps + max(0, |y_i - f(x_i)| - eps)) over
    w, b and eps >= 0 (UNREGULARIZED bias): the tube width eps is learned (epsilon_, the
    negated multiplier of the second constraint). C_i = C * sample_weight_i.
    """

    __doc__ += (
        _NU_DOC_COMMON
        + """    C (> 0) as scikit-learn's NuSVR.

    Attributes: support_, support_vectors_, dual_coef_ (1, n_SV; both CSR after a sparse fit),
    intercept_, n_support_, fit_status_, n_iter_, shape_fit_, epsilon_ (the learned tube
    half-width), result_.
    """
    )

    _nu_formulation = "nu_svr"
    epsilon = 0.0  # SVR's parameter; the tube is learned here
    loss = "epsilon_insensitive"
    solver = "smo"
    regularize_intercept = False

    def __init__(
        self,
        *,
        nu: float = 0.5,
        C: float = 1.0,
        kernel: str = "rbf",
        degree: int = 3,
        gamma: Any = "scale",
        coef0: float = 0.0,
        shrinking: bool = True,
        tol: float | None = None,
        cache_size: float = 200,
        verbose: int = 0,
        max_iter: int | None = -1,
        working_set: str = "second_order",
        n_jobs: int | None = None,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
        sigma: float | None = None,
    ) -> None:
        store_params(self, locals())

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> NuSVR:
        """Fit the regression. X: (n_samples, n_features) array or sparse matrix."""
        super().fit(X, y, sample_weight)
        self.epsilon_ = -float(self.result_[0]["nu_r"])
        return self


class OneClassSVM(OutlierMixin, _NuSolve, _BaseKernel):
    """One-class SVM (LIBSVM -s 2): support estimation by SMO (Schoelkopf et al. 2001).

    Solves, in LIBSVM's scaling,

        min_a 1/2 a^T K a,  0 <= a_i <= C_i,  e^T a = nu sum_i C_i,  C_i = sample_weight_i

    the dual of min 1/2 ||w||^2 - rho + (1/(nu n)) sum_i C_i xi_i subject to
    w.phi(x_i) >= rho - xi_i, xi_i >= 0. decision_function(x) = sum_i a_i K(x_i, x) - rho
    (> 0: inlier, predict +1; else -1), score_samples = sum_i a_i K(x_i, x), offset_ = rho.
    """

    __doc__ += (
        _NU_DOC_COMMON
        + """
    Attributes: support_, support_vectors_, dual_coef_ (1, n_SV; both CSR after a sparse fit),
    intercept_ (-rho), offset_ (rho), n_support_, fit_status_, n_iter_, shape_fit_, result_.
    """
    )

    _nu_formulation = "one_class"
    _regression = True  # one output: the C++ model's regression task gives sum a K + b
    C = 1.0
    loss = "hinge"
    solver = "smo"
    regularize_intercept = False

    def __init__(
        self,
        *,
        kernel: str = "rbf",
        degree: int = 3,
        gamma: Any = "scale",
        coef0: float = 0.0,
        tol: float | None = None,
        nu: float = 0.5,
        shrinking: bool = True,
        cache_size: float = 200,
        verbose: int = 0,
        max_iter: int | None = -1,
        working_set: str = "second_order",
        n_jobs: int | None = None,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
        sigma: float | None = None,
    ) -> None:
        store_params(self, locals())

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> OneClassSVM:
        """Fit the support of X (y is ignored). X: array or sparse matrix."""
        spec = self._check_common()
        n_threads = resolve_n_jobs(check_n_jobs(self.n_jobs))
        X = self._validate_X(X, reset=True)
        sw = check_sample_weight(sample_weight, X.shape[0])  # raises when all are zero
        self._gamma_ = self._gamma_value(X)
        self.shape_fit_ = self._fit_shape(X)
        rows = np.flatnonzero(sw > 0)
        n = rows.shape[0]
        self._fit_one_output(spec, X, rows, np.ones(n), sw[rows], "", 0.0, n_threads)
        self.offset_ = -self.intercept_
        return self

    def decision_function(self, X: Any) -> np.ndarray:
        """sum_i a_i K(x_i, x) - rho: positive for inliers, negative for outliers."""
        return self._raw_decision(X)[:, 0]

    def score_samples(self, X: Any) -> np.ndarray:
        """sum_i a_i K(x_i, x): the unshifted score (decision_function + offset_)."""
        return self.decision_function(X) + self.offset_[0]

    def predict(self, X: Any) -> np.ndarray:
        """+1 for inliers (decision_function > 0), -1 for outliers."""
        check_is_fitted(self, "_model")
        return np.where(self.decision_function(X) > 0, 1, -1).astype(np.intp)


_declare_checks(NuSVC, SVC._parameter_checks)
_declare_checks(NuSVR, SVR._parameter_checks)
_declare_checks(OneClassSVM, SVR._parameter_checks)
