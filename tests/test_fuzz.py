"""A short run of the readers' fuzzer (tools/fuzz_loaders.py) in every test run.

Mutated files (seeded from files this run writes, no ../shared data), each read in a child
process watched for crashes and per-input hangs: 2,000 svmkit model and LIBSVM data files, and
300 each of LIBLINEAR model files, LIBSVM model files and svm-scale parameter files.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _fuzz(tmp_path: Path, inputs: int, targets: str) -> dict:
    out = tmp_path / "report.json"
    cmd = [sys.executable, str(ROOT / "tools" / "fuzz_loaders.py"), "--inputs", str(inputs)]
    cmd += ["--seed", "0", "--chunk", "1000", "--time-limit", "20", "--targets", targets]
    cmd += ["--shared", str(tmp_path / "no_shared"), "--json", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["crashes"] == []
    assert report["hangs"] == []
    assert report["unexpected"] == {}
    assert sum(report["counts"].values()) == inputs
    return report["counts"]


def test_short_fuzz_run_finds_no_crash_hang_or_stray_exception(tmp_path) -> None:
    counts = _fuzz(tmp_path, 2000, "model,svmlight")
    # Both loaders saw inputs, and both accepted some and refused some.
    for key in ("model:refused", "svmlight:refused", "svmlight:loaded"):
        assert counts.get(key, 0) > 0, counts


@pytest.mark.parametrize("target", ["liblinear", "libsvm_model", "scale"])
def test_foreign_model_and_scale_readers_fuzz_clean(tmp_path, target) -> None:
    counts = _fuzz(tmp_path, 300, target)
    # Some mutated files still load (and predict / scale); others are refused by ValueError.
    for key in (f"{target}:loaded", f"{target}:refused"):
        assert counts.get(key, 0) > 0, counts
