"""Expressions, with the fewest parentheses Python's precedence rules allow."""

from __future__ import annotations

from enum import Enum

from ..editions import RULES, Edition
from ..ir.dtype import DataType
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
    IterArg,
    MakeTuple,
    Op,
    Submit,
    TupleGetItem,
    Unary,
    UnaryOp,
    Var,
)
from ..ir.types import ScalarType, TensorLayout
from ..ir.visitor import IRVisitor
from ..ops.registry import REGISTRY, EditionForm
from .context import FreeNames
from .literals import float_literal, string_literal
from .op_names import edition_form, form_arguments, op_spelling, shown_kwargs, value_arguments
from .type_text import TypePrinter

ATOM = 16  # names, literals, calls, subscripts, lists: never need parentheses
UNARY = 13  # -x, ~x (and negative literals, which read back as a negation)

_CALL_FORMS = {BinaryOp.Min: "min", BinaryOp.Max: "max"}


# --- precedence: the only place that decides about parentheses ---------------------------


def precedence(e: Expr, int_literal: DataType = DataType.INT64) -> int:
    if isinstance(e, Binary):
        return e.op.precedence
    if isinstance(e, Unary):
        return e.op.precedence
    if (
        isinstance(e, ConstInt | ConstFloat)
        and is_plain_literal(e, int_literal)
        and _is_negative(e.value)
    ):
        return UNARY
    return ATOM


def binary_operand_needs_parens(
    op: BinaryOp, operand: Expr, *, right: bool, int_literal: DataType = DataType.INT64
) -> bool:
    if op in _CALL_FORMS:
        return False
    mine, theirs = op.precedence, precedence(operand, int_literal)
    if op is BinaryOp.Pow:
        # Right-associative, and the exponent may itself be a negation (x ** -y).
        return theirs < UNARY if right else theirs <= mine
    if op.is_comparison:
        # Python chains comparisons: (a < b) < c is not a < b < c.
        return theirs <= mine
    # Left-associative: an equal-precedence right operand keeps its parentheses.
    return theirs <= mine if right else theirs < mine


def unary_operand_needs_parens(
    op: UnaryOp, operand: Expr, int_literal: DataType = DataType.INT64
) -> bool:
    if op in (UnaryOp.Abs, UnaryOp.Cast):
        return False
    if op is not UnaryOp.Not and isinstance(operand, Binary) and operand.op is BinaryOp.Pow:
        return True  # -(a**b): black adds these parentheses for clarity
    return precedence(operand, int_literal) < op.precedence


def is_plain_literal(e: ConstInt | ConstFloat, int_literal: DataType = DataType.INT64) -> bool:
    """Whether a constant prints as a bare literal (its dtype is the literal default: FP32,
    and for integers the edition's ``EditionRules.int_literal_dtype``; spec §16: 2026-08
    prints INDEX bare and any other integer dtype as ``pl.const(v, pl.DT)``). INDEX is bare
    in 2026-03 too: a bare integer there is the INT64 that 2026-03 reads ``pl.INDEX`` as."""
    if not isinstance(e.type, ScalarType):
        return True
    if isinstance(e, ConstFloat):
        return e.type.dtype is DataType.FP32
    return e.type.dtype is int_literal or e.type.dtype is DataType.INDEX


def _is_negative(value: float) -> bool:
    return value < 0 or (value == 0 and str(value).startswith("-"))


def _is_simple_power_operand(
    e: Expr, *, right: bool, int_literal: DataType = DataType.INT64
) -> bool:
    """Black hugs ``**`` (``x**2``) when the tokens touching it are names or numbers: the
    base's last token and the exponent's first (which may follow a sign: ``x**-1``)."""
    if isinstance(e, Var | ConstBool):
        return True
    if isinstance(e, ConstInt | ConstFloat) and is_plain_literal(e, int_literal):
        return right or not _is_negative(e.value)
    if not right:
        return False
    if isinstance(e, Unary) and e.op in (UnaryOp.Neg, UnaryOp.BitNot):
        return not unary_operand_needs_parens(
            e.op, e.operand, int_literal
        ) and _is_simple_power_operand(e.operand, right=False, int_literal=int_literal)
    if isinstance(e, Binary) and e.op is BinaryOp.Pow:  # a**b**c: the exponent starts with b
        return _is_simple_power_operand(e.lhs, right=False, int_literal=int_literal)
    return False


# --- the printer ---------------------------------------------------------------------------


class ExprPrinter(IRVisitor):
    """Prints expressions and types. ``self_calls`` spells program calls ``self.f(...)``
    (inside a ``@pl.program`` class) rather than ``f(...)``."""

    def __init__(
        self,
        prefix: str = "pl",
        *,
        self_calls: bool = True,
        free: FreeNames | None = None,
        edition: Edition = Edition.V2026_03,
    ) -> None:
        self.prefix = prefix
        self.edition = edition
        self.int_literal = RULES[edition].int_literal_dtype  # bare integers' dtype
        self.self_calls = self_calls
        self.free = free if free is not None else FreeNames()

    @property
    def types(self) -> TypePrinter:
        """Types, with dimensions printed by ``dim``: made when asked, as keeping one would tie
        this printer into a reference cycle (it to its type printer to its bound ``dim``),
        garbage for the collector after every hover in the server (issue #33)."""
        return TypePrinter(self.prefix, self.dim)

    def expr(self, e: Expr | None) -> str:
        if not isinstance(e, Expr):  # a hole in malformed IR: print something, never raise
            return "None"
        text = self.visit(e)
        return text if isinstance(text, str) else "None"

    def operand(self, e: Expr, parenthesise: bool) -> str:
        text = self.expr(e)
        return f"({text})" if parenthesise else text

    def dim(self, d: Expr) -> str:
        """A shape dimension. Dimensions are INDEX-typed, so constants print bare."""
        if isinstance(d, ConstInt):
            return str(d.value)
        return self.expr(d)

    # names and literals

    def visit_Var(self, node: Var) -> str:
        self.free.note(node)
        return node.name

    def visit_IterArg(self, node: IterArg) -> str:
        return self.visit_Var(node)

    def visit_ConstInt(self, node: ConstInt) -> str:
        return self._constant(node, str(node.value))

    def visit_ConstFloat(self, node: ConstFloat) -> str:
        return self._constant(node, float_literal(node.value))

    def visit_ConstBool(self, node: ConstBool) -> str:
        return "True" if node.value else "False"

    def _constant(self, node: ConstInt | ConstFloat, literal: str) -> str:
        if is_plain_literal(node, self.int_literal):
            return literal
        assert isinstance(node.type, ScalarType)
        return f"{self.prefix}.const({literal}, {self.types.dtype(node.type.dtype)})"

    # operators

    def visit_Binary(self, node: Binary) -> str:
        if node.op in _CALL_FORMS:
            return f"{_CALL_FORMS[node.op]}({self.expr(node.lhs)}, {self.expr(node.rhs)})"
        literal, op = self.int_literal, node.op
        lhs_parens = binary_operand_needs_parens(op, node.lhs, right=False, int_literal=literal)
        rhs_parens = binary_operand_needs_parens(op, node.rhs, right=True, int_literal=literal)
        lhs = self.operand(node.lhs, lhs_parens)
        rhs = self.operand(node.rhs, rhs_parens)
        if node.op is BinaryOp.Pow and (
            _is_simple_power_operand(node.lhs, right=False, int_literal=literal)
            and _is_simple_power_operand(node.rhs, right=True, int_literal=literal)
        ):
            return f"{lhs}**{rhs}"
        return f"{lhs} {node.op.symbol} {rhs}"

    def visit_Unary(self, node: Unary) -> str:
        parens = unary_operand_needs_parens(node.op, node.operand, self.int_literal)
        operand = self.operand(node.operand, parens)
        if node.op is UnaryOp.Abs:
            return f"abs({operand})"
        if node.op is UnaryOp.Cast:
            assert isinstance(node.type, ScalarType)
            return f"{self.prefix}.cast({operand}, {self.types.dtype(node.type.dtype)})"
        if node.op is UnaryOp.Not:
            return f"not {operand}"
        return f"{node.op.symbol}{operand}"

    # calls and tuples

    def visit_Call(self, node: Call) -> str:
        if isinstance(node.callee, GlobalVar):
            callee = f"self.{node.callee.name}" if self.self_calls else node.callee.name
            args = [self.expr(a) for a in node.args]
            # ``device=r`` (a HOST orchestrator's rank dispatch) keeps its source text
            args += [f"{k}={v}" if k == "device" else f"{k}={self.attr(v)}" for k, v in node.kwargs]
            return f"{callee}({', '.join(args)})"
        namespace, name = op_spelling(node.callee.name, self.edition)
        callee = ".".join(part for part in (self.prefix, namespace, name) if part)
        if node.callee.name.startswith("pld."):  # distributed PyPTO: pld.<group>.X
            callee = node.callee.name
        kwargs = shown_kwargs(node.callee.name, node.kwargs)
        form = self.form_of(node)
        if form is not None:
            args = form_arguments(form, REGISTRY.ops[node.callee.name], node, self.expr)
            args += [f"{key}={self.attr(value)}" for key, value in kwargs]
            return f"{callee}({', '.join(args)})"
        opdef = REGISTRY.get(node.callee.name)
        if opdef is not None and len(node.args) <= len(opdef.expr_names):
            args = value_arguments(opdef.params, opdef.bind(node.args), self.expr)
        else:
            args = [self.expr(a) for a in node.args]
        args += [f"{key}={self.attr(value)}" for key, value in kwargs]
        return f"{callee}({', '.join(args)})"

    def visit_Submit(self, node: Submit) -> str:
        helper = "spmd_submit" if node.spmd else "submit"
        kernel = f"self.{node.kernel.name}" if self.self_calls else node.kernel.name
        args = [kernel, *(self.expr(a) for a in node.args)]
        if node.core_num is not None:
            args.append(f"core_num={self.expr(node.core_num)}")
        if node.deps:
            args.append("deps=[" + ", ".join(self.expr(d) for d in node.deps) + "]")
        if node.predicate is not None:
            args.append(f"predicate=({self.predicate(node.predicate)})")
        args += [f"{key}={self.attr(value)}" for key, value in node.kwargs]
        return f"{self.prefix}.{helper}({', '.join(args)})"

    def predicate(self, node: Expr) -> str:
        """A submit's ``t[i, j] OP k``, written as a subscript (the only form it parses from)."""
        read = node.lhs if isinstance(node, Binary) else None
        if isinstance(read, Call) and isinstance(read.callee, Op) and read.op_name.endswith("read"):
            tensor, indices = read.args[0], read.args[1]
            elements = indices.elements if isinstance(indices, MakeTuple) else (indices,)
            index = ", ".join(self.expr(e) for e in elements)
            assert isinstance(node, Binary)
            return f"{self.expr(tensor)}[{index}] {node.op.symbol} {self.expr(node.rhs)}"
        return self.expr(node)

    def form_of(self, node: Call) -> EditionForm | None:
        """The edition's own form of the called op, when it spells the arguments otherwise."""
        if self.edition is Edition.V2026_03:
            return None
        opdef = REGISTRY.get(node.callee.name)
        form = edition_form(opdef, self.edition) if opdef is not None else None
        if form is None or opdef is None:
            return None
        # A form is the spelling it is written with: a renamed op prints with its new name's
        # parameters (2026-08's ``tensor.slice`` is 2026-03's window ``view``, not its form).
        renamed = any(o is self.edition and not n.startswith("pl.") for n, o in opdef.edition_names)
        return None if renamed and form.spelled is None else form

    def visit_MakeTuple(self, node: MakeTuple) -> str:
        return "[" + ", ".join(self.expr(e) for e in node.elements) + "]"

    def visit_TupleGetItem(self, node: TupleGetItem) -> str:
        parens = precedence(node.tuple_value, self.int_literal) < ATOM
        value = self.operand(node.tuple_value, parens)
        return f"{value}[{node.index}]"

    def attr(self, value: AttrValue | object) -> str:
        """An op attribute value as a Python expression."""
        if value is None or isinstance(value, bool):
            return repr(value)
        if isinstance(value, int):
            return str(value)
        if isinstance(value, float):
            return float_literal(value)
        if isinstance(value, str):
            return string_literal(value)
        if isinstance(value, DataType):
            return self.types.dtype(value)
        if isinstance(value, TensorLayout):
            return f"{self.prefix}.{value.name}"
        if isinstance(value, Enum):  # MemorySpace, PipeType, BLayout, PadMode, ...
            return f"{self.prefix}.{type(value).__name__}.{value.name}"
        if isinstance(value, tuple | list):
            return "[" + ", ".join(self.attr(v) for v in value) + "]"
        if isinstance(value, Expr):
            return self.expr(value)
        return repr(value)
