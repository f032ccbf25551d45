"""Threads that never hurt: the default thread count against n_jobs=1, idle and busy.

Cases (issue 10, item 5):
  ovr26  - LinearSVC() (TRON, squared hinge), 26 classes, dense 20,000 x 16
  hinge  - LinearSVC(loss="hinge"), sparse text-like 20,000 x 20,000 (density 0.003); with
           --hinge-max-iter N (default 6) only the first N outer iterations are timed (the same
           work for both thread counts), because today's default hinge solver does not finish
           this shape in minutes (issue 10, item 4, another piece of work); 0 = the full fit
  svc    - SVC() rbf, binary, dense 5,000 x 20
  tall   - LinearSVC() binary, dense 200,000 x 20 (one fit: the passes themselves are split)
Many-classes cells (issue 10's table), idle only, beside scikit-learn's defaults on the same
data with held-out accuracy: LinearSVC() one-vs-rest and SVC() one-vs-one, 26 classes.
Machine states, each measured in this one run:
  idle   - nothing started by this script (other processes on the machine are not controlled)
  busy   - one `while True: pass` Python process at normal priority
  nice19 - the same process at nice 19
For each case and state the two configurations alternate (default, n_jobs=1, default, ...),
--repeats times each; the table gives the median seconds and default / n_jobs=1. The busy
process is always killed at the end, even on error.

    python bench/bench_threads.py [--repeats 3] [--hinge-max-iter 6] [--cases ovr26,hinge,svc,tall]
"""

from __future__ import annotations

import argparse
import atexit
import os
import statistics
import subprocess
import sys
import time
import warnings

import numpy as np
import svmkit
from harness import Table, command_line, write_section
from sklearn.datasets import make_classification
from svmkit.datasets import make_sparse_text_like

SPIN = "while True:\n    pass\n"


class Spinner:
    """One busy Python process (normal priority or nice 19), killed on exit whatever happens."""

    def __init__(self, nice: int) -> None:
        code = (f"import os\nos.nice({nice})\n" if nice else "") + SPIN
        self.proc = subprocess.Popen([sys.executable, "-c", code])
        atexit.register(self.stop)
        time.sleep(0.3)  # let it start spinning

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def cases(hinge_max_iter: int) -> dict:
    X26, y26 = make_classification(
        n_samples=20000,
        n_features=16,
        n_informative=10,
        n_classes=26,
        n_clusters_per_class=1,
        random_state=0,
    )
    Xs, ys = make_sparse_text_like(20000, 20000, density=0.003, random_state=0)
    Xk, yk = make_classification(n_samples=5000, n_features=20, random_state=0)
    Xt, yt = make_classification(n_samples=200000, n_features=20, random_state=0)
    hinge_kw = {"max_iter": hinge_max_iter} if hinge_max_iter > 0 else {}
    return {
        "ovr26": (
            "LinearSVC() 26 classes, dense 20,000 x 16",
            lambda nj: svmkit.LinearSVC(n_jobs=nj).fit(X26, y26),
        ),
        "hinge": (
            "LinearSVC(loss='hinge') sparse 20,000 x 20,000"
            + (f" (first {hinge_max_iter} iterations)" if hinge_max_iter > 0 else ""),
            lambda nj: svmkit.LinearSVC(loss="hinge", n_jobs=nj, **hinge_kw).fit(Xs, ys),
        ),
        "svc": ("SVC() rbf, dense 5,000 x 20", lambda nj: svmkit.SVC(n_jobs=nj).fit(Xk, yk)),
        "tall": (
            "LinearSVC() binary, dense 200,000 x 20",
            lambda nj: svmkit.LinearSVC(n_jobs=nj).fit(Xt, yt),
        ),
    }


def timed(fn, nj) -> float:
    t0 = time.perf_counter()
    fn(nj)
    return time.perf_counter() - t0


def run_state(table: Table, state: str, todo: dict, names: list[str], repeats: int) -> None:
    for name in names:
        title, fn = todo[name]
        fn(None)  # warm-up (first-call costs, page faults)
        t_def, t_one = [], []
        for _ in range(repeats):
            t_def.append(timed(fn, None))
            t_one.append(timed(fn, 1))
        d, o = statistics.median(t_def), statistics.median(t_one)
        table.add(title, state, d, o, d / o)
        line = f"{name:6s} {state:7s} default {d:.3f}s  n_jobs=1 {o:.3f}s  ratio {d / o:.2f}"
        print(line, flush=True)


def many_classes(table: Table) -> None:
    """26 classes: svmkit's default against scikit-learn's default (LIBLINEAR / LIBSVM)."""
    from sklearn.model_selection import train_test_split
    from sklearn.svm import SVC as SkSVC
    from sklearn.svm import LinearSVC as SkLinearSVC

    X, y = make_classification(
        n_samples=25000,
        n_features=16,
        n_informative=10,
        n_classes=26,
        n_clusters_per_class=1,
        random_state=1,
    )
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=5000, random_state=0, stratify=y)
    Xk, yk = Xtr[:5000], ytr[:5000]
    cells = [
        ("LinearSVC() ovr, 26 classes, dense 20,000 x 16", svmkit.LinearSVC, SkLinearSVC, Xtr, ytr),
        ("SVC() ovo, 26 classes, dense 5,000 x 16", svmkit.SVC, SkSVC, Xk, yk),
    ]
    for title, ours, theirs, Xa, ya in cells:
        for label, cls in (("svmkit", ours), ("scikit-learn", theirs)):
            t0 = time.perf_counter()
            model = cls().fit(Xa, ya)
            t = time.perf_counter() - t0
            table.add(title, label, t, float(np.mean(model.predict(Xte) == yte)))
        print(title, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--hinge-max-iter", type=int, default=6)
    ap.add_argument("--cases", default="ovr26,hinge,svc,tall")
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # ConvergenceWarning of the capped hinge fits
    names = args.cases.split(",")
    todo = cases(args.hinge_max_iter)
    load0 = os.getloadavg()
    table = Table(["case", "machine", "default s", "n_jobs=1 s", "default / n_jobs=1"])
    run_state(table, "idle", todo, names, args.repeats)
    for state, nice in (("busy", 0), ("nice19", 19)):
        spinner = Spinner(nice)
        try:
            run_state(table, state, todo, names, args.repeats)
        finally:
            spinner.stop()
    many = Table(["case", "library", "fit s", "test accuracy"])
    many_classes(many)
    load1 = os.getloadavg()
    body = (
        f"Default threads here: {svmkit._core.default_threads()} "
        f"(usable CPUs {svmkit._core.usable_cpus()}). Median of {args.repeats} alternating "
        "runs per cell. Load average (1 min) at start / end of the run: "
        f"{load0[0]:.2f} / {load1[0]:.2f}; where it is well above 0 the 'idle' rows were "
        "measured beside other processes and every figure is noisy.\n\n"
        + table.markdown()
        + "\n\nMany classes, default parameters, beside scikit-learn (idle state):\n\n"
        + many.markdown()
    )
    title = "Threads: default thread count vs n_jobs=1, idle and busy"
    write_section("threads", title, body, command_line())


if __name__ == "__main__":
    main()
