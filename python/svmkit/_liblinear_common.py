"""Helpers shared by svmkit.liblinearutil and svmkit.svmutil: the LIBSVM data format reader,
the accuracy triple and the conversion of the official packages' instance formats."""

from __future__ import annotations

import os
import sys
from typing import Any

import numpy as np
import scipy.sparse as sp

__all__ = [
    "evaluations",
    "first_occurrence",
    "folds",
    "parse_predict_options",
    "report_cross_validation",
    "report_predictions",
    "svm_read_problem",
    "to_csr",
]


def svm_read_problem(data_source: Any, return_scipy: bool = False) -> tuple[Any, Any]:
    """Read a LIBSVM-format file (a path or an open text file).

    Returns (y, x) with y a list of floats and x a list of {index: value} dicts, or with
    return_scipy=True y an ndarray and x a CSR matrix whose column j holds index j + 1 (column
    j holds index j when the file uses index 0), as the official packages do."""
    own = not hasattr(data_source, "read")
    fh = open(os.fspath(data_source), encoding="ascii") if own else data_source
    ys: list[float] = []
    rows: list[dict[int, float]] = []
    try:
        for lineno, line in enumerate(fh, 1):
            parts = line.split("#", 1)[0].split()
            if not parts:
                continue
            try:
                ys.append(float(parts[0]))
                row = {}
                for item in parts[1:]:
                    k, v = item.split(":", 1)
                    row[int(k)] = float(v)
            except ValueError:
                where = getattr(fh, "name", None) or "svm_read_problem"
                msg = f"{where}: malformed line {lineno}: {line.strip()!r}"
                raise ValueError(msg) from None
            rows.append(row)
    finally:
        if own:
            fh.close()
    if not return_scipy:
        return ys, rows
    start = 0 if any(0 in r for r in rows) else 1
    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    for r in rows:
        for k, v in r.items():
            if v != 0.0:
                indices.append(k - start)
                data.append(v)
        indptr.append(len(indices))
    ncol = max(indices) + 1 if indices else 0
    X = sp.csr_matrix((data, indices, indptr), shape=(len(rows), ncol), dtype=np.float64)
    return np.asarray(ys, dtype=np.float64), X


def to_csr(x: Any, index_start: int = 1) -> sp.csr_matrix:
    """The official packages' instances as a CSR matrix whose column j is feature j + 1:
    a list of {index: value} dicts (index_start-based), a list of dense rows, a 2-D ndarray
    or a scipy sparse matrix."""
    if sp.issparse(x):
        return sp.csr_matrix(x, dtype=np.float64)
    if isinstance(x, np.ndarray):
        if x.ndim != 2:
            raise ValueError("x must be 2-D")
        return sp.csr_matrix(x.astype(np.float64))
    if not isinstance(x, (list, tuple)):
        raise TypeError("x must be a list of dicts or lists, an ndarray or a scipy matrix")
    indptr = [0]
    indices: list[int] = []
    data: list[float] = []
    for xi in x:
        if isinstance(xi, dict):
            items = [(int(k) - index_start, float(v)) for k, v in xi.items()]
            items = [(k, v) for k, v in items if k >= 0]
        elif isinstance(xi, (list, tuple, np.ndarray)):
            items = [(j, float(v)) for j, v in enumerate(xi)]
        else:
            raise TypeError("each instance must be a dict or a list")
        items.sort()
        for k, v in items:
            if v != 0.0:
                indices.append(k)
                data.append(v)
        indptr.append(len(indices))
    ncol = max(indices) + 1 if indices else 0
    return sp.csr_matrix((data, indices, indptr), shape=(len(x), ncol), dtype=np.float64)


def evaluations(ty: Any, pv: Any) -> tuple[float, float, float]:
    """(accuracy in percent, mean squared error, squared correlation coefficient) of the
    predicted values pv against the true values ty."""
    t = np.asarray(ty, dtype=np.float64)
    p = np.asarray(pv, dtype=np.float64)
    if t.shape != p.shape:
        raise ValueError("ty and pv must have the same length")
    n = t.shape[0]
    if n == 0:
        return 0.0, 0.0, float("nan")
    acc = 100.0 * float(np.mean(t == p))
    mse = float(np.mean((t - p) ** 2))
    st, sp_, stp = t.sum(), p.sum(), (t * p).sum()
    den = (n * (p * p).sum() - sp_ * sp_) * (n * (t * t).sum() - st * st)
    num = (n * stp - sp_ * st) ** 2
    scc = float(num / den) if den != 0 else float("nan")
    return acc, mse, scc


def first_occurrence(y: np.ndarray) -> list:
    """The labels of y in the order of their first occurrence, with LIBLINEAR's and LIBSVM's
    exception: two labels -1 and +1 with -1 first are put as [+1, -1]."""
    _, first = np.unique(y, return_index=True)
    order = [y[i].item() for i in sorted(first)]
    if len(order) == 2 and order[0] == -1 and order[1] == 1:
        order = [1, -1]
    return order


def parse_predict_options(options: str, who: str) -> tuple[bool, bool]:
    """(probability, quiet) from predict's options: -b (nonzero: probabilities) and -q."""
    argv = options.split()
    probability, quiet = False, False
    i = 0
    while i < len(argv):
        if argv[i] == "-q":
            quiet = True
            i += 1
        elif argv[i] == "-b" and i + 1 < len(argv):
            try:  # as the C tools: any nonzero value asks for probabilities
                probability = int(argv[i + 1]) != 0
            except ValueError:
                raise ValueError(f"svmkit.{who}: bad value {argv[i + 1]!r} for -b") from None
            i += 2
        else:
            raise ValueError(f"svmkit.{who}: unknown option {argv[i]}")
    return probability, quiet


def report_predictions(y: Any, pred: np.ndarray, regression: bool, quiet: bool) -> tuple:
    """The (ACC, MSE, SCC) triple of pred against y (zeros when y is empty), printed as the
    tools' predict prints it unless quiet."""
    y = np.asarray(y, dtype=np.float64)
    if y.shape[0] == 0:
        y = np.zeros(pred.shape[0])
    acc, mse, scc = evaluations(y, pred)
    if not quiet:
        if regression:
            print(f"Mean squared error = {mse:g} (regression)")
            print(f"Squared correlation coefficient = {scc:g} (regression)")
        else:
            correct = int(round(acc * y.shape[0] / 100.0))
            print(f"Accuracy = {acc:g}% ({correct}/{y.shape[0]}) (classification)")
        sys.stdout.flush()
    return acc, mse, scc


def folds(n: int, nr_fold: int) -> list[np.ndarray]:
    """The -v folds: a seeded permutation of range(n) cut into nr_fold parts. More folds than
    data is leave-one-out, with the tools' warning on stderr."""
    if nr_fold > n:
        print(
            "WARNING: # folds > # data. Will use # folds = # data instead (i.e., leave-one-out "
            "cross validation)",
            file=sys.stderr,
        )
        nr_fold = n
    return np.array_split(np.random.default_rng(0).permutation(n), nr_fold)


def report_cross_validation(y: np.ndarray, pred: np.ndarray, regression: bool) -> float:
    """-v's figure (MSE for regression, accuracy in percent otherwise), printed as the tools
    print it: always (-q silences the training output only), with the squared correlation
    coefficient after the MSE."""
    acc, mse, scc = evaluations(y, pred)
    if regression:
        print(f"Cross Validation Mean squared error = {mse:g}")
        print(f"Cross Validation Squared correlation coefficient = {scc:g}")
    else:
        print(f"Cross Validation Accuracy = {acc:g}%")
    sys.stdout.flush()
    return mse if regression else acc
