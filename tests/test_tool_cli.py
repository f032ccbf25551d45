"""`svmkit liblinear-train/-predict` and `svmkit svm-train/-predict`: LIBLINEAR's and LIBSVM's
command lines. Each option is run through svmkit's command and through the official package
with the same option string; the model file svmkit writes is loaded by the official package,
whose predictions must equal those of the model it trained itself (away from near-ties)."""

from __future__ import annotations

import numpy as np
import pytest
from liblinear import liblinearutil as official_ll
from libsvm import svmutil as official_svm
from references import seed_c_rand, write_libsvm_file
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.preprocessing import MinMaxScaler
from svmkit import cli
from svmkit import liblinearutil as svmkit_ll
from svmkit import svmutil as svmkit_svm


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("tools")
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    idx = rng.permutation(y.shape[0])[:300]
    X = MinMaxScaler((-1, 1)).fit_transform(X)[idx]
    y = np.where(y[idx] == 1, 1.0, -1.0)
    Xr, yr = load_diabetes(return_X_y=True)
    Xr = MinMaxScaler((-1, 1)).fit_transform(Xr)[:300]
    yr = (yr[:300] - yr.mean()) / yr.std()
    return {
        "train": write_libsvm_file(tmp / "train.txt", X[:200], y[:200]),
        "test": write_libsvm_file(tmp / "test.txt", X[200:], y[200:]),
        "rtrain": write_libsvm_file(tmp / "rtrain.txt", Xr[:200], yr[:200]),
        "rtest": write_libsvm_file(tmp / "rtest.txt", Xr[200:], yr[200:]),
        "tmp": tmp,
    }


def _agree(ours, theirs, values, margin):
    """Equal labels wherever the reference decision is not a near-tie."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    v = np.abs(np.asarray(values, dtype=float)).reshape(len(theirs), -1).min(axis=1)
    clear = v > margin
    assert clear.mean() > 0.9
    np.testing.assert_array_equal(ours[clear], theirs[clear])


def _files(files, regression):
    return (files["rtrain"], files["rtest"]) if regression else (files["train"], files["test"])


LIBLINEAR_CASES = [
    ("-s 0 -c 2 -e 1e-6", False),
    ("-s 1 -e 1e-6", False),
    ("-s 2 -c 4 -e 1e-6", False),
    ("-s 3 -c 0.5 -e 1e-6", False),
    ("-s 4 -e 1e-6", False),
    ("-s 5 -c 0.1 -e 1e-6", False),
    ("-s 7 -e 1e-6", False),
    ("-s 2 -B 1 -e 1e-6", False),
    ("-s 2 -B 1 -R -e 1e-6", False),
    ("-s 6 -B 1 -R -e 1e-6", False),
    ("-s 1 -w1 2 -w-1 0.5 -e 1e-6", False),
    ("-s 21 -n 0.2 -e 1e-6", False),
    ("-s 11 -p 0.1 -e 1e-6", True),
    ("-s 12 -p 0.1 -e 1e-6", True),
    ("-s 13 -p 0.1 -e 1e-6", True),
]


def test_liblinear_cross_validation_and_probabilities(files, capsys):
    assert cli.main(["liblinear-train", "-s", "0", "-v", "5", files["train"]]) == 0
    assert "Cross Validation Accuracy = " in capsys.readouterr().out
    model = str(files["tmp"] / "lr.model")
    out = str(files["tmp"] / "lr.out")
    assert cli.main(["liblinear-train", "-q", "-s", "0", files["train"], model]) == 0
    assert cli.main(["liblinear-predict", "-b", "1", files["test"], model, out]) == 0
    assert "Accuracy = " in capsys.readouterr().out
    lines = open(out).read().splitlines()
    assert lines[0].split()[0] == "labels"
    probs = np.array([[float(v) for v in ln.split()[1:]] for ln in lines[1:]])
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, atol=1e-5)


def test_liblinear_train_default_model_name(files, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert cli.main(["liblinear-train", "-q", files["train"]]) == 0
    assert (tmp_path / "train.txt.model").exists()


LIBSVM_CASES = [
    ("-s 0 -t 2 -c 2 -g 0.5", False),
    ("-s 0 -t 0 -c 0.5", False),
    ("-s 0 -t 1 -d 2 -r 1 -g 0.1", False),
    ("-s 0 -t 3 -g 0.05 -r -0.5", False),
    ("-s 0 -t 2 -m 1 -h 0", False),
    ("-s 0 -t 2 -w1 3 -w-1 0.5", False),
    ("-s 1 -n 0.3 -t 2", False),
    ("-s 2 -n 0.2 -t 2", False),
    ("-s 3 -p 0.2 -t 2 -c 2", True),
    ("-s 4 -n 0.4 -t 2 -c 2", True),
]


# (tool, train command, predict command, official train, official predict, official load)
_TOOLS = {
    "liblinear": (
        "liblinear-train",
        "liblinear-predict",
        official_ll.train,
        official_ll.predict,
        official_ll.load_model,
    ),
    "libsvm": (
        "svm-train",
        "svm-predict",
        official_svm.svm_train,
        official_svm.svm_predict,
        official_svm.svm_load_model,
    ),
}
TOOL_CASES = [("liblinear", o, r) for o, r in LIBLINEAR_CASES] + [
    ("libsvm", o + " -e 1e-6", r) for o, r in LIBSVM_CASES
]


@pytest.mark.parametrize(
    "tool, options, regression", TOOL_CASES, ids=[f"{t} {o}" for t, o, _ in TOOL_CASES]
)
def test_tool_train_and_predict(files, capsys, tool, options, regression):
    train_cmd, predict_cmd, their_train, their_predict, their_load = _TOOLS[tool]
    train, test = _files(files, regression)
    ours = str(files["tmp"] / f"ours.{tool}.model")
    out = str(files["tmp"] / f"ours.{tool}.out")
    assert cli.main([train_cmd, "-q", *options.split(), train, ours]) == 0
    assert cli.main([predict_cmd, "-q", test, ours, out]) == 0
    our_labels = [float(v) for v in open(out).read().split()]
    y, x = official_ll.svm_read_problem(test)
    yt, xt = official_ll.svm_read_problem(train)
    # LIBLINEAR's dual solvers order their coordinates by the C library's rand() and may stop
    # at their iteration cap before -e is met: seed it, so the reference does not depend on
    # what the tests before this one drew.
    seed_c_rand(1)
    ref = their_train(yt, xt, options + " -q")
    ref_labels, _, ref_vals = their_predict(y, x, ref, "-q")
    # the official package reads svmkit's model file and predicts as the CLI did
    loaded_labels, _, _ = their_predict(y, x, their_load(ours), "-q")
    np.testing.assert_allclose(our_labels, loaded_labels, rtol=1e-9, atol=1e-12)
    if regression:  # the official solvers may stop at their own iteration caps first
        np.testing.assert_allclose(our_labels, ref_labels, rtol=0, atol=2e-2)
    else:
        _agree(our_labels, ref_labels, ref_vals, 1e-2)


def test_svm_cross_validation(files, capsys):
    assert cli.main(["svm-train", "-v", "4", files["train"]]) == 0
    assert "Cross Validation Accuracy = " in capsys.readouterr().out
    assert cli.main(["svm-train", "-s", "3", "-v", "4", files["rtrain"]]) == 0
    assert "Cross Validation Mean squared error = " in capsys.readouterr().out


def _cv_lines(text: str) -> list[str]:
    return [ln.split(" = ")[0] for ln in text.splitlines() if ln.startswith("Cross Validation")]


@pytest.mark.parametrize(
    "ours, theirs, options, regression",
    [
        (svmkit_ll.train, official_ll.train, "-s 2 -v 4 -q", False),
        (svmkit_ll.train, official_ll.train, "-s 11 -v 4 -q", True),
        (svmkit_svm.svm_train, official_svm.svm_train, "-v 4 -q", False),
        (svmkit_svm.svm_train, official_svm.svm_train, "-s 3 -v 4 -q", True),
    ],
)
def test_cross_validation_lines_are_the_official_packages(
    files, capsys, ours, theirs, options, regression
):
    """-v prints its figure whatever -q says, and regression prints the MSE and the squared
    correlation coefficient: the same lines as the official packages."""
    y, x = svmkit_ll.svm_read_problem(files["rtrain"] if regression else files["train"])
    seed_c_rand(1)
    theirs(y, x, options)
    want = _cv_lines(capsys.readouterr().out)
    ours(y, x, options)
    got = _cv_lines(capsys.readouterr().out)
    assert want == (
        ["Cross Validation Mean squared error", "Cross Validation Squared correlation coefficient"]
        if regression
        else ["Cross Validation Accuracy"]
    )
    assert got == want


@pytest.mark.parametrize("command", ["liblinear-train", "svm-train"])
def test_more_folds_than_data_is_leave_one_out(files, capsys, command):
    """As LIBLINEAR's and LIBSVM's cross_validation: n folds for fewer than n rows warn and
    run leave-one-out, instead of failing on an empty fold."""
    X, y = load_breast_cancer(return_X_y=True)
    X = MinMaxScaler().fit_transform(X)
    rows = np.r_[np.flatnonzero(y == 0)[:3], np.flatnonzero(y == 1)[:3]]
    path = write_libsvm_file(files["tmp"] / "six.txt", X[rows], np.where(y[rows] == 1, 1.0, -1.0))
    assert cli.main([command, "-q", "-v", "10", path]) == 0
    out = capsys.readouterr()
    assert "WARNING: # folds > # data. Will use # folds = # data instead" in out.err
    acc = float(out.out.split("Cross Validation Accuracy = ")[1].split("%")[0])
    assert 0.0 <= acc <= 100.0
    # leave-one-out: every row held out once, so the accuracy is a multiple of 1/6
    assert abs(acc * 6 / 100.0 - round(acc * 6 / 100.0)) < 1e-9


@pytest.mark.parametrize(
    "argv, message",
    [
        (["liblinear-train", "-s", "9", "{train}"], "-s"),
        (["liblinear-train", "-c"], "needs a value"),
        (["liblinear-train", "-q"], "expected 1 or 2 file names"),
        (["liblinear-predict", "{test}", "m"], "expected 3 file names"),
        (["svm-train", "-t", "7", "{train}"], "-t"),
        (["svm-train", "-x", "1", "{train}"], "unknown option -x"),
        (["svm-predict", "-b", "1", "{test}", "{nomodel}", "o"], "No such file"),
        # an unknown option does not take the next word (a file name) as its value
        (["liblinear-predict", "-x", "{test}", "m", "o"], "unknown option -x"),
        (["liblinear-train", "-w1"], "needs a value"),
        (["liblinear-predict", "-w1", "2", "{test}", "m", "o"], "unknown option -w1"),
        (["liblinear-predict", "-b", "yes", "{test}", "{llmodel}", "o"], "bad value 'yes' for -b"),
        # LIBSVM's svm_check_parameter: -h and -b are 0 or 1
        (["svm-train", "-h", "2", "{train}"], "-h must be 0 or 1"),
        (["svm-train", "-b", "2", "{train}"], "-b must be 0 or 1"),
    ],
)
def test_tool_errors_are_clear(files, capsys, argv, message):
    llmodel = str(files["tmp"] / "errors_lr.model")
    assert cli.main(["liblinear-train", "-q", "-s", "0", files["train"], llmodel]) == 0
    argv = [
        a.format(
            train=files["train"],
            test=files["test"],
            nomodel=str(files["tmp"] / "none"),
            llmodel=llmodel,
        )
        for a in argv
    ]
    assert cli.main(argv) == 1
    assert message in capsys.readouterr().err


@pytest.mark.parametrize(
    "command", ["liblinear-train", "liblinear-predict", "svm-train", "svm-predict"]
)
def test_tool_usage(capsys, command):
    """As the tools: --help prints the option list (status 0); no arguments print it to
    stderr with status 1."""
    assert cli.main([command, "--help"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"Usage: svmkit {command} [options]")
    assert "-q : quiet mode" in out
    assert ("-b probability_estimates" if "predict" in command else "-v n : n-fold") in out
    assert cli.main([command]) == 1
    assert capsys.readouterr().err.startswith(f"Usage: svmkit {command}")


def test_svm_train_usage_shows_the_parsers_defaults(capsys):
    from svmkit.liblinearutil import parameter
    from svmkit.svmutil import svm_parameter

    cli.main(["svm-train", "--help"])
    out = capsys.readouterr().out
    sv = svm_parameter()
    assert f"-m cachesize : kernel cache in MB (default {sv.cache_size:g})" in out
    assert f"-e epsilon : the stopping tolerance (default {sv.eps:g})" in out
    cli.main(["liblinear-train", "--help"])
    assert f"default {parameter().solver_type})" in capsys.readouterr().out


def test_liblinear_predict_b_nonzero_asks_for_probabilities(files, capsys):
    """predict.c reads -b with atoi and tests it for nonzero: -b 2 is -b 1."""
    model = str(files["tmp"] / "b2_lr.model")
    out = str(files["tmp"] / "b2.out")
    assert cli.main(["liblinear-train", "-q", "-s", "0", files["train"], model]) == 0
    assert cli.main(["liblinear-predict", "-b", "2", files["test"], model, out]) == 0
    capsys.readouterr()
    assert open(out).readline().split()[0] == "labels"


def test_tool_file_errors_name_the_file(files, capsys):
    """An empty data file is named; predict opens its output file before it predicts (no
    accuracy line before the error, as the C tools); svmkit's own predict on a LIBLINEAR model
    file names the file and the command that reads it."""
    empty = files["tmp"] / "empty.txt"
    empty.write_text("")
    assert cli.main(["liblinear-train", str(empty)]) == 1
    assert f"data file {empty} holds no instances" in capsys.readouterr().err
    model = str(files["tmp"] / "fe.model")
    assert cli.main(["liblinear-train", "-q", files["train"], model]) == 0
    bad_out = str(files["tmp"] / "no_such_dir" / "out.txt")
    assert cli.main(["liblinear-predict", files["test"], model, bad_out]) == 1
    captured = capsys.readouterr()
    assert "cannot open output file" in captured.err and "Accuracy" not in captured.out
    assert cli.main(["predict", files["test"], model, str(files["tmp"] / "o.txt")]) == 1
    err = capsys.readouterr().err
    assert model in err and "use liblinear-predict or svm-predict" in err
    assert cli.main(["svm-train", "-c", "abc", str(empty)]) == 1  # the option, not the file
    assert "bad value 'abc' for -c" in capsys.readouterr().err


def test_warnings_are_one_line_on_the_command_line(files, capsys):
    """A solver's warning reads 'svmkit: warning: ...' on stderr, not Python's warning with a
    source file and line (LIBLINEAR prints its own one-line WARNING)."""
    model = str(files["tmp"] / "warn.model")
    assert cli.main(["liblinear-train", "-s", "3", "-e", "1e-15", files["train"], model]) == 0
    err = capsys.readouterr().err
    assert "svmkit: warning: LinearSVC (dual_cd) did not converge" in err
    assert "ConvergenceWarning" not in err and ".py:" not in err
