"""Shared benchmark machinery: timing, peak memory, objective evaluation, markdown tables.

Every benchmark runs svmkit and its anchors side by side in one process on the same data and
writes a markdown section to bench/results/<name>.md; bench/assemble.py joins the sections
into bench/RESULTS.md. Timings are wall-clock seconds on this machine (report `nproc`).
"""

from __future__ import annotations

import argparse
import ctypes
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np

BENCH = Path(__file__).resolve().parent
RESULTS = BENCH / "results"


def _status_kb(key: str) -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    return 0


def reset_peak_rss() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) of this process; False where unsupported."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


@dataclass
class Measurement:
    seconds: float
    peak_extra_mb: float  # peak resident memory during the call above the RSS before it
    value: Any = None


def prefault_libraries() -> int:
    """Touch every page of the shared libraries mapped into this process (code and read-only
    data of every .so); returns the pages touched.

    A library's file-backed pages count in the resident set (VmHWM) the first time any code on
    them runs, so a fit that reaches a code path its warm-up did not (solver="auto" picks by
    the data's shape: a few-row warm-up of LinearSVC() on mushrooms ran dual_cd, the full fit
    tron) was charged for the code it ran: 1.30 MB where the same fit read 0.61 MB once its
    code was resident. Those pages are shared with every process that loads the library and
    are not the fit's memory; faulting them all in before measuring charges every candidate
    alike (0.04-0.07 s here)."""
    import re

    pages = 0
    with open("/proc/self/maps") as f:
        maps = f.readlines()
    for line in maps:
        parts = line.split()
        if len(parts) < 6 or parts[1][0] != "r" or not re.search(r"\.so(\.|$)", parts[5]):
            continue
        lo, hi = (int(x, 16) for x in parts[0].split("-"))
        view = (ctypes.c_char * (hi - lo)).from_address(lo)
        for offset in range(0, hi - lo, 4096):
            view[offset]  # a read faults the page in
            pages += 1
    return pages


def _release_free_heap() -> None:
    """Return the allocator's free pages to the kernel (glibc malloc_trim; no-op elsewhere).

    Without it a fit that mallocs from the main thread's arena reuses pages that earlier work
    in the process freed but left resident, and its peak RSS barely rises, while a fit that
    allocates in fresh (per-thread) arenas is charged in full: measured on the 26-class
    LinearSVC(penalty="l1") cell of bench_regimes, the anchor read 0.1 MB in the long-running
    matrix but 12.6 MB in a fresh process. Trimming first charges every candidate alike.
    """
    try:
        ctypes.CDLL(None).malloc_trim(0)
    except (OSError, AttributeError):
        pass


def measure(fn: Callable[[], Any]) -> Measurement:
    """Run fn once; wall time and the peak extra resident memory it needed."""
    _release_free_heap()
    ok = reset_peak_rss()
    rss0 = _status_kb("VmRSS")
    t0 = time.perf_counter()
    value = fn()
    seconds = time.perf_counter() - t0
    peak = (_status_kb("VmHWM") - rss0) / 1024.0 if ok else float("nan")
    return Measurement(seconds, peak, value)


def best_time(fn: Callable[[], Any], runs: int = 3, limit: float = 2.0) -> tuple[float, Any]:
    """The best wall time of up to `runs` calls of fn (no more after one above `limit` s) and
    the last call's value."""
    best, value = float("inf"), None
    for _ in range(runs):
        t0 = time.perf_counter()
        value = fn()
        seconds = time.perf_counter() - t0
        best = min(best, seconds)
        if seconds > limit:
            break
    return best, value


def best_of(n: int, fn: Callable[[], Any]) -> Measurement:
    runs = [measure(fn) for _ in range(n)]
    best = min(runs, key=lambda m: m.seconds)
    best.peak_extra_mb = max(r.peak_extra_mb for r in runs)
    return best


def squared_hinge_objective(X, y_pm: np.ndarray, w: np.ndarray, b: float, C: float) -> float:
    """LIBLINEAR's primal: 1/2 (||w||^2 + b^2) + C sum max(0, 1 - y (Xw + b))^2."""
    z = np.asarray(X @ w).ravel() + b
    return float(0.5 * (w @ w + b * b) + C * np.sum(np.maximum(0.0, 1.0 - y_pm * z) ** 2))


def hinge_objective(X, y_pm: np.ndarray, w: np.ndarray, b: float, C: float) -> float:
    z = np.asarray(X @ w).ravel() + b
    return float(0.5 * (w @ w + b * b) + C * np.sum(np.maximum(0.0, 1.0 - y_pm * z)))


def time_to_objective(fit_seconds: float, result: dict, target: float) -> float:
    """Wall time at which a svmkit fit first reached objective <= target.

    Uses the solver's own per-iteration history (time since the solve began) plus the
    Python-side overhead of the fit (validation, conversion). NaN if never reached.
    """
    hist = result["history"]
    overhead = max(0.0, fit_seconds - float(result["time"]))
    hit = np.nonzero(np.asarray(hist["objective"]) <= target)[0]
    if hit.size == 0:
        return float("nan")
    return overhead + float(hist["time"][hit[0]])


@dataclass
class Table:
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)

    def add(self, *row: Any) -> None:
        self.rows.append(list(row))

    def markdown(self) -> str:
        def fmt(v: Any) -> str:
            if isinstance(v, float):
                if np.isnan(v):
                    return "-"
                if v != 0 and (abs(v) >= 1e5 or abs(v) < 1e-3):
                    return f"{v:.4e}"
                return f"{v:.4g}"
            return str(v)

        head = "| " + " | ".join(self.columns) + " |"
        sep = "|" + "|".join("---" for _ in self.columns) + "|"
        body = ["| " + " | ".join(fmt(v) for v in r) + " |" for r in self.rows]
        return "\n".join([head, sep, *body])


def machine_line() -> str:
    try:
        cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout
        model = next(
            (l.split(":", 1)[1].strip() for l in cpu.splitlines() if "Model name" in l), ""
        )
    except OSError:
        model = ""
    return (
        f"{platform.machine()} {model}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, "
        f"OMP_NUM_THREADS={os.environ.get('OMP_NUM_THREADS', 'unset')}"
    )


def write_section(name: str, title: str, body: str, command: str) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.md"
    text = (
        f"## {title}\n\n"
        f"Command: `{command}`  \nMachine: {machine_line()}  \n"
        f"Date: {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n\n{body}\n"
    )
    path.write_text(text)
    print(text)
    return path


def command_line() -> str:
    return " ".join(["python", *[os.path.relpath(a) if os.path.exists(a) else a for a in sys.argv]])


def alternate_children(
    script: str, cells: list[str], variants: list[tuple[str, list[str]]], rounds: int
) -> dict:
    """Runs `script --child CELLS [args]` once per variant per round, the variants alternately
    and each in a fresh process; every line the child prints is a JSON record with a "cell".
    Returns {cell: {label: [record per round]}}."""
    import json

    runs: dict = {}
    for _ in range(rounds):
        for label, args in variants:
            cmd = [sys.executable, script, "--child", ",".join(cells), *args]
            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
            for line in out.splitlines():
                r = json.loads(line)
                runs.setdefault(r["cell"], {}).setdefault(label, []).append(r)
    return runs


def best_pair(records: dict, a: str, b: str) -> tuple[dict, dict, float]:
    """The fastest record of variants a and b of one cell (alternate_children's runs[cell]) and
    b's objective "f" relative to a's."""
    ra = min(records[a], key=lambda x: x["time"])
    rb = min(records[b], key=lambda x: x["time"])
    return ra, rb, (rb["f"] - ra["f"]) / abs(ra["f"])


def data_set_parser(doc: str) -> argparse.ArgumentParser:
    """The arguments of a benchmark over named data sets: --only NAME ... (substrings of the
    names to run) and --out FILE (the markdown table, written there too); add more to it."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--only", nargs="*", help="data set names (substrings)")
    ap.add_argument("--out", type=Path, default=None, help="write the markdown table here too")
    return ap


def emit_table(columns: list[str], rows: list[str], out: str | None) -> None:
    """Emits a markdown table: its head from the column titles, then the rows (emit)."""
    head = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    emit(head + rows, out)


def emit(lines: list[str], out: str | None) -> None:
    """Prints the section and writes it to out (when given)."""
    text = "\n".join(lines) + "\n"
    print(text)
    if out:
        Path(out).write_text(text)
