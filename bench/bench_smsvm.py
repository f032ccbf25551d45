"""SmSVM (paper 000) benchmarks, measured side by side with LIBLINEAR in one run.

Writes bench/results/smsvm.md. Parts:
  tall  -- synthetic two-Gaussian data of covtype size (581,012 x 54), C = 1, 80/20 split:
           SmSVM-l2 vs scikit-learn LinearSVC(loss="hinge") and liblinear-official -s 3;
           time, objective, passes, test accuracy, time to within 1e-4 of the best objective,
           Newton steps and passes per alpha level.
  wide  -- synthetic 100 x 2500 (paper 000 Table 1): SmSVM-l2 and l1-l2 time vs LinearSVC,
           objective vs clarabel's exact QP optimum.
  real  -- the shared real datasets (../shared/datasets), C = 1 on standardized features.

Usage: python bench/bench_smsvm.py [--parts tall,wide,real] [--threads 2]
"""

from __future__ import annotations

import argparse
import lzma
import os
import platform
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "bench" / "results" / "smsvm.md"


def hinge_objective(X, y, w, b, C):
    z = X @ w + b
    return 0.5 * (w @ w + b * b) + C * np.maximum(0.0, 1.0 - y * z).sum()


def run_smsvm(X, y, C, rho=0.0, threads=2, **opts):
    from svmkit import _core

    opts = {"n_threads": threads, **opts}
    t = time.perf_counter()
    r = _core.fit_smsvm(
        X, y, np.full(len(y), C), 1.0 - rho, rho, True, 1.0, True, None, 0.0, opts, None
    )
    return r, time.perf_counter() - t


def run_sklearn(X, y, C, max_iter=1000, tol=1e-4):
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.svm import LinearSVC

    est = LinearSVC(loss="hinge", dual=True, C=C, tol=tol, max_iter=max_iter)
    t = time.perf_counter()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always", ConvergenceWarning)
        est.fit(X, y)
    dt = time.perf_counter() - t
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in rec)
    return est.coef_.ravel(), float(est.intercept_[0]), dt, converged


def run_liblinear(X, y, C):
    from liblinear.liblinearutil import train

    t = time.perf_counter()
    m = train(y, X, f"-s 3 -c {C} -B 1 -q")
    dt = time.perf_counter() - t
    w, b = m.get_decfun()
    sign = 1.0 if m.get_labels()[0] == 1 else -1.0
    return sign * np.asarray(w), sign * float(b), dt


def level_table(h) -> list[str]:
    rows = [
        "| alpha | Newton steps | passes at this level | Armijo halvings (total) |",
        "|---|---|---|---|",
    ]
    alphas = h["smoothing"]
    passes = h["passes"]
    prev_pass = 0
    seen = []
    for a in alphas:
        if not seen or seen[-1] != a:
            seen.append(a)
    for a in seen:
        idx = np.where(alphas == a)[0]
        p_end = int(passes[idx[-1]])
        rows.append(
            f"| {a:.0e} | {len(idx)} | {p_end - prev_pass} | {int(h['radius'][idx].sum())} |"
        )
        prev_pass = p_end
    return rows


def time_to_within(h, f_ref, tol=1e-4):
    ok = np.where(h["objective"] <= f_ref * (1 + tol))[0]
    if ok.size == 0:
        return None, None
    return float(h["time"][ok[0]]), int(h["passes"][ok[0]])


def part_tall(threads: int) -> list[str]:
    from svmkit._paper_data import make_paper_gaussians

    n_total, m = 581012, 54
    X, y = make_paper_gaussians(n_total, m, random_state=0)
    n = int(0.8 * n_total)
    Xtr, ytr, Xte, yte = X[:n], y[:n], X[n:], y[n:]
    C = 1.0
    out = ["## Synthetic tall data of covtype size (581,012 x 54, C = 1, 80/20 split)", ""]
    out.append(
        "Data: `svmkit._paper_data.make_paper_gaussians(581012, 54, centroid_scale=0.1, "
        "random_state=0)` (paper 000 sec. 4.1.4: centroids N(0, 1) scaled, samples N(c_k, I)); "
        "first 464,809 rows train, the rest test. Objective: LIBLINEAR's "
        "1/2(||w||^2 + b^2) + C sum hinge (bias regularized, intercept_scaling 1) for all three."
    )
    out.append("")
    r, t_sm = run_smsvm(Xtr, ytr, C, threads=threads)
    w = r["solution"]
    acc_sm = float(np.mean(np.sign(Xte @ w[:-1] + w[-1]) == yte))
    r8, t_sm8 = run_smsvm(Xtr, ytr, C, threads=threads, tol=1e-6)
    w8 = r8["solution"]
    rp, t_smp = run_smsvm(Xtr, ytr, C, threads=threads, tol=0.0, alpha_min=1e-6)
    wp = rp["solution"]
    wl, bl, t_sk, conv_sk = run_sklearn(Xtr, ytr, C)
    f_sk = hinge_objective(Xtr, ytr, wl, bl, C)
    acc_sk = float(np.mean(np.sign(Xte @ wl + bl) == yte))
    wo, bo, t_ll = run_liblinear(Xtr, ytr, C)
    f_ll = hinge_objective(Xtr, ytr, wo, bo, C)
    acc_ll = float(np.mean(np.sign(Xte @ wo + bo) == yte))
    f_best = min(r["objective"], r8["objective"], rp["objective"], f_sk, f_ll)
    t_hit, p_hit = time_to_within(r["history"], f_best)
    out += [
        "| solver | time (s) | objective | rel. to best | passes | test acc. | status |",
        "|---|---|---|---|---|---|---|",
        f"| SmSVM-l2 (defaults: tol 1e-4; its bound {r['optimality']:.1e}) | {t_sm:.2f} | "
        f"{r['objective']:.6f} | "
        f"{(r['objective'] - f_best) / f_best:.1e} | {r['passes']} | {100 * acc_sm:.3f} | "
        f"{r['status'].name} |",
        f"| SmSVM-l2 (tol 1e-6; its bound {r8['optimality']:.1e}) | {t_sm8:.2f} | "
        f"{r8['objective']:.6f} | "
        f"{(r8['objective'] - f_best) / f_best:.1e} | {r8['passes']} | "
        f"{100 * np.mean(np.sign(Xte @ w8[:-1] + w8[-1]) == yte):.3f} | {r8['status'].name} |",
        f"| SmSVM-l2 (paper's rule: tol 0, alpha_min 1e-6) | {t_smp:.2f} | "
        f"{rp['objective']:.6f} | "
        f"{(rp['objective'] - f_best) / f_best:.1e} | {rp['passes']} | "
        f"{100 * np.mean(np.sign(Xte @ wp[:-1] + wp[-1]) == yte):.3f} | {rp['status'].name} |",
        f"| sklearn LinearSVC(loss='hinge') | {t_sk:.2f} | {f_sk:.6f} | "
        f"{(f_sk - f_best) / f_best:.1e} | - | {100 * acc_sk:.3f} | "
        f"{'converged' if conv_sk else 'max_iter (1000)'} |",
        f"| liblinear-official -s 3 -B 1 | {t_ll:.2f} | {f_ll:.6f} | "
        f"{(f_ll - f_best) / f_best:.1e} | - | {100 * acc_ll:.3f} | (own stopping rule) |",
        "",
    ]
    if t_hit is not None:
        out.append(
            f"SmSVM-l2 first reached within 1e-4 of the best objective ({f_best:.6f}) after "
            f"{t_hit:.2f} s and {p_hit} passes (from the default run's history). The default "
            f"run (whole fit, stopped by its tol rule) / LIBLINEAR's time: "
            f"{t_sm / t_sk:.3f} (sklearn), {t_sm / t_ll:.3f} (liblinear-official); first "
            f"time within 1e-4: {t_hit / t_sk:.3f}, {t_hit / t_ll:.3f}."
        )
    else:
        out.append("SmSVM-l2 did not reach within 1e-4 of the best objective.")
    out += ["", "Newton steps and passes per alpha level (SmSVM-l2, defaults):", ""]
    out += level_table(r["history"])
    out.append("")
    return out


def part_wide(threads: int) -> list[str]:
    sys.path.insert(0, str(ROOT / "tests"))
    from svmkit._paper_data import make_paper_gaussians
    from test_smsvm import qp_objective

    X, y = make_paper_gaussians(100, 2500, random_state=4)
    out = ["## Synthetic wide data (100 x 2500, C = 1)", ""]
    out += [
        "| solver | median time (s) of 5 | objective | rel. to clarabel QP | passes |",
        "|---|---|---|---|---|",
    ]
    for rho, name in [(0.0, "SmSVM-l2"), (0.5, "SmSVM-l1-l2 (l1_ratio 0.5)")]:
        ts, r = [], None
        for _ in range(5):
            r, t = run_smsvm(X, y, 1.0, rho=rho, threads=threads)
            ts.append(t)
        f = qp_objective(X, y, np.ones(100), 1 - rho, rho)
        out.append(
            f"| {name} | {np.median(ts):.4f} | {r['objective']:.6g} | "
            f"{(r['objective'] - f) / f:.1e} | {r['passes']} |"
        )
    ts = []
    for _ in range(5):
        wl, bl, t, conv = run_sklearn(X, y, 1.0)
        ts.append(t)
    f = qp_objective(X, y, np.ones(100), 1.0, 0.0)
    fl = hinge_objective(X, y, wl, bl, 1.0)
    out.append(
        f"| sklearn LinearSVC(loss='hinge') | {np.median(ts):.4f} | {fl:.6g} | "
        f"{(fl - f) / f:.1e} | - |"
    )
    out.append("")
    out.append(
        "Paper 000 Table 3 (Julia): SmSVM-l2 13.45 s, SmSVM-l1-l2 7.68 s, LinearSVC "
        "0.0028 s on its synthetic wide set. SmSVM runs with its defaults (tol 1e-4, "
        "alpha_min 1e-9)."
    )
    out.append("")
    return out


def load_shared(name: str, positive):
    from sklearn.datasets import load_svmlight_file

    base = ROOT.parent / "shared" / "datasets"
    p = base / name
    if not p.exists():
        return None
    if p.suffix == ".xz":
        with lzma.open(p, "rb") as fh:
            X, y = load_svmlight_file(fh)
    else:
        X, y = load_svmlight_file(str(p))
    X = X.toarray()
    X = (X - X.mean(0)) / np.where(X.std(0) > 0, X.std(0), 1.0)
    return np.ascontiguousarray(X), np.where(y == positive, 1.0, -1.0)


def part_real(threads: int) -> list[str]:
    sys.path.insert(0, str(ROOT / "tests"))
    from test_smsvm import qp_objective

    sets = [
        ("australian/australian", 1),
        ("covtype/covtype.5000.train", 1),
        ("madelon/madelon.t.xz", 1),
        ("dna/dna.scale", 3),
        ("splice/splice", 1),
        ("sonar/sonar", 1),
        ("ionosphere/ionosphere", 1),
        ("heart/heart_scale", 1),
    ]
    out = ["## Shared real datasets (standardized, C = 1, bias regularized)", ""]
    out += [
        "| dataset | N x m | SmSVM-l2 time (s) | passes | rel. to clarabel | "
        "SmSVM-l1-l2 time (s) | rel. to clarabel | LinearSVC time (s) | "
        "LinearSVC rel. to clarabel |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for name, pos in sets:
        data = load_shared(name, pos)
        if data is None:
            out.append(f"| {name} | (not present: skipped) |||||||| ")
            continue
        X, y = data
        C = 1.0
        r2, t2 = run_smsvm(X, y, C, threads=threads)
        r5, t5 = run_smsvm(X, y, C, rho=0.5, threads=threads)
        f2 = qp_objective(X, y, np.full(len(y), C), 1.0, 0.0)
        f5 = qp_objective(X, y, np.full(len(y), C), 0.5, 0.5)
        wl, bl, tl, conv = run_sklearn(X, y, C)
        fl = hinge_objective(X, y, wl, bl, C)
        out.append(
            f"| {name} | {X.shape[0]} x {X.shape[1]} | {t2:.3f} | {r2['passes']} | "
            f"{(r2['objective'] - f2) / f2:.1e} | {t5:.3f} | {(r5['objective'] - f5) / f5:.1e} "
            f"| {tl:.3f}{'' if conv else ' (max_iter)'} | {(fl - f2) / f2:.1e} |"
        )
    out.append("")
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--parts", default="tall,wide,real")
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()
    parts = args.parts.split(",")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "# SmSVM (paper 000) benchmark",
        "",
        f"Command: `python bench/bench_smsvm.py --parts {args.parts} --threads {args.threads}`",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores, Python "
        f"{platform.python_version()}; 1-min load average at start {load:.1f} (the machine is "
        "shared; timings under load are noisy). SmSVM with n_threads = "
        f"{args.threads}; LIBLINEAR is single-threaded.",
        "",
    ]
    if "tall" in parts:
        lines += part_tall(args.threads)
    if "wide" in parts:
        lines += part_wide(args.threads)
    if "real" in parts:
        lines += part_real(args.threads)
    OUT.write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
