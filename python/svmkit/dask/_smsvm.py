"""SmSVM's outer loop on the driver, over row partitions on the workers.

A port of cpp/src/smsvm.cpp (paper 000: smoothing levels alpha <- beta alpha, guarded Newton
steps on the active set with LINESEARCHL1 and an Armijo test, activation of Algorithm 3, the
duality-gap / level-end stopping rule, the same constants and statuses) restricted to its
dense Newton path: the active block X~_A^T Dv X~_A (k x k) is assembled by the gradient pass
of each partition (_core.partition_smsvm_eval) and summed by the reduction tree, then
factored on the driver. Active blocks that the in-memory solver would solve matrix-free
(k > max_dense_block, over newton_memory_mb, or wide data) are refused with ValueError.
Elasticnet and l2 runs end with the C++ solver's final polish (polish()): the per-sample sets stay
on the workers as task results, the margin samples' support columns are gathered to build the
polish system, and each round's check of the optimality conditions runs on the partitions.
The band-repaired certificate (hinge_certificate.hpp, smsvm.cpp's certify) runs as there: the
partitions return the smoothed dual point's sums and their band rows on the support (|band| x k
values, k = support + bias), the driver repairs a on the band and one more round sums the
change. Unlike in memory, the band rows the driver takes are bounded too: at most
certificate_memory_mb of them (a wider band leaves the smoothed dual point's gap).

Rounds per Newton step: a full step accepted by Armijo costs one map-reduce round (the pass at
the trial point also assembles the next gradient and block). The l1 line search
(LINESEARCHL1) is a minimization over the coordinates of w + s d, so it runs on the driver
and needs no round; each Armijo backtracking trial is one round on the margins z and X~ d
kept by the workers (no sweep over X); a step that activates coordinates adds one round (the
direction margins X~ d for the model's curvature).
"""

from __future__ import annotations

import math
import operator
import time
import uuid
from typing import Any, Callable

import numpy as np
import scipy.linalg

from .. import _core
from .._core import SolverStatus
from . import _tasks
from ._cluster import (
    TrafficMeter,
    gather,
    runs_or_singletons,
    sum_over_runs,
    tree_sum,
)
from ._tron import _history_columns

_CONDITIONING_SHIFT = 1e-12  # smsvm.cpp's kConditioningShift
_RAY_BATCH = 8  # Armijo trials on the ray per map-reduce round
# smsvm.cpp's final polish constants (kPolishMargin, kPolishTol, kPolishResidual) and the
# smallest scale of eta after failed polishes (kMinEtaScale).
_POLISH_MARGIN = 10.0
_POLISH_TOL = 1e-9
_POLISH_RESIDUAL = 1e-9
_MIN_ETA_SCALE = 1e-3
_L2_POLISH_MAX_SYSTEM = 512  # smsvm.cpp's kL2PolishMaxSystem
# smsvm.cpp's kPolishMarginPerUnknown, kPolishMarginSlack: a margin set above this multiple of
# the unknowns (plus the slack) ends the polish.
_POLISH_MARGIN_PER_UNKNOWN = 4.0
_POLISH_MARGIN_SLACK = 32.0
_CERTIFY_WIDTHS = (1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 1e-1)  # smsvm.cpp's kCertifyWidths


class SmsvmData:
    """The workers' side of one binary SmSVM fit: partitions, targets (y, v = cost / S) and
    one map-reduce round per call."""

    def __init__(
        self, client, blocks, targets, intercept, split_every, meter, groups=None, workers=None
    ) -> None:
        self.client = client
        self.blocks = blocks
        # Runs of partitions for the summed rounds (run): one task per run, on its worker
        # (svmkit.dask._data.partition_groups); one run per partition when none are given.
        self.groups, self.group_workers = runs_or_singletons(groups, workers, len(blocks))
        self.targets = targets
        self.intercept = intercept
        self.split_every = split_every
        self.meter: TrafficMeter = meter
        self.fit_id = uuid.uuid4().hex
        self._ids = 0

    def new_id(self) -> int:
        self._ids += 1
        return self._ids

    def run(self, fn: Callable, *args: Any) -> np.ndarray:
        """Sum over the partitions of fn(block, targets, slot, *args, intercept) (one task per
        run of partitions, see _cluster.sum_over_runs)."""
        return sum_over_runs(self, fn, args)

    def map(self, fn: Callable, per_part: list | None, *args: Any) -> list:
        """One task per partition: fn(block, targets, slot, *per_part[p], *args, intercept),
        its results left on the workers (futures)."""
        self.meter.arg(args, len(self.blocks))
        return [
            self.client.submit(
                fn, b, t, (self.fit_id, p), *(per_part[p] if per_part else ()), *args,
                self.intercept, pure=False,
            )
            for p, (b, t) in enumerate(zip(self.blocks, self.targets))
        ]  # fmt: skip

    def item(self, results: list, k: int) -> list:
        """Element k of each partition's (tuple) result, on the workers."""
        return [self.client.submit(operator.getitem, r, k, pure=False) for r in results]

    def sum(self, results: list) -> np.ndarray:
        """The tree-reduced sum of the partitions' vectors."""
        return tree_sum(self.client, results, self.split_every, self.meter)

    def collect(self, results: list) -> list:
        """The partitions' (small) results, in partition order."""
        parts = gather(self.client, results)
        self.meter.results(parts)
        self.meter.rounds += 1
        return parts

    def release(self) -> None:
        try:
            self.client.run(_tasks.forget, self.fit_id)
        except Exception:  # a lost worker has nothing left to drop
            pass


class _Step:
    def __init__(self) -> None:
        self.s = 0.0
        self.halvings = 0
        self.accepted = False
        self.gh_at_trial = False


class DistributedSmsvm:
    """One binary SmSVM solve (smsvm.cpp's Smsvm<V>, dense path), state named as there."""

    def __init__(self, data, n_rows, n_features, col_nz, S, l2, l1, fit_intercept, scaling,
                 regularize_intercept, opts, callback) -> None:  # fmt: skip
        self.data = data
        self.o = opts
        self.cb = callback
        self.N, self.m = int(n_rows), int(n_features)
        self.fit_intercept = bool(fit_intercept)
        self.nc = self.m + (1 if fit_intercept else 0)
        self.S = float(S)
        self.lam = l2 / self.S
        self.mu = l1 / self.S
        self.lam_b = self.lam if regularize_intercept else 0.0
        self.scale = float(scaling) if fit_intercept else 0.0
        self.split = self.fit_intercept and self.lam_b == 0.0
        self.col_nz = col_nz
        self.passes = 1  # the column scan (col_nz)
        self.budget = float(opts["newton_memory_mb"]) * 1048576.0
        self.status = SolverStatus.converged
        self.iter = self.level_steps = self.ls_fail = self.adjustments = 0
        self.final_adjust_used = 0
        self.have_gh = self.gap_met = self.bound_at_w = self.h_valid = False
        self.adjust = True
        self.gap = self.bound = math.nan
        self.fh_cur = 0.0
        self.cur = np.zeros(5)
        self.z = None  # (id, w) of the margins the workers hold for the current point
        self.history: list[dict] = []
        self.H = np.zeros((0, 0))
        self.eta_scale = 1.0
        self.polish_tried_at = 0.0
        self.polished = False
        self.polish_rounds = 0

    # ---- helpers (smsvm.cpp's names) ----
    def is_bias(self, j: int) -> bool:
        return self.fit_intercept and j == self.m

    def lam_of(self, j: int) -> float:
        return self.lam_b if self.is_bias(j) else self.lam

    def reg(self, w: np.ndarray) -> float:
        m = self.m
        r = 0.5 * self.lam * float(np.sum(w[:m] * w[:m])) + self.mu * float(np.sum(np.abs(w[:m])))
        if self.fit_intercept:
            r += 0.5 * self.lam_b * w[m] * w[m]
        return r

    def reg_diff(self, w1: np.ndarray, w0: np.ndarray) -> float:
        m = self.m
        a, b = w1[:m], w0[:m]
        r = float(np.sum(0.5 * self.lam * (a - b) * (a + b) + self.mu * (np.abs(a) - np.abs(b))))
        if self.fit_intercept:
            r += 0.5 * self.lam_b * (w1[m] - w0[m]) * (w1[m] + w0[m])
        return r

    def rebuild_active(self) -> None:
        self.h_valid = False
        self.A = [j for j in range(self.m) if self.act[j]]
        self.kw = len(self.A)
        if self.fit_intercept:
            self.A.append(self.m)
        self.pos = np.full(self.nc, -1, dtype=np.int64)
        for q, j in enumerate(self.A):
            self.pos[j] = q
        k = len(self.A)
        wide = self.kw > self.N and self.N <= int(self.o["woodbury_max_samples"])
        dense_bytes = 8.0 * (4.0 * k * k + min(int(self.o["block_rows"]), self.N) * k)
        if wide or k > int(self.o["max_dense_block"]) or dense_bytes > self.budget:
            raise ValueError(
                f"svmkit.dask: SmSVM's active block has {k} coordinates, which the in-memory "
                "solver would solve matrix-free (over max_dense_block or newton_memory_mb, or "
                "wide data); only the dense Newton path is distributed"
            )

    # ---- passes ----
    def eval(self, w: np.ndarray, alpha: float, hess: bool, with_old: bool) -> np.ndarray:
        """One gradient pass at w (smsvm.cpp's eval): sums, ghat, gap and (hess) H."""
        self.passes += 1
        pid = self.data.new_id()
        w = np.ascontiguousarray(w, dtype=np.float64)
        old = self.z if with_old else None
        tot = self.data.run(
            _tasks.smsvm_eval,
            w,
            alpha,
            self.pos,
            hess,
            self.split,
            int(self.o["block_rows"]),
            pid,
            old,
        )
        self.z = (pid, w.copy())
        nc = self.nc
        sums = tot[:5]
        g = tot[5 : 5 + (2 if self.split else 1) * nc]
        if self.split:
            self.gpos = g[:nc].copy()
            self.ghat = g[:nc] + g[nc:]
        else:
            self.ghat = g.copy()
        self.gap = self.duality_gap(sums, w)
        lam_vec = np.full(nc, self.lam)
        if self.fit_intercept:
            lam_vec[self.m] = self.lam_b
        self.ghat += lam_vec * w
        self.h_valid = hess
        if hess:
            k = len(self.A)
            lower = tot[5 + (2 if self.split else 1) * nc :].reshape(k, k).T
            self.H = lower + np.tril(lower, -1).T
            self.H[np.diag_indices(k)] += lam_vec[self.A]
        return sums

    def duality_gap(self, t: np.ndarray, w: np.ndarray) -> float:
        """smsvm.cpp's duality_gap (ghat holds the loss gradient on entry)."""
        apos, aneg = t[3], t[4]
        tpos = tneg = 1.0
        if self.split:
            if apos > aneg:
                tpos = aneg / apos if apos > 0.0 else 1.0
            else:
                tneg = apos / aneg if aneg > 0.0 else 1.0
        r = -self.ghat if not self.split else -(tpos * self.gpos + tneg * (self.ghat - self.gpos))
        theta, conj = self.dual_scaling(r)
        return self.relative_gap(t[1] + self.reg(w), theta * (tpos * apos + tneg * aneg) - conj)

    def dual_scaling(self, r: np.ndarray) -> tuple[float, float]:
        """(theta, conjugate term) of the dual point with residual r: theta restores the l1
        constraints |r_j| <= mu when lambda = 0; the conjugate sums the l2 coordinates'
        (|theta r_j| - mu_j)_+^2 / (2 lambda_j)."""
        theta = 1.0
        if self.lam == 0.0:
            rmax = float(np.max(np.abs(r[: self.m]))) if self.m else 0.0
            if rmax > self.mu:
                theta = self.mu / rmax
        conj = 0.0
        for j in range(self.nc):
            lj = self.lam_of(j)
            if lj == 0.0:
                continue
            mj = 0.0 if self.is_bias(j) else self.mu
            e = max(abs(theta * r[j]) - mj, 0.0)
            conj += e * e / (2.0 * lj)
        return theta, conj

    @staticmethod
    def relative_gap(primal: float, dual: float) -> float:
        gap = max(primal - dual, 0.0)
        return gap / primal if primal > 0.0 else gap

    def direction_pass(self, d: np.ndarray) -> tuple:
        """q = X~ d kept on the workers; returns (its spec, sum Dv q^2)."""
        self.passes += 1
        qspec = (self.data.new_id(), ("x", np.ascontiguousarray(d, dtype=np.float64)))
        acc = self.data.run(_tasks.smsvm_direction, self.z, qspec, self.alpha)
        return qspec, float(acc[0])

    # ---- Algorithm 1 ----
    def start_run(self, w0: np.ndarray | None, warm_alpha: float) -> None:
        nc, m = self.nc, self.m
        self.w = np.zeros(nc) if w0 is None else np.array(w0, dtype=np.float64)
        self.d = np.zeros(nc)
        self.g = np.zeros(nc)
        self.l1 = self.mu > 0.0
        self.act = np.zeros(nc, dtype=bool)
        for j in range(m):
            self.act[j] = (not self.l1 and self.col_nz[j] > 0) or self.w[j] != 0.0
        if self.fit_intercept:
            self.act[m] = True
        o = self.o
        self.alpha_end = (
            float(o["alpha_floor"]) if (o["tol"] > 0.0 and not self.l1) else float(o["alpha_min"])
        )
        self.alpha_stop = o["beta"] * self.alpha_end * (1.0 + 1e-9)
        # smsvm.cpp: a warm start below the last level starts at it.
        self.alpha = max(warm_alpha, self.alpha_end) if warm_alpha > 0.0 else float(o["alpha0"])
        self.rebuild_active()
        if self.l1:
            self.eval(self.w, self.alpha, False, False)
            for j in range(m):
                if not self.act[j] and abs(self.ghat[j]) > self.mu:
                    self.act[j] = True
            self.rebuild_active()

    def ensure_gradient(self) -> bool:
        if self.have_gh and not self.h_valid:
            self.have_gh = False
        if not self.have_gh:
            self.cur = self.eval(self.w, self.alpha, True, False)
            self.fh_cur = float(self.cur[1])
            self.have_gh = True
        if not (math.isfinite(self.cur[0]) and math.isfinite(self.cur[1])):
            self.status = SolverStatus.numerical_error
            return False
        return True

    def shrink_active(self) -> None:
        old_pos = self.pos.copy()
        h_was_valid = self.h_valid
        self.rebuild_active()
        if self.have_gh and h_was_valid:
            idx = old_pos[self.A]
            self.H = self.H[np.ix_(idx, idx)]
            self.h_valid = True
            return
        self.have_gh = False

    def prune_zero_coordinates(self) -> None:
        pruned = False
        for j in range(self.m):
            if self.act[j] and self.w[j] == 0.0 and abs(self.ghat[j]) <= self.mu:
                self.act[j] = False
                pruned = True
        if pruned:
            self.shrink_active()

    def newton_direction(self) -> None:
        self.d[:] = 0.0
        A = self.A
        if not A:
            return
        g = self.g
        if self.lam > 0.0:
            rho = _CONDITIONING_SHIFT * max(float(np.max(np.diag(self.H))), 1e-300)
        else:
            rho = float(self.o["newton_ridge"]) * math.sqrt(float(np.sum(g[A] ** 2)))
        if self.lam == 0.0 and rho == 0.0:
            return
        self.d[A] = self.shifted_cholesky_solve(rho, -g[A])

    def shifted_cholesky_solve(self, shift: float, rhs: np.ndarray) -> np.ndarray:
        dmax = float(np.max(np.diag(self.H)))
        k = rhs.shape[0]
        for _ in range(40):
            if not math.isfinite(dmax):
                break
            Hs = self.H.copy()
            Hs[np.diag_indices(k)] += shift
            try:
                c = scipy.linalg.cho_factor(Hs, lower=True, check_finite=False)
                return scipy.linalg.cho_solve(c, rhs, check_finite=False)
            except (np.linalg.LinAlgError, ValueError):
                shift = max(10.0 * shift, 1e-14 * max(dmax, 1e-300))
        return np.full(k, math.nan)

    def direction(self) -> float:
        g, A = self.g, self.A
        g[:] = 0.0
        for j in A:
            gj = self.ghat[j]
            if not self.is_bias(j) and self.l1:
                sj = self.w[j] if self.w[j] != 0.0 else -self.ghat[j]
                gj += self.mu * (1.0 if sj > 0.0 else -1.0)
            g[j] = gj
        self.newton_direction()
        dec = 0.0
        for j in A:
            if self.l1 and not self.is_bias(j) and self.w[j] == 0.0 and self.d[j] * g[j] > 0.0:
                self.d[j] = 0.0
            dec += self.d[j] * g[j]
        return dec

    def next_level(self) -> None:
        self.alpha *= self.o["beta"]
        self.adjust = True
        self.have_gh = False
        self.level_steps = 0

    def end_of_level(self, dec: float) -> tuple[str, float]:
        J = []
        if self.l1:
            J = [j for j in range(self.m) if not self.act[j] and abs(self.ghat[j]) > self.mu]
        last_level = self.alpha <= self.alpha_end * (1.0 + 1e-9)
        may_adjust = self.adjust or (
            last_level and self.final_adjust_used < int(self.o["final_level_adjustments"])
        )
        if J and may_adjust:
            if last_level:
                self.final_adjust_used += 1
            for j in J:
                gj = self.ghat[j] - self.mu * (1.0 if self.ghat[j] > 0.0 else -1.0)
                self.g[j] = gj
                self.d[j] = -gj
                self.act[j] = True
            dec = float(np.sum(self.d * self.g))
            self.adjust = False
            self.adjustments += 1
            return "activated", dec
        if self.l1 and last_level and self.final_polish():
            return "stop", dec
        if (
            self.l1
            and last_level
            and self.o["polish_rounds"] > 0
            and dec < 0.0
            and self.eta_scale > _MIN_ETA_SCALE
        ):
            # The polish failed: the last level is solved more accurately (smsvm.cpp).
            self.eta_scale *= 0.1
            self.final_adjust_used = 0
            return "tightened", dec
        F = self.cur[1] + self.reg(self.w)
        slack = max(0.5 * self.alpha - (self.cur[0] - self.cur[1]), 0.0)
        est = (slack + 0.5 * abs(dec)) / max(F, 1e-300)
        if not self.l1:
            self.bound = min(self.gap, est)
        tol = self.o["tol"]
        if tol > 0.0 and not self.l1 and est <= tol:
            # smsvm.cpp: the certificate has to confirm the estimate where its repair fits.
            last = self.alpha * self.o["beta"] <= self.alpha_stop
            repairable = self.certificate_repairable()
            cert = self.gap if self.gap <= tol or not repairable else self.certify(self.alpha)
            if cert <= tol:
                self.bound = cert
            if cert <= tol or last or not repairable:
                self.gap_met = True
                return "stop", dec
        self.next_level()
        return "next_level", dec

    def take_step(self, dec: float, adjusted: bool) -> _Step:
        bcoef = float(np.sum(self.d * self.ghat))
        qspec = None
        if not adjusted:
            dA = self.d[self.A]
            acoef = 0.5 * float(dA @ (self.H @ dA))
        else:
            qspec, acc = self.direction_pass(self.d)
            lam_vec = np.full(self.nc, self.lam)
            if self.fit_intercept:
                lam_vec[self.m] = self.lam_b
            acoef = 0.5 * (acc + float(np.sum(lam_vec * self.d * self.d)))
            self.rebuild_active()
        m = self.m
        ls = _core.line_search_l1(
            np.ascontiguousarray(self.w[:m]),
            np.ascontiguousarray(self.d[:m]),
            max(acoef, 0.0),
            bcoef,
            self.mu,
            float(self.o["s_max"]),
        )
        st = _Step()
        st.s = float(ls["s"])
        self.wt = np.empty(self.nc)
        self.wt[:m] = ls["w_new"]
        if self.fit_intercept:
            self.wt[m] = self.w[m] + st.s * self.d[m]
        flipped, sigma_min = self.trial_signs()
        if st.s > 0.0:
            self.armijo(st, flipped, sigma_min, qspec, dec)
        return st

    def trial_signs(self) -> tuple[bool, float]:
        """trial_point's sign changes: zeroes them in wt; (any flipped, first breakpoint)."""
        flipped, sigma_min = False, math.inf
        if not self.l1:
            return flipped, sigma_min
        w, d, wt = self.w, self.d, self.wt
        for j in range(self.m):
            if w[j] != 0.0 and d[j] != 0.0 and ((w[j] > 0.0) != (d[j] > 0.0)):
                sigma_min = min(sigma_min, -w[j] / d[j])
            if w[j] != 0.0 and wt[j] != 0.0 and ((w[j] > 0.0) != (wt[j] > 0.0)):
                wt[j] = 0.0
                flipped = True
        return flipped, sigma_min

    def armijo(self, st: _Step, flipped: bool, sigma_min: float, qspec, dec: float) -> None:
        pred = float(np.sum(self.g * (self.wt - self.w)))
        keep = self.z
        trial = self.eval(self.wt, self.alpha, True, True)
        df = trial[2] + self.reg_diff(self.wt, self.w)
        if pred < 0.0 and math.isfinite(df) and df <= self.o["c1"] * pred:
            st.accepted = st.gh_at_trial = True
            self.cur = trial
            self.fh_cur = float(trial[1])
            return
        if qspec is None and not flipped:
            qspec = (self.data.new_id(), ("diff", self.z, keep, st.s))
        self.z = keep
        self.have_gh = False
        if flipped and self.projected_backtrack(st, sigma_min):
            return
        if qspec is None:
            qspec, _ = self.direction_pass(self.d)
        self.ray_backtrack(st, sigma_min, dec, qspec)

    def projected_backtrack(self, st: _Step, sigma_min: float) -> bool:
        sp = 0.5 * st.s
        w, d = self.w, self.d
        for _ in range(int(self.o["projected_halvings"])):
            if not sp > sigma_min:
                break
            st.halvings += 1
            wt = w + sp * d
            flip = (
                (w[: self.m] != 0.0)
                & (wt[: self.m] != 0.0)
                & ((w[: self.m] > 0.0) != (wt[: self.m] > 0.0))
            )
            if not flip.any():
                break
            wt[: self.m][flip] = 0.0
            pred_p = float(np.sum(self.g * (wt - w)))
            self.passes += 1
            trial = (self.data.new_id(), wt)
            out = self.data.run(_tasks.smsvm_project, self.z, trial, self.alpha)
            dfp = out[0] + self.reg_diff(wt, w)
            if pred_p < 0.0 and math.isfinite(dfp) and dfp <= self.o["c1"] * pred_p:
                st.accepted = True
                st.s = sp
                self.wt = wt
                self.z = trial
                self.fh_cur = float(out[1])
                return True
            sp *= 0.5
        return False

    def ray_backtrack(self, st: _Step, sigma_min: float, dec: float, qspec) -> None:
        """smsvm.cpp's ray_backtrack. Its trial steps s, s/2, ... are known in advance, so
        up to _RAY_BATCH of them are evaluated in one round and the first that passes is
        taken: the same step and halvings as one trial per round."""
        st.s = min(0.5 * st.s, sigma_min)
        st.halvings += 1
        w, d = self.w, self.d
        while True:
            steps = []
            s = st.s
            while len(steps) < _RAY_BATCH and (s >= self.o["s_min"] or s == sigma_min):
                steps.append(s)
                s *= 0.5
            if not steps:
                return
            out = self.data.run(_tasks.smsvm_ray, self.z, qspec, steps, self.alpha)
            for t, s in enumerate(steps):
                wt = w + s * d
                if s == sigma_min:  # landing on the first breakpoint: exact zeros there
                    for j in range(self.m):
                        if w[j] != 0.0 and d[j] != 0.0 and -w[j] / d[j] == s:
                            wt[j] = 0.0
                dff = out[2 * t] + self.reg_diff(wt, w)
                if math.isfinite(dff) and dff <= self.o["c1"] * s * dec:
                    st.accepted = True
                    st.s = s
                    self.wt = wt
                    self.fh_cur = float(out[2 * t + 1])
                    self.z = None  # z + s q: never read (the next pass is at the new w)
                    return
                st.halvings += 1
            st.s = s * 0.5

    def commit_step(self, gh_at_trial: bool) -> None:
        dropped = False
        if self.l1:
            for j in range(self.m):
                if self.act[j] and self.wt[j] == 0.0:
                    self.act[j] = False
                    dropped = True
        self.w = self.wt
        self.bound_at_w = False
        if gh_at_trial:
            self.have_gh = True
        if dropped:
            self.shrink_active()

    def record_step(self, dec: float, st: _Step) -> bool:
        if not self.o["record_history"] and self.cb is None:
            return True
        rec = {
            "iteration": self.iter,
            "objective": self.S * (self.fh_cur + self.reg(self.w)),
            "optimality": abs(dec),
            "step": st.s if st.accepted else 0.0,
            "inner_iterations": self.level_steps,
            "active_size": len(self.A),
            "smoothing": self.alpha if st.accepted else self.alpha / self.o["beta"],
            "radius": float(st.halvings),
            "gap": self.bound,
            "passes": self.passes,
            "time": time.perf_counter() - self.start,
            "accepted": st.accepted,
        }
        if self.o["record_history"]:
            self.history.append(rec)
        if self.cb is not None:
            out = self.cb(rec)
            if out is not None and not out:
                self.status = SolverStatus.interrupted
                return False
        return True

    def iterate(self) -> bool:
        if self.alpha <= self.alpha_stop:
            return False
        if self.iter >= int(self.o["max_iter"]):
            self.status = SolverStatus.max_iter
            return False
        if not self.ensure_gradient():
            return False
        self.bound = self.gap
        self.bound_at_w = True
        if self.o["tol"] > 0.0 and self.gap <= self.o["tol"]:
            self.gap_met = True
            return False
        if self.l1:
            self.prune_zero_coordinates()
        dec = self.direction()
        if not math.isfinite(dec):
            self.status = SolverStatus.numerical_error
            return False
        adjusted = False
        if not (dec < 0.0) or abs(dec) < self.o["eta"] * self.eta_scale * self.alpha:
            end, dec = self.end_of_level(dec)
            if end == "stop":
                return False
            if end == "next_level":
                return True
            adjusted = end == "activated"
        self.iter += 1
        self.level_steps += 1
        st = self.take_step(dec, adjusted)
        if not st.accepted:
            self.ls_fail += 1
            self.next_level()
        else:
            self.commit_step(st.gh_at_trial)
        return self.record_step(dec, st)

    def finish(self) -> dict:
        a_fin = max(self.alpha, self.alpha_end)
        if not (self.have_gh and self.gap_met):
            self.eval(self.w, a_fin, False, False)
            self.bound = min(self.bound, self.gap) if self.bound_at_w else self.gap
        fs, fh = self.data.run(_tasks.smsvm_sums, self.z, a_fin)
        objective = self.S * (fh + self.reg(self.w))
        status, message = self.status, ""
        tol = self.o["tol"]
        ended = status in (SolverStatus.converged, SolverStatus.max_iter)
        if ended and tol > 0.0 and not self.bound <= tol:
            cert = self.certify(a_fin)
            if cert < self.bound or math.isnan(self.bound):
                self.bound = cert
        if status == SolverStatus.converged and tol > 0.0 and not self.bound <= tol:
            # smsvm.cpp's finish(): the paper's rule ended the run without a bound <= tol.
            status = SolverStatus.max_iter
            message = (
                f"the smoothing reached its last level (alpha = {a_fin:.3g}) with a certified "
                f"relative duality gap of {self.bound:.3g} above tol; lower alpha_min"
                + ("" if self.l1 else " or alpha_floor")
                + ", or raise tol"
            )
        if not math.isfinite(objective):
            status = SolverStatus.numerical_error
        return {
            "status": status,
            "message": message,
            "solution": self.w,
            "objective": objective,
            "optimality": self.bound,
            "iterations": self.iter,
            "inner_iterations": self.iter,
            "passes": self.passes,
            "time": time.perf_counter() - self.start,
            "history": _history_columns(self.history),
            "final_alpha": a_fin,
            "smoothed_objective": self.S * (fs + self.reg(self.w)),
            "line_search_failures": self.ls_fail,
            "active_set_adjustments": self.adjustments,
            "woodbury_solves": 0,
            "cg_iterations": 0,
            "polished": self.polished,
            "polish_rounds": self.polish_rounds,
        }

    # ---- The band-repaired certificate (smsvm.cpp's certify, hinge_certificate.hpp) ----
    def certificate_gram(self) -> float:
        return float(self.o["certificate_memory_mb"]) * 1048576.0 / 8.0

    def certificate_repairable(self) -> bool:
        k = (1 if self.fit_intercept else 0) + int(np.count_nonzero(self.w[: self.m]))
        return k > 0 and float(k) * k <= self.certificate_gram()

    def certify(self, alpha: float) -> float:
        """The smallest relative duality gap of the exact problem at w over the band widths
        alpha, then _CERTIFY_WIDTHS above it, until one is <= tol; NaN when the support's
        system does not fit certificate_memory_mb."""
        best = math.nan
        if not self.certificate_repairable():
            return best
        for sigma in [alpha] + [s for s in _CERTIFY_WIDTHS if s > alpha]:
            gap = self.certificate(sigma)
            if gap < best or math.isnan(best):
                best = gap
            if best <= self.o["tol"]:
                break
        return best

    def certificate(self, sigma: float) -> float:
        """hinge_certificate at w: the smoothed dual point of width sigma, repaired on the margin
        band by the driver (the band's support rows gathered: |band| x k values), the best dual
        value on the segment between the two (2 passes, 3 with the repair)."""
        m = self.m
        support = np.flatnonzero(self.w[:m] != 0.0)
        point = (self.data.new_id(), self.w.copy())
        limit = self.certificate_gram()  # the band rows the driver takes, in values
        out = self.data.map(_tasks.smsvm_cert_band, None, point, sigma, support, limit)
        head = self.data.sum(self.data.item(out, 0))
        self.passes += 2
        primal = float(head[0]) + self.reg(self.w)
        smoothed = head[1:]
        dual = self.dual_value(smoothed)
        bands = self.data.collect(self.data.item(out, 1))
        gathered = all(b is not None for b in bands)
        if gathered and 0 < sum(b[3].size for b in bands) <= limit:
            changes = self.repair_band(bands, smoothed, support)
            if changes is not None:
                self.passes += 1
                per_part = [(b[0], c) for b, c in zip(bands, changes)]
                delta = self.data.sum(self.data.map(_tasks.smsvm_cert_change, per_part))
                for th in _core.hinge_certificate_segment[1:]:
                    dual = max(dual, self.dual_value(smoothed + th * delta))
        return self.relative_gap(primal, dual)

    def bias_penalized(self) -> bool:
        return self.fit_intercept and self.lam_b > 0.0

    def dual_value(self, sums: np.ndarray) -> float:
        """hinge_dual_value (the in-memory certificate's, bound in _core): the dual at
        [sum_{y>0} a, sum_{y<0} a, r+, r-], made feasible by scaling."""
        return _core.hinge_dual_value(
            sums, self.mu, self.lam, self.fit_intercept, self.bias_penalized(), self.scale
        )

    def repair_band(self, bands: list, sums: np.ndarray, support: np.ndarray) -> list | None:
        """hinge_certificate.hpp's repair_band (bound in _core) on the gathered band: the
        least-norm change of a on the band meeting the optimum's conditions at w, clipped to
        [0, v_i]; returns the change per partition, or None."""
        A = np.vstack([b[3] for b in bands])
        a0 = np.concatenate([b[1] for b in bands])
        hi = np.concatenate([b[2] for b in bands])
        repaired = _core.hinge_repair_band(
            self.w,
            A,
            a0,
            hi,
            sums,
            self.mu,
            self.lam,
            self.fit_intercept,
            self.bias_penalized(),
            self.scale,
            self.certificate_gram(),
        )
        if repaired is None:
            return None
        return np.split(repaired - a0, np.cumsum([b[0].size for b in bands])[:-1])

    # ---- Final polish (smsvm.cpp's polish(), see the comment there) ----
    def final_polish(self) -> bool:
        if self.o["polish_rounds"] <= 0 or self.polish_tried_at == self.eta_scale:
            return False
        self.polish_tried_at = self.eta_scale
        if not self.polish():
            return False
        self.gap_met = True
        return True

    def polish(self) -> bool:
        """Replaces w by the exact optimum on the identified sets when it satisfies the
        optimality conditions and does not increase F."""
        if self.o["polish_rounds"] <= 0 or self.status == SolverStatus.interrupted:
            return False
        m = self.m
        self.passes += 1
        point = (self.data.new_id(), self.w.copy())
        tau = _POLISH_MARGIN * max(self.alpha, self.alpha_end)
        out = self.data.map(_tasks.polish_sides, None, point, tau)
        sides = self.data.item(out, 0)
        tot = self.data.sum(self.data.item(out, 1))
        f0 = tot[0] + self.reg(self.w)
        n_margin = int(tot[1])
        support = [j for j in range(m) if self.w[j] != 0.0]
        sgn = [1.0 if self.w[j] > 0.0 else -1.0 for j in support]
        at = point  # the point whose margins complete a pure-l1 vertex
        for _ in range(int(self.o["polish_rounds"])):
            n = len(support) + 1.0 + n_margin
            if n > float(self.o["max_dense_block"]) or 24.0 * n * n > self.budget:
                return False
            if not self.l1 and n > _L2_POLISH_MAX_SYSTEM:
                return False
            nx = len(support) + (1.0 if self.fit_intercept else 0.0)
            if n - nx > _POLISH_MARGIN_PER_UNKNOWN * nx + _POLISH_MARGIN_SLACK:
                return False
            self.polish_rounds += 1
            if self.lam == 0.0:
                sides, n_margin = self.complete_vertex(sides, int(nx), n_margin, at)
            solved = self.polish_solve(sides, support, sgn)
            if solved is None:
                return False
            wp, betas = solved
            self.passes += 2  # the margins at wp and the dual residual
            trial = (self.data.new_id(), wp.copy())
            per_part = [(sd, b) for sd, b in zip(sides, betas)]
            out = self.data.map(_tasks.polish_check, per_part, trial, _POLISH_TOL)
            sides = self.data.item(out, 0)
            tot = self.data.sum(self.data.item(out, 1))
            at = trial
            ok = tot[0] == 0.0
            hinge_p, sum_va, n_margin, r = tot[1], tot[2], int(tot[3]), tot[4:]
            ok = self.polish_sets_update(wp, r, support, sgn) and ok
            if not ok:
                continue
            gap = self.polish_duality_gap(wp, sum_va, r, hinge_p)
            if not (hinge_p + self.reg(wp) <= f0):
                return False
            self.w = wp
            self.z = trial
            self.polished = True
            self.have_gh = self.gap_met = False
            self.bound = gap
            self.bound_at_w = True
            return True
        return False

    def complete_vertex(self, sides: list, nx: int, n_margin: int, point: tuple) -> tuple:
        """smsvm.cpp's complete_vertex over the partitions: pure l1 is a linear program, and
        at a (nondegenerate) vertex as many samples lie on the margin as x = (w_S, b) has
        coordinates; the margin set is completed to that size by the samples closest to the
        margin at point (each partition offers its nearest, the driver picks among them).
        Returns (sides, samples on the margin)."""
        need = nx - n_margin
        if need <= 0:
            return sides, n_margin
        # No pass: the partitions read the margins of point from their cache (polish_sides or
        # polish_check computed them), as smsvm.cpp reuses its z.
        offers = self.data.collect(
            self.data.map(_tasks.polish_closest, [(sd,) for sd in sides], point, need)
        )
        ranked = sorted(
            (float(dist), p, int(i))
            for p, (idx, dists) in enumerate(offers)
            for i, dist in zip(idx, dists)
        )[:need]
        picks: list[list[int]] = [[] for _ in sides]
        for _, p, i in ranked:
            picks[p].append(i)
        marked = [(sd, np.asarray(pk, dtype=np.int64)) for sd, pk in zip(sides, picks)]
        return self.data.map(_tasks.polish_mark, marked), n_margin + len(ranked)

    def polish_solve(self, sides: list, support: list, sgn: list) -> tuple | None:
        """The polish system of the sets (smsvm.cpp's polish_solve): w on the support (and
        the bias) and beta_i = v_i a_i of the margin samples; None when it is inconsistent."""
        k = len(support)
        nx = k + (1 if self.fit_intercept else 0)
        cols = np.asarray(support, dtype=np.int64)
        out = self.data.map(_tasks.polish_rows, [(sd,) for sd in sides], cols)
        rows = self.data.collect(self.data.item(out, 0))
        r_e = self.data.sum(self.data.item(out, 1))
        Z = np.vstack([zp for zp, _ in rows]) if rows else np.zeros((0, nx))
        counts = [zp.shape[0] for zp, _ in rows]
        nm = Z.shape[0]
        K = np.zeros((nx + nm, nx + nm))
        rhs = np.zeros(nx + nm)
        K[np.arange(k), np.arange(k)] = self.lam
        rhs[:k] = -self.mu * np.asarray(sgn)
        if self.fit_intercept:
            K[k, k] = self.lam_b
        rhs[:nx] += r_e
        K[nx:, :nx] = Z
        K[:nx, nx:] = -Z.T
        rhs[nx:] = 1.0
        sol = np.linalg.lstsq(K, rhs, rcond=None)[0]
        res = float(np.linalg.norm(K @ sol - rhs))
        if not np.all(np.isfinite(sol)) or not res <= _POLISH_RESIDUAL * (
            1.0 + float(np.linalg.norm(rhs))
        ):
            return None
        wp = np.zeros(self.nc)
        wp[cols] = sol[:k]
        if self.fit_intercept:
            wp[self.m] = sol[k]
        betas = np.split(sol[nx:], np.cumsum(counts)[:-1]) if counts else []
        return wp, betas

    def polish_sets_update(self, wp: np.ndarray, r: np.ndarray, support: list, sgn: list) -> bool:
        """polish_check's support part: coordinates whose sign flipped leave (set to 0), zero
        coordinates with |r_j| > mu enter; True when none moved. support and sgn in place."""
        ok = True
        if not self.l1:  # l2: no sign condition; the signs follow the solution
            sgn[:] = [
                (1.0 if wp[j] > 0.0 else -1.0) if wp[j] != 0.0 else s for j, s in zip(support, sgn)
            ]
        keep = [(j, s) for j, s in zip(support, sgn) if not wp[j] * s < 0.0]
        if len(keep) < len(support):
            ok = False
            for j, s in zip(support, sgn):
                if wp[j] * s < 0.0:
                    wp[j] = 0.0
        members = {j for j, _ in keep}
        rtol = _POLISH_TOL * max(self.mu, 1e-300)
        for j in range(self.m):
            if wp[j] != 0.0 or not abs(r[j]) > self.mu + rtol or j in members:
                continue
            keep.append((j, 1.0 if r[j] > 0.0 else -1.0))
            members.add(j)
            ok = False
        support[:] = [j for j, _ in keep]
        sgn[:] = [s for _, s in keep]
        return ok

    def polish_duality_gap(self, w: np.ndarray, sum_va: float, r: np.ndarray, hinge: float):
        """(P(w) - D(a)) / P(w) at the polished point (smsvm.cpp's polish_duality_gap)."""
        theta, conj = self.dual_scaling(r)
        return self.relative_gap(hinge + self.reg(w), theta * sum_va - conj)

    def run(self, w0: np.ndarray | None, warm_alpha: float) -> dict:
        self.start = time.perf_counter()
        self.start_run(w0, warm_alpha)
        while self.iterate():
            pass
        # Runs that ended before the last level's polish (a step limit, a certified gap).
        ended = self.status in (SolverStatus.converged, SolverStatus.max_iter)
        if ended and not self.polished and self.polish_tried_at != self.eta_scale:
            self.polish()
        return self.finish()
