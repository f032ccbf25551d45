"""Saving and loading fitted estimators in svmkit's text model format (see model.hpp)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from . import _core


def save_model(estimator: Any, path: str | os.PathLike) -> None:
    """Write a fitted LinearSVC or LinearSVR to `path` in the versioned text format.

    The same file is read by `svmkit predict` and by C++ programs (svmkit::load_model).
    Class labels must be numbers (as in LIBLINEAR); use pickle for other labels.
    """
    from ._linear import LinearSVC, LinearSVR

    if not isinstance(estimator, (LinearSVC, LinearSVR)):
        raise TypeError(
            f"save_model supports LinearSVC and LinearSVR, got {type(estimator).__name__}"
        )
    if not hasattr(estimator, "coef_"):
        raise ValueError("save_model needs a fitted estimator; call fit first")
    classes = None
    task = "regression"
    if isinstance(estimator, LinearSVC):
        task = "classification"
        try:
            classes = np.asarray(estimator.classes_, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ValueError(
                "the text model format stores numeric class labels only; "
                f"got {estimator.classes_.dtype} labels (use pickle instead)"
            ) from exc
        if not np.array_equal(classes, estimator.classes_):
            raise ValueError("class labels cannot be stored exactly as numbers; use pickle")
    _core.save_linear_model(
        os.fspath(path),
        task,
        getattr(estimator, "solver_", estimator.solver),
        estimator.loss,
        np.ascontiguousarray(np.atleast_2d(estimator.coef_), dtype=np.float64),
        np.ascontiguousarray(np.atleast_1d(estimator.intercept_), dtype=np.float64),
        classes,
        float(estimator.intercept_scaling),
    )


def load_model(path: str | os.PathLike) -> Any:
    """Read a model file written by save_model, `svmkit train` or svmkit::save_model.

    Returns a fitted LinearSVC or LinearSVR ready for predict and decision_function.
    """
    from ._linear import LinearSVC, LinearSVR

    d = _core.load_linear_model(os.fspath(path))
    coef = np.asarray(d["coef"])
    intercept = np.asarray(d["intercept"])
    if d["task"] == "classification":
        est = LinearSVC(loss=d["loss"] if d["loss"] in LinearSVC._LOSSES else "squared_hinge")
        classes = np.asarray(d["classes"])
        if np.all(classes == np.round(classes)):
            classes = classes.astype(np.int64)
        est.classes_ = classes
        est.coef_ = coef
        est.intercept_ = intercept
    else:
        loss = d["loss"] if d["loss"] in LinearSVR._LOSSES else "squared_epsilon_insensitive"
        est = LinearSVR(loss=loss)
        est.coef_ = coef[0]
        est.intercept_ = intercept
    est.intercept_scaling = float(d["intercept_scaling"])
    est.solver_ = d["solver"]
    est.n_features_in_ = coef.shape[1]
    return est
