"""The status contract: SolverStatus is a Python enum in every result dict, and one function
(svmkit._status.check_status) turns each status into the same warning or exception for every
estimator. References are the statuses' definitions (svmkit/status.hpp), not earlier output."""

from __future__ import annotations

import enum
import os
import signal
import warnings

import numpy as np
import pytest
import svmkit
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler
from svmkit import SVC, LinearSVC, SolverStatus, SparseSVC, fit_adagrad_dual
from svmkit._status import check_status


@pytest.fixture(scope="module")
def cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _result(status, **kw):
    return {"status": status, "iterations": 7, "optimality": 1e-3, "objective": 1.0, **kw}


def test_solver_status_is_a_python_enum_with_every_status():
    assert issubclass(SolverStatus, enum.Enum)
    assert {s.name for s in SolverStatus} == {
        "converged",
        "max_iter",
        "line_search_failed",
        "interrupted",
        "numerical_error",
        "infeasible",
        "out_of_memory",
    }


def test_result_dicts_carry_the_enum_and_a_message(cancer):
    X, y = cancer
    m = LinearSVC(solver="tron", loss="squared_hinge").fit(X, y)
    assert m.result_[0]["status"] is SolverStatus.converged
    assert m.result_[0]["message"] == ""
    s = SVC(kernel="linear").fit(X[:100], y[:100])
    assert s.result_[0]["status"] is SolverStatus.converged


@pytest.mark.parametrize(
    ("status", "kind", "match"),
    [
        (SolverStatus.max_iter, ConvergenceWarning, "did not converge: not separable here"),
        (SolverStatus.line_search_failed, ConvergenceWarning, "line search failed"),
        (SolverStatus.interrupted, ConvergenceWarning, "stopped by the callback"),
        (SolverStatus.infeasible, UserWarning, "not separable here"),
    ],
)
def test_check_status_warnings(status, kind, match):
    with pytest.warns(kind, match=match):
        check_status(_result(status, message="not separable here"), "Est", "solver")


def test_max_iter_without_a_message_names_the_iteration_limit():
    with pytest.warns(ConvergenceWarning, match=r"Est \(solver\) did not converge.*iteration"):
        check_status(_result(SolverStatus.max_iter), "Est", "solver")


def test_check_status_exceptions_and_silence():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_status(_result(SolverStatus.converged), "Est", "solver")
    with pytest.raises(FloatingPointError, match=r"Est \(solver\): numerical error"):
        check_status(_result(SolverStatus.numerical_error), "Est", "solver")
    with pytest.raises(MemoryError, match=r"Est \(s\): needs 9 GB, see max_x"):
        check_status(
            _result(SolverStatus.out_of_memory, message="needs 9 GB, see max_x"), "Est", "s"
        )
    with pytest.raises(TypeError, match="must be a svmkit.SolverStatus"):
        check_status(_result("converged"), "Est", "solver")


def test_tron_line_search_failed_now_warns(cancer):
    """tol = 0 cannot be met: TRON ends with line_search_failed, which used to be silent."""
    X, y = cancer
    with pytest.warns(ConvergenceWarning, match=r"LinearSVC \(tron\).*line search failed"):
        m = LinearSVC(solver="tron", loss="squared_hinge", tol=0.0).fit(X, y)
    assert m.result_[0]["status"] is SolverStatus.line_search_failed


def test_max_iter_warns_for_every_estimator(cancer):
    X, y = cancer
    with pytest.warns(ConvergenceWarning, match="iteration limit"):
        LinearSVC(solver="smsvm", loss="hinge", max_iter=1).fit(X, y)
    with pytest.warns(ConvergenceWarning, match="iteration limit"):
        SVC(kernel="rbf", max_iter=2).fit(X, y)
    with pytest.warns(ConvergenceWarning, match=r"SparseSVC \(nssvm\).*iteration limit"):
        SparseSVC(max_iter=1).fit(X, y)
    with pytest.warns(ConvergenceWarning, match=r"fit_adagrad_dual.*iteration limit"):
        fit_adagrad_dual(X[:100], np.where(y[:100] > 0, 1.0, -1.0), max_iter=3)
    with pytest.warns(ConvergenceWarning, match=r"smsvm_path \(smsvm\).*iteration limit"):
        svmkit.smsvm_path(X, y, Cs=[1.0], solver_options={"max_iter": 1})


def test_callback_stop_warns_and_ctrl_c_raises(cancer):
    X, y = cancer
    with pytest.warns(UserWarning, match="stopped by the callback"):
        LinearSVC(solver="tron", loss="squared_hinge", callback=lambda r: False).fit(X, y)

    def ctrl_c(rec):
        os.kill(os.getpid(), signal.SIGINT)  # a pending Ctrl-C, noticed at the next poll
        return True

    with pytest.raises(KeyboardInterrupt):
        LinearSVC(solver="sgd", loss="squared_hinge", callback=ctrl_c, max_iter=50).fit(X, y)


def test_numerical_error_raises(cancer):
    X, y = cancer
    est = LinearSVC(
        solver="sgd",
        loss="squared_hinge",
        max_iter=50,
        solver_options={"learning_rate": 1e10, "momentum_type": "none"},
    )
    with pytest.raises(FloatingPointError, match=r"LinearSVC \(sgd\): numerical error"):
        est.fit(X, y)


def test_homotopy_infeasible_is_a_status_with_its_certificate():
    X, y = load_iris(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = (y == 1).astype(int)  # versicolor vs rest: not separable
    with pytest.warns(UserWarning, match="not linearly separable.*Farkas certificate"):
        m = LinearSVC(solver="homotopy", loss="hinge", C=np.inf).fit(X, y)
    res = m.result_[0]
    assert res["status"] is SolverStatus.infeasible
    assert "bounds the margin by" in res["message"]


def test_out_of_memory_raises_memory_error(cancer):
    X, y = cancer
    with pytest.raises(MemoryError, match="Gram matrix .*max_gram_mb"):
        fit_adagrad_dual(X, np.where(y > 0, 1.0, -1.0), kernel="rbf", options={"max_gram_mb": 0.01})
