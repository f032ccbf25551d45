"""Lists the C++ functions longer than a limit (default 120 lines) in the given files.

usage: python tools/check_function_length.py [--limit N] FILE...

A function is a brace block at namespace or class scope whose head (the text since the last
';', '{' or '}') has a parameter list and is no class, struct, namespace, enum or union;
lambdas and blocks inside a function count toward that function. Comments, string and
character literals are blanked first. Exit status 1 when a function exceeds the limit.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

_SCOPE = re.compile(r"\b(class|struct|namespace|enum|union)\b")
_TEMPLATE = re.compile(r"template\s*<[^{};]*?>\s*(?=[A-Za-z_])")


def _code_lines(text: str) -> list[str]:
    """The lines with comments and literals blanked (line count kept)."""
    out, in_block = [], False
    for line in text.splitlines():
        s = re.sub(r'"(\\.|[^"\\])*"', '""', line)
        s = re.sub(r"'(\\.|[^'\\])*'", "''", s)
        if in_block:
            if "*/" not in s:
                out.append("")
                continue
            s, in_block = s.split("*/", 1)[1], False
        s = re.sub(r"/\*.*?\*/", "", s)
        if "/*" in s:
            s, in_block = s.split("/*", 1)[0], True
        out.append(s.split("//", 1)[0])
    return out


def long_functions(path: Path, limit: int) -> list[tuple[int, int, str]]:
    """(first line, length, head) of each function of path longer than limit lines."""
    found, stack, head = [], [], ""
    for number, line in enumerate(_code_lines(path.read_text()), start=1):
        for ch in line:
            if ch == "{":
                h = _TEMPLATE.sub("", head.strip())
                in_function = any(is_fn for _, is_fn, _ in stack)
                is_fn = not in_function and ")" in h and not _SCOPE.search(h)
                stack.append((number, is_fn, " ".join(h.split())))
                head = ""
            elif ch == "}":
                if stack:
                    first, is_fn, h = stack.pop()
                    if is_fn and number - first + 1 > limit:
                        found.append((first, number - first + 1, h))
                head = ""
            elif ch == ";":
                head = ""
            else:
                head += ch
        head += "\n"
    return found


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=120)
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args(argv)
    status = 0
    for path in args.files:
        for first, length, h in long_functions(path, args.limit):
            print(f"{path}:{first}: {length} lines: {h[-90:]}")
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
