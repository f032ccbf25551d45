"""Saving and loading fitted estimators in svmkit's text model format (see model.hpp).

LinearSVC/LinearSVR/LinearOneClassSVM are written as "kind linear", SVC/SVR/NuSVC/NuSVR/
OneClassSVM as "kind kernel" (the one-class SVMs with "task outlier_detection", their intercept
being -offset_); load_model reads either kind and returns the matching fitted estimator. The nu
estimators keep their formulation and nu (the "nu" line): NuSVC / NuSVR / OneClassSVM come
back with their nu (files without the line, written before it existed, load as SVC / SVR).
LIBSVM's -b 1 models of regression and the one-class SVM (prob_sigma_, prob_density_marks_,
see _libsvm_probability) are kept as "prob_sigma" / "prob_density_marks".
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from . import _core


def save_model(estimator: Any, path: str | os.PathLike) -> None:
    """Write a fitted linear or kernel estimator to `path` in the versioned text format.

    The same file is read by `svmkit predict` and by C++ programs (svmkit::load_model).
    Class labels must be numbers (as in LIBLINEAR); use pickle for other labels.
    """
    from ._kernel import SVC, SVR
    from ._linear import LinearSVC, LinearSVR
    from ._linear_one_class import LinearOneClassSVM
    from ._nu import OneClassSVM

    if isinstance(estimator, (SVC, SVR, OneClassSVM)):
        if callable(getattr(estimator, "kernel", None)):
            raise ValueError(
                "save_model cannot write a model with a callable kernel (the file holds a "
                "kernel name and its parameters); use pickle, or kernel='precomputed'"
            )
        _save_kernel(estimator, path)
        return
    if not isinstance(estimator, (LinearSVC, LinearSVR, LinearOneClassSVM)):
        raise TypeError(
            "save_model supports LinearSVC, LinearSVR, LinearOneClassSVM and the kernel "
            f"estimators, got {type(estimator).__name__}"
        )
    if not hasattr(estimator, "coef_"):
        raise ValueError("save_model needs a fitted estimator; call fit first")
    classes = None
    task = "regression"
    if isinstance(estimator, LinearOneClassSVM):
        _core.save_linear_model(
            os.fspath(path),
            "outlier_detection",
            "linear_one_class",
            "one_class",
            np.ascontiguousarray(np.atleast_2d(estimator.coef_), dtype=np.float64),
            np.array([-float(estimator.offset_)]),
            None,
            1.0,
        )
        return
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

    Returns a fitted LinearSVC, LinearSVR or LinearOneClassSVM, or a kernel SVC, SVR or
    OneClassSVM, ready for predict and decision_function.
    """
    from ._linear import LinearSVC, LinearSVR
    from ._linear_one_class import LinearOneClassSVM

    kind = _core.load_any_model(os.fspath(path))
    if kind["kind"] == "kernel":
        return _load_kernel(kind)
    d = _core.load_linear_model(os.fspath(path))
    coef = np.asarray(d["coef"])
    intercept = np.asarray(d["intercept"])
    if d["task"] == "outlier_detection":
        est = LinearOneClassSVM()
        est.coef_ = coef
        est.offset_ = -float(intercept[0])
        est.intercept_ = intercept
        est.n_features_in_ = coef.shape[1]
        return est
    if d["task"] == "classification":
        est = LinearSVC(loss=d["loss"] if d["loss"] in LinearSVC._LOSSES else "squared_hinge")
        est.classes_ = _labels(d["classes"])
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


def _labels(values: Any) -> np.ndarray:
    """Stored labels as int64 when all are integral and fit in int64, else as float64.

    (A label such as 1e300 is integral but does not fit: casting it gave -2**63.)
    """
    classes = np.asarray(values, dtype=np.float64)
    if np.all(classes == np.round(classes)) and np.all(np.abs(classes) < 2.0**63):
        return classes.astype(np.int64)
    return classes


def _numeric_classes(classes: np.ndarray) -> np.ndarray:
    try:
        numeric = np.asarray(classes, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            "the text model format stores numeric class labels only; "
            f"got {classes.dtype} labels (use pickle instead)"
        ) from exc
    if not np.array_equal(numeric, classes):
        raise ValueError("class labels cannot be stored exactly as numbers; use pickle")
    return numeric


def _save_kernel(estimator: Any, path: str | os.PathLike) -> None:
    from ._kernel import SVC
    from ._nu import OneClassSVM, _NuSolve

    if not hasattr(estimator, "_model"):
        raise ValueError("save_model needs a fitted estimator; call fit first")
    model = dict(estimator._model)
    if isinstance(estimator, OneClassSVM):
        model["task"] = "outlier_detection"
    if isinstance(estimator, SVC):
        model["classes"] = _numeric_classes(estimator.classes_)
        if estimator.probability:
            model["prob_a"] = np.asarray(estimator.probA_, dtype=np.float64)
            model["prob_b"] = np.asarray(estimator.probB_, dtype=np.float64)
    model["nu"] = float(estimator.nu) if isinstance(estimator, _NuSolve) else None
    sigma = getattr(estimator, "prob_sigma_", None)
    model["prob_sigma"] = None if sigma is None else float(sigma)
    model["prob_density_marks"] = getattr(estimator, "prob_density_marks_", None)
    _core.save_kernel_model(os.fspath(path), model)


def _load_kernel(d: dict) -> Any:
    from ._kernel import SVC, SVR
    from ._nu import NuSVC, NuSVR, OneClassSVM

    params = dict(
        kernel=d["kernel"],
        gamma=float(d["gamma"]),
        coef0=float(d["coef0"]),
        degree=int(d["degree"]),
    )
    if d["kernel"] in ("gaussian",):
        params["kernel"] = "rbf"
    if params["kernel"] == "polynomial":
        params["kernel"] = "poly"
    nu = d.get("nu")
    if d["task"] == "classification":
        loss = d["loss"] if d["loss"] in ("hinge", "squared_hinge") else "hinge"
        est = NuSVC(nu=nu, **params) if nu is not None else SVC(loss=loss, **params)
        est.classes_ = _labels(d["classes"])
        if d.get("prob_a") is not None:
            est.probability = True
            est.probA_ = np.asarray(d["prob_a"])
            est.probB_ = np.asarray(d["prob_b"])
        else:
            est.probA_ = est.probB_ = np.empty(0)
    elif d["task"] == "outlier_detection":
        est = OneClassSVM(**params) if nu is None else OneClassSVM(nu=nu, **params)
        if d.get("prob_density_marks") is not None:
            est.prob_density_marks_ = np.asarray(d["prob_density_marks"])
    else:
        est = NuSVR(nu=nu, **params) if nu is not None else SVR(**params)
        if d.get("prob_sigma") is not None:
            est.prob_sigma_ = float(d["prob_sigma"])
    est._gamma_ = float(d["gamma"])
    est.n_features_in_ = int(d["n_features"])
    est.n_support_ = np.asarray(d["n_support"], dtype=np.int32)
    est.support_ = np.asarray(d["support"], dtype=np.int32)
    est.dual_coef_ = np.asarray(d["dual_coef"])
    est.intercept_ = np.asarray(d["intercept"])
    sv = d["sv"]
    if sv is None:
        est.support_vectors_ = np.empty((0, 0))
    elif isinstance(sv, tuple):
        import scipy.sparse as sp

        est.support_vectors_ = sp.csr_matrix(
            (sv[0], sv[1], sv[2]), shape=(est.dual_coef_.shape[1], est.n_features_in_)
        )
        est.dual_coef_ = sp.csr_matrix(est.dual_coef_)  # as fitted on sparse data
    else:
        est.support_vectors_ = np.asarray(sv)
    n_train = est.n_features_in_ if d["kernel"] == "precomputed" else -1
    est.shape_fit_ = (n_train, est.n_features_in_)
    est.fit_status_ = 0
    model = dict(d)
    for key in ("kind", "prob_sigma", "prob_density_marks"):  # held by the estimator
        model.pop(key, None)
    if d["task"] == "outlier_detection":  # predicted through the C++ regression path
        model["task"] = "regression"
        est.offset_ = -est.intercept_
    if d["task"] == "classification":
        model["classes"] = np.arange(len(est.classes_), dtype=np.float64)
    est._model = model
    return est
