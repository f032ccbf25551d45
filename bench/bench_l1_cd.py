"""l1_cd (LIBLINEAR -s 5's problem) against scikit-learn's LinearSVC(penalty="l1", dual=False).

Both at their defaults (C=1, tol=1e-4, max_iter=1000, l1-penalized bias), alternately in one
process on the same data: a sparse text-like 50,000 x 20,000 set (about 51 stored entries per
row) and a dense 20,000 x 100 Gaussian set. Reports wall and CPU seconds (CPU time is less
sensitive to other jobs on a shared machine), the objective each reached, iterations and the
support size.

    python bench/bench_l1_cd.py [--rounds 2] [--only sparse|dense] [--tol 1e-4]
    python bench/bench_l1_cd.py --loss logistic [--tol 0.01]   # -s 6 rows

--loss logistic compares LinearSVC(loss="logistic", penalty="l1") (newGLMNET) with
liblinear-official's `train -s 6 -B 1 -e tol` (its problem built outside the timing).

At the default tol both hit max_iter=1000 on the sparse set (LIBLINEAR's tolerance for -s 5 is
scaled by the smaller class's share), so compare the objectives reached as well as the times;
--tol 1e-3 gives runs that both stop on the tolerance.
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import svmkit
from sklearn.svm import LinearSVC as SkLinearSVC
from svmkit.datasets import make_sparse_text_like


def objective(X, y, w, b) -> float:
    margin = np.maximum(0.0, 1.0 - y * (X @ w + b))
    return float(np.abs(w).sum() + abs(b) + margin @ margin)


def dense_set(seed: int = 0):
    rng = np.random.default_rng(seed)
    n, m = 20000, 100
    X = rng.standard_normal((n, m))
    truth = np.zeros(m)
    truth[:10] = rng.standard_normal(10)
    y = np.where(X @ truth + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


def timed(fit):
    w0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = fit()
    return est, time.perf_counter() - w0, time.process_time() - c0


def logistic_objective(X, y, w, b) -> float:
    return float(np.abs(w).sum() + abs(b) + np.logaddexp(0.0, -y * (X @ w + b)).sum())


def run_logistic(name, X, y, rounds, tol):
    from liblinear import liblinearutil as ll

    print(f"\n{name} (-s 6): {X.shape[0]} x {X.shape[1]}, tol={tol}", flush=True)
    print("| round | solver | wall (s) | CPU (s) | objective | nonzeros |")
    print("|---|---|---|---|---|---|")
    prob = ll.problem(y, X)
    prob.set_bias(1)
    ratios = []
    for r in range(rounds):
        row = {}
        for label in ("svmkit l1_cd", "liblinear -s 6"):
            if label == "liblinear -s 6":
                param = ll.parameter(f"-s 6 -c 1 -e {tol} -B 1 -q")
                m, wall, cpu = timed(lambda p=param: ll.train(prob, p))
                w, b = m.get_decfun()
                sign = 1.0 if m.get_labels()[0] == 1 else -1.0
                w, b = sign * np.asarray(w), sign * b
            else:
                est, wall, cpu = timed(
                    lambda: svmkit.LinearSVC(
                        loss="logistic", penalty="l1", solver="l1_cd", tol=tol
                    ).fit(X, y)
                )
                w, b = est.coef_[0], est.intercept_[0]
            f = logistic_objective(X, y, w, b)
            nz = int(np.count_nonzero(w))
            print(f"| {r} | {label} | {wall:.2f} | {cpu:.2f} | {f:.6f} | {nz} |")
            row[label] = wall
        ratios.append(row["svmkit l1_cd"] / row["liblinear -s 6"])
    print(f"wall time ratio svmkit / liblinear per round: {', '.join(f'{q:.3f}' for q in ratios)}")


def run(name, X, y, rounds, tol):
    print(f"\n{name}: {X.shape[0]} x {X.shape[1]}, tol={tol}", flush=True)
    print("| round | solver | wall (s) | CPU (s) | objective | n_iter | nonzeros |")
    print("|---|---|---|---|---|---|---|")
    ratios = []
    for r in range(rounds):
        row = {}
        for label, fit in (
            (
                "svmkit l1_cd",
                lambda: svmkit.LinearSVC(penalty="l1", solver="l1_cd", tol=tol).fit(X, y),
            ),
            ("sklearn", lambda: SkLinearSVC(penalty="l1", dual=False, tol=tol).fit(X, y)),
        ):
            est, wall, cpu = timed(fit)
            f = objective(X, y, est.coef_[0], est.intercept_[0])
            nz = int(np.count_nonzero(est.coef_))
            n_iter = int(np.max(est.n_iter_))
            print(f"| {r} | {label} | {wall:.2f} | {cpu:.2f} | {f:.6f} | {n_iter} | {nz} |")
            row[label] = cpu
        ratios.append(row["svmkit l1_cd"] / row["sklearn"])
    print(f"CPU time ratio svmkit / sklearn per round: {', '.join(f'{q:.3f}' for q in ratios)}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--only", choices=("sparse", "dense"))
    ap.add_argument("--tol", type=float, default=None, help="tol of both (default: theirs)")
    ap.add_argument("--loss", choices=("squared_hinge", "logistic"), default="squared_hinge")
    a = ap.parse_args()
    if a.loss == "logistic":
        tol = 0.01 if a.tol is None else a.tol
        if a.only in (None, "sparse"):
            X, y = make_sparse_text_like(50000, 20000, density=0.00375, random_state=0)
            run_logistic("sparse text-like", X, y, a.rounds, tol)
        if a.only in (None, "dense"):
            X, y = dense_set()
            run_logistic("dense Gaussian", X, y, a.rounds, tol)
        return
    a.tol = 1e-4 if a.tol is None else a.tol
    if a.only in (None, "sparse"):
        X, y = make_sparse_text_like(50000, 20000, density=0.00375, random_state=0)
        run("sparse text-like", X, y, a.rounds, a.tol)
    if a.only in (None, "dense"):
        X, y = dense_set()
        run("dense Gaussian", X, y, a.rounds, a.tol)


if __name__ == "__main__":
    main()
