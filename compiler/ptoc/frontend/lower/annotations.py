"""Annotations of local variables and yields. The original never reads them: one that is not
a type is W008, one that disagrees with the value W006, and the deduced type stands."""

from __future__ import annotations

import ast

from ...diagnostics import DiagnosticBag, Fix, Severity, TextEdit
from ...ir.expr import Expr
from ...ir.types import ShapedType, TileType, Type, UnknownType, types_compatible
from ...records import replace
from .core import Lowerer


def print_type_text(t: Type, prefix: str) -> str | None:
    """The annotation text of a type, via the printer when available."""
    try:
        from ...printer import print_type

        return print_type(t, prefix=prefix)
    except Exception:  # the printer must never break analysis
        return None


def refine(deduced: Type, declared: Type | None) -> Type:
    """The variable's type: the deduced one, taking buffer/view details from the annotation
    (printed IR after the memory passes carries them), or the annotation when nothing was
    deduced."""
    if declared is None:
        return deduced
    if isinstance(deduced, UnknownType):
        return declared
    if (
        isinstance(deduced, TileType)
        and isinstance(declared, TileType)
        and types_compatible(declared, deduced)
    ):
        if declared.memref is None and declared.tile_view is None:
            return deduced  # (most annotations: nothing to take)
        return replace(
            deduced,
            memref=declared.memref or deduced.memref,
            tile_view=declared.tile_view if declared.tile_view is not None else deduced.tile_view,
        )
    if (
        isinstance(deduced, ShapedType)
        and isinstance(declared, ShapedType)
        and declared.memref is not None
        and types_compatible(declared, deduced)
    ):
        return replace(deduced, memref=declared.memref or deduced.memref)
    return deduced


def local_annotation(lw: Lowerer, annotation: ast.expr, deduced: Type) -> Type | None:
    """A local annotation's type. The original never reads local annotations, so one that is
    not a well-formed type is a warning (W008) and the deduced type stands."""
    scratch = DiagnosticBag()  # its errors become one W008; its notes pass through
    types = lw.env.type_resolver(scratch)
    declared = types.resolve(annotation, lw.lookup_scalar, allow_tuple=True)
    problems = [d for d in scratch.items if d.severity is Severity.ERROR]
    for diagnostic in scratch.items:
        if diagnostic.severity is not Severity.ERROR:
            lw.bag.add(diagnostic)  # e.g. the W003 note on a legacy call form
    if not problems:
        return declared
    form = lw.types.right_form(annotation)
    message = f"malformed annotation: {problems[0].message}"
    if form is not None:
        message += f"; the form is `{form}`"
    if not isinstance(deduced, UnknownType):
        message += f"; the deduced type {deduced.short()} is used"
    lw.error("W008", message, annotation, fixes=annotation_fixes(lw, annotation, deduced))
    return None


def annotation_fixes(lw: Lowerer, annotation: ast.expr, deduced: Type) -> tuple[Fix, ...]:
    text = print_type_text(deduced, lw.prefix) if not isinstance(deduced, UnknownType) else None
    if text is None:
        return ()
    return (
        Fix(
            f"Change the annotation to `{text}`",
            (TextEdit(lw.span(annotation), text),),
            preferred=True,
        ),
    )


def check_annotation(lw: Lowerer, annotation: ast.expr, declared: Type, expr: Expr) -> None:
    """The original ignores local annotations and uses the deduced type; one that disagrees
    is a mistake in the text, not in the program (W006)."""
    if types_compatible(declared, expr.type):
        return
    lw.error(
        "W006",
        f"annotation says {declared.short()} but the value is {expr.type.short()}; "
        "the deduced type is used",
        annotation,
        fixes=annotation_fixes(lw, annotation, expr.type),
    )
