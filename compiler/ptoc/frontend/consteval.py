"""A small safe evaluator for module-level constants (never ``exec``, never ``import``).

Accepted: int/float/bool/str literals, names of earlier constants, lists/tuples, dicts with
literal keys and subscripts of all three (``CFG["rows"]``, ``SHAPE[0]``), unary +/-,
``+ - * // % /`` and ``**`` on numbers, DSL dtypes (``pl.FP32``), memory spaces
(``pl.MemorySpace.Vec``), layouts (``pl.NZ``), ``pl.dynamic("N")``, comparisons and
``and`` / ``or``, and calls of simple module functions (``const_helpers``). Tuple assignments
(``rows, cols = 128, 64``) bind each name.
Anything else is "not a constant" (the name simply is not a usable closure value).
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from typing import Any

from ..ir.dsl_enums import dsl_enum_member
from ..ir.dtype import DTYPE_BY_NAME, DataType
from ..ir.expr import Var
from ..ir.span import Span
from ..ir.types import MEMORY_SPACE_BY_NAME, ScalarType, TensorLayout
from ..ops.registry import PipeType
from ..records import record
from .names import DslImports, dsl_path


@record(frozen=True)
class DynDim:
    """``pl.dynamic("N")``: one symbolic dimension, shared by every use of the name."""

    var: Var


class NotConstant(Exception):
    def __init__(self, reason: str, node: ast.AST | None = None) -> None:
        super().__init__(reason)
        self.reason = reason
        self.node = node


_BINOPS: dict[type[ast.operator], Any] = {
    ast.Add: lambda a, b: a + b,
    ast.Sub: lambda a, b: a - b,
    ast.Mult: lambda a, b: a * b,
    ast.FloorDiv: lambda a, b: a // b,
    ast.Mod: lambda a, b: a % b,
    ast.Div: lambda a, b: a / b,
}
MAX_POWER = 4096


def dsl_enum_value(path: tuple[str, ...]) -> Any | None:
    """``FP32`` -> DataType, ``MemorySpace.Vec`` -> MemorySpace, ``NZ`` -> layout, ...;
    the base object of a dtype is not checked (``foo.FP32`` counts, as in the original)."""
    if len(path) == 1:
        name = path[0]
        if name in DTYPE_BY_NAME:
            return DTYPE_BY_NAME[name]
        if name in TensorLayout.__members__:
            return TensorLayout[name]
        return None
    if len(path) == 2:
        group, name = path
        if group == "MemorySpace" and name in MEMORY_SPACE_BY_NAME:
            return MEMORY_SPACE_BY_NAME[name]
        if group == "PipeType" and name in PipeType.__members__:
            return PipeType[name]
        if group == "TensorLayout" and name in TensorLayout.__members__:
            return TensorLayout[name]
        if group == "DataType" and name in DTYPE_BY_NAME:
            return DTYPE_BY_NAME[name]
        if group == "Mem" and name in MEMORY_SPACE_BY_NAME:  # 2026-08's short alias
            return MEMORY_SPACE_BY_NAME[name]
        return dsl_enum_member(group, name)
    if len(path) == 3 and path[0] in ("tile", "pld"):  # pl.tile.MaskPattern.P0101, pld.X.Y
        return dsl_enum_member(path[1], path[2])
    return None


def parameter_defaults(fn: ast.FunctionDef) -> dict[str, ast.expr]:
    """Each parameter's default expression, by name (positional and keyword-only)."""
    arguments = fn.args
    positional = [*arguments.posonlyargs, *arguments.args]
    found = dict(zip([a.arg for a in positional[::-1]], arguments.defaults[::-1], strict=False))
    found.update(
        (a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults, strict=True) if d
    )
    return found


class ConstEvaluator:
    def __init__(
        self,
        imports: DslImports,
        source_span: Any,
        index_dtype: DataType = DataType.INT64,
        sizes: dict[str, int] | None = None,
    ) -> None:
        self.imports = imports
        # A symbolic dimension's dtype: the edition's index dtype (INDEX in 2026-08, where
        # dimensions are INDEX; INT64 in 2026-03: ``EditionRules.index_dtype``).
        self._dim_type = ScalarType(index_dtype)
        self.sizes = sizes or {}  # pl.dynamic("N") -> N's given value, instead of a symbol
        self.values: dict[str, Any] = {}
        self.definitions: dict[str, Span] = {}
        self._span = source_span  # callable ast node -> Span
        # Plain module functions a constant may call (``const_helpers``), and how deep such
        # calls nest now.
        self.helpers: dict[str, ast.FunctionDef] = {}
        self.depth = 0

    def span_of(self, node: ast.AST) -> Span:
        result: Span = self._span(node)
        return result

    def evaluate(self, node: ast.expr) -> Any:
        rule = _EVALUATORS.get(type(node))
        if rule is None:
            raise NotConstant("not a constant expression", node)
        return rule(self, node)

    def _constant(self, node: ast.Constant) -> Any:
        if isinstance(node.value, bool | int | float | str):
            return node.value
        raise NotConstant("unsupported literal", node)

    def _name(self, node: ast.Name) -> Any:
        if node.id in self.values:
            return self.values[node.id]
        if node.id in ("True", "False"):
            return node.id == "True"
        return self._named(node)

    def _named(self, node: ast.Name | ast.Attribute) -> Any:
        """A DSL enum value (``pl.FP32``, ``pl.MemorySpace.Vec``); nothing else named is."""
        path = dsl_path(node, self.imports)
        value = dsl_enum_value(path) if path is not None else None
        if value is not None:
            return value
        reason = (
            f"'{node.id}' is not a known constant"
            if isinstance(node, ast.Name)
            else "not a constant attribute"
        )
        raise NotConstant(reason, node)

    def _sequence(self, node: ast.List | ast.Tuple) -> list[Any]:
        return [self.evaluate(e) for e in node.elts]

    def _unary(self, node: ast.UnaryOp) -> Any:
        if not isinstance(node.op, ast.USub | ast.UAdd):
            raise NotConstant("not a constant expression", node)
        value = self.evaluate(node.operand)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise NotConstant("unary minus needs a number", node)
        return -value if isinstance(node.op, ast.USub) else value

    def _binop(self, node: ast.BinOp) -> Any:
        left, right = self.evaluate(node.left), self.evaluate(node.right)
        if isinstance(left, bool) or isinstance(right, bool):
            raise NotConstant("arithmetic on booleans", node)
        if not isinstance(left, int | float) or not isinstance(right, int | float):
            if isinstance(node.op, ast.Add) and isinstance(left, list) and isinstance(right, list):
                return left + right
            raise NotConstant("arithmetic needs numbers", node)
        if isinstance(node.op, ast.Pow):
            # ``head_dim**-0.5``: a real power of a number that is not negative
            real = isinstance(right, int) or left >= 0
            if real and abs(right) <= MAX_POWER and abs(left) <= 2**64:
                try:
                    return left**right
                except (OverflowError, ZeroDivisionError) as error:
                    raise NotConstant("power out of range", node) from error
            raise NotConstant("power too large", node)
        op = _BINOPS.get(type(node.op))
        if op is None:
            raise NotConstant("unsupported operator", node)
        try:
            return op(left, right)
        except ZeroDivisionError as error:
            raise NotConstant("division by zero", node) from error

    def _call(self, node: ast.Call) -> Any:
        """``pl.dynamic("N")``: a symbolic dimension; no other call is a constant."""
        path = dsl_path(node.func, self.imports)
        if path == ("dynamic",):
            if (
                len(node.args) == 1
                and not node.keywords
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and node.args[0].value.isidentifier()
            ):
                name = node.args[0].value
                if name in self.sizes:
                    return self.sizes[name]
                return DynDim(Var(self._dim_type, name=name, span=self._span(node)))
            raise NotConstant('pl.dynamic takes one identifier string, e.g. pl.dynamic("N")', node)
        helper = self.helpers.get(node.func.id) if isinstance(node.func, ast.Name) else None
        if helper is not None:
            from .const_helpers import call_helper

            return call_helper(self, helper, node)
        raise NotConstant("not a constant expression", node)

    def _dict(self, node: ast.Dict) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        for key, value in zip(node.keys, node.values, strict=True):
            if key is None:
                raise NotConstant("** in a dict constant", node)
            evaluated = self.evaluate(key)
            if not isinstance(evaluated, str | int | bool):
                raise NotConstant("dict keys must be strings or integers", key)
            result[evaluated] = self.evaluate(value)
        return result

    def _subscript(self, node: ast.Subscript) -> Any:
        base = self.evaluate(node.value)
        index = self.evaluate(node.slice)
        if isinstance(base, dict):
            if isinstance(index, str | int) and index in base:
                return base[index]
            raise NotConstant(f"no key {index!r} in the dict", node.slice)
        if isinstance(base, list) and isinstance(index, int) and not isinstance(index, bool):
            if -len(base) <= index < len(base):
                return base[index]
            raise NotConstant(f"index {index} out of range", node.slice)
        raise NotConstant("only dicts, lists and tuples can be subscripted", node)

    def bind_targets(self, target: ast.expr, node: ast.expr, span_of: Any) -> list[str]:
        """``rows, cols = 128, 64`` (or ``= SHAPE``): each name gets its element. Returns the
        names bound (all of them, constant or not)."""
        if isinstance(target, ast.Name):
            self.bind(target.id, node, span_of(target))
            return [target.id]
        if not isinstance(target, ast.Tuple | ast.List):
            return []
        try:
            value = self.evaluate(node)
        except NotConstant:
            value = None
        names: list[str] = []
        elements = value if isinstance(value, list) and len(value) == len(target.elts) else None
        for index, element in enumerate(target.elts):
            if isinstance(element, ast.Name):
                names.append(element.id)
                if elements is not None:
                    self.bind_value(element.id, elements[index], span_of(element))
                else:
                    self.values.pop(element.id, None)
                    self.definitions[element.id] = span_of(element)
        return names

    def bind_symbolic(self, name: str, span: Span) -> None:
        """A value known only at run time of the Python around the kernel (a builder function's
        parameter): a symbolic dimension of its own name."""
        self.values[name] = DynDim(Var(self._dim_type, name=name, span=span))
        self.definitions[name] = span

    def bind(self, name: str, node: ast.expr, span: Span) -> None:
        try:
            value = self.evaluate(node)
        except NotConstant:
            self.values.pop(name, None)
            self.definitions[name] = span
            return
        self.bind_value(name, value, span)

    def bind_value(self, name: str, value: Any, span: Span) -> None:
        if isinstance(value, DynDim):
            # Every use of the same dynamic name is one dimension (better than the original).
            for existing in self.values.values():
                if isinstance(existing, DynDim) and existing.var.name == value.var.name:
                    value = existing
                    break
        self.values[name] = value
        self.definitions[name] = span


# The rule for each kind of expression a constant may be; any other kind is not a constant.
_EVALUATORS: dict[type[ast.expr], Callable[[ConstEvaluator, Any], Any]] = {
    ast.Constant: ConstEvaluator._constant,
    ast.Name: ConstEvaluator._name,
    ast.Attribute: ConstEvaluator._named,
    ast.List: ConstEvaluator._sequence,
    ast.Tuple: ConstEvaluator._sequence,
    ast.Dict: ConstEvaluator._dict,
    ast.Subscript: ConstEvaluator._subscript,
    ast.UnaryOp: ConstEvaluator._unary,
    ast.BinOp: ConstEvaluator._binop,
    ast.Call: ConstEvaluator._call,
    ast.Compare: lambda evaluator, node: compare(evaluator, node),
    ast.BoolOp: lambda evaluator, node: bool_op(evaluator, node),
    ast.IfExp: lambda evaluator, node: if_expression(evaluator, node),
}

# (const_helpers reads this module's evaluator: imported once it is defined)
from .const_helpers import bool_op, compare, if_expression  # noqa: E402
