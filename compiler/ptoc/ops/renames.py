"""The ops 2026-08 spells differently from 2026-03 (spec §15): one table, applied to the
registrations once they are all made. Each row names the op and its spellings of one edition
only; the op's other spellings stay both editions'."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from functools import partial

from .. import records
from ..editions import Edition
from ..ir.dtype import INDEX, DataType
from ..ir.expr import Expr
from ..ir.shape import dim_str, optional_dims_equal, shapes_equal
from ..ir.types import ScalarType, TileType, Type
from . import block, system, tensor  # noqa: F401  (the ops renamed here are theirs)
from .registry import (
    REGISTRY,
    Category,
    DeduceContext,
    EditionForm,
    OpDef,
    Param,
    ParamKind,
    TypeRule,
)
from .rules import dims_conflict

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


#: Spellings both editions have that mean another op in one of them (spec §15's rows marked
#: "different"): the op a call resolves to, per edition. ``pl.x`` keys the unified spelling
#: alone; an op's IR name keys every spelling of the op.
MEANINGS: dict[str, dict[Edition, str]] = {
    # 2026-08's comparisons of tiles give the packed UINT8 predicate mask ...
    "block.cmp": {_NEW: "block.cmp_mask"},
    "block.cmps": {_NEW: "block.cmps_mask"},
    # ... and its selections read one: sel(mask, lhs, rhs, tmp), sels(mask, src, tmp, scalar).
    "block.sel": {_NEW: "block.select_tiles"},
    "block.sels": {_NEW: "block.select_scalar"},
    # The unified ``pl.full`` builds a tile in 2026-03, a tensor in 2026-08.
    "pl.full": {_OLD: "block.full", _NEW: "tensor.full"},
}


#: Unified spellings of tile ops that an edition no longer has, and what to write instead.
GONE: dict[str, dict[Edition, str]] = {
    "max": {_NEW: "is scalar-only in PyPTO 2026-08: reduce a tile with pl.row_max / pl.col_max"},
    "min": {_NEW: "is scalar-only in PyPTO 2026-08: reduce a tile with pl.row_min / pl.col_min"},
    "sum": {_NEW: "is gone in PyPTO 2026-08: reduce a tile with pl.row_sum / pl.col_sum"},
}


def gone(spelling: str, edition: Edition) -> str | None:
    """Why the unified ``pl.<spelling>`` of a tile op is not in ``edition`` (None: it is)."""
    return GONE.get(spelling, {}).get(edition)


def meaning(op_name: str, spelling: str, unified: bool, edition: Edition) -> str | None:
    """The op a call spelled so means in ``edition`` when it is not ``op_name`` (None: it is,
    or the edition's op is not registered)."""
    table = MEANINGS.get("pl." + spelling) if unified else None
    table = table or MEANINGS.get(op_name)
    target = table.get(edition) if table is not None else None
    if target is None or target == op_name or target not in REGISTRY.ops:
        return None
    return target


#: Tile-scalar ops whose result keeps the tile's dtype in 2026-08 (the scalar is narrowed to
#: it); 2026-03 promoted the two (spec §4).
TILE_KEEPS_DTYPE = (
    "block.adds",
    "block.subs",
    "block.muls",
    "block.divs",
    "block.maxs",
    "block.mins",
)


#: Tile ops whose tile operands must have one valid region in 2026-08 (spec §9: tile÷tile
#: needs equal physical and valid shapes).
EQUAL_REGIONS_2026_08 = ("block.div",)


def equal_regions(rule: TypeRule) -> TypeRule:
    def deduce(ctx: DeduceContext) -> Type:
        result = rule(ctx)
        tiles = [(n, a.type) for n, a in ctx.args.items() if isinstance(a.type, TileType)]
        regions = [(n, _region(t)) for n, t in tiles]
        for (first, want), (name, got) in zip(regions, regions[1:], strict=False):
            if not optional_dims_equal(want, got):
                ctx.fail(
                    f"{ctx.op.name}: '{first}' and '{name}' must have one valid region, got "
                    f"{_region_text(want, tiles[0][1])} and {_region_text(got, dict(tiles)[name])}",
                    at=name,
                    code="E307",
                )
        return result

    return deduce


def _region(tile: TileType) -> tuple[Expr, ...] | None:
    """The tile's valid region, None when it is the whole tile."""
    view = tile.tile_view
    valid = view.valid_shape if view is not None else None
    return None if valid is None or shapes_equal(valid, tile.shape) else valid


def _region_text(region: tuple[Expr, ...] | None, tile: TileType) -> str:
    dims = region if region is not None else tile.shape
    return "[" + ", ".join(dim_str(d) for d in dims) + "]"


#: Ops of two tiles that 2026-08 takes of one dtype and one shape, without promotion or
#: broadcasting (spec §9 ``div``: tile ÷ tile needs equal dtypes in {INT16, INT32, FP16, FP32}
#: and equal shapes; the result is the lhs type): op -> the dtypes it takes.
ONE_DTYPE_2026_08: dict[str, tuple[DataType, ...]] = {
    "block.div": (DataType.INT16, DataType.INT32, DataType.FP16, DataType.FP32),
}


#: Ops whose scalar result is index-like in 2026-08 (UINT64 in 2026-03); the registration's
#: ``index_result`` makes it the edition's index dtype (INDEX).
INDEX_RESULT_2026_08 = (("block.get_block_idx", ScalarType(INDEX)),)


def fixed_result(result: Type) -> TypeRule:
    def deduce(ctx: DeduceContext) -> Type:
        return result

    return deduce


def tile_dtype_kept(rule: TypeRule) -> TypeRule:
    def deduce(ctx: DeduceContext) -> Type:
        result = rule(ctx)
        tile = next((a.type for a in ctx.args.values() if isinstance(a.type, TileType)), None)
        if isinstance(result, TileType) and tile is not None and result.dtype is not tile.dtype:
            return records.replace(result, dtype=tile.dtype)
        return result

    return deduce


def operands_of_one_dtype(rule: TypeRule, dtypes: tuple[DataType, ...]) -> TypeRule:
    """``rule`` (kinds, shapes), then ``ONE_DTYPE_2026_08``'s restrictions: lhs of one of
    ``dtypes``, rhs of the lhs's dtype (E306, with ``pl.cast`` as the fix) and shape (E307)."""

    def deduce(ctx: DeduceContext) -> Type:
        result = rule(ctx)
        lhs, rhs = ctx.tile("lhs"), ctx.tile("rhs")
        name = ctx.op.short_name
        if lhs.dtype not in dtypes:
            allowed = ", ".join(d.name for d in dtypes)
            ctx.fail(
                f"{name} of two tiles takes {allowed} tiles in PyPTO 2026-08, got {lhs.dtype.name}",
                at="lhs",
            )
        if rhs.dtype is not lhs.dtype:
            ctx.fail(
                f"{name} of two tiles takes tiles of one dtype in PyPTO 2026-08 (no promotion), "
                f"got {lhs.dtype.name} and {rhs.dtype.name}: convert 'rhs' with "
                f"pl.cast(rhs, pl.{lhs.dtype.name})",
                at="rhs",
                cast=lhs.dtype,
            )
        if len(lhs.shape) != len(rhs.shape) or any(
            dims_conflict(a, b) for a, b in zip(lhs.shape, rhs.shape, strict=True)
        ):
            ctx.fail(
                f"{name} of two tiles takes tiles of one shape in PyPTO 2026-08 (no "
                f"broadcasting), got {lhs.short()} and {rhs.short()}",
                at="rhs",
                code="E307",
            )
        return result

    return deduce


def spelled_as(op_name: str, edition: Edition) -> str | None:
    """The op whose spelling writes ``op_name`` in ``edition`` (2026-08 writes the mask
    comparison ``pl.tile.cmp``), None when ``op_name``'s own does."""
    for key, table in MEANINGS.items():
        if table.get(edition) == op_name and not key.startswith("pl."):
            return key
    return None


#: Attributes 2026-08 added to a 2026-03 op that ptoc accepts but does not model yet (a
#: W004 says so where a call gives one other than the default): op -> (name, types, default).
ADDED_ATTRIBUTES: dict[str, tuple[tuple[str, tuple[type, ...], object], ...]] = {
    # (none left: ``tensor.assemble``'s ``atomic`` is modelled since split-K runs)
}


def _window(own: frozenset[str]) -> Callable[[dict[str, Expr]], dict[str, Expr]]:
    """The converter of the slice form: the arguments the op itself takes."""
    return lambda args: {name: value for name, value in args.items() if name in own}


def with_slice_form(op: OpDef) -> OpDef:
    """2026-08's ``slice``: the 2026-03 window ``view`` with keywords ptoc reads but does not
    model (dropped unit axes, padding, clamping; a tensor's valid region). A tile's valid
    region is the op's own parameter (block.view)."""
    own = frozenset(p.name for p in op.params)
    extras = tuple(
        p
        for p in _SLICE_EXTRAS
        if (op.category is Category.TENSOR or p.name != "clamp") and p.name not in own
    )
    form = EditionForm(
        _NEW,
        op.params + extras,
        _window(own),
        f"2026-08: slice({op.params[0].name}, shape, offset, valid_shape=None, ...)",
        spelled="slice",
        unmodelled=tuple(p.name for p in extras),
    )
    return records.replace(op, edition_forms=op.edition_forms + (form,))


_UNMODELLED = "2026-08: accepted, not modelled yet"
_SLICE_EXTRAS = (
    Param("valid_shape", _UNMODELLED, default=None, accepts=("shape",)),
    Param("drop_dims", _UNMODELLED, default=None, accepts=("shape",)),
    Param("pad_value", _UNMODELLED, ParamKind.ATTR, None, attr_types=(Enum, int, float)),
    Param("clamp", _UNMODELLED, ParamKind.ATTR, False, attr_types=(bool,)),
)


def with_added_attributes(op: OpDef) -> OpDef:
    extras = tuple(
        Param(name, _UNMODELLED, ParamKind.ATTR, default, attr_types=kinds)
        for name, kinds, default in ADDED_ATTRIBUTES[op.name]
    )
    form = EditionForm(_NEW, op.params + extras, dict, f"2026-08: {op.name} with {extras[0].name}=")
    return records.replace(op, edition_forms=op.edition_forms + (form,))


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
    for name in ADDED_ATTRIBUTES:
        REGISTRY.replace(with_added_attributes(REGISTRY.ops[name]))
    for name in ("tensor.view", "block.view"):
        REGISTRY.replace(with_slice_form(REGISTRY.ops[name]))
    for name in TILE_KEEPS_DTYPE:
        with_new_rule(name, tile_dtype_kept)
    for name, dtypes in ONE_DTYPE_2026_08.items():
        with_new_rule(name, partial(operands_of_one_dtype, dtypes=dtypes))
    for name in EQUAL_REGIONS_2026_08:
        with_new_rule(name, equal_regions)
    for name, result in INDEX_RESULT_2026_08:
        with_new_rule(name, instead(fixed_result(result)))


def instead(rule: TypeRule) -> Callable[[TypeRule], TypeRule]:
    """A wrap for ``with_new_rule`` that replaces the current rule with ``rule``."""
    return lambda _current: rule


def with_new_rule(name: str, wrap: Callable[[TypeRule], TypeRule]) -> None:
    """Give op ``name`` the 2026-08 rule ``wrap`` makes of its current one (the op's own rule,
    or an earlier 2026-08 rule of this module, which it replaces: an edition's first rule is
    the one that applies, so a second entry would be dead)."""
    op = REGISTRY.ops[name]
    others = tuple((ruled, rule) for ruled, rule in op.edition_rules if ruled is not _NEW)
    rules = ((_NEW, wrap(op.rule_for(_NEW))),)
    REGISTRY.replace(records.replace(op, edition_rules=others + rules))


apply_renames()
