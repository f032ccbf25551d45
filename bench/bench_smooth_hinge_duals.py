"""The smoothed hinges (psi_M, psi_G) on dense data with few samples per feature: tron's two
stopping rules beside dual_cd's conjugate duals, against the optimum.

LinearSVC(loss=..., solver=...) at the default tol 1e-4, in one process (best of 3, or fewer
above 2 s):

- "tron, gradient rule": solver_options={"gap_stop": False}, LIBLINEAR's ||grad F|| <= tol
  ||grad F(0)|| alone (where it came first, the default before 2026-12-07);
- "tron, gap": the default since then for these losses, ||grad F||^2 / (2 F) <= min(tol, 1e-4)
  alone (_core.tron_gradient_tol);
- "dual_cd": the conjugate duals (psi_G's since 2026-12-07), certified by their relative gap;
  solver="auto" takes them on dense data with n_samples <= 1.5 n_features
  (_solvers.SMOOTH_HINGE_DENSE_RATIO).

Each with (F - F*) / F*, F* from scipy's L-BFGS-B run to its tightest tolerances
(tests/references.py). Data: make_classification (50 informative features) and
make_two_gaussians, seeded; the regime matrix's wide dense split (240 x 5,000).

    python bench/bench_smooth_hinge_duals.py [--only NAME ...] [--out results/smooth_hinge_duals.md]
"""

from __future__ import annotations

import sys
import warnings
from functools import partial
from pathlib import Path

import numpy as np
from bench_hinge_ipm import selected
from harness import best_time, data_set_parser, emit_table

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

LOSSES = ("smoothed_hinge", "gaussian_smoothed_hinge")
SOLVERS = (("tron", False), ("tron", True), ("dual_cd", True))


def classification(n: int, d: int):
    def load():
        from sklearn.datasets import make_classification

        return make_classification(n, d, n_informative=50, random_state=0)

    return load


def gaussians(n: int, d: int):
    def load():
        from svmkit.datasets import make_two_gaussians

        return make_two_gaussians(n, d, random_state=0)

    return load


def regime_wide():
    from bench_regimes import _tall

    data = _tall(300, 5000)
    return data.Xtr, data.ytr


def datasets() -> dict:
    return {
        "regime wide dense 300 x 5000 (240 rows)": regime_wide,
        "make_classification 300 x 3000": classification(300, 3000),
        "make_classification 1500 x 1000": classification(1500, 1000),
        "make_classification 3000 x 1000": classification(3000, 1000),
        "make_two_gaussians 200 x 5000": gaussians(200, 5000),
        "make_two_gaussians 1500 x 1000": gaussians(1500, 1000),
    }


def fit(X, y, loss: str, C: float, solver: str, gap_stop: bool):
    import svmkit

    options = {"gap_stop": gap_stop} if solver == "tron" else {}
    return svmkit.LinearSVC(loss=loss, C=C, solver=solver, solver_options=options).fit(X, y)


def main() -> None:
    from references import lbfgs_optimum, smooth_objective

    args = data_set_parser(__doc__).parse_args()
    rows = []
    for name, (X, y) in selected(datasets(), args.only):
        t = np.where(y == np.unique(y)[1], 1.0, -1.0)
        for loss in LOSSES:
            for C in (1.0, 10.0):
                fg = smooth_objective(X, t, C, loss, 0.1, False)
                f_ref = lbfgs_optimum(fg, X.shape[1] + 1).fun
                cells = []
                for solver, gap_stop in SOLVERS:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        sec, est = best_time(partial(fit, X, y, loss, C, solver, gap_stop), 3)
                    f = fg(np.append(est.coef_.ravel(), est.intercept_[0]))[0]
                    status = est.result_[0]["status"].name
                    cells.append(f"{sec * 1e3:.1f} ({(f - f_ref) / f_ref:+.1e}, {status})")
                row = f"| {name} | {loss} | {C:g} | " + " | ".join(cells) + " |"
                print(row, flush=True)
                rows.append(row)
    columns = ["data", "loss", "C", "tron, gradient rule: ms ((F - F*) / F*, status)"]
    emit_table(columns + ["tron, gap", "dual_cd"], rows, args.out)


if __name__ == "__main__":
    main()
