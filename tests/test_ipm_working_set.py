"""ipm's working set of features (column generation) for the l1 / elastic-net hinge SVM on
many features: the restricted solves, grown until the certificate over all features is <= tol.

References: clarabel solving the same problem exactly (tests/references.primal_svm). The
result's optimality (its certificate over all features) must bound the true relative gap.
Data: seeded sparse text (svmkit.datasets.make_sparse_text_like) and scikit-learn's bundled
digits, in every layout (CSR with 32- and 64-bit indices, unsorted rows, dense C and Fortran
order, float32).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import svmkit
from references import primal_svm
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from svmkit import _core, _solvers
from svmkit.datasets import make_sparse_text_like

# Small sets and a first working set of a few features: several rounds of growth.
FORCE = {"working_set_min_features": 0, "working_set_initial": 5}


def text(n: int = 300, d: int = 1500, density: float = 0.02, seed: int = 0):
    X, y = make_sparse_text_like(n, d, density=density, random_state=seed)
    return sp.csr_matrix(X), np.where(y > 0, 1.0, -1.0)


def objective(X, y, cost, w, b, l1, l2, bias_l2) -> float:
    z = np.asarray(X @ w).ravel() + b
    return float(
        l1 * np.abs(w).sum()
        + 0.5 * l2 * (w @ w)
        + 0.5 * bias_l2 * b * b
        + cost @ np.maximum(0.0, 1.0 - y * z)
    )


def fit(X, y, penalty="l1", tol=1e-4, C=1.0, options=FORCE, **kw):
    return svmkit.LinearSVC(
        loss="hinge", penalty=penalty, C=C, solver="ipm", tol=tol, solver_options=options, **kw
    ).fit(X, y)


@pytest.mark.parametrize(("penalty", "l1", "l2"), [("l1", 1.0, 0.0), ("elasticnet", 0.5, 0.5)])
@pytest.mark.parametrize("C", [0.3, 3.0])
def test_matches_the_exact_qp(penalty, l1, l2, C) -> None:
    """At tol 1e-9 the objective is the exact optimum's; at the default tol the certificate over
    all features bounds the true gap; the set grew over several rounds."""
    X, y = text()
    cost = np.full(len(y), C)
    _, _, F = primal_svm(X, y, cost, l1=l1, l2=l2, reg_b=l2 > 0.0)
    for tol, bound in [(1e-9, 1e-7), (1e-4, None)]:
        clf = fit(X, y, penalty, tol, C)
        res = clf.result_[0]
        assert res["status"] == _core.SolverStatus.converged, res["message"]
        F_fit = objective(X, y, cost, clf.coef_[0], clf.intercept_[0], l1, l2, l2)
        assert F_fit == pytest.approx(res["objective"], rel=1e-10)
        rel = (F_fit - F) / F
        assert rel <= res["optimality"] + 1e-9
        assert res["optimality"] <= tol
        if bound is not None:
            assert abs(rel) <= bound, (tol, rel)
        sizes = np.unique(res["history"]["active_size"])
        assert sizes[0] == 5 and len(sizes) >= 2, sizes  # started with 5 features, grew
        assert sizes[-1] < X.shape[1]  # and never took all of them


def layouts(X):
    X64 = X.copy()
    X64.indices = X64.indices.astype(np.int64)
    X64.indptr = X64.indptr.astype(np.int64)
    unsorted = X.copy()
    for i in range(unsorted.shape[0]):  # reverse each row's entries
        a, b = unsorted.indptr[i], unsorted.indptr[i + 1]
        unsorted.indices[a:b] = unsorted.indices[a:b][::-1].copy()
        unsorted.data[a:b] = unsorted.data[a:b][::-1].copy()
    unsorted.has_sorted_indices = False
    dense = X.toarray()
    return {
        "csr int64": X64,
        "csr unsorted": unsorted,
        "dense C": dense,
        "dense F": np.asfortranarray(dense),
        "float32": X.astype(np.float32),
    }


@pytest.mark.parametrize("layout", ["csr int64", "csr unsorted", "dense C", "dense F", "float32"])
def test_every_layout_solves_the_same_problem(layout) -> None:
    """Every storage of X gives the exact optimum (the float32 data's own)."""
    X, y = text(200, 800, 0.03, seed=1)
    Xl = layouts(X)[layout]
    Xref = Xl.astype(np.float64) if layout == "float32" else X
    _, _, F = primal_svm(Xref, y, 1.0, l1=1.0, l2=0.0, reg_b=False)
    clf = fit(Xl, y, tol=1e-9)
    assert clf.result_[0]["status"] == _core.SolverStatus.converged
    assert clf.result_[0]["objective"] == pytest.approx(F, rel=1e-7)


def test_the_working_set_and_the_whole_system_agree_and_threads_do_not_matter() -> None:
    """The working set's optimum is the one ipm finds on all features at once (digits, 64
    features, ten one-vs-rest problems), and 1 and 2 threads give identical fits."""
    X, y = load_digits(return_X_y=True)
    X = X[:500] / 16.0
    y = y[:500]
    whole = svmkit.LinearSVC(
        loss="hinge", penalty="l1", solver="ipm", tol=1e-9, solver_options={}
    ).fit(X, y)
    kw = dict(loss="hinge", penalty="l1", solver="ipm", tol=1e-9, solver_options=FORCE)
    one = svmkit.LinearSVC(**kw, n_jobs=1).fit(X, y)
    two = svmkit.LinearSVC(**kw, n_jobs=2).fit(X, y)
    for a, b in zip(whole.result_, one.result_):
        assert b["objective"] == pytest.approx(a["objective"], rel=1e-7)
    np.testing.assert_array_equal(one.coef_, two.coef_)
    np.testing.assert_array_equal(one.intercept_, two.intercept_)


def test_zero_optimum_and_bias_only() -> None:
    """A C so small that w = 0 is optimal: the fit is w = 0 with the bias the exact solver's."""
    X, y = text()
    C = 1e-4
    _, _, F = primal_svm(X, y, C, l1=1.0, l2=0.0, reg_b=False)
    clf = fit(X, y, C=C, tol=1e-9)
    assert clf.result_[0]["status"] == _core.SolverStatus.converged
    assert np.count_nonzero(clf.coef_) <= 1
    assert clf.result_[0]["objective"] == pytest.approx(F, rel=1e-7)


def test_a_full_working_set_ends_the_run_with_its_reason() -> None:
    """Where the optimum needs more than working_set_max_features features, an explicitly
    named ipm stops with status max_iter and a ConvergenceWarning naming the option, its point
    bounded by the certificate over all features."""
    X, y = text()
    with pytest.warns(ConvergenceWarning, match="working_set_max_features = 8"):
        clf = fit(X, y, options={**FORCE, "working_set_max_features": 8})
    res = clf.result_[0]
    assert res["status"] == _core.SolverStatus.max_iter
    assert np.count_nonzero(clf.coef_) <= 8
    _, _, F = primal_svm(X, y, 1.0, l1=1.0, l2=0.0, reg_b=False)
    assert 1e-4 < (res["objective"] - F) / res["objective"] <= res["optimality"] + 1e-9


def test_the_cap_is_lifted_once_the_set_holds_as_many_features_as_samples() -> None:
    """working_set_max_features bounds the set while it holds fewer features than samples (the
    feature form's cubic cost); from as many on, the sample form's cost grows linearly with the
    set and the cap no longer ends the run: on 40 samples the elastic net's optimum needs far
    more than 40 features, and the run with a cap of 40 converges to clarabel's optimum, while a
    cap of 20 (below the samples) ends it as before."""
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 800))
    y = np.where(X[:, :3].sum(axis=1) + 0.3 * rng.standard_normal(40) >= 0, 1.0, -1.0)
    _, _, F = primal_svm(X, y, 1.0, l1=0.1, l2=0.9, reg_b=True)
    opts = {**FORCE, "working_set_max_features": 40}
    clf = svmkit.LinearSVC(
        loss="hinge",
        penalty="elasticnet",
        l1_ratio=0.1,
        solver="ipm",
        tol=1e-8,
        solver_options=opts,
    ).fit(X, y)
    res = clf.result_[0]
    assert res["status"] == _core.SolverStatus.converged, res["message"]
    assert np.count_nonzero(clf.coef_) > 40
    assert res["objective"] == pytest.approx(F, rel=1e-6)
    with pytest.warns(ConvergenceWarning, match="working_set_max_features = 20"):
        svmkit.LinearSVC(
            loss="hinge",
            penalty="elasticnet",
            l1_ratio=0.1,
            solver="ipm",
            solver_options={**FORCE, "working_set_max_features": 20},
        ).fit(X, y)


def test_max_iter_counts_from_each_start() -> None:
    """max_iter bounds the iterations from each start of the method; the warning states the
    gap over all features."""
    X, y = text()
    with pytest.warns(ConvergenceWarning, match="iterations from a start"):
        clf = fit(X, y, max_iter=2)
    res = clf.result_[0]
    assert res["status"] == _core.SolverStatus.max_iter
    _, _, F = primal_svm(X, y, 1.0, l1=1.0, l2=0.0, reg_b=False)
    assert (res["objective"] - F) / res["objective"] <= res["optimality"] + 1e-9


def test_auto_sends_sparse_wide_l1_hinge_to_ipm_and_hands_over_where_the_set_is_full(
    monkeypatch,
) -> None:
    """solver="auto": the pure l1 hinge with n_samples <= IPM_L1_WIDE_RATIO * n_features
    (sparse or dense) goes to ipm (the rule's table is in test_auto.py); where ipm's working set is
    full, l1_cd (and its finishers) go on from ipm's point to the exact optimum."""
    X, y = text(300, 1500)
    _, _, F = primal_svm(X, y, 1.0, l1=1.0, l2=0.0, reg_b=False)
    clf = svmkit.LinearSVC(loss="hinge", penalty="l1").fit(X, y)
    assert clf.solver_ == "ipm" and "finished_by" not in clf.result_[0]
    assert (clf.result_[0]["objective"] - F) / F <= 1e-4
    dense = svmkit.LinearSVC(loss="hinge", penalty="l1").fit(X.toarray(), y)
    assert dense.solver_ == "ipm" and (dense.result_[0]["objective"] - F) / F <= 1e-4
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)  # the hand-over is silent
        clf = svmkit.LinearSVC(
            loss="hinge", penalty="l1", solver_options={"working_set_max_features": 3}
        ).fit(X, y)
    res = clf.result_[0]
    assert res["started_by"]["status"] == _core.SolverStatus.max_iter
    assert "working_set_max_features" in res["started_by"]["message"]
    assert res["finished_by"] in ("l1_cd", "highs", "smsvm")
    assert (res["objective"] - F) / F <= 1e-4
    monkeypatch.setattr(_solvers, "IPM_L1_WIDE_RATIO", 0)  # the rule before: l1_cd
    assert svmkit.LinearSVC(loss="hinge", penalty="l1").fit(X, y).solver_ == "l1_cd"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"working_set_initial": 0}, "working_set_initial"),
        ({"working_set_max_features": 0}, "working_set_max_features"),
        ({"working_set_min_features": -1}, "working_set_min_features"),
        # the working set's system above the budget: refused when the set would grow there
        ({**FORCE, "max_system_mb": 0.01}, "max_system_mb"),
    ],
)
def test_invalid_options_are_a_clear_error(options, message) -> None:
    X, y = text()
    with pytest.raises(ValueError, match=message):
        fit(X, y, options=options)
