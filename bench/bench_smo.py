"""Kernel SMO (svmkit.SVC / SVR) against LIBSVM: fit time, accuracy, iterations, memory.

Cases: RBF SVC on 20,000 and 50,000 samples of noisy two moons (test set of 5,000), the
largest shared real dataset that fits (mushrooms, 8,124 x 112, RBF), and RBF SVR on 20,000
samples of Friedman #1. Anchors, measured side by side in this process on the same data with
the same C, gamma, tol (1e-3) and cache size (200 MB):
  sklearn  - scikit-learn SVC/SVR (its LIBSVM copy, single-threaded)
  libsvm   - libsvm-official 3.3x from PyPI (OpenMP kernel rows; threads from OMP_NUM_THREADS)
svmkit runs with n_jobs=2 (and n_jobs=1 for SVC, to show the per-core cost). Ratios are
row time / column solver time (t/sklearn < 1: faster than scikit-learn). "cpu s" is the process
CPU time of the fit summed over threads, a load-independent measure of the work done.

    OMP_NUM_THREADS=2 python bench/bench_smo.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import resource
import warnings

import numpy as np
import svmkit
from harness import Table, command_line, measure, write_section
from libsvm.svmutil import svm_predict, svm_train
from sklearn.datasets import load_svmlight_file, make_friedman1, make_moons
from sklearn.metrics import r2_score
from sklearn.svm import SVC as SkSVC
from sklearn.svm import SVR as SkSVR

CACHE = 200.0
TOL = 1e-3


def moons(n: int, seed: int = 0):
    X, y = make_moons(n + 5000, noise=0.3, random_state=seed)
    return X[:n], y[:n], X[n:], y[n:]


def mushrooms():
    root = os.path.join(os.path.dirname(__file__), "..", "..", "shared", "datasets")
    path = os.path.join(root, "mushrooms", "mushrooms")
    if not os.path.exists(path):
        return None
    X, y = load_svmlight_file(path)
    X = X.toarray()
    perm = np.random.RandomState(0).permutation(X.shape[0])
    X, y = X[perm], y[perm]
    n = int(0.8 * X.shape[0])
    return X[:n], y[:n], X[n:], y[n:]


def cpu_measure(fn):
    """measure() plus the process CPU seconds (user + system, all threads) of the call."""
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    m = measure(fn)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    m.cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    return m


def run_svc(name: str, data, C: float, gamma: float, table: Table, repeats: int) -> None:
    Xtr, ytr, Xte, yte = data
    mine = [
        cpu_measure(
            lambda: svmkit.SVC(C=C, gamma=gamma, tol=TOL, cache_size=CACHE, n_jobs=2).fit(Xtr, ytr)
        )
        for _ in range(repeats)
    ]
    one = [
        cpu_measure(
            lambda: svmkit.SVC(C=C, gamma=gamma, tol=TOL, cache_size=CACHE, n_jobs=1).fit(Xtr, ytr)
        )
        for _ in range(repeats)
    ]
    sk = [
        cpu_measure(lambda: SkSVC(C=C, gamma=gamma, tol=TOL, cache_size=CACHE).fit(Xtr, ytr))
        for _ in range(repeats)
    ]
    ypm = np.where(ytr == ytr.max(), 1, -1)
    opts = f"-s 0 -t 2 -c {C} -g {gamma} -e {TOL} -m {int(CACHE)} -q"
    lib = [cpu_measure(lambda: svm_train(ypm.tolist(), Xtr, opts)) for _ in range(repeats)]
    tm = min(m.seconds for m in mine)
    t1 = min(m.seconds for m in one)
    ts = min(m.seconds for m in sk)
    tl = min(m.seconds for m in lib)
    m, s, lm = mine[0].value, sk[0].value, lib[0].value
    acc_m = float(np.mean(m.predict(Xte) == yte))
    acc_s = float(np.mean(s.predict(Xte) == yte))
    yte_pm = np.where(yte == ytr.max(), 1, -1)
    _, (acc_l, _, _), _ = svm_predict(yte_pm.tolist(), Xte, lm, "-q")
    cpu = {k: min(x.cpu for x in v) for k, v in (("m", mine), ("o", one), ("s", sk), ("l", lib))}
    table.add(
        name,
        Xtr.shape[0],
        "svmkit smo (2 threads)",
        tm,
        cpu["m"],
        1.0,
        tm / ts,
        tm / tl,
        acc_m,
        int(np.sum(m.n_iter_)),
        int(m.support_.shape[0]),
        max(x.peak_extra_mb for x in mine),
    )
    table.add(
        name,
        Xtr.shape[0],
        "svmkit smo (1 thread)",
        t1,
        cpu["o"],
        t1 / tm,
        t1 / ts,
        t1 / tl,
        acc_m,
        int(np.sum(m.n_iter_)),
        int(m.support_.shape[0]),
        max(x.peak_extra_mb for x in one),
    )
    table.add(
        name,
        Xtr.shape[0],
        "scikit-learn SVC",
        ts,
        cpu["s"],
        ts / tm,
        1.0,
        ts / tl,
        acc_s,
        int(np.sum(s.n_iter_)),
        int(s.support_.shape[0]),
        max(x.peak_extra_mb for x in sk),
    )
    table.add(
        name,
        Xtr.shape[0],
        "libsvm-official",
        tl,
        cpu["l"],
        tl / tm,
        tl / ts,
        1.0,
        acc_l / 100.0,
        "-",
        int(lm.get_nr_sv()),
        max(x.peak_extra_mb for x in lib),
    )


def run_svr(n: int, table: Table, repeats: int) -> None:
    X, y = make_friedman1(n + 5000, noise=1.0, random_state=0)
    y = (y - y.mean()) / y.std()
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    C, gamma, eps = 1.0, 0.2, 0.1
    mine = [
        cpu_measure(
            lambda: svmkit.SVR(
                C=C, gamma=gamma, epsilon=eps, tol=TOL, cache_size=CACHE, n_jobs=2
            ).fit(Xtr, ytr)
        )
        for _ in range(repeats)
    ]
    sk = [
        cpu_measure(
            lambda: SkSVR(C=C, gamma=gamma, epsilon=eps, tol=TOL, cache_size=CACHE).fit(Xtr, ytr)
        )
        for _ in range(repeats)
    ]
    opts = f"-s 3 -t 2 -c {C} -g {gamma} -p {eps} -e {TOL} -m {int(CACHE)} -q"
    lib = [cpu_measure(lambda: svm_train(ytr.tolist(), Xtr, opts)) for _ in range(repeats)]
    tm = min(m.seconds for m in mine)
    ts = min(m.seconds for m in sk)
    tl = min(m.seconds for m in lib)
    m, s, lm = mine[0].value, sk[0].value, lib[0].value
    pl, _, _ = svm_predict(yte.tolist(), Xte, lm, "-q")
    name = "friedman1 SVR"
    cpu = {k: min(x.cpu for x in v) for k, v in (("m", mine), ("s", sk), ("l", lib))}
    table.add(
        name,
        n,
        "svmkit smo (2 threads)",
        tm,
        cpu["m"],
        1.0,
        tm / ts,
        tm / tl,
        r2_score(yte, m.predict(Xte)),
        int(np.sum(m.n_iter_)),
        int(m.support_.shape[0]),
        max(x.peak_extra_mb for x in mine),
    )
    table.add(
        name,
        n,
        "scikit-learn SVR",
        ts,
        cpu["s"],
        ts / tm,
        1.0,
        ts / tl,
        r2_score(yte, s.predict(Xte)),
        int(np.sum(s.n_iter_)),
        int(s.support_.shape[0]),
        max(x.peak_extra_mb for x in sk),
    )
    table.add(
        name,
        n,
        "libsvm-official",
        tl,
        cpu["l"],
        tl / tm,
        tl / ts,
        1.0,
        r2_score(yte, pl),
        "-",
        int(lm.get_nr_sv()),
        max(x.peak_extra_mb for x in lib),
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="small sizes, one repeat")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", category=FutureWarning)
    repeats = 1 if args.quick else 2
    sizes = [2000, 5000] if args.quick else [20000, 50000]
    cols = [
        "data",
        "n_train",
        "solver",
        "fit s",
        "cpu s",
        "t/svmkit",
        "t/sklearn",
        "t/libsvm",
        "accuracy or R2",
        "iterations",
        "n_SV",
        "peak extra MB",
    ]
    table = Table(cols)
    for n in sizes:
        run_svc(
            "moons (noise 0.3) SVC rbf C=1 gamma=1",
            moons(n),
            1.0,
            1.0,
            table,
            repeats if n <= 20000 else 1,
        )
    mush = mushrooms()
    if mush is not None:
        run_svc("mushrooms SVC rbf C=1 gamma=1/112", mush, 1.0, 1.0 / 112, table, repeats)
    run_svr(2000 if args.quick else 20000, table, repeats)
    load = os.getloadavg()
    body = (
        f"Best of {repeats} runs per solver (fit only; peak extra MB = resident memory above "
        f"the level before the fit). Load average at the end of the run: {load[0]:.1f} "
        f"{load[1]:.1f} {load[2]:.1f} on a 2-core machine shared with other jobs, so wall "
        "times are noisy; the three solvers alternate on the same data.\n\n"
    ) + table.markdown()
    write_section(
        "smo",
        "Kernel SMO vs LIBSVM (scikit-learn, libsvm-official)",
        body,
        "OMP_NUM_THREADS=2 " + command_line(),
    )


if __name__ == "__main__":
    main()
