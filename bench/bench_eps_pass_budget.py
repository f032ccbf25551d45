"""LinearSVR() (the epsilon-insensitive loss) on few features: dual_cd's pass budget before ipm
finishes (_solvers.IPM_EPS_DUAL_MAX_PASSES, since 2026-12-07).

solver="auto" runs dual_cd (LIBLINEAR -s 13's dual) first and, where it ends uncertified on data
with at most IPM_EPS_MAX_FEATURES features, hands the problem to ipm. Each column is the
default LinearSVR() with dual_cd's first run given that many passes (max_passes; "none": only
max_iter ends it, the rule before), in ms (best of 5, or fewer above 2 s), with the solver that
finished and (F - F_best) / |F_best| against the lowest objective of the row. Then scikit-learn's
LinearSVR(dual=True) at its defaults (LIBLINEAR -s 13 with scikit-learn's tol 1e-4 and max_iter
1000, uncertified where it warns). Data: the regime matrix's housing and abalone (../shared, y
standardized, 80% split), diabetes, and make_regression (noise 10, features on scales 0.2-2,
seeded), y as generated and standardized (where -s 13's dual stalls).

    python bench/bench_eps_pass_budget.py [--only NAME ...] [--out results/eps_pass_budget.md]
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
from bench_hinge_ipm import selected
from harness import best_time, data_set_parser, emit_table

BUDGETS = (0, 75, 100, 150)


def shared(path: str):
    def load():
        from bench_regimes import _shared

        try:
            d = _shared(path, None, "reg", None)
        except (FileNotFoundError, OSError):
            return None
        return d.Xtr, d.ytr

    return load


def diabetes():
    from sklearn.datasets import load_diabetes

    X, y = load_diabetes(return_X_y=True)
    return X[:331], (y[:331] - y.mean()) / y.std()


def regression(n: int, d: int, standardized: bool, scales: tuple = (0.2, 2.0)):
    """make_regression (noise 10, seeded) with its features multiplied by scales drawn in
    `scales`, y as generated or standardized."""

    def load():
        from sklearn.datasets import make_regression

        X, y = make_regression(n, d, noise=10.0, random_state=0)
        X = X * np.random.default_rng(0).uniform(*scales, d)
        return X, ((y - y.mean()) / y.std() if standardized else y)

    return load


def datasets() -> dict:
    sets = {
        "housing_scale 404 x 13": shared("housing/housing_scale"),
        "abalone_scale 3341 x 8": shared("abalone/abalone_scale"),
        "diabetes 331 x 10": diabetes,
    }
    for n, d in ((500, 16), (2000, 16), (5000, 32), (5000, 64), (20000, 32), (2000, 128)):
        for standardized in (False, True):
            tag = ", y standardized" if standardized else ""
            sets[f"make_regression {n} x {d}{tag}"] = regression(n, d, standardized)
    return sets


def fit(X, y, budget: int):
    """The default LinearSVR() with dual_cd's pass budget set through solver_options (the
    user's options take precedence over the finisher's first_options; 0: no budget)."""
    import svmkit

    return svmkit.LinearSVR(solver_options={"max_passes": budget}).fit(X, y)


def main() -> None:
    from sklearn.svm import LinearSVR as SkLinearSVR

    args = data_set_parser(__doc__).parse_args()
    rows = []
    for name, (X, y) in selected(datasets(), args.only):
        runs = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for budget in BUDGETS:
                sec, est = best_time(partial(fit, X, y, budget), 5)
                res = est.result_[0]
                runs.append((sec, res["objective"], res.get("finished_by", "dual_cd")))
            sk_sec, _ = best_time(partial(SkLinearSVR(dual=True).fit, X, y), 5)
        best = min(f for _, f, _ in runs)
        cells = [f"{s * 1e3:.2f} ({by}, {(f - best) / abs(best):+.0e})" for s, f, by in runs]
        row = f"| {name} | " + " | ".join(cells) + f" | {sk_sec * 1e3:.2f} |"
        print(row, flush=True)
        rows.append(row)
    labels = [f"{b} passes" if b else "none" for b in BUDGETS]
    emit_table(["data", *labels, "sklearn LinearSVR ms"], rows, args.out)


if __name__ == "__main__":
    main()
