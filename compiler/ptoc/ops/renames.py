"""The ops 2026-08 spells differently from 2026-03 (spec §15): one table, applied to the
registrations once they are all made. Each row names the op and its spellings of one edition
only; the op's other spellings stay both editions'."""

from __future__ import annotations

from .. import records
from ..editions import Edition
from . import block, system, tensor  # noqa: F401  (the ops renamed here are theirs)
from .registry import REGISTRY

_OLD, _NEW = Edition.V2026_03, Edition.V2026_08

#: IR name -> (2026-03-only spellings, 2026-08-only spellings). ``pl.x`` names the unified
#: spelling alone (``pl.adds`` is gone, ``pl.tile.adds`` is not).
RENAMES: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "block.view": (("view",), ("slice",)),
    "tensor.view": ((), ("slice",)),
    "block.create_tile": ((), ("create",)),
    "block.maxs": (("maxs",), ("maximums",)),
    "block.mins": (("mins",), ("minimums",)),
    "block.adds": (("pl.adds",), ()),
    "block.subs": (("pl.subs",), ()),
    "block.muls": (("pl.muls",), ()),
    "block.divs": (("pl.divs",), ()),
    "tensor.add_scalar": (("add_scalar",), ("adds",)),
    "tensor.sub_scalar": (("sub_scalar",), ("subs",)),
    "tensor.mul_scalar": (("mul_scalar",), ("muls",)),
    "tensor.div_scalar": (("div_scalar",), ("divs",)),
    "block.sum": (("sum",), ()),
    "block.vec_move": (("vec_move",), ()),
    "block.l0c_store": (("l0c_store",), ()),
}


def apply_renames() -> None:
    for name, (old, new) in RENAMES.items():
        op = REGISTRY.ops[name]
        spellings = list(op.dsl_names or (op.short_name,))
        spellings += [s for s in new if not s.startswith("pl.") and s not in spellings]
        editions = tuple((s, _OLD) for s in old) + tuple((s, _NEW) for s in new)
        REGISTRY.replace(
            records.replace(
                op, dsl_names=tuple(spellings), edition_names=op.edition_names + editions
            )
        )


apply_renames()
