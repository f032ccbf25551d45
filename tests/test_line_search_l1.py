"""LINESEARCHL1 (paper 000, Algorithm 4) against brute force.

j(s) = a s^2 + b s + mu ||w + s d||_1 is convex and piecewise quadratic; its minimum over
[0, s_max] is attained at 0, s_max, a breakpoint -w_j/d_j, or the stationary point of one
quadratic piece. The brute force evaluates j at all of them.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from svmkit import _core


def j_of(s: float, w, d, a, b, mu) -> float:
    return a * s * s + b * s + mu * float(np.abs(w + s * d).sum())


def brute_force_min(w, d, a, b, mu, s_max) -> float:
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        sig = np.where(d != 0, -w / d, np.nan)
    bps = sorted({float(x) for x in sig if np.isfinite(x) and 0 < x < s_max})
    hi = s_max if math.isfinite(s_max) else (max(bps) if bps else 0.0) * 2 + 1e6
    pts = [0.0, *bps, hi]
    cands = list(pts)
    for lo_, hi_ in zip(pts[:-1], pts[1:]):
        mid = 0.5 * (lo_ + hi_)
        slope_const = b + mu * float(np.sum(np.sign(w + mid * d) * d))
        if a > 0:
            s_star = -slope_const / (2 * a)
            cands.append(min(max(s_star, lo_), hi_))
    if not math.isfinite(s_max) and a > 0:
        last = pts[-2]
        slope_const = b + mu * float(np.sum(np.sign(w + (last + 1.0) * d) * d))
        cands.append(max(last, -slope_const / (2 * a)))
    return min(j_of(s, w, d, a, b, mu) for s in cands)


small = st.integers(-4, 4).map(float)
coord = st.one_of(small, st.floats(-5, 5, allow_nan=False, allow_infinity=False))


@st.composite
def problems(draw):
    m = draw(st.integers(1, 12))
    w = np.array(draw(st.lists(coord, min_size=m, max_size=m)))
    d = np.array(draw(st.lists(coord, min_size=m, max_size=m)))
    # a is a curvature: 0 or a normal positive number (a subnormal a with s_max = inf puts the
    # minimizer beyond the largest double).
    a = draw(st.sampled_from([0.0, 0.5, 1.0]) | st.floats(1e-6, 10))
    b = draw(st.floats(-20, 20) | small)
    mu = draw(st.sampled_from([0.0, 1.0]) | st.floats(0, 5))
    s_max = draw(st.sampled_from([math.inf, 1.0, 3.0]) | st.floats(0, 10))
    return w, d, a, b, mu, s_max


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(problems())
def test_matches_brute_force(p):
    w, d, a, b, mu, s_max = p
    # Bounded below on [0, s_max]: a > 0, a finite s_max, or a slope >= 0 far out.
    far_slope = b + mu * float(np.abs(d).sum())
    assume(a > 0 or math.isfinite(s_max) or far_slope >= 0)
    r = _core.line_search_l1(w, d, a, b, mu, s_max)
    s = r["s"]
    assert 0.0 <= s <= s_max
    best = brute_force_min(w, d, a, b, mu, s_max)
    got = j_of(s, w, d, a, b, mu)
    assert got <= best + 1e-9 * (1 + abs(best)), (got, best, r)
    # Exact zeros: at a breakpoint, every coordinate whose breakpoint is s lands on 0.0.
    if r["at_breakpoint"]:
        j1 = r["j1"]
        assert r["j1"] == r["j2"] and r["w_new"][j1] == 0.0
        assert s == -w[j1] / d[j1]
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            tied = (d != 0) & (w != 0) & (-w / d == s)
        assert np.all(r["w_new"][tied] == 0.0)


def test_ties_land_on_exact_zero():
    # Three coordinates share the breakpoint s = 0.3 bitwise (0.9/3 == 0.6/2 == 0.3), and
    # 0.9 + 0.3 * (-3) is not 0 in floating point: the result must still be exactly 0.
    w = np.array([0.9, -0.6, 0.3, 2.0])
    d = np.array([-3.0, 2.0, -1.0, 0.0])
    assert w[0] + (-w[0] / d[0]) * d[0] != 0.0
    assert -w[0] / d[0] == -w[1] / d[1] == -w[2] / d[2]
    r = _core.line_search_l1(w, d, 0.0, -1.0, 0.5, np.inf)
    assert r["at_breakpoint"] and r["s"] == -w[0] / d[0]
    assert np.all(r["w_new"][:3] == 0.0) and r["w_new"][3] == 2.0


def test_d_zero_and_mu_zero_and_a_zero():
    w = np.array([1.0, -2.0])
    # d = 0: only the quadratic moves; minimizer -b/(2a).
    r = _core.line_search_l1(w, np.zeros(2), 2.0, -4.0, 1.0)
    assert r["s"] == pytest.approx(1.0) and not r["at_breakpoint"]
    # mu = 0: the l1 term is ignored (s = -b / 2a), breakpoints or not.
    r = _core.line_search_l1(w, np.array([-1.0, 1.0]), 1.0, -6.0, 0.0)
    assert r["s"] == pytest.approx(3.0)
    # a = 0: piecewise linear; minimum at the breakpoint where the slope turns positive.
    r = _core.line_search_l1(w, np.array([-1.0, 0.0]), 0.0, -0.5, 1.0)
    assert r["at_breakpoint"] and r["s"] == 1.0 and r["w_new"][0] == 0.0
    # a = 0 with a slope that stays negative: s_max.
    r = _core.line_search_l1(w, np.array([1.0, 0.0]), 0.0, -2.0, 1.0, 5.0)
    assert r["s"] == 5.0
    r = _core.line_search_l1(w, np.array([1.0, 0.0]), 0.0, -2.0, 1.0)
    assert r["unbounded"] and math.isinf(r["s"])


def test_zero_when_not_descent():
    w = np.array([1.0, 0.0])
    d = np.array([0.0, 1.0])  # w_2 leaves zero: slope at 0+ is b + mu |d_2| = 0.5 > 0
    r = _core.line_search_l1(w, d, 1.0, -0.5, 1.0)
    assert r["s"] == 0.0 and r["slope0"] == pytest.approx(0.5)
    assert np.array_equal(r["w_new"], w)


@pytest.mark.parametrize(
    "args, match",
    [
        ((np.ones(2), np.ones(2), -1.0, 0.0, 1.0, 1.0), "a must be >= 0"),
        ((np.ones(2), np.ones(2), 1.0, 0.0, -1.0, 1.0), "mu must be >= 0"),
        ((np.ones(2), np.ones(2), 1.0, 0.0, 1.0, -1.0), "s_max must be >= 0"),
        ((np.ones(2), np.ones(2), 1.0, np.nan, 1.0, 1.0), "b is NaN"),
        ((np.ones(2), np.ones(3), 1.0, 0.0, 1.0, 1.0), "same length"),
        ((np.array([np.nan, 1.0]), np.ones(2), 1.0, 0.0, 1.0, 1.0), "NaN"),
    ],
)
def test_errors(args, match):
    with pytest.raises(ValueError, match=match):
        _core.line_search_l1(*args)
