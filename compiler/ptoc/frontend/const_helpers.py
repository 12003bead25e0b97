"""Calls of simple module functions in constant expressions, read and never run: a plain
function whose body is a docstring, ``if`` guards (a ``raise`` in a branch the arguments take
is "not a constant"), simple assignments and a ``return`` (``def shape_of(n): if n <= 0:
raise ValueError(...); return 4 * n, 32``). Anything else in it, or a call of it with a
value that is not constant, is "not a constant"; calls nest at most ``MAX_DEPTH`` deep."""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .consteval import DynDim, NotConstant, parameter_defaults

if TYPE_CHECKING:
    from .consteval import ConstEvaluator

MAX_DEPTH = 8
_NO_RETURN = object()


def call_helper(evaluator: ConstEvaluator, fn: ast.FunctionDef, call: ast.Call) -> Any:
    if evaluator.depth >= MAX_DEPTH:
        raise NotConstant("helper calls nest too deep", call)
    bound = _arguments(evaluator, fn, call)
    saved = dict(evaluator.values), dict(evaluator.definitions)
    evaluator.depth += 1
    try:
        for name, value in bound.items():
            evaluator.values[name] = value
        result = _run(evaluator, fn.body)
    finally:
        evaluator.values, evaluator.definitions = saved
        evaluator.depth -= 1
    if result is _NO_RETURN:
        raise NotConstant(f"'{fn.name}' returns no value", call)
    return result


def _arguments(evaluator: ConstEvaluator, fn: ast.FunctionDef, call: ast.Call) -> dict[str, Any]:
    spec = fn.args
    positional = [*spec.posonlyargs, *spec.args]
    names = {a.arg for a in [*positional, *spec.kwonlyargs]}
    if spec.vararg or spec.kwarg or len(call.args) > len(positional):
        raise NotConstant(f"a call of '{fn.name}' not read here", call)
    bound: dict[str, Any] = {}
    for param, arg in zip(positional, call.args, strict=False):
        bound[param.arg] = _value(evaluator, arg)
    for keyword in call.keywords:
        if keyword.arg is None or keyword.arg not in names:
            raise NotConstant(f"a call of '{fn.name}' not read here", call)
        bound[keyword.arg] = _value(evaluator, keyword.value)
    defaults = parameter_defaults(fn)
    for name in names - bound.keys():
        if name not in defaults:
            raise NotConstant(f"'{fn.name}' is called without '{name}'", call)
        bound[name] = _value(evaluator, defaults[name])
    return bound


def _value(evaluator: ConstEvaluator, node: ast.expr) -> Any:
    value = evaluator.evaluate(node)
    if isinstance(value, DynDim):  # (a size known at run time: the helper's result is not)
        raise NotConstant("a run-time size", node)
    return value


def _run(evaluator: ConstEvaluator, body: list[ast.stmt]) -> Any:
    """The value the statements return (``_NO_RETURN``: they fall through)."""
    for stmt in body:
        rule = _STATEMENTS.get(type(stmt))
        if rule is None:
            raise NotConstant("a statement a constant helper may not have", stmt)
        result = rule(evaluator, stmt)
        if result is not _NO_RETURN:
            return result
    return _NO_RETURN


def _expression(evaluator: ConstEvaluator, stmt: ast.Expr) -> Any:
    if not isinstance(stmt.value, ast.Constant):  # (a docstring, or a constant alone)
        raise NotConstant("a statement a constant helper may not have", stmt)
    return _NO_RETURN


def _return(evaluator: ConstEvaluator, stmt: ast.Return) -> Any:
    if stmt.value is None:
        raise NotConstant("a return without a value", stmt)
    return evaluator.evaluate(stmt.value)


def _if(evaluator: ConstEvaluator, stmt: ast.If) -> Any:
    taken = stmt.body if _truth(evaluator.evaluate(stmt.test), stmt) else stmt.orelse
    return _run(evaluator, taken)


def _assign(evaluator: ConstEvaluator, stmt: ast.Assign) -> Any:
    if len(stmt.targets) != 1 or not isinstance(stmt.targets[0], ast.Name | ast.Tuple | ast.List):
        raise NotConstant("an assignment a constant helper may not have", stmt)
    evaluator.bind_targets(stmt.targets[0], stmt.value, evaluator.span_of)
    return _NO_RETURN


def _raise(evaluator: ConstEvaluator, stmt: ast.Raise) -> Any:
    raise NotConstant("the arguments make it raise", stmt)


_STATEMENTS: dict[type[ast.stmt], Callable[[ConstEvaluator, Any], Any]] = {
    ast.Expr: _expression,
    ast.Pass: lambda evaluator, stmt: _NO_RETURN,
    ast.Return: _return,
    ast.If: _if,
    ast.Assign: _assign,
    ast.Raise: _raise,
}


def _truth(value: Any, stmt: ast.stmt) -> bool:
    if not isinstance(value, bool | int | float | str):
        raise NotConstant("a condition that is not constant", stmt)
    return bool(value)


_COMPARE: dict[type[ast.cmpop], Any] = {
    ast.Lt: lambda a, b: a < b,
    ast.LtE: lambda a, b: a <= b,
    ast.Gt: lambda a, b: a > b,
    ast.GtE: lambda a, b: a >= b,
    ast.Eq: lambda a, b: a == b,
    ast.NotEq: lambda a, b: a != b,
}


def compare(evaluator: ConstEvaluator, node: ast.Compare) -> bool:
    """``n <= 0``, ``0 < n < 8``: numbers (or strings) compared."""
    left = evaluator.evaluate(node.left)
    for op, right_node in zip(node.ops, node.comparators, strict=True):
        right = evaluator.evaluate(right_node)
        rule = _COMPARE.get(type(op))
        numbers = all(isinstance(v, int | float) for v in (left, right))
        strings = all(isinstance(v, str) for v in (left, right))
        if rule is None or not (numbers or strings):
            raise NotConstant("a comparison of numbers or strings only", node)
        if not rule(left, right):
            return False
        left = right
    return True


def bool_op(evaluator: ConstEvaluator, node: ast.BoolOp) -> Any:
    """``a and b``, ``a or b`` on constants, as Python reads them."""
    value: Any = None
    for operand in node.values:
        value = evaluator.evaluate(operand)
        if not isinstance(value, bool | int | float | str):
            raise NotConstant("a condition that is not constant", operand)
        if bool(value) is isinstance(node.op, ast.Or):
            return value
    return value


def if_expression(evaluator: ConstEvaluator, node: ast.IfExp) -> Any:
    """``64 if wide else 32`` on a constant condition."""
    test = evaluator.evaluate(node.test)
    if not isinstance(test, bool | int | float | str):
        raise NotConstant("a condition that is not constant", node.test)
    return evaluator.evaluate(node.body if test else node.orelse)
