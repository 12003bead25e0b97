"""Lowering one DSL function to IR: ``lower_function``. ``core`` holds the per-function state
and the two entry points (``lower_expr``, ``lower_block``); ``tables`` maps each AST node type
to its rule; the rules live in one module per construct."""

from __future__ import annotations

import ast

from ...diagnostics import Diagnostic
from ...ir.expr import Var
from ...ir.function import Function, ParamDirection
from ...ir.stmt import SeqStmts
from ...ir.types import UNKNOWN
from ...records import record
from ..analysis import Occurrence, OccurrenceKind
from ..checks_distributed import check_distributed
from ..checks_pipes import check_pipes
from ..context import FunctionSignature, ModuleEnv
from .core import Lowerer
from .tables import RULES


@record(frozen=True)
class LoweredFunction:
    """A function's IR with everything its analysis produced, cached as a unit."""

    function: Function
    diagnostics: tuple[Diagnostic, ...]
    occurrences: tuple[Occurrence, ...]
    calls: tuple[str, ...]  # the standalone functions it calls


def lower_function(
    env: ModuleEnv,
    signature: FunctionSignature,
    signatures: dict[str, FunctionSignature],
    *,
    bare_function_calls: bool = False,
) -> LoweredFunction:
    """Lower one function; its diagnostics (annotation errors included) and occurrences come
    back with its IR."""
    lw = Lowerer(env, signature, signatures, RULES, bare_function_calls=bare_function_calls)
    params: list[Var] = []
    directions: list[ParamDirection] = []
    for info in signature.params:
        var = Var(info.type or UNKNOWN, name=info.name, span=info.name_span)
        params.append(var)
        directions.append(info.direction)
        lw.define(info.name, var, info.name_span, OccurrenceKind.PARAMETER)
    if signature.opaque_body is None:
        body = lw.lower_block(without_docstring(signature.node.body))
        check_distributed(signature, env, lw.bag)
        check_pipes(signature, env, lw.bag)
    else:
        body = SeqStmts((), span=signature.span)
    returns = lw.return_types if lw.return_types is not None else signature.return_types
    function = Function(
        signature.name,
        tuple(params),
        tuple(returns or ()),
        body,
        signature.func_type,
        tuple(directions),
        signature.level,
        signature.role,
        span=signature.span,
    )
    return LoweredFunction(
        function,
        tuple(lw.bag.items),
        tuple(lw.index.occurrences),
        tuple(lw.state.external_calls),
    )


def without_docstring(body: list[ast.stmt]) -> list[ast.stmt]:
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        return body[1:]
    return list(body)


__all__ = ["LoweredFunction", "lower_function"]
