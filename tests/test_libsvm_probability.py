"""LIBSVM's -b 1 models of epsilon-SVR / nu-SVR (Laplace scale sigma, the file's probA) and of
the one-class SVM (prob_density_marks), through svmkit.svmutil, `svmkit svm-train` /
`svm-predict` and the model files, against libsvm-official 3.37."""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest
from libsvm import svmutil as official
from references import write_libsvm_file
from sklearn.datasets import load_diabetes, load_iris
from sklearn.preprocessing import MinMaxScaler
from svmkit import SVR, NuSVR, cli, svmutil
from svmkit._libsvm_probability import (
    density_marks,
    laplace_sigma,
    one_class_probability,
    svr_sigma,
)


def _rows(X):
    return [{j + 1: float(v) for j, v in enumerate(r)} for r in X]


@pytest.fixture(scope="module")
def regression():
    X, y = load_diabetes(return_X_y=True)
    X = MinMaxScaler((-1, 1)).fit_transform(X)[:150]
    y = (y[:150] - y[:150].mean()) / y[:150].std()
    return X, y


@pytest.fixture(scope="module")
def one_class():
    X, _ = load_iris(return_X_y=True)
    return MinMaxScaler((-1, 1)).fit_transform(X)


def _libc():
    return ctypes.CDLL(None)


def _libsvm_permutation(libc, seed, n):
    """The fold permutation LIBSVM's svm_cross_validation draws after srand(seed): a forward
    Fisher-Yates shuffle with the C library's rand() (the libsvm library calls the process's
    rand(), so the same calls here give the same numbers)."""
    libc.srand(seed)
    perm = np.arange(n)
    for i in range(n):
        j = i + libc.rand() % (n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


def _official_marks(path):
    line = [ln for ln in open(path).read().splitlines() if ln.startswith("prob_density_marks")]
    return np.array([float(v) for v in line[0].split()[1:]])


# -- regression: the Laplace scale -------------------------------------------------------------


@pytest.mark.parametrize(
    "svm_type,est",
    [
        ("3", lambda g: SVR(C=1.0, epsilon=0.1, gamma=g, tol=1e-7)),
        ("4", lambda g: NuSVR(C=1.0, nu=0.5, gamma=g, tol=1e-7)),
    ],
)
def test_svr_sigma_matches_libsvm_on_its_folds(regression, svm_type, est):
    """With LIBSVM's own fold permutation (rebuilt from the C library's rand() after the same
    srand), sigma is the same number up to the two solvers' tolerances (1e-7 here; measured
    agreement 1e-8 relative for both types), checked to 1e-6."""
    X, y = regression
    libc = _libc()
    perm = _libsvm_permutation(libc, 11, y.shape[0])
    libc.srand(11)
    ref = official.svm_train(list(y), _rows(X), f"-s {svm_type} -b 1 -e 1e-7 -q")
    theirs = ref.get_svr_probability()
    ours = svr_sigma(est(1.0 / X.shape[1]), X, y, permutation=perm)
    assert ours == pytest.approx(theirs, rel=1e-6)
    # Another seed moves LIBSVM's sigma by more than that: the folds matter, the match is real.
    libc.srand(12)
    other = official.svm_train(list(y), _rows(X), f"-s {svm_type} -b 1 -e 1e-7 -q")
    assert abs(other.get_svr_probability() - theirs) > 1e-3 * theirs


def test_svr_sigma_precomputed_kernel_matches_libsvm(regression):
    """-t 4: the folds cut the Gram matrix in both directions (train x train to fit, held x
    train to predict); LIBSVM's sigma on its folds, as above."""
    X, y = regression
    K = X @ X.T  # the linear kernel, precomputed
    n = y.shape[0]
    rows = [
        {0: float(i + 1), **{j + 1: float(v) for j, v in enumerate(r)}} for i, r in enumerate(K)
    ]
    libc = _libc()
    perm = _libsvm_permutation(libc, 5, n)
    libc.srand(5)
    ref = official.svm_train(list(y), rows, "-s 3 -t 4 -b 1 -e 1e-7 -q")
    ours = svr_sigma(SVR(kernel="precomputed", tol=1e-7), K, y, permutation=perm)
    assert ours == pytest.approx(ref.get_svr_probability(), rel=1e-6)
    m = svmutil.svm_train(list(y), rows, "-s 3 -t 4 -b 1 -q")  # svmutil's -t 4 path
    assert m.get_svr_probability() == pytest.approx(ref.get_svr_probability(), rel=0.15)


def test_laplace_sigma_drops_outliers():
    z = np.array([1.0, -1.0, 1.0, -1.0] * 5 + [100.0])
    # first fit: mean|z| = 120/21; 5 sqrt(2) of it is ~40, so 100 is left out
    assert laplace_sigma(z) == pytest.approx(1.0)
    assert laplace_sigma(np.array([2.0, -4.0])) == pytest.approx(3.0)


@pytest.mark.parametrize("svm_type", ["3", "4"])
def test_svr_probability_files_both_ways(tmp_path, regression, capsys, svm_type):
    """Random folds on both sides (numpy's and the C library's): the two sigmas differ by
    cross-validation noise only. Over srand seeds 0-19 libsvm-official's sigma on this data
    has a relative spread of 1.5% (-s 3) / 0.8% (-s 4) and max/min - 1 of 5.2% / 4.0%, so
    15% bounds the noise; a wrong scale (the rms of z instead of mean|z|, sqrt(pi/2) = 1.25
    times larger for normal residuals) would be outside it."""
    X, y = regression
    rows = _rows(X)
    opts = f"-s {svm_type} -b 1 -q"
    ref = official.svm_train(list(y), rows, opts)
    ours = svmutil.svm_train(list(y), X, opts)
    assert ours.is_probability_model()
    assert ours.get_svr_probability() == pytest.approx(ref.get_svr_probability(), rel=0.15)
    # our file read by libsvm-official: the nu / epsilon type, sigma, the predictions
    path = str(tmp_path / "ours.model")
    svmutil.svm_save_model(path, ours)
    assert re.search(r"\nprobA \S+\n", open(path).read())
    theirs_m = official.svm_load_model(path)
    assert theirs_m.get_svm_type() == int(svm_type)
    assert theirs_m.is_probability_model()
    assert theirs_m.get_svr_probability() == ours.get_svr_probability()
    p_theirs, _, v_theirs = official.svm_predict(list(y), rows, theirs_m, "-b 1 -q")
    p_ours, _, v_ours = svmutil.svm_predict(list(y), X, ours, "-b 1 -q")
    np.testing.assert_allclose(p_ours, p_theirs, rtol=1e-9, atol=1e-9)
    assert v_ours == v_theirs == [[]] * len(y)  # no per-sample probabilities for regression
    # their file read by us
    official.svm_save_model(path, ref)
    back = svmutil.svm_load_model(path)
    assert back.get_svr_probability() == ref.get_svr_probability()
    assert back.estimator.prob_sigma_ == ref.get_svr_probability()
    capsys.readouterr()
    svmutil.svm_predict(list(y), X, back, "-b 1")
    out = capsys.readouterr().out
    assert (
        "Prob. model for test data: target value = predicted value + z,\n"
        f"z: Laplace distribution e^(-|z|/sigma)/(2sigma),sigma={ref.get_svr_probability():g}"
    ) in out


def test_svr_probability_cli(tmp_path, regression, capsys):
    X, y = regression
    train = write_libsvm_file(tmp_path / "r.train", X, y)
    model, out = str(tmp_path / "r.model"), str(tmp_path / "r.out")
    assert cli.main(["svm-train", "-s", "3", "-b", "1", "-q", train, model]) == 0
    sigma = official.svm_load_model(model).get_svr_probability()
    assert sigma > 0
    capsys.readouterr()
    assert cli.main(["svm-predict", "-b", "1", train, model, out]) == 0
    assert f"sigma={sigma:g}" in capsys.readouterr().out
    # as svm-predict: one predicted value per line, no header
    ours = np.array([float(v) for v in open(out).read().split()])
    theirs, _, _ = official.svm_predict(list(y), _rows(X), official.svm_load_model(model), "-q")
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)


def test_svr_probability_file_errors(tmp_path, regression):
    X, y = regression
    path = tmp_path / "m.model"
    svmutil.svm_save_model(str(path), svmutil.svm_train(list(y), X, "-s 3 -b 1 -q"))
    text = path.read_text()
    path.write_text(re.sub(r"probA [^\n]*\n", "probA 0\n", text))
    with pytest.raises(ValueError, match="probA is one positive Laplace scale"):
        svmutil.svm_load_model(str(path))
    path.write_text(re.sub(r"(probA [^\n]*\n)", r"\1probB 1\n", text))
    with pytest.raises(ValueError, match="epsilon_svr model has no Platt sigmoid"):
        svmutil.svm_load_model(str(path))
    m = svmutil.svm_train(list(y), X, "-s 3 -q")
    assert not m.is_probability_model()
    with pytest.raises(ValueError, match="does not support probabiliy estimates"):
        svmutil.svm_predict(list(y), X, m, "-b 1")
    # LIBSVM returns 0 (and prints the message) for a model without the Laplace scale
    with pytest.warns(UserWarning, match="doesn't contain information for SVR probability"):
        assert m.get_svr_probability() == 0.0
    assert official.svm_train(list(y), _rows(X), "-s 3 -q").get_svr_probability() == 0.0
    with pytest.raises(ValueError, match="permutation must hold each sample index once"):
        svr_sigma(SVR(), X, y, permutation=np.zeros(y.shape[0], dtype=int))


# -- one-class: the density marks --------------------------------------------------------------


def test_one_class_marks_match_libsvm(tmp_path, one_class):
    """The marks come from the training decision values alone (no random folds): with both
    solvers run to 1e-9 they agree to about that."""
    X = one_class
    rows = _rows(X)
    opts = "-s 2 -n 0.3 -g 0.5 -e 1e-9 -b 1 -q"
    ref = official.svm_train([0.0] * len(rows), rows, opts)
    path = str(tmp_path / "theirs.model")
    official.svm_save_model(path, ref)
    theirs = _official_marks(path)
    ours = svmutil.svm_train(np.zeros(X.shape[0]), X, opts)
    np.testing.assert_allclose(ours.estimator.prob_density_marks_, theirs, rtol=0, atol=1e-6)
    # their file read by us predicts their probabilities; our file read by them predicts ours
    rng = np.random.default_rng(0)
    # the training samples reach the top bin; noisy copies of them the bottom one
    T = np.vstack([X, np.clip(X + 0.6 * rng.standard_normal(X.shape), -1.5, 1.5)])
    trows = _rows(T)
    l_t, _, p_t = official.svm_predict([0.0] * len(T), trows, ref, "-b 1 -q")
    l_o, _, p_o = svmutil.svm_predict([], T, svmutil.svm_load_model(path), "-b 1 -q")
    assert l_o == l_t
    np.testing.assert_array_equal(p_o, p_t)
    mine = str(tmp_path / "ours.model")
    svmutil.svm_save_model(mine, ours)
    theirs_m = official.svm_load_model(mine)
    assert theirs_m.get_svm_type() == 2 and theirs_m.is_probability_model()
    l_t2, _, p_t2 = official.svm_predict([0.0] * len(T), trows, theirs_m, "-b 1 -q")
    l_o2, _, p_o2 = svmutil.svm_predict([], T, ours, "-b 1 -q")
    assert l_o2 == l_t2
    np.testing.assert_array_equal(p_o2, p_t2)
    assert {round(p[0], 3) for p in p_o2} >= {0.001, 0.999}  # both tails are reached


def test_one_class_probability_bins():
    marks = np.arange(10.0) - 4.5  # -4.5 ... 4.5
    dec = np.array([-9.0, -4.5, -4.0, -0.6, 0.0, 0.4, 4.49, 4.5, 9.0])
    np.testing.assert_allclose(
        one_class_probability(marks, dec), [0.001, 0.1, 0.1, 0.4, 0.5, 0.5, 0.9, 0.999, 0.999]
    )
    # the edges: the negatives at quantiles 0, 1/5, ..., 4/5, zero, the non-negatives at
    # 1/5, ..., 5/5; each mark is the midpoint of two neighbouring edges
    d = np.r_[-np.arange(1.0, 11.0), np.arange(0.0, 10.0)]  # 10 negatives, 10 non-negatives
    edges = np.r_[-10.0, -8.0, -6.0, -4.0, -2.0, 0.0, 1.0, 3.0, 5.0, 7.0, 9.0]
    np.testing.assert_allclose(density_marks(d), 0.5 * (edges[:-1] + edges[1:]))
    assert density_marks(np.r_[-np.ones(4), np.ones(10)]) is None


def test_one_class_too_few_for_marks(capfd):
    """libsvm-official warns and writes no marks when fewer than 5 decision values are
    negative (or non-negative); so does svmutil, and -b 1 prediction is then refused."""
    X = np.random.default_rng(1).standard_normal((8, 2))
    opts = "-s 2 -n 0.1 -b 1"
    ref = official.svm_train([0.0] * 8, _rows(X), opts)
    theirs_out = capfd.readouterr().err  # the C library's stderr
    m = svmutil.svm_train(np.zeros(8), X, opts)
    ours_out = capfd.readouterr().err
    warning = "WARNING: number of positive or negative decision values <5"
    assert warning in theirs_out and warning in ours_out
    assert not ref.is_probability_model() and not m.is_probability_model()
    with pytest.raises(ValueError, match="does not support probabiliy estimates"):
        svmutil.svm_predict([], X, m, "-b 1")


def test_one_class_probability_cli(tmp_path, one_class):
    X = one_class
    train = write_libsvm_file(tmp_path / "o.train", X, np.zeros(X.shape[0]))
    model, out = str(tmp_path / "o.model"), str(tmp_path / "o.out")
    assert cli.main(["svm-train", "-s", "2", "-n", "0.3", "-b", "1", "-q", train, model]) == 0
    assert cli.main(["svm-predict", "-b", "1", "-q", train, model, out]) == 0
    lines = open(out).read().splitlines()
    assert lines[0] == "label normal outlier"  # svm-predict's header for one-class -b 1
    ours = np.array([[float(v) for v in ln.split()] for ln in lines[1:]])
    theirs_l, _, theirs_p = official.svm_predict(
        [0.0] * X.shape[0], _rows(X), official.svm_load_model(model), "-b 1 -q"
    )
    np.testing.assert_array_equal(ours[:, 0], theirs_l)
    np.testing.assert_allclose(ours[:, 1:], theirs_p, rtol=0, atol=1e-6)


def test_one_class_marks_file_errors(tmp_path, one_class):
    X = one_class
    path = tmp_path / "m.model"
    svmutil.svm_save_model(str(path), svmutil.svm_train(np.zeros(X.shape[0]), X, "-s 2 -b 1 -q"))
    text = path.read_text()
    path.write_text(re.sub(r"(prob_density_marks( \S+){9}) \S+\n", r"\1\n", text))
    with pytest.raises(ValueError, match="prob_density_marks belong to a one_class model"):
        svmutil.svm_load_model(str(path))
    path.write_text(re.sub(r"(prob_density_marks [^\n]*\n)", r"\1probA 1\n", text))
    with pytest.raises(ValueError, match="one_class model has no Platt sigmoid"):
        svmutil.svm_load_model(str(path))
    path.write_text(re.sub(r"prob_density_marks [^\n]*\n", "prob_density_marks 1 x\n", text))
    with pytest.raises(ValueError, match="malformed probA / probB / prob_density_marks"):
        svmutil.svm_load_model(str(path))


def test_predict_without_b_on_a_probability_model_says_so(one_class, capsys):
    """As the official svm_predict: a -b 1 model predicted without -b 1 prints a notice."""
    X = one_class
    rows = _rows(X)
    notice = "Model supports probability estimates, but disabled in predicton."
    official.svm_predict([], rows, official.svm_train([0.0] * len(rows), rows, "-s 2 -b 1 -q"))
    assert notice in capsys.readouterr().out
    svmutil.svm_predict([], X, svmutil.svm_train(np.zeros(X.shape[0]), X, "-s 2 -b 1 -q"))
    assert notice in capsys.readouterr().out
    svmutil.svm_predict([], X, svmutil.svm_train(np.zeros(X.shape[0]), X, "-s 2 -q"))
    assert notice not in capsys.readouterr().out
