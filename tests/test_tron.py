"""TRON against LIBLINEAR (through scikit-learn and liblinear-official) and scipy's L-BFGS."""

from __future__ import annotations

import lzma
import warnings

import numpy as np
import pytest
import scipy.optimize
import svmkit
from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_svmlight_file
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC
from sklearn.svm import LinearSVR as SkLinearSVR
from svmkit import SolverStatus, _core

TIGHT = {"tol": 1e-12, "max_iter": 2000}


def primal_objective(X, y_pm, coef, intercept, C, loss, sigma=0.1, epsilon=0.0):
    """1/2 ||w||^2 + 1/2 b^2 + C sum loss, evaluated in numpy (bias regularized, scaling 1)."""
    z = X @ coef + intercept
    u = y_pm * z if loss not in ("squared_epsilon_insensitive",) else z - y_pm
    v, _, _ = _core.loss_eval(loss, np.asarray(u, dtype=np.float64), sigma, epsilon)
    return 0.5 * (coef @ coef + intercept**2) + C * v.sum()


def scaled_breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("C", [0.01, 1.0, 100.0])
def test_squared_hinge_matches_liblinear_breast_cancer(C: float) -> None:
    X, y = scaled_breast_cancer()
    ours = svmkit.LinearSVC(C=C, **TIGHT).fit(X, y)
    ref = SkLinearSVC(C=C, dual=False, tol=1e-12, max_iter=100000).fit(X, y)
    y_pm = np.where(y == ours.classes_[1], 1.0, -1.0)
    f_ours = primal_objective(X, y_pm, ours.coef_[0], ours.intercept_[0], C, "squared_hinge")
    f_ref = primal_objective(X, y_pm, ref.coef_[0], ref.intercept_[0], C, "squared_hinge")
    assert abs(f_ours - f_ref) <= 1e-6 * abs(f_ref)
    assert ours.result_[0]["objective"] == pytest.approx(f_ours, rel=1e-9)
    assert np.array_equal(ours.predict(X), ref.predict(X))


def test_logistic_matches_liblinear() -> None:
    X, y = scaled_breast_cancer()
    C = 0.5
    ours = svmkit.LinearSVC(loss="logistic", C=C, **TIGHT).fit(X, y)
    ref = LogisticRegression(solver="liblinear", C=C, tol=1e-12, max_iter=100000).fit(X, y)
    y_pm = np.where(y == 1, 1.0, -1.0)
    f_ours = primal_objective(X, y_pm, ours.coef_[0], ours.intercept_[0], C, "logistic")
    f_ref = primal_objective(X, y_pm, ref.coef_[0], ref.intercept_[0], C, "logistic")
    assert abs(f_ours - f_ref) <= 1e-6 * abs(f_ref)
    assert np.array_equal(ours.predict(X), ref.predict(X))


def test_multiclass_ovr_matches_liblinear_digits() -> None:
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    C = 0.1
    ours = svmkit.LinearSVC(C=C, **TIGHT).fit(X, y)
    ref = SkLinearSVC(C=C, dual=False, tol=1e-12, max_iter=100000).fit(X, y)
    for k, label in enumerate(ours.classes_):
        y_pm = np.where(y == label, 1.0, -1.0)
        f_ours = primal_objective(X, y_pm, ours.coef_[k], ours.intercept_[k], C, "squared_hinge")
        f_ref = primal_objective(X, y_pm, ref.coef_[k], ref.intercept_[k], C, "squared_hinge")
        assert abs(f_ours - f_ref) <= 1e-6 * abs(f_ref)
    assert np.mean(ours.predict(X) == ref.predict(X)) == 1.0


def test_squared_epsilon_insensitive_matches_liblinear() -> None:
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = (y - y.mean()) / y.std()
    C, eps = 0.5, 0.1
    ours = svmkit.LinearSVR(C=C, epsilon=eps, loss="squared_epsilon_insensitive", **TIGHT).fit(X, y)
    ref = SkLinearSVR(
        loss="squared_epsilon_insensitive", C=C, epsilon=eps, dual=False, tol=1e-12, max_iter=100000
    ).fit(X, y)
    f_ours = primal_objective(
        X, y, ours.coef_, ours.intercept_[0], C, "squared_epsilon_insensitive", epsilon=eps
    )
    f_ref = primal_objective(
        X, y, ref.coef_, ref.intercept_[0], C, "squared_epsilon_insensitive", epsilon=eps
    )
    assert abs(f_ours - f_ref) <= 1e-6 * abs(f_ref)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("loss", ["smoothed_hinge", "gaussian_smoothed_hinge"])
@pytest.mark.parametrize("sigma", [0.01, 0.5])
def test_smooth_hinge_losses_match_lbfgs(loss: str, sigma: float) -> None:
    X, y = scaled_breast_cancer()
    C = 1.0
    y_pm = np.where(y == 1, 1.0, -1.0)
    Xa = np.c_[X, np.ones(len(X))]

    def fg(w):
        u = y_pm * (Xa @ w)
        v, d1, _ = _core.loss_eval(loss, u, sigma, 0.0)
        return 0.5 * w @ w + C * v.sum(), w + C * Xa.T @ (d1 * y_pm)

    ref = scipy.optimize.minimize(
        fg,
        np.zeros(Xa.shape[1]),
        jac=True,
        method="L-BFGS-B",
        options={"gtol": 1e-11, "ftol": 1e-15, "maxiter": 100000},
    )
    ours = svmkit.LinearSVC(loss=loss, sigma=sigma, C=C, **TIGHT).fit(X, y)
    f_ours = fg(np.r_[ours.coef_[0], ours.intercept_[0]])[0]
    assert f_ours <= ref.fun * (1 + 1e-8)
    assert abs(f_ours - ref.fun) <= 1e-6 * abs(ref.fun)


def test_stopping_rule_relative_gradient() -> None:
    X, y = scaled_breast_cancer()
    y_pm = np.where(y == 1, 1.0, -1.0)
    Xa = np.c_[X, np.ones(len(X))]
    for tol in (1e-2, 1e-4, 1e-6):
        m = svmkit.LinearSVC(tol=tol).fit(X, y)
        w = np.r_[m.coef_[0], m.intercept_[0]]
        u = y_pm * (Xa @ w)
        g = w - 2 * Xa.T @ (y_pm * np.maximum(0.0, 1 - u))
        g0 = -2 * Xa.T @ y_pm
        assert m.result_[0]["status"] == SolverStatus.converged
        assert np.linalg.norm(g) <= tol * np.linalg.norm(g0) * (1 + 1e-9)
        assert m.result_[0]["optimality"] == pytest.approx(np.linalg.norm(g), rel=1e-6)
    # Absolute rule through the options table.
    m = svmkit.LinearSVC(tol=0.0, solver_options={"abs_tol": 1e-3}).fit(X, y)
    assert m.result_[0]["optimality"] <= 1e-3


def test_result_history_and_counters() -> None:
    X, y = scaled_breast_cancer()
    m = svmkit.LinearSVC(tol=1e-8, solver_options={"hessian": "products"}).fit(X, y)
    r = m.result_[0]
    h = r["history"]
    assert len(h["iteration"]) == r["iterations"] == m.n_iter_
    assert np.all(np.diff(h["objective"]) <= 1e-12 * abs(h["objective"][0]))  # monotone
    assert np.all(np.diff(h["passes"]) > 0)
    assert h["passes"][-1] == r["passes"] == m.n_passes_
    # One pass for each function/gradient evaluation and one per CG step, plus the start.
    assert r["passes"] == 1 + r["iterations"] + r["inner_iterations"]
    assert r["inner_iterations"] == h["inner_iterations"].sum()
    # The assembled Hessian: one pass per Newton point (at most one per iteration; a rejected
    # step's point keeps its H) instead of one per CG step.
    a = svmkit.LinearSVC(tol=1e-8, solver_options={"hessian": "assembled"}).fit(X, y).result_[0]
    assert a["passes"] <= 1 + 2 * a["iterations"] < r["passes"]


def test_max_iter_warns() -> None:
    X, y = scaled_breast_cancer()
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        m = svmkit.LinearSVC(tol=1e-14, max_iter=2).fit(X, y)
    assert m.result_[0]["status"] == SolverStatus.max_iter
    assert m.n_iter_ == 2


SHARED_CLASSIFICATION = [
    ("heart/heart_scale", None),
    ("a1a/a1a", 123),
    ("ionosphere/ionosphere", None),
    ("sonar/sonar", None),
    ("mushrooms/mushrooms", None),
    ("svmguide1/svmguide1", None),
    ("australian/australian", None),
    ("breast-cancer/breast-cancer", None),
    ("diabetes/diabetes", None),
    ("covtype/covtype.5000.train", None),
    ("dna/dna.scale", None),
]


def read_shared(shared_datasets, name, n_features=None):
    """Read with scikit-learn's reader (an independent implementation of the format)."""
    path = shared_datasets / name
    if path.exists():
        X, y = load_svmlight_file(str(path), n_features=n_features)
    else:
        with lzma.open(path.with_name(path.name + ".xz")) as f:
            X, y = load_svmlight_file(f, n_features=n_features)
    X.indices = X.indices.astype(np.int32)  # scikit-learn's LIBLINEAR wrapper wants 32-bit
    X.indptr = X.indptr.astype(np.int32)
    return X, y


@pytest.mark.parametrize(("name", "n_features"), SHARED_CLASSIFICATION)
def test_squared_hinge_matches_liblinear_on_shared_datasets(shared_datasets, name, n_features):
    X, y = read_shared(shared_datasets, name, n_features)
    X = MaxAbsScaler().fit_transform(X)
    C = 1.0
    ours = svmkit.LinearSVC(C=C, **TIGHT).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = SkLinearSVC(C=C, dual=False, tol=1e-12, max_iter=100000).fit(X, y)
    for k in range(ours.coef_.shape[0]):
        label = ours.classes_[1] if ours.coef_.shape[0] == 1 else ours.classes_[k]
        y_pm = np.where(y == label, 1.0, -1.0)
        f_ours = primal_objective(X, y_pm, ours.coef_[k], ours.intercept_[k], C, "squared_hinge")
        f_ref = primal_objective(X, y_pm, ref.coef_[k], ref.intercept_[k], C, "squared_hinge")
        assert abs(f_ours - f_ref) <= 1e-6 * abs(f_ref), (name, k, f_ours, f_ref)
    assert np.mean(ours.predict(X) == ref.predict(X)) >= 0.999


@pytest.mark.parametrize("name", ["housing/housing_scale", "abalone/abalone_scale"])
def test_svr_matches_liblinear_on_shared_datasets(shared_datasets, name):
    X, y = read_shared(shared_datasets, name)
    C, eps = 1.0, 0.5
    ours = svmkit.LinearSVR(C=C, epsilon=eps, loss="squared_epsilon_insensitive", **TIGHT).fit(X, y)
    ref = SkLinearSVR(
        loss="squared_epsilon_insensitive", C=C, epsilon=eps, dual=False, tol=1e-12, max_iter=100000
    ).fit(X, y)
    f_ours = primal_objective(
        X, y, ours.coef_, ours.intercept_[0], C, "squared_epsilon_insensitive", epsilon=eps
    )
    f_ref = primal_objective(
        X, y, ref.coef_, ref.intercept_[0], C, "squared_epsilon_insensitive", epsilon=eps
    )
    assert abs(f_ours - f_ref) <= 1e-6 * abs(f_ref)


def test_liblinear_official_agrees(shared_datasets):
    from liblinear.liblinearutil import parameter, problem, train

    X, y = read_shared(shared_datasets, "heart/heart_scale")
    C = 2.0
    y_pm = np.where(y == np.unique(y)[1], 1.0, -1.0)
    model = train(problem(y_pm, X), parameter(f"-s 2 -c {C} -e 1e-10 -B 1 -q"))
    w = np.array(model.get_decfun()[0])
    b = model.get_decfun()[1]
    sign = 1.0 if model.get_labels()[0] == 1 else -1.0  # liblinear orients by its first label
    ours = svmkit.LinearSVC(C=C, **TIGHT).fit(X, y)
    f_ref = primal_objective(X, y_pm, sign * w, sign * b, C, "squared_hinge")
    f_ours = primal_objective(X, y_pm, ours.coef_[0], ours.intercept_[0], C, "squared_hinge")
    assert abs(f_ours - f_ref) <= 1e-6 * abs(f_ref)
