"""
The homotopic subgradient method approaches the hard margin
===========================================================

Paper [004] runs subgradient descent on the hinge loss with a regularization that decays as
lambda_s = (s0 + s)^-p; the iterates converge in direction to the hard-margin SVM. On separable
2-D data we plot the normalized margin of the iterate against iterations, beside the maximal
margin computed by SMO with a very large C.
"""

import matplotlib.pyplot as plt
import numpy as np
import svmkit
from svmkit.datasets import make_two_gaussians

X, y = make_two_gaussians(n_samples=200, n_features=2, centroid_scale=6.0, random_state=1)
y = np.where(y > 0, 1.0, -1.0)
hard = svmkit.LinearSVC(
    loss="hinge",
    solver="homotopy",
    C=float("inf"),
    max_iter=2000,
    solver_options={"record_iterates": True},
).fit(X, y)
res = hard.result_[0]
iterates = np.asarray(res["iterates"]).reshape(-1, X.shape[1] + 1)


def margin(wb: np.ndarray) -> float:
    w, b = wb[:-1], wb[-1]
    return float(np.min(y * (X @ w + b)) / np.linalg.norm(w))


ref = svmkit.SVC(kernel="linear", C=1e6).fit(X, y)
w_ref = np.ravel(ref.dual_coef_ @ ref.support_vectors_)
ref_margin = float(np.min(y * (X @ w_ref + ref.intercept_[0])) / np.linalg.norm(w_ref))

fig, ax = plt.subplots(figsize=(6, 4))
ax.plot(np.arange(1, len(iterates) + 1), [margin(v) for v in iterates], label="homotopy iterate")
ax.axhline(ref_margin, color="k", ls="--", label="max margin (SMO, C = 1e6)")
ax.set_xlabel("outer iteration")
ax.set_ylabel("normalized margin")
ax.legend()
fig.tight_layout()
print(f"final margin {margin(iterates[-1]):.4f}, maximal margin {ref_margin:.4f}")
