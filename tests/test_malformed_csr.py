"""A malformed CSR matrix (scipy builds one without complaint) never reaches the core.

An out-of-range or negative column index, or an indptr that decreases, used to make SVC.predict
and SparseSVC.fit read and write far out of bounds (SIGSEGV) and LinearSVC.decision_function
read garbage. Every entry point now refuses it with a ValueError naming the problem. Each case
runs in a subprocess (all in one), so that a crash fails the tests instead of killing
the test run.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SETUP = textwrap.dedent(
    """
    import numpy as np, scipy.sparse as sp, svmkit
    from sklearn.datasets import make_classification, make_regression
    X, y = make_classification(120, 12, random_state=0)
    Xs = sp.csr_matrix(X)
    Xr, yr = make_regression(120, 12, random_state=0)
    Xrs = sp.csr_matrix(Xr)

    def corrupt(M, how):
        M = M.copy()
        if how == "index_too_large":
            M.indices[7] = 10**6
        elif how == "index_negative":
            M.indices[7] = -3
        elif how == "indptr_decreasing":
            M.indptr[5] = M.indptr[6] + 4
        return M
    """
)

# (estimator expression, fit data, the call made with the corrupted matrix)
CALLS = {
    "LinearSVC.decision_function": "svmkit.LinearSVC().fit(Xs, y).decision_function(bad)",
    "LinearSVC.predict": "svmkit.LinearSVC().fit(Xs, y).predict(bad)",
    "LinearSVC(hinge).predict": "svmkit.LinearSVC(loss='hinge').fit(Xs, y).predict(bad)",
    "LinearSVC.fit": "svmkit.LinearSVC().fit(bad, y)",
    "LinearSVR.predict": "svmkit.LinearSVR().fit(Xrs, yr).predict(badr)",
    "SVC.predict": "svmkit.SVC().fit(Xs, y).predict(bad)",
    "SVC.decision_function": "svmkit.SVC().fit(Xs, y).decision_function(bad)",
    "SVC.fit": "svmkit.SVC().fit(bad, y)",
    "SVR.predict": "svmkit.SVR().fit(Xrs, yr).predict(badr)",
    "SparseSVC.fit": "svmkit.SparseSVC().fit(bad, y)",
    "SparseSVC.predict": "svmkit.SparseSVC().fit(Xs, y).predict(bad)",
}


HOWS = ("index_too_large", "index_negative", "indptr_decreasing")


@pytest.fixture(scope="module")
def outcomes() -> dict[tuple[str, str], str]:
    """Every (call, how) case in one subprocess (one import of svmkit instead of 33): each case
    prints a START line, then its outcome. A crash ends the process; the case it was running is
    the one without an outcome, and every case not reached reports the crash."""
    lines = [SETUP]
    for how in HOWS:
        lines.append(f"bad = corrupt(Xs, {how!r}); badr = corrupt(Xrs, {how!r})")
        for call in sorted(CALLS):
            lines += [
                f"print('START', {call!r}, {how!r}, flush=True)",
                "try:",
                f"    {CALLS[call]}",
                "    print('OUTCOME NO ERROR', flush=True)",
                "except ValueError as e:",
                "    print('OUTCOME ValueError:', str(e).replace(chr(10), ' '), flush=True)",
            ]
    out = subprocess.run(
        [sys.executable, "-c", "\n".join(lines)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    results: dict[tuple[str, str], str] = {}
    current = None
    for line in out.stdout.splitlines():
        if line.startswith("START "):
            _, call, how = line.split(" ", 2)
            current = (call.strip("'"), how.strip("'"))
        elif line.startswith("OUTCOME ") and current is not None:
            results[current] = line[len("OUTCOME ") :]
            current = None
    if out.returncode != 0:
        crash = f"CRASH (rc {out.returncode}) in {current}: {out.stderr[-800:]}"
        for call in CALLS:
            for how in HOWS:
                results.setdefault((call, how), crash)
    return results


@pytest.mark.parametrize("how", HOWS)
@pytest.mark.parametrize("call", sorted(CALLS))
def test_malformed_csr_is_refused(outcomes, call: str, how: str) -> None:
    text = outcomes[(call, how)]
    assert not text.startswith("CRASH"), f"{call} on {how}: {text}"
    assert text.startswith("ValueError:"), f"{call} accepted a malformed CSR matrix: {text}"
    # The message names the problem: the bad index or the bad pointer.
    if how == "indptr_decreasing":
        assert "indptr" in text, text
    else:
        assert "index" in text and ("out of range" in text or "negative" in text), text
