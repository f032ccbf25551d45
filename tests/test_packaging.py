"""Packaging: one version everywhere, show_config / --version, runtime SIMD dispatch (forced
baseline gives the same results), the _core.pyi stubs against the compiled module, the sdist's
file list, and, when .ci/run points SVMKIT_WHEELHOUSE at the repaired wheel, the wheel itself
(tag, size budget, bundled OpenMP runtime) and that the installed package is the one tested."""

from __future__ import annotations

import ast
import io
import json
import os
import re
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import numpy as np
import pytest
import svmkit
from conftest import REPO
from svmkit import _core

# The wheel size budget (compressed .whl, libgomp included): 4 MiB. Measured 2026-11:
# see the README's install section; tools/build_wheels.sh enforces the same number.
WHEEL_SIZE_BUDGET = 4 * 1024 * 1024


def _pyproject_version() -> str:
    text = (REPO / "pyproject.toml").read_text()
    m = re.search(r'^version\s*=\s*"([^"]+)"', text, re.M)
    assert m, "no version line in pyproject.toml"
    return m.group(1)


def _run(code: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**os.environ, **(env or {})},
        timeout=300,
    )


def test_version_has_one_source() -> None:
    from importlib.metadata import version

    v = _pyproject_version()
    assert svmkit.__version__ == v
    assert _core.__version__ == v
    assert _core.build_info()["version"] == v
    assert version("svmkit") == v


def test_show_config_reports_build_and_runtime() -> None:
    buf = io.StringIO()
    svmkit.show_config(file=buf)
    text = buf.getvalue()
    info = svmkit.build_config()
    assert text.startswith(f"svmkit {svmkit.__version__}\n")
    assert info["simd_level"] in ("baseline", "avx2", "avx512")
    assert f"simd:         {info['simd_level']}" in text
    assert info["compiler"] in text and info["cxx_flags"] in text
    if _core.openmp:
        assert info["openmp_version"] >= 200805
        assert info["openmp_max_threads"] >= 1
        assert "max threads" in text
        assert any("omp" in rt["runtime"] for rt in info["openmp_runtimes"])


def test_cli_version() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "svmkit", "--version"], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith(f"svmkit {svmkit.__version__}\n")
    assert "simd:" in out.stdout and "compiler:" in out.stdout and "cxx flags:" in out.stdout


_FIT_SCRIPT = r"""
import json, sys
import numpy as np
import svmkit
from sklearn.datasets import load_breast_cancer, make_regression
from sklearn.preprocessing import StandardScaler

X, y = load_breast_cancer(return_X_y=True)
X = StandardScaler().fit_transform(X)
out = {"level": svmkit.build_config()["simd_level"]}
for name, est in [
    ("rbf", svmkit.SVC(kernel="rbf", C=3.0, tol=1e-6)),
    ("linear", svmkit.SVC(kernel="linear", C=0.5, tol=1e-6)),
]:
    est.fit(X, y)
    out[name] = [est.dual_coef_.ravel().tolist(), np.ravel(est.intercept_).tolist(),
                 est.decision_function(X).tolist()]
Xr, yr = make_regression(n_samples=300, n_features=8, noise=5.0, random_state=0)
Xr = StandardScaler().fit_transform(Xr)
r = svmkit.SVR(kernel="rbf", C=10.0, epsilon=0.5, tol=1e-6).fit(Xr, yr)
out["svr"] = [r.dual_coef_.ravel().tolist(), np.ravel(r.intercept_).tolist(),
              r.predict(Xr).tolist()]
json.dump(out, sys.stdout)
"""


def _fit_at(level: str | None) -> dict:
    env = {"OMP_NUM_THREADS": "1"}
    if level is not None:
        env["SVMKIT_SIMD"] = level
    out = _run(_FIT_SCRIPT, env)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_forced_baseline_gives_the_dispatched_results() -> None:
    """SVMKIT_SIMD=baseline runs the baseline x86-64 kernels; the dispatched level (AVX-512 or
    AVX2 where the CPU has them) gives the same fits: no fused multiply-add, fixed summation
    order, so equal to the last bit (checked at 1e-12 relative)."""
    ref = _fit_at("baseline")
    assert ref["level"] == "baseline"
    cpu = _core.build_info()["simd_cpu"]
    levels = [None] + (["avx2"] if cpu == "avx512" else [])
    for level in levels:
        got = _fit_at(level)
        assert got["level"] == (level or cpu)
        for key in ("rbf", "linear", "svr"):
            for a, b in zip(ref[key], got[key]):
                np.testing.assert_allclose(np.asarray(b), np.asarray(a), rtol=1e-12, atol=1e-300)


def test_simd_env_typo_warns_and_keeps_the_cpu_level() -> None:
    out = _run(
        "import warnings, svmkit\nprint(svmkit.build_config()['simd_level'])",
        {"SVMKIT_SIMD": "sse9"},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == _core.build_info()["simd_cpu"]
    assert (
        "SVMKIT_SIMD='sse9' is not one of auto, baseline, avx2, avx512; using "
        f"{_core.build_info()['simd_cpu']}" in out.stderr
    )


def test_simd_env_above_the_cpu_falls_back() -> None:
    info = _core.build_info()
    if info["simd_cpu"] == "avx512":
        pytest.skip("this CPU runs AVX-512: no level above it to ask for")
    out = _run(
        "import svmkit\nprint(svmkit.build_config()['simd_level'])", {"SVMKIT_SIMD": "avx512"}
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == info["simd_cpu"]
    assert "SVMKIT_SIMD=avx512 asks for more than this" in out.stderr


# --- type stubs ------------------------------------------------------------------------------

_SIG = re.compile(r"^(\w+)\((.*)\)\s*->")


def _doc_params(doc: str) -> list[str]:
    """Parameter names of pybind11's signature line 'name(a: T, b: U = 1) -> R'."""
    m = _SIG.match(doc.strip().splitlines()[0])
    assert m, doc
    params, depth, cur = [], 0, ""
    for ch in m.group(2):
        depth += ch in "([{"
        depth -= ch in ")]}"
        if ch == "," and depth == 0:
            params.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        params.append(cur)
    return [p.split(":")[0].split("=")[0].strip() for p in params]


def test_core_stubs_match_module() -> None:
    """python/svmkit/_core.pyi (tools/generate_stubs.sh) names exactly the module's functions,
    classes and attributes, with the module's parameter names."""
    stub = Path(svmkit.__file__).with_name("_core.pyi")
    assert stub.is_file(), "_core.pyi is missing from the package"
    tree = ast.parse(stub.read_text())
    funcs: dict[str, list[str]] = {}
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            funcs[node.name] = [a.arg for a in node.args.posonlyargs + node.args.args]
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    real = {n for n in dir(_core) if not n.startswith("__")}
    stub_names = {n for n in names if not n.startswith("__")}
    hint = "; regenerate with: bash tools/generate_stubs.sh"
    assert real - stub_names == set(), f"in _core but not in _core.pyi{hint}"
    assert stub_names - real == set(), f"in _core.pyi but not in _core{hint}"
    for name, params in funcs.items():
        if name.startswith("__"):
            continue
        doc = getattr(_core, name).__doc__ or ""
        if "Overloaded function" in doc:
            continue
        assert params == _doc_params(doc), f"{name}: stub {params} vs module{hint}"


def test_package_is_typed() -> None:
    assert Path(svmkit.__file__).with_name("py.typed").is_file()


# --- sdist -----------------------------------------------------------------------------------


def test_sdist_file_list(tmp_path: Path) -> None:
    """The sdist (built here by scikit-build-core) holds the sources, tests and Eigen's license
    texts, and no benchmark results, build trees or compiled files (tools/check_sdist.py)."""
    build = pytest.importorskip("scikit_build_core.build", reason="scikit-build-core builds it")
    if not (REPO / "pyproject.toml").is_file():
        pytest.skip("no source tree")
    cwd = os.getcwd()
    os.chdir(REPO)
    try:
        name = build.build_sdist(str(tmp_path))
    finally:
        os.chdir(cwd)
    out = subprocess.run(
        [sys.executable, str(REPO / "tools" / "check_sdist.py"), str(tmp_path / name)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stdout + out.stderr


def test_check_sdist_rejects_build_trees(tmp_path: Path) -> None:
    bad = tmp_path / "svmkit-0.0.0.tar.gz"
    with tarfile.open(bad, "w:gz") as tar:
        for name in ("pyproject.toml", "build/editable/CMakeCache.txt", "bench/results/x.md"):
            data = b"x"
            info = tarfile.TarInfo(f"svmkit-0.0.0/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    out = subprocess.run(
        [sys.executable, str(REPO / "tools" / "check_sdist.py"), str(bad)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 1
    assert "forbidden: build/editable/CMakeCache.txt" in out.stdout
    assert "forbidden: bench/results/x.md" in out.stdout
    assert "missing: third_party/eigen/COPYING.MPL2" in out.stdout


# --- the repaired wheel (.ci/run sets SVMKIT_WHEELHOUSE) -------------------------------------


def _wheel() -> Path:
    house = os.environ.get("SVMKIT_WHEELHOUSE")
    if not house:
        pytest.skip("SVMKIT_WHEELHOUSE is not set (.ci/run sets it after tools/build_wheels.sh)")
    wheels = sorted(Path(house).glob("svmkit-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def test_wheel_tag_size_and_contents() -> None:
    whl = _wheel()
    assert re.search(r"-(manylinux|musllinux)_\d+_\d+_x86_64\.whl$", whl.name), whl.name
    size = whl.stat().st_size
    assert size <= WHEEL_SIZE_BUDGET, f"{whl.name}: {size} bytes > budget {WHEEL_SIZE_BUDGET}"
    names = zipfile.ZipFile(whl).namelist()
    assert "svmkit/py.typed" in names and "svmkit/_core.pyi" in names
    assert any(re.match(r"svmkit\.libs/libgomp-[0-9a-f]+\.so", n) for n in names), names
    assert any(n.endswith("licenses/third_party/eigen/COPYING.MPL2") for n in names), names
    assert not any(n.startswith(("tests/", "bench/", "cpp/")) for n in names)


def test_installed_package_is_the_one_tested() -> None:
    """Under .ci/run the suite runs against the installed wheel, not the source tree."""
    _wheel()
    path = Path(svmkit.__file__).resolve()
    assert "site-packages" in path.parts, path
    # Not the source tree's package (the CI virtualenv itself may live inside the checkout).
    assert (REPO / "python").resolve() not in path.parents, path
    info = svmkit.build_config()
    assert "-march=native" not in info["cxx_flags"]
    assert info["simd_multiversioned"]
    assert any("svmkit.libs" in rt["path"] for rt in info["openmp_runtimes"]), info
