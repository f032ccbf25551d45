"""TRON's assembled Hessian against one pass per Hessian-vector product.

On data with few features (dim^2 at most the stored entries of X) TRON's objective can
assemble H = I + X~^T D X~ once at a point and answer CG's products with a dim x dim multiply
(solver_options hessian="auto", the default; objective.hpp states the rule). This script fits
each (data, loss) cell with hessian="products" (every product a pass, as before) and "auto",
alternately, each in a fresh process, and reports the best time, the passes over X, the number
of Newton iterations and the objective.

    python bench/bench_tron_assembled.py [--rounds 3] [--out bench/results/tron_assembled.md]

mushrooms, dna.scale, covtype.5000 and a9a are read from $SVMKIT_SHARED_DIR (or ../shared)
when present; the other sets are the regime matrix's seeded generators (bench_regimes.py) and
scikit-learn's bundled digits.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
LOSSES = {"sq": "squared_hinge", "lg": "logistic", "sh": "smoothed_hinge", "h": "hinge"}
SHARED = {
    "mushrooms": ("mushrooms/mushrooms", 112),
    "dna": ("dna/dna.scale", 180),
    "covtype": ("covtype/covtype.5000.train", 54),
    "a9a": ("a9a/a9a.xz", 123),
}
DATA = {
    "mushrooms": "mushrooms 8,124 x 112 (sparse, 2 classes)",
    "dna": "dna.scale 2,000 x 180 (sparse, 3 classes)",
    "covtype": "covtype.5000 4,858 x 54 (sparse)",
    "a9a": "a9a 32,561 x 123 (sparse)",
    "digits": "digits 1,797 x 64 standardized (dense, 10 classes)",
    "many": "26 classes dense 16,000 x 16 (_many_classes(20000), train split)",
    "tall": "tall dense 80,000 x 50 (_tall(100000, 50), train split)",
    "text": "sparse 16,000 x 10,000, 50 nnz/row (_text(20000, 10000, 50), train split)",
}
CELLS = [f"{d}:{loss}" for d in SHARED for loss in ("sq", "lg", "sh")] + [
    "digits:sq", "digits:lg", "many:sq", "many:lg", "tall:sq", "tall:h", "text:sq",
]  # fmt: skip


def load(name: str):
    sys.path.insert(0, str(HERE))
    import bench_regimes as regimes

    if name in SHARED:
        import lzma

        from sklearn.datasets import load_svmlight_file
        from svmkit.datasets import shared_path

        path, nf = SHARED[name]
        f = shared_path(path)
        return load_svmlight_file(lzma.open(f) if str(f).endswith(".xz") else f, n_features=nf)
    d = {
        "digits": regimes._digits,
        "many": lambda: regimes._many_classes(20000),
        "tall": lambda: regimes._tall(100000, 50),
        "text": lambda: regimes._text(20000, 10000, 50),
    }[name]()
    return d.Xtr, d.ytr


def child(cells: list[str], hessian: str) -> None:
    """Fits the cells in this process and prints one JSON line per cell."""
    import svmkit

    warnings.simplefilter("ignore")
    data: dict = {}
    for cell in cells:
        name, loss = cell.split(":")
        if name not in data:
            data[name] = load(name)
        X, y = data[name]
        est = svmkit.LinearSVC(
            loss=LOSSES[loss], solver="tron", solver_options={"hessian": hessian}
        )
        best = float("inf")
        for _ in range(3 if name in ("tall", "text", "many") else 7):
            t = time.perf_counter()
            est.fit(X, y)
            best = min(best, time.perf_counter() - t)
        objective = sum(r["objective"] for r in est.result_)
        iters = sum(r["iterations"] for r in est.result_)
        print(
            json.dumps(
                {"cell": cell, "time": best, "passes": est.n_passes_, "it": iters, "f": objective}
            )
        )


def main() -> None:
    from harness import alternate_children, best_pair, emit

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out", default=None)
    ap.add_argument("--child", default=None, help=argparse.SUPPRESS)
    ap.add_argument("--hessian", default="auto", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child is not None:
        child(args.child.split(","), args.hessian)
        return
    from svmkit.datasets import shared_path

    def present(cell: str) -> bool:
        name = cell.split(":")[0]
        if name not in SHARED:
            return True
        try:
            return Path(shared_path(SHARED[name][0])).exists()
        except (FileNotFoundError, OSError):
            return False

    cells = [c for c in CELLS if present(c)]
    # The two forms alternately, each in a fresh process.
    variants = [(form, ["--hessian", form]) for form in ("products", "auto")]
    runs = alternate_children(__file__, cells, variants, args.rounds)
    lines = [
        "## TRON: the assembled Hessian against one pass per product",
        "",
        f"Command: `python bench/bench_tron_assembled.py --rounds {args.rounds}`; best of "
        f"{args.rounds} rounds (each round: both forms, each in a fresh process, best of 3-7 "
        "fits). `LinearSVC(loss=..., solver='tron', solver_options={'hessian': form})` at the "
        "defaults (tol 1e-4, 2 threads); products = a pass over X per Hessian-vector product "
        "(the behaviour before); auto = the default. Objective: the sum over the one-vs-rest "
        "fits; the two forms differ by rounding, which can move TRON's stopping point within "
        "its tolerance.",
        "",
        "Data: " + "; ".join(f"{k}: {v}" for k, v in DATA.items()) + ".",
        "",
        "| data | loss | products | auto | ratio | passes products / auto | Newton iterations "
        "| objective rel. diff |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for cell, r in runs.items():
        name, loss = cell.split(":")
        pr, au, diff = best_pair(r, "products", "auto")
        lines.append(
            f"| {name} | {LOSSES[loss]} | {pr['time'] * 1e3:.2f} ms | {au['time'] * 1e3:.2f} ms "
            f"| {au['time'] / pr['time']:.2f} | {pr['passes']} / {au['passes']} | "
            f"{pr['it']} / {au['it']} | {diff:+.1e} |"
        )
    emit(lines, args.out)


if __name__ == "__main__":
    main()
