"""ipm on few features beside the rule it replaced and the anchor: the l1 / elastic-net hinge
SVM (LinearSVC) and the epsilon-insensitive SVR (LinearSVR).

solver="auto" sends LinearSVC(loss="hinge", penalty="l1" | "elasticnet") with at most
IPM_MAX_FEATURES features to ipm (svmkit/_solvers.py). This measures, per data set and penalty,
in one process (best of 3, or one fit above 2 s):

- "ipm": LinearSVC(solver="ipm") at its defaults (tol 1e-4, certified by its duality gap);
- "rule above": LinearSVC(solver="auto") with IPM_MAX_FEATURES set to 0, i.e. what the default
  was before (l1_cd with its HiGHS / smsvm finishers, dual_cd's elastic-net dual, smsvm);
- "sgd": scikit-learn's SGDClassifier with the same penalty (the regime matrix's anchor for these
  cells, an approximate method: not the same optimum);

and the relative difference of the two svmkit objectives (summed over the one-vs-rest fits).
Then LinearSVR() (epsilon-insensitive, IPM_EPS_MAX_FEATURES): "ipm" beside solver="dual_cd" (what
the rule picked before) and scikit-learn's LinearSVR (its default tol and max_iter).
Data: scikit-learn's bundled sets, seeded generators, and $SVMKIT_SHARED_DIR's dna.scale, a9a and
mushrooms where present.

    python bench/bench_hinge_ipm.py [--only NAME ...] [--out results/hinge_ipm.md] [--svr-only]
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
from harness import best_time, data_set_parser


def shared(name: str):
    """A loader of $SVMKIT_SHARED_DIR's set `name`, giving None where it is absent."""
    from svmkit.datasets import load_shared

    def load():
        try:
            return load_shared(name)
        except (FileNotFoundError, OSError):
            return None

    return load


def selected(sets: dict, only) -> list:
    """(name, (X, y)) of the sets whose name holds one of `only` (all without it) and that load."""
    out = []
    for name, load in sets.items():
        if only and not any(s in name for s in only):
            continue
        data = load()
        if data is None:
            print(f"{name}: not found (set SVMKIT_SHARED_DIR)", flush=True)
            continue
        out.append((name, data))
    return out


def datasets() -> dict:
    from sklearn.datasets import load_breast_cancer, load_digits, load_iris, make_classification
    from svmkit.datasets import make_sparse_text_like, make_two_gaussians

    def standardized_cancer():
        X, y = load_breast_cancer(return_X_y=True)
        return (X - X.mean(0)) / X.std(0), y

    return {
        "dna.scale": shared("dna.scale"),
        "a9a": shared("a9a"),
        "mushrooms": shared("mushrooms"),
        "breast_cancer standardized": standardized_cancer,
        "breast_cancer raw": lambda: load_breast_cancer(return_X_y=True),
        "iris": lambda: load_iris(return_X_y=True),
        "digits": lambda: load_digits(return_X_y=True),
        "make_classification 2000 x 500": lambda: make_classification(2000, 500, random_state=0),
        "make_classification 5000 x 200": lambda: make_classification(5000, 200, random_state=0),
        "two_gaussians 100000 x 50": lambda: make_two_gaussians(100000, 50, random_state=0),
        "sparse text 5000 x 1000 (above the threshold)": lambda: make_sparse_text_like(
            5000, 1000, 0.02, label_noise=0.05, random_state=0
        ),
    }


def regressions() -> dict:
    from sklearn.datasets import load_diabetes, make_regression

    def scaled(n, d):
        def load():
            X, y = make_regression(n, d, noise=10.0, random_state=0)
            return X * np.logspace(0, 1, d) / 5.0, y

        return load

    sets = {
        "housing_scale": shared("housing_scale"),
        "abalone_scale": shared("abalone_scale"),
        "diabetes": lambda: load_diabetes(return_X_y=True),
    }
    for n, d in [(500, 16), (2000, 16), (5000, 32), (5000, 64), (20000, 32), (2000, 128)]:
        sets[f"make_regression {n} x {d}, scales 0.2-2"] = scaled(n, d)
    return sets


def svr_rows(only) -> list[str]:
    import svmkit
    from sklearn.svm import LinearSVR as SkLinearSVR

    rows = [
        "| data | shape | ipm | dual_cd (status) | sklearn LinearSVR | dual_cd / ipm "
        "| (F_dual_cd - F_ipm) / F_ipm | ipm iterations |",
        "|---|---|---|---|---|---|---|---|",
    ]
    print(rows[0], flush=True)
    for name, (X, y) in selected(regressions(), only):
        y = (y - y.mean()) / y.std()

        def fit(solver, X=X, y=y):
            return svmkit.LinearSVR(solver=solver).fit(X, y)

        t_ipm, m_ipm = best_time(lambda: fit("ipm"))
        t_dcd, m_dcd = best_time(lambda: fit("dual_cd"))
        t_sk, _ = best_time(lambda X=X, y=y: SkLinearSVR(dual=True).fit(X, y))
        f_ipm, f_dcd = m_ipm.result_[0]["objective"], m_dcd.result_[0]["objective"]
        status = str(m_dcd.result_[0]["status"]).split(".")[-1]
        row = (
            f"| {name} | {X.shape[0]} x {X.shape[1]} | {t_ipm * 1e3:.2f} ms "
            f"| {t_dcd * 1e3:.2f} ms ({status}) | {t_sk * 1e3:.2f} ms | {t_dcd / t_ipm:.2f} "
            f"| {(f_dcd - f_ipm) / f_ipm:.1e} | {m_ipm.result_[0]['iterations']} |"
        )
        rows.append(row)
        print(row, flush=True)
    return rows


def main() -> None:
    ap = data_set_parser(__doc__)
    ap.add_argument("--svr-only", action="store_true", help="only the LinearSVR table")
    args = ap.parse_args()
    import scipy.sparse as sp
    import svmkit
    from sklearn.linear_model import SGDClassifier
    from svmkit import _solvers

    warnings.simplefilter("ignore")
    rows = [
        "| data | shape | penalty | ipm | rule above (its solver) | sgd | rule above / ipm "
        "| (F_rule - F_ipm) / F_ipm | ipm iterations |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    print(rows[0], flush=True)
    for name, (X, y) in selected({} if args.svr_only else datasets(), args.only):
        Xs = X
        if sp.issparse(X):  # scikit-learn takes 32-bit indices only
            Xs = sp.csr_matrix(X)
            Xs.indices = Xs.indices.astype(np.int32)
            Xs.indptr = Xs.indptr.astype(np.int32)
        for penalty in ("l1", "elasticnet"):

            def fit_ipm(penalty=penalty, X=X, y=y):
                return svmkit.LinearSVC(loss="hinge", penalty=penalty, solver="ipm").fit(X, y)

            def fit_rule(penalty=penalty, X=X, y=y):
                saved = _solvers.IPM_MAX_FEATURES
                _solvers.IPM_MAX_FEATURES = 0
                try:
                    return svmkit.LinearSVC(loss="hinge", penalty=penalty).fit(X, y)
                finally:
                    _solvers.IPM_MAX_FEATURES = saved

            def fit_sgd(penalty=penalty, Xs=Xs, y=y):
                return SGDClassifier(loss="hinge", penalty=penalty).fit(Xs, y)

            t_ipm, m_ipm = best_time(fit_ipm)
            t_rule, m_rule = best_time(fit_rule)
            t_sgd, _ = best_time(fit_sgd)
            f_ipm = sum(r["objective"] for r in m_ipm.result_)
            f_rule = sum(r["objective"] for r in m_rule.result_)
            finished = {r.get("finished_by") for r in m_rule.result_} - {None}
            solver = m_rule.solver_ + (f" -> {'/'.join(sorted(finished))}" if finished else "")
            its = [int(r["iterations"]) for r in m_ipm.result_]
            row = (
                f"| {name} | {X.shape[0]} x {X.shape[1]} | {penalty} | {t_ipm * 1e3:.1f} ms "
                f"| {t_rule * 1e3:.1f} ms ({solver}) | {t_sgd * 1e3:.1f} ms "
                f"| {t_rule / t_ipm:.2f} | {(f_rule - f_ipm) / f_ipm:.1e} "
                f"| {min(its)}-{max(its)} |"
            )
            rows.append(row)
            print(row, flush=True)
    rows += ["", *svr_rows(args.only)]
    if args.out:
        Path(args.out).write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
