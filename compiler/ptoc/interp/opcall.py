"""What an op's semantics sees: the IR call, its evaluated operands, and the run's settings."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

import numpy as np

from ..ir.dtype import DataType
from ..ir.expr import AttrValue, Call, Expr
from ..ir.span import Span
from ..ir.types import ScalarType, ShapedType, Type
from ..ops.registry import REGISTRY, ParamKind
from ..records import record
from .errors import InterpError
from .numeric import np_dtype


@record(frozen=True, slots=True)
class OpCall:
    call: Call
    args: tuple[Any, ...]  # operands in the order of the op's value parameters
    block_idx: int = 0
    # The value of an expression of the call's scope (a valid extent in a tile's type).
    evaluate: Callable[[Expr], Any] | None = None

    @property
    def span(self) -> Span:
        return self.call.span

    @property
    def name(self) -> str:
        return self.call.op_name

    def fail(self, message: str) -> NoReturn:
        raise InterpError(f"{self.name}: {message}", self.span)

    def attr(self, name: str) -> AttrValue:
        """An attribute of the call, or the registered default when the call omits it."""
        for key, value in self.call.kwargs:
            if key == name:
                return value
        op = REGISTRY.get(self.name)
        param = op.param(name) if op is not None else None
        if param is not None and param.kind is ParamKind.ATTR and not param.required:
            default: AttrValue = param.default
            return default
        return None

    def dtype_of(self, type_: Type) -> DataType:
        if isinstance(type_, ShapedType | ScalarType):
            return type_.dtype
        self.fail(f"a value has no element type ({type_.short()})")

    def result_dtype(self) -> np.dtype[Any]:
        return np_dtype(self.dtype_of(self.call.type), self.span)

    def arg_dtype(self, index: int) -> DataType:
        return self.dtype_of(self.call.args[index].type)

    def arg_type(self, index: int) -> Type:
        return self.call.args[index].type

    def ints(self, index: int) -> tuple[int, ...]:
        """A list operand (shape, offsets) as Python integers."""
        value = self.args[index]
        if not isinstance(value, tuple):
            self.fail(f"operand {index} is not a list")
        return tuple(int(v) for v in value)

    def extents(self, dims: tuple[Expr, ...]) -> tuple[int, ...]:
        """Extents of a type (a valid shape), each a constant or a scalar of the scope."""
        if self.evaluate is None:
            self.fail("the extents of a type cannot be evaluated here")
        return tuple(int(self.evaluate(d)) for d in dims)

    def int_arg(self, index: int) -> int:
        return int(self.args[index])
