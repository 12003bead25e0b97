"""Functions and programs."""

from __future__ import annotations

from enum import Enum

from ..records import field, record
from .expr import Var
from .fields import BINDS, BODY, declare
from .span import NO_SPAN, Span
from .stmt import Stmt
from .types import Type


class FunctionType(Enum):
    Opaque = 0
    Orchestration = 1
    InCore = 2


class ParamDirection(Enum):
    In = "In"
    Out = "Out"
    InOut = "InOut"


@record(frozen=True, slots=True, eq=False)
class Function:
    name: str
    params: tuple[Var, ...]
    return_types: tuple[Type, ...]
    body: Stmt
    func_type: FunctionType = FunctionType.Opaque
    param_directions: tuple[ParamDirection, ...] = ()
    span: Span = field(default=NO_SPAN, kw_only=True)

    CHILDREN = declare(params=BINDS, body=BODY)

    def direction(self, index: int) -> ParamDirection:
        if index < len(self.param_directions):
            return self.param_directions[index]
        return ParamDirection.In


@record(frozen=True, slots=True, eq=False)
class Program:
    name: str
    functions: tuple[Function, ...]
    span: Span = field(default=NO_SPAN, kw_only=True)

    CHILDREN = declare(functions=BODY)

    def function(self, name: str) -> Function | None:
        for fn in self.functions:
            if fn.name == name:
                return fn
        return None
