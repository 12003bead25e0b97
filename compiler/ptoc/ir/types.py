"""The IR type system: scalars, tensors (DDR), tiles (on-chip buffers), tuples.

Types are immutable values; two types compare equal when they describe the same thing
(shapes compare dimension by dimension, see ``ptoc.ir.shape``).
"""

from __future__ import annotations

from enum import Enum
from types import ModuleType
from typing import TYPE_CHECKING

from ..enums import IdentityEnum
from ..records import field, record
from .dtype import DataType

if TYPE_CHECKING:
    from .expr import Expr

_shape_loaded: ModuleType | None = None


def _shape() -> ModuleType:
    """``ptoc.ir.shape``, imported on first use (it reads expressions, which read types): an
    import statement in a function costs ~2 us a call, and equality runs per comparison."""
    global _shape_loaded
    if _shape_loaded is None:
        from . import shape

        _shape_loaded = shape
    return _shape_loaded


class MemorySpace(IdentityEnum):
    """Where a buffer lives. Value: (language name, seed name, MLIR address space)."""

    DDR = ("DDR", "DDR", "gm")
    Vec = ("Vec", "UB", "vec")
    Mat = ("Mat", "L1", "mat")
    Left = ("Left", "L0A", "left")
    Right = ("Right", "L0B", "right")
    Acc = ("Acc", "L0C", "acc")
    Bias = ("Bias", "BT", "bias")  # the bias table TMATMUL_BIAS reads its bias row from

    @property
    def seed_name(self) -> str:
        return self.value[1]

    @property
    def mlir_name(self) -> str:
        return self.value[2]

    def __repr__(self) -> str:
        return f"MemorySpace.{self.name}"


# Both spellings: the language's (Vec, Mat, ...) and the seeds' (UB, L1, L0A, ...).
MEMORY_SPACE_BY_NAME: dict[str, MemorySpace] = {}
for _ms in MemorySpace:
    MEMORY_SPACE_BY_NAME[_ms.name] = _ms
    MEMORY_SPACE_BY_NAME[_ms.seed_name] = _ms


class TensorLayout(Enum):
    ND = "ND"
    DN = "DN"
    NZ = "NZ"


class BLayout(IdentityEnum):
    """Block / scatter layout of a tile buffer (seed 002 tile_buf attributes)."""

    none_box = "none_box"
    row_major = "row_major"
    col_major = "col_major"


class PadMode(IdentityEnum):
    null = 0
    zero = 1
    max = 2
    min = 3


class Type:
    """Base of all IR types."""

    __slots__ = ()

    def short(self) -> str:
        """A compact human-readable form for hovers and messages."""
        return repr(self)


@record(frozen=True, slots=True)
class UnknownType(Type):
    """The type of values that have none (sync ops) or could not be deduced."""

    def short(self) -> str:
        return "Unknown"


@record(frozen=True, slots=True)
class PrefetchHandleType(UnknownType):
    """2026-08's L2 prefetch handles (spec section 9.2): ``kind`` "context"
    (``pl.prefetch.make_context()``), "event" (``async_prefetch``) or "session" (``session``).
    The prefetch ops check they are given the right one; everywhere else a handle is an
    unknown value, as the language has no other use for it."""

    kind: str = "context"

    def short(self) -> str:
        return PREFETCH_HANDLE_NAMES.get(self.kind, "Unknown")


#: The language's name of each prefetch handle kind.
PREFETCH_HANDLE_NAMES = {
    "context": "PrefetchAsyncContext",
    "event": "AsyncEvent",
    "session": "AsyncSession",
}


@record(frozen=True, slots=True)
class ScalarType(Type):
    dtype: DataType

    def short(self) -> str:
        return f"Scalar[{self.dtype.name}]"


@record(frozen=True, slots=True)
class MemRef:
    """A buffer: memory space, byte address (None until allocated), byte size, and an id.

    Tiles that share a MemRef share storage (the result of MemoryReuse).
    """

    memory_space: MemorySpace
    addr: int | None
    size: int
    id: int = 0

    def short(self) -> str:
        addr = "?" if self.addr is None else hex(self.addr)
        return f"{self.memory_space.name}#{self.id} @{addr} ({self.size} B)"


@record(frozen=True, slots=True, eq=False)
class TileView:
    """Layout and access pattern of a tile (seed 002/003)."""

    valid_shape: tuple[Expr, ...] | None = None
    stride: tuple[Expr, ...] | None = None
    start_offset: Expr | None = None
    blayout: BLayout = BLayout.row_major
    slayout: BLayout = BLayout.none_box
    fractal: int = 512
    pad: PadMode = PadMode.null

    def is_default(self) -> bool:
        return self == TileView()

    def __eq__(self, other: object) -> bool:
        shape = _shape()
        return (
            isinstance(other, TileView)
            and shape.optional_dims_equal(self.valid_shape, other.valid_shape)
            and shape.optional_dims_equal(self.stride, other.stride)
            and shape.optional_expr_equal(self.start_offset, other.start_offset)
            and (self.blayout, self.slayout, self.fractal, self.pad)
            == (other.blayout, other.slayout, other.fractal, other.pad)
        )

    def __hash__(self) -> int:
        return hash((self.blayout, self.slayout, self.fractal, self.pad))


@record(frozen=True, slots=True, eq=False)
class ShapedType(Type):
    shape: tuple[Expr, ...]
    dtype: DataType
    memref: MemRef | None = None

    @property
    def rank(self) -> int:
        return len(self.shape)

    def _shape_str(self) -> str:
        dim_str = _shape().dim_str
        return "[" + ", ".join(dim_str(d) for d in self.shape) + "]"


@record(frozen=True, slots=True, eq=False)
class TensorType(ShapedType):
    layout: TensorLayout | None = None

    def short(self) -> str:
        extra = f", {self.layout.name}" if self.layout is not None else ""
        return f"Tensor[{self._shape_str()}, {self.dtype.name}{extra}]"

    def __eq__(self, other: object) -> bool:
        shapes_equal = _shape().shapes_equal
        return (
            isinstance(other, TensorType)
            and self.dtype is other.dtype
            and shapes_equal(self.shape, other.shape)
            and self.memref == other.memref
            and self.layout == other.layout
        )

    def __hash__(self) -> int:
        return hash(("Tensor", self.dtype, len(self.shape)))


@record(frozen=True, slots=True, eq=False)
class DistributedTensorType(TensorType):
    """``pld.DistributedTensor[shape, dtype]`` (spec pypto-2026-08.md section 12): a view of one
    rank's slice of a window buffer, which other ranks can read and write. A tensor wherever a
    tensor is expected. ``window`` names the buffer it views (None: a parameter's)."""

    window: str | None = None

    def short(self) -> str:
        return f"DistributedTensor[{self._shape_str()}, {self.dtype.name}]"


@record(frozen=True, slots=True)
class WindowBufferType(Type):
    """``pld.alloc_window_buffer``'s ``pl.Ptr``: a buffer every rank allocates, named."""

    name: str = ""

    def short(self) -> str:
        return f"WindowBuffer[{self.name}]" if self.name else "WindowBuffer"


@record(frozen=True, slots=True)
class CommCtxType(Type):
    """``pld.CommCtx``: the communication domain of a distributed tensor (its ranks)."""

    def short(self) -> str:
        return "CommCtx"


@record(frozen=True, slots=True, eq=False)
class TileType(ShapedType):
    tile_view: TileView | None = None
    # Where the front end deduced the tile lives (the producing op's result space) before any
    # buffer is assigned; None when unknown (a parameter, an annotation). Not part of equality:
    # the printer does not print it, and a MemRef, once assigned, is authoritative.
    memory: MemorySpace | None = None

    def short(self) -> str:
        return f"Tile[{self._shape_str()}, {self.dtype.name}]"

    def __eq__(self, other: object) -> bool:
        shapes_equal = _shape().shapes_equal
        return (
            isinstance(other, TileType)
            and self.dtype is other.dtype
            and shapes_equal(self.shape, other.shape)
            and self.memref == other.memref
            and _views_equal(self.tile_view, other.tile_view)
        )

    def __hash__(self) -> int:
        return hash(("Tile", self.dtype, len(self.shape)))

    @property
    def memory_space(self) -> MemorySpace | None:
        """The tile's memory space: its buffer's once assigned, else the deduced one."""
        return self.memref.memory_space if self.memref is not None else self.memory


def _views_equal(a: TileView | None, b: TileView | None) -> bool:
    """An absent view equals the default view."""
    return (a or TileView()) == (b or TileView())


@record(frozen=True, slots=True)
class TupleType(Type):
    types: tuple[Type, ...] = field(default_factory=tuple)

    def short(self) -> str:
        return "tuple[" + ", ".join(t.short() for t in self.types) + "]"


@record(frozen=True, slots=True)
class ArrayType(Type):
    """2026-08's ``pl.Array[extent, dtype]``: a rank-1 array of integers or TaskIds."""

    extent: int | None = None  # None: known only at run time
    dtype: DataType = DataType.INT64

    def short(self) -> str:
        return f"Array[{'?' if self.extent is None else self.extent}, {self.dtype.name}]"


UNKNOWN = UnknownType()
#: The type of a TaskId (``pl.TaskId``, ``pl.Scalar[pl.TASK_ID]``).
TASK_ID_TYPE = ScalarType(DataType.TASK_ID)


def types_compatible(expected: Type, actual: Type) -> bool:
    """Whether ``actual`` satisfies ``expected``: the same kind, element type and shape (an
    INDEX scalar satisfies any integer scalar and the reverse).
    Buffers (MemRef), views and layouts are not part of it, and an unknown type (from an
    earlier error) is compatible with everything. The front end and the passes both ask this."""
    if isinstance(expected, UnknownType) or isinstance(actual, UnknownType):
        return True
    if type(expected) is not type(actual) and not (
        type(expected) is TensorType and isinstance(actual, TensorType)
    ):
        return False  # (a distributed tensor is a tensor wherever a tensor is expected)
    if isinstance(expected, ShapedType):
        assert isinstance(actual, ShapedType)
        return expected.dtype is actual.dtype and _shape().shapes_equal(
            expected.shape, actual.shape
        )
    if isinstance(expected, TupleType):
        assert isinstance(actual, TupleType)
        return len(expected.types) == len(actual.types) and all(
            types_compatible(a, b) for a, b in zip(expected.types, actual.types, strict=True)
        )
    if isinstance(expected, ScalarType) and isinstance(actual, ScalarType):
        return expected.dtype is actual.dtype or index_interchangeable(expected.dtype, actual.dtype)
    return expected == actual


def index_interchangeable(a: DataType, b: DataType) -> bool:
    """2026-08's INDEX stands for any integer dtype where a scalar is passed, annotated,
    yielded or returned (spec §3.2): the other must be an integer."""
    return (a is DataType.INDEX and b.is_int) or (b is DataType.INDEX and a.is_int)
