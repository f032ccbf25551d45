"""LIBLINEAR's -b 1 for its logistic models (-s 0, 6, 7): liblinearutil.predict, `svmkit
liblinear-predict -b 1` and LinearSVC(loss="logistic").predict_proba, against
liblinear-official and scikit-learn's LogisticRegression."""

from __future__ import annotations

import numpy as np
import pytest
import svmkit
from liblinear import liblinearutil as official
from references import write_libsvm_file
from sklearn.datasets import load_wine
from sklearn.linear_model import LogisticRegression
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from svmkit import cli, liblinearutil


@pytest.fixture(scope="module")
def wine():
    X, y = load_wine(return_X_y=True)
    idx = np.random.default_rng(0).permutation(y.shape[0])
    return StandardScaler().fit_transform(X)[idx], (y[idx] + 1).astype(float)


def _problem(wine, n_classes):
    X, y = wine
    keep = y <= n_classes
    return X[keep], y[keep]


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("solver", ["0", "6", "7"])
def test_probabilities_match_liblinear(tmp_path, wine, solver, n_classes):
    X, y = _problem(wine, n_classes)
    train = write_libsvm_file(tmp_path / "w.txt", X, y)
    yl, xl = official.svm_read_problem(str(train))
    opts = f"-s {solver} -c 0.5 -B 1 -e 1e-8 -q"
    ref = official.train(yl, xl, opts)
    path = str(tmp_path / "theirs.model")
    official.save_model(path, ref)
    l_t, _, p_t = official.predict(yl, xl, ref, "-b 1 -q")
    # their model read by us: the same formula on the same weights, equal to round-off
    l_o, _, p_o = liblinearutil.predict(yl, xl, liblinearutil.load_model(path), "-b 1 -q")
    assert l_o == l_t
    np.testing.assert_allclose(p_o, p_t, rtol=0, atol=1e-12)
    # and through the command line, in predict's output format
    out = str(tmp_path / "p.out")
    assert cli.main(["liblinear-predict", "-b", "1", "-q", str(train), path, out]) == 0
    lines = open(out).read().splitlines()
    assert lines[0].split()[1:] == [f"{v:g}" for v in ref.get_labels()]
    rows = np.array([[float(v) for v in ln.split()] for ln in lines[1:]])
    np.testing.assert_array_equal(rows[:, 0], l_t)
    np.testing.assert_allclose(rows[:, 1:], p_t, rtol=0, atol=1e-6)  # %g: 6 digits
    # our training: the same model up to the solvers' tolerance
    _, _, p_ours = liblinearutil.predict(yl, xl, liblinearutil.train(yl, xl, opts), "-b 1 -q")
    np.testing.assert_allclose(p_ours, p_t, rtol=0, atol=1e-4)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_linear_svc_logistic_predict_proba_matches_sklearn(wine, n_classes):
    """LogisticRegression(solver="liblinear") has a regularized bias of feature value
    intercept_scaling, as LinearSVC(loss="logistic", regularize_intercept=True); wrapped in
    OneVsRestClassifier (scikit-learn's liblinear is binary only) its probabilities are the
    per-class sigmoids normalized to sum 1."""
    X, y = _problem(wine, n_classes)
    ours = svmkit.LinearSVC(
        loss="logistic", C=0.5, regularize_intercept=True, tol=1e-6, max_iter=2000
    ).fit(X, y)
    lr = LogisticRegression(solver="liblinear", C=0.5, tol=1e-12, max_iter=100000)
    ref = OneVsRestClassifier(lr).fit(X, y)
    # TRON's relative gradient tol 1e-6 (tighter ones hit round-off and warn) leaves the
    # probabilities within 5e-6 of the tight reference (measured)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), rtol=0, atol=2e-5)
    np.testing.assert_allclose(ours.predict_proba(X).sum(axis=1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(
        ours.predict_log_proba(X), np.log(ref.predict_proba(X)), rtol=1e-4, atol=2e-5
    )


def test_predict_proba_only_for_the_logistic_loss(wine):
    X, y = _problem(wine, 3)
    assert not hasattr(svmkit.LinearSVC(), "predict_proba")
    assert not hasattr(svmkit.LinearSVC(loss="hinge").fit(X, y), "predict_log_proba")
    cs = svmkit.LinearSVC(loss="logistic", multi_class="crammer_singer")
    assert not hasattr(cs, "predict_proba")
    assert hasattr(svmkit.LinearSVC(loss="logistic"), "predict_proba")


def test_svmkit_predict_b1_for_a_logistic_linear_model(tmp_path, wine, capsys):
    X, y = _problem(wine, 3)
    train = write_libsvm_file(tmp_path / "w.txt", X, y)
    model, out = str(tmp_path / "m.txt"), str(tmp_path / "p.out")
    assert cli.main(["train", "-q", "-l", "logistic", str(train), model]) == 0
    assert cli.main(["predict", "-q", "-b", "1", str(train), model, out]) == 0
    lines = open(out).read().splitlines()
    proba = svmkit.load_model(model).predict_proba(X)
    rows = np.array([[float(v) for v in ln.split()] for ln in lines[1:]])
    np.testing.assert_allclose(rows[:, 1:], proba, rtol=0, atol=1e-6)
    assert cli.main(["train", "-q", str(train), model]) == 0  # squared hinge: none
    assert cli.main(["predict", "-q", "-b", "1", str(train), model, out]) != 0
    assert "-l logistic (linear)" in capsys.readouterr().err


# -- LIBLINEAR -s 5: the stopping rule --------------------------------------------------------


def test_l1_squared_hinge_stops_where_liblinear_does():
    """LIBLINEAR multiplies -s 5's eps by min(#pos, #neg) / l; with 40 positives of 252 that
    share is 0.16, so an unscaled rule would stop far earlier. The suboptimality F(w) - F*
    (F* by clarabel) of `train -s 5 -e eps` is compared with liblinear-official's. LIBLINEAR
    visits coordinates in the C library's rand() order, and its gap depends on it (srand 1..5:
    0.0020 to 0.026 at eps 0.003), so the reference is seeded (srand(1): 0.0038 and 0.00043;
    unseeded, it depended on the tests run before); ours / theirs is then 0.51 and 0.76,
    while the unscaled rule (eps / 0.16) leaves gaps of 0.065 and 0.020, 17x and 32x theirs
    at the least. The window [1/4, 4] holds the noise and excludes the unscaled rule."""
    from references import primal_svm, seed_c_rand
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    keep = np.r_[np.flatnonzero(y == 0), np.flatnonzero(y == 1)[:40]]
    X, y = X[keep], np.where(y[keep] == 1, 1.0, -1.0)
    C = 0.5
    f_star = primal_svm(
        X, y, C, loss="squared_hinge", l1=1.0, l2=0.0, fit_intercept=False, tol=1e-11
    )[2]

    def gap(coef, labels):
        w = np.asarray(coef) * (1.0 if labels[0] == 1 else -1.0)
        xi = np.maximum(0.0, 1.0 - y * (X @ w))
        return np.abs(w).sum() + C * (xi**2).sum() - f_star

    for eps in (0.003, 0.001):
        opts = f"-s 5 -c {C} -e {eps} -q"
        seed_c_rand(1)  # LIBLINEAR's coordinate order (its gap varies with it)
        theirs = official.train(list(y), X, opts)
        ours = liblinearutil.train(list(y), X, opts)
        g_t = gap(theirs.get_decfun(0)[0], theirs.get_labels())  # scores labels[0]
        g_o = gap(ours.get_decfun(0)[0], ours.get_labels())
        assert g_t > 0 and g_o > 0
        assert g_t / 4 <= g_o <= 4 * g_t, (eps, g_o, g_t)
