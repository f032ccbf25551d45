"""LIBLINEAR's Python interface on svmkit: code written for liblinear-official runs after
changing `from liblinear.liblinearutil import *` to `from svmkit.liblinearutil import *`.

    y, x = svm_read_problem("heart_scale")
    m = train(y[:200], x[:200], "-s 2 -c 4")
    p_label, p_acc, p_val = predict(y[200:], x[200:], m)
    save_model("heart_scale.model", m)
    m = load_model("heart_scale.model")

Options (LIBLINEAR's `train`, with its defaults): -s type (0-7, 11-13, 21; default 1),
-c cost (1), -p epsilon of SVR (0.1), -n nu of the one-class SVM (0.5), -e tolerance (the
type's LIBLINEAR default), -B bias (-1: none), -R (bias not regularized: -s 0, 2, 5, 11 only),
-wi weight (class weights), -v n (n-fold cross validation: returns the accuracy or the mean
squared error), -q (quiet). Each -s runs the svmkit solver of the same formulation:

  -s 0, 7  L2-regularized logistic regression    LinearSVC(loss="logistic"), tron
  -s 1     L2 squared hinge, dual                 LinearSVC(loss="squared_hinge"), dual_cd
  -s 2     L2 squared hinge, primal               LinearSVC(loss="squared_hinge"), tron
  -s 3     L2 hinge, dual                         LinearSVC(loss="hinge"), dual_cd
  -s 4     Crammer-Singer                         LinearSVC(multi_class="crammer_singer")
  -s 5     L1-regularized squared hinge           LinearSVC(penalty="l1"), l1_cd
  -s 6     L1-regularized logistic regression     LinearSVC(loss="logistic", penalty="l1"), l1_cd
  -s 11    L2 squared eps-insensitive, primal     LinearSVR, tron
  -s 12    L2 squared eps-insensitive, dual       LinearSVR, dual_cd
  -s 13    L2 eps-insensitive, dual               LinearSVR(loss="epsilon_insensitive"), dual_cd
  -s 21    one-class SVM                          LinearOneClassSVM

Not supported (ValueError): -C (parameter search) and -i (initial model). Tolerances: -s 0,
2, 11 use TRON whose test is ||grad F(w)|| <= tol ||grad F(0)||; LIBLINEAR's eps for -s 0
and 2 is scaled by the smaller class's share (min(#pos, #neg) / l), which is applied here,
so -e means the same.
Prediction options: -b 1 (probabilities, logistic regression only), -q.
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._foreign_models import (
    LiblinearModelData,
    liblinear_from_estimator,
    read_liblinear_model,
    write_liblinear_model,
)
from ._liblinear_common import evaluations, first_occurrence, svm_read_problem, to_csr

__all__ = [
    "evaluations",
    "load_model",
    "model",
    "parameter",
    "predict",
    "problem",
    "save_model",
    "svm_read_problem",
    "train",
]

# LIBLINEAR's default -e per -s.
_DEFAULT_EPS = {
    0: 0.01,
    1: 0.1,
    2: 0.01,
    3: 0.1,
    4: 0.1,
    5: 0.01,
    6: 0.01,
    7: 0.1,
    11: 0.0001,
    12: 0.1,
    13: 0.1,
    21: 0.01,
}
_CLASSIFICATION = (0, 1, 2, 3, 4, 5, 6, 7)


class parameter:  # noqa: N801 - the official package's name
    """Parsed `train` options (LIBLINEAR's names: solver_type, C, p, nu, eps, bias, ...)."""

    def __init__(self, options: str | list[str] | None = None) -> None:
        self.solver_type = 1
        self.C = 1.0
        self.p = 0.1
        self.nu = 0.5
        self.eps = None  # None: the type's default
        self.bias = -1.0
        self.regularize_bias = True
        self.weight: dict[int, float] = {}
        self.nr_fold = 0
        self.quiet = False
        self.parse(options)

    def parse(self, options: str | list[str] | None) -> None:
        argv = options.split() if isinstance(options, str) else list(options or [])
        i = 0
        while i < len(argv):
            opt = argv[i]
            if opt in ("-q", "-R"):
                if opt == "-q":
                    self.quiet = True
                else:
                    self.regularize_bias = False
                i += 1
                continue
            if opt in ("-C", "-i"):
                raise ValueError(
                    f"svmkit.liblinearutil: option {opt} (parameter search / initial model) is "
                    "not supported"
                )
            if i + 1 >= len(argv):
                raise ValueError(f"svmkit.liblinearutil: option {opt} needs a value")
            val = argv[i + 1]
            try:
                if opt == "-s":
                    self.solver_type = int(val)
                elif opt == "-c":
                    self.C = float(val)
                elif opt == "-p":
                    self.p = float(val)
                elif opt == "-n":
                    self.nu = float(val)
                elif opt == "-e":
                    self.eps = float(val)
                elif opt == "-B":
                    self.bias = float(val)
                elif opt == "-v":
                    self.nr_fold = int(val)
                elif opt.startswith("-w") and len(opt) > 2:
                    self.weight[int(opt[2:])] = float(val)
                else:
                    raise ValueError(f"svmkit.liblinearutil: unknown option {opt}")
            except ValueError as exc:
                if "svmkit" in str(exc):
                    raise
                raise ValueError(f"svmkit.liblinearutil: bad value {val!r} for {opt}") from None
            i += 2
        if self.solver_type not in _DEFAULT_EPS:
            raise ValueError(f"svmkit.liblinearutil: unknown solver type -s {self.solver_type}")
        if self.nr_fold == 1 or self.nr_fold < 0:
            raise ValueError("svmkit.liblinearutil: -v needs n >= 2 folds")
        if not self.regularize_bias and self.solver_type not in (0, 2, 5, 11):
            raise ValueError("svmkit.liblinearutil: -R is supported only for -s 0, 2, 5 and 11")
        if self.solver_type == 21 and self.bias >= 0:
            raise ValueError("svmkit.liblinearutil: -B is ignored by -s 21; leave it out")

    @property
    def tol(self) -> float:
        return _DEFAULT_EPS[self.solver_type] if self.eps is None else self.eps


class problem:  # noqa: N801
    """A training set (y, x) as the official `problem(y, x, bias=-1)`."""

    def __init__(self, y: Any, x: Any, bias: float = -1) -> None:
        self.y = np.asarray(y, dtype=np.float64)
        self.x = to_csr(x)
        self.bias = bias
        self.l, self.n = self.x.shape


class model:  # noqa: N801
    """A trained LIBLINEAR-style model: the model file's content and the svmkit estimator."""

    def __init__(self, data: LiblinearModelData, estimator: Any = None) -> None:
        self.data = data
        self._estimator = estimator

    @property
    def estimator(self) -> Any:
        """The fitted svmkit estimator that predicts as this model."""
        if self._estimator is None:
            from ._foreign_models import estimator_from_liblinear

            self._estimator = estimator_from_liblinear(self.data)
        return self._estimator

    def get_nr_feature(self) -> int:
        return self.data.nr_feature

    def get_nr_class(self) -> int:
        return len(self.data.labels) if self.data.labels is not None else 2

    def get_labels(self) -> list:
        return list(self.data.labels) if self.data.labels is not None else []

    def get_decfun(self, label_idx: int = 0) -> tuple[list[float], float]:
        coef, b = self.data.coef_intercept()
        if self.is_oneclass_model():
            return coef[0].tolist(), -float(self.data.rho)
        col = 0 if self.data.nr_w == 1 else label_idx
        return coef[col].tolist(), float(b[col])

    def get_decfun_rho(self) -> float:
        if not self.is_oneclass_model():
            raise ValueError("rho is defined for the one-class SVM (-s 21) only")
        return float(self.data.rho)

    def is_probability_model(self) -> bool:
        return self.data.solver_type in (0, 6, 7)

    def is_regression_model(self) -> bool:
        return self.data.solver_type in (11, 12, 13)

    def is_oneclass_model(self) -> bool:
        return self.data.solver_type == 21


def _estimator(param: parameter, y: np.ndarray, n: int) -> Any:
    """The svmkit estimator that solves -s param.solver_type with these options."""
    from ._linear import LinearSVC, LinearSVR
    from ._linear_one_class import LinearOneClassSVM

    s = param.solver_type
    if s == 21:
        return LinearOneClassSVM(nu=param.nu, tol=param.tol)
    common = dict(
        C=param.C,
        fit_intercept=param.bias > 0,
        intercept_scaling=param.bias if param.bias > 0 else 1.0,
        regularize_intercept=param.regularize_bias,
    )
    if s in (11, 12, 13):
        loss = "epsilon_insensitive" if s == 13 else "squared_epsilon_insensitive"
        return LinearSVR(
            loss=loss,
            epsilon=param.p,
            tol=param.tol,
            solver="tron" if s == 11 else "dual_cd",
            **common,
        )
    tol = param.tol
    if s in (0, 2):  # LIBLINEAR scales the primal solvers' eps by the smaller class's share
        counts = np.unique(y, return_counts=True)[1]
        tol *= max(1, counts.min() if counts.size > 1 else 1) / max(1, y.shape[0])
    solver, loss, extra = {
        0: ("tron", "logistic", {}),
        7: ("tron", "logistic", {}),
        1: ("dual_cd", "squared_hinge", {}),
        2: ("tron", "squared_hinge", {}),
        3: ("dual_cd", "hinge", {}),
        4: ("auto", "squared_hinge", {"multi_class": "crammer_singer"}),
        5: ("l1_cd", "squared_hinge", {"penalty": "l1"}),
        6: ("l1_cd", "logistic", {"penalty": "l1"}),
    }[s]
    return LinearSVC(loss=loss, solver=solver, tol=tol, **extra, **common)


def _quiet_fit(param: parameter, est: Any, X: sp.csr_matrix, y: Any, **kw: Any) -> Any:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        if param.quiet:
            warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, **kw) if y is None else est.fit(X, y, **kw)


def _fit_one_vs_rest(param: parameter, y: np.ndarray, X: sp.csr_matrix, order: list) -> model:
    """LIBLINEAR's one-vs-rest: for label c, the positive samples' cost is C times c's weight and
    every other sample's cost is C (not its own class's weight); eps is scaled per problem."""
    cols, biases = [], []
    for c in order:
        yc = np.where(y == c, 1.0, -1.0)
        sw = np.where(y == c, param.weight.get(c, 1.0), 1.0)
        est = _quiet_fit(param, _estimator(param, yc, X.shape[1]), X, yc, sample_weight=sw)
        cols.append(est.coef_[0])
        biases.append(est.intercept_[0])
    w = np.column_stack(cols)
    if param.bias > 0:
        w = np.vstack([w, np.asarray(biases) / param.bias])
    bias = param.bias if param.bias > 0 else -1.0
    return model(LiblinearModelData(param.solver_type, X.shape[1], bias, w, list(order)))


def _fit(param: parameter, y: np.ndarray, X: sp.csr_matrix) -> model:
    s = param.solver_type
    order = first_occurrence(y) if s in _CLASSIFICATION else None
    if s in _CLASSIFICATION and s != 4 and len(order) > 2:
        return _fit_one_vs_rest(param, y, X, order)
    est = _estimator(param, y, X.shape[1])
    if param.weight and s in _CLASSIFICATION:
        present = set(np.unique(y).tolist())
        est.set_params(class_weight={c: w for c, w in param.weight.items() if c in present} or None)
    _quiet_fit(param, est, X, None if s == 21 else y)
    return model(liblinear_from_estimator(est, label_order=order), est)


def train(arg1: Any, arg2: Any = None, arg3: Any = None) -> Any:
    """train(y, x [, options]) or train(problem [, options]) -> model, as LIBLINEAR's.

    With -v n: the n-fold cross-validation accuracy (classification, in percent) or mean
    squared error (regression) instead of a model."""
    if isinstance(arg1, problem):
        y, X, options = arg1.y, arg1.x, arg2
        if arg1.bias is not None and arg1.bias >= 0:
            options = f"{options or ''} -B {arg1.bias}"
    else:
        y, X, options = np.asarray(arg1, dtype=np.float64), to_csr(arg2), arg3
    param = options if isinstance(options, parameter) else parameter(options)
    if X.shape[0] != y.shape[0]:
        raise ValueError(f"train: {y.shape[0]} labels for {X.shape[0]} instances")
    if param.nr_fold:
        return _cross_validation(param, y, X)
    return _fit(param, y, X)


def _cross_validation(param: parameter, y: np.ndarray, X: sp.csr_matrix) -> float:
    rng = np.random.default_rng(0)
    perm = rng.permutation(y.shape[0])
    pred = np.empty_like(y)
    for fold in np.array_split(perm, param.nr_fold):
        mask = np.ones(y.shape[0], dtype=bool)
        mask[fold] = False
        m = _fit(param, y[mask], X[mask])
        pred[fold] = _predict_values(m, X[fold], probability=False)[0]
    acc, mse, _ = evaluations(y, pred)
    regression = param.solver_type in (11, 12, 13)
    if not param.quiet:
        if regression:
            print(f"Cross Validation Mean squared error = {mse:g}")
        else:
            print(f"Cross Validation Accuracy = {acc:g}%")
    return mse if regression else acc


def _predict_values(m: model, X: sp.csr_matrix, probability: bool) -> tuple[np.ndarray, np.ndarray]:
    """(labels, values) as LIBLINEAR's predict computes them."""
    from . import _core
    from ._validation import as_core_matrix

    d = m.data.nr_feature
    X = X[:, :d] if X.shape[1] >= d else sp.hstack([X, sp.csr_matrix((X.shape[0], d - X.shape[1]))])
    X = sp.csr_matrix(X, dtype=np.float64)
    coef, b = m.data.coef_intercept()
    view = as_core_matrix(X)

    def scores(rows: slice) -> np.ndarray:
        c, i = np.ascontiguousarray(coef[rows]), np.ascontiguousarray(b[rows])
        return np.asarray(_core.linear_decision_function(view, c, i, 1))

    # Two weight vectors for two classes (Crammer-Singer) are two one-vector models.
    dec = (
        np.column_stack([scores(slice(0, 1)), scores(slice(1, 2))])
        if coef.shape[0] == 2
        else (scores(slice(None)))
    )
    s = m.data.solver_type
    if s == 21:
        dec = dec - m.data.rho
        return np.where(dec[:, 0] > 0, 1.0, -1.0), dec
    if s in (11, 12, 13):
        return dec[:, 0].copy(), dec
    labels = np.asarray(m.data.labels, dtype=np.float64)
    if dec.shape[1] == 1:
        pred = np.where(dec[:, 0] > 0, labels[0], labels[1])
    else:
        pred = labels[np.argmax(dec, axis=1)]
    if probability:
        p = 1.0 / (1.0 + np.exp(-dec))
        if dec.shape[1] == 1:
            p = np.column_stack([p[:, 0], 1.0 - p[:, 0]])
        else:
            p = p / p.sum(axis=1, keepdims=True)
        return pred, p
    return pred, dec


def predict(y: Any, x: Any, m: model, options: str = "") -> tuple[list, tuple, list]:
    """predict(y, x, model [, options]) -> (p_labels, (ACC, MSE, SCC), p_vals), as LIBLINEAR's.

    Options: -b 1 (probability estimates, logistic regression only), -q (quiet)."""
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
            raise ValueError(f"svmkit.liblinearutil.predict: unknown option {argv[i]}")
    if probability and not m.is_probability_model():
        raise ValueError("probability output is only supported for logistic regression")
    X = to_csr(x)
    pred, vals = _predict_values(m, X, probability)
    y = np.asarray(y, dtype=np.float64)
    if y.shape[0] == 0:
        y = np.zeros(pred.shape[0])
    acc, mse, scc = evaluations(y, pred)
    if not quiet:
        if m.is_regression_model():
            print(f"Mean squared error = {mse:g} (regression)")
            print(f"Squared correlation coefficient = {scc:g} (regression)")
        else:
            correct = int(round(acc * y.shape[0] / 100.0))
            print(f"Accuracy = {acc:g}% ({correct}/{y.shape[0]}) (classification)")
        sys.stdout.flush()
    return pred.tolist(), (acc, mse, scc), vals.tolist()


def save_model(model_file_name: Any, m: model) -> None:
    """Write the model as a LIBLINEAR model file."""
    write_liblinear_model(model_file_name, m.data)


def load_model(model_file_name: Any) -> model:
    """Read a LIBLINEAR model file (from LIBLINEAR or from save_model)."""
    return model(read_liblinear_model(model_file_name))
