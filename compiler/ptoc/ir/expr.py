"""Expressions. Nodes are immutable; identity is the node itself (use
``ptoc.ir.equality.structural_equal`` to compare structure)."""

from __future__ import annotations

from enum import Enum
from typing import ClassVar, Union

from ..records import field, record
from .dtype import DataType, promote
from .fields import OPERAND, ChildFields, declare
from .span import NO_SPAN, Span
from .types import MemorySpace, ScalarType, TupleType, Type


@record(frozen=True, slots=True, eq=False)
class Expr:
    type: Type
    span: Span = field(default=NO_SPAN, kw_only=True)

    #: The fields holding child nodes, with their roles (see ``ptoc.ir.fields``).
    CHILDREN: ClassVar[ChildFields] = ()


@record(frozen=True, slots=True, eq=False)
class Var(Expr):
    """A named value. Each definition is a distinct Var object."""

    name: str = ""

    def __repr__(self) -> str:
        return f"Var({self.name}: {self.type.short()})"


@record(frozen=True, slots=True, eq=False)
class IterArg(Var):
    """A loop-carried value: bound to ``init_value`` on entry, to the yielded value after."""

    init_value: Expr | None = None

    CHILDREN = declare(init_value=OPERAND)


@record(frozen=True, slots=True, eq=False)
class ConstInt(Expr):
    value: int = 0

    @property
    def dtype(self) -> DataType:
        assert isinstance(self.type, ScalarType)
        return self.type.dtype

    def __repr__(self) -> str:
        return f"ConstInt({self.value})"


@record(frozen=True, slots=True, eq=False)
class ConstFloat(Expr):
    value: float = 0.0

    @property
    def dtype(self) -> DataType:
        assert isinstance(self.type, ScalarType)
        return self.type.dtype


@record(frozen=True, slots=True, eq=False)
class ConstBool(Expr):
    value: bool = False


class BinaryOp(Enum):
    """Scalar binary operators of seed 003. Value: (Python spelling, precedence, is_comparison)."""

    Add = ("+", 11, False)
    Sub = ("-", 11, False)
    Mul = ("*", 12, False)
    FloorDiv = ("//", 12, False)
    FloorMod = ("%", 12, False)
    FloatDiv = ("/", 12, False)
    Pow = ("**", 14, False)
    Eq = ("==", 6, True)
    Ne = ("!=", 6, True)
    Lt = ("<", 6, True)
    Le = ("<=", 6, True)
    Gt = (">", 6, True)
    Ge = (">=", 6, True)
    And = ("and", 4, False)
    Or = ("or", 3, False)
    Xor = ("^", 8, False)
    BitAnd = ("&", 9, False)
    BitOr = ("|", 7, False)
    Shl = ("<<", 10, False)
    Shr = (">>", 10, False)
    Min = ("min", 16, False)
    Max = ("max", 16, False)

    @property
    def symbol(self) -> str:
        return self.value[0]

    @property
    def precedence(self) -> int:
        return self.value[1]

    @property
    def is_comparison(self) -> bool:
        return self.value[2]


class UnaryOp(Enum):
    Neg = ("-", 13)
    BitNot = ("~", 13)
    Not = ("not", 5)
    Abs = ("abs", 16)
    # A scalar conversion (2026-08's scalar ``pl.cast``): the target dtype is the node's type.
    Cast = ("cast", 16)

    @property
    def symbol(self) -> str:
        return self.value[0]

    @property
    def precedence(self) -> int:
        return self.value[1]


@record(frozen=True, slots=True, eq=False)
class Binary(Expr):
    op: BinaryOp = BinaryOp.Add
    lhs: Expr = None  # type: ignore[assignment]
    rhs: Expr = None  # type: ignore[assignment]

    CHILDREN = declare(lhs=OPERAND, rhs=OPERAND)


@record(frozen=True, slots=True, eq=False)
class Unary(Expr):
    op: UnaryOp = UnaryOp.Neg
    operand: Expr = None  # type: ignore[assignment]

    CHILDREN = declare(operand=OPERAND)


@record(frozen=True, slots=True)
class Op:
    """A reference to a registered operator by its IR name (e.g. ``block.add``)."""

    name: str


@record(frozen=True, slots=True)
class GlobalVar:
    """A reference to a function of the program by name."""

    name: str


# Values an op attribute (keyword argument) may hold.
# Enum covers PipeType and the other attribute enums. (A recursive alias needs Union.)
AttrValue = Union[int, float, bool, str, DataType, MemorySpace, Enum, None, tuple["AttrValue", ...]]  # noqa: UP007


@record(frozen=True, slots=True, eq=False)
class Call(Expr):
    callee: Op | GlobalVar = None  # type: ignore[assignment]
    args: tuple[Expr, ...] = ()
    kwargs: tuple[tuple[str, AttrValue], ...] = ()

    CHILDREN = declare(args=OPERAND)

    def kwarg(self, name: str, default: AttrValue = None) -> AttrValue:
        for key, value in self.kwargs:
            if key == name:
                return value
        return default

    @property
    def op_name(self) -> str:
        return self.callee.name


@record(frozen=True, slots=True, eq=False)
class Submit(Expr):
    """2026-08's ``pl.submit(self.k, args..., deps=[...])`` / ``pl.spmd_submit(...,
    core_num=N)``: the kernel launched as a task. Its type is ``tuple[<the kernel's result>,
    TaskId]``. ``deps`` holds the TaskId and TaskId-array entries (``None`` entries dropped),
    ``predicate`` the ``tensor[i] CMP k`` guard, ``kwargs`` the constant keywords."""

    kernel: GlobalVar = None  # type: ignore[assignment]
    args: tuple[Expr, ...] = ()
    deps: tuple[Expr, ...] = ()
    predicate: Expr | None = None
    core_num: Expr | None = None  # spmd_submit's width
    kwargs: tuple[tuple[str, AttrValue], ...] = ()
    # The region helper (``at``) a launch was outlined from, empty for a ``pl.submit``:
    # what a diagnostic about the launch names.
    region: str = ""

    CHILDREN = declare(args=OPERAND, deps=OPERAND, predicate=OPERAND, core_num=OPERAND)

    @property
    def spmd(self) -> bool:
        return self.core_num is not None


@record(frozen=True, slots=True, eq=False)
class MakeTuple(Expr):
    elements: tuple[Expr, ...] = ()

    CHILDREN = declare(elements=OPERAND)


@record(frozen=True, slots=True, eq=False)
class TupleGetItem(Expr):
    tuple_value: Expr = None  # type: ignore[assignment]
    index: int = 0

    CHILDREN = declare(tuple_value=OPERAND)


def const_int(value: int, dtype: DataType = DataType.INT64, span: Span = NO_SPAN) -> ConstInt:
    return ConstInt(ScalarType(dtype), value=value, span=span)


def make_tuple(elements: tuple[Expr, ...], span: Span = NO_SPAN) -> MakeTuple:
    return MakeTuple(TupleType(tuple(e.type for e in elements)), elements=elements, span=span)


def paired_constant(expr: Expr) -> bool:
    """An INDEX constant (2026-08's int literal): paired with another operand it takes that
    operand's dtype and joins no promotion (spec §4: an INT32 tile or scalar plus 1 stays
    INT32). 2026-03's int literal is INT64, which promotes."""
    return isinstance(expr, ConstInt) and expr.dtype is DataType.INDEX


def operands_dtype(lhs: Expr, rhs: Expr) -> DataType:
    """The dtype two integer or float scalar operands are combined in: their promotion, but an
    INDEX constant beside another integer takes that integer's dtype (``paired_constant``)."""
    assert isinstance(lhs.type, ScalarType) and isinstance(rhs.type, ScalarType)
    a, b = lhs.type.dtype, rhs.type.dtype
    if paired_constant(rhs) and a.is_int:
        return a
    if paired_constant(lhs) and b.is_int:
        return b
    return promote(a, b)
