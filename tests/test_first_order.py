"""sgd: the primal first-order solver (paper 001 Algorithms 1-4, paper 000's adaptive rules).

References are independent: LIBLINEAR through scikit-learn (squared hinge and squared
epsilon-insensitive, bias regularized on both sides), exact QPs solved by clarabel (hinge,
epsilon-insensitive, l1 / elastic-net penalties) and scipy's L-BFGS (smoothed hinge).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import hinge_primal, primal_svm
from scipy.optimize import minimize
from sklearn.datasets import load_breast_cancer, load_diabetes, load_svmlight_file, load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC
from sklearn.svm import LinearSVR as SkLinearSVR
from svmkit import LinearSVC, LinearSVR

RULES = [
    ("none", "none"),
    ("polyak", "none"),
    ("nesterov", "none"),
    ("none", "adagrad"),
    ("none", "adadelta"),
    ("none", "adam"),
]


@pytest.fixture(scope="module")
def cancer() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


@pytest.fixture(scope="module")
def diabetes() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), (y - y.mean()) / y.std()


def primal_objective(X, y, w, b, C, loss, reg_bias=True, l1=0.0, l2=1.0, sigma=0.1, eps=0.0):
    z = X @ w + b
    if loss in ("hinge", "squared_hinge", "smoothed_hinge"):
        t = 1.0 - y * z
        if loss == "hinge":
            lv = np.maximum(0.0, t)
        elif loss == "squared_hinge":
            lv = np.maximum(0.0, t) ** 2
        else:
            lv = 0.5 * (t + np.sqrt(t * t + sigma * sigma))
    else:
        a = np.maximum(0.0, np.abs(z - y) - eps)
        lv = a if loss == "epsilon_insensitive" else a * a
    reg = 0.5 * l2 * (w @ w + (b * b if reg_bias else 0.0)) + l1 * np.abs(w).sum()
    return reg + C * lv.sum()


def sgd_options(mom: str, ada: str, nonsmooth: bool) -> dict:
    # The default stopping rule (tol 1e-8, n_iter_no_change 100, max_iter 20000) reaches 1e-3
    # for every rule and loss here: no iteration options.
    del nonsmooth
    return {"momentum_type": mom, "adaptive": ada}


def fitted_wb(model) -> tuple[np.ndarray, float]:
    return np.ravel(model.coef_), float(np.ravel(model.intercept_)[0])


@pytest.mark.parametrize("mom,ada", RULES)
def test_squared_hinge_matches_liblinear(cancer, mom, ada):
    X, y = cancer
    C = 0.1
    ref = SkLinearSVC(C=C, loss="squared_hinge", dual=False, tol=1e-12, max_iter=100000).fit(X, y)
    f_star = primal_objective(X, y, *fitted_wb(ref), C, "squared_hinge")
    m = LinearSVC(
        loss="squared_hinge",
        C=C,
        solver="sgd",
        n_jobs=1,
        solver_options=sgd_options(mom, ada, False),
    )
    m.fit(X, y)
    f = primal_objective(X, y, *fitted_wb(m), C, "squared_hinge")
    assert abs(f - f_star) / f_star < 1e-3
    assert np.isclose(m.result_[0]["objective"], f, rtol=1e-10)
    assert (m.predict(X) == ref.predict(X)).mean() > 0.98


@pytest.mark.parametrize("mom,ada", RULES)
def test_hinge_matches_exact_qp(cancer, mom, ada):
    X, y = cancer
    C = 0.1
    _, _, f_star = hinge_primal(X, y, np.full(len(y), C))
    m = LinearSVC(
        loss="hinge", C=C, solver="sgd", n_jobs=1, solver_options=sgd_options(mom, ada, True)
    )
    m.fit(X, y)
    f = primal_objective(X, y, *fitted_wb(m), C, "hinge")
    assert f >= f_star * (1 - 1e-9)
    assert (f - f_star) / f_star < 1e-3


def test_smoothed_hinge_matches_lbfgs(cancer):
    X, y = cancer
    C, sigma = 0.1, 0.5
    d = X.shape[1]

    def fg(v):
        w, b = v[:d], v[d]
        t = 1.0 - y * (X @ w + b)
        r = np.sqrt(t * t + sigma * sigma)
        f = 0.5 * (w @ w + b * b) + C * (0.5 * (t + r)).sum()
        dt = -C * 0.5 * (1 + t / r) * y
        return f, np.r_[w + X.T @ dt, b + dt.sum()]

    ref = minimize(fg, np.zeros(d + 1), jac=True, method="L-BFGS-B", options={"gtol": 1e-10})
    m = LinearSVC(loss="smoothed_hinge", sigma=sigma, C=C, solver="sgd", n_jobs=1)
    m.fit(X, y)
    f = primal_objective(X, y, *fitted_wb(m), C, "smoothed_hinge", sigma=sigma)
    assert abs(f - ref.fun) / ref.fun < 1e-3


@pytest.mark.parametrize("mom,ada", [("nesterov", "none"), ("none", "adam")])
def test_svr_losses_match_references(diabetes, mom, ada):
    X, y = diabetes
    C, eps = 0.05, 0.1
    ref = SkLinearSVR(
        C=C, epsilon=eps, loss="squared_epsilon_insensitive", dual=False, tol=1e-12, max_iter=100000
    ).fit(X, y)
    f_star = primal_objective(X, y, *fitted_wb(ref), C, "squared_epsilon_insensitive", eps=eps)
    m = LinearSVR(
        C=C,
        epsilon=eps,
        loss="squared_epsilon_insensitive",
        solver="sgd",
        solver_options=sgd_options(mom, ada, False),
    ).fit(X, y)
    f = primal_objective(X, y, *fitted_wb(m), C, "squared_epsilon_insensitive", eps=eps)
    assert abs(f - f_star) / f_star < 1e-3
    f_star = primal_svm(X, y, C, loss="epsilon_insensitive", epsilon=eps)[2]
    m = LinearSVR(
        C=C,
        epsilon=eps,
        loss="epsilon_insensitive",
        solver="sgd",
        solver_options=sgd_options(mom, ada, True),
    ).fit(X, y)
    f = primal_objective(X, y, *fitted_wb(m), C, "epsilon_insensitive", eps=eps)
    assert (f - f_star) / f_star < 1e-3


def l1_squared_hinge_qp(X, y, C, l1, l2):
    w, _, f = primal_svm(X, y, C, loss="squared_hinge", l1=l1, l2=l2, reg_b=False)
    return w, f


@pytest.mark.parametrize("penalty", ["l1", "elasticnet"])
def test_l1_penalties_proximal(penalty):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = np.where(y == 0, 1.0, -1.0)
    C = 0.1
    l1, l2 = (1.0, 0.0) if penalty == "l1" else (0.5, 0.5)
    w_ref, f_star = l1_squared_hinge_qp(X, y, C, l1, l2)
    m = LinearSVC(
        loss="squared_hinge",
        penalty=penalty,
        l1_ratio=0.5,
        C=C,
        solver="sgd",
        regularize_intercept=False,
        n_jobs=1,
        solver_options={"momentum_type": "none"},
    ).fit(X, y)
    w, b = fitted_wb(m)
    f = primal_objective(X, y, w, b, C, "squared_hinge", reg_bias=False, l1=l1, l2=l2)
    assert abs(f - f_star) / f_star < 1e-3
    # the soft-threshold step gives exact zeros where the reference has them
    zero = np.abs(w_ref) < 1e-6
    assert zero.any()
    assert np.all(np.abs(w[zero]) < 1e-3)
    assert np.count_nonzero(w == 0.0) > 0


def test_minibatch_and_stochastic_are_seeded_and_converge(cancer):
    X, y = cancer
    C = 0.1
    ref = SkLinearSVC(C=C, loss="squared_hinge", dual=False, tol=1e-12, max_iter=100000).fit(X, y)
    f_star = primal_objective(X, y, *fitted_wb(ref), C, "squared_hinge")
    opts = {"batch_size": 32, "schedule": "inv_sqrt", "max_iter": 300, "n_iter_no_change": 50}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        fits = [
            LinearSVC(C=C, solver="sgd", random_state=s, solver_options=opts, n_jobs=1).fit(X, y)
            for s in (3, 3, 4)
        ]
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)
    assert not np.array_equal(fits[0].coef_, fits[2].coef_)
    f = primal_objective(X, y, *fitted_wb(fits[0]), C, "squared_hinge")
    assert (f - f_star) / f_star < 2e-2
    one = LinearSVC(
        C=C,
        solver="sgd",
        random_state=0,
        max_iter=30,
        solver_options={"batch_size": 1, "schedule": "inv_sqrt"},
    ).fit(X, y)
    assert one.score(X, y) > 0.95
    # passes count rows touched: per epoch n single rows plus one objective sweep, plus the
    # sweeps for the default step and the initial objective
    assert one.n_passes_ == 2 * one.n_iter_ + 2


def test_history_and_defaults(cancer):
    X, y = cancer
    d = svmkit.solver_defaults("sgd")
    assert d["learning_rate"] == 0.0 and d["momentum"] == 0.5 and d["tol"] == 1e-8
    assert d["n_iter_no_change"] == 100 and d["max_iter"] == 20000
    assert d["adam_beta2"] == 0.8 and d["adadelta_rho"] == 0.9
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        m = LinearSVC(C=0.1, solver="sgd", max_iter=50).fit(X, y)
    h = m.result_[0]["history"]
    assert len(h["iteration"]) == m.n_iter_ == 50
    assert np.all(np.diff(h["passes"]) > 0)
    # full batch: 1/L_F step on F = sum form (paper's L times n, see first_order.hpp)
    L = 1.0 + 2.0 * 0.1 * (np.sum(X * X) + len(y))
    assert np.isclose(h["step"][0], 1.0 / L)
    seen = []
    with pytest.warns(ConvergenceWarning, match="stopped by the callback"):
        LinearSVC(
            C=0.1, solver="sgd", max_iter=10, callback=lambda r: seen.append(r) or len(seen) < 3
        ).fit(X, y)
    assert len(seen) == 3


def test_threads_agree(cancer):
    X, y = cancer
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = LinearSVC(C=0.1, solver="sgd", n_jobs=1, max_iter=300).fit(X, y)
        b = LinearSVC(C=0.1, solver="sgd", n_jobs=2, max_iter=300).fit(X, y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-6, atol=1e-8)


def test_sparse_input_matches_dense(cancer):
    X, y = cancer
    Xs = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X))
    a = LinearSVC(C=0.1, solver="sgd", n_jobs=1).fit(Xs, y)
    b = LinearSVC(C=0.1, solver="sgd", n_jobs=1).fit(Xs.toarray(), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "opts,match",
    [
        ({"momentum_type": "heavy"}, "momentum_type must be"),
        ({"adaptive": "rmsprop"}, "adaptive must be"),
        ({"schedule": "cosine"}, "schedule must be"),
        ({"momentum": 1.0}, "option 'momentum' must be >= 0 and < 1"),
        ({"batch_size": -1}, "option 'batch_size' must be >= 0"),
        ({"learning_rate": -1.0}, "option 'learning_rate' must be >= 0 and finite"),
        ({"n_iter_no_change": 0}, "n_iter_no_change"),
        ({"adam_beta2": 1.0}, "adam_beta2"),
        ({"adam_beta1": -0.1}, "adam_beta1"),
        ({"adam_eps": 0.0}, "adam_eps"),
        ({"adagrad_eps": 0.0}, "adagrad_eps"),
        ({"adadelta_rho": 1.0}, "adadelta_rho"),
        ({"adadelta_eps": -1.0}, "adadelta_eps"),
        ({"l2_penalty": -1.0}, "option 'l2_penalty' must be >= 0 and finite"),
        ({"l1_penalty": float("nan")}, "option 'l1_penalty' must be >= 0 and finite"),
        ({"max_iter": -1}, "option 'max_iter' must be >= 0"),
        ({"tol": -1.0}, "option 'tol' must be >= 0"),
        ({"bogus": 1}, "unknown sgd option 'bogus'"),
        ({"momentum": "fast"}, "option 'momentum' has the wrong type"),
    ],
)
def test_bad_options(cancer, opts, match):
    X, y = cancer
    with pytest.raises(ValueError, match=match):
        LinearSVC(solver="sgd", solver_options=opts).fit(X, y)


def test_bad_losses_and_C(cancer):
    X, y = cancer
    with pytest.raises(ValueError, match="does not handle loss='logistic'"):
        LinearSVC(solver="sgd", loss="logistic").fit(X, y)
    with pytest.raises(ValueError, match="C must be finite"):
        LinearSVC(solver="sgd", C=float("inf")).fit(X, y)
    with pytest.raises(ValueError, match="C must be finite"):
        LinearSVR(solver="sgd", C=float("inf")).fit(X, y)


def test_shared_datasets(shared_datasets):
    """heart_scale (squared hinge vs LIBLINEAR, hinge vs clarabel); housing (LinearSVR)."""
    X, y = load_svmlight_file(str(shared_datasets / "heart" / "heart_scale"))
    X = X.toarray()
    C = 0.1
    ref = SkLinearSVC(C=C, loss="squared_hinge", dual=False, tol=1e-12, max_iter=100000).fit(X, y)
    f_star = primal_objective(X, y, *fitted_wb(ref), C, "squared_hinge")
    for mom, ada in RULES:
        m = LinearSVC(C=C, solver="sgd", n_jobs=1, solver_options=sgd_options(mom, ada, False)).fit(
            X, y
        )
        f = primal_objective(X, y, *fitted_wb(m), C, "squared_hinge")
        assert abs(f - f_star) / f_star < 1e-3, (mom, ada)
    _, _, f_star = hinge_primal(X, y, np.full(len(y), C))
    for mom, ada in RULES:
        m = LinearSVC(
            C=C, loss="hinge", solver="sgd", n_jobs=1, solver_options=sgd_options(mom, ada, True)
        )
        f = primal_objective(X, y, *fitted_wb(m.fit(X, y)), C, "hinge")
        assert (f - f_star) / f_star < 1e-3, (mom, ada)
    X, y = load_svmlight_file(str(shared_datasets / "housing" / "housing_scale"))
    X, y = X.toarray(), (y - y.mean()) / y.std()
    ref = SkLinearSVR(
        C=C, epsilon=0.1, loss="squared_epsilon_insensitive", dual=False, tol=1e-12, max_iter=100000
    ).fit(X, y)
    f_star = primal_objective(X, y, *fitted_wb(ref), C, "squared_epsilon_insensitive", eps=0.1)
    m = LinearSVR(C=C, epsilon=0.1, loss="squared_epsilon_insensitive", solver="sgd").fit(X, y)
    f = primal_objective(X, y, *fitted_wb(m), C, "squared_epsilon_insensitive", eps=0.1)
    assert abs(f - f_star) / f_star < 1e-3


def test_plotting_from_history(cancer):
    import matplotlib

    matplotlib.use("Agg")
    from svmkit.plotting import objective_gap, plot_convergence

    X, y = cancer
    runs = [
        LinearSVC(C=0.1, solver="sgd", n_jobs=1, solver_options={"momentum_type": m}).fit(X, y)
        for m in ("none", "nesterov")
    ]
    it, gap = objective_gap(runs[0].result_[0], f_star=runs[0].result_[0]["objective"])
    assert it.shape == gap.shape and np.all(gap >= -1e-12)
    ax = plot_convergence(runs, labels=["none", "nesterov"])
    assert len(ax.get_lines()) == 2 and ax.get_xscale() == "log" and ax.get_yscale() == "log"
    with pytest.raises(TypeError, match="expected a solver result"):
        plot_convergence([42])


def test_momentum_default_is_none_with_adaptive_rules(cancer):
    """Paper 000 runs AdaGrad/AdaDelta/Adam without momentum: "auto" (the default) gives Nesterov
    for plain steps only; stacking momentum on an adaptive rule is refused."""
    X, y = cancer
    assert svmkit.solver_defaults("sgd")["momentum_type"] == "auto"
    for ada in ("adagrad", "adam"):
        kw = dict(C=0.1, solver="sgd", n_jobs=1, max_iter=20)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            a = LinearSVC(**kw, solver_options={"adaptive": ada}).fit(X, y)
            b = LinearSVC(**kw, solver_options={"adaptive": ada, "momentum_type": "none"}).fit(X, y)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        with pytest.raises(ValueError, match="cannot be combined with an adaptive rule"):
            LinearSVC(**kw, solver_options={"adaptive": ada, "momentum_type": "nesterov"}).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = LinearSVC(C=0.1, solver="sgd", n_jobs=1, max_iter=20).fit(X, y)
        b = LinearSVC(
            C=0.1, solver="sgd", n_jobs=1, max_iter=20, solver_options={"momentum_type": "nesterov"}
        ).fit(X, y)
    np.testing.assert_array_equal(a.coef_, b.coef_)


def _sparse_problem(n=150, d=400, density=0.02, seed=0):
    rng = np.random.default_rng(seed)
    X = sp.random(n, d, density=density, format="csr", random_state=seed)
    X.data = rng.normal(size=X.nnz)
    w = rng.normal(size=d)
    y = np.where(X @ w + 0.1 * rng.normal(size=n) > 0, 1.0, -1.0)
    return X, y


@pytest.mark.parametrize("momentum", ["none", "polyak", "nesterov"])
@pytest.mark.parametrize("batch_size", [1, 4])
@pytest.mark.parametrize("reg_b", [False, True])
def test_lazy_sparse_steps_match_dense(momentum, batch_size, reg_b):
    """Sparse rows with small batches take lazy O(nnz) steps (the l2 shrink and the momentum of
    the untouched features applied as one power of their step map); the iterates are the dense
    path's up to rounding, and so is the objective."""
    X, y = _sparse_problem()
    opts = {"batch_size": batch_size, "momentum_type": momentum, "schedule": "inv_sqrt"}
    kw = dict(C=0.5, solver="sgd", n_jobs=1, max_iter=6, random_state=3)
    kw.update(regularize_intercept=reg_b, solver_options=opts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = LinearSVC(**kw).fit(X, y)
        b = LinearSVC(**kw).fit(X.toarray(), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-9, atol=1e-12)
    ha, hb = a.result_[0]["history"], b.result_[0]["history"]
    np.testing.assert_allclose(ha["objective"], hb["objective"], rtol=1e-10)
    assert a.n_passes_ == b.n_passes_


@pytest.mark.parametrize("loss", ["epsilon_insensitive", "squared_epsilon_insensitive"])
def test_lazy_sparse_steps_match_dense_regression(loss):
    from svmkit import LinearSVR

    X, _ = _sparse_problem(seed=1)
    y = X @ np.linspace(-1, 1, X.shape[1])
    kw = dict(C=0.5, loss=loss, solver="sgd", max_iter=5, fit_intercept=False, random_state=0)
    kw["solver_options"] = {"batch_size": 1}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = LinearSVR(**kw).fit(X, y)
        b = LinearSVR(**kw).fit(X.toarray(), y)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-9, atol=1e-12)


LAZY_CASES = [
    # (adaptive, momentum_type, l1_penalty, l2_penalty): the lazy modes of sgd.cpp
    ("none", "none", 0.05, 1.0),  # shrink, then soft threshold (closed form clipped at 0)
    ("none", "none", 0.05, 0.0),  # soft thresholds only
    ("adagrad", "none", 0.05, 0.0),  # constant rate while untouched: thresholds add up
    ("adagrad", "none", 0.0, 0.0),
    ("adagrad", "none", 0.0, 1.0),  # composite AdaGrad: the l2 prox composes to c^k
    ("adagrad", "none", 0.05, 1.0),  # both prox maps: an affine map clipped at 0
    ("adadelta", "none", 0.0, 0.0),  # decaying running averages
    ("adam", "none", 0.05, 1.0),  # no closed form: dense steps on both sides
    ("none", "nesterov", 0.05, 1.0),  # momentum with l1: dense steps on both sides
]


@pytest.mark.parametrize("ada,mom,l1,l2", LAZY_CASES)
@pytest.mark.parametrize("batch_size", [1, 3])
def test_lazy_steps_with_l1_and_adaptive_rules_match_eager(ada, mom, l1, l2, batch_size):
    """The lazy O(nnz) steps of the adaptive rules and of the l1 term (sgd.cpp, LazyMode) give
    the eager dense path's iterates: the same seeded run on the same CSR matrix with
    lazy_steps=False, compared to rounding (solution and every epoch's objective)."""
    from svmkit import _core

    X, y = _sparse_problem(seed=2)
    n, d = X.shape
    Xc = (X.data, X.indices, X.indptr, n, d)
    base = {"adaptive": ada, "momentum_type": mom, "l1_penalty": l1, "l2_penalty": l2}
    base.update(batch_size=batch_size, max_iter=6, seed=4, n_threads=1, schedule="inv_sqrt")
    runs = [
        _core.fit_sgd(
            Xc,
            y,
            np.full(n, 0.5),
            "hinge",
            0.1,
            0.0,
            True,
            1.0,
            False,
            None,
            {**base, "lazy_steps": lazy},
            None,
        )
        for lazy in (True, False)
    ]
    a, b = (np.asarray(r["solution"]) for r in runs)
    assert np.abs(a - b).max() <= 1e-12 * max(1.0, np.abs(b).max())
    assert runs[1]["step_mode"] == "dense"
    dense_modes = {("adam", "none"), ("none", "nesterov")}
    assert (runs[0]["step_mode"] == "dense") == ((ada, mom) in dense_modes)
    if l1 > 0.0:
        assert np.count_nonzero(b[:d] == 0.0) > 0  # the soft threshold acts
        np.testing.assert_array_equal(a[:d] == 0.0, b[:d] == 0.0)
    ha, hb = runs[0]["history"]["objective"], runs[1]["history"]["objective"]
    np.testing.assert_allclose(ha, hb, rtol=1e-12)


@pytest.mark.parametrize(
    "ada,l1,l2",
    [("none", 0.0, 1.0), ("none", 1e-3, 1.0), ("adagrad", 0.0, 1.0), ("adagrad", 1e-3, 1.0)],
)
def test_sparse_stochastic_steps_cost_the_batch_not_d(ada, l1, l2):
    """batch_size=1 on sparse rows: each step updates the row's features and the bias, each
    untouched feature catches up once when next touched and once at each epoch's end, so the
    run's coordinate updates are at most nnz + n + d per epoch (dense steps: (d + 1) n), with
    the l2 term included (composite AdaGrad, since 2026-12-07; before, AdaGrad with l2 took
    dense steps). Counted by sgd itself (SgdExtras.coordinate_updates), not timed."""
    from svmkit import _core

    n, d, epochs = 300, 20000, 2
    X = sp.random(n, d, density=10 / d, format="csr", random_state=5)
    y = np.where(np.arange(n) % 2 == 0, 1.0, -1.0)
    Xc = (X.data, X.indices, X.indptr, n, d)
    opts = {"adaptive": ada, "momentum_type": "none", "l1_penalty": l1, "l2_penalty": l2}
    opts.update(batch_size=1, max_iter=epochs, n_threads=1, seed=0)
    res = _core.fit_sgd(Xc, y, np.ones(n), "hinge", 0.1, 0.0, True, 1.0, False, None, opts, None)
    assert res["step_mode"] != "dense"
    assert res["coordinate_updates"] <= epochs * (2 * X.nnz + n + d)
    assert res["coordinate_updates"] < (d + 1) * n  # far below one epoch of dense steps
