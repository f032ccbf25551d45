"""adagrad_dual: AdaGrad on the augmented Lagrangian dual (paper 001 section 6.3).

References: the exact dual QPs solved by clarabel (tests/references.svm_dual) and
scikit-learn's SVC/SVR (LIBSVM) for the unregularized-bias dual.
"""

from __future__ import annotations

import numpy as np
import pytest
from references import svm_dual
from sklearn.datasets import load_breast_cancer, load_diabetes, load_svmlight_file
from sklearn.metrics.pairwise import polynomial_kernel, rbf_kernel
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC, SVR
from svmkit import SolverStatus, fit_adagrad_dual
from svmkit._adagrad_dual import adagrad_dual_defaults


@pytest.fixture(scope="module")
def cancer200() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X)[:200], np.where(y == 1, 1.0, -1.0)[:200]


@pytest.fixture(scope="module")
def diabetes150() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:150]
    y = y[:150]
    return X, (y - y.mean()) / y.std()


def gram(X, kernel, gamma):
    if kernel == "linear":
        return X @ X.T
    if kernel == "rbf":
        return rbf_kernel(X, gamma=gamma)
    return polynomial_kernel(X, degree=3, gamma=gamma, coef0=1.0)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("variant", ["reg_bias", "unreg_bias"])
def test_svc_dual_objective(cancer200, kernel, variant):
    X, y = cancer200
    C, gamma = 1.0, 1.0 / X.shape[1]
    K = gram(X, kernel, gamma)
    unreg = variant == "unreg_bias"
    _, f_star = svm_dual(K if unreg else K + 1.0, y, np.full(len(y), C), equality=unreg)
    r = fit_adagrad_dual(
        X, y, kernel=kernel, gamma=gamma, C=C, variant=variant, max_iter=20000, n_threads=1
    )
    assert abs(r["dual_objective"] - f_star) / abs(f_star) < 1e-3
    assert r["max_violation"] < 2e-2 * C
    # the returned coefficients reproduce the objective
    beta = r["dual_coef"]
    Kt = K if unreg else K + 1.0
    np.testing.assert_allclose(
        0.5 * beta @ Kt @ beta - r["alpha"].sum(), r["dual_objective"], rtol=1e-9
    )
    h = r["history"]
    assert h["iteration"][0] == 1 and np.all(np.diff(h["iteration"]) > 0)
    if unreg:
        # unregularized bias: the same problem as LIBSVM's SVC
        ref = SVC(kernel=kernel, C=C, gamma=gamma, tol=1e-8).fit(X, y)
        dec = gram(X, kernel, gamma) @ beta + r["intercept"]
        agree = np.mean(np.sign(dec) == np.sign(ref.decision_function(X)))
        assert agree > 0.98
        assert abs(r["intercept"] - ref.intercept_[0]) < 0.1


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
@pytest.mark.parametrize("variant", ["reg_bias", "unreg_bias"])
def test_svr_dual_objective(diabetes150, kernel, variant):
    X, y = diabetes150
    C, eps, gamma = 1.0, 0.1, 1.0 / X.shape[1]
    K = gram(X, kernel, gamma)
    unreg = variant == "unreg_bias"
    _, f_star = svm_dual(
        K if unreg else K + 1.0, y, np.full(len(y), C), regression=True, epsilon=eps, equality=unreg
    )
    r = fit_adagrad_dual(
        X,
        y,
        "regression",
        kernel=kernel,
        gamma=gamma,
        C=C,
        epsilon=eps,
        variant=variant,
        max_iter=20000,
        n_threads=1,
    )
    assert abs(r["dual_objective"] - f_star) / abs(f_star) < 1e-3
    assert r["alpha"].shape == (2 * len(y),)
    if unreg:
        ref = SVR(kernel=kernel, C=C, epsilon=eps, gamma=gamma, tol=1e-8).fit(X, y)
        pred = K @ r["dual_coef"] + r["intercept"]
        assert np.max(np.abs(pred - ref.predict(X))) < 0.05


def test_polynomial_kernel_and_weights(cancer200):
    X, y = cancer200[0][:100], cancer200[1][:100]
    gamma = 1.0 / X.shape[1]
    K = gram(X, "poly", gamma)
    sw = np.linspace(0.5, 1.5, len(y))
    _, f_star = svm_dual(K + 1.0, y, 0.5 * sw, equality=False)
    r = fit_adagrad_dual(
        X,
        y,
        kernel="poly",
        gamma=gamma,
        coef0=1.0,
        degree=3,
        C=0.5,
        sample_weight=sw,
        max_iter=20000,
        n_threads=1,
    )
    assert abs(r["dual_objective"] - f_star) / abs(f_star) < 1e-3


def test_stopping_rule_and_determinism(cancer200):
    X, y = cancer200[0][:60], cancer200[1][:60]
    a = fit_adagrad_dual(X, y, kernel="rbf", gamma=0.05, tol=1e-3, max_iter=100000, n_threads=1)
    b = fit_adagrad_dual(X, y, kernel="rbf", gamma=0.05, tol=1e-3, max_iter=100000, n_threads=1)
    assert a["status"] == SolverStatus.converged and a["iterations"] < 100000
    assert a["history"]["optimality"][-1] >= 0
    np.testing.assert_array_equal(a["alpha"], b["alpha"])
    d = adagrad_dual_defaults()
    assert (d["rho"], d["learning_rate"], d["tol"], d["variant"]) == (1.0, 1.0, 1e-6, "reg_bias")


def test_callback_stops(cancer200):
    X, y = cancer200
    seen = []
    r = fit_adagrad_dual(
        X, y, kernel="linear", callback=lambda rec: seen.append(rec) or len(seen) < 5
    )
    assert r["status"] == SolverStatus.interrupted and len(seen) == 5


def test_error_paths(cancer200):
    X, y = cancer200
    with pytest.raises(ValueError, match="variant must be one of"):
        fit_adagrad_dual(X, y, variant="both")
    with pytest.raises(ValueError, match="labels -1/\\+1"):
        fit_adagrad_dual(X, (y > 0).astype(float))
    with pytest.raises(ValueError, match="C must be > 0"):
        fit_adagrad_dual(X, y, C=0.0)
    with pytest.raises(ValueError, match="kernel must be one of"):
        fit_adagrad_dual(X, y, kernel="cosine")
    with pytest.raises(MemoryError, match="more than max_gram_mb .*use the smo solver"):
        fit_adagrad_dual(X, y, kernel="rbf", options={"max_gram_mb": 0.01})
    with pytest.raises(ValueError, match="unknown adagrad_dual option 'foo'"):
        fit_adagrad_dual(X, y, options={"foo": 1})
    with pytest.raises(ValueError, match="X has 200 samples but y has 10"):
        fit_adagrad_dual(X, y[:10])
    with pytest.raises(ValueError, match="sample_weight"):
        fit_adagrad_dual(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="history_every"):
        fit_adagrad_dual(X, y, options={"history_every": 0})
    with pytest.raises(ValueError, match="rho must be > 0"):
        fit_adagrad_dual(X, y, rho=0.0)
    with pytest.raises(ValueError, match="learning_rate must be > 0"):
        fit_adagrad_dual(X, y, learning_rate=-1.0)
    with pytest.raises(ValueError, match="tol must be >= 0"):
        fit_adagrad_dual(X, y, tol=-1.0)
    with pytest.raises(ValueError, match="max_iter must be >= 0"):
        fit_adagrad_dual(X, y, max_iter=-1)
    with pytest.raises(ValueError, match="degree must be >= 1"):
        fit_adagrad_dual(X, y, kernel="poly", degree=0)
    with pytest.raises(ValueError, match="epsilon must be >= 0"):
        fit_adagrad_dual(X, y, "regression", epsilon=-0.1)
    with pytest.raises(ValueError, match="task must be one of"):
        fit_adagrad_dual(X, y, "ranking")
    with pytest.raises(ValueError, match="option 'eps' must be > 0"):
        fit_adagrad_dual(X, y, options={"eps": 0.0})
    with pytest.raises(ValueError, match="option 'max_gram_mb' must be > 0"):
        fit_adagrad_dual(X, y, options={"max_gram_mb": 0.0})
    with pytest.raises(ValueError, match="y must be 1-D"):
        fit_adagrad_dual(X, y[:, None])
    with pytest.raises(TypeError, match="options must be a dict"):
        fit_adagrad_dual(X, y, options=[1])
    with pytest.raises(TypeError, match="callback must be callable"):
        fit_adagrad_dual(X, y, callback=3)
    with pytest.raises(ValueError, match="square n x n Gram matrix"):
        fit_adagrad_dual(X, y, kernel="precomputed")
    with pytest.raises(ValueError, match="contains NaN"):
        fit_adagrad_dual(X, np.where(np.arange(len(y)) == 0, np.nan, y), "regression")
    with pytest.raises(ValueError, match="not finite|NaN or inf|finite"):
        fit_adagrad_dual(np.where(np.arange(X.size).reshape(X.shape) == 0, np.inf, X), y)


def test_shared_heart(shared_datasets):
    X, y = load_svmlight_file(str(shared_datasets / "heart" / "heart_scale"))
    X = X.toarray()
    gamma = 1.0 / X.shape[1]
    K = rbf_kernel(X, gamma=gamma)
    for variant in ("reg_bias", "unreg_bias"):
        unreg = variant == "unreg_bias"
        _, f_star = svm_dual(K if unreg else K + 1.0, y, np.ones(len(y)), equality=unreg)
        r = fit_adagrad_dual(
            X, y, kernel="rbf", gamma=gamma, variant=variant, max_iter=20000, n_threads=1
        )
        assert abs(r["dual_objective"] - f_star) / abs(f_star) < 1e-3, variant


# --- adagrad_dual as a solver of svmkit.SVC / svmkit.SVR ---------------------------------


@pytest.mark.parametrize("regularize_intercept", [False, True])
def test_svc_solver_table_matches_smo(regularize_intercept) -> None:
    import warnings

    import svmkit
    from sklearn.datasets import load_wine
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = svmkit.SVC(
            solver="adagrad_dual",
            gamma=0.1,
            max_iter=30000,
            regularize_intercept=regularize_intercept,
        ).fit(X, y)
    b = svmkit.SVC(gamma=0.1, tol=1e-8, regularize_intercept=regularize_intercept).fit(X, y)
    assert a.solver == "adagrad_dual" and len(a.result_) == 3  # one-vs-one pairs
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X), atol=5e-3)
    assert np.array_equal(a.predict(X), b.predict(X))


def test_svr_solver_table_matches_smo() -> None:
    import warnings

    import svmkit
    from sklearn.datasets import load_diabetes
    from sklearn.exceptions import ConvergenceWarning
    from sklearn.preprocessing import StandardScaler

    X, y = load_diabetes(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:200]
    y = ((y - y.mean()) / y.std())[:200]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        a = svmkit.SVR(solver="adagrad_dual", gamma=0.1, max_iter=30000).fit(X, y)
    b = svmkit.SVR(gamma=0.1, tol=1e-8).fit(X, y)
    np.testing.assert_allclose(a.predict(X), b.predict(X), atol=2e-2)


def test_svc_adagrad_dual_rejects_squared_hinge() -> None:
    import svmkit

    X = np.random.default_rng(0).standard_normal((20, 2))
    y = np.r_[np.zeros(10), np.ones(10)]
    with pytest.raises(ValueError, match="does not handle loss='squared_hinge'"):
        svmkit.SVC(solver="adagrad_dual", loss="squared_hinge").fit(X, y)
    with pytest.raises(ValueError, match="unknown adagrad_dual option 'cache'"):
        svmkit.SVC(solver="adagrad_dual", solver_options={"cache": 1}).fit(X, y)


@pytest.mark.parametrize("zero_weights", [False, True])
def test_svc_precomputed_selects_rows_and_columns(zero_weights) -> None:
    """kernel="precomputed": each one-vs-one subproblem (and a fit without the zero-weight
    samples) takes the rows AND the columns of its samples from the Gram matrix (before the fix
    only the rows: the C++ side refused the non-square block). References: scikit-learn's SVC
    (LIBSVM) with kernel="linear" on X, whose Gram matrix is X X' (scikit-learn's own
    precomputed fit drops zero-weight rows but not their columns, so it is no reference there),
    svmkit's SMO on the precomputed matrix, and adagrad_dual with kernel="linear" on X."""
    import warnings

    import svmkit
    from sklearn.datasets import load_iris
    from sklearn.exceptions import ConvergenceWarning

    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)[::2]  # 75 samples, 3 classes
    y = y[::2]
    K = X @ X.T
    sw = np.ones(len(y))
    zero = [1, 6, 30, 40, 60]
    if zero_weights:
        sw[zero] = 0.0
    fits = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for kernel, data in (("precomputed", K), ("linear", X)):
            fits[kernel] = svmkit.SVC(
                kernel=kernel, solver="adagrad_dual", C=1.0, max_iter=30000, tol=1e-8
            ).fit(data, y, sample_weight=sw)
    a, lin = fits["precomputed"], fits["linear"]
    assert len(a.result_) == 3  # one-vs-one pairs
    ref = SVC(kernel="linear", C=1.0, tol=1e-10).fit(X, y, sample_weight=sw).decision_function(X)
    smo = svmkit.SVC(kernel="precomputed", C=1.0, tol=1e-8).fit(K, y, sample_weight=sw)
    np.testing.assert_allclose(smo.decision_function(K), ref, atol=1e-6)
    np.testing.assert_allclose(a.decision_function(K), ref, atol=5e-3)
    np.testing.assert_allclose(a.decision_function(K), lin.decision_function(X), atol=5e-3)
    assert np.array_equal(a.predict(K), smo.predict(K))
    if zero_weights:  # zero-weight samples are no support vectors
        assert not np.isin(zero, a.support_).any()
