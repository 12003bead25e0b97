"""What the passes read from the op registry: an op's pipe, which argument binds which
parameter, which ops produce Acc tiles, and which arguments an op writes."""

from __future__ import annotations

from ..ir.expr import Call, Expr, Op
from ..ir.types import MemorySpace
from ..ops.registry import REGISTRY, OpDef, ParamKind, PipeType

# Sync ops the InsertSync pass creates (and removes again when it re-runs).
SYNC_SRC = "system.sync_src"
SYNC_DST = "system.sync_dst"
BARRIER_OP = {PipeType.V: "system.bar_v", PipeType.M: "system.bar_m"}
INSERTED_SYNC_OPS = frozenset({SYNC_SRC, SYNC_DST, *BARRIER_OP.values()})

# A parameter holding the tensor an op writes into (block.store / block.l0c_store); the op's
# result is that same tensor, updated.
OUTPUT_PARAM = "output_tensor"

# Tensor ops whose result is a view of their first argument (same DDR storage).
_TENSOR_VIEW_OPS = frozenset({"tensor.view", "tensor.reshape", "tensor.transpose",
                              "tensor.assemble"})

_MATMUL_PREFIXES = ("matmul", "gemv", "batch_matmul")


def op_def(call: Call) -> OpDef | None:
    if not isinstance(call.callee, Op):
        return None
    return REGISTRY.get(call.callee.name)


def op_pipe(call: Call) -> PipeType | None:
    """The pipe executing a registered op; None for function calls and unknown ops."""
    op = op_def(call)
    return op.pipe if op is not None else None


def bound_args(call: Call) -> dict[str, Expr]:
    """Positional arguments by the name of the parameter they bind (expression parameters
    take ``Call.args`` in order). Empty for unregistered ops and function calls."""
    op = op_def(call)
    if op is None:
        return {}
    names = [p.name for p in op.params if p.kind is ParamKind.EXPR]
    return dict(zip(names, call.args, strict=False))


def output_arg(call: Call) -> Expr | None:
    """The argument an op writes into (the store's destination tensor), if any."""
    return bound_args(call).get(OUTPUT_PARAM)


def is_matmul_family(call: Call) -> bool:
    """Ops whose result lives in the Acc (L0C) buffer: the cube pipe's products."""
    if not isinstance(call.callee, Op):
        return False
    short = call.callee.name.split(".", 1)[-1]
    if short.startswith(_MATMUL_PREFIXES):
        return True
    return op_pipe(call) is PipeType.M


def target_memory(call: Call) -> MemorySpace | None:
    value = call.kwarg("target_memory")
    return value if isinstance(value, MemorySpace) else None


def tensor_view_source(call: Call) -> Expr | None:
    """For a tensor result that shares its storage with an argument, that argument."""
    out = output_arg(call)
    if out is not None:
        return out
    if isinstance(call.callee, Op) and call.callee.name in _TENSOR_VIEW_OPS and call.args:
        return call.args[0]
    return None


def is_inserted_sync(call: Call) -> bool:
    return isinstance(call.callee, Op) and call.callee.name in INSERTED_SYNC_OPS


def tile_space(value: Expr) -> MemorySpace:
    """Where the tile an expression produces lives: the op's ``target_memory`` when it names
    one, Acc for the matmul family, else Vec."""
    if isinstance(value, Call):
        space = target_memory(value)
        if space is not None:
            return space
        if is_matmul_family(value):
            return MemorySpace.Acc
    return MemorySpace.Vec
