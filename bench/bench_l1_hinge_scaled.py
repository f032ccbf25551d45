"""LinearSVC(loss="hinge", penalty="l1" | "elasticnet") on badly scaled dense data: smsvm (the
solver="auto" choice there until 2026-12-06) beside solver="auto" (l1_cd with its HiGHS /
smsvm finishers, _solvers.L1_HINGE_SCALED).

"Badly scaled": C * mean ||x_i||^2 above _solvers.HINGE_DUAL_SCALE (raw features, large C).
Sets: raw breast_cancer (scikit-learn's), the regime matrix's near-separable generator
(features on scales 1-1000; 20,000 and 5,000 rows), make_classification 20,000 x 20 with
features on scales 1-100, and, when $SVMKIT_SHARED_DIR has them, raw covtype.5000, australian,
fourclass and svmguide1. Per fit: seconds (one run each), the solver that finished, status, the
objective and the certified relative gap the result reports, training accuracy.

    python bench/bench_l1_hinge_scaled.py [--Cs 1 100] [--penalties l1 elasticnet]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_regimes as regimes  # noqa: E402  (the matrix's generators)


def data_sets() -> list[tuple[str, np.ndarray, np.ndarray]]:
    from sklearn.datasets import load_breast_cancer, load_svmlight_file, make_classification

    out = []
    X, y = load_breast_cancer(return_X_y=True)
    out.append(("breast_cancer (raw)", X, y))
    for n in (20_000, 5_000):
        d = regimes._separable(n)
        out.append((f"near-separable {d.Xtr.shape[0]} x 20, scales 1-1000", d.Xtr, d.ytr))
    X, y = make_classification(20_000, 20, random_state=0)
    out.append(("make_classification 20000 x 20, scales 1-100", X * np.logspace(0, 2, 20), y))
    shared = os.environ.get("SVMKIT_SHARED_DIR")
    if shared:
        root = Path(shared) / "datasets"
        for name in (
            "covtype/covtype.5000.train",
            "australian/australian",
            "fourclass/fourclass",
            "svmguide1/svmguide1",
        ):
            if (root / name).exists():
                X, y = load_svmlight_file(str(root / name))
                out.append((f"{name.split('/')[0]} (raw)", X.toarray(), y))
    return out


def main() -> None:
    import svmkit

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--Cs", type=float, nargs="+", default=[1.0, 100.0])
    ap.add_argument("--penalties", nargs="+", default=["l1", "elasticnet"])
    args = ap.parse_args()
    print("| set | C | penalty | solver | seconds | finished by | status | objective | gap | acc |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, X, y in data_sets():
        for C in args.Cs:
            for penalty in args.penalties:
                for solver in ("smsvm", "auto"):
                    est = svmkit.LinearSVC(loss="hinge", penalty=penalty, C=C, solver=solver)
                    t = time.perf_counter()
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        est.fit(X, y)
                    dt = time.perf_counter() - t
                    r = est.result_[0]
                    print(
                        f"| {name} | {C:g} | {penalty} | {est.solver_} | {dt:.3f} | "
                        f"{r.get('finished_by', '-')} | {r['status'].name} | "
                        f"{r['objective']:.10g} | {r['optimality']:.2e} | {est.score(X, y):.4f} |",
                        flush=True,
                    )


if __name__ == "__main__":
    main()
