"""Declaration lines of the prologue and of values declared before an if:
argument unpacking, GlobalTensor types and instances, Tile types with their TASSIGN."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from ...ir.dtype import DataType
from ...ir.expr import ConstInt, Expr
from ...ir.shape import static_shape
from ...ir.span import Span
from ...ir.types import BLayout, MemorySpace, MemRef, PadMode, TensorType, TileType, TileView
from ...ir.visitor import with_fields
from ...records import field, record
from ..common import CodegenError
from .cpp_types import (
    BLAYOUT_TO_CPP,
    GLOBAL_RANK,
    PAD_TO_CPP,
    SLAYOUT_TO_CPP,
    TypeConverter,
)

if TYPE_CHECKING:  # the context holds a Declarer: only its type is needed here
    from .context import CodeContext, FunctionContext


@record
class Declaration:
    """Lines to emit, and an error to report after them (a tile without a buffer is still
    declared, so the rest of the kernel can refer to it)."""

    lines: list[str] = field(default_factory=list)
    error: CodegenError | None = None


def cpp_dtype(dtype: DataType, what: str, span: Span) -> str:
    text = TypeConverter.convert_dtype(dtype)
    if text is None:
        raise CodegenError("E400", f"{what}: element type {dtype.name} has no CCE C++ type", span)
    return text


class FollowOn(CodegenError):
    """A failure that follows from one already reported (a window of a tensor parameter whose
    shape is dynamic): the text marks it, but it is no new diagnostic."""


def static_dims(
    shape: tuple[Expr, ...], what: str, span: Span, *, follow_on: bool = False
) -> list[int]:
    dims = static_shape(shape)
    if dims is None:
        error = FollowOn if follow_on else CodegenError
        raise error(
            "E401",
            f"{what} has a dynamic shape; CCE code needs every dimension constant: "
            "declare it with constant sizes",
            span,
        )
    return dims


def tile_rows_cols(dims: list[int]) -> tuple[int, int]:
    """A tile is 2-D in pto-isa: a 1-D tile is one row; higher ranks fold into the rows."""
    if not dims:
        return 1, 1
    rows = 1
    for d in dims[:-1]:
        rows *= d
    return (1, dims[0]) if len(dims) == 1 else (rows, dims[-1])


class Declarer:
    def __init__(self, context: CodeContext, types: TypeConverter) -> None:
        self.context = context
        self.types = types

    def unpack_tensor(
        self, pointer: str, index: int, tensor: TensorType, what: str, span: Span
    ) -> str:
        element = cpp_dtype(tensor.dtype, what, span)
        return f"__gm__ {element}* {pointer} = reinterpret_cast<__gm__ {element}*>(args[{index}]);"

    def unpack_scalar(self, name: str, index: int, dtype: DataType, what: str, span: Span) -> str:
        """A scalar argument travels in its 64-bit ``args`` slot, value bits in the low bytes
        (little-endian): read it back through a pointer of its own type."""
        element = cpp_dtype(dtype, what, span)
        return f"{element} {name} = *reinterpret_cast<__gm__ {element}*>(&args[{index}]);"

    def global_tensor(
        self, base: str, instance: str, tensor: TensorType, pointer: str | None, span: Span
    ) -> list[str]:
        """``using <base>ShapeDim5``, ``<base>StrideDim5``, ``<instance>Type`` and the instance,
        bound to ``pointer`` when given (an if result is bound by its branches instead)."""
        what = f"tensor '{base}'"
        element = cpp_dtype(tensor.dtype, what, span)
        dims = static_dims(tensor.shape, what, span)
        if len(dims) > GLOBAL_RANK:
            raise CodegenError(
                "E400",
                f"{what} has rank {len(dims)}; GlobalTensor allows at most {GLOBAL_RANK}",
                span,
            )
        shape_alias = self.context.reserve(base + "ShapeDim5")
        stride_alias = self.context.reserve(base + "StrideDim5")
        type_alias = self.context.reserve(instance + "Type")
        init = f"({pointer})" if pointer is not None else ""
        shape_type, stride_type = _global_types(tuple(dims))
        layout = column_layout(dims, dims)
        return [
            f"using {shape_alias} = {shape_type};",
            f"using {stride_alias} = {stride_type};",
            f"using {type_alias} = GlobalTensor<{element}, {shape_alias}, {stride_alias}{layout}>;",
            f"{type_alias} {instance}{init};",
        ]

    def tile(self, name: str, tile: TileType, span: Span) -> Declaration:
        """``using <name>Type = Tile<...>;``, ``<name>Type <name>(rows, cols);`` and
        ``TASSIGN(<name>, 0x...);`` at the MemRef's address (skipped, with E403, when the tile
        has no buffer yet)."""
        what = f"tile '{name}'"
        memref = tile.memref
        location, error = self._buffer(memref, what, span)
        params, valid_rows, valid_cols = _tile_template(tile, location, what, span)
        type_alias = self.context.reserve(name + "Type")
        lines = [
            f"using {type_alias} = Tile<{params}>;",
            f"{type_alias} {name}({valid_rows}, {valid_cols});",
        ]
        if error is None and memref is not None and memref.addr is not None:
            lines.append(f"TASSIGN({name}, {hex(memref.addr)});")
        return Declaration(lines, error)

    def _buffer(
        self, memref: MemRef | None, what: str, span: Span
    ) -> tuple[str, CodegenError | None]:
        """The tile's TileType location, and E403 when it has no on-chip buffer to TASSIGN."""
        if memref is None:
            message = f"{what} has no MemRef (run the default pass pipeline); TASSIGN skipped"
            return "Vec", CodegenError("E403", message, span)
        if memref.memory_space is MemorySpace.DDR:
            message = f"{what} is placed in DDR; tiles live in on-chip buffers"
            return "Vec", CodegenError("E403", message, span)
        location = self.types.tile_location(memref.memory_space) or "Vec"
        if memref.addr is None:
            message = (
                f"{what} has a buffer without an address (run AllocateMemoryAddr); TASSIGN skipped"
            )
            return location, CodegenError("E403", message, span)
        return location, None


@lru_cache(maxsize=1024)  # pure: kernels repeat the same few tensor shapes
def _global_types(dims: tuple[int, ...]) -> tuple[str, str]:
    """A GlobalTensor's ``Shape<...>`` and ``Stride<...>`` types."""
    types = TypeConverter()
    return types.generate_shape_type(dims), types.generate_stride_type(dims)


def column_layout(dims: list[int], window: list[int]) -> str:
    """``, pto::Layout::DN`` for a window of ``[M, 1]`` (M > 1) of a tensor whose rows are one
    element (a contiguous column), else "" (ND): a one-column Vec tile is ColMajor, and
    A2/A3's TLOAD / TSTORE copy a tile only to a global tensor of the same layout
    ("only support ND2ND/DN2DN/NZ2NZ"). The same bytes either way; a column of a wider
    tensor has no DN form and stays ND (the CPU simulator takes it, A2/A3 does not)."""
    column = len(window) == 2 and window[1] == 1 and window[0] > 1
    return ", pto::Layout::DN" if column and len(dims) == 2 and dims[1] == 1 else ""


_DEFAULT_VIEW = TileView()
# The Right (L0B) operand's layout TMATMUL asserts.
RIGHT_VIEW = TileView(blayout=BLayout.row_major, slayout=BLayout.col_major)

# ``Tile<...>``'s arguments and the valid shape, by everything they are made of: a kernel
# file's hundreds of tiles are a few dozen distinct types. Only values and immutable views
# are keys, so an entry is never stale; the size is bounded.
_TEMPLATES: dict[tuple[object, ...], tuple[TileView, tuple[str, int, int]]] = {}
_TEMPLATES_SIZE = 1024


def _tile_template(tile: TileType, location: str, what: str, span: Span) -> tuple[str, int, int]:
    """``Tile<...>``'s template arguments and the valid rows and columns of ``tile``."""
    view = tile.tile_view or _DEFAULT_VIEW
    # The view by id (a TileView's hash is a Python-level call): an entry holds its view and
    # serves only that very view.
    shape = [d.value if type(d) is ConstInt else d for d in tile.shape]
    key = (tile.dtype, location, id(view), *shape)
    known = _TEMPLATES.get(key)
    if known is not None and known[0] is view:
        return known[1]
    element = cpp_dtype(tile.dtype, what, span)
    rows, cols = tile_rows_cols(static_dims(tile.shape, what, span))
    valid_rows, valid_cols = rows, cols
    if view.valid_shape is not None:
        valid = static_shape(view.valid_shape)
        if valid is not None:
            valid_rows, valid_cols = tile_rows_cols(valid)
    size = max(tile.dtype.bits // 8, 1)
    placed = _placed_view(location, view)
    params = _tile_params(location, element, rows, cols, placed, size)
    _whole_fractals(location, tile, rows, cols, placed, size, what, span)
    found = ", ".join(params), valid_rows, valid_cols
    if len(_TEMPLATES) >= _TEMPLATES_SIZE:
        _TEMPLATES.clear()
    _TEMPLATES[key] = view, found
    return found


def _placed_view(location: str, view: TileView) -> TileView:
    """The view the tile is declared with. TMATMUL reads its Right operand in one layout,
    fractals row by row, each column by column ("zN"), whatever the IR's view (a transposing
    move flips it): ops.py moves a transposed operand into it in that layout."""
    if location != "Right":
        return view
    return with_fields(view, blayout=RIGHT_VIEW.blayout, slayout=RIGHT_VIEW.slayout)


def _tile_params(
    location: str, element: str, rows: int, cols: int, view: TileView, size: int
) -> list[str]:
    """The template arguments of ``Tile<...>`` (``view``: the placed one; ``size``: the
    element's bytes)."""
    blayout = view.blayout
    if location == "Vec" and cols == 1 and rows > 1:
        blayout = BLayout.col_major  # pto-isa: a vector tile of one column is ColMajor
    if location == "Vec" and view.slayout is BLayout.none_box:
        rows, cols = _whole_lines(rows, cols, blayout is BLayout.col_major, size)
    params = [
        f"TileType::{location}",
        element,
        str(rows),
        str(cols),
        f"BLayout::{BLAYOUT_TO_CPP[blayout]}",
        "-1",
        "-1",
    ]
    # Fractal parameters only when they differ from pto-isa's defaults, so plain
    # vector tiles read exactly as in the seed.
    if (
        view.slayout is not _DEFAULT_VIEW.slayout
        or view.fractal != 512
        or view.pad is not PadMode.null
    ):
        params += [f"SLayout::{SLAYOUT_TO_CPP[view.slayout]}", str(view.fractal)]
        if view.pad is not PadMode.null:
            params.append(f"PadValue::{PAD_TO_CPP[view.pad]}")
    return params


def _whole_fractals(
    location: str,
    tile: TileType,
    rows: int,
    cols: int,
    view: TileView,
    size: int,
    what: str,
    span: Span,
) -> None:
    """An E400 for a boxed (fractal) tile whose shape is not whole fractals: pto-isa's Tile
    asserts it ("Layout rows/cols must be divisible by inner box rows/cols",
    include/pto/common/pto_tile.hpp, Tile's static_asserts after getInnerRow/getInnerCol), so
    the C++ would not compile. A fractal is 16 x 16 elements in Acc (1024 bytes); in Mat,
    Left and Right 16 rows of 32 bytes (row-major inside) or 32 bytes of rows x 16 columns
    (column-major inside). A one-row tile needs whole columns only."""
    if location == "Vec" or view.slayout is BLayout.none_box or view.fractal == _MX_FRACTAL:
        return
    if view.fractal == _ACC_FRACTAL:
        inner_rows, inner_cols = _FRACTAL_SIDE, _FRACTAL_SIDE
    elif view.slayout is BLayout.row_major:
        inner_rows, inner_cols = _FRACTAL_SIDE, _BLOCK_BYTES // size
    else:
        inner_rows, inner_cols = _BLOCK_BYTES // size, _FRACTAL_SIDE
    if (rows == 1 or rows % inner_rows == 0) and cols % inner_cols == 0:
        return
    raise CodegenError(
        "E400",
        f"{what}: a {location} tile of {rows} x {cols} {tile.dtype.name} is not whole "
        f"{inner_rows} x {inner_cols} fractals, which pto-isa's Tile requires there (its rows "
        f"a multiple of {inner_rows}, its columns of {inner_cols}); pad the shape (for a "
        "matmul: M, K and N) to whole fractals",
        span,
    )


_FRACTAL_SIDE = 16  # TileConfig::fixedRowSize / fixedColSize
_ACC_FRACTAL = 1024  # TileConfig::fractalCSize: 16 x 16 elements
_MX_FRACTAL = 32  # TileConfig::fractalMxSize (its own rules)


def _whole_lines(rows: int, cols: int, column_major: bool, size: int) -> tuple[int, int]:
    """A one-row or one-column Vec tile's physical shape: its one line (a row, or the column
    of a ColMajor tile) padded to whole 32-byte blocks, as pto-isa's Tile asserts (``[4, 1]``
    FP32 row statistics are 16 bytes); its valid shape stays the tile's. The allocator puts
    every buffer at a 32-byte boundary, so the padding is the buffer's own alignment slack."""
    line, count = (rows, cols) if column_major else (cols, rows)
    if count != 1 or line * size % _BLOCK_BYTES == 0:
        return rows, cols
    padded = -(-line * size // _BLOCK_BYTES) * _BLOCK_BYTES // size
    return (padded, cols) if column_major else (rows, padded)


_BLOCK_BYTES = 32


def padded_rows(tile: TileType) -> int:
    """The rows a one-column Vec tile is declared with (its column padded to whole 32-byte
    blocks)."""
    rows = static_shape(tile.shape[:1])
    count = rows[0] if rows else 0
    return _whole_lines(count, 1, True, max(tile.dtype.bits // 8, 1))[0]


def emit_tile(ctx: FunctionContext, name: str, tile_type: TileType, span: Span) -> None:
    """Declare a tile: its lines, then the error (E403) that its buffer raised, if any."""
    declaration = ctx.declarer.tile(name, tile_type, span)
    for line in declaration.lines:
        ctx.out.emit_line(line)
    if declaration.error is not None:
        raise declaration.error
