"""Element data types, with the bit widths and categories the type rules need."""

from __future__ import annotations

from weakref import WeakValueDictionary

from ..enums import IdentityEnum


class DataType(IdentityEnum):
    """An element type. The value is (canonical name, bit width, category)."""

    INT4 = ("INT4", 4, "int")
    INT8 = ("INT8", 8, "int")
    INT16 = ("INT16", 16, "int")
    INT32 = ("INT32", 32, "int")
    INT64 = ("INT64", 64, "int")
    UINT4 = ("UINT4", 4, "uint")
    UINT8 = ("UINT8", 8, "uint")
    UINT16 = ("UINT16", 16, "uint")
    UINT32 = ("UINT32", 32, "uint")
    UINT64 = ("UINT64", 64, "uint")
    FP4 = ("FP4", 4, "float")
    FP8 = ("FP8", 8, "float")
    FP8E4M3FN = ("FP8E4M3FN", 8, "float")
    FP8E5M2 = ("FP8E5M2", 8, "float")
    FP16 = ("FP16", 16, "float")
    FP32 = ("FP32", 32, "float")
    BF16 = ("BF16", 16, "float")
    HF4 = ("HF4", 4, "float")
    HF8 = ("HF8", 8, "float")
    BOOL = ("BOOL", 8, "bool")
    # 2026-08: a task's id (``pl.TaskId`` is ``pl.Scalar[pl.TASK_ID]``); an orchestration value.
    TASK_ID = ("TASK_ID", 64, "task")
    # 2026-08: the machine-word integer of offsets, loop variables, dimensions queried and block
    # indices, its own dtype (2026-03 read ``INDEX`` as INT64). It stands for any integer where
    # a value is passed or annotated (``types.index_interchangeable``);
    # ``editions.EditionRules.index_dtype`` says which dtype index-like values get.
    INDEX = ("INDEX", 64, "int")

    @property
    def bits(self) -> int:
        return self.value[1]

    @property
    def is_float(self) -> bool:
        return self.value[2] == "float"

    @property
    def is_int(self) -> bool:
        """Signed or unsigned integer (BOOL is not an integer here)."""
        return self.value[2] in ("int", "uint")

    @property
    def is_signed(self) -> bool:
        return self.value[2] == "int"

    @property
    def is_unsigned(self) -> bool:
        return self.value[2] == "uint"

    @property
    def is_bool(self) -> bool:
        return self is DataType.BOOL

    @property
    def bytes(self) -> float:
        return self.bits / 8

    def __repr__(self) -> str:
        return f"DataType.{self.name}"

    def __str__(self) -> str:
        return self.name


# The integer type of shapes, offsets and loop variables that the passes create, and that the
# 2026-03 edition gives every index-like value: INT64 (2026-03's ``INDEX`` is a synonym of it).
# 2026-08's own dtype is ``DataType.INDEX``.
INDEX = DataType.INT64

# Every spelling the front end accepts after the module prefix (`pl.FP32`, bare `FP32`). The
# name ``INDEX`` reads as INT64 here; an annotation reads it per edition (``TypeResolver``).
DTYPE_BY_NAME: dict[str, DataType] = {dt.name: dt for dt in DataType}
DTYPE_BY_NAME["INDEX"] = INDEX


def index_as_int64(dtype: DataType) -> DataType:
    """INDEX read as the INT64 it was in 2026-03 (comparisons across editions)."""
    return DataType.INT64 if dtype is DataType.INDEX else dtype


def dtype_from_name(name: str) -> DataType | None:
    return DTYPE_BY_NAME.get(name)


class DtypeVariable:
    """The element type of a @pl.jit kernel's bare tensor parameter before a call gives it one
    (``dtype(a)``), or the promotion of such a type with others (``promote(dtype(a),
    dtype(b))``): a symbol the type rules carry as they carry a narrow float type (its width
    is not known; sizes computed from it are not shown). One object per name (``variable``),
    so that ``is`` compares them as it compares DataType members."""

    __slots__ = ("name", "parts", "__weakref__")
    bits = 8
    bytes = 1.0
    is_float = True
    is_int = is_signed = is_unsigned = is_bool = False

    def __init__(self, name: str, parts: tuple[str, ...]) -> None:
        self.name = name
        self.parts = parts  # the dtypes promoted (one: the parameter's own)

    @property
    def value(self) -> tuple[str, int, str]:
        return (self.name, self.bits, "float")

    def __repr__(self) -> str:
        return f"DtypeVariable({self.name!r})"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self) -> tuple[object, ...]:
        return (_interned, (self.name, self.parts))


# The variables alive, by name: weakly held, since names come from the user's code (a server
# that kept every name typed would grow for as long as it runs).
_VARIABLES: WeakValueDictionary[str, DtypeVariable] = WeakValueDictionary()


def _interned(name: str, parts: tuple[str, ...]) -> DtypeVariable:
    found = _VARIABLES.get(name)
    if found is None:  # setdefault: two threads naming it at once get the same object
        found = _VARIABLES.setdefault(name, DtypeVariable(name, parts))
    return found


def dtype_variable(parameter: str) -> DataType:
    """``dtype(parameter)``: typed as a DataType, which it stands for wherever one goes."""
    name = f"dtype({parameter})"
    return _interned(name, (name,))  # type: ignore[return-value]


def is_dtype_variable(dtype: object) -> bool:
    return isinstance(dtype, DtypeVariable)


def _joined(a: DataType, b: DataType) -> DataType:
    """``promote(...)`` of the parts of both, each once, in a fixed order (so that the join is
    the same object whichever way round it is formed)."""
    parts: list[str] = []
    for dtype in (a, b):
        own = dtype.parts if isinstance(dtype, DtypeVariable) else (dtype.name,)
        parts += [p for p in own if p not in parts]
    if len(parts) == 1:
        return a
    ordered = tuple(sorted(parts))
    return _interned(f"promote({', '.join(ordered)})", ordered)  # type: ignore[return-value]


def promote(a: DataType, b: DataType) -> DataType:
    """Result dtype of combining two element types (the original's PromoteDataTypes).

    Equal -> same; float beats non-float; otherwise the wider bit width wins;
    at equal width a signed int is preferred; else the first. With a parameter's dtype
    (``DtypeVariable``) it is the join, ``promote(dtype(a), dtype(b))``.
    """
    if a is b:
        return a
    if isinstance(a, DtypeVariable) or isinstance(b, DtypeVariable):
        return _joined(a, b)
    if a.is_float != b.is_float:
        return a if a.is_float else b
    if a.bits != b.bits:
        return a if a.bits > b.bits else b
    if a.is_signed and not b.is_signed:
        return a
    if b.is_signed and not a.is_signed:
        return b
    return a
