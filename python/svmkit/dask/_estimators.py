"""svmkit.dask.LinearSVC and LinearSVR: the in-memory estimators' parameters and fitted
attributes, fitted by map-reduce over row partitions persisted on a Dask cluster."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .. import _core
from .._constraints import Int, OneOf, validate_params
from .._linear import LinearSVC as _LocalSVC
from .._linear import LinearSVR as _LocalSVR
from .._progress import make_callback
from .._solvers import penalty_weights
from .._status import check_status
from .._validation import class_weight_vector, require_two_classes
from . import _tasks
from ._cluster import (
    DistributedObjective,
    TrafficMeter,
    resolve_client,
    sum_over_runs,
    tree_sum,
)
from ._data import as_dask_array, is_dask_frame, persist
from ._smsvm import DistributedSmsvm, SmsvmData
from ._tron import kink_tron, tron

_SOLVERS = ("auto", "tron", "smsvm")


class _DaskMixin:
    """Fit machinery shared by the two estimators (the in-memory class is the other base)."""

    _local_class: type
    # The distributed.Client to use (None: the current default client). An attribute, not a
    # constructor parameter returned by get_params, because scikit-learn's clone deep-copies
    # parameters and a Client cannot be copied (xgboost.dask does the same): est.client = c.
    client: Any = None

    def _dask_solver(self, estimator: str) -> str:
        """The solver the fit runs. solver "auto" picks by the loss and the penalty alone: for
        the hinge loss with the l2 penalty tron's certified smoothing continuation (the
        in-memory rule's choice on very tall data, where distributed data lie, and with a free
        intercept; in memory smaller data may take dual_cd, which has no distributed form),
        smsvm for the l1 / elastic-net penalties; tron for the smooth losses and the
        epsilon-insensitive loss."""
        if not isinstance(self.solver, str):
            raise TypeError("solver must be a string")
        if not isinstance(self.dual, str) and self.dual:  # True (any bool kind); "auto" is not
            raise ValueError(
                f"svmkit.dask.{estimator}: dual=True is not available on Dask (dual coordinate "
                "descent updates one sample at a time); the distributed solvers are primal: "
                "leave dual at 'auto' or set dual=False"
            )
        if self.solver not in _SOLVERS:
            raise ValueError(
                f"svmkit.dask.{estimator}: solver {self.solver!r} is not available on Dask; "
                "available: 'auto', 'tron' (the smooth losses; the hinge loss with "
                "penalty='l2'), 'smsvm' (the hinge loss)"
            )
        if self.loss == "hinge":
            tron_fits = self.penalty == "l2"
            if self.solver == "tron" and not tron_fits:
                raise ValueError(
                    f"svmkit.dask.{estimator}: solver 'tron' solves the hinge loss (by "
                    "smoothing, certified by a duality gap) only with penalty='l2'; use "
                    "solver='smsvm' for the l1 and elastic-net penalties"
                )
            if self.solver == "tron" or (self.solver == "auto" and tron_fits):
                return "tron"
            return "smsvm"
        if self.solver == "smsvm":
            raise ValueError(
                f"svmkit.dask.{estimator}: solver 'smsvm' solves loss='hinge', got "
                f"loss={self.loss!r}"
            )
        if self.loss not in _core_tron_losses():
            raise ValueError(
                f"svmkit.dask.{estimator}: loss={self.loss!r} is not available on Dask; TRON "
                f"handles: {', '.join(sorted(_core_tron_losses()))}; SmSVM the hinge loss"
            )
        if self.penalty != "l2":
            raise ValueError(
                f"svmkit.dask.{estimator}: penalty={self.penalty!r} is not available on Dask "
                "with TRON (the smooth losses take penalty 'l2'; 'l1' and 'elasticnet' go with "
                "loss='hinge', solved by SmSVM)"
            )
        return "tron"

    def _user_options(self) -> dict:
        opts = dict(self.solver_options or {})
        if self.tol is not None:
            opts["tol"] = float(self.tol)
        if self.max_iter is not None:
            opts["max_iter"] = int(self.max_iter)
        return opts

    def _tron_options(self) -> dict:
        """TRON's options: its C++ defaults, the user's solver_options, tol and max_iter.
        Unknown names and out-of-range values are refused by the C++ option table (checked
        by a zero-iteration fit on a one-row problem, which runs no pass of the data)."""
        opts = self._user_options()
        if opts.get("hessian") == "assembled":
            raise ValueError(
                "svmkit.dask: TRON's solver_options hessian='assembled' is not distributed "
                "(each Hessian-vector product is one pass over the partitions); use 'auto' or "
                "'products'"
            )
        probe = dict(opts, max_iter=0, n_threads=1)
        _core.fit_tron(
            np.zeros((1, 1)), np.ones(1), np.ones(1), "squared_hinge", 0.1, 0.0, False, 1.0,
            True, None, probe, None,
        )  # fmt: skip
        full = dict(_core.option_defaults("tron"))
        full.update(opts)
        full["hessian"] = "products"  # what the driver's CG does (see the class docstring)
        return full

    def _smsvm_options(self) -> tuple[dict, float]:
        """SmSVM's options (its C++ defaults, solver_options, tol, max_iter; checked by the
        C++ option table through a zero-step fit of a one-row problem) and the warm-start
        alpha hint (solver_options "warm_alpha", as in memory)."""
        opts = self._user_options()
        warm_alpha = float(opts.pop("warm_alpha", 0.0))
        probe = dict(opts, max_iter=0, n_threads=1)
        _core.fit_smsvm(
            np.ones((1, 1)), np.ones(1), np.ones(1), 1.0, 0.0, False, 1.0, True, None, 0.0,
            probe, None,
        )  # fmt: skip
        full = dict(_core.option_defaults("smsvm"))
        full.update(opts)
        return full, warm_alpha

    def _fit_binary(
        self,
        client: Any,
        parts: Any,
        targets: list,
        loss: tuple,
        w0: np.ndarray | None,
        meter: TrafficMeter,
    ) -> dict:
        def make_obj(loss: tuple) -> DistributedObjective:
            return DistributedObjective(
                client,
                parts.blocks,
                targets,
                loss,
                self.fit_intercept,
                self.intercept_scaling,
                self.regularize_intercept,
                parts.n_features,
                int(self.split_every),
                meter,
                parts.groups,
                parts.group_workers,
            )

        dim = parts.n_features + (1 if self.fit_intercept else 0)
        callback = make_callback("tron", self.verbose, self.callback)
        if loss[0] in ("epsilon_insensitive", "hinge"):
            # tron.cpp's smoothing continuation (the in-memory solver="tron" for these losses).
            owner = make_obj(loss)  # holds the fit's partitions for sum_over_runs only
            tasks = {
                "moments": _tasks.target_moments,
                "gap": _tasks.kink_gap,
                "band_setup": _tasks.kink_band_setup,
                "band_round": _tasks.kink_band_round,
                "band_dual": _tasks.kink_band_dual,
            }
            hinge = loss[0] == "hinge"
            free_bias = bool(self.fit_intercept and not self.regularize_intercept)
            smooth = "smoothed_hinge" if hinge else "smoothed_epsilon_insensitive"
            res = kink_tron(
                lambda sigma: make_obj((smooth, sigma, loss[2])),
                lambda kind, *args: sum_over_runs(owner, tasks[kind], args),
                dim,
                parts.n_features,
                bool(self.fit_intercept and self.regularize_intercept),
                ("hinge" if hinge else "epsilon_insensitive", float(loss[2]), free_bias),
                self._tron_options(),
                w0=w0,
                callback=callback,
            )
            return self._checked(res, meter, "tron")
        obj = make_obj(loss)
        opt = self._tron_options()
        free_bias = bool(self.fit_intercept and not self.regularize_intercept)
        gradient_tol, gap_tol = _core.tron_stop_rule(
            float(opt["tol"]), bool(opt["gap_stop"]), loss[0], free_bias
        )
        opt = {**opt, "tol": gradient_tol}
        try:
            res = tron(obj, dim, opt, w0=w0, callback=callback, gap_tol=gap_tol)
        finally:
            obj.release()
        return self._checked(res, meter, "tron")

    def _checked(self, res: dict, meter: TrafficMeter, solver: str) -> dict:
        res["bytes_sent"] = meter.sent
        res["bytes_received"] = meter.received
        res["rounds"] = meter.rounds
        check_status(res, f"svmkit.dask.{type(self).__name__}", solver, stacklevel=5)
        return res

    def _fit_binary_smsvm(
        self,
        client: Any,
        parts: Any,
        targets: list,
        col_nz: np.ndarray,
        w0: np.ndarray | None,
        meter: TrafficMeter,
    ) -> dict:
        """One binary SmSVM fit (svmkit.dask._smsvm): S = the sum of the costs (one round),
        the weights v = cost / S on the workers, then the driver's loop."""
        opts, warm_alpha = self._smsvm_options()
        total = float(
            tree_sum(
                client,
                [client.submit(_tasks.cost_sum, t) for t in targets],
                int(self.split_every),
                meter,
            )[0]
        )
        if not total > 0.0:
            raise ValueError("smsvm: the per-sample costs sum to zero")
        weighted = [client.submit(_tasks.smsvm_weights, t, total) for t in targets]
        data = SmsvmData(
            client,
            parts.blocks,
            weighted,
            (bool(self.fit_intercept), float(self.intercept_scaling)),
            int(self.split_every),
            meter,
            parts.groups,
            parts.group_workers,
        )
        l2, l1 = penalty_weights(self.penalty, self.l1_ratio)
        solver = DistributedSmsvm(
            data,
            parts.n_samples,
            parts.n_features,
            col_nz,
            total,
            l2,
            l1,
            self.fit_intercept,
            self.intercept_scaling,
            self.regularize_intercept,
            opts,
            make_callback("smsvm", self.verbose, self.callback),
        )
        try:
            res = solver.run(w0, warm_alpha if w0 is not None else 0.0)
        finally:
            data.release()
        return self._checked(res, meter, "smsvm")

    def _finish(self, parts: Any, results: list, solver: str = "tron") -> None:
        self.solver_ = solver
        self.result_ = results
        self.n_iter_ = int(max(r["iterations"] for r in results))
        self.n_passes_ = int(sum(r["passes"] for r in results))
        self.n_features_in_ = parts.n_features
        if parts.feature_names is not None:
            self.feature_names_in_ = parts.feature_names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_

    def to_local(self) -> Any:
        """The fitted model as the ordinary in-memory estimator (same parameters and fitted
        attributes; predicts on numpy / scipy data and saves with svmkit.save_model)."""
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "coef_")
        local_params = self._local_class().get_params()
        est = self._local_class(
            **{k: v for k, v in self.get_params(deep=False).items() if k in local_params}
        )
        for k, v in vars(self).items():
            if k.endswith("_") and not k.startswith("_"):
                setattr(est, k, v)
        return est

    def _decision_dask(self, X: Any) -> Any:
        from sklearn.utils.validation import check_is_fitted

        check_is_fitted(self, "coef_")
        X = as_dask_array(X)
        if X.shape[1] != self.n_features_in_:
            raise ValueError(
                f"X has {X.shape[1]} features, but {type(self).__name__} is expecting "
                f"{self.n_features_in_} features as input"
            )
        coef = np.ascontiguousarray(np.atleast_2d(self.coef_), dtype=np.float64)
        intercept = np.ascontiguousarray(np.atleast_1d(self.intercept_), dtype=np.float64)
        return X, coef, intercept


def _core_tron_losses() -> frozenset:
    from .._solvers import LINEAR_SOLVERS

    return LINEAR_SOLVERS["tron"].losses


class LinearSVC(_DaskMixin, _LocalSVC):
    """svmkit.LinearSVC on a Dask cluster (same parameters, objective and fitted attributes).

    X is a dask array (dense blocks or scipy.sparse CSR blocks) or a dask DataFrame, chunked
    by rows; y (and sample_weight) a dask array / Series or numpy array of matching length.
    The row partitions are persisted on the workers and never gathered: the solver's outer
    loop runs on the client and each pass over the data is one task per partition calling
    svmkit._core.partition_*, followed by a tree reduction of small vectors (split_every
    children per node). The summed passes (TRON's, and SmSVM's outside its final polish)
    send one task per worker thread instead: the partitions are placed as runs, one per
    worker thread, and a task sums its run in order (fewer tasks per round). Data already
    persisted on the cluster keep their places (each worker's partitions make its runs);
    otherwise the runs are contiguous and depend only on the numbers of partitions and
    worker threads. The runs are fixed for the fit, so its summation order is too.
    One-vs-rest runs the binary problems concurrently.

    Solvers (solver_ names the one used; "auto" picks by the loss and the penalty alone; both
    are primal, so dual may be "auto" or False, and dual=True is refused):

    * "tron" for the smooth losses (squared_hinge, smoothed_hinge, gaussian_smoothed_hinge,
      logistic), penalty "l2": passes F and grad F with diag H, and H s (the per-row
      curvature stays on the workers). Takes the in-memory TRON's steps with solver_options
      hessian="products": each Hessian-vector product is a pass over the partitions, where
      the in-memory default may assemble H on few features (the same steps up to rounding;
      hessian="assembled" is refused here).
    * "tron" also for loss="hinge" with penalty "l2" (the intercept regularized, free or
      absent): the in-memory TRON's smoothing continuation (stages over psi_M, each ended by
      the duality gap of the exact problem at a dual point repaired on the margin band;
      status converged certifies the objective within tol). The in-memory solver="auto" takes
      it on very tall data and with a free intercept, and may pick dual_cd on smaller data;
      compare with LinearSVC(loss="hinge", solver="tron").
    * "smsvm" for loss="hinge" with penalty "l1" or "elasticnet" (and when asked for by
      name): a port of the in-memory
      SmSVM (svmkit._solvers "smsvm", paper 000) whose gradient pass also assembles the
      active Hessian block X~_A^T D X~_A on each partition (summed by the tree, factored on
      the client); the Armijo line search runs on the margins the workers keep (one round
      per trial, no sweep over X). Compare with LinearSVC(loss="hinge", solver="smsvm"). Only
      SmSVM's dense Newton path is distributed: an active block the in-memory solver would
      solve matrix-free (over max_dense_block or newton_memory_mb) raises ValueError.
      l1, elasticnet and l2 runs end with the in-memory solver's final polish (solver_options
      "polish_rounds"): the sample sets stay on the workers and only the margin samples'
      support columns are gathered for the polish system (pure l1: the linear program's
      vertex is completed by the samples nearest the margin, each partition offering its
      nearest).

    Either way the fit takes the in-memory solver's steps (only the summation order of the
    partitions' sums differs), so its objective matches the in-memory fit's.
    fit_intercept, intercept_scaling, regularize_intercept, class_weight, sample_weight,
    warm_start (with SmSVM's solver_options "warm_alpha"), verbose, callback as in memory.
    n_jobs only affects to_local().

    Extra parameter: split_every (fan-in of the reduction tree, >= 2). The client is the
    attribute ``client`` (``est.client = distributed.Client(...)``; None, the default, uses
    the current default client); it is not a constructor parameter because scikit-learn's
    clone deep-copies parameters and a Client cannot be copied.

    predict, decision_function and score return lazy dask results (map_blocks over X's row
    blocks); to_local() returns the fitted svmkit.LinearSVC. Each result_ entry also has
    bytes_sent / bytes_received (pickled sizes of the driver's task arguments and of the
    reduced vectors it received, for that binary problem; the setup's in the first) and
    rounds (map-reduce rounds). One-vs-rest runs the binary problems concurrently (driver
    threads sharing the cluster), one at a time with a callback or verbose output.
    """

    _local_class = _LocalSVC

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
        split_every: int = 8,
    ) -> None:
        super().__init__(
            penalty=penalty,
            loss=loss,
            C=C,
            tol=tol,
            max_iter=max_iter,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            regularize_intercept=regularize_intercept,
            class_weight=class_weight,
            solver=solver,
            dual=dual,
            sigma=sigma,
            l1_ratio=l1_ratio,
            multi_class=multi_class,
            verbose=verbose,
            random_state=random_state,
            n_jobs=n_jobs,
            warm_start=warm_start,
            solver_options=solver_options,
            callback=callback,
        )
        self.split_every = split_every

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> LinearSVC:
        """Fit on dask data (see the class docstring)."""
        validate_params(self)
        solver = self._dask_solver("LinearSVC")
        if solver == "tron":
            self._tron_options()
        else:
            self._smsvm_options()
        client = resolve_client(self.client)
        parts = persist(client, X, y, sample_weight, labels=True)
        counts = parts.summaries
        labels = np.concatenate([c[0] for c in counts])
        classes = np.unique(labels)
        require_two_classes(classes, "LinearSVC")
        totals = np.zeros(classes.shape[0])
        for lab, cnt in counts:
            np.add.at(totals, np.searchsorted(classes, lab), cnt)
        cw = self._class_weights_from_counts(classes, totals)
        C = float(self.C)
        binary = classes.shape[0] == 2
        n_rows = 1 if binary else classes.shape[0]
        loss = (self.loss, float(self.sigma), 0.0)
        meter = TrafficMeter()
        col_nz = None
        if solver == "smsvm":  # smsvm.cpp's column scan: features with a nonzero entry
            nz = [client.submit(_tasks.nonzero_columns, b, pure=False) for b in parts.blocks]
            col_nz = tree_sum(client, nz, int(self.split_every), meter)
        setup = (meter.sent, meter.received, meter.rounds)

        def fit_one(k: int) -> dict:
            # One meter per binary problem (its bytes and rounds; the setup's counted once,
            # in the first problem's).
            m = TrafficMeter()
            if k == 0:
                m.sent, m.received, m.rounds = setup
            targets = [
                client.submit(_tasks.class_targets, b, classes, 1 if binary else k, C, cw)
                for b in parts.blocks
            ]
            w0 = self._warm_start_vector(k, parts.n_features, n_rows)
            if solver == "smsvm":
                return self._fit_binary_smsvm(client, parts, targets, col_nz, w0, m)
            return self._fit_binary(client, parts, targets, loss, w0, m)

        # One-vs-rest: the binary problems run concurrently from driver threads, so that
        # their rounds share the cluster's latency (each problem's tasks and reduction order
        # are its own: the results do not depend on the interleaving). One at a time with a
        # user callback or verbose output, whose calls must keep their order.
        if n_rows > 1 and self.callback is None and not self.verbose:
            from concurrent.futures import ThreadPoolExecutor

            with ThreadPoolExecutor(max_workers=n_rows) as pool:
                results = list(pool.map(fit_one, range(n_rows)))
        else:
            results = [fit_one(k) for k in range(n_rows)]
        coef = np.empty((n_rows, parts.n_features))
        intercept = np.zeros(n_rows)
        for k, res in enumerate(results):
            coef[k], intercept[k] = self._split_solution(res["solution"], parts.n_features)
        self.classes_ = classes
        self.coef_ = coef
        self.intercept_ = intercept
        self._finish(parts, results, solver)
        return self

    def _class_weights_from_counts(self, classes: np.ndarray, counts: np.ndarray) -> np.ndarray:
        cw = self.class_weight
        if isinstance(cw, str) and cw == "balanced":
            # scikit-learn's compute_class_weight("balanced"): n / (n_classes * count).
            return counts.sum() / (classes.shape[0] * counts.astype(np.float64))
        # None and dicts: the in-memory rule (labels are not needed for those).
        return class_weight_vector(cw, classes, classes)

    def decision_function(self, X: Any) -> Any:
        """Lazy decision values: shape (n,) for two classes, else (n, n_classes)."""
        X, coef, intercept = self._decision_dask(X)
        k = coef.shape[0]
        out = X.map_blocks(
            _tasks.decision, coef, intercept, chunks=(X.chunks[0], (k,)), dtype=np.float64
        )
        return out[:, 0] if k == 1 else out

    def predict(self, X: Any) -> Any:
        """Lazy predicted labels."""
        X, coef, intercept = self._decision_dask(X)
        return X.map_blocks(
            _tasks.predict_block,
            coef,
            intercept,
            self.classes_,
            drop_axis=1,
            chunks=(X.chunks[0],),
            dtype=self.classes_.dtype,
        )

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> Any:
        """Lazy (weighted) accuracy."""
        pred = self.predict(X)
        y = _like(y, pred)
        hit = (pred == y).astype(np.float64)
        if sample_weight is None:
            return hit.mean()
        sw = _like(sample_weight, pred).astype(np.float64)
        return (hit * sw).sum() / sw.sum()


class LinearSVR(_DaskMixin, _LocalSVR):
    """svmkit.LinearSVR on a Dask cluster (same parameters, objective and fitted attributes).

    As svmkit.dask.LinearSVC: TRON over persisted row partitions, for the losses
    "squared_epsilon_insensitive" and "smoothed_epsilon_insensitive", and for the default
    "epsilon_insensitive" (scikit-learn's and svmkit.LinearSVR's model) its smoothing
    continuation, certified by the duality gap (tol bounds the relative gap; the in-memory
    LinearSVR(solver="tron") runs the same steps, while its solver="auto" takes dual_cd on
    data that are not very tall; an unregularized intercept is certified too, as in memory).
    predict and score are lazy; to_local() returns the fitted svmkit.LinearSVR.
    Extra parameter split_every and attribute client as in svmkit.dask.LinearSVC.
    """

    _local_class = _LocalSVR

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
        split_every: int = 8,
    ) -> None:
        super().__init__(
            epsilon=epsilon,
            loss=loss,
            C=C,
            tol=tol,
            max_iter=max_iter,
            fit_intercept=fit_intercept,
            intercept_scaling=intercept_scaling,
            regularize_intercept=regularize_intercept,
            solver=solver,
            dual=dual,
            sigma=sigma,
            penalty=penalty,
            l1_ratio=l1_ratio,
            verbose=verbose,
            random_state=random_state,
            n_jobs=n_jobs,
            warm_start=warm_start,
            solver_options=solver_options,
            callback=callback,
        )
        self.split_every = split_every

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> LinearSVR:
        """Fit on dask data (see the class docstring)."""
        validate_params(self)
        self._dask_solver("LinearSVR")
        self._tron_options()
        client = resolve_client(self.client)
        parts = persist(client, X, y, sample_weight)
        if not all(parts.summaries):
            raise ValueError("svmkit.dask: y contains NaN or infinity")
        targets = [client.submit(_tasks.regression_targets, b, float(self.C)) for b in parts.blocks]
        loss = (self.loss, float(self.sigma), float(self.epsilon))
        w0 = self._warm_start_vector(0, parts.n_features, 1)
        res = self._fit_binary(client, parts, targets, loss, w0, TrafficMeter())
        w, b = self._split_solution(res["solution"], parts.n_features)
        self.coef_ = w
        self.intercept_ = np.array([b])
        self._finish(parts, [res])
        return self

    def predict(self, X: Any) -> Any:
        """Lazy predicted values w.x + b."""
        X, coef, intercept = self._decision_dask(X)
        out = X.map_blocks(
            _tasks.decision, coef, intercept, chunks=(X.chunks[0], (1,)), dtype=np.float64
        )
        return out[:, 0]

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> Any:
        """Lazy (weighted) coefficient of determination R^2."""
        pred = self.predict(X)
        y = _like(y, pred).astype(np.float64)
        sw = 1.0 if sample_weight is None else _like(sample_weight, pred).astype(np.float64)
        total = (sw * np.ones_like(pred)).sum()
        mean = (sw * y).sum() / total
        ss_res = (sw * (y - pred) ** 2).sum()
        ss_tot = (sw * (y - mean) ** 2).sum()
        return 1.0 - ss_res / ss_tot


def _like(v: Any, ref: Any) -> Any:
    """v as a 1-D dask array chunked like ref."""
    import dask.array as da

    if is_dask_frame(v):
        v = v.to_dask_array(lengths=True)
    if not isinstance(v, da.Array):
        v = da.from_array(np.asarray(v), chunks=ref.chunks)
    if v.ndim == 2 and v.shape[1] == 1:
        v = v[:, 0]
    return v.rechunk(ref.chunks)


# The in-memory estimators' declared rules, plus the Dask ones (split_every; one-vs-rest only).
LinearSVC._parameter_checks = {
    **_LocalSVC._parameter_checks,
    "multi_class": OneOf("ovr"),
    "split_every": Int(ge=2),
}
LinearSVR._parameter_checks = {**_LocalSVR._parameter_checks, "split_every": Int(ge=2)}
