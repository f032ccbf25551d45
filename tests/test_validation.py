"""Every bad input gets a clear error naming the problem, from Python and from C++."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from sklearn.exceptions import NotFittedError
from svmkit import _core
from svmkit._validation import encode_labels

rng = np.random.default_rng(0)
X = rng.standard_normal((40, 3))
y = np.r_[np.zeros(20), np.ones(20)]
y_reg = rng.standard_normal(40)


def with_value(a, index, value):
    a = a.copy()
    a[index] = value
    return a


@pytest.mark.parametrize(
    ("Xb", "yb", "exc", "match"),
    [
        (with_value(X, (3, 1), np.nan), y, ValueError, "NaN"),
        (with_value(X, (0, 0), np.inf), y, ValueError, "infinity"),
        (X, with_value(y, 5, np.nan), ValueError, "NaN"),
        (X[:, 0], y, ValueError, "2D array"),
        (X[:, :, None], y, ValueError, "dim 3"),
        (X, y[:-1], ValueError, "inconsistent numbers of samples"),
        (X[:0], y[:0], ValueError, "0 sample"),
        (X[:, :0], y, ValueError, "0 feature"),
        (X, np.zeros(40), ValueError, "only one class"),
        (X, y_reg, ValueError, "Unknown label type"),
        (X.astype(complex), y, ValueError, "[Cc]omplex"),
        (np.array([["a", "b", "c"]] * 40), y, ValueError, "could not convert|dtype"),
    ],
)
def test_bad_data_linear_svc(Xb, yb, exc, match) -> None:
    with pytest.raises(exc, match=match):
        svmkit.LinearSVC().fit(Xb, yb)


@pytest.mark.parametrize("estimator", [svmkit.LinearSVC, svmkit.SparseSVC])
@pytest.mark.parametrize(
    ("labels", "named"), [(np.zeros(40), "only one class: 0.0$"), (["spam"] * 40, "'spam'$")]
)
def test_one_class_is_named_as_python_writes_it(estimator, labels, named) -> None:
    """The one label in the message is 0.0 or 'spam', not numpy's np.float64(0.0)."""
    with pytest.raises(ValueError, match=named):
        estimator().fit(X, labels)


@pytest.mark.parametrize(
    ("params", "exc", "match"),
    [
        ({"C": 0.0}, ValueError, "C must be > 0"),
        ({"C": -1.0}, ValueError, "C must be > 0"),
        ({"C": float("nan")}, ValueError, "C must be finite"),
        ({"C": "1"}, TypeError, "C must be of type float"),
        ({"tol": -1e-3}, ValueError, "tol must be >= 0"),
        ({"max_iter": -5}, ValueError, "max_iter must be >= 0"),
        ({"max_iter": 2.5}, TypeError, "max_iter must be of type int"),
        ({"loss": "squares"}, ValueError, "loss must be one of"),
        ({"penalty": "l3"}, ValueError, "penalty must be one of"),
        ({"solver": "newton"}, ValueError, "unknown solver 'newton'"),
        ({"solver": 3}, TypeError, "solver must be a string"),
        ({"solver": "smsvm", "loss": "squared_hinge"}, ValueError, "does not handle loss='squ"),
        ({"solver": "tron", "penalty": "l1"}, ValueError, "does not handle penalty='l1'"),
        ({"sigma": 0.0, "loss": "smoothed_hinge"}, ValueError, "sigma must be > 0"),
        ({"intercept_scaling": 0.0}, ValueError, "intercept_scaling must be > 0"),
        ({"class_weight": "unbalanced"}, ValueError, "class_weight must be"),
        ({"class_weight": {7: 2.0}}, ValueError, r"labels not in y: \[7\]"),
        ({"class_weight": {1.0: -2.0}}, ValueError, r"class_weight\[1.0\] must be >= 0"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be a nonzero integer"),
        ({"n_jobs": 1.5}, TypeError, "n_jobs must be of type int"),
        ({"multi_class": "weston_watkins"}, ValueError, "multi_class must be one of"),
        ({"l1_ratio": 1.5}, ValueError, "l1_ratio must be <= 1"),
        (
            {"solver_options": {"no_such_option": 1}},
            ValueError,
            "unknown tron option 'no_such_option'",
        ),
        ({"solver_options": {"cg_tol": "x"}}, ValueError, "option 'cg_tol' has the wrong type"),
        (
            {"solver_options": {"cg_tol": 2.0}},
            ValueError,
            r"option 'cg_tol' must be > 0 and < 1, got 2",
        ),
        ({"solver_options": [1]}, TypeError, "solver_options must be a dict"),
        ({"callback": 3}, TypeError, "callback must be callable"),
        ({"random_state": "seed"}, TypeError, "random_state must be"),
        ({"verbose": -1}, ValueError, "verbose must be >= 0"),
        ({"fit_intercept": "yes"}, TypeError, "fit_intercept must be of type bool"),
    ],
)
def test_bad_parameters_linear_svc(params, exc, match) -> None:
    with pytest.raises(exc, match=match):
        svmkit.LinearSVC(**params).fit(X, y)


@pytest.mark.parametrize(
    ("params", "exc", "match"),
    [
        ({"epsilon": -0.1}, ValueError, "epsilon must be >= 0"),
        ({"loss": "hinge"}, ValueError, "loss must be one of"),
        ({"solver": "smsvm", "loss": "epsilon_insensitive"}, ValueError, "does not handle loss"),
        ({"C": 0}, ValueError, "C must be > 0"),
    ],
)
def test_bad_parameters_linear_svr(params, exc, match) -> None:
    with pytest.raises(exc, match=match):
        svmkit.LinearSVR(**params).fit(X, y_reg)


def test_bad_targets_linear_svr() -> None:
    with pytest.raises(ValueError, match="NaN"):
        svmkit.LinearSVR().fit(X, with_value(y_reg, 0, np.nan))
    with pytest.raises(ValueError, match="could not convert|numeric"):
        svmkit.LinearSVR().fit(X, np.array(["a"] * 40))


@pytest.mark.parametrize(
    ("sw", "exc", "match"),
    [
        (-np.ones(40), ValueError, "non-negative"),
        (np.ones(39), ValueError, "sample_weight has 39 entries"),
        (np.ones((40, 2)), ValueError, "sample_weight must be 1-D"),
        (with_value(np.ones(40), 3, np.nan), ValueError, "sample_weight contains NaN"),
        (np.zeros(40), ValueError, "zero for every sample"),
        (np.array(["a"] * 40), TypeError, "sample_weight must be numeric"),
    ],
)
def test_bad_sample_weight(sw, exc, match) -> None:
    with pytest.raises(exc, match=match):
        svmkit.LinearSVC().fit(X, y, sample_weight=sw)


def test_predict_errors() -> None:
    with pytest.raises(NotFittedError):
        svmkit.LinearSVC().predict(X)
    m = svmkit.LinearSVC().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but LinearSVC is expecting 3"):
        m.predict(X[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        m.decision_function(with_value(X, (0, 0), np.nan))


# --- the C++ core validates its own inputs too (for embedding programs) -------------------


def core_fit(Xc, yc, cost, **kw):
    args = dict(
        loss="squared_hinge",
        sigma=0.1,
        epsilon=0.0,
        fit_intercept=True,
        intercept_scaling=1.0,
        regularize_intercept=True,
        w0=None,
        options={},
        callback=None,
    )
    args.update(kw)
    return _core.fit_tron(Xc, yc, cost, **args)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        (
            {"yc": with_value(np.where(y > 0, 1.0, -1.0), 2, 0.5)},
            r"targets must be -1 or \+1; y\[2\]",
        ),
        ({"cost": with_value(np.ones(40), 7, -1.0)}, r"costs must be finite and >= 0; cost\[7\]"),
        ({"Xc": with_value(X, (1, 1), np.nan)}, "X contains NaN or infinity"),
        ({"yc": np.ones(39)}, "y has length 39, expected 40"),
        ({"loss": "what"}, "unknown loss 'what'"),
        ({"intercept_scaling": -1.0}, "intercept_scaling must be a positive"),
        ({"w0": np.zeros(2)}, "initial solution has length 2, expected 4"),
        ({"options": {"max_iter": -1}}, "option 'max_iter' must be >= 0, got -1"),
        # a = 1 made M = diag(H) (zero where a feature is unused): refused since option records
        (
            {"options": {"preconditioner_weight": 1.0}},
            "'preconditioner_weight' must be >= 0 and < 1",
        ),
        ({"options": {"eta1": 0.9}}, "eta0 < eta1 < eta2"),
        ({"Xc": X.astype(np.int64)}, "X must be float32 or float64"),
        ({"Xc": X[::2, ::2]}, "contiguous along rows or columns"),
        ({"Xc": X[0]}, "X must be a 2-D array"),
        (
            {
                "Xc": (
                    np.ones(3),
                    np.array([0, 5, 1], dtype=np.int32),
                    np.array([0, 1, 2, 3], dtype=np.int32),
                    3,
                    3,
                )
            },
            "column index 5 out of range",
        ),
        (
            {
                "Xc": (
                    np.ones(3),
                    np.array([0, 1, 1], dtype=np.int32),
                    np.array([0, 2, 1, 3], dtype=np.int32),
                    3,
                    3,
                )
            },
            "indptr is not non-decreasing",
        ),
        (
            {"Xc": (np.ones(3), np.zeros(3, dtype=np.int32), np.zeros(4, dtype=np.int64), 3, 3)},
            "same integer type",
        ),
    ],
)
def test_core_rejects_bad_input(kwargs, match) -> None:
    base = {"Xc": X, "yc": np.where(y > 0, 1.0, -1.0), "cost": np.ones(40)}
    Xc = kwargs.pop("Xc", base["Xc"])
    yc = kwargs.pop("yc", base["yc"])
    cost = kwargs.pop("cost", base["cost"])
    if isinstance(Xc, tuple) and yc.shape[0] != Xc[3]:
        yc, cost = np.ones(Xc[3]), np.ones(Xc[3])
    with pytest.raises(ValueError, match=match):
        core_fit(Xc, yc, cost, **kwargs)


def test_model_file_errors(tmp_path) -> None:
    with pytest.raises(OSError, match="cannot open model file"):
        svmkit.load_model(tmp_path / "missing.model")
    bad = tmp_path / "bad.model"
    bad.write_text("svmkit_model 1\nkind linear\ntask classification\nn_features 2\nbogus 3\n")
    with pytest.raises(ValueError, match="line 5: unknown key 'bogus'"):
        svmkit.load_model(bad)
    bad.write_text("hello\n")
    with pytest.raises(_core.FormatError, match="line 1: not an svmkit model file"):
        svmkit.load_model(bad)
    bad.write_text("svmkit_model 99\n")
    with pytest.raises(ValueError, match="unsupported model format version 99"):
        svmkit.load_model(bad)
    m = svmkit.LinearSVC().fit(X, y)
    good = tmp_path / "good.model"
    svmkit.save_model(m, good)
    # Without the checksum line (optional), so that the edits below meet the structural checks.
    text = [t for t in good.read_text().splitlines() if not t.startswith("checksum ")]
    text[-2] = "1.0 2.0"  # a coef row with too few values
    bad.write_text("\n".join(text) + "\n")
    with pytest.raises(ValueError, match="coef row has 2 values, expected 3"):
        svmkit.load_model(bad)
    text_nan = list(text)
    text_nan[-2] = "nan 1.0 2.0"
    bad.write_text("\n".join(text_nan) + "\n")
    with pytest.raises(ValueError, match="'nan' is not a finite number"):
        svmkit.load_model(bad)
    bad.write_text("\n".join(text[:-1]) + "\n")
    with pytest.raises(ValueError, match="missing 'end'|coef row"):
        svmkit.load_model(bad)
    with pytest.raises(TypeError, match="save_model supports"):
        svmkit.save_model(object(), good)
    with pytest.raises(ValueError, match="fitted"):
        svmkit.save_model(svmkit.LinearSVC(), good)
    ms = svmkit.LinearSVC().fit(X, np.where(y > 0, "yes", "no"))
    with pytest.raises(ValueError, match="numeric class labels"):
        svmkit.save_model(ms, good)


def test_sparse_input_formats_are_accepted() -> None:
    ref = svmkit.LinearSVC().fit(X, y).decision_function(X)
    for fmt in ("csr", "csc", "coo", "lil"):
        Xs = sp.random(40, 3, density=1.0, random_state=0, format=fmt)
        Xs = Xs.tocsr()
        Xs.data[:] = X.ravel()
        got = svmkit.LinearSVC().fit(Xs.asformat(fmt), y).decision_function(Xs.asformat(fmt))
        np.testing.assert_allclose(got, ref, rtol=1e-9)


# -- the declared parameter rules (svmkit/_constraints.py) -------------------------------------


def test_rules_name_the_parameter_and_the_value() -> None:
    from svmkit._constraints import AnyOf, Int, OneOf, Real

    with pytest.raises(ValueError, match=r"^C must be > 0, got -2.5$"):
        Real(gt=0.0).check(-2.5, "C")
    with pytest.raises(TypeError, match=r"^tol must be of type float or None, got True$"):
        Real(ge=0.0, none=True).check(True, "tol")
    with pytest.raises(ValueError, match=r"^max_iter must be an int >= 1 \(or -1\), got -3$"):
        Int(ge=1, also=(-1,)).check(-3, "max_iter")
    Int(ge=1, also=(-1,)).check(-1, "max_iter")
    gamma = AnyOf(OneOf("scale", "auto"), Real(gt=0.0))
    with pytest.raises(ValueError, match=r"^gamma must be one of 'scale', 'auto'; got 'x'$"):
        gamma.check("x", "gamma")
    with pytest.raises(TypeError, match=r"^gamma must be one of .* or a float > 0, got \[1\]$"):
        gamma.check([1], "gamma")


def test_solver_rule_follows_the_solver_table() -> None:
    from svmkit._constraints import KeyOf

    table = {"smo": 1}
    rule = KeyOf(table)
    with pytest.raises(ValueError, match=r"solver must be one of 'smo'; got 'new'"):
        rule.check("new", "solver")
    table["new"] = 2  # a solver registered after the estimator class was declared
    rule.check("new", "solver")


def test_a_subclass_extends_the_declared_table() -> None:
    # The recipe for new estimators (NuSVC, crammer_singer, ...): extend the base's dict.
    from svmkit._constraints import Real

    class NuLike(svmkit.SVC):
        _parameter_checks = {
            **{k: v for k, v in svmkit.SVC._parameter_checks.items() if k != "C"},
            "nu": Real(gt=0.0, le=1.0),
        }

        def __init__(self, nu=0.5, kernel="rbf"):
            super().__init__(kernel=kernel)
            self.nu = nu

    with pytest.raises(ValueError, match=r"^nu must be <= 1, got 1.5$"):
        NuLike(nu=1.5).fit(X, y)
    with pytest.raises(ValueError, match=r"^kernel must be one of"):
        NuLike(kernel="cubic").fit(X, y)


def test_callback_result_rule() -> None:
    from svmkit._constraints import check_callback_result

    assert check_callback_result(print, None) is True
    assert check_callback_result(print, np.bool_(False)) is False
    assert check_callback_result(print, 0) is False
    with pytest.raises(TypeError, match=r"callback print must return None, True or False"):
        check_callback_result(print, 0.5)


def test_solver_option_conflict_names_both_sides() -> None:
    from svmkit._constraints import merge_solver_options

    opts = merge_solver_options("SVC", {"tau": 1e-12}, {"n_threads": ("n_jobs", 2)})
    assert opts == {"tau": 1e-12, "n_threads": 2}
    with pytest.raises(ValueError, match=r"SVC: solver_options\['n_threads'\] = 4 conflicts .*"):
        merge_solver_options("SVC", {"n_threads": 4}, {"n_threads": ("n_jobs", 2)})


@pytest.mark.parametrize(
    "labels",
    [
        np.array([1.0, -1.0, -1.0, 1.0]),
        np.array([3, 1, 2, 3, 1, 7]),
        np.array([-5, -5, 2, 0], dtype=np.int8),
        np.array([True, False, True]),
        np.array(["b", "a", "c", "a"]),
        np.array(["spam", "ham", "spam"], dtype=object),
        np.array([2.5, 2.5, 0.5]),
        np.array([4, 4, 4]),
        np.random.default_rng(1).integers(0, 26, 5000).astype(np.float32),
        np.random.default_rng(2).integers(-3, 3, 1000).astype(np.uint64) * 7,
    ],
)
def test_encode_labels_equals_numpy_unique(labels):
    # The reference is NumPy's own np.unique(return_inverse=True), which encode_labels replaces.
    classes, index = encode_labels(labels)
    want_classes, want_index = np.unique(labels, return_inverse=True)
    np.testing.assert_array_equal(classes, want_classes)
    np.testing.assert_array_equal(index, want_index.ravel())
    assert index.dtype == np.intp
    np.testing.assert_array_equal(classes[index], labels)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"C": "1"}, "C must be of type float, got '1'"),
        ({"C": -1.0}, "C must be > 0, got -1.0"),
        # AnyOf names None once (it read "a dict or None or None")
        ({"class_weight": [1, 2, 3]}, r"'balanced' or a dict or None, got \[1, 2, 3\]$"),
    ],
)
def test_parameter_errors_are_value_and_type_errors(params, match) -> None:
    """As scikit-learn's InvalidParameterError: `except ValueError` and `except TypeError`
    both catch a bad parameter, whichever kind of mistake it is."""
    for Est in (svmkit.SVC, svmkit.LinearSVC):
        for kind in (ValueError, TypeError, svmkit.InvalidParameterError):
            with pytest.raises(kind, match=match):
                Est(**params).fit(X, y)


@pytest.mark.parametrize(
    ("Est", "kw", "match"),
    [
        (
            svmkit.LinearSVR,
            {"solver": "dual_cd", "loss": "smoothed_epsilon_insensitive"},
            r"it handles: epsilon_insensitive, squared_epsilon_insensitive$",
        ),
        (svmkit.LinearSVR, {"solver": "smsvm"}, "it handles none of LinearSVR's losses$"),
        (svmkit.LinearSVC, {"solver": "smsvm", "loss": "squared_hinge"}, "it handles: hinge$"),
    ],
)
def test_solver_loss_errors_list_the_estimators_own_losses(Est, kw, match) -> None:
    """A regressor's message lists no classification loss, and a classifier's no regression
    loss (LinearSVR's named every loss dual_cd handles, the hinge ones included)."""
    with pytest.raises(ValueError, match=match):
        Est(**kw).fit(X, y_reg)
