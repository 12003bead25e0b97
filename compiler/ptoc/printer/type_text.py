"""Type annotations: ``pl.Tensor[[64, 128], pl.FP32]``, ``pl.Tile[...]``, ``pl.Scalar[...]``,
``tuple[...]``, with the optional MemRef / TileView subscript elements."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..ir.dtype import DataType, is_dtype_variable
from ..ir.expr import Expr
from ..ir.types import (
    ArrayType,
    CommCtxType,
    DistributedTensorType,
    MemRef,
    ScalarType,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    WindowBufferType,
)
from .literals import hex_literal

_DEFAULT_VIEW = TileView()


class TypePrinter:
    """Prints types; dimensions go through ``dim`` (which also records symbolic names)."""

    def __init__(self, prefix: str, dim: Callable[[Expr], str]) -> None:
        self.prefix = prefix
        self.dim = dim

    def type(self, t: Type) -> str:
        if isinstance(t, TensorType):
            return self.tensor(t)
        if isinstance(t, TileType):
            return self.tile(t)
        if isinstance(t, ScalarType):
            return f"{self.prefix}.Scalar[{self.dtype(t.dtype)}]"
        if isinstance(t, ArrayType):
            extent = "None" if t.extent is None else str(t.extent)
            return f"{self.prefix}.Array[{extent}, {self.dtype(t.dtype)}]"
        if isinstance(t, TupleType):
            inner = ", ".join(self.type(e) for e in t.types) if t.types else "()"
            return f"tuple[{inner}]"
        if isinstance(t, WindowBufferType):
            return f"{self.prefix}.Ptr"
        if isinstance(t, CommCtxType):
            return "pld.CommCtx"
        # UnknownType: only IR built from erroneous source has it; the language has no
        # spelling for it, so this text is for messages, not for parsing back.
        return f"{self.prefix}.Unknown"

    def dtype(self, dtype: DataType) -> str:
        if is_dtype_variable(dtype):  # a @pl.jit parameter's: dtype(a), promote(...)
            return dtype.name
        return f"{self.prefix}.{dtype.name}"  # 2026-08's INDEX: pl.INDEX (2026-03: INT64)

    def shape(self, dims: Sequence[Expr]) -> str:
        return "[" + ", ".join(self.dim(d) for d in dims) + "]"

    def tensor(self, t: TensorType) -> str:
        items = [self.shape(t.shape), self.dtype(t.dtype)]
        if t.layout is not None:
            items.append(f"{self.prefix}.{t.layout.name}")
        if t.memref is not None:
            items.append(self.memref(t.memref))
        head = "pld.DistributedTensor" if isinstance(t, DistributedTensorType) else None
        return f"{head or self.prefix + '.Tensor'}[{', '.join(items)}]"

    def tile(self, t: TileType) -> str:
        items = [self.shape(t.shape), self.dtype(t.dtype)]
        if t.memref is not None:
            items.append(self.memref(t.memref))
        if t.tile_view is not None and t.tile_view != _DEFAULT_VIEW:
            items.append(self.tile_view(t.tile_view))
        return f"{self.prefix}.Tile[{', '.join(items)}]"

    def memref(self, m: MemRef) -> str:
        addr = "None" if m.addr is None else hex_literal(m.addr)
        space = f"{self.prefix}.MemorySpace.{m.memory_space.name}"
        return f"{self.prefix}.MemRef({space}, {addr}, {m.size}, {m.id})"

    def tile_view(self, view: TileView) -> str:
        """Only the fields that differ from the defaults, in a fixed order."""
        p = self.prefix
        fields: list[str] = []
        if view.blayout != _DEFAULT_VIEW.blayout:
            fields.append(f"blayout={p}.BLayout.{view.blayout.name}")
        if view.slayout != _DEFAULT_VIEW.slayout:
            fields.append(f"slayout={p}.BLayout.{view.slayout.name}")
        if view.fractal != _DEFAULT_VIEW.fractal:
            fields.append(f"fractal={view.fractal}")
        if view.pad != _DEFAULT_VIEW.pad:
            fields.append(f"pad={p}.PadMode.{view.pad.name}")
        if view.valid_shape is not None:
            fields.append(f"valid_shape={self.shape(view.valid_shape)}")
        if view.stride is not None:
            fields.append(f"stride={self.shape(view.stride)}")
        if view.start_offset is not None:
            fields.append(f"start_offset={self.dim(view.start_offset)}")
        return f"{p}.TileView({', '.join(fields)})"
