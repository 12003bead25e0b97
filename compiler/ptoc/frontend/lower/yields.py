"""``pl.yield_``: the values a loop body or if branch hands on, and the names they get."""

from __future__ import annotations

import ast

from ...ir.expr import Expr
from ...ir.stmt import Stmt, YieldStmt
from ...ir.types import UNKNOWN, ScalarType, Type, types_compatible
from ..analysis import Occurrence, OccurrenceKind
from ..context import YieldFrame, YieldTarget
from ..preprocess import SEED_YIELD_PLACEHOLDER
from .annotations import check_annotation, local_annotation
from .core import Lowerer

_YIELD_NAMES = ("yield_", SEED_YIELD_PLACEHOLDER)


def yield_call(lw: Lowerer, value: ast.expr) -> ast.Call | None:
    if isinstance(value, ast.Call):
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr not in _YIELD_NAMES:
            return None  # (every other op call: a DSL path ends with the attribute)
        path = lw.path(func)
        if path is not None and path[-1] in _YIELD_NAMES and len(path) == 1:
            return value
    return None


def lower_yield(
    lw: Lowerer,
    node: ast.stmt,
    call: ast.Call,
    target: ast.expr | None,
    annotation: ast.expr | None,
) -> list[Stmt]:
    span = lw.span(node)
    lw.occurrence(Occurrence(lw.span(call.func), "yield_", OccurrenceKind.HELPER, None))
    if call.keywords:
        lw.error("E302", "pl.yield_ takes positional arguments only", call.keywords[0])
    values = [lw.lower_expr(a) for a in call.args]
    frame = lw.state.frames[-1] if lw.state.frames else None
    targets: list[YieldTarget] | None = None
    broken = False
    if target is not None:
        targets, broken = yield_targets(lw, call, target, annotation, values, frame)
    if frame is None:
        if not broken:
            lw.error("W005", "pl.yield_ outside a loop or if has no effect", call)
        return [YieldStmt(values=tuple(values), span=span)] if not broken else []
    if frame.found:
        lw.error("E014", "A body can yield only once", call)
        return []
    frame.found = True
    frame.values = values
    frame.targets = targets
    frame.span = span
    frame.value_spans = [lw.span(a) for a in call.args]
    frame.broken = broken
    if broken:
        return []
    if frame.expected is not None:
        check_yield_values(lw, frame, call)
    return [YieldStmt(values=tuple(values), span=span)]


def yield_targets(
    lw: Lowerer,
    call: ast.Call,
    target: ast.expr,
    annotation: ast.expr | None,
    values: list[Expr],
    frame: YieldFrame | None,
) -> tuple[list[YieldTarget] | None, bool]:
    """The names a yield's values are assigned to, and whether the assignment is broken
    (reported here: its names are still defined, and nothing that follows is reported)."""
    if isinstance(target, ast.Name):
        declared = None
        if annotation is not None:
            first = values[0].type if values else UNKNOWN
            declared = local_annotation(lw, annotation, first)
            if declared is not None and len(values) == 1 and not types_compatible(declared, first):
                check_annotation(lw, annotation, declared, values[0])
                declared = None  # the deduced type stands
        targets = [YieldTarget(target.id, lw.span(target), declared)]
        if len(values) <= 1:
            return targets, False
        if frame is not None and frame.expected is not None:
            yield_count_error(lw, frame, values, call)
        else:
            lw.error(
                "E006", "Multiple yielded values must be unpacked: a, b = pl.yield_(x, y)", target
            )
        return targets, True
    if isinstance(target, ast.Tuple | ast.List) and all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        names: list[ast.Name] = target.elts  # type: ignore[assignment]  # all names (above)
        targets = [YieldTarget(e.id, lw.span(e), None) for e in names]
        if len(targets) == len(values):
            return targets, False
        lw.error(
            "E006",
            f"pl.yield_ gives {len(values)} value(s) but {len(targets)} name(s) are assigned",
            target,
        )
        return targets, True
    lw.error("E002", "pl.yield_ results must be assigned to names", target)
    return None, True


def yield_count_error(lw: Lowerer, frame: YieldFrame, values: list[Expr], call: ast.Call) -> None:
    assert frame.expected is not None
    lw.error(
        "E009",
        f"the loop carries {len(frame.expected)} value(s) but pl.yield_ gives {len(values)}",
        call,
    )


def widened_integer(carried: Type, yielded: Type) -> bool:
    """An integer scalar carried and a wider integer scalar yielded (INT32 and INT64): the
    original accepts it and keeps the carried type."""
    return (
        isinstance(carried, ScalarType)
        and isinstance(yielded, ScalarType)
        and carried.dtype.is_int
        and yielded.dtype.is_int
        and yielded.dtype.bits > carried.dtype.bits
    )


def check_yield_values(lw: Lowerer, frame: YieldFrame, call: ast.Call) -> None:
    assert frame.expected is not None
    if len(frame.values) != len(frame.expected):
        yield_count_error(lw, frame, frame.values, call)
        frame.broken = True
        return
    for value, expected, arg in zip(frame.values, frame.expected, call.args, strict=True):
        if widened_integer(expected, value.type):
            lw.error(
                "W027",
                f"yielded value is {value.type.short()} but the loop-carried value is "
                f"{expected.short()}: the loop carries it as {expected.short()}",
                arg,
            )
        elif not types_compatible(expected, value.type):
            lw.error(
                "E108",
                f"yielded value is {value.type.short()} "
                f"but the loop-carried value is {expected.short()}",
                arg,
            )
