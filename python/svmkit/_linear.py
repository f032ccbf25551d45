"""Linear SVM estimators: LinearSVC and LinearSVR."""

from __future__ import annotations

import numbers
from dataclasses import replace
from typing import Any, Callable

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.metaestimators import available_if
from sklearn.utils.validation import check_is_fitted

from . import _core
from ._constraints import (
    COMMON_CHECKS,
    AnyOf,
    Bool,
    DictOrNone,
    Int,
    OneOf,
    RandomState,
    Real,
    Str,
    merge_solver_options,
    validate_params,
)
from ._progress import make_callback, seed_from
from ._solvers import (
    LINEAR_SOLVERS,
    LinearFitRequest,
    SolverSpec,
    certify_l1_hinge_on_band,
    pick_solver,
    solver_for_dual,
)
from ._status import check_status
from ._threads import map_binary_fits, resolve_n_jobs, stored_entries
from ._validation import (
    as_core_matrix,
    check_classification_y,
    check_n_jobs,
    check_sample_weight,
    class_weight_vector,
    dense_if_smaller,
    encode_labels,
    require_two_classes,
    store_params,
    validate_X_y,
)

_PENALTIES = ("l2", "l1", "elasticnet")


# Parameters shared by LinearSVC and LinearSVR, declared once (see _constraints.py).
_LINEAR_CHECKS = {
    **COMMON_CHECKS,
    "C": Real(gt=0.0, inf_ok=True),  # inf: the hard margin, solver="homotopy" only (below)
    "tol": Real(ge=0.0, none=True),
    "max_iter": Int(ge=0, none=True),
    "fit_intercept": Bool(),
    "intercept_scaling": Real(gt=0.0),
    "regularize_intercept": Bool(),
    "solver": Str(),  # the names are judged by the solver table (_solvers.pick_solver)
    "dual": AnyOf(OneOf("auto"), Bool()),  # scikit-learn's; _solvers.solver_for_dual
    "sigma": Real(gt=0.0),
    "penalty": OneOf(*_PENALTIES),
    "l1_ratio": Real(ge=0.0, le=1.0),
    "random_state": RandomState(),
    "warm_start": Bool(),
}


class _BaseLinear(BaseEstimator):
    """Shared machinery: parameter checks, the solver call, warm start, results."""

    _estimator_kind = "classifier"
    _parameter_checks: dict = _LINEAR_CHECKS

    def _requested_solver(self) -> str:
        """solver, or with solver="auto" the one that dual= asks for (solver_for_dual)."""
        return solver_for_dual(self.solver, self.dual, self.loss, self.penalty, type(self).__name__)

    def _pick_solver(self, X: Any) -> tuple[Any, Any]:
        """The solver spec for validated X (solver="auto" reads its regime) and the X it runs
        on, and sets solver_. solver="auto" picks the storage too: a sparse X no larger dense
        runs dense (dense_if_smaller); a named solver runs on X as given."""
        if self._requested_solver() == "auto":
            X = dense_if_smaller(X)
        spec = pick_solver(
            self._requested_solver(),
            self.loss,
            self.penalty,
            type(self).__name__,
            X.shape,
            self.regularize_intercept,
            X=X,
            C=float(self.C),
            l1_ratio=float(self.l1_ratio),
        )
        self.solver_ = spec.name
        return spec, X

    def _check_common_params(self) -> None:
        """The shared rules alone (for subclasses with their own parameter set, e.g. dask's)."""
        for name, rule in _LINEAR_CHECKS.items():
            rule.check(getattr(self, name), name)
        self._check_param_relations()

    def _check_param_relations(self) -> None:
        if self.C == float("inf") and self._requested_solver() != "homotopy":
            raise ValueError(
                "C must be finite (C = inf is the hard margin of solver='homotopy'), "
                f"got {self.C!r}"
            )

    def _seed(self) -> int | None:
        return seed_from(self.random_state)

    def _solver_options(self, spec: SolverSpec, n_threads: int) -> dict:
        owned = {"n_threads": ("n_jobs", n_threads)}
        if self.tol is not None:  # None leaves the solver's own default (or solver_options')
            owned["tol"] = ("tol", float(self.tol))
        if self.max_iter is not None:
            owned["max_iter"] = ("max_iter", int(self.max_iter))
        opts = merge_solver_options(type(self).__name__, self.solver_options, owned)
        opts.setdefault("check_input", False)  # validated here, including finiteness of X
        return opts

    def _callback(self, spec: SolverSpec) -> Callable[[dict], Any] | None:
        return make_callback(spec.name, self.verbose, self.callback)

    def _run(
        self,
        spec: SolverSpec,
        Xc: Any,
        y: np.ndarray,
        cost: np.ndarray,
        w0: np.ndarray | None,
        n_threads: int,
        loss: str,
        epsilon: float,
        callback: Any = "default",
    ) -> dict:
        req = LinearFitRequest(
            X=Xc,
            y=np.ascontiguousarray(y, dtype=np.float64),
            cost=np.ascontiguousarray(cost, dtype=np.float64),
            loss=loss,
            sigma=float(self.sigma),
            epsilon=float(epsilon),
            penalty=self.penalty,
            l1_ratio=float(self.l1_ratio),
            C=float(self.C),
            fit_intercept=bool(self.fit_intercept),
            intercept_scaling=float(self.intercept_scaling),
            regularize_intercept=bool(self.regularize_intercept),
            w0=w0,
            options=self._solver_options(spec, n_threads),
            callback=self._callback(spec) if callback == "default" else callback,
            random_state=self._seed(),
        )
        result, solver = self._fit_finished(spec, req, loss, n_threads)
        if solver == spec.name and "started_by" not in result:
            result = certify_l1_hinge_on_band(req, result, solver)
        check_status(result, type(self).__name__, solver, stacklevel=3)
        return result

    def _fit_finished(
        self, spec: SolverSpec, req: LinearFitRequest, loss: str, n_threads: int
    ) -> tuple[dict, str]:
        """spec's fit of req, finished (solver="auto" only) where it ended uncertified: by its
        exact finisher where that applies and converges, else by its finishing solver, from its
        point where the Finisher says so (itself finished the same way: ipm -> l1_cd -> HiGHS /
        smsvm). Returns the result and the name of the solver whose point it is."""
        exact = self._exact_finisher(spec, loss, req)
        if exact is not None:  # the first run may give up sooner (the user's options stand)
            result = spec.fit(replace(req, options={**exact.first_options, **req.options}))
        else:
            result = spec.fit(req)
        solver = spec.name
        name = spec.finisher.solver_for(self.penalty) if spec.finisher else None
        if not self._needs_finisher(spec, loss, result) or (exact is None and name is None):
            return result, solver
        first = result
        result = exact.fit(req, first) if exact is not None else None
        if result is not None and result["status"] == _core.SolverStatus.converged:
            solver = exact.name
        elif name is None:  # no other finisher: the better point stands
            if result is None or not result["objective"] < first["objective"]:
                spent = 0.0 if result is None else float(result["time"])
                result = {**first, "time": spent}  # the first run's time is added below
                solver = spec.name
            else:
                solver = exact.name
        else:
            finisher = LINEAR_SOLVERS[name]
            options = {"n_threads": n_threads, "check_input": False}
            options.update(spec.finisher.warm_options(first))
            if self.tol is not None:
                options["tol"] = float(self.tol)
            w0 = np.asarray(first["solution"]) if spec.finisher.from_point else req.w0
            result, solver = self._fit_finished(
                finisher, replace(req, w0=w0, options=options), loss, n_threads
            )
        result["time"] += first["time"]
        result["finished_by"] = solver
        result["started_by"] = {k: first[k] for k in ("status", "message", "time", "iterations")}
        return result, solver

    def _finishes(self, spec: SolverSpec, loss: str) -> bool:
        """solver="auto" only (a named solver is never replaced), no max_iter of the user's, and
        a finishing solver that solves this problem (ipm's l1_cd does not take the l2 hinge)."""
        finisher = spec.finisher
        if finisher is None:
            return False
        name = finisher.solver_for(self.penalty)
        return (
            self._requested_solver() == "auto"
            and loss in finisher.losses
            and self.max_iter is None
            and (name is None or LINEAR_SOLVERS[name].handles(loss, self.penalty))
        )

    def _exact_finisher(self, spec: SolverSpec, loss: str, req: LinearFitRequest) -> Any:
        """The finisher's exact solve where it applies to this problem, else None."""
        if not self._finishes(spec, loss) or spec.finisher.exact is None:
            return None
        return spec.finisher.exact if spec.finisher.exact.applies(req) else None

    def _needs_finisher(self, spec: SolverSpec, loss: str, result: dict) -> bool:
        """The solver's finisher takes over when its run ended uncertified (_finishes)."""
        return self._finishes(spec, loss) and result["status"] == _core.SolverStatus.max_iter

    def _split_solution(self, sol: np.ndarray, n_features: int) -> tuple[np.ndarray, float]:
        w = sol[:n_features]  # a view: the caller copies it into coef_ or owns sol
        b = float(sol[n_features]) * float(self.intercept_scaling) if self.fit_intercept else 0.0
        return w, b

    def _warm_start_vector(self, k: int, n_features: int, n_rows: int) -> np.ndarray | None:
        if not self.warm_start or not hasattr(self, "coef_"):
            return None
        coef = np.atleast_2d(self.coef_)
        if coef.shape != (n_rows, n_features):
            return None
        w0 = coef[k]
        if self.fit_intercept:
            b = np.atleast_1d(self.intercept_)[k] / float(self.intercept_scaling)
            w0 = np.append(w0, b)
        return np.ascontiguousarray(w0, dtype=np.float64)

    def _decision(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "coef_")
        X = validate_X_y(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        coef = np.ascontiguousarray(np.atleast_2d(self.coef_), dtype=np.float64)
        intercept = np.ascontiguousarray(np.atleast_1d(self.intercept_), dtype=np.float64)
        return _core.linear_decision_function(
            as_core_matrix(X), coef, intercept, check_n_jobs(self.n_jobs)
        )

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class LinearSVC(ClassifierMixin, _BaseLinear):
    """Linear support vector classification.

    Minimizes, for each binary problem (classes mapped to y_i in {-1, +1}),

        F(w, b) = 1/2 ||w||^2 + [regularize_intercept] 1/2 b^2
                  + C * sum_i s_i c_{y_i} loss(y_i (w.x_i + b * intercept_scaling))

    with s_i the sample weights and c_k the class weights. The intercept is the extra
    coordinate b of a constant feature intercept_scaling, as in LIBLINEAR; with the default
    regularize_intercept=True the bias IS regularized (1/2 b^2, exactly LIBLINEAR's and
    scikit-learn's LinearSVC objective); regularize_intercept=False leaves it unpenalized.
    The fitted intercept_ is b * intercept_scaling.

    Mapping onto the papers' form lambda/2 ||w||^2 + 1/N sum loss: dividing F by C N gives
    lambda = 1 / (C N). The smoothing parameter sigma is paper 002's sigma for
    loss="smoothed_hinge" (psi_M, equal to paper 000's phi_alpha with alpha = sigma) and
    loss="gaussian_smoothed_hinge" (psi_G).

    Parameters
    ----------
    penalty : {"l2", "l1", "elasticnet"}, default="l2"
        Regularizer on w. "l1" and "elasticnet" (l1_ratio) need a solver that supports them.
    loss : str, default="squared_hinge"
        "squared_hinge" max(0, 1-u)^2, "hinge" max(0, 1-u), "smoothed_hinge" psi_M(1-u; sigma),
        "gaussian_smoothed_hinge" psi_G(1-u; sigma), "logistic" log(1 + exp(-u)).
    C : float, default=1.0
        Inverse regularization strength (> 0). C=float("inf") (hard-margin SVM) is accepted
        only with solver="homotopy".
    tol : float or None, default=None
        Stopping tolerance of the solver; None uses the solver's own default
        (`svmkit.solver_defaults(name)["tol"]`). For TRON it is relative:
        ||grad F(w)|| <= tol * ||grad F(0)|| (for loss="hinge" the relative duality gap, so
        (F(w) - F*) / F(w) <= tol); TRON also stops, converged, once ||grad F(w)||^2 / (2 F(w))
        <= min(tol, 1e-4) (for tol >= 1e-5, the intercept regularized or absent: F is then
        1-strongly convex, so this bounds (F(w) - F*) / F(w); solver_options={"gap_stop":
        False} turns it off); the smoothed hinges stop on that gap alone where it applies (the
        gradient rule stopped them far above the optimum on separable data). For "dual_cd" the
        default is scikit-learn's
        1e-4 with LIBLINEAR's meaning (max - min projected gradient <= tol, absolute); every
        dual also stops, converged, once the relative duality gap (F(w) - D(alpha)) / F(w) (a
        certificate, reported as optimality) is <= min(tol, 1e-4) (for tol >= 1e-6; below it
        the projected gradients alone decide).
    max_iter : int or None, default=None
        Maximum number of outer iterations; None uses the solver's default. A fit that stops
        there gives a ConvergenceWarning; dual_cd's states the relative duality gap of the
        returned point, a bound on (F(w) - F*) / F(w).
    fit_intercept : bool, default=True
        Whether to fit the bias b.
    intercept_scaling : float, default=1.0
        Value of the constant feature that multiplies b (see above).
    regularize_intercept : bool, default=True
        Whether 1/2 b^2 is part of the objective (LIBLINEAR's convention when True).
    class_weight : dict, "balanced" or None, default=None
        Per-class multipliers c_k of C.
    solver : str, default="auto"
        "tron" (trust-region Newton, paper 002; for the smoothed hinges a line search replaces the
        region by default, and the squared hinge and logistic loss hand over to it after the
        region's first rejected step: solver_options "globalization") for the smooth losses, and for
        loss="hinge" with penalty "l2" a smoothing continuation: stages on psi_M (sigma = 0.1, 0.01,
        ..., a smaller step near tol) until the relative duality gap at a band-repaired dual point
        is <= tol (a certificate; the intercept regularized, free or absent). "sgd" (primal
        (stochastic) subgradient descent with momentum or AdaGrad/AdaDelta/Adam, paper 001; hinge,
        squared_hinge, smoothed_hinge; l2, l1, elasticnet; options via solver_options, see
        svmkit.solver_defaults("sgd")). "homotopy" (paper 004's homotopic subgradient method, hinge
        loss; hard margin with C=inf: stops on a margin-gap certificate (tol, default 1e-5); data
        certified non-separable by a Farkas certificate give a UserWarning and status
        SolverStatus.infeasible (the certificate in the result's "message"); see
        svmkit.solver_defaults("homotopy")).
        "smsvm" (smoothing active-set Newton, paper 000) for loss="hinge" with penalty "l2", "l1" or
        "elasticnet". "dual_cd" (dual coordinate descent with shrinking, LIBLINEAR's
        -s 3 / -s 1 method, Hsieh et al. 2008) for loss "hinge" or "squared_hinge" with
        penalty "l2", or "elasticnet" with l1_ratio < 1 (the dual of the elastic-net problem:
        w = soft(r, rho) / (1 - rho), each coordinate step exact over the soft threshold's
        breakpoints; smsvm's problem for the hinge, l1_cd's for the squared hinge, whose bias
        also carries rho |b|); and for loss "logistic" or "smoothed_hinge" with penalty "l2"
        (the dual with the loss's conjugate, Yu, Huang and Lin 2011 = LIBLINEAR -s 7 for the
        logistic loss; tol bounds the largest |dual gradient|, absolute); every dual also stops
        once its relative duality gap (a certificate) is <= min(tol, 1e-4); the bias is
        regularized (regularize_intercept=False is refused);
        random_state orders the coordinates; warm_start is ignored (starts from alpha = 0).
        "ipm" (a primal-dual interior-point method, Mehrotra's predictor-corrector) for
        loss="hinge" with penalty "l1", "elasticnet" or "l2" (smsvm's problem), stopped once its
        relative duality gap (a certificate) is <= tol; each iteration forms and factors an
        (n_features + 1)-square system, so it is for few features (svmkit.solver_defaults("ipm");
        warm_start is ignored).
        "auto" (the default) picks by a deterministic rule on the loss, the penalty and the
        shape of X (svmkit._solvers.auto_solver_name; the fitted solver_ names the choice),
        and the storage: a sparse X whose dense form takes no more memory runs dense (and
        counts as dense below; a named solver runs on X as given):
        hinge + l2: "tron" on very tall data (n_samples >= 100,000 and >= 100 n_features),
        on dense data with n_samples >= 20,000 and >= 100 n_features, and on dense data with
        n_samples >= n_features and C * mean ||x_i||^2 > 200 (large C or large feature
        scales, where the dual stalls; "ipm" there with at most 500 features and at most
        1,000 samples or 4 per feature, "tron" finishing where ipm ends uncertified) and with
        regularize_intercept=False (its certificate handles the free bias), "dual_cd"
        otherwise;
        squared_hinge + l2: "tron" when n_samples >= n_features, "dual_cd" when there are
        more features than samples (scikit-learn's dual="auto"); smoothed_hinge or
        gaussian_smoothed_hinge + l2 on dense data: "dual_cd" when n_samples <= 1.5
        n_features, "tron" otherwise; logistic + l2, and smoothed_hinge + l2 on sparse data:
        "dual_cd" when n_features >= 10 n_samples and the rows hold at least 40 stored entries
        on average, "tron" otherwise (gaussian_smoothed_hinge on sparse data: "tron");
        squared_hinge, logistic or the smoothed hinges +
        l1/elasticnet: "l1_cd"; hinge + l1/elasticnet with at most 500 features: "ipm";
        with more features, hinge + elasticnet (l1_ratio < 1): "l1_cd" on dense data
        with n_samples >= 25 n_features (any scale), "ipm" (its working set, in the sample form)
        on dense data with fewer samples than features (C * mean ||x_i||^2 <= 1e7), "dual_cd"
        otherwise where the data are not badly scaled as above; hinge + l1 (or l1_ratio=1) with
        n_samples <= n_features: "ipm" (its working set; where the optimum needs more than 1,000
        features while the set holds fewer features than samples, "l1_cd" as below takes over from
        its own start); otherwise hinge + l1: "l1_cd" (its smoothing continuation; when that ends
        uncertified, or after 3,000 passes, HiGHS solves the linear program (scipy's linprog, up to
        10^7 stored entries, within 10x the continuation's time or 10 s; "highs"; first on the
        samples of the margin band at the continuation's point, the result_ entry's "band_samples",
        then the whole program), else "smsvm" finishes from its point; the result_ entry says
        "finished_by"; an elastic net that l1_cd leaves uncertified is finished by "smsvm"; a named
        solver's (or a max_iter-bound) pure-l1 hinge point that ends uncertified is certified, not
        moved, by HiGHS on its margin band where that bounds its gap within tol: status converged,
        the result_ entry's "certified_by"); the remaining hinge cases: "smsvm"; other
        losses: "tron".
        With regularize_intercept=False dual_cd is never chosen (it regularizes the bias).
        SmSVM minimizes (1 - rho)/2 ||w||^2 + rho ||w||_1 + C sum_i s_i c_{y_i} hinge_i with
        rho = 0 ("l2"), 1 ("l1") or l1_ratio ("elasticnet"): paper 000's lambda = (1 - rho)
        / (C N) and mu = rho / (C N). The bias is never l1-penalized (l2 as set by
        regularize_intercept). SmSVM's tol (default 1e-4) is on the relative suboptimality
        (F(w) - F*) / F(w): it stops when its hinge duality gap (a certificate) is <= tol, or
        (penalty "l2") when alpha/2 plus the Newton decrement at the end of a smoothing level
        is, an estimate that can miss (5.95e-4 above the exact optimum at an estimate of
        9.3e-5 on near-separable 16000 x 20 data at C=100; tol=1e-8 reached 5.5e-8 there,
        in 2 s against 0.17 s);
        otherwise after the paper's last level alpha_min (default 1e-6, solver_options);
        "l2" runs may go below it, down to alpha_floor (1e-12), until the estimate is met.
        Runs of every penalty end with a polish (solver_options polish_rounds): where the
        smoothed solution identifies the margin set (and for "l2" the system has at most 512
        unknowns), the point is replaced by the exact optimum with a certified gap
        (result_'s "polished"); otherwise the estimate's point stays.
        tol=0 gives the paper's rule alone (every level down to alpha_min).
        "l1_cd" (newGLMNET, Yuan, Ho, Lin 2012 = LIBLINEAR -s 6's method) for
        loss="squared_hinge" (LIBLINEAR -s 5's problem, tol and max_iter: max_iter bounds the
        coordinate sweeps, n_iter_ counts them) where n_samples >= n_features, -s 5's own method
        (CDN of Yuan et al. 2010) otherwise (solver_options squared_hinge_method: 0 this rule,
        1 newGLMNET, 2 CDN; newGLMNET is up to 7x faster at the same accuracy on small-d data,
        CDN on d >> n text: bench/bench_l1_cd_methods.py),
        loss="logistic" and the smoothed hinges (psi_M, psi_G), with penalty "l1",
        "elasticnet" or "l2"; and loss="hinge" with penalty="l1" or "elasticnet" (smsvm's
        problem: the bias never l1-penalized, l2-penalized with "elasticnet" and
        regularize_intercept): newGLMNET on phi_sigma for sigma = 0.1, 0.01, ... (a smaller step
        near tol; solver_options
        hinge_smoothing, hinge_smoothing_min) until the relative duality gap at a repaired
        dual point is <= tol (a certificate). Otherwise it minimizes
        rho (||w||_1 + |b|) + (1 - rho)/2 (||w||^2 + b^2) + C sum_i s_i c_{y_i} loss_i (the b
        terms only with regularize_intercept=True; penalty="l1" is
        exactly scikit-learn's LinearSVC(penalty="l1", dual=False)); tol as LIBLINEAR's
        (relative, scaled by the smaller class's share); builds one column-major copy of X.
    dual : "auto" or bool, default="auto"
        scikit-learn's switch, for code written for it: with solver="auto", dual=True takes
        "dual_cd" (an error where dual_cd does not handle the loss and penalty, e.g. the l1
        penalty) and dual=False a primal solver ("tron" for penalty "l2", "l1_cd" for "l1"
        and "elasticnet"); "auto" leaves the choice to solver. A named solver must agree
        (dual=True only with "dual_cd", dual=False with any other).
    sigma : float, default=0.1
        Smoothing parameter of the smoothed hinge losses (> 0).
    l1_ratio : float, default=0.5
        Mix of l1 in the "elasticnet" penalty.
    multi_class : {"ovr", "crammer_singer"}, default="ovr"
        "ovr": one-vs-rest, one binary problem per class. "crammer_singer": the joint
        multiclass SVM of Crammer and Singer (LIBLINEAR -s 4), minimizing
        1/2 sum_m (||w_m||^2 + b_m^2) + C sum_i s_i c_{y_i} max(0, max_{m != y_i}
        (1 + z_im) - z_iy_i) by the sequential dual method of Keerthi et al. (2008) with
        shrinking (solver "crammer_singer"; loss, penalty, sigma, l1_ratio and solver are
        ignored, as in scikit-learn, and so are warm_start and n_jobs: one sequential solve;
        tol default 1e-4 on the largest per-sample dual violation; the bias is regularized;
        with two classes coef_ holds w_1 - w_0 as scikit-learn's).
    verbose : int, default=0
        Print one line per solver iteration (from the C++ callback).
    random_state : int, RandomState, Generator or None, default=None
        Seed for stochastic solvers (TRON is deterministic).
    n_jobs : int or None, default=None
        Threads for the solver and prediction. None: what the process may use (affinity mask,
        cgroup CPU quota, OMP_NUM_THREADS, threadpoolctl limits); -1: every usable CPU. With
        more classes than threads the one-vs-rest fits run in parallel, one thread each.
    warm_start : bool, default=False
        Start from the previous solution when refitting with the same classes and features.
    solver_options : dict or None, default=None
        Further options of the solver's C++ options table (e.g. {"cg_tol": 0.05} for TRON);
        unknown names raise ValueError.
    callback : callable or None, default=None
        Called with a dict per solver iteration; returning False stops the fit.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    classes_ : ndarray of shape (n_classes,)
    n_iter_ : int
        Largest number of solver iterations over the binary problems.
    n_passes_ : int
        Total passes over the data, summed over the binary problems.
    result_ : list of dict
        The solver's result for each binary problem, with its per-iteration history.
    n_features_in_ : int
    """

    def __init__(
        self,
        penalty: str = "l2",
        loss: str = "squared_hinge",
        *,
        C: float = 1.0,
        tol: float | None = None,
        max_iter: int | None = None,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        regularize_intercept: bool = True,
        class_weight: Any = None,
        solver: str = "auto",
        dual: Any = "auto",
        sigma: float = 0.1,
        l1_ratio: float = 0.5,
        multi_class: str = "ovr",
        verbose: int = 0,
        random_state: Any = None,
        n_jobs: int | None = None,
        warm_start: bool = False,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
    ) -> None:
        store_params(self, locals())

    _LOSSES = ("squared_hinge", "hinge", "smoothed_hinge", "gaussian_smoothed_hinge", "logistic")
    _parameter_checks = {
        **_LINEAR_CHECKS,
        "loss": OneOf(*_LOSSES),
        "class_weight": AnyOf(OneOf("balanced"), DictOrNone()),
        "multi_class": OneOf("ovr", "crammer_singer"),
    }

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> LinearSVC:
        """Fit the model. X: array or sparse matrix (n_samples, n_features); y: labels."""
        validate_params(self)
        if self.multi_class == "crammer_singer":  # one joint problem (svmkit._crammer_singer)
            from ._crammer_singer import fit_crammer_singer

            return fit_crammer_singer(self, X, y, sample_weight)
        pick_solver(self._requested_solver(), self.loss, self.penalty, "LinearSVC")  # early checks
        n_threads = resolve_n_jobs(check_n_jobs(self.n_jobs))
        X, y = validate_X_y(
            self, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], order=None
        )
        spec, X = self._pick_solver(X)
        check_classification_y(y)
        classes, y_idx = encode_labels(y)
        require_two_classes(classes, "LinearSVC")
        # C = inf (hard margin, solver="homotopy"): the costs carry the weights alone. Built in
        # place, and y_idx dropped for two classes: every n_samples vector alive during the
        # solve counts in the fit's peak memory (bench_regimes' memory column).
        cost = class_weight_vector(self.class_weight, classes, y)[y_idx]
        cost *= float(self.C) if np.isfinite(self.C) else 1.0
        if sample_weight is not None:
            cost *= check_sample_weight(sample_weight, X.shape[0])
        Xc = as_core_matrix(X)
        n_features = X.shape[1]
        binary = classes.shape[0] == 2
        n_rows = 1 if binary else classes.shape[0]
        intercept = np.zeros(n_rows)
        y_binary = np.where(y_idx == 1, 1.0, -1.0) if binary else None
        if binary:
            y_idx = None

        def fit_one(k: int, threads: int, stop: Any) -> dict:
            yk = y_binary if y_binary is not None else np.where(y_idx == k, 1.0, -1.0)
            w0 = self._warm_start_vector(k, n_features, n_rows)
            cb = "default" if stop is None else stop
            return self._run(spec, Xc, yk, cost, w0, threads, self.loss, 0.0, callback=cb)

        # One-vs-rest: the binary fits may run in parallel, one thread each (see _threads.py).
        results = map_binary_fits(
            fit_one,
            n_rows,
            n_threads,
            X.shape[0],
            stored_entries(X),
            # one fit at a time for a user callback or verbose output, and for a shared
            # RandomState (its draws must keep their order)
            sequential=self._callback(spec) is not None
            or not isinstance(self.random_state, (type(None), numbers.Integral)),
        )
        if binary:  # coef_ views the solution (n_features doubles not copied)
            w, intercept[0] = self._split_solution(results[0]["solution"], n_features)
            coef = w.reshape(1, n_features)
        else:
            coef = np.empty((n_rows, n_features))
            for k, res in enumerate(results):
                coef[k], intercept[k] = self._split_solution(res["solution"], n_features)
        self.classes_ = classes
        self.coef_ = coef
        self.intercept_ = intercept
        self.solver_ = spec.name
        self.result_ = results
        self.n_iter_ = int(max(r["iterations"] for r in results))
        self.n_passes_ = int(sum(r["passes"] for r in results))
        return self

    def _fit_all_positive(self, X: Any, cost: np.ndarray) -> tuple[np.ndarray, float]:
        """(w, b) of the binary problem in which every sample is positive, with per-sample
        costs cost: LIBLINEAR's training on data of one label (its one-vs-rest subproblem of
        that label; liblinearutil). The estimator itself is left unfitted."""
        validate_params(self)
        pick_solver(self._requested_solver(), self.loss, self.penalty, "LinearSVC")
        X = validate_X_y(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], order=None)
        spec, X = self._pick_solver(X)
        n_threads = resolve_n_jobs(check_n_jobs(self.n_jobs))
        ones = np.ones(X.shape[0])
        w0 = self._warm_start_vector(0, X.shape[1], 1)
        result = self._run(spec, as_core_matrix(X), ones, cost, w0, n_threads, self.loss, 0.0)
        w, b = self._split_solution(result["solution"], X.shape[1])
        return np.array(w), b

    def decision_function(self, X: Any) -> np.ndarray:
        """Signed distances w.x + b: shape (n_samples,) for two classes, else (n, n_classes)."""
        dec = self._decision(X)
        return dec[:, 0] if dec.shape[1] == 1 else dec

    def predict(self, X: Any) -> np.ndarray:
        """Predicted class labels."""
        check_is_fitted(self, "coef_")
        X = validate_X_y(self, X, accept_sparse="csr", dtype=[np.float64, np.float32], reset=False)
        coef = np.ascontiguousarray(self.coef_, dtype=np.float64)
        intercept = np.ascontiguousarray(self.intercept_, dtype=np.float64)
        idx = _core.linear_predict_class_indices(
            as_core_matrix(X), coef, intercept, check_n_jobs(self.n_jobs)
        )
        return self.classes_[idx]

    def _is_logistic(self) -> bool:
        # Probabilities exist for the logistic loss only (its decision values are log-odds);
        # the margin losses have none, as scikit-learn's LinearSVC.
        return self.loss == "logistic" and self.multi_class == "ovr"

    @available_if(_is_logistic)
    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities of the logistic loss (loss="logistic", multi_class="ovr"):
        sigmoid(decision) for classes_[1] of a binary model, else each class's sigmoid
        normalized over the classes (one-vs-rest, as LIBLINEAR -b 1 and scikit-learn's
        LogisticRegression(multi_class="ovr")). Shape (n_samples, n_classes)."""
        dec = self._decision(X)
        p = 0.5 * (1.0 + np.tanh(0.5 * dec))  # the logistic sigmoid without overflow
        if dec.shape[1] == 1:
            return np.column_stack([1.0 - p[:, 0], p[:, 0]])
        return p / p.sum(axis=1, keepdims=True)

    @available_if(_is_logistic)
    def predict_log_proba(self, X: Any) -> np.ndarray:
        """log of predict_proba."""
        return np.log(self.predict_proba(X))


class LinearSVR(RegressorMixin, _BaseLinear):
    """Linear support vector regression.

    Minimizes

        F(w, b) = 1/2 ||w||^2 + [regularize_intercept] 1/2 b^2
                  + C * sum_i s_i loss(w.x_i + b * intercept_scaling - y_i)

    with loss "epsilon_insensitive" max(0, |r| - epsilon) (the default, as scikit-learn's
    LinearSVR; solved by "dual_cd", LIBLINEAR's -s 13 dual coordinate descent of Ho and Lin
    2012, whose tol is relative: sum |PG| <= tol * its first value, default 1e-4; on dense
    data (a sparse X whose dense form takes no more memory runs dense under solver="auto")
    that are very tall, at least 10,000 samples and 100 per feature, or badly scaled,
    solver="auto" takes "tron"'s smoothing continuation instead ("ipm" on badly scaled data
    with at most 128 features and at most 1,000 samples or 4 per feature; "tron" finishes where
    ipm ends uncertified), where tol bounds the
    relative duality gap: the objective is certified within tol of the optimum; with at most
    128 features, where "dual_cd" ends uncertified (at max_iter, or after 100 passes over the
    data, about what ipm costs there), "ipm", the interior-point method, solves the problem,
    certified by its duality gap the same way (-s 13's dual often stops far above the optimum
    there; the result_ entry's "finished_by" says so; not with a max_iter of the
    user's)),
    "squared_epsilon_insensitive" max(0, |r| - epsilon)^2 (solver="auto": "tron" when
    n_samples >= n_features, else "dual_cd" as -s 12), or "smoothed_epsilon_insensitive"
    psi_M(r - epsilon; sigma) + psi_M(-r - epsilon; sigma) ("tron"). With
    regularize_intercept=False the epsilon-insensitive loss goes to "tron"'s continuation
    (dual_cd regularizes the bias; the continuation certifies the free one). As in LinearSVC
    the bias is the coefficient of a constant feature intercept_scaling and is regularized
    unless regularize_intercept=False; lambda = 1 / (C N) in the papers' averaged form. The
    fitted solver_ names the solver used.

    Parameters are those of LinearSVC (without class_weight and multi_class), plus
    epsilon : float, default=0.0, the half width of the insensitive zone.

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,)
    intercept_ : ndarray of shape (1,)
    n_iter_, n_passes_, result_, n_features_in_ : as in LinearSVC
    """

    def __init__(
        self,
        *,
        epsilon: float = 0.0,
        loss: str = "epsilon_insensitive",
        C: float = 1.0,
        tol: float | None = None,
        max_iter: int | None = None,
        fit_intercept: bool = True,
        intercept_scaling: float = 1.0,
        regularize_intercept: bool = True,
        solver: str = "auto",
        dual: Any = "auto",
        sigma: float = 0.1,
        penalty: str = "l2",
        l1_ratio: float = 0.5,
        verbose: int = 0,
        random_state: Any = None,
        n_jobs: int | None = None,
        warm_start: bool = False,
        solver_options: dict | None = None,
        callback: Callable[[dict], Any] | None = None,
    ) -> None:
        store_params(self, locals())

    _LOSSES = (
        "squared_epsilon_insensitive",
        "epsilon_insensitive",
        "smoothed_epsilon_insensitive",
    )
    _parameter_checks = {**_LINEAR_CHECKS, "loss": OneOf(*_LOSSES), "epsilon": Real(ge=0.0)}

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> LinearSVR:
        """Fit the model. X: array or sparse matrix (n_samples, n_features); y: targets."""
        validate_params(self)
        pick_solver(self._requested_solver(), self.loss, self.penalty, "LinearSVR")  # early checks
        n_threads = check_n_jobs(self.n_jobs)
        X, y = validate_X_y(
            self,
            X,
            y,
            accept_sparse="csr",
            dtype=[np.float64, np.float32],
            order=None,
            y_numeric=True,
        )
        spec, X = self._pick_solver(X)
        y = np.asarray(y, dtype=np.float64)
        cost = np.full(X.shape[0], float(self.C))  # one n_samples vector (peak memory)
        if sample_weight is not None:
            cost *= check_sample_weight(sample_weight, X.shape[0])
        Xc = as_core_matrix(X)
        n_features = X.shape[1]
        w0 = self._warm_start_vector(0, n_features, 1)
        res = self._run(spec, Xc, y, cost, w0, n_threads, self.loss, float(self.epsilon))
        w, b = self._split_solution(res["solution"], n_features)
        self.coef_ = w
        self.intercept_ = np.array([b])
        self.solver_ = spec.name
        self.result_ = [res]
        self.n_iter_ = int(res["iterations"])
        self.n_passes_ = int(res["passes"])
        return self

    def predict(self, X: Any) -> np.ndarray:
        """Predicted values w.x + b."""
        return self._decision(X)[:, 0]
