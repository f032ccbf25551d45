"""The C++ library builds with plain CMake (no Python), installs a CMake package, and a
separate consumer project uses it through find_package(svmkit)."""

from __future__ import annotations

import os
import shutil
import subprocess

import numpy as np
import pytest
from conftest import REPO
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC

pytestmark = pytest.mark.slow


def run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, f"{' '.join(map(str, cmd))}\n{out.stdout}\n{out.stderr}"
    return out.stdout


@pytest.fixture(scope="module")
def consumer(tmp_path_factory):
    if shutil.which("cmake") is None:
        pytest.fail("cmake is required to build the C++ library (pip install cmake)")
    tmp = tmp_path_factory.mktemp("cpp")
    prefix = tmp / "prefix"
    jobs = ["--parallel", "2"]
    run(
        [
            "cmake",
            "-S",
            str(REPO),
            "-B",
            str(tmp / "lib"),
            "-DCMAKE_BUILD_TYPE=Release",
            "-DSVMKIT_PYTHON=OFF",
            "-DSVMKIT_INSTALL=ON",
            f"-DCMAKE_INSTALL_PREFIX={prefix}",
        ]
    )
    run(["cmake", "--build", str(tmp / "lib"), *jobs])
    run(["cmake", "--install", str(tmp / "lib")])
    run(
        [
            "cmake",
            "-S",
            str(REPO / "examples" / "consumer"),
            "-B",
            str(tmp / "consumer"),
            f"-DCMAKE_PREFIX_PATH={prefix}",
            "-DCMAKE_BUILD_TYPE=Release",
        ]
    )
    run(["cmake", "--build", str(tmp / "consumer"), *jobs])
    exe = tmp / "consumer" / "svmkit_consumer"
    assert exe.exists()
    return exe, tmp


def test_consumer_trains_saves_loads_and_predicts(consumer) -> None:
    exe, tmp = consumer
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y_pm = np.where(y == 1, 1.0, -1.0)
    data = tmp / "data.txt"
    with open(data, "w") as f:
        f.write(f"{X.shape[0]} {X.shape[1]}\n")
        for yi, row in zip(y_pm, X):
            f.write(" ".join(repr(float(v)) for v in (yi, *row)) + "\n")
    out = run(
        [str(exe), str(data), str(tmp / "model.txt")], env={**os.environ, "OMP_NUM_THREADS": "2"}
    )
    lines = out.splitlines()
    f_cpp = float(lines[0].split()[1])
    assert lines[1] in ("status converged", "status line_search_failed")
    ref = SkLinearSVC(dual=False, tol=1e-12, max_iter=100000).fit(X, y_pm)
    w, b = ref.coef_[0], ref.intercept_[0]
    f_ref = 0.5 * (w @ w + b * b) + np.sum(np.maximum(0.0, 1 - y_pm * (X @ w + b)) ** 2)
    assert abs(f_cpp - f_ref) <= 1e-6 * f_ref
    pred = np.array([float(v) for v in lines[2 : 2 + len(y)]])
    assert np.mean(pred == ref.predict(X)) == 1.0
    assert lines[2 + len(y)].startswith("error cannot open model file")
    # The model file written by C++ is the one Python reads.
    import svmkit

    m = svmkit.load_model(tmp / "model.txt")
    assert np.array_equal(m.predict(X), pred)
