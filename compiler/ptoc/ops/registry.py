"""The operator registry: one registration per op, the single source of truth.

A registration holds the op's IR name, its DSL spellings, category, parameters (with docs and
defaults), its type-deduction rule, a description, the hardware pipe that executes it, how it
lowers on each target, and where in ptoc's source it is registered (for go-to-definition).
Hover, completion, signature help, the docs generator and the code generators all read it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, NoReturn

from ..ir.expr import AttrValue, Expr, MakeTuple
from ..ir.types import UNKNOWN, ScalarType, ShapedType, TensorType, TileType, Type, UnknownType


class Category(Enum):
    TENSOR = "TensorOp"
    BLOCK = "BlockOp"
    SYNC = "SyncOp"


class PipeType(Enum):
    """Hardware pipes (the original's PipeType): who executes an op, for sync insertion."""

    MTE1 = 0
    MTE2 = 1
    MTE3 = 2
    M = 3
    V = 4
    S = 5
    FIX = 6
    ALL = 7


class ParamKind(Enum):
    EXPR = "expr"  # an IR value: tensor, tile, scalar, or a list of integer scalars (MakeTuple)
    ATTR = "attr"  # a compile-time attribute, stored in Call.kwargs


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@dataclass(frozen=True, slots=True)
class Param:
    name: str
    doc: str
    kind: ParamKind = ParamKind.EXPR
    default: Any = REQUIRED
    # For EXPR params: what it accepts, for docs/completion ("tensor", "tile", "scalar", "shape").
    accepts: tuple[str, ...] = ()
    # For ATTR params: the Python type(s) of the value (int, float, bool, str, DataType, MemorySpace).
    attr_types: tuple[type, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def signature(self) -> str:
        text = self.name
        if not self.required:
            text += "=" + _default_str(self.default)
        return text


def _default_str(value: Any) -> str:
    if isinstance(value, Enum):
        return f"pl.{type(value).__name__}.{value.name}" if type(value).__name__ == "MemorySpace" else f"pl.{value.name}"
    return repr(value)


class OpError(Exception):
    """A type-rule failure. ``at`` names the parameter whose argument is at fault."""

    def __init__(self, message: str, *, code: str = "E306", at: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.at = at


@dataclass
class DeduceContext:
    """What a type rule sees: bound arguments (IR expressions) and attributes (defaults filled)."""

    op: OpDef
    args: dict[str, Expr]
    attrs: dict[str, AttrValue]

    def fail(self, message: str, *, at: str | None = None, code: str = "E306") -> NoReturn:
        raise OpError(message, code=code, at=at)

    def has(self, name: str) -> bool:
        return name in self.args

    def expr(self, name: str) -> Expr:
        return self.args[name]

    def type(self, name: str) -> Type:
        return self.args[name].type

    def _kind_error(self, name: str, wanted: str) -> NoReturn:
        got = self.type(name).short()
        self.fail(f"{self.op.name}: argument '{name}' must be {wanted}, got {got}", at=name)

    def tensor(self, name: str) -> TensorType:
        t = self.type(name)
        if not isinstance(t, TensorType):
            self._kind_error(name, "a tensor")
        return t

    def tile(self, name: str) -> TileType:
        t = self.type(name)
        if not isinstance(t, TileType):
            self._kind_error(name, "a tile")
        return t

    def scalar(self, name: str) -> ScalarType:
        t = self.type(name)
        if not isinstance(t, ScalarType):
            self._kind_error(name, "a scalar")
        return t

    def shaped(self, name: str) -> ShapedType:
        t = self.type(name)
        if not isinstance(t, ShapedType):
            self._kind_error(name, "a tensor or a tile")
        return t

    def int_list(self, name: str) -> tuple[Expr, ...]:
        """The elements of a list argument (``[0, i * 32]``), each an integer scalar."""
        value = self.expr(name)
        if not isinstance(value, MakeTuple):
            self.fail(f"{self.op.name}: argument '{name}' must be a list of integers", at=name)
        for element in value.elements:
            et = element.type
            if not (isinstance(et, ScalarType) and (et.dtype.is_int)):
                self.fail(
                    f"{self.op.name}: elements of '{name}' must be integer scalars, got {et.short()}",
                    at=name,
                )
        return value.elements

    def attr(self, name: str) -> AttrValue:
        return self.attrs.get(name)


TypeRule = Callable[[DeduceContext], Type]


@dataclass(frozen=True, slots=True)
class LegacyForm:
    """An older positional signature (e.g. seed 004's ``block.load(t, row, col, h, w)``) and
    how its bound arguments become the current ones (``convert`` gets and returns name -> Expr)."""

    params: tuple[Param, ...]
    convert: Callable[[dict[str, Expr]], dict[str, Expr]]
    note: str = ""


@dataclass(frozen=True, slots=True)
class Lowering:
    """How an op becomes code on one target. ``None`` instruction = not supported there."""

    instruction: str | None
    note: str = ""


@dataclass(frozen=True, slots=True, eq=False)
class OpDef:
    name: str  # IR name, e.g. "block.add"
    category: Category
    params: tuple[Param, ...]
    rule: TypeRule
    description: str
    dsl_names: tuple[str, ...] = ()  # spellings after `pl.block.` / `pl.tensor.` (default: the short name)
    pipe: PipeType = PipeType.S
    cce: Lowering = Lowering(None)
    pto: Lowering = Lowering(None)
    type_rule_doc: str = ""  # one line: "t(broadcast, promote)"
    legacy: LegacyForm | None = None
    dsl_visible: bool = True  # False: registered (e.g. inserted by passes) but not callable from the DSL
    source_file: str = ""
    source_line: int = 0

    @property
    def short_name(self) -> str:
        return self.name.split(".", 1)[1]

    @property
    def namespace(self) -> str:
        return self.name.split(".", 1)[0]

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    def signature(self) -> str:
        return f"{self.name}(" + ", ".join(p.signature() for p in self.params) + ")"

    def deduce(self, args: dict[str, Expr], attrs: dict[str, AttrValue]) -> Type:
        """Run the type rule. Raises OpError; an argument of unknown type (from an earlier
        error) yields UNKNOWN without a new error, so one mistake is reported once."""
        if any(isinstance(a.type, UnknownType) for a in args.values()):
            return UNKNOWN
        filled = dict(attrs)
        for p in self.params:
            if p.kind is ParamKind.ATTR and p.name not in filled and not p.required:
                filled[p.name] = p.default
        return self.rule(DeduceContext(self, args, filled))


@dataclass
class Registry:
    ops: dict[str, OpDef] = field(default_factory=dict)
    _by_dsl: dict[tuple[str, str], OpDef] | None = field(default=None, repr=False)
    _by_dsl_size: int = field(default=-1, repr=False)

    def add(self, op: OpDef) -> OpDef:
        if op.name in self.ops:
            raise ValueError(f"op {op.name} registered twice")
        self.ops[op.name] = op
        return op

    def get(self, name: str) -> OpDef | None:
        return self.ops.get(name)

    def __iter__(self) -> Iterator[OpDef]:
        return iter(self.ops.values())

    def __len__(self) -> int:
        return len(self.ops)

    def in_namespace(self, namespace: str) -> list[OpDef]:
        return [op for op in self.ops.values() if op.namespace == namespace]

    def by_dsl_name(self, namespace: str, dsl_name: str) -> OpDef | None:
        if self._by_dsl is None or self._by_dsl_size != len(self.ops):
            index: dict[tuple[str, str], OpDef] = {}
            for op in self.ops.values():
                for spelling in op.dsl_names or (op.short_name,):
                    index.setdefault((op.namespace, spelling), op)
            self._by_dsl, self._by_dsl_size = index, len(self.ops)
        return self._by_dsl.get((namespace, dsl_name))


REGISTRY = Registry()


def register(
    name: str,
    category: Category,
    params: list[Param],
    rule: TypeRule,
    description: str,
    **extra: Any,
) -> OpDef:
    """Register an op; records the file and line of the call for go-to-definition."""
    frame = sys._getframe(1)
    op = OpDef(
        name=name,
        category=category,
        params=tuple(params),
        rule=rule,
        description=description,
        source_file=frame.f_code.co_filename,
        source_line=frame.f_lineno,
        **extra,
    )
    return REGISTRY.add(op)
