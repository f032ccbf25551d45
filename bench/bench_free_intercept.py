"""The kinked losses with an unregularized intercept (regularize_intercept=False): tron's
certified continuation (solver="auto"'s choice since 2026-11-29) beside the previous choices,
smsvm for the hinge and sgd for the epsilon-insensitive loss, at the defaults (tol 1e-4).

Usage: SVMKIT_SHARED_DIR=/work/shared python bench/bench_free_intercept.py
Each fit once (timings are noisy on a shared machine); "above" is relative to the lower of the
two objectives, "gap" tron's certified relative duality gap (status converged means <= tol).
"""

from __future__ import annotations

import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_regimes as br  # noqa: E402
import svmkit  # noqa: E402


def cases(task: str) -> dict:
    out = {
        "near-separable 16000x20, C=100": (br._separable(20000, task=task), 100.0),
        "tall dense 80000x50": (br._tall(100000, 50, task=task), 1.0),
        "sparse 16000x10000": (br._text(20000, 10000, 50, task=task), 1.0),
        "sparse 1600x50000": (br._text(2000, 50000, 60, task=task), 1.0),
    }
    if task == "clf":
        out["near-separable 16000x20, C=1000"] = (br._separable(20000), 1000.0)
        out["digits"] = (br._digits(), 1.0)
    else:
        out["diabetes"] = (br._diabetes(), 1.0)
    shared = [("a9a", "a9a", "a9a.t")] if task == "clf" else [("housing", "housing_scale", None)]
    for name, train, test in shared:
        try:
            out[name] = (br._shared(train, test, task, None), 1.0)
        except FileNotFoundError as e:
            print(f"skipped {name}: {e}")
    return out


def main() -> None:
    warnings.simplefilter("ignore")
    for task, old in (("clf", "smsvm"), ("reg", "sgd")):
        print(
            f"\n{'LinearSVC(loss=hinge)' if task == 'clf' else 'LinearSVR()'}, "
            f"regularize_intercept=False: tron against {old}"
        )
        for name, (d, C) in cases(task).items():
            rows = []
            for solver in ("tron", old):
                make = svmkit.LinearSVC if task == "clf" else svmkit.LinearSVR
                kw = {"loss": "hinge"} if task == "clf" else {}
                est = make(C=C, regularize_intercept=False, solver=solver, **kw)
                t = time.perf_counter()
                est.fit(d.Xtr, d.ytr)
                t = time.perf_counter() - t
                res = est.result_
                rows.append((solver, t, sum(r["objective"] for r in res),
                             max(r["optimality"] for r in res),
                             {str(r["status"]).split(".")[-1] for r in res},
                             est.score(d.Xte, d.yte)))  # fmt: skip
            best = min(r[2] for r in rows)
            cells = [
                f"{s} {t:.3f} s {'/'.join(sorted(st))} above {(f - best) / best:.1e}"
                + (f" gap {g:.1e}" if s == "tron" else "")
                + f" score {sc:.4f}"
                for s, t, f, g, st, sc in rows
            ]
            print(f"  {name}: " + " | ".join(cells), flush=True)


if __name__ == "__main__":
    main()
