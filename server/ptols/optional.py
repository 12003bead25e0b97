"""Dependencies ptols runs without. The VS Code extension's bundle carries only pure-Python
packages, so tree-sitter (compiled, one wheel per Python version and platform) comes from the
interpreter's own environment when it has it; without it there are no document symbols and
everything else works."""

from __future__ import annotations

import importlib.util
from functools import cache

TREE_SITTER_MODULES = ("tree_sitter", "tree_sitter_python")
NO_TREE_SITTER = (
    "tree-sitter is not installed for this Python: no document symbols (outline, breadcrumbs); "
    "`python -m pip install tree-sitter tree-sitter-python` turns them on"
)


@cache
def has_tree_sitter() -> bool:
    """Whether tree-sitter and its Python grammar can be imported (looked up, not loaded)."""
    return all(importlib.util.find_spec(name) is not None for name in TREE_SITTER_MODULES)
