"""homotopy: paper 004's homotopic subgradient method (Algorithm 1) to the hard-margin SVM.

References: the hard-margin and soft-margin QPs solved by clarabel (tests/references.py).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import svmkit
from references import hard_margin, hinge_primal, svm_dual
from sklearn.datasets import load_iris, load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from svmkit import LinearSVC, SolverStatus, _core

# Paper 004 section 5: support vectors +-(0.5, 1.5), +-(1.5, 0.5), w* = (0.5, 0.5). The other
# points (our choice) lie strictly outside the margin (x1 + x2 > 2), so they are not support
# vectors and w* is unchanged (checked against clarabel below).
TOY_POS = np.array(
    [[0.5, 1.5], [1.5, 0.5], [2.0, 2.0], [1.0, 2.5], [2.5, 1.0], [3.0, 3.0], [1.2, 1.6]]
)
TOY_X = np.vstack([TOY_POS, -TOY_POS])
TOY_Y = np.r_[np.ones(7), -np.ones(7)]
W_STAR = np.array([0.5, 0.5])
# Algorithm 1 verbatim (the paper's mean loss and the box's step constant); svmkit's defaults
# measure lambda against the summed losses and scale the step (solvers/homotopy.hpp).
PAPER = {"lambda_scale": 1.0, "step_scale": 1.0}


def run(X, y, fit_intercept=False, regularize_intercept=False, **opts):
    opts.setdefault("n_threads", 1)
    return _core.fit_homotopy(
        np.ascontiguousarray(X, dtype=float),
        y,
        np.ones(len(y)),
        fit_intercept,
        1.0,
        regularize_intercept,
        opts,
        None,
    )


def gaps(W, w_star):
    """angle gap 1 - cos(w, w*) and margin gap 1/||w*|| - min_i y_i x_i.w / ||w|| (Def. 3.3)."""
    nw = np.linalg.norm(W, axis=1)
    angle = 1.0 - W @ w_star / (nw * np.linalg.norm(w_star))
    margin = 1.0 / np.linalg.norm(w_star) - np.min((TOY_Y[:, None] * TOY_X) @ W.T, axis=0) / nw
    return angle, margin


def test_toy_reference_is_the_papers():
    w, _ = hard_margin(TOY_X, TOY_Y, fit_intercept=False)
    np.testing.assert_allclose(w, W_STAR, atol=1e-7)


def test_toy_convergence_rate_and_gaps():
    r = run(TOY_X, TOY_Y, max_iter=60, tol=0.0, record_iterates=True, **PAPER)
    assert r["status"] == SolverStatus.max_iter and r["iterations"] == 60
    h = r["history"]
    np.testing.assert_allclose(h["smoothing"], (10.0 + np.arange(60)) ** -0.5)  # p = 1/2
    assert np.all(h["inner_iterations"] == (10 + np.arange(60)) ** 2)  # t_s, r = 2
    err = np.linalg.norm(r["iterates"] - W_STAR, axis=1)
    k = np.cumsum(h["inner_iterations"])
    # decreasing over the run: means over blocks of 10 outer iterations (single estimates
    # wiggle), and every estimate from s = 10 on is below the one 10 outer iterations earlier
    blocks = err.reshape(6, 10).mean(axis=1)
    assert np.all(np.diff(blocks) < 0)
    assert np.all(err[20:] < err[10:-10])
    rate = -np.polyfit(np.log(k[5:]), np.log(err[5:]), 1)[0]
    assert rate >= 1.0 / 6.0, rate
    angle, margin = gaps(r["iterates"], W_STAR)
    assert angle[-1] < 1e-6 and margin[-1] < 1e-3
    assert np.all(margin >= -1e-12)  # the max margin bounds every margin
    # the certificate brackets the true max margin 1/||w*||
    assert r["margin"] <= 1 / np.linalg.norm(W_STAR) + 1e-12 <= r["margin_upper"] + 2e-12


def test_best_iterate_and_normalized_steps():
    avg = run(TOY_X, TOY_Y, max_iter=40, tol=0.0, record_iterates=True, **PAPER)
    best = run(TOY_X, TOY_Y, max_iter=40, tol=0.0, record_iterates=True, iterate="best", **PAPER)
    e_avg = np.linalg.norm(avg["iterates"][-1] - W_STAR)
    e_best = np.linalg.norm(best["iterates"][-1] - W_STAR)
    assert e_best < e_avg  # section 6.4: the best iterate converges faster in L2
    norm = run(
        TOY_X, TOY_Y, max_iter=40, tol=0.0, record_iterates=True, normalized_steps=True, **PAPER
    )
    assert np.linalg.norm(norm["iterates"][-1] - W_STAR) < 0.05


def test_stochastic_variant_is_seeded():
    a = run(TOY_X, TOY_Y, max_iter=30, batch_size=4, seed=7)
    b = run(TOY_X, TOY_Y, max_iter=30, batch_size=4, seed=7)
    c = run(TOY_X, TOY_Y, max_iter=30, batch_size=4, seed=8)
    np.testing.assert_array_equal(a["solution"], b["solution"])
    assert not np.array_equal(a["solution"], c["solution"])
    assert np.linalg.norm(a["solution"] - W_STAR) < 0.05


@pytest.mark.parametrize("iterate", ["average", "best"])
def test_biased_separable_matches_clarabel(iterate):
    """Shifted toy data: hard margin with an unregularized bias (eq. 15) vs clarabel."""
    X = TOY_X + np.array([1.0, -2.0])
    w, b = hard_margin(X, TOY_Y, fit_intercept=True)
    m = LinearSVC(
        loss="hinge",
        C=float("inf"),
        solver="homotopy",
        regularize_intercept=False,
        max_iter=150,
        tol=1e-12,
        solver_options={"iterate": iterate},
        n_jobs=1,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m.fit(X, TOY_Y)
    assert np.linalg.norm(m.coef_[0] - w) / np.linalg.norm(w) < 1e-3
    assert abs(m.intercept_[0] - b) < 1e-3
    assert m.score(X, TOY_Y) == 1.0


def test_separable_gaussians_match_clarabel_and_stop_on_gap():
    rng = np.random.default_rng(1)
    X = np.vstack([rng.normal(size=(20, 3)) + 2.5, rng.normal(size=(20, 3)) - 2.5])
    y = np.r_[np.ones(20), -np.ones(20)]
    w, b = hard_margin(X, y, fit_intercept=True)
    m = LinearSVC(
        loss="hinge",
        C=float("inf"),
        solver="homotopy",
        regularize_intercept=False,
        tol=1e-9,
        n_jobs=1,
    ).fit(X, y)
    res = m.result_[0]
    assert res["status"] == SolverStatus.converged and res["optimality"] < 1e-9
    assert np.linalg.norm(m.coef_[0] - w) / np.linalg.norm(w) < 1e-3
    # with the default tol the gap certifies 4.5e-3 (sqrt(1/(1 - g)^2 - 1)), and holds it
    d = LinearSVC(loss="hinge", C=float("inf"), solver="homotopy", regularize_intercept=False)
    g = d.fit(X, y).result_[0]["optimality"]
    assert g < 1e-5
    rel = np.linalg.norm(d.coef_[0] - w) / np.linalg.norm(w)
    assert rel <= np.sqrt(1 / (1 - g) ** 2 - 1) * (1 + 1e-6) < 4.5e-3  # attained here
    assert abs(m.intercept_[0] - b) < 1e-3


@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_soft_margin_with_finite_C(C):
    """Finite C: the homotopy stops at lambda = 1/(C n), LinearSVC's hinge objective, on its
    duality gap at tol (no warning) and matches clarabel's exact QP within the gap."""
    rng = np.random.default_rng(2)
    X = np.vstack([rng.normal(size=(30, 2)) + 1.0, rng.normal(size=(30, 2)) - 1.0])
    y = np.r_[np.ones(30), -np.ones(30)]
    _, _, f_star = hinge_primal(X, y, np.full(60, C), regularize_intercept=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the fit must stop on its own rule, before max_iter
        m = LinearSVC(
            loss="hinge",
            C=C,
            solver="homotopy",
            regularize_intercept=False,
            tol=1e-4,
            max_iter=300,
            n_jobs=1,
        ).fit(X, y)
    r = m.result_[0]
    assert r["status"] == SolverStatus.converged and r["iterations"] < 300
    w, b = m.coef_[0], m.intercept_[0]
    f = 0.5 * w @ w + C * np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()
    # the relative duality gap (P - D) / P bounds the true (P - F*) / P
    assert -1e-9 <= (f - f_star) / f <= r["optimality"] * (1 + 1e-6) + 1e-9
    assert r["optimality"] < 1e-4


@pytest.mark.parametrize("fit_intercept", [True, False])
def test_soft_margin_gap_other_biases(fit_intercept):
    """The duality gap also holds with a regularized bias and without a bias (clarabel's exact
    box-only dual, kernel X X' (+ 1 for the regularized bias); strong duality gives F*)."""
    rng = np.random.default_rng(5)
    X = np.vstack([rng.normal(size=(25, 3)) + 0.7, rng.normal(size=(25, 3)) - 0.7])
    y = np.r_[np.ones(25), -np.ones(25)]
    C = 1.0
    K = X @ X.T + (1.0 if fit_intercept else 0.0)
    _, dual_min = svm_dual(K, y, np.full(50, C), equality=False)
    f_star = -dual_min
    r = run(X, y, fit_intercept, True, lambda_min=1 / (C * 50), tol=1e-4)
    assert r["status"] == SolverStatus.converged
    w = r["solution"][:3]
    b = r["solution"][3] if fit_intercept else 0.0
    f = 0.5 * (w @ w + b * b) + C * np.maximum(0.0, 1.0 - y * (X @ w + b)).sum()
    assert -1e-6 <= (f - f_star) / f <= r["optimality"] * (1 + 1e-6) + 1e-6
    assert r["optimality"] < 1e-4


def test_inner_step_count_overflow_is_refused():
    """t_s = ceil((s0 + s)^r) must fit a long long (the cast was undefined behaviour)."""
    with pytest.raises(ValueError, match="inner step count t_s"):
        run(TOY_X, TOY_Y, r=40.0, max_iter=3)
    with pytest.raises(ValueError, match="inner step count t_s"):
        run(TOY_X, TOY_Y, max_iter=10**10)


def lp_min_slack(X, y, fit_intercept=True):
    """Independent separability reference: min sum xi s.t. y_i (w.x_i + b) >= 1 - xi_i (LP)."""
    from scipy.optimize import linprog

    n, d = X.shape
    bias = -y[:, None] if fit_intercept else np.zeros((n, 1))
    res = linprog(
        np.r_[np.zeros(d + 1), np.ones(n)],
        A_ub=np.hstack([-y[:, None] * X, bias, -np.eye(n)]),
        b_ub=-np.ones(n),
        bounds=[(None, None)] * (d + 1) + [(0, None)] * n,
        method="highs",
    )
    assert res.status == 0
    return res.fun


def test_non_separable_toy_is_certified_early():
    y = TOY_Y.copy()
    y[2] = -1.0  # (2, 2) labelled negative: no separating line through the origin
    assert lp_min_slack(TOY_X, y, fit_intercept=False) > 0.1
    m = LinearSVC(loss="hinge", C=float("inf"), solver="homotopy", fit_intercept=False)
    with pytest.warns(UserWarning, match="not linearly separable"):
        m.fit(TOY_X, y)
    res = m.result_[0]
    assert res["status"] == SolverStatus.infeasible
    # the Farkas certificate is tried first at s = separability_check_after (default 5)
    assert m.n_iter_ == svmkit.solver_defaults("homotopy")["separability_check_after"] == 5
    assert res["certificate_bound"] < 1e-9 * np.linalg.norm(TOY_X, axis=1).max()
    # with the certificate off, the run goes on to max_iter and does not claim anything
    off = run(TOY_X, y, max_iter=30, separability_check_after=0)
    assert off["status"] == SolverStatus.max_iter


def _standardized(loader, cls):
    X, y = loader(return_X_y=True)
    return StandardScaler().fit_transform(X), np.where(y == cls, 1.0, -1.0)


@pytest.mark.parametrize("data", ["iris-versicolor", "iris-virginica", "digits-8", "digits-9"])
def test_non_separable_real_data_is_certified(data):
    """The LP says these are not separable; the homotopy certifies it at s = 5 (defaults)."""
    from sklearn.datasets import load_digits

    loader, cls = {
        "iris-versicolor": (load_iris, 1),
        "iris-virginica": (load_iris, 2),
        "digits-8": (load_digits, 8),
        "digits-9": (load_digits, 9),
    }[data]
    X, y = _standardized(loader, cls)
    assert lp_min_slack(X, y) > 1.0
    m = LinearSVC(loss="hinge", C=float("inf"), solver="homotopy", n_jobs=1)
    with pytest.warns(UserWarning, match="not linearly separable"):
        m.fit(X, y)
    assert m.result_[0]["status"] == SolverStatus.infeasible and m.n_iter_ == 5


@pytest.mark.parametrize("data", ["breast_cancer", "digits-0", "wine-1"])
def test_separable_data_is_never_certified_non_separable(data):
    """Separable per the LP (breast cancer: small margin, not separated by the early estimates):
    the certificate is tried at every doubling of s from 1 on and must never fire."""
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine

    loader, cls = {
        "breast_cancer": (load_breast_cancer, 1),
        "digits-0": (load_digits, 0),
        "wine-1": (load_wine, 1),
    }[data]
    X, y = _standardized(loader, cls)
    assert lp_min_slack(X, y) == pytest.approx(0.0, abs=1e-9)
    max_iter = 8 if data == "digits-0" else 33
    r = run(X, y, True, False, max_iter=max_iter, separability_check_after=1)
    assert r["iterations"] == max_iter and r["status"] == SolverStatus.max_iter
    if data == "breast_cancer":  # not separated yet, so the certificate was tried
        # it bounds the max margin 1/||w*|| (clarabel) from above, as it must (with all rows
        # the NNLS finds the distance of the class hulls, i.e. the max margin itself)
        w, _ = hard_margin(X, y, fit_intercept=True)
        assert r["certificate_bound"] >= (1 - 1e-6) / np.linalg.norm(w)


def test_certificate_on_a_subset_of_rows():
    """certificate_max_entries below (d + 2) n: the most violated rows are used. A non-separable
    subset still certifies (iris versicolor, 100 of 150 rows); separable data never do."""
    from sklearn.datasets import load_breast_cancer

    X, y = _standardized(load_iris, 1)
    r = run(
        X, y, True, False, max_iter=3, separability_check_after=1, certificate_max_entries=100 * 7
    )
    assert r["status"] == SolverStatus.infeasible and r["iterations"] == 1
    X, y = _standardized(load_breast_cancer, 1)
    for entries in (40 * 32, 200 * 32):
        r = run(
            X,
            y,
            True,
            False,
            max_iter=17,
            separability_check_after=1,
            certificate_max_entries=entries,
        )
        assert r["status"] == SolverStatus.max_iter
    # too small for even d + 2 rows, or too many coordinates: no certificate is attempted
    for opts in ({"certificate_max_entries": 10}, {"certificate_max_dim": 30}):
        r = run(X, y, True, False, max_iter=3, separability_check_after=1, **opts)
        assert np.isnan(r["certificate_bound"]) or np.isinf(r["certificate_bound"])


def test_iris_setosa_defaults():
    """sklearn's iris (bundled): setosa vs rest is separable; svmkit's defaults stop on the
    margin-gap certificate (tol 1e-5) and match clarabel's hard margin to 1e-3."""
    X, y = _standardized(load_iris, 0)
    w, b = hard_margin(X, y, fit_intercept=True)
    m = LinearSVC(loss="hinge", C=float("inf"), solver="homotopy", regularize_intercept=False)
    m.fit(X, y)
    r = m.result_[0]
    assert r["status"] == SolverStatus.converged and r["optimality"] < 1e-5
    rel = np.linalg.norm(m.coef_[0] - w) / np.linalg.norm(w)
    assert rel < 1e-3
    # the margin gap g certifies ||w - w*|| / ||w*|| <= sqrt(1/(1 - g)^2 - 1) (homotopy.hpp)
    assert rel <= np.sqrt(1 / (1 - r["optimality"]) ** 2 - 1) * (1 + 1e-6)
    assert abs(m.intercept_[0] - b) < 1e-3
    assert r["margin"] <= 1 / np.linalg.norm(w) + 1e-9 <= r["margin_upper"] + 1e-9


def test_paper_schedule_is_far_from_lambda_prime_on_iris():
    """Why the defaults depart from the paper's scale: with the mean loss lambda' =
    1/(n max a_j) is about 0.008 on standardized iris, far below lambda_0 = 10^-1/2, and 40
    outer iterations of Algorithm 1 verbatim are still off by > 20% (defaults: < 5%)."""
    X, y = _standardized(load_iris, 0)
    w, _ = hard_margin(X, y, fit_intercept=True)
    a, _ = svm_dual(X @ X.T, y, np.full(len(y), 1e6), equality=True)
    assert 1 / (len(y) * a.max()) < 0.01
    paper = run(X, y, True, False, max_iter=40, tol=0.0, **PAPER)
    ours = run(X, y, True, False, max_iter=40, tol=0.0)
    err = [np.linalg.norm(r["solution"][:-1] - w) / np.linalg.norm(w) for r in (paper, ours)]
    assert err[0] > 0.2 and err[1] < 0.05, err


def test_determinism_and_defaults():
    d = svmkit.solver_defaults("homotopy")
    assert (d["p"], d["r"], d["s0"], d["iterate"]) == (0.5, 2.0, 10.0, "average")
    assert (d["lambda_scale"], d["step_scale"], d["tol"], d["max_iter"]) == (0.0, 3.0, 1e-5, 300)
    a, b = run(TOY_X, TOY_Y, max_iter=20), run(TOY_X, TOY_Y, max_iter=20)
    np.testing.assert_array_equal(a["solution"], b["solution"])
    # lambda_scale = 0 means 1/n: lambda_s = (s0 + s)^-p / n
    np.testing.assert_allclose(a["history"]["smoothing"], (10.0 + np.arange(20)) ** -0.5 / 14)
    # Algorithm 1's constants: eps0, alpha, C for s0 = 10, p = 1/2, r = 2
    eps0 = (np.log(10) - np.log(9)) / np.log(10)
    alpha = min((2 - 1) / (2 * (1 + eps0)), 0.5)
    K = max(4.0, 0.5 * 10**0.5 * 9**alpha)
    assert np.isclose(a["step_constant"], K)
    assert np.isclose(a["history"]["step"][0], 3.0 * K * 9**-alpha / 10.0)


@pytest.mark.parametrize(
    "opts,match",
    [
        ({"p": 1.0}, "option 'p' must be > 0 and < 1"),
        ({"r": 0.9}, "option 'r' must be > 2p"),
        ({"s0": 2.0}, "option 's0' must be > 2"),
        ({"iterate": "last"}, "option 'iterate' must be"),
        ({"lambda_scale": -1.0}, "option 'lambda_scale' must be >= 0"),
        ({"step_scale": 0.0}, "option 'step_scale' must be > 0"),
        ({"separability_tol": -1.0}, "separability_tol"),
        ({"separability_check_after": -1}, "separability_check_after"),
        ({"certificate_max_iter": -1}, "certificate_max_iter"),
        ({"certificate_max_entries": -1}, "certificate_max_entries"),
        ({"certificate_max_dim": -1}, "certificate_max_dim"),
        ({"nope": 1}, "unknown homotopy option 'nope'"),
    ],
)
def test_bad_options(opts, match):
    with pytest.raises(ValueError, match=match):
        LinearSVC(loss="hinge", solver="homotopy", C=float("inf"), solver_options=opts).fit(
            TOY_X, TOY_Y
        )


def test_bad_estimator_params():
    with pytest.raises(ValueError, match="does not handle loss='squared_hinge'"):
        LinearSVC(loss="squared_hinge", solver="homotopy").fit(TOY_X, TOY_Y)
    with pytest.raises(ValueError, match="C must be finite"):
        LinearSVC(loss="squared_hinge", solver="tron", C=float("inf")).fit(TOY_X, TOY_Y)
    with pytest.raises(ValueError, match="C must be > 0"):
        LinearSVC(loss="hinge", solver="homotopy", C=-1.0).fit(TOY_X, TOY_Y)
    with pytest.raises(ValueError, match="labels|\\+-1|-1"):
        _core.fit_homotopy(TOY_X, TOY_Y * 2, np.ones(14), False, 1.0, True, {}, None)


def test_shared_iris_hard_margin(shared_datasets):
    """Shared iris (class 1 vs rest, separable), standardized, defaults: vs clarabel."""
    X, y = load_svmlight_file(str(shared_datasets / "iris" / "iris"))
    X = StandardScaler().fit_transform(X.toarray())
    y = np.where(y == 1, 1.0, -1.0)
    w, b = hard_margin(X, y, fit_intercept=True)
    r = run(X, y, True, False)
    rel = np.linalg.norm(r["solution"][:-1] - w) / np.linalg.norm(w)
    assert r["status"] == SolverStatus.converged
    assert rel < 1e-3 and abs(r["solution"][-1] - b) < 1e-3
