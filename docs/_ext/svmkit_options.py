"""A Sphinx directive that renders a solver's option records as a table.

`.. svmkit-options:: tron` reads svmkit.option_table("tron"), the records declared once in
the solver's C++ header (type, default, valid range, one-line doc), so the documentation can
never disagree with the code.
"""

from __future__ import annotations

import svmkit
from docutils import nodes
from docutils.parsers.rst import Directive
from docutils.statemachine import StringList


def _bound(bound: tuple | None, lower: bool) -> str:
    if bound is None:
        return ""
    value, inclusive = bound
    if lower:
        return f"{'>=' if inclusive else '>'} {value:g}"
    return f"{'<=' if inclusive else '<'} {value:g}"


def option_rows(solver: str) -> list[str]:
    """The rows of a list-table for one solver's options."""
    rows = [
        ".. list-table::",
        "   :header-rows: 1",
        "   :widths: 18 10 12 16 44",
        "",
        "   * - option",
        "     - type",
        "     - default",
        "     - valid range",
        "     - meaning",
    ]
    for rec in svmkit.option_table(solver):
        rng = ", ".join(p for p in (_bound(rec["low"], True), _bound(rec["high"], False)) if p)
        doc = rec["doc"].replace("*", r"\*").replace("|", r"\|")
        rows += [
            f"   * - ``{rec['name']}``",
            f"     - {rec['type']}",
            f"     - ``{rec['default']}``",
            f"     - {rng or 'any'}",
            f"     - {doc}",
        ]
    return rows


class SvmkitOptions(Directive):
    required_arguments = 1

    def run(self) -> list[nodes.Node]:
        solver = self.arguments[0]
        node = nodes.section()
        node.document = self.state.document
        self.state.nested_parse(
            StringList(option_rows(solver), source=f"<options {solver}>"), 0, node
        )
        return node.children


def setup(app) -> dict:
    app.add_directive("svmkit-options", SvmkitOptions)
    return {"parallel_read_safe": True, "version": "1"}
