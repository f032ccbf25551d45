"""svmkit.dask: distributed TRON on a LocalCluster (2 worker processes, 1 thread each).

The distributed fit must reach the in-memory fit's objective (within 1e-8 relative) on dense
and sparse data for every TRON loss, with the intercept, class and sample weights, warm start
and one-vs-rest; survive a killed worker with the same result; and fail fast with a clear
error on a closed client or scheduler. One cluster is shared by the module; the tests that
kill a worker start their own.
"""

from __future__ import annotations

import os
import pickle
import signal
import time

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("dask", reason="svmkit.dask needs dask[distributed] (the 'dask' extra)")
pytest.importorskip("distributed", reason="svmkit.dask needs dask[distributed] (the 'dask' extra)")

import dask.array as da  # noqa: E402
import svmkit  # noqa: E402
import svmkit.dask as sd  # noqa: E402
from distributed import Client, LocalCluster, wait  # noqa: E402
from references import primal_svm, scaled_separable  # noqa: E402
from svmkit import SolverStatus, _core  # noqa: E402

CLF_LOSSES = ["squared_hinge", "smoothed_hinge", "gaussian_smoothed_hinge", "logistic"]
REG_LOSSES = ["squared_epsilon_insensitive", "smoothed_epsilon_insensitive", "epsilon_insensitive"]
TOL = 1e-6  # tight enough that both fits end next to the optimum (objectives agree to 1e-8)
# The in-memory TRON with a pass per Hessian-vector product, as the Dask driver's CG does (its
# default may assemble H on these few features: the same steps up to rounding, fewer passes).
PRODUCTS = {"hessian": "products"}


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


@pytest.fixture
def own_client():
    """A cluster of its own for a test that kills a worker: the nanny's restart of the killed
    process may take longer than the test on a loaded 2-core runner, and no later test should
    wait for it (CI once saw 1 of 2 workers back after 60 s)."""
    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
    )
    c = Client(cluster, set_as_default=False)
    c.wait_for_workers(2, timeout=120)
    yield c
    c.close()
    cluster.close()


def make_data(n=400, d=8, sparse=False, classes=2, seed=0, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if sparse:
        X[rng.random((n, d)) < 0.7] = 0.0
    w = rng.standard_normal(d)
    z = X @ w + 0.3 * rng.standard_normal(n)
    if regression:
        y = z + 0.5
    elif classes == 2:
        y = np.where(z > 0.2, 1, -1)
    else:
        y = np.digitize(z, np.quantile(z, np.linspace(0, 1, classes + 1)[1:-1]))
    Xm = sp.csr_matrix(X) if sparse else X
    return Xm, y


def to_dask(X, y, chunk=100, sw=None):
    if sp.issparse(X):
        blocks = [X[i : i + chunk] for i in range(0, X.shape[0], chunk)]
        Xd = da.concatenate(
            [da.from_array(b, chunks=b.shape, asarray=False) for b in blocks], axis=0
        )
    else:
        Xd = da.from_array(X, chunks=(chunk, X.shape[1]))
    yd = da.from_array(y, chunks=chunk)
    swd = None if sw is None else da.from_array(sw, chunks=chunk)
    return Xd, yd, swd


def with_client(est, c):
    est.client = c
    return est


def rel(a, b):
    return abs(a - b) / abs(b)


def assert_same_fit(local, dist):
    for r_l, r_d in zip(local.result_, dist.result_):
        assert rel(r_d["objective"], r_l["objective"]) <= 1e-8
        assert r_d["status"] == r_l["status"]
    np.testing.assert_allclose(dist.coef_, local.coef_, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dist.intercept_, local.intercept_, rtol=1e-5, atol=1e-6)


def test_prepare_block_solves_dense_data_in_a_sparse_container_dense():
    """A partition whose dense form takes no more memory than its CSR arrays is prepared dense
    (dense_if_smaller, as the in-memory solver="auto"); sparse partitions stay CSR."""
    from svmkit.dask._tasks import prepare_block

    X, y = make_data(n=50, d=6)
    block = prepare_block(sp.csr_matrix(X), y, None)
    assert isinstance(block[0], np.ndarray) and block[0].flags.c_contiguous
    np.testing.assert_array_equal(block[0], X)
    Xs, ys = make_data(n=50, d=6, sparse=True)
    assert isinstance(prepare_block(Xs, ys, None)[0], tuple)  # CSR as the core views it


def test_dense_data_in_a_sparse_container_match_in_memory(client):
    """Dense data in CSR partitions (as a LIBSVM file's): the distributed fit on the dense
    form takes the in-memory fit's steps on the dense array."""
    X, y = make_data(seed=4)
    Xd, yd, _ = to_dask(sp.csr_matrix(X), y)
    params = dict(C=0.5, tol=TOL, solver="tron")
    dist = sd.LinearSVC(**params).fit(Xd, yd)
    local = svmkit.LinearSVC(**params, solver_options=PRODUCTS).fit(X, y)
    assert_same_fit(local, dist)
    assert dist.result_[0]["passes"] == local.result_[0]["passes"]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss", CLF_LOSSES)
def test_classifier_matches_in_memory(client, loss, sparse):
    X, y = make_data(sparse=sparse, seed=1)
    Xd, yd, _ = to_dask(X, y)
    params = dict(loss=loss, C=0.5, tol=TOL, solver="tron")
    local = svmkit.LinearSVC(**params, solver_options=PRODUCTS).fit(X, y)
    dist = sd.LinearSVC(**params).fit(Xd, yd)
    assert_same_fit(local, dist)
    assert dist.result_[0]["passes"] == local.result_[0]["passes"]
    # The in-memory default (on these 8 features it may assemble H): the same optimum.
    assert_same_fit(svmkit.LinearSVC(**params).fit(X, y), dist)


@pytest.mark.parametrize("loss", ["squared_hinge", "smoothed_hinge", "hinge"])
def test_gap_stop_matches_in_memory(client, loss):
    """At the default tol TRON also stops on its relative duality gap (solvers/tron.hpp; not in
    the hinge continuation's stages): the driver takes the same iterations and says so."""
    from svmkit.datasets import make_sparse_text_like

    X, y = make_sparse_text_like(2000, 1000, 0.03, label_noise=0.05, random_state=0)
    Xd, yd, _ = to_dask(X, y, chunk=500)
    local = svmkit.LinearSVC(loss=loss, solver="tron", solver_options=PRODUCTS).fit(X, y)
    dist = sd.LinearSVC(loss=loss).fit(Xd, yd)
    assert_same_fit(local, dist)
    r_l, r_d = local.result_[0], dist.result_[0]
    if loss != "hinge":  # the continuation's stages keep the gradient rule
        assert r_d["iterations"] == r_l["iterations"]
        assert "relative duality gap" in r_l["message"] and "relative duality gap" in r_d["message"]


@pytest.mark.parametrize("loss", ["smoothed_hinge", "gaussian_smoothed_hinge"])
def test_smoothed_hinges_stop_on_the_gap_alone_as_in_memory(client, loss):
    """The smoothed hinges stop on the certified gap alone (_core.tron_stop_rule): on
    separable data, where LIBLINEAR's rule would stop first, the driver takes the same
    iterations as the in-memory fit and says so."""
    from svmkit.datasets import make_two_gaussians

    X, y = make_two_gaussians(200, 2000, random_state=0)
    Xd, yd, _ = to_dask(X, y, chunk=50)
    local = svmkit.LinearSVC(loss=loss, solver="tron", C=10.0, solver_options=PRODUCTS).fit(X, y)
    dist = sd.LinearSVC(loss=loss, C=10.0).fit(Xd, yd)
    assert_same_fit(local, dist)
    r_l, r_d = local.result_[0], dist.result_[0]
    assert r_d["iterations"] == r_l["iterations"]
    assert "the gap alone decides" in r_l["message"] and "the gap alone decides" in r_d["message"]


@pytest.mark.parametrize("globalization", ["line_search", "trust_region"])
def test_tron_globalizations_match_in_memory(client, globalization):
    # Each way of TRON's on a loss whose "auto" picks the other one (solvers/tron.hpp), both
    # classification (squared hinge, psi_M) and regression: the same steps as in memory.
    X, y = make_data(sparse=True, seed=4)
    Xd, yd, _ = to_dask(X, y)
    loss = "squared_hinge" if globalization == "line_search" else "smoothed_hinge"
    params = dict(loss=loss, C=0.5, tol=TOL, solver_options={"globalization": globalization})
    local = svmkit.LinearSVC(
        **dict(params, solver_options={**params["solver_options"], **PRODUCTS})
    ).fit(X, y)
    dist = sd.LinearSVC(**params).fit(Xd, yd)
    assert_same_fit(local, dist)
    assert dist.result_[0]["passes"] == local.result_[0]["passes"]
    Xr, yr = make_data(seed=5, regression=True)
    Xrd, yrd, _ = to_dask(Xr, yr)
    params = dict(
        loss="squared_epsilon_insensitive", tol=TOL, solver_options={"globalization": globalization}
    )
    local = svmkit.LinearSVR(
        **dict(params, solver_options={**params["solver_options"], **PRODUCTS})
    ).fit(Xr, yr)
    dist = sd.LinearSVR(**params).fit(Xrd, yrd)
    assert_same_fit(local, dist)
    assert dist.result_[0]["passes"] == local.result_[0]["passes"]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("loss", REG_LOSSES)
def test_regressor_matches_in_memory(client, loss, sparse):
    X, y = make_data(sparse=sparse, seed=2, regression=True)
    sw = np.random.default_rng(3).uniform(0.5, 2.0, y.shape[0])
    Xd, yd, swd = to_dask(X, y, sw=sw)
    params = dict(loss=loss, C=2.0, epsilon=0.1, tol=TOL, solver="tron", intercept_scaling=2.0)
    local = svmkit.LinearSVR(**params).fit(X, y, sample_weight=sw)
    dist = sd.LinearSVR(**params).fit(Xd, yd, sample_weight=swd)
    assert_same_fit(local, dist)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_squared_hinge_matches_liblinear(client):
    """An independent reference: scikit-learn's LinearSVC (LIBLINEAR, primal, regularized
    bias) minimizes the same objective."""
    from sklearn.svm import LinearSVC as SkSVC

    X, y = make_data(seed=4)
    Xd, yd, _ = to_dask(X, y)
    dist = sd.LinearSVC(C=0.3, tol=1e-8).fit(Xd, yd)
    sk = SkSVC(C=0.3, dual=False, tol=1e-10, max_iter=10000).fit(X, y)

    def F(w, b):
        yy = np.where(y == 1, 1.0, -1.0)
        return 0.5 * (w @ w + b * b) + 0.3 * np.sum(np.maximum(0, 1 - yy * (X @ w + b)) ** 2)

    f_sk = F(sk.coef_[0], sk.intercept_[0])
    assert rel(dist.result_[0]["objective"], f_sk) <= 1e-8
    assert rel(F(dist.coef_[0], dist.intercept_[0]), f_sk) <= 1e-8


@pytest.mark.parametrize(
    "sparse, cw",
    [(False, {0: 2.0, 2: 0.5}), (True, "balanced")],
    ids=["dense-dict", "csr-balanced"],
)
def test_one_vs_rest_weights(client, sparse, cw):
    X, y = make_data(n=450, sparse=sparse, classes=3, seed=5)
    sw = np.random.default_rng(6).uniform(0.2, 3.0, y.shape[0])
    Xd, yd, swd = to_dask(X, y, chunk=150, sw=sw)
    params = dict(loss="logistic", tol=TOL, class_weight=cw)
    local = svmkit.LinearSVC(**params).fit(X, y, sample_weight=sw)
    dist = sd.LinearSVC(**params).fit(Xd, yd, sample_weight=swd)
    assert dist.coef_.shape == (3, X.shape[1])
    np.testing.assert_array_equal(dist.classes_, local.classes_)
    assert_same_fit(local, dist)


def test_intercept_options(client):
    X, y = make_data(seed=7)
    Xd, yd, _ = to_dask(X, y)
    for params in (
        dict(regularize_intercept=False, intercept_scaling=3.0),
        dict(fit_intercept=False),
    ):
        params.update(loss="smoothed_hinge", tol=TOL, sigma=0.5)
        local = svmkit.LinearSVC(**params).fit(X, y)
        dist = sd.LinearSVC(**params).fit(Xd, yd)
        assert_same_fit(local, dist)


def test_warm_start(client):
    X, y = make_data(seed=8)
    Xd, yd, _ = to_dask(X, y)
    local = svmkit.LinearSVC(C=1.0, tol=TOL, warm_start=True).fit(X, y)
    dist = sd.LinearSVC(C=1.0, tol=TOL, warm_start=True).fit(Xd, yd)
    local.set_params(C=1.5).fit(X, y)
    dist.set_params(C=1.5).fit(Xd, yd)
    assert_same_fit(local, dist)
    assert dist.result_[0]["iterations"] == local.result_[0]["iterations"]


def test_many_partitions_tree_reduction(client):
    """12 partitions with split_every=3: two levels of reduction tasks on the workers (12 -> 4
    -> 2), the last addition on the driver."""
    X, y = make_data(n=480, seed=9)
    Xd, yd, _ = to_dask(X, y, chunk=40)
    local = svmkit.LinearSVC(loss="logistic", tol=TOL).fit(X, y)
    dist = sd.LinearSVC(loss="logistic", tol=TOL, split_every=3).fit(Xd, yd)
    assert_same_fit(local, dist)


def test_dataframe_input_lazy_predict_and_to_local(client, tmp_path):
    pd = pytest.importorskip("pandas")
    dd = pytest.importorskip("dask.dataframe")
    X, y = make_data(n=400, seed=10)
    cols = [f"f{j}" for j in range(X.shape[1])]
    df = dd.from_pandas(pd.DataFrame(X, columns=cols), npartitions=3)
    ys = dd.from_pandas(pd.Series(y), npartitions=3)
    dist = sd.LinearSVC(tol=TOL).fit(df, ys)
    assert list(dist.feature_names_in_) == cols
    pred = dist.predict(df)
    dec = dist.decision_function(df)
    score = dist.score(df, ys)
    assert isinstance(pred, da.Array) and isinstance(dec, da.Array)
    local = dist.to_local()
    assert type(local) is svmkit.LinearSVC
    Xf = pd.DataFrame(X, columns=cols)
    np.testing.assert_array_equal(pred.compute(), local.predict(Xf))
    np.testing.assert_allclose(dec.compute(), local.decision_function(Xf), rtol=1e-12)
    assert abs(float(score.compute()) - local.score(Xf, y)) <= 1e-12
    path = tmp_path / "m.txt"
    svmkit.save_model(local, path)
    np.testing.assert_array_equal(svmkit.load_model(path).predict(X), local.predict(Xf))


def test_linear_svr_default_is_the_epsilon_insensitive_model(client):
    """svmkit.dask.LinearSVR() fits scikit-learn's model (the epsilon-insensitive loss) by
    TRON's smoothing continuation, with the in-memory solver's stages and certificate."""
    X, y = make_data(n=600, seed=41, regression=True)
    Xd, yd, _ = to_dask(X, y, chunk=150)
    dist = sd.LinearSVR(tol=TOL).fit(Xd, yd)
    local = svmkit.LinearSVR(solver="tron", tol=TOL, solver_options=PRODUCTS).fit(X, y)
    assert dist.loss == "epsilon_insensitive" and dist.solver_ == "tron"
    assert_same_fit(local, dist)
    r_d, r_l = dist.result_[0], local.result_[0]
    assert r_d["optimality"] <= TOL  # the certified relative duality gap
    np.testing.assert_allclose(r_d["history"]["smoothing"], r_l["history"]["smoothing"])
    assert r_d["iterations"] == r_l["iterations"] and r_d["passes"] == r_l["passes"]
    f = 0.5 * (dist.coef_ @ dist.coef_ + dist.intercept_[0] ** 2) + np.sum(
        np.abs(X @ dist.coef_ + dist.intercept_[0] - y)
    )
    assert rel(f, r_d["objective"]) <= 1e-12


@pytest.mark.parametrize("sparse", [False, True])
def test_linear_svr_band_repair_matches_in_memory(client, sparse):
    """Near-separable targets on features of scales 1 to 1000 at C = 1000: only the band repair
    of the dual point certifies the default tol (tron.cpp's repair_on_band); the partitions
    replay it and the fit ends where the in-memory one does, certified."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((600, 10))
    w = rng.standard_normal(10)
    y = X @ w / np.linalg.norm(w) + 0.05 * rng.standard_normal(600)
    X = X * np.logspace(0, 3, 10)
    if sparse:
        X[rng.random(X.shape) < 0.2] = 0.0
        X = sp.csr_matrix(X)
    Xd, yd, _ = to_dask(X, y, chunk=150)
    dist = sd.LinearSVR(C=1000.0).fit(Xd, yd)
    local = svmkit.LinearSVR(C=1000.0, solver="tron", solver_options=PRODUCTS).fit(X, y)
    assert_same_fit(local, dist)
    r_d, r_l = dist.result_[0], local.result_[0]
    assert str(r_d["status"]).endswith("converged") and r_d["optimality"] <= 1e-4
    assert r_d["optimality"] == pytest.approx(r_l["optimality"], rel=1e-6)
    assert r_d["iterations"] == r_l["iterations"] and r_d["passes"] == r_l["passes"]


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_hinge_default_is_the_certified_continuation(client, sparse):
    """svmkit.dask.LinearSVC(loss="hinge") runs tron's smoothing continuation (as the in-memory
    solver="tron"): the same stages, the exact objective, and a certified duality gap."""
    X, y = make_data(n=600, seed=43, sparse=sparse)
    sw = np.random.default_rng(44).uniform(0.5, 2.0, y.shape[0])
    Xd, yd, swd = to_dask(X, y, chunk=150, sw=sw)
    dist = sd.LinearSVC(loss="hinge", tol=TOL).fit(Xd, yd, sample_weight=swd)
    local = svmkit.LinearSVC(loss="hinge", solver="tron", tol=TOL).fit(X, y, sample_weight=sw)
    assert dist.solver_ == "tron"
    assert_same_fit(local, dist)
    r_d, r_l = dist.result_[0], local.result_[0]
    assert str(r_d["status"]).endswith("converged") and r_d["optimality"] <= TOL
    np.testing.assert_allclose(r_d["history"]["smoothing"], r_l["history"]["smoothing"])
    yy = np.where(y == dist.classes_[1], 1.0, -1.0)
    w, b = dist.coef_[0], dist.intercept_[0]
    f = 0.5 * (w @ w + b * b) + np.sum(sw * np.maximum(0.0, 1.0 - yy * (X @ w + b)))
    assert rel(f, r_d["objective"]) <= 1e-12


def test_hinge_continuation_near_tol_step_matches_in_memory(client):
    """Two Gaussian classes end the sigma = 0.01 stage just above the default tol: the next
    stage divides sigma by 2 gap / tol (_core.continuation_smoothing_factor) on Dask as in
    memory, the same stages to the same certified optimum."""
    from svmkit.datasets import make_two_gaussians

    X, y = make_two_gaussians(3000, 50, random_state=0)
    Xd, yd, _ = to_dask(X, y, chunk=750)
    dist = sd.LinearSVC(loss="hinge").fit(Xd, yd)
    local = svmkit.LinearSVC(loss="hinge", solver="tron").fit(X, y)
    assert_same_fit(local, dist)
    sig_d = sorted(set(dist.result_[0]["history"]["smoothing"]), reverse=True)
    sig_l = sorted(set(local.result_[0]["history"]["smoothing"]), reverse=True)
    # sigma follows the gap, a difference of near-equal sums: the reduction order moves it
    # (1e-5 relative measured)
    np.testing.assert_allclose(sig_d, sig_l, rtol=1e-3)
    assert min(a / b for a, b in zip(sig_d, sig_d[1:])) < 10.0  # a near-tol step was taken


@pytest.mark.parametrize(
    "sparse, free",
    [(False, False), (True, False), (False, True)],
    ids=["dense", "csr", "free-bias"],
)
def test_hinge_band_repair_matches_in_memory(client, sparse, free):
    """Near-separable classes on features of scales 1 to 1000 at C = 100: the band repair of
    the dual point (margin band, box [0, C] in a) certifies the default tol on the partitions
    as in memory, within tol of clarabel's optimum."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((600, 6))
    w = rng.standard_normal(6)
    y = np.where(X @ w + 0.05 * rng.standard_normal(600) > 0, 1, -1)
    X = X * np.logspace(0, 3, 6)
    if sparse:
        X[rng.random(X.shape) < 0.2] = 0.0
        X = sp.csr_matrix(X)
    Xd, yd, _ = to_dask(X, y, chunk=150)
    p = dict(loss="hinge", C=100.0, regularize_intercept=not free)
    dist = sd.LinearSVC(**p).fit(Xd, yd)
    local = svmkit.LinearSVC(solver="tron", **p).fit(X, y)
    assert_same_fit(local, dist)
    r_d = dist.result_[0]
    assert str(r_d["status"]).endswith("converged") and r_d["optimality"] <= 1e-4
    _, _, best = primal_svm(X, y.astype(float), 100.0, reg_b=not free)
    assert r_d["objective"] - best <= r_d["optimality"] * r_d["objective"]


def test_hinge_continuation_one_vs_rest_without_intercept(client):
    X, y = make_data(n=450, classes=3, seed=45)
    Xd, yd, _ = to_dask(X, y, chunk=150)
    p = dict(loss="hinge", tol=TOL, fit_intercept=False, class_weight={0: 2.0, 2: 0.5})
    dist = sd.LinearSVC(**p).fit(Xd, yd)
    local = svmkit.LinearSVC(solver="tron", **p).fit(X, y)
    assert dist.solver_ == "tron" and dist.coef_.shape == (3, X.shape[1])
    assert_same_fit(local, dist)
    assert all(r["optimality"] <= TOL for r in dist.result_)


@pytest.mark.parametrize("regression", [False, True], ids=["hinge", "epsilon"])
def test_continuation_with_a_free_intercept_matches_in_memory(client, regression):
    """regularize_intercept=False: the continuation's dual constraint sum beta_i = 0 (the
    smoothed point balanced by the driver from the partitions' sums split by sign, then asked
    for by the band repair), as tron.cpp does it: the same stages and objective, certified,
    within tol of clarabel's optimum with a free bias."""
    X, y = make_data(n=600, seed=47, regression=regression)
    if regression:
        y = y + 4.0  # an offset the free bias must carry
    Xd, yd, _ = to_dask(X, y, chunk=150)
    p = dict(C=5.0, regularize_intercept=False, intercept_scaling=2.0)
    if regression:
        dist = sd.LinearSVR(epsilon=0.1, **p).fit(Xd, yd)
        local = svmkit.LinearSVR(epsilon=0.1, solver="tron", **p).fit(X, y)
        _, _, best = primal_svm(
            X, y, 5.0, loss="epsilon_insensitive", epsilon=0.1, reg_b=False, scaling=2.0
        )
    else:
        dist = sd.LinearSVC(loss="hinge", **p).fit(Xd, yd)
        local = svmkit.LinearSVC(loss="hinge", solver="tron", **p).fit(X, y)
        _, _, best = primal_svm(X, y.astype(float), 5.0, reg_b=False, scaling=2.0)
    assert dist.solver_ == "tron"
    assert_same_fit(local, dist)
    r_d, r_l = dist.result_[0], local.result_[0]
    assert str(r_d["status"]).endswith("converged") and r_d["optimality"] <= 1e-4
    assert r_d["optimality"] == pytest.approx(r_l["optimality"], rel=1e-5)
    np.testing.assert_allclose(r_d["history"]["smoothing"], r_l["history"]["smoothing"])
    assert (r_d["objective"] - best) / r_d["objective"] <= r_d["optimality"] + 1e-9


def test_regressor_lazy_score(client):
    X, y = make_data(seed=11, regression=True)
    Xd, yd, _ = to_dask(X, y)
    dist = sd.LinearSVR(tol=TOL).fit(Xd, yd)
    local = dist.to_local()
    assert type(local) is svmkit.LinearSVR
    assert isinstance(dist.predict(Xd), da.Array)
    assert abs(float(dist.score(Xd, yd).compute()) - local.score(X, y)) <= 1e-10


def test_curvature_cache_is_dropped_after_fit(client):
    """The workers keep at most two curvature vectors per partition during a fit and none
    after it."""
    from svmkit.dask import _tasks

    X, y = make_data(n=200, seed=17)
    Xd, yd, _ = to_dask(X, y)
    seen = []

    def probe(rec):
        sizes = client.run(lambda: [len(v) for v in _tasks._CURVATURE.values()])
        seen.append(max((max(v) for v in sizes.values() if v), default=0))
        return True

    sd.LinearSVC(tol=TOL, callback=probe).fit(Xd, yd)
    assert seen and max(seen) <= 2
    assert all(n == 0 for n in client.run(lambda: len(_tasks._CURVATURE)).values())


def test_partition_passes_sum_to_the_objective():
    """The per-partition kernels plus the regularizer equal the in-memory objective kernels."""
    X, y = make_data(n=300, seed=12)
    yy = np.where(y == 1, 1.0, -1.0)
    cost = np.random.default_rng(13).uniform(0.5, 1.5, 300)
    w = np.random.default_rng(14).standard_normal(X.shape[1] + 1) * 0.3
    s = np.random.default_rng(15).standard_normal(X.shape[1] + 1)
    ref = _core.objective_eval(X, yy, cost, "logistic", 0.1, 0.0, True, 2.0, True, w, s, 1)
    tot = np.zeros(1 + 2 * w.shape[0])
    hv = np.zeros(w.shape[0])
    for lo in range(0, 300, 70):
        sl = slice(lo, lo + 70)
        packed, curv = _core.partition_fun_grad(
            X[sl], yy[sl], cost[sl], "logistic", 0.1, 0.0, True, 2.0, w, True, True
        )
        tot += packed
        hv += _core.partition_hess_vec(X[sl], curv, s, True, 2.0)
    dim = w.shape[0]
    assert rel(tot[0] + 0.5 * w @ w, ref["f"]) <= 1e-13
    np.testing.assert_allclose(tot[1 : 1 + dim] + w, ref["grad"], rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(tot[1 + dim :] + 1.0, ref["hess_diag"], rtol=1e-12)
    np.testing.assert_allclose(hv + s, ref["hess_vec"], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_fun_grad_margins_are_partition_margins(sparse, fit_intercept):
    # The margins a fun_grad pass returns are the ones the line search's tasks would compute
    # from the partition (a worker that lost its cache recomputes them: the same bits), and
    # asking for them changes nothing else.
    X, y = make_data(n=200, d=7, sparse=sparse, seed=21)
    Xc = svmkit._validation.as_core_matrix(X)
    yy = np.where(y == 1, 1.0, -1.0)
    cost = np.full(200, 0.8)
    w = np.random.default_rng(22).standard_normal(7 + fit_intercept)
    args = (Xc, yy, cost, "smoothed_hinge", 0.1, 0.0, fit_intercept, 1.5, w, True, True)
    packed, curv, z = _core.partition_fun_grad(*args, want_margins=True)
    ref_packed, ref_curv = _core.partition_fun_grad(*args)
    assert np.array_equal(z, _core.partition_margins(Xc, w, fit_intercept, 1.5))
    assert np.array_equal(packed, ref_packed) and np.array_equal(curv, ref_curv)


def test_line_search_reads_the_margins_of_fun_grad():
    # keep_margins leaves z at the point in the worker's cache, where the line search's first
    # task (tron_direction / tron_line via _margins_at) finds it without a sweep; forget drops
    # it with the curvature.
    from svmkit.dask import _tasks

    X, y = make_data(n=120, d=5, seed=23)
    block = _tasks.prepare_block(X, np.where(y == 1, 1.0, -1.0), None)
    targets = _tasks.class_targets(block, np.array([-1.0, 1.0]), 1, 1.0, np.ones(2))
    w = np.random.default_rng(24).standard_normal(6)
    slot, point, intercept = ("fit-under-test", 0), 3, (True, 1.0)
    loss = ("smoothed_hinge", 0.1, 0.0)
    _tasks.fun_grad(block, targets, w, loss, intercept, slot, point, None, keep_margins=True)
    try:
        cached = _tasks._VECTORS[slot][("z", point)]
        assert _tasks._margins_at(block, slot, (point, w), intercept) is cached
        assert np.array_equal(cached, _core.partition_margins(block[0], w, *intercept))
    finally:
        assert _tasks.forget("fit-under-test") == 2  # the curvature's slot and the margins'
    assert slot not in _tasks._VECTORS and slot not in _tasks._CURVATURE


def test_tron_fit_leaves_nothing_on_the_workers(client):
    # A psi_M fit (TRON's line search caches margins and direction margins on the workers)
    # drops what it cached when it ends.
    from svmkit.dask import _tasks

    X, y = make_data(sparse=True, seed=25)
    Xd, yd, _ = to_dask(X, y)
    sd.LinearSVC(loss="smoothed_hinge", tol=TOL).fit(Xd, yd)

    def cached():
        return len(_tasks._VECTORS) + len(_tasks._CURVATURE)

    assert sum(client.run(cached).values()) == 0


def test_partition_kernel_errors():
    X = np.zeros((3, 2))
    with pytest.raises(ValueError, match="curvature has length 2, expected 3"):
        _core.partition_hess_vec(X, np.zeros(2), np.zeros(3), True, 1.0)
    with pytest.raises(ValueError, match="w has length 2, expected 3"):
        _core.partition_fun_grad(
            X, np.ones(3), np.ones(3), "logistic", 0.1, 0.0, True, 1.0, np.zeros(2), True, True
        )
    with pytest.raises(ValueError, match="intercept_scaling must be > 0"):
        _core.partition_hess_vec(X, np.zeros(3), np.zeros(3), True, 0.0)


@pytest.mark.parametrize(
    "n_parts, n_slots, expected",
    [
        (8, 2, [[0, 1, 2, 3], [4, 5, 6, 7]]),
        (7, 3, [[0, 1], [2, 3], [4, 5, 6]]),
        (3, 8, [[0], [1], [2]]),
        (1, 1, [[0]]),
    ],
)
def test_partition_groups_are_contiguous_runs(n_parts, n_slots, expected):
    from svmkit.dask._data import partition_groups

    assert partition_groups(n_parts, n_slots) == expected


def assert_blocks_on_their_run_workers(client, parts) -> None:
    """Every partition's block is held by its run's worker (a replica elsewhere is the
    scheduler's choice: work stealing may run a check task on the other worker)."""
    where = client.who_has(parts.blocks)
    for g, addr in zip(parts.groups, parts.group_workers):
        for p in g:
            assert addr in where[parts.blocks[p].key]


def test_a_pass_is_one_task_per_worker_thread(client):
    """8 partitions on 2 single-thread workers: the partitions are placed as 2 contiguous runs,
    one per worker, and a TRON pass sends one task per run (the driver's bytes per pass are
    those of 2 copies of the point w, not 8), with the in-memory answer."""
    from svmkit.dask._data import persist

    X, y = make_data(n=800, seed=5)
    Xd, yd, _ = to_dask(X, y, chunk=100)
    parts = persist(client, Xd, yd, None)
    assert parts.groups == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert sorted(parts.group_workers) == sorted(client.scheduler_info()["workers"])
    assert_blocks_on_their_run_workers(client, parts)
    dist = sd.LinearSVC(loss="logistic", tol=TOL).fit(Xd, yd)
    res = dist.result_[0]
    w = np.zeros(X.shape[1] + 1)
    per_point = len(pickle.dumps(w, protocol=pickle.HIGHEST_PROTOCOL))
    # Every pass sends w (gradient passes) or (w, s) (Hessian-vector passes) once per task.
    assert res["bytes_sent"] <= res["passes"] * 2 * (2 * per_point + 64)
    assert res["bytes_sent"] >= res["passes"] * 2 * per_point
    local = svmkit.LinearSVC(loss="logistic", tol=TOL, solver="tron").fit(X, y)
    assert rel(res["objective"], local.result_[0]["objective"]) <= 1e-8


@pytest.mark.parametrize(
    "slots, locations, expected",
    [
        # Interleaved placement: each worker's partitions are its run.
        (["a", "b"], ["a", "b"] * 4, ([[0, 2, 4, 6], [1, 3, 5, 7]], ["a", "b"])),
        # Two threads per worker: each worker's partitions split into two runs.
        (
            ["a", "a", "b", "b"],
            ["a", "a", "b", "b"] * 2,
            ([[0, 1], [4, 5], [2, 3], [6, 7]], ["a", "a", "b", "b"]),
        ),
        # Not persisted yet, or on a worker that is not listed: the contiguous runs.
        (["a", "b"], [None] * 8, ([[0, 1, 2, 3], [4, 5, 6, 7]], ["a", "b"])),
        (["a", "b"], ["a", "c"] * 4, ([[0, 1, 2, 3], [4, 5, 6, 7]], ["a", "b"])),
        # Unbalanced (6 partitions on a, 2 on b): the contiguous runs, even though half moves.
        (["a", "b"], ["a"] * 6 + ["b"] * 2, ([[0, 1, 2, 3], [4, 5, 6, 7]], ["a", "b"])),
        # Fewer partitions than threads: one run per partition, where it lies.
        (["a", "a", "b"], ["b", "a"], ([[1], [0]], ["a", "b"])),
    ],
)
def test_partition_runs_follow_where_the_data_lie(slots, locations, expected):
    from svmkit.dask._data import partition_runs

    assert partition_runs(len(locations), slots, locations) == expected


def test_persisted_data_are_read_where_they_lie(client):
    """X already persisted on the cluster, its 8 partitions alternating between the 2 workers:
    persist runs each worker's own partitions (the contiguous runs would move half of them),
    and the fit still reaches the in-memory objective."""
    from svmkit.dask._data import persist

    X, y = make_data(n=800, seed=9)
    # The worker-loss tests kill a worker; its nanny's replacement may still be registering.
    client.wait_for_workers(2, timeout=60)
    addrs = sorted(client.scheduler_info()["workers"])
    chunks = [
        da.from_delayed(
            client.scatter(X[i : i + 100], workers=[addrs[(i // 100) % 2]]),
            shape=(100, X.shape[1]),
            dtype=X.dtype,
        )
        for i in range(0, 800, 100)
    ]
    Xd = client.persist(da.concatenate(chunks, axis=0))
    yd = da.from_array(y, chunks=100)
    wait(Xd)

    parts = persist(client, Xd, yd, None)
    assert parts.groups == [[0, 2, 4, 6], [1, 3, 5, 7]]
    assert parts.group_workers == addrs
    # Each partition is prepared where its X chunk lies, its run's worker.
    assert_blocks_on_their_run_workers(client, parts)
    dist = sd.LinearSVC(loss="logistic", tol=TOL).fit(Xd, yd)
    local = svmkit.LinearSVC(loss="logistic", tol=TOL, solver="tron").fit(X, y)
    assert rel(dist.result_[0]["objective"], local.result_[0]["objective"]) <= 1e-8


def test_persist_before_any_worker_joined_leaves_the_partitions_unplaced(client):
    """A scheduler that lists no worker yet (an adaptive cluster scaling up): persist falls
    back to one run per partition with no placement instead of failing."""
    from svmkit.dask._data import persist

    class NoWorkersYet:
        def __init__(self, real):
            self.real = real

        def scheduler_info(self):
            return {"workers": {}}

        def __getattr__(self, name):
            return getattr(self.real, name)

    X, y = make_data(n=300, seed=7)
    Xd, yd, _ = to_dask(X, y, chunk=100)
    parts = persist(NoWorkersYet(client), Xd, yd, None)
    assert parts.groups == [[0], [1], [2]]
    assert parts.group_workers == [None, None, None]
    assert sum(b.result()[3] for b in parts.blocks) == 300


@pytest.mark.parametrize("loss", ["logistic", "hinge"], ids=["tron", "smsvm"])
def test_runs_of_partitions_send_fewer_tasks_to_the_same_answer(client, loss, monkeypatch):
    """The summed rounds of both solvers send one task per run of partitions: against runs of
    one partition each (the old one task per partition), the driver sends fewer bytes over the
    same passes (TRON; SmSVM's path at small smoothing levels depends on the summation order)
    and the two fits agree to 1e-8."""
    from svmkit.dask import _data

    X, y = make_data(n=800, seed=6)
    Xd, yd, _ = to_dask(X, y, chunk=100)
    p = (
        dict(loss=loss, tol=TOL)
        if loss == "logistic"
        else dict(loss=loss, solver="smsvm", **SMSVM_L2)
    )
    grouped = sd.LinearSVC(**p).fit(Xd, yd).result_[0]
    monkeypatch.setattr(_data, "partition_groups", lambda n, k: [[p] for p in range(n)])
    single = sd.LinearSVC(**p).fit(Xd, yd).result_[0]
    if loss == "logistic":
        assert grouped["passes"] == single["passes"]
        assert grouped["bytes_sent"] < 0.6 * single["bytes_sent"]
    else:  # bytes per pass
        assert grouped["bytes_sent"] / grouped["passes"] < 0.6 * (
            single["bytes_sent"] / single["passes"]
        )
    assert rel(grouped["objective"], single["objective"]) <= 1e-8


def test_worker_killed_during_fit(own_client):
    """A worker killed (SIGKILL) after the first iteration: its partitions and curvature are
    recomputed from the source on the surviving or restarted worker and the fit ends with the
    same result as an undisturbed one (the passes are deterministic per partition and the
    reduction order is fixed)."""
    X, y = make_data(n=600, seed=16)
    Xd, yd, _ = to_dask(X, y, chunk=100)
    params = dict(loss="logistic", tol=TOL)
    client = own_client
    clean = with_client(sd.LinearSVC(**params), client).fit(Xd, yd)
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    killed = []

    def kill_once(rec):
        if not killed:
            os.kill(pids[victim], signal.SIGKILL)
            killed.append(victim)
        return True

    hit = with_client(sd.LinearSVC(**params, callback=kill_once), client).fit(Xd, yd)
    assert killed
    np.testing.assert_array_equal(hit.coef_, clean.coef_)
    np.testing.assert_array_equal(hit.intercept_, clean.intercept_)
    assert hit.result_[0]["objective"] == clean.result_[0]["objective"]


@pytest.mark.parametrize(
    "loss, solver",
    [("logistic", "tron"), ("hinge", "smsvm"), ("hinge", "tron")],
    ids=["tron", "smsvm", "tron-hinge"],
)
def test_worker_killed_while_a_task_runs(own_client, loss, solver):
    """A worker SIGKILLed while one of its pass tasks is running (held by the test hook of
    svmkit.dask._tasks): the task and the worker's partitions are recomputed from the source
    elsewhere and the fit ends with the undisturbed fit's result."""
    import threading

    from svmkit.dask import _tasks

    X, y = make_data(n=600, seed=31)
    Xd, yd, _ = to_dask(X, y, chunk=100)
    params = dict(loss=loss, solver=solver, tol=TOL)
    client = own_client
    clean = with_client(sd.LinearSVC(**params), client).fit(Xd, yd)
    assert clean.solver_ == solver
    pids = client.run(os.getpid)
    victim = sorted(pids)[0]
    killed = []

    def killer():
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            try:
                if client.run(_tasks.is_holding, workers=[victim])[victim]:
                    os.kill(pids[victim], signal.SIGKILL)
                    killed.append(victim)
                    return
            except Exception:
                return
            time.sleep(0.05)

    def arm_once(rec):
        if rec["iteration"] == 1:
            client.run(_tasks.set_test_hold, 120.0, workers=[victim])
            threading.Thread(target=killer, daemon=True).start()
        return True

    hit = with_client(sd.LinearSVC(**params, callback=arm_once), client).fit(Xd, yd)
    assert killed == [victim]
    np.testing.assert_array_equal(hit.coef_, clean.coef_)
    np.testing.assert_array_equal(hit.intercept_, clean.intercept_)
    assert hit.result_[0]["objective"] == clean.result_[0]["objective"]


def test_closed_client_fails_fast():
    X, y = make_data(n=100)
    Xd, yd, _ = to_dask(X, y, chunk=50)
    cluster = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    c = Client(cluster, set_as_default=False)
    c.close()
    t0 = time.perf_counter()
    with pytest.raises(sd.DaskFitError, match=r"client is not connected \(status 'closed'\)"):
        with_client(sd.LinearSVC(), c).fit(Xd, yd)
    assert time.perf_counter() - t0 < 10
    cluster.close()


def test_closed_scheduler_fails_fast():
    X, y = make_data(n=100)
    Xd, yd, _ = to_dask(X, y, chunk=50)
    cluster = LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    )
    c = Client(cluster, set_as_default=False)
    address = cluster.scheduler_address
    cluster.close()
    t0 = time.perf_counter()
    with pytest.raises(sd.DaskFitError, match=f"scheduler at {address}"):
        with_client(sd.LinearSVC(), c).fit(Xd, yd)
    assert time.perf_counter() - t0 < 10
    c.close()


def test_not_a_client_and_clone(client):
    from sklearn.base import clone

    X, y = make_data(n=100)
    Xd, yd, _ = to_dask(X, y, chunk=50)
    with pytest.raises(sd.DaskFitError, match="client is not connected"):
        with_client(sd.LinearSVC(), object()).fit(Xd, yd)
    est = with_client(sd.LinearSVC(C=2.0), client)
    copy = clone(est)  # the client is an attribute, not a parameter: clone works
    assert copy.get_params()["C"] == 2.0 and "client" not in copy.get_params()


def test_input_errors(client):
    X, y = make_data(n=100)
    Xd, yd, _ = to_dask(X, y, chunk=50)
    with pytest.raises(TypeError, match="take X as a dask array or dask DataFrame"):
        sd.LinearSVC().fit(X, y)
    with pytest.raises(ValueError, match="solver 'dual_cd' is not available on Dask"):
        sd.LinearSVC(loss="hinge", solver="dual_cd").fit(Xd, yd)
    with pytest.raises(ValueError, match="solver 'tron' solves the hinge loss .* only with"):
        sd.LinearSVC(loss="hinge", solver="tron", penalty="elasticnet").fit(Xd, yd)
    with pytest.raises(ValueError, match="solver 'smsvm' solves loss='hinge'"):
        sd.LinearSVC(solver="smsvm").fit(Xd, yd)
    with pytest.raises(ValueError, match="penalty='l1' is not available on Dask with TRON"):
        sd.LinearSVC(penalty="l1").fit(Xd, yd)
    with pytest.raises(ValueError, match="smsvm option 'alpha_min' must be <= alpha0"):
        sd.LinearSVC(loss="hinge", solver="smsvm", solver_options={"alpha0": 1e-8}).fit(Xd, yd)
    with pytest.raises(ValueError, match="only the dense Newton path is distributed"):
        sd.LinearSVC(loss="hinge", solver="smsvm", solver_options={"max_dense_block": 3}).fit(
            Xd, yd
        )
    with pytest.raises(ValueError, match="y has 99 entries but X has 100 rows"):
        sd.LinearSVC().fit(Xd, yd[:99])
    Xbad = X.copy()
    Xbad[3, 1] = np.nan
    with pytest.raises(ValueError, match="X contains NaN or infinity"):
        sd.LinearSVC().fit(da.from_array(Xbad, chunks=(50, 12)), yd)
    with pytest.raises(ValueError, match="sample_weight must be non-negative"):
        sd.LinearSVC().fit(Xd, yd, sample_weight=-np.ones(100))
    with pytest.raises(ValueError, match="unknown"):
        sd.LinearSVC(solver_options={"no_such": 1}).fit(Xd, yd)
    with pytest.raises(ValueError, match="globalization"):
        sd.LinearSVC(solver_options={"globalization": "linesearch"}).fit(Xd, yd)
    with pytest.raises(ValueError, match="hessian='assembled' is not distributed"):
        sd.LinearSVC(solver_options={"hessian": "assembled"}).fit(Xd, yd)
    with pytest.raises(ValueError, match="'auto', 'products' or 'assembled'"):
        sd.LinearSVC(solver_options={"hessian": "dense"}).fit(Xd, yd)
    with pytest.raises(ValueError, match="only one class"):
        sd.LinearSVC().fit(Xd, da.ones(100, chunks=50))
    with pytest.raises(ValueError, match="y contains NaN or infinity"):
        yr = np.ones(100)
        yr[5] = np.inf
        sd.LinearSVR().fit(Xd, da.from_array(yr, chunks=50))


class _LocalObjective:
    """The partition kernels over the whole data in this process (no cluster): drives the
    Python TRON port for a direct comparison with the C++ solver."""

    def __init__(self, X, y, cost, loss, fit_intercept=True, scale=1.0, reg_b=True, sigma=0.1):
        self.args = (X, y, cost, loss, sigma, 0.0, fit_intercept, scale)
        self.loss = (loss, sigma, 0.0)
        self.d, self.fi, self.reg_b, self.passes = X.shape[1], fit_intercept, reg_b, 0
        self.cut = 0.0

    def set_hessian_cutoff(self, hessian_cutoff):
        self.cut = hessian_cutoff * _core.loss_d2_max(*self.loss)

    def fun_grad(self, w):
        packed, self._trial = _core.partition_fun_grad(*self.args, w, True, True, 1)
        self._trial_w = w
        self.passes += 1
        dim, d = w.shape[0], self.d
        g, h = packed[1 : 1 + dim].copy(), packed[1 + dim :].copy()
        g[:d] += w[:d]
        h[:d] += 1.0
        reg = w[:d] @ w[:d]
        if self.fi and self.reg_b:
            g[d] += w[d]
            h[d] += 1.0
            reg += w[d] ** 2
        return 0.5 * reg + packed[0], g, h

    def accept(self):
        self._curv, self._w = self._trial, self._trial_w

    def hess_vec(self, s):
        from svmkit.dask._tasks import _kept

        X = self.args[0]
        kept = _kept(self._curv, self.args[2], self.cut)
        out = _core.partition_hess_vec(X, kept, s, self.fi, self.args[7], 1)
        self.passes += 1
        out[: self.d] += s[: self.d]
        if self.fi and self.reg_b:
            out[self.d] += s[self.d]
        return out

    # The line search's (globalization "line_search"): margins kept here instead of on workers.
    def keep_decision_values(self):
        pass  # decision() computes the margins of the current point here

    def reg_dot(self, u, v):
        r = u[: self.d] @ v[: self.d]
        return r + (u[self.d] * v[self.d] if self.fi and self.reg_b else 0.0)

    def decision(self, s):
        X, _, _, _, _, _, fi, scale = self.args
        self._z = _core.partition_margins(X, self._w, fi, scale)
        self._q = _core.partition_margins(X, s, fi, scale)
        self.passes += 1
        from svmkit.dask._tasks import _kept

        qq = self._q * self._q
        kept = float(np.sum(_kept(self._curv, self.args[2], self.cut) * qq))
        self.curvature_along = (kept, float(np.sum(self._curv * qq)))

    def _sums(self, a):
        y, cost = self.args[1], self.args[2]
        u, du = y * (self._z + a * self._q), y * self._q
        return cost, du, _core.loss_eval(self.loss[0], u, self.loss[1], 0.0)

    def line_loss(self, a):
        cost, _, (v, _, _) = self._sums(a)
        return float(cost @ v)

    def line_slope(self, a):
        cost, du, (_, d1, d2) = self._sums(a)
        return float(cost @ (d1 * du)), float(cost @ (d2 * du * du))


@pytest.mark.parametrize(
    "opts",
    [{}, {"precondition": False}, {"cg_max_iter": 2, "cg_tol": 0.3}, {"max_iter": 2}],
    ids=["default", "no-precond", "short-cg", "max-iter"],
)
def test_tron_port_takes_the_cpp_steps(opts):
    """The driver's TRON (a port of cpp/src/tron.cpp) takes the C++ solver's steps: same
    iterations, CG steps, passes and status, objective to rounding."""
    from svmkit.dask._tron import tron

    X, y = make_data(n=300, d=6, seed=18)
    yy = np.where(y == 1, 1.0, -1.0)
    cost = np.full(300, 0.7)
    full = dict(_core.option_defaults("tron"), tol=1e-8, hessian="products", **opts)
    ref = _core.fit_tron(X, yy, cost, "logistic", 0.1, 0.0, True, 1.0, True, None, full, None)
    res = tron(_LocalObjective(X, yy, cost, "logistic"), X.shape[1] + 1, full)
    for key in ("iterations", "inner_iterations", "passes", "status"):
        assert res[key] == ref[key], key
    assert rel(res["objective"], ref["objective"]) <= 1e-12
    np.testing.assert_allclose(res["history"]["radius"], ref["history"]["radius"], rtol=1e-8)


@pytest.mark.parametrize("loss", ["smoothed_hinge", "gaussian_smoothed_hinge", "logistic"])
def test_tron_line_search_port_takes_the_cpp_steps(loss):
    """The driver's line search (globalization "auto" for the smoothed hinges, "line_search"
    named for the logistic loss) takes tron.cpp's steps: same iterations, CG steps, passes and
    status, objective to rounding."""
    from svmkit.dask._tron import tron

    X, y = make_data(n=300, d=6, seed=19)
    yy = np.where(y == 1, 1.0, -1.0)
    cost = np.full(300, 0.7)
    glob = "line_search" if loss == "logistic" else "auto"
    full = dict(_core.option_defaults("tron"), tol=1e-8, hessian="products", globalization=glob)
    ref = _core.fit_tron(X, yy, cost, loss, 0.1, 0.0, True, 1.0, True, None, full, None)
    res = tron(_LocalObjective(X, yy, cost, loss), X.shape[1] + 1, full)
    for key in ("iterations", "inner_iterations", "passes", "status"):
        assert res[key] == ref[key], key
    assert rel(res["objective"], ref["objective"]) <= 1e-12
    assert np.isnan(ref["history"]["radius"]).all()  # the line search has no region


@pytest.mark.parametrize("cutoff", [0.0, 1e-3])
def test_tron_line_search_port_takes_the_cpp_steps_with_the_cutoff(cutoff):
    """hessian_cutoff in the driver's port (rows left out of H s as loss.hpp's kept_curvature):
    the same iterations, CG steps and passes as tron.cpp."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.preprocessing import StandardScaler
    from svmkit.dask._tron import tron

    X, y = load_breast_cancer(return_X_y=True)
    X = np.ascontiguousarray(StandardScaler().fit_transform(X)[:200])
    yy = np.where(y[:200] > 0, 1.0, -1.0)
    cost = np.random.default_rng(1).uniform(0.5, 2.0, 200)
    full = dict(_core.option_defaults("tron"), tol=1e-6, hessian="products", hessian_cutoff=cutoff)
    ref = _core.fit_tron(X, yy, cost, "smoothed_hinge", 0.1, 0.0, True, 1.0, True, None, full, None)
    obj = _LocalObjective(X, yy, cost, "smoothed_hinge")
    res = tron(obj, X.shape[1] + 1, full)
    for key in ("iterations", "inner_iterations", "passes", "status"):
        assert res[key] == ref[key], key
    assert rel(res["objective"], ref["objective"]) <= 1e-12
    if cutoff > 0.0:  # rows were left out at the solution's point
        assert obj.cut > 0.0
        assert (obj._curv < obj.args[2] * obj.cut).sum() > 0


def test_tron_line_search_port_safeguard_strikes():
    """The port's safeguard (tron.cpp's cutoff_trusted): every row returns at the third
    direction along which the rows left out carry more than 10x the kept ones' curvature."""
    from svmkit.dask._tron import tron

    X, y = make_data(n=300, d=6, seed=19)
    yy = np.where(y == 1, 1.0, -1.0)

    class Skewed(_LocalObjective):
        calls: list

        def decision(self, s):
            super().decision(s)
            kept, every = self.curvature_along
            self.curvature_along = (kept, 100.0 * every + 100.0 * self.reg_dot(s, s))
            self.calls.append(("decision", self.cut))

        def set_hessian_cutoff(self, c):
            super().set_hessian_cutoff(c)
            self.calls.append(("cutoff", c))

    Skewed.calls = []
    obj = Skewed(X, yy, np.full(300, 0.7), "smoothed_hinge")
    full = dict(_core.option_defaults("tron"), tol=1e-8, hessian="products", hessian_cutoff=1e-3)
    tron(obj, X.shape[1] + 1, full)
    events = obj.calls
    assert events[0] == ("cutoff", 1e-3)
    off = events.index(("cutoff", 0.0))
    assert [e[0] for e in events[1:off]] == ["decision"] * 3
    assert all(c == 0.0 for kind, c in events[off + 1 :] if kind == "decision")


def test_tron_hand_over_port_takes_the_cpp_steps():
    """The region's hand-over to the line search after its first rejected step (globalization
    "auto", squared hinge; standardized digits 1 against the rest, where it happens) takes
    tron.cpp's steps: same iterations, CG steps, passes, status and radii (NaN after it)."""
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler
    from svmkit.dask._tron import tron

    X, y = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    yy = np.where(y == 1, 1.0, -1.0)
    cost = np.ones(X.shape[0])
    full = dict(_core.option_defaults("tron"), tol=1e-8, hessian="products")
    ref = _core.fit_tron(X, yy, cost, "squared_hinge", 0.1, 0.0, True, 1.0, True, None, full, None)
    res = tron(_LocalObjective(X, yy, cost, "squared_hinge"), X.shape[1] + 1, full)
    accepted = np.asarray(ref["history"]["accepted"], dtype=bool)
    k = int(np.argmin(accepted)) + 1  # the region's steps, the rejected one included
    assert not accepted[k - 1]  # the hand-over happened
    assert np.isnan(ref["history"]["radius"][k:]).all()
    assert np.isnan(res["history"]["radius"][k:]).all()
    np.testing.assert_allclose(
        res["history"]["radius"][:k], ref["history"]["radius"][:k], rtol=1e-8
    )
    np.testing.assert_array_equal(
        res["history"]["inner_iterations"][:k], ref["history"]["inner_iterations"][:k]
    )
    # After it the squared hinge's kinks (standardized pixels tie at many margins) let rounding
    # in the order of the sums change a later CG run by a step; the optimum is the same.
    assert res["status"] == ref["status"] == SolverStatus.converged
    assert abs(res["iterations"] - ref["iterations"]) <= 2
    assert rel(res["objective"], ref["objective"]) <= 1e-10


def test_fit_errors_name_the_cause():
    """gather and resolve_client turn Dask's failures into DaskFitError with the cause."""
    from distributed import KilledWorker
    from svmkit.dask._cluster import gather, resolve_client

    class Fake:
        status = "running"
        _start_arg = "tcp://10.0.0.1:8786"

        def __init__(self, exc):
            self.exc = exc

        def gather(self, futures):
            raise self.exc

        def sync(self, *a, **k):
            raise self.exc

        scheduler = type("S", (), {"identity": None})()

    worker = type("W", (), {"address": "tcp://10.0.0.7:40000"})()
    lost = KilledWorker("fun_grad-1", worker, allowed_failures=3)
    with pytest.raises(sd.DaskFitError, match=r"workers running it died .*tcp://10\.0\.0\.7"):
        gather(Fake(lost), [])
    with pytest.raises(sd.DaskFitError, match=r"lost the connection to the scheduler at tcp://10"):
        gather(Fake(OSError("connection refused")), [])
    with pytest.raises(sd.DaskFitError, match=r"scheduler at tcp://10.0.0.1:8786 does not answer"):
        resolve_client(Fake(TimeoutError("no reply")))


# ---- SmSVM (loss="hinge"): the driver's port of cpp/src/smsvm.cpp over the partitions ----

# SmSVM's tol bounds the relative suboptimality of the l2 runs; l1-l2 runs end at the level
# alpha_min. The paths of the two fits differ by rounding only, and with these settings both
# end within 1e-8 of the optimum (at the defaults, tol 1e-4 and alpha_min 1e-6, the two
# objectives agree to about 1e-8 .. 1e-7; l1-l2 runs that end with the final polish agree
# to rounding, see test_smsvm_polish_matches_in_memory_at_the_defaults).
SMSVM_L2 = dict(penalty="l2", tol=1e-8)
SMSVM_L1L2 = dict(penalty="elasticnet", tol=1e-8, solver_options={"alpha_min": 1e-8})


def assert_same_smsvm(local, dist):
    assert dist.solver_ == "smsvm" and local.solver_ == "smsvm"
    for r_l, r_d in zip(local.result_, dist.result_):
        assert rel(r_d["objective"], r_l["objective"]) <= 1e-8
        assert r_d["status"] == r_l["status"]


@pytest.mark.parametrize(
    "sparse, params",
    [(True, dict(SMSVM_L2, C=0.5)), (False, dict(SMSVM_L1L2, l1_ratio=0.5, C=2.0))],
    ids=["csr-l2", "dense-l1l2"],
)
def test_smsvm_matches_in_memory(client, params, sparse):
    """solver="smsvm" (the elastic net's auto choice); the in-memory reference is
    LinearSVC(solver="smsvm") (its "auto" may pick dual_cd or tron)."""
    X, y = make_data(sparse=sparse, seed=21)
    sw = np.random.default_rng(22).uniform(0.5, 2.0, y.shape[0])
    Xd, yd, swd = to_dask(X, y, sw=sw)
    p = dict(loss="hinge", solver="smsvm", **params)
    local = svmkit.LinearSVC(**p).fit(X, y, sample_weight=sw)
    dist = sd.LinearSVC(**p).fit(Xd, yd, sample_weight=swd)
    assert_same_smsvm(local, dist)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_smsvm_polish_matches_in_memory_at_the_defaults(client, sparse):
    """l1-l2 runs end with the final polish (the exact optimum on the identified sets) on
    Dask as in memory: at the default tol and alpha_min the two fits reach the same optimum,
    which an independent QP solver confirms."""
    X, y = make_data(sparse=sparse, seed=31)
    Xd, yd, _ = to_dask(X, y)
    p = dict(loss="hinge", penalty="elasticnet", l1_ratio=0.5, C=2.0)
    local = svmkit.LinearSVC(solver="smsvm", **p).fit(X, y)
    dist = sd.LinearSVC(**p).fit(Xd, yd)
    r_l, r_d = local.result_[0], dist.result_[0]
    assert r_l["polished"] and r_d["polished"]
    # The number of polish rounds is not compared: which coordinates are identified when the
    # polish starts depends on the rounding of the sums (the reduction order, which may differ);
    # on one machine the csr case took 3 rounds on Dask and 1 in memory, to the same optimum.
    assert rel(r_d["objective"], r_l["objective"]) <= 1e-8
    yy = np.where(y == local.classes_[1], 1.0, -1.0)
    _, _, best = primal_svm(X, yy, 2.0, l2=0.5, l1=0.5)
    assert rel(r_d["objective"], best) <= 1e-7


def test_smsvm_one_vs_rest_weights(client):
    X, y = make_data(n=300, classes=3, seed=23)
    sw = np.random.default_rng(24).uniform(0.2, 3.0, y.shape[0])
    Xd, yd, swd = to_dask(X, y, chunk=150, sw=sw)
    p = dict(loss="hinge", solver="smsvm", C=1.5, class_weight={0: 2.0, 2: 0.5}, **SMSVM_L2)
    local = svmkit.LinearSVC(**p).fit(X, y, sample_weight=sw)
    dist = sd.LinearSVC(**p).fit(Xd, yd, sample_weight=swd)
    assert dist.coef_.shape == (3, X.shape[1])
    assert_same_smsvm(local, dist)


def test_smsvm_warm_start_and_intercept(client):
    """Warm start (with the warm_alpha hint) and an unregularized, scaled bias (the duality gap
    then splits the gradient by class)."""
    X, y = make_data(n=300, seed=25)
    Xd, yd, _ = to_dask(X, y, chunk=150)
    p = dict(loss="hinge", warm_start=True, regularize_intercept=False, intercept_scaling=2.0,
             **SMSVM_L1L2)  # fmt: skip
    local = svmkit.LinearSVC(solver="smsvm", C=1.0, **p).fit(X, y)
    dist = sd.LinearSVC(C=1.0, **p).fit(Xd, yd)
    opts = dict(SMSVM_L1L2["solver_options"], warm_alpha=1e-2)
    local.set_params(C=3.0, solver_options=opts).fit(X, y)
    dist.set_params(C=3.0, solver_options=opts).fit(Xd, yd)
    assert_same_smsvm(local, dist)


@pytest.mark.parametrize("solver, tol", [("smsvm", 1e-10), ("tron", 1e-8)])
def test_hinge_matches_clarabel(client, solver, tol):
    """An independent reference: the hinge l2 problem as a QP solved by clarabel, for both
    distributed hinge solvers (tron's continuation certifies its gap down to about 1e-8)."""
    import clarabel  # a test-extra dependency: no skip

    X, y = make_data(n=120, d=5, seed=26)
    Xd, yd, _ = to_dask(X, y, chunk=40)
    C = 0.7
    dist = sd.LinearSVC(loss="hinge", solver=solver, C=C, tol=tol).fit(Xd, yd)
    assert dist.solver_ == solver
    n, d = X.shape
    yy = np.where(y == 1, 1.0, -1.0)
    # variables (w, b, xi): min 1/2 ||w||^2 + 1/2 b^2 + C sum xi, xi >= 0, xi >= 1 - y (Xw + b)
    nv = d + 1 + n
    P = sp.csc_matrix(sp.diags(np.r_[np.ones(d + 1), np.zeros(n)]))
    q = np.r_[np.zeros(d + 1), C * np.ones(n)]
    A1 = sp.hstack([-yy[:, None] * X, -yy[:, None], -sp.eye(n)])
    A2 = sp.hstack([sp.csr_matrix((n, d + 1)), -sp.eye(n)])
    A = sp.csc_matrix(sp.vstack([A1, A2]))
    b = np.r_[-np.ones(n), np.zeros(n)]
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    sol = clarabel.DefaultSolver(P, q, A, b, [clarabel.NonnegativeConeT(2 * n)], settings).solve()
    assert nv == len(sol.x)
    assert rel(dist.result_[0]["objective"], sol.obj_val) <= 1e-7


class _LocalSmsvmData:
    """SmsvmData's interface over in-process partitions (no cluster): drives the SmSVM port
    for a direct comparison with the C++ solver."""

    def __init__(self, X, y, v, intercept, rows=70):
        from svmkit._validation import as_core_matrix

        self.parts = []
        for lo in range(0, X.shape[0], rows):
            sl = slice(lo, lo + rows)
            self.parts.append(((as_core_matrix(X[sl]),), (y[sl], v[sl])))
        self.intercept = intercept
        self._ids = 0

    def new_id(self):
        self._ids += 1
        return self._ids

    def run(self, fn, *args):
        out = [fn(b, t, ("local", p), *args, self.intercept) for p, (b, t) in enumerate(self.parts)]
        return np.sum(out, axis=0)

    def map(self, fn, per_part, *args):
        return [
            fn(b, t, ("local", p), *(per_part[p] if per_part else ()), *args, self.intercept)
            for p, (b, t) in enumerate(self.parts)
        ]

    def item(self, results, k):
        return [r[k] for r in results]

    def sum(self, results):
        return np.sum(results, axis=0)

    def collect(self, results):
        return list(results)


@pytest.mark.parametrize("sparse", [False, True], ids=["dense", "csr"])
def test_smsvm_pure_l1_matches_in_memory(client, sparse):
    """loss="hinge" with the pure l1 penalty (a linear program) is distributed: both fits end
    with SmSVM's vertex polish (the margin set completed by the samples nearest the margin,
    offered by each partition) at the same optimum, which the independent reference
    confirms; l1_ratio=1 is the same problem."""
    X, y = make_data(sparse=sparse, seed=31)
    Xd, yd, _ = to_dask(X, y)
    local = svmkit.LinearSVC(loss="hinge", penalty="l1", solver="smsvm", C=2.0).fit(X, y)
    yy = np.where(y == local.classes_[1], 1.0, -1.0)
    _, _, best = primal_svm(X, yy, 2.0, l2=0.0, l1=1.0, reg_b=False, tol=1e-11)
    for p in (dict(penalty="l1"), dict(penalty="elasticnet", l1_ratio=1.0)):
        dist = sd.LinearSVC(loss="hinge", C=2.0, **p).fit(Xd, yd)
        assert dist.solver_ == "smsvm"
        r_l, r_d = local.result_[0], dist.result_[0]
        assert r_d["status"] == SolverStatus.converged and r_d["polished"] and r_l["polished"]
        assert rel(r_d["objective"], r_l["objective"]) <= 1e-8
        assert rel(r_d["objective"], best) <= 1e-7


def test_certificate_driver_steps_match_an_independent_computation():
    """_core.hinge_dual_value / hinge_repair_band (the in-memory certificate's code, used by
    the Dask driver): the dual value against its formula, the repair against a least-squares
    solve of the band's conditions (a band with room inside the box: one round, no clipping),
    and their input errors."""
    rng = np.random.default_rng(5)
    m, nb = 6, 9
    w = np.array([0.5, 0.0, -0.25, 0.0, 1.0, 0.0, 0.3])  # support {0, 2, 4} and the bias
    a = rng.uniform(0.2, 0.8, 20)
    yv = np.where(rng.random(20) < 0.5, 1.0, -1.0)
    X = rng.standard_normal((20, m))
    rp, rn = X[yv > 0].T @ a[yv > 0], X[yv < 0].T @ a[yv < 0]
    sums = np.r_[a[yv > 0].sum(), a[yv < 0].sum(), rp, rn]
    l1, l2 = 0.3, 0.7
    expected = a.sum() - np.sum(np.maximum(np.abs(rp - rn) - l1, 0.0) ** 2) / (2 * l2)
    assert _core.hinge_dual_value(sums, l1, l2, False, False, 1.0) == pytest.approx(expected)
    # Free bias: the larger class's a scaled down to the smaller's sum.
    apos, aneg = sums[0], sums[1]
    tp, tn = (aneg / apos, 1.0) if apos > aneg else (1.0, apos / aneg)
    expected = (tp * apos + tn * aneg) - np.sum(
        np.maximum(np.abs(tp * rp - tn * rn) - l1, 0.0) ** 2
    ) / (2 * l2)
    assert _core.hinge_dual_value(sums, l1, l2, True, False, 1.0) == pytest.approx(expected)
    # Pure l1: scaled until |r_j| <= l1.
    top = np.max(np.abs(rp - rn))
    expected = min(1.0, 0.3 / top) * a.sum()
    assert _core.hinge_dual_value(sums, 0.3, 0.0, False, False, 1.0) == pytest.approx(expected)
    # The repair: rows y_i x_{i,S} with the bias column y_i for the first nb samples.
    band = np.arange(nb)
    S = np.flatnonzero(w[:m] != 0.0)
    rows = np.c_[X[band][:, S] * yv[band][:, None], yv[band]]
    hi = np.full(nb, 50.0)  # room: from a = 25 the least-norm change stays inside the box
    a0 = np.full(nb, 25.0)
    t = np.r_[l1 * np.sign(w[S]) + l2 * w[S] - (rp - rn)[S], l2 * w[m] / 1.0 - (apos - aneg)]
    change = np.linalg.lstsq(rows.T, t, rcond=None)[0]  # the least-norm solution
    got = _core.hinge_repair_band(w, rows, a0, hi, sums, l1, l2, True, True, 1.0, 1e6)
    np.testing.assert_allclose(got - a0, change, rtol=1e-8, atol=1e-10)
    assert _core.hinge_repair_band(w, rows, a[band], hi, sums, l1, l2, True, True, 1.0, 1.0) is None
    with pytest.raises(ValueError, match="sums must be a 1-D array"):
        _core.hinge_dual_value(sums[:-1], l1, l2, True, False, 1.0)
    with pytest.raises(ValueError, match="sol must hold the 6 weights and the bias"):
        _core.hinge_repair_band(w[:-1], rows, a[band], hi, sums, l1, l2, True, True, 1.0, 1e6)
    with pytest.raises(ValueError, match="one row per entry of a and hi"):
        _core.hinge_repair_band(w, rows, a[:3], hi, sums, l1, l2, True, True, 1.0, 1e6)
    with pytest.raises(ValueError, match="the band rows have 3 columns; the support and the"):
        _core.hinge_repair_band(w, rows[:, :3], a[band], hi, sums, l1, l2, True, True, 1.0, 1e6)


@pytest.mark.parametrize(
    "penalty, opts",
    [
        ("l2", {}),
        ("elasticnet", {}),
        ("elasticnet", {"projected_halvings": 3}),
        ("elasticnet", {"tol": 0.0, "alpha_min": 1e-4}),
        ("l2", {"max_iter": 3}),
    ],
    ids=["l2", "l1l2", "l1l2-projected", "l1l2-paper-rule", "max-iter"],
)
def test_smsvm_port_takes_the_cpp_steps(penalty, opts):
    """The driver's SmSVM takes the C++ solver's steps: same iterations, passes, line search
    failures, activations and status; objective to the rounding that ill-conditioned Newton
    systems at small alpha amplify (the partitions' sums are added in another order)."""
    from svmkit._solvers import penalty_weights
    from svmkit.dask._smsvm import DistributedSmsvm

    X, y = make_data(n=300, d=6, seed=27)
    yy = np.where(y == 1, 1.0, -1.0)
    cost = np.random.default_rng(28).uniform(0.5, 1.5, 300)
    full = dict(_core.option_defaults("smsvm"), n_threads=1, **opts)
    l2, l1 = penalty_weights(penalty, 0.5)
    ref = _core.fit_smsvm(X, yy, cost, l2, l1, True, 1.0, True, None, 0.0, full, None)
    data = _LocalSmsvmData(X, yy, cost / cost.sum(), (True, 1.0))
    col_nz = np.any(X != 0, axis=0).astype(float)
    res = DistributedSmsvm(
        data, 300, 6, col_nz, cost.sum(), l2, l1, True, 1.0, True, full, None
    ).run(None, 0.0)
    keys = ("iterations", "passes", "status", "line_search_failures", "active_set_adjustments",
            "polished", "polish_rounds")  # fmt: skip
    for key in keys:
        assert res[key] == ref[key], key
    assert rel(res["objective"], ref["objective"]) <= 1e-6
    np.testing.assert_allclose(res["history"]["smoothing"], ref["history"]["smoothing"])
    np.testing.assert_array_equal(res["history"]["active_size"], ref["history"]["active_size"])
    # Armijo halvings per step (the ray trials are batched, 8 per round, with the same result)
    np.testing.assert_array_equal(res["history"]["radius"], ref["history"]["radius"])


@pytest.mark.parametrize(
    "n, C, l2, l1", [(3000, 10.0, 0.5, 0.5), (1000, 100.0, 0.0, 1.0), (1000, 100.0, 1.0, 0.0)]
)
def test_smsvm_port_certifies_on_the_partitions(n, C, l2, l1):
    """The port's band-repaired certificate (smsvm.cpp's certify over the partitions): on
    badly scaled data the runs end converged with a bound <= tol that clarabel's optimum
    confirms (the elastic net's bound equals the C++ solver's at the same point); without the
    repair (certificate_memory_mb=0) the elastic-net run ends max_iter and the pure-l1 run
    ends only through the distributed vertex polish (on an AVX-512 machine the certificate
    alone stopped at 6.2e-4 with max_iter, the C++ solver ending through its polish)."""
    from svmkit.dask._smsvm import DistributedSmsvm

    X, y = scaled_separable(n)
    cost = np.full(n, C)
    col_nz = np.ones(X.shape[1])

    def port(**opts):
        full = dict(_core.option_defaults("smsvm"), n_threads=1, **opts)
        data = _LocalSmsvmData(X, y, cost / cost.sum(), (True, 1.0), rows=n // 4)
        return DistributedSmsvm(
            data, n, X.shape[1], col_nz, cost.sum(), l2, l1, True, 1.0, True, full, None
        ).run(None, 0.0)

    res = port()
    assert res["status"] == SolverStatus.converged
    assert res["optimality"] <= 1e-4
    best = primal_svm(X, y, cost, l2=l2, l1=l1, reg_b=l2 > 0.0, tol=1e-11)[2]
    assert -1e-7 <= (res["objective"] - best) / res["objective"] <= res["optimality"] + 1e-9
    if l1 > 0.0:
        bare = port(certificate_memory_mb=0.0)
        if l2 > 0.0:
            assert bare["status"] == SolverStatus.max_iter
        else:
            assert bare["status"] == SolverStatus.converged and bare["polished"]
            assert -1e-7 <= (bare["objective"] - best) / bare["objective"] <= 1e-7
    if l2 == 0.5:
        full = dict(_core.option_defaults("smsvm"), n_threads=1)
        ref = _core.fit_smsvm(X, y, cost, l2, l1, True, 1.0, True, None, 0.0, full, None)
        assert res["optimality"] == pytest.approx(ref["optimality"], rel=1e-3)


def test_smsvm_partition_kernel_sums_and_errors():
    """The SmSVM partition pass summed over partitions equals one pass over the whole data."""
    X, y = make_data(n=200, d=5, seed=29)
    yy = np.where(y == 1, 1.0, -1.0)
    v = np.full(200, 1.0 / 200)
    w = np.random.default_rng(30).standard_normal(6) * 0.3
    pos = np.array([0, -1, 1, 2, -1, 3])
    whole, z = _core.partition_smsvm_eval(X, yy, v, True, 1.5, w, 0.1, pos, True, True, 64, None)
    parts = sum(
        _core.partition_smsvm_eval(
            X[lo : lo + 50], yy[lo : lo + 50], v[lo : lo + 50], True, 1.5, w, 0.1, pos, True,
            True, 7, z[lo : lo + 50] + 0.1,
        )[0]
        for lo in range(0, 200, 50)
    )  # fmt: skip
    np.testing.assert_allclose(parts[[0, 1, 3, 4]], whole[[0, 1, 3, 4]], rtol=1e-13)
    np.testing.assert_allclose(parts[5:], whole[5:], rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(z, _core.partition_margins(X, w, True, 1.5))
    # the block is X~_A^T Dv X~_A
    u = 1.0 - yy * z
    r = np.sqrt(0.01 + u * u)
    Xa = np.c_[X[:, [0, 2, 3]], np.full(200, 1.5)]
    H = (Xa * (v * 0.5 * 0.01 / r**3)[:, None]).T @ Xa
    np.testing.assert_allclose(np.tril(whole[5 + 12 :].reshape(4, 4).T), np.tril(H), rtol=1e-12)
    with pytest.raises(ValueError, match="pos must have one entry per coordinate"):
        _core.partition_smsvm_eval(X, yy, v, True, 1.0, w, 0.1, pos[:3], True, False, 8, None)
    with pytest.raises(ValueError, match="alpha must be > 0"):
        _core.partition_smsvm_eval(X, yy, v, True, 1.0, w, 0.0, pos, True, False, 8, None)
    with pytest.raises(ValueError, match="block_rows must be >= 1"):
        _core.partition_smsvm_eval(X, yy, v, True, 1.0, w, 0.1, pos, True, False, 0, None)
    for bad in (pos + 6, np.array([0, -1, 1, 1, -1, 3])):
        with pytest.raises(ValueError, match="must be 0..k-1, each once"):
            _core.partition_smsvm_eval(X, yy, v, True, 1.0, w, 0.1, bad, True, False, 8, None)
    with pytest.raises(ValueError, match="z_old has length 3, expected 200"):
        _core.partition_smsvm_eval(X, yy, v, True, 1.0, w, 0.1, pos, True, False, 8, np.zeros(3))


def test_dual_true_is_refused_and_dual_false_fits(client):
    """The distributed solvers are primal: dual=True names why it is refused; dual=False
    (scikit-learn code) fits as dual='auto' does."""
    X, y = make_data(seed=5)
    dX, dy = da.from_array(X, chunks=(100, X.shape[1])), da.from_array(y, chunks=100)
    with pytest.raises(ValueError, match="dual=True is not available on Dask"):
        svmkit.dask.LinearSVC(dual=True).fit(dX, dy)
    a = svmkit.dask.LinearSVC(dual=False).fit(dX, dy)
    b = svmkit.dask.LinearSVC().fit(dX, dy)
    np.testing.assert_array_equal(a.coef_, b.coef_)
