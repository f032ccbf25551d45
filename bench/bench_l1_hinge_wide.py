"""ipm's feature working set on the pure l1 hinge SVM with many features, beside the rule it
would replace and the anchor.

LinearSVC(loss="hinge", penalty="l1") on data with more than IPM_MAX_FEATURES features goes to
l1_cd's smoothing continuation (svmkit/_solvers.py). ipm on such data runs over a working set of
features (cpp/src/ipm.cpp, solve_working_set: column generation certified on all features). This
measures, per data set and C, in one process (best of 3, or one fit above 2 s):

- "auto": LinearSVC() at its defaults (tol 1e-4): ipm, and l1_cd from ipm's point where the
  optimum needs more than ipm's working_set_max_features;
- "l1_cd": the rule before (solver="auto" with the working-set rule switched off);
- "sgd": scikit-learn's SGDClassifier(penalty="l1") (the regime matrix's anchor for these cells,
  an approximate method: not the same optimum; at C = 1 only);

and the relative difference of the two svmkit objectives (F_ipm - F_l1cd) / F_l1cd.
Data: make_sparse_text_like (svmkit.datasets) at several shapes, and scikit-learn's
make_classification (dense, wide).

    python bench/bench_l1_hinge_wide.py [--only NAME ...] [--out results/l1_hinge_wide.md]
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
from harness import best_time, data_set_parser, emit_table


def text(n: int, d: int, nnz: int, noise: float = 0.05):
    def load():
        import scipy.sparse as sp
        from svmkit.datasets import make_sparse_text_like

        X, y = make_sparse_text_like(n, d, nnz / d, label_noise=noise, random_state=0)
        return sp.csr_matrix(X), y

    return load


def dense(n: int, d: int, informative: int):
    def load():
        from sklearn.datasets import make_classification

        return make_classification(n, d, n_informative=informative, random_state=0)

    return load


def datasets() -> dict:
    sets = {}
    for n, d, nnz in [
        (500, 5_000, 30),
        (1_600, 50_000, 60),
        (2_000, 20_000, 100),
        (2_000, 200_000, 60),
        (4_000, 10_000, 50),
        (5_000, 50_000, 50),
        (8_000, 10_000, 50),
        (16_000, 10_000, 50),
        (1_000, 1_000, 20),
        (50_000, 2_000, 20),
        (100_000, 1_000, 10),
    ]:
        sets[f"text {n} x {d}, {nnz}/row"] = text(n, d, nnz)
    sets["text 1600 x 50000, 60/row, 20% noise"] = text(1_600, 50_000, 60, 0.2)
    for n, d, informative in [
        (100, 1_000, 20),
        (300, 5_000, 50),
        (500, 2_000, 50),
        (200, 20_000, 30),
    ]:
        sets[f"dense {n} x {d}, {informative} informative"] = dense(n, d, informative)
    return sets


def objective(est, X, y, C: float) -> float:
    """||w||_1 + C sum_i max(0, 1 - y_i (w.x_i + b)) (the pure l1 hinge's bias is free)."""
    w = est.coef_.ravel()
    z = np.asarray(X @ w).ravel() + est.intercept_[0]
    s = np.where(y == est.classes_[1], 1.0, -1.0)
    return float(np.abs(w).sum() + C * np.maximum(0.0, 1.0 - s * z).sum())


def fit_l1(X, y, C: float):
    import svmkit

    return svmkit.LinearSVC(loss="hinge", penalty="l1", C=C).fit(X, y)


def finished(est) -> str:
    """The solver(s) of the fit: 'ipm -> l1_cd' where l1_cd finished ipm's run."""
    by = est.result_[0].get("finished_by", est.solver_)
    return est.solver_ if by == est.solver_ else f"{est.solver_} -> {by}"


def main() -> None:
    args = data_set_parser(__doc__).parse_args()
    from sklearn.linear_model import SGDClassifier
    from svmkit import _solvers

    rows = []
    for name, load in datasets().items():
        if args.only and not any(s in name for s in args.only):
            continue
        X, y = load()
        for C in (0.1, 1.0, 10.0):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                t_ipm, e_ipm = best_time(partial(fit_l1, X, y, C))
                saved = _solvers.IPM_L1_WIDE_RATIO
                _solvers.IPM_L1_WIDE_RATIO = 0
                try:
                    t_cd, e_cd = best_time(partial(fit_l1, X, y, C))
                finally:
                    _solvers.IPM_L1_WIDE_RATIO = saved
            f_ipm, f_cd = objective(e_ipm, X, y, C), objective(e_cd, X, y, C)
            sgd = ""
            if C == 1.0:
                t_sgd, _ = best_time(partial(SGDClassifier(penalty="l1").fit, X, y))
                sgd = f"{t_sgd * 1e3:.1f}"
            warned = "; ".join(sorted({str(w.message)[:60] for w in caught}))
            row = (
                f"| {name} | {C:g} | {finished(e_ipm)} {t_ipm * 1e3:.1f} | {finished(e_cd)} "
                f"{t_cd * 1e3:.1f} | {sgd} | {(f_ipm - f_cd) / abs(f_cd):+.1e} | "
                f"{np.count_nonzero(e_ipm.coef_)} | {warned} |"
            )
            print(row, flush=True)
            rows.append(row)
    columns = ["data", "C", "auto, ms", "rule before, ms", "sgd ms", "F rel. diff"]
    emit_table(columns + ["nnz(w), auto", "warnings"], rows, args.out)


if __name__ == "__main__":
    main()
