"""
Convergence of each linear solver
=================================

Every svmkit solver records a history (objective, optimality, passes over the data, time) per
outer iteration in ``result_``. Here each solver of the squared-hinge / hinge linear SVM fits
scikit-learn's breast-cancer data (Wolberg, Street, Mangasarian; UCI) and we plot the gap to
the best objective reached against passes over the data, the cost measure of paper [000].
"""

import matplotlib.pyplot as plt
import numpy as np
import svmkit
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)

fits = {
    "tron (squared hinge)": dict(loss="squared_hinge", solver="tron", tol=1e-10),
    "dual_cd (squared hinge)": dict(loss="squared_hinge", solver="dual_cd", tol=1e-5),
    "smsvm (hinge)": dict(loss="hinge", solver="smsvm", tol=1e-8),
    "dual_cd (hinge)": dict(loss="hinge", solver="dual_cd", tol=1e-5),
}
fig, ax = plt.subplots(figsize=(6, 4))
for label, params in fits.items():
    clf = svmkit.LinearSVC(C=1.0, max_iter=5000, **params).fit(X, y)
    h = clf.result_[0]["history"]
    obj = np.asarray(h["objective"])
    gap = obj - obj.min()
    keep = gap > 0
    ax.semilogy(np.asarray(h["passes"])[keep], gap[keep] / abs(obj.min()), marker=".", label=label)
    print(f"{label:26s} objective {clf.result_[0]['objective']:.8f} in {clf.n_iter_} iterations")
ax.set_xlabel("passes over the data")
ax.set_ylabel("(F - F_best) / F_best")
ax.legend()
ax.set_title("breast cancer, C = 1")
fig.tight_layout()
