"""SmSVM l1 and l1-l2 objective gaps against clarabel's exact optimum (tests/references.py).

usage: python bench/bench_smsvm_l1_gaps.py [--polish-rounds N]

--polish-rounds 0 runs the solver without its final polish (the smoothed levels alone, as
before the polish existed); the default is the solver's. One line per case: the relative gap
(F - F*) / F*, the reported optimality bound, status, passes, whether the polish gave the
solution (and its linear solves), the nonzeros of w and the time.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler
from svmkit import _core

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
from references import low_rank_60x20, primal_svm, sparse_truth  # noqa: E402


def fit(X, y, C, l2, l1, **opt):
    cost = np.full(len(y), float(C))
    Xc = np.ascontiguousarray(X)
    return _core.fit_smsvm(Xc, y, cost, l2, l1, True, 1.0, True, None, 0.0, opt, None)


def cases():
    X, y = load_breast_cancer(return_X_y=True)
    X, y = StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)
    out = [(f"cancer l1 C={C}", X, y, C, 0.0, 1.0) for C in (1.0, 0.1, 10.0)]
    out += [("cancer l1-l2 .5/.5 C=1", X, y, 1.0, 0.5, 0.5)]
    out += [("cancer l1-l2 .2/.8 C=0.1", X, y, 0.1, 0.2, 0.8)]
    out += [("lowrank 60x20 l2=.05 l1=1", *low_rank_60x20(), 1.0, 0.05, 1.0)]
    for seed in range(3):
        for n, m, C in [(40, 100, 1.0), (100, 200, 10.0), (200, 50, 1.0)]:
            out.append((f"truth s{seed} {n}x{m} C={C} l1", *sparse_truth(n, m, seed), C, 0.0, 1.0))
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--polish-rounds", type=int, default=None)
    args = parser.parse_args()
    opt = {} if args.polish_rounds is None else {"polish_rounds": args.polish_rounds}
    for name, X, y, C, l2, l1 in cases():
        ref = primal_svm(X, y, np.full(len(y), C), l2=l2, l1=l1)[2]
        t = time.perf_counter()
        r = fit(X, y, C, l2, l1, **opt)
        dt = time.perf_counter() - t
        nnz = np.count_nonzero(r["solution"][:-1])
        print(
            f"{name:30s} gap={(r['objective'] - ref) / abs(ref):+.2e} "
            f"bound={r['optimality']:.1e} {r['status'].name} passes={r['passes']} "
            f"polished={r['polished']} ({r['polish_rounds']}) nnz={nnz} t={dt * 1e3:.0f}ms"
        )


if __name__ == "__main__":
    main()
