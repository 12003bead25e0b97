"""Loops: ``for`` over ``pl.range``/``pl.parallel`` (optionally carrying values), ``for`` over
``pl.while_`` with its ``pl.cond``, and Python's natural ``while``."""

from __future__ import annotations

import ast

from ...ir.dtype import DataType
from ...ir.expr import ConstInt, Expr, IterArg, Var, const_int
from ...ir.span import Span
from ...ir.stmt import (
    ForKind,
    ForStmt,
    ScopeKind,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ...ir.types import UNKNOWN, ScalarType, UnknownType, types_compatible
from ...language import ALL_LOOP_HELPERS
from ..analysis import Occurrence, OccurrenceKind
from ..context import Binding, YieldFrame, YieldTarget
from .branches import condition, lower_branch
from .core import Lowerer

LoopTargets = tuple[ast.Name, list[ast.Name]]  # the loop variable, the carried names


def lower_for(lw: Lowerer, node: ast.For) -> list[Stmt]:
    if node.orelse:
        lw.error("E001", "for ... else is not supported", node.orelse[0])
    iterator = node.iter
    kind = loop_kind(lw, iterator)
    if kind is None:
        lw.error("E005", "For loop must use pl.range(), pl.parallel(), or pl.while_()", iterator)
        return lower_unknown_loop(lw, node)
    assert isinstance(iterator, ast.Call)
    if kind == "while_":
        return lower_while_loop(lw, node, iterator)
    return lower_range_loop(lw, node, iterator, kind)


def lower_unknown_loop(lw: Lowerer, node: ast.For) -> list[Stmt]:
    """A loop over something the DSL does not know: said once (E005); its body is still
    analysed, with the target's names defined but of unknown type."""
    saved = save_names(lw, [n.id for n in ast.walk(node.target) if isinstance(n, ast.Name)])
    for name in ast.walk(node.target):
        if isinstance(name, ast.Name):
            var = Var(UNKNOWN, name=name.id, span=lw.span(name))
            lw.define(name.id, var, lw.span(name), OccurrenceKind.LOOP_VAR, check_ssa=False)
    body = lw.lower_block(node.body)
    restore_names(lw, saved, "", [])
    return [body]


def loop_kind(lw: Lowerer, iterator: ast.expr) -> str | None:
    """Which loop helper the iterator calls (``range``, ``parallel``, ``while_``), if any."""
    if not isinstance(iterator, ast.Call):
        return None
    func = iterator.func
    name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
    if name not in ALL_LOOP_HELPERS:
        return None
    lw.occurrence(Occurrence(lw.span(func), name, OccurrenceKind.HELPER, None))
    return name


def lower_range_loop(lw: Lowerer, node: ast.For, iterator: ast.Call, kind: str) -> list[Stmt]:
    head = lw.statement_head(node)
    bounds = loop_bounds(lw, iterator, kind, head)
    if bounds is None:
        return []
    start, stop, step, init_node = bounds
    targets = loop_targets(lw, node.target, init_node)
    if targets is None:
        return []
    loop_name, carried = targets
    inits = (
        [lw.lower_expr(e) for e in init_node.elts]
        if isinstance(init_node, ast.Tuple | ast.List)
        else []
    )
    saved = save_names(lw, [loop_name.id] + [c.id for c in carried])
    index = ScalarType(loop_var_dtype(lw, iterator, kind))
    loop_var = Var(index, name=loop_name.id, span=lw.span(loop_name))
    lw.define(loop_name.id, loop_var, lw.span(loop_name), OccurrenceKind.LOOP_VAR, check_ssa=False)
    iter_args = bind_iter_args(lw, carried, inits)
    # A loop that may not run (bounds not constant) makes no value of an outer loop certain.
    values = loop_values(start, stop, step)
    ranges = lw.state.loop_ranges
    lw.state.loop_ranges = {**ranges, loop_var: values} if values is not None else {}
    lw.state.loops.append(kind)
    try:
        body, return_vars = lower_loop_body(lw, "for", node.body, iter_args, head, saved)
    finally:
        lw.state.loop_ranges = ranges
        lw.state.loops.pop()
    for_kind = _FOR_KINDS.get(kind, ForKind.Sequential)
    if kind == "spmd":  # each block runs the body as a kernel of its own (spec §6)
        body = ScopeStmt(body, ScopeKind.InCore, span=body.span)
    return [
        ForStmt(
            loop_var,
            start,
            stop,
            step,
            body,
            tuple(iter_args),
            tuple(return_vars),
            for_kind,
            loop_stage(iterator),
            span=lw.span(node),
        )
    ]


_FOR_KINDS = {
    "parallel": ForKind.Parallel,
    "unroll": ForKind.Unroll,
    "pipeline": ForKind.Pipeline,
    "spmd": ForKind.Parallel,
    "split_aiv": ForKind.Parallel,
}
# The keywords each loop takes besides ``init_values`` (spec §5, §6); the positionals after
# the first are a range's (start, stop, step) except for spmd / split_aiv, which take a count.
_LOOP_KEYWORDS: dict[str, tuple[str, ...]] = {
    "range": ("attrs",),
    "parallel": ("attrs",),
    "unroll": ("attrs",),
    "pipeline": ("attrs", "stage"),
    "spmd": (
        "core_num",
        "sync_start",
        "name_hint",
        "optimizations",
        "deps",
        "allow_early_resolve",
        "predicate",
    ),
    "split_aiv": ("mode",),
}
_REQUIRED_KEYWORDS = {"pipeline": "stage", "split_aiv": "mode"}
_COUNTED = ("spmd", "split_aiv")


def loop_var_dtype(lw: Lowerer, iterator: ast.Call, kind: str) -> DataType:
    """The edition's index dtype (``EditionRules.index_dtype``: INDEX in 2026-08, INT64 in
    2026-03); INT64 in 2026-08 too when every bound is an explicit ``pl.const(v, pl.INT64)``
    (spec §5)."""
    index = lw.env.rules.index_dtype
    bounds = iterator.args[:3]
    if index is DataType.INT64 or kind in _COUNTED or not bounds:
        return index
    return DataType.INT64 if all(_explicit_int64(lw, b) for b in bounds) else index


def _explicit_int64(lw: Lowerer, node: ast.expr) -> bool:
    if not isinstance(node, ast.Call) or lw.path(node.func) != ("const",):
        return False
    path = lw.path(node.args[1]) if len(node.args) == 2 else None
    return path is not None and path[-1] == "INT64"


def loop_stage(iterator: ast.Call) -> int:
    stage = next((k.value for k in iterator.keywords if k.arg == "stage"), None)
    return stage.value if isinstance(stage, ast.Constant) and type(stage.value) is int else 0


def check_loop_keywords(lw: Lowerer, iterator: ast.Call, kind: str) -> None:
    """Keywords a loop helper does not take: ignored with a warning in 2026-03, an error in
    2026-08 (as upstream there); a required one missing is an error."""
    allowed = _LOOP_KEYWORDS.get(kind, ())
    given = {k.arg for k in iterator.keywords}
    required = _REQUIRED_KEYWORDS.get(kind)
    if required is not None and required not in given:
        lw.error("E004", f"pl.{kind}(...) needs {required}=", iterator)
    for keyword in iterator.keywords:
        if keyword.arg == "init_values":
            if kind in ("unroll", *_COUNTED):
                lw.error("E004", f"pl.{kind}(...) takes no init_values", keyword.value)
        elif keyword.arg not in allowed:
            code = "E004" if lw.env.rules.loop_keywords_checked else "W004"
            what = "does not take" if code == "E004" else "ignores"
            lw.error(code, f"pl.{kind} {what} the keyword '{keyword.arg}'", keyword.value)
        elif keyword.arg == "stage":
            stage = keyword.value
            if not (
                isinstance(stage, ast.Constant) and type(stage.value) is int and stage.value > 0
            ):
                lw.error("E004", "stage= must be a positive integer constant", stage)


def loop_bounds(
    lw: Lowerer, iterator: ast.Call, kind: str, head: Span
) -> tuple[Expr, Expr, Expr, ast.expr | None] | None:
    """start, stop, step and the init_values node of ``pl.range(...)`` (None: reported)."""
    positional = list(iterator.args)
    if not positional:
        lw.error("E004", f"pl.{kind}() needs at least a stop value", iterator)
        return None
    if len(positional) > 3:
        lw.error(
            "W004",
            f"pl.{kind} takes (start, stop, step); extra arguments are ignored",
            positional[3],
        )
        positional = positional[:3]
    init_node: ast.expr | None = None
    check_loop_keywords(lw, iterator, kind)
    for keyword in iterator.keywords:
        if keyword.arg == "init_values":
            init_node = keyword.value
    if kind in _COUNTED:
        positional = positional[:1]  # a count of blocks / lanes: the loop runs 0 .. count - 1
    bounds = [lw.lower_expr(a) for a in positional]
    if kind == "unroll":
        for value, value_node in zip(bounds, positional, strict=True):
            if not isinstance(value, ConstInt | UnknownType) and not isinstance(
                value.type, UnknownType
            ):
                lw.error("E004", "pl.unroll needs constant bounds", value_node)
    for value, value_node in zip(bounds, positional, strict=True):
        if not isinstance(value.type, UnknownType) and not (
            isinstance(value.type, ScalarType) and value.type.dtype.is_int
        ):
            lw.error(
                "E004", f"loop bounds must be integer scalars, got {value.type.short()}", value_node
            )
    literal = lw.env.rules.int_literal_dtype  # the bounds left out are the literals 0 and 1
    if len(bounds) == 1:
        start = const_int(0, literal, span=head)
        return start, bounds[0], const_int(1, literal, span=head), init_node
    if len(bounds) == 2:
        return bounds[0], bounds[1], const_int(1, literal, span=head), init_node
    return bounds[0], bounds[1], bounds[2], init_node


def loop_targets(lw: Lowerer, target: ast.expr, init_node: ast.expr | None) -> LoopTargets | None:
    """The loop variable and the carried names (None: the target's form is reported)."""
    if init_node is None:
        if not isinstance(target, ast.Name):
            lw.error(
                "E003",
                "For loop target must be a simple name or: (loop_var, (iter_args...))",
                target,
            )
            return None
        return target, []
    if not (
        isinstance(target, ast.Tuple)
        and len(target.elts) == 2
        and isinstance(target.elts[0], ast.Name)
        and isinstance(target.elts[1], ast.Tuple | ast.List)
    ):
        if isinstance(target, ast.Name):
            message = (
                "For loop target must be a tuple when init_values is provided: for i, (a,) in ..."
            )
        else:
            message = "For loop target must be a simple name or: (loop_var, (iter_args...))"
        lw.error("E003", message, target)
        return None
    loop_name, inner = target.elts
    assert isinstance(loop_name, ast.Name) and isinstance(inner, ast.Tuple | ast.List)
    carried: list[ast.Name] = []
    for element in inner.elts:
        if not isinstance(element, ast.Name):
            lw.error("E003", "Loop-carried names must be plain names", element)
            return None
        carried.append(element)
    if not isinstance(init_node, ast.Tuple | ast.List):
        lw.error("E004", "init_values must be a list or tuple", init_node)
        return None
    if len(init_node.elts) != len(carried):
        lw.error(
            "E007",
            f"Mismatch: {len(carried)} iter_args but {len(init_node.elts)} init_values",
            inner,
        )
        return None
    return loop_name, carried


def bind_iter_args(lw: Lowerer, names: list[ast.Name], inits: list[Expr]) -> list[IterArg]:
    """The loop-carried values, in scope for the loop body."""
    iter_args: list[IterArg] = []
    for name_node, init in zip(names, inits, strict=True):
        arg = IterArg(init.type, name=name_node.id, span=lw.span(name_node), init_value=init)
        iter_args.append(arg)
        lw.define(name_node.id, arg, lw.span(name_node), OccurrenceKind.ITER_ARG, check_ssa=False)
    return iter_args


def lower_loop_body(
    lw: Lowerer,
    kind: str,
    nodes: list[ast.stmt],
    iter_args: list[IterArg],
    head: Span,
    saved: dict[str, Binding | None],
) -> tuple[Stmt, list[Var]]:
    """Lower a loop body against its carried values; then the loop's own names leave scope
    and the names its pl.yield_ assigns become the loop's results."""
    frame = YieldFrame(kind, expected=[a.type for a in iter_args] if iter_args else None)
    lw.state.frames.append(frame)
    ranges = lw.state.loop_ranges
    if kind != "for":  # a while body may not run at all
        lw.state.loop_ranges = {}
    try:
        body = lw.lower_block(nodes)
        if iter_args and not frame.found and lw.env.rules.reassigned_carries:
            body = implicit_yield(lw, frame, body, iter_args, head)
    finally:
        lw.state.frames.pop()
        lw.state.loop_ranges = ranges
    return_vars = loop_results(lw, frame, iter_args, head)
    restore_names(lw, saved, "it is only defined inside the loop", return_vars)
    for var in return_vars:
        lw.define(var.name, var, var.span, OccurrenceKind.VARIABLE)
    return body, return_vars


def implicit_yield(
    lw: Lowerer, frame: YieldFrame, body: Stmt, iter_args: list[IterArg], head: Span
) -> Stmt:
    """2026-08: a body that reassigns its carried names instead of yielding yields their
    values at its end; the loop's results get internal names (``a_out``), as upstream's, so
    the carried names are not visible after the loop."""
    values: list[Expr] = []
    for arg in iter_args:
        binding = lw.state.scope.get(arg.name)
        value: Expr = binding.var if binding is not None else arg
        if not isinstance(value.type, UnknownType) and not types_compatible(arg.type, value.type):
            lw.error(
                "E108",
                f"'{arg.name}' is reassigned to {value.type.short()} but the loop carries "
                f"{arg.type.short()}",
                binding.span if binding is not None else head,
            )
        values.append(value)
    frame.found, frame.values, frame.span = True, values, head
    frame.targets = [YieldTarget(f"{a.name}_out", head, None) for a in iter_args]
    return SeqStmts((body, YieldStmt(tuple(values), span=head)), span=body.span)


def loop_results(lw: Lowerer, frame: YieldFrame, iter_args: list[IterArg], head: Span) -> list[Var]:
    if not iter_args:
        if frame.found and frame.targets:
            lw.error(
                "E009",
                "this loop carries no values (no init_values), so its pl.yield_ has no results",
                frame.span or head,
            )
        return []
    if not frame.found:
        lw.error(
            "E010",
            "a loop with init_values must end with pl.yield_(...) giving the next values",
            head,
        )
        return []
    if frame.targets is None:
        # a bare pl.yield_(...): results keep the iter-arg names (seed 003 style)
        return [Var(a.type, name=a.name, span=frame.span or a.span) for a in iter_args]
    if len(frame.targets) != len(iter_args):
        # already reported: the names still exist, of unknown type
        return [Var(UNKNOWN, name=t.name, span=t.span) for t in frame.targets]
    return [
        Var(a.type, name=t.name, span=t.span) for a, t in zip(iter_args, frame.targets, strict=True)
    ]


def save_names(lw: Lowerer, names: list[str]) -> dict[str, Binding | None]:
    return {name: lw.state.scope.get(name) for name in names}


def restore_names(
    lw: Lowerer, saved: dict[str, Binding | None], hint: str, results: list[Var]
) -> None:
    result_names = {v.name for v in results}
    for name, binding in saved.items():
        current = lw.state.scope.get(name)
        if binding is not None:
            lw.state.scope[name] = binding
        else:
            lw.state.scope.pop(name, None)
            if current is not None and name not in result_names:
                alt = ""
                if results:
                    alt = f"; after the loop use {', '.join(repr(v.name) for v in results)}"
                lw.state.out_of_scope[name] = (current.span, hint + alt)


def lower_while_loop(lw: Lowerer, node: ast.For, iterator: ast.Call) -> list[Stmt]:
    head = lw.statement_head(node)
    if iterator.args:
        lw.error(
            "E004",
            "pl.while_ takes no positional arguments: pl.while_(init_values=(...))",
            iterator.args[0],
        )
    init_node = next((k.value for k in iterator.keywords if k.arg == "init_values"), None)
    if not isinstance(init_node, ast.Tuple | ast.List) or not init_node.elts:
        lw.error("E004", "pl.while_ requires non-empty init_values=(...)", iterator)
        return []
    names = while_targets(lw, node.target, init_node)
    if names is None:
        return []
    inits = [lw.lower_expr(e) for e in init_node.elts]
    body_nodes = list(node.body)
    cond_call = while_condition(lw, node, body_nodes)
    if cond_call is None:
        return []
    saved = save_names(lw, [n.id for n in names])
    iter_args = bind_iter_args(lw, names, inits)
    cond = condition(lw, cond_call.args[0])
    lw.state.loops.append("while_")
    try:
        body, return_vars = lower_loop_body(lw, "while", body_nodes[1:], iter_args, head, saved)
    finally:
        lw.state.loops.pop()
    return [WhileStmt(cond, body, tuple(iter_args), tuple(return_vars), span=lw.span(node))]


def while_targets(
    lw: Lowerer, target: ast.expr, init_node: ast.Tuple | ast.List
) -> list[ast.Name] | None:
    if not isinstance(target, ast.Tuple | ast.List) or not all(
        isinstance(e, ast.Name) for e in target.elts
    ):
        lw.error(
            "E003",
            "pl.while_ loop target must be a tuple of names: for (a, b) in pl.while_(...)",
            target,
        )
        return None
    names: list[ast.Name] = list(target.elts)  # type: ignore[arg-type]
    if len(names) != len(init_node.elts):
        lw.error(
            "E007",
            f"Mismatch: {len(names)} iter_args but {len(init_node.elts)} init_values",
            target,
        )
        return None
    return names


def while_condition(lw: Lowerer, node: ast.For, body_nodes: list[ast.stmt]) -> ast.Call | None:
    """The ``pl.cond(...)`` call that must open a ``pl.while_`` body (None: reported)."""
    first = body_nodes[0] if body_nodes else None
    cond_call = (
        first.value if isinstance(first, ast.Expr) and isinstance(first.value, ast.Call) else None
    )
    if cond_call is None or lw.path(cond_call.func) != ("cond",):
        lw.error(
            "E004",
            "the first statement of a pl.while_ loop must be pl.cond(condition)",
            first or node,
        )
        return None
    if len(cond_call.args) != 1 or cond_call.keywords:
        lw.error("E004", "pl.cond takes exactly one argument", cond_call)
        return None
    return cond_call


def lower_while(lw: Lowerer, node: ast.While) -> list[Stmt]:
    if node.orelse:
        lw.error("E001", "while ... else is not supported", node.orelse[0])
    cond = condition(lw, node.test)
    lw.state.loops.append("while")
    try:
        body, frame = lower_branch(lw, node.body, "while")
    finally:
        lw.state.loops.pop()
    if frame.found:
        lw.error(
            "E009",
            "a natural while loop carries no values; use pl.while_(init_values=...) to yield",
            frame.span or lw.span(node),
        )
    return [WhileStmt(cond, body or SeqStmts(stmts=()), span=lw.span(node))]


def loop_values(start: Expr, stop: Expr, step: Expr) -> tuple[int, int] | None:
    """(first, last) value of a loop variable with constant bounds that runs at least once."""
    if not all(isinstance(e, ConstInt) for e in (start, stop, step)):
        return None
    first, end, by = start.value, stop.value, step.value  # type: ignore[attr-defined]
    if by == 0 or (by > 0 and first >= end) or (by < 0 and first <= end):
        return None
    last = first + (abs(end - first) - 1) // abs(by) * by
    return (first, last) if by > 0 else (last, first)
