"""Sphinx configuration of svmkit's documentation site.

Build it with `pip install ".[docs]"` then `sphinx-build -W -b html docs docs/_build/html`.
Warnings are errors; the gallery in examples/gallery runs at build time.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))

import svmkit  # noqa: E402  (the installed package is documented, not the source tree)

project = "svmkit"
author = "the svmkit developers"
copyright = "2026, the svmkit developers"
release = svmkit.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.mathjax",
    "sphinx_gallery.gen_gallery",
    "svmkit_options",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "auto_examples/*.ipynb", "auto_examples/*.py", "auto_examples/*.zip"]
myst_enable_extensions = ["dollarmath"]
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "none"
nitpicky = False

html_theme = "furo"
html_title = f"svmkit {release}"

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples" / "gallery"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "abort_on_example_error": True,
    "plot_gallery": os.environ.get("SVMKIT_DOCS_GALLERY", "True"),
}
suppress_warnings = ["config.cache"]


def _docstring_as_text(app, what, name, obj, options, lines) -> None:
    """svmkit's docstrings are plain text (formulas with |x| and *, attribute names ending in
    an underscore), written to be read with help(); show them verbatim as literal blocks."""
    if not any(line.strip() for line in lines):
        return
    body = ["   " + line if line.strip() else "" for line in lines]
    lines[:] = ["::", "", *body, ""]


def setup(app) -> None:
    app.connect("autodoc-process-docstring", _docstring_as_text)
