"""SparseSVC / NSSVM (paper 003): stationarity, subproblem, paper's synthetic data, real data.

References are independent of svmkit: numpy for the eta-stationarity residual, clarabel for
the strongly convex subproblem on the final working set, the Bayes rule of the synthetic
distribution, and scikit-learn's LinearSVC for accuracy on real data.
"""

from __future__ import annotations

import lzma
import math
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from references import nssvm_subproblem
from sklearn.datasets import (
    load_breast_cancer,
    load_diabetes,
    load_digits,
    load_iris,
    load_svmlight_file,
    load_wine,
)
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import MaxAbsScaler, StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC
from svmkit import SolverStatus, SparseSVC, _core, nssvm_defaults

# Paper 003, Table 4: support vectors for m = 1000, 2000, 4000, 8000 (half used for training).
TABLE4 = {1000: 61, 2000: 78, 4000: 96, 8000: 116}


def synthetic(m: int, seed: int) -> tuple[np.ndarray, ...]:
    """Paper 003 section 4.2: +1 ~ N((0.5, -3), diag(0.5, 3)), -1 ~ N((-0.5, 3), diag(0.5, 3))."""
    rng = np.random.default_rng(seed)
    h = m // 2
    Xp = rng.multivariate_normal([0.5, -3.0], np.diag([0.5, 3.0]), h)
    Xn = rng.multivariate_normal([-0.5, 3.0], np.diag([0.5, 3.0]), h)
    X = np.vstack([Xp, Xn])
    y = np.r_[np.ones(h), -np.ones(h)]
    idx = rng.permutation(m)
    tr, te = idx[: m // 2], idx[m // 2 :]
    return X[tr], y[tr], X[te], y[te]


def bayes_accuracy(X: np.ndarray, y: np.ndarray) -> float:
    """Accuracy of the Bayes rule of the synthetic distribution (equal covariances: linear,
    Sigma^{-1} (mu+ - mu-) = (2, -2), through the midpoint 0)."""
    return float(np.mean(np.where(2 * X[:, 0] - 2 * X[:, 1] > 0, 1.0, -1.0) == y))


def fit_core(X, y, **opts) -> dict:
    return _core.fit_nssvm(X, np.ascontiguousarray(y, dtype=np.float64), opts, None)


def stationarity_residual(X, y, res, C, c, eta) -> tuple[float, np.ndarray]:
    """||F(z; T)|| (eq. 6) at the returned (alpha, mu), T = top-s of |alpha - eta g| (numpy)."""
    m = y.shape[0]
    alpha = np.zeros(m)
    alpha[res["support"]] = res["alpha"]
    mu = res["mu"]
    w = X.T @ (alpha * y)  # Q alpha; Q^T Q alpha = y * (X w), never an m x m matrix
    E = np.where(alpha >= 0, 1.0 / C, 1.0 / c)
    g = y * (X @ w) - 1.0 + E * alpha + mu * y
    key = np.abs(alpha - eta * g)
    s = len(res["working_set"])
    order = np.lexsort((np.arange(m), -key))  # largest key first, ties by smaller index
    T = np.sort(order[:s])
    mask = np.zeros(m, dtype=bool)
    mask[T] = True
    F = np.concatenate([g[T], alpha[~mask], [alpha[T] @ y[T]]])
    return float(np.linalg.norm(F)), T


# ---------------------------------------------------------------------------------------
# The paper's synthetic data


# The Bayes rule of the synthetic distribution: Mahalanobis distance sqrt(14) between the
# class means (w = (2, -2), w^T (mu+ - mu-) = 14 = w^T Sigma w), accuracy Phi(sqrt(14)/2).
BAYES_RATE = 0.9693


def test_bayes_rate_of_the_synthetic_distribution() -> None:
    from scipy.stats import norm

    assert norm.cdf(math.sqrt(14.0) / 2.0) == pytest.approx(BAYES_RATE, abs=1e-4)
    Xtr, ytr, Xte, yte = synthetic(200_000, seed=0)
    assert bayes_accuracy(Xte, yte) == pytest.approx(BAYES_RATE, abs=0.002)


@pytest.mark.parametrize("m", sorted(TABLE4))
def test_synthetic_accuracy_and_support_vectors(m: int) -> None:
    # Table 5 of the paper reports one run per m (97.4, 96.7, 96.5, 96.67 % test accuracy).
    # One test set of m/2 = 500 points has a standard deviation of ~0.8 points around the
    # Bayes rate 96.9 %, so even the Bayes rule falls below 96 % on ~12 % of the seeds at
    # m = 1000: the statistic tested is the mean over 20 seeds, which is >= 96 % with margin.
    accs, bayes = [], []
    s0 = math.ceil(2 * math.log(m / 2 / 2) ** 2)  # n (ln(m/n))^2 computed here, m/2 training rows
    for seed in range(20):
        Xtr, ytr, Xte, yte = synthetic(m, seed)
        clf = SparseSVC().fit(Xtr, ytr)
        accs.append(clf.score(Xte, yte))
        bayes.append(bayes_accuracy(Xte, yte))
        n_sv = len(clf.support_)
        assert n_sv <= s0
        assert abs(n_sv - TABLE4[m]) <= 0.1 * TABLE4[m]
    print(
        f"m={m}: mean test accuracy {np.mean(accs):.4f} (min {np.min(accs):.4f}), Bayes rule "
        f"{np.mean(bayes):.4f}, support vectors {n_sv} (Table 4: {TABLE4[m]})"
    )
    assert np.mean(accs) >= 0.96
    assert np.mean(accs) >= np.mean(bayes) - 0.005


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_synthetic_close_to_bayes_rule(seed: int) -> None:
    for m in sorted(TABLE4):
        Xtr, ytr, Xte, yte = synthetic(m, seed)
        acc = SparseSVC().fit(Xtr, ytr).score(Xte, yte)
        assert acc >= bayes_accuracy(Xte, yte) - 0.02, (m, acc)


def test_default_sparsity_level_formula() -> None:
    for m_train, expected in zip((500, 1000, 2000, 4000), (61, 78, 96, 116)):
        assert _core.nssvm_default_s0(m_train, 2) == expected
    assert _core.nssvm_default_s0(53602, 17) == 1104
    assert _core.nssvm_default_s0(10, 20) == 10  # m <= n: every sample may be a SV


# ---------------------------------------------------------------------------------------
# Stationarity and the subproblem on the final working set


def _stationary_cases():
    Xtr, ytr, _, _ = synthetic(1000, seed=0)
    yield "synthetic", Xtr, ytr
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)
    # s0 = 712 > n = 64: the Woodbury path, whose n x n matrix the solver moves from one
    # working set to the next by the changed rows (rebuilt after 16 moves; 38 iterations here).
    X, y = load_digits(return_X_y=True)
    yield "digits 2 vs rest, CSR", sp.csr_matrix(X / 16.0), np.where(y == 2, 1.0, -1.0)
    yield "digits 2 vs rest, dense", X / 16.0, np.where(y == 2, 1.0, -1.0)


@pytest.mark.parametrize("case", list(_stationary_cases()), ids=lambda c: c[0])
def test_eta_stationarity_and_subproblem(case) -> None:
    _, X, y = case
    # The absolute residual test (scaled_tol off) stops only at a fixed point of the iteration.
    Xc = _csr(X) if sp.issparse(X) else X
    res = fit_core(Xc, y, keep_best=False, bias_search=False, scaled_tol=False, stall_iter=0)
    assert res["status"] == SolverStatus.converged
    assert not res["returned_best"]
    X = X.toarray() if sp.issparse(X) else X  # the numpy references
    d = nssvm_defaults()
    C, c, eta = d["C"], res["c"], res["eta"]
    assert c == pytest.approx(C / 100) and eta == pytest.approx(min(1 / len(y), 1e-4))
    fnorm, T = stationarity_residual(X, y, res, C, c, eta)
    assert fnorm <= d["tol"]
    np.testing.assert_array_equal(T, res["working_set"])
    assert set(res["support"]) <= set(T.tolist())
    assert len(res["support"]) <= res["s"]
    # w = Q alpha
    alpha = np.zeros(len(y))
    alpha[res["support"]] = res["alpha"]
    np.testing.assert_allclose(res["solution"][:-1], X.T @ (alpha * y), rtol=1e-9, atol=1e-12)
    # The strongly convex problem restricted to T, solved by clarabel.
    a_ref, mu_ref = nssvm_subproblem(X, y, T, C, c)
    scale = np.max(np.abs(a_ref))
    np.testing.assert_allclose(alpha[T], a_ref, atol=1e-6 * scale)
    assert res["mu"] == pytest.approx(mu_ref, abs=1e-5)


def test_history_columns() -> None:
    Xtr, ytr, _, _ = synthetic(2000, seed=1)
    clf = SparseSVC().fit(Xtr, ytr)
    h = clf.history_
    assert set(h) >= {"optimality", "accuracy", "s", "time"}
    assert all(len(v) == clf.n_iter_ for v in h.values())
    assert np.all(np.diff(h["time"]) >= 0)
    assert np.all((h["accuracy"] > 0.5) & (h["accuracy"] <= 1))
    assert np.all(h["s"] == clf.result_[0]["s0"])  # no tuning by default
    # Bookkeeping: the returned model is at least as accurate (training) as every iterate.
    assert clf.score(Xtr, ytr) >= h["accuracy"].max() - 1e-12


def test_sparsity_level_tuning() -> None:
    Xtr, ytr, Xte, yte = synthetic(2000, seed=0)
    base = SparseSVC().fit(Xtr, ytr)
    tuned = SparseSVC(tune=True).fit(Xtr, ytr)
    s = tuned.history_["s"]
    assert np.all(np.diff(s) >= 0) and s.max() > s[0]
    # s grows by ceil(1.1 s) steps
    for a, b in zip(s[:-1], s[1:]):
        assert b == a or b == math.ceil(1.1 * a)
    assert tuned.score(Xte, yte) >= base.score(Xte, yte) - 0.01


# ---------------------------------------------------------------------------------------
# Real data against LinearSVC


def test_breast_cancer_vs_linearsvc() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    sc = StandardScaler().fit(Xtr)
    Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    ref = SkLinearSVC().fit(Xtr, ytr).score(Xte, yte)
    for kw in ({}, {"tune": True}):
        clf = SparseSVC(**kw).fit(Xtr, ytr)
        assert clf.score(Xte, yte) >= ref - 0.01
        assert len(clf.support_) < Xtr.shape[0]


# Accuracy protocol against LinearSVC (the "within 1 point"), used by both models
# identically:
# - the same training/test splits: the dataset's own test file where there is one, else the
#   mean over N_SPLITS stratified 70/30 splits (random_state 0..N_SPLITS-1; one split of a
#   few hundred rows moves by 1-2 points per misclassified sample, which is the size of the
#   tolerance itself);
# - MaxAbsScaler fitted on each training split;
# - the same regularization: LinearSVC(C=1) (scikit-learn's default: squared hinge
#   C sum max(0, 1 - y z)^2) and SparseSVC(C=2). NSSVM's h(t) = t^2/(2C) on alpha >= 0 is the
#   conjugate of (C/2) max(0, u)^2, so C_nssvm = 2 C_linear is the same squared-hinge weight
#   (the paper's default C = 0.25 is LinearSVC's C = 0.125, 8x more regularization than
#   LinearSVC's default, which is what costs svmguide1 7 points at the defaults);
# - SparseSVC with the sparsity-level tuning of the algorithm box (tune=True) and twice the
#   paper's initial budget (s0_scale=2: s0 = 2 n (ln(m/n))^2, still grown by 1.1^k); the
#   rest at its defaults. With the paper's s0 (s0_scale=1) heart and diabetes are 1.6 points
#   below LinearSVC (the other 11 within 1 point): on these noisy, low-dimensional sets the
#   budget caps the support vectors below what the squared-hinge solution uses. The sparser
#   figures are in bench/results/nssvm_accuracy.md.
# The measured gaps, and why C is not chosen by cross-validation instead, are in
# bench/results/nssvm.md.
N_SPLITS = 10
LINEAR_C = 1.0
NSSVM_C = 2.0 * LINEAR_C
NSSVM_OPTIONS = {"s0_scale": 2.0}


def protocol_accuracies(splits) -> tuple[float, float, int]:
    """Mean test accuracy of (LinearSVC, SparseSVC) over the splits, and the largest SV count."""
    lin, nss, n_sv = [], [], 0
    for Xtr, Xte, ytr, yte in splits:
        sc = MaxAbsScaler().fit(Xtr)
        Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            lin.append(SkLinearSVC(C=LINEAR_C, max_iter=5000).fit(Xtr, ytr).score(Xte, yte))
        clf = SparseSVC(C=NSSVM_C, tune=True, solver_options=NSSVM_OPTIONS).fit(Xtr, ytr)
        assert set(np.unique(clf.predict(Xte))) <= set(np.unique(ytr))
        nss.append(clf.score(Xte, yte))
        n_sv = max(n_sv, len(clf.support_))
    return float(np.mean(lin)), float(np.mean(nss)), n_sv


def random_splits(X, y):
    for r in range(N_SPLITS):
        yield train_test_split(X, y, test_size=0.3, random_state=r, stratify=y)


def _bundled_binary_cases():
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", X, y
    X, y = load_digits(return_X_y=True)
    for a, b in ((3, 8), (1, 7), (4, 9), (5, 9)):
        keep = (y == a) | (y == b)
        yield f"digits_{a}_vs_{b}", X[keep], y[keep]
    X, y = load_wine(return_X_y=True)
    yield "wine_1_vs_2", X[y > 0], y[y > 0]
    X, t = load_diabetes(return_X_y=True)
    yield "diabetes_above_median", X, (t > np.median(t)).astype(int)


@pytest.mark.parametrize("case", list(_bundled_binary_cases()), ids=lambda c: c[0])
def test_bundled_datasets_vs_linearsvc(case) -> None:
    name, X, y = case
    lin, nss, n_sv = protocol_accuracies(random_splits(X, y))
    print(f"{name}: nssvm {nss:.4f} LinearSVC {lin:.4f} SVs <= {n_sv} of {int(0.7 * len(y))}")
    assert nss >= lin - 0.01


def _load(path: Path, n_features: int):
    if path.suffix == ".xz":
        with lzma.open(path) as f:
            return load_svmlight_file(f, n_features=n_features)
    return load_svmlight_file(str(path), n_features=n_features)


# (train, test or None for the repeated 70/30 splits, n_features, allowed shortfall: the
# issue's 1 point for every dataset).
SHARED = [
    ("svmguide1/svmguide1", "svmguide1/svmguide1.t", 4, 0.01),
    ("covtype/covtype.5000.train", "covtype/covtype.5000.test", 54, 0.01),
    ("heart/heart_scale", None, 13, 0.01),
    ("australian/australian", None, 14, 0.01),
    ("breast-cancer/breast-cancer", None, 10, 0.01),
    ("diabetes/diabetes", None, 8, 0.01),
    ("mushrooms/mushrooms", None, 112, 0.01),
    ("ionosphere/ionosphere", None, 34, 0.01),
    ("sonar/sonar", None, 60, 0.01),
    ("a1a/a1a", None, 123, 0.01),
    ("splice/splice", None, 60, 0.01),
    ("fourclass/fourclass", None, 2, 0.01),
    ("svmguide3/svmguide3", None, 22, 0.01),
]


@pytest.mark.parametrize("entry", SHARED, ids=lambda e: e[0].split("/")[0])
def test_shared_datasets_vs_linearsvc(shared_datasets: Path, entry) -> None:
    train, test, nf, allowance = entry
    X, y = _load(shared_datasets / train, nf)
    if test is None:
        splits = random_splits(X, y)
    else:
        Xte, yte = _load(shared_datasets / test, nf)
        splits = [(X, Xte, y, yte)]
    lin, nss, n_sv = protocol_accuracies(splits)
    print(f"{train}: nssvm {nss:.4f} LinearSVC {lin:.4f} SVs <= {n_sv}")
    assert nss >= lin - allowance


# ---------------------------------------------------------------------------------------
# Inputs, equivalences, determinism


def test_dense_and_sparse_give_the_same_model() -> None:
    Xtr, ytr, Xte, _ = synthetic(2000, seed=3)
    a = SparseSVC().fit(Xtr, ytr)
    X64 = sp.csr_matrix(Xtr)
    X64.indices, X64.indptr = X64.indices.astype(np.int64), X64.indptr.astype(np.int64)
    for Xs in (sp.csr_matrix(Xtr), X64, np.asfortranarray(Xtr)):
        b = SparseSVC().fit(Xs, ytr)
        np.testing.assert_array_equal(a.support_, b.support_)
        np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10, atol=1e-13)
        np.testing.assert_allclose(a.intercept_, b.intercept_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(
        a.decision_function(Xte), a.decision_function(sp.csr_matrix(Xte)), rtol=1e-12
    )
    # The estimator solves these full CSR matrices dense (dense_if_smaller): the core's CSR
    # path on the same rows (int32 and int64 indices, float32 values) gives the dense solution.
    y_pm = np.where(ytr == np.unique(ytr)[1], 1.0, -1.0)
    ref = fit_core(np.ascontiguousarray(Xtr), y_pm)
    ref32 = fit_core(np.ascontiguousarray(Xtr, dtype=np.float32), y_pm)
    for Xs, want in (
        (sp.csr_matrix(Xtr), ref),
        (X64, ref),
        (sp.csr_matrix(Xtr, dtype=np.float32), ref32),
    ):
        got = fit_core(_csr(Xs), y_pm)
        np.testing.assert_array_equal(got["support"], want["support"])
        np.testing.assert_allclose(got["solution"], want["solution"], rtol=1e-10, atol=1e-13)
    # float32 data: dense and CSR agree with each other, and closely with float64.
    d32 = SparseSVC().fit(Xtr.astype(np.float32), ytr)
    s32 = SparseSVC().fit(sp.csr_matrix(Xtr.astype(np.float32)), ytr)
    np.testing.assert_array_equal(d32.support_, s32.support_)
    np.testing.assert_allclose(d32.coef_, s32.coef_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(d32.coef_, a.coef_, rtol=1e-3, atol=1e-4)


# The solve paths are compared at a fixed point of the iteration (the absolute residual test):
# the default stopping rule stops earlier, where CG's inexact solves still show.
FIXED_POINT = {"scaled_tol": False, "stall_iter": 0}


def test_newton_solve_paths_agree() -> None:
    # Woodbury (s > n) vs CG on the synthetic data.
    Xtr, ytr, _, _ = synthetic(1000, seed=2)
    wood = fit_core(Xtr, ytr, **FIXED_POINT)
    cg = fit_core(Xtr, ytr, cg_threshold=0, **FIXED_POINT)
    np.testing.assert_array_equal(wood["support"], cg["support"])
    np.testing.assert_allclose(wood["alpha"], cg["alpha"], rtol=1e-6, atol=1e-9)
    # Direct s x s Cholesky (s <= n) vs CG on digits 3 vs 8 (n = 64, s = 40).
    X, y = load_digits(return_X_y=True)
    keep = (y == 3) | (y == 8)
    X, y = X[keep] / 16.0, np.where(y[keep] == 3, 1.0, -1.0)
    direct = fit_core(X, y, s0=40, **FIXED_POINT)
    cg = fit_core(X, y, s0=40, cg_threshold=0, **FIXED_POINT)
    np.testing.assert_array_equal(direct["support"], cg["support"])
    np.testing.assert_allclose(direct["alpha"], cg["alpha"], rtol=1e-6, atol=1e-9)
    assert len(direct["support"]) <= 40


def test_deterministic_across_threads_and_runs() -> None:
    Xtr, ytr, _, _ = synthetic(8000, seed=4)
    par = {"parallel_min_rows": 0}  # threads even on this small problem
    a = SparseSVC(n_jobs=1, solver_options=par).fit(Xtr, ytr)
    b = SparseSVC(n_jobs=2, solver_options=par).fit(Xtr, ytr)
    c = SparseSVC(n_jobs=2, solver_options=par).fit(Xtr, ytr)
    for other in (b, c):
        np.testing.assert_array_equal(a.coef_, other.coef_)
        np.testing.assert_array_equal(a.support_, other.support_)


@pytest.mark.parametrize("labels", [(2, 4), ("no", "yes"), (-1, 1)])
def test_any_two_labels(labels) -> None:
    Xtr, ytr, Xte, yte = synthetic(1000, seed=2)
    lab = np.array(labels, dtype=object if isinstance(labels[0], str) else None)
    y_named = lab[(ytr > 0).astype(int)]
    ref = SparseSVC().fit(Xtr, ytr)
    clf = SparseSVC().fit(Xtr, y_named)
    np.testing.assert_array_equal(clf.classes_, np.sort(lab))
    np.testing.assert_allclose(clf.coef_, ref.coef_)
    pred = clf.predict(Xte)
    assert set(pred.tolist()) <= set(lab.tolist())
    assert np.mean(pred == lab[(yte > 0).astype(int)]) >= 0.96


def test_attributes_consistent() -> None:
    Xtr, ytr, _, _ = synthetic(1000, seed=2)
    clf = SparseSVC().fit(Xtr, ytr)
    np.testing.assert_allclose(clf.dual_coef_ @ clf.support_vectors_, clf.coef_, atol=1e-12)
    np.testing.assert_allclose(clf.dual_coef_, clf.alpha_ * ytr[clf.support_])
    assert clf.coef_.shape == (1, 2) and clf.intercept_.shape == (1,)
    assert np.all(clf.alpha_ != 0)
    dec = clf.decision_function(Xtr)
    np.testing.assert_allclose(dec, Xtr @ clf.coef_[0] + clf.intercept_[0])


def test_multiclass_one_vs_rest() -> None:
    X, y = load_wine(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    sc = StandardScaler().fit(Xtr)
    Xtr, Xte = sc.transform(Xtr), sc.transform(Xte)
    clf = SparseSVC().fit(Xtr, ytr)
    assert clf.coef_.shape == (3, X.shape[1]) and clf.dual_coef_.shape[0] == 3
    assert isinstance(clf.history_, list) and len(clf.history_) == 3
    assert clf.score(Xte, yte) >= SkLinearSVC().fit(Xtr, ytr).score(Xte, yte) - 0.05


# ---------------------------------------------------------------------------------------
# Error paths and warnings


def _xy():
    Xtr, ytr, _, _ = synthetic(200, seed=0)
    return Xtr, ytr


@pytest.mark.parametrize(
    "params, exc, match",
    [
        ({"C": 0.0}, ValueError, "C must be"),
        ({"C": "a"}, TypeError, "C must be"),
        ({"sparsity": 0}, ValueError, "sparsity must be"),
        ({"sparsity": 2.5}, TypeError, "sparsity must be"),
        ({"tol": -1.0}, ValueError, "tol must be"),
        ({"max_iter": -1}, ValueError, "max_iter must be"),
        ({"tune": "yes"}, TypeError, "tune must be"),
        ({"solver": "smo"}, ValueError, "solver must be one of"),
        ({"solver_options": {"bogus": 1}}, ValueError, "unknown solver option"),
        ({"solver_options": "x"}, TypeError, "solver_options must be"),
        ({"solver_options": {"c": 1.0}}, ValueError, "option 'c' must be <= C"),
        ({"solver_options": {"tune_ratio": 1.0}}, ValueError, "option 'tune_ratio' must be > 1"),
        ({"solver_options": {"cg_tol": 0.0}}, ValueError, "option 'cg_tol' must be > 0"),
        ({"solver_options": {"stall_iter": -1}}, ValueError, "option 'stall_iter' must be >= 0"),
        ({"solver_options": {"tune_every": 0}}, ValueError, "option 'tune_every' must be >= 1"),
        ({"solver_options": {"s0": "many"}}, ValueError, "option 's0' has the wrong type"),
        ({"callback": 3}, TypeError, "callback must be callable"),
    ],
)
def test_bad_parameters(params, exc, match) -> None:
    X, y = _xy()
    with pytest.raises(exc, match=match):
        SparseSVC(**params).fit(X, y)


def test_bad_data() -> None:
    X, y = _xy()
    with pytest.raises(ValueError, match="only one class"):
        SparseSVC().fit(X, np.ones_like(y))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        SparseSVC().fit(Xn, y)
    with pytest.raises(ValueError, match="Unknown label type"):
        SparseSVC().fit(X, y + 0.5 * np.arange(len(y)))
    with pytest.raises(NotFittedError):
        SparseSVC().predict(X)
    clf = SparseSVC().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        clf.predict(np.ones((3, 5)))
    # The core checks labels and classes itself.
    with pytest.raises(ValueError, match="labels y must be -1 or \\+1"):
        fit_core(X, np.where(y > 0, 2.0, -1.0))
    with pytest.raises(ValueError, match="both classes"):
        fit_core(X, np.ones_like(y))
    with pytest.raises(ValueError, match="at least 2 samples"):
        fit_core(X[:1], y[:1])


def test_warnings_max_iter_and_callback() -> None:
    X, y = _xy()
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        SparseSVC(max_iter=1).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="stopped by the callback"):
        SparseSVC(callback=lambda rec: False).fit(X, y)
    seen = []
    SparseSVC(callback=lambda rec: seen.append(rec["optimality"])).fit(X, y)
    assert len(seen) > 0


def test_verbose_prints(capsys) -> None:
    X, y = _xy()
    SparseSVC(verbose=1).fit(X, y)
    assert "nssvm iter" in capsys.readouterr().out


# ---------------------------------------------------------------------------------------------
# Issue 14: sparse Woodbury solves, renumbered working-set rows, non-finite iterates.


def _sparse_tall(m: int, n: int, nnz: int, seed: int):
    rng = np.random.default_rng(seed)
    cols = np.array([rng.choice(n, nnz, replace=False) for _ in range(m)])
    X = sp.csr_matrix(
        (rng.random(m * nnz), np.sort(cols, axis=1).ravel(), np.arange(0, m * nnz + 1, nnz)),
        shape=(m, n),
    )
    w = rng.standard_normal(n)
    z = X @ w
    return X, np.where(z > np.median(z), 1.0, -1.0)


def _csr(X):
    return (X.data, X.indices, X.indptr, X.shape[0], X.shape[1])


def test_sparse_woodbury_matches_dense_and_cg() -> None:
    # s0 = 40 (ln 50)^2 ~ 612 > n = 40: the Woodbury path. CSR rows build its n x n factor
    # by sparse outer products, dense rows by blocked rank updates, CG needs no factor.
    X, y = _sparse_tall(2000, 40, 4, seed=3)
    csr = fit_core(_csr(X), y, **FIXED_POINT)
    dense = fit_core(X.toarray(), y, **FIXED_POINT)
    cg = fit_core(_csr(X), y, cg_threshold=0, **FIXED_POINT)
    assert csr["s0"] > X.shape[1]
    np.testing.assert_array_equal(csr["support"], dense["support"])
    np.testing.assert_allclose(csr["alpha"], dense["alpha"], rtol=1e-8, atol=1e-11)
    np.testing.assert_array_equal(csr["support"], cg["support"])
    np.testing.assert_allclose(csr["alpha"], cg["alpha"], rtol=1e-5, atol=1e-8)


def test_woodbury_moves_cover_rebuilds() -> None:
    # Digits 2 vs rest at the fixed point (test_eta_stationarity_and_subproblem checks its
    # residual in numpy) runs more Newton steps than the 16 moves between rebuilds of the
    # Woodbury matrix; CSR and dense input reach the same point.
    X, y = load_digits(return_X_y=True)
    X, y = X / 16.0, np.where(y == 2, 1.0, -1.0)
    dense = fit_core(X, y, **FIXED_POINT)
    csr = fit_core(_csr(sp.csr_matrix(X)), y, **FIXED_POINT)
    assert dense["status"] == SolverStatus.converged and dense["iterations"] > 17
    np.testing.assert_array_equal(csr["support"], dense["support"])
    np.testing.assert_allclose(csr["solution"], dense["solution"], rtol=1e-8, atol=1e-11)


@pytest.mark.parametrize("shuffle", [True, False], ids=["unsorted", "sorted"])
def test_woodbury_noncanonical_csr_rows(shuffle: bool) -> None:
    # A CSR view with duplicate entries, in shuffled or in sorted rows (the C++ API takes it
    # as given), is the same matrix as the canonical one: the sparse outer products of the
    # Woodbury matrix must count a duplicated column once with the summed value, as every
    # other pass over the rows does.
    X, y = _sparse_tall(2000, 40, 4, seed=3)
    ref = fit_core(_csr(X), y, **FIXED_POINT)
    assert ref["s0"] > X.shape[1]  # the Woodbury path
    rng = np.random.default_rng(0)
    data, indices, indptr = [], [], [0]
    for i in range(X.shape[0]):
        cols = X.indices[X.indptr[i] : X.indptr[i + 1]]
        vals = X.data[X.indptr[i] : X.indptr[i + 1]]
        split = rng.random(vals.shape[0])  # each value as two entries of the same column
        cols = np.concatenate([cols, cols])
        vals = np.concatenate([vals * split, vals * (1.0 - split)])
        order = rng.permutation(cols.shape[0]) if shuffle else np.argsort(cols, kind="stable")
        data.append(vals[order])
        indices.append(cols[order])
        indptr.append(indptr[-1] + cols.shape[0])
    raw = (
        np.concatenate(data),
        np.concatenate(indices).astype(np.int32),
        np.array(indptr, dtype=np.int32),
        *X.shape,
    )
    other = fit_core(raw, y, **FIXED_POINT)
    np.testing.assert_array_equal(other["support"], ref["support"])
    np.testing.assert_allclose(other["solution"], ref["solution"], rtol=1e-8, atol=1e-11)


def test_one_vs_rest_pool_matches_one_thread() -> None:
    # Ten classes on two threads: the binary fits run on a pool, one thread each, and give
    # the n_jobs=1 model bit for bit; a fit that fails on the pool raises in the caller.
    from svmkit._threads import stored_entries, use_pool

    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    assert use_pool(10, 2, X.shape[0], stored_entries(X))
    one = SparseSVC(n_jobs=1).fit(X, y)
    two = SparseSVC(n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)
    np.testing.assert_array_equal(one.support_, two.support_)
    with pytest.raises(FloatingPointError):
        SparseSVC(n_jobs=2).fit(X * 1e300, y)


def test_wide_sparse_renumbered_columns_match_dense() -> None:
    # n = 20000 columns, 3 stored per row: the working-set rows are renumbered onto the
    # columns they touch; the result equals the dense fit's (n read in place).
    X, y = _sparse_tall(300, 20000, 3, seed=4)
    csr = fit_core(_csr(X), y, s0=120, **FIXED_POINT)
    dense = fit_core(X.toarray(), y, s0=120, **FIXED_POINT)
    np.testing.assert_array_equal(csr["support"], dense["support"])
    np.testing.assert_allclose(csr["alpha"], dense["alpha"], rtol=1e-8, atol=1e-11)
    np.testing.assert_allclose(csr["solution"], dense["solution"], rtol=1e-8, atol=1e-11)


def test_huge_values_raise_floating_point_error_promptly() -> None:
    # X * 1e300: the Newton system overflows after one iteration. The fit used to loop forever
    # in the bias search over NaN decision values; it must stop with numerical_error. Run in a
    # child process so that a regression hangs the child, not the test run.
    import subprocess
    import sys

    code = (
        "import numpy as np, svmkit\n"
        "from sklearn.datasets import load_breast_cancer\n"
        "X, y = load_breast_cancer(return_X_y=True)\n"
        "r = svmkit._core.fit_nssvm(X * 1e300, np.where(y == 1, 1.0, -1.0), {}, None)\n"
        "print(r['status'].name)\n"
        "try:\n"
        "    svmkit.SparseSVC().fit(X * 1e300, y)\n"
        "except FloatingPointError as e:\n"
        "    print('raised', e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=True
    ).stdout
    assert out.splitlines()[0] == "numerical_error"
    assert "raised SparseSVC (nssvm): numerical error" in out


# ---------------------------------------------------------------------------------------
# Stopping rule, d >> n data, one-vs-rest bookkeeping


def _badly_scaled(m: int, seed: int):
    """Nearly separable data (0.5% flipped, margin 0.05) with features scaled from 1 to 1000."""
    rng = np.random.default_rng(seed)
    w = rng.standard_normal(20)
    X = rng.standard_normal((2 * m, 20))
    z = X @ w / np.linalg.norm(w)
    keep = np.abs(z) > 0.05
    X, z = X[keep][:m], z[keep][:m]
    y = np.where(z > 0, 1.0, -1.0)
    flip = rng.random(m) < 0.005
    y[flip] = -y[flip]
    return X * np.logspace(0, 3, 20), y


def test_scaled_stopping_rule_on_badly_scaled_features() -> None:
    # At C = 1000 the absolute test ||F|| <= 1e-6 is not met in 100 iterations (||F|| stays
    # near 1e-5); the listing's scaled residual test ends the solve after a few, with the same
    # training accuracy as the long run.
    X, y = _badly_scaled(8000, seed=4)
    fast = fit_core(X, y, C=1000.0)
    slow = fit_core(X, y, C=1000.0, max_iter=100, **FIXED_POINT)
    assert fast["status"] == SolverStatus.converged
    assert slow["status"] == SolverStatus.max_iter
    assert fast["iterations"] <= 20
    assert fast["accuracy"] >= slow["accuracy"] - 0.002


def test_stall_stop_message_and_off_switch() -> None:
    X, y = _badly_scaled(4000, seed=4)
    res = fit_core(X, y, C=100.0, tol=0.0, stall_iter=3)
    assert res["status"] == SolverStatus.converged
    assert "stall_iter" in res["message"]
    assert res["iterations"] >= 3
    off = fit_core(X, y, C=100.0, tol=0.0, stall_iter=0, max_iter=15)
    assert off["status"] == SolverStatus.max_iter and off["iterations"] == 15


def test_scaled_residual_bound() -> None:
    # Converged by the residual test: ||F||^2 / (m n) <= tol sqrt(s) log10(m) at the return.
    Xtr, ytr, _, _ = synthetic(2000, seed=3)
    res = fit_core(Xtr, ytr, keep_best=False, bias_search=False, stall_iter=0)
    assert res["status"] == SolverStatus.converged
    m, n = Xtr.shape
    bound = nssvm_defaults()["tol"] * math.sqrt(len(res["working_set"])) * math.log10(m)
    assert res["optimality"] ** 2 / (m * n) <= bound


def test_very_wide_csr_all_rows_matches_dense_and_linearsvc() -> None:
    # d >> n: s = m, the CG path on renumbered columns (reused across Newton steps). The CSR
    # fit equals the dense one, and at C = 2 (LinearSVC's C = 1 squared hinge, c -> 0) the
    # test accuracy is within 2 points of scikit-learn's LinearSVC (measured: see the assert).
    from svmkit.datasets import make_sparse_text_like

    X, y = make_sparse_text_like(400, 20000, 0.003, label_noise=0.05, random_state=0)
    X = sp.csr_matrix(X)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    ytr_pm = np.where(ytr == ytr.max(), 1.0, -1.0)
    csr = fit_core(_csr(Xtr), ytr_pm, C=2.0, cg_threshold=0, **FIXED_POINT)
    dense = fit_core(Xtr.toarray(), ytr_pm, C=2.0, cg_threshold=0, **FIXED_POINT)
    assert csr["s0"] == Xtr.shape[0]
    np.testing.assert_allclose(csr["solution"], dense["solution"], rtol=1e-7, atol=1e-10)
    ours = SparseSVC(C=2.0).fit(Xtr, ytr).score(Xte, yte)
    ref = SkLinearSVC(C=1.0).fit(Xtr, ytr).score(Xte, yte)
    assert ours >= ref - 0.02


def test_one_vs_rest_alpha_from_dual_coef() -> None:
    X, y = load_iris(return_X_y=True)
    clf = SparseSVC().fit(X, y)
    assert clf.dual_coef_.shape == clf.alpha_.shape == (3, len(clf.support_))
    for k in range(3):
        res = clf.result_[k]
        pos = np.searchsorted(clf.support_, res["support"])
        np.testing.assert_array_equal(clf.alpha_[k, pos], res["alpha"])
        yk = np.where(y[res["support"]] == k, 1.0, -1.0)
        np.testing.assert_allclose(clf.dual_coef_[k, pos], res["alpha"] * yk)
    assert "alpha_" not in vars(clf)  # computed from dual_coef_, not stored
