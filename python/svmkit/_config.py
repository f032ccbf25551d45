"""svmkit.show_config(): version, SIMD level, OpenMP runtime and threads, compiler, flags."""

from __future__ import annotations

import os
import platform
import sys
import warnings
from typing import IO, Any

from . import _core


def version() -> str:
    """The installed distribution's version (pyproject.toml's), else the one compiled into the
    core from the same line (a source tree on sys.path without metadata)."""
    try:
        from importlib.metadata import PackageNotFoundError
        from importlib.metadata import version as dist_version

        return dist_version("svmkit")
    except PackageNotFoundError:
        return str(_core.__version__)


def _openmp_runtimes() -> list[dict[str, Any]]:
    """The OpenMP runtimes loaded in this process (threadpoolctl, a scikit-learn dependency):
    for a wheel, the libgomp that auditwheel bundled under svmkit.libs/."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:  # pragma: no cover - scikit-learn always brings it
        return []
    return [
        {
            "runtime": os.path.basename(str(info.get("filepath", "?"))).split(".")[0],
            "path": info.get("filepath", "?"),
            "num_threads": info.get("num_threads"),
            "version": info.get("version"),
        }
        for info in threadpool_info()
        if info.get("user_api") == "openmp"
    ]


def build_config() -> dict[str, Any]:
    """How svmkit was built and what it chose at run time, as a dict (see show_config)."""
    info = dict(_core.build_info())
    info["openmp_runtimes"] = _openmp_runtimes()
    info["svmkit_simd_env"] = os.environ.get("SVMKIT_SIMD")
    info["python"] = f"{platform.python_implementation()} {platform.python_version()}"
    info["platform"] = f"{platform.system()} {platform.machine()}"
    info["package_path"] = os.path.dirname(os.path.abspath(__file__))
    return info


def format_config(info: dict[str, Any] | None = None) -> str:
    info = build_config() if info is None else info
    omp = info["openmp_version"]
    lines = [
        f"svmkit {info['version']}",
        f"  package:      {info['package_path']}",
        f"  python:       {info['python']} on {info['platform']}",
        f"  simd:         {info['simd_level']} (cpu supports {info['simd_cpu']}; "
        + ("runtime dispatch" if info["simd_multiversioned"] else "single version")
        + "; SVMKIT_SIMD="
        + (info["svmkit_simd_env"] if info["svmkit_simd_env"] is not None else "unset")
        + ")",
    ]
    if info["simd_note"]:
        lines.append(f"  simd note:    {info['simd_note']}")
    if omp:
        lines.append(f"  openmp:       {omp} (max threads {info['openmp_max_threads']})")
        for rt in info["openmp_runtimes"]:
            lines.append(
                f"  omp runtime:  {rt['runtime']} {rt['version'] or ''} "
                f"({rt['num_threads']} threads) {rt['path']}"
            )
    else:
        lines.append("  openmp:       not compiled in (single-threaded)")
    lines += [
        f"  compiler:     {info['compiler']}",
        f"  build type:   {info['build_type']}",
        f"  cxx flags:    {info['cxx_flags']}",
    ]
    return "\n".join(lines)


def show_config(file: IO[str] | None = None) -> None:
    """Print svmkit's version, the SIMD level its kernels run at (SVMKIT_SIMD forces one:
    baseline, avx2 or avx512), the OpenMP runtime and thread count, the compiler and flags."""
    print(format_config(), file=sys.stdout if file is None else file)


def warn_simd_note() -> None:
    """At import: a SVMKIT_SIMD value that could not be honoured is said once, not ignored."""
    env = os.environ.get("SVMKIT_SIMD")
    note = _core.build_info()["simd_note"]
    if env and note and not note.startswith("forced"):
        warnings.warn(note, RuntimeWarning, stacklevel=3)
