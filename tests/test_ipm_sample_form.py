"""ipm's sample form: its normal equations on n_samples-square systems (Woodbury's identity with
iterative refinement) for data with fewer samples than features.

References: clarabel solving the same problem exactly (tests/references.primal_svm), and
LIBLINEAR's dual coordinate descent (scikit-learn's LinearSVC(loss="hinge"), -s 3) where the
feature form would not fit in memory. Every form must reach the exact optimum at a tight tol.
Data: seeded Gaussians with features on scales 0.1-10 and seeded sparse rows (the cases where
the form without refinement ended at max_iter or in a numerical error), scikit-learn's bundled
digits.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import primal_svm
from sklearn.datasets import load_digits
from sklearn.svm import LinearSVC as SkLinearSVC
from svmkit import _core

WHOLE = {"working_set_min_features": 10**9}  # no working set: the form alone on all features


def wide(n: int, d: int, layout: str, seed: int = 1):
    """Gaussian rows with features on scales 0.1-10, a class and a regression target from five
    features, zero and unequal costs."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 10.0, d)
    if layout == "csr":
        X = sp.csr_matrix(np.where(rng.random((n, d)) < 0.05, X, 0.0))
    w = np.zeros(d)
    w[:5] = 1.0
    z = np.asarray(X @ w).ravel()
    y_class = np.where(z + 0.5 * rng.standard_normal(n) >= 0.0, 1.0, -1.0)
    y_reg = 0.1 * z + 0.1 * rng.standard_normal(n)
    cost = np.ones(n)
    cost[::7] = 0.0
    cost[1::5] = 3.0
    return X, y_class, y_reg, cost


def objective(X, y, cost, w, b, loss, l1, l2, bias_l2, epsilon=0.0) -> float:
    z = np.asarray(X @ w).ravel() + b
    if loss == "hinge":
        err = np.maximum(0.0, 1.0 - y * z)
    else:
        err = np.maximum(0.0, np.abs(y - z) - epsilon)
    return float(l1 * np.abs(w).sum() + 0.5 * l2 * (w @ w) + 0.5 * bias_l2 * b * b + cost @ err)


PROBLEMS = [
    ("hinge", 1.0, 0.0),
    ("hinge", 0.3, 0.7),
    ("hinge", 0.0, 1.0),
    ("epsilon_insensitive", 0.0, 1.0),
]


@pytest.mark.parametrize(("loss", "l1", "l2"), PROBLEMS)
@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize(
    ("fit_intercept", "regularize_intercept"), [(True, False), (True, True), (False, False)]
)
@pytest.mark.parametrize("form", ["samples", "features", "auto"])
def test_every_form_reaches_the_exact_optimum(
    loss, l1, l2, layout, fit_intercept, regularize_intercept, form
) -> None:
    """80 x 700 (fewer samples than features: "auto" takes the sample form). "auto" and
    "features" at tol 1e-9 end converged at the exact optimum ("auto" changes to the feature form
    where refinement does not settle near a degenerate optimum); the sample form alone at the
    default tol; the certificate bounds the true gap."""
    X, y_class, y_reg, cost = wide(80, 700, layout)
    y = y_class if loss == "hinge" else y_reg
    epsilon = 0.0
    bias_l2 = l2 if (fit_intercept and regularize_intercept) else 0.0
    _, _, F = primal_svm(
        X,
        y,
        cost,
        loss=loss,
        l1=l1,
        l2=l2,
        epsilon=epsilon,
        fit_intercept=fit_intercept,
        reg_b=bias_l2 > 0.0,
    )
    Xc = np.ascontiguousarray(X) if layout == "dense" else (X.data, X.indices, X.indptr, *X.shape)
    tol = 1e-4 if form == "samples" else 1e-9
    opts = {**WHOLE, "system_form": form, "tol": tol}
    r = _core.fit_ipm(
        Xc, y, cost, loss, l1, l2, fit_intercept, 1.0, regularize_intercept, opts, None
    )
    assert r["status"] == _core.SolverStatus.converged, r["message"]
    sol = np.asarray(r["solution"])
    w, b = sol[: X.shape[1]], (sol[-1] if fit_intercept else 0.0)
    F_ipm = objective(X, y, cost, w, b, loss, l1, l2, bias_l2, epsilon)
    assert F_ipm == pytest.approx(r["objective"], rel=1e-9)
    rel = (F_ipm - F) / F
    assert rel <= r["optimality"] + 1e-8  # clarabel's own accuracy: about 1e-9 relative
    assert r["optimality"] <= tol
    assert abs(rel) <= max(10.0 * tol, 1e-6), rel


@pytest.mark.parametrize(("n", "d"), [(6, 1500), (20, 600)])
def test_refinement_keeps_the_tiny_wide_lp_certified(n, d) -> None:
    """The pure l1 hinge on a handful of samples and many features: the support's tiny diagonal
    makes Woodbury's solution lose its digits (unrefined, 20 x 600 ended in a numerical error and
    6 x 4,000 at max_iter with a gap of 0.32); refined, the sample form converges in as many
    iterations as the feature form, to the same objective."""
    rng = np.random.default_rng(0)
    X = np.ascontiguousarray(rng.standard_normal((n, d)))
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    runs = {}
    for form in ["samples", "features"]:
        opts = {**WHOLE, "system_form": form}
        runs[form] = _core.fit_ipm(X, y, np.ones(n), "hinge", 1.0, 0.0, True, 1.0, True, opts, None)
        assert runs[form]["status"] == _core.SolverStatus.converged, runs[form]["message"]
        assert runs[form]["optimality"] <= 1e-4
    assert runs["samples"]["iterations"] == runs["features"]["iterations"]
    assert runs["samples"]["objective"] == pytest.approx(runs["features"]["objective"], rel=1e-6)
    _, _, F = primal_svm(X, y, np.ones(n), l1=1.0, l2=0.0, reg_b=False)
    assert runs["samples"]["objective"] == pytest.approx(F, rel=1e-4)


def test_wide_l2_hinge_fits_where_the_feature_form_would_not() -> None:
    """digits' 2 classes with 30,000 extra noise features: the feature form's system (about 34
    GiB) is above max_system_mb and only the sample form fits; the fit matches LIBLINEAR -s 3
    (regularized bias) run to a tight tolerance."""
    X, y = load_digits(n_class=2, return_X_y=True)
    X = X[:120] / 16.0
    y = np.where(y[:120] > 0, 1.0, -1.0)
    rng = np.random.default_rng(0)
    X = np.ascontiguousarray(np.hstack([X, 0.05 * rng.standard_normal((len(y), 30_000))]))
    with pytest.raises(ValueError, match="max_system_mb"):
        svmkit.LinearSVC(
            loss="hinge", solver="ipm", solver_options={"system_form": "features"}
        ).fit(X, y)
    clf = svmkit.LinearSVC(loss="hinge", solver="ipm", tol=1e-8).fit(X, y)
    assert clf.result_[0]["status"] == _core.SolverStatus.converged
    ref = SkLinearSVC(loss="hinge", C=1.0, tol=1e-10, max_iter=10**6, dual=True).fit(X, y)
    cost = np.ones(len(y))
    F_ref = objective(X, y, cost, ref.coef_[0], ref.intercept_[0], "hinge", 0.0, 1.0, 1.0)
    F = objective(X, y, cost, clf.coef_[0], clf.intercept_[0], "hinge", 0.0, 1.0, 1.0)
    assert F == pytest.approx(F_ref, rel=1e-6)


def test_invalid_system_form_is_a_clear_error() -> None:
    X = np.ascontiguousarray(np.random.default_rng(0).standard_normal((10, 4)))
    y = np.where(np.arange(10) % 2 == 0, 1.0, -1.0)
    with pytest.raises(ValueError, match="'system_form' must be 'auto', 'features' or 'samples'"):
        _core.fit_ipm(
            X, y, np.ones(10), "hinge", 1.0, 0.0, True, 1.0, True, {"system_form": "rows"}, None
        )


_LEVEL_SCRIPT = """
import json, sys
import numpy as np
from svmkit import _core
rng = np.random.default_rng(0)
X = np.ascontiguousarray(rng.standard_normal((90, 1500)))
y = np.where(X[:, :5].sum(axis=1) + 0.5 * rng.standard_normal(90) >= 0, 1.0, -1.0)
opts = {"working_set_min_features": 10**9, "system_form": "samples", "tol": 1e-9}
r = _core.fit_ipm(X, y, np.ones(90), "hinge", 0.3, 0.7, True, 1.0, False, opts, None)
json.dump({"level": _core.build_info()["simd_level"], "status": r["status"].name,
           "objective": r["objective"]}, sys.stdout)
"""


@pytest.mark.parametrize("level", ["baseline", None])
def test_sample_form_at_each_simd_level(level) -> None:
    """The sample form's system is formed by Eigen's rank update at the baseline SIMD level and by
    the fused AVX2 Gram kernel (detail/gram_kernels.hpp) where the CPU runs it (the default
    level): both reach clarabel's optimum of the same problem (X and y built alike)."""
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    if level is not None:
        env["SVMKIT_SIMD"] = level
    out = subprocess.run(
        [sys.executable, "-c", _LEVEL_SCRIPT], capture_output=True, text=True, env=env, timeout=300
    )
    assert out.returncode == 0, out.stderr[-2000:]
    got = json.loads(out.stdout.strip().splitlines()[-1])
    if level is not None:
        assert got["level"] == level
    assert got["status"] == "converged"
    rng = np.random.default_rng(0)
    X = rng.standard_normal((90, 1500))
    y = np.where(X[:, :5].sum(axis=1) + 0.5 * rng.standard_normal(90) >= 0, 1.0, -1.0)
    _, _, F = primal_svm(X, y, np.ones(90), l1=0.3, l2=0.7, reg_b=False)
    assert got["objective"] == pytest.approx(F, rel=1e-7)
