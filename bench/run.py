"""Run every benchmark script in bench/ (or the ones named) and assemble bench/RESULTS.md.

    python bench/run.py                 # all bench_*.py, in turn, then assemble
    python bench/run.py linear reader   # just bench_linear.py and bench_reader.py
    python bench/run.py --quick         # pass --quick to the scripts that accept it

Each script runs in its own process, so peak-memory measurements do not interfere.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("names", nargs="*", help="benchmark names (bench_<name>.py); default: all")
    ap.add_argument("--quick", action="store_true", help="smaller cases where a script has them")
    args = ap.parse_args(argv)
    scripts = sorted(BENCH.glob("bench_*.py"))
    if args.names:
        wanted = {f"bench_{n}.py" for n in args.names}
        unknown = wanted - {s.name for s in scripts}
        if unknown:
            ap.error(f"no such benchmark: {', '.join(sorted(unknown))}")
        scripts = [s for s in scripts if s.name in wanted]
    failed = []
    for script in scripts:
        cmd = [sys.executable, str(script)]
        if args.quick and "--quick" in script.read_text():
            cmd.append("--quick")
        print(f"== {' '.join(cmd)}", flush=True)
        if subprocess.run(cmd, cwd=BENCH.parent).returncode != 0:
            failed.append(script.name)
    subprocess.run([sys.executable, str(BENCH / "assemble.py")], check=True)
    if failed:
        print(f"failed: {', '.join(failed)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
