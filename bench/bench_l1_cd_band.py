"""l1_cd's banded Newton model against its exact model, on the regime matrix's data.

newGLMNET (l1_cd for the logistic loss, the smoothed hinges and the hinge's smoothing stages)
minimizes a quadratic model of F per Newton iteration by coordinate descent. After three inner
passes the model keeps only the rows whose loss'' is at least hessian_cutoff (default 1e-4)
times the largest coupled; the others keep their diagonal. This script fits each
(data, loss, penalty) cell at the defaults and with hessian_cutoff=0 (the exact model),
alternately, each in a fresh process, and reports the best time, the passes and the objective.

    python bench/bench_l1_cd_band.py [--rounds 3] [--out bench/results/l1_cd_band.md]

dna.scale is read from $SVMKIT_SHARED_DIR (or ../shared) when present; the other sets are the
matrix's seeded generators (bench_regimes.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOSSES = {"h": "hinge", "sh": "smoothed_hinge", "gh": "gaussian_smoothed_hinge", "lg": "logistic"}
PENALTIES = {"l1": "l1", "en": "elasticnet"}
CELLS = [
    "tall:gh:l1", "tall:gh:en", "tall:sh:l1", "tall:sh:en", "tall:h:l1", "tall:lg:l1",
    "wide:h:l1", "wide:sh:l1", "wide:gh:en", "wide:lg:l1",
    "text:h:l1", "text:sh:l1", "text:gh:l1", "text:lg:l1",
    "dna:sh:l1", "dna:gh:l1", "dna:gh:en", "dna:h:l1",
]  # fmt: skip
DATA = {
    "tall": "dense 10,000 x 50 (bench_regimes._tall(12500, 50), train split)",
    "wide": "sparse 2,000 x 50,000, 60 nnz/row (_text(2500, 50000, 60))",
    "text": "sparse 20,000 x 10,000, 50 nnz/row (_text(25000, 10000, 50))",
    "dna": "dna.scale 2,000 x 180, 3 classes one-vs-rest",
}


def load(name: str):
    sys.path.insert(0, str(HERE))
    import bench_regimes as regimes

    if name == "tall":
        d = regimes._tall(12500, 50)
    elif name == "wide":
        d = regimes._text(2500, 50000, 60)
    elif name == "text":
        d = regimes._text(25000, 10000, 50)
    else:
        from svmkit.datasets import load_shared

        return load_shared("dna/dna.scale", n_features=180)
    return d.Xtr, d.ytr


def child(cells: list[str], cutoff: float | None) -> None:
    """Fits the cells in this process and prints one JSON line per cell."""
    import svmkit

    warnings.simplefilter("ignore")
    data: dict = {}
    for cell in cells:
        name, loss, pen = cell.split(":")
        if name not in data:
            data[name] = load(name)
        X, y = data[name]
        options = None if cutoff is None else {"hessian_cutoff": cutoff}
        est = svmkit.LinearSVC(loss=LOSSES[loss], penalty=PENALTIES[pen], solver_options=options)
        best = float("inf")
        for _ in range(2 if name == "text" else 4):
            t = time.perf_counter()
            est.fit(X, y)
            best = min(best, time.perf_counter() - t)
        objective = sum(r["objective"] for r in est.result_)
        print(json.dumps({"cell": cell, "time": best, "passes": est.n_passes_, "f": objective}))


def main() -> None:
    from harness import alternate_children, best_pair, emit

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--cutoff", type=float, default=None, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child.split(","), args.cutoff)
        return
    shared = os.environ.get("SVMKIT_SHARED_DIR", str(HERE.parent.parent / "shared"))
    cells = [c for c in CELLS if not c.startswith("dna") or Path(shared, "datasets/dna").exists()]
    # The two models alternately, each in a fresh process.
    variants = [("exact", ["--cutoff", "0.0"]), ("banded", [])]
    runs = alternate_children(__file__, cells, variants, args.rounds)
    lines = [
        "## l1_cd: the banded Newton model against the exact one",
        "",
        f"Command: `python bench/bench_l1_cd_band.py --rounds {args.rounds}`; best of "
        f"{args.rounds} rounds (each round: both models, each in a fresh process, best of 2-4 "
        "fits). exact = `solver_options={'hessian_cutoff': 0}`; banded = the default (1e-4). "
        "Objective: the sum over the one-vs-rest fits.",
        "",
        "Data: " + "; ".join(f"{k}: {v}" for k, v in DATA.items()) + ".",
        "",
        "| data | loss | penalty | exact | banded | ratio | passes exact / banded | objective "
        "rel. diff |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cell, r in runs.items():
        name, loss, pen = cell.split(":")
        ex, ba, diff = best_pair(r, "exact", "banded")
        lines.append(
            f"| {name} | {LOSSES[loss]} | {PENALTIES[pen]} | {ex['time']:.4f} s | "
            f"{ba['time']:.4f} s | {ba['time'] / ex['time']:.2f} | {ex['passes']} / "
            f"{ba['passes']} | {diff:+.1e} |"
        )
    emit(lines, args.out)


if __name__ == "__main__":
    main()
