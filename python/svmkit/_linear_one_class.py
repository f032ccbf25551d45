"""LinearOneClassSVM: the linear one-class SVM (LIBLINEAR -s 21)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
from sklearn.base import BaseEstimator, OutlierMixin
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._constraints import COMMON_CHECKS, Int, Real, validate_params
from ._progress import make_callback
from ._status import check_status
from ._validation import (
    as_core_matrix,
    check_n_jobs,
    check_sample_weight,
    store_params,
    validate_X_y,
)

__all__ = ["LinearOneClassSVM"]


class LinearOneClassSVM(OutlierMixin, BaseEstimator):
    """Linear one-class SVM (Scholkopf et al.'s nu formulation with a linear kernel).

    Solves, in LIBSVM's scaling with U_i = sample_weight_i (1 without weights),

        min_{w, rho} 1/2 ||w||^2 - rho nu sum_i U_i + sum_i U_i max(0, rho - w.x_i)

    through its dual min 1/2 ||sum_i a_i x_i||^2 s.t. 0 <= a_i <= U_i, sum_i a_i = nu sum_i U_i,
    by two-variable dual coordinate descent (LIBLINEAR -s 21's method, Chou, Lin and Lin,
    SDM 2020; cpp/include/svmkit/solvers/linear_one_class.hpp). There is no bias feature: rho
    is the offset. Without sample weights this is exactly LIBLINEAR's -s 21 and, up to the
    solver, scikit-learn's OneClassSVM(kernel="linear").

    Parameters
    ----------
    nu : float, default=0.5
        Upper bound on the fraction of training errors and lower bound on the fraction of
        support vectors, in (0, 1].
    tol : float or None, default=None
        Stop when max_{a_i > 0} G_i - min_{a_j < U_j} G_j <= tol (G_i = w.x_i; absolute, as
        LIBLINEAR's eps). None: the solver's default 0.01 (LIBLINEAR's).
    max_iter : int or None, default=None
        Maximum number of outer iterations (None: 1000).
    verbose : int, default=0
        Print one line per outer iteration.
    n_jobs : int or None, default=None
        Threads for prediction.
    solver_options : dict or None, default=None
        Further options of the C++ options table (svmkit.solver_defaults("linear_one_class")).
    callback : callable or None, default=None
        Called with a dict per outer iteration; returning False stops the fit.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features)
        w.
    intercept_ : ndarray of shape (1,)
        -rho.
    offset_ : float
        rho: decision_function = score_samples - offset_.
    dual_coef_ : ndarray of shape (n_samples,)
        The dual variables a_i (LIBSVM's scale, in [0, U_i]).
    n_iter_, n_passes_, result_, n_features_in_ : as in LinearSVC.
    """

    _parameter_checks = {
        "nu": Real(gt=0.0, le=1.0),
        "tol": Real(gt=0.0, none=True),
        "max_iter": Int(ge=0, none=True),
        **COMMON_CHECKS,
    }

    def __init__(
        self,
        *,
        nu: float = 0.5,
        tol: float | None = None,
        max_iter: int | None = None,
        verbose: int = 0,
        n_jobs: int | None = None,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
    ) -> None:
        store_params(self, locals())

    def fit(self, X: Any, y: Any = None, sample_weight: Any = None) -> LinearOneClassSVM:
        """Fit on X (array or sparse matrix); y is ignored."""
        validate_params(self)
        X = validate_X_y(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], order=None)
        cost = check_sample_weight(sample_weight, X.shape[0])
        opts = dict(self.solver_options or {})
        if self.tol is not None:
            opts["tol"] = float(self.tol)
        if self.max_iter is not None:
            opts["max_iter"] = int(self.max_iter)
        opts["check_input"] = False
        res = _core.fit_linear_one_class(
            as_core_matrix(X),
            np.ascontiguousarray(cost, dtype=np.float64),
            float(self.nu),
            opts,
            make_callback("linear_one_class", self.verbose, self.callback),
        )
        check_status(res, "LinearOneClassSVM", "linear_one_class", stacklevel=2)
        self.coef_ = np.asarray(res["solution"], dtype=np.float64).reshape(1, -1)
        self.offset_ = float(res["rho"])
        self.intercept_ = np.array([-self.offset_])
        self.dual_coef_ = np.asarray(res["alpha"], dtype=np.float64)
        self.result_ = [res]
        self.n_iter_ = int(res["iterations"])
        self.n_passes_ = int(res["passes"])
        return self

    def score_samples(self, X: Any) -> np.ndarray:
        """w.x: the raw score (higher is more normal)."""
        check_is_fitted(self, "coef_")
        X = validate_X_y(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        coef = np.ascontiguousarray(self.coef_, dtype=np.float64)
        zero = np.zeros(1)
        dec = _core.linear_decision_function(
            as_core_matrix(X), coef, zero, check_n_jobs(self.n_jobs)
        )
        return np.asarray(dec)[:, 0]

    def decision_function(self, X: Any) -> np.ndarray:
        """w.x - rho: positive for inliers, negative for outliers."""
        return self.score_samples(X) - self.offset_

    def predict(self, X: Any) -> np.ndarray:
        """+1 for inliers (decision >= 0, scikit-learn's convention), -1 for outliers (LIBLINEAR
        labels a decision of exactly 0 as -1; svmkit.liblinearutil.predict does)."""
        return np.where(self.decision_function(X) >= 0, 1, -1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
