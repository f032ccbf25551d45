"""
A regularization path with SmSVM
================================

``svmkit.smsvm_path`` fits the hinge-loss SVM for a sequence of C values, each fit warm-started
from the previous solution (its nonzero coordinates start the active set). With the l1 penalty
the number of selected features grows as C grows. Data: scikit-learn's breast-cancer set.
"""

import matplotlib.pyplot as plt
import numpy as np
import svmkit
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
Cs = np.logspace(-3, 1, 15)
path = svmkit.smsvm_path(X, y, Cs=Cs, penalty="l1")
coefs = path["coefs"].reshape(len(Cs), -1)

fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.6))
ax1.semilogx(Cs, coefs)
ax1.set_xlabel("C")
ax1.set_ylabel("coefficient")
ax1.set_title("l1 hinge SVM path")
ax2.semilogx(Cs, (np.abs(coefs) > 0).sum(axis=1), marker="o")
ax2.set_xlabel("C")
ax2.set_ylabel("nonzero coefficients")
fig.tight_layout()
print("passes per fit along the path:", path["passes"].tolist())
