"""Regularization paths for SmSVM (paper 000) with warm starts.

`smsvm_path` fits a sequence of regularization values on one binary problem, each fit starting
from the previous solution (its nonzero coordinates are the initial active set) and from a
reduced smoothing parameter `warm_alpha` instead of alpha0 -- the use the paper's nested
cross-validation grid over (lambda, mu) motivates (Algorithm 5).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_X_y

from . import _core
from ._constraints import Real
from ._solvers import penalty_weights
from ._status import check_status
from ._validation import as_core_matrix, check_n_jobs, encode_labels


def smsvm_path(
    X: Any,
    y: Any,
    Cs: Sequence[float] | None = None,
    *,
    lambdas: Sequence[float] | None = None,
    mus: Sequence[float] | None = None,
    penalty: str = "l2",
    l1_ratio: float = 0.5,
    fit_intercept: bool = True,
    intercept_scaling: float = 1.0,
    regularize_intercept: bool = True,
    warm_start: bool = True,
    warm_alpha: float = 0.1,
    solver_options: dict | None = None,
    n_jobs: int | None = None,
) -> dict:
    """Fit SmSVM (hinge loss) for each regularization value, warm-starting along the path.

    Give either `Cs` (LinearSVC's form: F = (1 - rho)/2 ||w||^2 + rho ||w||_1 + C sum hinge,
    rho from `penalty`/`l1_ratio` as in LinearSVC) or `lambdas` and `mus` of equal length
    (paper 000's form (2): lambda/2 ||w||^2 + mu ||w||_1 + 1/N sum hinge, one fit per pair;
    pass a flattened grid for a grid). The bias is never l1-penalized; with
    regularize_intercept=True it carries the same l2 weight as w.

    Returns a dict with `coefs` (n_values, n_features), `intercepts` (n_values,), `classes`
    (the two labels; the second is the positive class), `objectives` (in the form of the
    values given: F for Cs, f = F / N for lambdas/mus), `passes`, `iterations` and `results`
    (the solver's result dicts).
    """
    X, y = check_X_y(X, y, accept_sparse="csr", dtype=[np.float64, np.float32])
    check_classification_targets(y)
    classes, y_idx = encode_labels(y)
    if classes.shape[0] != 2:
        raise ValueError(f"smsvm_path needs exactly two classes, got {classes.shape[0]}")
    Real(ge=0.0).check(warm_alpha, "warm_alpha")
    Real(gt=0.0).check(intercept_scaling, "intercept_scaling")
    n = X.shape[0]
    values = _path_values(Cs, lambdas, mus, penalty, l1_ratio, n)
    Xc = as_core_matrix(X)
    yy = np.where(y_idx == 1, 1.0, -1.0)
    options = dict(solver_options or {})
    options["n_threads"] = check_n_jobs(n_jobs)
    n_features = X.shape[1]
    coefs = np.zeros((len(values), n_features))
    intercepts = np.zeros(len(values))
    objectives = np.zeros(len(values))
    results = []
    w0 = None
    for k, (cost, l2w, l1w, scale) in enumerate(values):
        res = _core.fit_smsvm(
            Xc,
            yy,
            np.full(n, cost),
            float(l2w),
            float(l1w),
            bool(fit_intercept),
            float(intercept_scaling),
            bool(regularize_intercept),
            w0,
            float(warm_alpha) if w0 is not None else 0.0,
            options,
            None,
        )
        check_status(res, "smsvm_path", "smsvm", stacklevel=2)
        sol = np.asarray(res["solution"], dtype=np.float64)
        coefs[k] = sol[:n_features]
        intercepts[k] = sol[n_features] * intercept_scaling if fit_intercept else 0.0
        objectives[k] = res["objective"] * scale
        results.append(res)
        if warm_start:
            w0 = np.ascontiguousarray(sol)
    return {
        "coefs": coefs,
        "intercepts": intercepts,
        "classes": classes,
        "objectives": objectives,
        "passes": np.array([r["passes"] for r in results]),
        "iterations": np.array([r["iterations"] for r in results]),
        "results": results,
    }


def _path_values(Cs: Any, lambdas: Any, mus: Any, penalty: str, l1_ratio: float, n: int) -> list:
    """The checked grid of smsvm_path, one (cost per sample, l2 weight, l1 weight, objective
    scale) per value: from Cs (LIBLINEAR's scaling) or from lambdas and mus (paper 000's)."""
    if Cs is not None:
        if lambdas is not None or mus is not None:
            raise ValueError("smsvm_path: give either Cs or lambdas and mus, not both")
        if penalty not in ("l2", "l1", "elasticnet"):
            raise ValueError(f"smsvm_path: unknown penalty {penalty!r}")
        Real(ge=0.0, le=1.0).check(l1_ratio, "l1_ratio")
        l2, l1 = penalty_weights(penalty, l1_ratio)
        Cs_arr = np.asarray(Cs, dtype=np.float64).ravel()
        if Cs_arr.size == 0 or not np.all(np.isfinite(Cs_arr)) or np.any(Cs_arr <= 0):
            raise ValueError("smsvm_path: Cs must be a non-empty sequence of positive numbers")
        # Per value: (cost per sample, l2 weight, l1 weight, objective scale).
        return [(c, l2, l1, 1.0) for c in Cs_arr]
    else:
        if lambdas is None or mus is None:
            raise ValueError("smsvm_path: give Cs, or both lambdas and mus")
        lam = np.asarray(lambdas, dtype=np.float64).ravel()
        mu = np.asarray(mus, dtype=np.float64).ravel()
        if lam.shape != mu.shape or lam.size == 0:
            raise ValueError("smsvm_path: lambdas and mus must be non-empty and of equal length")
        if not (np.all(np.isfinite(lam)) and np.all(np.isfinite(mu))):
            raise ValueError("smsvm_path: lambdas and mus must be finite")
        if np.any(lam < 0) or np.any(mu < 0) or np.any(lam + mu <= 0):
            raise ValueError("smsvm_path: lambdas, mus must be >= 0 with lambda + mu > 0")
        # Unit costs: F = N f, so l2 = N lambda and l1 = N mu.
        return [(1.0, n * a, n * b, 1.0 / n) for a, b in zip(lam, mu)]
