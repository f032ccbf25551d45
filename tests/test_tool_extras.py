"""LIBLINEAR's -C (parameter search), -i (initial model) and -W (instance weights); LIBSVM's
-t 4 (precomputed kernel) and classification probability models (probA / probB; regression
and one-class -b 1 in test_libsvm_probability.py). Each through svmkit's
command line and its Python API, against liblinear-official and libsvm-official."""

from __future__ import annotations

import re

import numpy as np
import pytest
from liblinear import liblinearutil as official_ll
from libsvm import svmutil as official_svm
from references import write_libsvm_file
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.preprocessing import MinMaxScaler
from svmkit import cli, liblinearutil, svmutil


def _write_kernel(path, K, y):
    """LIBSVM's precomputed format: "label 0:serial 1:K(x, x_1) ... l:K(x, x_l)"."""
    with open(path, "w") as fh:
        for i, (row, yi) in enumerate(zip(K, y)):
            vals = " ".join(f"{j + 1}:{v:.17g}" for j, v in enumerate(row))
            fh.write(f"{yi:g} 0:{i + 1} {vals}\n")
    return str(path)


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("extras")
    X, y = load_breast_cancer(return_X_y=True)
    idx = np.random.default_rng(0).permutation(y.shape[0])[:240]
    X = MinMaxScaler((-1, 1)).fit_transform(X)[idx]
    y = np.where(y[idx] == 1, 1.0, -1.0)
    Xr, yr = load_diabetes(return_X_y=True)
    Xr = MinMaxScaler((-1, 1)).fit_transform(Xr)[:160]
    yr = (yr[:160] - yr.mean()) / yr.std()
    return {
        "X": X,
        "y": y,
        "train": write_libsvm_file(tmp / "train.txt", X[:160], y[:160]),
        "test": write_libsvm_file(tmp / "test.txt", X[160:], y[160:]),
        "rtrain": write_libsvm_file(tmp / "rtrain.txt", Xr, yr),
        "tmp": tmp,
    }


# -- LIBLINEAR -C ---------------------------------------------------------------------------


def _parse_best(text):
    m = re.search(r"Best C = (\S+)(?: Best p = (\S+))?  CV (accuracy|MSE) = ([^%\s]+)%?", text)
    assert m, text
    return float(m.group(1)), m.group(2), float(m.group(4))


@pytest.mark.parametrize("solver", ["0", "2"])
def test_liblinear_parameter_search_classification(data, capsys, solver):
    assert cli.main(["liblinear-train", "-q", "-C", "-s", solver, data["train"]]) == 0
    best_c, _, acc = _parse_best(capsys.readouterr().out)
    y, x = official_ll.svm_read_problem(data["train"])
    ref_c, ref_p, ref_score = official_ll.train(y, x, f"-C -s {solver} -q")
    capsys.readouterr()
    log2 = np.log2(best_c)
    assert log2 == np.round(log2) and best_c <= 1024  # on the power-of-two grid
    assert acc >= 100.0 * ref_score - 3.0  # folds differ: a small tolerance
    # the Python API returns (C, p, score as a fraction), as the official one does: plain
    # floats, and p = -1 for classification (it was -s 0/2's unused p, 0.1)
    c, p, score = liblinearutil.train(y, x, f"-C -s {solver} -q")
    assert (c, score) == (best_c, pytest.approx(acc / 100.0))
    assert p == ref_p == -1.0
    assert all(type(v) is float for v in (c, p, score))
    del ref_c


def test_liblinear_parameter_search_regression(data, capsys):
    y, x = official_ll.svm_read_problem(data["rtrain"])
    ref = official_ll.train(y, x, "-C -s 11 -p 0.2 -q")
    capsys.readouterr()
    assert cli.main(["liblinear-train", "-q", "-C", "-s", "11", "-p", "0.2", data["rtrain"]]) == 0
    best_c, best_p, mse = _parse_best(capsys.readouterr().out)
    assert float(best_p) == 0.2 and best_c <= 1024
    assert mse <= ref[2] * 1.1 + 1e-3
    # without -p both C and p are searched (p on a grid of max|y| / 20 steps)
    c, p, score = liblinearutil.train(y[:60], x[:60], "-C -s 11 -v 3 -q")
    assert 0 <= p < np.max(np.abs(y[:60])) and np.isfinite(score)


def test_liblinear_parameter_search_errors(data):
    with pytest.raises(ValueError, match="-C .* -s 0, 2 and 11 only"):
        liblinearutil.train([1, -1], [{1: 1}, {1: -1}], "-C -s 1")
    # without -s, -C searches for -s 2 (LIBLINEAR's default for -C)
    assert liblinearutil.parameter("-C").solver_type == 2
    assert liblinearutil.parameter("-C").nr_fold == 5


# -- LIBLINEAR -i and -W --------------------------------------------------------------------


@pytest.mark.parametrize("solver", ["0", "2", "11"])
def test_liblinear_initial_model(data, tmp_path, solver):
    train = data["rtrain"] if solver == "11" else data["train"]
    y, x = official_ll.svm_read_problem(train)
    opts = f"-s {solver} -e 1e-8 -q"
    init = str(tmp_path / "init.model")
    liblinearutil.save_model(init, liblinearutil.train(y, x, f"-s {solver} -c 0.1 -q"))
    ours = str(tmp_path / "ours.model")
    assert cli.main(["liblinear-train", *opts.split(), "-i", init, train, ours]) == 0
    ref = official_ll.train(y, x, opts)  # the optimum does not depend on the start
    w_ours = np.array(official_ll.load_model(ours).get_decfun()[0])
    w_ref = np.array(ref.get_decfun()[0])
    np.testing.assert_allclose(w_ours, w_ref, rtol=1e-3, atol=1e-4)


def test_liblinear_initial_model_multiclass_and_errors(tmp_path):
    X, y = load_iris(return_X_y=True)
    init = str(tmp_path / "init.model")
    liblinearutil.save_model(init, liblinearutil.train(y, X, "-s 0 -c 0.1 -q"))
    m = liblinearutil.train(y, X, f"-s 0 -e 1e-8 -q -i {init}")
    ref = official_ll.train(y, X, "-s 0 -e 1e-8 -q")
    for k in range(3):
        np.testing.assert_allclose(m.get_decfun(k)[0], ref.get_decfun(k)[0], rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError, match="-i .* -s 0, 2 and 11 only"):
        liblinearutil.parameter(f"-s 1 -i {init}")
    with pytest.raises(ValueError, match="-i model has 4 features, the data 3"):
        liblinearutil.train(y, X[:, :3], f"-s 0 -i {init}")
    with pytest.raises(ValueError, match="-i model's labels"):
        liblinearutil.train(y[y > 0], X[y > 0], f"-s 0 -i {init}")


@pytest.mark.parametrize("solver", ["0", "1", "2", "3", "11", "12"])
def test_liblinear_instance_weights(data, tmp_path, solver):
    """Integer weights equal repeating each instance that many times (the primal objective
    is the same), which the official package trains on."""
    regression = solver in ("11", "12")
    train = data["rtrain"] if regression else data["train"]
    y, x = official_ll.svm_read_problem(train)
    W = np.random.default_rng(1).integers(1, 4, size=len(y))
    wfile = tmp_path / "w.txt"
    wfile.write_text("\n".join(str(int(v)) for v in W) + "\n")
    ours = str(tmp_path / "w.model")
    opts = f"-s {solver} -c 0.5 -e 1e-8 -q"
    assert cli.main(["liblinear-train", *opts.split(), "-W", str(wfile), train, ours]) == 0
    rep = np.repeat(np.arange(len(y)), W)
    ref = official_ll.train([y[i] for i in rep], [x[i] for i in rep], opts)
    w_ours = np.array(official_ll.load_model(ours).get_decfun()[0])
    np.testing.assert_allclose(w_ours, ref.get_decfun()[0], rtol=2e-3, atol=2e-3)


def test_liblinear_instance_weights_one_class(data, tmp_path):
    """-s 21 with -W: integer weights equal repeated instances in the official package."""
    X = data["X"][:80] + 1.0
    x = [{j + 1: v for j, v in enumerate(r)} for r in X]
    W = np.random.default_rng(3).integers(1, 4, size=len(x))
    wfile = tmp_path / "w.txt"
    wfile.write_text("\n".join(str(int(v)) for v in W) + "\n")
    opts = "-s 21 -n 0.3 -e 1e-9 -q"
    m = liblinearutil.train([1.0] * len(x), x, f"{opts} -W {wfile}")
    rep = np.repeat(np.arange(len(x)), W)
    ref = official_ll.train([1.0] * len(rep), [x[i] for i in rep], opts)
    np.testing.assert_allclose(m.get_decfun()[0], ref.get_decfun()[0], rtol=1e-3, atol=1e-4)


def test_liblinear_weight_file_errors(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("1\nx\n")
    with pytest.raises(ValueError, match="not a list of numbers"):
        liblinearutil.parameter(f"-W {bad}")
    bad.write_text("1\n-2\n")
    with pytest.raises(ValueError, match="weights must be finite and >= 0"):
        liblinearutil.parameter(f"-W {bad}")
    bad.write_text("1\n2\n3\n")
    with pytest.raises(ValueError, match="-W gives 3 weights for 2 instances"):
        liblinearutil.train([1, -1], [{1: 1}, {1: -1}], f"-W {bad}")


# -- LIBSVM -t 4 ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["linear", "rbf"])
@pytest.mark.parametrize("svm_type", ["0", "3"])
def test_svm_precomputed_kernel(data, tmp_path, kind, svm_type):
    X, y = data["X"][:120], data["y"][:120]
    if svm_type == "3":
        y = X[:, 0] + 0.5 * X[:, 1]
    Xt = data["X"][120:180]
    kern = (
        (lambda A, B: A @ B.T)
        if kind == "linear"
        else (lambda A, B: np.exp(-0.2 * ((A[:, None] - B[None]) ** 2).sum(-1)))
    )
    train = _write_kernel(tmp_path / "k.train", kern(X, X), y)
    test = _write_kernel(tmp_path / "k.test", kern(Xt, X), np.zeros(len(Xt)))
    model, out = str(tmp_path / "k.model"), str(tmp_path / "k.out")
    opts = f"-s {svm_type} -t 4 -c 2 -e 1e-6 -q"
    assert cli.main(["svm-train", *opts.split(), train, model]) == 0
    assert cli.main(["svm-predict", "-q", test, model, out]) == 0
    ours = np.array([float(v) for v in open(out).read().split()])
    yt, xt = official_svm.svm_read_problem(train)
    ys, xs = official_svm.svm_read_problem(test)
    ref = official_svm.svm_train(yt, xt, opts)
    ref_labels, _, ref_vals = official_svm.svm_predict(ys, xs, ref, "-q")
    loaded, _, _ = official_svm.svm_predict(ys, xs, official_svm.svm_load_model(model), "-q")
    np.testing.assert_allclose(ours, loaded, rtol=1e-9, atol=1e-9)  # our file, their predict
    # the Python API on the same lists, and their decision values
    m = svmutil.svm_train(yt, xt, opts)
    labels, _, vals = svmutil.svm_predict(ys, xs, m, "-q")
    np.testing.assert_allclose(np.ravel(vals), np.ravel(ref_vals), rtol=1e-3, atol=1e-3)
    if svm_type == "0":
        clear = np.abs(np.ravel(ref_vals)) > 1e-2
        np.testing.assert_array_equal(np.array(labels)[clear], np.array(ref_labels)[clear])


def test_svm_precomputed_kernel_errors():
    with pytest.raises(ValueError, match="0:serial_number"):
        svmutil.svm_train([1, -1], [{1: 1.0, 2: 0.0}, {1: 0.0, 2: 1.0}], "-t 4")


# -- LIBSVM probability models ----------------------------------------------------------------


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("svm_type", ["0", "1"])
def test_svm_probability_model_files(tmp_path, capsys, n_classes, svm_type):
    X, y = load_iris(return_X_y=True)
    keep = y < n_classes
    X, y = MinMaxScaler((-1, 1)).fit_transform(X[keep]), y[keep] + 1.0
    order = np.random.default_rng(2).permutation(len(y))  # a label order that is not sorted
    X, y = X[order], y[order]
    train = write_libsvm_file(tmp_path / "p.train", X, y)
    model, out = str(tmp_path / "p.model"), str(tmp_path / "p.out")
    opts = f"-s {svm_type} -b 1 -n 0.3 -q"
    assert cli.main(["svm-train", *opts.split(), train, model]) == 0
    text = open(model).read()
    assert "\nprobA " in text and "\nprobB " in text
    assert cli.main(["svm-predict", "-b", "1", "-q", train, model, out]) == 0
    lines = open(out).read().splitlines()
    ours = np.array([[float(v) for v in ln.split()[1:]] for ln in lines[1:]])
    yt, xt = official_svm.svm_read_problem(train)
    official_file = model
    if n_classes == 3 and svm_type == "1":
        # libsvm-official 3.37's svm_predict crashes (SIGBUS) on a 3-class nu-SVC model. A
        # classifier's prediction reads only the SVs, coefficients, rho and probA/probB, never
        # nu, so the same file labelled c_svc is the same predictor for their tool.
        official_file = str(tmp_path / "p_as_c_svc.model")
        with open(official_file, "w") as f:
            f.write(text.replace("svm_type nu_svc", "svm_type c_svc"))
    theirs_m = official_svm.svm_load_model(official_file)
    assert theirs_m.is_probability_model()
    _, _, theirs = official_svm.svm_predict(yt, xt, theirs_m, "-b 1 -q")
    np.testing.assert_allclose(ours, np.array(theirs), rtol=0, atol=1e-6)
    assert lines[0].split()[1:] == [f"{v:g}" for v in theirs_m.get_labels()]
    # the Python API: the same file read back predicts the same probabilities
    m = svmutil.svm_load_model(model)
    assert m.is_probability_model()
    _, _, p = svmutil.svm_predict(yt, xt, m, "-b 1 -q")
    np.testing.assert_allclose(p, theirs, rtol=0, atol=1e-6)


def test_svm_official_probability_model_is_read(tmp_path):
    X, y = load_iris(return_X_y=True)
    X = MinMaxScaler((-1, 1)).fit_transform(X)
    xs = [{j + 1: v for j, v in enumerate(r)} for r in X]
    ref = official_svm.svm_train(list(y), xs, "-b 1 -q")
    path = str(tmp_path / "official.model")
    official_svm.svm_save_model(path, ref)
    _, _, theirs = official_svm.svm_predict(list(y), xs, ref, "-b 1 -q")
    _, _, ours = svmutil.svm_predict(list(y), xs, svmutil.svm_load_model(path), "-b 1 -q")
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-6)


def test_svm_probability_file_errors(tmp_path):
    X, y = load_iris(return_X_y=True)
    m = svmutil.svm_train(list(y), X, "-b 1 -q")
    path = tmp_path / "m.model"
    svmutil.svm_save_model(str(path), m)
    text = path.read_text()
    path.write_text(re.sub(r"probB[^\n]*\n", "", text))
    with pytest.raises(ValueError, match="needs both probA and probB"):
        svmutil.svm_load_model(str(path))
    path.write_text(re.sub(r"probA [^\n]*\n", "probA 1 2\n", text))
    with pytest.raises(ValueError, match="probA / probB need 3 values"):
        svmutil.svm_load_model(str(path))
