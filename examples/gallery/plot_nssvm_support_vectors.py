"""
NSSVM: a classifier with few support vectors
============================================

``SparseSVC`` solves the sparsity-constrained dual of paper [003]: at most ``s`` samples carry
the model. On two Gaussian clouds (svmkit's seeded generator, as in the paper's 2-D experiment)
it keeps a handful of support vectors where the ordinary soft-margin SVM keeps many.
"""

import matplotlib.pyplot as plt
import numpy as np
import svmkit
from svmkit.datasets import make_two_gaussians

X, y = make_two_gaussians(n_samples=400, n_features=2, centroid_scale=2.5, random_state=0)
sparse = svmkit.SparseSVC().fit(X, y)
dense = svmkit.SVC(kernel="linear", C=1.0).fit(X, y)

fig, ax = plt.subplots(figsize=(5.5, 4.5))
ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=10, alpha=0.6)
sv = X[sparse.support_]
ax.scatter(sv[:, 0], sv[:, 1], s=90, facecolors="none", edgecolors="k", label="NSSVM support")
xx = np.linspace(X[:, 0].min(), X[:, 0].max(), 50)
for clf, style, name in ((sparse, "k-", "NSSVM"), (dense, "g--", "SVC (linear)")):
    coef = clf.coef_ if hasattr(clf, "coef_") else clf.dual_coef_ @ clf.support_vectors_
    w, b = np.ravel(coef), float(np.ravel(clf.intercept_)[0])
    ax.plot(xx, -(w[0] * xx + b) / w[1], style, label=name)
ax.set_ylim(X[:, 1].min(), X[:, 1].max())
ax.legend(loc="best")
ax.set_title(f"{len(sparse.support_)} vs {len(dense.support_)} support vectors")
fig.tight_layout()
print("NSSVM support vectors:", len(sparse.support_), " SVC support vectors:", len(dense.support_))
print(f"training accuracy: NSSVM {sparse.score(X, y):.3f}, SVC {dense.score(X, y):.3f}")
