"""ipm: the interior-point method for the l1 / elastic-net / l2 hinge-loss SVM and the
epsilon-insensitive SVR.

References: clarabel solving the same problem exactly (tests/references.primal_svm), and
LIBLINEAR's dual coordinate descent (scikit-learn's LinearSVC(loss="hinge"), -s 3, and
LinearSVR, -s 13) for the l2 hinge and the epsilon-insensitive loss with their regularized bias.
The result's optimality (its certificate) must bound the true relative gap. Data:
scikit-learn's bundled breast_cancer, iris, digits and diabetes, and seeded generators.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import primal_svm, scaled_separable
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_iris,
    make_classification,
    make_regression,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC
from sklearn.svm import LinearSVR as SkLinearSVR
from svmkit import _core
from svmkit.datasets import make_sparse_text_like


def cancer(n: int = 300, standardize: bool = True):
    X, y = load_breast_cancer(return_X_y=True)
    if standardize:
        X = StandardScaler().fit_transform(X)
    return X[:n], np.where(y[:n] > 0, 1.0, -1.0)


def text(seed: int = 0):
    X, y = make_sparse_text_like(400, 120, density=0.08, random_state=seed)
    return sp.csr_matrix(X), np.where(y > 0, 1.0, -1.0)


def hinge_objective(X, y, cost, w, b, l1, l2, bias_l2) -> float:
    z = np.asarray(X @ w).ravel() + b
    loss = np.maximum(0.0, 1.0 - y * z)
    return float(l1 * np.abs(w).sum() + 0.5 * l2 * (w @ w) + 0.5 * bias_l2 * b * b + cost @ loss)


PENALTIES = [("l1", 1.0, 0.0), ("elasticnet", 0.5, 0.5), ("l2", 0.0, 1.0)]


def check_certified(res: dict, F_fit: float, F_exact: float, tol: float, bound) -> None:
    """A converged result whose objective is F at its point, within tol of the exact optimum by
    its certificate (which bounds the true gap), and within bound of it where given."""
    assert res["status"] == _core.SolverStatus.converged, res["message"]
    assert F_fit == pytest.approx(res["objective"], rel=1e-10)
    rel = (F_fit - F_exact) / F_exact
    assert rel <= res["optimality"] + 1e-9  # the certificate bounds the true gap
    assert res["optimality"] <= tol
    if bound is not None:
        assert abs(rel) <= bound, (tol, rel)


@pytest.mark.parametrize(("penalty", "l1", "l2"), PENALTIES)
@pytest.mark.parametrize("data", ["cancer", "raw_cancer", "text", "separable"])
@pytest.mark.parametrize("regularize_intercept", [True, False])
def test_matches_the_exact_qp(penalty, l1, l2, data, regularize_intercept) -> None:
    """Every penalty, dense and sparse, badly scaled and near-separable data, the bias penalized
    or free: at tol 1e-9 the objective is the exact optimum's; at the default tol the certificate
    bounds the true gap."""
    C = 1.0
    if data == "cancer":
        X, y = cancer()
    elif data == "raw_cancer":
        X, y = cancer(standardize=False)
    elif data == "text":
        X, y = text()
    else:
        X, y = scaled_separable(600, 10)
        C = 100.0
    cost = np.full(len(y), C)
    bias_l2 = l2 if regularize_intercept else 0.0
    _, _, F = primal_svm(X, y, cost, l1=l1, l2=l2, reg_b=bias_l2 > 0.0)
    for tol, bound in [(1e-9, 1e-7), (1e-4, None)]:
        clf = svmkit.LinearSVC(
            loss="hinge",
            penalty=penalty,
            C=C,
            solver="ipm",
            tol=tol,
            regularize_intercept=regularize_intercept,
        ).fit(X, y)
        res = clf.result_[0]
        F_ipm = hinge_objective(X, y, cost, clf.coef_[0], clf.intercept_[0], l1, l2, bias_l2)
        check_certified(res, F_ipm, F, tol, bound)
        assert 5 <= res["iterations"] <= 60


def test_costs_intercept_scaling_and_no_intercept() -> None:
    """Per-sample costs (sample and class weights), intercept_scaling and fit_intercept=False
    enter the problem as in the exact reference."""
    X, y = cancer(200)
    rng = np.random.default_rng(3)
    sw = rng.uniform(0.2, 3.0, len(y))
    for fit_intercept, scaling in [(True, 3.0), (False, 1.0)]:
        clf = svmkit.LinearSVC(
            loss="hinge",
            penalty="elasticnet",
            solver="ipm",
            C=2.0,
            tol=1e-10,
            fit_intercept=fit_intercept,
            intercept_scaling=scaling,
            class_weight={-1: 2.0, 1: 1.0},
        ).fit(X, y, sample_weight=sw)
        cost = 2.0 * sw * np.where(y < 0, 2.0, 1.0)
        _, _, F = primal_svm(
            X, y, cost, l1=0.5, l2=0.5, fit_intercept=fit_intercept, scaling=scaling
        )
        assert clf.result_[0]["objective"] == pytest.approx(F, rel=1e-8)
        if not fit_intercept:
            assert clf.intercept_[0] == 0.0


def test_zero_cost_rows_are_left_out() -> None:
    """Rows of zero weight do not enter the problem (the same fit as without them)."""
    X, y = cancer(200)
    sw = np.ones(len(y))
    sw[::3] = 0.0
    a = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="ipm", tol=1e-10)
    a.fit(X, y, sample_weight=sw)
    b = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="ipm", tol=1e-10)
    b.fit(X[sw > 0], y[sw > 0])
    assert a.result_[0]["objective"] == pytest.approx(b.result_[0]["objective"], rel=1e-9)
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-6)


def test_l2_hinge_matches_liblinear() -> None:
    """The l2 hinge with a regularized bias is LIBLINEAR -s 3's problem (scikit-learn's
    LinearSVC(loss="hinge"), run to a tight tolerance)."""
    X, y = cancer(400)
    ref = SkLinearSVC(loss="hinge", C=0.5, tol=1e-10, max_iter=10**6, dual=True).fit(X, y)
    w, b = ref.coef_[0], ref.intercept_[0]
    cost = np.full(len(y), 0.5)
    F_ref = hinge_objective(X, y, cost, w, b, 0.0, 1.0, 1.0)
    clf = svmkit.LinearSVC(loss="hinge", C=0.5, solver="ipm", tol=1e-10).fit(X, y)
    assert clf.result_[0]["objective"] == pytest.approx(F_ref, rel=1e-6)
    np.testing.assert_allclose(clf.coef_[0], w, atol=1e-4)


def test_multiclass_float32_and_threads() -> None:
    """One-vs-rest over iris and digits; float32 input solves the same problem; 1 and 2 threads
    give identical fits."""
    X, y = load_iris(return_X_y=True)
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="ipm", tol=1e-10).fit(X, y)
    for k, cls in enumerate(clf.classes_):
        yy = np.where(y == cls, 1.0, -1.0)
        _, _, F = primal_svm(X, yy, 1.0, l1=1.0, l2=0.0, reg_b=False)
        assert clf.result_[k]["objective"] == pytest.approx(F, rel=1e-7)
    X, y = load_digits(return_X_y=True)
    X = X[:600] / 16.0
    y = y[:600]
    kw = dict(loss="hinge", penalty="elasticnet", solver="ipm")
    one = svmkit.LinearSVC(**kw, n_jobs=1).fit(X, y)
    two = svmkit.LinearSVC(**kw, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)
    f32 = svmkit.LinearSVC(**kw, tol=1e-9).fit(X.astype(np.float32), y)
    f64 = svmkit.LinearSVC(**kw, tol=1e-9).fit(X.astype(np.float32).astype(np.float64), y)
    for a, b in zip(f32.result_, f64.result_):
        assert a["objective"] == pytest.approx(b["objective"], rel=1e-8)


def test_history_max_iter_and_callback() -> None:
    """One record per iteration with the certified gap; max_iter ends with a stated gap and a
    ConvergenceWarning; a callback returning False stops the run (status interrupted)."""
    X, y = cancer()
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="ipm").fit(X, y)
    hist = clf.result_[0]["history"]
    assert len(hist["iteration"]) == clf.result_[0]["iterations"]
    assert np.all(hist["gap"] >= 0.0)
    assert hist["gap"][-1] == clf.result_[0]["optimality"] <= 1e-4  # the last step crossed tol
    assert hist["gap"][-2] > 1e-4
    with pytest.warns(ConvergenceWarning, match="relative duality gap"):
        short = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="ipm", max_iter=3).fit(X, y)
    assert short.result_[0]["status"] == _core.SolverStatus.max_iter
    _, _, F = primal_svm(X, y, 1.0, l1=1.0, l2=0.0, reg_b=False)
    res = short.result_[0]
    assert (res["objective"] - F) / res["objective"] <= res["optimality"] + 1e-12
    seen = []

    def stop_after_two(rec) -> bool:
        seen.append(rec)
        return len(seen) < 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        stopped = svmkit.LinearSVC(
            loss="hinge", penalty="l1", solver="ipm", callback=stop_after_two
        ).fit(X, y)
    assert stopped.result_[0]["status"] == _core.SolverStatus.interrupted
    assert len(seen) == 2


def test_warm_start_is_ignored_with_a_warning() -> None:
    X, y = cancer()
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="ipm", warm_start=True).fit(X, y)
    with pytest.warns(UserWarning, match="ipm starts from its own interior point"):
        clf.fit(X, y)


def core_fit(X, y, loss="hinge", l1=1.0, l2=0.0, **options):
    return _core.fit_ipm(X, y, np.ones(len(y)), loss, l1, l2, True, 1.0, True, options, None)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (
            lambda X, y: core_fit(X, y, loss="squared_hinge"),
            "ipm handles the losses 'hinge' and 'epsilon_insensitive' only",
        ),
        (
            lambda X, y: core_fit(X, y, loss="epsilon_insensitive", l1=0.5, l2=0.5),
            "epsilon-insensitive loss with the l2 penalty only",
        ),
        (lambda X, y: core_fit(X, y * 2.0), "targets must be -1 or \\+1"),
        (lambda X, y: core_fit(X, y, l1=0.0, l2=0.0), "penalty weights l1 and l2"),
        (lambda X, y: core_fit(X, y, l1=-1.0), "penalty weights l1 and l2"),
        (lambda X, y: core_fit(X, y, l1=np.nan), "penalty weights l1 and l2"),
        (lambda X, y: core_fit(X, y, tol=0.0), "tol"),
        (lambda X, y: core_fit(X, y, step_fraction=1.0), "step_fraction"),
        (lambda X, y: core_fit(X, y, max_iter=-1), "max_iter"),
        (lambda X, y: core_fit(X, y, max_system_mb=0.001), "max_system_mb"),
        (lambda X, y: core_fit(X, y, no_such_option=1), "no_such_option"),
    ],
)
def test_invalid_input_is_a_clear_error(call, message) -> None:
    X, y = cancer(50)
    with pytest.raises(ValueError, match=message):
        call(np.ascontiguousarray(X), y)


def test_estimator_refuses_other_losses() -> None:
    X, y = cancer(50)
    with pytest.raises(ValueError, match="ipm"):
        svmkit.LinearSVC(loss="squared_hinge", penalty="l1", solver="ipm").fit(X, y)


def test_auto_picks_ipm_for_few_features() -> None:
    """solver="auto" sends the l1 / elastic-net hinge with few features to ipm (the rule's own
    table is in test_auto.py); the fit is the exact optimum's."""
    X, y = make_classification(300, 12, random_state=0)
    yy = np.where(y > 0, 1.0, -1.0)
    for penalty, l1, l2 in PENALTIES[:2]:
        clf = svmkit.LinearSVC(loss="hinge", penalty=penalty).fit(X, y)
        assert clf.solver_ == "ipm"
        _, _, F = primal_svm(X, yy, 1.0, l1=l1, l2=l2, reg_b=l2 > 0)
        assert (clf.result_[0]["objective"] - F) / F <= 1e-4


def regression(kind: str):
    if kind == "diabetes":
        X, y = load_diabetes(return_X_y=True)
        X = X[:300]
        y = y[:300]
    elif kind == "scaled":  # features on scales 0.2-2 with noise: dual_cd stalls here
        X, y = make_regression(400, 12, noise=10.0, random_state=2)
        X = X * np.logspace(0, 1, 12) / 5.0
    else:  # sparse
        X = sp.random(300, 40, density=0.2, format="csr", random_state=3)
        y = np.asarray(X @ np.random.default_rng(3).standard_normal(40)).ravel()
    y = (y - y.mean()) / y.std()
    return X, y


@pytest.mark.parametrize("kind", ["diabetes", "scaled", "sparse"])
@pytest.mark.parametrize("regularize_intercept", [True, False])
@pytest.mark.parametrize("epsilon", [0.0, 0.3])
def test_epsilon_insensitive_matches_the_exact_qp(kind, regularize_intercept, epsilon) -> None:
    """LinearSVR's loss: the exact optimum at tol 1e-9, the certificate bounding the true gap at
    the default tol."""
    X, y = regression(kind)
    C = 2.0
    _, _, F = primal_svm(
        X,
        y,
        np.full(len(y), C),
        loss="epsilon_insensitive",
        epsilon=epsilon,
        l2=1.0,
        reg_b=regularize_intercept,
    )
    for tol, bound in [(1e-9, 1e-7), (1e-4, None)]:
        reg = svmkit.LinearSVR(
            C=C,
            epsilon=epsilon,
            solver="ipm",
            tol=tol,
            regularize_intercept=regularize_intercept,
        ).fit(X, y)
        res = reg.result_[0]
        z = np.asarray(X @ reg.coef_).ravel() + reg.intercept_
        bias = reg.intercept_ if regularize_intercept else 0.0
        F_ipm = (
            0.5 * (reg.coef_ @ reg.coef_ + bias * bias)
            + C * np.maximum(0.0, np.abs(y - z) - epsilon).sum()
        )
        check_certified(res, F_ipm, F, tol, bound)


def test_epsilon_insensitive_matches_liblinear() -> None:
    """LIBLINEAR -s 13 (scikit-learn's LinearSVR, dual, run to a tight tolerance)."""
    X, y = regression("diabetes")
    ref = SkLinearSVR(C=1.0, epsilon=0.1, tol=1e-10, max_iter=10**6, dual=True).fit(X, y)
    reg = svmkit.LinearSVR(C=1.0, epsilon=0.1, solver="ipm", tol=1e-10).fit(X, y)
    z = X @ ref.coef_ + ref.intercept_[0]
    F_ref = (
        0.5 * (ref.coef_ @ ref.coef_ + ref.intercept_[0] ** 2)
        + np.maximum(0.0, np.abs(y - z) - 0.1).sum()
    )
    assert reg.result_[0]["objective"] == pytest.approx(F_ref, rel=1e-6)


def test_linear_svr_auto_finishes_with_ipm_where_dual_cd_stalls() -> None:
    """solver="auto" for LinearSVR() on few features: where dual_cd's -s 13 dual ends at
    max_iter above the optimum, ipm finishes (exact, no warning); where dual_cd converges, or
    with a max_iter of the user's, or a named solver, nothing else runs."""
    from sklearn.exceptions import ConvergenceWarning
    from svmkit._solvers import IPM_EPS_MAX_FEATURES

    X, y = regression("scaled")
    assert X.shape[1] <= IPM_EPS_MAX_FEATURES
    _, _, F = primal_svm(X, y, 1.0, loss="epsilon_insensitive", epsilon=0.0, l2=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        auto = svmkit.LinearSVR().fit(X, y)
    res = auto.result_[0]
    assert auto.solver_ == "dual_cd" and res["finished_by"] == "ipm"
    assert res["started_by"]["status"] == _core.SolverStatus.max_iter
    # dual_cd gave up at its pass budget (IPM_EPS_DUAL_MAX_PASSES), long before max_iter
    assert "pass budget" in res["started_by"]["message"]
    assert res["started_by"]["iterations"] < 1000
    assert res["status"] == _core.SolverStatus.converged
    assert (res["objective"] - F) / F <= 1e-4
    with pytest.warns(ConvergenceWarning):
        named = svmkit.LinearSVR(solver="dual_cd").fit(X, y)
    assert (named.result_[0]["objective"] - F) / F > 1e-3  # what ipm finished
    assert "finished_by" not in named.result_[0]
    with pytest.warns(ConvergenceWarning):
        capped = svmkit.LinearSVR(max_iter=1000).fit(X, y)
    assert "finished_by" not in capped.result_[0]
    Xd, yd = regression("diabetes")
    plain = svmkit.LinearSVR().fit(Xd, yd)
    assert plain.result_[0]["status"] == _core.SolverStatus.converged
    assert "finished_by" not in plain.result_[0]


def test_linear_svr_keeps_the_better_point_when_ipm_does_not_converge(monkeypatch) -> None:
    """The finisher without a fallback solver: an ipm run that does not converge replaces
    dual_cd's point only where its objective is lower; otherwise dual_cd's result stands (with its
    ConvergenceWarning)."""
    import dataclasses

    from sklearn.exceptions import ConvergenceWarning
    from svmkit import _solvers

    X, y = regression("scaled")
    spec = _solvers.LINEAR_SOLVERS["dual_cd"]
    exact = spec.finisher.exact

    def failing(objective_shift):
        def fit(req, first):
            out = exact.fit(req, first)
            return {
                **out,
                "status": _core.SolverStatus.max_iter,
                "objective": first["objective"] + objective_shift,
            }

        return fit

    for shift, finished in [(1.0, "dual_cd"), (-1.0, "ipm")]:
        patched = dataclasses.replace(
            spec,
            finisher=dataclasses.replace(
                spec.finisher, exact=dataclasses.replace(exact, fit=failing(shift))
            ),
        )
        monkeypatch.setitem(_solvers.LINEAR_SOLVERS, "dual_cd", patched)
        with pytest.warns(ConvergenceWarning):
            reg = svmkit.LinearSVR().fit(X, y)
        assert reg.result_[0]["finished_by"] == finished


def test_auto_hands_an_uncertified_ipm_run_to_l1_cd() -> None:
    """Where solver="auto"'s ipm ends uncertified (here its max_iter, set through
    solver_options), l1_cd and its finishers solve the problem from their own start."""
    X, y = cancer()
    _, _, F = primal_svm(X, y, 1.0, l1=1.0, l2=0.0, reg_b=False)
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1", solver_options={"max_iter": 2}).fit(X, y)
    res = clf.result_[0]
    assert clf.solver_ == "ipm"
    assert res["started_by"]["status"] == _core.SolverStatus.max_iter
    assert res["finished_by"] in ("l1_cd", "highs", "smsvm")
    assert res["status"] == _core.SolverStatus.converged
    assert (res["objective"] - F) / F <= 1e-4
    # a named solver is never replaced
    with pytest.warns(ConvergenceWarning):
        named = svmkit.LinearSVC(
            loss="hinge", penalty="l1", solver="ipm", solver_options={"max_iter": 2}
        ).fit(X, y)
    assert "finished_by" not in named.result_[0]
