"""sgd (paper 001 Algorithms 1-4 + paper 000's adaptive rules) in paper 001's Table 7 / 12 /
15 / 20 setting, beside LIBLINEAR (scikit-learn's LinearSVC/LinearSVR and liblinear-official).

Writes bench/results/first_order.md.

    python bench/bench_first_order.py [--shared ../shared/datasets]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import svmkit
from sklearn.datasets import load_svmlight_file, make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import r2_score
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC
from sklearn.svm import LinearSVR as SkLinearSVR
from svmkit import LinearSVC, LinearSVR

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from references import hinge_primal, primal_svm  # noqa: E402

RULES = [
    ("none", "none"),
    ("polyak", "none"),
    ("nesterov", "none"),
    ("none", "adagrad"),
    ("none", "adadelta"),
    ("none", "adam"),
]
CS = (0.1, 1.0, 10.0)


def svc_data(seed: int = 1):
    X, y = make_classification(
        n_samples=300,
        n_features=2,
        n_informative=2,
        n_redundant=0,
        n_clusters_per_class=1,
        class_sep=1.5,
        random_state=seed,
    )
    y = np.where(y == 1, 1.0, -1.0)
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=100, random_state=seed)
    sc = StandardScaler().fit(Xtr)
    return sc.transform(Xtr), sc.transform(Xte), ytr, yte


def svr_data(seed: int = 1):
    X, y = make_regression(n_samples=300, n_features=2, noise=15.0, random_state=seed)
    Xtr, Xte, ytr, yte = train_test_split(X, y, train_size=100, random_state=seed)
    sc = StandardScaler().fit(Xtr)
    m, s = ytr.mean(), ytr.std()
    return sc.transform(Xtr), sc.transform(Xte), (ytr - m) / s, (yte - m) / s


def objective(X, y, w, b, C, loss, eps=0.0):
    z = X @ w + b
    if loss == "hinge":
        lv = np.maximum(0.0, 1.0 - y * z)
    elif loss == "squared_hinge":
        lv = np.maximum(0.0, 1.0 - y * z) ** 2
    elif loss == "epsilon_insensitive":
        lv = np.maximum(0.0, np.abs(z - y) - eps)
    else:
        lv = np.maximum(0.0, np.abs(z - y) - eps) ** 2
    return 0.5 * (w @ w + b * b) + C * lv.sum()


def n_sv(X, y, w, b, loss, eps=0.0):
    z = X @ w + b
    if loss in ("hinge", "squared_hinge"):
        return int(np.sum(y * z <= 1.0 + 1e-8))
    return int(np.sum(np.abs(z - y) >= eps - 1e-8))


def liblinear_official(X, y, C, loss, eps):
    from liblinear.liblinearutil import parameter, problem, train

    s = {
        "hinge": 3,
        "squared_hinge": 2,
        "epsilon_insensitive": 13,
        "squared_epsilon_insensitive": 11,
    }[loss]
    t = time.perf_counter()
    m = train(problem(y.tolist(), X.tolist()), parameter(f"-s {s} -c {C} -p {eps} -B 1 -e 1e-6 -q"))
    t = time.perf_counter() - t
    w = np.array([m.w[j] for j in range(X.shape[1] + 1)])
    if loss in ("hinge", "squared_hinge") and m.label[0] == -1:
        w = -w  # liblinear orients w toward its first label
    return w[:-1], w[-1], t


def run_table(lines, title, loss, data, eps=0.0):
    Xtr, Xte, ytr, yte = data
    clf = loss in ("hinge", "squared_hinge")
    beta = 0.5 if clf else 0.2  # paper 001 section 7
    metric = "accuracy" if clf else "r2"
    lines += [f"## {title}", ""]
    lines.append(
        f"| solver | rule | C | fit_time (s) | {metric} | n_iter | n_sv | "
        f"objective gap vs reference | {metric} - liblinear |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|")

    def score(w, b):
        z = Xte @ w + b
        return float(np.mean(np.sign(z) == yte)) if clf else float(r2_score(yte, z))

    for C in CS:
        if loss == "hinge":
            _, _, f_ref = hinge_primal(Xtr, ytr, np.full(len(ytr), C))
            ref_name = "clarabel"
        elif loss == "epsilon_insensitive":
            cost = np.full(len(ytr), C)
            _, _, f_ref = primal_svm(Xtr, ytr, cost, loss="epsilon_insensitive", epsilon=eps)
            ref_name = "clarabel"
        else:
            f_ref, ref_name = None, "liblinear"
        # anchors
        t = time.perf_counter()
        if clf:
            sk = SkLinearSVC(C=C, loss=loss, dual=loss == "hinge", tol=1e-6, max_iter=100000)
        else:
            sk = SkLinearSVR(
                C=C,
                epsilon=eps,
                loss=loss,
                dual=loss == "epsilon_insensitive",
                tol=1e-6,
                max_iter=100000,
            )
        sk.fit(Xtr, ytr)
        tsk = time.perf_counter() - t
        wsk, bsk = np.ravel(sk.coef_), float(np.ravel(sk.intercept_)[0])
        if f_ref is None:
            tight = (
                SkLinearSVC(C=C, loss=loss, dual=False, tol=1e-12, max_iter=100000)
                if clf
                else SkLinearSVR(
                    C=C, epsilon=eps, loss=loss, dual=False, tol=1e-12, max_iter=100000
                )
            ).fit(Xtr, ytr)
            f_ref = objective(
                Xtr, ytr, np.ravel(tight.coef_), float(np.ravel(tight.intercept_)[0]), C, loss, eps
            )
        acc_ll = score(wsk, bsk)
        wo, bo, to = liblinear_official(Xtr, ytr, C, loss, eps)
        for rule in RULES:
            opts = {
                "momentum_type": rule[0],
                "momentum": beta,
                "adaptive": rule[1],
                "max_iter": 100000,
                "n_iter_no_change": 5,  # paper 001 section 7 (svmkit's default is 100)
            }
            est = (
                LinearSVC(loss=loss, C=C, solver="sgd", n_jobs=1, solver_options=opts)
                if clf
                else LinearSVR(
                    loss=loss, C=C, epsilon=eps, solver="sgd", n_jobs=1, solver_options=opts
                )
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                t = time.perf_counter()
                est.fit(Xtr, ytr)
                tf = time.perf_counter() - t
            w, b = np.ravel(est.coef_), float(np.ravel(est.intercept_)[0])
            f = objective(Xtr, ytr, w, b, C, loss, eps)
            name = rule[0] if rule[1] == "none" else rule[1]
            lines.append(
                f"| sgd | {name} | {C:g} | {tf:.4f} | {score(w, b):.4f} | {est.n_iter_} | "
                f"{n_sv(Xtr, ytr, w, b, loss, eps)} | {(f - f_ref) / f_ref:.1e} ({ref_name}) | "
                f"{100 * (score(w, b) - acc_ll):+.2f} pts |"
            )
        for nm, (w, b, tt, it) in {
            "sklearn liblinear": (wsk, bsk, tsk, int(np.max(sk.n_iter_))),
            "liblinear-official": (wo, bo, to, "-"),
        }.items():
            f = objective(Xtr, ytr, w, b, C, loss, eps)
            lines.append(
                f"| {nm} | - | {C:g} | {tt:.4f} | {score(w, b):.4f} | {it} | "
                f"{n_sv(Xtr, ytr, w, b, loss, eps)} | {(f - f_ref) / f_ref:.1e} ({ref_name}) | "
                f"{100 * (score(w, b) - acc_ll):+.2f} pts |"
            )
    lines.append("")


def shared_section(lines, root: Path):
    sets = [
        ("heart", "heart_scale"),
        ("australian", "australian"),
        ("breast-cancer", "breast-cancer"),
        ("diabetes", "diabetes"),
    ]
    lines += ["## Objective gap with sgd's defaults on real datasets (standardized)", ""]
    lines.append(
        "References: exact hinge QP (clarabel), LIBLINEAR primal with tol 1e-12 "
        "(squared hinge). sgd with all its defaults (step 1/L, momentum 0.5, tol 1e-8, "
        "n_iter_no_change 100, max_iter 20000); breast_cancer_sklearn is scikit-learn's "
        "bundled copy (the tests' data), the others are ../shared/datasets."
    )
    lines.append("")
    lines.append(
        "| dataset | C | loss | "
        + " | ".join(r[0] if r[1] == "none" else r[1] for r in RULES)
        + " |"
    )
    lines.append("|---|---|---|" + "---|" * len(RULES))
    from sklearn.datasets import load_breast_cancer

    for (folder, fname), C in [
        (s, c) for s in [("", "breast_cancer_sklearn"), *sets] for c in (0.1, 1.0)
    ]:
        if folder:
            path = root / folder / fname
            if not path.exists():
                lines.append(f"| {fname} | {C:g} | (not found) |" + " |" * len(RULES))
                continue
            X, y = load_svmlight_file(str(path))
            X = X.toarray()
        else:
            X, y = load_breast_cancer(return_X_y=True)
        X = StandardScaler().fit_transform(X)
        y = np.where(y == y.max(), 1.0, -1.0)
        for loss in ("squared_hinge", "hinge"):
            if loss == "hinge":
                _, _, f_ref = hinge_primal(X, y, np.full(len(y), C))
            else:
                ref = SkLinearSVC(C=C, dual=False, tol=1e-12, max_iter=100000).fit(X, y)
                f_ref = objective(X, y, ref.coef_[0], ref.intercept_[0], C, loss)
            cells = []
            for mom, ada in RULES:
                opts = {"momentum_type": mom, "adaptive": ada}
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ConvergenceWarning)
                    m = LinearSVC(loss=loss, C=C, solver="sgd", n_jobs=1, solver_options=opts).fit(
                        X, y
                    )
                f = objective(X, y, m.coef_[0], m.intercept_[0], C, loss)
                cells.append(f"{(f - f_ref) / f_ref:.1e} ({m.n_iter_} it)")
            lines.append(f"| {fname} | {C:g} | {loss} | " + " | ".join(cells) + " |")
    lines.append("")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--shared", default=str(HERE.parent.parent / "shared" / "datasets"))
    args = ap.parse_args()
    lines = ["# sgd: primal first-order solver (paper 001 Tables 7, 12, 15, 20 setting)", ""]
    lines.append(
        f"Command: `python bench/bench_first_order.py` on {platform.node()} "
        f"({platform.machine()}), svmkit {svmkit.__version__}, n_jobs=1, one run."
    )
    lines.append("")
    lines.append(
        "Data (ours; paper 001's generator is not specified beyond 'generated, 100 training "
        "examples'): classification = make_classification(300 samples, 2 informative "
        "features, 1 cluster per class, class_sep 1.5, seed 1), regression = "
        "make_regression(300 samples, 2 features, noise 15, seed 1, y standardized); 100 "
        "training / 200 test points, features standardized on the training set. Objective "
        "(all solvers) 1/2(||w||^2 + b^2) + C sum loss (LIBLINEAR's, bias regularized). sgd "
        "settings of paper 001 section 7: step 1/L (L_F = l2 + kappa sum C||x~_i||^2, the "
        "paper's L for the summed objective), momentum 0.5 (SVC) / 0.2 (SVR), stop after 5 "
        "epochs without 1e-8 relative improvement; adaptive rules at paper 000's rates. "
        "'objective gap' is (f - f*)/f* against the exact reference named; the last column "
        "is the test-accuracy (or r2) difference to scikit-learn's liblinear in points."
    )
    lines.append("")
    svc, svr = svc_data(), svr_data()
    run_table(lines, "Table 7 setting: hinge loss (L1-SVC)", "hinge", svc)
    run_table(lines, "Table 12 setting: squared hinge loss (L2-SVC)", "squared_hinge", svc)
    run_table(
        lines,
        "Table 15 setting: epsilon-insensitive loss (L1-SVR), epsilon 0.1",
        "epsilon_insensitive",
        svr,
        eps=0.1,
    )
    run_table(
        lines,
        "Table 20 setting: squared epsilon-insensitive loss (L2-SVR), epsilon 0.1",
        "squared_epsilon_insensitive",
        svr,
        eps=0.1,
    )
    root = Path(args.shared)
    if root.is_dir():
        shared_section(lines, root)
    else:
        lines.append(f"(shared datasets not found at {root}: that section was skipped)")
    (HERE / "results" / "first_order.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
