"""solver="auto" runs a sparse X whose dense form is no larger dense (dense_if_smaller), and the
l2 hinge and the epsilon-insensitive loss on small badly scaled dense data go to ipm
(ipm_takes_badly_scaled): raw LIBSVM-style
data in a CSR container reach the exact optimum (against an independent QP solver), a named
solver keeps the user's storage."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import primal_svm
from sklearn.datasets import load_breast_cancer, load_wine
from sklearn.exceptions import ConvergenceWarning
from svmkit import _core, _kernel, _linear, _sparse_svc
from svmkit._solvers import (
    HINGE_DUAL_SCALE,
    IPM_EPS_MAX_FEATURES,
    IPM_MAX_FEATURES,
    IPM_SCALED_MAX_SAMPLES,
    IPM_SCALED_RATIO,
    auto_solver_name,
    ipm_takes_badly_scaled,
)
from svmkit._validation import dense_if_smaller


def _csr_with_density(n: int, d: int, density: float, dtype=np.float64, index=np.int32):
    X = sp.random(n, d, density=density, format="csr", random_state=3, dtype=dtype)
    X.indices = X.indices.astype(index)
    X.indptr = X.indptr.astype(index)
    return X


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("index", [np.int32, np.int64])
@pytest.mark.parametrize("density", [0.05, 0.4, 0.6, 0.7, 0.9, 1.0])
def test_dense_if_smaller_copies_only_when_no_larger(density, dtype, index) -> None:
    X = _csr_with_density(200, 30, density, dtype, index)
    out = dense_if_smaller(X)
    csr_bytes = X.data.nbytes + X.indices.nbytes + X.indptr.nbytes
    dense_bytes = X.shape[0] * X.shape[1] * np.dtype(dtype).itemsize
    if dense_bytes <= csr_bytes:
        assert isinstance(out, np.ndarray) and out.flags.c_contiguous
        assert out.dtype == dtype
        np.testing.assert_array_equal(out, X.toarray())
    else:
        assert out is X


def test_dense_if_smaller_leaves_dense_and_empty_input() -> None:
    A = np.ones((5, 3))
    assert dense_if_smaller(A) is A
    E = sp.csr_matrix((0, 4))
    assert dense_if_smaller(E) is E


def _core_storage(monkeypatch, module=_linear) -> list:
    """The storage ("dense" / "csr") of each matrix the estimators of `module` hand the core
    (their as_core_matrix calls)."""
    seen: list = []
    real = module.as_core_matrix

    def spy(X):
        out = real(X)
        seen.append("csr" if isinstance(out, tuple) else "dense")
        return out

    monkeypatch.setattr(module, "as_core_matrix", spy)
    return seen


def test_auto_runs_a_dense_csr_dense_and_a_named_solver_as_given(monkeypatch) -> None:
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    seen = _core_storage(monkeypatch)
    dense = svmkit.LinearSVC().fit(X, y)
    from_csr = svmkit.LinearSVC().fit(sp.csr_matrix(X), y)
    assert seen == ["dense", "dense"]
    assert from_csr.solver_ == dense.solver_
    np.testing.assert_allclose(from_csr.coef_, dense.coef_, rtol=0, atol=1e-12)
    np.testing.assert_allclose(from_csr.intercept_, dense.intercept_, rtol=0, atol=1e-12)
    seen.clear()
    svmkit.LinearSVC(solver="tron").fit(sp.csr_matrix(X), y)
    svmkit.LinearSVR(solver="dual_cd").fit(sp.csr_matrix(X), X[:, 0])
    assert seen == ["csr", "csr"]
    seen.clear()  # sparse enough: the CSR matrix itself
    Xs = _csr_with_density(300, 40, 0.1)
    svmkit.LinearSVC().fit(Xs, np.arange(300) % 2)
    assert seen == ["csr"]


def test_raw_libsvm_style_hinge_reaches_the_optimum_from_csr() -> None:
    """Unscaled breast cancer in a CSR container (as load_svmlight_file returns it): the hinge
    default once ran dual_cd into max_iter about 10x above the optimum (raw LIBSVM
    breast-cancer: 501 against 50.9); it now runs dense, badly scaled -> ipm, certified."""
    X, y = load_breast_cancer(return_X_y=True)
    Xs = sp.csr_matrix(X)
    clf = svmkit.LinearSVC(loss="hinge")
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf.fit(Xs, y)
    assert clf.solver_ == "ipm"
    t = np.where(y == clf.classes_[1], 1.0, -1.0)
    _, _, best = primal_svm(X, t, np.ones(len(y)))
    w, b = clf.coef_.ravel(), clf.intercept_[0]
    objective = 0.5 * (w @ w + b * b) + np.maximum(0.0, 1.0 - t * (X @ w + b)).sum()
    assert objective <= best * (1.0 + 1e-4)


@pytest.mark.parametrize("loss", ["hinge", "epsilon_insensitive"])
def test_uncertified_ipm_on_the_l2_losses_is_finished_by_tron(loss) -> None:
    """Where auto's ipm ends uncertified on the l2 hinge or the epsilon-insensitive loss (here
    cut at 2 iterations), tron's certified continuation finishes from its own start (l1_cd,
    ipm's finisher for l1 and the elastic net, does not take these problems): the exact
    optimum of an independent QP solver, no warning."""
    rng = np.random.default_rng(2)
    if loss == "hinge":
        X, y = load_breast_cancer(return_X_y=True)
        t = np.where(y == 1, 1.0, -1.0)
        est = svmkit.LinearSVC(loss="hinge", solver_options={"max_iter": 2})
    else:
        X = rng.standard_normal((300, 8)) * rng.uniform(1.0, 100.0, 8)
        y = t = X @ rng.standard_normal(8) / 50.0 + rng.standard_normal(300)
        est = svmkit.LinearSVR(solver_options={"max_iter": 2})
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(X, y)
    result = est.result_[0]
    assert result["started_by"]["status"] == _core.SolverStatus.max_iter
    assert result["finished_by"] == "tron" and est.solver_ == "ipm"
    w, b = est.coef_.ravel(), est.intercept_[0]
    z = X @ w + b
    data_loss = np.maximum(0.0, 1.0 - t * z) if loss == "hinge" else np.abs(z - t)
    objective = 0.5 * (w @ w + b * b) + data_loss.sum()
    _, _, best = primal_svm(X, t, np.ones(len(t)), loss=loss)
    assert objective <= best * (1.0 + 1e-4)


@pytest.mark.parametrize(
    ("loss", "cap"), [("hinge", IPM_MAX_FEATURES), ("epsilon_insensitive", IPM_EPS_MAX_FEATURES)]
)
def test_ipm_takes_the_small_badly_scaled_problems(loss, cap) -> None:
    bad = 2 * HINGE_DUAL_SCALE
    n_max, ratio = IPM_SCALED_MAX_SAMPLES, IPM_SCALED_RATIO
    for n, d, expected in [
        (n_max, 20, "ipm"),
        (n_max + 1, 20, "tron"),
        (ratio * 300, 300, "ipm" if 300 <= cap else "tron"),
        (ratio * 100 + n_max, 100, "tron"),
        (min(600, ratio * cap), cap, "ipm"),
        (min(600, ratio * cap), cap + 1, "tron"),
    ]:
        assert ipm_takes_badly_scaled(loss, n, d) == (expected == "ipm")
        assert auto_solver_name(loss, "l2", n, d, True, bad) == expected, (n, d)
    # well scaled, sparse, unregularized intercept: unchanged
    well = "dual_cd"
    assert auto_solver_name(loss, "l2", 500, 20, True, HINGE_DUAL_SCALE) == well
    assert auto_solver_name(loss, "l2", 500, 20, True, None) == well
    assert auto_solver_name(loss, "l2", 500, 20, False, bad) == "tron"


def test_badly_scaled_linear_svr_reaches_the_optimum() -> None:
    """LinearSVR() on small regression data with features on scales 1-100: ipm, certified,
    at the exact optimum (an independent QP solver)."""
    rng = np.random.default_rng(2)
    X = rng.standard_normal((300, 8)) * rng.uniform(1.0, 100.0, 8)
    y = X @ rng.standard_normal(8) / 50.0 + rng.standard_normal(300)
    reg = svmkit.LinearSVR().fit(sp.csr_matrix(X), y)
    assert reg.solver_ == "ipm"
    _, _, best = primal_svm(X, y, np.ones(300), loss="epsilon_insensitive")
    r = X @ reg.coef_ + reg.intercept_[0] - y
    w, b = reg.coef_, reg.intercept_[0]
    objective = 0.5 * (w @ w + b * b) + np.abs(r).sum()
    assert objective <= best * (1.0 + 1e-4)


@pytest.mark.parametrize("Est", [svmkit.SVC, svmkit.SVR, svmkit.NuSVC, svmkit.OneClassSVM])
def test_kernel_fits_solve_a_dense_csr_dense_and_keep_sparse_support_vectors(
    Est, monkeypatch
) -> None:
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    target = X[:, 0] if Est is svmkit.SVR else y
    dense = Est().fit(X, target) if Est is not svmkit.OneClassSVM else Est().fit(X)
    seen = _core_storage(monkeypatch, _kernel)
    Xs = sp.csr_matrix(X)
    model = Est().fit(Xs, target) if Est is not svmkit.OneClassSVM else Est().fit(Xs)
    assert seen[0] == "dense"  # the solve's storage (predict reads X as given)
    assert sp.issparse(model.support_vectors_) and sp.issparse(model.dual_coef_)
    np.testing.assert_array_equal(model.support_, dense.support_)
    np.testing.assert_allclose(model.support_vectors_.toarray(), dense.support_vectors_)
    np.testing.assert_allclose(
        model.decision_function(Xs) if hasattr(model, "decision_function") else model.predict(Xs),
        dense.decision_function(X) if hasattr(dense, "decision_function") else dense.predict(X),
        rtol=1e-9,
        atol=1e-9,
    )
    seen.clear()  # sparse enough: the CSR matrix itself
    Xsparse = sp.csr_matrix(np.where(np.abs(X) < 0.8, 0.0, X))
    if Est is svmkit.OneClassSVM:
        Est().fit(Xsparse)
    else:
        Est().fit(Xsparse, target)
    assert seen[0] == "csr"


def test_sparse_svc_solves_a_dense_csr_dense_and_keeps_sparse_support_vectors(monkeypatch) -> None:
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    dense = svmkit.SparseSVC().fit(X, y)
    seen = _core_storage(monkeypatch, _sparse_svc)
    model = svmkit.SparseSVC().fit(sp.csr_matrix(X), y)
    assert seen == ["dense"]
    assert sp.issparse(model.support_vectors_)
    np.testing.assert_array_equal(model.support_, dense.support_)
    np.testing.assert_allclose(model.coef_, dense.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(model.predict(sp.csr_matrix(X)), dense.predict(X))


@pytest.mark.parametrize("options", ["-s 2 -q", "-s 3 -q", "-s 13 -p 0.1 -q", "-s 1 -q -v 3"])
def test_liblinearutil_train_solves_a_dense_file_dense(monkeypatch, options) -> None:
    """train(y, x, "-s N") names its solver, so the estimator keeps X as given; a dense LIBSVM
    file arrives as CSR, and train hands the estimator its dense form (the same model: against
    the estimator on the dense array, which scikit-learn's liblinear also solves)."""
    from svmkit import liblinearutil

    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    if "-s 13" in options:
        y = X[:, 0] + 0.1 * np.arange(len(y)) % 3
        X = X[:, 1:]
    else:
        y = np.where(y == 0, 1.0, -1.0)
    seen = _core_storage(monkeypatch)
    out = liblinearutil.train(y, sp.csr_matrix(X), options)
    assert seen and set(seen) == {"dense"}
    if "-v" in options:
        assert 50.0 <= out <= 100.0
        return
    seen.clear()  # sparse enough: the CSR matrix itself
    Xs = _csr_with_density(120, 40, 0.1)
    liblinearutil.train(np.where(np.arange(120) % 2, 1.0, -1.0), Xs, options)
    assert seen == ["csr"]
    est = out.estimator
    ref = type(est)(**est.get_params()).fit(X, y)
    np.testing.assert_allclose(est.coef_, ref.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(est.intercept_, ref.intercept_, rtol=0, atol=1e-10)


def test_cli_train_solves_a_dense_file_dense(monkeypatch, tmp_path) -> None:
    """`svmkit train -s tron` on a dense LIBSVM file fits the dense form (the model the
    estimator fits on the dense array); a sparse file stays CSR."""
    from sklearn.datasets import dump_svmlight_file
    from svmkit import cli
    from svmkit._model_io import load_model

    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = np.where(y == 0, 1, -1)
    dense_file, sparse_file = tmp_path / "dense.txt", tmp_path / "sparse.txt"
    dump_svmlight_file(X, y, str(dense_file))
    dump_svmlight_file(_csr_with_density(120, 40, 0.1), np.arange(120) % 2, str(sparse_file))
    seen = _core_storage(monkeypatch)
    dense_model, sparse_model = str(tmp_path / "d.model"), str(tmp_path / "s.model")
    assert cli.main(["train", "-s", "tron", "-q", str(dense_file), dense_model]) == 0
    assert cli.main(["train", "-s", "tron", "-q", str(sparse_file), sparse_model]) == 0
    assert seen == ["dense", "csr"]
    ref = svmkit.LinearSVC(solver="tron").fit(X, y)
    fitted = load_model(dense_model)
    np.testing.assert_allclose(fitted.coef_, ref.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(fitted.intercept_, ref.intercept_, rtol=0, atol=1e-10)


def test_kernel_predictions_evaluate_dense_data_dense(monkeypatch) -> None:
    """A model fitted on dense data in a CSR container keeps sparse support vectors; its
    predictions on such data evaluate the kernel on dense rows (the support vectors' dense copy
    from _DENSE_SV_MIN_ROWS query rows on), with the values of an independent evaluation
    (scikit-learn's rbf_kernel over the fitted support vectors and dual coefficients)."""
    from sklearn.metrics.pairwise import rbf_kernel

    X, y = load_breast_cancer(return_X_y=True)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    Xs = sp.csr_matrix(X)
    clf = svmkit.SVC(probability=True, random_state=0).fit(Xs, y)
    assert sp.issparse(clf.support_vectors_)
    seen: list = []
    names = ("kernel_decision_function", "kernel_predict_class_indices", "kernel_predict_proba")
    for name in names:
        real = getattr(_core, name)

        def spy(Xc, model, threads, real=real):
            seen.append((isinstance(Xc, tuple), isinstance(model["sv"], tuple)))
            return real(Xc, model, threads)

        monkeypatch.setattr(_core, name, spy)
    values = clf.decision_function(Xs)
    labels = clf.predict(Xs)
    clf.predict_proba(Xs)
    assert seen == [(False, False)] * 3  # dense X, dense support vectors
    seen.clear()
    clf.decision_function(Xs[:5])  # few rows: the support vectors stay sparse
    assert seen == [(False, True)]
    K = rbf_kernel(X, clf.support_vectors_.toarray(), gamma=clf._gamma_)
    reference = K @ clf.dual_coef_.toarray().ravel() + clf.intercept_[0]
    np.testing.assert_allclose(values, reference, rtol=0, atol=1e-10)
    np.testing.assert_array_equal(labels, clf.classes_[(reference > 0).astype(int)])
