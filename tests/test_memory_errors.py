"""Out of memory is a Python MemoryError naming the size and the option, never an abort.

Each case runs in a subprocess whose address space is limited (RLIMIT_AS), so that an
allocation in the core really fails; a crash (abort in an OpenMP region, std::terminate) would
show as a non-zero exit code and fail the test.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

resource = pytest.importorskip("resource", reason="RLIMIT_AS needs the POSIX resource module")

# The address space is measured from /proc/self/status, and RLIMIT_AS bounds allocations on
# Linux (macOS does not enforce it): the cases run wherever that holds, as on CI's Linux.
linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc/self/status (Linux's RLIMIT_AS)"
)


PRELUDE = """\
import resource, numpy as np, svmkit
from svmkit import _core
def vm_bytes():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
"""


def run_limited(body: str, extra_mb: int) -> subprocess.CompletedProcess:
    """Runs body with the address space limited to what the process has now + extra_mb."""
    code = (
        PRELUDE
        + f"limit = vm_bytes() + {extra_mb} * 1024 * 1024\n"
        + "resource.setrlimit(resource.RLIMIT_AS, (limit, limit))\n"
        + "try:\n"
        + textwrap.indent(textwrap.dedent(body).strip(), "    ")
        + "\n    print('NO ERROR')\n"
        + "except MemoryError as e:\n"
        + "    print('MemoryError:', e)\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, check=False
    )


@linux_only
def test_gram_matrix_allocation_failure_is_memory_error() -> None:
    # adagrad_dual keeps the n x n Gram matrix (n = 6000: 275 MiB) when max_gram_mb allows it.
    out = run_limited(
        """
        rng = np.random.default_rng(0)
        X = rng.standard_normal((6000, 5))
        y = np.where(X[:, 0] > 0, 1, 0)
        svmkit.SVC(solver="adagrad_dual", max_iter=2, n_jobs=2).fit(X, y)
        """,
        extra_mb=120,
    )
    assert out.returncode == 0, out.stderr[-1000:]
    line = out.stdout.strip().splitlines()[-1]
    assert line.startswith("MemoryError:"), line
    assert "MiB" in line and "Gram matrix" in line and "max_gram_mb" in line, line


@pytest.mark.parametrize("element_loop", [False, True])
@pytest.mark.parametrize("what", ["bad_alloc", "svmkit_out_of_memory"])
def test_exception_inside_a_parallel_region_reaches_python(what: str, element_loop: bool) -> None:
    # Thrown on a worker thread inside an OpenMP region: without the region guard this calls
    # std::terminate and the interpreter dies (so run it in a subprocess).
    code = (
        "from svmkit import _core\n"
        "try:\n"
        f"    _core._parallel_region_error_probe({what!r}, {element_loop})\n"
        "except MemoryError as e:\n"
        "    print('MemoryError:', e)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert out.returncode == 0, f"crashed (rc {out.returncode}): {out.stderr[-1000:]}"
    line = out.stdout.strip().splitlines()[-1]
    assert line.startswith("MemoryError:"), line
    if what == "svmkit_out_of_memory":
        assert "a probe buffer" in line and "the probe's option" in line and "GiB" in line, line


@linux_only
def test_nssvm_woodbury_matrix_allocation_failure_is_memory_error() -> None:
    # s > n = 20,000 with cg_threshold raised past n: the Woodbury path's n x n matrix
    # (3.0 GiB) cannot be allocated within 200 MiB more.
    out = run_limited(
        """
        rng = np.random.default_rng(0)
        m, n = 30000, 20000
        indices = np.sort(rng.choice(n, (m, 3)), axis=1).astype(np.int32).ravel()
        indptr = np.arange(0, 3 * m + 1, 3, dtype=np.int32)
        y = np.where(rng.random(m) < 0.5, 1.0, -1.0)
        opts = {"s0": 25000, "cg_threshold": 10**6, "max_iter": 2}
        _core.fit_nssvm((np.ones(3 * m), indices, indptr, m, n), y, opts, None)
        """,
        extra_mb=200,
    )
    assert out.returncode == 0, out.stderr[-1000:]
    line = out.stdout.strip().splitlines()[-1]
    assert line.startswith("MemoryError:"), line
    assert "GiB" in line and "Woodbury matrix" in line and "cg_threshold" in line, line


BILLIONS = """
n, d = 3, 3_000_000_000
indices = np.array([0, 5, 2_999_999_999], dtype=np.int64)
indptr = np.arange(4, dtype=np.int64)
y = np.array([1.0, -1.0, 1.0])
X = (np.ones(3), indices, indptr, n, d)
"""


@linux_only
@pytest.mark.parametrize(
    ("call", "prefix", "names"),
    [
        (
            '_core.fit_l1_cd(X, y, np.ones(3), "squared_hinge", 1.0, 0.0, True, 1.0, True, None, '
            "{}, None)",
            "out_of_memory l1_cd: out of memory",
            ["per-feature vectors (22889 MiB each for 3000000000 features)"],
        ),
        (  # the l1 hinge's working set (ipm with more than working_set_min_features)
            '_core.fit_ipm(X, y, np.ones(3), "hinge", 1.0, 0.0, True, 1.0, True, {}, None)',
            "out_of_memory ipm: out of memory for its per-feature vectors",
            ["3000000000 doubles", "working_set_max_features"],
        ),
    ],
)
def test_billions_of_declared_features_name_the_feature_vectors(call, prefix, names) -> None:
    # Three stored entries in a CSR matrix declaring 3e9 columns: the copy of X is tiny, the
    # per-feature vectors (24 GB each) are what cannot be allocated; the result's status is
    # out_of_memory (the estimators raise MemoryError from it) and its message says so (l1_cd's
    # once said "about 0 MiB").
    out = run_limited(BILLIONS + f"r = {call}\nprint(r['status'].name, r['message'])", extra_mb=200)
    assert out.returncode == 0, out.stderr[-1000:]
    line = out.stdout.strip().splitlines()[0]
    assert line.startswith(prefix), line
    for name in names:
        assert name in line, (name, line)


@linux_only
def test_ipm_working_set_out_of_memory_is_memory_error_in_linear_svc() -> None:
    out = run_limited(
        BILLIONS
        + """
import scipy.sparse as sp
Xs = sp.csr_matrix(X[:3], shape=(n, d))
svmkit.LinearSVC(loss="hinge", penalty="l1", solver="ipm").fit(Xs, y)
""",
        extra_mb=200,
    )
    assert out.returncode == 0, out.stderr[-1000:]
    last = out.stdout.strip().splitlines()[-1]
    assert last.startswith("MemoryError:") and "per-feature vectors" in last, last


@linux_only
def test_ipm_system_allocation_failure_is_out_of_memory() -> None:
    # 4,000 features: each (n_features + 1)-square system (the feature form, named: with 6 rows
    # "auto" takes the sample form) is 128 MiB, within max_system_mb's
    # default, but the address space holds only one of the system and its factor; the result's
    # status is out_of_memory naming the option, and LinearSVC raises MemoryError from it.
    out = run_limited(
        """
        d = 4000
        rng = np.random.default_rng(0)
        X = np.ascontiguousarray(rng.standard_normal((6, d)))
        y = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0])
        # the feature form's system on all features
        whole = {"working_set_min_features": d, "system_form": "features"}
        r = _core.fit_ipm(X, y, np.ones(6), "hinge", 1.0, 0.0, True, 1.0, True, whole, None)
        print(r["status"].name, r["message"])
        svmkit.LinearSVC(loss="hinge", penalty="l1", solver="ipm", solver_options=whole).fit(X, y)
        """,
        extra_mb=200,
    )
    assert out.returncode == 0, out.stderr[-1000:]
    first, last = out.stdout.strip().splitlines()[0], out.stdout.strip().splitlines()[-1]
    assert first.startswith("out_of_memory ipm: out of memory"), first
    assert "max_system_mb" in first, first
    assert last.startswith("MemoryError:") and "max_system_mb" in last, last
