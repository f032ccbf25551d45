"""The C++ library builds with plain CMake (no Python), installs a CMake package and a pkg-config
file, and separate consumers use it: the examples/consumer project through find_package(svmkit)
and the same program compiled with `pkg-config --cflags --libs svmkit`. Both a static library
(with the C++ test of -DSVMKIT_BUILD_TESTS=ON run by ctest) and a shared one
(-DBUILD_SHARED_LIBS=ON: versioned SONAME, only the svmkit namespace exported)."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import svmkit
from conftest import REPO
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC as SkLinearSVC

pytestmark = pytest.mark.slow


def run(cmd, **kw):
    out = subprocess.run(cmd, capture_output=True, text=True, **kw)
    assert out.returncode == 0, f"{' '.join(map(str, cmd))}\n{out.stdout}\n{out.stderr}"
    return out.stdout


def _lib_dir(prefix: Path) -> Path:
    for name in ("lib", "lib64"):
        if (prefix / name / "cmake" / "svmkit").is_dir():
            return prefix / name
    raise AssertionError(f"no lib/cmake/svmkit under {prefix}")


@pytest.fixture(scope="module", params=["static", "shared"])
def installed(request, tmp_path_factory):
    """(kind, install prefix, build dir) of the C++ library built and installed with CMake."""
    if shutil.which("cmake") is None:
        pytest.fail("cmake is required to build the C++ library (pip install cmake)")
    kind = request.param
    tmp = tmp_path_factory.mktemp(f"cpp_{kind}")
    prefix = tmp / "prefix"
    run(
        [
            "cmake",
            "-S",
            str(REPO),
            "-B",
            str(tmp / "lib"),
            # Unoptimized, without debug info, assertions on: this tests the package and the
            # embedding, not speed, and -O0 compiles the core 2.7x faster than -O3 (10.7 s vs
            # 29 s for nssvm.cpp), which was 450 s of the suite's two builds.
            "-DCMAKE_BUILD_TYPE=Debug",
            "-DCMAKE_CXX_FLAGS_DEBUG=-O0",
            "-DSVMKIT_PYTHON=OFF",
            "-DSVMKIT_INSTALL=ON",
            f"-DBUILD_SHARED_LIBS={'ON' if kind == 'shared' else 'OFF'}",
            f"-DSVMKIT_BUILD_TESTS={'ON' if kind == 'static' else 'OFF'}",
            f"-DCMAKE_INSTALL_PREFIX={prefix}",
        ]
    )
    run(["cmake", "--build", str(tmp / "lib"), "--parallel", "2"])
    run(["cmake", "--install", str(tmp / "lib")])
    return kind, prefix, tmp


def _env(kind: str, prefix: Path) -> dict[str, str]:
    env = {**os.environ, "OMP_NUM_THREADS": "2"}
    if kind == "shared":
        lib = str(_lib_dir(prefix))
        env["LD_LIBRARY_PATH"] = lib + os.pathsep + env.get("LD_LIBRARY_PATH", "")
    return env


@pytest.fixture(scope="module")
def consumers(installed):
    """The consumer program built through find_package(svmkit) and through pkg-config."""
    kind, prefix, tmp = installed
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
    run(["cmake", "--build", str(tmp / "consumer"), "--parallel", "2"])
    exes = {"cmake": tmp / "consumer" / "svmkit_consumer"}
    pkg_config = shutil.which("pkg-config") or shutil.which("pkgconf")
    cxx = shutil.which("c++") or shutil.which("g++")
    if pkg_config and cxx:
        env = {**os.environ, "PKG_CONFIG_PATH": str(_lib_dir(prefix) / "pkgconfig")}
        assert run([pkg_config, "--modversion", "svmkit"], env=env).strip() == svmkit.__version__
        flags = shlex.split(run([pkg_config, "--cflags", "--libs", "svmkit"], env=env))
        exe = tmp / "svmkit_consumer_pc"
        run(
            [cxx, "-std=c++17", "-O2", str(REPO / "examples/consumer/main.cpp"), "-o", str(exe)]
            + flags
        )
        exes["pkg-config"] = exe
    return kind, prefix, tmp, exes


def test_consumer_trains_saves_loads_and_predicts(consumers) -> None:
    kind, prefix, tmp, exes = consumers
    if "pkg-config" not in exes:
        pytest.fail("pkg-config and a C++ compiler are needed to test svmkit.pc")
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y_pm = np.where(y == 1, 1.0, -1.0)
    data = tmp / "data.txt"
    with open(data, "w") as f:
        f.write(f"{X.shape[0]} {X.shape[1]}\n")
        for yi, row in zip(y_pm, X):
            f.write(" ".join(repr(float(v)) for v in (yi, *row)) + "\n")
    ref = SkLinearSVC(dual=False, tol=1e-12, max_iter=100000).fit(X, y_pm)
    w, b = ref.coef_[0], ref.intercept_[0]
    f_ref = 0.5 * (w @ w + b * b) + np.sum(np.maximum(0.0, 1 - y_pm * (X @ w + b)) ** 2)
    for how, exe in exes.items():
        model = tmp / f"model_{how}.txt"
        out = run([str(exe), str(data), str(model)], env=_env(kind, prefix))
        lines = out.splitlines()
        f_cpp = float(lines[0].split()[1])
        assert lines[1] in ("status converged", "status line_search_failed")
        assert abs(f_cpp - f_ref) <= 1e-6 * f_ref, how
        pred = np.array([float(v) for v in lines[2 : 2 + len(y)]])
        assert np.mean(pred == ref.predict(X)) == 1.0
        assert lines[2 + len(y)].startswith("error cannot open model file")
        assert lines[3 + len(y)].split()[:2] == ["version", svmkit.__version__]
        # The model file written by C++ is the one Python reads.
        m = svmkit.load_model(model)
        assert np.array_equal(m.predict(X), pred)


# Internal headers are not installed (DESIGN.md, "internal headers"); of detail/, only those
# that public headers include inline code from are.
_PUBLIC_DETAIL = ["assembled_hessian.hpp", "branchless.hpp", "parallel.hpp", "vec_math.hpp"]


def test_installed_headers_are_the_public_api_and_compile_alone(installed) -> None:
    """Checked in both configurations (static and shared install the same headers)."""
    _, prefix, tmp = installed
    inc = prefix / "include"
    detail = sorted(p.name for p in (inc / "svmkit" / "detail").glob("*.hpp"))
    assert detail == _PUBLIC_DETAIL, detail
    in_repo = {p.name for p in (REPO / "cpp" / "include" / "svmkit" / "detail").glob("*.hpp")}
    assert set(_PUBLIC_DETAIL) < in_repo  # internal ones exist and stay out
    # Every installed header, included into one translation unit with only the installed tree
    # on the include path: a public header that needed an uninstalled one would fail here.
    headers = sorted(
        p.relative_to(inc).as_posix()
        for p in (inc / "svmkit").rglob("*.hpp")
        if "third_party" not in p.parts
    )
    assert "svmkit/solvers/smo.hpp" in headers and len(headers) > 20
    tu = tmp / "all_headers.cpp"
    tu.write_text("".join(f'#include "{h}"\n' for h in headers) + "int main() { return 0; }\n")
    cxx = shutil.which("c++") or shutil.which("g++")
    run(
        [
            cxx,
            "-std=c++17",
            "-fopenmp",
            "-fsyntax-only",
            f"-I{inc}",
            f"-I{inc / 'svmkit' / 'third_party' / 'eigen'}",
            str(tu),
        ]
    )


def test_shared_library_soname_and_exports(installed) -> None:
    kind, prefix, _ = installed
    if kind != "shared":
        pytest.skip("static build")
    if shutil.which("readelf") is None or shutil.which("nm") is None:
        pytest.skip("binutils (readelf, nm) not available")
    major, minor = svmkit.__version__.split(".")[:2]
    lib = _lib_dir(prefix)
    real = lib / f"libsvmkit.so.{'.'.join(svmkit.__version__.split('.')[:3])}"
    assert real.is_file() and (lib / "libsvmkit.so").is_symlink()
    dyn = run(["readelf", "-d", str(real)])
    assert f"Library soname: [libsvmkit.so.{major}.{minor}]" in dyn
    exported = run(["nm", "-D", "--defined-only", "-C", str(real)]).splitlines()
    names = [line.split(" ", 2)[2] for line in exported if len(line.split(" ", 2)) == 3]
    assert any(n.startswith("svmkit::solve_tron") for n in names)
    foreign = [
        n
        for n in names
        if not re.match(r"(svmkit::|typeinfo (name )?for svmkit::|vtable for svmkit::|SVMKIT_0)", n)
    ]
    assert foreign == [], foreign[:20]


def test_cpp_test_executable_runs_under_ctest(installed) -> None:
    """-DSVMKIT_BUILD_TESTS=ON builds tests/cpp/smoke.cpp; ctest runs it at the dispatched and
    at the baseline SIMD level."""
    kind, _, tmp = installed
    if kind != "static":
        pytest.skip("the C++ test is built in the static configuration")
    ctest = shutil.which("ctest")
    if ctest is None:
        pytest.fail("ctest (from cmake) is required")
    out = run([ctest, "--test-dir", str(tmp / "lib"), "--output-on-failure", "-V"])
    assert "svmkit_cpp_smoke: passed" in out
    assert re.search(r"100% tests passed(, 0 tests failed)? out of 2", out), out
    assert "simd baseline" in out
