"""Bad input to every estimator: each case gets a clean error naming the problem (asserted by
its message), or, for inputs that are merely unusual (non-contiguous, big-endian, unsorted or
duplicate CSR indices), the same model as the canonical input.

Also the defects of issue 14 found in the Python layer (each failed before its fix):
solver_options entries that an estimator parameter overwrote silently, SparseSVC's negative
c, SVC's negative or NaN class_weight, callbacks returning a non-bool, SVC(kernel="poly",
degree=0) failing only in C++, duplicate CSR entries changing LinearSVC/LinearSVR's model,
and gamma="scale" overflowing on huge X.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.svm
import svmkit
from svmkit._constraints import Rule
from svmkit.datasets import load_svmlight_file

rng = np.random.default_rng(0)
X = rng.standard_normal((40, 3))
y = np.r_[np.zeros(20), np.ones(20)].astype(int)
y_reg = X @ np.array([1.0, -2.0, 0.5]) + 0.1 * rng.standard_normal(40)

CLASSIFIERS = [svmkit.LinearSVC, svmkit.SVC, svmkit.SparseSVC, svmkit.NuSVC]
REGRESSORS = [svmkit.LinearSVR, svmkit.SVR, svmkit.NuSVR]
ESTIMATORS = CLASSIFIERS + REGRESSORS
OUTLIER_DETECTORS = [svmkit.OneClassSVM, svmkit.LinearOneClassSVM]  # y is ignored
ALL = ESTIMATORS + OUTLIER_DETECTORS
WEIGHTED = [
    svmkit.LinearSVC,
    svmkit.LinearSVR,
    svmkit.SVC,
    svmkit.SVR,
    svmkit.NuSVC,
    svmkit.NuSVR,
    svmkit.OneClassSVM,
    svmkit.LinearOneClassSVM,
]


def target(Est):
    return y_reg if Est in REGRESSORS else y


def ids(E):
    return E.__name__


def with_value(a, index, value):
    a = np.array(a, dtype=np.float64)
    a[index] = value
    return a


# -- every parameter is declared, and each refuses a value of the wrong kind -----------------


@pytest.mark.parametrize("Est", ALL, ids=ids)
def test_every_parameter_is_declared(Est) -> None:
    assert set(Est._parameter_checks) == set(Est().get_params())
    assert all(isinstance(r, Rule) for r in Est._parameter_checks.values())


class _Odd:
    """A value no rule accepts (not a number, string, bool, dict or callable)."""

    def __repr__(self) -> str:
        return "<odd value>"


@pytest.mark.parametrize(
    ("Est", "name"),
    [(E, n) for E in ALL for n in sorted(E().get_params())],
    ids=lambda v: v.__name__ if isinstance(v, type) else v,
)
def test_every_parameter_refuses_an_odd_value(Est, name) -> None:
    # The message names the parameter and shows the value.
    with pytest.raises((TypeError, ValueError), match=rf"^{name} must .*<odd value>"):
        Est(**{name: _Odd()}).fit(X, target(Est))


# -- parameter values (the type is right, the value is not) ----------------------------------

BAD_PARAMS = [
    (svmkit.LinearSVC, {"C": -1.0}, ValueError, r"C must be > 0, got -1.0"),
    (svmkit.LinearSVC, {"C": float("nan")}, ValueError, r"C must be finite, got nan"),
    (svmkit.LinearSVC, {"C": float("inf")}, ValueError, r"C must be finite \(C = inf is the"),
    (svmkit.LinearSVC, {"tol": -1.0}, ValueError, r"tol must be >= 0, got -1.0"),
    (svmkit.LinearSVC, {"max_iter": -1}, ValueError, r"max_iter must be >= 0, got -1"),
    (svmkit.LinearSVC, {"max_iter": True}, TypeError, r"max_iter must be of type int or None"),
    (svmkit.LinearSVC, {"l1_ratio": -0.5}, ValueError, r"l1_ratio must be >= 0, got -0.5"),
    (svmkit.LinearSVC, {"sigma": float("inf")}, ValueError, r"sigma must be finite, got inf"),
    (svmkit.LinearSVC, {"loss": "hinge2"}, ValueError, r"loss must be one of .*got 'hinge2'"),
    (svmkit.LinearSVC, {"random_state": -3}, ValueError, r"random_state must be >= 0"),
    (svmkit.LinearSVC, {"n_jobs": 0}, ValueError, r"n_jobs must be a nonzero integer"),
    (svmkit.LinearSVC, {"class_weight": "auto"}, ValueError, r"class_weight must be one of"),
    (svmkit.LinearSVR, {"epsilon": -1e-3}, ValueError, r"epsilon must be >= 0, got -0.001"),
    (svmkit.LinearSVR, {"intercept_scaling": 0.0}, ValueError, r"intercept_scaling must be > 0"),
    (svmkit.LinearSVR, {"penalty": "l0"}, ValueError, r"penalty must be one of"),
    (svmkit.SVC, {"C": 0}, ValueError, r"C must be > 0, got 0"),
    (svmkit.SVC, {"gamma": 0.0}, ValueError, r"gamma must be > 0, got 0.0"),
    (svmkit.SVC, {"gamma": "scaled"}, ValueError, r"gamma must be one of 'scale', 'auto'"),
    (svmkit.SVC, {"tol": 0.0}, ValueError, r"tol must be > 0, got 0.0"),
    (svmkit.SVC, {"max_iter": 0}, ValueError, r"max_iter must be an int >= 1 \(or -1\), got 0"),
    (svmkit.SVC, {"max_iter": -2}, ValueError, r"max_iter must be an int >= 1 \(or -1\), got -2"),
    (svmkit.SVC, {"cache_size": -1}, ValueError, r"cache_size must be > 0, got -1"),
    (svmkit.SVC, {"degree": 2.0}, TypeError, r"degree must be of type int, got 2.0"),
    (svmkit.SVC, {"kernel": "poly", "degree": 0}, ValueError, r"^degree must be >= 1, got 0"),
    (svmkit.SVR, {"kernel": "poly", "degree": 0}, ValueError, r"^degree must be >= 1, got 0"),
    (svmkit.SVC, {"kernel": "linear", "sigma": 1.0}, ValueError, r"sigma applies to the rbf"),
    (svmkit.SVC, {"break_ties": True, "decision_function_shape": "ovo"}, ValueError, "ovo"),
    (svmkit.SVC, {"solver": "libsvm"}, ValueError, r"solver must be one of 'smo'"),
    (svmkit.SVC, {"solver": "adagrad_dual", "loss": "squared_hinge"}, ValueError, "does not"),
    (svmkit.SVR, {"epsilon": float("nan")}, ValueError, r"epsilon must be finite, got nan"),
    (svmkit.SVR, {"coef0": float("inf")}, ValueError, r"coef0 must be finite, got inf"),
    (svmkit.SVR, {"sigma": -1.0}, ValueError, r"sigma must be > 0, got -1.0"),
    (svmkit.SparseSVC, {"C": -0.25}, ValueError, r"C must be > 0, got -0.25"),
    (svmkit.SparseSVC, {"sparsity": 0}, ValueError, r"sparsity must be >= 1, got 0"),
    (svmkit.SparseSVC, {"max_iter": -1}, ValueError, r"max_iter must be >= 0, got -1"),
]


@pytest.mark.parametrize(("Est", "params", "exc", "match"), BAD_PARAMS)
def test_bad_parameter_value(Est, params, exc, match) -> None:
    with pytest.raises(exc, match=match):
        Est(**params).fit(X, target(Est))


def test_params_are_checked_in_fit_not_init() -> None:
    est = svmkit.SVC(C=-1.0)  # stored as given (scikit-learn's convention)
    assert est.get_params()["C"] == -1.0
    with pytest.raises(ValueError, match="C must be > 0"):
        est.fit(X, y)


def test_fit_adagrad_dual_shares_the_degree_rule() -> None:
    with pytest.raises(ValueError, match=r"degree must be >= 1, got 0"):
        svmkit.fit_adagrad_dual(X, np.where(y == 1, 1.0, -1.0), kernel="poly", degree=0)


# -- solver_options: conflicts with estimator parameters, types, ranges ----------------------

BAD_OPTIONS = [
    (svmkit.SVC, {"working_set": 7}, r"solver_options\['working_set'\] = 7 conflicts with"),
    (svmkit.SVC, {"cache_size": -5}, r"solver_options\['cache_size'\] = -5 conflicts with"),
    (svmkit.SVC, {"shrinking": False}, r"solver_options\['shrinking'\] = False conflicts"),
    (svmkit.SVR, {"working_set": "max_violating_pair"}, r"parameter 'working_set'"),
    (svmkit.SVC, {"n_threads": 2}, r"solver_options\['n_threads'\] .* parameter 'n_jobs'"),
    (svmkit.LinearSVC, {"n_threads": 2}, r"conflicts with the estimator parameter 'n_jobs'"),
    (svmkit.SVC, {"tau": "x"}, r"option 'tau' has the wrong type"),
    (svmkit.SVR, {"no_such": 1}, r"unknown smo option 'no_such'"),
    (svmkit.LinearSVR, {"cg_tol": -1.0}, r"unknown dual_cd option 'cg_tol'"),
    (svmkit.SparseSVC, {"c": -1.0}, r"solver_options\['c'\] must be >= 0, got -1.0"),
    (svmkit.SparseSVC, {"eta": "x"}, r"option 'eta' has the wrong type"),
]


@pytest.mark.parametrize(("Est", "opts", "match"), BAD_OPTIONS)
def test_bad_solver_options(Est, opts, match) -> None:
    with pytest.raises(ValueError, match=match):
        Est(solver_options=opts).fit(X, target(Est))


def test_estimator_parameter_set_twice_is_refused_only_when_both_are_set() -> None:
    # tol=None leaves the solver's default, which solver_options may then set.
    svmkit.LinearSVC(solver="tron", solver_options={"tol": 1e-3}).fit(X, y)
    with pytest.raises(ValueError, match=r"solver_options\['tol'\] = 0.001 conflicts"):
        svmkit.LinearSVC(solver="tron", tol=1e-4, solver_options={"tol": 1e-3}).fit(X, y)
    with pytest.raises(ValueError, match=r"solver_options\['max_iter'\] = 5 conflicts"):
        svmkit.SVC(max_iter=10, solver_options={"max_iter": 5}).fit(X, y)
    with pytest.raises(ValueError, match=r"solver_options\['s0'\] = 3 conflicts .*'sparsity'"):
        svmkit.SparseSVC(sparsity=4, solver_options={"s0": 3}).fit(X, y)


# -- class weights -----------------------------------------------------------------------------


@pytest.mark.parametrize("Est", [svmkit.LinearSVC, svmkit.SVC], ids=ids)
@pytest.mark.parametrize(
    ("weight", "match"),
    [
        (-1.0, r"class_weight\[0\] must be >= 0, got -1.0"),
        (float("nan"), r"class_weight\[0\] must be finite, got nan"),
        (float("inf"), r"class_weight\[0\] must be finite, got inf"),
        ("2", r"class_weight\[0\] must be of type float, got '2'"),
    ],
)
def test_bad_class_weight(Est, weight, match) -> None:
    with pytest.raises((ValueError, TypeError), match=match):
        Est(class_weight={0: weight}).fit(X, y)


def test_class_weight_naming_unknown_class() -> None:
    with pytest.raises(ValueError, match=r"labels not in y: \[5\]"):
        svmkit.SVC(class_weight={5: 1.0}).fit(X, y)


@pytest.mark.parametrize("Est", [svmkit.SVC, svmkit.LinearSVC])
def test_class_weight_keys_for_absent_labels_are_ignored(Est) -> None:
    """scikit-learn's rule: a dict that weights every class of y may name more labels (a
    cross-validation fold that misses a rare class); the fit is the one without them."""
    labels = np.unique(y).tolist()
    weights = {c: 1.0 + i for i, c in enumerate(labels)}
    with_extra = Est(class_weight={**weights, 99: 5.0}).fit(X, y)
    plain = Est(class_weight=weights).fit(X, y)
    np.testing.assert_array_equal(with_extra.decision_function(X), plain.decision_function(X))
    sklearn_est = getattr(sklearn.svm, Est.__name__)(class_weight={**weights, 99: 5.0})
    sklearn_est.fit(X, y)  # scikit-learn accepts the same dict


@pytest.mark.parametrize("Est", [svmkit.SVC, svmkit.LinearSVC, svmkit.LinearSVR, svmkit.SVR])
@pytest.mark.parametrize(
    ("weight", "match"),
    [
        (0.0, "zero for every sample"),
        (-1.0, "must be non-negative"),
        (float("nan"), "NaN or infinity"),
    ],
)
def test_one_number_as_sample_weight_is_checked(Est, weight, match) -> None:
    """A number stands for that weight on every sample and gets the array's checks (0.0 used
    to fit an all-zero model without a word)."""
    with pytest.raises(ValueError, match=match):
        Est().fit(X, y, sample_weight=weight)


def test_svc_class_with_zero_weight_is_refused() -> None:
    # Before: a model with no support vectors, predicting one class everywhere.
    with pytest.raises(ValueError, match=r"class 0 has zero weight in every sample"):
        svmkit.SVC(class_weight={0: 0.0}).fit(X, y)
    sw = np.where(y == 1, 0.0, 1.0)
    with pytest.raises(ValueError, match=r"class 1 has zero weight in every sample"):
        svmkit.SVC().fit(X, y, sample_weight=sw)


# -- data: NaN / inf anywhere, shapes, empty, one class ---------------------------------------


@pytest.mark.parametrize("Est", ALL, ids=ids)
@pytest.mark.parametrize(
    ("value", "match"), [(np.nan, "Input X contains NaN"), (np.inf, "Input X contains infinity")]
)
def test_non_finite_X(Est, value, match) -> None:
    with pytest.raises(ValueError, match=match):
        Est().fit(with_value(X, (5, 1), value), target(Est))
    model = Est().fit(X, target(Est))
    with pytest.raises(ValueError, match=match):
        model.predict(with_value(X, (0, 2), value))


@pytest.mark.parametrize("Est", ESTIMATORS, ids=ids)
@pytest.mark.parametrize(("value", "match"), [(np.nan, "NaN"), (np.inf, "infinity")])
def test_non_finite_y(Est, value, match) -> None:
    with pytest.raises(ValueError, match=f"Input y contains {match}"):
        Est().fit(X, with_value(target(Est), 3, value))


@pytest.mark.parametrize("Est", WEIGHTED, ids=ids)
@pytest.mark.parametrize(
    ("sw", "match"),
    [
        (with_value(np.ones(40), 2, np.nan), "sample_weight contains NaN or infinity"),
        (with_value(np.ones(40), 2, np.inf), "sample_weight contains NaN or infinity"),
        (-np.ones(40), "sample_weight must be non-negative"),
        (np.zeros(40), "sample_weight is zero for every sample"),
        (np.ones(41), "sample_weight has 41 entries, but X has 40 samples"),
        (np.ones((40, 1)), r"sample_weight must be 1-D, got shape \(40, 1\)"),
    ],
)
def test_bad_sample_weight(Est, sw, match) -> None:
    with pytest.raises(ValueError, match=match):
        Est().fit(X, target(Est), sample_weight=sw)


@pytest.mark.parametrize("Est", ESTIMATORS, ids=ids)
@pytest.mark.parametrize(
    ("Xb", "yb", "match"),
    [
        (X[:, 0], None, "Expected 2D array, got 1D array"),
        (np.array(3.0), None, "Expected 2D array, got scalar array"),
        (X[:, :, None], None, "Found array with dim 3"),
        (X[:0], slice(0, 0), r"0 sample\(s\)"),
        (X[:, :0], None, r"0 feature\(s\)"),
        (X, slice(0, 39), "inconsistent numbers of samples"),
        (X.astype(complex), None, "Complex data not supported"),
    ],
    ids=["1d", "scalar", "3d", "empty", "no_features", "length", "complex"],
)
def test_bad_shapes(Est, Xb, yb, match) -> None:
    yy = target(Est) if yb is None else target(Est)[yb]
    with pytest.raises(ValueError, match=match):
        Est().fit(Xb, yy)


@pytest.mark.parametrize("Est", CLASSIFIERS, ids=ids)
def test_one_class(Est) -> None:
    with pytest.raises(ValueError, match="only one class|greater than one; got 1 class"):
        Est().fit(X, np.ones(40))


@pytest.mark.parametrize("Est", CLASSIFIERS, ids=ids)
def test_continuous_labels(Est) -> None:
    with pytest.raises(ValueError, match="Unknown label type: continuous"):
        Est().fit(X, y_reg)


@pytest.mark.parametrize("Est", ALL, ids=ids)
def test_wrong_feature_count_at_predict(Est) -> None:
    model = Est().fit(X, target(Est))
    with pytest.raises(ValueError, match=f"X has 2 features, but {Est.__name__} is expecting 3"):
        model.predict(X[:, :2])


@pytest.mark.parametrize("Est", ALL, ids=ids)
@pytest.mark.parametrize(
    ("value", "match"), [(np.nan, "Input X contains NaN"), (np.inf, "Input X contains infinity")]
)
def test_non_finite_sparse_X(Est, value, match) -> None:
    """CSR input takes validate_X_y's fast path; a non-finite entry leaves it for scikit-learn's
    checks, which name the problem."""
    with pytest.raises(ValueError, match=match):
        Est().fit(sp.csr_matrix(with_value(X, (5, 1), value)), target(Est))
    model = Est().fit(sp.csr_matrix(X), target(Est))
    assert model.n_features_in_ == X.shape[1]
    with pytest.raises(ValueError, match=match):
        model.predict(sp.csr_matrix(with_value(X, (0, 2), value)))
    with pytest.raises(ValueError, match=f"X has 2 features, but {Est.__name__} is expecting 3"):
        model.predict(sp.csr_matrix(X[:, :2]))
    # Integer CSR is converted (scikit-learn's path), as dense integer input is.
    Xi = sp.csr_matrix(np.rint(X * 3).astype(np.int64))
    np.testing.assert_array_equal(model.predict(Xi), model.predict(Xi.astype(np.float64)))


@pytest.mark.parametrize("Est", [svmkit.SVC, svmkit.SVR], ids=ids)
def test_huge_values_overflow_gamma_scale(Est) -> None:
    # Before: gamma = 1 / inf = 0 reached C++ ("kernel gamma must be a positive finite number").
    with pytest.raises(ValueError, match=r"gamma='scale' needs the variance of X, which overflows"):
        Est().fit(X * 1e300, target(Est))


def test_huge_values_in_a_linear_fit_raise_a_numerical_error() -> None:
    with pytest.raises(FloatingPointError, match=r"LinearSVC \(tron\): numerical error"):
        svmkit.LinearSVC(solver="tron").fit(X * 1e300, y)


def test_precomputed_kernel_shapes() -> None:
    K = X @ X.T
    with pytest.raises(ValueError, match=r"square kernel matrix .* got \(40, 3\)"):
        svmkit.SVC(kernel="precomputed").fit(X, y)
    model = svmkit.SVC(kernel="precomputed").fit(K, y)
    with pytest.raises(ValueError, match=r"X has 39 features, but SVC is expecting 40"):
        model.decision_function(K[:, :39])


# -- unusual but valid layouts: the same model as the canonical input ------------------------


def _prediction(model, Xp):
    return model.decision_function(Xp) if hasattr(model, "decision_function") else model.predict(Xp)


@pytest.mark.parametrize("Est", ALL, ids=ids)
@pytest.mark.parametrize("layout", ["strided", "fortran", "big_endian", "int", "float32"])
def test_layouts_give_the_canonical_model(Est, layout) -> None:
    yy = target(Est)
    Xr = np.round(X * 10) if layout == "int" else X
    if layout == "float32":
        Xr = X.astype(np.float32).astype(np.float64)
    # The nu formulations stop on a KKT tolerance of 1e-3 whose effect on the decisions is of
    # that order; a tight tol makes float32 vs float64 a question of the data alone.
    params = {"tol": 1e-8} if layout == "float32" and "nu" in Est().get_params() else {}
    ref = Est(**params).fit(Xr, yy)
    wide = np.repeat(X, 2, axis=1)
    Xl = {
        "strided": wide[:, ::2],  # no contiguous axis
        "fortran": np.asfortranarray(X),
        "big_endian": X.astype(">f8"),
        "int": Xr.astype(np.int64),
        "float32": X.astype(np.float32),
    }[layout]
    if layout == "big_endian":
        yy = yy.astype(">f8") if yy.dtype.kind == "f" else yy.astype(">i8")
    model = Est(**params).fit(Xl, yy)
    tol = 1e-3 if layout == "float32" else 1e-9
    np.testing.assert_allclose(_prediction(model, Xr), _prediction(ref, Xr), atol=tol)


def _csr_variants():
    A = sp.random(60, 8, density=0.4, random_state=1, format="csr")
    coo = A.tocoo()
    # Every entry stored twice, as two halves, rows in order (scipy keeps such a matrix).
    r, c, v = np.r_[coo.row, coo.row], np.r_[coo.col, coo.col], np.r_[coo.data, coo.data] / 2
    order = np.argsort(r, kind="stable")
    indptr = np.r_[0, np.cumsum(np.bincount(r, minlength=60))]
    dup = sp.csr_matrix((v[order], c[order], indptr), shape=A.shape)
    rev = A.copy()  # each row's entries in reverse column order
    for i in range(A.shape[0]):
        s, e = rev.indptr[i], rev.indptr[i + 1]
        rev.indices[s:e] = rev.indices[s:e][::-1].copy()
        rev.data[s:e] = rev.data[s:e][::-1].copy()
    rev.has_sorted_indices = False
    return A, {"duplicate": dup, "unsorted": rev}


@pytest.mark.parametrize(
    ("Est", "params"),
    [
        (svmkit.LinearSVC, {}),
        (svmkit.LinearSVC, {"loss": "hinge", "solver": "dual_cd"}),
        (svmkit.LinearSVR, {}),
        (svmkit.SVC, {}),
        (svmkit.SVR, {}),
        (svmkit.SparseSVC, {}),
    ],
    ids=["LinearSVC", "LinearSVC-dual_cd", "LinearSVR", "SVC", "SVR", "SparseSVC"],
)
@pytest.mark.parametrize("variant", ["duplicate", "unsorted"])
def test_non_canonical_csr_gives_the_canonical_model(Est, params, variant) -> None:
    # Before: duplicate entries changed dual_cd's ||x_i||^2 (LinearSVR's predictions by 7e-3).
    A, variants = _csr_variants()
    yy = (A @ np.ones(8) > 0.5).astype(int) if Est not in REGRESSORS else A @ np.arange(8.0)
    M = variants[variant]
    assert not M.has_canonical_format
    ref = Est(**params).fit(A, yy)
    model = Est(**params).fit(M, yy)
    np.testing.assert_allclose(_prediction(model, A), _prediction(ref, A), atol=1e-12)
    np.testing.assert_allclose(_prediction(ref, M), _prediction(ref, A), atol=1e-12)


def test_csr_index_out_of_range_is_refused() -> None:
    A = sp.csr_matrix((np.ones(2), np.array([0, 9]), np.array([0, 1, 2])), shape=(2, 3))
    model = svmkit.SVC().fit(X, y)
    with pytest.raises(ValueError, match=r"X: column index 9 out of range \[0, 3\)"):
        model.predict(A)


# -- callbacks -----------------------------------------------------------------------------------


class CallbackError(Exception):
    pass


@pytest.mark.parametrize("Est", ESTIMATORS, ids=ids)
def test_callback_exception_reaches_python_intact(Est) -> None:
    err = CallbackError("stop here")

    def boom(rec):
        raise err

    with pytest.raises(CallbackError) as info:
        Est(callback=boom).fit(X, target(Est))
    assert info.value is err


@pytest.mark.parametrize("Est", ESTIMATORS, ids=ids)
def test_callback_returning_a_non_bool(Est) -> None:
    # Before: RuntimeError "Unable to cast Python instance of type <class 'str'> to C++ type".
    def says_yes(rec):
        return "yes"

    with pytest.raises(TypeError, match=r"callback .*says_yes must return None, True or False"):
        Est(callback=says_yes).fit(X, target(Est))


@pytest.mark.parametrize("Est", ESTIMATORS, ids=ids)
def test_callback_returning_none_goes_on(Est) -> None:
    seen = []
    Est(callback=seen.append).fit(X, target(Est))  # list.append returns None
    assert seen


# -- the LIBSVM reader: its own format error naming the line ------------------------------------


@pytest.mark.parametrize(
    ("content", "match"),
    [
        (b"1 1:0.5\n\xff\xfe 2:1\n", r"line 2: label '\\xff\\xfe' is not a number"),
        (b"1 1:1\n1 99999999999999999999:1\n", r"line 2: feature index '99999999999999999999'"),
        (b"1 qid:99999999999999999999 1:1\n", r"line 1: expected qid:<integer>"),
        (b"1 9223372036854775807:1\n", r"line 1: feature index 9223372036854775807 is too large"),
    ],
    ids=["bytes", "index_overflow", "qid_overflow", "index_at_int64_max"],
)
def test_reader_errors_name_the_line(tmp_path, content, match) -> None:
    path = tmp_path / "bad.svm"
    path.write_bytes(content)
    with pytest.raises(svmkit._core.FormatError, match=match):
        load_svmlight_file(str(path))
