"""dual_cd against scikit-learn's LIBLINEAR (LinearSVC / LinearSVR, dual) at the same tol.

Side by side in one process, alternating svmkit and scikit-learn, median of `--repeats` fits.
Both run their defaults (tol 1e-4, max_iter 1000) on the same data; the objective is evaluated
in numpy from each fitted w, b. Usage: python bench/bench_dual_cd.py [--repeats 3] [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

import numpy as np
import svmkit
from sklearn.exceptions import ConvergenceWarning
from sklearn.svm import LinearSVC as SkLinearSVC
from sklearn.svm import LinearSVR as SkLinearSVR
from svmkit.datasets import make_sparse_text_like


def objective(X, y, w, b, C, loss, eps=0.0):
    z = np.asarray(X @ w).ravel() + b
    t = np.maximum(0.0, 1.0 - y * z) if "hinge" in loss else np.maximum(0.0, np.abs(z - y) - eps)
    if loss.startswith("squared"):
        t = t * t
    return 0.5 * (w @ w + b * b) + C * t.sum()


def timed(make, X, y):
    """(wall seconds, CPU seconds of the process, fitted estimator)."""
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        est = make().fit(X, y)
    return time.perf_counter() - t0, time.process_time() - c0, est


def run_case(name, X, y, ours, ref, loss, C, eps, repeats):
    t_ours, t_ref, c_ours, c_ref = [], [], [], []
    if X.shape[0] * X.shape[1] <= 10**8:  # warm-up (first-call costs), except the big case
        timed(ours, X[:50], y[:50])
        timed(ref, X[:50], y[:50])
    for _ in range(repeats):
        t, c, e_ours = timed(ours, X, y)
        t_ours.append(t)
        c_ours.append(c)
        t, c, e_ref = timed(ref, X, y)
        t_ref.append(t)
        c_ref.append(c)
    w_o, b_o = np.ravel(e_ours.coef_), float(np.ravel(e_ours.intercept_)[0])
    w_r, b_r = np.ravel(e_ref.coef_), float(np.ravel(e_ref.intercept_)[0])
    f_o, f_r = objective(X, y, w_o, b_o, C, loss, eps), objective(X, y, w_r, b_r, C, loss, eps)
    mo, mr = float(np.median(t_ours)), float(np.median(t_ref))
    co, cr = float(np.median(c_ours)), float(np.median(c_ref))
    res = e_ours.result_[0]
    return (
        f"| {name} | {mo:.4f} | {mr:.4f} | {mo / mr:.2f} | {co / cr:.2f} | {f_o:.6g} | {f_r:.6g} | "
        f"{res['iterations']} ({res['status']}) | {int(np.ravel(e_ref.n_iter_).max())} |"
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="smaller shapes (smoke run)")
    a = ap.parse_args()
    q = 10 if a.quick else 1
    lines = [
        "## dual_cd (dual coordinate descent) vs scikit-learn's LIBLINEAR\n",
        f"Command: `python bench/bench_dual_cd.py --repeats {a.repeats}`; {os.cpu_count()} cores, "
        f"load average {os.getloadavg()[0]:.1f} at the start (shared machine: timings are "
        "noisy). Fit wall time of the estimators (validation included), median of the "
        "repeats, svmkit and scikit-learn alternating (CPU ratio: the same with process CPU "
        "time, less sensitive to the machine's load); both at tol 1e-4, max_iter 1000, C = 1.\n",
        "| case | svmkit s | sklearn s | ratio | CPU ratio | F svmkit | F sklearn | iters | "
        "sk iters |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    print("\n".join(lines), flush=True)

    def add(line):
        lines.append(line)
        print(line, flush=True)

    for n, m in [(2000, 50000), (50000, 20000)]:
        n, m = n // q, m // q
        X, y = make_sparse_text_like(n, m, density=60 / m, random_state=0)
        add(
            run_case(
                f"LinearSVC hinge sparse {n}x{m} 60 nnz/row",
                X,
                y,
                lambda: svmkit.LinearSVC(loss="hinge", solver="dual_cd", random_state=0),
                lambda: SkLinearSVC(loss="hinge", dual=True, random_state=0),
                "hinge",
                1.0,
                0.0,
                a.repeats,
            )
        )
    rng = np.random.default_rng(0)
    n, m = 20000 // q, 100
    X = rng.standard_normal((n, m))
    y = X @ rng.standard_normal(m) + 0.5 * rng.standard_normal(n)
    add(
        run_case(
            f"LinearSVR eps-ins dense {n}x{m}",
            X,
            y,
            lambda: svmkit.LinearSVR(loss="epsilon_insensitive", solver="dual_cd", random_state=0),
            lambda: SkLinearSVR(loss="epsilon_insensitive", dual=True, random_state=0),
            "epsilon_insensitive",
            1.0,
            0.0,
            a.repeats,
        )
    )
    if not a.quick:
        out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "dual_cd.md")
        with open(out, "w") as f:
            f.write("\n".join(lines) + "\n")
        print(f"wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
