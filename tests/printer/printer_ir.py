"""Small builders for hand-made IR in the printer tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ptoc.ir import (
    UNKNOWN,
    AttrValue,
    Binary,
    BinaryOp,
    Call,
    ConstFloat,
    ConstInt,
    DataType,
    Expr,
    GlobalVar,
    Op,
    ScalarType,
    TensorType,
    TileType,
    Type,
    Unary,
    UnaryOp,
    Var,
)
from ptoc.ir.types import MemorySpace
from ptoc.ops.registry import REGISTRY, Category, DeduceContext, OpDef, Param, ParamKind

INT64 = ScalarType(DataType.INT64)
FP32 = ScalarType(DataType.FP32)
BOOL = ScalarType(DataType.BOOL)


def scalar(name: str, dtype: DataType = DataType.INT64) -> Var:
    return Var(ScalarType(dtype), name=name)


def var(name: str, type_: Type) -> Var:
    return Var(type_, name=name)


def i(value: int, dtype: DataType = DataType.INT64) -> ConstInt:
    return ConstInt(ScalarType(dtype), value=value)


def f(value: float, dtype: DataType = DataType.FP32) -> ConstFloat:
    return ConstFloat(ScalarType(dtype), value=value)


def dims(*values: int | Expr) -> tuple[Expr, ...]:
    return tuple(i(v) if isinstance(v, int) else v for v in values)


def tensor(
    shape: tuple[int | Expr, ...], dtype: DataType = DataType.FP32, **kw: object
) -> TensorType:
    return TensorType(dims(*shape), dtype, **kw)  # type: ignore[arg-type]


def tile(shape: tuple[int | Expr, ...], dtype: DataType = DataType.FP32, **kw: object) -> TileType:
    return TileType(dims(*shape), dtype, **kw)  # type: ignore[arg-type]


def binary(op: BinaryOp, lhs: Expr, rhs: Expr) -> Binary:
    type_ = BOOL if op.is_comparison else lhs.type
    return Binary(type_, op=op, lhs=lhs, rhs=rhs)


def unary(op: UnaryOp, operand: Expr) -> Unary:
    return Unary(operand.type, op=op, operand=operand)


def op(name: str, /, *args: Expr, type_: Type = UNKNOWN, **kwargs: AttrValue) -> Call:
    return Call(type_, callee=Op(name), args=args, kwargs=tuple(kwargs.items()))


def call(name: str, *args: Expr, type_: Type = UNKNOWN) -> Call:
    return Call(type_, callee=GlobalVar(name), args=args)


def sample_ops() -> list[OpDef]:
    """Registrations shaped like the real ones, for the cases the printer treats specially."""

    def rule(ctx: DeduceContext) -> Type:
        return UNKNOWN

    def opdef(name: str, params: list[Param], dsl_names: tuple[str, ...] = ()) -> OpDef:
        return OpDef(name, Category.BLOCK, tuple(params), rule, "test op", dsl_names=dsl_names)

    expr = Param
    return [
        opdef("block.add", [expr("lhs", ""), expr("rhs", "")]),
        opdef("block.and", [expr("lhs", ""), expr("rhs", "")], ("and_",)),
        opdef(
            "tensor.create",
            [expr("shape", ""), Param("dtype", "", ParamKind.ATTR, attr_types=(DataType,))],
            ("create_tensor", "create"),
        ),
        opdef("tensor.add_scalar", [expr("lhs", ""), expr("rhs", "")], ("add_scalar",)),
        opdef(
            "block.load",
            [
                expr("tensor", ""),
                expr("offsets", ""),
                expr("shapes", ""),
                Param("target_memory", "", ParamKind.ATTR, MemorySpace.Vec),
            ],
        ),
        opdef(
            "block.cast",
            [
                expr("tile", ""),
                Param("target_type", "", ParamKind.ATTR),
                Param("mode", "", ParamKind.ATTR, "round"),
            ],
        ),
        opdef(
            "block.flagged",
            [expr("tile", ""), Param("count", "", ParamKind.ATTR, 1)],
        ),
    ]


@contextmanager
def registered(ops: list[OpDef]) -> Iterator[None]:
    """Temporarily put ``ops`` in the registry, over any real registration of the same name."""
    saved = REGISTRY.ops
    REGISTRY.ops = {**saved, **{o.name: o for o in ops}}
    try:
        yield
    finally:
        REGISTRY.ops = saved
