"""Lowering Python expressions of a DSL function body to IR expressions."""

from __future__ import annotations

import ast
import difflib
from enum import Enum
from typing import Any

from ..diagnostics import Fix, Related, TextEdit, replacement_fixes
from ..ir.dtype import DTYPE_BY_NAME, DataType, promote
from ..ir.expr import (
    AttrValue,
    Binary,
    BinaryOp,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    GlobalVar,
    Op,
    TupleGetItem,
    Unary,
    UnaryOp,
    Var,
    make_tuple,
)
from ..ir.function import FunctionType
from ..ir.shape import static_value
from ..ir.span import Span
from ..ir.types import (
    MEMORY_SPACE_BY_NAME,
    UNKNOWN,
    MemorySpace,
    ScalarType,
    ShapedType,
    TupleType,
    Type,
    UnknownType,
)
from ..language import HELPER_NAMES, TYPE_NAMES
from ..ops import Category, OpDef, OpError, Param, ParamKind, resolve_op
from .analysis import Occurrence, OccurrenceKind, SymbolIndex
from .consteval import DynDim, NotConstant, dsl_enum_value
from .context import FunctionSignature, LoweringState, ModuleEnv, ParamInfo
from .names import dsl_path

_RECORDED = (ast.BinOp, ast.Compare, ast.BoolOp, ast.UnaryOp, ast.Subscript, ast.List, ast.Tuple)
MAX_INLINE_DEPTH = 16

_BINOPS: dict[type[ast.operator], BinaryOp] = {
    ast.Add: BinaryOp.Add,
    ast.Sub: BinaryOp.Sub,
    ast.Mult: BinaryOp.Mul,
    ast.FloorDiv: BinaryOp.FloorDiv,
    ast.Mod: BinaryOp.FloorMod,
    ast.Div: BinaryOp.FloatDiv,
    ast.Pow: BinaryOp.Pow,
    ast.BitXor: BinaryOp.Xor,
    ast.BitAnd: BinaryOp.BitAnd,
    ast.BitOr: BinaryOp.BitOr,
    ast.LShift: BinaryOp.Shl,
    ast.RShift: BinaryOp.Shr,
}
_CMPOPS: dict[type[ast.cmpop], BinaryOp] = {
    ast.Eq: BinaryOp.Eq,
    ast.NotEq: BinaryOp.Ne,
    ast.Lt: BinaryOp.Lt,
    ast.LtE: BinaryOp.Le,
    ast.Gt: BinaryOp.Gt,
    ast.GtE: BinaryOp.Ge,
}
_INT_ONLY = {BinaryOp.BitAnd, BinaryOp.BitOr, BinaryOp.Xor, BinaryOp.Shl, BinaryOp.Shr}
_BOOL_ONLY = {BinaryOp.And, BinaryOp.Or}


def error_value(span: Span) -> Var:
    """The value of an expression that failed: its UnknownType silences follow-on errors."""
    return Var(UNKNOWN, name="?", span=span)


def shapes_provably_differ(a: tuple[Expr, ...], b: tuple[Expr, ...]) -> bool:
    """Different ranks, or a dimension whose two static values differ."""
    if len(a) != len(b):
        return True
    return any(
        x is not None and y is not None and x != y
        for x, y in ((static_value(p), static_value(q)) for p, q in zip(a, b, strict=True))
    )


def types_match(expected: Type, actual: Type) -> bool:
    """Whether ``actual`` satisfies ``expected`` (buffers and views are not part of the match)."""
    if isinstance(expected, UnknownType) or isinstance(actual, UnknownType):
        return True
    if type(expected) is not type(actual):
        return False
    if isinstance(expected, ShapedType):
        from ..ir.shape import shapes_equal

        assert isinstance(actual, ShapedType)
        return expected.dtype is actual.dtype and shapes_equal(expected.shape, actual.shape)
    if isinstance(expected, TupleType):
        assert isinstance(actual, TupleType)
        return len(expected.types) == len(actual.types) and all(
            types_match(a, b) for a, b in zip(expected.types, actual.types, strict=True)
        )
    return expected == actual


class ExpressionLowerer:
    env: ModuleEnv
    state: LoweringState
    index: SymbolIndex
    signature: FunctionSignature  # the function being lowered
    signatures: dict[str, FunctionSignature]
    pending: list[Any]  # statements emitted while lowering an expression (inline expansion)
    bare_function_calls: bool = False  # printed-IR module form: `f(x)` calls a sibling function

    def __init__(self) -> None:
        self._cache: dict[int, Expr] = {}

    # --- plumbing -----------------------------------------------------------------------------
    def span(self, node: ast.AST) -> Span:
        return self.env.source.span(node)

    def error(self, code: str, message: str, node: ast.AST | Span, **kw: Any) -> None:
        span = node if isinstance(node, Span) else self.span(node)
        self.state.bag.error(code, message, span, **kw)

    def occurrence(self, occ: Occurrence) -> None:
        self.index.add(occ)

    def path(self, node: ast.expr) -> tuple[str, ...] | None:
        return dsl_path(node, self.env.imports)

    def lookup_scalar(self, name: str) -> Var | None:
        binding = self.state.scope.get(name)
        return binding.var if binding is not None else None

    def fresh_name(self, base: str) -> str:
        self.state.tmp_counter += 1
        return base if self.state.tmp_counter == 1 else f"{base}_{self.state.tmp_counter - 1}"

    # --- entry --------------------------------------------------------------------------------
    def lower_expr(self, node: ast.expr) -> Expr:
        cached = self._cache.get(id(node))
        if cached is not None:
            return cached
        result = self._lower_expr(node)
        self._cache[id(node)] = result
        if isinstance(node, _RECORDED) and not isinstance(result.type, UnknownType):
            # so hover can show the type of any expression, not only of names and calls
            text = self.env.source.segment(node)
            self.occurrence(
                Occurrence(
                    self.span(node),
                    text if len(text) <= 60 else text[:57] + "...",
                    OccurrenceKind.EXPRESSION,
                    result.type,
                )
            )
        return result

    def _lower_expr(self, node: ast.expr) -> Expr:
        span = self.span(node)
        if isinstance(node, ast.Name):
            return self.lower_name(node)
        if isinstance(node, ast.Constant):
            return self.lower_constant(node)
        if isinstance(node, ast.Call):
            return self.lower_call(node)
        if isinstance(node, ast.BinOp):
            return self.lower_binop(node)
        if isinstance(node, ast.Compare):
            return self.lower_compare(node)
        if isinstance(node, ast.BoolOp):
            values = [self.lower_expr(v) for v in node.values]
            op = BinaryOp.And if isinstance(node.op, ast.And) else BinaryOp.Or
            result = values[0]
            for operand, operand_node in zip(values[1:], node.values[1:], strict=True):
                result = self.scalar_binary(op, result, operand, node, operand_node)
            return result
        if isinstance(node, ast.UnaryOp):
            return self.lower_unary(node)
        if isinstance(node, ast.List | ast.Tuple):
            elements = tuple(self.lower_expr(e) for e in node.elts)
            return make_tuple(elements, span)
        if isinstance(node, ast.Subscript):
            return self.lower_subscript(node)
        if isinstance(node, ast.Attribute):
            path = self.path(node)
            if path is not None:
                self.error(
                    "E011",
                    f"`{self.env.source.segment(node)}` is not a value here "
                    "(standalone attribute access is only allowed as an op argument)",
                    node,
                )
            else:
                self.error("E011", "Standalone attribute access is not supported", node)
            return error_value(span)
        if isinstance(node, ast.Starred):
            self.error("E011", "Unpacking with * is not supported", node)
            return error_value(span)
        kind = type(node).__name__
        hint = ""
        if isinstance(node, ast.IfExp):
            hint = " (use an if statement with pl.yield_)"
        self.error("E011", f"Unsupported expression type: {kind}{hint}", node)
        return error_value(span)

    # --- names and constants ------------------------------------------------------------------
    def lower_name(self, node: ast.Name) -> Expr:
        span = self.span(node)
        binding = self.state.scope.get(node.id)
        if binding is not None:
            self.occurrence(
                Occurrence(span, node.id, binding.kind, binding.var.type, definition=binding.span)
            )
            return binding.var
        consts = self.env.consts
        if node.id in consts.values:
            value = consts.values[node.id]
            expr = self.const_to_expr(value, node)
            self.occurrence(
                Occurrence(
                    span,
                    node.id,
                    OccurrenceKind.CONSTANT,
                    expr.type,
                    definition=consts.definitions.get(node.id),
                    detail=repr(value)
                    if not isinstance(value, DynDim)
                    else f'pl.dynamic("{value.var.name}")',
                )
            )
            return expr
        if node.id in self.state.out_of_scope:
            definition, hint = self.state.out_of_scope[node.id]
            self.error(
                "E202",
                f"'{node.id}' is not defined here: {hint}",
                node,
                related=(Related(definition, f"'{node.id}' is defined here"),),
            )
            return error_value(span)
        if node.id in consts.definitions:
            self.error(
                "E205",
                f"'{node.id}' is defined at module level but its value cannot be evaluated statically",
                node,
                related=(Related(consts.definitions[node.id], "defined here"),),
            )
            return error_value(span)
        candidates = list(self.state.scope) + list(consts.values)
        matches = difflib.get_close_matches(node.id, candidates, n=3, cutoff=0.6)
        message = f"Undefined variable '{node.id}'"
        fixes: tuple[Fix, ...] = ()
        if matches:
            message += f"; did you mean '{matches[0]}'?"
            fixes = replacement_fixes(span, matches)
        self.error("E200", message, node, fixes=fixes)
        return error_value(span)

    def const_to_expr(self, value: Any, node: ast.AST) -> Expr:
        span = self.span(node)
        if isinstance(value, bool):
            return ConstBool(ScalarType(DataType.BOOL), value=value, span=span)
        if isinstance(value, int):
            return ConstInt(ScalarType(DataType.INT64), value=value, span=span)
        if isinstance(value, float):
            return ConstFloat(ScalarType(DataType.FP32), value=value, span=span)
        if isinstance(value, DynDim):
            return value.var
        if isinstance(value, list):
            return make_tuple(tuple(self.const_to_expr(v, node) for v in value), span)
        self.error("E011", f"a {type(value).__name__} constant is not a value here", node)
        return error_value(span)

    def lower_constant(self, node: ast.Constant) -> Expr:
        value = node.value
        if isinstance(value, bool | int | float):
            return self.const_to_expr(value, node)
        kind = "string" if isinstance(value, str) else type(value).__name__
        self.error("E011", f"Unsupported constant type: {kind}", node)
        return error_value(self.span(node))

    # --- scalar arithmetic --------------------------------------------------------------------
    def lower_binop(self, node: ast.BinOp) -> Expr:
        if isinstance(node.op, ast.MatMult):
            self.error("E303", "Unsupported binary operator `@`; use pl.matmul(a, b)", node)
            return error_value(self.span(node))
        op = _BINOPS[type(node.op)]
        lhs, rhs = self.lower_expr(node.left), self.lower_expr(node.right)
        return self.scalar_binary(op, lhs, rhs, node, node.right, left_node=node.left)

    def scalar_binary(
        self,
        op: BinaryOp,
        lhs: Expr,
        rhs: Expr,
        node: ast.AST,
        right_node: ast.AST,
        left_node: ast.AST | None = None,
    ) -> Expr:
        span = self.span(node)
        if isinstance(lhs.type, UnknownType) or isinstance(rhs.type, UnknownType):
            return error_value(span)
        for value, value_node in ((lhs, left_node or node), (rhs, right_node)):
            if not isinstance(value.type, ScalarType):
                hint = ""
                op_name = {
                    BinaryOp.Add: "add",
                    BinaryOp.Sub: "sub",
                    BinaryOp.Mul: "mul",
                    BinaryOp.FloatDiv: "div",
                }.get(op)
                if op_name and isinstance(value.type, ShapedType):
                    hint = f"; for element-wise {value.type.short().split('[')[0].lower()} arithmetic use pl.{op_name}(a, b)"
                self.error(
                    "E109",
                    f"`{op.symbol}` needs scalar operands, got {value.type.short()}{hint}",
                    value_node,
                )
                return error_value(span)
        lt, rt = lhs.type, rhs.type
        assert isinstance(lt, ScalarType) and isinstance(rt, ScalarType)
        a, b = lt.dtype, rt.dtype
        # An int literal next to a float adopts the float type (Python's `x * 2`).
        if a.is_float and b.is_int and isinstance(rhs, ConstInt):
            rhs, b = ConstFloat(ScalarType(a), value=float(rhs.value), span=rhs.span), a
        elif b.is_float and a.is_int and isinstance(lhs, ConstInt):
            lhs, a = ConstFloat(ScalarType(b), value=float(lhs.value), span=lhs.span), b
        if op in _BOOL_ONLY:
            if not (a.is_bool and b.is_bool):
                self.error(
                    "E109", f"`{op.symbol}` needs BOOL operands, got {a.name} and {b.name}", node
                )
                return error_value(span)
            return Binary(ScalarType(DataType.BOOL), op=op, lhs=lhs, rhs=rhs, span=span)
        if op.is_comparison:
            if a.is_float != b.is_float and not (a.is_bool and b.is_bool):
                self.error(
                    "E109",
                    f"comparison requires the same numeric dtype category, got {a.name} and {b.name}",
                    node,
                )
                return error_value(span)
            return Binary(ScalarType(DataType.BOOL), op=op, lhs=lhs, rhs=rhs, span=span)
        if a.is_bool or b.is_bool:
            self.error("E109", f"`{op.symbol}` does not accept BOOL operands", node)
            return error_value(span)
        if op in _INT_ONLY and not (a.is_int and b.is_int):
            self.error(
                "E109", f"`{op.symbol}` needs integer operands, got {a.name} and {b.name}", node
            )
            return error_value(span)
        if a.is_float != b.is_float:
            self.error(
                "E109",
                f"`{op.symbol}` requires the same numeric dtype category, got {a.name} and {b.name} "
                "(use pl.const(v, dtype) for a typed literal)",
                node,
            )
            return error_value(span)
        return Binary(ScalarType(promote(a, b)), op=op, lhs=lhs, rhs=rhs, span=span)

    def lower_compare(self, node: ast.Compare) -> Expr:
        if len(node.ops) != 1:
            self.error(
                "E305", "Only simple comparisons are supported (no chains like a < b < c)", node
            )
            return error_value(self.span(node))
        cmp = type(node.ops[0])
        if cmp not in _CMPOPS:
            name = {ast.Is: "is", ast.IsNot: "is not", ast.In: "in", ast.NotIn: "not in"}.get(
                cmp, cmp.__name__
            )
            self.error("E305", f"Unsupported comparison operator `{name}`", node)
            return error_value(self.span(node))
        lhs = self.lower_expr(node.left)
        rhs = self.lower_expr(node.comparators[0])
        return self.scalar_binary(
            _CMPOPS[cmp], lhs, rhs, node, node.comparators[0], left_node=node.left
        )

    def lower_unary(self, node: ast.UnaryOp) -> Expr:
        span = self.span(node)
        if isinstance(node.op, ast.UAdd):
            self.error(
                "E304",
                "Unsupported unary operator `+`",
                node,
                fixes=(
                    Fix("Remove the `+`", (TextEdit(span, self.env.source.segment(node.operand)),)),
                ),
            )
            return error_value(span)
        if isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant):
            value = node.operand.value
            if isinstance(value, int | float) and not isinstance(value, bool):
                return self.const_to_expr(-value, node)
        operand = self.lower_expr(node.operand)
        if isinstance(operand.type, UnknownType):
            return error_value(span)
        if not isinstance(operand.type, ScalarType):
            self.error(
                "E109",
                f"unary operators need a scalar operand, got {operand.type.short()}",
                node.operand,
            )
            return error_value(span)
        dtype = operand.type.dtype
        if isinstance(node.op, ast.USub):
            if dtype.is_bool:
                self.error("E109", "`-` does not accept a BOOL operand", node)
                return error_value(span)
            return Unary(operand.type, op=UnaryOp.Neg, operand=operand, span=span)
        if isinstance(node.op, ast.Invert):
            if not dtype.is_int:
                self.error("E109", f"`~` needs an integer operand, got {dtype.name}", node)
                return error_value(span)
            return Unary(operand.type, op=UnaryOp.BitNot, operand=operand, span=span)
        # `not`
        if not (dtype.is_bool or dtype.is_int):
            self.error("E109", f"`not` needs a BOOL or integer operand, got {dtype.name}", node)
            return error_value(span)
        return Unary(operand.type, op=UnaryOp.Not, operand=operand, span=span)

    def constant_subscript(self, node: ast.Subscript) -> bool:
        """A subscript of a module constant (``CFG["rows"]``), not of a local value."""
        root = node.value
        while isinstance(root, ast.Subscript):
            root = root.value
        return (
            isinstance(root, ast.Name)
            and root.id not in self.state.scope
            and root.id in self.env.consts.values
        )

    def lower_subscript(self, node: ast.Subscript) -> Expr:
        span = self.span(node)
        if self.constant_subscript(node):
            try:  # a module constant: CFG["rows"], SHAPE[0]
                return self.const_to_expr(self.env.consts.evaluate(node), node)
            except NotConstant as problem:
                self.error(
                    "E205",
                    f"`{self.env.source.segment(node)}` cannot be evaluated statically: {problem.reason}",
                    node,
                )
                return error_value(span)
        value = self.lower_expr(node.value)
        if isinstance(value.type, UnknownType):
            return error_value(span)
        if not isinstance(value.type, TupleType):
            self.error("E306", f"Subscript requires a tuple value, got {value.type.short()}", node)
            return error_value(span)
        index = node.slice
        if (
            isinstance(index, ast.UnaryOp)
            and isinstance(index.op, ast.USub)
            and isinstance(index.operand, ast.Constant)
        ):
            raw: Any = -index.operand.value if isinstance(index.operand.value, int) else None
        else:
            raw = index.value if isinstance(index, ast.Constant) else None
        if not isinstance(raw, int) or isinstance(raw, bool):
            self.error("E011", "A tuple index must be a constant integer", index)
            return error_value(span)
        count = len(value.type.types)
        if not -count <= raw < count:
            self.error("E306", f"Tuple index {raw} out of range for {count} values", index)
            return error_value(span)
        raw %= count
        return TupleGetItem(value.type.types[raw], tuple_value=value, index=raw, span=span)

    # --- calls --------------------------------------------------------------------------------
    def lower_call(self, node: ast.Call) -> Expr:
        span = self.span(node)
        func = node.func
        # self.f(...) inside a program
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "self"
        ):
            return self.lower_function_call(
                node, func.attr, self.env.source.attr_name_span(func), method=True
            )
        path = self.path(func)
        if path is not None:
            return self.lower_dsl_call(node, path)
        if isinstance(func, ast.Name):
            name = func.id
            if name not in self.state.scope:
                name = self.env.function_aliases.get(name, name)
            if name in self.env.inline_defs:
                return self.expand_inline(node, name)
            if name in self.signatures and self.bare_function_calls:
                return self.lower_function_call(node, name, self.span(func), method=False)
            if name in self.env.external_functions:
                if self.signature.is_method and name in self.signatures:
                    return self.external_conflict(node, name)
                return self.lower_function_call(
                    node, name, self.span(func), method=False, external=True
                )
            if name in ("min", "max", "abs"):
                return self.lower_builtin(node, name)
            if self.bare_function_calls and name not in self.state.scope:
                bare_op = self.bare_op_name(name)
                if bare_op is not None:
                    return self.lower_bare_op(node, bare_op)
            if name == "range":
                self.error("E004", "range(...) is only allowed as a for-loop iterator", node)
                return error_value(span)
        self.error(
            "E301",
            f"Unsupported function call `{self.env.source.segment(func)}(...)`: only pl.* ops, "
            "self.<function>(...), @pl.inline functions and program functions can be called",
            func,
        )
        for arg in node.args:
            self.lower_expr(arg)
        return error_value(span)

    def bare_op_name(self, name: str) -> tuple[str, str] | None:
        """Seed 003 printed IR calls ops by bare name: ``tensor_add`` is the op ``tensor.add``."""
        category, _, op_name = name.partition("_")
        if category not in ("tensor", "block", "system") or not op_name:
            return None
        if resolve_op((category,), op_name, []).op is None:
            return None
        return category, op_name

    def lower_bare_op(self, node: ast.Call, bare_op: tuple[str, str]) -> Expr:
        category, op_name = bare_op
        new = f"{self.env.imports.prefix}.{category}.{op_name}"
        self.legacy_spelling(
            f"seed 003 bare op name `{category}_{op_name}`", self.span(node.func), new
        )
        return self.lower_dsl_call(node, bare_op)

    def legacy_spelling(self, what: str, span: Span, new: str) -> None:
        """The W003 note on an older spelling, with the fix that writes the current one."""
        self.error(
            "W003",
            f"{what}; the current spelling is `{new}`",
            span,
            fixes=(Fix(f"Rewrite as `{new}`", (TextEdit(span, new),), preferred=True),),
        )

    def external_conflict(self, node: ast.Call, name: str) -> Expr:
        """A standalone function called from a program that has a function of the same name: the
        original rejects it ("conflicts with program function")."""
        external, method = self.env.external_functions[name], self.signatures[name]
        self.error(
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
            self.lower_expr(arg)
        return error_value(self.span(node))

    def lower_builtin(self, node: ast.Call, name: str) -> Expr:
        span = self.span(node)
        if node.keywords or len(node.args) != (1 if name == "abs" else 2):
            self.error(
                "E302",
                f"{name}() takes {'one argument' if name == 'abs' else 'two arguments'}",
                node,
            )
            return error_value(span)
        if name == "abs":
            operand = self.lower_expr(node.args[0])
            if isinstance(operand.type, UnknownType):
                return error_value(span)
            if not isinstance(operand.type, ScalarType):
                self.error(
                    "E109",
                    f"abs() needs a scalar, got {operand.type.short()}; use pl.abs(tile)",
                    node.args[0],
                )
                return error_value(span)
            return Unary(operand.type, op=UnaryOp.Abs, operand=operand, span=span)
        lhs, rhs = self.lower_expr(node.args[0]), self.lower_expr(node.args[1])
        op = BinaryOp.Min if name == "min" else BinaryOp.Max
        return self.scalar_binary(op, lhs, rhs, node, node.args[1], left_node=node.args[0])

    def lower_function_call(
        self, node: ast.Call, name: str, name_span: Span, *, method: bool, external: bool = False
    ) -> Expr:
        span = self.span(node)
        sig = self.env.external_functions.get(name) if external else self.signatures.get(name)
        if sig is None:
            candidates = list(self.signatures)
            matches = difflib.get_close_matches(name, candidates, n=3, cutoff=0.6)
            message = f"Function '{name}' is not defined in this program"
            fixes: tuple[Fix, ...] = ()
            if matches:
                message += f"; did you mean '{matches[0]}'?"
                fixes = replacement_fixes(name_span, matches)
            self.error("E203", message, name_span, fixes=fixes)
            for arg in node.args:
                self.lower_expr(arg)
            return error_value(span)
        if external and name not in self.state.external_calls:
            self.state.external_calls.append(name)
        if self.signature.func_type is FunctionType.InCore:
            # Each InCore function is a kernel of its own: neither generator emits a call in one.
            kind = "InCore " if sig.func_type is FunctionType.InCore else ""
            self.error(
                "E400",
                f"the InCore kernel '{self.signature.name}' cannot call the {kind}"
                f"function '{name}': make '{name}' a @pl.inline function, or call both "
                "from an Orchestration function",
                name_span,
                related=(Related(sig.name_span, f"'{name}' is defined here"),),
            )
        self.occurrence(
            Occurrence(
                name_span,
                name,
                OccurrenceKind.FUNCTION,
                sig.result_type,
                definition=sig.name_span,
                detail=sig.describe(),
            )
        )
        if node.keywords:
            self.error("E302", f"'{name}' takes positional arguments only", node.keywords[0])
        args = [self.lower_expr(a) for a in node.args]
        if len(args) != len(sig.params):
            self.error(
                "E206",
                f"'{name}' expects {len(sig.params)} argument(s), got {len(args)}",
                node,
                related=(Related(sig.name_span, f"'{name}' is defined here"),),
            )
        for value, arg_node, param in zip(args, node.args, sig.params, strict=False):
            if param.type is not None:
                self.check_argument(value.type, arg_node, param, sig)
        result_type = sig.result_type or UNKNOWN
        if sig.return_types == []:
            result_type = UNKNOWN
        return Call(result_type, callee=GlobalVar(name), args=tuple(args), span=span)

    def check_argument(
        self, actual: Type, arg_node: ast.expr, param: ParamInfo, callee: FunctionSignature
    ) -> None:
        """Kinds and dtypes must agree (E111). Shapes only when they provably differ: a dimension
        known only at run time may well be the declared one. An Orchestration function handing an
        InCore kernel a different static shape compiles in the original: W009."""
        expected = param.type
        assert expected is not None
        if types_match(expected, actual):
            return
        related = (Related(param.span, f"parameter '{param.name}' is declared here"),)
        message = f"argument '{param.name}' of '{callee.name}' must be {expected.short()}, got {actual.short()}"
        if (
            isinstance(expected, ShapedType)
            and isinstance(actual, ShapedType)
            and type(expected) is type(actual)
            and expected.dtype is actual.dtype
        ):
            if not shapes_provably_differ(expected.shape, actual.shape):
                return
            if (
                self.signature.func_type is FunctionType.Orchestration
                and callee.func_type is FunctionType.InCore
            ):
                self.error(
                    "W009",
                    message + "; the kernel sees the declared shape",
                    arg_node,
                    related=related,
                )
                return
        self.error("E111", message, arg_node, related=related)

    def expand_inline(self, node: ast.Call, name: str) -> Expr:
        raise NotImplementedError  # provided by the statement lowerer

    # --- DSL calls ----------------------------------------------------------------------------
    def lower_dsl_call(self, node: ast.Call, path: tuple[str, ...]) -> Expr:
        span = self.span(node)
        head = path[-1]
        if len(path) == 1 and head in HELPER_NAMES:
            return self.lower_helper_call(node, head)
        if len(path) == 1 and head in TYPE_NAMES:
            self.error("E011", f"pl.{head}(...) is a type, not a value", node.func)
            return error_value(span)
        namespace = path[:-1]
        if namespace not in (
            (),
            ("block",),
            ("tensor",),
            ("op", "block"),
            ("op", "tensor"),
            ("system",),
            ("op",),
        ):
            self.error("E300", f"Unknown operation namespace `{'.'.join(path[:-1])}`", node.func)
            return error_value(span)
        if namespace == ("op",):
            namespace = ()
        first_types = [self.peek_type(a) for a in node.args[:2]]
        resolution = resolve_op(namespace, head, first_types)
        name_span = (
            self.env.source.attr_name_span(node.func)
            if isinstance(node.func, ast.Attribute)
            else self.span(node.func)
        )
        if resolution.scalar_binary is not None:
            if len(node.args) != 2 or node.keywords:
                self.error("E302", f"pl.{head} on scalars takes exactly two arguments", node)
                return error_value(span)
            lhs, rhs = self.lower_expr(node.args[0]), self.lower_expr(node.args[1])
            return self.scalar_binary(
                resolution.scalar_binary, lhs, rhs, node, node.args[1], left_node=node.args[0]
            )
        op = resolution.op
        if op is None:
            if resolution.code:
                fixes = replacement_fixes(name_span, resolution.suggestions)
                message = resolution.message or f"Unknown operation '{head}'"
                self.error(
                    resolution.code,
                    message,
                    name_span if resolution.code == "E300" else node,
                    fixes=fixes,
                )
            for arg in node.args:
                self.peek_type(arg)
            return error_value(span)
        if resolution.legacy and isinstance(node.func, ast.Attribute):
            # pl.op.block.X -> pl.block.X
            new = f"{self.env.source.segment(node.func).split('.')[0]}.{op.namespace}.{head}"
            self.legacy_spelling(
                f"legacy namespace `{self.env.source.segment(node.func)}`",
                self.span(node.func),
                new,
            )
        if not op.dsl_visible:
            self.error(
                "E301", f"'{op.name}' is internal and cannot be called from the DSL", name_span
            )
            return error_value(span)
        result = self.lower_op_call(node, op, name_span)
        self.occurrence(
            Occurrence(self.span(node.func), head, OccurrenceKind.OP, result.type, op_name=op.name)
        )
        return result

    def peek_type(self, node: ast.expr) -> Type:
        """The type of a positional argument for dispatch; attribute-like arguments (dtypes,
        strings, enums) have none and are not lowered as values."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return UNKNOWN
        path = self.path(node) if isinstance(node, ast.Attribute | ast.Name) else None
        if path is not None and dsl_enum_value(path) is not None:
            return UNKNOWN
        if (
            isinstance(node, ast.Name)
            and node.id not in self.state.scope
            and node.id in DTYPE_BY_NAME
        ):
            return UNKNOWN
        if isinstance(node, ast.Subscript) and self.constant_subscript(node):
            try:  # CFG["dtype"]: an attribute value, not an operand
                value = self.env.consts.evaluate(node)
            except NotConstant:
                value = None
            if isinstance(value, Enum):  # a dtype, memory space, layout ...
                return UNKNOWN
        return self.lower_expr(node).type

    def bind_arguments(
        self, node: ast.Call, params: tuple[Param, ...], op_name: str
    ) -> tuple[dict[str, ast.expr], list[str]] | None:
        """Bind call arguments to parameters like Python does. Returns (bound, problems)."""
        bound: dict[str, ast.expr] = {}
        problems: list[str] = []
        if len(node.args) > len(params):
            problems.append("too_many")
        for param, arg in zip(params, node.args, strict=False):
            bound[param.name] = arg
        names = [p.name for p in params]
        for keyword in node.keywords:
            if keyword.arg is None:
                problems.append("starstar")
                continue
            if keyword.arg not in names:
                problems.append(f"unknown:{keyword.arg}")
                continue
            if keyword.arg in bound:
                problems.append(f"dup:{keyword.arg}")
                continue
            bound[keyword.arg] = keyword.value
        for param in params:
            if param.required and param.name not in bound:
                problems.append(f"missing:{param.name}")
        return bound, problems

    def report_binding(self, node: ast.Call, op: OpDef, problems: list[str]) -> None:
        params = op.params
        for problem in problems:
            if problem == "too_many":
                extra = node.args[len(params)]
                self.error(
                    "E302",
                    f"{op.name} takes at most {len(params)} positional argument(s), got {len(node.args)}; "
                    f"signature: {op.signature()}",
                    self.span(extra).merge(self.span(node.args[-1])),
                )
            elif problem == "starstar":
                self.error("E302", "**kwargs is not supported in op calls", node)
            elif problem.startswith("unknown:"):
                key = problem.split(":", 1)[1]
                keyword = next(k for k in node.keywords if k.arg == key)
                names = [p.name for p in params]
                matches = difflib.get_close_matches(key, names, n=1, cutoff=0.5)
                kw_span = Span(
                    self.env.source.path,
                    keyword.lineno,
                    self.env.source.char_column(keyword.lineno, keyword.col_offset),
                    keyword.lineno,
                    self.env.source.char_column(keyword.lineno, keyword.col_offset) + len(key),
                )
                fixes = replacement_fixes(kw_span, matches)
                hint = (
                    f"; did you mean '{matches[0]}'?"
                    if matches
                    else f"; parameters: {', '.join(names)}"
                )
                self.error(
                    "E302",
                    f"{op.name} got an unexpected keyword argument '{key}'{hint}",
                    kw_span,
                    fixes=fixes,
                )
            elif problem.startswith("dup:"):
                key = problem.split(":", 1)[1]
                keyword = next(k for k in node.keywords if k.arg == key)
                self.error("E302", f"{op.name} got multiple values for argument '{key}'", keyword)
            elif problem.startswith("missing:"):
                key = problem.split(":", 1)[1]
                self.error(
                    "E302",
                    f"{op.name} is missing required argument '{key}'; signature: {op.signature()}",
                    node,
                )

    def lower_op_call(self, node: ast.Call, op: OpDef, name_span: Span) -> Expr:
        span = self.span(node)
        if (
            op.category is Category.BLOCK
            and self.signature.func_type is FunctionType.Orchestration
            and not self.state.incore_scopes
        ):
            self.error(
                "W024",
                f"{op.name} in the Orchestration function '{self.signature.name}' is "
                "not executed: code generation emits block ops only in InCore code; move it "
                "into an InCore function or a `with pl.incore():` block",
                name_span,
            )
        params = op.params
        bound, problems = self.bind_arguments(node, params, op.name)  # type: ignore[misc]
        use_legacy = False
        if problems and op.legacy is not None:
            legacy_bound, legacy_problems = self.bind_arguments(node, op.legacy.params, op.name)  # type: ignore[misc]
            if not legacy_problems:
                bound, problems, params, use_legacy = legacy_bound, [], op.legacy.params, True
        if problems:
            self.report_binding(node, op, problems)
            for arg in node.args:
                self.peek_type(arg)
            return error_value(span)
        arg_nodes: dict[str, ast.expr] = {}
        exprs: dict[str, Expr] = {}
        attrs: dict[str, AttrValue] = {}
        failed = False
        for param in params:
            if param.name not in bound:
                continue
            arg_node = bound[param.name]
            arg_nodes[param.name] = arg_node
            if param.kind is ParamKind.ATTR:
                ok, value = self.attr_value(arg_node, param, op)
                if not ok:
                    failed = True
                    continue
                attrs[param.name] = value
            else:
                exprs[param.name] = self.lower_expr(arg_node)
        if failed:
            return error_value(span)
        if use_legacy and op.legacy is not None:
            exprs = op.legacy.convert(exprs)
            self.legacy_call_note(node, op, bound)
        warnings: list[OpError] = []
        try:
            result_type = op.deduce(exprs, attrs, warnings, self.state.loop_ranges)
        except OpError as error:
            self.report_op_error(error, arg_nodes, exprs, span)
            result_type = UNKNOWN
        for warning in warnings:
            self.report_op_error(warning, arg_nodes, exprs, span)
        args = tuple(
            exprs[p.name] for p in op.params if p.kind is ParamKind.EXPR and p.name in exprs
        )
        # Canonical attributes: every attribute present, defaults filled, in parameter order, so a
        # call spelled with or without an explicit default is the same IR.
        for p in op.params:
            if p.kind is ParamKind.ATTR and p.name not in attrs and not p.required:
                attrs[p.name] = p.default
        kwargs = tuple(
            (p.name, attrs[p.name])
            for p in op.params
            if p.kind is ParamKind.ATTR and p.name in attrs
        )
        return Call(result_type, callee=Op(op.name), args=args, kwargs=kwargs, span=span)

    def report_op_error(
        self, error: OpError, arg_nodes: dict[str, ast.expr], exprs: dict[str, Expr], span: Span
    ) -> None:
        """A type rule's error or warning, on the argument it names, with where that argument's
        value was defined."""
        at_node = arg_nodes.get(error.at) if error.at else None
        target: ast.AST | Span = at_node if at_node is not None else span
        related: tuple[Related, ...] = ()
        if at_node is not None:
            source_value = exprs.get(error.at or "")
            if (
                isinstance(source_value, Var)
                and source_value.span.is_known
                and source_value.span != self.span(at_node)
            ):
                related = (
                    Related(
                        source_value.span,
                        f"'{source_value.name}' is defined here as {source_value.type.short()}",
                    ),
                )
        self.error(error.code, error.message, target, related=related)

    def legacy_call_note(self, node: ast.Call, op: OpDef, bound: dict[str, ast.expr]) -> None:
        """An op's legacy positional form (seed 004's load/store): suggest the current form,
        regrouping the arguments as the op's ``LegacyForm.regroup`` says."""
        seg = self.env.source.segment
        args = list(node.args)
        legacy = op.legacy
        if legacy is None or not legacy.regroup or len(args) != len(legacy.params):
            return
        groups = [
            seg(args[g]) if isinstance(g, int) else "[" + ", ".join(seg(args[i]) for i in g) + "]"
            for g in legacy.regroup
        ]
        new_args = ", ".join(groups)
        arg_span = self.span(args[0]).merge(self.span(args[-1]))
        self.error(
            "W003",
            f"legacy positional form of {op.name}; the current form is `({new_args})`",
            arg_span,
            fixes=(
                Fix(
                    "Rewrite with offset and shape lists",
                    (TextEdit(arg_span, new_args),),
                    preferred=True,
                ),
            ),
        )

    def attr_value(self, node: ast.expr, param: Param, op: OpDef) -> tuple[bool, AttrValue]:
        """Evaluate a compile-time attribute argument; report E306/E309 when it is not one."""
        value: Any
        try:
            value = self._attr_eval(node)
        except NotConstant as problem:
            if isinstance(node, ast.Name) and node.id in self.state.scope:
                self.error(
                    "E309",
                    f"{op.name}: '{param.name}' must be a compile-time constant, not the variable '{node.id}'",
                    node,
                )
            else:
                self.error(
                    "E309",
                    f"{op.name}: '{param.name}' must be a compile-time constant ({problem.reason})",
                    node,
                )
            return False, None
        if param.attr_types:
            ok = any(
                isinstance(value, t)
                and not (isinstance(value, bool) and t is int and bool not in param.attr_types)
                for t in param.attr_types
            )
            if (
                not ok
                and float in param.attr_types
                and isinstance(value, int)
                and not isinstance(value, bool)
            ):
                value, ok = float(value), True
            if not ok:
                wanted = " or ".join(t.__name__ for t in param.attr_types)
                self.error(
                    "E306",
                    f"{op.name}: '{param.name}' must be {wanted}, got {self.env.source.segment(node)}",
                    node,
                )
                return False, None
        return True, value

    def _attr_eval(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str)):
            return node.value
        if isinstance(node, ast.Attribute | ast.Name):
            path = self.path(node)
            if path is not None:
                value = dsl_enum_value(path)
                if value is None and len(path) == 1:
                    value = dsl_enum_value(path[-1:])
                if isinstance(value, MemorySpace) and path[-1] != value.name:
                    self.legacy_memory_space(node, value)
                if value is not None:
                    return value
            if isinstance(node, ast.Attribute) and node.attr in MEMORY_SPACE_BY_NAME:
                chain = self.env.source.segment(node)
                if chain.endswith("MemorySpace." + node.attr):
                    value = MEMORY_SPACE_BY_NAME[node.attr]
                    if node.attr != value.name:
                        self.legacy_memory_space(node, value)
                    return value
            if isinstance(node, ast.Name) and node.id in self.state.scope:
                raise NotConstant("a variable")
        if isinstance(node, ast.List | ast.Tuple):
            return tuple(self._attr_eval(e) for e in node.elts)
        return self.env.consts.evaluate(node)

    def legacy_memory_space(self, node: ast.Attribute | ast.Name, value: MemorySpace) -> None:
        if not isinstance(node, ast.Attribute):
            return
        name_span = self.env.source.attr_name_span(node)
        self.error(
            "W003",
            f"`{node.attr}` is the seed name of memory space `{value.name}`",
            name_span,
            fixes=(
                Fix(
                    f"Rename to `{value.name}`", (TextEdit(name_span, value.name),), preferred=True
                ),
            ),
        )

    def lower_helper_call(self, node: ast.Call, head: str) -> Expr:
        span = self.span(node)
        if head == "const":
            return self.lower_const(node)
        if head in ("range", "parallel", "while_"):
            self.error("E004", f"pl.{head}(...) is only allowed as a for-loop iterator", node)
        elif head == "cond":
            self.error(
                "E014",
                "pl.cond(...) is only allowed as the first statement of a pl.while_ loop",
                node,
            )
        elif head == "yield_":
            self.error(
                "E014",
                "pl.yield_(...) must be a statement of its own (optionally assigned to names)",
                node,
            )
        elif head == "incore":
            self.error("E013", "pl.incore() is only allowed as `with pl.incore():`", node)
        elif head == "dynamic":
            self.error(
                "E104",
                'pl.dynamic(...) is only allowed at module level (N = pl.dynamic("N"))',
                node,
            )
        return error_value(span)

    def lower_const(self, node: ast.Call) -> Expr:
        span = self.span(node)
        if len(node.args) != 2 or node.keywords:
            self.error("E302", "pl.const takes exactly two arguments: pl.const(value, dtype)", node)
            return error_value(span)
        value_node, dtype_node = node.args
        raw: Any = None
        if isinstance(value_node, ast.Constant):
            raw = value_node.value
        elif (
            isinstance(value_node, ast.UnaryOp)
            and isinstance(value_node.op, ast.USub)
            and isinstance(value_node.operand, ast.Constant)
        ):
            operand = value_node.operand.value
            raw = (
                -operand
                if isinstance(operand, int | float) and not isinstance(operand, bool)
                else None
            )
        if isinstance(raw, bool) or not isinstance(raw, int | float):
            self.error("E302", "pl.const needs a number literal as its first argument", value_node)
            return error_value(span)
        dtype = self.env.types.dtype(dtype_node)
        if dtype is None:
            return error_value(span)
        if dtype.is_bool:
            return ConstBool(ScalarType(dtype), value=bool(raw), span=span)
        if dtype.is_float:
            return ConstFloat(ScalarType(dtype), value=float(raw), span=span)
        if isinstance(raw, float):
            self.error(
                "E306",
                f"pl.const: {raw} is not an integer but the dtype is {dtype.name}",
                value_node,
            )
            return error_value(span)
        return ConstInt(ScalarType(dtype), value=raw, span=span)
