"""Homotopic subgradient method (paper 004) on the paper's toy data, against gradient descent
on the logistic loss (the paper's Figure 3 comparison), plus hard-margin accuracy vs clarabel.

Writes bench/results/homotopy.md and bench/results/homotopy_*.png.

    python bench/bench_homotopy.py [--outer 100] [--shared ../shared/datasets]
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from pathlib import Path

import numpy as np
import svmkit
from svmkit import _core
from svmkit.plotting import plot_series

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))
from references import hard_margin, svm_dual  # noqa: E402

# Paper 004 section 5: support vectors +-(0.5, 1.5), +-(1.5, 0.5), w* = (0.5, 0.5); our
# non-support points lie strictly outside the margin (x1 + x2 > 2).
TOY_POS = np.array(
    [[0.5, 1.5], [1.5, 0.5], [2.0, 2.0], [1.0, 2.5], [2.5, 1.0], [3.0, 3.0], [1.2, 1.6]]
)


def toy(y_scale: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    X = np.vstack([TOY_POS, -TOY_POS]) * np.array([1.0, y_scale])
    return X, np.r_[np.ones(7), -np.ones(7)]


def gaps(W: np.ndarray, X: np.ndarray, y: np.ndarray, w_star: np.ndarray):
    """L2 error, angle gap 1 - cos(w, w*), margin gap 1/||w*|| - min_i y_i x_i.w/||w||."""
    nw = np.linalg.norm(W, axis=1)
    err = np.linalg.norm(W - w_star, axis=1)
    angle = 1.0 - W @ w_star / (nw * np.linalg.norm(w_star))
    margin = 1.0 / np.linalg.norm(w_star) - np.min((y[:, None] * X) @ W.T, axis=0) / nw
    return err, angle, margin


def homotopy_run(X, y, outer, **opts):
    # The paper's figures: Algorithm 1 verbatim (mean loss, the box's step constant).
    opts = {
        "max_iter": outer,
        "tol": 0.0,
        "record_iterates": True,
        "n_threads": 1,
        "lambda_scale": 1.0,
        "step_scale": 1.0,
        **opts,
    }
    t = time.perf_counter()
    r = _core.fit_homotopy(X, y, np.ones(len(y)), False, 1.0, True, opts, None)
    return r, time.perf_counter() - t, np.cumsum(r["history"]["inner_iterations"])


def logistic_gd(X, y, iters, record):
    """Gradient descent on sum_i log(1 + exp(-y_i x_i.w)), step 1/sigma_max(X), w0 = 0."""
    eta = 1.0 / np.linalg.svd(X, compute_uv=False)[0]
    w = np.zeros(X.shape[1])
    out, k = [], 0
    rec = set(record.tolist())
    for k in range(1, iters + 1):
        m = y * (X @ w)
        g = -(X.T @ (y / (1.0 + np.exp(m))))
        w = w - eta * g
        if k in rec:
            out.append(w.copy())
    return np.array(out)


def slope(k, e, start):
    keep = (k >= start) & (e > 1e-15)
    if keep.sum() < 3:
        return float("nan")  # the gap is 0 to rounding (e.g. the symmetric toy's direction)
    return float(np.polyfit(np.log(k[keep]), np.log(e[keep]), 1)[0])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--outer", type=int, default=100)
    ap.add_argument("--shared", default=str(HERE.parent.parent / "shared" / "datasets"))
    args = ap.parse_args()
    lines = ["# Homotopic subgradient method (paper 004)", ""]
    lines.append(
        f"Command: `python bench/bench_homotopy.py --outer {args.outer}` on {platform.node()} "
        f"({platform.processor() or platform.machine()}), svmkit {svmkit.__version__}, one thread."
    )
    lines.append("")
    lines.append(
        "Toy data of paper 004 section 5: support vectors +-(0.5, 1.5), +-(1.5, 0.5), "
        "w* = (0.5, 0.5); non-support points (ours) (2, 2), (1, 2.5), (2.5, 1), (3, 3), "
        "(1.2, 1.6) and their negatives (all with x1 + x2 > 2; clarabel confirms w*). "
        "Homogeneous classifier (no bias), p = 1/2, r = 2, Algorithm 1's constants. "
        "k = cumulative subgradient steps (each one full pass over the 14 points). "
        "Rates are the fitted log-log slopes of the error against k over k >= 10^4."
    )
    lines.append("")
    X, y = toy()
    w_star, _ = hard_margin(X, y, fit_intercept=False)
    assert np.allclose(w_star, [0.5, 0.5], atol=1e-7)

    # Figure 2: varying s0.
    lines += ["## ||w - w*|| for varying s0 (paper Figure 2)", ""]
    lines.append(
        "| s0 | outer S | k | ||w-w*|| | angle gap | margin gap | rate of ||w-w*|| | time (s) |"
    )
    lines.append("|---|---|---|---|---|---|---|---|")
    curves = {}
    for s0 in (3, 5, 10, 20):
        r, t, k = homotopy_run(X, y, args.outer, s0=float(s0))
        err, angle, margin = gaps(r["iterates"], X, y, w_star)
        curves[s0] = (k, err, angle, margin)
        lines.append(
            f"| {s0} | {args.outer} | {k[-1]} | {err[-1]:.3e} | {angle[-1]:.3e} | "
            f"{margin[-1]:.3e} | {-slope(k, err, 1e4):.3f} | {t:.2f} |"
        )
    lines.append("")
    plot_series(
        [c[0] for c in curves.values()],
        [c[1] for c in curves.values()],
        [f"s0 = {s}" for s in curves],
        ylabel="||w - w*||",
        title="Algorithm 1, p = 1/2, r = 2",
    ).figure.savefig(HERE / "results" / "homotopy_l2.png", dpi=110)

    # Figure 3: angle and margin gaps vs logistic-loss gradient descent.
    for y_scale, tag in ((1.0, "toy"), (20.0, "toy, y-coordinates x20 (Figure 4)")):
        Xs, ys = toy(y_scale)
        ws, _ = hard_margin(Xs, ys, fit_intercept=False)
        r, t, k = homotopy_run(Xs, ys, args.outer, s0=10.0)
        err, angle, margin = gaps(r["iterates"], Xs, ys, ws)
        t0 = time.perf_counter()
        Wl = logistic_gd(Xs, ys, int(k[-1]), k)
        tl = time.perf_counter() - t0
        errl, anglel, marginl = gaps(Wl, Xs, ys, ws)
        lines += [f"## Angle and margin gaps vs logistic-loss GD, {tag} (paper Figure 3)", ""]
        lines.append(f"w* = {np.round(ws, 6).tolist()}; logistic GD step 1/sigma_max(X), same k.")
        lines.append("")
        lines.append(
            "| k | homotopy angle gap | logistic angle gap | homotopy margin gap | "
            "logistic margin gap | homotopy ||w-w*|| |"
        )
        lines.append("|---|---|---|---|---|---|")
        for i in sorted({9, 24, 49, len(k) - 1} & set(range(len(k)))):
            lines.append(
                f"| {k[i]} | {angle[i]:.3e} | {anglel[i]:.3e} | {margin[i]:.3e} | "
                f"{marginl[i]:.3e} | {err[i]:.3e} |"
            )
        lines.append("")
        lines.append(
            f"Rates (log-log slope over k >= 1e4): homotopy angle {-slope(k, angle, 1e4):.3f}, "
            f"margin {-slope(k, margin, 1e4):.3f}, ||w-w*|| {-slope(k, err, 1e4):.3f}; "
            f"logistic angle {-slope(k, anglel, 1e4):.3f}, margin {-slope(k, marginl, 1e4):.3f}. "
            f"Homotopy faster in angle gap at the end: "
            f"{'yes' if angle[-1] < anglel[-1] else 'NO'} "
            f"({angle[-1]:.2e} vs {anglel[-1]:.2e}); time homotopy {t:.2f}s, numpy GD {tl:.2f}s."
        )
        lines.append("")
        name = "homotopy_gaps.png" if y_scale == 1.0 else "homotopy_gaps_y20.png"
        import matplotlib.pyplot as plt

        fig, axes = plt.subplots(1, 2, figsize=(11, 4))
        plot_series(
            [k, k],
            [angle, anglel],
            ["homotopy (s0=10)", "logistic GD"],
            ylabel="angle gap",
            ax=axes[0],
            title=tag,
        )
        plot_series(
            [k, k],
            [margin, marginl],
            ["homotopy (s0=10)", "logistic GD"],
            ylabel="margin gap",
            ax=axes[1],
            title=tag,
        )
        fig.tight_layout()
        fig.savefig(HERE / "results" / name, dpi=110)
        plt.close("all")

    # Figure 5: averaged vs best iterate.
    lines += ["## Averaged vs best iterate (paper Figure 5, s0 = 10)", ""]
    lines.append("| iterate | ||w-w*|| | angle gap | margin gap | rate of ||w-w*|| |")
    lines.append("|---|---|---|---|---|")
    for it in ("average", "best"):
        r, t, k = homotopy_run(X, y, args.outer, iterate=it)
        err, angle, margin = gaps(r["iterates"], X, y, w_star)
        lines.append(
            f"| {it} | {err[-1]:.3e} | {angle[-1]:.3e} | {margin[-1]:.3e} | "
            f"{-slope(k, err, 1e4):.3f} |"
        )
    lines.append("")

    # Hard margin with a bias vs clarabel.
    lines += ["## Hard-margin solution vs clarabel (unregularized bias, eq. 15)", ""]
    lines.append(
        "Relative error ||w - w_qp|| / ||w_qp|| and |b - b_qp| (LinearSVC(C=inf, "
        "solver='homotopy') settings; rescale on). 'defaults' = svmkit's defaults (lambda_scale "
        "= 1/n, step_scale = 3, stop when the margin-gap certificate < tol = 1e-5, max_iter "
        "300); 'paper' = Algorithm 1 verbatim (lambda_scale = 1, step_scale = 1) for a fixed "
        "number of outer iterations. lambda' = 1 / (n max_j a_j) from clarabel's hard-margin "
        "dual (the regularization below which w*_lambda = w*; Theorem 3.1's bias term)."
    )
    lines.append("")
    lines.append(
        "| data | n | lambda' | config | status | outer | k | rel. error w | error b | "
        "margin-gap certificate | time (s) |"
    )
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    from sklearn.datasets import load_iris, load_wine
    from sklearn.preprocessing import StandardScaler

    sets = {"toy shifted by (1, -2)": (X + np.array([1.0, -2.0]), y)}
    rng = np.random.default_rng(1)
    G = np.vstack([rng.normal(size=(20, 3)) + 2.5, rng.normal(size=(20, 3)) - 2.5])
    sets["gaussians (seed 1)"] = (G, np.r_[np.ones(20), -np.ones(20)])
    for label, loader, cls in [
        ("sklearn iris, setosa vs rest", load_iris, 0),
        ("sklearn wine, class 0 vs rest", load_wine, 0),
        ("sklearn wine, class 1 vs rest", load_wine, 1),
    ]:
        Xl, yl = loader(return_X_y=True)
        sets[label + " (standardized)"] = (
            StandardScaler().fit_transform(Xl),
            np.where(yl == cls, 1.0, -1.0),
        )
    shared = Path(args.shared)
    if (shared / "iris" / "iris").exists():
        from sklearn.datasets import load_svmlight_file

        Xi, yi = load_svmlight_file(str(shared / "iris" / "iris"))
        sets["shared iris, class 1 vs rest (standardized)"] = (
            StandardScaler().fit_transform(Xi.toarray()),
            np.where(yi == 1, 1.0, -1.0),
        )
    else:
        lines.append(f"(shared datasets not found at {shared}: shared rows skipped)")
    for name, (Xd, yd) in sets.items():
        wq, bq = hard_margin(Xd, yd, fit_intercept=True)
        a, _ = svm_dual(Xd @ Xd.T, yd, np.full(len(yd), 1e6), equality=True)
        lam_prime = 1.0 / (len(yd) * a.max())
        configs = [
            ("defaults", {}),
            (
                "paper, 200 outer",
                {"lambda_scale": 1.0, "step_scale": 1.0, "max_iter": 200, "tol": 0.0},
            ),
        ]
        for label, extra in configs:
            opts = {"n_threads": 1, **extra}
            t0 = time.perf_counter()
            r = _core.fit_homotopy(Xd, yd, np.ones(len(yd)), True, 1.0, False, opts, None)
            t = time.perf_counter() - t0
            s = r["solution"]
            rel = np.linalg.norm(s[:-1] - wq) / np.linalg.norm(wq)
            lines.append(
                f"| {name} | {len(yd)} | {lam_prime:.3g} | {label} | {r['status'].name} | "
                f"{r['iterations']} | {r['inner_iterations']} | {rel:.2e} | "
                f"{abs(s[-1] - bq):.2e} | {r['optimality']:.2e} | {t:.2f} |"
            )
    lines.append("")
    lines += ["## Non-separable data: Farkas certificate (defaults)", ""]
    lines.append(
        "Reference: scipy's LP min sum xi s.t. y_i (w.x_i + b) >= 1 - xi_i, xi >= 0 (0 = "
        "separable). 'outer' = outer iterations run (for not_separable: the one at which the "
        "data were certified non-separable); separable rows must never be certified."
    )
    lines.append("")
    lines.append("| data | n | LP min slack | status | outer | certificate bound | time (s) |")
    lines.append("|---|---|---|---|---|---|---|")
    from scipy.optimize import linprog
    from sklearn.datasets import load_breast_cancer, load_digits

    cases = [
        ("iris versicolor vs rest", load_iris, 1, {}),
        ("iris virginica vs rest", load_iris, 2, {}),
        ("digits 8 vs rest", load_digits, 8, {}),
        ("digits 9 vs rest", load_digits, 9, {}),
        ("breast cancer (separable), 40 outer", load_breast_cancer, 1, {"max_iter": 40}),
        ("digits 0 vs rest (separable), 20 outer", load_digits, 0, {"max_iter": 20}),
    ]
    for name, loader, cls, extra in cases:
        Xl, yl = loader(return_X_y=True)
        Xl = StandardScaler().fit_transform(Xl)
        yl = np.where(yl == cls, 1.0, -1.0)
        n, d = Xl.shape
        lp = linprog(
            np.r_[np.zeros(d + 1), np.ones(n)],
            A_ub=np.hstack([-yl[:, None] * Xl, -yl[:, None], -np.eye(n)]),
            b_ub=-np.ones(n),
            bounds=[(None, None)] * (d + 1) + [(0, None)] * n,
            method="highs",
        )
        t0 = time.perf_counter()
        r = _core.fit_homotopy(
            Xl, yl, np.ones(n), True, 1.0, False, {"n_threads": 1, **extra}, None
        )
        t = time.perf_counter() - t0
        status = r["status"].name
        lines.append(
            f"| {name} | {n} | {lp.fun:.3g} | {status} | {r['iterations']} | "
            f"{r['certificate_bound']:.3g} | {t:.2f} |"
        )
    lines.append("")
    lines.append(
        "Plots: homotopy_l2.png (Figure 2), homotopy_gaps.png (Figure 3), "
        "homotopy_gaps_y20.png (Figure 4)."
    )
    (HERE / "results" / "homotopy.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
