"""Simple statements: assignments (plain, annotated, unpacking), expression statements,
``pass``, and the statements the DSL does not have."""

from __future__ import annotations

import ast

from ...diagnostics import Fix, TextEdit
from ...ir.expr import MakeTuple, TupleGetItem, Var
from ...ir.stmt import AssignStmt, EvalStmt, Stmt
from ...ir.types import UNKNOWN, TupleType, Type, UnknownType
from ..analysis import Occurrence, OccurrenceKind
from .annotations import check_annotation, local_annotation, refine
from .calls import check_call_has_value
from .core import Lowerer
from .subscripts import lower_subscript_store
from .tasks import is_submit_call, lower_submit_unpack
from .yields import lower_yield, yield_call

_AUGMENTED: dict[type[ast.operator], str] = {
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
}


def lower_assign_stmt(lw: Lowerer, node: ast.Assign) -> list[Stmt]:
    return lower_assign(lw, node, node.targets, node.value, None)


def lower_annotated_assign(lw: Lowerer, node: ast.AnnAssign) -> list[Stmt]:
    if node.value is None:
        lw.error(
            "E001", "A declaration without a value is not supported (x: T needs `= value`)", node
        )
        return []
    return lower_assign(lw, node, [node.target], node.value, node.annotation)


def lower_assign(
    lw: Lowerer,
    node: ast.stmt,
    targets: list[ast.expr],
    value: ast.expr,
    annotation: ast.expr | None,
) -> list[Stmt]:
    if len(targets) != 1:
        lw.error("E002", "Chained assignment (a = b = ...) is not supported", node)
        return []
    target = targets[0]
    call = yield_call(lw, value)
    if call is not None:
        return lower_yield(lw, node, call, target, annotation)
    if isinstance(target, ast.Tuple | ast.List):
        if annotation is not None:
            lw.error("E002", "A tuple assignment cannot be annotated", annotation)
        if is_submit_call(lw, value):
            return lower_submit_unpack(lw, node, target, value)
        return lower_unpack(lw, node, target, value)
    if isinstance(target, ast.Subscript) and annotation is None:
        return lower_window_store(lw, node, target, value)
    if not isinstance(target, ast.Name):
        lw.error(
            "E002", "Only simple variable assignments are supported (x = ... or a, b = ...)", target
        )
        lw.lower_expr(value)
        return []
    expr = lw.lower_expr(value)
    check_call_has_value(lw, expr, target, value)
    declared: Type | None = None
    if annotation is not None:
        declared = local_annotation(lw, annotation, expr.type)
        if declared is not None:
            lw.occurrence(Occurrence(lw.span(annotation), target.id, OccurrenceKind.TYPE, declared))
            check_annotation(lw, annotation, declared, expr)
    var = Var(refine(expr.type, declared), name=target.id, span=lw.span(target))
    lw.define(target.id, var, lw.span(target), OccurrenceKind.VARIABLE)
    if isinstance(expr, MakeTuple):
        lw.state.lists[var] = expr
    return [AssignStmt(var, expr, span=lw.span(node))]


def lower_window_store(
    lw: Lowerer, node: ast.stmt, target: ast.Subscript, value: ast.expr
) -> list[Stmt]:
    """2026-08's ``dst[...] = src``: ``dst = assemble(dst, src, offsets)`` (not under
    strict_ssa, where it would reassign ``dst``)."""
    source = lw.lower_expr(value)
    if lw.signature.strict_ssa:
        lw.error("E201", "`dst[...] = src` reassigns dst: not allowed with strict_ssa", target)
        return []
    lowered = lower_subscript_store(lw, target, source)
    if lowered is None:
        return []
    name, expr = lowered
    var = Var(expr.type, name=name, span=lw.span(target.value))
    lw.define(name, var, lw.span(target.value), OccurrenceKind.VARIABLE, check_ssa=False)
    return [AssignStmt(var, expr, span=lw.span(node))]


def lower_unpack(
    lw: Lowerer, node: ast.stmt, target: ast.Tuple | ast.List, value: ast.expr
) -> list[Stmt]:
    names: list[ast.Name] = []
    for element in target.elts:
        if not isinstance(element, ast.Name):
            lw.error("E006", "Tuple unpacking targets must be plain names", element)
            return []
        names.append(element)
    expr = lw.lower_expr(value)
    check_call_has_value(lw, expr, target, value)
    span = lw.span(node)
    if isinstance(expr.type, UnknownType):
        for name in names:
            var = Var(UNKNOWN, name=name.id, span=lw.span(name))
            lw.define(name.id, var, lw.span(name), OccurrenceKind.VARIABLE)
        return []
    if not isinstance(expr.type, TupleType):
        lw.error("E006", f"Cannot unpack a value of type {expr.type.short()} (not a tuple)", value)
        return []
    if len(expr.type.types) != len(names):
        lw.error(
            "E006", f"Cannot unpack {len(expr.type.types)} values into {len(names)} names", target
        )
        return []
    tmp = Var(expr.type, name=lw.fresh_name("_tuple_tmp"), span=span)
    stmts: list[Stmt] = [AssignStmt(tmp, expr, span=span)]
    for index, (name, element_type) in enumerate(zip(names, expr.type.types, strict=True)):
        item = TupleGetItem(element_type, tuple_value=tmp, index=index, span=lw.span(name))
        var = Var(element_type, name=name.id, span=lw.span(name))
        lw.define(name.id, var, lw.span(name), OccurrenceKind.VARIABLE)
        stmts.append(AssignStmt(var, item, span=span))
    return stmts


def lower_expr_stmt(lw: Lowerer, node: ast.Expr) -> list[Stmt]:
    call = yield_call(lw, node.value)
    if call is not None:
        return lower_yield(lw, node, call, None, None)
    if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
        return []  # a string statement (comment-like) has no effect
    if isinstance(node.value, ast.Call) and lw.path(node.value.func) == ("cond",):
        lw.error(
            "E014", "pl.cond(...) is only allowed as the first statement of a pl.while_ loop", node
        )
        return []
    if lw.signature.jit and is_bind_dynamic(node.value):
        return []  # ``a.bind_dynamic(axis, M)`` names an axis; the specializer drops it (§3.3)
    expr = lw.lower_expr(node.value)
    if isinstance(node.value, ast.Call) and lw.path(node.value.func) in _COMPILE_TIME:
        return []  # pl.static_assert(...) and the like: checked, nothing left to run
    return [EvalStmt(expr, span=lw.span(node))]


def is_bind_dynamic(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "bind_dynamic"
    )


_COMPILE_TIME = {(name,) for name in ("static_assert", "static_print", "func_attr", "dump_tag")}


def lower_pass(lw: Lowerer, node: ast.Pass) -> list[Stmt]:
    return []  # accepted (the original rejects it); prints back where a body is empty


def unsupported_augassign(lw: Lowerer, node: ast.AugAssign) -> list[Stmt]:
    symbol = _AUGMENTED.get(type(node.op))
    fixes: tuple[Fix, ...] = ()
    if symbol and isinstance(node.target, ast.Name):
        value = lw.env.source.segment(node.value)
        if isinstance(node.value, ast.BinOp | ast.BoolOp | ast.Compare):
            value = f"({value})"
        new = f"{node.target.id} = {node.target.id} {symbol} {value}"
        fixes = (Fix(f"Rewrite as `{new}`", (TextEdit(lw.span(node), new),), preferred=True),)
    lw.error(
        "E001",
        "Unsupported statement type: AugAssign (x op= y); write x = x op y",
        node,
        fixes=fixes,
    )
    return []


def unsupported_statement(lw: Lowerer, node: ast.stmt) -> list[Stmt]:
    kind = type(node).__name__
    lw.error("E001", f"Unsupported statement type: {kind}", lw.statement_head(node))
    return []
