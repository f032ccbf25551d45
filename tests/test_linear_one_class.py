"""Linear one-class SVM (svmkit.LinearOneClassSVM, LIBLINEAR -s 21).

References: liblinear-official -s 21 at a tight eps (its w and rho), libsvm-official's one-class
SVM with the linear kernel, scikit-learn's OneClassSVM(kernel="linear") and clarabel solving the
dual QP. Objectives are computed here from the returned weights.
"""

from __future__ import annotations

import clarabel
import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from liblinear import liblinearutil
from sklearn.datasets import load_wine
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from sklearn.svm import OneClassSVM
from svmkit import _core


def liblinear_one_class(X, nu, eps=1e-9):
    m = liblinearutil.train([1.0] * X.shape[0], X.tolist(), f"-s 21 -n {nu} -e {eps} -q")
    w, neg_rho = m.get_decfun()
    return np.array(w), -neg_rho


def dual_value(w) -> float:
    return 0.5 * float(np.dot(w, w))


def data():
    """Wine, standardized and shifted: LIBLINEAR's -s 21 converges on it within its own
    iteration limit (on some sets, e.g. breast cancer with small nu, it stops at 1000
    iterations away from the optimum that svmkit, LIBSVM and clarabel agree on)."""
    X, _ = load_wine(return_X_y=True)
    return StandardScaler().fit_transform(X) + 1.0


@pytest.mark.parametrize("nu", [0.1, 0.5, 0.8])
def test_objective_rho_and_predictions_equal_liblinear(nu):
    X = data()
    wl, rhol = liblinear_one_class(X, nu)
    est = svmkit.LinearOneClassSVM(nu=nu, tol=1e-9, max_iter=100000).fit(X)
    w = est.coef_[0]
    assert est.result_[0]["status"] == svmkit.SolverStatus.converged
    assert dual_value(w) == pytest.approx(dual_value(wl), rel=1e-6)
    np.testing.assert_allclose(w, wl, rtol=1e-4, atol=1e-4 * np.abs(wl).max())
    assert est.offset_ == pytest.approx(rhol, rel=1e-4)
    dec_l = X @ wl - rhol
    sure = np.abs(dec_l) > 1e-6 * np.abs(dec_l).max()
    np.testing.assert_array_equal(est.predict(X)[sure], np.where(dec_l > 0, 1, -1)[sure])
    # strong duality in LIBSVM's scaling: primal P(w, rho) = -1/2 ||w||^2 at the optimum
    assert est.result_[0]["objective"] == pytest.approx(-dual_value(w), rel=1e-6)


def test_equals_exact_dual_qp_with_sample_weights():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3)) + 1.0
    U = rng.uniform(0.2, 2.0, size=40)
    nu = 0.3
    P = sp.csc_matrix(X @ X.T + 1e-12 * np.eye(40))
    A = sp.csc_matrix(np.vstack([np.ones((1, 40)), -np.eye(40), np.eye(40)]))
    b = np.r_[nu * U.sum(), np.zeros(40), U]
    cones = [clarabel.ZeroConeT(1), clarabel.NonnegativeConeT(80)]
    s = clarabel.DefaultSettings()
    s.verbose = False
    s.tol_gap_abs = s.tol_gap_rel = s.tol_feas = 1e-11
    ref = clarabel.DefaultSolver(P, np.zeros(40), A, b, cones, s).solve()
    a = np.array(ref.x)
    est = svmkit.LinearOneClassSVM(nu=nu, tol=1e-10, max_iter=100000).fit(X, sample_weight=U)
    assert dual_value(est.coef_[0]) == pytest.approx(dual_value(X.T @ a), rel=1e-6)
    assert est.dual_coef_.sum() == pytest.approx(nu * U.sum(), rel=1e-12)
    assert np.all(est.dual_coef_ >= 0) and np.all(est.dual_coef_ <= U + 1e-15)


def test_matches_libsvm_and_scikit_learn_one_class_linear():
    X = data()[:120]
    est = svmkit.LinearOneClassSVM(nu=0.2, tol=1e-9, max_iter=100000).fit(X)
    sk = OneClassSVM(kernel="linear", nu=0.2, tol=1e-9).fit(X)
    np.testing.assert_allclose(est.coef_, sk.coef_, rtol=1e-4, atol=1e-4)
    assert est.offset_ == pytest.approx(sk.offset_[0], rel=1e-4)
    np.testing.assert_allclose(est.score_samples(X), X @ est.coef_[0], rtol=1e-12)
    np.testing.assert_allclose(
        est.decision_function(X), sk.decision_function(X), rtol=1e-3, atol=1e-3
    )


def test_sparse_and_float32_agree():
    X = data()
    dense = svmkit.LinearOneClassSVM(nu=0.4, tol=1e-10, max_iter=100000).fit(X)
    csr = svmkit.LinearOneClassSVM(nu=0.4, tol=1e-10, max_iter=100000).fit(sp.csr_matrix(X))
    np.testing.assert_allclose(csr.coef_, dense.coef_, rtol=1e-7, atol=1e-9)
    f32 = svmkit.LinearOneClassSVM(nu=0.4, tol=1e-6, max_iter=100000).fit(X.astype(np.float32))
    np.testing.assert_allclose(f32.coef_, dense.coef_, rtol=1e-3, atol=1e-3)
    dec = dense.decision_function(X)
    clear = np.abs(dec) > 1e-6 * np.abs(dec).max()
    np.testing.assert_array_equal(csr.predict(sp.csr_matrix(X))[clear], dense.predict(X)[clear])


def test_max_iter_warns_and_errors_name_the_problem():
    X = data()
    with pytest.warns(ConvergenceWarning, match="iteration limit"):
        svmkit.LinearOneClassSVM(nu=0.5, tol=1e-12, max_iter=1).fit(X)
    seen = []
    with pytest.warns(ConvergenceWarning, match="stopped by the callback"):
        svmkit.LinearOneClassSVM(
            nu=0.5, tol=1e-12, callback=lambda r: seen.append(r) or len(seen) < 2
        ).fit(X)
    assert len(seen) == 2
    with pytest.raises(ValueError, match="nu"):
        svmkit.LinearOneClassSVM(nu=1.5).fit(X)
    cost = np.ones(X.shape[0])
    Xc = np.ascontiguousarray(X)
    with pytest.raises(ValueError, match=r"nu must be in \(0, 1\]"):
        _core.fit_linear_one_class(Xc, cost, 0.0, {}, None)
    with pytest.raises(ValueError, match="costs are all zero"):
        _core.fit_linear_one_class(Xc, 0.0 * cost, 0.5, {}, None)
    with pytest.raises(ValueError, match="per-sample costs must be finite"):
        _core.fit_linear_one_class(Xc, -cost, 0.5, {}, None)
    with pytest.raises(ValueError, match="linear_one_class option 'tol' must be > 0"):
        _core.fit_linear_one_class(Xc, cost, 0.5, {"tol": -1.0}, None)
    assert svmkit.solver_defaults("linear_one_class")["tol"] == 0.01


def test_shrinking_reaches_the_same_optimum():
    X = data()
    kw = dict(nu=0.3, tol=1e-10, max_iter=100000)
    on = svmkit.LinearOneClassSVM(**kw).fit(X)
    off = svmkit.LinearOneClassSVM(solver_options={"shrinking": False}, **kw).fit(X)
    assert dual_value(on.coef_[0]) == pytest.approx(dual_value(off.coef_[0]), rel=1e-9)
    assert on.offset_ == pytest.approx(off.offset_, rel=1e-6)
