"""``if``/``else``: conditions, branches and the values both branches yield."""

from __future__ import annotations

import ast

from ...diagnostics import Related
from ...ir.expr import Expr, Var
from ...ir.span import Span
from ...ir.stmt import IfStmt, SeqStmts, Stmt, YieldStmt
from ...ir.types import UNKNOWN, ScalarType, UnknownType, types_compatible
from ..analysis import OccurrenceKind
from ..context import YieldFrame, YieldTarget
from .core import Lowerer, error_value


def condition(lw: Lowerer, node: ast.expr) -> Expr:
    cond = lw.lower_expr(node)
    if not isinstance(cond.type, ScalarType | UnknownType):
        lw.error("E110", f"a condition must be a scalar, got {cond.type.short()}", node)
        return error_value(lw.span(node))
    return cond


def lower_branch(lw: Lowerer, nodes: list[ast.stmt], kind: str) -> tuple[Stmt | None, YieldFrame]:
    frame = YieldFrame(kind)
    lw.state.frames.append(frame)
    # A branch may run in some iterations only: no loop's every value is certain in it.
    ranges, lw.state.loop_ranges = lw.state.loop_ranges, {}
    try:
        body = lw.lower_block(nodes) if nodes else None
    finally:
        lw.state.frames.pop()
        lw.state.loop_ranges = ranges
    return body, frame


def lower_if(lw: Lowerer, node: ast.If) -> list[Stmt]:
    span = lw.span(node)
    cond = condition(lw, node.test)
    then_body, then_frame = lower_branch(lw, node.body, "if")
    else_body, else_frame = (
        lower_branch(lw, node.orelse, "if") if node.orelse else (None, YieldFrame("if"))
    )
    # `elif` whose inner if yields the same names: the outer else yields the inner results.
    if (
        then_frame.found
        and not else_frame.found
        and len(node.orelse) == 1
        and isinstance(node.orelse[0], ast.If)
        and isinstance(else_body, IfStmt)
        and then_frame.targets is not None
        and [v.name for v in else_body.return_vars] == [t.name for t in then_frame.targets]
    ):
        else_body = yield_inner_results(else_body, else_frame, then_frame.targets)
    return_vars: list[Var] = []
    if then_frame.found or else_frame.found:
        return_vars = if_results(lw, node, then_frame, else_frame, bool(node.orelse))
    if then_body is None:
        then_body = SeqStmts(stmts=(), span=span)
    stmt = IfStmt(cond, then_body, else_body, tuple(return_vars), span=span)
    for var in return_vars:
        lw.define(var.name, var, var.span, OccurrenceKind.VARIABLE)
    return [stmt]


def yield_inner_results(inner: IfStmt, frame: YieldFrame, targets: list[YieldTarget]) -> Stmt:
    """The else branch of an `elif` chain, made to yield the inner if's results."""
    frame.found = True
    frame.values = list(inner.return_vars)
    frame.targets = targets
    frame.value_spans = [v.span for v in inner.return_vars]
    return SeqStmts(
        stmts=(inner, YieldStmt(values=tuple(inner.return_vars), span=inner.span)),
        span=inner.span,
    )


def if_results(
    lw: Lowerer, node: ast.If, then_frame: YieldFrame, else_frame: YieldFrame, has_else: bool
) -> list[Var]:
    first = then_frame if then_frame.found else else_frame
    other = else_frame if then_frame.found else then_frame
    if first.broken or other.broken:  # reported already: define the names, say no more
        named = first if first.targets is not None else other
        return [Var(UNKNOWN, name=t.name, span=t.span) for t in named.targets or ()]
    unknown = [Var(UNKNOWN, name=t.name, span=t.span) for t in first.targets or ()]
    if has_else and not other.found:
        which = "else" if then_frame.found else "then"
        lw.error(
            "E010",
            f"the {which} branch must also end with pl.yield_ (the other branch yields)",
            else_head(lw, node) if which == "else" else lw.statement_head(node),
        )
        return unknown
    names = [t.name for t in first.targets] if first.targets is not None else None
    if names is None:
        lw.error(
            "E010",
            "pl.yield_ in an if branch must be assigned to result names (r = pl.yield_(v))",
            first.span or lw.span(node),
        )
        return []
    if not has_else:
        lw.error(
            "W023",
            f"this if yields {', '.join(names)} but has no else: when the condition "
            "is false the result is never set (add an else branch that yields)",
            lw.statement_head(node),
        )
    if other.found and not branches_agree(lw, node, first, other, names):
        return []
    return result_vars(lw, node, first, other)


def branches_agree(
    lw: Lowerer, node: ast.If, first: YieldFrame, other: YieldFrame, names: list[str]
) -> bool:
    """Both branches yield as many values (False: reported); different names are reported."""
    if len(other.values) != len(first.values):
        lw.error(
            "E009",
            f"the branches yield {len(first.values)} and {len(other.values)} values",
            other.span or lw.span(node),
            related=(Related(first.span, "the other branch yields here"),) if first.span else (),
        )
        return False
    other_names = [t.name for t in other.targets] if other.targets is not None else names
    if other_names != names:
        lw.error(
            "E009",
            "the branches yield to different names: "
            f"{', '.join(names)} vs {', '.join(other_names)}",
            other.span or lw.span(node),
        )
    return True


def result_vars(lw: Lowerer, node: ast.If, first: YieldFrame, other: YieldFrame) -> list[Var]:
    """The if's results, typed by the first yielding branch (or its annotation)."""
    result: list[Var] = []
    assert first.targets is not None
    for index, target in enumerate(first.targets):
        value_type = first.values[index].type if index < len(first.values) else UNKNOWN
        result_type = target.annotation or value_type
        if other.found and index < len(other.values):
            other_type = other.values[index].type
            if not types_compatible(result_type, other_type):
                lw.error(
                    "E108",
                    f"the branches yield different types for '{target.name}': "
                    f"{result_type.short()} and {other_type.short()}",
                    other.value_spans[index] if index < len(other.value_spans) else lw.span(node),
                    related=(Related(first.value_spans[index], "the other branch yields this"),)
                    if index < len(first.value_spans)
                    else (),
                )
        result.append(Var(result_type, name=target.name, span=target.span))
    return result


def else_head(lw: Lowerer, node: ast.If) -> Span:
    """The `else:` of an if (the line before its first statement that says so)."""
    source = lw.env.source
    first = node.orelse[0]
    for line in range(first.lineno - 1, node.lineno, -1):
        text = source.line(line)
        stripped = text.lstrip()
        if stripped.startswith("else"):
            column = len(text) - len(stripped)
            return Span(lw.span(node).file, line, column, line, column + len("else"))
    return lw.statement_head(first)
