"""scikit-learn's estimator checks for every svmkit estimator configuration."""

from __future__ import annotations

import svmkit
from sklearn.utils.estimator_checks import parametrize_with_checks

ESTIMATORS = [
    svmkit.LinearSVC(),
    svmkit.LinearSVC(loss="logistic"),
    svmkit.LinearSVC(loss="smoothed_hinge", sigma=0.05),
    svmkit.LinearSVC(loss="gaussian_smoothed_hinge", sigma=0.05),
    svmkit.LinearSVR(),
    svmkit.LinearSVR(loss="smoothed_epsilon_insensitive", epsilon=0.1),
]


@parametrize_with_checks(ESTIMATORS)
def test_sklearn_compatible(estimator, check) -> None:
    check(estimator)
