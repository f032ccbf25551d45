"""svmkit: Support Vector Machine solvers with a C++17/OpenMP core.

Estimators follow scikit-learn's conventions. See the README for the formulations.
"""

from ._kernel import SVC, SVR
from ._linear import LinearSVC, LinearSVR
from ._model_io import load_model, save_model
from ._solvers import solver_defaults

__version__ = "0.1.0"

__all__ = [
    "SVC",
    "SVR",
    "LinearSVC",
    "LinearSVR",
    "load_model", "save_model", "solver_defaults", "__version__"]
