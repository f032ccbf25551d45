"""SmSVM (solver="smsvm") on the issue-10 shapes beside scikit-learn's LinearSVC(loss="hinge").

Each fit runs in its own subprocess (svmkit and scikit-learn alternately, same data), which
reports the fit's wall time and the growth of the peak resident set size during the fit
(ru_maxrss after the fit minus before it), so C++ allocations are counted.

    python bench/bench_smsvm_sparse.py [--timeout 120] [--cases small]
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys

CASES = {
    "sparse 2,000 x 50,000": dict(n=2000, m=50000, dense=False),
    "sparse 2,000 x 1,000,000": dict(n=2000, m=1000000, dense=False),
    "dense 300 x 5,000": dict(n=300, m=5000, dense=True),
    "sparse 50,000 x 20,000": dict(n=50000, m=20000, dense=False),
}

CHILD = r"""
import json, resource, sys, time, warnings
import numpy as np
from svmkit.datasets import make_sparse_text_like
cfg = json.loads(sys.argv[1])
n, m = cfg["n"], cfg["m"]
if cfg["dense"]:
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, m))
    y = np.where(X[:, :10].sum(1) + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
else:
    X, y = make_sparse_text_like(n, m, density=60.0 / m, random_state=0)
if cfg["who"] == "svmkit":
    import svmkit
    est = svmkit.LinearSVC(loss="hinge", solver="smsvm")
else:
    from sklearn.svm import LinearSVC
    est = LinearSVC(loss="hinge")
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
t = time.perf_counter()
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    est.fit(X, y)
el = time.perf_counter() - t
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
w, b = est.coef_.ravel(), float(np.ravel(est.intercept_)[0])
z = X @ w + b
obj = 0.5 * (w @ w) + np.maximum(0.0, 1.0 - y * z).sum()
acc = float(np.mean(np.sign(z) == y))
print(json.dumps(dict(time=el, extra_mb=(after - before) / 1024.0, acc=acc, obj=float(obj))))
"""


def run(cfg: dict, who: str, timeout: float) -> dict | None:
    try:
        out = subprocess.run(
            [sys.executable, "-c", CHILD, json.dumps(dict(cfg, who=who))],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--cases", nargs="*", default=list(CASES))
    args = ap.parse_args()
    print(
        "| case | svmkit smsvm time | extra MB | sklearn time | extra MB "
        "| objective 1/2||w||^2 + sum hinge (svmkit / sklearn) |"
    )
    print("|---|---|---|---|---|---|")
    for name in args.cases:
        cfg = CASES[name]
        a = run(cfg, "svmkit", args.timeout)
        b = run(cfg, "sklearn", args.timeout)
        fa = f"{a['time']:.3f} s | {a['extra_mb']:.0f}" if a else f"> {args.timeout:.0f} s | -"
        fb = f"{b['time']:.3f} s | {b['extra_mb']:.0f}" if b else f"> {args.timeout:.0f} s | -"
        objs = f"{a['obj']:.6g} / {b['obj']:.6g}" if a and b else "-"
        print(f"| {name} | {fa} | {fb} | {objs} |", flush=True)


if __name__ == "__main__":
    main()
