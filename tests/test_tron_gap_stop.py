"""TRON's duality-gap stop (solvers/tron.hpp, option gap_stop): on a smooth loss with the
intercept regularized or absent, F is 1-strongly convex, so F(w) - F* <= ||grad F(w)||^2 / 2; a
run stops once that bound is within min(tol, 1e-4) of F(w), which on sparse text comes before
LIBLINEAR's gradient rule ||grad F|| <= tol ||grad F(0)||.

The bound is checked against the optimum of scipy's L-BFGS-B run to its tightest tolerances,
and the gradient at the returned point is recomputed in numpy.
"""

from __future__ import annotations

import numpy as np
import pytest
import svmkit
from references import lbfgs_optimum, smooth_objective
from svmkit import SolverStatus, _core
from svmkit.datasets import make_sparse_text_like

TOL = 1e-4
CLF = ["squared_hinge", "logistic", "smoothed_hinge", "gaussian_smoothed_hinge"]


def text_data():
    X, y = make_sparse_text_like(2000, 1000, 0.03, label_noise=0.05, random_state=0)
    return X, np.where(y > 0, 1.0, -1.0)


def fit(loss, X, y, regression=False, **options):
    est = svmkit.LinearSVR if regression else svmkit.LinearSVC
    return est(loss=loss, solver="tron", tol=TOL, solver_options=options).fit(X, y)


@pytest.mark.parametrize("loss", [*CLF, "squared_epsilon_insensitive"])
def test_the_gap_ends_the_run_certified_before_the_gradient_rule(loss) -> None:
    X, y = text_data()
    regression = loss == "squared_epsilon_insensitive"
    if regression:
        y = np.asarray(X @ np.random.default_rng(0).standard_normal(X.shape[1])).ravel()
    fg = smooth_objective(X, y, 1.0, loss, 0.1, regression)  # sigma: the estimators' default
    ref = lbfgs_optimum(fg, X.shape[1] + 1)
    est = fit(loss, X, y, regression)
    res = est.result_[0]
    v = np.append(est.coef_.ravel(), est.intercept_[0])
    f, g = fg(v)
    gnorm0 = np.linalg.norm(fg(np.zeros_like(v))[1])
    assert res["status"] == SolverStatus.converged
    assert "relative duality gap" in res["message"]
    assert f == pytest.approx(res["objective"], rel=1e-10)
    # the gradient rule did not hold; the certificate did, and it bounds the true gap
    assert np.linalg.norm(g) > TOL * gnorm0
    assert 0.5 * g @ g <= TOL * f
    assert f - ref.fun <= 0.5 * g @ g + 1e-9 * abs(ref.fun)
    assert (f - ref.fun) / f <= TOL
    # LIBLINEAR's rule alone runs longer, to the same optimum
    rule = fit(loss, X, y, regression, gap_stop=False).result_[0]
    assert rule["status"] == SolverStatus.converged and rule["message"] == ""
    assert rule["iterations"] > res["iterations"]
    assert (rule["objective"] - ref.fun) / ref.fun <= TOL


def test_no_gap_stop_with_a_free_intercept_or_a_tight_tol() -> None:
    """A free intercept leaves F without strong convexity in b (no bound); below tol 1e-5 the
    coefficients are wanted, and the gradient rule alone decides."""
    X, y = text_data()
    free = svmkit.LinearSVC(solver="tron", regularize_intercept=False).fit(X, y).result_[0]
    assert free["status"] == SolverStatus.converged and free["message"] == ""
    tight = svmkit.LinearSVC(solver="tron", tol=1e-6).fit(X, y).result_[0]
    assert tight["status"] == SolverStatus.converged and tight["message"] == ""
    assert _core.tron_stop_rule(1e-4, True, "logistic", True) == (1e-4, 0.0)
    assert _core.tron_stop_rule(1e-6, True, "logistic", False) == (1e-6, 0.0)
    assert _core.tron_stop_rule(1e-2, True, "logistic", False) == (1e-2, 1e-4)
    assert _core.tron_stop_rule(1e-5, True, "logistic", False) == (1e-5, 1e-5)
    assert _core.tron_stop_rule(1e-2, False, "logistic", False) == (1e-2, 0.0)


def test_without_intercept_the_gap_stop_holds_too() -> None:
    X, y = text_data()
    fg = smooth_objective(X, y, 1.0, "squared_hinge", 0.1, False)
    est = svmkit.LinearSVC(solver="tron", fit_intercept=False).fit(X, y)
    res = est.result_[0]
    f, g = fg(np.append(est.coef_.ravel(), 0.0))
    assert res["status"] == SolverStatus.converged and "relative duality gap" in res["message"]
    assert 0.5 * g[:-1] @ g[:-1] <= TOL * f


def test_the_hinge_continuation_stages_keep_the_gradient_rule() -> None:
    """The continuation's stages do not stop on their smoothed problem's gap (tron.cpp's
    kStageGapTol): gap_stop changes nothing there; the run ends on the hinge's certified gap."""
    X, y = text_data()
    res = svmkit.LinearSVC(loss="hinge", solver="tron").fit(X, y).result_[0]
    assert res["status"] == SolverStatus.converged and res["optimality"] <= TOL
    rule = svmkit.LinearSVC(loss="hinge", solver="tron", solver_options={"gap_stop": False})
    ref = rule.fit(X, y).result_[0]
    assert (res["iterations"], res["passes"]) == (ref["iterations"], ref["passes"])


@pytest.mark.parametrize("loss", ["smoothed_hinge", "gaussian_smoothed_hinge"])
@pytest.mark.parametrize("C", [1.0, 10.0])
def test_smoothed_hinges_stop_on_the_gap_alone(loss, C) -> None:
    """On separable data ||grad F(0)|| is orders of magnitude above the optimum's scale, and
    LIBLINEAR's relative gradient rule stopped the smoothed hinges far above the optimum
    (reported converged). They have no LIBLINEAR counterpart to match: the certified gap alone
    ends their runs (_core.tron_stop_rule), within tol of scipy's L-BFGS-B optimum."""
    from svmkit.datasets import make_two_gaussians

    X, y = make_two_gaussians(200, 2000, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    fg = smooth_objective(X, y, C, loss, 0.1, False)
    ref = lbfgs_optimum(fg, X.shape[1] + 1)
    est = svmkit.LinearSVC(loss=loss, solver="tron", C=C, tol=TOL).fit(X, y)
    res = est.result_[0]
    v = np.append(est.coef_.ravel(), est.intercept_[0])
    f, g = fg(v)
    assert res["status"] == SolverStatus.converged
    assert "the gap alone decides" in res["message"]
    assert 0.5 * g @ g <= TOL * f
    assert -1e-9 <= (f - ref.fun) / f <= TOL
    # LIBLINEAR's rule alone (gap_stop=False) stops well above the optimum here.
    rule = svmkit.LinearSVC(
        loss=loss, solver="tron", C=C, tol=TOL, solver_options={"gap_stop": False}
    ).fit(X, y)
    f_rule = fg(np.append(rule.coef_.ravel(), rule.intercept_[0]))[0]
    assert (f_rule - ref.fun) / ref.fun > TOL


def test_stop_rule_keeps_liblinear_rule_for_its_losses() -> None:
    """The squared hinge and the logistic loss keep LIBLINEAR's gradient rule (-s 2 / -s 0);
    the smoothed hinges drop it only where the gap stop applies."""
    for loss in ("squared_hinge", "logistic", "squared_epsilon_insensitive"):
        assert _core.tron_stop_rule(1e-4, True, loss, False) == (1e-4, 1e-4)
    for loss in ("smoothed_hinge", "gaussian_smoothed_hinge"):
        assert _core.tron_stop_rule(1e-4, True, loss, False) == (0.0, 1e-4)
        # No gap stop (a tight tol, gap_stop off, a free intercept): LIBLINEAR's rule decides.
        assert _core.tron_stop_rule(1e-6, True, loss, False) == (1e-6, 0.0)
        assert _core.tron_stop_rule(1e-4, False, loss, False) == (1e-4, 0.0)
        assert _core.tron_stop_rule(1e-4, True, loss, True) == (1e-4, 0.0)
    assert _core.tron_gap_stop_message(1.0, 1e-3, 0.0, 1e-4).endswith(
        "for this loss the gap alone decides)"
    )
