"""Mutation fuzzer for svmkit's file readers.

Targets (--targets, all by default):
  model         svmkit.load_model (svmkit's own model files)
  svmlight      svmkit.datasets.load_svmlight_file (LIBSVM data files)
  liblinear     LIBLINEAR model files (_foreign_models.read_liblinear_model and the estimator
                built from it: liblinearutil.load_model, `svmkit liblinear-predict`)
  libsvm_model  LIBSVM model files (_foreign_models.read_libsvm_model and its estimator:
                svmutil.svm_load_model, `svmkit svm-predict`)
  scale         svm-scale parameter files (_scale.read_params, then apply_params as
                `svmkit scale -r` does)

Seeds are real files: models saved from estimators fitted on scikit-learn's bundled data
(linear and kernel, binary, multiclass, regression, sparse, precomputed, Platt), LIBSVM files
dumped from the same data, LIBLINEAR and LIBSVM model files written by liblinear-official and
libsvm-official (every -s type; iris, breast_cancer, diabetes, a digits subset), svm-scale
parameter files, and small heads of ../shared/datasets files when present. Each
input is a seed mutated a few times (bit flips, byte edits, line deletion / duplication /
swap, number replacement with hostile values, truncation, splicing). Input i is a pure
function of (seed, i), so any finding can be replayed with --replay i.

The loaders run in-process in a child process (a crash kills the child, not the fuzzer); the
parent watches a shared progress counter and kills the child when one input takes longer than
--time-limit (a hang). After a crash or hang the child is restarted after the input at fault.
A model that loads is also asked to predict on a few rows, so that a loaded-but-broken model
that would crash later is found too.

Outcomes per input: "loaded" (accepted), "refused" (the reader's documented error: FormatError
for svmkit's own files, ValueError naming the problem for the foreign and scale files),
"refused_other" (another ValueError or OSError from svmkit's own loaders), "unexpected" (any
other exception type, UnicodeError and OverflowError included: a bug), "crash", "hang".

Usage:
  python tools/fuzz_loaders.py --inputs 2000 --seed 0
  python tools/fuzz_loaders.py --inputs 1000000 --seed 1 --chunk 50000   # long run
  python tools/fuzz_loaders.py --inputs 300 --targets liblinear,libsvm_model,scale
  python tools/fuzz_loaders.py --seed 1 --replay 12345 --out bad.bin      # write one input
"""

from __future__ import annotations

import argparse
import io
import json
import mmap
import os
import random
import re
import struct
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

HOSTILE = [
    b"0",
    b"-1",
    b"1",
    b"2",
    b"3",
    b"-0",
    b"1e300",
    b"-1e300",
    b"1e999",
    b"4000000000",
    b"2147483648",
    b"4294967296",
    b"9223372036854775807",
    b"9223372036854775808",
    b"-9223372036854775808",
    b"18446744073709551616",
    b"99999999999999999999999",
    b"nan",
    b"inf",
    b"-inf",
    b"1.5",
    b"0x10",
    b"",
    b"1,5",
    b"+",
    b"-",
    b"e",
    b"1e",
    b"\xff\xfe",
    b"1:1",
    b"::",
    b"qid:1",
]
KEYS = [
    b"svmkit_model",
    b"kind",
    b"task",
    b"kernel",
    b"gamma",
    b"coef0",
    b"degree",
    b"n_features",
    b"classes",
    b"n_sv",
    b"n_support",
    b"intercept",
    b"prob_a",
    b"prob_b",
    b"support",
    b"storage",
    b"dual_coef",
    b"sv",
    b"coef",
    b"n_rows",
    b"end",
    b"checksum",
    b"sparse",
    b"dense",
    b"precomputed",
    b"regression",
    # LIBLINEAR / LIBSVM model files and svm-scale parameter files
    b"solver_type",
    b"nr_class",
    b"label",
    b"nr_feature",
    b"bias",
    b"w",
    b"rho",
    b"svm_type",
    b"kernel_type",
    b"total_sv",
    b"nr_sv",
    b"probA",
    b"probB",
    b"SV",
    b"x",
    b"y",
    b"L2R_LR",
    b"MCSVM_CS",
    b"ONECLASS_SVM",
    b"L2R_L1LOSS_SVR_DUAL",
    b"c_svc",
    b"nu_svc",
    b"one_class",
    b"epsilon_svr",
    b"nu_svr",
    b"polynomial",
    b"rbf",
    b"precomputed",
]
TARGETS = ("model", "svmlight", "liblinear", "libsvm_model", "scale")


# ------------------------------------------------------------------------------------------
# Seeds


def build_seeds(work: Path, shared: Path | None) -> list[tuple[str, bytes]]:
    """(kind, bytes) pairs: kind is one of TARGETS."""
    import numpy as np
    import scipy.sparse as sp
    import svmkit
    from sklearn.datasets import load_diabetes, load_iris, load_wine
    from svmkit.datasets import dump_svmlight_file

    seeds: list[tuple[str, bytes]] = []
    Xi, yi = load_iris(return_X_y=True)
    Xw, yw = load_wine(return_X_y=True)
    Xw = (Xw - Xw.mean(0)) / Xw.std(0)
    Xd, yd = load_diabetes(return_X_y=True)
    sub = slice(0, 150, 5)  # small files keep the fuzzer fast
    Xi_s, yi_s = Xi[sub], yi[sub]
    binary = yi < 2
    Xs = sp.csr_matrix(np.where(np.abs(Xw) < 0.7, 0.0, Xw))[::6]
    Xs = sp.csr_matrix(Xs.multiply(np.arange(Xs.shape[0])[:, None] > 0))  # row 0 empty
    K = Xi_s @ Xi_s.T
    estimators = [
        (svmkit.LinearSVC(), Xi[binary][::4], yi[binary][::4]),
        (svmkit.LinearSVC(), Xi_s, yi_s),
        (svmkit.LinearSVR(), Xd[::40, :4], yd[::40]),
        (svmkit.SVC(), Xi_s, yi_s),
        (svmkit.SVC(kernel="poly", degree=2), Xi[binary][::6], yi[binary][::6]),
        (svmkit.SVC(probability=True, random_state=0), Xi_s, yi_s),
        (svmkit.SVC(kernel="precomputed"), K, yi_s),
        (svmkit.SVR(kernel="laplacian"), Xs, yw[::6].astype(float)),
        (svmkit.SVC(kernel="sigmoid"), Xs, yw[::6]),
    ]
    for i, (est, X, y) in enumerate(estimators):
        est.fit(X, y)
        path = work / f"seed{i}.model"
        svmkit.save_model(est, path)
        seeds.append(("model", path.read_bytes()))
    for X, y, zb in [(Xi_s, yi_s, False), (Xs, yw[::6], True)]:
        buf = io.BytesIO()
        dump_svmlight_file(X, y, buf, zero_based=zb)
        seeds.append(("svmlight", buf.getvalue()))
    buf = io.BytesIO()
    dump_svmlight_file(Xi_s[:6], yi_s[:6], buf, query_id=np.arange(6) // 2, comment="seed")
    seeds.append(("svmlight", buf.getvalue()))
    seeds += foreign_seeds(work)
    if shared is not None and shared.is_dir():
        for f in sorted(shared.rglob("*")):
            if f.is_file() and f.suffix not in (".md", ".gz", ".bz2", ".xz") and f.stat().st_size:
                with open(f, "rb") as fh:
                    head = fh.read(3000)
                seeds.append(("svmlight", head[: head.rfind(b"\n") + 1] or head))
    return seeds


def foreign_seeds(work: Path) -> list[tuple[str, bytes]]:
    """LIBLINEAR / LIBSVM model files written by the official tools' Python packages (every -s
    type) and svm-scale parameter files, from small subsets of scikit-learn's bundled data."""
    import numpy as np
    import scipy.sparse as sp
    from liblinear import liblinearutil
    from libsvm import svmutil
    from sklearn.datasets import load_breast_cancer, load_diabetes, load_digits, load_iris
    from svmkit import _scale

    Xi, yi = load_iris(return_X_y=True)
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xb = (Xb - Xb.mean(0)) / Xb.std(0)
    Xd, yd = load_diabetes(return_X_y=True)
    Xg, yg = load_digits(return_X_y=True)
    data = {
        "iris": (Xi[::3], yi[::3]),
        "cancer": (Xb[::10], yb[::10]),
        "diabetes": (Xd[::10], yd[::10]),
        "digits": (Xg[:60] / 16.0, yg[:60]),
    }
    seeds: list[tuple[str, bytes]] = []
    path = str(work / "foreign.model")
    linear = [(s, "iris" if s % 2 else "cancer") for s in range(8)] + [(4, "digits")]
    linear += [(s, "diabetes") for s in (11, 12, 13)] + [(21, "cancer")]
    for k, (s, name) in enumerate(linear):
        X, y = data[name]
        m = liblinearutil.train(y, X, f"-s {s} -q" + (" -B 1" if k % 3 else ""))
        liblinearutil.save_model(path, m)
        seeds.append(("liblinear", Path(path).read_bytes()))
    kernel = [(0, t, "iris") for t in range(4)] + [(0, 2, "cancer"), (0, 2, "digits")]
    kernel += [(1, 2, "iris"), (2, 2, "cancer"), (3, 2, "diabetes"), (4, 1, "diabetes")]
    for s, t, name in kernel:
        X, y = data[name]
        m = svmutil.svm_train(y, X, f"-s {s} -t {t} -q")
        svmutil.svm_save_model(path, m)
        seeds.append(("libsvm_model", Path(path).read_bytes()))
    X, y = data["iris"]
    for opts, Xs in [("-s 0 -t 2 -b 1 -q", X), ("-s 0 -t 4 -q", np.c_[np.arange(1, 51), X @ X.T])]:
        m = svmutil.svm_train(y, Xs, opts)  # Platt pairs; precomputed (refused by svmkit)
        svmutil.svm_save_model(path, m)
        seeds.append(("libsvm_model", Path(path).read_bytes()))
    sparse = sp.csr_matrix(np.where(np.abs(Xb[::10]) < 0.8, 0.0, Xb[::10]))
    for X, y, lo, hi, yr in [
        (Xi, yi, -1.0, 1.0, None),
        (Xd[::10], yd[::10], 0.0, 1.0, (-1.0, 1.0)),
        (sparse, yb[::10], 0.0, 1.0, None),  # constant features are left out of the file
    ]:
        buf = io.StringIO()
        _scale.write_params(_scale.find_params(sp.csr_matrix(X), y, lo, hi, yr), buf)
        seeds.append(("scale", buf.getvalue().encode()))
    return seeds


# ------------------------------------------------------------------------------------------
# Mutations


# A number: a digit, or a minus sign before a digit, then digits, '.', 'e', 'E', '+', '-'.
# (A regular expression: the byte-by-byte Python scan it replaces, with the same spans, took
# half of the fuzzer's time on the larger model seeds.)
_NUMBER = re.compile(rb"(?:[0-9]|-(?=[0-9]))[0-9.eE+\-]*")


def _number_spans(data: bytes) -> list[tuple[int, int]]:
    return [m.span() for m in _NUMBER.finditer(data)]


def mutate(data: bytes, rng: random.Random, seeds: list[tuple[str, bytes]]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.choice((1, 1, 1, 2, 3, 5))):
        op = rng.randrange(12)
        n = len(b)
        if op == 0 and n:  # bit flip
            i = rng.randrange(n)
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1 and n:  # byte replace
            b[rng.randrange(n)] = rng.choice(b" \n\t:#.-+e0123456789\r\x00\xff")
        elif op == 2:  # insert bytes
            b[rng.randrange(n + 1) : 0] = rng.choice(HOSTILE + KEYS + [b" ", b"\n", b":"])
        elif op == 3 and n:  # delete a range
            i = rng.randrange(n)
            del b[i : i + rng.randrange(1, 16)]
        elif op in (4, 5, 6):  # number replacement (the most productive edit)
            spans = _number_spans(bytes(b))
            if spans:
                i, j = rng.choice(spans)
                b[i:j] = rng.choice(HOSTILE)
        elif op in (7, 8):  # line-level edits
            lines = bytes(b).split(b"\n")
            if len(lines) > 1:
                i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
                kind = rng.randrange(4)
                if kind == 0:
                    del lines[i]
                elif kind == 1:
                    lines.insert(j, lines[i])
                elif kind == 2:
                    lines[i], lines[j] = lines[j], lines[i]
                else:
                    lines[i] = rng.choice(KEYS) + b" " + rng.choice(HOSTILE)
                b = bytearray(b"\n".join(lines))
        elif op == 9 and n:  # truncate
            del b[rng.randrange(n) :]
        elif op == 10:  # splice a piece of another seed
            other = rng.choice(seeds)[1]
            if other:
                i = rng.randrange(len(other))
                b[rng.randrange(n + 1) : 0] = other[i : i + rng.randrange(1, 200)]
        elif op == 11 and n:  # repeat a token many times
            i = rng.randrange(n)
            b[i:i] = bytes(b[i : i + rng.randrange(1, 8)]) * rng.randrange(2, 500)
    return bytes(b)


def make_input(
    seed: int, i: int, seeds: list[tuple[str, bytes]], targets: tuple[str, ...] = TARGETS
) -> tuple[str, bytes]:
    rng = random.Random(seed * 1_000_003 + i)
    # Each target gets the same share of inputs, whatever the number of seeds of each.
    want = targets[rng.randrange(len(targets))]
    pool = [s for s in seeds if s[0] == want] or seeds
    data = pool[rng.randrange(len(pool))][1]
    if rng.random() < 0.05:  # sometimes another format's file fed to this reader
        data = seeds[rng.randrange(len(seeds))][1]
    return want, mutate(data, rng, seeds)


# ------------------------------------------------------------------------------------------
# The child: runs inputs [start, stop) in-process, publishing the index being tried.


def _predict_all(est, n_f: int) -> None:
    """Predicting on a loaded model must not crash either (skipped for very wide models)."""
    import numpy as np

    if n_f <= 4096:
        X = np.linspace(-1.0, 1.0, 3 * n_f).reshape(3, n_f)
        est.predict(X)
        if hasattr(est, "decision_function"):
            est.decision_function(X)


def run_foreign(kind: str, data: bytes, path: str) -> str:
    """The foreign model and scale readers: ValueError naming the problem is their refusal."""
    import numpy as np
    import scipy.sparse as sp
    from svmkit import _foreign_models as fm
    from svmkit import _scale

    try:
        if kind == "liblinear":
            m = fm.read_liblinear_model(path)
            _predict_all(fm.estimator_from_liblinear(m), int(m.nr_feature))
        elif kind == "libsvm_model":
            m = fm.read_libsvm_model(path)
            est = fm.estimator_from_libsvm(m)
            _predict_all(est, int(est.n_features_in_))
        else:  # as `svmkit scale -r` reads it (a UnicodeDecodeError there is its CliError)
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                return "refused"
            params = _scale.read_params(text.splitlines(), path)
            d = max(3, int(params.feature_min.shape[0]))
            if d <= 4096:
                X = sp.csr_matrix(np.linspace(-2.0, 2.0, 3 * d).reshape(3, d))
                scaled, y = _scale.apply_params(X, np.array([-1.0, 0.0, 2.0]), params)
                _scale.format_problem(scaled, y, io.StringIO())
        return "loaded"
    except (UnicodeError, OverflowError) as exc:  # ValueError subclasses, but not the reader's
        return "unexpected:" + type(exc).__name__ + ":" + str(exc)[:100]
    except ValueError:
        return "refused"
    except Exception as exc:  # any other exception type is a finding
        return "unexpected:" + type(exc).__name__ + ":" + str(exc)[:100]


def run_one(kind: str, data: bytes, path: str) -> str:
    import numpy as np
    import svmkit
    from svmkit._core import FormatError
    from svmkit.datasets import load_svmlight_file

    with open(path, "wb") as f:
        f.write(data)
    if kind not in ("model", "svmlight"):
        return run_foreign(kind, data, path)
    try:
        if kind == "model":
            est = svmkit.load_model(path)
            n_f = int(est.n_features_in_)
            if n_f <= 4096:  # predicting on a loaded model must not crash either
                X = np.linspace(-1.0, 1.0, 3 * n_f).reshape(3, n_f)
                est.predict(X)
                if hasattr(est, "decision_function"):
                    est.decision_function(X)
        else:
            load_svmlight_file(path)
            load_svmlight_file(io.BytesIO(data), zero_based=True)
        return "loaded"
    except FormatError:
        return "refused"
    except (UnicodeError, OverflowError) as exc:  # ValueError subclasses, but not the loader's
        return "unexpected:" + type(exc).__name__ + ":" + str(exc)[:100]
    except (ValueError, OSError):
        return "refused_other"
    except Exception as exc:  # any other exception type is a finding
        return "unexpected:" + type(exc).__name__ + ":" + str(exc)[:100]


def child_main(args: argparse.Namespace) -> None:
    seeds = [(k, bytes.fromhex(h)) for k, h in json.loads(Path(args.seeds_file).read_text())]
    import svmkit  # noqa: F401  (loaded, and rebuilt if needed, before the watchdog starts)

    targets = tuple(args.targets.split(","))
    warnings.simplefilter("ignore")  # overflow in a mutated model's predictions is not a finding

    # Warm-up, not timed: the first input of each target would otherwise also time the lazy
    # imports behind it (seconds on a loaded machine), reported as a false hang.
    for kind in targets:
        pool = [s for s in seeds if s[0] == kind] or seeds
        run_one(kind, pool[0][1], args.scratch)
    fd = os.open(args.progress, os.O_RDWR)
    mem = mmap.mmap(fd, 8)
    counts: dict[str, int] = {}
    unexpected: dict[str, int] = {}
    for i in range(args.start, args.stop):
        mem[:8] = struct.pack("<q", i)
        kind, data = make_input(args.seed, i, seeds, targets)
        out = run_one(kind, data, args.scratch)
        if out.startswith("unexpected:"):
            unexpected.setdefault(out, i)
            out = "unexpected"
        counts[f"{kind}:{out}"] = counts.get(f"{kind}:{out}", 0) + 1
    mem[:8] = struct.pack("<q", args.stop)
    print(json.dumps({"counts": counts, "unexpected": unexpected}), flush=True)


# ------------------------------------------------------------------------------------------
# The parent: seeds, child processes, watchdog.


def run_chunk(
    args: argparse.Namespace, seeds_file: str, work: Path, start: int, stop: int, report: dict
) -> None:
    progress = work / "progress"
    while start < stop:
        progress.write_bytes(struct.pack("<q", -1))  # -1: the child is still starting up
        # -S passes on (tools/sanitize_tests.sh runs without site to load its own module).
        cmd = [sys.executable, *(["-S"] if sys.flags.no_site else []), __file__, "--child"]
        cmd += ["--seed", str(args.seed), "--targets", args.targets]
        cmd += ["--start", str(start), "--stop", str(stop), "--seeds-file", seeds_file]
        cmd += ["--progress", str(progress), "--scratch", str(work / "input.bin")]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        last, since = start - 1, time.monotonic()
        hung = None
        while proc.poll() is None:
            time.sleep(0.05)
            cur = struct.unpack("<q", progress.read_bytes()[:8])[0]
            if cur < 0 or cur >= stop:  # imports, and the exit after the last input, untimed
                since = time.monotonic()
            elif cur != last:
                last, since = cur, time.monotonic()
            elif time.monotonic() - since > args.time_limit:
                hung = cur
                proc.kill()
                break
        out, err = proc.communicate()
        cur = struct.unpack("<q", progress.read_bytes()[:8])[0]
        if cur < 0:
            raise RuntimeError(
                f"the fuzz child failed to start: {err[-2000:].decode(errors='replace')}"
            )
        if hung is not None:
            report["hangs"].append(hung)
            start = hung + 1
        elif proc.returncode != 0:
            report["crashes"].append(
                {"input": cur, "rc": proc.returncode, "stderr": err[-400:].decode(errors="replace")}
            )
            start = cur + 1
        else:
            res = json.loads(out.decode().strip().splitlines()[-1])
            for k, v in res["counts"].items():
                report["counts"][k] = report["counts"].get(k, 0) + v
            for k, v in res["unexpected"].items():
                report["unexpected"].setdefault(k, v)
            start = stop


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--inputs", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--targets", default=",".join(TARGETS), help="comma-separated readers to fuzz")
    ap.add_argument("--first", type=int, default=0, help="index of the first input")
    ap.add_argument("--chunk", type=int, default=20000, help="inputs per child process")
    ap.add_argument("--time-limit", type=float, default=10.0, help="seconds per input")
    ap.add_argument(
        "--shared", default=str(Path(__file__).resolve().parents[1].parent / "shared" / "datasets")
    )
    ap.add_argument("--json", help="write the report here")
    ap.add_argument(
        "--no-checksum", action="store_true", help="strip the checksum line from model seeds"
    )
    ap.add_argument("--replay", type=int, help="write input REPLAY to --out and exit")
    ap.add_argument("--out")
    # child-only arguments
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    for name in ("--start", "--stop"):
        ap.add_argument(name, type=int, help=argparse.SUPPRESS)
    for name in ("--seeds-file", "--progress", "--scratch"):
        ap.add_argument(name, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child_main(args)
        return {}
    unknown = sorted(set(args.targets.split(",")) - set(TARGETS))
    if unknown:
        ap.error(f"unknown targets {unknown}; choose from {','.join(TARGETS)}")
    t0 = time.time()
    with tempfile.TemporaryDirectory(
        prefix="svmkit_fuzz_", dir="/dev/shm" if os.path.isdir("/dev/shm") else None
    ) as tmp:
        work = Path(tmp)
        seeds = build_seeds(work, Path(args.shared))
        if args.replay is not None:
            kind, data = make_input(args.seed, args.replay, seeds, tuple(args.targets.split(",")))
            Path(args.out).write_bytes(data)
            print(kind, len(data), "bytes written to", args.out)
            return {}
        if args.no_checksum:  # measure what the structural checks alone refuse
            seeds = [
                (k, b"".join(ln for ln in d.splitlines(True) if not ln.startswith(b"checksum ")))
                for k, d in seeds
            ]
        seeds_file = str(work / "seeds.json")
        Path(seeds_file).write_text(json.dumps([(k, d.hex()) for k, d in seeds]))
        report: dict = {
            "seed": args.seed,
            "targets": args.targets,
            "first": args.first,
            "inputs": args.inputs,
            "n_seeds": len(seeds),
            "counts": {},
            "unexpected": {},
            "crashes": [],
            "hangs": [],
        }
        stop_all = args.first + args.inputs
        for s in range(args.first, stop_all, args.chunk):
            run_chunk(args, seeds_file, work, s, min(stop_all, s + args.chunk), report)
            report["done"] = min(stop_all, s + args.chunk) - args.first
            report["seconds"] = round(time.time() - t0, 1)
            if args.json:  # after every chunk, so that a run stopped early still reports
                Path(args.json).write_text(json.dumps(report, indent=1))
    report["seconds"] = round(time.time() - t0, 1)
    text = json.dumps(report, indent=1)
    if args.json:
        Path(args.json).write_text(text)
    print(text)
    return report


if __name__ == "__main__":
    main()
