"""A short run of the loaders' fuzzer (tools/fuzz_loaders.py) in every test run.

2,000 mutated model and LIBSVM files (seeded from files this run writes, no ../shared data),
each loaded in a child process watched for crashes and per-input hangs.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_short_fuzz_run_finds_no_crash_hang_or_stray_exception(tmp_path) -> None:
    out = tmp_path / "report.json"
    cmd = [sys.executable, str(ROOT / "tools" / "fuzz_loaders.py"), "--inputs", "2000"]
    cmd += ["--seed", "0", "--chunk", "1000", "--time-limit", "20"]
    cmd += ["--shared", str(tmp_path / "no_shared"), "--json", str(out)]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    assert res.returncode == 0, res.stderr[-2000:]
    report = json.loads(out.read_text())
    assert report["crashes"] == []
    assert report["hangs"] == []
    assert report["unexpected"] == {}
    counts = report["counts"]
    assert sum(counts.values()) == 2000
    # Both loaders saw inputs, and both accepted some and refused some.
    for key in ("model:refused", "svmlight:refused", "svmlight:loaded"):
        assert counts.get(key, 0) > 0, counts
