"""TRON's duality-gap stop beside LIBLINEAR's gradient rule alone, and the anchors.

On a smooth loss with the intercept regularized or absent, TRON also stops once
||grad F||^2 / (2 F) <= min(tol, 1e-4) (solvers/tron.hpp, option gap_stop): a certified relative
gap (F is 1-strongly convex). This measures, per data set and loss, in one process (best of 5,
or fewer above 2 s), LinearSVC / LinearSVR(solver="tron") at the default tol 1e-4:

- "gap stop": the default;
- "gradient rule": solver_options={"gap_stop": False}, the rule before (LIBLINEAR -s 2's);
- for the squared hinge, liblinear-official -s 1 at its default eps 0.1 and -s 2 at its default
  0.01 (the regime matrix's eligible anchors for LinearSVC() there);

Newton iterations, and the relative difference of the two objectives (summed over the
one-vs-rest fits), gradient rule - gap stop.
Data: make_sparse_text_like shapes, the regime matrix's sparse 20,000 x 10,000 split,
scikit-learn's digits, and $SVMKIT_SHARED_DIR's a9a, mushrooms and dna.scale where present.

    python bench/bench_tron_gap_stop.py [--only NAME ...] [--out results/tron_gap_stop.md]
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
from bench_hinge_ipm import selected
from harness import best_time, data_set_parser, emit_table

LOSSES = ("squared_hinge", "logistic", "smoothed_hinge", "squared_epsilon_insensitive")


def text(n: int, d: int, nnz: int, split: bool = False):
    def load():
        from sklearn.model_selection import train_test_split
        from svmkit.datasets import make_sparse_text_like

        X, y = make_sparse_text_like(n, d, nnz / d, label_noise=0.05, random_state=0)
        if split:  # the regime matrix's training rows (bench_regimes.py's _split)
            X, _, y, _ = train_test_split(X, y, train_size=0.8, random_state=0, stratify=y)
        return X, y

    return load


def shared(name: str, n_features: int | None = None):
    def load():
        from svmkit.datasets import load_shared

        try:
            return load_shared(name, n_features=n_features)
        except (FileNotFoundError, OSError):
            return None

    return load


def digits():
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler

    X, y = load_digits(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def datasets() -> dict:
    return {
        "regime sparse 20000 x 10000 (16,000 rows)": text(20000, 10000, 50, split=True),
        "text 2000 x 50000, 60/row": text(2000, 50000, 60),
        "text 50000 x 20000, 60/row": text(50000, 20000, 60),
        "text 100000 x 1000, 20/row": text(100000, 1000, 20),
        "text 5000 x 2000, 100/row": text(5000, 2000, 100),
        "digits (standardized)": digits,
        "a9a": shared("a9a/a9a", 123),
        "mushrooms": shared("mushrooms/mushrooms"),
        "dna.scale": shared("dna/dna.scale", 180),
    }


def fit(X, y, loss: str, gap_stop: bool):
    import svmkit

    options = {"gap_stop": gap_stop}
    if loss.endswith("epsilon_insensitive"):
        return svmkit.LinearSVR(loss=loss, solver="tron", solver_options=options).fit(X, y)
    return svmkit.LinearSVC(loss=loss, solver="tron", solver_options=options).fit(X, y)


def liblinear_times(X, y) -> str:
    """-s 1 (eps 0.1) and -s 2 (eps 0.01) on the one-vs-rest problems of y, summed."""
    import liblinear.liblinearutil as ll

    classes = np.unique(y)
    targets = [classes[-1]] if len(classes) == 2 else classes
    out = []
    for s in (1, 2):
        probs = [ll.problem(np.where(y == c, 1, -1).tolist(), X) for c in targets]
        t, _ = best_time(lambda s=s, probs=probs: [ll.train(p, f"-s {s} -q") for p in probs], 5)
        out.append(f"-s {s} {t * 1e3:.1f}")
    return "; ".join(out)


def main() -> None:
    args = data_set_parser(__doc__).parse_args()
    rows = []
    for name, (X, y) in selected(datasets(), args.only):
        y_reg = None
        for loss in LOSSES:
            target = y
            if loss.endswith("epsilon_insensitive"):
                if y_reg is None:  # a seeded linear target with noise, standardized
                    rng = np.random.default_rng(0)
                    z = np.asarray(X @ rng.standard_normal(X.shape[1])).ravel()
                    y_reg = (z - z.mean()) / (z.std() or 1.0) + 0.3 * rng.standard_normal(len(z))
                target = y_reg
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t_a, e_a = best_time(partial(fit, X, target, loss, True), 5)
                t_b, e_b = best_time(partial(fit, X, target, loss, False), 5)
            f_a = sum(r["objective"] for r in e_a.result_)
            f_b = sum(r["objective"] for r in e_b.result_)
            anchors = liblinear_times(X, y) if loss == "squared_hinge" else ""
            row = (
                f"| {name} | {loss} | {t_a * 1e3:.1f} ({e_a.n_iter_}) | "
                f"{t_b * 1e3:.1f} ({e_b.n_iter_}) | {t_a / t_b:.2f} | {(f_b - f_a) / f_a:+.1e} | "
                f"{anchors} |"
            )
            print(row, flush=True)
            rows.append(row)
    columns = ["data", "loss", "gap stop, ms (iterations)", "gradient rule, ms (iterations)"]
    columns += ["ratio", "F rel. diff (rule - gap)", "liblinear ms (default eps)"]
    emit_table(columns, rows, args.out)


if __name__ == "__main__":
    main()
