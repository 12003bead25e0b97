"""What every registered op computes: the executable meaning the reference interpreter
(``ptoc.interp``) runs, keyed by the op's IR name.

Where the DSL leaves room, each op does what pto-isa's CPU simulator does for the instruction
it lowers to (``include/pto/cpu``), since generated C++ is judged against that simulator:

* element-wise ops bring every operand to the result dtype (the IR's promotion), broadcast,
  and compute in that dtype, so FP16 / BF16 round after each operation and integers wrap;
  integer division truncates, and a zero divisor (integer division, rem, divs) is an error;
  maximum / minimum are std::max / std::min; sqrt, rsqrt, log and exp compute in double and
  round once (FP16 exp through float), and an integer exp truncates;
* ``rem`` is the C remainder moved into the divisor's sign when the signs differ (TREM);
* ``cmp`` is 1 where the comparison holds, else 0, in the result dtype (computed through
  ``cmp_mask``, which packs each row's results into bits, eight per byte of the mask from the
  left of the row, the rest zero, as TCMP does, and ``select_scalar``, which reads a row's
  bit c from byte c // 8, as TSELS does); ``cmps`` likewise (through ``cmps_mask``, TCMPS),
  comparing EQ and NE in double within 1e-9; ``sel`` picks lhs where its mask is nonzero (computed
  through ``cmp_mask`` of the mask against 0 and ``select_tiles``, TSEL) and ``sels`` picks
  lhs when the select mode is 1 (TSELS);
* ``cast`` is TCVT: float to integer rounds in double with the mode (none truncates), integer
  and float targets otherwise round to nearest even;
* sums accumulate element by element in order: along the last axis in float for FP16 / BF16
  (TROWSUM), along any other axis in the dtype itself (TCOLSUM); max / min keep the first of
  equal values; matmul accumulates one fused multiply-add per k in float (int8: int32);
* tiles are values (``create_tile`` and ``tensor.create`` start as zeros); tensors are
  buffers that ``store``, ``l0c_store`` and ``assemble`` write into, and ``tensor.view`` /
  ``reshape`` / ``transpose`` alias.

Ops without semantics are listed in ``NO_SEMANTICS`` with the reason.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..interp import kernels
from ..interp.kernels import Array
from ..interp.numeric import cast_mode_name, cast_to, convert, is_float, np_dtype, via_double
from ..interp.opcall import OpCall
from ..interp.unwritten import created
from ..ir.dsl_enums import AtomicType
from ..ir.dtype import promote
from ..ir.types import MemorySpace, PadMode, TileType

Semantics = Callable[[OpCall], Any]
SEMANTICS: dict[str, Semantics] = {}
# Registered ops the interpreter does not run, each with the reason.
NO_SEMANTICS: dict[str, str] = {}


def _define(*names: str) -> Callable[[Semantics], Semantics]:
    def register(fn: Semantics) -> Semantics:
        for name in names:
            SEMANTICS[name] = fn
        return fn

    return register


# =============================================================================================
# Helpers
# =============================================================================================


def _operands(op: OpCall, count: int, dtype: np.dtype[Any] | None = None) -> list[Array]:
    """The first ``count`` operands in the computation dtype (default: the result's)."""
    target = dtype if dtype is not None else op.result_dtype()
    return [cast_to(value, target) for value in op.args[:count]]


def _window(
    op: OpCall, extent: tuple[int, ...], offsets: tuple[int, ...], sizes: tuple[int, ...]
) -> tuple[slice, ...]:
    if len(offsets) != len(sizes) or len(sizes) != len(extent):
        op.fail(f"a {len(sizes)}-D window of a {len(extent)}-D value is not supported")
    for axis, (offset, size, dim) in enumerate(zip(offsets, sizes, extent, strict=True)):
        if offset < 0 or size <= 0 or offset + size > dim:
            op.fail(
                f"window {offset}..{offset + size} on dimension {axis} is outside the extent {dim}"
            )
    return tuple(slice(o, o + s) for o, s in zip(offsets, sizes, strict=True))


def _fit(op: OpCall, values: Array, shape: tuple[int, ...]) -> Array:
    if values.shape == shape:
        return values
    if values.size != int(np.prod(shape)):
        op.fail(
            f"a value of shape {list(values.shape)} does not fit a window of shape {list(shape)}"
        )
    return values.reshape(shape)


def _axis(op: OpCall, axis: int, rank: int) -> int:
    if not -rank <= axis < rank:
        op.fail(f"axis {axis} is out of range for a {rank}-D value")
    return axis + rank if axis < 0 else axis


def _elementwise(fn: Callable[[list[Array]], Array], count: int) -> Semantics:
    def run(op: OpCall) -> Array:
        dtype = op.result_dtype()
        return np.asarray(fn(_operands(op, count))).astype(dtype)

    return run


def _checked(fn: Callable[[OpCall, list[Array]], Array], count: int) -> Semantics:
    """An element-wise op that may fail (a zero divisor)."""

    def run(op: OpCall) -> Array:
        return np.asarray(fn(op, _operands(op, count))).astype(op.result_dtype())

    return run


# =============================================================================================
# Memory ops
# =============================================================================================


@_define("block.create_tile")
def _create_tile(op: OpCall) -> Array:
    return created(op.ints(0), op.result_dtype())


@_define("block.load")
def _load(op: OpCall) -> Array:
    tensor = np.asarray(op.args[0])
    window = _window(op, tensor.shape, op.ints(1), op.ints(2))
    _valid_extents(op, op.call.type, len(window))  # a region that does not fit fails here
    return tensor[window].astype(op.result_dtype())


@_define("block.store", "block.l0c_store")
def _store(op: OpCall) -> Array:
    tile, output = np.asarray(op.args[0]), op.args[3]
    sizes = op.ints(2)
    window = _window(op, output.shape, op.ints(1), sizes)
    fitted = _fit(op, tile, sizes)
    if _copies_bits(op, fitted.dtype, output.dtype):
        values = np.ascontiguousarray(fitted).view(output.dtype)
    else:  # pto-isa's TSTORE converts with static_cast: a float goes to an integer truncated
        values = convert(fitted, output.dtype, "trunc")
    valid = _valid_extents(op, op.arg_type(0), len(sizes))
    if valid is None:
        _write(op, output, window, values)
    else:  # TSTORE copies the tile's valid region only
        part = tuple(slice(0, max(0, min(v, s))) for v, s in zip(valid, sizes, strict=True))
        offsets = tuple(w.start for w in window)
        target = tuple(slice(o + p.start, o + p.stop) for o, p in zip(offsets, part, strict=True))
        _write(op, output, target, values[part])
    return output  # type: ignore[no-any-return]


def _copies_bits(op: OpCall, source: np.dtype[Any], target: np.dtype[Any]) -> bool:
    """A Vec / Mat tile stored into a tensor of another type of the same size: the copy moves
    bytes and the bits are reinterpreted (W021; pto-isa's a2a3 TSTORE from UB is a DMA copy).
    From Acc the FIX pipe converts."""
    tile = op.arg_type(0)
    from_acc = op.name == "block.l0c_store" or (
        isinstance(tile, TileType) and tile.memory_space is MemorySpace.Acc
    )
    return not from_acc and source != target and source.itemsize == target.itemsize


def _write(op: OpCall, output: Array, window: tuple[slice, ...], values: Array) -> None:
    """A store's or an assemble's write: ``atomic=pl.AtomicType.Add`` adds into the window
    (``Max`` / ``Min`` keep the larger / smaller), else it overwrites."""
    mode = op.attr("atomic")
    if mode is AtomicType.Add:
        output[window] = convert(output[window] + values, output.dtype)
    elif mode is AtomicType.Max:
        output[window] = np.maximum(output[window], values)
    elif mode is AtomicType.Min:
        output[window] = np.minimum(output[window], values)
    else:
        output[window] = values


def _valid_extents(op: OpCall, type_: object, rank: int) -> tuple[int, ...] | None:
    """A tile's valid region (2026-08) as integers, None when it is the whole tile. An extent
    past the tile or below 0 (a run-time length out of range) fails: pto-isa's checks stop the
    kernel there (TLOAD's CheckTileData asserts that the region fits)."""
    view = type_.tile_view if isinstance(type_, TileType) else None
    if view is None or view.valid_shape is None or len(view.valid_shape) != rank:
        return None
    valid = op.extents(view.valid_shape)
    assert isinstance(type_, TileType)
    shape = op.extents(type_.shape)
    if any(not 0 <= v <= s for v, s in zip(valid, shape, strict=False)):
        op.fail(
            f"the tile's valid shape [{', '.join(map(str, valid))}] does not fit its shape "
            f"[{', '.join(map(str, shape))}]: each extent must be from 0 to the tile's"
        )
    return valid


@_define("block.move")
def _move(op: OpCall) -> Array:
    tile = np.asarray(op.args[0])
    if op.attr("transpose"):
        return np.swapaxes(tile, -1, -2).copy()
    if op.attr("dtype") is not None:  # Acc -> Mat's FIXPIPE conversion rounds half to even
        return convert(tile, op.result_dtype(), "rint")
    return tile.copy()


@_define("block.insert")
def _insert(op: OpCall) -> Array:
    """The target with the source converted into its window (FIXPIPE rounds half to even)."""
    target, source = np.asarray(op.args[0]).copy(), np.asarray(op.args[1])
    window = _window(op, target.shape, op.ints(2), source.shape)
    target[window] = convert(source, target.dtype, "rint")
    return target


@_define("block.assemble")
def _assemble(op: OpCall) -> Array:
    """TINSERT of a tile into a tile: the source's valid region written into the target at
    the offset, the rest of the target kept."""
    target, source = np.asarray(op.args[0]).copy(), np.asarray(op.args[1])
    valid = _valid_extents(op, op.arg_type(1), source.ndim) or source.shape
    part = source[tuple(slice(0, v) for v in valid)]
    target[_window(op, target.shape, op.ints(2), part.shape)] = part
    return target


@_define("block.vec_move")
def _vec_move(op: OpCall) -> Array:
    return np.asarray(op.args[0]).copy()


@_define("block.full")
def _full(op: OpCall) -> Array:
    dtype = op.result_dtype()
    return np.full(op.ints(0), cast_to(op.args[1], dtype), dtype)


@_define("block.fillpad", "block.fillpad_inplace", "block.fillpad_expand")
def _fillpad(op: OpCall) -> Array:
    """TFILLPAD (and its in-place and expanding forms): the result holds the source inside
    the source's valid region (constant or known at run time; the whole source without one)
    and the result's pad value everywhere else (2026-08: ``pad_value``; 2026-03: the tile
    view's), the result's shape being the expanding form's larger one."""
    tile = np.asarray(op.args[0]).copy()
    source, result = op.arg_type(0), op.call.type
    padded = result.tile_view if isinstance(result, TileType) else None
    if padded is None or padded.pad is PadMode.null:
        return tile
    valid = _valid_extents(op, source, tile.ndim)
    shape = tuple(op.extents(result.shape)) if isinstance(result, TileType) else tile.shape
    if valid is None and shape == tile.shape:
        return tile
    region = valid if valid is not None else tile.shape
    out = np.full(shape, _pad_value(tile.dtype, padded.pad), tile.dtype)
    part = tuple(slice(0, max(0, min(v, s))) for v, s in zip(region, tile.shape, strict=True))
    out[part] = tile[part]
    return out


def _pad_value(dtype: np.dtype[Any], pad: PadMode) -> Any:
    if pad is PadMode.zero:
        return dtype.type(0)
    if is_float(dtype):
        return dtype.type(np.inf if pad is PadMode.max else -np.inf)
    info = np.iinfo(dtype)
    return dtype.type(info.max if pad is PadMode.max else info.min)


@_define("block.get_block_idx")
def _block_idx(op: OpCall) -> Any:
    return np.uint64(op.block_idx)


@_define("block.get_block_num")
def _block_num(op: OpCall) -> Any:
    """The interpreter runs one block (and the simulator is run with one core)."""
    return np.uint64(1)


@_define("block.alloc")
def _alloc(op: OpCall) -> None:
    return None  # buffers are a matter of storage, not of values


# =============================================================================================
# Element-wise ops
# =============================================================================================

_define("block.add", "tensor.add", "block.adds", "tensor.add_scalar")(
    _elementwise(lambda v: v[0] + v[1], 2)
)
_define("block.sub", "tensor.sub", "block.subs", "tensor.sub_scalar")(
    _elementwise(lambda v: v[0] - v[1], 2)
)
_define("block.mul", "tensor.mul", "block.muls", "tensor.mul_scalar")(
    _elementwise(lambda v: v[0] * v[1], 2)
)
_define("block.maximum", "tensor.maximum", "block.maxs")(
    _elementwise(lambda v: kernels.maximum(v[0], v[1]), 2)
)
_define("block.minimum", "block.mins")(_elementwise(lambda v: kernels.minimum(v[0], v[1]), 2))
_define("block.and", "block.ands")(_elementwise(lambda v: v[0] & v[1], 2))
_define("block.or", "block.ors")(_elementwise(lambda v: v[0] | v[1], 2))
_define("block.xor", "block.xors")(_elementwise(lambda v: v[0] ^ v[1], 2))
_define("block.shl", "block.shls")(_elementwise(lambda v: np.left_shift(v[0], v[1]), 2))
_define("block.shr", "block.shrs")(_elementwise(lambda v: np.right_shift(v[0], v[1]), 2))
_define("block.prelu", "block.lrelu")(
    _elementwise(lambda v: np.where(v[0] > 0, v[0], v[0] * v[1]), 2)
)
_define("block.addc")(_elementwise(lambda v: (v[0] + v[1]) + v[2], 3))
_define("block.subc")(_elementwise(lambda v: (v[0] - v[1]) + v[2], 3))
_define("block.addsc")(_elementwise(lambda v: (v[0] + v[1]) + v[2], 3))
_define("block.subsc")(_elementwise(lambda v: (v[0] - v[1]) + v[2], 3))
_define("block.div", "tensor.div", "tensor.div_scalar")(
    _checked(lambda op, v: kernels.divide(v[0], v[1], op.fail), 2)
)
_define("block.rem")(_checked(lambda op, v: kernels.remainder(v[0], v[1], op.fail), 2))


def _by_nonzero_scalar(fn: Callable[[Array, Array, Any], Array]) -> Semantics:
    """TDIVS / TREMS: a zero scalar is an error for every dtype."""

    def run(op: OpCall) -> Array:
        lhs, rhs = _operands(op, 2)
        if np.any(rhs == 0):
            op.fail("the scalar is zero")
        return np.asarray(fn(lhs, rhs, op.fail)).astype(lhs.dtype)

    return run


_define("block.divs")(_by_nonzero_scalar(kernels.divide))
_define("block.rems")(_by_nonzero_scalar(kernels.remainder))


@_define("block.expands")
def _expands(op: OpCall) -> Array:
    target, value = _operands(op, 2)
    return np.broadcast_to(value, target.shape).copy()


@_define("block.neg")
def _neg(op: OpCall) -> Array:
    return np.negative(_operands(op, 1)[0])


@_define("block.abs")
def _abs(op: OpCall) -> Array:
    (x,) = _operands(op, 1)
    return np.where(x < 0, -x, x).astype(x.dtype)


@_define("block.relu")
def _relu(op: OpCall) -> Array:
    (x,) = _operands(op, 1)
    return np.where(x < 0, x.dtype.type(0), x).astype(x.dtype)


@_define("block.not")
def _not(op: OpCall) -> Array:
    return np.invert(_operands(op, 1)[0])


@_define("block.exp", "tensor.exp")
def _exp(op: OpCall) -> Array:
    return via_double(_operands(op, 1)[0], np.exp, half_through_float=True)


@_define("block.sqrt")
def _sqrt(op: OpCall) -> Array:
    return via_double(_operands(op, 1)[0], np.sqrt)


@_define("block.rsqrt")
def _rsqrt(op: OpCall) -> Array:
    return via_double(_operands(op, 1)[0], lambda x: 1.0 / np.sqrt(x))


@_define("block.log")
def _log(op: OpCall) -> Array:
    return via_double(_operands(op, 1)[0], np.log)


@_define("block.recip")
def _recip(op: OpCall) -> Array:
    (x,) = _operands(op, 1)
    if is_float(x.dtype):
        return np.asarray(x.dtype.type(1) / x).astype(x.dtype)
    return kernels.divide(np.ones_like(x), x, op.fail)


@_define("block.cast", "tensor.cast")
def _cast(op: OpCall) -> Array:
    mode = cast_mode_name(op.attr("mode"), op.span)
    return convert(np.asarray(op.args[0]), op.result_dtype(), mode)


# --- comparison and selection ---------------------------------------------------------------

_COMPARE: dict[int, Callable[[Array, Array], Array]] = {
    0: np.equal,
    1: np.not_equal,
    2: np.less,
    3: np.less_equal,
    4: np.greater,
    5: np.greater_equal,
}


def _compare_dtype(op: OpCall) -> np.dtype[Any]:
    return np_dtype(promote(op.arg_dtype(0), op.arg_dtype(1)), op.span)


def _cmp_type(op: OpCall) -> int:
    value = op.attr("cmp_type")
    if not isinstance(value, int) or value not in _COMPARE:
        op.fail(f"unknown compare type {value!r}")
    return value


def _result_shape(op: OpCall, fallback: tuple[int, ...]) -> tuple[int, ...]:
    """The static shape of the call's result (a packed mask may be narrower than its
    operands); the operands' shape when the type's shape is not all constants."""
    shape = getattr(op.call.type, "shape", None)
    values = [getattr(d, "value", None) for d in shape] if shape is not None else [None]
    if any(not isinstance(v, int) for v in values):
        return fallback
    return tuple(int(v) for v in values)  # type: ignore[arg-type]


def _compare(op: OpCall) -> Array:
    lhs, rhs = np.broadcast_arrays(*_operands(op, 2, _compare_dtype(op)))
    return _COMPARE[_cmp_type(op)](lhs, rhs)


@_define("block.cmp")
def _cmp(op: OpCall) -> Array:
    return _compare(op).astype(op.result_dtype())


@_define("block.cmp_mask")
def _cmp_mask(op: OpCall) -> Array:
    bits = _compare(op)
    return kernels.pack_rows(bits, _result_shape(op, bits.shape), op.result_dtype())


@_define("block.select_scalar")
def _select_scalar(op: OpCall) -> Array:
    src, dtype = np.asarray(op.args[1]), op.result_dtype()
    bits = _row_bits(op, np.asarray(op.args[0]), src.shape)
    return np.where(bits, src, cast_to(op.args[3], dtype)).astype(dtype)


def _row_bits(op: OpCall, mask: Array, shape: tuple[int, ...]) -> Array:
    """A cmp_mask's bits for a 2-D tile of ``shape``: row r's bit c is bit c % 8 of byte
    c // 8 of the mask's row r."""
    if mask.ndim != 2 or len(shape) != 2 or mask.shape[0] != shape[0]:
        op.fail(f"a {list(mask.shape)} mask cannot select a {list(shape)} tile")
    if mask.shape[1] * 8 < shape[1]:
        op.fail(f"the mask holds {mask.shape[1] * 8} bits a row but {shape[1]} are selected")
    columns = np.arange(shape[1])
    return ((mask.astype(np.int64)[:, columns // 8] >> (columns % 8)) & 1).astype(bool)


def _compare_scalar(op: OpCall) -> Array:
    tile, value = _operands(op, 2, _compare_dtype(op))
    mode = _cmp_type(op)
    if mode in (0, 1):  # EQ / NE compare in double within 1e-9; NaN is never equal
        diff = np.abs(tile.astype(np.float64) - value.astype(np.float64))
        return diff < 1e-9 if mode == 0 else (np.isnan(diff) | (diff > 1e-9))
    return _COMPARE[mode](tile, value)


@_define("block.cmps")
def _cmps(op: OpCall) -> Array:
    return _compare_scalar(op).astype(op.result_dtype())


@_define("block.cmps_mask")
def _cmps_mask(op: OpCall) -> Array:
    bits = _compare_scalar(op)
    return kernels.pack_rows(bits, _result_shape(op, bits.shape), op.result_dtype())


@_define("block.sel")
def _sel(op: OpCall) -> Array:
    dtype = op.result_dtype()
    mask, lhs, rhs = np.broadcast_arrays(
        np.asarray(op.args[0]), cast_to(op.args[1], dtype), cast_to(op.args[2], dtype)
    )
    return np.where(mask != 0, lhs, rhs).astype(dtype)


@_define("block.select_tiles")
def _select_tiles(op: OpCall) -> Array:
    dtype = op.result_dtype()
    lhs, rhs = cast_to(op.args[1], dtype), cast_to(op.args[2], dtype)
    return np.where(_row_bits(op, np.asarray(op.args[0]), lhs.shape), lhs, rhs).astype(dtype)


@_define("block.sels")
def _sels(op: OpCall) -> Array:
    lhs, rhs, mode = _operands(op, 3)
    lhs, rhs = np.broadcast_arrays(lhs, rhs)
    return (lhs if mode == 1 else rhs).copy()


# --- row and column broadcasts --------------------------------------------------------------

_BROADCAST_OPS: dict[str, Callable[[OpCall, Array, Array], Array]] = {
    "add": lambda op, a, b: a + b,
    "sub": lambda op, a, b: a - b,
    "mul": lambda op, a, b: a * b,
    "div": lambda op, a, b: kernels.divide(a, b, op.fail),
}


def _row_expand_op(kind: str) -> Semantics:
    def run(op: OpCall) -> Array:
        tile, row_vec = _operands(op, 2)
        return np.asarray(_BROADCAST_OPS[kind](op, tile, row_vec[..., 0:1])).astype(tile.dtype)

    return run


def _col_expand_op(kind: str) -> Semantics:
    def run(op: OpCall) -> Array:
        target, col_vec = _operands(op, 2)
        first_row = col_vec.reshape(-1, col_vec.shape[-1])[0] if col_vec.ndim else col_vec
        return np.asarray(_BROADCAST_OPS[kind](op, target, first_row)).astype(target.dtype)

    return run


for _kind in ("add", "sub", "mul", "div"):
    SEMANTICS[f"block.row_expand_{_kind}"] = _row_expand_op(_kind)
for _kind in ("sub", "mul", "div"):
    SEMANTICS[f"block.col_expand_{_kind}"] = _col_expand_op(_kind)


@_define("block.col_expand")
def _col_expand(op: OpCall) -> Array:
    target, col_vec = _operands(op, 2)
    first_row = col_vec.reshape(-1, col_vec.shape[-1])[0] if col_vec.ndim else col_vec
    return np.broadcast_to(first_row, target.shape).copy()


@_define("block.row_expand")
def _row_expand(op: OpCall) -> Array:
    tile = np.asarray(op.args[0])
    return np.broadcast_to(tile[..., 0:1], tile.shape).copy()


# =============================================================================================
# Matmul family
# =============================================================================================


@_define("block.matmul", "block.gemv", "block.batch_matmul")
def _matmul(op: OpCall) -> Array:
    lhs, rhs = (np.asarray(a) for a in op.args[:2])
    return kernels.matmul(lhs, rhs).astype(op.result_dtype())


@_define("block.matmul_acc", "block.gemv_acc")
def _matmul_acc(op: OpCall) -> Array:
    acc, lhs, rhs = (np.asarray(a) for a in op.args[:3])
    product = kernels.matmul(lhs, rhs)
    return (acc.astype(product.dtype) + product).astype(op.result_dtype())


@_define("block.matmul_bias", "block.gemv_bias")
def _matmul_bias(op: OpCall) -> Array:
    lhs, rhs, bias = (np.asarray(a) for a in op.args[:3])
    product = kernels.matmul(lhs, rhs)
    return (product + bias.astype(product.dtype)[0:1]).astype(op.result_dtype())


@_define("tensor.matmul")
def _tensor_matmul(op: OpCall) -> Array:
    lhs, rhs = (np.asarray(a) for a in op.args[:2])
    if op.attr("a_trans") and lhs.ndim >= 2:
        lhs = np.swapaxes(lhs, -1, -2)
    if op.attr("b_trans") and rhs.ndim >= 2:
        rhs = np.swapaxes(rhs, -1, -2)
    left = lhs[None, :] if lhs.ndim == 1 else lhs
    right = rhs[:, None] if rhs.ndim == 1 else rhs
    dtype = op.result_dtype()
    if is_float(dtype) or is_float(left.dtype):
        product = kernels.matmul(left.astype(np.float32), right.astype(np.float32))
    else:
        product = np.matmul(left.astype(np.int64), right.astype(np.int64))
    if rhs.ndim == 1:
        product = product[..., 0]
    if lhs.ndim == 1:
        product = product[..., 0, :] if rhs.ndim > 1 else product[..., 0]
    return np.asarray(product).astype(dtype)


@_define("tensor.matmul_acc")
def _tensor_matmul_acc(op: OpCall) -> Array:
    """acc + lhs @ rhs (2-D or batched, each optionally transposed); a true ``init_cond``
    starts afresh (the product alone)."""
    acc, lhs, rhs = (np.asarray(a) for a in op.args[:3])
    if op.attr("a_trans"):
        lhs = np.swapaxes(lhs, -1, -2)
    if op.attr("b_trans"):
        rhs = np.swapaxes(rhs, -1, -2)
    dtype = op.result_dtype()
    if is_float(dtype) or is_float(lhs.dtype):
        product = kernels.matmul(lhs.astype(np.float32), rhs.astype(np.float32))
        start = acc.astype(np.float32)
    else:
        product = np.matmul(lhs.astype(np.int64), rhs.astype(np.int64))
        start = acc.astype(np.int64)
    fresh = len(op.args) > 3 and bool(op.args[3])
    return np.asarray(product if fresh else start + product).astype(dtype)


# =============================================================================================
# Reductions and transforms
# =============================================================================================


@_define("block.sum", "block.max", "block.min")
def _reduce(op: OpCall) -> Any:
    tile = np.asarray(op.args[0])
    axis = _axis(op, int(op.attr("axis")), tile.ndim)  # type: ignore[arg-type]
    result = kernels.reduce(tile, axis, op.name.split(".")[1])
    if op.attr("keepdim"):
        result = np.expand_dims(result, axis)
    if result.ndim == 0:
        return result.astype(tile.dtype)[()]
    return result


def _row_reduce(kind: str) -> Semantics:
    """A row reduction; of a tile with a valid region (2026-08), over that region's rows and
    columns (TROWSUM / TROWMAX / TROWMIN read the source's valid region), the rows outside
    it 0 (the instruction does not write them: the result's region is the valid rows)."""

    def run(op: OpCall) -> Array:
        tile = np.asarray(op.args[0])
        valid = _valid_extents(op, op.arg_type(0), tile.ndim)
        if valid is None or tile.ndim != 2:
            return np.expand_dims(kernels.reduce(tile, tile.ndim - 1, kind), -1)
        rows, cols = (max(0, v) for v in valid)
        result = np.zeros((tile.shape[0], 1), tile.dtype)
        if rows and cols:
            part = kernels.reduce(tile[:rows, :cols], 1, kind)
            result[:rows, 0] = part
        return result

    return run


for _kind in ("sum", "max", "min"):
    SEMANTICS[f"block.row_{_kind}"] = _row_reduce(_kind)
for _kind in ("sum", "max"):
    SEMANTICS[f"tensor.row_{_kind}"] = _row_reduce(_kind)


@_define("block.view")
def _tile_view(op: OpCall) -> Array:
    tile = np.asarray(op.args[0])
    return tile[_window(op, tile.shape, op.ints(2), op.ints(1))].copy()


@_define("block.reshape")
def _tile_reshape(op: OpCall) -> Array:
    tile = np.asarray(op.args[0])
    return _fit(op, tile, op.ints(1)).copy()


@_define("block.set_validshape")
def _set_validshape(op: OpCall) -> Array:
    """The same elements; the valid region is the result's type (spec §11: no data moves)."""
    return np.asarray(op.args[0]).copy()


@_define("block.transpose_scratch")
def _tile_transpose_2d(op: OpCall) -> Array:
    return np.asarray(op.args[0]).T.copy()


@_define("block.transpose")
def _tile_transpose(op: OpCall) -> Array:
    tile = np.asarray(op.args[0])
    first, second = (_axis(op, op.int_arg(i), tile.ndim) for i in (1, 2))
    return np.swapaxes(tile, first, second).copy()


# =============================================================================================
# Tensor ops (orchestration side)
# =============================================================================================


@_define("tensor.create")
def _tensor_create(op: OpCall) -> Array:
    return created(op.ints(0), op.result_dtype())


@_define("tensor.read")
def _tensor_read(op: OpCall) -> Any:
    tensor = np.asarray(op.args[0])
    indices = op.ints(1)
    if len(indices) != tensor.ndim or any(
        not 0 <= i < d for i, d in zip(indices, tensor.shape, strict=True)
    ):
        op.fail(f"index {list(indices)} is outside a tensor of shape {list(tensor.shape)}")
    return tensor[indices]


@_define("tensor.dim")
def _tensor_dim(op: OpCall) -> Any:
    tensor = np.asarray(op.args[0])
    return np.int64(tensor.shape[_axis(op, op.int_arg(1), tensor.ndim)])


@_define("tensor.view")
def _tensor_view(op: OpCall) -> Array:
    tensor = op.args[0]
    return tensor[_window(op, tensor.shape, op.ints(2), op.ints(1))]  # type: ignore[no-any-return]


@_define("tensor.assemble")
def _tensor_assemble(op: OpCall) -> Array:
    target, source = op.args[0], np.asarray(op.args[1])
    window = _window(op, target.shape, op.ints(2), source.shape)
    _write(op, target, window, convert(source, target.dtype))
    return target  # type: ignore[no-any-return]


@_define("tensor.reshape")
def _tensor_reshape(op: OpCall) -> Array:
    return _fit(op, op.args[0], op.ints(1))


@_define("tensor.transpose")
def _tensor_transpose(op: OpCall) -> Array:
    tensor = op.args[0]
    first, second = (_axis(op, op.int_arg(i), tensor.ndim) for i in (1, 2))
    return np.swapaxes(tensor, first, second)


# =============================================================================================
# Synchronisation: no effect on values
# =============================================================================================


@_define("system.sync_src", "system.sync_dst", "system.bar_v", "system.bar_m", "system.bar_all")
def _sync(op: OpCall) -> None:
    return None


# The ops 2026-08 added (they register their semantics into the tables above).
from . import semantics_2608  # noqa: E402, F401
