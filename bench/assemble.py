"""Join bench/results/*.md into bench/RESULTS.md (sections in a fixed, then alphabetical order)."""

from __future__ import annotations

from harness import BENCH, RESULTS

ORDER = [
    "regimes",
    "regimes_penalties",
    "regimes_reruns",
    "tron_hand_over",
    "tron_assembled",
    "linear",
    "reader",
    "smsvm",
    "smsvm_table3",
    "smo",
    "smo_tables",
    "nu",
    "nssvm",
    "first_order",
    "homotopy",
    "adagrad_dual",
]


def main() -> None:
    # *_quick.md are smoke runs (--quick), kept beside the full sections but not assembled.
    files = {p.stem: p for p in RESULTS.glob("*.md") if not p.stem.endswith("_quick")}
    names = [n for n in ORDER if n in files] + sorted(n for n in files if n not in ORDER)
    parts = [
        "# svmkit benchmark results\n",
        "Each section was produced by the command it names, running svmkit and its anchors side "
        "by side in one process on the same data. Ratios are svmkit / anchor (below 1 means "
        "svmkit is faster). Regenerate a section by rerunning its command, then "
        "`python bench/assemble.py`.\n",
    ]
    parts += [files[n].read_text() for n in names]
    (BENCH / "RESULTS.md").write_text("\n".join(parts))
    print(f"wrote {BENCH / 'RESULTS.md'} with {len(names)} sections")


if __name__ == "__main__":
    main()
