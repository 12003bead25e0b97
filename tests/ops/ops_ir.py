"""Hand-built arguments for op type-rule tests (the front end is not involved)."""

from __future__ import annotations

from typing import Any, TypeAlias

import pytest

from ptoc.ir import (
    ConstFloat,
    DataType,
    Expr,
    MakeTuple,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    Type,
    Var,
    const_int,
    make_tuple,
)
from ptoc.ops import REGISTRY, OpDef, OpError

FP16, FP32, BF16 = DataType.FP16, DataType.FP32, DataType.BF16
INT8, INT16, INT32, INT64 = DataType.INT8, DataType.INT16, DataType.INT32, DataType.INT64
UINT16, UINT64 = DataType.UINT16, DataType.UINT64

Dim: TypeAlias = int | Expr


def dim(value: Dim) -> Expr:
    return const_int(value) if isinstance(value, int) else value


def dims(values: tuple[Dim, ...]) -> tuple[Expr, ...]:
    return tuple(dim(v) for v in values)


def sym(name: str) -> Var:
    """A symbolic dimension, as ``pl.dynamic(name)`` gives it."""
    return Var(ScalarType(INT64), name=name)


def tile(*shape: Dim, dtype: DataType = FP32, name: str = "t") -> Var:
    return Var(TileType(dims(shape), dtype), name=name)


def tensor(*shape: Dim, dtype: DataType = FP32, name: str = "x") -> Var:
    return Var(TensorType(dims(shape), dtype), name=name)


def scalar(dtype: DataType = INT64, name: str = "s") -> Var:
    return Var(ScalarType(dtype), name=name)


def lit(value: int) -> Expr:
    """An integer literal as the parser passes it (INT64)."""
    return const_int(value)


def flit(value: float) -> Expr:
    return ConstFloat(ScalarType(FP32), value=value)


def ints(*values: Dim) -> MakeTuple:
    """A list argument such as ``[0, i * 32]``."""
    return make_tuple(dims(values))


def tile_type(*shape: Dim, dtype: DataType = FP32, view: TileView | None = None) -> TileType:
    return TileType(dims(shape), dtype, tile_view=view)


def tensor_type(*shape: Dim, dtype: DataType = FP32) -> TensorType:
    return TensorType(dims(shape), dtype)


def op(name: str) -> OpDef:
    found = REGISTRY.get(name)
    assert found is not None, name
    return found


def deduce(op_name: str, attrs: dict[str, Any] | None = None, **args: Expr) -> Type:
    return op(op_name).deduce(args, attrs or {})


def error(op_name: str, attrs: dict[str, Any] | None = None, **args: Expr) -> OpError:
    with pytest.raises(OpError) as caught:
        deduce(op_name, attrs, **args)
    return caught.value


def assert_error(failure: OpError, code: str, at: str | None, *fragments: str) -> None:
    assert (failure.code, failure.at) == (code, at), failure.message
    for fragment in fragments:
        assert fragment in failure.message, failure.message


def assert_type(actual: Type, expected: Type) -> None:
    """Structural equality plus the printed form (so a failure shows both readably)."""
    assert actual.short() == expected.short()
    assert actual == expected
