"""svmkit: Support Vector Machine solvers with a C++17/OpenMP core.

Estimators follow scikit-learn's conventions. See the README for the formulations.
"""

from . import datasets
from ._adagrad_dual import fit_adagrad_dual
from ._kernel import SVC, SVR
from ._linear import LinearSVC, LinearSVR
from ._linear_one_class import LinearOneClassSVM
from ._model_io import load_model, save_model
from ._nu import NuSVC, NuSVR, OneClassSVM
from ._path import smsvm_path
from ._solvers import option_table, solver_defaults
from ._sparse_svc import SparseSVC, nssvm_defaults
from ._status import SolverStatus

__version__ = "0.1.0"

__all__ = [
    "SVC",
    "SVR",
    "LinearSVC",
    "LinearSVR",
    "LinearOneClassSVM",
    "NuSVC",
    "NuSVR",
    "OneClassSVM",
    "SolverStatus",
    "SparseSVC",
    "datasets",
    "fit_adagrad_dual",
    "load_model",
    "nssvm_defaults",
    "option_table",
    "save_model",
    "smsvm_path",
    "solver_defaults",
    "__version__",
]
