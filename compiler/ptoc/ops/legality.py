"""Hardware legality rules the type rules apply on top of shapes and dtypes, read from the
registry's traits and derived from pto-isa's own constraints (paths below are under
``pto-isa/include/pto``; A2/A3 is the target whose capacities the passes use):

- where a tile operand may live (``Param.spaces``): TMATMUL wants Left x Right -> Acc
  (``npu/a2a3/TMatmul.hpp:94-96``), vector instructions want row-major Vec tiles
  (``npu/a2a3/TAdd.hpp:67``: "TADD only support row major layout"), the FIX-pipe store takes
  an Acc tile (``npu/a2a3/TStore.hpp:294``) and pl.store of one waits on the wrong pipe;
- which buffers TMOV moves between (``npu/a2a3/TMov.hpp:142``; A5 adds Acc -> Vec and
  Vec -> Mat, ``npu/a5/TMov.hpp:764-790``);
- what TMATMUL multiplies: INT8 x INT8 -> INT32 and FP16 / BF16 / FP32 of one type -> FP32
  (``npu/a2a3/TMatmul.hpp:83-92``, the CPU simulator's ``cpu/TMatmul.hpp:27-33`` agrees); A5
  adds the 8-bit floats (``npu/a5/TMatmul.hpp:145-160``): a warning on A2/A3;
- what a store can convert: TSTORE from Vec or Mat copies bytes, so the element sizes must
  agree (``common/arch/memory/tstore_common.hpp:336``), while the FIX pipe converts an Acc
  tile's FP32 / INT32 to the tensor's type (``npu/a2a3/TStore.hpp:223``).
"""

from __future__ import annotations

from ..ir.dtype import DataType
from ..ir.shape import static_value
from ..ir.types import MemorySpace, TensorType, TileType
from .registry import DeduceContext, ParamKind, Role

_VEC, _MAT, _LEFT, _RIGHT, _ACC = (
    MemorySpace.Vec,
    MemorySpace.Mat,
    MemorySpace.Left,
    MemorySpace.Right,
    MemorySpace.Acc,
)

# TMOV's source -> destination pairs on A2/A3 (npu/a2a3/TMov.hpp:142).
MOVES_A2A3 = frozenset(
    {(_MAT, _LEFT), (_MAT, _RIGHT), (_MAT, MemorySpace.Bias), (_VEC, _VEC), (_ACC, _MAT)}
)
# Pairs only A5 moves directly (npu/a5/TMov.hpp:764-790): a warning on A2/A3.
MOVES_A5_ONLY = frozenset({(_ACC, _VEC), (_VEC, _MAT)})

# How a tile reaches each space, for the hints.
_HOW_TO_REACH = {
    _LEFT: "load it into Mat (target_memory=pl.MemorySpace.Mat), then "
    "pl.move(..., target_memory=pl.MemorySpace.Left)",
    _RIGHT: "load it into Mat (target_memory=pl.MemorySpace.Mat), then "
    "pl.move(..., target_memory=pl.MemorySpace.Right)",
    _ACC: "an Acc tile is the result of pl.matmul",
    MemorySpace.Mat: "load it into Mat (target_memory=pl.MemorySpace.Mat)",
    _VEC: "vector instructions read Vec tiles: load it into Vec (the default target_memory)",
}


def _spaces_text(spaces: tuple[MemorySpace, ...]) -> str:
    return " or ".join(space.name for space in spaces)


def _space_of(ctx: DeduceContext, name: str) -> MemorySpace | None:
    value = ctx.args.get(name)
    if value is None or not isinstance(value.type, TileType):
        return None
    return value.type.memory_space


def check_operand_spaces(ctx: DeduceContext) -> None:
    """Every tile operand lives where its parameter says it may (``Param.spaces``); a tile
    whose space is unknown (a parameter, an annotation) is not checked."""
    op = ctx.op
    if (
        op.role is Role.MATMUL
        and _space_of(ctx, "lhs") is _RIGHT
        and _space_of(ctx, "rhs") is _LEFT
    ):
        ctx.fail(
            f"{op.name}: 'lhs' is a Right tile and 'rhs' a Left tile: the operands are "
            "swapped (TMATMUL multiplies Left [M, K] by Right [K, N])",
            at="lhs",
            code="E320",
        )
    for param in op.params:
        if param.kind is not ParamKind.EXPR or not param.spaces:
            continue
        space = _space_of(ctx, param.name)
        if space is None or space in param.spaces or space in param.staged_from:
            continue
        if op.role is Role.STORE and space is _ACC:
            # TSTORE itself takes an Acc tile (npu/a2a3/TStore.hpp:264) and the original
            # accepts pl.store of one; but it runs on MTE3 where l0c_store runs on the FIX pipe
            # that drains Acc, so the synchronisation waits on the wrong pipe.
            ctx.warn(
                f"{op.name} of an Acc tile: the copy out of Acc runs on the FIX pipe, "
                "which pl.l0c_store synchronises with; use pl.l0c_store",
                at=param.name,
                code="W025",
            )
            continue
        wanted = _spaces_text(param.spaces)
        hint = _hint(op.role, space, param.spaces)
        ctx.fail(
            f"{op.name}: argument '{param.name}' must be a tile in {wanted}, got one in "
            f"{space.name}; {hint}",
            at=param.name,
            code="E320",
        )


def _hint(role: Role, space: MemorySpace, wanted: tuple[MemorySpace, ...]) -> str:
    if role is Role.STORE and wanted == (_ACC,):
        return "store a Vec tile with pl.store"
    if space is _ACC and _VEC in wanted:
        return (
            "an Acc tile cannot feed vector instructions: store it with pl.l0c_store and "
            "load the result into Vec"
        )
    return _HOW_TO_REACH[wanted[0]]


def check_move(ctx: DeduceContext, source: TileType, target: MemorySpace) -> None:
    """TMOV moves only between some pairs of buffers (npu/a2a3/TMov.hpp:142)."""
    space = source.memory_space
    if space is None or (space, target) in MOVES_A2A3:
        return
    pair = f"{space.name} -> {target.name}"
    if (space, target) in MOVES_A5_ONLY:
        ctx.warn(
            f"{ctx.op.name}: only A5 moves a tile {pair} directly; on A2/A3 TMOV "
            "cannot (it moves Mat -> Left/Right, Vec -> Vec and Acc -> Mat)",
            at="target_memory",
            code="W020",
        )
        return
    hint = f"; {_HOW_TO_REACH[target]}" if target in (_LEFT, _RIGHT) else ""
    ctx.fail(
        f"{ctx.op.name}: the hardware cannot move a tile {pair} (TMOV moves Mat -> "
        f"Left/Right, Vec -> Vec and Acc -> Mat){hint}",
        at="target_memory",
        code="E320",
    )


def check_converting_move(
    ctx: DeduceContext, source: TileType, target: MemorySpace, dtype: DataType
) -> None:
    """TMOV converts only Acc FP32 -> Mat FP16 / BF16 (npu/a2a3/common.hpp CheckTMovAccToMat,
    the cast pre-quantisation)."""
    if (
        source.memory_space is MemorySpace.Acc
        and target is MemorySpace.Mat
        and source.dtype is DataType.FP32
        and dtype in (DataType.FP16, DataType.BF16)
    ):
        return
    ctx.fail(
        f"{ctx.op.name}: a move converts only an FP32 Acc tile into an FP16 or BF16 Mat tile "
        f"(TMOV's cast pre-quantisation), not {source.short()} into {dtype.name} in "
        f"{target.name}",
        at="dtype",
        code="E320",
    )


# TMATMUL's operand dtypes on A2/A3 (npu/a2a3/TMatmul.hpp:83-92), and those only A5 adds
# (npu/a5/TMatmul.hpp:151-160).
MATMUL_DTYPES_A2A3 = (DataType.INT8, DataType.FP16, DataType.BF16, DataType.FP32)
MATMUL_DTYPES_A5_ONLY = (DataType.FP8E4M3FN, DataType.FP8E5M2, DataType.HF8)


def check_matmul_dtype(ctx: DeduceContext, dtype: DataType) -> None:
    """The operands' (one) dtype is one TMATMUL multiplies."""
    if dtype in MATMUL_DTYPES_A2A3:
        return
    takes = ", ".join(d.name for d in MATMUL_DTYPES_A2A3)
    if dtype in MATMUL_DTYPES_A5_ONLY:
        ctx.warn(
            f"{ctx.op.name}: only A5 multiplies {dtype.name} tiles; on A2/A3 TMATMUL takes "
            f"{takes} operands",
            at="lhs",
            code="W028",
        )
        return
    ctx.fail(
        f"{ctx.op.name}: the hardware cannot multiply {dtype.name} tiles (TMATMUL takes "
        f"{takes} operands: INT8 into INT32, the floats into FP32); convert them first with "
        "pl.cast",
        at="lhs",
    )


def check_store_dtype(ctx: DeduceContext, tile: TileType, output: TensorType) -> None:
    """A store from Vec / Mat copies bytes: same element size or pto-isa rejects it, same
    size but another type copies the bits unconverted. The FIX pipe (from Acc) converts."""
    tile_param = ctx.op.param("tile")
    from_acc = tile_param is not None and tile_param.spaces == (_ACC,)
    if tile.dtype is output.dtype or from_acc or tile.memory_space is _ACC:
        return
    cast = f"convert first: pl.cast(..., target_type=pl.{output.dtype.name})"
    if tile.dtype.bits != output.dtype.bits:
        ctx.fail(
            f"{ctx.op.name}: a {tile.dtype.name} tile cannot be stored into a "
            f"{output.dtype.name} tensor: the copy does not convert elements; {cast}",
            at="output_tensor",
            code="E321",
        )
    ctx.warn(
        f"{ctx.op.name}: the {tile.dtype.name} tile's bits are copied unconverted into "
        f"the {output.dtype.name} tensor; {cast}",
        at="output_tensor",
        code="W021",
    )


def check_store_window(ctx: DeduceContext, tile: TileType, window: tuple[int | None, ...]) -> None:
    """The store writes the tile's elements, not the window's: a window with another shape
    writes part of it (or runs past it)."""
    tile_dims = [static_value(d) for d in tile.shape]
    if None in tile_dims or None in window:
        return
    tile_shape, window_shape = _squeezed(tile_dims), _squeezed(list(window))
    if tile_shape == window_shape:
        return
    tile_text = "[" + ", ".join(str(d) for d in tile_dims) + "]"
    window_text = "[" + ", ".join(str(d) for d in window) + "]"
    tile_count, window_count = _count(tile_dims), _count(list(window))
    if window_count > tile_count:
        what = (
            f"only the tile's {tile_count} elements are written, "
            f"{window_count - tile_count} of the window's are left unchanged"
        )
    elif window_count < tile_count:
        what = f"the tile's {tile_count} elements do not fit the window's {window_count}"
    elif len(tile_shape) == 1 and len(window_shape) > 1:
        what = "a rank-1 tile is one row, written along the window's last dimension only"
    else:
        return  # the same elements in another arrangement (a [32, 1] column as [32]): fine
    ctx.warn(
        f"{ctx.op.name}: the window {window_text} is not the tile's shape {tile_text}: {what}",
        at="shapes",
        code="W022",
    )


def _squeezed(dims: list[int | None]) -> list[int | None]:
    """Leading size-1 dimensions do not change how elements are laid out."""
    while len(dims) > 1 and dims[0] == 1:
        dims = dims[1:]
    return dims


def _count(dims: list[int | None]) -> int:
    count = 1
    for dim in dims:
        count *= dim or 0
    return count
