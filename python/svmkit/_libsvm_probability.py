"""LIBSVM's -b 1 models beyond Platt's sigmoids, as LIBSVM 3.3x computes them.

Regression (epsilon-SVR, nu-SVR): the target is modelled as the prediction plus Laplace noise
e^(-|z|/sigma) / (2 sigma) (Lin and Weng 2004, "Simple probabilistic predictions for support
vector regression"). sigma is the maximum-likelihood scale mean|z| of 5-fold cross-validated
residuals z, estimated again without the residuals beyond 5 standard deviations of that first
fit (a Laplace law of scale s has standard deviation sqrt(2) s). LIBSVM's folds: a random
permutation of the samples cut into 5 contiguous runs, fold f = perm[f l / 5 : (f+1) l / 5].

One-class SVM: 10 "density marks" cut the decision values of the training samples into bins;
a new sample's probability of being an inlier is i / 10 for the i-th bin (0.001 below the
lowest mark, 0.999 above the highest). The marks are midpoints of 11 edges: 0, the negative
decision values at the quantiles 0, 1/5, ..., 4/5 of the negatives, and the positive ones at the
quantiles 1/5, ..., 5/5 of the non-negatives. With fewer than 5 negative or 5 non-negative
decision values LIBSVM warns and writes no marks (the model is then no probability model).
"""

from __future__ import annotations

from typing import Any

import numpy as np

N_MARKS = 10  # LIBSVM's number of one-class density marks (kOneClassMarks in model.hpp)
N_FOLDS = 5  # LIBSVM's cross-validation folds for the Laplace scale
TOO_FEW_WARNING = (
    "WARNING: number of positive or negative decision values <5; too few to do a "
    "probability estimation."
)


def laplace_sigma(residuals: Any) -> float:
    """LIBSVM's Laplace scale of the residuals z: mean|z| over the z with |z| <= 5 sqrt(2)
    mean|z| (the outliers of a first Laplace fit left out)."""
    z = np.abs(np.asarray(residuals, dtype=np.float64))
    first = z.mean()
    kept = z[z <= 5.0 * np.sqrt(2.0) * first]
    return float(kept.mean())


def cv_residuals(estimator: Any, X: Any, y: Any, permutation: Any) -> np.ndarray:
    """y - f(x) where f is fitted without the fold holding x; folds are contiguous runs of
    `permutation` (LIBSVM's layout). A precomputed-kernel X is the square Gram matrix."""
    from sklearn.base import clone

    y = np.asarray(y, dtype=np.float64)
    n = y.shape[0]
    perm = np.asarray(permutation, dtype=np.int64)
    if sorted(perm.tolist()) != list(range(n)):
        raise ValueError("permutation must hold each sample index once")
    precomputed = getattr(estimator, "kernel", None) == "precomputed"
    pred = np.empty(n)
    for f in range(N_FOLDS):
        held = perm[f * n // N_FOLDS : (f + 1) * n // N_FOLDS]
        if held.shape[0] == 0:
            continue
        train = np.setdiff1d(np.arange(n), held)
        model = clone(estimator)
        if precomputed:
            model.fit(X[np.ix_(train, train)], y[train])
            pred[held] = model.predict(X[np.ix_(held, train)])
        else:
            model.fit(X[train], y[train])
            pred[held] = model.predict(X[held])
    return y - pred


def svr_sigma(estimator: Any, X: Any, y: Any, permutation: Any = None, seed: int = 0) -> float:
    """The Laplace scale of an (epsilon or nu) SVR's 5-fold cross-validated residuals; the
    folds come from `permutation` (default: a random one drawn with `seed`)."""
    n = np.asarray(y).shape[0]
    if permutation is None:
        permutation = np.random.RandomState(seed).permutation(n)
    return laplace_sigma(cv_residuals(estimator, X, y, permutation))


def density_marks(decision_values: Any) -> np.ndarray | None:
    """LIBSVM's one-class density marks of the training decision values (None when fewer than
    N_MARKS / 2 are negative or non-negative)."""
    d = np.sort(np.asarray(decision_values, dtype=np.float64).ravel())
    half = N_MARKS // 2
    n_neg = int(np.count_nonzero(d < 0))
    n_pos = d.shape[0] - n_neg
    if n_neg < half or n_pos < half:
        return None
    i = np.arange(half)
    edges = np.concatenate(
        [
            d[i * n_neg // half],
            [0.0],
            d[n_neg - 1 + (i + 1) * n_pos // half],
        ]
    )
    return 0.5 * (edges[:-1] + edges[1:])


def one_class_probability(marks: Any, decision_values: Any) -> np.ndarray:
    """The inlier probability of each decision value: i / N_MARKS between marks i-1 and i,
    0.001 below the first mark and 0.999 from the last one on."""
    marks = np.asarray(marks, dtype=np.float64)
    dec = np.asarray(decision_values, dtype=np.float64)
    below = np.searchsorted(marks, dec, side="right")  # marks <= dec
    p = below / float(N_MARKS)
    p[below == 0] = 0.001
    p[below == N_MARKS] = 0.999
    return p
