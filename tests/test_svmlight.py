"""The LIBSVM/SVMlight reader and writer, checked against scikit-learn's reader."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.datasets as skd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from svmkit import _core, datasets
from svmkit.datasets import (
    dump_svmlight_file,
    load_shared,
    load_svmlight_file,
    load_svmlight_files,
    make_sparse_text_like,
    make_two_gaussians,
    shared_path,
)

FormatError = _core.FormatError


def assert_same(ours: tuple, ref: tuple) -> None:
    """Exactly the same matrices and vectors (values, structure and shape)."""
    assert len(ours) == len(ref)
    for a, b in zip(ours, ref):
        if sp.issparse(b):
            assert sp.issparse(a) and a.format == "csr"
            assert a.shape == b.shape
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a.indptr, b.indptr)
            np.testing.assert_array_equal(a.indices, b.indices)
            np.testing.assert_array_equal(a.data, b.data)
        else:
            a, b = np.asarray(a), np.asarray(b)
            assert a.shape == b.shape
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a, b)


def write(tmp_path: Path, content: bytes | str, name: str = "data.txt") -> Path:
    p = tmp_path / name
    p.write_bytes(content.encode() if isinstance(content, str) else content)
    return p


# ---------------------------------------------------------------------------------------------
# Shared real datasets


def test_shared_datasets_match_sklearn(shared_datasets: Path) -> None:
    files = [
        p
        for p in sorted(shared_datasets.glob("*/*"))
        if p.is_file() and ".csv" not in p.name and p.suffix != ".md"
    ]
    assert any(p.suffix == ".xz" for p in files)
    for p in files:
        ours = load_svmlight_file(p)
        if p.suffix == ".xz":  # scikit-learn opens .gz/.bz2 only: give it the stream
            with lzma.open(p) as f:
                ref = skd.load_svmlight_file(f)
        else:
            ref = skd.load_svmlight_file(str(p))
        assert_same(ours, ref)
        assert ours[0].has_sorted_indices


def test_shared_train_test_pair(shared_datasets: Path) -> None:
    d = shared_datasets / "svmguide3"
    ours = load_svmlight_files([d / "svmguide3", d / "svmguide3.t"])
    ref = skd.load_svmlight_files([str(d / "svmguide3"), str(d / "svmguide3.t")])
    assert_same(ours, ref)
    assert ours[0].shape[1] == ours[2].shape[1] == 22


def test_load_shared_finds_datasets(shared_datasets: Path, monkeypatch) -> None:
    monkeypatch.setenv("SVMKIT_SHARED_DIR", str(shared_datasets.parent))
    X, y = load_shared("heart_scale")
    assert X.shape == (270, 13)
    assert shared_path("a9a") == shared_datasets / "a9a" / "a9a.xz"
    assert shared_path("heart/heart") == shared_datasets / "heart" / "heart"


def test_load_shared_missing(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SVMKIT_SHARED_DIR", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="shared dataset 'no_such_set' not found"):
        load_shared("no_such_set")


# ---------------------------------------------------------------------------------------------
# Format details, compared with scikit-learn on the same bytes

FORMAT_CASES = {
    "comments": "# header\n1 1:0.5 3:2 # trailing comment\n# middle\n-1 2:1e-3\n",
    "blank_lines": "\n\n1 1:1\n   \n\t\n-1 2:2\n\n",
    "crlf": "1 1:0.5 2:1\r\n-1 3:2\r\n\r\n1 2:4\r\n",
    "no_trailing_newline": "1 1:1\n-1 2:2.5",
    "trailing_whitespace": "1 1:1   \t\n-1 2:2 \n",
    "tabs_and_spaces": "1\t1:1\t 4:2\n-1  2:3\n",
    "qid": "3 qid:1 1:1 2:2\n2 qid:1 1:0.5\n1 qid:2 3:1\n",
    "empty_rows": "1\n-1 2:1\n2\n",
    "explicit_zero_values": "1 1:0 2:0.0 3:-0\n-1 2:1\n",
    "number_forms": "+1 1:+2 2:-.5 3:1E3 4:5. 5:inf 6:-INF 7:1e-320 8:1e400\n-1.5e0 1:0x\n",
    "float_labels": "0.25 1:1\n-3.75 2:1\n1e3 3:1\n",
    "large_indices": "1 100000:1\n-1 7:2 99999:3\n",
    "only_comments": "# nothing\n# here\n",
    "empty": "",
}


@pytest.mark.parametrize("name", sorted(FORMAT_CASES))
def test_format_cases_match_sklearn(tmp_path: Path, name: str) -> None:
    text = FORMAT_CASES[name]
    if name == "number_forms":
        text = text.replace(" 1:0x", "")  # keep the valid part only
    p = write(tmp_path, text)
    assert_same(load_svmlight_file(p), skd.load_svmlight_file(str(p)))


@pytest.mark.parametrize("zero_based", [True, False, "auto"])
@pytest.mark.parametrize("content", ["1 1:1 3:2\n-1 2:1\n", "1 0:1 3:2\n-1 2:1\n"])
def test_zero_based_matches_sklearn(tmp_path: Path, zero_based, content: str) -> None:
    p = write(tmp_path, content)
    if zero_based is False and " 0:" in content:
        with pytest.raises(ValueError):
            skd.load_svmlight_file(str(p), zero_based=False)
        with pytest.raises(FormatError, match=r"line 1: invalid feature index 0"):
            load_svmlight_file(p, zero_based=False)
        return
    ours = load_svmlight_file(p, zero_based=zero_based)
    assert_same(ours, skd.load_svmlight_file(str(p), zero_based=zero_based))


def test_zero_based_auto_decides_over_all_files(tmp_path: Path) -> None:
    a = write(tmp_path, "1 1:1 3:2\n", "a.txt")
    b = write(tmp_path, "1 0:1 2:2\n", "b.txt")
    ours = load_svmlight_files([a, b])
    ref = skd.load_svmlight_files([str(a), str(b)])
    assert_same(ours, ref)
    assert ours[0].shape == (1, 4)


def test_n_features(tmp_path: Path) -> None:
    p = write(tmp_path, "1 1:1 3:2\n-1 2:1\n")
    ours = load_svmlight_file(p, n_features=10)
    assert_same(ours, skd.load_svmlight_file(str(p), n_features=10))
    assert ours[0].shape == (2, 10)
    with pytest.raises(ValueError, match="n_features was set to 2, but input file contains 3"):
        load_svmlight_file(p, n_features=2)
    with pytest.raises(ValueError, match="n_features must be non-negative"):
        load_svmlight_file(p, n_features=-1)
    with pytest.raises(TypeError, match="n_features must be None or an integer"):
        load_svmlight_file(p, n_features=2.5)


def test_float32_and_query_id(tmp_path: Path) -> None:
    p = write(tmp_path, FORMAT_CASES["qid"] + "1 qid:7 1:0.1 2:3.3333333333\n")
    ours = load_svmlight_file(p, dtype=np.float32, query_id=True)
    ref = skd.load_svmlight_file(str(p), dtype=np.float32, query_id=True)
    assert_same(ours, ref)
    assert ours[0].dtype == np.float32
    np.testing.assert_array_equal(ours[2], [1, 1, 2, 7])


def test_other_dtype_is_converted(tmp_path: Path) -> None:
    p = write(tmp_path, "1 1:3 2:4\n")
    X, _ = load_svmlight_file(p, dtype=np.int32)
    ref, _ = skd.load_svmlight_file(str(p), dtype=np.int32)
    assert X.dtype == ref.dtype == np.int32
    np.testing.assert_array_equal(X.toarray(), ref.toarray())


# ---------------------------------------------------------------------------------------------
# Malformed input: the message names the file and the 1-based line

MALFORMED = [
    ("abc 1:1\n", r"line 2: label 'abc' is not a number"),
    ("1 1:1 2\n", r"line 2: expected <index>:<value>, got '2'"),
    ("1 x:1\n", r"line 2: feature index 'x' is not an integer"),
    ("1 1.5:1\n", r"line 2: feature index '1.5' is not an integer"),
    ("1 1:abc\n", r"line 2: feature value 'abc' is not a number"),
    ("1 1:\n", r"line 2: feature value '' is not a number"),
    ("1 1:2:3\n", r"line 2: feature value '2:3' is not a number"),
    ("1 3:1 2:1\n", r"line 2: feature indices must be sorted and unique: 2 after 3"),
    ("1 2:1 2:1\n", r"line 2: feature indices must be sorted and unique: 2 after 2"),
    ("1 -1:1\n", r"line 2: invalid feature index -1"),
    ("1 qid:x 1:1\n", r"line 2: expected qid:<integer>, got 'qid:x'"),
    ("1 qid 1:1\n", r"line 2: expected qid:<integer>, got 'qid'"),
]


@pytest.mark.parametrize("bad, message", MALFORMED)
def test_malformed_line_names_file_and_line(tmp_path: Path, bad: str, message: str) -> None:
    p = write(tmp_path, "# first line is fine\n" + bad + "1 1:1\n", "bad.txt")
    with pytest.raises(ValueError):  # scikit-learn rejects the same line
        skd.load_svmlight_file(str(p), query_id=True)
    with pytest.raises(FormatError, match=r"bad\.txt, " + message):
        load_svmlight_file(p)
    assert issubclass(FormatError, ValueError)


def test_error_line_number_across_blocks_and_threads(tmp_path: Path) -> None:
    lines = [f"{i % 2} 1:{i} 7:0.5\n" for i in range(20000)]
    lines[15321] = "1 7:1 3:1\n"
    p = write(tmp_path, "".join(lines))
    for threads in (1, 2, 3):
        with pytest.raises(FormatError, match=r"line 15322: feature indices must be sorted"):
            _core.read_svmlight_raw(str(p), num_threads=threads, block_bytes=4096)
    with pytest.raises(FormatError, match=r"line 15322:"):
        load_svmlight_file(p)


def test_block_size_and_threads_do_not_change_the_result(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    X = sp.random(3000, 40, density=0.2, format="csr", random_state=rng)
    y = rng.integers(0, 3, size=3000).astype(np.float64)
    p = tmp_path / "d.txt"
    dump_svmlight_file(X, y, p)
    ref = _core.read_svmlight_raw(str(p), num_threads=1, block_bytes=1 << 24)
    for threads, block in ((2, 1024), (3, 5000), (4, 1 << 16)):
        got = _core.read_svmlight_raw(str(p), num_threads=threads, block_bytes=block)
        for key in ("data", "indices", "indptr", "labels"):
            np.testing.assert_array_equal(got[key], ref[key])
    assert_same(load_svmlight_file(p), skd.load_svmlight_file(str(p)))


def test_streaming_parser_accepts_any_chunking(tmp_path: Path) -> None:
    text = ("1 1:1 3:2 # c\r\n" * 50 + "-1 qid:3 2:5\n" * 50 + "2 4:1").encode()
    p = write(tmp_path, text)
    ref = skd.load_svmlight_file(str(p))
    for step in (1, 7, 64, len(text)):
        parser = _core.SvmlightParser("chunks", block_bytes=1024)
        for i in range(0, len(text), step):
            parser.feed(text[i : i + step])
        raw = parser.finish()
        np.testing.assert_array_equal(raw["labels"], ref[1])
        np.testing.assert_array_equal(raw["indices"] - 1, ref[0].indices)


@pytest.mark.parametrize(
    "ext, opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)]
)
def test_compressed_files(tmp_path: Path, ext: str, opener) -> None:
    text = "".join(f"{i % 3} 1:{i} 5:{i / 7}\n" for i in range(5000)).encode()
    plain = write(tmp_path, text)
    comp = tmp_path / ("data" + ext)
    with opener(comp, "wb") as f:
        f.write(text)
    ref = skd.load_svmlight_file(str(plain))
    assert_same(load_svmlight_file(comp), ref)
    assert_same(load_svmlight_file(str(comp)), ref)


def test_file_objects(tmp_path: Path) -> None:
    text = b"1 1:1 3:2\n-1 2:1\n"
    ref = skd.load_svmlight_file(io.BytesIO(text))
    assert_same(load_svmlight_file(io.BytesIO(text)), ref)
    with pytest.raises(TypeError, match="binary mode"):
        load_svmlight_file(io.StringIO(text.decode()))


def test_corrupt_compressed_file(tmp_path: Path) -> None:
    p = write(tmp_path, b"not really xz", "bad.xz")
    with pytest.raises(OSError, match="bad.xz"):
        load_svmlight_file(p)


def test_reader_argument_errors(tmp_path: Path) -> None:
    p = write(tmp_path, "1 1:1\n")
    with pytest.raises(OSError, match="cannot open .*missing.txt"):
        load_svmlight_file(tmp_path / "missing.txt")
    with pytest.raises(ValueError, match="zero_based must be True, False or 'auto'"):
        load_svmlight_file(p, zero_based="yes")
    with pytest.raises(ValueError, match="multilabel=True is not supported"):
        load_svmlight_file(p, multilabel=True)
    with pytest.raises(ValueError, match="dtype must be a real numeric dtype"):
        load_svmlight_file(p, dtype=np.complex128)
    with pytest.raises(ValueError, match="n_jobs must be None or a non-zero integer"):
        load_svmlight_file(p, n_jobs=0)
    with pytest.raises(TypeError, match="expected a path or a binary file object"):
        load_svmlight_file(3.5)
    with pytest.raises(TypeError, match="files must be a list"):
        load_svmlight_files(str(p))


# ---------------------------------------------------------------------------------------------
# Writer


@pytest.mark.parametrize("zero_based", [False, True])
def test_dump_round_trip_dense_and_sparse(tmp_path: Path, zero_based: bool) -> None:
    X, y = make_two_gaussians(200, 7, random_state=3)
    X[X < -0.5] = 0.0
    y = y * 1.5
    X32 = X.astype(np.float32)
    cases = (
        ("dense", X, X),
        ("csr", sp.csr_matrix(X), X),
        ("f32", X32, X32.astype(np.float64)),
        ("fortran", np.asfortranarray(X), X),
    )
    for kind, Xin, expected in cases:
        p = tmp_path / f"{kind}.txt"
        dump_svmlight_file(Xin, y, p, zero_based=zero_based)
        Xr, yr = skd.load_svmlight_file(str(p), zero_based=zero_based, n_features=7)
        np.testing.assert_array_equal(Xr.toarray(), expected)
        np.testing.assert_array_equal(yr, y)
        assert_same(load_svmlight_file(p, zero_based=zero_based, n_features=7), (Xr, yr))


def test_dump_comment_qid_and_compression(tmp_path: Path) -> None:
    X = sp.csr_matrix(np.array([[0.0, 1.5, 0.0], [2.0, 0.0, 1e-310]]))
    y = np.array([1.0, -1.0])
    qid = np.array([4, 9])
    p = tmp_path / "q.txt"
    dump_svmlight_file(X, y, p, comment="made by\nthe test", query_id=qid)
    text = p.read_text()
    assert text.startswith("# made by\n# the test\n")
    assert "1 qid:4 2:1.5\n" in text
    Xr, yr, qr = skd.load_svmlight_file(str(p), query_id=True, n_features=3)
    np.testing.assert_array_equal(Xr.toarray(), X.toarray())
    np.testing.assert_array_equal(qr, qid)
    gz = tmp_path / "q.txt.gz"
    dump_svmlight_file(X, y, gz, query_id=qid)
    with gzip.open(gz) as f:
        assert f.read() == b"1 qid:4 2:1.5\n-1 qid:9 1:2 3:1e-310\n"
    buf = io.BytesIO()
    dump_svmlight_file(X, y, buf, zero_based=True)
    assert buf.getvalue() == b"1 1:1.5\n-1 0:2 2:1e-310\n"


def test_dump_sorts_unsorted_csr(tmp_path: Path) -> None:
    X = sp.csr_matrix((np.array([1.0, 2.0, 3.0]), np.array([2, 0, 1]), np.array([0, 2, 3])), (2, 3))
    X.has_sorted_indices = False
    p = tmp_path / "u.txt"
    dump_svmlight_file(X, np.array([1.0, 2.0]), p)
    assert p.read_text() == "1 1:2 3:1\n2 2:3\n"
    np.testing.assert_array_equal(X.indices, [2, 0, 1])  # the caller's matrix is untouched


def test_dump_errors(tmp_path: Path) -> None:
    X, y = np.eye(3), np.ones(3)
    p = tmp_path / "e.txt"
    with pytest.raises(ValueError, match="X.shape\\[0\\] and y.shape\\[0\\] should be the same"):
        dump_svmlight_file(X, np.ones(2), p)
    with pytest.raises(ValueError, match="expected y of shape \\(n_samples,\\)"):
        dump_svmlight_file(X, np.ones((3, 2)), p)
    with pytest.raises(ValueError, match="comment string contains NUL byte"):
        dump_svmlight_file(X, y, p, comment="a\0b")
    with pytest.raises(ValueError, match="expected query_id of shape"):
        dump_svmlight_file(X, y, p, query_id=[1, 2])
    with pytest.raises(ValueError, match="query_id must hold integers"):
        dump_svmlight_file(X, y, p, query_id=[1.5, 2, 3])
    with pytest.raises(TypeError, match="zero_based must be a bool"):
        dump_svmlight_file(X, y, p, zero_based="auto")
    with pytest.raises(OSError, match="cannot open"):
        dump_svmlight_file(X, y, tmp_path / "no_dir" / "x.txt")
    with pytest.raises(ValueError, match="NaN|infinity"):
        dump_svmlight_file(np.array([[np.nan]]), [1.0], p)


finite = st.floats(allow_nan=False, allow_infinity=False, width=64)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    shape=st.tuples(st.integers(1, 12), st.integers(1, 9)),
    density=st.floats(0.0, 1.0),
    seed=st.integers(0, 2**32 - 1),
    values=st.lists(finite, min_size=1, max_size=20),
    labels=st.lists(finite, min_size=1, max_size=5),
    zero_based=st.booleans(),
)
def test_hypothesis_round_trip(
    tmp_path_factory, shape, density, seed, values, labels, zero_based
) -> None:
    rng = np.random.default_rng(seed)
    n, m = shape
    X = sp.random(n, m, density=density, format="csr", random_state=rng)
    X.data = rng.choice(np.asarray(values), size=X.nnz)
    X.eliminate_zeros()
    y = rng.choice(np.asarray(labels), size=n)
    p = tmp_path_factory.mktemp("rt") / "h.txt"
    dump_svmlight_file(X, y, p, zero_based=zero_based)
    ref = skd.load_svmlight_file(str(p), zero_based=zero_based, n_features=m)
    np.testing.assert_array_equal(ref[0].toarray(), X.toarray())
    np.testing.assert_array_equal(ref[1], y)
    assert_same(load_svmlight_file(p, zero_based=zero_based, n_features=m), ref)


# ---------------------------------------------------------------------------------------------
# Generators


def test_make_two_gaussians() -> None:
    X, y = make_two_gaussians(4001, 20, random_state=5)
    assert X.shape == (4001, 20) and X.dtype == np.float64
    assert set(np.unique(y)) == {-1.0, 1.0}
    assert np.sum(y == -1) == 2001 and np.sum(y == 1) == 2000
    X2, y2 = make_two_gaussians(4001, 20, random_state=5)
    np.testing.assert_array_equal(X, X2)
    np.testing.assert_array_equal(y, y2)
    X3, _ = make_two_gaussians(4001, 20, random_state=6)
    assert not np.array_equal(X, X3)
    # Within a class the covariance is the identity (N(c_i, I)).
    for c in (-1.0, 1.0):
        cov = np.cov(X[y == c].T)
        assert np.abs(cov - np.eye(20)).max() < 0.15
    # The centroids are scaled N(0, 1) vectors: distance about scale * sqrt(2 m).
    gap = np.linalg.norm(X[y == 1].mean(0) - X[y == -1].mean(0))
    assert 1.0 < gap < 5.0
    Xw, yw = make_two_gaussians(100, 2500, random_state=0, dtype=np.float32)
    assert Xw.shape == (100, 2500) and Xw.dtype == np.float32
    with pytest.raises(ValueError, match="n_samples must be an integer >= 2"):
        make_two_gaussians(1, 3)
    with pytest.raises(ValueError, match="centroid_scale must be a finite number"):
        make_two_gaussians(10, 3, centroid_scale=-1.0)
    with pytest.raises(TypeError, match="random_state must be None"):
        make_two_gaussians(10, 3, random_state="x")


def test_make_sparse_text_like() -> None:
    from sklearn.svm import LinearSVC

    X, y = make_sparse_text_like(3000, 2000, density=0.01, random_state=1)
    assert sp.isspmatrix_csr(X) and X.shape == (3000, 2000)
    assert X.has_sorted_indices
    assert 0.005 < X.nnz / (3000 * 2000) < 0.012
    assert X.data.min() > 0
    np.testing.assert_allclose(sp.linalg.norm(X, axis=1), 1.0, rtol=1e-12)
    assert 0.4 < np.mean(y == 1) < 0.6
    # Zipf-like: the most frequent column is far more common than the median one.
    counts = np.sort(np.bincount(X.indices, minlength=2000))
    assert counts[-1] > 20 * max(1, counts[1000])
    # Labels follow a hyperplane: a linear model fits them well above chance.
    acc = LinearSVC(C=10.0).fit(X, y).score(X, y)
    assert acc > 0.8
    X2, y2 = make_sparse_text_like(3000, 2000, density=0.01, random_state=1)
    assert (X != X2).nnz == 0 and np.array_equal(y, y2)
    with pytest.raises(ValueError, match="density must be in"):
        make_sparse_text_like(10, 10, density=0.0)


def test_datasets_is_a_submodule() -> None:
    import svmkit

    assert svmkit.datasets is datasets


def test_core_argument_errors(tmp_path: Path) -> None:
    """The C++ layer checks its own inputs too (for embedders), with the same messages."""
    with pytest.raises(ValueError, match="block_bytes must be >= 1024"):
        _core.SvmlightParser("x", block_bytes=10)
    with pytest.raises(ValueError, match="zero_based must be 'auto', 'yes' or 'no'"):
        _core.SvmlightParser("x", zero_based="maybe")
    parser = _core.SvmlightParser("x")
    parser.feed(b"1 1:1\n")
    assert parser.finish()["n_rows"] == 1
    with pytest.raises(ValueError, match=r"finish\(\) called twice"):
        parser.finish()
    with pytest.raises(ValueError, match=r"after finish\(\)"):
        parser.feed(b"1 1:1\n")
    unsorted = (np.array([1.0, 2.0]), np.array([1, 0], np.int32), np.array([0, 2], np.int32), 1, 2)
    y = np.ones(1)
    with pytest.raises(ValueError, match="row 0 has unsorted or duplicate column indices"):
        _core.format_svmlight_rows(unsorted, y, None, False, "", 0, 1)
    with pytest.raises(ValueError, match="row range out of bounds"):
        _core.format_svmlight_rows(np.eye(2), np.ones(2), None, False, "", 0, 3)
    with pytest.raises(ValueError, match="comment contains a NUL byte"):
        _core.format_svmlight_rows(np.eye(2), np.ones(2), None, False, "a\0b", 0, 2)
    with pytest.raises(ValueError, match="query_id must be a 1-D integer array"):
        _core.format_svmlight_rows(np.eye(2), np.ones(2), np.ones(3, np.int64), False, "", 0, 2)
