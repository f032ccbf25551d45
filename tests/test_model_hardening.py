"""Model files and the LIBSVM reader against corrupt, hostile and foreign-locale input.

Each corruption below loaded silently (or crashed, or allocated gigabytes, or raised a stray
exception type) before the loaders checked structure, sizes and the checksum line.
"""

from __future__ import annotations

import io
import os
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from sklearn.datasets import load_iris
from svmkit._core import FormatError
from svmkit.datasets import load_svmlight_file

X, Y = load_iris(return_X_y=True)


def _saved(tmp_path, est, strip_checksum=True) -> tuple:
    """A model file's lines (without its optional checksum, so that edits meet the checks)."""
    path = tmp_path / "m.model"
    svmkit.save_model(est, path)
    lines = path.read_text().splitlines()
    if strip_checksum:
        lines = [t for t in lines if not t.startswith("checksum ")]
    return path, lines


def _write(path, lines) -> None:
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def kernel_model():
    return svmkit.SVC().fit(X, Y)


@pytest.fixture(scope="module")
def linear_model():
    return svmkit.LinearSVC().fit(X, Y)


def test_format_error_is_a_value_error() -> None:
    assert issubclass(FormatError, ValueError)


@pytest.mark.parametrize("which", ["kernel", "linear"])
@pytest.mark.parametrize(
    "labels,match",
    [
        ("classes 3 0 0 2", "class labels must be distinct and sorted increasingly"),
        ("classes 3 0 2 1", "class labels must be distinct and sorted increasingly"),
    ],
)
def test_duplicate_or_unsorted_labels_are_refused(
    tmp_path, kernel_model, linear_model, which, labels, match
) -> None:
    est = kernel_model if which == "kernel" else linear_model
    path, lines = _saved(tmp_path, est)
    lines = [labels if t.startswith("classes ") else t for t in lines]
    _write(path, lines)
    with pytest.raises(FormatError, match=r"line \d+: " + match):
        svmkit.load_model(path)


@pytest.mark.parametrize("key", ["kernel", "gamma", "coef0", "degree", "n_support", "storage"])
def test_deleted_kernel_lines_are_refused(tmp_path, kernel_model, key) -> None:
    path, lines = _saved(tmp_path, kernel_model)
    _write(path, [t for t in lines if not t.startswith(key + " ")])
    with pytest.raises(FormatError, match=f"missing required key '{key}'|before '{key}'"):
        svmkit.load_model(path)


@pytest.mark.parametrize("key", ["kind", "classes", "n_rows", "intercept"])
def test_deleted_linear_lines_are_refused(tmp_path, linear_model, key) -> None:
    path, lines = _saved(tmp_path, linear_model)
    _write(path, [t for t in lines if not t.startswith(key + " ")])
    with pytest.raises(FormatError, match=f"missing required key '{key}'|before '{key}'"):
        svmkit.load_model(path)


def test_duplicate_key_is_refused(tmp_path, kernel_model) -> None:
    path, lines = _saved(tmp_path, kernel_model)
    _write(path, lines[:6] + ["gamma 7"] + lines[6:])
    with pytest.raises(FormatError, match="line 8: duplicate key 'gamma'"):
        svmkit.load_model(path)


@pytest.mark.parametrize(
    "line,match",
    [
        ("degree 4294967299", r"degree '4294967299' is out of range \[0, 2147483647\]"),
        ("degree 3.0", "degree '3.0' is not an integer"),
        ("n_sv 1e300", "n_sv '1e300' is not an integer"),
        ("n_features 99999999999999999999999", "n_features '9999.*' is out of range"),
    ],
)
def test_overflowing_integers_are_refused(tmp_path, kernel_model, line, match) -> None:
    path, lines = _saved(tmp_path, kernel_model)
    key = line.split()[0]
    _write(path, [line if t.startswith(key + " ") else t for t in lines])
    with pytest.raises(FormatError, match=r"line \d+: " + match):
        svmkit.load_model(path)


@pytest.mark.parametrize("which", ["kernel", "linear"])
def test_huge_label_keeps_its_value(tmp_path, which) -> None:
    # 1e300 is integral as a float; it used to be cast to int64 and became -2**63.
    est = (svmkit.SVC() if which == "kernel" else svmkit.LinearSVC()).fit(X[:100], Y[:100])
    path, lines = _saved(tmp_path, est)
    _write(path, ["classes 2 0 1e300" if t.startswith("classes") else t for t in lines])
    back = svmkit.load_model(path)
    assert back.classes_.dtype == np.float64 and back.classes_.tolist() == [0.0, 1e300]
    np.testing.assert_array_equal(back.predict(X[:100]), np.where(Y[:100] == 1, 1e300, 0.0))


def test_huge_declared_size_is_refused_before_allocating(tmp_path) -> None:
    text = textwrap.dedent(
        """\
        svmkit_model 1
        kind linear
        task classification
        solver tron
        loss squared_hinge
        n_features 4000000000
        classes 2 0 1
        intercept_scaling 1
        n_rows 1
        intercept 0.5
        coef
        1 2 3
        end
        """
    )
    assert len(text) < 300
    path = tmp_path / "m.model"
    path.write_text(text)
    with pytest.raises(FormatError, match="line 11: coef declares 4000000000 values but only 10"):
        svmkit.load_model(path)


def test_size_product_overflow_is_refused(tmp_path, linear_model) -> None:
    # n_rows * n_features overflows int64 (signed overflow before the fix).
    path, lines = _saved(tmp_path, linear_model)
    lines = ["n_rows 4611686018427387" if t.startswith("n_rows") else t for t in lines]
    lines = ["n_features 4611686018427387" if t.startswith("n_features") else t for t in lines]
    _write(path, lines)
    with pytest.raises(
        FormatError, match=r"coef \(4611686018427387 x 4611686018427387\) is larger than"
    ):
        svmkit.load_model(path)


def test_kernel_dense_sv_size_is_checked(tmp_path, kernel_model) -> None:
    path, lines = _saved(tmp_path, kernel_model)
    _write(path, ["n_features 4000000000" if t.startswith("n_features") else t for t in lines])
    with pytest.raises(FormatError, match="sv declares 240000000000 values but only"):
        svmkit.load_model(path)


def test_checksum_catches_an_edit_that_still_parses(tmp_path, linear_model) -> None:
    path, lines = _saved(tmp_path, linear_model, strip_checksum=False)
    assert lines[-1].startswith("checksum fnv1a64 ")
    i = lines.index("coef") + 1
    lines[i] = "9" + lines[i][1:]  # a changed digit: structurally fine
    _write(path, lines)
    with pytest.raises(FormatError, match=f"line {len(lines)}: checksum mismatch"):
        svmkit.load_model(path)


def test_file_without_checksum_still_loads(tmp_path, linear_model, kernel_model) -> None:
    for est in (linear_model, kernel_model):
        path, lines = _saved(tmp_path, est)
        _write(path, lines)
        np.testing.assert_array_equal(svmkit.load_model(path).predict(X), est.predict(X))


def test_checksum_survives_crlf(tmp_path, kernel_model) -> None:
    path, lines = _saved(tmp_path, kernel_model, strip_checksum=False)
    path.write_bytes(("\r\n".join(lines) + "\r\n").encode())
    np.testing.assert_array_equal(svmkit.load_model(path).predict(X), kernel_model.predict(X))


def test_content_after_end_is_refused(tmp_path, linear_model) -> None:
    path, lines = _saved(tmp_path, linear_model)
    _write(path, lines + ["n_rows 2"])
    with pytest.raises(FormatError, match="content after 'end'"):
        svmkit.load_model(path)


def test_sparse_model_with_an_empty_support_vector_round_trips(tmp_path) -> None:
    # The origin is a support vector: its sparse line in 'sv' is blank (it was skipped).
    Xd = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [-1.0, -1.0], [-2.0, -2.0]])
    Xs = sp.csr_matrix(Xd)
    y = np.array([1, 1, 1, 0, 0])
    est = svmkit.SVC(kernel="linear", C=10.0).fit(Xs, y)
    assert (np.diff(est.support_vectors_.indptr) == 0).any()
    path = tmp_path / "m.model"
    svmkit.save_model(est, path)
    back = svmkit.load_model(path)
    np.testing.assert_allclose(back.decision_function(Xs), est.decision_function(Xs))


def test_sparse_column_order_is_checked(tmp_path) -> None:
    Xs = sp.csr_matrix(X)
    est = svmkit.SVR().fit(Xs, X[:, 0])
    path, lines = _saved(tmp_path, est)
    i = lines.index("sv") + 1
    lines[i] = "1:0.5 0:0.25"
    _write(path, lines)
    with pytest.raises(FormatError, match="sparse column indices must increase strictly"):
        svmkit.load_model(path)


# ------------------------------------------------------------------------------------------
# Locale: files are written and read the same under any LC_NUMERIC.

_LOCALE_SCRIPT = r"""
import io, locale, os, sys, tempfile
import numpy as np
from sklearn.datasets import load_iris
import svmkit
from svmkit.datasets import load_svmlight_file
locale.setlocale(locale.LC_ALL, sys.argv[1])
assert locale.localeconv()["decimal_point"] == ",", locale.localeconv()["decimal_point"]
X, y = load_iris(return_X_y=True)
d = tempfile.mkdtemp()
for est in (svmkit.LinearSVC(), svmkit.SVC()):
    est.fit(X, y)
    path = os.path.join(d, "m.model")
    svmkit.save_model(est, path)
    text = open(path).read()
    assert "," not in text, text[:200]
    back = svmkit.load_model(path)
    np.testing.assert_array_equal(back.predict(X), est.predict(X))
Xr, yr = load_svmlight_file(io.BytesIO(b"1.5 1:0.25 2:1.5e999 3:-2.5e-999\n"))
assert yr.tolist() == [1.5], yr
assert Xr.toarray().tolist() == [[0.25, float("inf"), -0.0]], Xr.toarray()
p = os.path.join(d, "x.svm")
open(p, "wb").write(b"-0.5 1:0.125 2:3.75\n")
Xf, yf = load_svmlight_file(p)
assert yf.tolist() == [-0.5] and Xf.toarray().tolist() == [[0.125, 3.75]]
print("ok")
"""


def _comma_locale(tmp_path) -> tuple[str, dict] | None:
    """A locale with a comma decimal point: installed, or compiled with localedef."""
    env = dict(os.environ)
    probe = "import locale,sys; locale.setlocale(locale.LC_ALL, sys.argv[1])"
    for name in ("de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "de_DE"):
        if subprocess.run([sys.executable, "-c", probe, name], env=env).returncode == 0:
            return name, env
    if shutil.which("localedef"):
        out = tmp_path / "locales"
        out.mkdir()
        res = subprocess.run(
            ["localedef", "-i", "de_DE", "-f", "UTF-8", str(out / "de_DE.UTF-8")],
            capture_output=True,
        )
        env["LOCPATH"] = str(out)
        ok = subprocess.run([sys.executable, "-c", probe, "de_DE.UTF-8"], env=env).returncode
        if res.returncode in (0, 1) and ok == 0:
            return "de_DE.UTF-8", env
    return None


def test_model_files_and_reader_under_a_comma_locale(tmp_path) -> None:
    found = _comma_locale(tmp_path)
    if found is None:
        pytest.skip(
            "no locale with a comma decimal point is installed and localedef cannot make one"
        )
    name, env = found
    res = subprocess.run(
        [sys.executable, "-c", _LOCALE_SCRIPT, name], env=env, capture_output=True, text=True
    )
    assert res.returncode == 0 and res.stdout.strip() == "ok", res.stderr[-2000:]


# ------------------------------------------------------------------------------------------
# The LIBSVM reader: every malformed input gives its FormatError naming the line.


@pytest.mark.parametrize("stream", [False, True])
@pytest.mark.parametrize(
    "data,zero_based,match",
    [
        (b"1 1:1\n1 1:\xff\n", "auto", r"line 2: feature value '\\xff' is not a number"),
        (b"\xfe\xff 1:2\n", "auto", r"line 1: label '\\xfe\\xff' is not a number"),
        (b"1 1:1\n1 9223372036854775807:1\n", True, "line 2: feature index 9223372036854775807"),
        (b"1 9223372036854775807:1\n", "auto", "line 1: feature index 9223372036854775807 is too"),
    ],
)
def test_reader_errors_name_the_line(tmp_path, data, zero_based, match, stream) -> None:
    src = io.BytesIO(data)
    if not stream:
        src = tmp_path / "x.svm"
        src.write_bytes(data)
    with pytest.raises(FormatError, match=match):
        load_svmlight_file(src, zero_based=zero_based)


def test_reader_n_features_too_large() -> None:
    with pytest.raises(ValueError, match=r"n_features must be at most 2\*\*63 - 1"):
        load_svmlight_file(io.BytesIO(b"1 1:1\n"), n_features=2**64)


@pytest.mark.parametrize(
    "body,match",
    [
        (b"kind kernel\nkernel \xff\xfe\n", r"line 3: .*\\xff\\xfe"),
        (b"kind linear\n\xff\xfe 1\n", r"line 3: unknown key '\\xff\\xfe'"),
        (b"kind \xc3\n", r"line 2: model kind '\\xc3'"),
    ],
)
def test_model_errors_quote_raw_bytes_printably(tmp_path, body, match) -> None:
    # The raw bytes in the message gave Python a UnicodeDecodeError instead of FormatError.
    path = tmp_path / "m.model"
    path.write_bytes(b"svmkit_model 1\n" + body + b"end\n")
    with pytest.raises(FormatError, match=match):
        svmkit.load_model(path)


def test_non_ascii_solver_name_is_refused(tmp_path, linear_model) -> None:
    # It loaded, then gave Python a UnicodeDecodeError converting the name to str.
    path, lines = _saved(tmp_path, linear_model)
    text = "\n".join(lines).encode().replace(b"solver tron", b"solver tr\xe5n")
    path.write_bytes(text + b"\n")
    with pytest.raises(
        FormatError, match=r"line 4: 'solver' must be printable ASCII, got 'tr\\xe5n'"
    ):
        svmkit.load_model(path)
