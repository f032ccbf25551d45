"""Side-by-side SparseSVC vs sklearn LinearSVC on the regime-matrix cells SparseSVC missed.

Usage: python bench/bench_sparse_svc.py [CELL ...] [--reps R] [--kw JSON]
Each repetition fits svmkit and the anchor alternately in one process (the machine is shared,
so compare the medians side by side rather than across runs). Prints time, test accuracy and
the number of support vectors.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_regimes as br  # noqa: E402
import svmkit  # noqa: E402
from sklearn.svm import LinearSVC  # noqa: E402

CELLS = {
    "ngtd": lambda: br._text(20000, 10000, 50),
    "ngtd_flip": lambda: br._text(20000, 10000, 50, flip=0.2),
    "wide": lambda: br._text(2000, 50000, 60),
    "wide_flip": lambda: br._text(2000, 50000, 60, flip=0.2),
    "vwide": lambda: br._text(2000, 1000000, 60),
    "vwide_flip": lambda: br._text(2000, 1000000, 60, flip=0.2),
    "dense_wide": lambda: br._tall(300, 5000),
    "sep100": lambda: br._separable(20000),
    "sep1000": lambda: br._separable(20000),
    "classes26": lambda: br._many_classes(20000),
}
C_OF = {"sep100": 100.0, "sep1000": 1000.0}


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    reps = 3
    kw = {}
    if "--reps" in sys.argv:
        reps = int(sys.argv[sys.argv.index("--reps") + 1])
    if "--kw" in sys.argv:
        kw = json.loads(sys.argv[sys.argv.index("--kw") + 1])
        args = [a for a in args if a != sys.argv[sys.argv.index("--kw") + 1]]
    args = [a for a in args if a != str(reps)]
    for name in args or list(CELLS):
        d = CELLS[name]()
        c = C_OF.get(name)
        ours_kw = dict(kw, **({"C": c} if c else {}))
        times = {"svmkit": [], "LinearSVC": []}
        acc = {}
        for _ in range(reps):
            for lab in ("svmkit", "LinearSVC"):
                if lab == "svmkit":
                    est = svmkit.SparseSVC(**ours_kw)
                else:
                    est = LinearSVC(**({"C": c} if c else {}))
                t = time.perf_counter()
                est.fit(d.Xtr, d.ytr)
                times[lab].append(time.perf_counter() - t)
                acc[lab] = 100 * np.mean(est.predict(d.Xte) == d.yte)
                if lab == "svmkit":
                    nsv = len(est.support_)
                    st = [str(r["status"]).split(".")[-1] for r in est.result_][:1]
        ts, ta = np.median(times["svmkit"]), np.median(times["LinearSVC"])
        print(
            f"{name:11s} {d.Xtr.shape[0]}x{d.Xtr.shape[1]}  "
            f"svmkit {ts:.4f}s acc {acc['svmkit']:.2f} "
            f"nSV {nsv} {st[0]} | LinearSVC {ta:.4f}s acc {acc['LinearSVC']:.2f} | "
            f"ratio {ts / ta:.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
