"""Paper 001's Tables 8, 10, 16 and 18 setting: SMO on its small generated problems.

Paper 001 (section 7) fits Wolfe duals by SMO on generated linearly and nonlinearly separable
data and reports fit time, accuracy (or R^2), iterations and support vectors for C in
{0.1, 1, 10} (SVC) and C in {1, 10, 100} x epsilon in {0.1, 0.2, 0.3} (SVR), beside LIBSVM.
The paper does not give its generators' parameters, so these are our stand-ins (seeded):
  Table 8  linear L1-SVC:     make_classification, 2 informative features, 100 train / 200 test
  Table 10 nonlinear L1-SVC:  make_moons(noise=0.1), 400 train / 400 test; gaussian (rbf) and
                              poly (degree 3, coef0 1) kernels, gamma="scale"
  Table 16 linear L1-SVR:     y = 2x + 1 + N(0, 0.3^2), x ~ N(0, 1), 100 train / 100 test
  Table 18 nonlinear L1-SVR:  sinc(x) + N(0, 0.05^2), x in [-3, 3], 100 train / 100 test;
                              gaussian and laplacian kernels, gamma="scale"
Solvers: svmkit smo with the second-order working set (default) and with Keerthi's
b_up/b_low maximal violating pair (the paper's Algorithms 5-6), and scikit-learn SVC/SVR
(LIBSVM; the laplacian kernel passed as a precomputed Gram matrix, fit time excluding its
computation). tol = 1e-3 for all.

    python bench/bench_smo_tables.py
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import svmkit
from harness import Table, command_line, write_section
from scipy.spatial.distance import cdist
from sklearn.datasets import make_classification, make_moons
from sklearn.metrics import r2_score
from sklearn.svm import SVC as SkSVC
from sklearn.svm import SVR as SkSVR

TOL = 1e-3


def timed(fn):
    t = time.perf_counter()
    v = fn()
    return time.perf_counter() - t, v


def gamma_scale(X):
    return 1.0 / (X.shape[1] * X.var())


def svc_rows(table, name, kernel, Xtr, ytr, Xte, yte, Cs, kw):
    for C in Cs:
        for label, est in (
            ("svmkit smo (second order)", svmkit.SVC(C=C, kernel=kernel, tol=TOL, **kw)),
            (
                "svmkit smo (b_up/b_low)",
                svmkit.SVC(C=C, kernel=kernel, tol=TOL, working_set="max_violating_pair", **kw),
            ),
            ("scikit-learn (libsvm)", SkSVC(C=C, kernel=kernel, tol=TOL, **kw)),
        ):
            t, m = timed(lambda est=est: est.fit(Xtr, ytr))
            acc = float(np.mean(m.predict(Xte) == yte))
            table.add(
                name,
                kernel,
                C,
                "-",
                label,
                t,
                acc,
                int(np.sum(m.n_iter_)),
                int(m.support_.shape[0]),
            )


def svr_rows(table, name, kernel, Xtr, ytr, Xte, yte, kw):
    for C in (1.0, 10.0, 100.0):
        for eps in (0.1, 0.2, 0.3):
            cases = [
                (
                    "svmkit smo (second order)",
                    svmkit.SVR(C=C, epsilon=eps, kernel=kernel, tol=TOL, **kw),
                    Xtr,
                    Xte,
                ),
                (
                    "svmkit smo (b_up/b_low)",
                    svmkit.SVR(
                        C=C,
                        epsilon=eps,
                        kernel=kernel,
                        tol=TOL,
                        working_set="max_violating_pair",
                        **kw,
                    ),
                    Xtr,
                    Xte,
                ),
            ]
            if kernel == "laplacian":
                g = gamma_scale(Xtr)
                Ktr = np.exp(-g * cdist(Xtr, Xtr, "cityblock"))
                Kte = np.exp(-g * cdist(Xte, Xtr, "cityblock"))
                cases.append(
                    (
                        "scikit-learn (libsvm)",
                        SkSVR(C=C, epsilon=eps, kernel="precomputed", tol=TOL),
                        Ktr,
                        Kte,
                    )
                )
            else:
                cases.append(
                    (
                        "scikit-learn (libsvm)",
                        SkSVR(C=C, epsilon=eps, kernel=kernel, tol=TOL, **kw),
                        Xtr,
                        Xte,
                    )
                )
            for label, est, A, B in cases:
                t, m = timed(lambda est=est, A=A: est.fit(A, ytr))
                table.add(
                    name,
                    kernel,
                    C,
                    eps,
                    label,
                    t,
                    r2_score(yte, m.predict(B)),
                    int(np.sum(m.n_iter_)),
                    int(m.support_.shape[0]),
                )


def main() -> None:
    warnings.filterwarnings("ignore")
    table = Table(
        ["table", "kernel", "C", "epsilon", "solver", "fit s", "accuracy or R2", "n_iter", "n_sv"]
    )
    X, y = make_classification(
        300,
        n_features=2,
        n_informative=2,
        n_redundant=0,
        n_clusters_per_class=1,
        class_sep=1.5,
        random_state=1,
    )
    svc_rows(
        table,
        "8 (linear L1-SVC)",
        "linear",
        X[:100],
        y[:100],
        X[100:],
        y[100:],
        (0.1, 1.0, 10.0),
        {},
    )
    X, y = make_moons(800, noise=0.1, random_state=2)
    for kernel, kw in (("rbf", {"gamma": "scale"}), ("poly", {"degree": 3, "coef0": 1.0})):
        svc_rows(
            table,
            "10 (nonlinear L1-SVC)",
            kernel,
            X[:400],
            y[:400],
            X[400:],
            y[400:],
            (0.1, 1.0, 10.0),
            kw,
        )
    rng = np.random.RandomState(3)
    X = rng.normal(size=(200, 1))
    y = 2.0 * X[:, 0] + 1.0 + rng.normal(0, 0.3, 200)
    svr_rows(table, "16 (linear L1-SVR)", "linear", X[:100], y[:100], X[100:], y[100:], {})
    rng = np.random.RandomState(4)
    X = rng.uniform(-3, 3, (200, 1))
    y = np.sinc(X[:, 0]) + rng.normal(0, 0.05, 200)
    for kernel in ("rbf", "laplacian"):
        svr_rows(
            table,
            "18 (nonlinear L1-SVR)",
            kernel,
            X[:100],
            y[:100],
            X[100:],
            y[100:],
            {"gamma": "scale"},
        )
    body = (
        "One fit per row, wall seconds on a shared 2-core machine (noisy at this size). "
        "n_iter counts two-variable SMO steps (scikit-learn: LIBSVM's iterations).\n\n"
        + table.markdown()
    )
    write_section(
        "smo_tables",
        "Paper 001 Tables 8, 10, 16, 18 setting: SMO beside LIBSVM",
        body,
        command_line(),
    )


if __name__ == "__main__":
    main()
