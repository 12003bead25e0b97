"""Resolving a DSL call spelling to a registered op (spec dsl-surface.md section 5).

Namespaces, as the front end passes them:
  ()                 unified ``pl.X``        -> dispatch by name lists, then by the first argument's type
  ("block",)         ``pl.block.X``
  ("tensor",)        ``pl.tensor.X``         (``create_tensor`` -> ``tensor.create``)
  ("op", "block")    ``pl.op.block.X``       seed 004 spelling, legacy=True
  ("op", "tensor")   ``pl.op.tensor.X``      legacy=True
  ("system",)        ``pl.system.X``         (the printer's spelling of sync ops)
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.expr import BinaryOp
from ..ir.types import Type
from .registry import OpDef


@dataclass
class Resolution:
    op: OpDef | None = None
    # When op is None: the diagnostic to report.
    code: str = "E300"
    message: str = ""
    suggestions: list[str] = field(default_factory=list)  # "did you mean" DSL spellings
    legacy: bool = False  # resolved through a legacy namespace (pl.op.block.X)
    # pl.min / pl.max with two scalar arguments: scalar min/max, not an op call.
    scalar_binary: BinaryOp | None = None


def resolve_op(namespace: tuple[str, ...], name: str, arg_types: list[Type]) -> Resolution:
    raise NotImplementedError  # implemented with the full op set
