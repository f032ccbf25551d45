"""l1_cd's passes, objective and time on 83 l1 / elastic-net fits, to compare two builds.

Passes (stored entries read, in units of the data) are deterministic for a given build, so two
builds can be compared without timing noise; the time is one fit's, for orientation only.
Fits: LinearSVC(solver="l1_cd") with the logistic loss, psi_M, psi_G (l1 and elastic net), the
hinge (l1; generated sets only) and the squared hinge (l1 and elastic net; -s 5's problem),
at the defaults, on a9a, covtype.5000, dna.scale, mushrooms (from $SVMKIT_SHARED_DIR or
../shared, skipped when absent), standardized digits, and the regime matrix's generators
(bench_regimes.py: sparse 16,000 x 10,000 and 20,000 x 10,000, 2,000 x 50,000, learnable and
20% flipped; dense 10,000 x 50).

    python bench/bench_l1_cd_fits.py --out /tmp/before.json     # on one build
    python bench/bench_l1_cd_fits.py --out /tmp/after.json      # on the other
    python bench/bench_l1_cd_fits.py --compare /tmp/before.json /tmp/after.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
COMBOS = [
    ("logistic", "l1"),
    ("smoothed_hinge", "l1"),
    ("gaussian_smoothed_hinge", "l1"),
    ("logistic", "elasticnet"),
    ("gaussian_smoothed_hinge", "elasticnet"),
    ("hinge", "l1"),
    ("squared_hinge", "l1"),
    ("squared_hinge", "elasticnet"),
]
REAL = {  # name: (file, n_features)
    "a9a": ("a9a/a9a", None),
    "covtype": ("covtype/covtype.5000.train", None),
    "dna": ("dna/dna.scale", 180),
    "mush": ("mushrooms/mushrooms", None),
}


def datasets() -> dict:
    sys.path.insert(0, str(HERE))
    import bench_regimes as regimes
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler
    from svmkit.datasets import load_shared

    data: dict = {}
    shared = Path(os.environ.get("SVMKIT_SHARED_DIR", str(HERE.parent.parent / "shared")))
    for name, (path, nf) in REAL.items():
        if (shared / "datasets" / path).parent.exists():
            data[name] = load_shared(path, n_features=nf)
        else:
            print(f"skipping {name}: {shared / 'datasets'} has no {path}")
    X, y = load_digits(return_X_y=True)
    data["digits"] = (StandardScaler().fit_transform(X), y)
    generated = {
        "text16k": (20000, 10000, 50, 0.0),
        "text20k": (25000, 10000, 50, 0.0),
        "wide": (2500, 50000, 60, 0.0),
        "textflip": (20000, 10000, 50, 0.2),
        "wideflip": (2500, 50000, 60, 0.2),
    }
    for name, (n, d, nnz, flip) in generated.items():
        s = regimes._text(n, d, nnz, flip=flip)
        data[name] = (s.Xtr, s.ytr)
    s = regimes._tall(12500, 50)
    data["tall"] = (s.Xtr, s.ytr)
    return data


def measure(out: str) -> None:
    import numpy as np
    import svmkit

    warnings.simplefilter("ignore")
    results = {}
    for name, (X, y) in datasets().items():
        for loss, penalty in COMBOS:
            if loss == "hinge" and name in (*REAL, "digits"):
                continue  # the hinge's l1 fits there end in HiGHS or take seconds
            t = time.perf_counter()
            est = svmkit.LinearSVC(loss=loss, penalty=penalty, solver="l1_cd").fit(X, y)
            t = time.perf_counter() - t
            key = f"{name}:{loss}:{penalty}"
            results[key] = {
                "passes": int(np.sum(est.n_passes_)),
                "objective": sum(r["objective"] for r in est.result_),
                "iterations": sum(r["iterations"] for r in est.result_),
                "time": t,
            }
            print(key, results[key], flush=True)
    Path(out).write_text(json.dumps(results, indent=1))


def compare(before: str, after: str) -> None:
    a, b = json.loads(Path(before).read_text()), json.loads(Path(after).read_text())
    logs_p, logs_t = [], []
    head = f"{'fit':46s} {'passes':>13s} {'ratio':>6s} {'time ratio':>10s}"
    print(f"{head} {'objective rel. diff':>19s}")
    for key in a:
        if key not in b:
            continue
        rp = b[key]["passes"] / max(a[key]["passes"], 1)
        rt = b[key]["time"] / a[key]["time"]
        df = (b[key]["objective"] - a[key]["objective"]) / abs(a[key]["objective"])
        logs_p.append(math.log(max(rp, 1e-9)))
        logs_t.append(math.log(rt))
        print(
            f"{key:46s} {a[key]['passes']:6d} {b[key]['passes']:6d} {rp:6.2f} {rt:10.2f} {df:19.2e}"
        )
    gp, gt = math.exp(sum(logs_p) / len(logs_p)), math.exp(sum(logs_t) / len(logs_t))
    print(f"{len(logs_p)} fits; geometric mean ratio: passes {gp:.3f}, time {gt:.3f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", help="write this build's figures (JSON) here")
    ap.add_argument("--compare", nargs=2, metavar=("BEFORE", "AFTER"))
    args = ap.parse_args()
    if args.compare:
        compare(*args.compare)
    elif args.out:
        measure(args.out)
    else:
        ap.error("give --out FILE or --compare BEFORE AFTER")


if __name__ == "__main__":
    main()
