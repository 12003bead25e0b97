"""TypeConverter: IR types -> pto-isa C++ spellings (seed 000, section 3)."""

from __future__ import annotations

from collections.abc import Sequence

from ...ir.dtype import DataType
from ...ir.types import BLayout, MemorySpace, PadMode

DTYPE_TO_CPP: dict[DataType, str] = {
    DataType.FP32: "float",
    DataType.FP16: "half",
    DataType.BF16: "bfloat16_t",  # pto-isa's name (as on the NPU compiler)
    DataType.INT8: "int8_t",
    DataType.INT16: "int16_t",
    DataType.INT32: "int32_t",
    DataType.INT64: "int64_t",
    DataType.INDEX: "int64_t",  # 2026-08's INDEX: the machine word
    DataType.UINT8: "uint8_t",
    DataType.UINT16: "uint16_t",
    DataType.UINT32: "uint32_t",
    DataType.UINT64: "uint64_t",
    DataType.BOOL: "bool",
}

# TileType::X of pto-isa for each on-chip memory space (a tile never lives in DDR).
TILE_LOCATION: dict[MemorySpace, str] = {
    MemorySpace.Vec: "Vec",
    MemorySpace.Mat: "Mat",
    MemorySpace.Left: "Left",
    MemorySpace.Right: "Right",
    MemorySpace.Acc: "Acc",
    MemorySpace.Bias: "Bias",
}

# Block layout of the TileView; ``none_box`` is not a block layout, so it reads as row-major.
BLAYOUT_TO_CPP: dict[BLayout, str] = {
    BLayout.row_major: "RowMajor",
    BLayout.col_major: "ColMajor",
    BLayout.none_box: "RowMajor",
}

SLAYOUT_TO_CPP: dict[BLayout, str] = {
    BLayout.none_box: "NoneBox",
    BLayout.row_major: "RowMajor",
    BLayout.col_major: "ColMajor",
}

PAD_TO_CPP: dict[PadMode, str] = {
    PadMode.null: "Null",
    PadMode.zero: "Zero",
    PadMode.max: "Max",
    PadMode.min: "Min",
}

# Seed 000 pads every GlobalTensor shape to five dimensions.
GLOBAL_RANK = 5


class TypeConverter:
    """Pure conversions; anything unsupported returns None so the caller can report it."""

    @staticmethod
    def convert_dtype(dtype: DataType) -> str | None:
        """``ConvertDataType``: the C++ element type, or None (FP8, INT4, ... have none)."""
        return DTYPE_TO_CPP.get(dtype)

    @staticmethod
    def memory_annotation(space: MemorySpace) -> str:
        """``__gm__`` for global memory; on-chip buffers carry no qualifier."""
        return "__gm__" if space is MemorySpace.DDR else ""

    @staticmethod
    def tile_location(space: MemorySpace) -> str | None:
        return TILE_LOCATION.get(space)

    @staticmethod
    def pad_to_5d(dims: Sequence[int]) -> list[int]:
        if len(dims) > GLOBAL_RANK:
            raise ValueError(f"rank {len(dims)} exceeds {GLOBAL_RANK}")
        return [1] * (GLOBAL_RANK - len(dims)) + list(dims)

    @staticmethod
    def row_major_strides(dims: Sequence[int]) -> list[int]:
        """Element strides of a dense row-major array: the last is 1."""
        strides = [1] * len(dims)
        for i in range(len(dims) - 2, -1, -1):
            strides[i] = strides[i + 1] * dims[i + 1]
        return strides

    def generate_shape_type(self, dims: Sequence[int]) -> str:
        """``GenerateShapeType([128, 64])`` -> ``Shape<1, 1, 1, 128, 64>``."""
        return "Shape<" + ", ".join(str(d) for d in self.pad_to_5d(dims)) + ">"

    def generate_stride_type(self, dims: Sequence[int]) -> str:
        """``GenerateStrideType([128, 64])`` -> ``Stride<1, 1, 1, 64, 1>``: row-major strides
        of the real dimensions; the padding dimensions have stride 1, as in the seed."""
        strides = [1] * (GLOBAL_RANK - len(dims)) + self.row_major_strides(dims)
        if len(strides) > GLOBAL_RANK:
            raise ValueError(f"rank {len(dims)} exceeds {GLOBAL_RANK}")
        return "Stride<" + ", ".join(str(s) for s in strides) + ">"
