"""LIBLINEAR and LIBSVM model files: read them into svmkit estimators, write estimators in them.

LIBLINEAR (`train`'s model file): a header (solver_type, nr_class, label, nr_feature, bias and,
for the one-class SVM, rho) and after the line `w` one row per feature (plus the bias row when
bias >= 0) with nr_w weights: nr_w = 1 for two classes (the decision value is for the first
label), for regression and for the one-class SVM, else one column per label (in the file's
label order). Read into LinearSVC (-s 0-7; -s 4 as multi_class="crammer_singer"), LinearSVR
(-s 11-13) or LinearOneClassSVM (-s 21).

LIBSVM (`svm-train`'s model file): a header (svm_type, kernel_type, degree, gamma, coef0,
nr_class, total_sv, rho, label, probA, probB (Platt's sigmoids of a probability model,
classification; for epsilon_svr / nu_svr probA alone is the Laplace scale of the -b 1 model),
prob_density_marks (the one-class -b 1 model, 10 values), nr_sv) and after `SV` one line per
support vector:
its k-1 coefficients, then index:value pairs. Read into SVC / SVR (c_svc, epsilon_svr) and
NuSVC / NuSVR / OneClassSVM where svmkit has them (nu_svc, nu_svr, one_class).

Files are read and written by this module's own parser; the estimators returned are fitted
(coef_, intercept_, classes_ ... set) and predict like the tool that wrote the file.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from ._libsvm_probability import N_MARKS

__all__ = [
    "LiblinearModelData",
    "LibsvmModelData",
    "estimator_from_liblinear",
    "estimator_from_libsvm",
    "liblinear_from_estimator",
    "libsvm_from_estimator",
    "load_liblinear_model",
    "load_libsvm_model",
    "read_liblinear_model",
    "read_libsvm_model",
    "save_liblinear_model",
    "save_libsvm_model",
    "write_liblinear_model",
    "write_libsvm_model",
]

# LIBLINEAR's -s codes and the names its model files use.
LIBLINEAR_SOLVER_TYPES: dict[int, str] = {
    0: "L2R_LR",
    1: "L2R_L2LOSS_SVC_DUAL",
    2: "L2R_L2LOSS_SVC",
    3: "L2R_L1LOSS_SVC_DUAL",
    4: "MCSVM_CS",
    5: "L1R_L2LOSS_SVC",
    6: "L1R_LR",
    7: "L2R_LR_DUAL",
    11: "L2R_L2LOSS_SVR",
    12: "L2R_L2LOSS_SVR_DUAL",
    13: "L2R_L1LOSS_SVR_DUAL",
    21: "ONECLASS_SVM",
}
LIBLINEAR_CODES = {name: code for code, name in LIBLINEAR_SOLVER_TYPES.items()}
_REGRESSION_CODES = (11, 12, 13)
_LOGISTIC_CODES = (0, 6, 7)


def _fmt(v: float) -> str:
    return format(float(v), ".17g")


def _open_lines(path: Any) -> list[str]:
    try:
        with open(os.fspath(path), encoding="ascii") as fh:
            return fh.read().splitlines()
    except UnicodeDecodeError as exc:  # a ValueError, but not one naming the file
        raise ValueError(f"{path}: not a text model file (byte {exc.start} is not ASCII)") from None


def _label_value(text: str, path: Any) -> Any:
    try:
        v = float(text)
    except ValueError:
        raise ValueError(f"{path}: label {text!r} is not a number") from None
    if not np.isfinite(v):  # int(inf) would raise OverflowError
        raise ValueError(f"{path}: label {text!r} is not finite")
    return int(v) if v == int(v) else v


def _header_int(head: dict, key: str, path: Any, low: int) -> int:
    """A count in the header, checked before anything is sized by it."""
    try:
        v = int(head[key][0])
    except ValueError:
        raise ValueError(f"{path}: {key} {head[key][0]!r} is not an integer") from None
    if v < low:
        raise ValueError(f"{path}: {key} {v} is below {low}")
    return v


def _labels_for_file(classes: np.ndarray, tool: str) -> list[str]:
    out = []
    for c in classes:
        try:
            v = float(c)
        except (TypeError, ValueError):
            raise ValueError(
                f"{tool} model files store numeric labels; class {c!r} is not a number"
            ) from None
        if tool == "LIBLINEAR" and v != int(v):
            raise ValueError(f"LIBLINEAR model files store integer labels; class {c!r} is not one")
        out.append(str(int(v)) if v == int(v) else _fmt(v))
    return out


# ---------------------------------------------------------------------------------------------
# LIBLINEAR


@dataclass
class LiblinearModelData:
    """The content of a LIBLINEAR model file."""

    solver_type: int  # LIBLINEAR's -s code
    nr_feature: int
    bias: float  # < 0: no bias row
    w: np.ndarray  # (nr_feature [+1], nr_w), the file's rows
    labels: list | None = None  # class labels in the file's order (None for regression)
    rho: float | None = None  # the one-class SVM's offset

    @property
    def nr_w(self) -> int:
        return int(self.w.shape[1])

    def coef_intercept(self) -> tuple[np.ndarray, np.ndarray]:
        """(coef (nr_w, nr_feature), intercept (nr_w,)) of the file's decision columns."""
        d = self.nr_feature
        coef = np.ascontiguousarray(self.w[:d].T)
        if self.bias >= 0:
            intercept = self.bias * self.w[d]
        else:
            intercept = np.zeros(self.nr_w)
        return coef, np.asarray(intercept, dtype=np.float64)


def _header_lines(
    lines: list[str], marker: str, required: tuple[str, ...], path: Any
) -> tuple[dict[str, list[str]], int]:
    """A LIBLINEAR ("w") or LIBSVM ("SV") model file's header: key -> values up to the marker
    line, whose index comes second; each required key must have a value."""
    kind = "LIBLINEAR" if marker == "w" else "LIBSVM"
    head: dict[str, list[str]] = {}
    k = 0
    while k < len(lines) and lines[k].strip() != marker:
        parts = lines[k].split()
        if parts:
            head[parts[0]] = parts[1:]
        k += 1
    if k == len(lines):
        raise ValueError(f"{path}: not a {kind} model file (no '{marker}' line)")
    for key in required:
        if not head.get(key):
            raise ValueError(f"{path}: {kind} model file without '{key}'")
    return head, k


def read_liblinear_model(path: Any) -> LiblinearModelData:
    """Parse a LIBLINEAR model file (raises ValueError naming the problem)."""
    lines = _open_lines(path)
    head, k = _header_lines(lines, "w", ("solver_type", "nr_class", "nr_feature", "bias"), path)
    name = head["solver_type"][0]
    if name not in LIBLINEAR_CODES:
        raise ValueError(f"{path}: unknown LIBLINEAR solver_type {name!r}")
    code = LIBLINEAR_CODES[name]
    nr_class = _header_int(head, "nr_class", path, 1)
    nr_feature = _header_int(head, "nr_feature", path, 0)
    bias = float(head["bias"][0])
    nr_w = 1 if nr_class == 2 and code != 4 else nr_class
    rows = nr_feature + (1 if bias >= 0 else 0)
    body = [ln.split() for ln in lines[k + 1 :] if ln.strip()]
    if len(body) < rows:
        raise ValueError(f"{path}: {len(body)} weight rows, expected {rows}")
    try:
        w = np.array([[float(v) for v in r] for r in body[:rows]], dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"{path}: malformed weight row ({exc})") from None
    if rows == 0:
        w = w.reshape(0, nr_w)
    if w.shape != (rows, nr_w):
        raise ValueError(f"{path}: weight rows of {w.shape[1]} values, expected {nr_w}")
    labels = None
    if "label" in head:
        labels = [_label_value(t, path) for t in head["label"]]
        if len(labels) != nr_class:
            raise ValueError(f"{path}: {len(labels)} labels for nr_class {nr_class}")
        if len(set(labels)) != len(labels):
            raise ValueError(f"{path}: repeated label in {head['label']}")
    rho = float(head["rho"][0]) if head.get("rho") else None
    if code == 21 and rho is None:
        raise ValueError(f"{path}: one-class LIBLINEAR model without 'rho'")
    return LiblinearModelData(code, nr_feature, bias, w, labels, rho)


def write_liblinear_model(path: Any, m: LiblinearModelData) -> None:
    """Write a LIBLINEAR model file that LIBLINEAR's predict and load_model read."""
    nr_class = len(m.labels) if m.labels is not None else 2
    out = [f"solver_type {LIBLINEAR_SOLVER_TYPES[m.solver_type]}", f"nr_class {nr_class}"]
    if m.labels is not None:
        out.append("label " + " ".join(_labels_for_file(np.asarray(m.labels), "LIBLINEAR")))
    out.append(f"nr_feature {m.nr_feature}")
    out.append(f"bias {_fmt(m.bias) if m.bias >= 0 else '-1'}")
    if m.solver_type == 21:
        out.append(f"rho {_fmt(m.rho)}")
    out.append("w")
    # A row per feature, and most of them are zero when the indices run high (text data with
    # hashed features: 10^7 rows took 9 s formatted one by one); -0.0 keeps its sign.
    w = np.asarray(m.w, dtype=np.float64).reshape(len(m.w), -1)
    zero_row = "0 " * w.shape[1]
    nonzero = np.any((w != 0.0) | np.signbit(w), axis=1)
    out.extend(
        "".join(_fmt(v) + " " for v in row) if keep else zero_row for row, keep in zip(w, nonzero)
    )
    with open(os.fspath(path), "w", encoding="ascii") as fh:
        fh.write("\n".join(out) + "\n")


def _new_linear_svc(code: int, fit_intercept: bool, scaling: float) -> Any:
    from ._linear import LinearSVC

    loss = {0: "logistic", 6: "logistic", 7: "logistic", 3: "hinge"}.get(code, "squared_hinge")
    est = LinearSVC(
        loss=loss,
        penalty="l1" if code in (5, 6) else "l2",
        fit_intercept=fit_intercept,
        intercept_scaling=scaling,
    )
    if code == 4:
        est.set_params(multi_class="crammer_singer")
    return est


def estimator_from_liblinear(m: LiblinearModelData) -> Any:
    """A fitted svmkit estimator that predicts as the LIBLINEAR model m does."""
    from ._linear import LinearSVR
    from ._linear_one_class import LinearOneClassSVM

    coef, intercept = m.coef_intercept()
    fit_intercept = m.bias > 0
    scaling = float(m.bias) if m.bias > 0 else 1.0
    if m.solver_type == 21:
        est = LinearOneClassSVM()
        est.coef_ = coef.reshape(1, -1)
        est.offset_ = float(m.rho)
        est.intercept_ = np.array([-est.offset_])
    elif m.solver_type in _REGRESSION_CODES:
        loss = "epsilon_insensitive" if m.solver_type == 13 else "squared_epsilon_insensitive"
        est = LinearSVR(loss=loss, fit_intercept=fit_intercept, intercept_scaling=scaling)
        est.coef_ = coef[0].copy()
        est.intercept_ = np.array([intercept[0]])
    else:
        if m.labels is None:
            raise ValueError("a LIBLINEAR classification model needs its labels")
        if len(m.labels) < 2:  # LIBLINEAR writes these for one-label data; it predicts that label
            raise ValueError("a LIBLINEAR model trained on a single label cannot be read")
        est = _new_linear_svc(m.solver_type, fit_intercept, scaling)
        labels = np.asarray(m.labels)
        order = np.argsort(labels, kind="stable")
        classes = labels[order]
        if m.nr_w == 1:  # the column scores labels[0] against labels[1]
            sign = 1.0 if labels[0] == classes[1] else -1.0
            est.coef_, est.intercept_ = sign * coef, sign * intercept
        elif len(classes) == 2:  # Crammer-Singer on two classes: one difference of scores
            est.coef_ = (coef[order[1]] - coef[order[0]]).reshape(1, -1)
            est.intercept_ = np.array([intercept[order[1]] - intercept[order[0]]])
        else:
            est.coef_, est.intercept_ = coef[order], intercept[order]
        est.classes_ = classes
    est.n_features_in_ = int(m.nr_feature)
    est.solver_ = f"liblinear -s {m.solver_type}"
    est.n_iter_ = 0
    est.result_ = []
    return est


def _liblinear_code(est: Any) -> int:
    from ._linear import LinearSVC, LinearSVR
    from ._linear_one_class import LinearOneClassSVM

    if isinstance(est, LinearOneClassSVM):
        return 21
    if isinstance(est, LinearSVR):
        return 13 if est.loss == "epsilon_insensitive" else 12
    if isinstance(est, LinearSVC):
        if getattr(est, "multi_class", "ovr") == "crammer_singer":
            return 4
        if est.loss == "logistic":
            return 6 if est.penalty == "l1" else 0
        if est.loss == "hinge":
            return 3
        return 5 if est.penalty == "l1" else 1
    raise TypeError(
        f"LIBLINEAR model files hold LinearSVC, LinearSVR or LinearOneClassSVM models, not "
        f"{type(est).__name__}"
    )


def liblinear_from_estimator(est: Any, label_order: Any = None) -> LiblinearModelData:
    """The LIBLINEAR model of a fitted linear estimator. label_order (classification) puts the
    labels in that order (LIBLINEAR's is their first occurrence in the training data); by
    default the classes in decreasing order for two classes (the positive class first) and in
    increasing order otherwise."""
    from sklearn.utils.validation import check_is_fitted

    code = _liblinear_code(est)
    check_is_fitted(est, "coef_")
    coef = np.atleast_2d(np.asarray(est.coef_, dtype=np.float64))
    intercept = np.atleast_1d(np.asarray(est.intercept_, dtype=np.float64))
    d = coef.shape[1]
    if code == 21:
        return LiblinearModelData(21, d, -1.0, coef.T.copy(), None, float(est.offset_))
    bias = float(est.intercept_scaling) if est.fit_intercept else -1.0
    if code in _REGRESSION_CODES:
        cols, b, labels = coef.T, intercept, None
    else:
        classes = np.asarray(est.classes_)
        if label_order is None:
            label_order = classes[::-1] if len(classes) == 2 else classes
        label_order = np.asarray(label_order)
        if sorted(label_order.tolist()) != sorted(classes.tolist()):
            raise ValueError("label_order must list the estimator's classes")
        pos = {c: i for i, c in enumerate(classes.tolist())}
        if coef.shape[0] == 1:  # binary: the column scores label_order[0]
            sign = 1.0 if pos[label_order[0].item()] == 1 else -1.0
            if code == 4:  # Crammer-Singer keeps one column per label, summing to zero as
                # LIBLINEAR's (its dual's w_m = sum_i alpha_i^m x_i, sum_m alpha_i^m = 0)
                half, half_b = 0.5 * sign * coef[0], 0.5 * sign * intercept[0]
                cols = np.column_stack([half, -half])
                b = np.array([half_b, -half_b])
            else:
                cols, b = sign * coef.T, sign * intercept
        else:
            idx = [pos[c] for c in label_order.tolist()]
            cols, b = coef[idx].T, intercept[idx]
        labels = label_order.tolist()
    w = np.asarray(cols, dtype=np.float64)
    if bias >= 0:
        w = np.vstack([w, np.asarray(b) / bias])
    return LiblinearModelData(code, d, bias, w, labels)


def load_liblinear_model(path: Any) -> Any:
    """A fitted svmkit estimator from a LIBLINEAR model file."""
    return estimator_from_liblinear(read_liblinear_model(path))


def save_liblinear_model(path: Any, est: Any, label_order: Any = None) -> None:
    """Write a fitted LinearSVC / LinearSVR / LinearOneClassSVM as a LIBLINEAR model file."""
    write_liblinear_model(path, liblinear_from_estimator(est, label_order))


# ---------------------------------------------------------------------------------------------
# LIBSVM

_LIBSVM_KERNELS = {
    "linear": "linear",
    "polynomial": "poly",
    "rbf": "rbf",
    "sigmoid": "sigmoid",
    "precomputed": "precomputed",
}
_SVMKIT_KERNELS = {v: k for k, v in _LIBSVM_KERNELS.items()}
_LIBSVM_ESTIMATORS = {
    "c_svc": "SVC",
    "nu_svc": "NuSVC",
    "one_class": "OneClassSVM",
    "epsilon_svr": "SVR",
    "nu_svr": "NuSVR",
}
_CLASSIFIERS = ("c_svc", "nu_svc")


@dataclass
class LibsvmModelData:
    """The content of a LIBSVM model file (support vectors grouped by class, file order)."""

    svm_type: str  # c_svc, nu_svc, one_class, epsilon_svr, nu_svr
    kernel_type: str  # linear, polynomial, rbf, sigmoid
    SV: sp.csr_matrix  # (total_sv, n_features); column j is feature index j + 1
    sv_coef: np.ndarray  # (nr_class - 1, total_sv)
    rho: np.ndarray  # (nr_class (nr_class - 1) / 2,), pairs (p, q), p < q, in label order
    degree: int = 3
    gamma: float = 0.0
    coef0: float = 0.0
    labels: list | None = None  # classification only
    nr_sv: list | None = None  # support vectors per label (classification only)
    probA: np.ndarray | None = None  # Platt's A per pair (p, q), p < q, in label order
    probB: np.ndarray | None = None  # Platt's B per pair
    sv_serial: np.ndarray | None = None  # precomputed kernel: each SV's "0:serial" (1-based)
    extra: dict = field(default_factory=dict)  # header lines not interpreted
    prob_density_marks: np.ndarray | None = None  # one_class -b 1: the 10 density marks

    def is_probability_model(self) -> bool:
        """As LIBSVM's svm_check_probability_model: Platt's sigmoids (classification), the
        Laplace scale probA (regression) or the density marks (one-class)."""
        if self.svm_type in _CLASSIFIERS:
            return self.probA is not None and self.probB is not None
        if self.svm_type == "one_class":
            return self.prob_density_marks is not None
        return self.probA is not None


_LIBSVM_HEADER_KEYS = frozenset(
    {
        "svm_type",
        "kernel_type",
        "nr_class",
        "total_sv",
        "rho",
        "label",
        "nr_sv",
        "degree",
        "gamma",
        "coef0",
    }
)


def _libsvm_header(lines: list[str], path: Any) -> tuple[dict[str, list[str]], int]:
    """The header's key -> values up to the 'SV' line (checked for the keys every model has),
    and the index of that line."""
    head, k = _header_lines(lines, "SV", ("svm_type", "kernel_type", "nr_class", "total_sv"), path)
    if "rho" not in head:
        raise ValueError(f"{path}: LIBSVM model file without 'rho'")
    if head["svm_type"][0] not in _LIBSVM_ESTIMATORS:
        raise ValueError(f"{path}: unknown LIBSVM svm_type {head['svm_type'][0]!r}")
    if head["kernel_type"][0] not in _LIBSVM_KERNELS:
        raise ValueError(
            f"{path}: LIBSVM kernel_type {head['kernel_type'][0]!r} is not supported (svmkit "
            "reads linear, polynomial, rbf, sigmoid and precomputed models)"
        )
    return head, k


def _libsvm_support_vectors(
    body: list[tuple[int, list[str]]], ncoef: int, kernel: str, path: Any
) -> tuple[list, list, list, list]:
    """The coefficient rows and the CSR arrays (indptr, indices, data) of the SV lines (each
    with its line number in the file); a precomputed kernel's 0:serial_number lands in column
    -1."""
    rows_coef, indptr, indices, data = [], [0], [], []
    lowest = -1 if kernel == "precomputed" else 0
    for r, (lineno, parts) in enumerate(body):  # lists: a huge nr_class sizes no array first
        try:
            rows_coef.append([float(v) for v in parts[:ncoef]])
            if len(rows_coef[-1]) != ncoef:
                raise ValueError
            for item in parts[ncoef:]:
                i, v = item.split(":", 1)
                indices.append(int(i) - 1)
                data.append(float(v))
        except ValueError:
            raise ValueError(
                f"{path}: malformed support vector line {r + 1} (file line {lineno})"
            ) from None
        line = indices[indptr[-1] :]
        if line and not (min(line) >= lowest and max(line) < 2**31 - 1):
            raise ValueError(
                f"{path}: feature index out of range on support vector line {r + 1} (file line "
                f"{lineno})"
            )
        indptr.append(len(indices))
    return rows_coef, indptr, indices, data


def _libsvm_probability(
    head: dict[str, list[str]], svm_type: str, nr_class: int, path: Any
) -> dict[str, np.ndarray]:
    """The -b 1 lines: classification's Platt sigmoids (probA, probB per pair), regression's
    Laplace scale (probA alone) and the one-class SVM's density marks, checked for sizes."""
    try:
        prob = {
            k: np.array([float(t) for t in head[k]])
            for k in ("probA", "probB", "prob_density_marks")
            if k in head
        }
    except ValueError:
        raise ValueError(f"{path}: malformed probA / probB / prob_density_marks values") from None
    marks = prob.get("prob_density_marks")
    if marks is not None and (svm_type != "one_class" or marks.size != N_MARKS):
        raise ValueError(
            f"{path}: prob_density_marks belong to a one_class model and need {N_MARKS} values"
        )
    if svm_type in _CLASSIFIERS:
        if ("probA" in prob) != ("probB" in prob):
            raise ValueError(f"{path}: a probability model needs both probA and probB")
        npair = nr_class * (nr_class - 1) // 2
        if "probA" in prob and (prob["probA"].size != npair or prob["probB"].size != npair):
            raise ValueError(f"{path}: probA / probB need {npair} values (one per class pair)")
    elif "probB" in prob or ("probA" in prob and svm_type == "one_class"):
        raise ValueError(f"{path}: a {svm_type} model has no Platt sigmoid (probA / probB)")
    elif "probA" in prob and not (prob["probA"].size == 1 and prob["probA"][0] > 0):
        raise ValueError(f"{path}: a {svm_type} model's probA is one positive Laplace scale")
    return prob


def _libsvm_kernel_parameters(head: dict[str, list[str]], path: Any) -> tuple:
    """(rho, degree, gamma, coef0), LIBSVM's defaults where a line is absent."""
    try:
        rho = np.array([float(t) for t in head["rho"]])
        degree = int((head.get("degree") or ["3"])[0])
        gamma = float((head.get("gamma") or ["0"])[0])
        coef0 = float((head.get("coef0") or ["0"])[0])
    except ValueError as exc:
        raise ValueError(f"{path}: malformed kernel parameter or rho ({exc})") from None
    if not 0 <= degree < 2**31:  # LIBSVM's degree is a C int (and svmkit's core takes one)
        raise ValueError(f"{path}: degree {degree} out of range")
    return rho, degree, gamma, coef0


def read_libsvm_model(path: Any, n_features: int | None = None) -> LibsvmModelData:
    """Parse a LIBSVM model file. n_features (default: the largest index in the SVs) sets the
    number of columns of SV."""
    lines = _open_lines(path)
    head, k = _libsvm_header(lines, path)
    svm_type, kernel = head["svm_type"][0], head["kernel_type"][0]
    nr_class = _header_int(head, "nr_class", path, 1)
    total = _header_int(head, "total_sv", path, 0)
    numbered = [(k + 2 + i, ln.split()) for i, ln in enumerate(lines[k + 1 :]) if ln.strip()]
    if len(numbered) != total:  # checked before total (or nr_class) sizes anything
        raise ValueError(f"{path}: {len(numbered)} support vectors, total_sv says {total}")
    ncoef = nr_class - 1 if svm_type in _CLASSIFIERS else 1
    rows_coef, indptr, indices, data = _libsvm_support_vectors(numbered, ncoef, kernel, path)
    serial = None
    if kernel == "precomputed":  # each SV is "0:serial_number" (index 0 -> column -1 here)
        serial = np.array([v for i, v in zip(indices, data) if i == -1], dtype=np.float64)
        if serial.size != total or np.any(serial < 1) or np.any(serial != np.round(serial)):
            raise ValueError(f"{path}: each precomputed-kernel SV needs one 0:serial_number >= 1")
        indptr, indices, data = [0] * (total + 1), [], []
    labels = nr_sv = None
    if svm_type in _CLASSIFIERS:
        _check_libsvm_classes(head, nr_class, total, path)
        labels = [_label_value(t, path) for t in head["label"]]
        if len(set(labels)) != len(labels):
            raise ValueError(f"{path}: repeated label in {head['label']}")
        nr_sv = [int(t) for t in head["nr_sv"]]
    elif len(head["rho"]) != 1:
        raise ValueError(f"{path}: {svm_type} model with {len(head['rho'])} rho values, not 1")
    coef = np.array(rows_coef, dtype=np.float64).reshape(total, ncoef).T.copy()
    d = max(indices) + 1 if indices else 0
    if n_features is not None:
        if n_features < d:
            raise ValueError(
                f"{path}: support vectors use {d} features, n_features is {n_features}"
            )
        d = n_features
    SV = sp.csr_matrix((data, indices, indptr), shape=(total, d), dtype=np.float64)
    prob = _libsvm_probability(head, svm_type, nr_class, path)
    rho, degree, gamma, coef0 = _libsvm_kernel_parameters(head, path)
    return LibsvmModelData(
        svm_type,
        kernel,
        SV,
        coef,
        rho,
        degree=degree,
        gamma=gamma,
        coef0=coef0,
        labels=labels,
        nr_sv=nr_sv,
        probA=prob.get("probA"),
        probB=prob.get("probB"),
        sv_serial=None if serial is None else serial.astype(np.int64),
        extra={
            key: v for key, v in head.items() if key not in _LIBSVM_HEADER_KEYS and key not in prob
        },
        prob_density_marks=prob.get("prob_density_marks"),
    )


def _check_libsvm_classes(head: dict, nr_class: int, total: int, path: Any) -> None:
    """A classifier's label, nr_sv and rho lines agree with nr_class and total_sv."""
    # nr_class 1: LIBSVM's model of one-label data (no SVs, an empty rho line)
    pairs = nr_class * (nr_class - 1) // 2
    for key, want in (("label", nr_class), ("nr_sv", nr_class), ("rho", pairs)):
        if len(head.get(key, [])) != want:
            raise ValueError(
                f"{path}: '{key}' has {len(head.get(key, []))} values, expected {want}"
            )
    try:
        nr_sv = [int(t) for t in head["nr_sv"]]
    except ValueError:
        raise ValueError(f"{path}: nr_sv {head['nr_sv']} are not integers") from None
    if min(nr_sv) < 0 or sum(nr_sv) != total:
        raise ValueError(f"{path}: nr_sv {nr_sv} do not add up to total_sv {total}")


def write_libsvm_model(path: Any, m: LibsvmModelData) -> None:
    """Write a LIBSVM model file that LIBSVM's svm-predict and svm_load_model read."""
    out = [f"svm_type {m.svm_type}", f"kernel_type {m.kernel_type}"]
    if m.kernel_type == "polynomial":
        out.append(f"degree {int(m.degree)}")
    if m.kernel_type in ("polynomial", "rbf", "sigmoid"):
        out.append(f"gamma {_fmt(m.gamma)}")
    if m.kernel_type in ("polynomial", "sigmoid"):
        out.append(f"coef0 {_fmt(m.coef0)}")
    nr_class = len(m.labels) if m.labels is not None else 2
    out.append(f"nr_class {nr_class}")
    out.append(f"total_sv {m.SV.shape[0]}")
    out.append("rho " + " ".join(_fmt(v) for v in np.atleast_1d(m.rho)))
    if m.labels is not None:
        out.append("label " + " ".join(_labels_for_file(np.asarray(m.labels), "LIBSVM")))
    if m.probA is not None:
        out.append("probA " + " ".join(_fmt(v) for v in m.probA))
    if m.probB is not None:
        out.append("probB " + " ".join(_fmt(v) for v in m.probB))
    if m.prob_density_marks is not None:
        out.append("prob_density_marks " + " ".join(_fmt(v) for v in m.prob_density_marks))
    if m.nr_sv is not None:
        out.append("nr_sv " + " ".join(str(int(v)) for v in m.nr_sv))
    out.append("SV")
    SV = m.SV.tocsr()
    for r in range(SV.shape[0]):
        lo, hi = SV.indptr[r], SV.indptr[r + 1]
        cols = "".join(f"{j + 1}:{_fmt(v)} " for j, v in zip(SV.indices[lo:hi], SV.data[lo:hi]))
        if m.sv_serial is not None:
            cols = f"0:{int(m.sv_serial[r])} "
        out.append("".join(_fmt(c) + " " for c in m.sv_coef[:, r]) + cols)
    with open(os.fspath(path), "w", encoding="ascii") as fh:
        fh.write("\n".join(out) + "\n")


def pair_index(k: int) -> dict[tuple[int, int], int]:
    """The one-vs-one pairs (p, q), p < q, of k classes numbered in LIBSVM's order (0, 1),
    (0, 2), ..., (1, 2), ..."""
    pairs = [(p, q) for p in range(k) for q in range(p + 1, k)]
    return {pq: t for t, pq in enumerate(pairs)}


def _reorder_pairs(
    labels_from: list, labels_to: list, prob_a: np.ndarray, prob_b: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Platt's (A, B) per one-vs-one pair with the classes put in the order labels_to. A pair
    whose classes swap places scores -f: P(q) = 1 - P(p) = 1 / (1 + exp(A (-f) - B)), so A
    stays and B changes sign."""
    k = len(labels_from)
    old = pair_index(k)
    src = [labels_from.index(c) for c in labels_to]
    a, b = [], []
    for i in range(k):
        for j in range(i + 1, k):
            p, q = src[i], src[j]
            t = old[(min(p, q), max(p, q))]
            a.append(prob_a[t])
            b.append(prob_b[t] if p < q else -prob_b[t])
    return np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)


def _reorder_ovo(
    labels_from: list, nr_sv: list, sv_coef: np.ndarray, rho: np.ndarray, labels_to: list
) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """The one-vs-one model (SVs grouped by class, coefficients, rho per pair) with its classes
    put in the order labels_to. Returns (SV row order, sv_coef, rho, nr_sv) in the new order; a
    pair whose two classes swap places changes the sign of its coefficients and of its rho."""
    k = len(labels_from)
    start = np.r_[0, np.cumsum(nr_sv)].astype(int)
    pair = pair_index(k)
    src = [labels_from.index(c) for c in labels_to]  # new index -> old index
    rows = np.concatenate([np.arange(start[f], start[f + 1]) for f in src]).astype(int)
    new_nr = [int(nr_sv[f]) for f in src]
    new_start = np.r_[0, np.cumsum(new_nr)].astype(int)
    coef = np.zeros_like(sv_coef)
    new_rho = np.zeros_like(rho)
    for a in range(k):
        for b in range(a + 1, k):
            p, q = src[a], src[b]
            lo, hi = (p, q) if p < q else (q, p)
            sign = 1.0 if p < q else -1.0
            # old pair (lo, hi): class lo's SVs in row hi - 1, class hi's in row lo
            co_p = sv_coef[hi - 1 if p == lo else lo, start[p] : start[p + 1]]
            co_q = sv_coef[hi - 1 if q == lo else lo, start[q] : start[q + 1]]
            coef[b - 1, new_start[a] : new_start[a + 1]] = sign * co_p
            coef[a, new_start[b] : new_start[b + 1]] = sign * co_q
            new_rho[pair[(a, b)]] = sign * rho[pair[(lo, hi)]]
    return rows, coef, new_rho, new_nr


def _libsvm_class(svm_type: str) -> Any:
    import svmkit

    name = _LIBSVM_ESTIMATORS[svm_type]
    cls = getattr(svmkit, name, None)
    if cls is None:
        raise ValueError(
            f"LIBSVM svm_type {svm_type!r} needs svmkit.{name}, which this svmkit does not have"
        )
    return cls


def estimator_from_libsvm(m: LibsvmModelData) -> Any:
    """A fitted svmkit kernel estimator that predicts as the LIBSVM model m does."""
    if m.svm_type in _CLASSIFIERS and len(m.labels) < 2:  # svmutil predicts these itself
        raise ValueError(
            "a LIBSVM model trained on a single label cannot be read as an svmkit estimator "
            "(svmkit.svmutil.svm_load_model reads it)"
        )
    cls = _libsvm_class(m.svm_type)
    params = dict(
        kernel=_LIBSVM_KERNELS[m.kernel_type],
        gamma=m.gamma if m.gamma > 0 else "scale",
        coef0=m.coef0,
        degree=m.degree,
    )
    est = cls(**params)
    SV = m.SV
    rows = None
    if m.svm_type in _CLASSIFIERS:
        labels = list(m.labels)
        classes = sorted(labels)
        rows, coef, rho, nr = _reorder_ovo(labels, m.nr_sv, m.sv_coef, m.rho, classes)
        SV = SV[rows]
        if len(classes) == 2:  # scikit-learn's public sign: classes_[1] is the positive class
            dual, intercept = -coef, rho.copy()
        else:
            dual, intercept = coef, -rho
        est.classes_ = np.asarray(classes)
        est.n_support_ = np.asarray(nr, dtype=np.int32)
        est.probA_ = np.empty(0)
        est.probB_ = np.empty(0)
        if m.probA is not None:
            est.probA_, est.probB_ = _reorder_pairs(labels, classes, m.probA, m.probB)
            est.set_params(probability=True)
    else:
        dual, intercept = m.sv_coef.copy(), -m.rho
        est.n_support_ = np.array([SV.shape[0]], dtype=np.int32)
        if m.svm_type == "one_class":  # an array, as OneClassSVM.fit sets it
            est.offset_ = np.array([float(m.rho[0])])
            if m.prob_density_marks is not None:
                est.prob_density_marks_ = np.asarray(m.prob_density_marks, dtype=np.float64)
        elif m.probA is not None:
            est.prob_sigma_ = float(m.probA[0])
    X = SV.toarray() if SV.shape[1] <= 4096 else SV
    support = np.arange(X.shape[0])
    if m.kernel_type == "precomputed":  # Gram columns are serial numbers 1, 2, ...: support_
        serial = m.sv_serial if m.svm_type not in _CLASSIFIERS else m.sv_serial[rows]
        support = np.asarray(serial, dtype=np.int64) - 1
        n = int(support.max()) + 1 if support.size else 0
        X = np.empty((0, n))
        est.shape_fit_ = (n, n)
    else:
        est.shape_fit_ = X.shape
    est._gamma_ = float(m.gamma) if m.gamma > 0 else 1.0 / max(1, X.shape[1])
    est.n_features_in_ = X.shape[1]
    est.fit_status_ = 0
    est.n_iter_ = 0
    est.result_ = []
    est._make_model(X, support, np.asarray(dual, np.float64), np.asarray(intercept))
    return est


def libsvm_from_estimator(
    est: Any, label_order: Any = None, serials: Any = None
) -> LibsvmModelData:
    """The LIBSVM model of a fitted SVC / SVR (NuSVC, NuSVR, OneClassSVM where svmkit has
    them). label_order puts the classes in that order (default: increasing). A precomputed
    kernel's SVs are written as their training samples' serial numbers: serials[i] for
    training sample i (default i + 1)."""
    from sklearn.utils.validation import check_is_fitted

    import svmkit

    svm_type = None
    for t, name in _LIBSVM_ESTIMATORS.items():
        cls = getattr(svmkit, name, None)
        if cls is not None and type(est) is cls:
            svm_type = t
    if svm_type is None:
        raise TypeError(
            f"LIBSVM model files hold SVC, SVR, NuSVC, NuSVR or OneClassSVM models, not "
            f"{type(est).__name__}"
        )
    check_is_fitted(est, "_model")
    if est.kernel not in _SVMKIT_KERNELS and est.kernel != "gaussian":
        raise ValueError(f"LIBSVM has no kernel {est.kernel!r}")
    if getattr(est, "regularize_intercept", False):
        raise ValueError("LIBSVM's bias is not regularized; refit with regularize_intercept=False")
    kernel = "rbf" if est.kernel == "gaussian" else _SVMKIT_KERNELS[est.kernel]
    serial = None
    if est.kernel == "precomputed":
        support = np.asarray(est.support_, dtype=np.int64)
        serial = support + 1 if serials is None else np.asarray(serials, np.int64)[support]
        SV = sp.csr_matrix((support.shape[0], 0), dtype=np.float64)
    else:
        SV = sp.csr_matrix(est.support_vectors_, dtype=np.float64)
    dual_coef = est.dual_coef_.toarray() if sp.issparse(est.dual_coef_) else est.dual_coef_
    dual = np.atleast_2d(np.asarray(dual_coef, dtype=np.float64))
    intercept = np.atleast_1d(np.asarray(est.intercept_, dtype=np.float64))
    labels = nr = prob_a = prob_b = None
    if svm_type in _CLASSIFIERS:
        classes = list(np.asarray(est.classes_).tolist())
        if len(classes) == 2:
            coef, rho = -dual, intercept.copy()
        else:
            coef, rho = dual, -intercept
        nr = [int(v) for v in est.n_support_]
        labels = classes
        if label_order is not None:
            order = list(np.asarray(label_order).tolist())
            if sorted(order) != sorted(classes):
                raise ValueError("label_order must list the estimator's classes")
            rows, coef, rho, nr = _reorder_ovo(classes, nr, coef, rho, order)
            SV, labels = SV[rows], order
            serial = None if serial is None else serial[rows]
        if getattr(est, "probability", False) and np.size(est.probA_):
            prob_a, prob_b = _reorder_pairs(classes, labels, est.probA_, est.probB_)
    else:
        coef, rho = dual, -intercept
        if svm_type != "one_class" and getattr(est, "prob_sigma_", None):
            prob_a = np.array([float(est.prob_sigma_)])
    marks = getattr(est, "prob_density_marks_", None) if svm_type == "one_class" else None
    return LibsvmModelData(
        svm_type,
        kernel,
        SV,
        coef,
        rho,
        degree=int(est.degree),
        gamma=float(est._gamma_),
        coef0=float(est.coef0),
        labels=labels,
        nr_sv=nr,
        probA=prob_a,
        probB=prob_b,
        sv_serial=serial,
        prob_density_marks=None if marks is None else np.asarray(marks, dtype=np.float64),
    )


def load_libsvm_model(path: Any, n_features: int | None = None) -> Any:
    """A fitted svmkit estimator from a LIBSVM model file."""
    return estimator_from_libsvm(read_libsvm_model(path, n_features))


def save_libsvm_model(path: Any, est: Any, label_order: Any = None) -> None:
    """Write a fitted SVC / SVR (NuSVC / NuSVR / OneClassSVM) as a LIBSVM model file."""
    write_libsvm_model(path, libsvm_from_estimator(est, label_order))
