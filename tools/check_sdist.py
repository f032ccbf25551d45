"""Check an sdist's file list: usage `python tools/check_sdist.py dist/svmkit-X.tar.gz`.

Required: the build files, the C++ and Python sources, the tests, the project's LICENSE and
vendored Eigen's license texts. Forbidden: build trees, benchmark results, compiled files,
virtualenvs and caches. Prints each problem ("missing: X", "forbidden: Y") and exits 1 if any.
"""

from __future__ import annotations

import os
import re
import sys
import tarfile

REQUIRED = [
    "pyproject.toml",
    "CMakeLists.txt",
    "README.md",
    "LICENSE",
    "PKG-INFO",
    "cmake/svmkitConfig.cmake.in",
    "cmake/version.hpp.in",
    "cpp/src/vec_math.cpp",
    "cpp/bindings/module.cpp",
    "python/svmkit/__init__.py",
    "python/svmkit/py.typed",
    "python/svmkit/_core.pyi",
    "tests/conftest.py",
    "tests/cpp/smoke.cpp",
    "examples/consumer/CMakeLists.txt",
    "third_party/eigen/Eigen/Core",
    "third_party/eigen/COPYING.MPL2",
    "third_party/eigen/COPYING.README",
    "third_party/eigen/COPYING.BSD",
    "third_party/eigen/COPYING.MINPACK",
    "third_party/eigen/COPYING.APACHE",
    "third_party/eigen/COPYING.LGPL",
]
FORBIDDEN = re.compile(
    r"^(build/|_skbuild/|dist/|wheelhouse/|\.venv|\.ci/|\.github/|\.benchmarks/|\.hypothesis/"
    r"|\.pytest_cache/|\.ruff_cache/|bench/results/|bench/out/|bench/RESULTS\.md)"
    r"|(^|/)__pycache__/|\.(so|pyd|dll|dylib|o|a|whl|pyc)$|(^|/)CMakeCache\.txt$"
)
MAX_BYTES = 4 * 1024 * 1024  # the compressed sdist (Eigen's headers are most of it)


def check(path: str) -> list[str]:
    problems = []
    with tarfile.open(path) as tar:
        members = [m for m in tar.getmembers() if m.isfile()]
    names = []
    for m in members:
        names.append(m.name.partition("/")[2])
    have = set(names)
    problems += [f"missing: {r}" for r in REQUIRED if r not in have]
    problems += [f"forbidden: {n}" for n in sorted(names) if FORBIDDEN.search(n)]
    size = os.path.getsize(path)
    if size > MAX_BYTES:
        problems.append(f"too large: {size} bytes > {MAX_BYTES}")
    return problems


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    problems = check(argv[1])
    for p in problems:
        print(p)
    if not problems:
        print(f"sdist ok: {argv[1]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
