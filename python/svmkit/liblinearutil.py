"""LIBLINEAR's Python interface on svmkit: code written for liblinear-official runs after
changing `from liblinear.liblinearutil import *` to `from svmkit.liblinearutil import *`.

    y, x = svm_read_problem("heart_scale")
    m = train(y[:200], x[:200], "-s 2 -c 4")
    p_label, p_acc, p_val = predict(y[200:], x[200:], m)
    save_model("heart_scale.model", m)
    m = load_model("heart_scale.model")

Options (LIBLINEAR's `train`, with its defaults): -s type (0-7, 11-13, 21; default 1), -c cost
(1), -p epsilon of SVR (0.1), -n nu of the one-class SVM (0.5), -e tolerance (the type's
LIBLINEAR default), -B bias (-1: none), -R (bias not regularized; with -B 1, for -s 0, 2, 5, 6
and 11, as LIBLINEAR), -wi weight (class weights), -v n (n-fold cross validation: returns the
accuracy or the mean squared error), -C (parameter search, below), -i file (initial model: -s 0,
2, 11 start from its weights), -W file (instance weights, one per line, as LIBLINEAR's weights
variant), -q (quiet). Each -s runs the svmkit solver of the same formulation:

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

-C (-s 0, 2; -s 11; default -s 2): n-fold CV (-v, default 5) along C = c0, 2 c0, ... 1024,
each fold's model warm-started from its model at the previous C (c0: -c, else a power of two
below 1 / (l max ||x||^2), halved for -s 2 and 11); -s 11 also searches p over
(19/20 .. 0) max|y| unless -p is given. Prints "Best C = ...  CV accuracy = ...%" and returns
(best C, best p, best score) like the official package (the score a fraction, or the MSE).

Tolerances: -s 0, 2, 11 use TRON whose test is ||grad F(w)|| <= tol ||grad F(0)||;
LIBLINEAR's eps for -s 0 and 2 is scaled by the smaller class's share (min(#pos, #neg) / l),
which is applied here, and so is it for -s 5 and 6 (inside the l1_cd solver), so -e means
the same.
Prediction options: -b 1 (probabilities, logistic regression only), -q.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from ._foreign_models import (
    LiblinearModelData,
    liblinear_from_estimator,
    read_liblinear_model,
    write_liblinear_model,
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
from ._validation import dense_if_smaller

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

# THE -s TABLE (the one place to add a type): LIBLINEAR's code -> (its default -e, the svmkit
# solver, loss and extra estimator parameters). Classification types build LinearSVC, 11-13
# LinearSVR, 21 LinearOneClassSVM.
_TYPES: dict[int, tuple[float, str, str, dict]] = {
    0: (0.01, "tron", "logistic", {}),
    1: (0.1, "dual_cd", "squared_hinge", {}),
    2: (0.01, "tron", "squared_hinge", {}),
    3: (0.1, "dual_cd", "hinge", {}),
    4: (0.1, "auto", "squared_hinge", {"multi_class": "crammer_singer"}),
    5: (0.01, "l1_cd", "squared_hinge", {"penalty": "l1"}),
    6: (0.01, "l1_cd", "logistic", {"penalty": "l1"}),
    7: (0.1, "dual_cd", "logistic", {}),
    11: (0.0001, "tron", "squared_epsilon_insensitive", {}),
    12: (0.1, "dual_cd", "squared_epsilon_insensitive", {}),
    13: (0.1, "dual_cd", "epsilon_insensitive", {}),
    21: (0.01, "linear_one_class", "one_class", {}),
}
_DEFAULT_EPS = {s: t[0] for s, t in _TYPES.items()}
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
        self.find_parameters = False  # -C
        self.init_model: str | None = None  # -i file
        self.instance_weights: np.ndarray | None = None  # -W file, one weight per instance
        self._given: set[str] = set()  # the options set explicitly (-C's defaults depend on it)
        self.parse(options)

    def parse(self, options: str | list[str] | None) -> None:
        argv = options.split() if isinstance(options, str) else list(options or [])
        i = 0
        while i < len(argv):
            opt = argv[i]
            if opt in ("-q", "-R", "-C"):
                self.quiet = self.quiet or opt == "-q"
                self.regularize_bias = self.regularize_bias and opt != "-R"
                self.find_parameters = self.find_parameters or opt == "-C"
                i += 1
                continue
            if i + 1 >= len(argv):
                raise ValueError(f"svmkit.liblinearutil: option {opt} needs a value")
            val = argv[i + 1]
            self._given.add(opt)
            try:
                if opt == "-i":
                    self.init_model = val
                elif opt == "-W":
                    self.instance_weights = _read_weights(val)
                elif opt == "-s":
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
        if not self.regularize_bias:  # LIBLINEAR's two -R rules, in its order
            if self.bias != 1.0:
                raise ValueError("svmkit.liblinearutil: to not regularize the bias (-R), give -B 1")
            if self.solver_type not in (0, 2, 5, 6, 11):
                raise ValueError(
                    "svmkit.liblinearutil: -R is supported only for -s 0, 2, 5, 6 and 11"
                )
        if self.solver_type == 21 and self.bias >= 0:
            raise ValueError("svmkit.liblinearutil: -B is ignored by -s 21; leave it out")
        self._check_search_and_init()

    def _check_search_and_init(self) -> None:
        if self.find_parameters:
            if "-s" not in self._given:  # LIBLINEAR's parameter search defaults to -s 2
                self.solver_type = 2
            if self.solver_type not in (0, 2, 11):
                raise ValueError(
                    "svmkit.liblinearutil: -C (warm-start parameter search) is available for "
                    "-s 0, 2 and 11 only"
                )
            if not self.nr_fold:
                self.nr_fold = 5
        if self.init_model is not None and self.solver_type not in (0, 2, 11):
            raise ValueError(
                "svmkit.liblinearutil: -i (initial model) is supported for -s 0, 2 and 11 only"
            )

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
    _, solver, loss, extra = _TYPES[s]
    if s in (11, 12, 13):
        return LinearSVR(loss=loss, epsilon=param.p, tol=param.tol, solver=solver, **common)
    tol = param.tol
    if s in (0, 2):  # LIBLINEAR scales the primal solvers' eps by the smaller class's share
        counts = np.unique(y, return_counts=True)[1]
        tol *= max(1, counts.min() if counts.size > 1 else 1) / max(1, y.shape[0])
    return LinearSVC(loss=loss, solver=solver, tol=tol, **extra, **common)


def _quietly(param: parameter, fit: Any, *args: Any, **kw: Any) -> Any:
    """fit(*args, **kw), its ConvergenceWarning silenced under -q."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        if param.quiet:
            warnings.simplefilter("ignore", ConvergenceWarning)
        return fit(*args, **kw)


def _quiet_fit(param: parameter, est: Any, X: sp.csr_matrix, y: Any, **kw: Any) -> Any:
    return _quietly(param, est.fit, X, **kw) if y is None else _quietly(param, est.fit, X, y, **kw)


def _read_weights(path: str) -> np.ndarray:
    """A -W file: one nonnegative instance weight per line (LIBLINEAR's weights variant)."""
    try:
        with open(path, encoding="ascii") as fh:
            w = np.array([float(t) for t in fh.read().split()], dtype=np.float64)
    except ValueError:
        raise ValueError(f"svmkit.liblinearutil: -W {path}: not a list of numbers") from None
    if np.any(~np.isfinite(w)) or np.any(w < 0):
        raise ValueError(f"svmkit.liblinearutil: -W {path}: weights must be finite and >= 0")
    return w


def _warm_start(est: Any, coef: np.ndarray, intercept: np.ndarray) -> None:
    """Start est's next fit from (coef, intercept) in est's own sign convention."""
    est.set_params(warm_start=True)
    est.coef_ = np.asarray(coef, dtype=np.float64)
    est.intercept_ = np.asarray(intercept, dtype=np.float64)


def _initial_columns(init: LiblinearModelData, order: list | None, n: int) -> tuple:
    """(coef (k, n), intercept (k,)) of the initial model, one row per decision column of a
    model trained on labels `order` (LIBLINEAR's column order); checks that they match."""
    if init.nr_feature != n:
        raise ValueError(
            f"svmkit.liblinearutil: -i model has {init.nr_feature} features, the data {n}"
        )
    if order is not None and (init.labels is None or list(init.labels) != list(order)):
        raise ValueError(
            f"svmkit.liblinearutil: -i model's labels {init.labels} differ from the data's {order}"
        )
    return init.coef_intercept()


def _fit_one_vs_rest(
    param: parameter,
    y: np.ndarray,
    X: sp.csr_matrix,
    order: list,
    sw: np.ndarray,
    init: LiblinearModelData | None,
) -> model:
    """LIBLINEAR's one-vs-rest: for label c, the positive samples' cost is C times c's weight and
    every other sample's cost is C (not its own class's weight); eps is scaled per problem."""
    cols, biases = [], []
    if init is not None:
        init_coef, init_b = _initial_columns(init, order, X.shape[1])
    for k, c in enumerate(order):
        yc = np.where(y == c, 1.0, -1.0)
        swc = sw * np.where(y == c, param.weight.get(c, 1.0), 1.0)
        est = _estimator(param, yc, X.shape[1])
        if init is not None:  # the column of label c scores c as the positive class
            _warm_start(est, init_coef[k : k + 1], init_b[k : k + 1])
        est = _quiet_fit(param, est, X, yc, sample_weight=swc)
        cols.append(est.coef_[0])
        biases.append(est.intercept_[0])
    w = np.column_stack(cols)
    if param.bias > 0:
        w = np.vstack([w, np.asarray(biases) / param.bias])
    bias = param.bias if param.bias > 0 else -1.0
    return model(LiblinearModelData(param.solver_type, X.shape[1], bias, w, list(order)))


def _single_label_model(
    param: parameter, X: sp.csr_matrix, sw: np.ndarray, label: Any, init: LiblinearModelData | None
) -> model:
    """Training data of one label, which LIBLINEAR accepts (a cross-validation fold or a
    subset can hold one): a model of nr_class 1 that predicts that label everywhere. Its weights
    are LIBLINEAR's: the label's one-vs-rest subproblem, every sample positive (costs C times
    the label's -wi weight times the instance weights); zero for -s 4, whose one-class problem
    has no violated constraint."""
    n = X.shape[1]
    rows = n + (1 if param.bias > 0 else 0)
    bias = param.bias if param.bias > 0 else -1.0
    w = np.zeros((rows, 1))
    if param.solver_type != 4:
        est = _estimator(param, np.ones(X.shape[0]), n)
        if init is not None:
            init_coef, init_b = _initial_columns(init, [label], n)
            _warm_start(est, init_coef, init_b)
        cost = param.C * param.weight.get(label, 1.0) * sw
        coef, intercept = _quietly(param, est._fit_all_positive, X, cost)
        w[:n, 0] = coef
        if param.bias > 0:
            w[n, 0] = intercept / param.bias
    return model(LiblinearModelData(param.solver_type, n, bias, w, [label]))


def _fit(
    param: parameter,
    y: np.ndarray,
    X: sp.csr_matrix,
    sw: np.ndarray | None = None,
    init: LiblinearModelData | None = None,
) -> model:
    """Train on (y, X) with instance weights sw (default 1) from the initial model init."""
    s = param.solver_type
    sw = np.ones(y.shape[0]) if sw is None else sw
    # -s names the solver, so the estimator keeps X as given; LIBLINEAR-format files of dense
    # data arrive as CSR, and their dense form is solved faster (dense_if_smaller).
    X = dense_if_smaller(X)
    order = first_occurrence(y) if s in _CLASSIFICATION else None
    if order is not None and len(order) == 1:
        return _single_label_model(param, X, sw, order[0], init)
    if s in _CLASSIFICATION and s != 4 and len(order) > 2:
        return _fit_one_vs_rest(param, y, X, order, sw, init)
    est = _estimator(param, y, X.shape[1])
    if param.weight and s in _CLASSIFICATION:
        present = set(np.unique(y).tolist())
        est.set_params(class_weight={c: w for c, w in param.weight.items() if c in present} or None)
    if init is not None:
        from ._foreign_models import estimator_from_liblinear

        _initial_columns(init, order, X.shape[1])
        start = estimator_from_liblinear(init)  # coef_ in svmkit's sign convention
        _warm_start(est, np.atleast_2d(start.coef_), np.atleast_1d(start.intercept_))
        if s == 11:
            est.coef_ = est.coef_[0]
    _quiet_fit(param, est, X, None if s == 21 else y, sample_weight=sw)
    data = liblinear_from_estimator(est, label_order=order)
    data.solver_type = s  # the trainer's type, as LIBLINEAR writes it (-s 2 is not -s 1's file)
    return model(data, est)


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
    sw = param.instance_weights
    if sw is not None and sw.shape[0] != y.shape[0]:
        raise ValueError(f"train: -W gives {sw.shape[0]} weights for {y.shape[0]} instances")
    if param.find_parameters:
        return _find_parameters(param, y, X, sw)
    if param.nr_fold:
        return _cross_validation(param, y, X, sw)
    init = read_liblinear_model(param.init_model) if param.init_model is not None else None
    return _fit(param, y, X, sw, init)


def _fold_predictions(
    param: parameter,
    y: np.ndarray,
    X: sp.csr_matrix,
    sw: np.ndarray | None,
    cv_folds: list[np.ndarray],
    starts: list | None = None,
) -> tuple[np.ndarray, list]:
    """Each fold's predictions by a model trained on the other folds (from starts[f], the
    fold's previous model, when given); returns (predictions, the fold models)."""
    pred = np.empty_like(y)
    models = []
    for f, fold in enumerate(cv_folds):
        mask = np.ones(y.shape[0], dtype=bool)
        mask[fold] = False
        init = starts[f].data if starts is not None else None
        m = _fit(param, y[mask], X[mask], None if sw is None else sw[mask], init)
        pred[fold] = _predict_values(m, X[fold], probability=False)[0]
        models.append(m)
    return pred, models


def _start_c(param: parameter, X: sp.csr_matrix) -> float:
    """The first C of the search: a power of two small enough that w stays near 0 (the
    loss's gradient at w = 0 times C is below 1 / max ||x_i||^2 per instance)."""
    max_sq = float(X.multiply(X).sum(axis=1).max()) if X.nnz else 1.0
    max_sq += param.bias**2 if param.bias > 0 else 0.0
    scale = 1.0 if param.solver_type == 0 else 2.0
    return 2.0 ** np.floor(np.log2(1.0 / (scale * X.shape[0] * max(max_sq, 1e-300))))


_MAX_C = 1024.0  # LIBLINEAR's upper end of the C path
_P_STEPS = 20  # -s 11: p from (19/20) max|y| down to 0


def _c_path(param: parameter, y, X, sw, cv_folds, c0: float) -> tuple[float, float]:
    """(best C, its CV score) along C = c0, 2 c0, ... up to 1024, each fold's model started
    from its model at the previous C (accuracy: higher is better; -s 11: MSE, lower)."""
    regression = param.solver_type == 11
    best_c, best = c0, -np.inf
    starts = None
    c = c0
    while c <= _MAX_C * (1 + 1e-12):
        param.C = c
        pred, starts = _fold_predictions(param, y, X, sw, cv_folds, starts)
        acc, mse, _ = evaluations(y, pred)
        score = -mse if regression else acc / 100.0
        if not param.quiet:
            what = f"MSE={mse:g}" if regression else f"rate={acc:g}"
            print(f"log2c={np.log2(c):7.2f}\t{what}")
        if score > best:
            best_c, best = c, score
        c *= 2.0
    return best_c, best


def _find_parameters(param: parameter, y, X, sw) -> tuple[float, float, float]:
    """LIBLINEAR's -C: the C (and for -s 11 the p) of the best n-fold CV score, searched along
    increasing C with warm starts (Chu, Ho and Lin, KDD 2015). Returns (best C, best p, best
    score) as the official package does: the score is the accuracy as a fraction, or the MSE;
    classification's best p is -1, as LIBLINEAR's find_parameters sets it."""
    cv_folds = folds(y.shape[0], param.nr_fold)
    c0 = param.C if "-c" in param._given else _start_c(param, X)
    quiet_fits = parameter.__new__(parameter)
    quiet_fits.__dict__.update(param.__dict__)
    quiet_fits.nr_fold = 0
    if param.solver_type != 11:
        best_c, best = _c_path(quiet_fits, y, X, sw, cv_folds, c0)
        print(f"Best C = {best_c:g}  CV accuracy = {100.0 * best:g}%")
        return float(best_c), -1.0, float(best)
    if "-p" in param._given:
        ps = [param.p]
    else:
        max_p = float(np.max(np.abs(y))) if y.size else 0.0
        ps = [max_p * i / _P_STEPS for i in range(_P_STEPS - 1, -1, -1)]
    best_c, best_p, best = c0, ps[0], -np.inf
    for p in ps:
        quiet_fits.p = p
        if not param.quiet:
            print(f"log2p={np.log2(p) if p > 0 else -np.inf:7.2f}")
        c, score = _c_path(quiet_fits, y, X, sw, cv_folds, c0)
        if score > best:
            best_c, best_p, best = c, p, score
    print(f"Best C = {best_c:g} Best p = {best_p:g}  CV MSE = {-best:g}")
    return float(best_c), float(best_p), float(-best)


def _cross_validation(
    param: parameter, y: np.ndarray, X: sp.csr_matrix, sw: np.ndarray | None
) -> float:
    pred, _ = _fold_predictions(param, y, X, sw, folds(y.shape[0], param.nr_fold))
    return report_cross_validation(y, pred, param.solver_type in (11, 12, 13))


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
    if labels.shape[0] == 1:  # nr_class 1 (one label in the training data): always that label
        pred = np.full(dec.shape[0], labels[0])
        return pred, (np.ones((dec.shape[0], 1)) if probability else dec)
    if dec.shape[1] == 1:
        pred = np.where(dec[:, 0] > 0, labels[0], labels[1])
    else:
        pred = labels[np.argmax(dec, axis=1)]
        if labels.shape[0] == 2:  # Crammer-Singer: the official package returns the first
            dec = dec[:, :1]  # column for two labels, as for every binary model
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
    probability, quiet = parse_predict_options(options, "liblinearutil.predict")
    if probability and not m.is_probability_model():
        raise ValueError("probability output is only supported for logistic regression")
    X = to_csr(x)
    pred, vals = _predict_values(m, X, probability)
    triple = report_predictions(y, pred, m.is_regression_model(), quiet)
    return pred.tolist(), triple, vals.tolist()


def save_model(model_file_name: Any, m: model) -> None:
    """Write the model as a LIBLINEAR model file."""
    write_liblinear_model(model_file_name, m.data)


def load_model(model_file_name: Any) -> model:
    """Read a LIBLINEAR model file (from LIBLINEAR or from save_model)."""
    return model(read_liblinear_model(model_file_name))
