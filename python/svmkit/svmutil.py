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
1 polynomial, 2 rbf (default), 3 sigmoid, 4 precomputed: each instance is "0:serial_number
1:K(x, x_1) ... l:K(x, x_l)" as in LIBSVM, serial numbers in 1..l), -d degree (3), -g
gamma (1/num_features), -r coef0 (0), -c cost (1), -n nu (0.5), -p epsilon (0.1), -m cache
size in MB (100), -e tolerance (0.001), -h shrinking (1), -b probability estimates (0),
-wi weight, -v n (cross validation), -q. svm_predict options: -b 1 (probabilities), -q.
Models trained with -b 1 are written with LIBSVM's probability lines and read back with them:
c_svc / nu_svc Platt's probA / probB; epsilon_svr / nu_svr the Laplace scale sigma of 5-fold
cross-validated residuals as probA (svm_predict -b 1 reports it and returns the predicted
values); one_class the 10 prob_density_marks of the training decision values (svm_predict
-b 1 returns [P(inlier), P(outlier)]). See svmkit._libsvm_probability. The folds are drawn
with numpy's generator, not the C library's rand() as LIBSVM's, so sigma agrees with LIBSVM's
up to cross-validation noise.
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._foreign_models import (
    LibsvmModelData,
    _libsvm_class,
    estimator_from_libsvm,
    libsvm_from_estimator,
    pair_index,
    read_libsvm_model,
    write_libsvm_model,
)
from ._liblinear_common import (
    evaluations,
    first_occurrence,
    folds,
    parse_predict_options,
    report_cross_validation,
    report_predictions,
    svm_read_problem,
    to_csr,
)
from ._validation import encode_labels

__all__ = [
    "evaluations",
    "svm_load_model",
    "svm_predict",
    "svm_read_problem",
    "svm_save_model",
    "svm_train",
]

_TYPES = {0: "c_svc", 1: "nu_svc", 2: "one_class", 3: "epsilon_svr", 4: "nu_svr"}
_KERNELS = {0: "linear", 1: "poly", 2: "rbf", 3: "sigmoid", 4: "precomputed"}


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
                f"svmkit.svmutil: kernel type -t {self.kernel_type} is not supported (0-4)"
            )
        if self.nr_fold == 1 or self.nr_fold < 0:
            raise ValueError("svmkit.svmutil: -v needs n >= 2 folds")
        for opt, value in (("-h", self.shrinking), ("-b", self.probability)):
            if value not in (0, 1):  # LIBSVM's svm_check_parameter
                raise ValueError(f"svmkit.svmutil: {opt} must be 0 or 1, got {value}")


class svm_model:  # noqa: N801
    """A trained LIBSVM-style model: the model file's content and the svmkit estimator."""

    def __init__(self, data: LibsvmModelData, estimator: Any = None, columns: Any = None) -> None:
        self.data = data
        self._estimator = estimator
        # Precomputed kernel: the instance index each Gram column of the estimator reads
        # (training serial numbers; 1, 2, ... for a loaded model).
        self._columns = columns

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
        return self.data.is_probability_model()

    def get_svr_probability(self) -> float:
        """The Laplace scale sigma of a regression -b 1 model; 0 otherwise, with a warning
        (LIBSVM returns 0 and prints the same message to stderr)."""
        if self.data.svm_type in ("epsilon_svr", "nu_svr") and self.data.probA is not None:
            return float(self.data.probA[0])
        warnings.warn(
            "Model doesn't contain information for SVR probability inference", stacklevel=2
        )
        return 0.0


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


def _kernel_rows(x: Any) -> list[dict]:
    """Precomputed-kernel instances as {index: value} dicts, index 0 the serial number: list
    or array rows and matrix columns are indices from 0, as the official package reads them."""
    if sp.issparse(x):
        x = sp.csr_matrix(x)
        return [
            dict(
                zip(
                    x.indices[x.indptr[i] : x.indptr[i + 1]].tolist(),
                    x.data[x.indptr[i] : x.indptr[i + 1]].tolist(),
                )
            )
            for i in range(x.shape[0])
        ]
    return [
        {int(k): float(v) for k, v in xi.items()}
        if isinstance(xi, dict)
        else dict(enumerate(np.asarray(xi, dtype=np.float64).tolist()))
        for xi in x
    ]


def _gram(rows: list[dict], columns: np.ndarray) -> np.ndarray:
    """K[i, j] = rows[i][columns[j]] (absent entries are 0)."""
    K = np.zeros((len(rows), columns.shape[0]))
    for i, r in enumerate(rows):
        K[i] = [r.get(int(c), 0.0) for c in columns]
    return K


def _serials(rows: list[dict]) -> np.ndarray:
    """The instances' serial numbers (index 0): integers >= 1 that name a kernel column
    present in the rows (1..l for a full training set; a CV fold keeps the full set's)."""
    s = np.array([r.get(0, 0.0) for r in rows])
    widest = max((max(r) for r in rows if r), default=0)
    if np.any(s != np.round(s)) or np.any(s < 1) or np.any(s > widest):
        raise ValueError(
            "svmkit.svmutil: -t 4 needs each instance's 0:serial_number, an integer >= 1 "
            "naming one of its kernel columns"
        )
    return s.astype(np.int64)


def _fit_precomputed(param: svm_parameter, y: np.ndarray, x: Any) -> svm_model:
    rows = _kernel_rows(x)
    serials = _serials(rows)
    est = _estimator(param, len(rows))
    K = _gram(rows, serials)
    if _TYPES[param.svm_type] in ("c_svc", "nu_svc"):
        return _fit_classifier(param, est, K, y, serials)
    _fit_other(param, est, K, y)
    return svm_model(libsvm_from_estimator(est, serials=serials), est, columns=serials)


def _fit_classifier(
    param: svm_parameter, est: Any, X: Any, y: np.ndarray, serials: Any = None
) -> svm_model:
    """-s 0/1 as LIBSVM: the labels in their order of first occurrence (first_occurrence), and
    each one-vs-one problem (p, q), p before q in that order, solved with p as its +1 class.
    The estimator sorts its classes and takes the first of a pair as +1, so it is fitted on each
    label's position in that order: on an indefinite kernel (sigmoid), where the problem has
    several local optima and the path picks one, that is the official package's path (its -s 0
    -t 3 model on 300 standardized breast_cancer rows: the dual objective -53.283 against
    -52.386 with the labels sorted)."""
    order = first_occurrence(y)
    position = {label: k for k, label in enumerate(order)}
    labels, index = encode_labels(y)  # one lookup per label, not per sample
    codes = np.array([position[v] for v in labels.tolist()], dtype=np.float64)[index]
    if param.weight:
        est.set_params(
            class_weight={position[c]: w for c, w in param.weight.items() if c in position}
        )
    est.fit(X, codes)
    data = libsvm_from_estimator(est, serials=serials)
    data.labels = list(order)
    # The estimator's class k is position k: named by its label, the model's pairs (p, q) map
    # onto the estimator's in the same order (_predict).
    est.classes_ = np.asarray(order)
    return svm_model(data, est, columns=serials)


def _fit_other(param: svm_parameter, est: Any, X: Any, y: np.ndarray) -> None:
    """The one-class SVM and the regressions, with their -b 1 models."""
    t = _TYPES[param.svm_type]
    est.fit(X) if t == "one_class" else est.fit(X, y)
    _fit_probability(param, est, X, y, t)


def _single_label_model(param: svm_parameter, y: np.ndarray, n_features: int) -> svm_model:
    """Classification data of one label, which LIBSVM trains on (a cross-validation fold or a
    subset can hold one): its model of nr_class 1, no support vectors and an empty rho,
    predicting that label."""
    from ._foreign_models import _SVMKIT_KERNELS

    kernel = _SVMKIT_KERNELS[_KERNELS[param.kernel_type]]
    gamma = param.gamma if param.gamma is not None else 1.0 / max(1, n_features)
    data = LibsvmModelData(
        _TYPES[param.svm_type],
        kernel,
        sp.csr_matrix((0, n_features)),
        np.zeros((0, 0)),
        np.empty(0),
        degree=int(param.degree),
        gamma=float(gamma),
        coef0=float(param.coef0),
        labels=[float(y[0])],
        nr_sv=[0],
    )
    return svm_model(data)


def _fit(param: svm_parameter, y: np.ndarray, X: Any) -> svm_model:
    if _TYPES[param.svm_type] in ("c_svc", "nu_svc") and y.size and np.all(y == y[0]):
        if param.probability:
            raise ValueError("svmkit.svmutil: -b 1 needs training data of two labels at least")
        n = len(_kernel_rows(X)) if param.kernel_type == 4 else to_csr(X).shape[1]
        return _single_label_model(param, y, n)
    if param.kernel_type == 4:
        return _fit_precomputed(param, y, X)
    X = to_csr(X)
    est = _estimator(param, X.shape[1])
    if _TYPES[param.svm_type] in ("c_svc", "nu_svc"):
        return _fit_classifier(param, est, X, y)
    _fit_other(param, est, X, y)
    return svm_model(libsvm_from_estimator(est), est)


def _fit_probability(param: svm_parameter, est: Any, X: Any, y: np.ndarray, t: str) -> None:
    """-b 1 for regression (Laplace scale) and the one-class SVM (density marks), as LIBSVM
    (classification's Platt sigmoids are fitted by the estimator itself)."""
    if not param.probability:
        return
    from ._libsvm_probability import TOO_FEW_WARNING, density_marks, svr_sigma

    if t == "one_class":
        marks = density_marks(est.decision_function(X))
        if marks is None:  # LIBSVM writes this to stderr, -q or not
            print(TOO_FEW_WARNING, file=sys.stderr)
            return
        est.prob_density_marks_ = marks
        return
    sigma = svr_sigma(est, X, y)
    if not param.quiet:
        print(
            "Prob. model for test data: target value = predicted value + z,\n"
            f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma= {sigma:g}"
        )
    est.prob_sigma_ = sigma


def svm_train(arg1: Any, arg2: Any = None, arg3: Any = None) -> Any:
    """svm_train(y, x [, options]) -> model, as LIBSVM's (options: a string or an
    svm_parameter); with -v n the cross-validation accuracy (classification, in percent) or
    mean squared error (regression)."""
    y = np.asarray(arg1, dtype=np.float64)
    param = arg3 if isinstance(arg3, svm_parameter) else svm_parameter(arg3)
    X = arg2 if param.kernel_type == 4 else to_csr(arg2)
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    if n != y.shape[0]:
        raise ValueError(f"svm_train: {y.shape[0]} labels for {n} instances")
    if param.nr_fold:
        pred = np.empty_like(y)
        for fold in folds(y.shape[0], param.nr_fold):
            mask = np.ones(y.shape[0], dtype=bool)
            mask[fold] = False
            m = _fit(param, y[mask], _take(X, np.flatnonzero(mask)))
            pred[fold] = _predict(m, _take(X, fold), False)[0]
        return report_cross_validation(y, pred, param.svm_type in (3, 4))
    return _fit(param, y, X)


def _take(x: Any, idx: np.ndarray) -> Any:
    """Rows idx of instances in any of the accepted formats."""
    if sp.issparse(x) or isinstance(x, np.ndarray):
        return x[idx]
    return [x[i] for i in idx]


def _predict_input(m: svm_model, x: Any) -> Any:
    """The estimator's input: a Gram matrix for a precomputed kernel (its column j reads the
    instance's index m._columns[j]), else the features cut or padded to the model's width.
    (Cross-validation folds of a precomputed kernel keep the serial numbers of all of l.)"""
    est = m.estimator
    d = est.n_features_in_
    if m.data.kernel_type == "precomputed":
        cols = m._columns if m._columns is not None else np.arange(1, d + 1)
        return _gram(_kernel_rows(x), np.asarray(cols))
    X = to_csr(x)
    X = X[:, :d] if X.shape[1] >= d else sp.hstack([X, sp.csr_matrix((X.shape[0], d - X.shape[1]))])
    X = sp.csr_matrix(X, dtype=np.float64)
    return X if sp.issparse(est.support_vectors_) else X.toarray()


def _predict(m: svm_model, x: Any, probability: bool) -> tuple[np.ndarray, np.ndarray]:
    """(labels, values) as LIBSVM's svm_predict computes them."""
    if m.data.labels is not None and len(m.data.labels) == 1:  # nr_class 1: that label, no pairs
        n = len(x) if isinstance(x, (list, tuple)) else int(x.shape[0])
        return np.full(n, float(m.data.labels[0])), np.ones((n, 1))  # the official's [1]
    est = m.estimator
    X = _predict_input(m, x)
    t = m.data.svm_type
    if t in ("epsilon_svr", "nu_svr"):
        v = np.asarray(est.predict(X), dtype=np.float64)
        return v, (np.empty((v.shape[0], 0)) if probability else v[:, None])
    if t == "one_class":
        v = np.asarray(est.decision_function(X), dtype=np.float64).reshape(-1)
        if probability:  # [P(inlier), P(outlier)]; the label stays the sign of v, as LIBSVM's
            from ._libsvm_probability import one_class_probability

            p = one_class_probability(m.data.prob_density_marks, v)
            return np.where(v > 0, 1.0, -1.0), np.column_stack([p, 1.0 - p])
        return np.where(v > 0, 1.0, -1.0), v[:, None]
    labels = list(m.data.labels)
    classes = list(np.asarray(est.classes_).tolist())
    k = len(classes)
    raw = np.asarray(est._raw_decision(X), dtype=np.float64)
    if k == 2:
        raw = -raw  # the estimator's binary sign is scikit-learn's (classes_[1] positive)
    pos = {c: i for i, c in enumerate(classes)}
    sorted_pair = pair_index(k)  # the estimator's pairs, classes sorted
    vals = np.empty((X.shape[0], k * (k - 1) // 2))
    votes = np.zeros((X.shape[0], k), dtype=np.int64)
    for (p, q), t in pair_index(k).items():  # the file's pairs, labels in its order
        a, b = pos[labels[p]], pos[labels[q]]
        v = raw[:, sorted_pair[(a, b)]] if a < b else -raw[:, sorted_pair[(b, a)]]
        vals[:, t] = v
        votes[:, p] += v > 0
        votes[:, q] += v <= 0
    if probability:
        proba = _coupled_probabilities(vals, m.data.probA, m.data.probB, k)
        return np.asarray(labels, dtype=np.float64)[np.argmax(proba, axis=1)], proba
    return np.asarray(labels, dtype=np.float64)[np.argmax(votes, axis=1)], vals


_MIN_PROB = 1e-7  # LIBSVM keeps pairwise probabilities in [1e-7, 1 - 1e-7]


def _coupled_probabilities(vals: np.ndarray, A: np.ndarray, B: np.ndarray, k: int) -> np.ndarray:
    """LIBSVM's -b 1 probabilities from the one-vs-one values vals (n, k(k-1)/2), pairs (p, q)
    in label order: Platt's r_pq = 1 / (1 + exp(A f + B)) per pair; two classes take (r_01,
    r_10); more are coupled by Wu, Lin and Weng's (2004) second method, the fixed-point
    iteration on min_p p^T Q p (Q_tt = sum_j r_jt^2, Q_tj = -r_jt r_tj, sum p = 1), stopped as
    LIBSVM stops it (max_t |(Qp)_t - p^T Q p| < 0.005 / k, at most max(100, k) sweeps), so
    that the numbers equal svm-predict's rather than the exact minimizer's."""
    f = vals * A[None, :] + B[None, :]
    with np.errstate(over="ignore"):
        r = np.where(f >= 0, np.exp(-f) / (1.0 + np.exp(-f)), 1.0 / (1.0 + np.exp(f)))
    r = np.clip(r, _MIN_PROB, 1.0 - _MIN_PROB)
    n = vals.shape[0]
    if k == 2:
        return np.column_stack([r[:, 0], 1.0 - r[:, 0]])
    R = np.zeros((n, k, k))  # R[:, p, q]: probability that p beats q
    for (p, q), t in pair_index(k).items():
        R[:, p, q], R[:, q, p] = r[:, t], 1.0 - r[:, t]
    Q = -R.transpose(0, 2, 1) * R  # Q_tj = -r_jt r_tj
    diag = (R**2).sum(axis=1)  # Q_tt = sum_j r_jt^2
    Q[:, np.arange(k), np.arange(k)] = diag
    P = np.full((n, k), 1.0 / k)
    eps = 0.005 / k
    active = np.ones(n, dtype=bool)
    for _ in range(max(100, k)):
        Qp = np.einsum("ntj,nj->nt", Q, P)
        pQp = (P * Qp).sum(axis=1)
        active &= np.abs(Qp - pQp[:, None]).max(axis=1) >= eps
        if not active.any():
            break
        for t in range(k):  # one sweep: update p_t, then renormalize (samples still active)
            a = active
            diff = (pQp[a] - Qp[a, t]) / Q[a, t, t]
            P[a, t] += diff
            pQp[a] = (pQp[a] + diff * (diff * Q[a, t, t] + 2.0 * Qp[a, t])) / (1 + diff) ** 2
            Qp[a] = (Qp[a] + diff[:, None] * Q[a, t, :]) / (1 + diff)[:, None]
            P[a] /= (1 + diff)[:, None]
    return P


def svm_predict(y: Any, x: Any, m: svm_model, options: str = "") -> tuple[list, tuple, list]:
    """svm_predict(y, x, model [, options]) -> (p_labels, (ACC, MSE, SCC), p_vals), as
    LIBSVM's. Options: -b 1 (probability estimates), -q (quiet)."""
    probability, quiet = parse_predict_options(options, "svmutil.svm_predict")
    if probability and not m.is_probability_model():
        raise ValueError("Model does not support probabiliy estimates")
    if not quiet and probability and m.data.svm_type in ("epsilon_svr", "nu_svr"):
        print(
            "Prob. model for test data: target value = predicted value + z,\n"
            f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={m.get_svr_probability():g}"
        )
    elif not quiet and not probability and m.is_probability_model():
        print("Model supports probability estimates, but disabled in predicton.")
    pred, vals = _predict(m, x, probability)
    triple = report_predictions(y, pred, m.data.svm_type in ("epsilon_svr", "nu_svr"), quiet)
    return pred.tolist(), triple, vals.tolist()


def svm_save_model(model_file_name: Any, m: svm_model) -> None:
    """Write the model as a LIBSVM model file."""
    write_libsvm_model(model_file_name, m.data)


def svm_load_model(model_file_name: Any) -> svm_model:
    """Read a LIBSVM model file (from LIBSVM or from svm_save_model)."""
    return svm_model(read_libsvm_model(model_file_name))
