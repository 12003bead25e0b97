"""Calls: ``self.f(...)`` and other program functions, standalone functions, inline helpers,
Python's ``min``/``max``/``abs``, and (through ``ops``) the DSL's operators."""

from __future__ import annotations

import ast

from ...diagnostics import Fix, Related, TextEdit
from ...ir.expr import BinaryOp, Call, Expr, GlobalVar, Unary, UnaryOp
from ...ir.function import FunctionType
from ...ir.shape import static_value
from ...ir.span import Span
from ...ir.types import UNKNOWN, ScalarType, ShapedType, Type, types_compatible
from ...ops import resolve_op
from ..analysis import Occurrence, OccurrenceKind
from ..checks_distributed import is_host_orchestrator
from ..context import FunctionSignature, ParamInfo
from .core import Lowerer, error_value
from .inline import expand_inline
from .operators import scalar_binary, scalar_operand
from .ops import legacy_spelling, lower_dsl_call
from .tasks import unwrap_no_dep


def lower_call(lw: Lowerer, node: ast.Call) -> Expr:
    func = node.func
    # self.f(...) inside a program
    if (
        isinstance(func, ast.Attribute)
        and isinstance(func.value, ast.Name)
        and func.value.id == "self"
    ):
        return lower_function_call(
            lw, node, func.attr, lw.env.source.attr_name_span(func), method=True
        )
    path = lw.path(func)
    if path is not None:
        return lower_dsl_call(lw, node, path)
    if isinstance(func, ast.Name):
        lowered = lower_named_call(lw, node, func)
        if lowered is not None:
            return lowered
    lw.error(
        "E301",
        f"Unsupported function call `{lw.env.source.segment(func)}(...)`: only pl.* ops, "
        "self.<function>(...), @pl.inline functions and program functions can be called",
        func,
    )
    for arg in node.args:
        lw.lower_expr(arg)
    return error_value(lw.span(node))


def lower_named_call(lw: Lowerer, node: ast.Call, func: ast.Name) -> Expr | None:
    """A call of a bare name; None when the name calls nothing the DSL knows."""
    name = func.id
    if name not in lw.state.scope:
        name = lw.env.function_aliases.get(name, name)
    if name in lw.env.inline_defs:
        return expand_inline(lw, node, name)
    if name in lw.signatures and lw.bare_function_calls:
        return lower_function_call(lw, node, name, lw.span(func), method=False)
    if name in lw.env.external_functions:
        if lw.signature.is_method and name in lw.signatures:
            return external_conflict(lw, node, name)
        return lower_function_call(lw, node, name, lw.span(func), method=False, external=True)
    if name in ("min", "max", "abs"):
        return lower_builtin(lw, node, name)
    if lw.bare_function_calls and name not in lw.state.scope:
        bare_op = bare_op_name(name)
        if bare_op is not None:
            return lower_bare_op(lw, node, bare_op)
    if name == "range":
        lw.error("E004", "range(...) is only allowed as a for-loop iterator", node)
        return error_value(lw.span(node))
    return None


def bare_op_name(name: str) -> tuple[str, str] | None:
    """Seed 003 printed IR calls ops by bare name: ``tensor_add`` is the op ``tensor.add``."""
    category, _, op_name = name.partition("_")
    if category not in ("tensor", "block", "system") or not op_name:
        return None
    if resolve_op((category,), op_name, []).op is None:
        return None
    return category, op_name


def lower_bare_op(lw: Lowerer, node: ast.Call, bare_op: tuple[str, str]) -> Expr:
    category, op_name = bare_op
    new = f"{lw.env.imports.prefix}.{category}.{op_name}"
    legacy_spelling(lw, f"seed 003 bare op name `{category}_{op_name}`", lw.span(node.func), new)
    return lower_dsl_call(lw, node, bare_op)


def external_conflict(lw: Lowerer, node: ast.Call, name: str) -> Expr:
    """A standalone function called from a program that has a function of the same name: the
    original rejects it ("conflicts with program function")."""
    external, method = lw.env.external_functions[name], lw.signatures[name]
    lw.error(
        "E207",
        f"the standalone function '{name}' conflicts with program function '{name}' of "
        f"'{method.program}'; call the method as self.{name}(...) or rename one of them",
        node.func,
        related=(
            Related(external.name_span, f"the standalone '{name}' is defined here"),
            Related(method.name_span, f"the program function '{name}' is defined here"),
        ),
    )
    for arg in node.args:
        lw.lower_expr(arg)
    return error_value(lw.span(node))


def lower_builtin(lw: Lowerer, node: ast.Call, name: str) -> Expr:
    span = lw.span(node)
    if node.keywords or len(node.args) != (1 if name == "abs" else 2):
        lw.error(
            "E302",
            f"{name}() takes {'one argument' if name == 'abs' else 'two arguments'}",
            node,
        )
        return error_value(span)
    if name == "abs":
        operand = scalar_operand(lw, node.args[0], "abs() needs a scalar, got {}; use pl.abs(tile)")
        if operand is None:
            return error_value(span)
        return Unary(operand.type, op=UnaryOp.Abs, operand=operand, span=span)
    lhs, rhs = lw.lower_expr(node.args[0]), lw.lower_expr(node.args[1])
    op = BinaryOp.Min if name == "min" else BinaryOp.Max
    return scalar_binary(lw, op, lhs, rhs, node, node.args[1], left_node=node.args[0])


def lower_function_call(
    lw: Lowerer, node: ast.Call, name: str, name_span: Span, *, method: bool, external: bool = False
) -> Expr:
    span = lw.span(node)
    sig = lw.env.external_functions.get(name) if external else lw.signatures.get(name)
    if sig is None:
        return undefined_function(lw, node, name, name_span)
    if external and name not in lw.state.external_calls:
        lw.state.external_calls.append(name)
    # An InCore function may call another (upstream's outlining makes such wrappers): the CCE
    # pipeline inlines the callee, and the PTO generator says what it cannot pass (E400).
    lw.occurrence(
        Occurrence(
            name_span,
            name,
            OccurrenceKind.FUNCTION,
            sig.result_type,
            definition=sig.name_span,
            detail=sig.describe(),
        )
    )
    # A JIT host orchestrator pins each per-rank call to a device (``device=r``, spec §2).
    keywords = [k for k in node.keywords if k.arg != "device"]
    device = next((k for k in node.keywords if k.arg == "device"), None)
    if device is not None and not is_host_orchestrator(lw.signature):
        lw.error(
            "E233",
            f"device= dispatches '{name}' to a rank: only a HOST orchestrator does that, "
            f"and '{lw.signature.name}' is not one",
            device,
        )
    if keywords:
        lw.error("E302", f"'{name}' takes positional arguments only", keywords[0])
    args = [lw.lower_expr(unwrap_no_dep(lw, a)) for a in node.args]
    if len(args) != len(sig.params):
        lw.error(
            "E206",
            f"'{name}' expects {len(sig.params)} argument(s), got {len(args)}",
            node,
            related=(Related(sig.name_span, f"'{name}' is defined here"),),
        )
    for value, arg_node, param in zip(args, node.args, sig.params, strict=False):
        if param.type is not None:
            check_argument(lw, value.type, arg_node, param, sig)
    result_type = sig.result_type or UNKNOWN
    if sig.return_types == []:
        result_type = UNKNOWN
    # ``device=r``: which rank runs the call, kept as its source text (printed back as is)
    kwargs = (("device", lw.env.source.segment(device.value)),) if device is not None else ()
    return Call(result_type, callee=GlobalVar(name), args=tuple(args), kwargs=kwargs, span=span)


def check_call_has_value(lw: Lowerer, expr: Expr, target: ast.expr, value: ast.expr) -> None:
    """E213 where the value of a call to a function of no return type is assigned: the
    code generators had nothing to give the name (an internal error). When the name is also
    an argument (``y = self.k(x, y)``: the kernel writes it), the fix calls without assigning."""
    if not (isinstance(expr, Call) and isinstance(expr.callee, GlobalVar)):
        return
    name = expr.callee.name
    sig = lw.signatures.get(name) or lw.env.external_functions.get(name)
    if sig is None or sig.return_types != [] or sig.opaque_body is not None:
        return
    if returns_a_value(sig.node):
        return  # 2026-03 allows leaving the annotation out: the call gives what it returns
    lw.error(
        "E213",
        f"'{name}' returns no value (no return type, no `return` of a value): its call has "
        "nothing to assign; return what it writes to its pl.Out parameters, or call it "
        "without assigning",
        target,
        related=(Related(sig.name_span, f"'{name}' is defined here"),),
        fixes=_call_without_assigning(lw, target, value),
    )


def _call_without_assigning(lw: Lowerer, target: ast.expr, value: ast.expr) -> tuple[Fix, ...]:
    if not (isinstance(target, ast.Name) and isinstance(value, ast.Call)):
        return ()
    if not any(isinstance(a, ast.Name) and a.id == target.id for a in value.args):
        return ()
    start, call = lw.span(target), lw.span(value)
    prefix = Span(start.file, start.line, start.column, call.line, call.column)
    title = f"Call without assigning (the call writes '{target.id}')"
    return (Fix(title, (TextEdit(prefix, ""),), preferred=True),)


def returns_a_value(fn: ast.FunctionDef) -> bool:
    """Whether a ``return <value>`` of ``fn`` itself (not of a function inside it) exists."""
    pending: list[ast.AST] = list(fn.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Return) and node.value is not None:
            return True
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            pending.extend(ast.iter_child_nodes(node))
    return False


def undefined_function(lw: Lowerer, node: ast.Call, name: str, name_span: Span) -> Expr:
    message = f"Function '{name}' is not defined in this program"
    lw.unknown_name("E203", message, name_span, name, list(lw.signatures))
    for arg in node.args:
        lw.lower_expr(arg)
    return error_value(lw.span(node))


def shapes_provably_differ(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> bool:
    """Different ranks, or a dimension whose two static values differ."""
    if len(a) != len(b):
        return True
    return any(
        x is not None and y is not None and x != y
        for x, y in ((static_value(p), static_value(q)) for p, q in zip(a, b, strict=True))
    )


def check_argument(
    lw: Lowerer, actual: Type, arg_node: ast.expr, param: ParamInfo, callee: FunctionSignature
) -> None:
    """Kinds and dtypes must agree (E111). Shapes only when they provably differ: a dimension
    known only at run time may well be the declared one. An Orchestration function handing an
    InCore kernel a different static shape compiles in the original: W009."""
    expected = param.type
    assert expected is not None
    if types_compatible(expected, actual):
        return
    related = (Related(param.span, f"parameter '{param.name}' is declared here"),)
    message = (
        f"argument '{param.name}' of '{callee.name}' must be {expected.short()}, "
        f"got {actual.short()}"
    )
    if (
        isinstance(expected, ShapedType)
        and isinstance(actual, ShapedType)
        and type(expected) is type(actual)
        and expected.dtype is actual.dtype
    ):
        if not shapes_provably_differ(expected.shape, actual.shape):
            return
        if (
            lw.signature.func_type is FunctionType.Orchestration
            and callee.func_type is FunctionType.InCore
        ):
            lw.error(
                "W009", message + "; the kernel sees the declared shape", arg_node, related=related
            )
            return
    if integer_scalars(expected, actual):  # the original passes the value as it is
        lw.error("W026", message + "; it is passed as it is", arg_node, related=related)
        return
    lw.error("E111", message, arg_node, related=related)


def integer_scalars(expected: Type, actual: Type) -> bool:
    """Two integer or BOOL scalar types (the original converts neither, checks neither)."""
    return all(
        isinstance(t, ScalarType) and (t.dtype.is_int or t.dtype.is_bool)
        for t in (expected, actual)
    )
