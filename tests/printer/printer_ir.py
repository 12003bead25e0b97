"""Op registrations for the printer tests (hand-made IR comes from ``ir_builder``)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from ptoc.ir import (
    UNKNOWN,
    DataType,
    Type,
)
from ptoc.ir.types import MemorySpace
from ptoc.ops.registry import REGISTRY, Category, DeduceContext, OpDef, Param, ParamKind


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
