"""Helpers shared by features: finding the occurrence under the cursor, printing types."""

from __future__ import annotations

from ptoc.frontend import ModuleAnalysis, Occurrence
from ptoc.ir.dtype import is_dtype_variable
from ptoc.ir.types import Type


def type_text(t: Type | None, prefix: str = "pl") -> str:
    """A type as the user would write it (`pl.Tile[[32, 32], pl.FP32]`); a @pl.jit kernel's
    parameter's element type is printed as its variable (`dtype(a)`, `promote(dtype(a),
    dtype(b))`)."""
    if t is None:
        return "?"
    try:
        from ptoc.printer import print_type

        return print_type(t, prefix=prefix)
    except Exception:
        return t.short()


def dtype_variables(analysis: ModuleAnalysis, occ: Occurrence) -> dict[str, str]:
    """The bare tensors of the @pl.jit function holding ``occ`` and their dtype variables,
    when no call gives it shapes (``ModuleAnalysis.jit_dtype_variables``), else none."""
    for name, meanings in analysis.jit_dtype_variables.items():
        span = analysis.jit_functions.get(name)
        if span is not None and span.covers(occ.span):
            return meanings
    return {}


def has_dtype_variable(t: Type | None) -> bool:
    """Whether ``t``'s element type is a parameter's variable (its size in bytes is not
    known)."""
    return is_dtype_variable(getattr(t, "dtype", None))


def occurrence_at(analysis: ModuleAnalysis | None, line: int, column: int) -> Occurrence | None:
    """The occurrence at a position; a cursor just after a name still counts (as editors expect)."""
    if analysis is None:
        return None
    found = analysis.index.at(line, column)
    if found is None and column > 0:
        found = analysis.index.at(line, column - 1)
    return found
