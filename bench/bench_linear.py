"""TRON (squared hinge) against LIBLINEAR: time to the same objective, accuracy, passes, memory.

Cases: synthetic tall data 581,012 x 54 (two Gaussian classes, paper 000 sec. 4.1.4), synthetic
sparse text-like data 100,000 x 50,000 at density 0.001, and the shared real datasets.
Anchors, each measured side by side in this process on the same data:
  sklearn  - scikit-learn LinearSVC (LIBLINEAR inside; dual="auto" as a user gets it, tol 1e-4)
  ll -s 2  - liblinear-official, L2-loss primal trust-region Newton (its default -e 0.01)
  ll -s 1  - liblinear-official, L2-loss dual coordinate descent (its default -e 0.1)
svmkit runs once with a tight tolerance; its time to an anchor's objective is read from its
per-iteration history (time_to_objective), so one run gives the ratio for every anchor.

    python bench/bench_linear.py [--quick]
"""

from __future__ import annotations

import argparse
import warnings

import numpy as np
import scipy.sparse as sp
import svmkit
from harness import (
    Table,
    command_line,
    measure,
    squared_hinge_objective,
    time_to_objective,
    write_section,
)
from liblinear.liblinearutil import parameter, problem, train
from sklearn.svm import LinearSVC as SkLinearSVC
from svmkit.datasets import load_shared, make_sparse_text_like, make_two_gaussians

C = 1.0


def split(X, y, frac=0.8):
    n = int(frac * X.shape[0])
    return X[:n], y[:n], X[n:], y[n:]


def liblinear_fit(X, y_pm, solver: int):
    prob = problem(y_pm, X)
    m = measure(lambda: train(prob, parameter(f"-s {solver} -c {C} -B 1 -q")))
    model = m.value
    w, b = model.get_decfun()
    sign = 1.0 if model.get_labels()[0] == 1 else -1.0
    return m, sign * np.asarray(w), sign * b


def run_case(name, Xtr, ytr, Xte, yte, table: Table) -> None:
    ytr = np.where(ytr > 0, 1.0, -1.0)
    yte = np.where(yte > 0, 1.0, -1.0)
    Xll = Xtr if sp.issparse(Xtr) else np.ascontiguousarray(Xtr)

    def acc(w, b):
        return 100.0 * np.mean(np.where(np.asarray(Xte @ w).ravel() + b > 0, 1.0, -1.0) == yte)

    ours = measure(lambda: svmkit.LinearSVC(C=C, tol=1e-9, max_iter=500, n_jobs=2).fit(Xtr, ytr))
    est = ours.value
    res = est.result_[0]
    w_s, b_s = est.coef_[0], est.intercept_[0]
    f_s = squared_hinge_objective(Xtr, ytr, w_s, b_s, C)

    anchors = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sk = measure(lambda: SkLinearSVC(C=C).fit(Xtr, ytr))
    anchors.append(("sklearn LinearSVC", sk, sk.value.coef_[0], sk.value.intercept_[0]))
    for s in (2, 1):
        m, w, b = liblinear_fit(Xll, ytr, s)
        anchors.append((f"liblinear-official -s {s}", m, w, b))

    for label, m, w, b in anchors:
        f_a = squared_hinge_objective(Xtr, ytr, w, b, C)
        t_s = time_to_objective(ours.seconds, res, f_a)
        table.add(
            name, label, m.seconds, f_a, acc(w, b), m.peak_extra_mb, "-", t_s, t_s / m.seconds
        )
    table.add(
        name,
        "svmkit tron (tol 1e-9)",
        ours.seconds,
        f_s,
        acc(w_s, b_s),
        ours.peak_extra_mb,
        res["passes"],
        float("nan"),
        float("nan"),
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="smaller synthetic cases")
    args = ap.parse_args()
    table = Table(
        [
            "data",
            "solver",
            "fit s",
            "objective",
            "test acc %",
            "peak extra MB",
            "passes",
            "svmkit s to this objective",
            "ratio svmkit/anchor",
        ]
    )
    n_tall = 58101 if args.quick else 581012
    X, y = make_two_gaussians(n_tall, 54, random_state=0)
    run_case(f"tall {n_tall}x54", *split(X, y), table)
    del X
    n_sp, d_sp = (10000, 5000) if args.quick else (100000, 50000)
    X, y = make_sparse_text_like(n_sp, d_sp, 0.001 if not args.quick else 0.01, random_state=0)
    run_case(f"sparse {n_sp}x{d_sp}", *split(X, y), table)
    for name, test in (
        ("a9a/a9a", "a9a/a9a.t"),
        ("covtype/covtype.5000.train", "covtype/covtype.5000.test"),
        ("mushrooms/mushrooms", None),
        ("splice/splice", None),
    ):
        try:
            Xtr, ytr = load_shared(
                name, n_features=None if test is None else 123 if "a9a" in name else 54
            )
        except (FileNotFoundError, OSError) as exc:
            print(f"skipping {name}: {exc}")
            continue
        if test is None:
            run_case(name.split("/")[1], *split(Xtr, ytr), table)
        else:
            Xte, yte = load_shared(test, n_features=Xtr.shape[1])
            run_case(name.split("/")[1], Xtr, ytr, Xte, yte, table)
    body = (
        f"Squared-hinge L2 SVM, C = {C}, bias regularized (LIBLINEAR's -B 1 objective), "
        "80/20 split for the synthetic and single-file sets. svmkit uses n_jobs=2. "
        "'svmkit s to this objective' is when svmkit's TRON first reached the objective the "
        "anchor stopped at; the ratio divides it by the anchor's fit time. Peak extra MB is the "
        "peak resident memory above the level before the fit (VmHWM reset).\n\n" + table.markdown()
    )
    write_section("linear", "TRON vs LIBLINEAR (squared hinge)", body, command_line())


if __name__ == "__main__":
    main()
