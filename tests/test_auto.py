"""solver="auto": the documented regime rule, an explicitly named solver always honoured, and
LinearSVR() fitting scikit-learn's model (the epsilon-insensitive loss)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import primal_svm
from sklearn.datasets import load_diabetes
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVR as SkLinearSVR
from svmkit._solvers import (
    ENET_CD_RATIO,
    ENET_WIDE_MAX_SCALE,
    HINGE_DUAL_SCALE,
    HINGE_TRON_MIN_SAMPLES,
    IPM_L1_WIDE_RATIO,
    IPM_MAX_FEATURES,
    LINEAR_SOLVERS,
    TALL_RATIO,
    auto_solver_name,
    hinge_dual_scale,
)

rng = np.random.default_rng(0)


def data(n: int, d: int, sparse: bool = False, classes: int = 2, row_nnz: float = 20.0):
    if sparse:
        X = sp.random(n, d, density=min(1.0, row_nnz / d), format="csr", random_state=1)
    else:
        X = rng.standard_normal((n, d))
    w = rng.standard_normal(d)
    score = np.asarray(X @ w).ravel()
    y = np.digitize(score, np.quantile(score, np.linspace(0, 1, classes + 1)[1:-1]))
    return X, y


TALL = (2000, 20, False)
VERY_TALL = (100_000, 10, False)
WIDE = (60, 600, False)
SPARSE_WIDE = (200, 5000, True)
VERY_WIDE = (50, 5000, True)
SPARSE_TALL_TEXT = (3000, 2000, True)  # n > d but too many features to be "tall"
SPARSE_WIDE_FULL_ROWS = (200, 5000, True, 2, 60.0)  # 60 stored entries per row

CASES = [
    # (loss, penalty, regime, extra params, expected solver)
    ("hinge", "l2", VERY_TALL, {}, "tron"),
    ("hinge", "l2", VERY_TALL, {"regularize_intercept": False}, "tron"),
    ("hinge", "l2", TALL, {}, "dual_cd"),
    ("hinge", "l2", WIDE, {}, "dual_cd"),
    ("hinge", "l2", SPARSE_WIDE, {}, "dual_cd"),
    ("hinge", "l2", SPARSE_TALL_TEXT, {}, "dual_cd"),
    ("hinge", "l2", WIDE, {"regularize_intercept": False}, "tron"),
    ("squared_hinge", "l2", TALL, {}, "tron"),
    ("squared_hinge", "l2", SPARSE_TALL_TEXT, {}, "tron"),
    ("squared_hinge", "l2", WIDE, {}, "dual_cd"),
    ("squared_hinge", "l2", SPARSE_WIDE, {}, "dual_cd"),
    ("squared_hinge", "l2", WIDE, {"regularize_intercept": False}, "tron"),
    ("hinge", "l1", WIDE, {}, "ipm"),  # n_samples <= n_features: ipm's working set
    # sparse with n_samples <= IPM_L1_WIDE_RATIO * n_features: ipm's working set
    ("hinge", "l1", SPARSE_WIDE, {}, "ipm"),
    ("hinge", "l1", SPARSE_TALL_TEXT, {}, "l1_cd"),
    ("hinge", "l1", (600, 1000, True), {}, "ipm"),
    ("hinge", "elasticnet", SPARSE_WIDE, {"l1_ratio": 1.0}, "ipm"),
    # at most IPM_MAX_FEATURES features: ipm, whatever the layout, scale and intercept
    ("hinge", "l1", TALL, {}, "ipm"),
    ("hinge", "l1", (300, 40, True), {}, "ipm"),
    ("hinge", "elasticnet", TALL, {}, "ipm"),
    ("hinge", "elasticnet", (400, 20, False), {}, "ipm"),
    ("hinge", "elasticnet", TALL, {"regularize_intercept": False}, "ipm"),
    ("hinge", "elasticnet", WIDE, {}, "ipm"),  # dense, n_samples < n_features
    ("hinge", "elasticnet", SPARSE_WIDE, {}, "dual_cd"),
    ("hinge", "elasticnet", TALL, {"l1_ratio": 1.0}, "ipm"),
    ("hinge", "elasticnet", WIDE, {"regularize_intercept": False}, "ipm"),
    ("hinge", "elasticnet", SPARSE_WIDE, {"regularize_intercept": False}, "smsvm"),
    ("logistic", "l2", WIDE, {}, "dual_cd"),
    ("logistic", "l2", SPARSE_TALL_TEXT, {}, "tron"),
    ("logistic", "l2", (60, 300, False), {}, "tron"),  # 5 features per sample: not wide enough
    ("logistic", "l2", TALL, {}, "tron"),
    ("logistic", "l2", WIDE, {"regularize_intercept": False}, "tron"),
    ("smoothed_hinge", "l2", TALL, {}, "tron"),
    ("logistic", "l1", TALL, {}, "l1_cd"),
    ("logistic", "elasticnet", SPARSE_WIDE, {}, "l1_cd"),
    # The smooth duals need wide data with >= 40 stored entries per row (20 here: tron).
    ("smoothed_hinge", "l2", SPARSE_WIDE, {}, "tron"),
    ("smoothed_hinge", "l2", VERY_WIDE, {}, "tron"),
    ("smoothed_hinge", "l2", SPARSE_WIDE_FULL_ROWS, {}, "dual_cd"),
    # dense with n_features >= n_samples: the conjugate duals (SMOOTH_HINGE_DENSE_WIDE)
    ("smoothed_hinge", "l2", WIDE, {}, "dual_cd"),
    ("gaussian_smoothed_hinge", "l2", WIDE, {}, "dual_cd"),
    ("gaussian_smoothed_hinge", "l2", (600, 600, False), {}, "dual_cd"),
    ("smoothed_hinge", "l2", (900, 600, False), {}, "dual_cd"),
    ("smoothed_hinge", "l2", (901, 600, False), {}, "tron"),
    ("gaussian_smoothed_hinge", "l2", TALL, {}, "tron"),
    ("gaussian_smoothed_hinge", "l2", WIDE, {"regularize_intercept": False}, "tron"),
    ("smoothed_hinge", "l2", WIDE, {"regularize_intercept": False}, "tron"),
    ("logistic", "l2", SPARSE_WIDE, {}, "tron"),
    ("logistic", "l2", SPARSE_WIDE_FULL_ROWS, {}, "dual_cd"),
    ("gaussian_smoothed_hinge", "l2", SPARSE_WIDE, {}, "tron"),
    ("smoothed_hinge", "l1", TALL, {}, "l1_cd"),
    ("gaussian_smoothed_hinge", "elasticnet", SPARSE_WIDE, {}, "l1_cd"),
]


@pytest.mark.parametrize(("loss", "penalty", "regime", "params", "expected"), CASES)
def test_auto_rule_for_each_regime(loss, penalty, regime, params, expected) -> None:
    X, y = data(*regime)
    clf = svmkit.LinearSVC(loss=loss, penalty=penalty, max_iter=5, **params)
    with _quiet():
        clf.fit(X, y)
    assert clf.solver_ == expected
    n, d = X.shape
    reg = params.get("regularize_intercept", True)
    rho = params.get("l1_ratio", 0.5)
    scale = hinge_dual_scale(X, 1.0) if loss == "hinge" else None
    row_nnz = X.nnz / n if sp.issparse(X) else None
    name = auto_solver_name(loss, penalty, n, d, reg, scale, l1_ratio=rho, row_nnz=row_nnz)
    assert name in (expected, None)


def test_auto_hinge_large_scale_dense_uses_tron() -> None:
    """Dense hinge problems with C * mean ||x||^2 above HINGE_DUAL_SCALE and n >= d go to TRON's
    certified continuation (the dual stalls there); wide, sparse or moderately scaled ones stay
    on dual_cd. The elastic-net hinge keeps SmSVM there unless l1_cd applies."""
    X, y = data(*TALL)  # standard normal, 20 features: mean ||x||^2 ~ 20
    scale = hinge_dual_scale(X, 1.0)
    assert 10.0 < scale < HINGE_DUAL_SCALE
    picks = {}
    for name, Xc, C in [
        ("tall C=1", X, 1.0),
        ("tall C=100", X, 100.0),
        ("tall scaled features", X * np.logspace(0, 2, X.shape[1]), 1.0),
        ("wide C=100", data(*WIDE)[0], 100.0),
        # sparse (a dense X in a CSR container runs dense: test_dense_storage.py)
        ("sparse C=1000", sp.csr_matrix(X * (rng.random(X.shape) < 0.2)), 1000.0),
    ]:
        yc = y if Xc.shape[0] == X.shape[0] else data(*WIDE)[1]
        clf = svmkit.LinearSVC(loss="hinge", C=C, max_iter=5)
        with _quiet():
            clf.fit(Xc, yc)
        picks[name] = clf.solver_
    # The l1 and elastic-net hinge with at most IPM_MAX_FEATURES features go to ipm at any scale
    # and layout; with more, the elastic net follows the same scale rule (its dual stalls there
    # too) where l1_cd does not apply: dense tall data go to l1_cd at any scale
    # (test_l1_cd_hinge), other badly scaled dense data to smsvm, sparse data to dual_cd.
    for Xc, yc, C in [
        (X, y, 1.0),
        (X, y, 100.0),
        (X[:400], y[:400], 100.0),
        (sp.csr_matrix(X), y, 1e3),
    ]:
        for penalty in ("elasticnet", "l1"):
            clf = svmkit.LinearSVC(loss="hinge", penalty=penalty, C=C, max_iter=5)
            with _quiet():
                clf.fit(Xc, yc)
            assert clf.solver_ == "ipm", (Xc.shape, C, penalty)
    d_many = IPM_MAX_FEATURES + 100
    n_tall = ENET_CD_RATIO * d_many
    for n, scale, expected in [
        (n_tall, 1.0, "l1_cd"),
        (n_tall, 2 * HINGE_DUAL_SCALE, "l1_cd"),
        (n_tall - 1, 1.0, "dual_cd"),
        (n_tall - 1, 2 * HINGE_DUAL_SCALE, "smsvm"),
        (n_tall, None, "dual_cd"),  # sparse
    ]:
        assert auto_solver_name("hinge", "elasticnet", n, d_many, True, scale) == expected
        # the pure l1 goes to l1_cd whatever the scale and layout
        assert auto_solver_name("hinge", "l1", n, d_many, True, scale) == "l1_cd"
    assert auto_solver_name("hinge", "l1", 10**6, IPM_MAX_FEATURES, False, None) == "ipm"
    assert picks == {
        "tall C=1": "dual_cd",
        "tall C=100": "tron",
        "tall scaled features": "tron",
        "wide C=100": "dual_cd",
        "sparse C=1000": "dual_cd",
    }
    # The rule itself, at the threshold: strictly above it is "badly scaled".
    n, d = X.shape
    assert auto_solver_name("hinge", "l2", n, d, True, HINGE_DUAL_SCALE) == "dual_cd"
    assert auto_solver_name("hinge", "l2", n, d, True, 2 * HINGE_DUAL_SCALE) == "tron"
    assert auto_solver_name("hinge", "l2", n, d, False, 2 * HINGE_DUAL_SCALE) == "tron"
    assert auto_solver_name("hinge", "l2", d, n, False, None) == "tron"
    assert auto_solver_name("hinge", "l2", d, n, True, 2 * HINGE_DUAL_SCALE) == "dual_cd"
    assert hinge_dual_scale(sp.csr_matrix(X), 1.0) is None
    assert hinge_dual_scale(X, float("inf")) is None
    assert hinge_dual_scale(X, 2.0) == pytest.approx(2.0 * np.mean(np.sum(X * X, axis=1)))
    # A named solver is honoured whatever the scale.
    clf = svmkit.LinearSVC(loss="hinge", C=100.0, solver="dual_cd", max_iter=5)
    with _quiet():
        clf.fit(X, y)
    assert clf.solver_ == "dual_cd"


def test_auto_hinge_dense_tall_threshold() -> None:
    """Dense hinge data with n >= HINGE_TRON_MIN_SAMPLES and n >= TALL_RATIO d go to TRON (dual_cd
    runs into max_iter there); one sample fewer, a wider shape or sparse X keep dual_cd."""
    n, scale = HINGE_TRON_MIN_SAMPLES, 10.0
    assert auto_solver_name("hinge", "l2", n, n // TALL_RATIO, True, scale) == "tron"
    assert auto_solver_name("hinge", "l2", n - 1, 10, True, scale) == "dual_cd"
    assert auto_solver_name("hinge", "l2", n, n // TALL_RATIO + 1, True, scale) == "dual_cd"
    assert auto_solver_name("hinge", "l2", n, 10, True, None) == "dual_cd"  # sparse
    X = rng.standard_normal((n, 5))
    y = (X[:, 0] + 0.3 * rng.standard_normal(n) > 0).astype(int)
    clf = svmkit.LinearSVC(loss="hinge").fit(X, y)
    assert clf.solver_ == "tron"
    assert str(clf.result_[0]["status"]).endswith("converged")


def test_auto_l1_squared_hinge_uses_the_l1_solver_when_present() -> None:
    X, y = data(*WIDE)
    clf = svmkit.LinearSVC(penalty="l1", max_iter=5)
    with _quiet():
        clf.fit(X, y)
    assert clf.solver_ == ("l1_cd" if "l1_cd" in LINEAR_SOLVERS else "sgd")


@pytest.mark.parametrize("solver", ["tron", "dual_cd", "sgd"])
def test_named_solver_is_always_honoured(solver: str) -> None:
    X, y = data(*TALL)  # auto would pick tron here
    clf = svmkit.LinearSVC(solver=solver, max_iter=3)
    with _quiet():
        clf.fit(X, y)
    assert clf.solver_ == solver


@pytest.mark.parametrize(
    ("loss", "regime", "expected"),
    [
        ("epsilon_insensitive", TALL, "dual_cd"),
        ("epsilon_insensitive", VERY_TALL, "tron"),
        ("epsilon_insensitive", (12_000, 200, False), "dual_cd"),  # only 60 samples per feature
        # sparse, 3 of 10 entries stored (a fuller CSR matrix runs dense: test_dense_storage.py)
        ("epsilon_insensitive", (20_000, 10, True, 2, 3.0), "dual_cd"),
        ("epsilon_insensitive", WIDE, "dual_cd"),
        ("squared_epsilon_insensitive", TALL, "tron"),
        ("squared_epsilon_insensitive", WIDE, "dual_cd"),
        ("smoothed_epsilon_insensitive", WIDE, "tron"),
    ],
)
def test_auto_rule_linear_svr(loss, regime, expected) -> None:
    X, _ = data(*regime)
    y = np.asarray(X @ rng.standard_normal(X.shape[1])).ravel()
    reg = svmkit.LinearSVR(loss=loss, max_iter=5)
    with _quiet():
        reg.fit(X, y)
    assert reg.solver_ == expected


def test_auto_sparse_l1_hinge_boundary() -> None:
    """The pure l1 hinge with more than IPM_MAX_FEATURES features goes to ipm (its working
    set) with n_samples <= IPM_L1_WIDE_RATIO * n_features, sparse or dense, to l1_cd on taller
    data; the elastic net (l1_ratio < 1) keeps its rule."""
    rule = auto_solver_name
    d = IPM_MAX_FEATURES + 100
    n = IPM_L1_WIDE_RATIO * d
    assert rule("hinge", "l1", n, d, True, None, 1.0, 30.0) == "ipm"
    assert rule("hinge", "l1", n + 1, d, True, None, 1.0, 30.0) == "l1_cd"
    assert rule("hinge", "l1", 10, d, True, 5.0, 1.0, None) == "ipm"  # dense
    assert rule("hinge", "l1", n + 1, d, True, 5.0, 1.0, None) == "l1_cd"
    assert rule("hinge", "l1", 10, d, False, None, 1.0, 30.0) == "ipm"  # free bias: the LP's
    assert rule("hinge", "elasticnet", 10, d, True, None, 0.5, 30.0) == "dual_cd"


def test_auto_hinge_elastic_net_on_dense_wide_data() -> None:
    """The hinge elastic net on dense data with fewer samples than features goes to ipm (its
    working set in the sample form) up to ENET_WIDE_MAX_SCALE (C * mean ||x||^2) and stays with
    dual_cd above it; sparse wide data and dense data between n_features and 25 n_features
    samples keep dual_cd; 25 n_features and more go to l1_cd."""
    rule = auto_solver_name
    d = IPM_MAX_FEATURES + 100  # fewer features go to ipm
    assert rule("hinge", "elasticnet", 100, d, True, ENET_WIDE_MAX_SCALE) == "ipm"
    assert rule("hinge", "elasticnet", 100, d, True, 2 * ENET_WIDE_MAX_SCALE) == "dual_cd"
    assert rule("hinge", "elasticnet", 100, d, False, ENET_WIDE_MAX_SCALE) == "ipm"
    assert rule("hinge", "elasticnet", 100, d, True, None) == "dual_cd"  # sparse
    assert rule("hinge", "elasticnet", 2 * d, d, True, 100.0) == "dual_cd"
    assert rule("hinge", "elasticnet", d, d, True, 100.0) == "dual_cd"
    assert rule("hinge", "elasticnet", d - 1, d, True, 100.0) == "ipm"
    assert rule("hinge", "elasticnet", 25 * d, d, True, 100.0) == "l1_cd"
    # and the estimator takes the rule's choice (wide dense, C * mean ||x||^2 of a few hundred),
    # converged (certified) at the clarabel optimum
    rng = np.random.default_rng(4)
    X = rng.standard_normal((40, d))
    y = np.where(X[:, 0] + 0.3 * rng.standard_normal(40) > 0, 1, -1)
    clf = svmkit.LinearSVC(loss="hinge", penalty="elasticnet", tol=1e-8).fit(X, y)
    assert clf.solver_ == "ipm"
    assert clf.result_[0]["status"] == svmkit.SolverStatus.converged
    s = np.where(y > 0, 1.0, -1.0)
    _, _, F = primal_svm(X, s, np.ones(40), l1=0.5, l2=0.5, reg_b=True)
    assert clf.result_[0]["objective"] == pytest.approx(F, rel=1e-6)
    with _quiet():
        clf = svmkit.LinearSVC(loss="hinge", penalty="elasticnet", C=1e6).fit(X, y)
    assert clf.solver_ == "dual_cd"  # 1e6 * 600 > ENET_WIDE_MAX_SCALE


def test_auto_rule_linear_svr_epsilon_scale_and_intercept() -> None:
    """Badly scaled dense data go to tron's continuation (dual_cd stalls at max_iter there),
    an unregularized intercept to tron too (dual_cd has none; the continuation's certificate
    handles the free bias's dual constraint)."""
    X, _ = data(*TALL)
    y = X @ rng.standard_normal(X.shape[1])
    with _quiet():
        scaled = svmkit.LinearSVR(max_iter=5).fit(X * 10.0, y)
        plain = svmkit.LinearSVR(max_iter=5).fit(X, y)
        free_bias = svmkit.LinearSVR(regularize_intercept=False, max_iter=5).fit(X, y)
    assert (scaled.solver_, plain.solver_, free_bias.solver_) == ("tron", "dual_cd", "tron")
    assert auto_solver_name("epsilon_insensitive", "l2", 100, 5000, False, None) == "tron"
    n, d = X.shape
    scale = hinge_dual_scale(X * 10.0, 1.0)
    assert scale > HINGE_DUAL_SCALE
    assert auto_solver_name("epsilon_insensitive", "l2", n, d, True, scale) == "tron"
    assert auto_solver_name("epsilon_insensitive", "l2", n, d, True, None) == "dual_cd"
    assert auto_solver_name("epsilon_insensitive", "l2", 10_000, 100, True, 1.0) == "tron"
    assert auto_solver_name("epsilon_insensitive", "l2", 9_999, 10, True, 1.0) == "dual_cd"
    assert auto_solver_name("epsilon_insensitive", "l2", 10_000, 100, True, None) == "dual_cd"


def test_auto_is_deterministic() -> None:
    X, y = data(*SPARSE_WIDE)
    a = svmkit.LinearSVC(loss="hinge").fit(X, y)
    b = svmkit.LinearSVC(loss="hinge").fit(X, y)
    assert a.solver_ == b.solver_
    np.testing.assert_array_equal(a.coef_, b.coef_)


def _svr_objective(X, y, w, b, C, eps):
    r = X @ w + b - y
    return 0.5 * (w @ w + b * b) + C * np.maximum(0.0, np.abs(r) - eps).sum()


def test_linear_svr_default_is_scikit_learns_model() -> None:
    """LinearSVR() minimizes the epsilon-insensitive loss, as scikit-learn's LinearSVR()."""
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = (y - y.mean()) / y.std()
    ours = svmkit.LinearSVR(tol=1e-6, max_iter=100000).fit(X, y)
    ref = SkLinearSVR(tol=1e-6, max_iter=100000, random_state=0).fit(X, y)
    assert ours.loss == ref.loss == "epsilon_insensitive"
    f_ours = _svr_objective(X, y, ours.coef_, ours.intercept_[0], 1.0, 0.0)
    f_ref = _svr_objective(X, y, ref.coef_, ref.intercept_[0], 1.0, 0.0)
    assert f_ours <= f_ref * (1 + 1e-4)
    assert abs(ours.score(X, y) - ref.score(X, y)) < 5e-3


class _quiet:
    """Silence ConvergenceWarning of the deliberately short fits above."""

    def __enter__(self):
        import warnings

        self._ctx = warnings.catch_warnings()
        self._ctx.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._ctx.__exit__(*exc)


# scikit-learn's dual= (for code written for it): which solver each setting takes, and the
# fits against scikit-learn's LinearSVC with the same dual, whose objective is LIBLINEAR's.
@pytest.mark.parametrize(
    ("kw", "solver"),
    [
        ({"dual": True}, "dual_cd"),
        ({"dual": False}, "tron"),
        ({"dual": False, "penalty": "l1"}, "l1_cd"),
        ({"dual": False, "penalty": "elasticnet"}, "l1_cd"),
        ({"dual": False, "loss": "hinge"}, "tron"),
        ({"dual": True, "loss": "hinge"}, "dual_cd"),
        ({"dual": True, "solver": "dual_cd"}, "dual_cd"),
        ({"dual": False, "solver": "smsvm", "loss": "hinge"}, "smsvm"),
        ({"dual": "auto", "solver": "tron"}, "tron"),
    ],
)
def test_dual_picks_the_solver(kw, solver):
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    assert svmkit.LinearSVC(**kw).fit(X, y).solver_ == solver


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"dual": True, "penalty": "l1"}, "dual=True .* does not handle"),
        ({"dual": True, "solver": "tron"}, "solver='tron' and dual=True disagree"),
        ({"dual": False, "solver": "dual_cd"}, "solver='dual_cd' and dual=False disagree"),
        ({"dual": "yes"}, "dual must be one of 'auto'"),
        ({"dual": 1.5}, "dual must be"),
    ],
)
def test_dual_conflicts_are_errors(kw, match):
    with pytest.raises(ValueError, match=match):
        svmkit.LinearSVC(**kw).fit(np.eye(4), [0, 1, 0, 1])


@pytest.mark.parametrize("penalty, loss", [("l1", "squared_hinge"), ("l2", "squared_hinge")])
def test_dual_false_matches_scikit_learn(penalty, loss):
    """scikit-learn's LinearSVC(penalty=..., dual=False) (LIBLINEAR -s 5 / -s 2) and
    svmkit's with the same arguments reach the same objective."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.svm import LinearSVC as SkLinearSVC

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    kw = {"penalty": penalty, "loss": loss, "dual": False, "tol": 1e-8, "max_iter": 100_000}
    ours = svmkit.LinearSVC(**kw).fit(X, y)
    theirs = SkLinearSVC(**kw, random_state=0).fit(X, y)
    s = np.where(y == 1, 1.0, -1.0)

    def objective(est):
        w, b = est.coef_.ravel(), float(est.intercept_[0])
        reg = np.abs(w).sum() + abs(b) if penalty == "l1" else 0.5 * (w @ w + b * b)
        return reg + np.sum(np.maximum(0.0, 1.0 - s * (X @ w + b)) ** 2)

    assert objective(ours) == pytest.approx(objective(theirs), rel=1e-5)
