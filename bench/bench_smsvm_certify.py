"""SmSVM's status contract: the reported bound and status against clarabel's exact optimum.

usage: [SVMKIT_SHARED_DIR=../shared] python bench/bench_smsvm_certify.py [--certificate-memory-mb M]

LinearSVC(loss="hinge", solver="smsvm") with each penalty at C = 1 and 100 on badly scaled
dense data (raw breast_cancer, seeded near-separable sets with features on scales 1 to 1000,
and raw australian / covtype.5000 from ../shared/datasets when present). One line per fit: time,
status, the reported optimality (a certified relative duality gap, or for l2 the estimate
where no certificate confirms it), the true relative gap (F - F*) / F against clarabel
(tests/references.primal_svm), and "LIE" where the status is converged but the true gap is
above tol. --certificate-memory-mb 0 runs without the band-repaired certificate (the
behaviour before it, except that an uncertified end reports max_iter).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer, load_svmlight_file

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import svmkit  # noqa: E402
from references import primal_svm, scaled_separable  # noqa: E402


def sets():
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer raw", X, np.where(y > 0, 1.0, -1.0)
    yield "near-separable 1500", *scaled_separable(1500)
    yield "near-separable 3000", *scaled_separable(3000)
    shared = Path(os.environ.get("SVMKIT_SHARED_DIR", Path(__file__).parents[2] / "shared"))
    for name, rel, rows in (
        ("australian raw", "australian/australian", None),
        ("covtype.5000 raw, 2000 rows", "covtype/covtype.5000.train", 2000),
    ):
        path = shared / "datasets" / rel
        if path.exists():
            X, y = load_svmlight_file(str(path))
            X, y = X.toarray()[:rows], y[:rows]
            yield name, X, np.where(y == y[0], 1.0, -1.0)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--certificate-memory-mb", type=float, default=None)
    args = parser.parse_args()
    opts = None
    if args.certificate_memory_mb is not None:
        opts = {"certificate_memory_mb": args.certificate_memory_mb}
    for name, X, y in sets():
        for C in (1.0, 100.0):
            for penalty in ("l1", "elasticnet", "l2"):
                clf = svmkit.LinearSVC(
                    loss="hinge", penalty=penalty, C=C, solver="smsvm", solver_options=opts
                )
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    t = time.perf_counter()
                    clf.fit(X, y)
                    dt = time.perf_counter() - t
                r = clf.result_[0]
                l1, l2 = {"l1": (1.0, 0.0), "elasticnet": (0.5, 0.5), "l2": (0.0, 1.0)}[penalty]
                w, b = clf.coef_.ravel(), float(clf.intercept_[0])
                cost = np.full(len(y), C)
                hinge = cost @ np.maximum(0.0, 1.0 - y * (X @ w + b))
                F = float(l1 * np.abs(w).sum() + 0.5 * l2 * (w @ w + b * b) + hinge)
                Fs = primal_svm(X, y, cost, l2=l2, l1=l1, reg_b=l2 > 0.0, tol=1e-11)[2]
                converged = r["status"] == svmkit.SolverStatus.converged
                lie = converged and (F - Fs) / F > 1e-4  # the default tol
                print(
                    f"{name:28s} C={C:<4g} {penalty:10s} {dt:7.3f} s {r['status'].name:9s} "
                    f"reported={r['optimality']:.2e} true={(F - Fs) / F:+.2e} "
                    f"warned={bool(caught)}{'  LIE' if lie else ''}",
                    flush=True,
                )


if __name__ == "__main__":
    main()
