"""Dense data in a sparse container, and the l2 hinge on small badly scaled dense data
(since 2026-12-07: _validation.dense_if_smaller, _solvers.ipm_takes_badly_scaled).

load_svmlight_file returns a CSR matrix for every LIBSVM-format file, dense ones included
(australian, breast-cancer, diabetes, housing, ...: every entry stored). Table 1 fits the
default estimators on such data twice, the CSR matrix as loaded and its dense form: solver="auto"
picked, fit time (ms, best of 5, or fewer above 2 s) and the primal objective (LIBLINEAR's,
summed over one-vs-rest; (F - F_best) / |F_best| against the lower of the two). Run it with the
package before the change (its CSR column is the old default) and after (both columns run dense).

Table 2: the l2 hinge on badly scaled dense data (C * mean ||x_i||^2 above HINGE_DUAL_SCALE)
with tron (the continuation auto picked there before) and ipm, named: ms and ipm's objective
against tron's. make_classification (features multiplied by scales drawn in 1-100, seeded) and
the raw LIBSVM sets. Table 3: the same for LinearSVR() (the epsilon-insensitive loss) on
make_regression (noise 10, features multiplied by scales drawn in 1-100, y as generated and
standardized). Table 4: SVC() / SparseSVC() / SVR() on the CSR matrix as loaded and on its
dense form (ms, best of 5, the largest |decision difference| between the two models); run
before and after as table 1. Table 5: liblinearutil.train(y, X, "-s N -q"), whose -s names the
solver, on the CSR matrix as loaded: with the storage rule switched off (dense_if_smaller
replaced by the identity: train before 2026-12-08) and on (ms, best of 5, alternately; the
largest |w| difference between the two models). Table 6: the predictions of SVC() / SVR()
fitted on the CSR matrix as loaded (sparse support vectors), on that matrix: evaluated as
given (the prediction storage rule off: _BaseKernel._prediction_inputs replaced by the
as-given views, the behaviour before 2026-12-08) and dense (on); ms, best of 5, alternately,
and the largest difference of the decision values.

    python bench/bench_dense_storage.py [--table 1|2|3|4|5|6] [--only NAME ...] [--out FILE]
"""

from __future__ import annotations

import warnings
from functools import partial

import numpy as np
from bench_eps_pass_budget import regression
from bench_hinge_ipm import selected
from bench_regimes import linear_objective
from harness import best_time, data_set_parser, emit_table

RAW = (
    "australian/australian",
    "breast-cancer/breast-cancer",
    "diabetes/diabetes",
    "fourclass/fourclass",
    "heart/heart_scale",
    "ionosphere/ionosphere",
    "sonar/sonar",
    "splice/splice",
    "svmguide1/svmguide1",
    "svmguide3/svmguide3",
    "iris/iris",
    "wine/wine",
    "glass/glass",
    "madelon/madelon.t",
)
REGRESSION = ("abalone/abalone_scale", "housing/housing_scale")
CLASSIFIERS = ({}, {"loss": "hinge"}, {"penalty": "l1"}, {"loss": "logistic"})


def shared(path: str, task: str):
    def load():
        from svmkit.datasets import load_shared

        try:
            X, y = load_shared(path)
        except (FileNotFoundError, OSError):
            return None
        if task == "reg":
            return X, (y - y.mean()) / y.std()
        return X, np.searchsorted(np.unique(y), y).astype(np.float64)

    return load


def raw_sets() -> dict:
    """The raw LIBSVM sets (RAW, REGRESSION) as loaders of their CSR matrices."""
    return {p: shared(p, "clf") for p in RAW} | {p: shared(p, "reg") for p in REGRESSION}


def scaled_classification(n: int, d: int):
    def load():
        from sklearn.datasets import make_classification

        X, y = make_classification(
            n, d, n_informative=min(d, 10), n_redundant=0, flip_y=0.05, random_state=0
        )
        return X * np.random.default_rng(0).uniform(1.0, 100.0, d), y.astype(np.float64)

    return load


def objective(est, X, y, task: str, params: dict) -> float:
    model = {
        "task": task,
        "penalty": params.get("penalty", "l2"),
        "loss": params.get("loss", "epsilon_insensitive" if task == "reg" else "squared_hinge"),
        "C": 1.0,
        "epsilon": 0.0,
    }
    return linear_objective(X, y, est.coef_, est.intercept_, model)


def storage_table(args) -> None:
    import svmkit

    sets = raw_sets()
    rows = []
    for name, (X, y) in selected(sets, args.only):
        task = "reg" if name in REGRESSION else "clf"
        Xd = X.toarray()
        kinds = (
            [(svmkit.LinearSVR, {})]
            if task == "reg"
            else [(svmkit.LinearSVC, p) for p in CLASSIFIERS]
        )
        for Est, params in kinds:
            runs = []
            for data in (X, Xd):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    sec, est = best_time(partial(Est(**params).fit, data, y), 5)
                runs.append((sec, est.solver_, objective(est, Xd, y, task, params)))
            best = min(f for _, _, f in runs)
            cells = [f"{s} {t * 1e3:.2f} ({(f - best) / abs(best):+.0e})" for t, s, f in runs]
            label = f"{Est.__name__}({', '.join(f'{k}={v!r}' for k, v in params.items())})"
            row = f"| {name} {X.shape[0]} x {X.shape[1]} | {label} | " + " | ".join(cells) + " |"
            print(row, flush=True)
            rows.append(row)
    emit_table(["data", "estimator", "CSR as loaded", "dense"], rows, args.out)


def hinge_table(args, epsilon_loss: bool = False) -> None:
    import svmkit
    from svmkit._solvers import auto_solver_name, hinge_dual_scale

    if epsilon_loss:
        loss, Est, task = "epsilon_insensitive", svmkit.LinearSVR, "reg"
        sets = {
            f"make_regression {n} x {d}, scales 1-100{', y standardized' if s else ''}": (
                regression(n, d, s, scales=(1.0, 100.0))
            )
            for d in (4, 20, 100)
            for n in (300, 1000, 3000)
            for s in (False, True)
        }
    else:
        loss, Est, task = "hinge", svmkit.LinearSVC, "clf"
        sets = {
            f"make_classification {n} x {d}, scales 1-100": scaled_classification(n, d)
            for d, ns in (
                (4, (500, 1000, 2000, 4000)),
                (20, (500, 1000, 2000, 4000)),
                (100, (500, 1000, 2000, 4000)),
                (150, (1500,)),
                (300, (500, 1000, 2000, 4000)),
                (500, (600, 1500)),
            )
            for n in ns
        }
        sets |= {p: shared(p, "clf") for p in RAW}
    rows = []
    for name, (X, y) in selected(sets, args.only):
        X = X.toarray() if hasattr(X, "toarray") else X
        scale = hinge_dual_scale(X, 1.0)
        n, d = X.shape
        pick = auto_solver_name(loss, "l2", n, d, True, scale)
        runs = []
        for solver in ("tron", "ipm"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = Est(loss=loss, solver=solver)
                sec, est = best_time(partial(est.fit, X, y), 5)
            runs.append((sec, objective(est, X, y, task, {"loss": loss})))
        (t_tron, f_tron), (t_ipm, f_ipm) = runs
        row = (
            f"| {name} | {n} x {d} | {scale:.3g} | {pick} | {t_tron * 1e3:.2f} | "
            f"{t_ipm * 1e3:.2f} | {t_ipm / t_tron:.2f} | {(f_ipm - f_tron) / abs(f_tron):+.1e} |"
        )
        print(row, flush=True)
        rows.append(row)
    columns = [
        "data",
        "shape",
        "C mean ||x||^2",
        "auto now",
        "tron ms",
        "ipm ms",
        "ipm / tron",
        "ipm's F vs tron's",
    ]
    emit_table(columns, rows, args.out)


def kernel_table(args) -> None:
    import svmkit

    sets = raw_sets()
    rows = []
    for name, (X, y) in selected(sets, args.only):
        kinds = [svmkit.SVR] if name in REGRESSION else [svmkit.SVC, svmkit.SparseSVC]
        Xd = X.toarray()
        for Est in kinds:
            t_csr, m_csr = best_time(partial(Est().fit, X, y), 5)
            t_dense, m_dense = best_time(partial(Est().fit, Xd, y), 5)
            out = "predict" if Est is svmkit.SVR else "decision_function"
            diff = np.max(np.abs(getattr(m_csr, out)(X) - getattr(m_dense, out)(Xd)))
            row = (
                f"| {name} {X.shape[0]} x {X.shape[1]} | {Est.__name__}() | {t_csr * 1e3:.2f} | "
                f"{t_dense * 1e3:.2f} | {t_dense / t_csr:.2f} | {diff:.1e} |"
            )
            print(row, flush=True)
            rows.append(row)
    columns = ["data", "estimator", "CSR as loaded ms", "dense ms", "dense / CSR", "max |diff|"]
    emit_table(columns, rows, args.out)


def liblinearutil_table(args) -> None:
    from svmkit import liblinearutil

    rule = liblinearutil.dense_if_smaller
    sets = raw_sets()
    rows = []
    for name, (X, y) in selected(sets, args.only):
        kinds = ("-s 11", "-s 13") if name in REGRESSION else ("-s 1", "-s 2", "-s 3", "-s 5")
        for options in kinds:
            best, models = {}, {}
            for _ in range(5):
                for storage, convert in (("csr", lambda X: X), ("dense", rule)):
                    liblinearutil.dense_if_smaller = convert
                    sec, models[storage] = best_time(
                        partial(liblinearutil.train, y, X, options + " -q"), 1
                    )
                    best[storage] = min(best.get(storage, np.inf), sec)
            liblinearutil.dense_if_smaller = rule
            a, b = (models[k].estimator for k in ("csr", "dense"))
            diff = max(
                np.max(np.abs(a.coef_ - b.coef_)), np.max(np.abs(a.intercept_ - b.intercept_))
            )
            row = (
                f"| {name} {X.shape[0]} x {X.shape[1]} | {options} | {best['csr'] * 1e3:.2f} | "
                f"{best['dense'] * 1e3:.2f} | {best['dense'] / best['csr']:.2f} | {diff:.1e} |"
            )
            print(row, flush=True)
            rows.append(row)
    columns = ["data", "train options", "CSR (rule off) ms", "dense (rule on) ms", "ratio"]
    emit_table([*columns, "max |w diff|"], rows, args.out)


def kernel_predict_table(args) -> None:
    import svmkit
    from svmkit import _kernel
    from svmkit._validation import as_core_matrix

    rule = _kernel._BaseKernel._prediction_inputs

    def as_given(self, X, model):
        return as_core_matrix(X), model

    sets = raw_sets()
    rows = []
    for name, (X, y) in selected(sets, args.only):
        Est = svmkit.SVR if name in REGRESSION else svmkit.SVC
        model = Est().fit(X, y)
        out = model.predict if Est is svmkit.SVR else model.decision_function
        best, values = {}, {}
        for _ in range(5):
            for storage, inputs in (("csr", as_given), ("dense", rule)):
                _kernel._BaseKernel._prediction_inputs = inputs
                sec, values[storage] = best_time(partial(out, X), 1)
                best[storage] = min(best.get(storage, np.inf), sec)
        _kernel._BaseKernel._prediction_inputs = rule
        diff = np.max(np.abs(values["csr"] - values["dense"]))
        row = (
            f"| {name} {X.shape[0]} x {X.shape[1]} | {Est.__name__}() | {model.support_.size} | "
            f"{best['csr'] * 1e3:.2f} | {best['dense'] * 1e3:.2f} | "
            f"{best['dense'] / best['csr']:.2f} | {diff:.1e} |"
        )
        print(row, flush=True)
        rows.append(row)
    columns = ["data", "estimator", "SVs", "as given ms", "dense ms", "ratio", "max |diff|"]
    emit_table(columns, rows, args.out)


def main() -> None:
    ap = data_set_parser(__doc__)
    ap.add_argument("--table", choices=("1", "2", "3", "4", "5", "6"), default="1")
    args = ap.parse_args()
    if args.table == "1":
        storage_table(args)
    elif args.table == "6":
        kernel_predict_table(args)
    elif args.table == "5":
        liblinearutil_table(args)
    elif args.table == "4":
        kernel_table(args)
    else:
        hinge_table(args, epsilon_loss=args.table == "3")


if __name__ == "__main__":
    main()
