"""Seeded synthetic data of paper 000 (SmSVM), section 4.1.4.

Two centroids c_1, c_2 in R^m with components drawn from N(0, 1) and then scaled, and samples
drawn from N(c_k, I), the same number per class. The paper does not state the scaling; it is
the `centroid_scale` argument here (default 0.1, which gives overlapping classes, a hinge
problem whose optimum has many margin and misclassified points).
"""

from __future__ import annotations

import numpy as np


def make_paper_gaussians(
    n_samples: int,
    n_features: int,
    *,
    centroid_scale: float = 0.1,
    random_state: int = 0,
    dtype: type = np.float64,
) -> tuple[np.ndarray, np.ndarray]:
    """Return X (n_samples, n_features), y in {-1, +1}: two Gaussian classes (paper 000)."""
    if n_samples < 2 or n_features < 1:
        raise ValueError("make_paper_gaussians needs n_samples >= 2 and n_features >= 1")
    if not centroid_scale > 0:
        raise ValueError("centroid_scale must be > 0")
    rng = np.random.default_rng(random_state)
    centroids = rng.standard_normal((2, n_features)) * centroid_scale
    n_pos = n_samples // 2
    y = np.empty(n_samples)
    y[:n_pos] = 1.0
    y[n_pos:] = -1.0
    X = rng.standard_normal((n_samples, n_features)).astype(dtype, copy=False)
    X[:n_pos] += centroids[0].astype(dtype)
    X[n_pos:] += centroids[1].astype(dtype)
    perm = rng.permutation(n_samples)
    return np.ascontiguousarray(X[perm]), y[perm]
