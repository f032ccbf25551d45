"""Probability estimates of kernel SVC, computed in C++ (svmkit/probability.hpp).

Independent references: scipy.optimize on the regularized Platt likelihood for the sigmoid fit,
numpy's dense solve of the Wu-Lin-Weng linear system for the coupling, scikit-learn's SVC
trained on the very same cross-validation folds for the internal decision values, and
scikit-learn's SVC(probability=True) (LIBSVM) for the end result.
"""

from __future__ import annotations

import re
import subprocess

import numpy as np
import pytest
import svmkit
from scipy.optimize import minimize
from sklearn import svm as sksvm
from sklearn.datasets import load_breast_cancer, load_digits, load_wine, make_moons
from sklearn.preprocessing import StandardScaler
from svmkit import SolverStatus, _core, cli
from svmkit.datasets import dump_svmlight_file

# scikit-learn 1.9 deprecates SVC(probability=True) (the reference here) with a FutureWarning.
pytestmark = pytest.mark.filterwarnings("ignore:.*probab.*:FutureWarning")


def _platt_reference(dec: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Minimize the cross entropy against Platt's regularized targets with scipy (BFGS)."""
    n_pos, n_neg = float(np.sum(y > 0)), float(np.sum(y <= 0))
    t = np.where(y > 0, (n_pos + 1) / (n_pos + 2), 1 / (n_neg + 2))

    def f(w):
        z = dec * w[0] + w[1]  # P(+1) = 1 / (1 + exp(z)): loss = t z + log(1 + exp(-z))
        return float(np.sum(t * z + np.logaddexp(0.0, -z)))

    def g(w):
        z = dec * w[0] + w[1]
        p = 0.5 * (1.0 - np.tanh(0.5 * z))  # 1 / (1 + exp(z)) without overflow
        d = t - p
        return np.array([np.sum(dec * d), np.sum(d)])

    res = minimize(f, np.zeros(2), jac=g, method="BFGS", options={"gtol": 1e-10})
    return float(res.x[0]), float(res.x[1])


@pytest.mark.parametrize("case", ["noisy", "separable", "unbalanced"])
def test_sigmoid_fit_matches_scipy(case):
    rng = np.random.RandomState(3)
    dec = rng.standard_normal(400) * 2.0
    if case == "noisy":
        y = np.where(dec + rng.standard_normal(400) > 0, 1.0, -1.0)
    elif case == "separable":
        y = np.where(dec > 0, 1.0, -1.0)
    else:
        y = np.where(dec > 1.5, 1.0, -1.0)
    fit = _core.fit_sigmoid(dec, y, {})
    a_ref, b_ref = _platt_reference(dec, y)
    assert fit["status"] == SolverStatus.converged
    np.testing.assert_allclose([fit["a"], fit["b"]], [a_ref, b_ref], rtol=1e-4, atol=1e-5)
    # Orientation: P(+1 | f) grows with f, so A < 0.
    assert fit["a"] < 0


def test_sigmoid_fit_options_and_errors():
    rng = np.random.RandomState(0)
    dec = rng.standard_normal(50)
    y = np.where(dec > 0, 1.0, -1.0)
    one = _core.fit_sigmoid(dec, y, {"max_iter": 1})
    assert one["iterations"] == 1 and one["status"] == SolverStatus.max_iter
    with pytest.raises(ValueError, match="decision values must be finite"):
        _core.fit_sigmoid(np.array([0.0, np.nan]), np.array([1.0, -1.0]), {})
    with pytest.raises(ValueError, match="at least one decision value"):
        _core.fit_sigmoid(np.empty(0), np.empty(0), {})
    with pytest.raises(ValueError, match="1-D"):
        _core.fit_sigmoid(np.zeros((2, 2)), np.ones(2), {})
    for opts, msg in [
        ({"folds": 1}, "option 'folds' must be >= 2"),
        ({"max_iter": 0}, "option 'max_iter' must be >= 1"),
        ({"min_step": 0.0}, "option 'min_step' must be > 0 and < 1"),
        ({"sigma": -1.0}, "option 'sigma' must be >= 0 and finite"),
        ({"eps": 0.0}, "option 'eps' must be > 0"),
        ({"min_prob": 0.5}, "option 'min_prob' must be > 0 and < 0.5"),
        ({"nope": 1}, "unknown platt option 'nope'"),
        ({"folds": "five"}, "option 'folds' has the wrong type"),
    ]:
        with pytest.raises(ValueError, match=msg):
            _core.fit_sigmoid(dec, y, opts)


def _coupling_reference(r: np.ndarray) -> np.ndarray:
    """Wu, Lin and Weng (2004) method 2: [Q e; e^T 0] [p; b] = [0; 1], numpy's dense solve."""
    k = r.shape[0]
    Q = -r.T * r  # Q_ij = -r_ji r_ij
    np.fill_diagonal(Q, [np.sum(np.delete(r[:, i], i) ** 2) for i in range(k)])
    M = np.zeros((k + 1, k + 1))
    M[:k, :k], M[:k, k], M[k, :k] = Q, 1.0, 1.0
    rhs = np.zeros(k + 1)
    rhs[k] = 1.0
    return np.linalg.solve(M, rhs)[:k]


@pytest.mark.parametrize("k", [2, 3, 5, 9])
def test_pairwise_coupling_matches_linear_system(k):
    rng = np.random.RandomState(k)
    rs = np.empty((20, k, k))
    for s in range(20):
        u = rng.uniform(0.02, 0.98, size=(k, k))
        r = np.triu(u, 1)
        r = r + np.tril(1.0 - r.T, -1)
        np.fill_diagonal(r, 0.0)
        rs[s] = r
    p = _core.couple_pairwise(rs)
    assert p.shape == (20, k)
    for s in range(20):
        ref = _coupling_reference(rs[s])
        assert np.all(ref >= 0)  # Wu-Lin-Weng: the constraint p >= 0 is inactive
        np.testing.assert_allclose(p[s], ref, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    if k == 2:  # two classes: the pair probability itself
        np.testing.assert_allclose(p[:, 0], rs[:, 0, 1], rtol=1e-10)


def test_pairwise_coupling_errors():
    with pytest.raises(ValueError, match="n x k x k array with k >= 2"):
        _core.couple_pairwise(np.zeros((3, 3)))
    with pytest.raises(ValueError, match="n x k x k array with k >= 2"):
        _core.couple_pairwise(np.zeros((1, 2, 3)))
    with pytest.raises(ValueError, match="n x k x k array with k >= 2"):
        _core.couple_pairwise(np.zeros((1, 1, 1)))
    r = np.full((1, 3, 3), 0.5)
    r[0, 0, 1] = np.inf
    with pytest.raises(ValueError, match="must be finite"):
        _core.couple_pairwise(r)


def _smo_options(n_jobs: int = 1) -> dict:
    return {"tol": 1e-3, "n_threads": n_jobs, "check_input": False}


def test_cv_decisions_match_sklearn_on_the_same_folds():
    """Each fold's model, refitted by scikit-learn on the same training rows, gives the same
    held-out decision values: the C++ folds, fits and predictions are all checked."""
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[:400]
    yp = np.where(y[:400] == 0, 1.0, -1.0)
    rows = np.arange(400, dtype=np.int64)
    gamma = 1.0 / X.shape[1]
    cost = np.full(400, 2.0)
    opts = dict(_smo_options(), tol=1e-6)
    dec, fold = _core.platt_cv_decisions(
        X, yp, cost, rows, "rbf", gamma, 0.0, 3, "svc", False, opts, {"seed": 7}
    )
    assert sorted(np.bincount(fold)) == [80] * 5  # five equal folds
    for f in range(5):
        held = fold == f
        ref = sksvm.SVC(C=2.0, gamma=gamma, tol=1e-6).fit(X[~held], yp[~held])
        np.testing.assert_allclose(dec[held], ref.decision_function(X[held]), atol=1e-4)
    # The seed drives the shuffle; the same seed gives the same folds.
    dec2, fold2 = _core.platt_cv_decisions(
        X, yp, cost, rows, "rbf", gamma, 0.0, 3, "svc", False, opts, {"seed": 7}
    )
    np.testing.assert_array_equal(fold2, fold)
    np.testing.assert_array_equal(dec2, dec)
    _, fold3 = _core.platt_cv_decisions(
        X, yp, cost, rows, "rbf", gamma, 0.0, 3, "svc", False, opts, {"seed": 8}
    )
    assert np.any(fold3 != fold)
    # fit_platt is the sigmoid of these decision values.
    fit = _core.fit_platt(X, yp, cost, rows, "rbf", gamma, 0.0, 3, "svc", False, opts, {"seed": 7})
    ref = _core.fit_sigmoid(dec, yp, {})
    assert (fit["a"], fit["b"]) == (ref["a"], ref["b"])


def test_cv_decisions_one_class_folds_and_errors():
    # Three positives among 40: folds without a positive training sample predict -1.
    X = np.random.RandomState(0).standard_normal((40, 2))
    yp = -np.ones(40)
    yp[:1] = 1.0
    cost = np.ones(40)
    dec, fold = _core.platt_cv_decisions(
        X, yp, cost, None, "rbf", 0.5, 0.0, 3, "svc", False, _smo_options(), {"seed": 0}
    )
    held_pos = fold == fold[0]
    np.testing.assert_array_equal(dec[held_pos], -1.0)  # trained on negatives only
    assert np.all(np.isfinite(dec))
    with pytest.raises(ValueError, match="Platt scaling applies to classification"):
        _core.fit_platt(X, yp, cost, None, "rbf", 0.5, 0.0, 3, "svr", False, _smo_options(), {})
    with pytest.raises(ValueError, match="option 'folds' must be >= 2"):
        _core.fit_platt(
            X, yp, cost, None, "rbf", 0.5, 0.0, 3, "svc", False, _smo_options(), {"folds": 1}
        )
    with pytest.raises(ValueError, match="smo option 'tol' must be"):
        _core.fit_platt(X, yp, cost, None, "rbf", 0.5, 0.0, 3, "svc", False, {"tol": -1.0}, {})


def _compare_with_sklearn(X, y, **params):
    mine = svmkit.SVC(probability=True, random_state=0, **params).fit(X, y)
    ref = sksvm.SVC(probability=True, random_state=0, **params).fit(X, y)
    p, q = mine.predict_proba(X), ref.predict_proba(X)
    assert p.shape == q.shape == (X.shape[0], len(np.unique(y)))
    np.testing.assert_allclose(p.sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(np.exp(mine.predict_log_proba(X)), p, rtol=1e-12)
    # Same pair models (decision values agree to 1e-3), different random CV folds (LIBSVM
    # shuffles with its own rand(), svmkit with a seeded mt19937_64), hence slightly different
    # sigmoids: the probabilities agree closely, not exactly.
    agree = np.mean(p.argmax(1) == q.argmax(1))
    return mine, ref, p, q, agree


def test_predict_proba_vs_sklearn_binary():
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    _, ref, p, q, agree = _compare_with_sklearn(X, y)
    assert agree >= 0.99
    assert np.mean(np.abs(p - q)) < 0.01
    assert np.max(np.abs(p - q)) < 0.1
    # The Platt parameters themselves are close to LIBSVM's.
    mine = svmkit.SVC(probability=True, random_state=0).fit(X, y)
    np.testing.assert_allclose(mine.probA_, ref.probA_, rtol=0.25)


@pytest.mark.parametrize("data", ["wine", "digits"])
def test_predict_proba_vs_sklearn_multiclass(data):
    if data == "wine":
        X, y = load_wine(return_X_y=True)
        X = StandardScaler().fit_transform(X)
    else:
        X, y = load_digits(return_X_y=True)
        X, y = X[:600] / 16.0, y[:600]
    mine, _, p, q, agree = _compare_with_sklearn(X, y)
    assert agree >= 0.98
    assert np.mean(np.abs(p - q)) < 0.01
    assert np.max(np.abs(p - q)) < 0.1
    # The coupling step of the whole pipeline against numpy's solve on the same pair values.
    ovo = svmkit.SVC(probability=True, random_state=0, decision_function_shape="ovo").fit(X, y)
    raw = ovo.decision_function(X[:20])
    k = len(ovo.classes_)
    z = raw * ovo.probA_ + ovo.probB_
    pair = np.clip(0.5 * (1.0 - np.tanh(0.5 * z)), 1e-7, 1 - 1e-7)
    want = np.empty((20, k))
    for s in range(20):
        r = np.zeros((k, k))
        idx = 0
        for a in range(k):
            for b in range(a + 1, k):
                r[a, b], r[b, a] = pair[s, idx], 1 - pair[s, idx]
                idx += 1
        want[s] = _coupling_reference(r)
    np.testing.assert_allclose(ovo.predict_proba(X[:20]), want, rtol=1e-8, atol=1e-10)


def test_predict_proba_threads_and_seed():
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    a = svmkit.SVC(probability=True, random_state=3, n_jobs=1).fit(X, y)
    b = svmkit.SVC(probability=True, random_state=3, n_jobs=2).fit(X, y)
    np.testing.assert_array_equal(a.probA_, b.probA_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    c = svmkit.SVC(probability=True, random_state=4).fit(X, y)
    assert np.any(c.probA_ != a.probA_)


def test_predict_proba_errors():
    X, y = make_moons(200, noise=0.2, random_state=0)
    m = svmkit.SVC(probability=True, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict_proba(X[:, :1])
    model = dict(m._model_dict())
    with pytest.raises(ValueError, match="no probability parameters"):
        _core.kernel_predict_proba(X, model)
    model["prob_a"], model["prob_b"] = m.probA_, m.probB_
    with pytest.raises(ValueError, match="min_prob must be in"):
        _core.kernel_predict_proba(X, model, 1, 0.0)
    model["prob_a"] = np.zeros(2)
    with pytest.raises(ValueError, match="one value per class pair"):
        _core.kernel_predict_proba(X, model)
    r = svmkit.SVR().fit(X, y.astype(float))
    rmodel = dict(r._model_dict(), prob_a=np.zeros(1), prob_b=np.zeros(1))
    with pytest.raises(ValueError, match="need a classification model"):
        _core.kernel_predict_proba(X, rmodel)


def test_model_file_round_trip_and_cli(tmp_path, monkeypatch, capsys):
    X, y = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    m = svmkit.SVC(probability=True, random_state=0).fit(X, y + 1)
    svmkit.save_model(m, tmp_path / "m.txt")
    text = (tmp_path / "m.txt").read_text()
    assert "prob_a" in text and "prob_b" in text
    back = svmkit.load_model(tmp_path / "m.txt")
    np.testing.assert_array_equal(back.probA_, m.probA_)
    np.testing.assert_allclose(back.predict_proba(X), m.predict_proba(X), rtol=1e-12)
    # A model file without the probability lines (the older format) still loads.
    old = (
        "\n".join(ln for ln in text.splitlines() if not ln.startswith(("prob_", "checksum ")))
        + "\n"
    )
    (tmp_path / "old.txt").write_text(old)
    plain = svmkit.load_model(tmp_path / "old.txt")
    np.testing.assert_array_equal(plain.predict(X), m.predict(X))

    # The command line: train -b 1, predict -b 1 (LIBSVM's svm-predict output layout).
    dump_svmlight_file(X, y + 1, tmp_path / "wine.txt")
    monkeypatch.chdir(tmp_path)

    def run(args):
        capsys.readouterr()
        try:
            status = cli.main(args)
        except SystemExit as exc:
            status = exc.code
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, status, out, err)

    res = run(["train", "-q", "-s", "smo", "-t", "2", "-b", "1", "wine.txt", "wine.model"])
    assert res.returncode == 0, res.stderr
    res = run(["predict", "-b", "1", "wine.txt", "wine.model", "out.txt"])
    assert res.returncode == 0, res.stderr
    lines = (tmp_path / "out.txt").read_text().splitlines()
    assert lines[0] == "labels 1 2 3"
    vals = np.array([[float(v) for v in ln.split()] for ln in lines[1:]])
    est = svmkit.load_model(tmp_path / "wine.model")
    np.testing.assert_allclose(vals[:, 1:], est.predict_proba(X), atol=1e-5)
    np.testing.assert_array_equal(vals[:, 0], est.classes_[vals[:, 1:].argmax(1)])
    assert re.search(r"Accuracy = ", res.stdout)
    # Error paths: no probabilities in the model; -b on a linear model; a bad flag.
    run(["train", "-q", "-s", "smo", "-t", "2", "wine.txt", "plain.model"])
    res = run(["predict", "-b", "1", "wine.txt", "plain.model", "out.txt"])
    assert res.returncode != 0 and "train with -b 1" in res.stderr
    res = run(["train", "-q", "-b", "1", "wine.txt", "lin.model"])
    assert res.returncode != 0 and "applies to kernel classification" in res.stderr
    res = run(["predict", "-b", "2", "wine.txt", "wine.model", "out.txt"])
    assert res.returncode != 0 and "expected 0 or 1" in res.stderr


def test_vectorized_exp_accuracy():
    """The kernel rows' exponential (vec_math.hpp) against numpy's exp."""
    rng = np.random.RandomState(0)
    x = np.concatenate([rng.uniform(-708.0, 709.7, 200001), [0.0, -0.0, 1e-300, -1e-300, 709.7]])
    got, want = _core.vec_exp(x), np.exp(x)
    ulp = np.abs(got - want) / np.spacing(want)
    assert np.max(ulp) <= 2.0
    edge = np.array([-708.5, -1e300, -np.inf, 709.8, np.inf, np.nan])
    out = _core.vec_exp(edge)
    np.testing.assert_array_equal(out[:3], 0.0)  # below -708: 0 (exp is < 3.3e-308 there)
    assert np.all(np.isposinf(out[3:5])) and np.isnan(out[5])
    # The single-precision variant (values stored as float in the SMO kernel cache): x <= 0.
    xs = -np.abs(x)
    rel = np.abs(_core.vec_exp(xs, True) - np.exp(xs)) / np.exp(xs)
    assert np.max(rel[xs > -700]) < 1e-8
    np.testing.assert_array_equal(_core.vec_exp(np.array([-708.5, -1e300]), True), 0.0)
    with pytest.raises(ValueError, match="1-D"):
        _core.vec_exp(np.zeros((2, 2)))
