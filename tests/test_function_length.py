"""No function in cpp/src is longer than about 120 lines (tools/check_function_length.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _checker():
    spec = importlib.util.spec_from_file_location(
        "check_function_length", ROOT / "tools" / "check_function_length.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_function_in_cpp_src_exceeds_120_lines():
    check = _checker()
    files = sorted((ROOT / "cpp" / "src").glob("*.[ch]pp"))
    assert files
    long = [(f.name, *hit) for f in files for hit in check.long_functions(f, 120)]
    assert long == []


def test_checker_measures_a_function_and_ignores_scopes(tmp_path):
    check = _checker()
    body = "\n".join(f"  x += {i};  // {{ not a brace" for i in range(130))
    src = (
        "namespace a {\nstruct S {\n  int f(int x) {\n" + body + "\n    return x;\n  }\n};\n"
        'int g() { const char* s = "}"; return 0; }\n}  // namespace a\n'
    )
    path = tmp_path / "x.cpp"
    path.write_text(src)
    assert check.long_functions(path, 120) == [(3, 133, "int f(int x)")]
    assert check.long_functions(path, 200) == []
    assert check.main(["--limit", "120", str(path)]) == 1
