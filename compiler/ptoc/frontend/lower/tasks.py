"""2026-08's task-graph calls (spec §7): ``pl.submit(self.k, args..., deps=[...])`` and
``pl.spmd_submit(..., core_num=N)`` become a ``Submit`` typed ``tuple[<result>, TaskId]``;
``out, tid = pl.submit(...)`` unpacks it (``(x, y), tid`` for a kernel of two results);
``pl.no_dep(t)`` marks a kernel argument. The rules upstream's parser enforces are checked
here, each with its own code: the callee (E220), the unpacking (E221), ``deps=`` entries
(E222), the predicate's shape (E223) and its producer among the deps (E224), spmd_submit's
``core_num`` (E225), the keywords (E227)."""

from __future__ import annotations

import ast

from ...diagnostics import Related
from ...ir.dtype import DataType
from ...ir.expr import AttrValue, Expr, GlobalVar, Submit, TupleGetItem, Var
from ...ir.span import Span
from ...ir.stmt import AssignStmt, Stmt
from ...ir.types import TASK_ID_TYPE, UNKNOWN, ArrayType, ScalarType, TupleType, Type, UnknownType
from ..analysis import Occurrence, OccurrenceKind
from ..context import FunctionSignature
from .core import Lowerer, error_value

_KEYWORDS = ("deps", "dumps", "allow_early_resolve", "predicate")
_SPMD_KEYWORDS = (*_KEYWORDS, "core_num", "sync_start", "name_hint")
_CONSTANT_KEYWORDS = ("allow_early_resolve", "sync_start", "name_hint")


def lower_submit(lw: Lowerer, node: ast.Call, helper: str) -> Expr:
    span = lw.span(node)
    kernel = kernel_reference(lw, node, helper)
    for keyword in node.keywords:
        accepted = _SPMD_KEYWORDS if helper == "spmd_submit" else _KEYWORDS
        if keyword.arg not in accepted:
            lw.error(
                "E227",
                f"pl.{helper}() got an unexpected keyword argument '{keyword.arg}' "
                f"(keywords: {', '.join(accepted)})",
                keyword,
            )
    keywords = {k.arg: k.value for k in node.keywords if k.arg is not None}
    if helper == "spmd_submit" and "core_num" not in keywords:
        lw.error("E225", "pl.spmd_submit needs the keyword core_num=N (the number of blocks)", node)
    sig = lw.signatures.get(kernel[0]) if kernel is not None else None
    if kernel is not None and sig is None:
        lw.unknown_name(
            "E203",
            f"Function '{kernel[0]}' is not defined in this program",
            kernel[1],
            kernel[0],
            list(lw.signatures),
        )
    args = kernel_arguments(lw, node.args[1:], node, sig)
    if kernel is None or sig is None:
        return error_value(span)
    deps = lower_deps(lw, keywords.get("deps"))
    predicate = lower_predicate(lw, keywords.get("predicate"), deps)
    core_num = lw.lower_expr(keywords["core_num"]) if "core_num" in keywords else None
    return Submit(
        submit_type(sig),
        kernel=GlobalVar(sig.name),
        args=tuple(args),
        deps=tuple(deps),
        predicate=predicate,
        core_num=core_num,
        kwargs=constant_keywords(lw, keywords),
        span=span,
    )


def kernel_reference(lw: Lowerer, node: ast.Call, helper: str) -> tuple[str, Span] | None:
    """The name ``k`` of ``self.k`` and its span, or None after E220."""
    first = node.args[0] if node.args else None
    if (
        isinstance(first, ast.Attribute)
        and isinstance(first.value, ast.Name)
        and first.value.id == "self"
    ):
        span = lw.env.source.attr_name_span(first)
        sig = lw.signatures.get(first.attr)
        if sig is not None:
            lw.occurrence(
                Occurrence(
                    span,
                    first.attr,
                    OccurrenceKind.FUNCTION,
                    sig.result_type,
                    definition=sig.name_span,
                    detail=sig.describe(),
                )
            )
        return first.attr, span
    lw.error(
        "E220",
        f"pl.{helper}(...) first argument must be a self.<kernel> method reference",
        first if first is not None else node,
    )
    return None


def kernel_arguments(
    lw: Lowerer, nodes: list[ast.expr], call: ast.Call, sig: FunctionSignature | None
) -> list[Expr]:
    """A kernel call's arguments (``pl.no_dep(t)`` unwrapped), checked against the kernel."""
    from .calls import check_argument  # (calls imports helpers, which imports us)

    args = [lw.lower_expr(unwrap_no_dep(lw, a)) for a in nodes]
    if sig is None:
        return args
    if len(args) != len(sig.params):
        lw.error(
            "E206",
            f"'{sig.name}' expects {len(sig.params)} argument(s), got {len(args)}",
            call,
            related=(Related(sig.name_span, f"'{sig.name}' is defined here"),),
        )
    for value, arg_node, param in zip(args, nodes, sig.params, strict=False):
        if param.type is not None:
            check_argument(lw, value.type, unwrap_no_dep(lw, arg_node), param, sig)
    return args


def unwrap_no_dep(lw: Lowerer, node: ast.expr) -> ast.expr:
    """``pl.no_dep(t)`` -> ``t`` (the marker only changes the runtime's edges)."""
    if isinstance(node, ast.Call) and lw.path(node.func) == ("no_dep",):
        if len(node.args) == 1 and not node.keywords:
            return node.args[0]
    return node


def submit_type(sig: FunctionSignature) -> TupleType:
    if sig.return_types == []:
        return TupleType((TASK_ID_TYPE,))
    return TupleType((sig.result_type or UNKNOWN, TASK_ID_TYPE))


def lower_deps(lw: Lowerer, node: ast.expr | None) -> list[Expr]:
    """``deps=[t1, None, arr]``: TaskIds and TaskId arrays (None entries add nothing)."""
    if node is None:
        return []
    if not isinstance(node, ast.List | ast.Tuple):
        lw.error("E222", "deps= takes a list: deps=[tid, ...]", node)
        lw.lower_expr(node)
        return []
    deps: list[Expr] = []
    for element in node.elts:
        if isinstance(element, ast.Constant) and element.value is None:
            continue
        if isinstance(element, ast.ListComp):
            continue  # unrolled upstream over a constant range: its entries are not names here
        value = lw.lower_expr(element)
        if is_task_dependency(value):
            deps.append(value)
            continue
        lw.error(
            "E222",
            "deps= entries must be a TaskId variable, None or a pl.Array of pl.TASK_ID, got "
            f"{value.type.short()}",
            element,
        )
    return deps


def is_task_dependency(value: Expr) -> bool:
    t = value.type
    if isinstance(value, TupleGetItem):
        return False  # a TaskId reached by indexing a flat submit result: bind it by name
    if isinstance(t, UnknownType):
        return True
    if isinstance(t, ScalarType):
        return t.dtype is DataType.TASK_ID
    return isinstance(t, ArrayType) and t.dtype is DataType.TASK_ID


def lower_predicate(lw: Lowerer, node: ast.expr | None, deps: list[Expr]) -> Expr | None:
    """``predicate=(t[i] CMP k)``: matched as written; t's producer must be in deps."""
    if node is None:
        return None
    tensor = predicate_tensor(node)
    if tensor is None:
        lw.error(
            "E223",
            "predicate= must be exactly `tensor[indices] OP int-literal` "
            "(one comparison: ==, !=, <, <=, >, >=)",
            node,
        )
        return None
    producer = lw.state.producers.get(tensor.id)
    named = {d.name for d in deps if isinstance(d, Var)}
    arrays = any(isinstance(d.type, ArrayType | UnknownType) for d in deps)
    if producer is not None and producer not in named and not arrays:
        lw.error(
            "E224",
            f"the predicate reads '{tensor.id}', produced by the task '{producer}', which is not "
            f"in deps=: add deps=[{producer}] so the read sees its value",
            node,
        )
    return lw.lower_expr(node)


def predicate_tensor(node: ast.expr) -> ast.Name | None:
    if not isinstance(node, ast.Compare) or len(node.ops) != 1:
        return None
    left, right = node.left, node.comparators[0]
    if isinstance(right, ast.UnaryOp) and isinstance(right.op, ast.USub):
        right = right.operand
    literal = isinstance(right, ast.Constant) and type(right.value) is int
    if not literal or not isinstance(left, ast.Subscript) or not isinstance(left.value, ast.Name):
        return None
    return left.value


def constant_keywords(
    lw: Lowerer, keywords: dict[str, ast.expr]
) -> tuple[tuple[str, AttrValue], ...]:
    out: list[tuple[str, AttrValue]] = []
    for key in _CONSTANT_KEYWORDS:
        node = keywords.get(key)
        if isinstance(node, ast.Constant) and isinstance(node.value, bool | str):
            out.append((key, node.value))
    dumps = keywords.get("dumps")
    if isinstance(dumps, ast.List | ast.Tuple):
        names = tuple(e.id for e in dumps.elts if isinstance(e, ast.Name))
        for element in dumps.elts:
            lw.lower_expr(element)
        out.append(("dumps", names))
    return tuple(out)


# --- out, tid = pl.submit(...) ----------------------------------------------------------------


def is_submit_call(lw: Lowerer, node: ast.expr) -> bool:
    return isinstance(node, ast.Call) and lw.path(node.func) in (("submit",), ("spmd_submit",))


def lower_submit_unpack(
    lw: Lowerer, node: ast.stmt, target: ast.Tuple | ast.List, value: ast.expr
) -> list[Stmt]:
    expr = lw.lower_expr(value)
    span = lw.span(node)
    if not isinstance(expr, Submit) or not isinstance(expr.type, TupleType):
        define_unknown(lw, target)
        return []
    results = expr.type.types[:-1]
    result_types = _flat(results[0]) if results else []
    shape_problem = unpack_problem(target, len(result_types))
    if shape_problem is not None:
        lw.error("E221", shape_problem, target)
        define_unknown(lw, target)
        return []
    tmp = Var(expr.type, name=lw.fresh_name("_task"), span=span)
    stmts: list[Stmt] = [AssignStmt(tmp, expr, span=span)]
    tid_node = target.elts[-1]
    assert isinstance(tid_node, ast.Name)
    tid_span = lw.span(tid_node)
    where = f"`pl.{'spmd_submit' if expr.spmd else 'submit'}(self.{expr.kernel.name}, …)`"
    lw.state.task_origins[tid_span] = f"the TaskId of {where} at line {span.line}"
    produced = (result_targets(target.elts[0]) or []) if results else []
    for index, name in enumerate(produced):
        item: Expr = TupleGetItem(results[0], tuple_value=tmp, index=0, span=lw.span(name))
        if len(produced) > 1:
            item = TupleGetItem(result_types[index], tuple_value=item, index=index, span=item.span)
        stmts.append(bind(lw, name, item))
        lw.state.producers[name.id] = tid_node.id
    tid = TupleGetItem(TASK_ID_TYPE, tuple_value=tmp, index=len(results), span=tid_span)
    stmts.append(bind(lw, tid_node, tid))
    return stmts


def _flat(result: Type) -> list[Type]:
    return list(result.types) if isinstance(result, TupleType) else [result]


def unpack_problem(target: ast.Tuple | ast.List, count: int) -> str | None:
    elements = target.elts
    names = [result_targets(e) for e in elements[:-1]]
    if (
        len(elements) != 2
        or not isinstance(elements[-1], ast.Name)
        or any(n is None for n in names)
    ):
        return (
            "pl.submit unpacks into two targets: `out, tid = ...` (or `(x, y), tid = ...` for "
            "a kernel of two results)"
        )
    unpacked = len(names[0] or [])
    if unpacked != count and not (count > 1 and isinstance(elements[0], ast.Name)):
        return f"unpacks {unpacked} result value(s) but the kernel returns {count}"
    return None


def result_targets(node: ast.expr) -> list[ast.Name] | None:
    if isinstance(node, ast.Name):
        return [node]
    if isinstance(node, ast.Tuple | ast.List) and all(isinstance(e, ast.Name) for e in node.elts):
        return [e for e in node.elts if isinstance(e, ast.Name)]
    return None


def bind(lw: Lowerer, name: ast.Name, value: Expr) -> Stmt:
    var = Var(value.type, name=name.id, span=lw.span(name))
    lw.define(name.id, var, lw.span(name), OccurrenceKind.VARIABLE)
    return AssignStmt(var, value, span=lw.span(name))


def define_unknown(lw: Lowerer, target: ast.expr) -> None:
    for element in ast.walk(target):
        if isinstance(element, ast.Name):
            var = Var(UNKNOWN, name=element.id, span=lw.span(element))
            lw.define(element.id, var, lw.span(element), OccurrenceKind.VARIABLE)
