"""Malformed LIBLINEAR / LIBSVM model files found by tools/fuzz_loaders.py: each is refused
with a ValueError naming the problem (no IndexError, OverflowError, UnicodeDecodeError or
MemoryError), and a huge declared count is checked against the file before it sizes anything.
Single-label models written by liblinear-official / libsvm-official are refused cleanly too."""

from __future__ import annotations

import numpy as np
import pytest
from svmkit import _foreign_models as fm

LIBLINEAR = """solver_type L2R_L2LOSS_SVC
nr_class 2
label 1 -1
nr_feature 2
bias -1
w
0.5
-0.25
"""

LIBSVM = """svm_type c_svc
kernel_type rbf
gamma 0.5
nr_class 2
total_sv 2
rho 0.1
label 1 -1
nr_sv 1 1
SV
1 1:0.5 2:1
-1 1:-0.5 2:0.25
"""


def _write(tmp_path, text: str | bytes):
    path = tmp_path / "m.model"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


def test_unmodified_files_load_and_predict(tmp_path) -> None:
    X = np.array([[1.0, 0.0], [-1.0, 0.0]])
    est = fm.load_liblinear_model(_write(tmp_path, LIBLINEAR))
    assert est.predict(X).tolist() == [1, -1]
    est = fm.load_libsvm_model(_write(tmp_path, LIBSVM))
    assert est.predict(X).shape == (2,)


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("label 1 -1", "label inf -1", "label 'inf' is not finite"),
        ("label 1 -1", "label 1 1", "repeated label"),
        ("nr_feature 2", "nr_feature -1", "nr_feature -1 is below 0"),
        ("nr_feature 2", "nr_feature 2.5", "nr_feature '2.5' is not an integer"),
        ("nr_class 2", "nr_class 0", "nr_class 0 is below 1"),
        ("nr_feature 2", "nr_feature 4000000000", "2 weight rows, expected 4000000000"),
        ("bias -1\n", "bias -1\nrho\n", None),  # an empty rho line on a classifier is ignored
    ],
)
def test_malformed_liblinear_model_is_a_value_error(tmp_path, old, new, message) -> None:
    path = _write(tmp_path, LIBLINEAR.replace(old, new))
    if message is None:
        fm.load_liblinear_model(path)
        return
    with pytest.raises(ValueError, match=message) as info:
        fm.load_liblinear_model(path)
    assert type(info.value) is ValueError


def test_liblinear_empty_model_is_refused_not_an_index_error(tmp_path) -> None:
    text = "solver_type L2R_L2LOSS_SVC\nnr_class 3\nlabel 1 2 3\nnr_feature 0\nbias -1\nw\n"
    m = fm.read_liblinear_model(_write(tmp_path, text))  # nothing to read: a 0 x 3 model
    assert m.w.shape == (0, 3)


def test_non_ascii_model_file_is_a_value_error(tmp_path) -> None:
    for text, reader in ((LIBLINEAR, fm.read_liblinear_model), (LIBSVM, fm.read_libsvm_model)):
        path = _write(tmp_path, text.encode().replace(b"0.5", b"0\xff5"))
        with pytest.raises(ValueError, match="not a text model file") as info:
            reader(path)
        assert not isinstance(info.value, UnicodeError)


def test_single_label_models_from_the_official_tools_are_refused(tmp_path) -> None:
    """As svmkit estimators (a classifier needs two classes); svmkit.liblinearutil and
    svmkit.svmutil read them (test_liblinearutil.py)."""
    from liblinear import liblinearutil  # test-extra dependencies: no skip
    from libsvm import svmutil

    X = np.random.RandomState(0).randn(8, 3)
    y = np.ones(8)
    path = str(tmp_path / "one.model")
    liblinearutil.save_model(path, liblinearutil.train(y, X, "-s 2 -q"))
    with pytest.raises(ValueError, match="trained on a single label"):
        fm.load_liblinear_model(path)
    svmutil.svm_save_model(path, svmutil.svm_train(y, X, "-s 0 -q"))
    with pytest.raises(ValueError, match="trained on a single label"):
        fm.load_libsvm_model(path)


@pytest.mark.parametrize(
    "old, new, message",
    [
        # a huge count is checked against the file before it sizes an array
        ("total_sv 2", "total_sv 4000000000", "2 support vectors, total_sv says 4000000000"),
        ("nr_class 2", "nr_class 4000000000", "malformed support vector line 1"),
        ("total_sv 2", "total_sv -1", "total_sv -1 is below 0"),
        ("nr_class 2", "nr_class x", "nr_class 'x' is not an integer"),
        ("svm_type c_svc", "svm_type", "without 'svm_type'"),
        ("label 1 -1", "label 1 1", "repeated label"),
        ("label 1 -1", "label -inf 1", "label '-inf' is not finite"),
        ("label 1 -1\n", "", "'label' has 0 values, expected 2"),
        ("nr_sv 1 1", "nr_sv 1", "'nr_sv' has 1 values, expected 2"),
        ("nr_sv 1 1", "nr_sv 3 -1", "do not add up to total_sv 2"),
        ("nr_sv 1 1", "nr_sv 1 x", "are not integers"),
        ("rho 0.1", "rho 0.1 0.2", "'rho' has 2 values, expected 1"),
        ("rho 0.1", "rho x", "malformed kernel parameter or rho"),
        ("gamma 0.5", "gamma 0.5x", "malformed kernel parameter or rho"),
        ("1:0.5 2:1", "0:0.5 2:1", "feature index out of range on support vector line 1"),
        ("1:0.5 2:1", "1:0.5 4294967296:1", "feature index out of range"),
        ("1:0.5 2:1", "1:0.5 2", "malformed support vector line 1"),
        # before: RuntimeError from pybind11 casting the degree to the core's int
        ("kernel_type rbf", "kernel_type polynomial\ndegree 18446744073709551616", "degree .* out"),
        ("kernel_type rbf", "kernel_type polynomial\ndegree -1", "degree -1 out of range"),
    ],
)
def test_malformed_libsvm_model_is_a_value_error(tmp_path, old, new, message) -> None:
    path = _write(tmp_path, LIBSVM.replace(old, new, 1))
    with pytest.raises(ValueError, match=message) as info:
        fm.load_libsvm_model(path)
    assert type(info.value) is ValueError


def test_libsvm_regression_model_needs_one_rho(tmp_path) -> None:
    text = LIBSVM.replace("c_svc", "epsilon_svr").replace("rho 0.1", "rho 0.1 0.2")
    with pytest.raises(ValueError, match="epsilon_svr model with 2 rho values, not 1"):
        fm.load_libsvm_model(_write(tmp_path, text))


def test_scale_file_whose_ranges_cannot_be_allocated_is_a_scale_error(monkeypatch) -> None:
    from svmkit import _scale

    zeros = np.zeros

    def no_memory(n):
        if n > 10**6:
            raise MemoryError
        return zeros(n)

    # Where the system refuses 2 x 16 GiB for index 2^31 - 1: the reader's own error, named.
    monkeypatch.setattr(_scale.np, "zeros", no_memory)
    with pytest.raises(_scale.ScaleError, match="feature index 2147483647 is too large"):
        _scale.read_params(["x", "-1 1", "2147483647 0 1"], "r.txt")
