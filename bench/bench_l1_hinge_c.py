"""LinearSVC(loss="hinge", penalty="l1") along C, beside an exact linear-program solver.

The regime matrix (bench_regimes.py) fits this model at C = 1 only; a grid search also asks
for larger C, where l1_cd's smoothing continuation needs smaller smoothings, whose stages are
ill-conditioned. This sweeps C on the matrix's sparse text-like training sets (and dna.scale's
one-vs-rest problems when $SVMKIT_SHARED_DIR has it) and reports, per fit:

- svmkit at its defaults (solver "auto": l1_cd, finished by smsvm when l1_cd ends
  uncertified), in a forked child with a time limit: seconds, the solver that finished, the
  certified relative gap, the support size;
- the same problem without the intercept (fit_intercept=False), for svmkit and for scipy's
  HiGHS on its dual linear program max sum a s.t. |X'(a * y)| <= 1, 0 <= a <= C (the interior
  point method svmkit._lp uses, and with --simplex the dual simplex too; the program's
  construction is not timed), with the objectives' relative difference;
- scikit-learn's SGDClassifier(loss="hinge", penalty="l1") (the matrix's anchor for this cell;
  an approximate method, not the same optimum).

    python bench/bench_l1_hinge_c.py [--Cs 0.1 1 3 10] [--timeout 120] [--only wide|text|dna]
                                     [--simplex]
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_regimes as regimes  # noqa: E402  (the matrix's generators and fork helper)


def lp_dual(X, y, C: float, method: str) -> tuple[float, float]:
    """(seconds, optimum) of the intercept-free l1-hinge LP through scipy's HiGHS."""
    from scipy.optimize import linprog

    A = (sp.csr_matrix(X).T @ sp.diags(y)).tocsr()
    A_ub = sp.vstack([A, -A]).tocsr()
    b_ub = np.ones(A_ub.shape[0])
    t = time.perf_counter()
    r = linprog(-np.ones(len(y)), A_ub=A_ub, b_ub=b_ub, bounds=(0.0, C), method=method)
    return time.perf_counter() - t, -float(r.fun)


def svmkit_fit(X, y, C: float, fit_intercept: bool, timeout: float) -> dict:
    def fit():
        import svmkit

        t = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est = svmkit.LinearSVC(
                loss="hinge", penalty="l1", C=C, fit_intercept=fit_intercept
            ).fit(X, y)
        res = est.result_[0]
        return {
            "seconds": time.perf_counter() - t,
            "solver": est.solver_
            + (" -> " + res["finished_by"] if "finished_by" in res else "")
            + f" ({str(res['status']).split('.')[-1]})",
            "gap": float(res["optimality"]),
            "objective": float(res["objective"]),
            "support": int(np.count_nonzero(est.coef_)),
        }

    status, out = regimes.run_isolated(fit, timeout)
    return out if status == "ok" else {"seconds": f"> {timeout:g}", "solver": status}


def sgd_fit(X, y, C: float) -> float:
    from sklearn.linear_model import SGDClassifier

    t = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        SGDClassifier(loss="hinge", penalty="l1", alpha=1.0 / (C * len(y)), random_state=0).fit(
            X, y
        )
    return time.perf_counter() - t


def problems(only: str | None) -> list[tuple[str, object, np.ndarray]]:
    out = []
    if only in (None, "wide"):
        d = regimes._text(2000, 50000, 60)
        out.append(("sparse 1600 x 50000 (text_wide)", d.Xtr, np.where(d.ytr > 0, 1.0, -1.0)))
    if only in (None, "text"):
        d = regimes._text(20000, 10000, 50)
        out.append(("sparse 16000 x 10000 (text_ngtd)", d.Xtr, np.where(d.ytr > 0, 1.0, -1.0)))
    if only in (None, "dna"):
        try:
            d = regimes._shared("dna/dna.scale", "dna/dna.scale.t", "clf", 180)
        except (FileNotFoundError, OSError) as exc:
            print(f"skipping dna.scale: {exc}")
        else:
            for k in np.unique(d.ytr):
                y = np.where(d.ytr == k, 1.0, -1.0)
                out.append((f"dna.scale 2000 x 180, class {int(k)} vs rest", d.Xtr, y))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--Cs", type=float, nargs="+", default=[0.1, 1.0, 3.0, 10.0])
    ap.add_argument("--timeout", type=float, default=120.0)
    ap.add_argument("--only", choices=("wide", "text", "dna"))
    ap.add_argument("--simplex", action="store_true", help="time HiGHS's dual simplex too")
    args = ap.parse_args()
    print(
        "| data | C | svmkit (auto) | solver (status) | certified gap | support | "
        "no intercept: svmkit | HiGHS simplex | HiGHS IPM | LP objective rel. diff | "
        "SGDClassifier |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, X, y in problems(args.only):
        for C in args.Cs:
            a = svmkit_fit(X, y, C, True, args.timeout)
            b = svmkit_fit(X, y, C, False, args.timeout)
            t_ipm, opt = lp_dual(X, y, C, "highs-ipm")
            t_ds = lp_dual(X, y, C, "highs-ds")[0] if args.simplex else float("nan")
            diff = (b["objective"] - opt) / opt if "objective" in b else float("nan")

            def secs(r: dict) -> str:
                s = r["seconds"]
                return f"{s:.3g} s" if isinstance(s, float) else f"{s} s"

            print(
                f"| {name} | {C:g} | {secs(a)} | {a['solver']} | "
                f"{a.get('gap', float('nan')):.1e} | {a.get('support', '-')} | {secs(b)} | "
                f"{t_ds:.3g} s | {t_ipm:.3g} s | {diff:.1e} | {sgd_fit(X, y, C):.3g} s |",
                flush=True,
            )


if __name__ == "__main__":
    main()
