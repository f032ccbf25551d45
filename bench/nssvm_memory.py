"""Peak extra resident memory of one SparseSVC fit on sparse random data (issue 14).

Usage: python bench/nssvm_memory.py M N NNZ_PER_ROW
Measures VmHWM - VmRSS around the fit after resetting the high-water mark (Linux
/proc/self/clear_refs), as harness.measure does. One case per process. Measured on a shared
2-core machine (timings noisy): 50000 500 20 (Woodbury path, s0 ~ 10600 > n): 88.9 MB,
30.9 s before the sparse Woodbury build, 6.3 MB, 1.8 s after; 2000 1000000 60 (CG path):
15.2 MB before, 16.6 MB after, both dominated by w and its copy into numpy (2 x 7.6 MB).
"""

import sys
import time

import numpy as np
import scipy.sparse as sp
import svmkit


def status_kb(key):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key):
                return int(line.split()[1])


def make(m, n, nnz, seed=0):
    rng = np.random.default_rng(seed)
    if n > 10 * nnz:
        idx = np.sort(rng.choice(n, size=(m, nnz)), axis=1)
    else:
        idx = np.array([np.sort(rng.choice(n, nnz, replace=False)) for _ in range(m)])
    indptr = np.arange(0, m * nnz + 1, nnz)
    X = sp.csr_matrix((rng.random(m * nnz), idx.ravel(), indptr), shape=(m, n))
    X.sum_duplicates()
    z = X @ rng.standard_normal(n)
    y = np.where(z + 0.1 * rng.standard_normal(m) > np.median(z), 1, -1)
    return X, y


def main():
    m, n, nnz = map(int, sys.argv[1:4])
    X, y = make(m, n, nnz)
    svmkit.SparseSVC().fit(X[:50], y[:50])  # load and initialize everything first
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    rss0 = status_kb("VmRSS")
    t = time.perf_counter()
    est = svmkit.SparseSVC().fit(X, y)
    t = time.perf_counter() - t
    peak = (status_kb("VmHWM") - rss0) / 1024
    acc = est.score(X, y)
    print(f"{m}x{n} {nnz} nnz/row: peak extra {peak:.1f} MB, {t:.3f} s, train acc {acc:.4f}")


if __name__ == "__main__":
    main()
