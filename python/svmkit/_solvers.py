"""The registry of linear solvers: which losses and penalties each handles, and how to call it.

Each entry's `fit` takes the validated, converted problem of one binary (or regression) fit
and returns the C++ result dict (status, solution, objective, iterations, passes, history).
Options are passed as a dict to the C++ options table of that solver, whose defaults are
the single source of truth (see `solver_defaults`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp

from . import _core, _lp
from ._validation import scipy_view


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
class Finisher:
    """A second solver that finishes a run of solver="auto" when the first one ends uncertified
    (status max_iter without a max_iter of the user's): the same problem, from the first run's
    point or (from_point=False) from its own start."""

    # The finishing solver's name in LINEAR_SOLVERS; None: only the exact solve below finishes
    # (where it applies and converges), otherwise the better of the two points stands.
    solver: str | None
    losses: frozenset[str]  # the losses it finishes
    # Its options from the first run's result (warm-start settings; the first run's
    # solver_options belong to the first solver).
    warm_options: Callable[[dict], dict]
    # An exact solve tried before `solver` where it applies; its result is used when it converged.
    exact: ExactFinisher | None = None
    # Whether `solver` starts from the first run's point (else from its own start).
    from_point: bool = True
    # The finishing solver for penalty "l2" where it differs from `solver`.
    l2_solver: str | None = None

    def solver_for(self, penalty: str) -> str | None:
        """The finishing solver for this penalty."""
        return self.l2_solver if penalty == "l2" and self.l2_solver is not None else self.solver


@dataclass(frozen=True)
class ExactFinisher:
    """A direct solve of the same problem that finishes a run of solver="auto" (Finisher)."""

    name: str  # the result's "finished_by"
    applies: Callable[[LinearFitRequest], bool]  # whether it can solve this problem
    # Options of the first run where it applies (the user's solver_options take precedence):
    # the first solver may give up sooner when an exact finish is at hand.
    first_options: dict
    fit: Callable[[LinearFitRequest, dict], dict]  # (request, the first run's result) -> result


def _smsvm_after_l1_cd(first: dict) -> dict:
    """smsvm from l1_cd's hinge continuation: its smoothing restarts at l1_cd's last sigma."""
    sigmas = first.get("history", {}).get("smoothing", [])
    return {"warm_alpha": float(sigmas[-1]) if len(sigmas) else 0.0}  # 0: from alpha0


# The pure-l1 hinge's exact finisher (svmkit._lp): HiGHS's time limit is _LP_TIME_FACTOR x the
# first run's time, at least _LP_MIN_SECONDS (it bounds the wait for a solve that cannot stop
# early: Ctrl-C takes effect when HiGHS returns), and l1_cd's continuation hands over after
# _LP_AFTER_PASSES passes. Measured (bench/bench_l1_hinge_c.py): at C <= 1 HiGHS's interior
# point method solved the linear program in the time of 3,000-4,000 of l1_cd's passes (dna.scale
# 0.25-0.29 s per class, sparse 1,600 x 50,000 0.2 s, sparse 16,000 x 10,000 1.5-2.3 s), while the
# continuations that certify took 1,475 (1,600 x 50,000) and 5,317 passes (16,000 x 10,000), since
# 2026-12-06 (l1_cd's loose early stages) 337 and 867, and those that do not ran 6,000-100,000
# passes before giving up; at C = 10 the 16,000 x 10,000 program took 24-26 s after a 4 s
# continuation (a 4x limit sent it on to smsvm: over 120 s). The hand-over at 3,000 passes (8,000
# before the loose stages) is about HiGHS's own time: dna.scale's one-vs-rest fit, whose stages
# never certify (gaps 3-40%), 1.22-1.49 s -> 0.88-1.11 s (HiGHS from the start: 0.63-0.66 s).
_LP_TIME_FACTOR = 10.0
_LP_MIN_SECONDS = 10.0
_LP_AFTER_PASSES = 3000
_LP_CERTIFY_SECONDS = 1.0


def _solver_tol(req: LinearFitRequest, solver: str) -> float:
    """The tol the solver ran at: the request's, else the solver's default."""
    return float(req.options.get("tol", _core.option_defaults(solver)["tol"]))


def _lp_applies(req: LinearFitRequest) -> bool:
    """The pure l1 (the elastic net's problem is a quadratic program) within MAX_LP_ENTRIES."""
    l2, _ = penalty_weights(req.penalty, req.l1_ratio)
    return req.loss == "hinge" and l2 == 0.0 and _lp.within_budget(req.X)


def _lp_after_l1_cd(req: LinearFitRequest, first: dict) -> dict:
    """HiGHS on the pure l1 hinge's linear program (svmkit._lp), certified at l1_cd's tol: first
    on the margin band of l1_cd's point (most uncertified points are near the optimum, and the
    band's program is a small part of the whole), within half the time limit, then the whole
    program within what is left."""
    tol = _solver_tol(req, "l1_cd")
    limit = max(_LP_MIN_SECONDS, _LP_TIME_FACTOR * float(first.get("time", 0.0)))
    problem = (req.X, req.y, req.cost)
    settings = (req.fit_intercept, req.intercept_scaling, tol)
    start = time.perf_counter()
    # The bands get half the time: the whole program must still have time where they fail.
    point = np.asarray(first["solution"])
    band = _lp.solve_l1_hinge_on_band(*problem, point, *settings, 0.5 * limit)
    if band is not None:
        return band
    spent = time.perf_counter() - start
    result = _lp.solve_l1_hinge(*problem, *settings, max(limit - spent, 1e-9))
    result["time"] += spent
    return result


def certify_l1_hinge_on_band(req: LinearFitRequest, result: dict, solver: str) -> dict:
    """A pure-l1 hinge result that ended uncertified (status max_iter), certified where HiGHS's
    program on its margin band bounds its gap within the solver's tol (svmkit._lp, keep_point:
    the point is the solver's own, only its certificate comes from HiGHS), else unchanged. The
    solvers' own certificates can read far above the true gap: smsvm on raw breast_cancer at C = 1
    ran into max_iter reporting 4.3e-3 at a point 8e-5 above the optimum. HiGHS gets at most the
    solver's own time (at least _LP_CERTIFY_SECONDS)."""
    if result["status"] != _core.SolverStatus.max_iter or not _lp_applies(req):
        return result
    tol = _solver_tol(req, solver)
    limit = max(_LP_CERTIFY_SECONDS, float(result.get("time", 0.0)))
    band = _lp.solve_l1_hinge_on_band(
        req.X,
        req.y,
        req.cost,
        np.asarray(result["solution"]),
        req.fit_intercept,
        req.intercept_scaling,
        tol,
        limit,
        keep_point=True,
    )
    if band is None:
        return result
    out = dict(result)
    out.update(
        status=_core.SolverStatus.converged,
        optimality=band["optimality"],
        message=f"{solver}: certified by HiGHS on the margin band |u| <= {band['band_width']} "
        f"({band['band_samples']} samples): relative gap {band['optimality']:.3g} <= tol "
        f"(the run itself: {result.get('message') or 'its iteration limit'})",
        time=float(result.get("time", 0.0)) + band["time"],
        certified_by={k: band[k] for k in ("band_samples", "band_width", "time")},
    )
    return out


@dataclass(frozen=True)
class SolverSpec:
    name: str
    losses: frozenset[str]
    penalties: frozenset[str]
    fit: Callable[[LinearFitRequest], dict]
    description: str
    # Penalties other than "l2" that only some of the losses support: {penalty: losses}.
    penalty_losses: dict[str, frozenset[str]] = field(default_factory=dict)
    finisher: Finisher | None = None

    def handles(self, loss: str, penalty: str) -> bool:
        """Whether the solver solves this loss with this penalty."""
        if loss not in self.losses or penalty not in self.penalties:
            return False
        return loss in self.penalty_losses.get(penalty, self.losses)


def _loss_solver_args(req: LinearFitRequest, options: dict) -> tuple:
    """Positional arguments of the loss-based C++ fits (_core.fit_tron, fit_sgd)."""
    return (
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
        options,
        req.callback,
    )


def _penalty_solver_args(req: LinearFitRequest) -> tuple:
    """Leading positional arguments of the C++ fits that take the penalty's (l1, l2) weights
    (_core.fit_l1_cd, fit_dual_cd_elastic_net)."""
    l2, l1 = penalty_weights(req.penalty, req.l1_ratio)
    return (
        req.X,
        req.y,
        req.cost,
        req.loss,
        l1,
        l2,
        req.fit_intercept,
        req.intercept_scaling,
        req.regularize_intercept,
    )


def _fit_tron(req: LinearFitRequest) -> dict:
    return _core.fit_tron(*_loss_solver_args(req, req.options))


def _fit_sgd(req: LinearFitRequest) -> dict:
    """Primal first-order solver (paper 001 Algorithms 1-4; AdaGrad/AdaDelta/Adam of paper 000).

    The estimator's penalty maps onto the C++ options l1_penalty / l2_penalty:
    "l2" -> 1/2 ||w||^2, "l1" -> ||w||_1, "elasticnet" -> l1_ratio ||w||_1 +
    (1 - l1_ratio)/2 ||w||^2 (unless solver_options sets them). random_state seeds the
    solver's own generator. Every other option (batch_size, learning_rate, schedule,
    momentum_type, momentum, adaptive, n_iter_no_change, ...) comes from solver_options;
    see svmkit.solver_defaults("sgd") and cpp/include/svmkit/solvers/sgd.hpp.
    """
    opts = dict(req.options)
    l2, l1 = penalty_weights(req.penalty, req.l1_ratio)
    opts.setdefault("l1_penalty", l1)
    opts.setdefault("l2_penalty", l2)
    if req.random_state is not None:
        opts.setdefault("seed", int(req.random_state))
    return _core.fit_sgd(*_loss_solver_args(req, opts))


def _fit_homotopy(req: LinearFitRequest) -> dict:
    """Homotopic subgradient method (paper 004 Algorithm 1) on the hinge loss.

    C = inf is the hard-margin SVM (lambda_s = (s0 + s)^-p -> 0, the paper's schedule). A
    finite C solves LinearSVC's soft-margin hinge objective: lambda_s = max((s0 + s)^-p / n,
    1 / (C n)) (defaults lambda_scale = 1/n and lambda_min = 1/(C n)), i.e. a homotopy in
    C_s = (s0 + s)^p that stops at C. The per-sample
    weights c_j = cost_j / C enter the paper's averaged loss 1/n sum c_j hinge. On data that
    are certified non-separable (hard margin; a Farkas certificate, see solvers/homotopy.hpp) a
    UserWarning is issued (the result's status is SolverStatus.infeasible, the certificate in its
    "message"); separable data not yet separated at max_iter end with status max_iter
    (ConvergenceWarning from the estimator).
    Defaults (one source: the C++ options): lambda_scale = 0 (= 1/n, lambda against the summed
    losses), step_scale = 3, tol = 1e-5 on the margin gap, max_iter = 300.
    """
    import math
    import warnings

    opts = dict(req.options)
    n = int(req.y.shape[0])
    finite = math.isfinite(req.C)
    opts.setdefault("lambda_min", 1.0 / (req.C * n) if finite else 0.0)
    if finite:
        opts.setdefault("lambda_scale", 1.0 / n)
    weights = req.cost / req.C if finite else req.cost
    if req.random_state is not None:
        opts.setdefault("seed", int(req.random_state))
    if req.w0 is not None:
        warnings.warn(
            "homotopy always starts from w = 0 (Algorithm 1); warm_start is ignored",
            UserWarning,
            stacklevel=4,
        )
    res = _core.fit_homotopy(
        req.X,
        req.y,
        weights,
        req.fit_intercept,
        req.intercept_scaling,
        req.regularize_intercept,
        opts,
        req.callback,
    )
    return res


def _fit_dual_cd(req: LinearFitRequest) -> dict:
    """Dual coordinate descent with shrinking (LIBLINEAR's -s 3, 1, 13, 12 duals).

    Hsieh et al. (ICML 2008) for hinge / squared_hinge and Ho and Lin (JMLR 2012) for
    epsilon_insensitive / squared_epsilon_insensitive; see cpp/include/svmkit/solvers/dual_cd.hpp.
    The bias is regularized (regularize_intercept=False raises ValueError). tol=None gives
    the C++ default 1e-4 (scikit-learn's tol) with LIBLINEAR's meaning: max PG - min PG <= tol
    (absolute) for classification, sum |PG| <= tol * its first value for regression, the
    largest |dual gradient| <= tol for the logistic and smoothed-hinge duals; every dual
    also stops once its relative duality gap (a certificate) is <= min(tol, 1e-4) (for
    tol >= 1e-6).
    random_state seeds the order in which coordinates are visited. warm_start cannot seed the
    dual from w alone: each fit starts from alpha = 0 (a UserWarning says so).
    penalty="elasticnet" (hinge / squared_hinge): the elastic-net dual, minimizing
    (1 - rho)/2 (||w||^2 + b^2) + rho ||w||_1 + sum_i cost_i loss_i with rho = l1_ratio < 1
    (each coordinate step exact over the breakpoints of the soft threshold); the hinge's is
    smsvm's problem, the squared hinge's bias also carries rho |b| (l1_cd's and LIBLINEAR -s
    5's problem).
    """
    import warnings

    opts = dict(req.options)
    if req.random_state is not None:
        opts.setdefault("seed", int(req.random_state))
    if req.w0 is not None:
        warnings.warn(
            "dual_cd starts from the dual point alpha = 0 (it cannot be recovered from w); "
            "warm_start is ignored",
            UserWarning,
            stacklevel=4,
        )
    if req.penalty == "l2":
        return _core.fit_dual_cd(*_loss_solver_args(req, opts))
    l2, l1 = penalty_weights(req.penalty, req.l1_ratio)
    if not l2 > 0.0:
        raise ValueError(
            "dual_cd solves the elastic net through its dual, which needs l1_ratio < 1; "
            "pure l1 (penalty='l1' or l1_ratio=1) is solved by solver='smsvm'"
        )
    # The squared hinge's bias carries the l1 term too, as l1_cd's (LIBLINEAR -s 5's bias
    # feature): the model does not depend on which of the two solves it.
    bias_l1 = l1 if req.loss == "squared_hinge" else 0.0
    return _core.fit_dual_cd_elastic_net(
        *_penalty_solver_args(req), opts, req.callback, bias_l1=bias_l1
    )


def penalty_weights(penalty: str, l1_ratio: float) -> tuple[float, float]:
    """(l2, l1) weights of the penalty l2/2 ||w||^2 + l1 ||w||_1 in scikit-learn's language.

    l2 = 1 - rho, l1 = rho with rho = 0 ("l2"), 1 ("l1") or l1_ratio ("elasticnet"); used by
    sgd and SmSVM. In paper 000's averaged form (uniform costs C): lambda = l2 / (C N),
    mu = l1 / (C N).
    """
    rho = {"l2": 0.0, "l1": 1.0}.get(penalty, float(l1_ratio))
    return 1.0 - rho, rho


def _fit_smsvm(req: LinearFitRequest) -> dict:
    options = dict(req.options)
    # Python-side warm-start hint (the alpha to restart from); not a C++ option.
    warm_alpha = float(options.pop("warm_alpha", 0.0)) if req.w0 is not None else 0.0
    l2, l1 = penalty_weights(req.penalty, req.l1_ratio)
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


def _fit_l1_cd(req: LinearFitRequest) -> dict:
    """newGLMNET (LIBLINEAR -s 6's method; the squared hinge of -s 5 too), l1 / elastic net.

    Minimizes l1 ||w||_1 + l2/2 ||w||^2 + sum_i cost_i loss(y_i (w.x_i + b s)), loss the squared
    hinge max(0, 1 - u)^2 or the logistic log(1 + exp(-u)), with
    (l2, l1) = penalty_weights(penalty, l1_ratio); with regularize_intercept the bias b (the
    coordinate of the constant feature s = intercept_scaling) carries l1 |b| + l2/2 b^2 as in
    LIBLINEAR and scikit-learn's LinearSVC(penalty="l1", dual=False), otherwise it is free.
    random_state seeds the coordinate order. See svmkit.solver_defaults("l1_cd") and
    cpp/include/svmkit/solvers/l1_cd.hpp.
    """
    opts = dict(req.options)
    if req.random_state is not None:
        opts.setdefault("seed", int(req.random_state) % (2**63))
    args = _penalty_solver_args(req)
    return _core.fit_l1_cd(*args, req.w0, opts, req.callback, sigma=req.sigma)


def _fit_ipm(req: LinearFitRequest) -> dict:
    """Mehrotra's predictor-corrector interior-point method for the hinge loss with the l1,
    elastic-net or l2 penalty (l2, l1) = penalty_weights(penalty, l1_ratio), and for the
    epsilon-insensitive loss (l2), certified by its relative duality gap <= tol; its Newton
    systems are (n_features + 1)-square, so it is for few features. See
    svmkit.solver_defaults("ipm") and cpp/include/svmkit/solvers/ipm.hpp.
    """
    import warnings

    if req.w0 is not None:
        warnings.warn(
            "ipm starts from its own interior point (an interior-point method cannot restart "
            "from w); warm_start is ignored",
            UserWarning,
            stacklevel=4,
        )
    return _core.fit_ipm(
        *_penalty_solver_args(req), dict(req.options), req.callback, epsilon=req.epsilon
    )


# IPM_EPS_MAX_FEATURES: the epsilon-insensitive loss (LinearSVR's default) where the rule picks
# dual_cd, on data with at most this many features: where dual_cd ends at max_iter uncertified,
# ipm solves the problem (certified by its duality gap; since 2026-12-07). dual_cd's -s 13 dual
# runs into max_iter far from the optimum on many such sets, where ipm's 10-15 iterations reach
# it in a tenth of dual_cd's time: make_regression (noise 10, features on scales 0.2-2) 500 x 16
# 6.2 ms at max_iter 2.2% above the optimum, ipm 0.7 ms; 2,000 x 16 29 ms 2.6% above, 3.2 ms;
# 5,000 x 32 125 ms 8.3% above, 10 ms; 5,000 x 64 181 ms 11% above, 17 ms; 20,000 x 32 563 ms 5.8%
# above, 41 ms; 2,000 x 128 115 ms 44% above, 24 ms; housing 404 x 13 1.3 ms 2.9e-4 above,
# 0.84 ms (bench/results/hinge_ipm.md). ipm does not replace dual_cd up front: where dual_cd
# converges it is as fast or faster (diabetes 331 x 10 0.11 against 0.43 ms per LinearSVR fit;
# abalone 3,341 x 8, 519 iterations, 4.9 against 5.5 ms), and a first budget of dual_cd
# iterations cut short runs that converge later (abalone at 100: 8.4 ms). A first budget of
# 300 (LIBLINEAR -s 13's own cap) was measured again on 2026-12-07 and not adopted: on
# make_regression 500-8,000 x 8-128 (noise 10, all ending at max_iter) it took 0.37-0.63 of the
# time, but the regime matrix's abalone, which converges after more than 300 iterations, went
# from 5.7 to 10.7 ms (1.63x its anchor) while housing went from 2.95 to 2.33 ms (still 1.72x).
IPM_EPS_MAX_FEATURES = 128
# IPM_EPS_DUAL_MAX_PASSES: where ipm can finish, dual_cd's first run also ends (uncertified) once
# it has spent this many passes over the data (its option max_passes; since 2026-12-07): about
# what ipm costs on such data, so a stalled run costs at most about twice the better of the two
# (the ski-rental rule). Passes, unlike iterations, count the work that shrinking leaves (abalone
# converges after 519 iterations but 75 passes) and, unlike time, are the same on any machine.
# Measured (bench/bench_eps_pass_budget.py, bench/results/eps_pass_budget.md; ms, no budget ->
# 75 / 100 / 150 passes; objectives within 1e-4): housing 404 x 13 2.07 -> 1.38 / 1.59 / 1.99;
# make_regression 500-5,000 x 16-64 with y standardized (dual_cd stalls) 8.0-197 -> 1.4-29 /
# 1.6-34 / 2.1-43; where dual_cd converges (abalone, diabetes, the same sets with y as
# generated) unchanged at 100 and 150, but at 75 make_regression 5,000 x 64 went 13.6 -> 34 ms
# (dual_cd converges after 75 passes there).
IPM_EPS_DUAL_MAX_PASSES = 100


def _ipm_finishes(req: LinearFitRequest) -> bool:
    """Whether ipm finishes an uncertified dual_cd run of this problem (IPM_EPS_MAX_FEATURES)."""
    n_features = scipy_view(req.X).shape[1]
    return req.loss == "epsilon_insensitive" and n_features <= IPM_EPS_MAX_FEATURES


def _ipm_after_dual_cd(req: LinearFitRequest, first: dict) -> dict:
    """ipm on the problem dual_cd left uncertified at max_iter, at dual_cd's tol (the user's)."""
    options = {"tol": _solver_tol(req, "dual_cd"), "check_input": False}
    if "n_threads" in req.options:
        options["n_threads"] = req.options["n_threads"]
    return _fit_ipm(replace(req, w0=None, options=options))


# l1_cd's hinge is its smoothing continuation, for the l1 and elastic-net penalties (the l2
# hinge is dual_cd's and smsvm's).
_L1_CD_SMOOTH = frozenset(
    {"squared_hinge", "logistic", "smoothed_hinge", "gaussian_smoothed_hinge"}
)

LINEAR_SOLVERS: dict[str, SolverSpec] = {
    "smsvm": SolverSpec(
        name="smsvm",
        losses=frozenset({"hinge"}),
        penalties=frozenset({"l2", "l1", "elasticnet"}),
        fit=_fit_smsvm,
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
                "epsilon_insensitive",
                "hinge",
            }
        ),
        penalties=frozenset({"l2"}),
        fit=_fit_tron,
        description="trust-region Newton with conjugate gradients (paper 002); the hinge and "
        "epsilon-insensitive losses by a smoothing continuation certified by its duality gap",
    ),
    "sgd": SolverSpec(
        name="sgd",
        losses=frozenset(
            {
                "hinge",
                "squared_hinge",
                "smoothed_hinge",
                "epsilon_insensitive",
                "squared_epsilon_insensitive",
            }
        ),
        penalties=frozenset({"l2", "l1", "elasticnet"}),
        fit=_fit_sgd,
        description="primal (stochastic) (sub)gradient descent with momentum or adaptive "
        "steps (paper 001 Algorithms 1-4, paper 000 baselines)",
    ),
    "homotopy": SolverSpec(
        name="homotopy",
        losses=frozenset({"hinge"}),
        penalties=frozenset({"l2"}),
        fit=_fit_homotopy,
        description="homotopic subgradient method to the hard-margin SVM (paper 004)",
    ),
    "dual_cd": SolverSpec(
        name="dual_cd",
        losses=frozenset(
            {
                "hinge",
                "squared_hinge",
                "logistic",
                "smoothed_hinge",
                "gaussian_smoothed_hinge",
                "epsilon_insensitive",
                "squared_epsilon_insensitive",
            }
        ),
        penalties=frozenset({"l2", "elasticnet"}),
        penalty_losses={"elasticnet": frozenset({"hinge", "squared_hinge"})},
        fit=_fit_dual_cd,
        # The epsilon-insensitive loss on few features: ipm where dual_cd ends at max_iter
        # (IPM_EPS_MAX_FEATURES; no other finisher).
        finisher=Finisher(
            None,
            frozenset({"epsilon_insensitive"}),
            lambda first: {},
            exact=ExactFinisher(
                "ipm", _ipm_finishes, {"max_passes": IPM_EPS_DUAL_MAX_PASSES}, _ipm_after_dual_cd
            ),
        ),
        description="dual coordinate descent with shrinking (Hsieh et al. 2008; Ho and Lin "
        "2012; LIBLINEAR's dual solvers)",
    ),
    "l1_cd": SolverSpec(
        name="l1_cd",
        losses=frozenset(
            {"squared_hinge", "logistic", "smoothed_hinge", "gaussian_smoothed_hinge", "hinge"}
        ),
        penalties=frozenset({"l1", "elasticnet", "l2"}),
        penalty_losses={"l2": _L1_CD_SMOOTH, "elasticnet": _L1_CD_SMOOTH | {"hinge"}},
        fit=_fit_l1_cd,
        # The hinge's smoothing stages can stall short of a certificate on degenerate data
        # (solvers/l1_cd.hpp): the pure l1's linear program is then solved by HiGHS
        # (svmkit._lp), and otherwise smsvm's polish finds the optimum from their point.
        finisher=Finisher(
            "smsvm",
            frozenset({"hinge"}),
            _smsvm_after_l1_cd,
            exact=ExactFinisher(
                "highs", _lp_applies, {"hinge_max_passes": _LP_AFTER_PASSES}, _lp_after_l1_cd
            ),
        ),
        description="newGLMNET (Yuan et al. 2012; LIBLINEAR -s 6) for the l1 / elastic-net "
        "squared-hinge SVM (LIBLINEAR -s 5's problem; its CDN, Yuan et al. 2010, on request), "
        "logistic regression and smoothed hinges",
    ),
    "ipm": SolverSpec(
        name="ipm",
        losses=frozenset({"hinge", "epsilon_insensitive"}),
        penalties=frozenset({"l2", "l1", "elasticnet"}),
        penalty_losses={"l1": frozenset({"hinge"}), "elasticnet": frozenset({"hinge"})},
        fit=_fit_ipm,
        # On many features (its working set) ipm gives up where the l1 optimum needs more than
        # working_set_max_features of them; l1_cd's continuation (and its finishers) take the
        # problem from their own start: from ipm's interior iterate (every feature of the set
        # nonzero) l1_cd and HiGHS took 3.6 s where they take 2.1 s from w = 0 (sparse
        # 5,000 x 50,000, C = 10). The l2 hinge and the epsilon-insensitive loss (which auto
        # gives ipm on small badly scaled data, ipm_takes_badly_scaled) go to tron's certified
        # smoothing continuation, the solver auto picks there otherwise.
        finisher=Finisher(
            "l1_cd",
            frozenset({"hinge", "epsilon_insensitive"}),
            lambda first: {},
            from_point=False,
            l2_solver="tron",
        ),
        description="primal-dual interior-point method (Mehrotra's predictor-corrector) for the "
        "l1 / elastic-net / l2 hinge-loss SVM and the epsilon-insensitive SVR with few features",
    ),
}

# solver="auto": a deterministic rule on the loss, the penalty and the data's regime (shape and
# layout), documented in the LinearSVC / LinearSVR docstrings and tested in tests/test_auto.py.
# Measured (bench/bench_regimes.py and the demo): dual coordinate descent is fastest for the hinge
# loss up to tens of thousands of samples (two_gaussians 10,000 x 50: 0.15 s against SmSVM's
# 1.3 s; 2,000 x 200: 0.1 s against 4 s) and on every wide or sparse high-dimensional set, but
# its cost grows with max_iter passes where it does not converge; on very tall data with few
# features SmSVM's few Newton passes win (covtype 581,012 x 54: 2 s against LIBLINEAR's 114 s).
# TRON wins on tall data with the smooth losses, sparse data included: on the regime matrix's
# sparse text-like sets (16,000 x 10,000 and 8,000 x 5,000, 50 nonzeros/row, learnable and
# 20% flipped labels) the squared hinge at tol=1e-4 took TRON 0.11-0.31 s against dual_cd's
# 0.14-0.52 s (loaded machine, same objective within 1e-9; TRON before its preconditioner
# weight went to 0.2, which cut its passes by 40% there), so n >= d keeps tron for sparse X;
# LIBLINEAR -s 1's edge there is its looser default eps (0.1), not the method. On the real
# sparse sets dual_cd at tol=1e-4 is faster only on mushrooms (0.10 s against 0.12 s) and far
# slower on a9a (7.3 s against 0.2 s), dna (0.37 against 0.06 s, max_iter) and covtype.5000.
TALL_MIN_SAMPLES = 100_000  # "very tall": at least this many samples
TALL_RATIO = 100  # and n_samples >= TALL_RATIO * n_features

# The hinge loss (penalty "l2") on very tall, dense tall or badly scaled data goes to TRON's
# smoothing continuation (psi_M stages certified by a band-repaired duality gap, as for the
# epsilon-insensitive loss), which replaced SmSVM there: SmSVM's l2 stop is an estimate (the
# near-separable cell below ended 5.9e-4 above the optimum, reported converged) and its Newton
# levels are slower. Measured at the defaults (tol 1e-4, objective against the best of the three):
#   two_gaussians 200,000 x 50: tron 0.38 s, smsvm 2.24 s, dual_cd 3.8 s (max_iter);
#     the same as CSR 0.63 / 2.49 / 9.6 s; 150,000 x 20: 0.15 / 0.45 / 1.16 s (max_iter);
#   80,000 x 50: tron 0.17 s exact, dual_cd 1.0 s at max_iter 1.6e-4 above the optimum;
#   40,000 x 20: 0.065 s against dual_cd's 0.10 s (max_iter); 20,000 x 50: 0.128 s against
#     0.086 s (max_iter, 1.2e-4 above), hence the threshold below;
#   near-separable 16,000 x 20, scales 1-1000 (bench_regimes._separable): C = 100 0.056 s
#     against smsvm's 0.164 s (5.9e-4 above), C = 1 0.056 against 0.30 s; 800-6,400 rows
#     8-24 ms against 14-290 ms (smsvm up to 9.3e-4 above);
#   sparse text 200,000 x 1,000 (20 nonzeros/row): tron 1.65 s, dual_cd 0.47 s (max_iter,
#     5e-8 above), smsvm did not finish in 100 s.
# Slower only on small badly scaled sets (raw breast_cancer 455 x 30: 21-28 ms against
# smsvm's 6-12 ms, both within 1e-4). Dense data below the threshold keep dual_cd: the 26-class
# 16,000 x 16 set 0.85 s against 0.52 s (max_iter), digits 0.85 s against 0.06 s.
HINGE_TRON_MIN_SAMPLES = 20_000


# Dense hinge-loss problems with a badly scaled dual: when C * mean_i ||x_i||^2 (the dual's
# diagonal Q_ii measured against its box [0, C]) exceeds this and n_samples >= n_features, dual
# coordinate descent stalls at max_iter far from the optimum (measured on standardized and raw
# breast_cancer, make_classification 20,000 x 20, two_gaussians 16,000 x 50 and the regime
# matrix's near-separable set with features on scales 1-1000: at C * mean ||x||^2 = 160-300 its
# objective is 0.1-20% above the optimum after 1000 iterations, at 2,500 and beyond 40-400%;
# at 25-55, C = 1 on standardized data, it is within 1e-4). SmSVM's Newton steps do not care
# about the scaling: it converges in 40-100 iterations on all of them. On wide data (fewer
# samples than features) the dual is small and converges at any scale; sparse data keep
# dual_cd (SmSVM's sparse paths are not the ones measured here). The l2 hinge now takes TRON's
# certified continuation there (HINGE_TRON_MIN_SAMPLES' comment); the l1 / elastic-net hinge
# takes l1_cd where it applies (L1_HINGE_SCALED), SmSVM otherwise.
HINGE_DUAL_SCALE = 200.0


def hinge_dual_scale(X: Any, C: float) -> float | None:
    """C * mean_i ||x_i||^2 for dense X (one pass), None for sparse X or infinite C."""
    if C is None or not np.isfinite(C) or getattr(X, "nnz", None) is not None or X.shape[0] == 0:
        return None
    X = np.asarray(X)
    total = 0.0
    step = max(1, (1 << 16) // max(1, X.shape[1]))  # blocks of ~64k values: no copy of X
    for i in range(0, X.shape[0], step):
        block = X[i : i + step]
        total += float(np.einsum("ij,ij->", block, block, dtype=np.float64))
    return float(C) * total / X.shape[0]


# The logistic / smoothed-hinge duals pay off only on clearly wide data with enough stored
# entries per row (auto_solver_name): a dual step costs a few logarithms or square roots beside
# its row, where a tron pass costs its entries and O(n_features) vector work. Measured with the
# duality-gap stop (tol 1e-4) on sparse text, C = 1 and 10, dual time / tron time: at 10
# features per sample and more, 0.43-0.77 (psi_M) and 0.50-1.07 (logistic) with 60-200
# entries per row, 0.68-1.28 and 0.72-1.17 with 40, but 0.77-1.37 and 1.09-2.06 with 20-30,
# 1.07-1.81 and 1.19-2.81 with 10; at 2-6 features per sample 0.56-1.47 and 0.57-1.64. On
# dense wide data the logistic dual took 0.24-0.32 of tron's time (100-300 x 3,000-5,000),
# psi_M 0.82-1.44 (tron needs 5-10 passes there), so the smoothed hinge's dual is for sparse X.
SMOOTH_DUAL_RATIO = 10
SMOOTH_DUAL_MIN_ROW_NNZ = 40

# SMOOTH_HINGE_DENSE_WIDE: the two smoothed hinges on dense data with n_samples <=
# SMOOTH_HINGE_DENSE_RATIO * n_features go to dual_cd's conjugate duals (since 2026-12-07;
# psi_G's is new then), certified by their relative duality gap. There tron used to stop on
# LIBLINEAR's gradient rule ||grad F|| <= tol ||grad F(0)|| far above the optimum (separable
# data: F* is a tiny fraction of F(0)); against scipy's L-BFGS-B optimum (tests/references.py)
# on make_two_gaussians 200 x 5,000, the regime matrix's 240 x 5,000 and make_classification
# 300 x 3,000 at C = 1 / 10, psi_G 1.6e-3-2.5 above (relative), psi_M 9e-4-0.17, the duals
# 2e-9-5e-5 (tron now stops on the gap alone for these losses: _core.tron_stop_rule).
# Measured at the defaults (tol 1e-4, best of 3, one process; make_classification and
# make_two_gaussians, 100-2,000 x 1,000-20,000, C = 1 / 10), tron (gradient rule) -> dual_cd:
# psi_G 2.2-14,249 ms -> 0.5-170 ms (0.01-0.35 of tron's time on make_classification, 0.09-2.8
# on make_two_gaussians, the slower ones where tron stopped 46-97% above the optimum); psi_M
# 0.3-156 ms -> 0.4-66 ms (0.38-1.8, the slower ones where tron stopped 0.2-15% above). With
# more samples than features, tron (gap stop) -> dual_cd: 1,500 x 1,000 psi_M 58-219 -> 14-66
# ms, psi_G 127-1,559 -> 51-176 ms; but at 3,000 x 1,000 the duals ran into max_iter (2.6-3.0
# s, 0.75-9x above the optimum) and at 5,000 x 500 (2.0-4.1 s against tron's 54-71 ms), hence
# the ratio. Sparse data keep the rule below (psi_G's dual costs Gaussian tail functions per
# Newton step: sparse 1,600 x 50,000, 60 entries per row, 8.7 ms against tron's 5.8 ms).
SMOOTH_HINGE_DENSE_RATIO = 1.5

# The elastic-net hinge goes to l1_cd's certified smoothing continuation on dense data with
# n_samples >= ENET_CD_RATIO * n_features, to dual_cd's elastic-net dual otherwise. Measured
# (l1_cd converged; dual_cd at max_iter=1000 in every case but one): dense 100,000 x 50 0.72 s
# against 17.4 s, 8,000 x 50 0.11 s against 1.5 s, 20,000 x 20 0.06 s against 0.73 s, 5,000 x
# 100 0.40 s against 3.2 s; but dense 2,000 x 200 6.8 s against 3.6 s, breast_cancer 0.04
# against 0.01 s, sparse 20,000 x 500 1.1 s against 0.27 s, sparse 16,000 x 10,000 5.6 s
# against 2.3 s, the regime matrix's 2,000 x 50,000 1.0 s against 0.12 s (converged) and dna
# 11.5 s against 1.1 s (the continuation's degenerate case). Small dense sets keep the rule:
# 800-1,600 x 20-50 12-100 ms against 28-280 ms (dual_cd at max_iter, objective 0.01-0.1%
# higher); standardized iris 5 ms against dual_cd's 1.6 ms, raw iris 18 ms against 6 ms with
# dual_cd at max_iter 0.8% above the optimum.
ENET_CD_RATIO = 25

# ENET_DENSE_WIDE: the hinge elastic net on dense data with more features than samples goes to
# l1_cd as well (since 2026-12-07; bench/results/hinge_enet_wide.md). There dual_cd's dual
# ended at max_iter far above the optimum while l1_cd's continuation (smsvm finishing) reached
# it. Measured at l1_ratio 0.5 (make_classification, C = 1 unless stated; seconds and F / F*,
# dual_cd -> l1_cd): 100 x 400 0.25 s, 4.2x -> 0.04 s, exact; 200 x 1000 1.5 s, 4.7x -> 0.6 s;
# 300 x 5000 16.9 s, 87x -> 5.7 s and at C = 0.01 17.6 s, 1.8x -> 2.7 s; 500 x 2000 15.3 s,
# 38x -> 7.4 s and at C = 0.01 12.0 s, 1.35x -> 13.3 s; 800 x 1000 8.3 s, 35x -> 4.7 s;
# 1000 x 3000 38 s, 71x -> 62 s. Worse in time (both at max_iter, l1_cd's point still far
# closer): 500 x 2000 at C = 100 12 s, 3736x -> 85 s, 1.15x; features scaled 1-1000, 500 x
# 2000, 14.5 s, 4.6e4x -> 60 s, 540x. Between n_features and ENET_CD_RATIO n_features samples
# the measurements were mixed (scaled 2,000 x 200: smsvm 9.9 s against 23 s, the same F;
# scaled 3,000 x 300 at C = 0.01 27 s against 0.9 s) and the rule stands. The two losses
# had C * mean ||x_i||^2 (hinge_dual_scale) of 2.6e7 and 1.9e10 where the wins had 2.6e3-1.5e6:
# smsvm's finisher, at lambda = (1 - rho) / (C N), runs to max_iter there, so above
# ENET_WIDE_MAX_SCALE the wide data keep dual_cd (equally far off, but in a fifth of the time;
# its max_iter warning states the gap).
ENET_WIDE_MAX_SCALE = 1e7

# IPM_SAMPLE_FORM: since 2026-12-07 ipm forms its normal equations in the sample form (n_samples-
# square, Woodbury's identity with iterative refinement) where that costs less, near-violators
# join its working set there, and its working_set_max_features cap is lifted once the set holds
# as many features as samples; the hinge elastic net on dense data with n_samples < n_features
# (ENET_DENSE_WIDE's cases) goes to ipm instead of l1_cd. Measured at tol 1e-4, C = 0.1 / 1,
# l1_ratio 0.5 (bench/bench_ipm_sample_form.py, bench/results/ipm_sample_form.md; ms, l1_cd and
# its finishers -> ipm, objectives within 1e-4 of each other): make_classification 100 x 1,000
# 147 / 152 -> 6 / 3; 200 x 1,000 399 / 502 -> 20 / 21; 300 x 5,000 848 / 1943 -> 84 / 82; 500 x
# 2,000 1882 / 2879 -> 222 / 224; 800 x 1,000 7634 / 8598 -> 1238 / 1008; 200 x 20,000 9972 /
# 8716 -> 78 / 101; 1,000 x 3,000 14154 / 22400 -> 2300 / 2410; two_gaussians 240 x 5,000 880 /
# 1561 -> 67 / 55. The pure l1 hinge there (ipm already), the feature form -> the sample form:
# 11 / 14 -> 6 / 4, 57 / 107 -> 20 / 25, 252 / 498 -> 66 / 73, 642 / 783 -> 237 / 211, 908 /
# 1439 -> 911 / 1451, 372 / 440 -> 79 / 114, 225 / 377 -> 48 / 54, and 1,000 x 3,000, where the
# cap used to end ipm and hand over to l1_cd and HiGHS (18.2 / 18.7 s), 2.6 / 2.6 s.

# L1_HINGE_SCALED: the l1 and elastic-net hinge on badly scaled dense data (C * mean ||x||^2 above
# HINGE_DUAL_SCALE) went to smsvm until 2026-12-06; l1_cd (with its HiGHS / smsvm finishers)
# replaced it where it applies (pure l1 always, the elastic net on dense data with n_samples >=
# ENET_CD_RATIO * n_features). Measured at C = 1 / 100 (bench/bench_l1_hinge_scaled.py, one run each
# on a loaded machine; bench/results/l1_hinge_scaled.md), seconds smsvm -> l1_cd. Pure l1: raw
# breast_cancer 2.2 (max_iter, objective 51.726) -> 0.13 (51.722, certified) and 2.5 (max_iter, 66%
# above the optimum) -> 0.19; the regime matrix's near-separable set (16,000 training rows x 20,
# scales 1-1000) 7.4 -> 0.13 and 5.7 -> 1.7; its 4,000-row version 1.7 -> 0.06 and 1.6 -> 0.37; raw
# covtype.5000 at C = 100 4.3 -> 1.7; raw australian, fourclass and svmguide1 0.01-0.15 ->
# 0.003-0.07; make_classification 20,000 x 20 with scales 1-100 0.9 -> 1.6 and 1.2 -> 1.6 (HiGHS
# finishes; the one loss). Elastic net (l1_ratio 0.5): near-separable 1.3 -> 0.13 and 1.4 -> 0.10,
# 4,000 rows 8.9 -> 0.05 and 20 -> 0.06, make_classification 1.7 -> 0.9 and 1.8 -> 0.05;
# slower: australian at C = 1 0.03 -> 0.30 (l1_cd uncertified, smsvm finishes). smsvm's runs there
# reported converged with duality gaps up to 669 (the alpha floor reached, a loose dual point).


# IPM_MAX_FEATURES: the l1 and elastic-net hinge on data with at most this many features go to
# ipm (since 2026-12-07), whatever their scaling, sparsity or intercept: its 15-30 iterations
# each form and factor an (n_features + 1)-square system, which does not care about the
# degeneracy and scaling that stall the first-order and smoothing methods. Measured at the
# defaults (tol 1e-4, one process, AMD EPYC 2 cores; bench/bench_hinge_ipm.py,
# bench/results/hinge_ipm.md), auto before -> ipm, objectives within 1e-4 of each other:
# dna.scale's 3 classes l1 486 -> 84 ms (l1_cd -> HiGHS), elastic net 173 -> 69 ms (dual_cd at
# max_iter, 0.8% above the optimum); a9a l1 528 -> 126 ms, elastic net 289 -> 98 ms; mushrooms
# l1 540 -> 32 ms, elastic net 34 -> 35 ms; breast_cancer (standardized / raw) l1 30-36 -> 1.8
# ms; iris l1 11 -> 0.4 ms; digits l1 651 -> 96 ms, elastic net 738 -> 85 ms (smsvm);
# make_classification 2,000 x 500 l1 1.3 -> 0.47 s, elastic net 21.8 -> 0.40 s; 5,000 x 200
# 1.2 -> 0.10 s and 1.8 -> 0.10 s; the regime matrix's near-separable 20,000 x 20 at C = 100
# 98 -> 58 ms and 61 -> 53 ms; tall dense 10,000 x 50 26 -> 34 ms and 27 -> 28 ms; two_gaussians
# 100,000 x 50 0.42 -> 0.44 s and 0.43 -> 0.30 s. Beyond it the system's cost takes over: sparse
# text 5,000 x 1,000 (20 entries per row) l1 0.21 -> 0.36 s, elastic net 17 -> 205 ms.
IPM_MAX_FEATURES = 500

# IPM_L1_WIDE_RATIO: the pure l1 hinge with more than IPM_MAX_FEATURES features and n_samples <=
# IPM_L1_WIDE_RATIO * n_features, sparse or dense, goes to ipm (since 2026-12-07), which then
# runs over a working set of features (cpp/src/ipm.cpp, solve_working_set): the l1 optimum of
# such data uses few of them. Where it needs more than ipm's working_set_max_features, l1_cd's
# continuation and its finishers take over (the ipm spec's Finisher). Measured at tol 1e-4 on
# make_sparse_text_like, l1_cd -> ipm, objectives within 1e-4 (bench/bench_l1_hinge_wide.py,
# bench/results/l1_hinge_wide.md): C = 0.1 and 1 on 500-8,000 x 1,000-200,000 (20-100
# entries per row) 1.5-158 -> 0.5-64 ms and 8,000 x 10,000 936 -> 194 ms (l1_cd -> HiGHS), one
# tie (8,000 x 10,000 at C = 0.1, 64 ms); at C = 10, where the optimum uses 826-2,969 features,
# the hand-over cost 1.06-1.31x l1_cd's time (0.98 -> 1.27 s, 9.3 -> 9.8 s). Taller sparse data
# keep l1_cd: 50,000 x 2,000 and 100,000 x 1,000 at C = 0.1 took ipm 0.54 and 2.4 s against
# l1_cd's 0.24 s, and 16,000 x 10,000 was mixed (1.36 s -> 0.63 s on one seed, 0.49 -> 0.62 s on
# the regime matrix's split). Dense wide data (make_classification, C = 0.1 and 1), where l1_cd
# stalled and HiGHS or smsvm finished: 100 x 1,000 0.24-0.27 s -> 10-13 ms, 300 x 5,000 4.8-5.3
# -> 0.24-0.48 s, 500 x 2,000 3.5 -> 0.59-0.74 s, 200 x 20,000 15-18 s (smsvm) -> 0.32-0.43 s;
# 1,000 x 3,000, whose optimum needs more than 1,000 features, 15.5-15.9 s before and about 2.4 s
# more with the hand-over (since ipm's sample form lifts the cap there: 2.6 s, IPM_SAMPLE_FORM).
IPM_L1_WIDE_RATIO = 1


# IPM_SCALED_MAX_SAMPLES, IPM_SCALED_RATIO: the l2 hinge and the epsilon-insensitive loss on
# badly scaled dense data (HINGE_DUAL_SCALE) with at most IPM_MAX_FEATURES (hinge) or
# IPM_EPS_MAX_FEATURES features go to ipm, not tron's smoothing continuation, when n_samples <=
# IPM_SCALED_MAX_SAMPLES or n_samples <= IPM_SCALED_RATIO * n_features (since 2026-12-07).
# ipm's 10-20 iterations each factor a (n_features + 1)-square system and do not care about the
# scaling, while the continuation's CG steps slow down where samples are few for the features.
# Measured at the defaults (bench/bench_dense_storage.py --table 2 / 3,
# bench/results/dense_storage.md; ms, tron -> ipm; ipm's objective 1.5e-6 to 8.6e-5 below
# tron's): the hinge on the raw LIBSVM sets australian 690 x 14 4.6 -> 1.4, breast-cancer 683 x
# 10 1.8 -> 0.8, diabetes 768 x 8 1.2 -> 0.7, fourclass 862 x 2 0.9 -> 0.5, wine 178 x 13 4.2 ->
# 1.1, glass 214 x 9 10.9 -> 1.9, splice 1000 x 60 7.7 -> 3.6, madelon.t 600 x 500 2608 -> 133;
# make_classification (features on scales 1-100) 500-1,000 x 4-300 1.3-31x faster, 600 and
# 1,500 x 500 4.7-5.7x; beyond the boundary 2,000-4,000 x 100-300 and 1,500 x 150 0.96-1.24x
# ipm's time over tron's, svmguide1 3,089 x 4 1.15x, 2,000-4,000 x 4-20 0.67-0.91x (tron kept
# there; the regime matrix's near-separable 16,000 x 20 took ipm twice tron's 25 ms). The
# epsilon-insensitive loss on make_regression (features on scales 1-100) 300-1,000 x 4-100
# 1.1-8x faster; beyond, 3,000 x 4-100 0.48-1.17x (tron kept).
IPM_SCALED_MAX_SAMPLES = 1000
IPM_SCALED_RATIO = 4


def ipm_takes_badly_scaled(loss: str, n_samples: int, n_features: int) -> bool:
    """Whether ipm, not tron, takes the badly scaled l2 hinge or epsilon-insensitive loss
    (IPM_SCALED_MAX_SAMPLES)."""
    cap = IPM_MAX_FEATURES if loss == "hinge" else IPM_EPS_MAX_FEATURES
    few = n_samples <= IPM_SCALED_MAX_SAMPLES or n_samples <= IPM_SCALED_RATIO * n_features
    return n_features <= cap and few


# The epsilon-insensitive loss goes to tron's smoothing continuation on dense data with
# n_samples >= EPS_TRON_MIN_SAMPLES and n_samples >= TALL_RATIO * n_features, or badly scaled
# (C * mean ||x_i||^2 > HINGE_DUAL_SCALE, n_samples >= n_features), to dual_cd (LIBLINEAR
# -s 13) otherwise. Measured at tol 1e-4 (tron certified by its duality gap): dense 80,000 x
# 50 0.31 s against dual_cd's 12 s at max_iter (objective 0.6% higher), near-separable
# 16,000 x 20 with features on scales 1-1000 0.08 s against 0.62 s at max_iter (35% higher);
# but abalone 3,341 x 8 0.031 against 0.010 s, housing 404 x 13 4.9 against 2.8 ms, diabetes
# 1.1 against 0.4 ms, and sparse text 16,000 x 10,000 3.8 s against 0.13 s, 1,600 x 50,000
# 1.25 s against 9 ms (dual_cd converged at tol in those, except housing's max_iter 2e-4
# above the optimum).
EPS_TRON_MIN_SAMPLES = 10_000


def is_tall(n_samples: int, n_features: int) -> bool:
    """Whether the data are very tall in the sense of the auto rule (SmSVM for the hinge)."""
    return n_samples >= TALL_MIN_SAMPLES and n_samples >= TALL_RATIO * n_features


def auto_solver_name(
    loss: str,
    penalty: str,
    n_samples: int,
    n_features: int,
    regularize_intercept: bool = True,
    dual_scale: float | None = None,
    l1_ratio: float = 0.5,
    row_nnz: float | None = None,
) -> str | None:
    """The solver solver="auto" picks, or None when no rule applies (first capable solver).

    dual_scale: hinge_dual_scale(X, C) (dense X), or None (sparse X, or not computed); the
    hinge rules read "dense" as dual_scale is not None. row_nnz: the mean number of stored
    entries per row of sparse X, None for dense X.

    - penalty "l1" / "elasticnet": l1_cd for the squared hinge (LIBLINEAR -s 5's problem), the
      logistic loss (LIBLINEAR -s 6's) and the smoothed hinges (newGLMNET as for the logistic
      loss; sgd took 8-45 s on the regime matrix's shapes); for the hinge loss with
      "elasticnet" (l1_ratio < 1) l1_cd's smoothing continuation on dense data with
      n_samples >= ENET_CD_RATIO * n_features (where dual_cd runs into max_iter: 0.06-0.72 s
      against 0.7-17 s; badly scaled data included, L1_HINGE_SCALED), ipm (its working set of
      features, sample form) on dense data with n_samples < n_features and dual_scale <=
      ENET_WIDE_MAX_SCALE (where dual_cd ended 1.35-87 times above the optimum:
      ENET_DENSE_WIDE; ipm ran 5-80x faster than l1_cd there: IPM_SAMPLE_FORM),
      dual_cd's elastic-net
      dual otherwise (with a regularized intercept; its exact coordinate steps ran 4-37x
      faster than smsvm's smoothing levels on the regime matrix's shapes), smsvm where the
      dense data are badly scaled as below (unscaled breast_cancer's dual stalls at max_iter
      with 61% accuracy where smsvm takes 0.02 s) or the intercept is unregularized; pure l1
      (no smooth dual) goes to l1_cd's smoothing continuation at any scale (certified by a
      duality gap; 0.12-0.35 s where smsvm took 1.7-6.7 s on the regime matrix's dense
      10000 x 50 and sparse 2000 x 50000 cells, 0.004-1.9 s where it took 0.02-8 s on badly
      scaled dense data; the estimator lets HiGHS or smsvm finish when it stalls uncertified),
      except with n_samples <= IPM_L1_WIDE_RATIO * n_features, where ipm's working set of
      features takes it (l1_cd and its finishers take over, from their own start, where the
      optimum needs more than its working_set_max_features).
    - penalty "l2", hinge loss: tron's smoothing continuation on very tall data, on dense data
      with n_samples >= HINGE_TRON_MIN_SAMPLES and >= TALL_RATIO * n_features, and on dense
      data with n_samples >= n_features and C * mean ||x_i||^2 > HINGE_DUAL_SCALE (large C or
      large feature scales: the dual is badly scaled) and with an unregularized intercept;
      on such badly scaled data with at most IPM_MAX_FEATURES features and at most
      IPM_SCALED_MAX_SAMPLES samples or IPM_SCALED_RATIO samples per feature, ipm
      (ipm_takes_badly_scaled); dual_cd otherwise.
    - penalty "l2", squared hinge / squared epsilon-insensitive: tron when n_samples >=
      n_features, dual_cd when there are more features than samples (scikit-learn's
      dual="auto" rule).
    - penalty "l2", the smoothed hinges (psi_M, psi_G) on dense data: dual_cd (their
      conjugate duals) when n_samples <= SMOOTH_HINGE_DENSE_RATIO * n_features
      (SMOOTH_HINGE_DENSE_WIDE), tron otherwise.
    - penalty "l2", logistic loss, and psi_M on sparse data: dual_cd (the conjugate duals) when
      n_features >= SMOOTH_DUAL_RATIO * n_samples and the rows hold at least
      SMOOTH_DUAL_MIN_ROW_NNZ stored entries on average (row_nnz; dense rows hold
      n_features); tron otherwise (measurements beside the constants).
    - penalty "l2", epsilon-insensitive: tron's smoothing continuation on dense data that
      are very tall (n_samples >= EPS_TRON_MIN_SAMPLES and >= TALL_RATIO * n_features) or
      badly scaled (as for the hinge; ipm there with at most IPM_EPS_MAX_FEATURES features
      and few samples, ipm_takes_badly_scaled) or with an unregularized intercept, dual_cd
      (LIBLINEAR -s 13) otherwise; with at most IPM_EPS_MAX_FEATURES features ipm solves the problem
      where dual_cd ends uncertified, at max_iter or at its pass budget IPM_EPS_DUAL_MAX_PASSES
      (the estimator's finisher: dual_cd stalls far from the optimum there).
    - other smooth losses: tron.
    dual_cd regularizes the intercept; with regularize_intercept=False the primal solvers are
    used instead.
    """
    dual_ok = regularize_intercept
    badly_scaled = (
        dual_scale is not None and dual_scale > HINGE_DUAL_SCALE and n_samples >= n_features
    )
    if penalty in ("l1", "elasticnet"):
        smooth = ("squared_hinge", "logistic", "smoothed_hinge", "gaussian_smoothed_hinge")
        if loss in smooth and "l1_cd" in LINEAR_SOLVERS:
            return "l1_cd"
        if loss == "hinge" and n_features <= IPM_MAX_FEATURES:
            return "ipm"
        # l1_cd's coordinate steps do not see the features' scales (HINGE_DUAL_SCALE concerns
        # dual_cd): badly scaled dense data keep it (L1_HINGE_SCALED's measurements).
        enet = penalty == "elasticnet" and l1_ratio < 1.0
        dense = dual_scale is not None
        dense_tall = dense and n_samples >= ENET_CD_RATIO * n_features
        dense_wide = (  # ENET_DENSE_WIDE's measurements
            dense and n_samples < n_features and dual_scale <= ENET_WIDE_MAX_SCALE
        )
        if loss == "hinge" and enet and dense_wide:
            return "ipm"  # IPM_SAMPLE_FORM's measurements
        if loss == "hinge" and enet and dense_tall:
            return "l1_cd"
        if loss == "hinge" and enet and dual_ok and not badly_scaled:
            return "dual_cd"
        pure_l1 = penalty == "l1" or l1_ratio == 1.0
        if loss == "hinge" and pure_l1 and n_samples <= IPM_L1_WIDE_RATIO * n_features:
            return "ipm"
        if loss == "hinge" and pure_l1:
            return "l1_cd"
        return "smsvm" if loss == "hinge" else None
    if loss in ("squared_hinge", "squared_epsilon_insensitive"):
        return "dual_cd" if dual_ok and n_features > n_samples else "tron"
    if loss in ("smoothed_hinge", "gaussian_smoothed_hinge") and row_nnz is None:
        # SMOOTH_HINGE_DENSE_WIDE's measurements.
        near_wide = n_samples <= SMOOTH_HINGE_DENSE_RATIO * n_features
        return "dual_cd" if dual_ok and near_wide else "tron"
    if loss in ("logistic", "smoothed_hinge"):
        per_row = n_features if row_nnz is None else row_nnz
        wide = n_features >= SMOOTH_DUAL_RATIO * n_samples and per_row >= SMOOTH_DUAL_MIN_ROW_NNZ
        return "dual_cd" if dual_ok and wide else "tron"
    if loss in ("hinge", "epsilon_insensitive"):
        # The two kinks: tron's certified continuation on tall dense or badly scaled data (and
        # for the hinge on very tall sparse data), dual_cd otherwise.
        hinge = loss == "hinge"
        if not dual_ok:
            # dual_cd has no unregularized intercept; tron's continuation certifies one (its
            # dual constraint). Measured at tol 1e-4 (hinge; epsilon-insensitive): tron was
            # faster than smsvm on 7 of 9 regime shapes (sparse 16,000 x 10,000 0.61 s against
            # 20 s, a9a 0.79 against 4.2 s, near-separable C = 1000 0.056 against 0.18 s with
            # smsvm 1.4e-4 above the optimum while reporting converged), slower on digits
            # (0.86 against 0.53 s) and sparse 1,600 x 50,000 (0.16 against 0.09 s); sgd, the
            # previous choice for the epsilon-insensitive loss, stopped 2-24% above the optimum
            # on sparse text and housing (0.4-2.4 s) and 6x above on near-separable targets.
            return "tron"
        if badly_scaled and ipm_takes_badly_scaled(loss, n_samples, n_features):
            return "ipm"
        min_n = HINGE_TRON_MIN_SAMPLES if hinge else EPS_TRON_MIN_SAMPLES
        tall = n_samples >= min_n and n_samples >= TALL_RATIO * n_features
        dense_tall = dual_scale is not None and tall  # badly_scaled implies dense
        very_tall = hinge and is_tall(n_samples, n_features)
        return "tron" if dense_tall or badly_scaled or very_tall else "dual_cd"
    return None


# Fallback order when no rule applies: the first solver that handles the loss and penalty.
AUTO_ORDER: tuple[str, ...] = ("smsvm", "tron", "dual_cd", "sgd", "l1_cd")


# Every solver's C++ option table, registered once in the core ("platt" is SVC's
# probability=True step): _core.option_defaults(name) and _core.option_records(name).
OPTION_TABLES: tuple[str, ...] = tuple(_core.option_table_names())


def _check_table(name: str) -> str:
    if name not in OPTION_TABLES:
        raise ValueError(f"unknown solver {name!r}; available: {', '.join(OPTION_TABLES)}")
    return name


def solver_defaults(name: str) -> dict:
    """The default options of a solver (any of OPTION_TABLES), read from its C++ option records."""
    return dict(_core.option_defaults(_check_table(name)))


def option_table(name: str) -> list[dict]:
    """The option records of a solver: one dict per option with its name, type, default (as
    printed in C++), low and high bounds ((value, inclusive) or None) and one-line doc."""
    return list(_core.option_records(_check_table(name)))


def solver_for_dual(solver: str, dual: Any, loss: str, penalty: str, estimator: str) -> str:
    """The solver that scikit-learn's dual= asks for. dual="auto" (the default) leaves solver
    as it is; with solver="auto", dual=True is "dual_cd" (LIBLINEAR's dual coordinate
    descent) and dual=False a primal solver: "tron" for the l2 penalty, "l1_cd" for l1 and the
    elastic net. A named solver must agree with dual (dual_cd is the one dual solver)."""
    if isinstance(dual, str):  # "auto" (the parameter check refuses other strings)
        return solver
    if solver == "auto":
        if not dual:
            return "tron" if penalty == "l2" else "l1_cd"
        if not LINEAR_SOLVERS["dual_cd"].handles(loss, penalty):
            raise ValueError(
                f"{estimator}: dual=True (dual coordinate descent) does not handle "
                f"loss={loss!r} with penalty={penalty!r}; use dual=False or dual='auto'"
            )
        return "dual_cd"
    if bool(dual) != (solver == "dual_cd"):
        raise ValueError(
            f"{estimator}: solver={solver!r} and dual={dual!r} disagree (dual_cd is the dual "
            "solver, the others are primal); set one of them and leave the other at 'auto'"
        )
    return solver


def pick_solver(
    solver: str,
    loss: str,
    penalty: str,
    estimator: str,
    shape: tuple[int, int] | None = None,
    regularize_intercept: bool = True,
    X: Any = None,
    C: float | None = None,
    l1_ratio: float = 0.5,
) -> SolverSpec:
    """Resolve solver='auto' (by auto_solver_name on X's shape, and for the hinge loss on
    hinge_dual_scale(X, C) when X and C are given) and check that the solver handles the loss
    and penalty."""
    if solver == "auto":
        if shape is not None:
            scale = None
            if X is not None and loss in ("hinge", "epsilon_insensitive"):
                scale = hinge_dual_scale(X, C)
            row_nnz = None
            if X is not None and sp.issparse(X):
                row_nnz = X.nnz / max(1, shape[0])
            name = auto_solver_name(
                loss, penalty, shape[0], shape[1], regularize_intercept, scale, l1_ratio, row_nnz
            )
            if name is not None and name in LINEAR_SOLVERS:
                return LINEAR_SOLVERS[name]
        for name in AUTO_ORDER:
            spec = LINEAR_SOLVERS.get(name)
            if spec and spec.handles(loss, penalty):
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
        # the losses of this estimator's kind only (a regressor's list names no hinge)
        regression = "epsilon_insensitive" in loss
        own = sorted(x for x in spec.losses if ("epsilon_insensitive" in x) == regression)
        handles = (
            f"it handles: {', '.join(own)}" if own else f"it handles none of {estimator}'s losses"
        )
        raise ValueError(f"{estimator}: solver {solver!r} does not handle loss={loss!r}; {handles}")
    if penalty not in spec.penalties:
        raise ValueError(
            f"{estimator}: solver {solver!r} does not handle penalty={penalty!r}; "
            f"it handles: {', '.join(sorted(spec.penalties))}"
        )
    if not spec.handles(loss, penalty):
        raise ValueError(
            f"{estimator}: solver {solver!r} handles penalty={penalty!r} only with loss "
            + " or ".join(repr(x) for x in sorted(spec.penalty_losses[penalty]))
        )
    return spec
