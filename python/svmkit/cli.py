"""The `svmkit` command: train, predict, scale, demo, bench (in the spirit of LIBLINEAR's tools).

    svmkit train [options] data_file [model_file]
    svmkit predict [-q] test_file model_file output_file
    svmkit scale [-l lower] [-u upper] [-y y_lower y_upper] [-s file | -r file] data_file
    svmkit liblinear-train [LIBLINEAR train options] data_file [model_file]
    svmkit liblinear-predict [-b 0|1] [-q] test_file model_file output_file
    svmkit svm-train [LIBSVM svm-train options] data_file [model_file]
    svmkit svm-predict [-b 0|1] [-q] test_file model_file output_file

The four tool-compatible commands take LIBLINEAR's and LIBSVM's options with their numeric
codes and defaults (the two tools give -s different meanings, hence one command per tool) and
read and write those tools' model files; `train` and `predict` are svmkit's own interface
(named solvers, svmkit's model format).
    svmkit demo [--quick]
    svmkit bench [args...]

Errors print "svmkit: error: <message>" on stderr and exit with status 1 (bad data, missing
file) or 2 (bad command line), never with a traceback.
"""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

PROG = "svmkit"


class CliError(Exception):
    """An error reported as 'svmkit: error: ...' with exit status 1."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(2, f"{PROG}: error: {message}\n")


# Estimator classes by (task, family). Kernel estimators (svmkit.SVC / svmkit.SVR) plug in
# here; a class missing from the package gives a clear error.
ESTIMATORS: dict[tuple[str, str], tuple[str, str]] = {
    ("classification", "linear"): ("svmkit", "LinearSVC"),
    ("regression", "linear"): ("svmkit", "LinearSVR"),
    ("classification", "kernel"): ("svmkit", "SVC"),
    ("regression", "kernel"): ("svmkit", "SVR"),
}

# LIBSVM's numeric kernel codes for -t.
_KERNEL_CODES = {"0": "linear", "1": "poly", "2": "rbf", "3": "sigmoid", "4": "precomputed"}


def _estimator_class(task: str, family: str) -> type:
    module, name = ESTIMATORS[(task, family)]
    cls = getattr(importlib.import_module(module), name, None)
    if cls is None:
        what = "kernel SVMs (-t)" if family == "kernel" else f"{family} models"
        raise CliError(
            f"{what} for {task} are not available in this svmkit version "
            f"({module}.{name} is missing); use a linear solver (omit -t)"
        )
    return cls


def _fmt_number(v: float) -> str:
    """Shortest text for a float, integers without '.0' (as LIBLINEAR's %g would)."""
    s = repr(float(v))
    return s[:-2] if s.endswith(".0") else s


# ---------------------------------------------------------------------------------------------
# train


def _build_estimator(args: argparse.Namespace) -> Any:
    from ._solvers import LINEAR_SOLVERS

    task = args.task
    kernel = args.kernel
    if kernel is not None:
        kernel = _KERNEL_CODES.get(kernel, kernel)
    family = "kernel" if kernel is not None else "linear"
    if family == "linear" and args.solver != "auto" and args.solver not in LINEAR_SOLVERS:
        raise CliError(
            f"unknown solver {args.solver!r}; linear solvers: "
            + ", ".join(["auto", *LINEAR_SOLVERS])
            + " (kernel solvers need -t)"
        )
    if family == "linear" and any(v is not None for v in (args.gamma, args.degree, args.coef0)):
        raise CliError("-g, -d and -r apply to kernel SVMs only; give a kernel with -t")
    cls = _estimator_class(task, family)
    accepted = set(cls().get_params())
    params: dict[str, Any] = {"C": args.C}
    if args.solver != "auto":  # "auto": the estimator's own default solver
        params["solver"] = args.solver
    if args.loss is not None:
        params["loss"] = args.loss
    if args.tol is not None:
        params["tol"] = args.tol
    if args.epsilon is not None:
        if task != "regression":
            raise CliError("-p (epsilon) applies to regression only (--task regression)")
        params["epsilon"] = args.epsilon
    if args.bias is not None:
        if args.bias > 0:
            params["fit_intercept"] = True
            params["intercept_scaling"] = args.bias
        else:
            params["fit_intercept"] = False
    if args.n_jobs is not None:
        params["n_jobs"] = args.n_jobs
    if family == "kernel":
        params["kernel"] = kernel
        for name in ("gamma", "degree", "coef0"):
            value = getattr(args, name)
            if value is not None:
                params[name] = value
    if args.probability:
        if family != "kernel" or args.task != "classification":
            raise CliError("-b 1 (probability estimates) applies to kernel classification (-t)")
        params["probability"] = True
        params["random_state"] = args.seed
    unknown = sorted(k for k in params if k not in accepted)
    if unknown:
        raise CliError(f"{cls.__name__} does not take the option(s): {', '.join(unknown)}")
    if not args.quiet and "verbose" in accepted:
        params["verbose"] = 1
    return cls(**params)


def _flag01(text: str) -> bool:
    if text not in ("0", "1"):
        raise argparse.ArgumentTypeError(f"expected 0 or 1, got {text!r}")
    return text == "1"


def _load_data(path: str, n_features: int | None = None) -> tuple[Any, np.ndarray]:
    from .datasets import load_svmlight_file

    if not os.path.exists(path):
        raise CliError(f"cannot open data file {path}: no such file")
    X, y = load_svmlight_file(path, n_features=n_features)
    if X.shape[0] == 0:
        raise CliError(f"data file {path} holds no samples")
    return X, y


def cmd_train(args: argparse.Namespace) -> int:
    from sklearn.model_selection import KFold, StratifiedKFold, cross_val_predict

    from ._model_io import save_model
    from ._validation import dense_if_smaller

    if args.cv is not None:
        args.quiet = True  # no per-iteration progress for each fold
    est = _build_estimator(args)
    X, y = _load_data(args.data_file)
    if args.kernel is None:
        # A named solver (-s / --solver) keeps X as given in the estimator; a dense LIBSVM file
        # is read into CSR, and its dense form is solved faster (dense_if_smaller). The
        # kernel estimators apply the rule themselves.
        X = dense_if_smaller(X)
    if args.cv is not None:
        if args.cv < 2:
            raise CliError(f"n-fold cross validation: n must be >= 2, got {args.cv}")
        if args.cv > X.shape[0]:
            raise CliError(f"n-fold cross validation: n={args.cv} exceeds {X.shape[0]} samples")
        if args.task == "classification":
            _, counts = np.unique(y, return_counts=True)
            splitter: Any = (
                StratifiedKFold(args.cv, shuffle=True, random_state=args.seed)
                if counts.min() >= args.cv
                else KFold(args.cv, shuffle=True, random_state=args.seed)
            )
        else:
            splitter = KFold(args.cv, shuffle=True, random_state=args.seed)
        pred = cross_val_predict(est, X, y, cv=splitter)
        if args.task == "classification":
            acc = 100.0 * float(np.mean(pred == y))
            print(f"Cross Validation Accuracy = {acc:g}%")
        else:
            mse, r2 = _regression_scores(y, pred)
            print(f"Cross Validation Mean squared error = {mse:g}")
            print(f"Cross Validation Squared correlation coefficient = {r2:g}")
        return 0
    t0 = time.perf_counter()
    est.fit(X, y)
    elapsed = time.perf_counter() - t0
    model_file = args.model_file or os.path.basename(args.data_file) + ".model"
    save_model(est, model_file)
    if not args.quiet:
        extra = ""
        if hasattr(est, "n_iter_"):
            extra = f", {est.n_iter_} iterations"
        if hasattr(est, "n_passes_"):
            extra += f", {est.n_passes_} passes over the data"
        solver = getattr(est, "solver_", getattr(est, "solver", "?"))
        print(f"trained {type(est).__name__} (solver {solver}) in {elapsed:.3f} s{extra}")
        print(f"model saved to {model_file}")
    return 0


def _regression_scores(y: np.ndarray, pred: np.ndarray) -> tuple[float, float]:
    """Mean squared error and squared correlation coefficient, as LIBLINEAR prints them."""
    y = np.asarray(y, dtype=np.float64)
    pred = np.asarray(pred, dtype=np.float64)
    mse = float(np.mean((pred - y) ** 2))
    n = y.size
    sv, sy = pred.sum(), y.sum()
    svv, syy, svy = (pred * pred).sum(), (y * y).sum(), (pred * y).sum()
    den = (n * svv - sv * sv) * (n * syy - sy * sy)
    r2 = float((n * svy - sv * sy) ** 2 / den) if den > 0 else float("nan")
    return mse, r2


# ---------------------------------------------------------------------------------------------
# predict


def cmd_predict(args: argparse.Namespace) -> int:
    from ._model_io import load_model

    if not os.path.exists(args.model_file):
        raise CliError(f"cannot open model file {args.model_file}: no such file")
    try:
        model = load_model(args.model_file)
    except ValueError as exc:
        hint = ""
        if "not an svmkit model file" in str(exc):  # a LIBLINEAR / LIBSVM file, most likely
            hint = "; for LIBLINEAR or LIBSVM model files use liblinear-predict or svm-predict"
        raise CliError(f"{args.model_file}: {exc}{hint}") from None
    nf = int(model.n_features_in_)
    X, y = _load_data(args.test_file)
    # As LIBLINEAR: features beyond the model's are ignored, missing ones are zero.
    if X.shape[1] > nf:
        X = X[:, :nf]
    elif X.shape[1] < nf:
        X = X.copy()
        X.resize((X.shape[0], nf))
    proba = None
    if args.probability:
        # Kernel classifiers have them when trained with -b 1 (Platt), linear ones for the
        # logistic loss (LinearSVC.predict_proba exists only then).
        has = model.probA_.size > 0 if hasattr(model, "probA_") else hasattr(model, "predict_proba")
        if not has:
            raise CliError(
                f"model file {args.model_file} has no probability estimates; train with -b 1 "
                "(kernel classification) or -l logistic (linear)"
            )
        proba = model.predict_proba(X)
        # As svm-predict -b 1: the label of the most probable class, then the probabilities.
        pred = model.classes_[np.argmax(proba, axis=1)]
    else:
        pred = model.predict(X)
    try:
        with open(args.output_file, "w", encoding="ascii") as out:
            if proba is None:
                out.writelines(_fmt_number(v) + "\n" for v in pred)
            else:
                out.write("labels " + " ".join(_fmt_number(c) for c in model.classes_) + "\n")
                out.writelines(
                    _fmt_number(v) + " " + " ".join(f"{q:g}" for q in row) + "\n"
                    for v, row in zip(pred, proba)
                )
    except OSError as exc:
        raise CliError(f"cannot write output file {args.output_file}: {exc.strerror}") from exc
    if args.quiet:
        return 0
    if hasattr(model, "classes_"):
        correct = int(np.sum(pred == y))
        total = int(y.shape[0])
        print(f"Accuracy = {100.0 * correct / total:g}% ({correct}/{total})")
    else:
        mse, r2 = _regression_scores(y, pred)
        print(f"Mean squared error = {mse:g} (regression)")
        print(f"Squared correlation coefficient = {r2:g} (regression)")
    return 0


# ---------------------------------------------------------------------------------------------
# demo

CREDIT = "Breast Cancer Wisconsin (Diagnostic), UCI, via scikit-learn's load_breast_cancer"


def _demo_datasets(quick: bool) -> dict[str, tuple[Any, Any, Any, Any]]:
    """Train/test splits of the demo's three regimes: tiny (bundled), tall dense, sparse wide."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.preprocessing import StandardScaler

    from .datasets import make_sparse_text_like, make_two_gaussians

    out: dict[str, tuple[Any, Any, Any, Any]] = {}
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    scaler = StandardScaler().fit(Xtr)
    out["breast_cancer 569x30"] = (scaler.transform(Xtr), scaler.transform(Xte), ytr, yte)
    n, m = (4000, 50) if quick else (10000, 50)  # paper 000's tall shape is 10,000 x 50
    Xg, yg = make_two_gaussians(n + n // 4, m, random_state=0)
    out[f"two_gaussians {n}x{m}"] = (Xg[:n], Xg[n:], yg[:n], yg[n:])
    n, d = (1000, 20000) if quick else (2500, 50000)  # text-like: more features than samples
    Xs, ys = make_sparse_text_like(n + n // 4, d, density=60 / d, random_state=0)
    out[f"sparse text {n}x{d}"] = (Xs[:n], Xs[n:], ys[:n], ys[n:])
    return out


def _demo_runs() -> list[tuple[str, str, Any, str, Any]]:
    """(dataset, svmkit estimator label, factory, anchor label, anchor factory or None).

    Every row is a cell of the regime matrix (bench/bench_regimes.py) at the estimator's
    defaults beside the anchor for the same model; the first-order methods, slow by nature
    (paper 001's sgd, paper 004's homotopy), are shown on the small dataset only; the l1 /
    elastic-net hinge (l1_cd's smoothing continuation, about 0.1 s each on two_gaussians
    10,000 x 50) on both.
    """
    from sklearn.svm import SVC as SkSVC
    from sklearn.svm import LinearSVC as SkLinearSVC

    import svmkit

    tiny, tall, text = "breast_cancer", "two_gaussians", "sparse text"
    sk = "sklearn "
    hinge = ("LinearSVC(loss='hinge')", lambda: svmkit.LinearSVC(loss="hinge"))
    sk_hinge = (sk + "LinearSVC(loss='hinge')", lambda: SkLinearSVC(loss="hinge"))
    default = ("LinearSVC()", lambda: svmkit.LinearSVC())
    sk_default = (sk + "LinearSVC()", lambda: SkLinearSVC())
    l1 = ("LinearSVC(penalty='l1')", lambda: svmkit.LinearSVC(penalty="l1"))
    sk_l1 = (sk + "LinearSVC(penalty='l1')", lambda: SkLinearSVC(penalty="l1", dual=False))
    svc = ("SVC()", lambda: svmkit.SVC())
    sk_svc = (sk + "SVC()", lambda: SkSVC())
    none = ("-", None)
    enet_hinge = (
        "LinearSVC(loss='hinge', penalty='elasticnet')",
        lambda: svmkit.LinearSVC(loss="hinge", penalty="elasticnet"),
    )
    l1_hinge = (
        "LinearSVC(loss='hinge', penalty='l1')",
        lambda: svmkit.LinearSVC(loss="hinge", penalty="l1"),
    )
    rows = [
        (tiny, *default, *sk_default),
        (tiny, *hinge, *sk_hinge),
        (tiny, *l1, *sk_l1),
        (tiny, "LinearSVC(loss='logistic')", lambda: svmkit.LinearSVC(loss="logistic"), *none),
        (
            tiny,
            "LinearSVC(loss='hinge', solver='sgd')",
            lambda: svmkit.LinearSVC(loss="hinge", solver="sgd"),
            *sk_hinge,
        ),
        (
            tiny,
            "LinearSVC(loss='hinge', solver='homotopy')",
            lambda: svmkit.LinearSVC(
                loss="hinge",
                solver="homotopy",
                max_iter=40,
                random_state=0,
                solver_options={"batch_size": 32},
            ),
            *sk_hinge,
        ),
        (
            tiny,
            "LinearSVC(loss='hinge', solver='smsvm')",
            lambda: svmkit.LinearSVC(loss="hinge", solver="smsvm"),
            *sk_hinge,
        ),
        (tiny, *enet_hinge, *none),
        (tiny, *l1_hinge, *none),
        (tiny, "SparseSVC()", lambda: svmkit.SparseSVC(), *none),
        (tiny, *svc, *sk_svc),
        (tall, *default, *sk_default),
        (tall, *hinge, *sk_hinge),
        (tall, *enet_hinge, *none),
        (tall, *l1_hinge, *none),
        (tall, "SparseSVC()", lambda: svmkit.SparseSVC(), *none),
        (tall, *svc, *sk_svc),
        (text, *default, *sk_default),
        (text, *hinge, *sk_hinge),
        (text, *l1, *sk_l1),
    ]
    return rows


def _timed_fit(make: Any, X: Any, y: Any) -> tuple[Any, float]:
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    est = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        t0 = time.perf_counter()
        est.fit(X, y)
        return est, time.perf_counter() - t0


def cmd_demo(args: argparse.Namespace) -> int:
    print("svmkit demo: each estimator at its defaults beside scikit-learn's (LIBLINEAR, LIBSVM)")
    print(f"Data: {CREDIT};")
    print("      two Gaussian classes as in paper 000, section 4.1.4 (make_two_gaussians);")
    print("      sparse tf-idf-like text, more features than samples (make_sparse_text_like).")
    print("Each dataset is split into train and test parts (75/25); C = 1 everywhere.\n")
    header = ("dataset", "svmkit estimator", "solver", "test acc", "time", "anchor acc", "time")
    data = _demo_datasets(args.quick)
    rows: list[tuple[str, ...]] = []
    for prefix, label, make, _anchor_label, anchor in _demo_runs():
        name = next(k for k in data if k.startswith(prefix))
        Xtr, Xte, ytr, yte = data[name]
        est, dt = _timed_fit(make, Xtr, ytr)
        acc = float(np.mean(est.predict(Xte) == yte))
        solver = getattr(est, "solver_", None) or getattr(est, "solver", "-")
        a_acc, a_dt = "-", "-"
        if anchor is not None:
            ref, rdt = _timed_fit(anchor, Xtr, ytr)
            a_acc = f"{100 * float(np.mean(ref.predict(Xte) == yte)):.2f}%"
            a_dt = f"{rdt:.3f}s"
        rows.append((name, label, str(solver), f"{100 * acc:.2f}%", f"{dt:.3f}s", a_acc, a_dt))
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
    line = "  ".join(h.ljust(w) for h, w in zip(header, widths))
    print(line)
    print("-" * len(line))
    for r in rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, widths)))
    print(
        "\n(anchor: the scikit-learn estimator fitting the same model at its defaults; '-' where "
        "scikit-learn has no such model. solver: what solver='auto' chose.)"
    )
    return 0


# ---------------------------------------------------------------------------------------------
# bench


def cmd_bench(args: argparse.Namespace) -> int:
    candidates = [
        Path.cwd() / "bench" / "run.py",
        Path(__file__).resolve().parents[2] / "bench" / "run.py",
    ]
    for script in candidates:
        if script.is_file():
            return subprocess.call([sys.executable, str(script), *args.bench_args])
    print(
        "svmkit bench runs bench/run.py from a source checkout of svmkit: clone the repository, "
        "`pip install .[bench]`, then run `python bench/run.py` (or `svmkit bench`) from its root."
    )
    return 0


# ---------------------------------------------------------------------------------------------


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None


def _number(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not np.isfinite(v):
        raise argparse.ArgumentTypeError(f"expected a finite number, got {text!r}")
    return v


def cmd_scale(args: argparse.Namespace) -> int:
    """svm-scale: scale each feature of data_file to [lower, upper]; the result goes to stdout."""
    from . import _scale
    from .datasets import load_svmlight_file

    if args.save and args.restore:
        raise CliError("-s and -r cannot be combined (save new parameters, or restore old ones)")
    if args.restore is not None:
        if args.lower is not None or args.upper is not None or args.y_range is not None:
            raise CliError("-l, -u and -y come from the restore file; do not give them with -r")
        with open(args.restore, encoding="utf-8", errors="strict") as fh:
            try:
                params = _scale.read_params(fh.read().splitlines(), args.restore)
            except UnicodeDecodeError:
                raise CliError(f"{args.restore}: not a text file") from None
    X, y = load_svmlight_file(args.data_file, zero_based=False)
    if args.restore is None:
        lower = -1.0 if args.lower is None else args.lower
        upper = 1.0 if args.upper is None else args.upper
        params = _scale.find_params(X, y, lower, upper, args.y_range)
    elif params.feature_min.shape[0] > X.shape[1]:
        X = X.__class__(
            (X.data, X.indices, X.indptr), shape=(X.shape[0], params.feature_min.shape[0])
        )
    scaled, y_out = _scale.apply_params(X, y, params)
    if scaled.nnz > X.nnz:
        print(
            f"{PROG}: warning: the scaled data has {scaled.nnz} nonzeros against {X.nnz} in the "
            "original; for non-negative sparse features use -l 0 rather than the default -l -1",
            file=sys.stderr,
        )
    if args.save is not None:
        with open(args.save, "w", encoding="ascii") as fh:
            _scale.write_params(params, fh)
    _scale.format_problem(scaled, y_out, sys.stdout)
    return 0


# ---------------------------------------------------------------------------------------------
# LIBLINEAR / LIBSVM compatible commands: their options, defaults and model files

# Each tool command's options: those that take no value, and those that take one ("-w<label>"
# stands for LIBLINEAR's and LIBSVM's per-class weights -w1, -w-1, ...).
_TOOL_OPTIONS = {
    "liblinear-train": ({"-q", "-R", "-C"}, {"-s", "-c", "-p", "-n", "-e", "-B", "-W", "-i", "-v"}),
    "liblinear-predict": ({"-q"}, {"-b"}),
    "svm-train": (
        {"-q"},
        {"-s", "-t", "-d", "-g", "-r", "-c", "-n", "-p", "-m", "-e", "-h", "-b", "-v"},
    ),
    "svm-predict": ({"-q"}, {"-b"}),
}


def _tool_usage(command: str) -> str:
    """The tool command's option list, with the defaults of the option parsers themselves."""
    from .liblinearutil import parameter
    from .svmutil import svm_parameter

    ll, sv = parameter(), svm_parameter()
    return {
        "liblinear-train": f"""\
Usage: svmkit liblinear-train [options] training_set_file [model_file]
  -s type : solver (LIBLINEAR's numbers; default {ll.solver_type})
     0 L2-regularized logistic regression (primal)
     1 L2-regularized L2-loss support vector classification (dual)
     2 L2-regularized L2-loss support vector classification (primal)
     3 L2-regularized L1-loss support vector classification (dual)
     4 support vector classification by Crammer and Singer
     5 L1-regularized L2-loss support vector classification
     6 L1-regularized logistic regression
     7 L2-regularized logistic regression (dual)
    11 L2-regularized L2-loss support vector regression (primal)
    12 L2-regularized L2-loss support vector regression (dual)
    13 L2-regularized L1-loss support vector regression (dual)
    21 one-class support vector machine (dual)
  -c cost : the parameter C (default {ll.C:g})
  -p epsilon : the epsilon of the SVR losses (default {ll.p:g})
  -n nu : the nu of -s 21 (default {ll.nu:g})
  -e epsilon : the stopping tolerance (each solver's LIBLINEAR default)
  -B bias : with bias >= 0, each instance gets the feature [bias] (default {ll.bias:g})
  -R : do not regularize the bias (with -B 1; -s 0, 2, 5, 6, 11)
  -wi weight : weight of class i's C (e.g. -w1 2 -w-1 0.5)
  -W file : instance weights, one per line
  -v n : n-fold cross validation
  -C : find the best C (and p for -s 11) by cross validation (-s 0, 2, 11)
  -i model_file : initial solution (-s 0, 2, 11)
  -q : quiet mode (no training output)""",
        "liblinear-predict": """\
Usage: svmkit liblinear-predict [options] test_file model_file output_file
  -b probability_estimates : 0 or 1, whether to output probability estimates (logistic
     regression models only; default 0)
  -q : quiet mode (no accuracy output)""",
        "svm-train": f"""\
Usage: svmkit svm-train [options] training_set_file [model_file]
  -s svm_type : 0 C-SVC, 1 nu-SVC, 2 one-class SVM, 3 epsilon-SVR, 4 nu-SVR (default {sv.svm_type})
  -t kernel_type : 0 linear, 1 polynomial, 2 radial basis function, 3 sigmoid,
     4 precomputed kernel (default {sv.kernel_type})
  -d degree : of the polynomial kernel (default {sv.degree})
  -g gamma : of the kernel (default 1/num_features)
  -r coef0 : of the kernel (default {sv.coef0:g})
  -c cost : the parameter C of C-SVC, epsilon-SVR and nu-SVR (default {sv.C:g})
  -n nu : of nu-SVC, one-class SVM and nu-SVR (default {sv.nu:g})
  -p epsilon : of the epsilon-SVR loss (default {sv.p:g})
  -m cachesize : kernel cache in MB (default {sv.cache_size:g})
  -e epsilon : the stopping tolerance (default {sv.eps:g})
  -h shrinking : 0 or 1, whether to use the shrinking heuristics (default {sv.shrinking})
  -b probability_estimates : 0 or 1, whether to train a model for probability estimates
     (default {sv.probability})
  -wi weight : weight of class i's C (e.g. -w1 2 -w-1 0.5)
  -v n : n-fold cross validation
  -q : quiet mode (no training output)""",
        "svm-predict": """\
Usage: svmkit svm-predict [options] test_file model_file output_file
  -b probability_estimates : 0 or 1, whether to predict probability estimates (default 0)
  -q : quiet mode (no accuracy output)""",
    }[command]


class _ToolUsage(Exception):
    """A tool command run without arguments or with --help: its usage text, then this status."""

    def __init__(self, status: int) -> None:
        super().__init__()
        self.status = status


def _split_tool_args(argv: list[str], command: str, n_files: tuple[int, int]) -> tuple[str, list]:
    """Split '[options] file...' as the tools' own command lines do; an unknown option is an
    error (it would otherwise take the next word, a file name, as its value)."""
    if not argv or "--help" in argv or (argv == ["-h"] and command != "svm-train"):
        raise _ToolUsage(0 if argv else 1)
    flags, valued = _TOOL_OPTIONS[command]
    options: list[str] = []
    i = 0
    while i < len(argv) and argv[i].startswith("-") and len(argv[i]) > 1:
        opt = argv[i]
        if opt in flags:
            options.append(opt)
            i += 1
            continue
        class_weight = command.endswith("-train") and opt.startswith("-w") and len(opt) > 2
        if opt not in valued and not class_weight:
            raise CliError(f"{command}: unknown option {opt} (svmkit {command} --help lists them)")
        if i + 1 >= len(argv):
            raise CliError(f"option {opt} needs a value")
        options += argv[i : i + 2]
        i += 2
    files = argv[i:]
    low, high = n_files
    if not low <= len(files) <= high:
        want = str(low) if low == high else f"{low} or {high}"
        raise CliError(f"expected {want} file names after the options, got {len(files)}")
    return " ".join(options), files


def _read_problem(path: str, precomputed: bool = False) -> tuple[Any, Any]:
    from .datasets import load_svmlight_file

    if precomputed:  # "0:serial k(x, x_1) ...": index 0 is a column (LIBSVM's -t 4)
        from ._liblinear_common import svm_read_problem

        return svm_read_problem(path, return_scipy=True)

    X, y = load_svmlight_file(path, zero_based=False)
    if X.shape[0] == 0:
        raise CliError(f"data file {path} holds no instances")
    return y, X


def _tool_train(argv: list[str], command: str) -> int:
    """`liblinear-train` / `svm-train`: fit with the tool's options; save its model file."""
    if command == "liblinear-train":
        from .liblinearutil import parameter as options_of
        from .liblinearutil import save_model as save
        from .liblinearutil import train
    else:
        from .svmutil import svm_parameter as options_of
        from .svmutil import svm_save_model as save
        from .svmutil import svm_train as train
    options, files = _split_tool_args(argv, command, (1, 2))
    param = options_of(options)  # parsed (and checked) before a large file is read
    precomputed = getattr(param, "kernel_type", None) == 4
    y, X = _read_problem(files[0], precomputed)
    result = train(y, X, param)
    if isinstance(result, (float, tuple)):  # -v n, -C: the tool prints its figures itself
        return 0
    model_file = files[1] if len(files) == 2 else os.path.basename(files[0]) + ".model"
    save(model_file, result)
    return 0


def _tool_predict(argv: list[str], command: str) -> int:
    """`liblinear-predict` / `svm-predict`: labels (and with -b 1 probabilities) into
    output_file."""
    if command == "liblinear-predict":
        from .liblinearutil import load_model as load
        from .liblinearutil import predict
    else:
        from .svmutil import svm_load_model as load
        from .svmutil import svm_predict as predict
    from ._liblinear_common import parse_predict_options

    options, files = _split_tool_args(argv, command, (3, 3))
    test_file, model_file, output_file = files
    probability = parse_predict_options(options, command)[0]
    m = load(model_file)
    y, X = _read_problem(test_file, getattr(m.data, "kernel_type", "") == "precomputed")
    try:  # opened before predicting, as the tools do: no accuracy line before this error
        out = open(output_file, "w", encoding="ascii")
    except OSError as exc:
        raise CliError(f"cannot open output file {output_file}: {exc.strerror}") from None
    with out:
        labels, _, values = predict(y, X, m, options)
        _write_tool_predictions(out, m, labels, values, probability)
    return 0


def _write_tool_predictions(out: Any, m: Any, labels: list, values: list, probability: bool):
    """predict's output file: a label per line, or with -b 1 a header and probabilities."""
    svm_type = getattr(m.data, "svm_type", "")
    if svm_type in ("epsilon_svr", "nu_svr"):  # svm-predict -b 1 only reports sigma
        probability = False
    if probability:
        if svm_type == "one_class":  # svm-predict's header for [P(inlier), P(outlier)]
            out.write("label normal outlier\n")
        else:
            out.write("labels " + " ".join(_fmt_number(c) for c in m.get_labels()) + "\n")
        for label, row in zip(labels, values):
            out.write(_fmt_number(label) + " " + " ".join(f"{p:g}" for p in row) + "\n")
    else:
        out.writelines(_fmt_number(label) + "\n" for label in labels)


_TOOL_COMMANDS = {
    "liblinear-train": lambda argv: _tool_train(argv, "liblinear-train"),
    "liblinear-predict": lambda argv: _tool_predict(argv, "liblinear-predict"),
    "svm-train": lambda argv: _tool_train(argv, "svm-train"),
    "svm-predict": lambda argv: _tool_predict(argv, "svm-predict"),
}


class _VersionAction(argparse.Action):
    """`svmkit --version`: svmkit.show_config()'s report (the version is its first line)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from ._config import show_config

        show_config()
        parser.exit(0)


def _add_train_parser(sub: Any) -> None:
    """`svmkit train`: the named-solver interface's options."""
    t = sub.add_parser(
        "train",
        help="train a model on a LIBSVM-format file",
        description="Train on data_file (LIBSVM format; .gz/.bz2/.xz are decompressed) and "
        "save the model (default: basename(data_file).model).",
    )
    t.add_argument("-s", dest="solver", default="auto", help="solver name (default: auto)")
    t.add_argument(
        "-l",
        dest="loss",
        default=None,
        help="loss (default: the estimator's, squared_hinge / epsilon_insensitive)",
    )
    t.add_argument("-c", dest="C", type=_number, default=1.0, help="cost C (default 1)")
    t.add_argument(
        "-p",
        dest="epsilon",
        type=_number,
        default=None,
        help="epsilon of the epsilon-insensitive loss (regression)",
    )
    t.add_argument("-e", dest="tol", type=_number, default=None, help="stopping tolerance")
    t.add_argument(
        "-B",
        dest="bias",
        type=_number,
        default=None,
        help="bias: > 0 fits an intercept with this scaling, <= 0 fits none "
        "(default: intercept with scaling 1)",
    )
    t.add_argument(
        "-v",
        dest="cv",
        type=_int,
        default=None,
        help="n-fold cross validation (prints accuracy or MSE; saves no model)",
    )
    t.add_argument("-q", dest="quiet", action="store_true", help="quiet mode")
    t.add_argument(
        "-n", "--n-jobs", dest="n_jobs", type=_int, default=None, help="threads (default: all)"
    )
    t.add_argument("--task", choices=("classification", "regression"), default="classification")
    t.add_argument("--seed", type=_int, default=0, help="seed of the CV split")
    t.add_argument(
        "-t",
        dest="kernel",
        default=None,
        help="kernel (linear, poly, rbf, sigmoid or LIBSVM's 0-3): use a kernel SVM",
    )
    t.add_argument("-g", dest="gamma", type=_number, default=None, help="kernel gamma")
    t.add_argument("-d", dest="degree", type=_int, default=None, help="kernel degree")
    t.add_argument("-r", dest="coef0", type=_number, default=None, help="kernel coef0")
    t.add_argument(
        "-b",
        dest="probability",
        type=_flag01,
        default=False,
        help="1: also fit probability estimates (Platt scaling; kernel SVC only); default 0",
    )
    t.add_argument("data_file")
    t.add_argument("model_file", nargs="?", default=None)
    t.set_defaults(func=cmd_train)


def _add_predict_parser(sub: Any) -> None:
    """`svmkit predict`."""
    pr = sub.add_parser("predict", help="predict with a saved model")
    pr.add_argument("-q", dest="quiet", action="store_true", help="quiet mode")
    pr.add_argument(
        "-b",
        dest="probability",
        type=_flag01,
        default=False,
        help="1: write class probabilities (as LIBSVM's svm-predict -b 1); default 0",
    )
    pr.add_argument("test_file")
    pr.add_argument("model_file")
    pr.add_argument("output_file")
    pr.set_defaults(func=cmd_predict)


def _add_scale_parser(sub: Any) -> None:
    """`svmkit scale`: LIBSVM's svm-scale options."""
    sc = sub.add_parser(
        "scale",
        help="scale features as LIBSVM's svm-scale (output on stdout)",
        description="Scale each feature of data_file linearly to [lower, upper] as LIBSVM's "
        "svm-scale does (missing entries count as 0; constant features are dropped; zeros are "
        "not written). The scaled data is printed on stdout.",
    )
    sc.add_argument(
        "-l", dest="lower", type=_number, default=None, help="x lower limit (default -1)"
    )
    sc.add_argument(
        "-u", dest="upper", type=_number, default=None, help="x upper limit (default +1)"
    )
    sc.add_argument(
        "-y",
        dest="y_range",
        type=_number,
        nargs=2,
        metavar=("Y_LOWER", "Y_UPPER"),
        default=None,
        help="also scale the targets to [y_lower, y_upper] (default: no y scaling)",
    )
    sc.add_argument("-s", dest="save", default=None, help="save the scaling parameters to a file")
    sc.add_argument(
        "-r", dest="restore", default=None, help="restore scaling parameters from a file"
    )
    sc.add_argument("data_file")
    sc.set_defaults(func=cmd_scale)


def _add_tool_parsers(sub: Any) -> None:
    """The tool-compatible commands (listed for --help; they parse their own options)."""
    for name, what in (
        (
            "liblinear-train",
            "LIBLINEAR's train: its options (-s 0..7, 11..13, 21, -c -p -n -e -B "
            "-R -wi -W -i -v -C -q) and model files",
        ),
        ("liblinear-predict", "LIBLINEAR's predict (-b, -q) on a LIBLINEAR model file"),
        (
            "svm-train",
            "LIBSVM's svm-train: its options (-s 0..4 -t 0..4 -d -g -r -c -n -p -m "
            "-e -h -b -wi -v -q) and model files",
        ),
        ("svm-predict", "LIBSVM's svm-predict (-b, -q) on a LIBSVM model file"),
    ):
        sub.add_parser(name, help=what, add_help=False)


def _add_demo_parser(sub: Any) -> None:
    """`svmkit demo`."""
    d = sub.add_parser("demo", help="train the available solvers on built-in data")
    d.add_argument("--quick", action="store_true", help="smaller synthetic data")
    d.set_defaults(func=cmd_demo)


def _add_bench_parser(sub: Any) -> None:
    """`svmkit bench`: everything after it goes to bench/run.py."""
    b = sub.add_parser("bench", help="run the benchmark harness (bench/run.py)")
    b.add_argument("bench_args", nargs=argparse.REMAINDER)
    b.set_defaults(func=cmd_bench)


def build_parser() -> argparse.ArgumentParser:
    p = _Parser(prog=PROG, description="Support Vector Machine solvers (svmkit).")
    p.add_argument(
        "--version",
        action=_VersionAction,
        help="print the version, SIMD level, OpenMP runtime, compiler and build flags, and exit",
    )
    sub = p.add_subparsers(
        dest="command",
        metavar="{train,predict,scale,liblinear-train,liblinear-predict,svm-train,svm-predict,"
        "demo,bench}",
    )
    sub.required = True
    for add in (
        _add_train_parser,
        _add_predict_parser,
        _add_scale_parser,
        _add_demo_parser,
        _add_tool_parsers,
        _add_bench_parser,
    ):
        add(sub)
    return p


def _show_warning(message: Any, category: type, *_args: Any, **_kwargs: Any) -> None:
    """A warning on the command line: 'svmkit: warning: ...', without Python's source line."""
    print(f"{PROG}: warning: {message}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    import warnings

    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        return _main(argv)


def _main(argv: list[str] | None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    if argv and argv[0] == "bench":  # everything after "bench" goes to the harness as it is
        args = argparse.Namespace(func=cmd_bench, bench_args=argv[1:])
    elif argv and argv[0] in _TOOL_COMMANDS:  # the tools' own option syntax, parsed by them
        command, rest = _TOOL_COMMANDS[argv[0]], argv[1:]
        args = argparse.Namespace(func=lambda _: command(rest))
    else:
        args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except _ToolUsage as usage:  # a tool command without arguments or with --help
        print(_tool_usage(argv[0]), file=sys.stdout if usage.status == 0 else sys.stderr)
        return usage.status
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return 130
    except (CliError, OSError, ValueError, TypeError) as exc:
        msg = str(exc) or type(exc).__name__
        print(f"{PROG}: error: {msg}", file=sys.stderr)
        return 1


def _entry() -> None:
    sys.exit(main())


if __name__ == "__main__":
    _entry()
