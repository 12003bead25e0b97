"""Shape helpers: comparing and printing dimensions, which may be symbolic."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from .expr import Binary, BinaryOp, ConstInt, Expr, Unary, UnaryOp, Var


def static_value(dim: Expr) -> int | None:
    """The integer value of a dimension when it is a compile-time constant."""
    if isinstance(dim, ConstInt):
        return dim.value
    return None


_INTEGER_OPS: dict[BinaryOp, Callable[[int, int], int | None]] = {
    BinaryOp.Add: lambda a, b: a + b,
    BinaryOp.Sub: lambda a, b: a - b,
    BinaryOp.Mul: lambda a, b: a * b,
    BinaryOp.FloorDiv: lambda a, b: a // b if b else None,  # // and % floor, as in the DSL
    BinaryOp.FloorMod: lambda a, b: a % b if b else None,
    BinaryOp.Min: min,
    BinaryOp.Max: max,
}


def integer_value(expr: Expr | None, bound: Mapping[int, int] | None = None) -> int | None:
    """An integer expression's value when it is arithmetic (+ - * // % min max, negation) on
    constants and on variables ``bound`` gives values (by ``id``): ``16 * 8 * 16``,
    ``8192 // 256``, a loop bound of a run's scalar argument; None otherwise."""
    if isinstance(expr, ConstInt):
        return expr.value
    if isinstance(expr, Var):
        return bound.get(id(expr)) if bound else None
    if isinstance(expr, Unary) and expr.op is UnaryOp.Neg:
        operand = integer_value(expr.operand, bound)
        return None if operand is None else -operand
    if not isinstance(expr, Binary) or expr.op not in _INTEGER_OPS:
        return None
    lhs, rhs = integer_value(expr.lhs, bound), integer_value(expr.rhs, bound)
    if lhs is None or rhs is None or max(abs(lhs), abs(rhs)) > 1 << 62:
        return None
    return _INTEGER_OPS[expr.op](lhs, rhs)


def constant_value(expr: Expr) -> int | None:
    """``integer_value`` of an expression of constants only."""
    return integer_value(expr)


def folded_dim(dim: Expr) -> Expr:
    """A dimension with arithmetic on constants folded into one constant (module constants'
    product ``BATCH * TOTAL_Q_GROUPS * Q_HEAD_PAD`` is a static size)."""
    if not isinstance(dim, Binary):
        return dim
    value = constant_value(dim)
    if value is None:
        return dim
    return ConstInt(dim.type, value=value, span=dim.span)


def static_shape(shape: Sequence[Expr]) -> list[int] | None:
    values = [static_value(d) for d in shape]
    if any(v is None for v in values):
        return None
    return values  # type: ignore[return-value]


def dims_equal(a: Expr, b: Expr) -> bool:
    """Same constant, same symbolic variable (by name: every use of ``pl.dynamic("N")``
    is the same dimension), or structurally the same expression."""
    if a is b:
        return True
    if isinstance(a, ConstInt) and isinstance(b, ConstInt):
        return a.value == b.value
    if isinstance(a, Var) and isinstance(b, Var):
        return a.name == b.name and type(a) is type(b)
    if isinstance(a, Binary) and isinstance(b, Binary):
        return a.op is b.op and dims_equal(a.lhs, b.lhs) and dims_equal(a.rhs, b.rhs)
    if isinstance(a, Unary) and isinstance(b, Unary):
        return a.op is b.op and dims_equal(a.operand, b.operand)
    return False


def shapes_equal(a: Sequence[Expr], b: Sequence[Expr]) -> bool:
    return len(a) == len(b) and all(dims_equal(x, y) for x, y in zip(a, b, strict=True))


def optional_dims_equal(a: Sequence[Expr] | None, b: Sequence[Expr] | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return shapes_equal(a, b)


def optional_expr_equal(a: Expr | None, b: Expr | None) -> bool:
    if a is None or b is None:
        return a is None and b is None
    return dims_equal(a, b)


def dim_str(dim: Expr) -> str:
    if isinstance(dim, ConstInt):
        return str(dim.value)
    if isinstance(dim, Var):
        return dim.name
    if isinstance(dim, Binary):
        return f"{dim_str(dim.lhs)} {dim.op.symbol} {dim_str(dim.rhs)}"
    return "?"


def shape_str(shape: Sequence[Expr]) -> str:
    return "[" + ", ".join(dim_str(d) for d in shape) + "]"


def num_elements(shape: Sequence[Expr]) -> int | None:
    values = static_shape(shape)
    if values is None:
        return None
    total = 1
    for v in values:
        total *= v
    return total
