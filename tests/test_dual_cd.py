"""Dual coordinate descent (solver "dual_cd") against independent references.

References: liblinear-official (-s 3, 1, 13, 12 with -B 1, the same dual solvers run to a
tight eps), clarabel solving the primal QP with slack variables (hinge and epsilon-insensitive,
non-uniform costs with zero entries), and scikit-learn's LinearSVC / LinearSVR at their
defaults. Objectives are evaluated in numpy from the returned w and b, never taken from an
earlier svmkit run.
"""

from __future__ import annotations

import re
import signal
import threading
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from liblinear import liblinearutil
from references import primal_svm
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC
from sklearn.svm import LinearSVR as SkLinearSVR
from svmkit import _core
from svmkit.datasets import make_sparse_text_like

TIGHT = {"tol": 1e-10, "max_iter": 200000}
LIBLINEAR_SOLVER = {
    "hinge": 3,
    "squared_hinge": 1,
    "epsilon_insensitive": 13,
    "squared_epsilon_insensitive": 12,
}


def primal_objective(X, y, cost, w, b, loss, epsilon=0.0, scaling=1.0) -> float:
    """1/2 (||w||^2 + b^2) + sum_i cost_i loss(u_i), with z = X w + b * scaling."""
    z = np.asarray(X @ w).ravel() + b * scaling
    if loss in ("hinge", "squared_hinge"):
        t = np.maximum(0.0, 1.0 - y * z)
    else:
        t = np.maximum(0.0, np.abs(z - y) - epsilon)
    if loss.startswith("squared"):
        t = t * t
    return 0.5 * (w @ w + b * b) + float(np.sum(cost * t))


def breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


def text_like(n=400, m=1500):
    X, y = make_sparse_text_like(n, m, density=0.02, random_state=3)
    return X, y


def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), (y - y.mean()) / y.std()


def sparse_regression():
    X, _ = make_sparse_text_like(400, 1500, density=0.02, random_state=4)
    rng = np.random.default_rng(4)
    y = X @ rng.standard_normal(1500) + 0.1 * rng.standard_normal(400)
    return X, y


def core_fit(
    X,
    y,
    cost,
    loss,
    epsilon=0.0,
    fit_intercept=True,
    scaling=1.0,
    elastic_net=None,
    bias_l1=0.0,
    **options,
):
    """_core.fit_dual_cd, or fit_dual_cd_elastic_net with elastic_net = (l1, l2) and the
    bias's l1 weight bias_l1."""
    Xc = X
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        Xc = (X.data, X.indices, X.indptr, X.shape[0], X.shape[1])
    y = np.ascontiguousarray(y, dtype=np.float64)
    cost = np.ascontiguousarray(cost, dtype=np.float64)
    if elastic_net is not None:
        l1, l2 = elastic_net
        args = (l1, l2, fit_intercept, scaling, True, options, None)
        return _core.fit_dual_cd_elastic_net(Xc, y, cost, loss, *args, bias_l1=bias_l1)
    args = (0.1, epsilon, fit_intercept, scaling, True, None, options, None)
    return _core.fit_dual_cd(Xc, y, cost, loss, *args)


def split(res, fit_intercept=True):
    sol = np.asarray(res["solution"])
    return (sol[:-1], sol[-1]) if fit_intercept else (sol, 0.0)


def liblinear_wb(X, y, loss, C, epsilon=0.0):
    """w, b from liblinear-official at eps 1e-8 (its bias -B 1 is regularized, as ours)."""
    opts = f"-s {LIBLINEAR_SOLVER[loss]} -c {C} -B 1 -e 1e-8 -q"
    if "epsilon" in loss:
        opts += f" -p {epsilon}"
    model = liblinearutil.train(y, sp.csr_matrix(X) if sp.issparse(X) else X, opts)
    w, b = model.get_decfun()
    w = np.asarray(w)
    if not model.is_regression_model() and model.get_labels()[0] != 1:
        w, b = -w, -b
    return w, float(b)


# ---------------------------------------------------------------------------------------------
# (a) objective against liblinear-official at a tight tolerance. LIBLINEAR stops its dual
# solvers after 1000 outer iterations whatever eps says, so C is chosen per set where it
# converges well within them (harder cases are covered by the exact QP below).


CLASSIFICATION_CASES = [
    ("hinge", "breast_cancer", 0.03),
    ("hinge", "text_like", 1.0),
    ("squared_hinge", "breast_cancer", 1.0),
    ("squared_hinge", "text_like", 1.0),
]
REGRESSION_CASES = [
    ("epsilon_insensitive", "diabetes", 0.01),
    ("epsilon_insensitive", "sparse_regression", 0.1),
    ("squared_epsilon_insensitive", "diabetes", 1.0),
    ("squared_epsilon_insensitive", "sparse_regression", 1.0),
]
DATA = {
    "breast_cancer": breast_cancer,
    "text_like": text_like,
    "diabetes": diabetes,
    "sparse_regression": sparse_regression,
}


@pytest.mark.parametrize("loss,data,C", CLASSIFICATION_CASES + REGRESSION_CASES)
def test_objective_matches_liblinear(loss: str, data: str, C: float) -> None:
    X, y = DATA[data]()
    eps = 0.1 if "epsilon" in loss else 0.0
    cost = np.full(len(y), C)
    res = core_fit(X, y, cost, loss, eps, **TIGHT)
    assert res["status"].name == "converged"
    w, b = split(res)
    f = primal_objective(X, y, cost, w, b, loss, eps)
    w_ref, b_ref = liblinear_wb(X, y, loss, C, eps)
    f_ref = primal_objective(X, y, cost, w_ref, b_ref, loss, eps)
    # LIBLINEAR's dual solvers stop at a hard-coded 1000 iterations and draw their coordinate
    # order from the C library's global rand(), so on the slow hinge cases its answer depends on
    # which tests ran before; it is then the one further from the optimum. Within 1e-6 when it
    # converged, never worse than it in any case (the exact QP tests bound ours from below).
    assert f <= f_ref + 1e-6 * abs(f_ref)
    assert abs(f - f_ref) <= 1e-6 * abs(f_ref) or f < f_ref
    assert res["objective"] == pytest.approx(f, rel=1e-12)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_estimator_matches_liblinear_multiclass(loss: str) -> None:
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    C = 0.1
    est = svmkit.LinearSVC(loss=loss, C=C, solver="dual_cd", **TIGHT).fit(X, y)
    assert est.solver_ == "dual_cd" and est.coef_.shape == (3, 4)
    for k, label in enumerate(est.classes_):
        yk = np.where(y == label, 1.0, -1.0)
        cost = np.full(len(y), C)
        f = primal_objective(X, yk, cost, est.coef_[k], est.intercept_[k], loss)
        w_ref, b_ref = liblinear_wb(X, yk, loss, C)
        f_ref = primal_objective(X, yk, cost, w_ref, b_ref, loss)
        assert abs(f - f_ref) <= 1e-6 * abs(f_ref)


# ---------------------------------------------------------------------------------------------
# (b) against the exact primal QP (clarabel): non-uniform costs with zeros


def qp_objective(X, y, cost, loss, epsilon=0.0, fit_intercept=True, scaling=1.0) -> float:
    """min 1/2 (||w||^2 + b^2) + sum c_i xi_i (xi_i^2 for the squared losses)."""
    kw = dict(epsilon=epsilon, fit_intercept=fit_intercept, scaling=scaling, tol=1e-11)
    return primal_svm(X, y, cost, loss=loss, **kw)[2]


def small_problem(task: str, n: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, 6))
    if task == "classification":
        y = np.where(X @ rng.standard_normal(6) + 0.8 * rng.standard_normal(n) > 0, 1.0, -1.0)
    else:
        y = X @ rng.standard_normal(6) + 0.5 * rng.standard_normal(n)
    cost = rng.uniform(0.05, 3.0, n)
    cost[rng.choice(n, size=n // 8, replace=False)] = 0.0
    return X, y, cost


@pytest.mark.parametrize("n,seed", [(40, 0), (80, 1)])
@pytest.mark.parametrize("loss", list(LIBLINEAR_SOLVER))
def test_matches_exact_qp_with_zero_costs(loss: str, n: int, seed: int) -> None:
    task = "classification" if "hinge" in loss else "regression"
    X, y, cost = small_problem(task, n, seed)
    eps = 0.2 if task == "regression" else 0.0
    res = core_fit(X, y, cost, loss, eps, scaling=1.5, **TIGHT)
    assert res["status"].name == "converged"
    w, b = split(res)
    f = primal_objective(X, y, cost, w, b, loss, eps, scaling=1.5)
    f_ref = qp_objective(X, y, cost, loss, eps, scaling=1.5)
    assert abs(f - f_ref) <= 1e-7 * abs(f_ref)


@pytest.mark.parametrize("loss", ["hinge", "epsilon_insensitive"])
def test_zero_rows_without_intercept(loss: str) -> None:
    """Rows of zeros (Q_ii = 0 without a bias) are set to their closed-form optimum."""
    task = "classification" if loss == "hinge" else "regression"
    X, y, cost = small_problem(task, 50, 7)
    X[[3, 10, 20]] = 0.0
    eps = 0.2 if task == "regression" else 0.0
    res = core_fit(X, y, cost, loss, eps, fit_intercept=False, **TIGHT)
    assert res["status"].name == "converged"
    w, _ = split(res, fit_intercept=False)
    f = primal_objective(X, y, cost, w, 0.0, loss, eps)
    f_ref = qp_objective(X, y, cost, loss, eps, fit_intercept=False)
    assert abs(f - f_ref) <= 1e-7 * abs(f_ref)


# ---------------------------------------------------------------------------------------------
# (c) the estimators at their defaults against scikit-learn's at theirs


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize("data", ["breast_cancer", "text_like"])
def test_linear_svc_defaults_match_sklearn(loss: str, data: str) -> None:
    X, y = DATA[data]()
    with warnings.catch_warnings():
        # At C = 1 the hinge loss on breast_cancer needs over 1000 iterations at tol 1e-4,
        # for LIBLINEAR (scikit-learn warns) as for svmkit.
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = svmkit.LinearSVC(loss=loss, solver="dual_cd", random_state=0).fit(X, y)
        ref = SkLinearSVC(loss=loss, dual=True, random_state=0).fit(X, y)
    cost = np.ones(len(y))
    f = primal_objective(X, y, cost, ours.coef_[0], ours.intercept_[0], loss)
    f_ref = primal_objective(X, y, cost, ref.coef_[0], ref.intercept_[0], loss)
    assert abs(f - f_ref) <= 1e-3 * abs(f_ref)
    assert abs(ours.score(X, y) - ref.score(X, y)) <= 0.01


@pytest.mark.parametrize("loss", ["epsilon_insensitive", "squared_epsilon_insensitive"])
@pytest.mark.parametrize("data", ["diabetes", "sparse_regression"])
def test_linear_svr_defaults_match_sklearn(loss: str, data: str) -> None:
    X, y = DATA[data]()
    C, eps = 0.1, 0.1
    ours = svmkit.LinearSVR(loss=loss, C=C, epsilon=eps, solver="dual_cd").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = SkLinearSVR(loss=loss, C=C, epsilon=eps, dual=True, random_state=0).fit(X, y)
    cost = np.full(len(y), C)
    f = primal_objective(X, y, cost, ours.coef_, ours.intercept_[0], loss, eps)
    f_ref = primal_objective(X, y, cost, ref.coef_, ref.intercept_[0], loss, eps)
    assert abs(f - f_ref) <= 1e-3 * abs(f_ref)
    assert abs(ours.score(X, y) - ref.score(X, y)) <= 0.01


def test_weights_and_layouts_match_sklearn() -> None:
    """sample_weight and class_weight enter the costs; every data layout gives one optimum."""
    X, y = breast_cancer()
    rng = np.random.default_rng(0)
    sw = rng.uniform(0.0, 2.0, len(y))
    cw = {-1.0: 0.5, 1.0: 2.0}
    C = 0.1
    ref = SkLinearSVC(loss="hinge", C=C, class_weight=cw, tol=1e-10, max_iter=1_000_000)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref.fit(X, y, sample_weight=sw)
    cost = C * sw * np.where(y > 0, 2.0, 0.5)
    f_ref = primal_objective(X, y, cost, ref.coef_[0], ref.intercept_[0], "hinge")
    layouts = {
        "dense64": X,
        "dense32": X.astype(np.float32),
        "fortran": np.asfortranarray(X),
        "csr64": sp.csr_matrix(X),
        "csr32": sp.csr_matrix(X.astype(np.float32)),
    }
    for name, Xl in layouts.items():
        est = svmkit.LinearSVC(loss="hinge", C=C, class_weight=cw, solver="dual_cd", **TIGHT)
        est.fit(Xl, y, sample_weight=sw)
        Xe = np.asarray(Xl.todense() if sp.issparse(Xl) else Xl, dtype=np.float64)
        f = primal_objective(Xe, y, cost, est.coef_[0], est.intercept_[0], "hinge")
        tol = 1e-6 if "32" not in name else 1e-5  # float32 data: a slightly different problem
        assert abs(f - f_ref) <= tol * abs(f_ref), name
        assert np.mean(est.predict(Xl) == ref.predict(X)) >= 0.99, name


# ---------------------------------------------------------------------------------------------
# (d) determinism: threads, seeds


def test_identical_for_one_and_two_threads() -> None:
    X, y = make_sparse_text_like(6000, 5000, density=0.015, random_state=5)
    assert X.nnz >= 2**18  # two chunks for the final objective pass (data.hpp's pass_chunks)
    fits = [
        svmkit.LinearSVC(loss="hinge", solver="dual_cd", random_state=5, n_jobs=k).fit(X, y)
        for k in (1, 2)
    ]
    assert fits[0].result_[0]["status"].name == "converged"
    assert np.array_equal(fits[0].coef_, fits[1].coef_)
    assert np.array_equal(fits[0].intercept_, fits[1].intercept_)
    assert fits[0].result_[0]["objective"] == fits[1].result_[0]["objective"]


def test_same_seed_same_solution_and_different_seeds_converge() -> None:
    X, y = diabetes()
    kw = dict(loss="epsilon_insensitive", C=0.1, epsilon=0.1, solver="dual_cd", tol=1e-8)
    a = svmkit.LinearSVR(random_state=1, **kw).fit(X, y)
    b = svmkit.LinearSVR(random_state=1, **kw).fit(X, y)
    c = svmkit.LinearSVR(random_state=2, **kw).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_) and a.intercept_[0] == b.intercept_[0]
    assert not np.array_equal(a.coef_, c.coef_)  # a different visiting order
    for est in (a, c):
        assert est.result_[0]["status"].name == "converged"
    assert a.result_[0]["objective"] == pytest.approx(c.result_[0]["objective"], rel=1e-6)


@pytest.mark.parametrize("budget", [5, 12, 40])
def test_max_passes_ends_the_run_at_its_budget(budget: int) -> None:
    """max_passes: the run ends uncertified (max_iter, with a ConvergenceWarning naming the
    budget) once its coordinate visits and gap checks reach the budget, at most one iteration's
    visits, its gap check and the closing gap pass later; 0 (the default) sets no budget."""
    X, y = load_diabetes(return_X_y=True)
    y = (y - y.mean()) / y.std()
    kw = dict(C=100.0, epsilon=0.0, solver="dual_cd", tol=1e-8, max_iter=100000)
    free = svmkit.LinearSVR(**kw).fit(X, y).result_[0]
    assert free["passes"] > 3 * budget  # the budget binds
    with pytest.warns(ConvergenceWarning, match="max_passes"):
        capped = svmkit.LinearSVR(**kw, solver_options={"max_passes": budget}).fit(X, y)
    res = capped.result_[0]
    assert res["status"] == _core.SolverStatus.max_iter
    assert f"pass budget (max_passes {budget}" in res["message"]
    assert budget <= res["passes"] <= budget + 3
    assert res["iterations"] < free["iterations"]
    assert res["objective"] > free["objective"]


# ---------------------------------------------------------------------------------------------
# (e) option and problem errors


@pytest.mark.parametrize(
    "options,message",
    [
        ({"tol": 0.0}, "dual_cd option 'tol' must be > 0"),
        ({"tol": -1.0}, "dual_cd option 'tol' must be > 0"),
        ({"max_iter": -1}, "dual_cd option 'max_iter' must be >= 0"),
        ({"seed": -3}, "dual_cd option 'seed' must be >= 0"),
        ({"max_passes": -1}, "dual_cd option 'max_passes' must be >= 0"),
        ({"shrink": True}, "unknown dual_cd option 'shrink'"),
    ],
)
def test_option_errors(options: dict, message: str) -> None:
    X, y = breast_cancer()
    with pytest.raises(ValueError, match=message):
        core_fit(X, y, np.ones(len(y)), "hinge", **options)
    with pytest.raises(ValueError, match=message):
        svmkit.LinearSVC(loss="hinge", solver="dual_cd", solver_options=options).fit(X, y)


def test_unregularized_intercept_is_refused() -> None:
    X, y = breast_cancer()
    msg = r"dual_cd regularizes the intercept \(LIBLINEAR's bias\); use regularize_intercept=True"
    with pytest.raises(ValueError, match=msg):
        svmkit.LinearSVC(loss="hinge", solver="dual_cd", regularize_intercept=False).fit(X, y)
    # Without an intercept there is nothing to regularize: accepted.
    svmkit.LinearSVC(
        loss="hinge", solver="dual_cd", fit_intercept=False, regularize_intercept=False
    ).fit(X, y)


def test_other_losses_are_refused() -> None:
    X, y = breast_cancer()
    with pytest.raises(ValueError, match="dual_cd handles the losses hinge, squared_hinge"):
        core_fit(X, y, np.ones(len(y)), "smoothed_epsilon_insensitive")
    with pytest.raises(
        ValueError, match="solver 'dual_cd' does not handle loss='smoothed_epsilon_insensitive'"
    ):
        svmkit.LinearSVR(loss="smoothed_epsilon_insensitive", solver="dual_cd").fit(X, y)


# ---------------------------------------------------------------------------------------------
# (f) max_iter, (g) interruption, and the result's counters


def test_max_iter_warns() -> None:
    X, y = breast_cancer()
    est = svmkit.LinearSVC(loss="hinge", C=10.0, solver="dual_cd", tol=1e-10, max_iter=3)
    with pytest.warns(
        ConvergenceWarning, match=r"LinearSVC \(dual_cd\) did not converge.*\(3 iterations\)"
    ):
        est.fit(X, y)
    assert est.result_[0]["status"].name == "max_iter" and est.n_iter_ == 3


def test_callback_false_interrupts() -> None:
    X, y = breast_cancer()
    seen = []

    def stop_after_two(rec: dict) -> bool:
        seen.append(rec)
        return len(seen) < 2

    est = svmkit.LinearSVC(loss="hinge", solver="dual_cd", tol=1e-10, callback=stop_after_two)
    with pytest.warns(ConvergenceWarning, match="stopped by the callback"):
        est.fit(X, y)
    res = est.result_[0]
    assert res["status"].name == "interrupted" and res["iterations"] == 2
    assert np.isfinite(res["objective"]) and len(seen) == 2


def test_ctrl_c_stops_the_solve() -> None:
    """SIGINT while the solver runs (GIL released) is noticed by its poll and re-raised."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((20000, 50))
    y = X @ rng.standard_normal(50) + rng.standard_normal(20000)
    cost = np.ones(len(y))
    timer = threading.Timer(
        0.05, signal.pthread_kill, (threading.main_thread().ident, signal.SIGINT)
    )
    timer.start()
    try:
        with pytest.raises(KeyboardInterrupt):
            # Uninterrupted this runs 1000 full iterations (seconds); no callback, so only
            # the solver's own poll can notice the signal.
            core_fit(X, y, cost, "epsilon_insensitive", tol=1e-300, max_iter=1000, shrinking=False)
    finally:
        timer.cancel()


def test_int64_indices_and_float32_csr() -> None:
    X, y = text_like()
    cost = np.full(len(y), 0.5)
    ref = core_fit(X, y, cost, "squared_hinge", **TIGHT)
    for dtype, itype in [(np.float64, np.int64), (np.float32, np.int64), (np.float32, np.int32)]:
        Xc = (X.data.astype(dtype), X.indices.astype(itype), X.indptr.astype(itype), *X.shape)
        res = _core.fit_dual_cd(
            Xc, y, cost, "squared_hinge", 0.1, 0.0, True, 1.0, True, None, TIGHT, None
        )
        Xd = sp.csr_matrix((Xc[0].astype(np.float64), X.indices, X.indptr), shape=X.shape)
        w, b = split(res)
        f = primal_objective(Xd, y, cost, w, b, "squared_hinge")
        assert f == pytest.approx(ref["objective"], rel=1e-6 if dtype == np.float32 else 1e-9)


def test_history_and_counters() -> None:
    X, y = text_like()
    res = core_fit(X, y, np.ones(len(y)), "hinge", tol=1e-6)
    hist = res["history"]  # one array per IterationRecord field, in the documented order
    assert list(hist) == [
        *("iteration", "objective", "optimality", "step", "inner_iterations", "active_size"),
        *("smoothing", "radius", "gap", "passes", "time", "accepted"),
    ]
    kinds = {k: v.dtype.kind for k, v in hist.items()}
    assert {k for k, c in kinds.items() if c == "i"} == {
        *("iteration", "inner_iterations", "active_size", "passes")
    }
    assert kinds["accepted"] == "b" and kinds["time"] == "f"
    n_it = res["iterations"]
    assert res["status"].name == "converged" and len(hist["iteration"]) == n_it
    assert np.array_equal(hist["iteration"], np.arange(1, n_it + 1))
    assert hist["optimality"][-1] <= 1e-6 and res["optimality"] == hist["optimality"][-1]
    by_gap = "relative duality gap" in res["message"]
    assert by_gap  # (here the gap certifies tol before the projected gradients do)
    assert hist["active_size"].min() < len(y)  # shrinking happened
    assert res["inner_iterations"] == hist["inner_iterations"].sum()
    # Passes: one for Q_ii, active/n per iteration, one for the objective, and one per check
    # of the duality gap (its record carries the gap; NaN elsewhere): after 5 passes, then at
    # max(+5, x1.25), or sooner (at least +2) where the mean rate of decrease of the gap from
    # the first check to the best one puts its crossing of tol earlier, unless more than 5
    # checks in a row found that crossing behind them (dual_cd.cpp's GapSchedule; the last
    # iteration's check is the one that stopped the run).
    tol, passes, next_check, checks, first, best, missed = 1e-6, 1.0, 6.0, 0, None, None, 0
    for visited, gap in zip(hist["inner_iterations"], hist["gap"]):
        passes += visited / len(y)
        assert (passes >= next_check) == (not np.isnan(gap))
        if np.isnan(gap):
            continue
        passes += 1.0
        checks += 1
        next_check = max(passes + 5.0, 1.25 * passes)
        if first is None:
            first = best = (passes, gap)
            continue
        best = min(best, (passes, gap), key=lambda pg: pg[1])
        if best[1] < first[1] and best[0] > first[0]:
            rate = np.log(first[1] / best[1]) / (best[0] - first[0])
            crossing = best[0] + np.log(best[1] / tol) / rate
            missed = missed + 1 if crossing <= passes else 0
            if crossing < next_check and missed <= 5:
                next_check = max(passes + 2.0, crossing)
    assert checks >= 2 and hist["gap"][-1] <= tol
    expected = 2 + hist["inner_iterations"].sum() / len(y) + checks
    assert abs(res["passes"] - expected) <= 1
    # Below tol = 1e-6 the projected gradients alone decide (no gap check, no extra pass), and
    # the last iteration runs over every coordinate (shrinking undone, the test passed again).
    tight = core_fit(X, y, np.ones(len(y)), "hinge", tol=1e-8)
    th = tight["history"]
    assert tight["status"].name == "converged" and "duality gap" not in tight["message"]
    assert th["active_size"][-1] == len(y) and th["active_size"].min() < len(y)
    assert abs(tight["passes"] - (2 + th["inner_iterations"].sum() / len(y))) <= 1
    assert np.all(np.isnan(hist["objective"]))


def test_shrinking_off_gives_the_same_optimum() -> None:
    X, y = breast_cancer()
    cost = np.full(len(y), 0.1)
    on = core_fit(X, y, cost, "hinge", **TIGHT)
    off = core_fit(X, y, cost, "hinge", shrinking=False, **TIGHT)
    assert np.all(off["history"]["active_size"] == len(y))
    assert off["objective"] == pytest.approx(on["objective"], rel=1e-9)


def test_warm_start_is_ignored_with_a_warning() -> None:
    X, y = breast_cancer()
    est = svmkit.LinearSVC(loss="hinge", C=0.1, solver="dual_cd", warm_start=True).fit(X, y)
    coef = est.coef_.copy()
    with pytest.warns(UserWarning, match="dual_cd starts from the dual point alpha = 0"):
        est.fit(X, y)
    assert np.array_equal(est.coef_, coef)


def test_defaults_and_records() -> None:
    d = svmkit.solver_defaults("dual_cd")
    assert d["tol"] == 1e-4 and d["max_iter"] == 1000 and d["shrinking"] is True
    names = [r["name"] for r in _core.option_records("dual_cd")]
    assert names == list(d)


# --- The elastic-net dual (penalty="elasticnet"; solve_dual_cd_elastic_net) ------------------


def enet_core_fit(X, y, cost, loss, l1, l2, **options):
    """The elastic-net dual (fit_dual_cd_elastic_net) with core_fit's conversions."""
    return core_fit(X, y, cost, loss, elastic_net=(l1, l2), **options)


def enet_objective(X, y, cost, w, b, loss, l1, l2) -> float:
    """l2/2 (||w||^2 + b^2) + l1 ||w||_1 + sum_i cost_i loss_i (the bias never l1-penalized)."""
    z = np.asarray(X @ w).ravel() + b
    t = np.maximum(0.0, 1.0 - y * z)
    t = t * t if loss == "squared_hinge" else t
    return 0.5 * l2 * (w @ w + b * b) + l1 * np.abs(w).sum() + float(np.sum(cost * t))


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize(("rho", "C"), [(0.5, 1.0), (0.9, 10.0), (0.1, 0.1), (0.0, 1.0)])
@pytest.mark.parametrize("sparse", [False, True])
def test_elastic_net_matches_exact_qp(loss: str, rho: float, C: float, sparse: bool) -> None:
    """The elastic-net dual reaches clarabel's exact primal optimum (the bias carries only
    (1 - rho)/2 b^2, as in smsvm), from a dense or CSR breast_cancer subset."""
    X, y = breast_cancer()
    X, y = X[:200], y[:200]
    cost = np.full(200, C)
    res = enet_core_fit(sp.csr_matrix(X) if sparse else X, y, cost, loss, rho, 1 - rho, **TIGHT)
    assert res["status"] == svmkit.SolverStatus.converged
    w, b = split(res)
    _, _, f_ref = primal_svm(X, y, cost, loss=loss, l2=1 - rho, l1=rho)
    f = enet_objective(X, y, cost, w, b, loss, rho, 1 - rho)
    assert abs(f - f_ref) <= 1e-8 * f_ref
    assert res["objective"] == pytest.approx(f, rel=1e-12)
    if rho >= 0.5:
        assert np.count_nonzero(w) < X.shape[1]  # the l1 part zeroes coordinates exactly


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize(("rho", "C"), [(0.5, 1.0), (0.9, 10.0), (0.1, 0.1)])
@pytest.mark.parametrize("sparse", [False, True])
def test_elastic_net_with_bias_l1_matches_exact_qp(loss: str, rho: float, C: float, sparse: bool):
    """bias_l1 = l1 puts the l1 term on the bias too (LIBLINEAR -s 5's bias feature, l1_cd's
    problem for the smooth losses): clarabel's exact optimum of that primal, with a bias
    exactly 0 where the l1 term holds it there."""
    X, y = breast_cancer()
    X, y = X[:200], y[:200]
    cost = np.full(200, C)
    Xc = sp.csr_matrix(X) if sparse else X
    res = core_fit(Xc, y, cost, loss, elastic_net=(rho, 1 - rho), bias_l1=rho, **TIGHT)
    assert res["status"] == svmkit.SolverStatus.converged
    w, b = split(res)
    _, b_ref, f_ref = primal_svm(X, y, cost, loss=loss, l2=1 - rho, l1=rho, l1_bias=True)
    f = enet_objective(X, y, cost, w, b, loss, rho, 1 - rho) + rho * abs(b)
    assert abs(f - f_ref) <= 1e-8 * f_ref
    assert res["objective"] == pytest.approx(f, rel=1e-12)
    assert b == pytest.approx(b_ref, abs=1e-4)
    # The gap stop (tol 1e-4) certifies the same problem: the gap bounds the suboptimality.
    loose = core_fit(
        Xc, y, cost, loss, elastic_net=(rho, 1 - rho), bias_l1=rho, tol=1e-4, max_iter=1000000
    )
    assert loose["status"] == svmkit.SolverStatus.converged
    wl, bl = split(loose)
    fl = enet_objective(X, y, cost, wl, bl, loss, rho, 1 - rho) + rho * abs(bl)
    assert -1e-9 <= (fl - f_ref) / fl <= loose["optimality"] + 1e-9


def test_elastic_net_squared_hinge_same_model_from_l1_cd_and_dual_cd() -> None:
    """LinearSVC(penalty="elasticnet") (squared hinge) is one model whichever solver fits it:
    l1_cd's (the bias carries the l1 term, LIBLINEAR -s 5's convention) and dual_cd's reach
    the same objective, clarabel's."""
    X, y = make_sparse_text_like(300, 2000, density=0.03, random_state=4)
    kw = dict(penalty="elasticnet", l1_ratio=0.3, C=2.0, tol=1e-9, max_iter=100000)
    fits = [svmkit.LinearSVC(solver=s, **kw).fit(X, y) for s in ("l1_cd", "dual_cd")]
    yy = np.where(y == fits[0].classes_[1], 1.0, -1.0)
    _, _, f_ref = primal_svm(X, yy, 2.0, loss="squared_hinge", l2=0.7, l1=0.3, l1_bias=True)
    for m in fits:
        w, b = m.coef_[0], m.intercept_[0]
        f = enet_objective(X, yy, 2.0, w, b, "squared_hinge", 0.3, 0.7) + 0.3 * abs(b)
        assert f == pytest.approx(f_ref, rel=1e-7)


def test_elastic_net_with_zero_l1_is_the_l2_dual() -> None:
    """l1 = 0 and l2 = 1 is LIBLINEAR's problem: the same optimum as the l2 dual."""
    X, y = text_like()
    cost = np.full(X.shape[0], 0.5)
    a = enet_core_fit(X, y, cost, "hinge", 0.0, 1.0, **TIGHT)
    b = core_fit(X, y, cost, "hinge", **TIGHT)
    assert a["objective"] == pytest.approx(b["objective"], rel=1e-9)
    np.testing.assert_allclose(a["solution"], b["solution"], atol=1e-6)


def test_elastic_net_sparse_text_matches_exact_qp_with_weights() -> None:
    """Sparse text-like data with per-sample costs (zeros included): the exact optimum."""
    X, y = make_sparse_text_like(150, 400, density=0.05, random_state=7)
    cost = np.random.default_rng(7).uniform(0.0, 2.0, X.shape[0])
    cost[::10] = 0.0
    res = enet_core_fit(X, y, cost, "hinge", 0.3, 0.7, **TIGHT)
    w, b = split(res)
    _, _, f_ref = primal_svm(X, y, cost, loss="hinge", l2=0.7, l1=0.3)
    assert enet_objective(X, y, cost, w, b, "hinge", 0.3, 0.7) == pytest.approx(f_ref, rel=1e-8)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_elastic_net_gap_stop_is_a_certificate(loss: str) -> None:
    """On sparse text the projected-gradient rule is slow to reach tol while the objective is
    long within it: the relative duality gap (checked every few passes) stops the run,
    status converged, and bounds the true relative suboptimality (clarabel's optimum)."""
    X, y = make_sparse_text_like(800, 3000, density=0.01, random_state=11)
    cost = np.full(X.shape[0], 1.0)
    res = enet_core_fit(X, y, cost, loss, 0.5, 0.5, tol=1e-4, max_iter=100000)
    assert res["status"] == svmkit.SolverStatus.converged
    assert "relative duality gap" in res["message"]
    gap = res["optimality"]
    assert 0.0 <= gap <= 1e-4
    w, b = split(res)
    f = enet_objective(X, y, cost, w, b, loss, 0.5, 0.5)
    _, _, f_ref = primal_svm(X, y, cost, loss=loss, l2=0.5, l1=0.5)
    assert res["objective"] == pytest.approx(f, rel=1e-12)
    assert (f - f_ref) / f <= gap + 1e-9


@pytest.mark.parametrize(
    "loss, C", [("epsilon_insensitive", 10.0), ("squared_epsilon_insensitive", 1.0)]
)
def test_regression_gap_stop_is_a_certificate(loss: str, C: float) -> None:
    """The regression duals (-s 13 / -s 12) also stop on their relative duality gap
    (y'b - eps ||b||_1 - 1/2 b'Db - 1/2 ||w||^2 against the primal): converged, and the gap
    bounds the true relative suboptimality (clarabel's primal optimum)."""
    X, y = diabetes()
    cost = np.full(len(y), C)
    res = core_fit(X, y, cost, loss, epsilon=0.1, tol=1e-4, max_iter=100000)
    assert res["status"] == svmkit.SolverStatus.converged
    assert "relative duality gap" in res["message"]
    gap = res["optimality"]
    assert 0.0 <= gap <= 1e-4
    w, b = split(res)
    f = primal_objective(X, y, cost, w, b, loss, epsilon=0.1)
    _, _, f_ref = primal_svm(X, y, cost, loss=loss, epsilon=0.1)
    assert res["objective"] == pytest.approx(f, rel=1e-12)
    assert (f - f_ref) / f <= gap + 1e-9


def test_linear_svc_elasticnet_hinge_dual_cd_matches_smsvm() -> None:
    """LinearSVC(loss="hinge", penalty="elasticnet", solver="dual_cd") and smsvm solve the
    same problem: the two reach the same objective, and the multiclass one-vs-rest fit is
    identical for 1 and 2 threads. (solver="auto" takes l1_cd on iris, dense with n_samples
    >= 25 n_features: test_l1_cd_hinge.)"""
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    kw = {"loss": "hinge", "penalty": "elasticnet", "l1_ratio": 0.4, "C": 2.0, "tol": 1e-9}
    kw["solver"] = "dual_cd"
    auto = svmkit.LinearSVC(**kw, max_iter=100000).fit(X, y)
    assert auto.solver_ == "dual_cd"
    ref = svmkit.LinearSVC(**{**kw, "solver": "smsvm"}).fit(X, y)
    for k in range(3):
        yk = np.where(y == k, 1.0, -1.0)
        f = [
            enet_objective(X, yk, 2.0, m.coef_[k], m.intercept_[k], "hinge", 0.4, 0.6)
            for m in (auto, ref)
        ]
        _, _, f_ref = primal_svm(X, yk, 2.0, loss="hinge", l2=0.6, l1=0.4)
        assert f[0] == pytest.approx(f_ref, rel=1e-7)
        assert f[1] == pytest.approx(f_ref, rel=1e-4)
    two = svmkit.LinearSVC(**kw, max_iter=100000, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(two.coef_, auto.coef_)
    np.testing.assert_array_equal(two.intercept_, auto.intercept_)


@pytest.mark.parametrize(
    ("loss", "l1", "l2", "message"),
    [
        ("hinge", 0.5, 0.0, "l2 weight of the elastic net"),
        ("hinge", 0.5, float("nan"), "l2 weight of the elastic net"),
        ("hinge", -1.0, 0.5, "l1 weight of the elastic net"),
        ("hinge", float("inf"), 0.5, "l1 weight of the elastic net"),
        ("epsilon_insensitive", 0.5, 0.5, "elastic-net dual handles the losses hinge"),
    ],
)
def test_elastic_net_core_errors(loss: str, l1: float, l2: float, message: str) -> None:
    X, y = breast_cancer()
    with pytest.raises(ValueError, match=message):
        enet_core_fit(X[:50], y[:50], np.ones(50), loss, l1, l2)


@pytest.mark.parametrize("bias_l1", [-0.5, float("nan"), float("inf")])
def test_elastic_net_bias_l1_errors(bias_l1: float) -> None:
    X, y = breast_cancer()
    with pytest.raises(ValueError, match=r"the bias's l1 weight \(bias_l1\) must be a finite"):
        core_fit(X[:50], y[:50], np.ones(50), "hinge", elastic_net=(0.5, 1.0), bias_l1=bias_l1)


def test_elastic_net_estimator_errors() -> None:
    """Pure l1 has no smooth dual: dual_cd named with l1_ratio=1 or penalty="l1" is refused
    with a message naming smsvm; auto then picks l1_cd's smoothing continuation."""
    X, y = breast_cancer()
    with pytest.raises(ValueError, match="l1_ratio < 1"):
        svmkit.LinearSVC(loss="hinge", penalty="elasticnet", l1_ratio=1.0, solver="dual_cd").fit(
            X, y
        )
    with pytest.raises(ValueError, match="does not handle penalty='l1'"):
        svmkit.LinearSVC(loss="hinge", penalty="l1", solver="dual_cd").fit(X, y)
    # The elastic-net dual is the (squared) hinge's only: the smoothed hinge goes to l1_cd.
    with pytest.raises(ValueError, match="handles penalty='elasticnet' only with loss 'hinge'"):
        svmkit.LinearSVC(loss="smoothed_hinge", penalty="elasticnet", solver="dual_cd").fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = svmkit.LinearSVC(loss="smoothed_hinge", penalty="elasticnet", max_iter=2)
        assert clf.fit(X[:60], y[:60]).solver_ == "l1_cd"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        clf = svmkit.LinearSVC(loss="hinge", penalty="elasticnet", l1_ratio=1.0, max_iter=3)
        assert clf.fit(X, y).solver_ == "ipm"  # pure l1 with few features


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
@pytest.mark.parametrize(("rho", "C"), [(0.5, 10.0), (0.8, 3.0), (0.2, 0.05)])
def test_elastic_net_coordinate_step_is_exact(loss: str, rho: float, C: float) -> None:
    """One sample: the dual is one-dimensional, so a single visit (max_iter=1) must land on the
    exact optimum, across the soft threshold's breakpoints (entries of several magnitudes
    cross l1 at different step lengths)."""
    X = np.array([[3.0, -1.0, 0.5, 2.0, -0.2, 0.0, 1.2]])
    y = np.array([1.0])
    cost = np.array([C])
    for Xf in (X, sp.csr_matrix(X)):
        res = enet_core_fit(Xf, y, cost, loss, rho, 1 - rho, max_iter=1)
        w, b = split(res)
        _, _, f_ref = primal_svm(X, y, cost, loss=loss, l2=1 - rho, l1=rho)
        f = enet_objective(X, y, cost, w, b, loss, rho, 1 - rho)
        assert f == pytest.approx(f_ref, rel=1e-8, abs=1e-12)


# --- The smooth-loss duals (logistic = LIBLINEAR -s 7, smoothed hinges psi_M and psi_G) -----

SMOOTH_LOSSES = ["logistic", "smoothed_hinge", "gaussian_smoothed_hinge"]


def smooth_loss_and_slope(u, loss, sigma=0.1):
    """loss(u) and loss'(u) in numpy / scipy (psi_G(t) = sigma G(t / sigma), G(v) = v Phi(v) +
    phi(v), from scipy.stats.norm: shares nothing with svmkit's loss.hpp)."""
    from scipy.stats import norm

    if loss == "logistic":
        return np.logaddexp(0.0, -u), -1.0 / (1.0 + np.exp(u))
    t = 1.0 - u
    if loss == "gaussian_smoothed_hinge":
        v = t / sigma
        return sigma * (v * norm.cdf(v) + norm.pdf(v)), -norm.cdf(v)
    r = np.sqrt(t * t + sigma * sigma)
    return 0.5 * (t + r), -0.5 * (1.0 + t / r)


def smooth_objective(X, y, cost, w, b, loss, sigma=0.1) -> float:
    """1/2 (||w||^2 + b^2) + sum_i cost_i loss(y_i z_i) in numpy."""
    u = y * (np.asarray(X @ w).ravel() + b)
    return 0.5 * (w @ w + b * b) + float(np.sum(cost * smooth_loss_and_slope(u, loss, sigma)[0]))


def lbfgs_optimum(X, y, cost, loss, sigma=0.1) -> float:
    """The primal optimum by scipy's L-BFGS-B on the smooth objective (an independent solver)."""
    from scipy.optimize import minimize

    Xd = X.toarray() if sp.issparse(X) else X
    Z = np.hstack([Xd, np.ones((Xd.shape[0], 1))])

    def fg(v):
        f, d = smooth_loss_and_slope(y * (Z @ v), loss, sigma)
        return 0.5 * v @ v + cost @ f, v + Z.T @ (cost * d * y)

    opt = {"maxiter": 100000, "ftol": 1e-15, "gtol": 1e-11}
    return float(minimize(fg, np.zeros(Z.shape[1]), jac=True, method="L-BFGS-B", options=opt).fun)


@pytest.mark.parametrize("loss", SMOOTH_LOSSES)
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
@pytest.mark.parametrize("sparse", [False, True])
def test_smooth_duals_reach_the_primal_optimum(loss: str, C: float, sparse: bool) -> None:
    """dual_cd on the logistic / smoothed-hinge (psi_M, psi_G) duals reaches the optimum of an
    independent L-BFGS solve of the primal (and, for the logistic loss, scikit-learn's
    liblinear)."""
    X, y = breast_cancer()
    X, y = X[:250], y[:250]
    cost = np.full(len(y), C)
    cost[::7] = 0.0  # zero costs are never visited
    res = core_fit(sp.csr_matrix(X) if sparse else X, y, cost, loss, **TIGHT)
    assert res["status"] == svmkit.SolverStatus.converged
    w, b = split(res)
    f = smooth_objective(X, y, cost, w, b, loss)
    assert res["objective"] == pytest.approx(f, rel=1e-12)
    f_ref = lbfgs_optimum(X, y, cost, loss)
    assert f <= f_ref * (1 + 1e-9)
    assert f == pytest.approx(f_ref, rel=1e-7)


@pytest.mark.parametrize("loss", SMOOTH_LOSSES)
@pytest.mark.parametrize("C", [0.1, 1.0, 10.0])
def test_smooth_dual_gap_stop_is_a_certificate(loss: str, C: float) -> None:
    """The smooth duals also stop on their relative duality gap (sum_i m a_i - C_i h(a_i / C_i)
    - 1/2 ||w||^2 against the primal): converged, and the gap bounds the true relative
    suboptimality (an independent L-BFGS solve of the primal). Their own rule (max |d/da_i|
    <= tol, absolute) ends the run far later on sparse text with many features per sample."""
    X, y = make_sparse_text_like(300, 6000, density=0.02, random_state=3)
    cost = np.full(X.shape[0], C)
    cost[::9] = 0.0
    res = core_fit(X, y, cost, loss, tol=1e-4, max_iter=100000)
    assert res["status"] == svmkit.SolverStatus.converged
    assert "relative duality gap" in res["message"]
    gap = res["optimality"]
    assert 0.0 <= gap <= 1e-4
    hist = res["history"]
    assert np.nanmin(hist["gap"]) == gap
    w, b = split(res)
    f = smooth_objective(X, y, cost, w, b, loss)
    assert res["objective"] == pytest.approx(f, rel=1e-12)
    f_ref = lbfgs_optimum(X, y, cost, loss)
    assert -1e-9 <= (f - f_ref) / f <= gap + 1e-9
    # tol below 1e-6 asks for the coefficients: the gradient rule alone decides (no gap check).
    tight = core_fit(X, y, cost, loss, tol=1e-8, max_iter=100000)
    assert tight["status"] == svmkit.SolverStatus.converged
    assert np.all(np.isnan(tight["history"]["gap"]))
    assert "duality gap" not in tight["message"]


def test_logistic_dual_matches_sklearn_liblinear() -> None:
    """LinearSVC(loss="logistic", solver="dual_cd") and scikit-learn's LogisticRegression
    (liblinear, its bias regularized as ours) reach the same objective on sparse text."""
    from sklearn.linear_model import LogisticRegression

    X, y = text_like()
    ours = svmkit.LinearSVC(loss="logistic", solver="dual_cd", tol=1e-10, max_iter=100000)
    ours.fit(X, y)
    ref = LogisticRegression(l1_ratio=0.0, solver="liblinear", tol=1e-12, max_iter=100000)
    ref.fit(X, y)
    f = [
        smooth_objective(X, y, 1.0, m.coef_.ravel(), m.intercept_[0], "logistic")
        for m in (ours, ref)
    ]
    assert f[0] == pytest.approx(f[1], rel=1e-8)


def test_smooth_dual_auto_rule_and_threads() -> None:
    """auto: the smooth duals from 10 features per sample with at least 40 stored entries per
    row (_solvers.SMOOTH_DUAL_RATIO, SMOOTH_DUAL_MIN_ROW_NNZ) for the logistic loss and psi_M
    on sparse X; on dense X the smoothed hinges' (psi_M, psi_G) up to 1.5 samples per feature
    (SMOOTH_HINGE_DENSE_WIDE); tron otherwise; one and two threads give the same
    multiclass fit."""
    from svmkit import _solvers

    assert (_solvers.SMOOTH_DUAL_RATIO, _solvers.SMOOTH_DUAL_MIN_ROW_NNZ) == (10, 40)
    Xw, yw = make_sparse_text_like(200, 3000, density=0.04, random_state=5)  # 69 per row
    Xf, yf = make_sparse_text_like(200, 3000, density=0.02, random_state=5)  # 39 per row
    Xn, yn = make_sparse_text_like(400, 3000, density=0.04, random_state=5)  # 7.5 per sample
    Xd = np.random.default_rng(5).standard_normal((100, 1000))  # dense, 10 per sample
    yd = (Xd[:, 0] > 0).astype(int)
    Xt, yt = breast_cancer()
    for loss in ("logistic", "smoothed_hinge"):
        assert svmkit.LinearSVC(loss=loss).fit(Xw, yw).solver_ == "dual_cd"
        for X, y in ((Xf, yf), (Xn, yn), (Xt, yt)):
            assert svmkit.LinearSVC(loss=loss).fit(X, y).solver_ == "tron"
        fit = svmkit.LinearSVC(loss=loss, regularize_intercept=False).fit(Xw, yw)
        assert fit.solver_ == "tron"
    assert svmkit.LinearSVC(loss="logistic").fit(Xd, yd).solver_ == "dual_cd"
    for loss in ("smoothed_hinge", "gaussian_smoothed_hinge"):
        assert svmkit.LinearSVC(loss=loss).fit(Xd, yd).solver_ == "dual_cd"
        assert svmkit.LinearSVC(loss=loss).fit(Xt, yt).solver_ == "tron"
        assert _solvers.auto_solver_name(loss, "l2", 1500, 1000) == "dual_cd"
        assert _solvers.auto_solver_name(loss, "l2", 1501, 1000) == "tron"
    assert svmkit.LinearSVC(loss="gaussian_smoothed_hinge").fit(Xw, yw).solver_ == "tron"
    assert _solvers.auto_solver_name("smoothed_hinge", "l2", 100, 1000, row_nnz=40.0) == "dual_cd"
    assert _solvers.auto_solver_name("smoothed_hinge", "l2", 100, 1000, row_nnz=39.9) == "tron"
    assert _solvers.auto_solver_name("logistic", "l2", 101, 1000, row_nnz=60.0) == "tron"
    X, y = load_iris(return_X_y=True)
    one = svmkit.LinearSVC(loss="logistic", solver="dual_cd", n_jobs=1).fit(X, y)
    two = svmkit.LinearSVC(loss="logistic", solver="dual_cd", n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)


@pytest.mark.parametrize("loss", SMOOTH_LOSSES)
def test_smooth_dual_extreme_costs_stay_finite(loss: str) -> None:
    """Large C pushes dual variables towards their upper bound (misclassified samples): the
    complement (psi_G: the quantile) is kept separately, so the fit stays finite and at the
    optimum."""
    X, y = breast_cancer()
    X, y = X[:120], y[:120].copy()
    y[:6] = -y[:6]  # outliers, deep on the wrong side at large C
    cost = np.full(len(y), 1e4)
    res = core_fit(X, y, cost, loss, tol=1e-8, max_iter=200000)
    w, b = split(res)
    assert np.all(np.isfinite(res["solution"]))
    f = smooth_objective(X, y, cost, w, b, loss)
    assert f == pytest.approx(lbfgs_optimum(X, y, cost, loss), rel=1e-6)


@pytest.mark.parametrize("loss", ["hinge", "squared_hinge"])
def test_liblinear_default_eps_is_not_a_loose_gap(loss: str) -> None:
    """tol is LIBLINEAR's absolute projected-gradient bound; the gap stop asks for a relative
    gap of min(tol, 1e-4) (kGapMaxTol). At the command line's default eps 0.1 (svmkit's CLI and
    liblinearutil for -s 3 / -s 1) a relative gap of 0.1 stopped 0.7-1.6% above the optimum on
    sparse text, where liblinear-official at -e 0.1 ends within 3e-4 of it: now both do."""
    X, y = make_sparse_text_like(2000, 20000, density=0.003, random_state=8)
    cost = np.ones(X.shape[0])
    res = core_fit(X, y, cost, loss, tol=0.1)
    w, b = split(res)
    f = primal_objective(X, y, cost, w, b, loss)
    w_ref, b_ref = liblinear_wb(X, y, loss, 1.0)  # eps 1e-8: the optimum
    f_ref = primal_objective(X, y, cost, w_ref, b_ref, loss)
    assert (f - f_ref) / f <= 1e-3
    if "relative duality gap" in res["message"]:
        assert res["optimality"] <= 1e-4


@pytest.mark.parametrize(
    "penalty, loss",
    [("l2", "hinge"), ("l2", "squared_hinge"), ("elasticnet", "hinge"), ("l2", "logistic")],
)
def test_max_iter_warning_states_a_valid_duality_gap(penalty: str, loss: str) -> None:
    """At max_iter the ConvergenceWarning states the relative duality gap at the returned
    point, and it bounds the true suboptimality (F - F*) / F against an independent QP
    solver's optimum (the projected-gradient measure in `optimality` does not: on dense
    500 x 2000 the hinge elastic net ended 38x above the optimum with 0.89 there)."""
    X, y = breast_cancer()
    yy = np.where(y > 0, 1.0, -1.0)
    est = svmkit.LinearSVC(loss=loss, penalty=penalty, solver="dual_cd", max_iter=3, C=1.0)
    with pytest.warns(ConvergenceWarning, match="iteration limit") as record:
        est.fit(X, yy)
    text = str(record[0].message)
    found = re.search(r"relative duality gap of ([0-9.e+-]+) at the returned point", text)
    assert found, text
    stated = float(found.group(1))
    w, b = est.coef_.ravel(), float(est.intercept_[0])
    z = X @ w + b
    if loss == "logistic":
        assert 0.0 < stated <= 1.0
        return
    l2, l1 = (0.5, 0.5) if penalty == "elasticnet" else (1.0, 0.0)
    margin = np.maximum(0.0, 1.0 - yy * z)
    loss_sum = np.sum(margin**2 if loss == "squared_hinge" else margin)
    F = l2 / 2 * (w @ w + b * b) + l1 * np.abs(w).sum() + loss_sum
    _, _, best = primal_svm(X, yy, 1.0, loss=loss, l2=l2, l1=l1, reg_b=True)
    true_gap = (F - best) / F
    assert true_gap > 1e-3  # the limit stopped it short of the optimum
    # short_number's three digits: the stated figure may be rounded down by 0.5% of itself
    assert true_gap <= stated * 1.005 + 1e-12
