"""The ops that 2026-08's syntax sugar means (spec §5): numpy-style subscripts of tensors and
tiles read an element, take a window (dropping integer-indexed axes), and ``dst[...] = src``
assembles. Keyed by the kind of value subscripted."""

from __future__ import annotations

from ..ir.types import TensorType, TileType

READ = {TensorType: "tensor.read", TileType: "block.read"}
WINDOW = {TensorType: "tensor.view", TileType: "block.view"}
RESHAPE = {TensorType: "tensor.reshape", TileType: "block.reshape"}
ASSEMBLE = {TensorType: "tensor.assemble", TileType: "block.assemble"}
# 2026-08's ``arr[i]`` and ``arr[i] = v`` on a ``pl.Array`` (spec §7).
ARRAY_READ, ARRAY_UPDATE = "array.get_element", "array.update_element"

# The ops ``ptoc upgrade`` and its reverse reason about by name: 2026-08 writes the Acc store
# ``pl.store``; a tensor window and the axis reductions are rows 2026-08 reads otherwise.
ACC_STORE = "block.l0c_store"
TENSOR_WINDOW = "tensor.view"
AXIS_REDUCTIONS = ("block.sum", "block.max", "block.min")
