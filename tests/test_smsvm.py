"""SmSVM (paper 000): correctness against independent references.

References: clarabel solving the hinge-loss QP with slack variables (l2 and l1-l2, bias
regularized or not) and LIBLINEAR's dual coordinate descent through scikit-learn's LinearSVC
(loss="hinge"). Data: scikit-learn's bundled datasets and seeded generators; the shared real
datasets through the `shared_datasets` fixture.
"""

from __future__ import annotations

import lzma
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.svm
import svmkit
from references import (
    low_rank_60x20,
    margin_separable,
    primal_svm,
    scaled_separable,
    sparse_truth,
)
from sklearn.datasets import load_breast_cancer, load_digits, load_svmlight_file, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from svmkit import SolverStatus, _core
from svmkit._paper_data import make_paper_gaussians

# ---------------------------------------------------------------------------------------------
# Independent reference: the primal QP with slacks, solved by clarabel.
#   min l2/2 (||w||^2 + [reg_b] b^2) + l1 ||w||_1 + sum_i c_i xi_i
#   xi_i >= 1 - y_i (x_i.w + b s), xi >= 0, -t <= w <= t (t carries the l1 term)


def qp_objective(X, y, c, l2, l1, reg_b=True, scaling=1.0) -> float:
    return primal_svm(X, y, c, l2=l2, l1=l1, reg_b=reg_b, scaling=scaling)[2]


def fit(X, y, C=1.0, l2=1.0, l1=0.0, reg_b=True, scaling=1.0, w0=None, warm_alpha=0.0, **opt):
    yy = np.asarray(y, dtype=float)
    Xc = X if isinstance(X, tuple) else np.ascontiguousarray(X)
    return _core.fit_smsvm(
        Xc, yy, np.full(len(yy), float(C)), l2, l1, True, scaling, reg_b, w0, warm_alpha, opt, None
    )


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b)


def binary(X, y, positive):
    return StandardScaler().fit_transform(X), np.where(y == positive, 1.0, -1.0)


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return binary(X, y, 1)


@pytest.fixture(scope="module")
def wine01():
    X, y = load_wine(return_X_y=True)
    return binary(X, y, 0)


@pytest.fixture(scope="module")
def digits38():
    X, y = load_digits(return_X_y=True)
    keep = (y == 3) | (y == 8)
    Xs = X[keep] / 16.0
    return np.ascontiguousarray(Xs), np.where(y[keep] == 3, 1.0, -1.0)


# ---------------------------------------------------------------------------------------------
# Objective against clarabel: l2, l1-l2 and l1, bias regularized or not.


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_breast_cancer_matches_qp(cancer, C, rho):
    X, y = cancer
    r = fit(X, y, C, 1 - rho, rho)
    assert r["status"] == SolverStatus.converged
    ref = qp_objective(X, y, np.full(len(y), C), 1 - rho, rho)
    assert rel(r["objective"], ref) < 1e-4


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_pure_l1_matches_qp(cancer, C):
    # lambda = 0 is outside the paper's assumption lambda > 0. The smoothed levels alone ended
    # 4e-8..2.3e-4 above the LP optimum here (the last level's test |d^T g| < eta alpha under
    # the Levenberg-Marquardt shift); the final polish solves the optimality system on the
    # identified sets and ends at the optimum, certified by its duality gap.
    X, y = cancer
    r = fit(X, y, C, 0.0, 1.0)
    ref = qp_objective(X, y, np.full(len(y), C), 0.0, 1.0)
    assert r["status"] == SolverStatus.converged and r["polished"]
    assert rel(r["objective"], ref) < 1e-6
    assert r["optimality"] < 1e-9  # the polished point's duality gap


def test_l1_l2_small_l2_matches_qp():
    # Formerly 3.4e-4 above the QP optimum at the defaults (the last smoothing level ended far
    # from stationarity); the polish reaches it.
    X, y = low_rank_60x20()
    r = fit(X, y, 1.0, 0.05, 1.0)
    assert r["polished"]
    assert rel(r["objective"], qp_objective(X, y, np.ones(len(y)), 0.05, 1.0)) < 1e-6


def kkt_violation(X, y, C, l2, l1, w, b, tol_u=1e-8):
    """The hinge problem's KKT conditions at (w, b), checked by an LP (scipy's HiGHS): the
    smallest t such that some a in [0, 1]^n (a_i = 1 where u_i > tol_u, 0 where u_i < -tol_u,
    u_i = 1 - y_i (x_i.w + b)) gives, with g = sum_i C a_i y_i (x_i, 1),
    |l2 w_j + l1 sign(w_j) - g_j| <= t where w_j != 0, |g_j| <= l1 + t where w_j = 0 and
    |l2 b - g_b| <= t. t = 0 at the optimum."""
    from scipy.optimize import linprog

    n, m = X.shape
    u = 1.0 - y * (X @ w + b)
    free = np.flatnonzero(np.abs(u) <= tol_u)
    Xt = np.hstack([X, np.ones((n, 1))])
    base = C * (Xt.T @ ((u > tol_u) * y))
    G = C * (Xt[free] * y[free, None]).T
    target = np.append(l2 * w + l1 * np.sign(w), l2 * b)
    nonzero = np.append(w != 0, True)
    rows, rhs = [], []
    for j in range(m + 1):
        hi, lo = (target[j], target[j]) if nonzero[j] else (l1, -l1)
        rows += [np.append(G[j], -1.0), np.append(-G[j], -1.0)]
        rhs += [hi - base[j], base[j] - lo]
    cost = np.zeros(len(free) + 1)
    cost[-1] = 1.0
    bounds = [(0.0, 1.0)] * len(free) + [(0.0, None)]
    res = linprog(cost, A_ub=np.array(rows), b_ub=np.array(rhs), bounds=bounds, method="highs")
    assert res.status == 0
    return res.x[-1]


@pytest.mark.parametrize("case", ["pure_l1", "l1_l2"])
def test_returned_point_satisfies_kkt_sign_conditions(case):
    # A zero coordinate must have |g_j| <= l1 and a nonzero one g_j = l2 w_j + l1 sign(w_j)
    # for one choice of the margin samples' multipliers. Before the polish the returned
    # points violated this by t = 1.0 (pure l1) and 3.1 (l1-l2, with l1 = 1): coordinates at
    # zero kept out of (or in) the active set with a gradient past the l1 weight, margins only
    # O(alpha) from the hinge's kink.
    if case == "pure_l1":
        X, y = sparse_truth(40, 100, 2)
        l2 = 0.0
    else:
        X, y = low_rank_60x20()
        l2 = 0.05
    r = fit(X, y, 1.0, l2, 1.0)
    w, b = r["solution"][:-1], r["solution"][-1]
    assert 0 < np.count_nonzero(w) < len(w)
    assert kkt_violation(X, y, 1.0, l2, 1.0, w, b) <= 1e-9


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("n, m, C", [(40, 100, 1.0), (100, 200, 10.0), (200, 50, 1.0)])
def test_pure_l1_many_zeros_matches_lp(seed, n, m, C):
    # Pure l1 on wide data: H_AA = X_A^T Dv X_A is singular once |A| > n. With the former
    # relative ridge (1e-12) the steps were ~1e10 long, every line search failed and the
    # solver returned w = 0 as converged, 10 to 200 times above the LP optimum.
    X, y = sparse_truth(n, m, seed)
    r = fit(X, y, C, 0.0, 1.0)
    ref = qp_objective(X, y, np.full(n, C), 0.0, 1.0)
    assert r["status"] == SolverStatus.converged and r["polished"]
    assert rel(r["objective"], ref) < 1e-6
    w = r["solution"][:m]
    assert 0 < np.count_nonzero(w) <= min(n, m) // 2 + 20  # the l1 solution is sparse
    # The reported optimality is the duality gap (a certificate), never below the true error.
    assert r["optimality"] >= (r["objective"] - ref) / r["objective"] - 1e-9


def test_l1_l2_exact_zeros_match_qp(cancer):
    # A coordinate at zero with |g^_j| <= mu is optimal at zero and leaves the active set
    # (prune_zero_coordinates); the l1-l2 fit reaches the QP optimum with exact zeros.
    X, y = cancer
    r = fit(X, y, 0.1, 0.2, 0.8)
    ref = qp_objective(X, y, np.full(len(y), 0.1), 0.2, 0.8)
    assert rel(r["objective"], ref) < 1e-4
    assert np.count_nonzero(r["solution"][:-1]) < X.shape[1]


def test_huge_values_give_numerical_error(cancer):
    # X * 1e300: the Newton block overflows. The solver used to treat the NaN direction as
    # "level solved" and return w = 0 as converged; it must report numerical_error.
    X, y = cancer
    r = fit(X * 1e300, y)
    assert r["status"] == SolverStatus.numerical_error
    with pytest.raises(FloatingPointError, match=r"\(smsvm\): numerical error"):
        svmkit.LinearSVC(loss="hinge", solver="smsvm").fit(X * 1e300, y)


@pytest.mark.parametrize("rho", [0.0, 0.7])
def test_unregularized_bias_matches_qp(wine01, rho):
    # eta = 0.01: with the paper's eta = 0.1 this nearly separable l1-l2 case stops 2.7e-4
    # above the optimum (the Newton decrement at alpha_min = 1e-6 is a loose measure there).
    X, y = wine01
    r = fit(X, y, 0.5, 1 - rho, rho, reg_b=False, scaling=2.0, eta=0.01)
    ref = qp_objective(X, y, np.full(len(y), 0.5), 1 - rho, rho, reg_b=False, scaling=2.0)
    assert rel(r["objective"], ref) < 1e-4


def test_digits_sparse_and_dense_agree_with_qp(digits38):
    X, y = digits38
    ref = qp_objective(X, y, np.ones(len(y)), 0.5, 0.5)
    dense = fit(X, y, 1.0, 0.5, 0.5)
    Xs = sp.csr_matrix(X)
    csr = (Xs.data, Xs.indices, Xs.indptr, Xs.shape[0], Xs.shape[1])
    sparse = fit(csr, y, 1.0, 0.5, 0.5)
    assert rel(dense["objective"], ref) < 1e-4
    assert rel(sparse["objective"], ref) < 1e-4


def test_l1_gives_exact_zeros(cancer):
    X, y = cancer
    r = fit(X, y, 0.1, 0.5, 0.5)
    w = r["solution"][:-1]
    assert 0 < np.count_nonzero(w) < w.size
    assert np.all((w == 0.0) | (np.abs(w) > 1e-12))  # zeros are exact, not tiny


def test_sample_costs_are_honoured(cancer):
    X, y = cancer
    c = np.where(y > 0, 2.0, 0.5)
    Xc = np.ascontiguousarray(X)
    r = _core.fit_smsvm(Xc, y, c, 1.0, 0.0, True, 1.0, True, None, 0.0, {}, None)
    assert rel(r["objective"], qp_objective(X, y, c, 1.0, 0.0)) < 1e-4


# ---------------------------------------------------------------------------------------------
# The paper's synthetic tall and wide data (section 4.1.4), seeded.


@pytest.fixture(scope="module")
def tall():
    return make_paper_gaussians(4000, 50, random_state=3)


@pytest.fixture(scope="module")
def wide():
    return make_paper_gaussians(100, 2500, random_state=4)


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_synthetic_tall_matches_qp(tall, rho):
    X, y = tall
    r = fit(X, y, 1.0, 1 - rho, rho)
    assert rel(r["objective"], qp_objective(X, y, np.ones(len(y)), 1 - rho, rho)) < 1e-4


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_synthetic_wide_matches_qp(wide, rho):
    # The smoothing bias of the final level is at most C N alpha_min / 2 in F; with N = 100
    # and a small optimum the paper's alpha_min = 1e-6 is not enough for 1e-4 relative.
    X, y = wide
    r = fit(X, y, 1.0, 1 - rho, rho, alpha_min=1e-9 if rho == 0.0 else 1e-6)
    assert r["woodbury_solves"] > 0  # the active block exceeded N at some point
    assert rel(r["objective"], qp_objective(X, y, np.ones(len(y)), 1 - rho, rho)) < 1e-4


def test_woodbury_and_dense_solves_agree():
    X, y = make_paper_gaussians(80, 500, random_state=6)
    a = fit(X, y, 1.0, 1.0, 0.0, alpha_min=1e-4)
    b = fit(X, y, 1.0, 1.0, 0.0, alpha_min=1e-4, woodbury_max_samples=0)
    assert a["woodbury_solves"] > 0 and b["woodbury_solves"] == 0
    assert rel(a["objective"], b["objective"]) < 1e-6


def test_midgame_levels_take_one_newton_step():
    # Paper 000, section 3.3.7: with 1 >> alpha >> 1/N one Newton step per alpha level.
    X, y = make_paper_gaussians(50000, 20, random_state=5)
    r = fit(X, y, 1.0, 1.0, 0.0, alpha_min=1e-3)
    h = r["history"]
    levels = np.unique(h["smoothing"])
    mid = [a for a in levels if 1e-3 <= a <= 0.1]
    steps = [int(np.sum(h["smoothing"] == a)) for a in mid]
    assert steps and np.median(steps) <= 1, steps
    # Passes are counted and grow with the history.
    assert np.all(np.diff(h["passes"]) > 0)
    assert r["passes"] <= 3 * r["iterations"] + 6


# ---------------------------------------------------------------------------------------------
# LIBLINEAR (dual coordinate descent) through scikit-learn, l2.


@pytest.mark.parametrize("C", [0.05, 1.0])
def test_matches_liblinear_l2(cancer, C):
    X, y = cancer
    ll = sklearn.svm.LinearSVC(loss="hinge", dual=True, C=C, tol=1e-10, max_iter=200000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ll.fit(X, y)
    w, b = ll.coef_.ravel(), ll.intercept_[0]
    f_ll = 0.5 * (w @ w + b * b) + C * np.maximum(0, 1 - y * (X @ w + b)).sum()
    ours = svmkit.LinearSVC(loss="hinge", solver="smsvm", C=C).fit(X, y)
    assert ours.solver_ == "smsvm"
    assert rel(ours.result_[0]["objective"], f_ll) < 1e-4
    wo, bo = ours.coef_.ravel(), ours.intercept_[0]
    f_ours = 0.5 * (wo @ wo + bo * bo) + C * np.maximum(0, 1 - y * (X @ wo + bo)).sum()
    assert rel(f_ours, f_ll) < 1e-4
    assert np.mean(ours.predict(X) == ll.predict(X)) > 0.99


# ---------------------------------------------------------------------------------------------
# The estimator and the path helper.


def test_linearsvc_penalties_map_to_paper_lambda_mu(cancer):
    # penalty="elasticnet": F = (1-rho)/2 ||w||^2 + rho ||w||_1 + C sum hinge, i.e. the paper's
    # lambda = (1-rho)/(C N), mu = rho/(C N). Check through the paper's form in smsvm_path.
    X, y = cancer
    n = len(y)
    C, rho = 0.3, 0.4
    # tol = 0 runs both to the same last level, so the two scalings must agree closely.
    exact = {"tol": 0.0}
    est = svmkit.LinearSVC(
        loss="hinge", penalty="elasticnet", l1_ratio=rho, C=C, solver="smsvm", solver_options=exact
    ).fit(X, y)
    p = svmkit.smsvm_path(
        X, y, lambdas=[(1 - rho) / (C * n)], mus=[rho / (C * n)], solver_options=exact
    )
    assert rel(p["objectives"][0] * C * n, est.result_[0]["objective"]) < 1e-6
    ref = qp_objective(X, y, np.full(n, C), 1 - rho, rho)
    assert rel(est.result_[0]["objective"], ref) < 1e-4
    # lambda = 0 (pure l1) is outside the paper's lambda > 0: a tighter level test is needed.
    l1 = svmkit.LinearSVC(
        loss="hinge", solver="smsvm", penalty="l1", C=C, solver_options={"eta": 0.01}
    ).fit(X, y)
    assert rel(l1.result_[0]["objective"], qp_objective(X, y, np.full(n, C), 0.0, 1.0)) < 1e-4


def test_linearsvc_multiclass_sparse_float32(wine01):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    a = svmkit.LinearSVC(loss="hinge", solver="smsvm", C=0.5).fit(X, y)
    b = svmkit.LinearSVC(loss="hinge", solver="smsvm", C=0.5).fit(sp.csr_matrix(X), y)
    c = svmkit.LinearSVC(loss="hinge", solver="smsvm", C=0.5).fit(X.astype(np.float32), y)
    assert a.coef_.shape == (3, 13)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(a.coef_, c.coef_, rtol=1e-3, atol=1e-4)
    assert a.score(X, y) > 0.95


def test_deterministic_for_fixed_threads(tall):
    X, y = tall
    r1 = fit(X, y, 1.0, 0.5, 0.5, n_threads=2)
    r2 = fit(X, y, 1.0, 0.5, 0.5, n_threads=2)
    assert np.array_equal(r1["solution"], r2["solution"])


def test_path_warm_start_matches_cold_and_saves_passes(cancer):
    X, y = cancer
    Cs = np.logspace(-2, 1, 6)
    warm = svmkit.smsvm_path(X, y, Cs, penalty="elasticnet", l1_ratio=0.5)
    cold = svmkit.smsvm_path(X, y, Cs, penalty="elasticnet", l1_ratio=0.5, warm_start=False)
    refs = [qp_objective(X, y, np.full(len(y), C), 0.5, 0.5) for C in Cs]
    for fw, fc, ref in zip(warm["objectives"], cold["objectives"], refs):
        assert rel(fw, ref) < 1e-4 and rel(fc, ref) < 1e-4
    assert warm["passes"].sum() < cold["passes"].sum()
    assert warm["coefs"].shape == (6, X.shape[1])


def test_linearsvc_warm_start(cancer):
    X, y = cancer
    est = svmkit.LinearSVC(loss="hinge", solver="smsvm", C=1.0, warm_start=True).fit(X, y)
    f1 = est.result_[0]["objective"]
    est.set_params(C=2.0).fit(X, y)
    ref = qp_objective(X, y, np.full(len(y), 2.0), 1.0, 0.0)
    assert rel(est.result_[0]["objective"], ref) < 1e-4 and f1 < ref


def test_callback_stops_and_max_iter_warns(cancer):
    X, y = cancer
    seen = []

    def cb(rec):
        seen.append(rec["smoothing"])
        return len(seen) < 3

    est = svmkit.LinearSVC(loss="hinge", solver="smsvm", callback=cb)
    with pytest.warns(ConvergenceWarning, match="stopped by the callback"):
        est.fit(X, y)
    assert len(seen) == 3 and est.result_[0]["status"] == SolverStatus.interrupted
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        svmkit.LinearSVC(loss="hinge", solver="smsvm", max_iter=2).fit(X, y)


def test_defaults_come_from_cpp():
    d = svmkit.solver_defaults("smsvm")
    assert d["beta"] == 0.1 and d["eta"] == 0.1 and d["alpha_min"] == 1e-6 and d["alpha0"] == 1.0
    assert d["tol"] == 1e-4 and d["alpha_floor"] == 1e-12


# ---------------------------------------------------------------------------------------------
# The stopping rule (relative suboptimality bound) and the large-block paths.


@pytest.mark.parametrize("case", ["cancer", "cancer_unreg_bias", "tall", "wide", "digits_csr"])
def test_default_stop_bound_holds_against_qp(case, cancer, tall, wide, digits38):
    # Default tol = 1e-4: the run stops when its bound on (F - F*) / F is <= tol; the bound must
    # not undercut the true relative error measured against clarabel.
    reg_b, scaling = True, 1.0
    X, y = {"cancer": cancer, "cancer_unreg_bias": cancer, "tall": tall, "wide": wide}.get(
        case, digits38
    )
    if case == "cancer_unreg_bias":
        reg_b, scaling = False, 2.0
    Xc = X
    if case == "digits_csr":
        Xs = sp.csr_matrix(X)
        Xc = (Xs.data, Xs.indices, Xs.indptr, Xs.shape[0], Xs.shape[1])
    r = fit(Xc, y, 1.0, 1.0, 0.0, reg_b=reg_b, scaling=scaling)
    ref = qp_objective(X, y, np.ones(len(y)), 1.0, 0.0, reg_b=reg_b, scaling=scaling)
    assert r["status"] == SolverStatus.converged
    err = (r["objective"] - ref) / r["objective"]
    assert err <= r["optimality"] + 1e-9 and r["optimality"] <= 1e-4
    # tol = 0 is the paper's rule: every level down to alpha_min is solved.
    r0 = fit(Xc, y, 1.0, 1.0, 0.0, reg_b=reg_b, scaling=scaling, tol=0.0, alpha_min=1e-9)
    assert r0["final_alpha"] == pytest.approx(1e-9) and rel(r0["objective"], ref) < 1e-4


def test_duality_gap_certifies_suboptimality(cancer):
    # The hinge duality gap alone (evaluated every pass) is a certificate: stopping on it
    # with a loose tol must leave the true relative error below tol.
    X, y = cancer
    ref = qp_objective(X, y, np.ones(len(y)), 1.0, 0.0)
    for reg_b in (True, False):
        ref = qp_objective(X, y, np.ones(len(y)), 1.0, 0.0, reg_b=reg_b)
        r = fit(X, y, 1.0, 1.0, 0.0, reg_b=reg_b, tol=0.3)
        gap = r["history"]["gap"]
        assert np.all(gap[np.isfinite(gap)] >= 0)
        assert (r["objective"] - ref) / r["objective"] <= r["optimality"] <= 0.3


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_cg_newton_solve_matches_qp(digits38, rho):
    # Active blocks above max_dense_block (and no Woodbury) are solved by CG, never formed.
    X, y = digits38
    r = fit(X, y, 0.5, 1 - rho, rho, max_dense_block=8, woodbury_max_samples=0, max_iter=5000)
    assert r["cg_iterations"] > 0 and r["woodbury_solves"] == 0
    ref = qp_objective(X, y, np.full(len(y), 0.5), 1 - rho, rho)
    assert rel(r["objective"], ref) < 1e-4


def _liblinear_hinge_objective(X, y, C):
    # LIBLINEAR -s 3 (l2-regularized hinge, dual CD) at eps 1e-8 with a regularized bias
    # (-B 1): the same problem as fit(..., reg_b=True, scaling=1). Objective from its w.
    from liblinear import liblinearutil

    Xc = sp.csr_matrix(X)
    model = liblinearutil.train(y.tolist(), Xc, f"-s 3 -c {C} -e 1e-8 -B 1 -q")
    wb = np.asarray(model.get_decfun()[0], dtype=float)
    b = model.get_decfun()[1]
    if model.get_labels()[0] != 1:
        wb, b = -wb, -b
    z = Xc @ wb + b
    return 0.5 * (wb @ wb + b * b) + C * np.maximum(0.0, 1.0 - y * z).sum()


@pytest.fixture(scope="module")
def sparse_wide():
    X, y = svmkit.datasets.make_sparse_text_like(300, 20000, density=60 / 20000, random_state=2)
    return X, y.astype(float)


def _csr(X):
    return (X.data, X.indices, X.indptr, X.shape[0], X.shape[1])


def test_sparse_wide_matches_liblinear(sparse_wide):
    # 300 x 20,000 sparse text-like: the matrix-free Newton solve (sparse Hessian products,
    # sample-space preconditioner built from sparse rows), never a dense N x k copy.
    X, y = sparse_wide
    r = fit(_csr(X), y, 1.0, 1.0, 0.0)
    assert r["status"].name == "converged"
    assert r["cg_iterations"] > 0 and r["woodbury_solves"] > 0
    assert rel(r["objective"], _liblinear_hinge_objective(X, y, 1.0)) < 1e-4


@pytest.mark.parametrize("budget", [0.0, 1e-3])
def test_sparse_wide_within_tiny_memory_budget(sparse_wide, budget):
    # No room for any dense Newton matrix (0: Jacobi CG only; 1e-3 MiB: a Woodbury set of at
    # most 11 samples): still the optimum.
    X, y = sparse_wide
    r = fit(_csr(X), y, 1.0, 1.0, 0.0, newton_memory_mb=budget)
    assert r["status"].name == "converged" and r["cg_iterations"] > 0
    if budget == 0.0:
        assert r["woodbury_solves"] == 0
    assert rel(r["objective"], _liblinear_hinge_objective(X, y, 1.0)) < 1e-4


@pytest.mark.parametrize("rho", [0.0, 0.5])
def test_dense_block_over_budget_takes_matrix_free_path(cancer, rho):
    # The 31 x 31 block would fit max_dense_block but not a 1 KiB budget: the Newton systems
    # go to preconditioned CG, with the same optimum as the QP.
    X, y = cancer
    r = fit(X, y, 1.0, 1 - rho, rho, newton_memory_mb=1.0 / 1024, max_iter=5000)
    assert r["cg_iterations"] > 0
    assert rel(r["objective"], qp_objective(X, y, np.ones(len(y)), 1 - rho, rho)) < 1e-4


def test_wide_dense_within_tiny_budget_matches_qp(wide):
    X, y = wide
    r = fit(X, y, 1.0, 1.0, 0.0, alpha_min=1e-9, newton_memory_mb=0.0)
    assert r["cg_iterations"] > 0 and r["woodbury_solves"] == 0
    assert rel(r["objective"], qp_objective(X, y, np.ones(len(y)), 1.0, 0.0)) < 1e-4


def test_non_finite_data_gives_numerical_error(cancer):
    X, y = cancer
    Xb = np.array(X[:60], copy=True)
    Xb[3, 2] = np.inf
    r = fit(Xb, y[:60], check_input=False)
    assert r["status"].name == "numerical_error"


def test_projected_backtracking_matches_qp(cancer):
    X, y = cancer
    r = fit(X, y, 1.0, 0.5, 0.5, projected_halvings=4)
    assert rel(r["objective"], qp_objective(X, y, np.ones(len(y)), 0.5, 0.5)) < 1e-4


# ---------------------------------------------------------------------------------------------
# Errors.


@pytest.mark.parametrize(
    "opt, match",
    [
        ({"beta": 1.5}, "beta"),
        ({"eta": 0.0}, "eta"),
        ({"alpha_min": -1.0}, "alpha_min"),
        ({"alpha_min": 2.0}, "alpha_min"),
        ({"c1": 1.0}, "c1"),
        ({"max_iter": -1}, "max_iter"),
        ({"block_rows": 0}, "block_rows"),
        ({"newton_ridge": -1.0}, "newton_ridge"),
        ({"woodbury_max_samples": -2}, "woodbury_max_samples"),
        ({"s_min": 0.0}, "s_min"),
        ({"tol": -1.0}, "tol"),
        ({"alpha_floor": 0.0}, "alpha_floor"),
        ({"alpha_floor": 1e-3}, "alpha_floor"),
        ({"max_dense_block": -1}, "max_dense_block"),
        ({"newton_memory_mb": -1.0}, "newton_memory_mb' must be >= 0 and finite"),
        ({"newton_memory_mb": np.inf}, "newton_memory_mb"),
        ({"newton_memory_mb": np.nan}, "newton_memory_mb"),
        ({"cg_tol": 0.0}, "cg_tol"),
        ({"cg_tol": 1.0}, "cg_tol"),
        ({"cg_max_iter": -1}, "cg_max_iter"),
        ({"projected_halvings": -1}, "projected_halvings"),
        ({"alpha0": 0.0}, "alpha0"),
        ({"s_max": np.inf}, "s_max"),
        ({"final_level_adjustments": -1}, "final_level_adjustments"),
        ({"polish_rounds": -1}, "smsvm option 'polish_rounds' must be >= 0"),
        ({"no_such_option": 1}, "unknown smsvm option"),
        ({"beta": "x"}, "wrong type"),
    ],
)
def test_bad_options(cancer, opt, match):
    X, y = cancer
    with pytest.raises(ValueError, match=match):
        fit(X[:50], y[:50], **opt)


def test_bad_problem_inputs(cancer):
    X, y = cancer
    Xc = np.ascontiguousarray(X[:40])
    yy = y[:40]
    one = np.ones(40)
    with pytest.raises(ValueError, match="at least one of the l2 and l1"):
        _core.fit_smsvm(Xc, yy, one, 0.0, 0.0, True, 1.0, True, None, 0.0, {}, None)
    with pytest.raises(ValueError, match="l1 weight"):
        _core.fit_smsvm(Xc, yy, one, 1.0, -1.0, True, 1.0, True, None, 0.0, {}, None)
    with pytest.raises(ValueError, match="l2 weight"):
        _core.fit_smsvm(Xc, yy, one, np.nan, 0.0, True, 1.0, True, None, 0.0, {}, None)
    with pytest.raises(ValueError, match="sum to zero"):
        _core.fit_smsvm(Xc, yy, np.zeros(40), 1.0, 0.0, True, 1.0, True, None, 0.0, {}, None)
    with pytest.raises(ValueError, match="warm-start alpha"):
        _core.fit_smsvm(Xc, yy, one, 1.0, 0.0, True, 1.0, True, None, -1.0, {}, None)
    with pytest.raises(ValueError, match="initial solution"):
        w0 = np.full(X.shape[1] + 1, np.nan)
        _core.fit_smsvm(Xc, yy, one, 1.0, 0.0, True, 1.0, True, w0, 0.0, {}, None)
    with pytest.raises(ValueError, match="-1 or \\+1"):
        _core.fit_smsvm(Xc, yy * 2, one, 1.0, 0.0, True, 1.0, True, None, 0.0, {}, None)


def test_path_errors(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="either Cs or lambdas"):
        svmkit.smsvm_path(X, y, [1.0], lambdas=[1.0], mus=[0.0])
    with pytest.raises(ValueError, match="give Cs, or both"):
        svmkit.smsvm_path(X, y, lambdas=[1.0])
    with pytest.raises(ValueError, match="equal length"):
        svmkit.smsvm_path(X, y, lambdas=[1.0, 2.0], mus=[0.0])
    with pytest.raises(ValueError, match="lambda \\+ mu > 0"):
        svmkit.smsvm_path(X, y, lambdas=[0.0], mus=[0.0])
    with pytest.raises(ValueError, match="positive numbers"):
        svmkit.smsvm_path(X, y, [0.0])
    with pytest.raises(ValueError, match="unknown penalty"):
        svmkit.smsvm_path(X, y, [1.0], penalty="l3")
    with pytest.raises(ValueError, match="exactly two classes"):
        svmkit.smsvm_path(X, np.arange(len(y)) % 3, [1.0])
    with pytest.raises(ValueError, match="warm_alpha"):
        svmkit.smsvm_path(X, y, [1.0], warm_alpha=-1.0)
    with pytest.raises(ValueError, match="intercept_scaling"):
        svmkit.smsvm_path(X, y, [1.0], intercept_scaling=0.0)
    with pytest.raises(ValueError, match="l1_ratio"):
        svmkit.smsvm_path(X, y, [1.0], penalty="elasticnet", l1_ratio=2.0)
    with pytest.raises(ValueError, match="finite"):
        svmkit.smsvm_path(X, y, lambdas=[np.nan], mus=[0.0])


def test_paper_data_generator():
    X, y = make_paper_gaussians(11, 3, random_state=1)
    X2, y2 = make_paper_gaussians(11, 3, random_state=1)
    assert X.shape == (11, 3) and np.array_equal(X, X2) and np.array_equal(y, y2)
    assert set(np.unique(y)) == {-1.0, 1.0} and abs(np.sum(y)) <= 1
    with pytest.raises(ValueError, match="n_samples >= 2"):
        make_paper_gaussians(1, 3)
    with pytest.raises(ValueError, match="centroid_scale"):
        make_paper_gaussians(10, 3, centroid_scale=0.0)


# ---------------------------------------------------------------------------------------------
# Shared real datasets (skipped with a stated reason where ../shared/datasets is absent).


def _load(path: Path, n_features: int | None = None):
    if path.suffix == ".xz":
        with lzma.open(path, "rb") as fh:
            return load_svmlight_file(fh, n_features=n_features)
    return load_svmlight_file(str(path), n_features=n_features)


@pytest.mark.parametrize(
    "name, positive, rho",
    [
        ("australian/australian", 1, 0.0),
        ("australian/australian", 1, 0.5),
        ("covtype/covtype.5000.train", 1, 0.5),
        ("madelon/madelon.t.xz", 1, 0.0),
        ("dna/dna.scale", 3, 0.0),
        ("dna/dna.scale", 3, 0.5),
    ],
)
def test_shared_datasets_match_qp(shared_datasets, name, positive, rho):
    X, y = _load(shared_datasets / name)
    X = StandardScaler().fit_transform(X.toarray())
    y = np.where(y == positive, 1.0, -1.0)
    C = 1.0 / len(y) * 100  # a moderate C in the paper's lambda = 1/(C N) = 0.01
    r = fit(X, y, C, 1 - rho, rho)  # defaults: tol 1e-4, alpha_min 1e-6
    assert r["status"] == SolverStatus.converged
    ref = qp_objective(X, y, np.full(len(y), C), 1 - rho, rho)
    assert rel(r["objective"], ref) < 1e-4
    if rho == 0.0:
        ll = sklearn.svm.LinearSVC(loss="hinge", dual=True, C=C, tol=1e-10, max_iter=100000)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            ll.fit(X, y)
        w, b = ll.coef_.ravel(), ll.intercept_[0]
        f_ll = 0.5 * (w @ w + b * b) + C * np.maximum(0, 1 - y * (X @ w + b)).sum()
        assert r["objective"] <= f_ll * (1 + 1e-4)


@pytest.mark.parametrize("l2, l1", [(0.0, 1.0), (0.5, 0.5)])
def test_warm_alpha_below_the_last_level_still_solves_it(cancer, l2, l1):
    """A warm start at an alpha below alpha_min starts at alpha_min: the run once ended at once,
    reported converged at the (non-optimal) warm start, where the paper's rule asks for the level
    alpha_min to be solved. The warm start here is the optimum at another C."""
    X, y = cancer
    start = np.asarray(fit(X, y, 0.1, l2, l1)["solution"])
    r = fit(X, y, 1.0, l2, l1, w0=start, warm_alpha=1e-8)
    ref = qp_objective(X, y, np.full(len(y), 1.0), l2, l1)
    assert r["status"] == SolverStatus.converged
    assert r["iterations"] > 0
    assert rel(r["objective"], ref) < 1e-6
    # the same through the path helper, whose warm_alpha is public
    penalty = {"penalty": "l1"} if l2 == 0.0 else {"penalty": "elasticnet", "l1_ratio": l1}
    path = svmkit.smsvm_path(X, y, [0.1, 1.0], warm_alpha=1e-8, **penalty)
    assert rel(path["objectives"][1], ref) < 1e-4


@pytest.mark.parametrize("standardize", [False, True], ids=["raw", "standardized"])
def test_l2_run_ends_with_the_polish_at_the_defaults(standardize):
    """penalty="l2" runs stop on an estimate of the suboptimality (not a bound); where the
    smoothed solution identifies the margin set, the final polish replaces that point by the
    exact optimum with a certified gap. On breast_cancer the estimate's point was 1e-6 - 1e-5
    above clarabel's optimum and not polished."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler

    X, y = load_breast_cancer(return_X_y=True)
    if standardize:
        X = StandardScaler().fit_transform(X)
    est = svmkit.LinearSVC(loss="hinge", solver="smsvm").fit(X, y)
    r = est.result_[0]
    assert r["polished"]
    assert r["optimality"] <= 1e-9  # the polished point's duality gap
    yy = np.where(y == est.classes_[1], 1.0, -1.0)
    _, _, best = primal_svm(X, yy, 1.0)
    assert abs(r["objective"] - best) <= 1e-7 * abs(best)


def test_converged_means_a_certified_gap_within_tol():
    """Status converged stands for a bound <= tol. Here the last level ended (the paper's rule)
    at a point 1e-7 from the optimum whose smoothed dual point certified only 1.8e-2; the run
    reported converged with that gap before the band-repaired certificate (Smsvm::certify)."""
    X, y = scaled_separable(3000)
    C, l1, l2 = 10.0, 0.5, 0.5
    r = fit(X, y, C=C, l2=l2, l1=l1)
    assert r["status"] == SolverStatus.converged
    assert r["optimality"] <= 1e-4
    Fstar = qp_objective(X, y, np.full(len(y), C), l2, l1)
    assert -1e-7 <= (r["objective"] - Fstar) / r["objective"] <= r["optimality"] + 1e-9


def test_an_uncertified_last_level_is_not_converged():
    """Without the band repair (certificate_memory_mb=0) the same run ends uncertified: status
    max_iter, a message naming the smoothing's last level, and LinearSVC's ConvergenceWarning
    carries it."""
    X, y = scaled_separable(3000)
    r = fit(X, y, C=10.0, l2=0.5, l1=0.5, certificate_memory_mb=0.0)
    assert r["status"] == SolverStatus.max_iter
    assert r["optimality"] > 1e-4
    assert "smoothing reached its last level" in r["message"]
    clf = svmkit.LinearSVC(
        loss="hinge",
        penalty="elasticnet",
        C=10.0,
        solver="smsvm",
        solver_options={"certificate_memory_mb": 0.0},
    )
    with pytest.warns(ConvergenceWarning, match=r"LinearSVC \(smsvm\).*smoothing reached its last"):
        clf.fit(X, y)


def test_elastic_net_finish_after_l1_cd_on_badly_scaled_data_is_exact(monkeypatch):
    """LinearSVC's default for the hinge elastic net where l1_cd ends uncertified (near-separable,
    features on scales 1 to 1000, C = 1): smsvm finishes from its point, and its polish rounds,
    which may meet margin sets far larger than the unknowns (kPolishMarginPerUnknown: those end
    the polish, not the fit), still reach clarabel's optimum, certified. (With more than
    IPM_MAX_FEATURES features the default is this chain; the threshold is 0 here to run it on
    20 features.)"""
    from svmkit import _solvers

    monkeypatch.setattr(_solvers, "IPM_MAX_FEATURES", 0)
    X, y = margin_separable(6000)
    clf = svmkit.LinearSVC(loss="hinge", penalty="elasticnet", C=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(X, y)
    r = clf.result_[0]
    assert r["finished_by"] == "smsvm" and r["status"] == SolverStatus.converged
    assert r["optimality"] <= 1e-4
    yy = np.where(y == clf.classes_[1], 1.0, -1.0)
    Fstar = qp_objective(X, yy, np.ones(len(y)), 0.5, 0.5)
    assert -1e-7 <= (r["objective"] - Fstar) / Fstar <= r["optimality"] + 1e-9


@pytest.mark.parametrize("penalty", ["l1", "elasticnet", "l2"])
@pytest.mark.parametrize("C", [1.0, 100.0])
def test_status_converged_implies_bound_within_tol(penalty, C):
    """The status contract on badly scaled and standardized data: converged only with
    optimality <= tol, and then the objective is within tol of clarabel's optimum."""
    for X, y in (scaled_separable(1000), load_breast_cancer(return_X_y=True)):
        y = np.where(y > 0, 1.0, -1.0)
        X = X if X.shape[0] == 1000 else StandardScaler().fit_transform(X)
        l1, l2 = {"l1": (1.0, 0.0), "elasticnet": (0.5, 0.5), "l2": (0.0, 1.0)}[penalty]
        r = fit(X, y, C=C, l2=l2, l1=l1)
        if r["status"] != SolverStatus.converged:  # (pure l1 on breast_cancer at C = 100)
            assert r["status"] == SolverStatus.max_iter and r["optimality"] > 1e-4
            continue
        assert r["optimality"] <= 1e-4
        Fstar = qp_objective(X, y, np.full(len(y), C), l2, l1, reg_b=l2 > 0.0)
        assert (r["objective"] - Fstar) / r["objective"] <= 1e-4
