"""Reader benchmark: svmkit.datasets.load_svmlight_file vs sklearn.datasets.load_svmlight_file.

Generates a seeded LIBSVM file of about --size-mb MB in a temporary folder (never committed),
reads it with both readers in the same process (best of --repeat runs each), checks that
they return the same X and y, and writes a markdown section to bench/results/reader.md.

    python bench/bench_reader.py [--size-mb 100] [--repeat 3] [--out bench/results/reader.md]
"""

from __future__ import annotations

import argparse
import os
import platform
import shlex
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
import sklearn
import sklearn.datasets as skd
import svmkit
from svmkit.datasets import dump_svmlight_file, load_svmlight_file


def make_file(path: Path, size_mb: float, seed: int) -> tuple[int, int, int]:
    """Text-like sparse rows: ~40 entries per row, values with 6 significant digits."""
    rng = np.random.default_rng(seed)
    n_features = 50000
    per_row = 40
    written = 0
    n_total = 0
    nnz = 0
    with open(path, "wb") as f:
        while written < size_mb * 1e6:
            rows = 20000
            counts = rng.poisson(per_row, size=rows).clip(1, 400)
            indptr = np.concatenate([[0], np.cumsum(counts)])
            cols = np.concatenate(
                [np.sort(rng.choice(n_features, size=c, replace=False)) for c in counts]
            )
            vals = np.round(rng.exponential(0.3, size=cols.size), 6) + 1e-6
            X = sp.csr_matrix((vals, cols, indptr), shape=(rows, n_features))
            y = rng.choice([-1.0, 1.0], size=rows)
            pos = f.tell()
            dump_svmlight_file(X, y, f)
            written += f.tell() - pos
            n_total += rows
            nnz += X.nnz
    return n_total, n_features, nnz


def best_of(fn, repeat: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size-mb", type=float, default=100.0)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", default=str(Path(__file__).parent / "results" / "reader.md"))
    args = ap.parse_args()

    with tempfile.TemporaryDirectory(prefix="svmkit_reader_") as tmp:
        path = Path(tmp) / "bench.svm"
        t0 = time.perf_counter()
        n_rows, n_features, nnz = make_file(path, args.size_mb, args.seed)
        gen = time.perf_counter() - t0
        size = path.stat().st_size
        print(f"generated {size / 1e6:.1f} MB ({n_rows} rows, {nnz} entries) in {gen:.1f} s")

        t_ours, (X, y) = best_of(lambda: load_svmlight_file(path), args.repeat)
        print(f"svmkit (all threads): {t_ours:.3f} s")
        t_ours1, (X1, y1) = best_of(lambda: load_svmlight_file(path, n_jobs=1), args.repeat)
        print(f"svmkit (1 thread):    {t_ours1:.3f} s")
        t_sk, (Xs, ys) = best_of(lambda: skd.load_svmlight_file(str(path)), args.repeat)
        print(f"scikit-learn:         {t_sk:.3f} s")

    same = (
        X.shape == Xs.shape
        and np.array_equal(X.indptr, Xs.indptr)
        and np.array_equal(X.indices, Xs.indices)
        and np.array_equal(X.data, Xs.data)
        and np.array_equal(y, ys)
        and np.array_equal(X1.data, Xs.data)
        and np.array_equal(X1.indices, Xs.indices)
        and np.array_equal(y1, ys)
    )
    print(f"same X and y: {same}")
    threads = os.environ.get("OMP_NUM_THREADS") or str(os.cpu_count())
    load = ", ".join(f"{v:.1f}" for v in os.getloadavg())
    cmd = "python bench/bench_reader.py " + " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines = [
        "## LIBSVM reader: svmkit vs scikit-learn",
        "",
        f"Command: `{cmd.strip()}` (best of {args.repeat} runs each, same process, same file).",
        "",
        f"File: {size / 1e6:.1f} MB, {n_rows} rows, {n_features} features, {nnz} stored entries "
        f"(seeded, seed {args.seed}; generated in a temporary folder).",
        f"Machine: {platform.machine()}, {os.cpu_count()} cores visible, threads: {threads}; "
        f"Python {platform.python_version()}, scikit-learn {sklearn.__version__}, "
        f"svmkit {svmkit.__version__}. Load average during the run: {load}"
        " (other jobs share this machine; the multi-threaded time suffers most from that).",
        "",
        "| reader | time (s) | MB/s | speedup vs scikit-learn |",
        "|---|---:|---:|---:|",
        f"| scikit-learn load_svmlight_file | {t_sk:.3f} | {size / 1e6 / t_sk:.1f} | 1.00 |",
        f"| svmkit load_svmlight_file (1 thread) | {t_ours1:.3f} | {size / 1e6 / t_ours1:.1f} "
        f"| {t_sk / t_ours1:.2f} |",
        f"| svmkit load_svmlight_file (all threads) | {t_ours:.3f} | {size / 1e6 / t_ours:.1f} "
        f"| {t_sk / t_ours:.2f} |",
        "",
        f"Same X and y as scikit-learn (indptr, indices, data, labels exactly equal): {same}.",
        "Target: at least 3x faster than scikit-learn on a 100 MB file.",
        "",
    ]
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines))
    print(f"wrote {out}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
