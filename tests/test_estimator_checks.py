"""scikit-learn's estimator checks for every svmkit estimator configuration (the one file
for them: every public estimator is listed here)."""

from __future__ import annotations

import svmkit
from sklearn.utils.estimator_checks import parametrize_with_checks

ESTIMATORS = [
    svmkit.LinearSVC(),
    svmkit.LinearSVC(loss="logistic"),
    # The smoothed losses at a tight tol and a moderate sigma: the sample-weight checks compare
    # decision values at rtol 1e-7, and at sigma=0.05 (nearly the hinge) TRON's line search
    # stops ~1e-7 short of that (status line_search_failed at tol=1e-10).
    svmkit.LinearSVC(loss="smoothed_hinge", sigma=0.5, tol=1e-10),
    svmkit.LinearSVC(loss="gaussian_smoothed_hinge", sigma=0.5, tol=1e-10),
    svmkit.LinearSVR(),
    svmkit.LinearSVR(loss="smoothed_epsilon_insensitive", epsilon=0.1, tol=1e-10),
    # dual_cd at a tight tol: at its default (1e-4 absolute, scikit-learn's) the solution is
    # not precise enough for the sample-weight equivalence checks (rtol 1e-7), which
    # scikit-learn's own LinearSVC marks as expected failures.
    svmkit.LinearSVC(loss="hinge", solver="dual_cd", tol=1e-11, max_iter=20000),
    svmkit.LinearSVC(solver="dual_cd", tol=1e-11, max_iter=20000),
    svmkit.LinearSVR(loss="epsilon_insensitive", solver="dual_cd", tol=1e-11, max_iter=20000),
    svmkit.SVC(),
    svmkit.SVR(),
    # Tight tolerances: the weight-equivalence checks compare predictions to 1e-7.
    svmkit.SVC(gamma=0.5, tol=1e-12),
    svmkit.SVR(gamma=0.5, tol=1e-12),
    svmkit.SVC(kernel="linear", loss="squared_hinge", tol=1e-12),
    svmkit.SparseSVC(),
    svmkit.NuSVC(),
    svmkit.NuSVR(),
    svmkit.OneClassSVM(),
]


_DEFAULT_TOL_REASON = (
    "at the default tol the check's tiny data (more features than samples after repetition) "
    "go to dual_cd, whose tol=1e-4 is LIBLINEAR's absolute projected-gradient bound, too loose "
    "for the check's rtol of 1e-7 (scikit-learn's own LinearSVC/LinearSVR mark these checks as "
    "expected failures for the same reason); the dual_cd instances at tol=1e-11 below pass "
    "them, which shows sample weights equal repetition"
)

_SCALE_GAMMA_REASON = (
    "gamma='scale' is 1 / (n_features * X.var()), and repeating samples changes X.var(), so "
    "the kernel itself differs; the same checks pass with a fixed gamma (the gamma=0.5 "
    "instances), which shows sample weights equal repetition"
)


_NU_INFEASIBLE = (
    "the check's weights make nu=0.5 infeasible for a class pair (ValueError 'specified nu is "
    "infeasible', as scikit-learn's NuSVC raises; scikit-learn marks these checks for NuSVC)"
)


def _expected_failures(est):
    if isinstance(est, svmkit.NuSVC):
        return {
            "check_sample_weight_equivalence_on_dense_data": _NU_INFEASIBLE,
            "check_sample_weight_equivalence_on_sparse_data": _NU_INFEASIBLE,
            "check_class_weight_classifiers": _NU_INFEASIBLE,
        }
    if getattr(est, "gamma", None) == "scale" and est.kernel != "linear":
        return {
            "check_sample_weight_equivalence_on_dense_data": _SCALE_GAMMA_REASON,
            "check_sample_weight_equivalence_on_sparse_data": _SCALE_GAMMA_REASON,
        }
    if (
        isinstance(est, (svmkit.LinearSVC, svmkit.LinearSVR))
        and est.tol is None
        and getattr(est, "loss", "") in ("squared_hinge", "epsilon_insensitive")
    ):
        return {
            "check_sample_weight_equivalence_on_dense_data": _DEFAULT_TOL_REASON,
            "check_sample_weight_equivalence_on_sparse_data": _DEFAULT_TOL_REASON,
        }
    return {}


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=_expected_failures)
def test_sklearn_compatible(estimator, check) -> None:
    check(estimator)
