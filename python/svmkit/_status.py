"""The one place where a solver's status becomes the estimator's warning or exception.

Every estimator (LinearSVC, LinearSVR, SVC, SVR, SparseSVC), `fit_adagrad_dual` and the path
helper pass each C++ result dict through `check_status`. Mapping:

=================== ============================================================
converged           nothing
max_iter            ConvergenceWarning ("did not converge ... iteration limit", or
                    the solver's message naming the limit that stopped it)
line_search_failed  ConvergenceWarning naming the failed line search
interrupted         ConvergenceWarning (a UserWarning) that the callback stopped
                    the fit; a pending Ctrl-C never gets here: the bindings re-raise
                    KeyboardInterrupt
numerical_error     FloatingPointError ("numerical error: ...")
infeasible          UserWarning with the solver's certificate (the homotopy's
                    non-separability for C=inf); the returned iterate is kept
out_of_memory       MemoryError with the solver's message (size, controlling option)
=================== ============================================================
"""

from __future__ import annotations

import warnings

from sklearn.exceptions import ConvergenceWarning

from ._core import SolverStatus

__all__ = ["SolverStatus", "check_status"]


def check_status(result: dict, estimator: str, solver: str, *, stacklevel: int = 3) -> None:
    """Warn or raise for `result["status"]` (a SolverStatus) of a fit by `solver`.

    `estimator` names the caller in the messages ("LinearSVC", "smsvm_path", ...);
    `stacklevel` is counted from the caller of check_status.
    """
    status = result["status"]
    if not isinstance(status, SolverStatus):
        raise TypeError(f"result status must be a svmkit.SolverStatus, got {status!r}")
    if status == SolverStatus.converged:
        return
    who = f"{estimator} ({solver})"
    message = result.get("message", "")
    level = stacklevel + 1
    if status == SolverStatus.max_iter:
        # A solver whose limit is not max_iter alone (SmSVM's last smoothing level, a stalled
        # certificate) says which limit stopped it in the message.
        reason = message or (
            f"it stopped at its iteration limit ({result['iterations']} iterations) before "
            "reaching tol; increase max_iter or tol, or scale X"
        )
        warnings.warn(f"{who} did not converge: {reason}", ConvergenceWarning, stacklevel=level)
    elif status == SolverStatus.line_search_failed:
        warnings.warn(
            f"{who} did not converge: the line search failed (no further decrease was possible "
            f"after {result['iterations']} iterations, optimality {result['optimality']:.3g}); "
            "tol may be below what the floating-point arithmetic can reach",
            ConvergenceWarning,
            stacklevel=level,
        )
    elif status == SolverStatus.interrupted:
        warnings.warn(
            f"{who}: fit stopped by the callback after {result['iterations']} iterations",
            ConvergenceWarning,
            stacklevel=level,
        )
    elif status == SolverStatus.numerical_error:
        raise FloatingPointError(
            f"{who}: numerical error: a non-finite value appeared in the objective or the "
            "iterate" + (f" ({message})" if message else "") + "; check the scale of X, the "
            "value of C and the step options"
        )
    elif status == SolverStatus.infeasible:
        warnings.warn(
            f"{who}: " + (message or "the problem is infeasible"), UserWarning, stacklevel=level
        )
    elif status == SolverStatus.out_of_memory:
        raise MemoryError(f"{who}: " + (message or "out of memory"))
    else:  # pragma: no cover - a status added in C++ but not here
        raise RuntimeError(f"{who}: unknown solver status {status!r}")
