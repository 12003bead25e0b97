"""Resolving distributed PyPTO's spellings (``pld.X``, ``pld.<group>.X``) to their ops, which
distributed_2608.py registers: imported on the first look-up (ops/lazy.py), not with this.
"""

from __future__ import annotations

from ..ir.types import TileType, Type
from .dispatch import Resolution, unknown_spelling
from .registry import REGISTRY, OpDef

NAMESPACE = "pld"
GROUPS = ("system", "tensor", "tile")


def pld_spellings(group: str | None) -> list[tuple[str, OpDef]]:
    """The names callable after ``pld.`` (group None) or ``pld.<group>.``, with their ops."""
    pairs: list[tuple[str, OpDef]] = []
    for op in REGISTRY.in_namespace(NAMESPACE):
        op_group, _, leaf = op.short_name.partition(".")
        if group is None and leaf in op.dsl_names:
            pairs.append((leaf, op))
        elif group == op_group:
            pairs.append((leaf, op))
    seen: dict[str, OpDef] = {}
    for spelling, op in pairs:
        seen.setdefault(spelling, op)
    return sorted(seen.items())


def resolve_pld(path: tuple[str, ...], first: Type | None) -> Resolution:
    """The op ``pld.X`` / ``pld.<group>.X`` names (``path`` starts with "pld"). A short name
    two groups share (``remote_store``) goes by its first argument: a tile or a tensor."""
    if len(path) == 3 and path[1] in GROUPS:
        op = REGISTRY.get(".".join(path))
        if op is not None:
            return Resolution(op=op, code="")
        candidates = [s for s, _ in pld_spellings(path[1])]
        return unknown_spelling(f"Unknown pld.{path[1]} operation: {path[2]}", path[2], candidates)
    if len(path) == 2:
        matches = [op for s, op in _all_short() if s == path[1]]
        if len(matches) > 1:
            group = "tile" if isinstance(first, TileType) else "tensor"
            matches = [op for op in matches if op.short_name.startswith(group)] or matches
        if matches:
            return Resolution(op=matches[0], code="")
    short = sorted({s for s, _ in _all_short()})
    return unknown_spelling(
        f"Unknown operation '{'.'.join(path)}' (the short forms are pld.{', pld.'.join(short)}; "
        "the others are spelt pld.system.X, pld.tensor.X or pld.tile.X)",
        path[-1],
        short,
    )


def _all_short() -> list[tuple[str, OpDef]]:
    return [
        (op.short_name.partition(".")[2], op)
        for op in REGISTRY.in_namespace(NAMESPACE)
        if op.short_name.partition(".")[2] in op.dsl_names
    ]
