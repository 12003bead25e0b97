"""Helpers shared by features: finding the occurrence under the cursor, printing types."""

from __future__ import annotations

import re

from ptoc.frontend import ModuleAnalysis, Occurrence
from ptoc.ir.types import Type


def type_text(t: Type | None, prefix: str = "pl", dtypes: dict[str, str] | None = None) -> str:
    """A type as the user would write it (`pl.Tile[[32, 32], pl.FP32]`); ``dtypes``: what a
    @pl.jit kernel's stand-in element types mean (``dtype_variables``): `dtype(a)`."""
    if t is None:
        return "?"
    try:
        from ptoc.printer import print_type

        text = print_type(t, prefix=prefix)
    except Exception:
        text = t.short()
    for stand_in, meaning in (dtypes or {}).items():
        text = re.sub(rf"(?<![\w.])(?:{re.escape(prefix)}\.)?{stand_in}\b", meaning, text)
    return text


def dtype_variables(analysis: ModuleAnalysis, occ: Occurrence) -> dict[str, str]:
    """The stand-in element types of the @pl.jit function holding ``occ``, when no call gives
    it shapes (``ModuleAnalysis.jit_dtype_variables``), else none."""
    for name, meanings in analysis.jit_dtype_variables.items():
        span = analysis.jit_functions.get(name)
        if span is not None and span.covers(occ.span):
            return meanings
    return {}


def has_dtype_variable(t: Type | None, dtypes: dict[str, str]) -> bool:
    """Whether ``t``'s element type is a stand-in (its size in bytes is not known)."""
    dtype = getattr(t, "dtype", None)
    return dtype is not None and getattr(dtype, "name", None) in dtypes


def occurrence_at(analysis: ModuleAnalysis | None, line: int, column: int) -> Occurrence | None:
    """The occurrence at a position; a cursor just after a name still counts (as editors expect)."""
    if analysis is None:
        return None
    found = analysis.index.at(line, column)
    if found is None and column > 0:
        found = analysis.index.at(line, column - 1)
    return found
