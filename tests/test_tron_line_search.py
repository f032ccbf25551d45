"""TRON's line-search globalization (solver_options globalization="line_search") against
scipy's L-BFGS on the same objective, its stopping rule checked by a numpy gradient, and its
errors."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import lbfgs_optimum, smooth_objective
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from svmkit import SolverStatus, _core

LS = {"globalization": "line_search"}
CLASSIFICATION_LOSSES = ["squared_hinge", "logistic", "smoothed_hinge", "gaussian_smoothed_hinge"]


def _fit_and_lbfgs(X, y, loss: str, C: float, sigma: float, options: dict):
    """LinearSVC(solver="tron", tol=1e-10) with options, the objective's F and gradient, L-BFGS's
    optimum and the fitted (w, b)."""
    est = svmkit.LinearSVC(
        loss=loss, C=C, sigma=sigma, solver="tron", tol=1e-10, solver_options=options
    ).fit(X, y)
    t = np.where(y == est.classes_[1], 1.0, -1.0)
    fg = smooth_objective(X, t, C, loss, sigma, regression=False)
    ref = lbfgs_optimum(fg, X.shape[1] + 1)
    return est, fg, ref, np.append(est.coef_[0], est.intercept_[0])


def _breast_cancer(sparse: bool):
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    return (sp.csr_matrix(X) if sparse else X), y


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss", CLASSIFICATION_LOSSES)
def test_line_search_reaches_thelbfgs_optimum(loss: str, sparse: bool) -> None:
    X, y = _breast_cancer(sparse)
    est, fg, ref, v = _fit_and_lbfgs(X, y, loss, 0.5, 0.1, LS)
    ours = fg(v)[0]
    assert ours <= ref.fun * (1 + 1e-9) + 1e-12
    assert ours == pytest.approx(ref.fun, rel=1e-7)
    assert est.result_[0]["objective"] == pytest.approx(ours, rel=1e-9)
    assert est.result_[0]["status"] == SolverStatus.converged


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_line_search_regression_and_the_stopping_rule(fit_intercept: bool) -> None:
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = (y - y.mean()) / y.std()
    C, tol = 2.0, 1e-3
    est = svmkit.LinearSVR(
        loss="squared_epsilon_insensitive",
        epsilon=0.0,
        C=C,
        solver="tron",
        tol=tol,
        fit_intercept=fit_intercept,
        solver_options=LS,
    ).fit(X, y)
    fg = smooth_objective(X, y, C, "squared_epsilon_insensitive", 0.1, regression=True)
    b = est.intercept_[0] if fit_intercept else 0.0
    g = fg(np.append(est.coef_, b))[1]
    g0 = fg(np.zeros(X.shape[1] + 1))[1]
    if not fit_intercept:
        g, g0 = g[:-1], g0[:-1]
    # The relative-gradient rule of solvers/tron.hpp, recomputed here.
    assert np.linalg.norm(g) <= tol * np.linalg.norm(g0)
    assert est.result_[0]["status"] == SolverStatus.converged
    # Least squares with the ridge: the exact optimum in closed form.
    A = np.hstack([X, np.ones((len(y), 1))]) if fit_intercept else X
    exact = np.linalg.solve(np.eye(A.shape[1]) + 2 * C * A.T @ A, 2 * C * A.T @ y)
    ours = np.append(est.coef_, b) if fit_intercept else est.coef_
    assert np.linalg.norm(ours - exact) <= 1e-2 * np.linalg.norm(exact)


def test_line_search_with_a_free_intercept_matches_lbfgs() -> None:
    X, y = _breast_cancer(False)
    C = 1.0
    est = svmkit.LinearSVC(
        loss="logistic",
        C=C,
        solver="tron",
        tol=1e-10,
        regularize_intercept=False,
        solver_options=LS,
    ).fit(X, y)
    t = np.where(y == est.classes_[1], 1.0, -1.0)
    fg = smooth_objective(X, t, C, "logistic", 0.1, regression=False, reg_b=False)
    ref = lbfgs_optimum(fg, X.shape[1] + 1)
    ours = fg(np.append(est.coef_[0], est.intercept_[0]))[0]
    assert ours == pytest.approx(ref.fun, rel=1e-7)


def test_line_search_warm_start_at_the_optimum_stops_at_once() -> None:
    X, y = _breast_cancer(False)
    est = svmkit.LinearSVC(
        loss="smoothed_hinge", solver="tron", tol=1e-8, warm_start=True, solver_options=LS
    ).fit(X, y)
    first = est.result_[0]["iterations"]
    est.fit(X, y)
    assert first > 3
    assert est.result_[0]["iterations"] <= 1


def test_line_search_takes_fewer_newton_steps_on_the_smoothed_hinge() -> None:
    # The reason it exists (bench/bench_regimes.py measures the time): psi_M's curvature changes
    # within sigma of the margin, so the region stays small; the line search is not bounded.
    X, y = _breast_cancer(False)
    kw = {"loss": "smoothed_hinge", "sigma": 0.01, "solver": "tron", "tol": 1e-6}
    region = svmkit.LinearSVC(**kw, solver_options={"globalization": "trust_region"}).fit(X, y)
    line = svmkit.LinearSVC(**kw, solver_options=LS).fit(X, y)
    assert line.result_[0]["iterations"] < region.result_[0]["iterations"]


def _standardized_digit_one():
    """Standardized digits, 1 against the rest: the squared hinge's region stalls here."""
    X, y = load_digits(return_X_y=True)
    return StandardScaler().fit_transform(X), (y == 1).astype(int)


def test_the_region_hands_over_to_the_line_search_where_its_model_fails() -> None:
    # solvers/tron.hpp: after the region's first rejected step "auto" continues with the line
    # search. On this bundled set the region alone rejects a step in three and ran into max_iter
    # (1000 Newton steps) at the default tol; the hand-over converges in a few dozen.
    X, y = _standardized_digit_one()
    tol = 1e-4
    auto = svmkit.LinearSVC(solver="tron", tol=tol).fit(X, y)
    region = svmkit.LinearSVC(
        solver="tron", tol=tol, solver_options={"globalization": "trust_region"}
    ).fit(X, y)
    res = auto.result_[0]
    assert res["status"] == SolverStatus.converged
    accepted = np.asarray(res["history"]["accepted"], dtype=bool)
    radius = np.asarray(res["history"]["radius"])
    first_rejected = int(np.argmin(accepted))
    assert not accepted[first_rejected]
    assert np.isfinite(radius[: first_rejected + 1]).all()  # the region's steps
    assert np.isnan(radius[first_rejected + 1 :]).all()  # then the line search's
    assert accepted[first_rejected + 1 :].all()
    assert len(radius) == res["iterations"]
    assert 10 * res["iterations"] < region.result_[0]["iterations"]
    # The stopping rule, recomputed in numpy, and the same optimum as L-BFGS at a tight tol.
    t = np.where(y == 1, 1.0, -1.0)
    fg = smooth_objective(X, t, 1.0, "squared_hinge", 0.1, regression=False)
    g = fg(np.append(auto.coef_[0], auto.intercept_[0]))[1]
    assert np.linalg.norm(g) <= tol * np.linalg.norm(fg(np.zeros(X.shape[1] + 1))[1])
    tight = svmkit.LinearSVC(solver="tron", tol=1e-10).fit(X, y)
    ref = lbfgs_optimum(fg, X.shape[1] + 1)
    ours = fg(np.append(tight.coef_[0], tight.intercept_[0]))[0]
    assert ours == pytest.approx(ref.fun, rel=1e-7)
    assert ours <= ref.fun * (1 + 1e-9)


@pytest.mark.parametrize(
    ("globalization", "loss", "expected"),
    [
        ("auto", "squared_hinge", True),
        ("auto", "logistic", True),
        ("auto", "smoothed_hinge", False),  # the line search from the start
        ("auto", "squared_epsilon_insensitive", False),
        ("auto", "smoothed_epsilon_insensitive", False),
        ("trust_region", "squared_hinge", False),  # a named globalization is honoured
        ("line_search", "squared_hinge", False),
    ],
)
def test_the_hand_over_rule(globalization: str, loss: str, expected: bool) -> None:
    assert _core.tron_hands_over_to_line_search(globalization, loss) is expected


def test_a_named_region_never_hands_over() -> None:
    X, y = _standardized_digit_one()
    region = svmkit.LinearSVC(
        solver="tron", max_iter=50, solver_options={"globalization": "trust_region"}
    )
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        region.fit(X, y)
    assert np.isfinite(region.result_[0]["history"]["radius"]).all()


@pytest.mark.parametrize("value", ["linesearch", "", "trust-region"])
def test_invalid_globalization_is_named(value: str) -> None:
    X, y = _breast_cancer(False)
    est = svmkit.LinearSVC(solver="tron", solver_options={"globalization": value})
    with pytest.raises(ValueError, match="globalization.*'trust_region', 'line_search' or 'auto'"):
        est.fit(X, y)


@pytest.mark.parametrize(
    ("globalization", "loss", "expected"),
    [
        ("auto", "smoothed_hinge", True),
        ("auto", "gaussian_smoothed_hinge", True),
        ("auto", "squared_hinge", False),
        ("auto", "logistic", False),
        ("auto", "smoothed_epsilon_insensitive", False),
        ("line_search", "logistic", True),
        ("trust_region", "smoothed_hinge", False),
    ],
)
def test_the_globalization_rule(globalization: str, loss: str, expected: bool) -> None:
    # The one rule (solvers/tron.hpp) that the in-memory solver and the Dask port both follow;
    # its effect is checked above (Newton steps) and in test_dask (the port's steps).
    assert _core.tron_uses_line_search(globalization, loss) is expected


def test_the_globalization_rule_refuses_bad_names() -> None:
    with pytest.raises(ValueError, match="globalization"):
        _core.tron_uses_line_search("newton", "logistic")
    with pytest.raises(ValueError, match="loss"):
        _core.tron_uses_line_search("auto", "hinge2")


@pytest.mark.parametrize("cutoff", [0.0, 1e-4, 1e-2])
@pytest.mark.parametrize("loss", ["smoothed_hinge", "gaussian_smoothed_hinge"])
def test_hessian_cutoff_keeps_thelbfgs_optimum(loss: str, cutoff: float) -> None:
    """hessian_cutoff leaves rows out of the Hessian-vector products only: the fit still reaches
    L-BFGS's optimum, and on these data some rows are below the cutoff at the solution."""
    X, y = _standardized_digit_one()
    sigma = 0.1
    est, fg, ref, v = _fit_and_lbfgs(X, y, loss, 1.0, sigma, dict(LS, hessian_cutoff=cutoff))
    t = np.where(y == est.classes_[1], 1.0, -1.0)
    assert fg(v)[0] == pytest.approx(ref.fun, rel=1e-7)
    assert est.result_[0]["status"] == SolverStatus.converged
    if cutoff > 0.0:
        u = t * (X @ v[:-1] + v[-1])
        d2 = _core.loss_eval(loss, np.asarray(u, dtype=np.float64), sigma, 0.0)[2]
        assert (d2 < cutoff * _core.loss_d2_max(loss, sigma, 0.0)).sum() > 0


def test_kept_curvature_binding() -> None:
    """_core.kept_curvature (the Dask port's rows of H s) is the rule hessian_cutoff documents:
    a row keeps cost_i loss''(u_i) unless it is below cost_i cut; mismatched inputs are refused."""
    rng = np.random.default_rng(0)
    curv, cost = rng.uniform(0.0, 2.0, 1000), rng.uniform(0.5, 3.0, 1000)
    cut = 0.4
    expected = [c if c >= w * cut else 0.0 for c, w in zip(curv, cost)]
    np.testing.assert_array_equal(_core.kept_curvature(curv, cost, cut), expected)
    np.testing.assert_array_equal(_core.kept_curvature(curv, cost, 0.0), curv)
    with pytest.raises(ValueError, match="curvature and cost must be 1-D arrays of the same"):
        _core.kept_curvature(curv, cost[:-1], cut)


def test_hessian_cutoff_safeguard_returns_every_row() -> None:
    """Few rows near the kink and large C: the rows left out dominate the curvature along CG's
    directions, and the safeguard returns them (at 1e-3 without it the hinge continuation
    took 1423 Newton steps against 62 with every row); the certified optimum is reached."""
    from references import primal_svm

    X, y = _breast_cancer(False)
    X, y = X[:200], y[:200]
    sw = np.random.default_rng(1).uniform(0.5, 2.0, y.size)
    fits = {
        cut: svmkit.LinearSVC(
            loss="hinge", solver="tron", C=10.0, solver_options={"hessian_cutoff": cut}
        ).fit(X, y, sample_weight=sw)
        for cut in (0.0, 1e-3)
    }
    iters = {cut: est.result_[0]["iterations"] for cut, est in fits.items()}
    assert iters[1e-3] <= 2 * iters[0.0]
    t = np.where(y == 1, 1.0, -1.0)
    _, _, f_star = primal_svm(X, t, 10.0 * sw, loss="hinge")
    for est in fits.values():
        res = est.result_[0]
        assert res["status"] == SolverStatus.converged
        assert (res["objective"] - f_star) / res["objective"] <= res["optimality"] + 1e-9


@pytest.mark.parametrize("value", [-1e-3, 1.0])
def test_invalid_hessian_cutoff_is_named(value: float) -> None:
    X, y = _breast_cancer(False)
    with pytest.raises(ValueError, match="hessian_cutoff"):
        svmkit.LinearSVC(
            loss="smoothed_hinge", solver="tron", solver_options={"hessian_cutoff": value}
        ).fit(X, y)
