"""The loss family against finite differences and high-precision closed forms (mpmath)."""

from __future__ import annotations

import mpmath as mp
import numpy as np
import pytest
from svmkit import _core

mp.mp.dps = 60

CLASSIFICATION = ["hinge", "squared_hinge", "smoothed_hinge", "gaussian_smoothed_hinge", "logistic"]
REGRESSION = ["epsilon_insensitive", "squared_epsilon_insensitive", "smoothed_epsilon_insensitive"]
KINKS = {  # points where a non-smooth loss or its derivative jumps
    "hinge": [1.0],
    "squared_hinge": [1.0],
    "epsilon_insensitive": [-0.3, 0.3],
    "squared_epsilon_insensitive": [-0.3, 0.3],
}


def evaluate(loss: str, u, sigma: float = 0.7, epsilon: float = 0.3):
    return _core.loss_eval(loss, np.asarray(u, dtype=np.float64), sigma, epsilon)


@pytest.mark.parametrize("loss", CLASSIFICATION + REGRESSION)
def test_derivatives_match_finite_differences(loss: str) -> None:
    u = np.linspace(-3.0, 3.0, 121) + 0.013
    kinks = KINKS.get(loss, [])
    u = u[[all(abs(x - k) > 1e-3 for k in kinks) for x in u]]
    h = 1e-6
    v, d1, d2 = evaluate(loss, u)
    vp, d1p, _ = evaluate(loss, u + h)
    vm, d1m, _ = evaluate(loss, u - h)
    np.testing.assert_allclose(d1, (vp - vm) / (2 * h), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(d2, (d1p - d1m) / (2 * h), rtol=1e-5, atol=1e-7)


def psi_m_ref(u, sigma):
    t = 1 - mp.mpf(u)
    return (t + mp.sqrt(t * t + mp.mpf(sigma) ** 2)) / 2


def psi_g_ref(u, sigma):
    t = 1 - mp.mpf(u)
    s = mp.mpf(sigma)
    v = t / s
    return t * mp.ncdf(v) + s * mp.npdf(v)


EXTREME_U = [-1e8, -1e4, -3.0, 0.0, 0.5, 1.0 - 1e-9, 1.0, 1.0 + 1e-9, 1.5, 3.0, 40.0, 1e4, 1e8]
SIGMAS = [2.0**-30, 2.0**-10, 1e-3, 0.1, 1.0, 32.0]


@pytest.mark.parametrize("sigma", SIGMAS)
def test_smoothed_hinge_matches_closed_form(sigma: float) -> None:
    v, d1, d2 = evaluate("smoothed_hinge", EXTREME_U, sigma=sigma)
    for i, u in enumerate(EXTREME_U):
        ref = psi_m_ref(u, sigma)
        t = 1 - mp.mpf(u)
        r = mp.sqrt(t * t + mp.mpf(sigma) ** 2)
        ref_d1 = -(1 + t / r) / 2
        ref_d2 = mp.mpf(sigma) ** 2 / (2 * r**3)
        assert np.isfinite([v[i], d1[i], d2[i]]).all()
        assert abs(v[i] - float(ref)) <= 1e-14 * float(abs(ref)) + 1e-300, (u, v[i], ref)
        assert abs(d1[i] - float(ref_d1)) <= 1e-14 * float(abs(ref_d1)) + 1e-300
        assert abs(d2[i] - float(ref_d2)) <= 1e-13 * float(abs(ref_d2)) + 1e-300


@pytest.mark.parametrize("sigma", SIGMAS)
def test_gaussian_smoothed_hinge_matches_closed_form(sigma: float) -> None:
    v, d1, d2 = evaluate("gaussian_smoothed_hinge", EXTREME_U, sigma=sigma)
    for i, u in enumerate(EXTREME_U):
        ref = psi_g_ref(u, sigma)
        t = 1 - mp.mpf(u)
        ref_d1 = -mp.ncdf(t / sigma)
        ref_d2 = mp.npdf(t / sigma) / sigma
        assert np.isfinite([v[i], d1[i], d2[i]]).all()
        tiny = 1e-290  # values below this underflow in double precision
        assert abs(v[i] - float(ref)) <= 1e-12 * float(abs(ref)) + tiny, (u, v[i], ref)
        assert abs(d1[i] - float(ref_d1)) <= 1e-12 * float(abs(ref_d1)) + tiny
        assert abs(d2[i] - float(ref_d2)) <= 1e-12 * float(abs(ref_d2)) + tiny


def test_gaussian_smoothed_hinge_tail_has_no_cancellation() -> None:
    # For u >> 1 the two terms of t Phi(t/s) + s phi(t/s) nearly cancel; the value must keep
    # full relative accuracy across the whole tail, not just be small.
    sigma = 0.25
    us = 1 + sigma * np.linspace(1.0, 37.0, 300)
    v, _, _ = evaluate("gaussian_smoothed_hinge", us, sigma=sigma)
    ref = np.array([float(psi_g_ref(u, sigma)) for u in us])
    mask = ref > 1e-290
    np.testing.assert_allclose(v[mask], ref[mask], rtol=1e-12)


def test_smoothed_hinge_tail_relative_accuracy() -> None:
    sigma = 1e-3
    us = np.geomspace(1.001, 1e8, 200)
    v, d1, _ = evaluate("smoothed_hinge", us, sigma=sigma)
    ref = np.array([float(psi_m_ref(u, sigma)) for u in us])
    np.testing.assert_allclose(v, ref, rtol=1e-14)
    assert np.all(v > 0) and np.all(d1 < 0)


def test_logistic_extremes() -> None:
    u = np.array([-1e8, -800.0, -40.0, 0.0, 40.0, 800.0, 1e8])
    v, d1, d2 = evaluate("logistic", u)
    assert np.isfinite(v).all() and np.isfinite(d1).all() and np.isfinite(d2).all()
    for i, x in enumerate(u):
        ref = mp.log(1 + mp.exp(-mp.mpf(x)))
        assert abs(v[i] - float(ref)) <= 1e-15 * float(ref) + 1e-300


def test_smoothed_losses_bound_the_hinge() -> None:
    # Paper 002, Theorem 2: 0 <= psi - hinge <= sigma/2 (psi_M) and sigma/sqrt(2 pi) (psi_G).
    u = np.linspace(-5, 5, 1001)
    hinge = np.maximum(0.0, 1 - u)
    for sigma in (0.01, 0.5, 2.0):
        vm, _, _ = evaluate("smoothed_hinge", u, sigma=sigma)
        vg, _, _ = evaluate("gaussian_smoothed_hinge", u, sigma=sigma)
        assert np.all(vm - hinge >= -1e-15) and np.all(vm - hinge <= sigma / 2 + 1e-15)
        assert np.all(vg - hinge >= -1e-15)
        assert np.all(vg - hinge <= sigma / np.sqrt(2 * np.pi) + 1e-15)


@pytest.mark.parametrize(
    ("loss", "sigma", "epsilon", "match"),
    [
        ("smoothed_hinge", 0.0, 0.0, "sigma"),
        ("gaussian_smoothed_hinge", -1.0, 0.0, "sigma"),
        ("smoothed_hinge", float("nan"), 0.0, "sigma"),
        ("epsilon_insensitive", 0.1, -0.5, "epsilon"),
        ("no_such_loss", 0.1, 0.0, "unknown loss"),
    ],
)
def test_invalid_loss_parameters(loss: str, sigma: float, epsilon: float, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        _core.loss_eval(loss, np.zeros(3), sigma, epsilon)
