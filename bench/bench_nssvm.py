"""NSSVM (SparseSVC) benchmark: time and memory for m = 1e4, 1e5, 1e6 (n = 2, 10, 100) and the
53,602 x 17 shape, side by side with scikit-learn's LinearSVC on the same data.

Every case runs in its own subprocess so that its peak RSS is its own. Data: the paper's 2-D
synthetic distribution (paper 003, section 4.2) in the first two features, N(0, 1) noise in
the others; float64, C order; a separate test set of min(m, 100000) samples.

Memory: "extra" is the peak RSS during the fit minus the RSS just before it (the peak is reset
through /proc/self/clear_refs right before the fit, so data generation does not count), for
the estimator (SparseSVC.fit, including its label encoding) and for the bare C++ solve
(_core.fit_nssvm on prepared labels); tracemalloc reports the Python-side (numpy) peak.

Usage: python bench/bench_nssvm.py [--quick] [--threads 2] [--out bench/results/nssvm.md]
       python bench/bench_nssvm.py --accuracy [--out bench/results/nssvm_accuracy.md]

--accuracy: test accuracy against LinearSVC on the shared real datasets (../shared/datasets)
under the protocol of tests/test_nssvm.py (same splits, MaxAbsScaler on the training split,
LinearSVC(C=1) vs SparseSVC(C=2, tune=True): the same squared-hinge weight; mean over 10
stratified 70/30 splits where a dataset has no test file), next to SparseSVC's defaults.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent


def make_data(m: int, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = np.empty((m, n))
    y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
    X[:, 0] = 0.5 * y + np.sqrt(0.5) * rng.standard_normal(m)
    if n > 1:
        X[:, 1] = -3.0 * y + np.sqrt(3.0) * rng.standard_normal(m)
    for j in range(2, n):
        X[:, j] = rng.standard_normal(m)
    return X, y


def _status_kb(field: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def _reset_peak() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def run_case(m: int, n: int, solver: str, threads: int) -> dict:
    X, y = make_data(m, n, seed=m + n)
    Xte, yte = make_data(min(m, 100_000), n, seed=m + n + 1)
    out: dict = {"m": m, "n": n, "solver": solver}
    if solver == "nssvm_core":
        from svmkit import _core

        opts = {"n_threads": threads, "check_input": False}
        rss0 = _status_kb("VmRSS")
        out["peak_reset"] = _reset_peak()
        t = time.perf_counter()
        res = _core.fit_nssvm(X, y, opts, None)
        out["time"] = time.perf_counter() - t
        out["extra_rss_mb"] = (_status_kb("VmHWM") - rss0) / 1024
        out["n_sv"] = len(res["support"])
        out["iterations"] = res["iterations"]
        out["solver_time"] = res["time"]
        w, b = res["solution"][:-1], res["solution"][-1]
        out["test_acc"] = float(np.mean(np.where(Xte @ w + b > 0, 1.0, -1.0) == yte))
        return out
    if solver == "nssvm":
        from svmkit import SparseSVC

        est = SparseSVC(n_jobs=threads)
    else:
        from sklearn.svm import LinearSVC

        est = LinearSVC(dual="auto", max_iter=1000)
    tracemalloc.start()
    rss0 = _status_kb("VmRSS")
    out["peak_reset"] = _reset_peak()
    t = time.perf_counter()
    est.fit(X, y)
    out["time"] = time.perf_counter() - t
    out["extra_rss_mb"] = (_status_kb("VmHWM") - rss0) / 1024
    out["py_peak_mb"] = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    out["train_acc"] = float(est.score(X, y))
    out["test_acc"] = float(est.score(Xte, yte))
    if solver == "nssvm":
        out["n_sv"] = int(len(est.support_))
        out["iterations"] = int(est.n_iter_)
    else:
        # LinearSVC (squared hinge): support vectors are the samples with margin < 1.
        margin = y * est.decision_function(X)
        out["n_sv"] = int(np.sum(margin < 1.0))
        out["iterations"] = int(np.max(est.n_iter_))
    out["data_mb"] = X.nbytes / 2**20
    return out


def spawn(m: int, n: int, solver: str, threads: int, timeout: float) -> dict:
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    cmd = [sys.executable, __file__, "--case", str(m), str(n), solver, "--threads", str(threads)]
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"m": m, "n": n, "solver": solver, "error": f"timeout after {timeout:.0f} s"}
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("{")]
    if p.returncode != 0 or not lines:
        return {"m": m, "n": n, "solver": solver, "error": p.stderr.strip()[-300:]}
    return json.loads(lines[-1])


def fmt(r: dict, key: str, spec: str) -> str:
    v = r.get(key)
    return "-" if v is None else format(v, spec)


SHARED = [
    ("svmguide1/svmguide1", "svmguide1/svmguide1.t", 4),
    ("covtype/covtype.5000.train", "covtype/covtype.5000.test", 54),
    ("heart/heart_scale", None, 13),
    ("australian/australian", None, 14),
    ("breast-cancer/breast-cancer", None, 10),
    ("diabetes/diabetes", None, 8),
    ("mushrooms/mushrooms", None, 112),
    ("ionosphere/ionosphere", None, 34),
    ("sonar/sonar", None, 60),
    ("a1a/a1a", None, 123),
    ("splice/splice", None, 60),
    ("fourclass/fourclass", None, 2),
    ("svmguide3/svmguide3", None, 22),
]


def accuracy_table(out: Path, n_splits: int = 10) -> None:
    import warnings

    from sklearn.datasets import load_svmlight_file
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import MaxAbsScaler
    from sklearn.svm import LinearSVC
    from svmkit import SparseSVC

    root = HERE.parent.parent / "shared" / "datasets"
    if not root.is_dir():
        print(f"skipped: {root} not found (the shared datasets are needed for --accuracy)")
        return
    warnings.simplefilter("ignore", ConvergenceWarning)
    lines = [
        "## NSSVM accuracy against LinearSVC on the shared datasets",
        "",
        "Command: `python bench/bench_nssvm.py --accuracy`. Protocol (tests/test_nssvm.py, "
        "identical for both models): the dataset's test file, else the mean over "
        f"{n_splits} stratified 70/30 splits (random_state 0..{n_splits - 1}); MaxAbsScaler "
        "fitted on each training split; LinearSVC(C=1, max_iter=5000) and SparseSVC(C=2, "
        "tune=True) -- NSSVM's h(t) = t^2/(2C) is the conjugate of (C/2) max(0, u)^2, so "
        "C = 2 is LinearSVC's C = 1 squared-hinge weight. `defaults` = SparseSVC() (C = 0.25, "
        "i.e. LinearSVC's C = 0.125, no tuning). `s0 x2` adds solver_options s0_scale=2 (twice "
        "the paper's initial sparsity budget; the test's protocol). SVs = largest "
        "support-vector count over the splits; accuracy in %, diff = SparseSVC - LinearSVC "
        "in points.",
        "",
        "| dataset | m train | n | LinearSVC | SparseSVC defaults | SparseSVC C=2 tune | diff "
        "| SVs | SparseSVC C=2 tune s0 x2 | diff | SVs |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for train, test, nf in SHARED:
        X, y = load_svmlight_file(str(root / train), n_features=nf)
        if test is None:
            splits = [
                train_test_split(X, y, test_size=0.3, random_state=r, stratify=y)
                for r in range(n_splits)
            ]
        else:
            Xte, yte = load_svmlight_file(str(root / test), n_features=nf)
            splits = [(X, Xte, y, yte)]
        acc = {"lin": [], "def": [], "tune": [], "tune2": []}
        n_sv = n_sv2 = 0
        for Xtr, Xte, ytr, yte in splits:
            sc = MaxAbsScaler().fit(Xtr)
            Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
            acc["lin"].append(LinearSVC(C=1.0, max_iter=5000).fit(Xtr, ytr).score(Xte, yte))
            acc["def"].append(SparseSVC().fit(Xtr, ytr).score(Xte, yte))
            clf = SparseSVC(C=2.0, tune=True).fit(Xtr, ytr)
            acc["tune"].append(clf.score(Xte, yte))
            n_sv = max(n_sv, len(clf.support_))
            clf = SparseSVC(C=2.0, tune=True, solver_options={"s0_scale": 2.0}).fit(Xtr, ytr)
            acc["tune2"].append(clf.score(Xte, yte))
            n_sv2 = max(n_sv2, len(clf.support_))
        a = {k: 100 * float(np.mean(v)) for k, v in acc.items()}
        lines.append(
            f"| {train.split('/')[0]} | {splits[0][0].shape[0]} | {nf} | {a['lin']:.2f} | "
            f"{a['def']:.2f} | {a['tune']:.2f} | {a['tune'] - a['lin']:+.2f} | {n_sv} | "
            f"{a['tune2']:.2f} | {a['tune2'] - a['lin']:+.2f} | {n_sv2} |"
        )
        print(lines[-1], flush=True)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n")
    print(f"wrote {out}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--case", nargs=3)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--timeout", type=float, default=180.0)
    ap.add_argument("--out", default=None)
    ap.add_argument("--accuracy", action="store_true")
    args = ap.parse_args()
    if args.accuracy:
        accuracy_table(Path(args.out or HERE / "results" / "nssvm_accuracy.md"))
        return
    args.out = args.out or str(HERE / "results" / "nssvm.md")
    if args.case:
        m, n, solver = int(args.case[0]), int(args.case[1]), args.case[2]
        print(json.dumps(run_case(m, n, solver, args.threads)))
        return

    ms = [10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000]
    cases = [(m, n) for m in ms for n in (2, 10, 100)] + [(53_602, 17)]
    rows = []
    for m, n in cases:
        for solver in ("nssvm", "nssvm_core", "linearsvc"):
            r = spawn(m, n, solver, args.threads, args.timeout)
            rows.append(r)
            print(json.dumps(r), flush=True)

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = (
        "python bench/bench_nssvm.py"
        + (" --quick" if args.quick else "")
        + (f" --threads {args.threads}")
    )
    import sklearn

    lines = [
        "## NSSVM (SparseSVC, paper 003)",
        "",
        f"Command: `{cmd}` (each case in its own subprocess, OMP_NUM_THREADS={args.threads}).",
        f"Machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores "
        f"(shared with other jobs: load average {os.getloadavg()[0]:.1f} at the end); "
        f"Python {platform.python_version()}, numpy {np.__version__}, scikit-learn "
        f"{sklearn.__version__}.",
        "",
        "Data: paper 003's 2-D synthetic classes in features 1-2, N(0,1) noise in the rest, "
        "float64 C order; test set min(m, 1e5) fresh samples. SparseSVC with its defaults "
        "(C = 0.25, c = C/100, eta = min(1/m, 1e-4), s0 = ceil(n ln(m/n)^2), tuning off). "
        "LinearSVC: scikit-learn's (liblinear, squared hinge, C = 1, dual='auto'); its "
        "support vectors counted as the samples with margin < 1.",
        "",
        "extra RSS = peak RSS during the fit minus RSS before it (peak reset via "
        "/proc/self/clear_refs); `core` = the bare C++ solve `_core.fit_nssvm` (labels "
        "already encoded), `SparseSVC` = the estimator's fit including validation and label "
        "encoding; py peak = tracemalloc peak (numpy/Python allocations only).",
        "",
        "| m | n | data MB | solver | fit s | iters | SVs | test acc | extra RSS MB | py peak MB |",
        "|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['m']} | {r['n']} | | {r['solver']} | {r['error']} | | | | | |")
            continue
        name = {"nssvm": "SparseSVC", "nssvm_core": "nssvm core", "linearsvc": "LinearSVC"}[
            r["solver"]
        ]
        lines.append(
            f"| {r['m']} | {r['n']} | {fmt(r, 'data_mb', '.1f')} | {name} | "
            f"{r['time']:.3f} | {r.get('iterations', '-')} | {r.get('n_sv', '-')} | "
            f"{r['test_acc']:.4f} | {r['extra_rss_mb']:.1f} | {fmt(r, 'py_peak_mb', '.1f')} |"
        )
    lines += ["", "![NSSVM scaling](nssvm_scaling.png)", ""]
    out.write_text("\n".join(lines))
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        for n, color in zip((2, 10, 100), ("C0", "C1", "C2")):
            for solver, style in (("nssvm", "-o"), ("linearsvc", "--s")):
                pts = [
                    (r["m"], r)
                    for r in rows
                    if r["n"] == n and r["solver"] == solver and "error" not in r
                ]
                if not pts:
                    continue
                xs = [p[0] for p in pts]
                label = f"{'SparseSVC' if solver == 'nssvm' else 'LinearSVC'} n={n}"
                axes[0].loglog(xs, [p[1]["time"] for p in pts], style, color=color, label=label)
                if solver == "nssvm":
                    axes[1].loglog(
                        xs,
                        [max(p[1]["extra_rss_mb"], 0.1) for p in pts],
                        style,
                        color=color,
                        label=label,
                    )
        axes[0].set_xlabel("m (samples)")
        axes[0].set_ylabel("fit time (s)")
        axes[0].legend(fontsize=7)
        axes[0].grid(True, which="both", alpha=0.3)
        axes[1].set_xlabel("m (samples)")
        axes[1].set_ylabel("extra peak RSS (MB)")
        axes[1].legend(fontsize=7)
        axes[1].grid(True, which="both", alpha=0.3)
        fig.tight_layout()
        fig.savefig(out.parent / "nssvm_scaling.png", dpi=110)
    except ImportError:
        pass
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
