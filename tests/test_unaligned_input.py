"""Arrays whose data are not aligned to their item size reach the core as aligned copies.

numpy arrays need not be aligned: np.frombuffer at an odd offset, pickle protocol 5
out-of-band buffers and Dask blocks give float64 data at odd addresses. The core reads doubles
and indices with aligned loads (a misaligned one is undefined behaviour, which UBSan reported
in dense_dot and the Dask partition passes), so such an array is copied to aligned memory,
both in the Python layer (as_core_matrix, once per fit) and at every entry point of the
binding (to_view, the y / weight vectors, the model arrays of predict). Each result below is
compared with the one on an aligned copy of the same data; aligned input is still not copied.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from sklearn.datasets import make_classification, make_regression
from svmkit import _core
from svmkit._validation import as_core_matrix


def unaligned(a: np.ndarray, order: str = "C") -> np.ndarray:
    """A copy of `a` whose data start one byte past an aligned address (C or F order)."""
    a = np.asarray(a)
    buf = bytearray(a.nbytes + 1)
    out = np.frombuffer(buf, dtype=a.dtype, count=a.size, offset=1)
    if order == "F":
        out = out.reshape(a.shape[::-1]).T
    else:
        out = out.reshape(a.shape)
    out[...] = a
    assert not out.flags.aligned
    np.testing.assert_array_equal(out, a)
    return out


def unaligned_csr(M: sp.csr_matrix) -> sp.csr_matrix:
    """M with its data, indices and indptr each in unaligned memory."""
    out = sp.csr_matrix(M, copy=True)
    out.data, out.indices, out.indptr = (
        unaligned(M.data),
        unaligned(M.indices),
        unaligned(M.indptr),
    )
    assert not (out.data.flags.aligned or out.indices.flags.aligned or out.indptr.flags.aligned)
    return out


def _data(dtype, task: str, layout: str):
    if task == "classification":
        X, y = make_classification(150, 8, n_informative=5, n_classes=3, random_state=0)
    else:
        X, y = make_regression(150, 8, noise=5.0, random_state=0)
    X = X.astype(dtype)
    if layout == "csr":
        X = sp.csr_matrix(np.where(np.abs(X) < 0.5, 0.0, X).astype(dtype))
        return X, unaligned_csr(X), y
    if layout == "dense_f":  # the aligned reference in the same memory order
        X = np.asfortranarray(X)
    return X, unaligned(X, "F" if layout == "dense_f" else "C"), y


ESTIMATORS = {
    "LinearSVC": (lambda: svmkit.LinearSVC(), "classification"),
    "LinearSVR": (lambda: svmkit.LinearSVR(), "regression"),
    "SVC": (lambda: svmkit.SVC(), "classification"),
    "SparseSVC": (lambda: svmkit.SparseSVC(), "classification"),
}


def _outputs(est, X) -> list[np.ndarray]:
    out = [est.predict(X)]
    if hasattr(est, "decision_function"):
        out.append(est.decision_function(X))
    return out


@pytest.mark.parametrize("layout", ["dense", "dense_f", "csr"])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_fit_and_predict_on_unaligned_X_equal_aligned(name, dtype, layout):
    make, task = ESTIMATORS[name]
    X, Xu, y = _data(dtype, task, layout)
    ref = make().fit(X, y)
    got = make().fit(Xu, y)
    for attr in ("coef_", "intercept_", "dual_coef_", "support_"):
        if hasattr(ref, attr):
            a, b = getattr(got, attr), getattr(ref, attr)
            if sp.issparse(b):  # dual_coef_ after a sparse fit, as scikit-learn's
                assert sp.issparse(a)
                a, b = a.toarray(), b.toarray()
            np.testing.assert_array_equal(a, b)
    # Predicting on unaligned X with either model, and on aligned X with the model fitted on
    # unaligned X, gives what the aligned fit gives on aligned X.
    want = _outputs(ref, X)
    for est, Xp in ((ref, Xu), (got, Xu), (got, X)):
        for a, b in zip(_outputs(est, Xp), want):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", sorted(ESTIMATORS))
def test_unaligned_y_and_sample_weight(name):
    make, task = ESTIMATORS[name]
    X, _, y = _data(np.float64, task, "dense")
    if name == "SparseSVC":  # takes no sample weights
        ref, got = make().fit(X, y), make().fit(X, unaligned(y))
    else:
        sw = np.random.default_rng(0).uniform(0.5, 2.0, X.shape[0])
        ref = make().fit(X, y, sample_weight=sw)
        got = make().fit(X, unaligned(y), sample_weight=unaligned(sw))
    for a, b in zip(_outputs(got, X), _outputs(ref, X)):
        np.testing.assert_array_equal(a, b)


def test_unaligned_fitted_arrays_predict_the_same():
    """Fitted arrays in unaligned memory (as pickle protocol 5 buffers may leave them)."""
    X, y = make_classification(120, 6, random_state=1)
    lin = svmkit.LinearSVC().fit(X, y)
    want = lin.decision_function(X)
    lin.coef_, lin.intercept_ = unaligned(lin.coef_), unaligned(lin.intercept_)
    np.testing.assert_array_equal(lin.decision_function(X), want)
    svc = svmkit.SVC().fit(X, y)
    want = svc.decision_function(X)
    for attr in ("dual_coef_", "support_vectors_", "intercept_"):
        setattr(svc, attr, unaligned(getattr(svc, attr)))
    np.testing.assert_array_equal(svc.decision_function(X), want)


def test_core_entry_points_copy_unaligned_arrays():
    """The binding aligns what it is given even when the Python layer did not (the Dask
    partition kernels and the linear predictors are called with raw blocks)."""
    X, y = make_classification(90, 5, random_state=2)
    yy = np.where(y == 1, 1.0, -1.0)
    cost = np.random.default_rng(3).uniform(0.5, 1.5, 90)
    w = np.random.default_rng(4).standard_normal(6) * 0.3
    s = np.random.default_rng(5).standard_normal(6)
    args = ("logistic", 0.1, 0.0, True, 2.0)
    for Xa, Xu in ((X, unaligned(X)), (sp.csr_matrix(X), unaligned_csr(sp.csr_matrix(X)))):
        ca, cu = as_core_matrix(Xa), Xu
        if sp.issparse(Xu):  # a CSR tuple of unaligned arrays, bypassing as_core_matrix
            cu = (Xu.data, Xu.indices, Xu.indptr, *Xu.shape)
        ref, ref_curv = _core.partition_fun_grad(ca, yy, cost, *args, w, True, True)
        got, curv = _core.partition_fun_grad(
            cu, unaligned(yy), unaligned(cost), *args, unaligned(w), True, True
        )
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(curv, ref_curv)
        np.testing.assert_array_equal(
            _core.partition_hess_vec(cu, unaligned(curv), unaligned(s), True, 2.0),
            _core.partition_hess_vec(ca, curv, s, True, 2.0),
        )
        coef, b = w[None, :5], w[5:]
        np.testing.assert_array_equal(
            _core.linear_decision_function(cu, unaligned(coef), unaligned(b), 1),
            _core.linear_decision_function(ca, coef, b, 1),
        )


def test_aligned_input_is_not_copied_and_unaligned_is():
    X = np.random.default_rng(6).standard_normal((40, 7))
    assert as_core_matrix(X) is X
    F = np.asfortranarray(X)
    assert as_core_matrix(F) is F
    M = sp.csr_matrix(np.where(X > 0.3, X, 0.0))
    data, indices, indptr, _, _ = as_core_matrix(M)
    assert data is M.data and indices is M.indices and indptr is M.indptr
    Xu = unaligned(X, "F")
    core = as_core_matrix(Xu)
    assert core.flags.aligned and core.flags.f_contiguous and not np.shares_memory(core, Xu)
    np.testing.assert_array_equal(core, X)
    for part in as_core_matrix(unaligned_csr(M))[:3]:
        assert part.flags.aligned and part.flags.c_contiguous


def test_binding_reads_unaligned_arrays_from_an_aligned_copy():
    """What the core reads, by address: an aligned array is read in place, an unaligned one
    from an aligned copy. x86 tolerates misaligned loads, so results alone cannot show that
    to_view / double_ptr still copy (only a sanitizer build did); the addresses can."""
    X = np.random.default_rng(7).standard_normal((30, 4))
    v = np.random.default_rng(8).standard_normal(30)

    def address(a: np.ndarray) -> int:
        return a.__array_interface__["data"][0]

    got = _core._core_read_addresses(X, v)
    assert got == [address(X), address(v)]
    Xu, vu = unaligned(X), unaligned(v)
    got = _core._core_read_addresses(Xu, vu)
    assert got[0] != address(Xu) and got[0] % 8 == 0
    assert got[1] != address(vu) and got[1] % 8 == 0
    M = unaligned_csr(sp.csr_matrix(np.where(X > 0.3, X, 0.0)))
    parts = (M.data, M.indices, M.indptr)
    got = _core._core_read_addresses((*parts, *M.shape), v)
    for a, part in zip(got[:3], parts):
        assert a != address(part) and a % part.dtype.itemsize == 0
    assert got[3] == address(v)
