"""ipm's sample form on dense data with fewer samples than features, beside the feature form and
the rule for the hinge elastic net.

ipm's normal equations are (n_features + 1)-square in their feature form; with fewer samples
than features (a working set larger than the data's rows, or wide data with the l2 penalty) the
sample form (n_samples-square, Woodbury's identity with iterative refinement; cpp/src/ipm.cpp,
factor_samples) costs less per iteration, and near-violators join the working set with the
violators. This measures, per data set and C, in one process (best of 3, or one fit above 2 s),
LinearSVC(loss="hinge") at tol 1e-4:

- penalty "l1": solver="auto" (ipm in the form it picks) and ipm with system_form="features"
  (the method before the sample form);
- penalty "elasticnet" (l1_ratio 0.5): solver="auto" (ipm) and the rule before (auto with
  ipm's choice for the dense wide hinge elastic net turned back into l1_cd's continuation and
  its finishers);
- scikit-learn's SGDClassifier(penalty=...) at C = 1 (the regime matrix's anchor for these
  cells; an approximate method, not the same optimum);

and the relative difference of the svmkit objectives of each pair (second - first) / first.
Data: make_classification and make_two_gaussians (the regime matrix's wide dense cell: 300 x
5,000, its 240 training rows).

    python bench/bench_ipm_sample_form.py [--only NAME ...] [--out results/ipm_sample_form.md]
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
from bench_l1_hinge_wide import dense, finished
from harness import best_time, data_set_parser, emit_table

_RULE = None  # svmkit._solvers.auto_solver_name, set in main


def two_gaussians(n: int, d: int):
    def load():
        from svmkit.datasets import make_two_gaussians

        X, y = make_two_gaussians(n, d, random_state=0)
        return X[: int(0.8 * n)], y[: int(0.8 * n)]

    return load


def datasets() -> dict:
    sets = {}
    for n, d, informative in [
        (100, 1_000, 20),
        (200, 1_000, 20),
        (300, 5_000, 50),
        (500, 2_000, 50),
        (800, 1_000, 50),
        (200, 20_000, 30),
        (1_000, 3_000, 50),
    ]:
        sets[f"make_classification {n} x {d}"] = dense(n, d, informative)
    sets["two_gaussians 300 x 5000 (240 rows)"] = two_gaussians(300, 5_000)
    return sets


def objective(est, X, y, C: float, l1: float, l2: float) -> float:
    """l1 ||w||_1 + l2/2 (||w||^2 + b^2 with l2 > 0) + C sum_i hinge_i."""
    w = est.coef_.ravel()
    b = est.intercept_[0]
    z = X @ w + b
    s = np.where(y == est.classes_[1], 1.0, -1.0)
    pen = l1 * np.abs(w).sum() + 0.5 * l2 * (w @ w + b * b)
    return float(pen + C * np.maximum(0.0, 1.0 - s * z).sum())


def fit(X, y, C: float, penalty: str, **kw):
    import svmkit

    return svmkit.LinearSVC(loss="hinge", penalty=penalty, C=C, **kw).fit(X, y)


def rule_before(*args, **kwargs):
    """auto_solver_name with the dense wide hinge elastic net sent to l1_cd (before 2026-12-07)."""
    name = _RULE(*args, **kwargs)
    penalty = kwargs.get("penalty", args[1] if len(args) > 1 else None)
    return "l1_cd" if name == "ipm" and penalty == "elasticnet" else name


def fit_before(X, y, C: float, penalty: str, **kw):
    from svmkit import _solvers

    _solvers.auto_solver_name = rule_before
    try:
        return fit(X, y, C, penalty, **kw)
    finally:
        _solvers.auto_solver_name = _RULE


def main() -> None:
    args = data_set_parser(__doc__).parse_args()
    from sklearn.linear_model import SGDClassifier
    from svmkit import _solvers

    global _RULE
    _RULE = _solvers.auto_solver_name
    rows = []
    features = {"solver": "ipm", "solver_options": {"system_form": "features"}}
    pairs = [
        ("l1", 1.0, 0.0, fit, {}, features),
        ("elasticnet", 0.5, 0.5, fit_before, {"l1_ratio": 0.5}, {"l1_ratio": 0.5}),
    ]
    for name, load in datasets().items():
        if args.only and not any(s in name for s in args.only):
            continue
        X, y = load()
        for penalty, l1, l2, fit_second, first, second in pairs:
            for C in (0.1, 1.0):
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    t_a, e_a = best_time(partial(fit, X, y, C, penalty, **first))
                    t_b, e_b = best_time(partial(fit_second, X, y, C, penalty, **second))
                f_a, f_b = objective(e_a, X, y, C, l1, l2), objective(e_b, X, y, C, l1, l2)
                sgd = ""
                if C == 1.0:
                    t_sgd, _ = best_time(partial(SGDClassifier(penalty=penalty).fit, X, y))
                    sgd = f"{t_sgd * 1e3:.1f}"
                warned = "; ".join(sorted({str(w.message)[:60] for w in caught}))
                row = (
                    f"| {name} | {penalty} | {C:g} | {finished(e_a)} {t_a * 1e3:.1f} | "
                    f"{finished(e_b)} {t_b * 1e3:.1f} | {sgd} | {(f_b - f_a) / abs(f_a):+.1e} | "
                    f"{warned} |"
                )
                print(row, flush=True)
                rows.append(row)
    columns = ["data", "penalty", "C", "auto, ms"]
    columns += ["l1: ipm's feature form / elasticnet: rule before, ms", "sgd ms"]
    columns += ["F rel. diff (second - auto)", "warnings"]
    emit_table(columns, rows, args.out)


if __name__ == "__main__":
    main()
