"""The registry of linear solvers: which losses and penalties each handles, and how to call it.

Each entry's `fit` takes the validated, converted problem of one binary (or regression) fit
and returns the C++ result dict (status, solution, objective, iterations, passes, history).
Options are passed as a dict to the C++ options table of that solver, whose defaults are
the single source of truth (see `solver_defaults`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from . import _core


@dataclass(frozen=True)
class LinearFitRequest:
    """One binary classification or regression problem, ready for a solver."""

    X: Any  # core matrix (see _validation.as_core_matrix)
    y: np.ndarray  # +-1 (classification) or targets (regression), float64
    cost: np.ndarray  # per-sample costs C * sample_weight * class_weight, float64
    loss: str
    sigma: float
    epsilon: float
    penalty: str
    l1_ratio: float
    C: float
    fit_intercept: bool
    intercept_scaling: float
    regularize_intercept: bool
    w0: np.ndarray | None
    options: dict
    callback: Callable[[dict], Any] | None
    random_state: int | None


@dataclass(frozen=True)
class SolverSpec:
    name: str
    losses: frozenset[str]
    penalties: frozenset[str]
    fit: Callable[[LinearFitRequest], dict]
    defaults: Callable[[], dict]
    description: str


def _fit_tron(req: LinearFitRequest) -> dict:
    return _core.fit_tron(
        req.X,
        req.y,
        req.cost,
        req.loss,
        req.sigma,
        req.epsilon,
        req.fit_intercept,
        req.intercept_scaling,
        req.regularize_intercept,
        req.w0,
        req.options,
        req.callback,
    )


def smsvm_penalty_weights(penalty: str, l1_ratio: float) -> tuple[float, float]:
    """(l2, l1) weights of SmSVM's objective in scikit-learn's elastic-net language.

    F(w, b) = l2/2 ||w||^2 + l1 ||w||_1 + sum_i C_i hinge_i with l2 = 1 - rho, l1 = rho and
    rho = 0 ("l2"), 1 ("l1") or l1_ratio ("elasticnet"). In paper 000's averaged form (uniform
    costs C): lambda = l2 / (C N), mu = l1 / (C N).
    """
    rho = {"l2": 0.0, "l1": 1.0}.get(penalty, float(l1_ratio))
    return 1.0 - rho, rho


def _fit_smsvm(req: LinearFitRequest) -> dict:
    options = dict(req.options)
    # Python-side warm-start hint (the alpha to restart from); not a C++ option.
    warm_alpha = float(options.pop("warm_alpha", 0.0)) if req.w0 is not None else 0.0
    l2, l1 = smsvm_penalty_weights(req.penalty, req.l1_ratio)
    return _core.fit_smsvm(
        req.X,
        req.y,
        req.cost,
        l2,
        l1,
        req.fit_intercept,
        req.intercept_scaling,
        req.regularize_intercept,
        req.w0,
        warm_alpha,
        options,
        req.callback,
    )


LINEAR_SOLVERS: dict[str, SolverSpec] = {
    "smsvm": SolverSpec(
        name="smsvm",
        losses=frozenset({"hinge"}),
        penalties=frozenset({"l2", "l1", "elasticnet"}),
        fit=_fit_smsvm,
        defaults=_core.smsvm_defaults,
        description="smoothing active-set Newton for the l1-l2 hinge-loss SVM (paper 000)",
    ),
    "tron": SolverSpec(
        name="tron",
        losses=frozenset(
            {
                "squared_hinge",
                "smoothed_hinge",
                "gaussian_smoothed_hinge",
                "logistic",
                "squared_epsilon_insensitive",
                "smoothed_epsilon_insensitive",
            }
        ),
        penalties=frozenset({"l2"}),
        fit=_fit_tron,
        defaults=_core.tron_defaults,
        description="trust-region Newton with conjugate gradients (paper 002)",
    ),
}

# The solver used by solver="auto" for each loss (first match in this order).
AUTO_ORDER: tuple[str, ...] = ("smsvm", "tron", "sgd")


def solver_defaults(name: str) -> dict:
    """The default options of a solver, read from the C++ options struct."""
    if name not in LINEAR_SOLVERS:
        raise ValueError(f"unknown solver {name!r}; available: {', '.join(LINEAR_SOLVERS)}")
    return dict(LINEAR_SOLVERS[name].defaults())


def pick_solver(solver: str, loss: str, penalty: str, estimator: str) -> SolverSpec:
    """Resolve solver='auto' and check that the solver handles the loss and penalty."""
    if solver == "auto":
        for name in AUTO_ORDER:
            spec = LINEAR_SOLVERS.get(name)
            if spec and loss in spec.losses and penalty in spec.penalties:
                return spec
        raise ValueError(
            f"{estimator}: no available solver handles loss={loss!r} with penalty={penalty!r}"
        )
    if solver not in LINEAR_SOLVERS:
        raise ValueError(
            f"{estimator}: unknown solver {solver!r}; available: "
            + ", ".join(["auto", *LINEAR_SOLVERS])
        )
    spec = LINEAR_SOLVERS[solver]
    if loss not in spec.losses:
        raise ValueError(
            f"{estimator}: solver {solver!r} does not handle loss={loss!r}; "
            f"it handles: {', '.join(sorted(spec.losses))}"
        )
    if penalty not in spec.penalties:
        raise ValueError(
            f"{estimator}: solver {solver!r} does not handle penalty={penalty!r}; "
            f"it handles: {', '.join(sorted(spec.penalties))}"
        )
    return spec
