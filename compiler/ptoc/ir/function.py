"""Functions and programs."""

from __future__ import annotations

from enum import Enum

from ..records import field, record
from .dsl_enums import Level
from .expr import Var
from .fields import BINDS, BODY, declare
from .span import NO_SPAN, Span
from .stmt import Stmt
from .types import Type


class FunctionType(Enum):
    Opaque = 0
    Orchestration = 1
    InCore = 2
    # 2026-08: InCore kernels of the cube / the vector core, a co-scheduled AIC + AIV group, a
    # data-parallel dispatch wrapper, a body substituted at every call, a recordable
    # orchestration fragment.
    AIC = 3
    AIV = 4
    Group = 5
    Spmd = 6
    Inline = 7
    Graph = 8

    @property
    def is_incore(self) -> bool:
        """A kernel body: the InCore function of 2026-03 and 2026-08's per-core kernels."""
        return self in _INCORE


_INCORE = frozenset((FunctionType.InCore, FunctionType.AIC, FunctionType.AIV))


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
    # 2026-08: where in the hierarchy it runs and its role there (``pl.Level`` / ``pl.Role``
    # members; None: not said).
    level: Enum | None = None
    role: Enum | None = None
    span: Span = field(default=NO_SPAN, kw_only=True)

    CHILDREN = declare(params=BINDS, body=BODY)

    @property
    def on_host(self) -> bool:
        """Runs on the host (``@pl.jit.host``, ``level=pl.Level.HOST`` or above): it launches
        chip programs through the host runtime and is no kernel nor chip orchestration."""
        return isinstance(self.level, Level) and self.level.value >= Level.HOST.value

    @property
    def orchestrates(self) -> bool:
        """Its calls launch tasks or programs (an Orchestration function, or a function on the
        host), so it is no kernel: nothing is inlined into it, and it has no kernel code."""
        return self.func_type is FunctionType.Orchestration or self.on_host

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
