"""l1_cd's hinge loss (l1 and elastic net): the smoothing continuation with a certified stop.

References: clarabel solving the linear program min ||w||_1 + sum_i c_i max(0, 1 - y_i z_i)
(free bias) and the elastic net's quadratic program exactly (tests/references.primal_svm), and
smsvm's polished optimum through the estimator. The certificate (the result's optimality) must
bound the true relative gap.
Data: scikit-learn's bundled breast_cancer and digits, and seeded sparse text-like generators.
"""

from __future__ import annotations

import dataclasses
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import margin_separable, primal_svm, scaled_separable
from sklearn.datasets import load_breast_cancer, load_digits, make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from svmkit import _core, _solvers
from svmkit._solvers import HINGE_DUAL_SCALE, auto_solver_name, hinge_dual_scale
from svmkit.datasets import make_sparse_text_like


@pytest.fixture(autouse=True)
def _l1_cd_branch_of_the_auto_rule(monkeypatch) -> None:
    """These tests exercise solver="auto"'s branch for more than IPM_MAX_FEATURES features
    (l1_cd and its HiGHS / smsvm finishers) on small data, so the threshold is 0 here, and
    sparse wide data's pure l1 stays with l1_cd too (IPM_L1_WIDE_RATIO 0); tests/test_auto.py
    tests the rule itself, tests/test_ipm.py and test_ipm_working_set.py the fits ipm takes."""
    monkeypatch.setattr(_solvers, "IPM_MAX_FEATURES", 0)
    monkeypatch.setattr(_solvers, "IPM_L1_WIDE_RATIO", 0)


def cancer(n=300):
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:n]
    return X, np.where(y[:n] > 0, 1.0, -1.0)


def text(seed=0):
    X, y = make_sparse_text_like(400, 300, density=0.05, random_state=seed)
    return sp.csr_matrix(X), np.where(y > 0, 1.0, -1.0)


def core(X, y, cost, **options):
    Xc = (X.data, X.indices, X.indptr, X.shape[0], X.shape[1]) if sp.issparse(X) else X
    return _core.fit_l1_cd(Xc, y, cost, "hinge", 1.0, 0.0, True, 1.0, True, None, options, None)


def l1_hinge_value(X, y, cost, w, b) -> float:
    """||w||_1 + sum_i c_i max(0, 1 - y_i (x_i.w + b)), b the intercept."""
    return float(np.abs(w).sum() + cost @ np.maximum(0.0, 1.0 - y * (X @ w + b)))


def hinge_objective(X, y, cost, sol) -> float:
    return l1_hinge_value(X, y, cost, sol[:-1], sol[-1])


def lp_primal(X, y, cost, fit_intercept=True) -> tuple[np.ndarray, float, float]:
    """clarabel's (w, b, optimum) of the pure-l1 hinge (a free intercept, or none)."""
    return primal_svm(
        X,
        y,
        cost,
        loss="hinge",
        l2=0.0,
        l1=1.0,
        reg_b=False,
        fit_intercept=fit_intercept,
        tol=1e-11,
    )


def lp_optimum(X, y, cost) -> float:
    return lp_primal(X, y, cost)[2]


def fit_finished_by(clf, X, y, finisher: str) -> dict:
    """Fits clf without a ConvergenceWarning; its (first) result, which l1_cd started and
    `finisher` finished."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    res = clf.result_[0]
    assert res["finished_by"] == finisher
    assert res["started_by"]["status"] == _core.SolverStatus.max_iter
    return res


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("seed", [0, 1])
def test_certified_within_tol_of_the_lp_optimum(layout, weighted, seed) -> None:
    tol = 1e-4
    X, y = text(seed)
    if layout == "dense":
        X = X.toarray()
    rng = np.random.default_rng(3)
    cost = rng.uniform(0.2, 3.0, X.shape[0]) if weighted else np.ones(X.shape[0])
    if weighted:
        cost[::7] = 0.0  # rows without weight are dropped by the copy, not by the certificate
    res = core(X, y, cost, tol=tol)
    assert res["status"] == _core.SolverStatus.converged, res["message"]
    sol = np.asarray(res["solution"])
    F = hinge_objective(X, y, cost, sol)
    assert res["objective"] == pytest.approx(F, rel=1e-12)
    Fstar = lp_optimum(X, y, cost)
    true_gap = (F - Fstar) / F
    assert -1e-8 <= true_gap <= tol
    # The certificate is a bound: it is never below the true relative gap.
    assert true_gap <= res["optimality"] + 1e-9
    assert res["optimality"] <= tol


@pytest.mark.parametrize("layout", ["dense", "csr"])
@pytest.mark.parametrize("regularize_intercept", [True, False])
@pytest.mark.parametrize(("weighted", "l1"), [(False, 0.5), (True, 0.5), (False, 0.9)])
def test_elastic_net_certified_within_tol_of_the_qp_optimum(
    layout, regularize_intercept, weighted, l1
) -> None:
    """l1 ||w||_1 + l2/2 (||w||^2 + [regularize_intercept] b^2) + sum_i c_i hinge_i, the bias
    never l1-penalized (smsvm's elastic net)."""
    tol, l2 = 1e-4, 1.0 - l1
    X, y = text(1)
    if layout == "dense":
        X = X.toarray()
    rng = np.random.default_rng(5)
    cost = rng.uniform(0.2, 3.0, X.shape[0]) if weighted else np.ones(X.shape[0])
    Xc = (X.data, X.indices, X.indptr, X.shape[0], X.shape[1]) if sp.issparse(X) else X
    res = _core.fit_l1_cd(
        Xc, y, cost, "hinge", l1, l2, True, 1.0, regularize_intercept, None, {"tol": tol}, None
    )
    assert res["status"] == _core.SolverStatus.converged, res["message"]
    sol = np.asarray(res["solution"])
    w, b = sol[:-1], sol[-1]
    F = float(
        l1 * np.abs(w).sum()
        + 0.5 * l2 * (w @ w + (b * b if regularize_intercept else 0.0))
        + cost @ np.maximum(0.0, 1.0 - y * (X @ w + b))
    )
    assert res["objective"] == pytest.approx(F, rel=1e-12)
    Fstar = primal_svm(X, y, cost, loss="hinge", l2=l2, l1=l1, reg_b=regularize_intercept)[2]
    true_gap = (F - Fstar) / F
    assert -1e-8 <= true_gap <= res["optimality"] + 1e-9
    assert res["optimality"] <= tol


@pytest.mark.parametrize("regularize_intercept", [True, False])
def test_elastic_net_certificate_bounds_a_degenerate_run(regularize_intercept) -> None:
    """300 standardized rows of breast_cancer, where the stages approach the optimum only to
    about 1e-4 (the pure l1's degenerate case, solvers/l1_cd.hpp): certified or not, the
    reported gap bounds the true one."""
    X, y = cancer()
    cost = np.ones(X.shape[0])
    res = _core.fit_l1_cd(
        X, y, cost, "hinge", 0.5, 0.5, True, 1.0, regularize_intercept, None, {}, None
    )
    assert res["status"] in (_core.SolverStatus.converged, _core.SolverStatus.max_iter)
    Fstar = primal_svm(X, y, cost, loss="hinge", l2=0.5, l1=0.5, reg_b=regularize_intercept)[2]
    true_gap = (res["objective"] - Fstar) / res["objective"]
    assert -1e-8 <= true_gap <= res["optimality"] + 1e-9
    assert res["optimality"] <= 1e-3


def test_elastic_net_auto_rule_and_smsvm_agree() -> None:
    """solver="auto" takes l1_cd for the elastic-net hinge on dense data with n_samples >= 25
    n_features (where dual_cd runs into max_iter), dual_cd elsewhere; l1_cd reaches smsvm's
    optimum (the same problem) within tol."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((3000, 20))
    y = np.where(X @ rng.standard_normal(20) + 0.5 * rng.standard_normal(3000) > 0, 1, -1)
    auto = svmkit.LinearSVC(loss="hinge", penalty="elasticnet").fit(X, y)
    assert auto.solver_ == "l1_cd"
    assert auto.result_[0]["status"] == _core.SolverStatus.converged
    ref = svmkit.LinearSVC(loss="hinge", penalty="elasticnet", solver="smsvm").fit(X, y)
    Fa, Fr = auto.result_[0]["objective"], ref.result_[0]["objective"]
    assert abs(Fa - Fr) / Fr <= 1e-4
    narrow = svmkit.LinearSVC(loss="hinge", penalty="elasticnet", max_iter=5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        assert narrow.fit(X[:400], y[:400]).solver_ == "dual_cd"  # 400 < 25 * 20
        # sparse (a dense X in a CSR container runs dense: test_dense_storage.py)
        Xs = sp.csr_matrix(X * (rng.random(X.shape) < 0.2))
        assert narrow.fit(Xs, y).solver_ == "dual_cd"
    assert auto_solver_name("hinge", "elasticnet", 500, 20, True, 20.0) == "l1_cd"
    assert auto_solver_name("hinge", "elasticnet", 499, 20, True, 20.0) == "dual_cd"
    assert auto_solver_name("hinge", "elasticnet", 500, 20, True, None) == "dual_cd"
    assert auto_solver_name("hinge", "elasticnet", 500, 20, False, 20.0) == "l1_cd"


def test_without_intercept() -> None:
    X, y = text(0)
    cost = np.ones(X.shape[0])
    Xc = (X.data, X.indices, X.indptr, X.shape[0], X.shape[1])
    res = _core.fit_l1_cd(Xc, y, cost, "hinge", 1.0, 0.0, False, 1.0, True, None, {}, None)
    assert res["status"] == _core.SolverStatus.converged
    assert len(res["solution"]) == X.shape[1]
    Fstar = primal_svm(X, y, cost, loss="hinge", l2=0.0, l1=1.0, fit_intercept=False, tol=1e-11)[2]
    true_gap = (res["objective"] - Fstar) / res["objective"]
    assert -1e-8 <= true_gap <= res["optimality"] + 1e-9
    assert res["optimality"] <= 1e-4


def test_certificate_bounds_an_uncertified_stage() -> None:
    """One stage at a large smoothing is not certified (status max_iter); the gap it reports
    still bounds the true suboptimality."""
    X, y = cancer()
    cost = np.ones(X.shape[0])
    res = core(X, y, cost, hinge_smoothing=0.3, hinge_smoothing_min=0.3, tol=1e-8)
    assert res["status"] == _core.SolverStatus.max_iter
    assert "hinge_smoothing_min" in res["message"]
    F = hinge_objective(X, y, cost, np.asarray(res["solution"]))
    true_gap = (F - lp_optimum(X, y, cost)) / F
    assert 1e-8 < true_gap <= res["optimality"] + 1e-12
    hist = res["history"]
    assert set(hist["smoothing"]) == {0.3}
    assert np.isfinite(hist["gap"][-1])


def stage_ends(res) -> list[tuple[float, float]]:
    """(sigma, the certified gap at the stage's end) per stage, in order."""
    gaps = np.asarray(res["history"]["gap"])
    smoothing = np.asarray(res["history"]["smoothing"])
    sigmas = sorted(set(smoothing.tolist()), reverse=True)
    return [(s, gaps[smoothing == s][-1]) for s in sigmas]


def test_stages_divide_the_smoothing_by_ten() -> None:
    X, y = text(1)
    res = core(X, y, np.ones(X.shape[0]), hinge_smoothing=0.5)
    ends = stage_ends(res)
    assert ends[0][0] == 0.5
    # each stage's last record carries its certificate (records within a stage may carry the
    # certificates taken during it), at least 5 tol here: the next sigma is a tenth
    for (s0, g0), (s1, _) in zip(ends, ends[1:]):
        assert np.isfinite(g0) and g0 >= 5e-4
        assert s0 / s1 == pytest.approx(10.0, rel=1e-12)


@pytest.mark.parametrize("penalty", ["l1", "elasticnet"])
def test_near_tol_stage_takes_a_smaller_step(penalty: str) -> None:
    """A stage ending within 5x of tol divides sigma by 2 gap / tol only (at least 2; the
    rule _core.continuation_smoothing_factor shares with tron's continuation): two Gaussian
    classes end the sigma = 0.01 stage near tol, and the next, nearer stage certifies it;
    the certificate bounds the true suboptimality (clarabel's exact optimum)."""
    from svmkit.datasets import make_two_gaussians

    X, y = make_two_gaussians(3000, 50, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    cost = np.ones(X.shape[0])
    l2 = 0.5 if penalty == "elasticnet" else 0.0
    res = _core.fit_l1_cd(X, y, cost, "hinge", 1.0 - l2, l2, True, 1.0, True, None, {}, None)
    assert res["status"] == _core.SolverStatus.converged
    ends = stage_ends(res)
    ratios = [s0 / s1 for (s0, _), (s1, _) in zip(ends, ends[1:])]
    for (_, g0), r in zip(ends, ratios):
        assert r == pytest.approx(_core.continuation_smoothing_factor(g0, 1e-4), rel=1e-12)
    assert min(ratios) < 10.0
    F = res["objective"]
    _, _, f_star = primal_svm(X, y, cost, loss="hinge", l2=l2, l1=1.0 - l2, tol=1e-11)
    assert -1e-8 <= (F - f_star) / F <= res["optimality"] + 1e-9 <= 1e-4 + 1e-9


@pytest.mark.parametrize(
    ("gap", "tol", "factor"),
    [
        (1.07e-4, 1e-4, 2.14),
        (1e-2, 1e-4, 10.0),
        (4.9e-4, 1e-4, 9.8),
        (0.9e-4, 1e-4, 2.0),
        (float("nan"), 1e-4, 10.0),
        (1e-3, 0.0, 10.0),
    ],
)
def test_continuation_smoothing_factor(gap: float, tol: float, factor: float) -> None:
    assert _core.continuation_smoothing_factor(gap, tol) == pytest.approx(factor, rel=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_certified_during_a_stage(seed) -> None:
    """The certificate is also taken during a stage: the run stops at the first certified
    point, before the stage's own stopping rule (whose last record takes no Newton step),
    and that point is within tol of the linear program's optimum."""
    tol = 1e-4
    X, y = text(seed)
    cost = np.ones(X.shape[0])
    res = core(X, y, cost, tol=tol)
    assert res["status"] == _core.SolverStatus.converged, res["message"]
    hist = res["history"]
    assert hist["inner_iterations"][-1] > 0  # a Newton step: the stage had not ended
    assert hist["gap"][-1] == res["optimality"] <= tol
    # earlier checks of the same stage that did not certify are recorded too
    checked = np.isfinite(np.asarray(hist["gap"]))
    assert checked.sum() > len(set(hist["smoothing"]))
    F = hinge_objective(X, y, cost, np.asarray(res["solution"]))
    true_gap = (F - lp_optimum(X, y, cost)) / F
    assert -1e-8 <= true_gap <= res["optimality"] + 1e-9


def test_auto_picks_l1_cd_and_matches_smsvm() -> None:
    X, y = cancer(569)
    auto = svmkit.LinearSVC(loss="hinge", penalty="l1").fit(X, y)
    assert auto.solver_ == "l1_cd"
    ref = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="smsvm").fit(X, y)
    Fa, Fr = auto.result_[0]["objective"], ref.result_[0]["objective"]
    assert abs(Fa - Fr) / Fr <= 1e-4
    assert auto.score(X, y) == pytest.approx(ref.score(X, y), abs=0.01)
    assert auto_solver_name("hinge", "l1", 2000, 50000) == "l1_cd"
    assert auto_solver_name("hinge", "elasticnet", 2000, 50, l1_ratio=1.0) == "l1_cd"
    # badly scaled dense data too (l1_cd's coordinate steps do not see the scales)
    assert auto_solver_name("hinge", "l1", 2000, 50, True, 1e4) == "l1_cd"


@pytest.mark.parametrize(
    ("name", "C", "penalty", "solver"),
    [
        ("separable", 1.0, "l1", "l1_cd"),
        ("separable", 100.0, "l1", "l1_cd"),
        ("separable", 1.0, "elasticnet", "l1_cd"),  # dense, n >= 25 d
        ("separable", 100.0, "elasticnet", "l1_cd"),
        ("cancer raw", 1.0, "l1", "l1_cd"),
        ("cancer raw", 100.0, "l1", "l1_cd"),
        ("cancer raw", 100.0, "elasticnet", "smsvm"),  # n < 25 d: dual_cd would stall
    ],
)
def test_badly_scaled_dense_data_reach_the_optimum(name, C, penalty, solver) -> None:
    """Dense data with C * mean ||x||^2 above HINGE_DUAL_SCALE: the default picks l1_cd (smsvm
    for the elastic net where l1_cd does not apply) and its model is certified within tol of
    clarabel's optimum (smsvm ran into max_iter 66% above it on raw breast_cancer at C = 100)."""
    if name == "separable":
        X, y = scaled_separable()
    else:
        X, y = load_breast_cancer(return_X_y=True)
        y = np.where(y > 0, 1.0, -1.0)
    assert hinge_dual_scale(X, C) > HINGE_DUAL_SCALE
    clf = svmkit.LinearSVC(loss="hinge", penalty=penalty, C=C)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    assert clf.solver_ == solver
    res = clf.result_[0]
    assert res["status"] == _core.SolverStatus.converged
    cost = np.full(X.shape[0], C)
    l1, l2 = (1.0, 0.0) if penalty == "l1" else (0.5, 0.5)
    w, b = clf.coef_.ravel(), float(clf.intercept_[0])
    F = float(
        l1 * np.abs(w).sum()
        + 0.5 * l2 * (w @ w + b * b)
        + cost @ np.maximum(0.0, 1.0 - y * (X @ w + b))
    )
    Fstar = primal_svm(X, y, cost, loss="hinge", l2=l2, l1=l1, reg_b=l2 > 0.0, tol=1e-11)[2]
    assert -1e-7 <= (F - Fstar) / F <= 1e-4


@pytest.mark.parametrize(("n", "C"), [(2000, 10.0), (2000, 100.0), (4000, 100.0)])
def test_badly_scaled_stages_run_at_tol(n, C) -> None:
    """The stages above sigma = 0.001 stop early only where C * mean ||x||^2 <= 200: newGLMNET's
    rule is relative to the gradient at w = 0, far above the optimum's scale here, and with
    early stops on this data l1_cd ended uncertified (gaps 8.8e-4 - 2e-2) on each of these fits.
    The named solver (no finisher) certifies within tol of clarabel's optimum."""
    X, y = scaled_separable(n)
    assert hinge_dual_scale(X, C) > HINGE_DUAL_SCALE
    clf = svmkit.LinearSVC(loss="hinge", penalty="elasticnet", C=C, solver="l1_cd")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    res = clf.result_[0]
    assert res["status"] == _core.SolverStatus.converged and res["optimality"] <= 1e-4
    cost = np.full(n, C)
    Fstar = primal_svm(X, y, cost, loss="hinge", l2=0.5, l1=0.5, reg_b=True, tol=1e-11)[2]
    assert -1e-7 <= (res["objective"] - Fstar) / res["objective"] <= res["optimality"] + 1e-9


@pytest.mark.parametrize("forced", [False, True])
def test_uncertified_continuation_is_finished_by_the_linear_program(forced) -> None:
    """solver="auto": when the continuation ends uncertified, HiGHS solves the pure l1's linear
    program (svmkit._lp) and the model is the LP's optimum, certified, with no warning.
    Unforced: 300 standardized rows of breast_cancer, where the stages stall (see
    solvers/l1_cd.hpp) or run into the hand-over's pass budget (_LP_AFTER_PASSES); forced: a
    single stage."""
    X, y = cancer()
    options = {"hinge_smoothing": 0.3, "hinge_smoothing_min": 0.3} if forced else None
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1", solver_options=options)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    res = clf.result_[0]
    assert clf.solver_ == "l1_cd" and res["finished_by"] == "highs"
    assert res["started_by"]["status"] == _core.SolverStatus.max_iter
    message = res["started_by"]["message"]
    if forced:
        assert "smallest smoothing" in message
    else:
        assert "stalled" in message or "after hinge_max_passes passes" in message
    cost = np.ones(X.shape[0])
    sol = np.r_[clf.coef_.ravel(), clf.intercept_]
    F, Fstar = hinge_objective(X, y, cost, sol), lp_optimum(X, y, cost)
    assert res["objective"] == pytest.approx(F, rel=1e-12)
    assert -1e-8 <= (F - Fstar) / F <= res["optimality"] + 1e-12 <= 1e-4
    # an explicit solver is honoured: no finishing step
    named = svmkit.LinearSVC(
        loss="hinge",
        penalty="l1",
        solver="l1_cd",
        solver_options={"hinge_smoothing": 0.3, "hinge_smoothing_min": 0.3},
    )
    with pytest.warns(ConvergenceWarning):
        named.fit(X, y)
    assert "finished_by" not in named.result_[0]


def test_uncertified_continuation_is_finished_on_its_margin_band() -> None:
    """Near-separable rows with a margin, scales 1-1000, C = 10: the continuation ends
    uncertified near the optimum, and HiGHS's program on the samples of its margin band (a few
    % of them; svmkit._lp.solve_l1_hinge_on_band) certifies the LP's optimum: the whole program
    is not built."""
    X, y = margin_separable(1000)
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1", C=10.0)
    res = fit_finished_by(clf, X, y, "highs")
    assert 0 < res["band_samples"] <= 0.1 * len(y)
    cost = np.full(len(y), 10.0)
    sol = np.r_[clf.coef_.ravel(), clf.intercept_]
    F, Fstar = hinge_objective(X, y, cost, sol), lp_optimum(X, y, cost)
    assert res["objective"] == pytest.approx(F, rel=1e-12)
    assert -1e-8 <= (F - Fstar) / F <= res["optimality"] + 1e-12 <= 1e-4


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_band_program_certifies_a_point_near_the_optimum(fit_intercept) -> None:
    """solve_l1_hinge_on_band against clarabel: from the optimum moved by 1e-3 of its size it
    returns the optimum, certified (its row duals, not the given point); from w = 0 (every
    sample on the margin band of width 1) it gives up (None), as past its time limit."""
    from svmkit._lp import BAND_MAX_SHARE, solve_l1_hinge_on_band

    X, y = margin_separable(600, d=10)
    cost = np.full(len(y), 10.0)
    w, b, Fstar = lp_primal(X, y, cost, fit_intercept)
    sol = np.r_[w, b] if fit_intercept else np.asarray(w)
    moved = sol * (1.0 + 1e-3 * np.random.default_rng(0).standard_normal(len(sol)))
    res = solve_l1_hinge_on_band(X, y, cost, moved, fit_intercept, 1.0, 1e-6)
    assert res is not None and res["status"] == _core.SolverStatus.converged
    assert res["band_samples"] <= BAND_MAX_SHARE * len(y)
    got = np.asarray(res["solution"])
    wb, bb = (got[:-1], got[-1]) if fit_intercept else (got, 0.0)
    F = l1_hinge_value(X, y, cost, wb, bb)
    assert res["objective"] == pytest.approx(F, rel=1e-12)
    assert -1e-8 <= (F - Fstar) / F <= res["optimality"] + 1e-9  # clarabel's own error
    assert res["optimality"] <= 1e-6
    # keep_point: the given point itself, its gap bounded (a certificate of `moved`).
    kept = solve_l1_hinge_on_band(X, y, cost, moved, fit_intercept, 1.0, 1e-1, keep_point=True)
    assert kept is not None and np.array_equal(kept["solution"], moved)
    Fm = l1_hinge_value(X, y, cost, *((moved[:-1], moved[-1]) if fit_intercept else (moved, 0.0)))
    assert kept["objective"] == pytest.approx(Fm, rel=1e-12)
    assert 0.0 < (Fm - Fstar) / Fm <= kept["optimality"] + 1e-9
    zero = np.zeros(len(sol))
    assert solve_l1_hinge_on_band(X, y, cost, zero, fit_intercept, 1.0, 1e-6) is None
    late = solve_l1_hinge_on_band(X, y, cost, moved, fit_intercept, 1.0, 1e-6, time_limit=0.0)
    assert late is None


def test_named_solver_point_is_certified_on_its_margin_band() -> None:
    """A named solver's uncertified pure-l1 point, certified (not moved) by HiGHS on its margin
    band: smsvm on raw breast_cancer at C = 1 runs into max_iter with its own bound at 4.3e-3,
    where its point is 8e-5 above clarabel's optimum; without the band it warned. l1_cd's point
    there (2.3e-3 above) cannot be certified: it keeps its status, warning and point."""
    X, y = load_breast_cancer(return_X_y=True)
    y = np.where(y > 0, 1.0, -1.0)
    cost = np.ones(len(y))
    Fstar = lp_primal(X, y, cost)[2]
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="smsvm")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    r = clf.result_[0]
    assert r["status"] == _core.SolverStatus.converged and r["optimality"] <= 1e-4
    assert "certified by HiGHS on the margin band" in r["message"]
    assert r["certified_by"]["band_samples"] < len(y) // 2
    F = l1_hinge_value(X, y, cost, clf.coef_[0], clf.intercept_[0])
    assert F == pytest.approx(r["objective"], rel=1e-12)  # smsvm's own point
    assert 1e-6 <= (F - Fstar) / F <= r["optimality"] + 1e-9
    own = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="l1_cd")
    with pytest.warns(ConvergenceWarning, match="l1_cd"):
        own.fit(X, y)
    r = own.result_[0]
    assert r["status"] == _core.SolverStatus.max_iter and "certified_by" not in r
    F = l1_hinge_value(X, y, cost, own.coef_[0], own.intercept_[0])
    assert F == pytest.approx(r["objective"], rel=1e-12)
    assert (F - Fstar) / F > 1e-4


FORCED_STAGE = {"hinge_smoothing": 0.3, "hinge_smoothing_min": 0.3}


def smsvm_finishes(X, y, **params) -> svmkit.LinearSVC:
    clf = svmkit.LinearSVC(loss="hinge", solver_options=FORCED_STAGE, **params)
    fit_finished_by(clf, X, y, "smsvm")
    return clf


def test_elastic_net_is_finished_by_smsvm() -> None:
    """The elastic net's problem is a quadratic program: smsvm finishes it, at its optimum (on
    dense data with n >= 25 d, where solver="auto" picks l1_cd for it)."""
    X, y = make_classification(600, 10, n_informative=4, flip_y=0.1, random_state=0)
    y = np.where(y > 0, 1.0, -1.0)
    clf = smsvm_finishes(X, y, penalty="elasticnet", l1_ratio=0.5)
    assert clf.solver_ == "l1_cd"
    cost = np.ones(X.shape[0])
    Fstar = primal_svm(X, y, cost, loss="hinge", l2=0.5, l1=0.5, reg_b=True)[2]
    assert clf.result_[0]["objective"] == pytest.approx(Fstar, rel=1e-6)


@pytest.mark.parametrize("limit", ["size", "time"])
def test_linear_program_over_its_budget_falls_back_to_smsvm(monkeypatch, limit) -> None:
    """Above MAX_LP_ENTRIES stored entries the program is not built, and a HiGHS run past its
    time limit (_LP_TIME_FACTOR x the continuation's time, at least _LP_MIN_SECONDS) does not
    certify: smsvm finishes instead, at the LP's optimum."""
    from svmkit import _lp, _solvers

    if limit == "size":
        monkeypatch.setattr(_lp, "MAX_LP_ENTRIES", 10)
    else:
        monkeypatch.setattr(_solvers, "_LP_MIN_SECONDS", 1e-9)
        monkeypatch.setattr(_solvers, "_LP_TIME_FACTOR", 0.0)
    X, y = cancer()
    clf = smsvm_finishes(X, y, penalty="l1")
    cost = np.ones(X.shape[0])
    sol = np.r_[clf.coef_.ravel(), clf.intercept_]
    F, Fstar = hinge_objective(X, y, cost, sol), lp_optimum(X, y, cost)
    assert (F - Fstar) / F <= 1e-4


@pytest.mark.parametrize("layout", ["dense", "csr", "csr32"])
@pytest.mark.parametrize(("fit_intercept", "scaling"), [(True, 1.0), (True, 3.0), (False, 1.0)])
def test_linear_program_matches_clarabel(layout, fit_intercept, scaling) -> None:
    """svmkit._lp against clarabel's solution of the primal LP: weighted rows (some without
    weight), the intercept scaled, or none; its certificate bounds the true gap."""
    from svmkit._lp import solve_l1_hinge

    X, y = text(3)
    rng = np.random.default_rng(5)
    cost = rng.uniform(0.2, 3.0, X.shape[0])
    cost[::9] = 0.0
    if layout == "dense":
        Xc = np.ascontiguousarray(X.toarray())
    else:
        data = X.data.astype(np.float32) if layout == "csr32" else X.data
        Xc = (data, X.indices, X.indptr, X.shape[0], X.shape[1])
    res = solve_l1_hinge(Xc, y, cost, fit_intercept, scaling, 1e-6)
    assert res["status"] == _core.SolverStatus.converged, res["message"]
    sol = np.asarray(res["solution"])
    assert len(sol) == X.shape[1] + fit_intercept
    Xd = X.toarray() if layout != "csr32" else X.astype(np.float32).toarray().astype(np.float64)
    w, b = (sol[:-1], sol[-1] * scaling) if fit_intercept else (sol, 0.0)
    F = l1_hinge_value(Xd, y, cost, w, b)
    assert res["objective"] == pytest.approx(F, rel=1e-12)
    Fstar = lp_primal(Xd, y, cost, fit_intercept)[2]
    true_gap = (F - Fstar) / F
    assert -1e-8 <= true_gap <= res["optimality"] + 1e-9
    assert res["optimality"] <= 1e-6


def test_linear_program_time_limit_gives_max_iter() -> None:
    from svmkit._lp import solve_l1_hinge

    X, y = text(0)
    Xc = (X.data, X.indices, X.indptr, X.shape[0], X.shape[1])
    res = solve_l1_hinge(Xc, y, np.ones(X.shape[0]), True, 1.0, 1e-4, time_limit=1e-9)
    assert res["status"] == _core.SolverStatus.max_iter
    assert "Time limit" in res["message"]
    assert not np.isfinite(res["objective"])


def test_sparse_stages_are_repaired_and_certified() -> None:
    """On the first 16000 rows of sparse 20000 x 10000 the sigma = 0.01 stage's band (about
    2700 samples, 435 support features) is repaired through its 436 x 436 Gram system (the dense
    2700 x 436 system it replaced was above its size limit, and the stage's certificate stayed
    at the smoothed point's few %). Each stage's certificate is now below the previous one's,
    the continuation certifies at sigma <= 0.001, and solver="auto" needs no smsvm finisher."""
    X, y = make_sparse_text_like(20000, 10000, density=0.005, label_noise=0.05, random_state=0)
    X, y = sp.csr_matrix(X)[:16000], y[:16000]
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1").fit(X, y)
    res = clf.result_[0]
    assert clf.solver_ == "l1_cd"
    assert "finished_by" not in res
    assert res["status"] == _core.SolverStatus.converged
    assert res["optimality"] <= 1e-4
    history = res["history"]
    gaps, sigmas = np.asarray(history["gap"]), np.asarray(history["smoothing"])
    stage_end_gaps = [gaps[sigmas == s][np.isfinite(gaps[sigmas == s])][-1] for s in (0.1, 0.01)]
    assert stage_end_gaps[1] < 0.5 * stage_end_gaps[0]
    assert sigmas.min() <= 1e-3


def test_every_newton_iteration_shrinks_from_all_coordinates() -> None:
    """newGLMNET's outer shrinking starts from every coordinate at each Newton iteration (as
    LIBLINEAR's -s 6): its gradient reads every column, one pass or more per iteration, and
    the shrunk set is smaller than all columns in between. A set carried across iterations
    kept features of the optimum's support out (on the hinge's stages for thousands of passes,
    on a logistic l1 fit for 18 of 30 iterations). With inner solves capped at 5 passes the
    result still reaches the LP optimum within its certificate."""
    X, y = text(2)
    cost = np.ones(X.shape[0])
    res = core(X, y, cost, max_inner_iter=5)
    history = res["history"]
    passes, active = np.asarray(history["passes"]), np.asarray(history["active_size"])
    assert (np.diff(passes) >= 1).all()
    assert (active < X.shape[1]).sum() >= len(active) // 2  # the set does shrink
    assert res["status"] == _core.SolverStatus.converged, res["message"]
    F = hinge_objective(X, y, cost, np.asarray(res["solution"]))
    true_gap = (F - lp_optimum(X, y, cost)) / F
    assert -1e-8 <= true_gap <= res["optimality"] + 1e-9


def test_certificate_survives_an_overshooting_repair() -> None:
    """Standardized digits, 4 against the rest, elastic net: at sigma = 0.01 the band (47
    samples) is about as large as the support (46 features), and the repair's least-norm change
    overshot (a gap of 2.2 where the smoothed dual point's was 4e-3), which the stall rule read
    as a stall. The certificate now takes the best point between the two; the fit certifies,
    and its gap bounds the true one against clarabel's optimum."""
    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = np.where(y == 4, 1.0, -1.0)
    cost = np.ones(X.shape[0])
    res = _core.fit_l1_cd(X, y, cost, "hinge", 0.5, 0.5, True, 1.0, True, None, {}, None)
    assert res["status"] == _core.SolverStatus.converged, res["message"]
    assert res["optimality"] <= 1e-4
    Fstar = primal_svm(X, y, cost, loss="hinge", l2=0.5, l1=0.5, reg_b=True)[2]
    true_gap = (res["objective"] - Fstar) / res["objective"]
    assert -1e-8 <= true_gap <= res["optimality"] + 1e-9


@pytest.mark.parametrize("seed", [0, 1])
def test_certificate_without_the_band_repair(seed) -> None:
    """certificate_memory_mb = 0 leaves no room for the band repair's k x k system (the path a
    support over the default 8 MiB, k > 1024, takes): each certificate is the smoothed dual
    point's, still a bound on the true gap, which is no evidence of a stall (the stall rule
    compares repaired certificates only); the run then goes on to smaller smoothings than the
    repaired run needs and ends uncertified at max_iter."""
    X, y = text(seed)
    cost = np.ones(X.shape[0])
    Fstar = lp_optimum(X, y, cost)
    repaired = core(X, y, cost)
    assert repaired["status"] == _core.SolverStatus.converged, repaired["message"]
    assert repaired["optimality"] <= 1e-4
    res = core(X, y, cost, certificate_memory_mb=0.0, max_iter=300)
    assert res["status"] == _core.SolverStatus.max_iter
    assert "stalled" not in res["message"]
    assert min(res["history"]["smoothing"]) < min(repaired["history"]["smoothing"])
    F = hinge_objective(X, y, cost, np.asarray(res["solution"]))
    assert res["objective"] == pytest.approx(F, rel=1e-12)
    true_gap = (F - Fstar) / F
    assert -1e-8 <= true_gap <= res["optimality"] + 1e-12
    assert res["optimality"] > 1e-4  # the unrepaired point does not certify tol here


def test_threads_do_not_change_the_result() -> None:
    X, y = text(2)
    one = svmkit.LinearSVC(loss="hinge", penalty="l1", n_jobs=1).fit(X, y)
    two = svmkit.LinearSVC(loss="hinge", penalty="l1", n_jobs=2).fit(X, y)
    assert one.solver_ == two.solver_ == "l1_cd"
    np.testing.assert_array_equal(one.coef_, two.coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)


def test_errors() -> None:
    X, y = text(4)
    Xc = (X.data, X.indices, X.indptr, X.shape[0], X.shape[1])
    c = np.ones(X.shape[0])
    with pytest.raises(ValueError, match="l1 and l2 must be finite, >= 0 and not both zero"):
        _core.fit_l1_cd(Xc, y, c, "hinge", 0.0, 0.0, True, 1.0, True, None, {}, None)
    with pytest.raises(ValueError, match="'hinge_smoothing_min' must be <= hinge_smoothing"):
        core(X, y, c, hinge_smoothing=0.01, hinge_smoothing_min=0.1)
    with pytest.raises(ValueError, match="hinge_smoothing"):
        core(X, y, c, hinge_smoothing=0.0)
    with pytest.raises(ValueError, match="certificate_memory_mb"):
        core(X, y, c, certificate_memory_mb=-1.0)
    with pytest.raises(ValueError, match="handles penalty='l2' only with loss"):
        svmkit.LinearSVC(loss="hinge", penalty="l2", solver="l1_cd").fit(X, y)


def test_pass_budget_ends_the_continuation_uncertified() -> None:
    """hinge_max_passes: the continuation stops at the first record past the budget, with
    status max_iter and a gap that still bounds the true one; solver="auto" sets the budget
    where HiGHS finishes the pure l1 (the user's value stands), and never for a named l1_cd."""
    X, y = text(0)
    cost = np.ones(X.shape[0])
    full = core(X, y, cost)
    assert full["status"] == _core.SolverStatus.converged and full["passes"] > 200
    res = core(X, y, cost, hinge_max_passes=100)
    assert res["status"] == _core.SolverStatus.max_iter
    assert "hinge_max_passes" in res["message"]
    assert 100 <= res["history"]["passes"][-1] < full["passes"]
    F = hinge_objective(X, y, cost, np.asarray(res["solution"]))
    assert -1e-8 <= (F - lp_optimum(X, y, cost)) / F <= res["optimality"] + 1e-12
    # through the estimator: the user's budget stands, and HiGHS finishes at the LP optimum
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1", solver_options={"hinge_max_passes": 100})
    clf.fit(X, y)
    assert clf.result_[0]["finished_by"] == "highs"
    assert "hinge_max_passes" in clf.result_[0]["started_by"]["message"]
    assert clf.result_[0]["optimality"] <= 1e-4


def test_auto_sets_the_pass_budget_only_where_highs_finishes(monkeypatch) -> None:
    from svmkit import _solvers

    seen = []
    fit = _solvers.LINEAR_SOLVERS["l1_cd"].fit

    def spy(req):
        seen.append(req.options.get("hinge_max_passes"))
        return fit(req)

    spec = _solvers.LINEAR_SOLVERS["l1_cd"]
    monkeypatch.setitem(_solvers.LINEAR_SOLVERS, "l1_cd", dataclasses.replace(spec, fit=spy))
    X, y = text(1)
    svmkit.LinearSVC(loss="hinge", penalty="l1").fit(X, y)
    svmkit.LinearSVC(loss="hinge", penalty="l1", solver="l1_cd").fit(X, y)
    Xd, yd = make_classification(600, 10, random_state=0)
    svmkit.LinearSVC(loss="hinge", penalty="elasticnet", l1_ratio=0.5).fit(Xd, yd)
    assert seen == [_solvers._LP_AFTER_PASSES, None, None]
