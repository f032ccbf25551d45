"""LinearSVC(multi_class="crammer_singer"): the Crammer-Singer multiclass SVM (LIBLINEAR -s 4).

The fit minimizes

    P(W) = 1/2 sum_m (||w_m||^2 + b_m^2) + sum_i C_i max(0, max_{m != y_i} (1 + z_im) - z_iy_i)

with z_im = w_m.x_i + b_m * intercept_scaling and C_i = C * sample_weight_i *
class_weight_{y_i}, by the sequential dual method of Keerthi et al. (KDD 2008) with shrinking
(cpp/include/svmkit/solvers/crammer_singer.hpp). The bias is regularized as in LIBLINEAR.
loss, penalty, sigma, l1_ratio and solver are ignored, as in scikit-learn.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets

from . import _core
from ._progress import make_callback
from ._status import check_status
from ._validation import (
    as_core_matrix,
    check_sample_weight,
    class_weight_vector,
    encode_labels,
    require_two_classes,
    validate_X_y,
)

__all__ = ["fit_crammer_singer"]


def fit_crammer_singer(est: Any, X: Any, y: Any, sample_weight: Any) -> Any:
    """Fit `est` (a LinearSVC whose parameters were checked) by the Crammer-Singer solver."""
    if not est.regularize_intercept:
        raise ValueError(
            "LinearSVC: multi_class='crammer_singer' regularizes the intercept (LIBLINEAR's "
            "bias); use regularize_intercept=True"
        )
    X, y = validate_X_y(est, X, y, accept_sparse="csr", dtype=[np.float64, np.float32], order=None)
    check_classification_targets(y)
    classes, y_idx = encode_labels(y)
    k = classes.shape[0]
    require_two_classes(classes, "LinearSVC")
    sw = check_sample_weight(sample_weight, X.shape[0])
    cost = float(est.C) * sw * class_weight_vector(est.class_weight, classes, y)[y_idx]
    opts = dict(est.solver_options or {})
    if est.tol is not None:
        opts["tol"] = float(est.tol)
    if est.max_iter is not None:
        opts["max_iter"] = int(est.max_iter)
    seed = est._seed()
    if seed is not None:
        opts.setdefault("seed", int(seed) % (2**63))
    opts["check_input"] = False  # validated above, including finiteness
    res = _core.fit_crammer_singer(
        as_core_matrix(X),
        np.ascontiguousarray(y_idx, dtype=np.float64),
        np.ascontiguousarray(cost, dtype=np.float64),
        int(k),
        bool(est.fit_intercept),
        float(est.intercept_scaling),
        opts,
        make_callback("crammer_singer", est.verbose, est.callback),
    )
    check_status(res, "LinearSVC", "crammer_singer", stacklevel=3)
    d = X.shape[1]
    width = d + (1 if est.fit_intercept else 0)
    sol = np.asarray(res["solution"]).reshape(k, width)
    coef = np.array(sol[:, :d])
    intercept = sol[:, d] * float(est.intercept_scaling) if est.fit_intercept else np.zeros(k)
    if k == 2:  # one decision function, as scikit-learn reports it: class 1 against class 0
        coef = (coef[1] - coef[0]).reshape(1, -1)
        intercept = np.array([intercept[1] - intercept[0]])
    est.classes_ = classes
    est.coef_ = coef
    est.intercept_ = np.asarray(intercept, dtype=np.float64)
    est.solver_ = "crammer_singer"
    est.result_ = [res]
    est.n_iter_ = int(res["iterations"])
    est.n_passes_ = int(res["passes"])
    return est
