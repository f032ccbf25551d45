"""Crammer-Singer (-s 4) and the linear one-class SVM (-s 21) against liblinear-official.

Side by side in one process: svmkit's estimator and liblinear-official's `train` alternate,
median of --repeats fits, the same eps (LIBLINEAR's default for the type unless --eps) and C.
liblinear-official's time excludes its input conversion (`problem()`, done once beforehand);
svmkit's includes its validation. Objectives are computed in numpy from each model's weights:
-s 4 the primal P(W); -s 21 the dual 1/2 ||w||^2 (lower is better for both).

Usage: python bench/bench_liblinear_parity.py [--repeats 3] [--quick]
(shared-data cases run where ../shared/datasets exists, or $SVMKIT_SHARED_DIR/datasets).
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import svmkit
from harness import Table, command_line, write_section
from liblinear import liblinear as ll_core
from liblinear import liblinearutil
from sklearn.datasets import load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning


def cs_objective(X, y_idx, C, W, b):
    Z = np.asarray(X @ W.T) + b
    n = Z.shape[0]
    zy = Z[np.arange(n), y_idx]
    other = Z + 1.0
    other[np.arange(n), y_idx] = -np.inf
    return 0.5 * (np.sum(W * W) + np.sum(b * b)) + C * float(
        np.maximum(0.0, other.max(axis=1) - zy).sum()
    )


def shared(name):
    root = os.environ.get("SVMKIT_SHARED_DIR")
    d = (Path(root) if root else Path(__file__).resolve().parents[2] / "shared") / "datasets"
    return d / name if (d / name).exists() else None


def load_shared(name, n_features=None):
    """(X, y) of a file under ../shared/datasets (name relative to it), or None if absent."""
    p = shared(name)
    if p is None:
        return None
    if p.suffix == ".xz":
        import lzma
        from io import BytesIO

        from sklearn.datasets import load_svmlight_file

        with lzma.open(p) as fh:
            X, y = load_svmlight_file(BytesIO(fh.read()), n_features=n_features)
        return X.tocsr(), y
    return svmkit.datasets.load_svmlight_file(str(p))


def median_pair(fit_ours, fit_ref, repeats):
    to, tr = [], []
    for _ in range(repeats):
        t0 = time.perf_counter()
        ours = fit_ours()
        to.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        ref = fit_ref()
        tr.append(time.perf_counter() - t0)
    return float(np.median(to)), float(np.median(tr)), ours, ref


def cs_case(table, name, X, y, C, eps, repeats):
    classes, yi = np.unique(y, return_inverse=True)
    k = len(classes)
    prob = ll_core.problem(yi.astype(float), sp.csr_matrix(X), bias=1)
    param = ll_core.parameter(f"-s 4 -c {C} -e {eps} -B 1 -q")

    def ours():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return svmkit.LinearSVC(
                multi_class="crammer_singer", C=C, tol=eps, max_iter=100000
            ).fit(X, yi)

    def ref():
        return liblinearutil.train(prob, param)

    t_o, t_r, e, m = median_pair(ours, ref, repeats)
    labels = m.get_labels()
    Wl = np.array([m.get_decfun(labels.index(c))[0] for c in range(k)])
    bl = np.array([m.get_decfun(labels.index(c))[1] for c in range(k)])
    W, b = e.coef_, e.intercept_
    if k == 2:
        W, b = np.vstack([np.zeros_like(W), W]), np.r_[0.0, b]
    f_o, f_r = cs_objective(X, yi, C, W, b), cs_objective(X, yi, C, Wl, bl)
    acc_o = 100 * np.mean(e.predict(X) == yi)
    acc_r = 100 * np.mean(np.argmax(np.asarray(X @ Wl.T) + bl, axis=1) == yi)
    table.add(
        f"-s 4 {name} {X.shape[0]}x{X.shape[1]}, {k} classes",
        C,
        eps,
        t_o,
        t_r,
        t_o / t_r,
        f_o,
        f_r,
        (f_o - f_r) / abs(f_r),
        acc_o,
        acc_r,
    )


def oc_case(table, name, X, nu, eps, repeats):
    Xs = sp.csr_matrix(X)
    prob = ll_core.problem(np.ones(X.shape[0]), Xs)
    param = ll_core.parameter(f"-s 21 -n {nu} -e {eps} -q")

    def ours():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return svmkit.LinearOneClassSVM(nu=nu, tol=eps).fit(X)

    def ref():
        return liblinearutil.train(prob, param)

    t_o, t_r, e, m = median_pair(ours, ref, repeats)
    wl, neg_rho = m.get_decfun()
    wl = np.array(wl)
    f_o, f_r = 0.5 * float(e.coef_[0] @ e.coef_[0]), 0.5 * float(wl @ wl)
    agree = 100 * np.mean(e.predict(X) == np.where(np.asarray(X @ wl) + neg_rho > 0, 1, -1))
    table.add(
        f"-s 21 {name} {X.shape[0]}x{X.shape[1]}",
        nu,
        eps,
        t_o,
        t_r,
        t_o / t_r,
        f_o,
        f_r,
        (f_o - f_r) / abs(f_r),
        agree,
        e.result_[0]["status"].name,
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    q = 10 if a.quick else 1
    rng = np.random.default_rng(0)
    cs = Table(
        [
            "case",
            "C",
            "eps",
            "svmkit s",
            "liblinear s",
            "ratio",
            "P svmkit",
            "P liblinear",
            "rel. diff",
            "train acc svmkit",
            "train acc liblinear",
        ]
    )
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    for eps in (0.1, 1e-3):
        cs_case(cs, "digits", X, y, 1.0, eps, a.repeats)
    Xm, ym = make_classification(
        n_samples=5000 // q,
        n_features=50,
        n_informative=20,
        n_classes=10,
        n_clusters_per_class=1,
        random_state=0,
    )
    cs_case(cs, "make_classification", Xm, ym, 0.1, 0.1, a.repeats)
    for name in ("dna/dna.scale", "glass/glass"):
        d = load_shared(name)
        if d is not None:
            Xd = d[0]  # CSR for both (LIBLINEAR always works on sparse rows)
            cs_case(cs, name.split("/")[0], Xd, d[1], 1.0, 0.1, a.repeats)
    oc = Table(
        [
            "case",
            "nu",
            "eps",
            "svmkit s",
            "liblinear s",
            "ratio",
            "D svmkit",
            "D liblinear",
            "rel. diff",
            "pred. agreement %",
            "svmkit status",
        ]
    )
    G = rng.normal(size=(20000 // q, 50)) + 1.0
    for nu in (0.1, 0.5):
        oc_case(oc, "gaussian+1", G, nu, 0.01, a.repeats)
    oc_case(oc, "digits", X, 0.2, 0.01, a.repeats)
    d = load_shared("a9a/a9a.xz", n_features=123)
    if d is not None:
        oc_case(oc, "a9a (sparse)", d[0], 0.5, 0.01, a.repeats)
    body = (
        f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the start (shared "
        "machine with other jobs running: timings are noisy); median of "
        f"{a.repeats} alternating fits. -s 4: P is the primal Crammer-Singer objective (bias "
        "regularized, -B 1). -s 21: D = 1/2 ||w||^2, the dual objective both minimize (LIBLINEAR "
        "stops at its own 1000 iterations on some problems, above the optimum). digits and the "
        "synthetic sets are passed to svmkit dense (as a user holds them; LIBLINEAR converts "
        "every input to sparse rows, which skips digits' zeros), the LIBSVM-format files as CSR "
        "to both.\n\n"
        '### Crammer-Singer (LinearSVC(multi_class="crammer_singer") vs -s 4)\n\n'
        + cs.markdown()
        + "\n\n### Linear one-class SVM (LinearOneClassSVM vs -s 21)\n\n"
        + oc.markdown()
        + "\n"
    )
    write_section(
        "liblinear_parity" + ("_quick" if a.quick else ""),
        "LIBLINEAR parity: Crammer-Singer (-s 4) and linear one-class (-s 21)",
        body,
        command_line(),
    )


if __name__ == "__main__":
    main()
