"""LIBSVM's Python interface on svmkit: code written for libsvm-official runs after changing
`from libsvm.svmutil import *` to `from svmkit.svmutil import *`.

    y, x = svm_read_problem("heart_scale")
    m = svm_train(y[:200], x[:200], "-c 4")
    p_label, p_acc, p_val = svm_predict(y[200:], x[200:], m)
    svm_save_model("heart_scale.model", m)
    m = svm_load_model("heart_scale.model")

Options (LIBSVM's `svm-train`, with its defaults): -s svm_type (0 C-SVC -> svmkit.SVC, 1 nu-SVC
-> svmkit.NuSVC, 2 one-class -> svmkit.OneClassSVM, 3 epsilon-SVR -> svmkit.SVR, 4 nu-SVR ->
svmkit.NuSVR; the nu types need the svmkit estimator, else ValueError), -t kernel (0 linear,
1 polynomial, 2 rbf (default), 3 sigmoid; 4 precomputed is not supported), -d degree (3), -g
gamma (1/num_features), -r coef0 (0), -c cost (1), -n nu (0.5), -p epsilon (0.1), -m cache
size in MB (100), -e tolerance (0.001), -h shrinking (1), -b probability estimates (0),
-wi weight, -v n (cross validation), -q. svm_predict options: -b 1 (probabilities), -q.
Model files with probability estimates are written without probA / probB (a loaded model has no
probabilities).
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._foreign_models import (
    LibsvmModelData,
    _libsvm_class,
    estimator_from_libsvm,
    libsvm_from_estimator,
    read_libsvm_model,
    write_libsvm_model,
)
from ._liblinear_common import evaluations, first_occurrence, svm_read_problem, to_csr

__all__ = [
    "evaluations",
    "svm_load_model",
    "svm_predict",
    "svm_read_problem",
    "svm_save_model",
    "svm_train",
]

_TYPES = {0: "c_svc", 1: "nu_svc", 2: "one_class", 3: "epsilon_svr", 4: "nu_svr"}
_KERNELS = {0: "linear", 1: "poly", 2: "rbf", 3: "sigmoid"}


class svm_parameter:  # noqa: N801 - the official package's name
    """Parsed `svm-train` options (LIBSVM's names)."""

    def __init__(self, options: str | list[str] | None = None) -> None:
        self.svm_type, self.kernel_type, self.degree = 0, 2, 3
        self.gamma: float | None = None
        self.coef0, self.C, self.nu, self.p = 0.0, 1.0, 0.5, 0.1
        self.cache_size, self.eps, self.shrinking, self.probability = 100.0, 0.001, 1, 0
        self.weight: dict[int, float] = {}
        self.nr_fold = 0
        self.quiet = False
        argv = options.split() if isinstance(options, str) else list(options or [])
        setters = {
            "-s": ("svm_type", int),
            "-t": ("kernel_type", int),
            "-d": ("degree", int),
            "-g": ("gamma", float),
            "-r": ("coef0", float),
            "-c": ("C", float),
            "-n": ("nu", float),
            "-p": ("p", float),
            "-m": ("cache_size", float),
            "-e": ("eps", float),
            "-h": ("shrinking", int),
            "-b": ("probability", int),
            "-v": ("nr_fold", int),
        }
        i = 0
        while i < len(argv):
            opt = argv[i]
            if opt == "-q":
                self.quiet = True
                i += 1
                continue
            if i + 1 >= len(argv):
                raise ValueError(f"svmkit.svmutil: option {opt} needs a value")
            try:
                if opt in setters:
                    name, kind = setters[opt]
                    setattr(self, name, kind(argv[i + 1]))
                elif opt.startswith("-w") and len(opt) > 2:
                    self.weight[int(opt[2:])] = float(argv[i + 1])
                else:
                    raise ValueError(f"svmkit.svmutil: unknown option {opt}")
            except ValueError as exc:
                if "svmkit" in str(exc):
                    raise
                raise ValueError(f"svmkit.svmutil: bad value {argv[i + 1]!r} for {opt}") from None
            i += 2
        if self.svm_type not in _TYPES:
            raise ValueError(f"svmkit.svmutil: unknown svm type -s {self.svm_type}")
        if self.kernel_type not in _KERNELS:
            raise ValueError(
                f"svmkit.svmutil: kernel type -t {self.kernel_type} is not supported (0-3)"
            )
        if self.nr_fold == 1 or self.nr_fold < 0:
            raise ValueError("svmkit.svmutil: -v needs n >= 2 folds")


class svm_model:  # noqa: N801
    """A trained LIBSVM-style model: the model file's content and the svmkit estimator."""

    def __init__(self, data: LibsvmModelData, estimator: Any = None) -> None:
        self.data = data
        self._estimator = estimator

    @property
    def estimator(self) -> Any:
        if self._estimator is None:
            self._estimator = estimator_from_libsvm(self.data)
        return self._estimator

    def get_svm_type(self) -> int:
        return {v: k for k, v in _TYPES.items()}[self.data.svm_type]

    def get_nr_class(self) -> int:
        return len(self.data.labels) if self.data.labels is not None else 2

    def get_labels(self) -> list:
        return list(self.data.labels) if self.data.labels is not None else []

    def get_nr_sv(self) -> int:
        return int(self.data.SV.shape[0])

    def get_sv_coef(self) -> list[tuple]:
        return [tuple(c) for c in self.data.sv_coef.T]

    def is_probability_model(self) -> bool:
        est = self._estimator
        return bool(est is not None and getattr(est, "probability", False))


def _estimator(param: svm_parameter, n_features: int) -> Any:
    t = _TYPES[param.svm_type]
    cls = _libsvm_class(t)
    gamma = param.gamma if param.gamma is not None else 1.0 / max(1, n_features)
    kw: dict[str, Any] = dict(
        kernel=_KERNELS[param.kernel_type],
        degree=param.degree,
        gamma=gamma,
        coef0=param.coef0,
        tol=param.eps,
        cache_size=param.cache_size,
        shrinking=bool(param.shrinking),
    )
    if t in ("c_svc", "epsilon_svr"):
        kw["C"] = param.C
    if t in ("nu_svc", "nu_svr", "one_class"):
        kw["nu"] = param.nu
    if t == "nu_svr":
        kw["C"] = param.C
    if t == "epsilon_svr":
        kw["epsilon"] = param.p
    if t in ("c_svc", "nu_svc"):
        kw["probability"] = bool(param.probability)
    return cls(**kw)


def _fit(param: svm_parameter, y: np.ndarray, X: sp.csr_matrix) -> svm_model:
    est = _estimator(param, X.shape[1])
    t = _TYPES[param.svm_type]
    if t in ("c_svc", "nu_svc") and param.weight:
        present = set(np.unique(y).tolist())
        est.set_params(class_weight={c: w for c, w in param.weight.items() if c in present})
    if t == "one_class":
        est.fit(X)
    else:
        est.fit(X, y)
    order = first_occurrence(y) if t in ("c_svc", "nu_svc") else None
    return svm_model(libsvm_from_estimator(est, label_order=order), est)


def svm_train(arg1: Any, arg2: Any = None, arg3: Any = None) -> Any:
    """svm_train(y, x [, options]) -> model, as LIBSVM's; with -v n the cross-validation
    accuracy (classification, in percent) or mean squared error (regression)."""
    y = np.asarray(arg1, dtype=np.float64)
    X = to_csr(arg2)
    param = svm_parameter(arg3)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"svm_train: {y.shape[0]} labels for {X.shape[0]} instances")
    if param.nr_fold:
        rng = np.random.default_rng(0)
        perm = rng.permutation(y.shape[0])
        pred = np.empty_like(y)
        for fold in np.array_split(perm, param.nr_fold):
            mask = np.ones(y.shape[0], dtype=bool)
            mask[fold] = False
            m = _fit(param, y[mask], X[mask])
            pred[fold] = _predict(m, X[fold], False)[0]
        acc, mse, _ = evaluations(y, pred)
        regression = param.svm_type in (3, 4)
        if not param.quiet:
            print(
                f"Cross Validation {'Mean squared error' if regression else 'Accuracy'} = "
                f"{mse if regression else acc:g}{'' if regression else '%'}"
            )
        return mse if regression else acc
    return _fit(param, y, X)


def _predict(m: svm_model, X: sp.csr_matrix, probability: bool) -> tuple[np.ndarray, np.ndarray]:
    """(labels, values) as LIBSVM's svm_predict computes them."""
    est = m.estimator
    d = est.n_features_in_
    X = X[:, :d] if X.shape[1] >= d else sp.hstack([X, sp.csr_matrix((X.shape[0], d - X.shape[1]))])
    X = sp.csr_matrix(X, dtype=np.float64)
    if sp.issparse(est.support_vectors_) is False:
        X = X.toarray()
    t = m.data.svm_type
    if t in ("epsilon_svr", "nu_svr"):
        v = np.asarray(est.predict(X), dtype=np.float64)
        return v, v[:, None]
    if t == "one_class":
        v = np.asarray(est.decision_function(X), dtype=np.float64).reshape(-1)
        return np.where(v > 0, 1.0, -1.0), v[:, None]
    labels = list(m.data.labels)
    classes = list(np.asarray(est.classes_).tolist())
    k = len(classes)
    if probability:
        proba = est.predict_proba(X)
        cols = [classes.index(c) for c in labels]
        proba = proba[:, cols]
        return np.asarray(labels, dtype=np.float64)[np.argmax(proba, axis=1)], proba
    raw = np.asarray(est._raw_decision(X), dtype=np.float64)
    if k == 2:
        raw = -raw  # the estimator's binary sign is scikit-learn's (classes_[1] positive)
    pos = {c: i for i, c in enumerate(classes)}
    sorted_pair = {}
    t_ = 0
    for a in range(k):
        for b in range(a + 1, k):
            sorted_pair[(a, b)] = t_
            t_ += 1
    vals = np.empty((X.shape[0], k * (k - 1) // 2))
    votes = np.zeros((X.shape[0], k), dtype=np.int64)
    t_ = 0
    for p in range(k):
        for q in range(p + 1, k):
            a, b = pos[labels[p]], pos[labels[q]]
            v = raw[:, sorted_pair[(a, b)]] if a < b else -raw[:, sorted_pair[(b, a)]]
            vals[:, t_] = v
            votes[:, p] += v > 0
            votes[:, q] += v <= 0
            t_ += 1
    return np.asarray(labels, dtype=np.float64)[np.argmax(votes, axis=1)], vals


def svm_predict(y: Any, x: Any, m: svm_model, options: str = "") -> tuple[list, tuple, list]:
    """svm_predict(y, x, model [, options]) -> (p_labels, (ACC, MSE, SCC), p_vals), as
    LIBSVM's. Options: -b 1 (probability estimates), -q (quiet)."""
    argv = options.split()
    probability, quiet = False, False
    i = 0
    while i < len(argv):
        if argv[i] == "-q":
            quiet = True
            i += 1
        elif argv[i] == "-b" and i + 1 < len(argv):
            probability = int(argv[i + 1]) == 1
            i += 2
        else:
            raise ValueError(f"svmkit.svmutil.svm_predict: unknown option {argv[i]}")
    if probability and not m.is_probability_model():
        raise ValueError("Model does not support probabiliy estimates")
    pred, vals = _predict(m, to_csr(x), probability)
    y = np.asarray(y, dtype=np.float64)
    if y.shape[0] == 0:
        y = np.zeros(pred.shape[0])
    acc, mse, scc = evaluations(y, pred)
    if not quiet:
        if m.data.svm_type in ("epsilon_svr", "nu_svr"):
            print(f"Mean squared error = {mse:g} (regression)")
            print(f"Squared correlation coefficient = {scc:g} (regression)")
        else:
            correct = int(round(acc * y.shape[0] / 100.0))
            print(f"Accuracy = {acc:g}% ({correct}/{y.shape[0]}) (classification)")
        sys.stdout.flush()
    return pred.tolist(), (acc, mse, scc), vals.tolist()


def svm_save_model(model_file_name: Any, m: svm_model) -> None:
    """Write the model as a LIBSVM model file."""
    write_libsvm_model(model_file_name, m.data)


def svm_load_model(model_file_name: Any) -> svm_model:
    """Read a LIBSVM model file (from LIBSVM or from svm_save_model)."""
    return svm_model(read_libsvm_model(model_file_name))
