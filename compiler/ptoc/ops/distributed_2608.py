"""Distributed PyPTO's ops (``import pypto.language.distributed as pld``, spec
pypto-2026-08.md section 12): window buffers and their per-rank views, remote loads and
stores, put / get, notify / wait and the collectives.

An op's IR name is ``pld.<group>.<name>`` (group ``system``, ``tensor`` or ``tile``), its
canonical spelling; the ops with a short form (``pld.window``) list it among their spellings.
``resolve_pld`` maps a spelling to its op. The window-bound operands must be a
``DistributedTensor`` (a plain tensor is rejected, as upstream's verifiers do); the local side
of put / get may be a plain tensor. ptoc lowers none of these ops: code generation reports E400
naming the op.
"""

from __future__ import annotations

from typing import Any

from .. import records
from ..ir.dtype import DataType
from ..ir.expr import Var
from ..ir.types import (
    UNKNOWN,
    CommCtxType,
    DistributedTensorType,
    MemorySpace,
    ScalarType,
    TensorType,
    TileType,
    Type,
    UnknownType,
    WindowBufferType,
)
from .pld import GROUPS, NAMESPACE, pld_spellings, resolve_pld
from .registry import Category, DeduceContext, Param, Role
from .rules import Entry, attr_dtype, entry, int_elements, p_attr, p_tile, require_integer, rule
from .rules_2608 import no_lowering, p_dtype, p_enum, p_flag, p_list, p_text, p_value, register_2608

# What each target lacks (E400's words): pto-isa's CCE has the one-sided TPUT / TGET / TNOTIFY /
# TWAIT but ptoc's kernels take no communication context (the peer windows' addresses).
CCE_MISSING = "the kernel would need the communication context (the peers' window addresses)"
_CTX_PARAM = "a kernel parameter for the communication context, which ptoc's PTO signatures lack"
_HOST = "it runs on the host (the distributed runtime), which ptoc does not generate"
PTO_MISSING = {
    "system.world_size": _HOST,
    "system.get_comm_ctx": _CTX_PARAM,
    "system.rank": _CTX_PARAM,
    "system.nranks": _CTX_PARAM,
    "system.notify": f"PTOAS v0.57's pto.comm.tnotify needs {_CTX_PARAM}",
    "system.wait": "PTOAS v0.57's pto.comm.twait on the signal window is not emitted yet",
    "system.defer_wait": "it defers the task's completion in the runtime, which ptoc lacks",
    "tensor.alloc_window_buffer": _HOST,
    "tensor.window": _HOST,
    "tensor.put": f"PTOAS v0.57's pto.comm.tput needs {_CTX_PARAM}",
    "tensor.get": f"PTOAS v0.57's pto.comm.tget needs {_CTX_PARAM}",
    "tensor.remote_store": f"a pto.tstore into the peer's window needs {_CTX_PARAM}",
    "tile.remote_load": f"a pto.tload from the peer's window needs {_CTX_PARAM}",
    "tile.remote_store": f"a pto.tstore into the peer's window needs {_CTX_PARAM}",
    **{
        f"tensor.{c}": "a collective is a composite of notify / wait / put, none of them lowered"
        for c in (
            "allreduce",
            "barrier",
            "broadcast",
            "allgather",
            "reduce_scatter",
            "all_to_all",
            "all_to_all_v",
        )
    },
}
_CATEGORY = {"system": Category.SYNC, "tensor": Category.TENSOR, "tile": Category.BLOCK}
_INT32 = ScalarType(DataType.INT32)


def pld_op(
    op_row: Entry,
    params: list[Param],
    type_rule: Any,
    doc: str,
    *,
    short: bool = False,
    **traits: Any,
) -> None:
    """Register ``pld.<group>.<op>`` (also spelt ``pld.<op>`` when ``short``)."""
    group, _, name = op_row.name.partition(".")
    spellings = (op_row.name, name) if short else (op_row.name,)
    missing = no_lowering(
        f"ptoc does not lower distributed PyPTO (pld) yet: {CCE_MISSING}",
        f"ptoc does not lower distributed PyPTO (pld) yet: {PTO_MISSING[op_row.name]}",
    )
    op_row = records.replace(op_row, traits=(*op_row.traits, *missing.items()))
    register_2608(
        op_row,
        f"{NAMESPACE}.{op_row.name}",
        _CATEGORY[group],
        params,
        type_rule,
        doc,
        dsl_names=spellings,
        **{"role": Role.SCALAR, **traits},
    )


def window_tensor(ctx: DeduceContext, name: str) -> DistributedTensorType | None:
    """A window-bound operand: a DistributedTensor (None: its type is unknown)."""
    t = ctx.type(name)
    if isinstance(t, UnknownType):
        return None
    if not isinstance(t, DistributedTensorType):
        ctx.fail(
            f"{ctx.op.name}: argument '{name}' must be a pld.DistributedTensor (a window "
            f"buffer's view, pld.window), got {t.short()}",
            at=name,
        )
    return t


def local_tensor(ctx: DeduceContext, name: str) -> TensorType | None:
    t = ctx.type(name)
    return None if isinstance(t, UnknownType) else ctx.tensor(name)


def peer_scalar(ctx: DeduceContext, name: str = "peer") -> None:
    if ctx.has(name):
        require_integer(ctx, name, ctx.scalar(name).dtype)


# --- system ------------------------------------------------------------------------------------


@rule
def _world_size(ctx: DeduceContext) -> Type:
    return _INT32


@rule
def _comm_ctx(ctx: DeduceContext) -> Type:
    window_tensor(ctx, "tensor")
    return CommCtxType()


@rule
def _rank(ctx: DeduceContext) -> Type:
    t = ctx.type("ctx")
    if not isinstance(t, (CommCtxType, UnknownType)):
        ctx.fail(f"{ctx.op.name}: argument 'ctx' must be a pld.CommCtx, got {t.short()}", at="ctx")
    return _INT32


@rule
def _signal(ctx: DeduceContext) -> Type:
    window_tensor(ctx, "signal" if ctx.has("signal") else "target")
    peer_scalar(ctx)
    int_elements(ctx, "offsets")
    for name in ("value", "expected"):
        if ctx.has(name):
            ctx.scalar(name)
    return UNKNOWN


_CTX = Param("ctx", "The communication context (pld.get_comm_ctx)", accepts=("comm ctx",))
pld_op(
    entry("system.world_size", "", "The number of ranks (HOST orchestrators only)."),
    [],
    _world_size,
    "s(INT32)",
    short=True,
)
pld_op(
    entry(
        "system.get_comm_ctx",
        "",
        "The communication context of a distributed tensor.",
    ),
    [Param("tensor", "A window's view", accepts=("distributed tensor",))],
    _comm_ctx,
    "pld.CommCtx",
    short=True,
)
pld_op(
    entry("system.rank", "", "This rank's index in the context."),
    [_CTX],
    _rank,
    "s(INT32)",
    short=True,
)
pld_op(
    entry("system.nranks", "", "The number of ranks of the context."),
    [_CTX],
    _rank,
    "s(INT32)",
    short=True,
)
_SIGNAL = Param("signal", "The INT32 signal window", accepts=("distributed tensor",))
_OFFSETS = p_list("offsets", "The signal cell")
pld_op(
    entry("system.notify", "", "Signal a cell of a peer's signal window."),
    [
        Param("target", "The peer's signal window", accepts=("distributed tensor",)),
        p_value("peer", "The peer rank"),
        _OFFSETS,
        p_value("value", "Value added or set"),
        p_enum("op", "pld.NotifyOp.AtomicAdd or Set", 0),
    ],
    _signal,
    "no value",
)
for _row in (
    entry("system.wait", "", "Block until a local signal cell compares true."),
    entry(
        "system.defer_wait",
        "",
        "Defer this task's completion until a local signal cell compares true.",
    ),
):
    pld_op(
        _row,
        [
            _SIGNAL,
            _OFFSETS,
            p_value("expected", "Value compared with"),
            p_enum("cmp", "pld.WaitCmp.Eq or Ge", 0),
        ],
        _signal,
        "no value",
    )


# --- tensor: window buffers, put / get, collectives --------------------------------------------


@rule
def _alloc(ctx: DeduceContext) -> Type:
    size = ctx.type("size")
    dtype = attr_dtype(ctx, "dtype")
    if isinstance(size, ScalarType):
        require_integer(ctx, "size", size.dtype)
    elif dtype is None:
        ctx.fail(f"{ctx.op.name}: a shape list needs dtype=", at="size")
    else:
        int_elements(ctx, "size")
    name = ctx.attr("name")
    return WindowBufferType(name if isinstance(name, str) else "")


@rule
def _window(ctx: DeduceContext) -> Type:
    buf, expr = ctx.type("buf"), ctx.expr("buf")
    if not isinstance(buf, (WindowBufferType, UnknownType)):
        ctx.fail(
            f"{ctx.op.name}: argument 'buf' must be a window buffer (pld.alloc_window_buffer), "
            f"got {buf.short()}",
            at="buf",
        )
    dtype = attr_dtype(ctx, "dtype")
    shape = int_elements(ctx, "shape")
    name = buf.name if isinstance(buf, WindowBufferType) and buf.name else None
    if name is None and isinstance(expr, Var):
        name = expr.name
    assert dtype is not None
    return DistributedTensorType(shape, dtype, window=name)


def _same_window(name: str) -> Any:
    @rule
    def deduce(ctx: DeduceContext) -> Type:
        for param in ctx.op.params:
            if param.accepts == ("distributed tensor",) and ctx.has(param.name):
                window_tensor(ctx, param.name)
            elif param.accepts == ("tensor",) and ctx.has(param.name):
                local_tensor(ctx, param.name)
            elif param.accepts == ("scalar",) and ctx.has(param.name):
                ctx.scalar(param.name)
        return ctx.type(name)

    return deduce


@rule
def _transfer(ctx: DeduceContext) -> Type:
    remote, local = ("dst", "src") if ctx.op.short_name == "tensor.put" else ("src", "dst")
    window_tensor(ctx, remote)
    local_tensor(ctx, local)
    peer_scalar(ctx)
    return UNKNOWN


_WINDOW = "distributed tensor"
pld_op(
    entry(
        "tensor.alloc_window_buffer",
        "",
        "A buffer every rank allocates, which the others can reach (a pl.Ptr).",
    ),
    [
        Param("size", "Byte count, or a shape list with dtype=", accepts=("scalar", "shape")),
        p_dtype("dtype", "Element type of a shape-list size", None),
        p_text("name", "The buffer's name (default: the assigned name)", ""),
    ],
    _alloc,
    "pl.Ptr (a window buffer)",
    short=True,
)
pld_op(
    entry("tensor.window", "", "A view of this rank's slice of a window buffer."),
    [
        Param("buf", "The window buffer", accepts=("window buffer",)),
        p_list("shape", "Shape of the slice"),
        p_dtype("dtype", "Element type"),
    ],
    _window,
    "pld.DistributedTensor[shape, dtype]",
    short=True,
)
_ATOMIC = p_enum("atomic", "pld.AtomicType.None_ or Add", 0)
_PUT = entry("tensor.put", "", "Write this rank's src into a peer's dst window.")
_GET = entry("tensor.get", "", "Read a peer's src window into this rank's dst.")
for _row, _dst, _src in ((_PUT, _WINDOW, "tensor"), (_GET, "tensor", _WINDOW)):
    _params = [
        Param("dst", "Where the data lands", accepts=(_dst,)),
        p_value("peer", "The peer rank"),
        Param("src", "Where the data comes from", accepts=(_src,)),
        p_list("dst_offsets", "Where in dst", None),
        p_list("src_offsets", "Where in src", None),
        p_list("shape", "Shape moved (default: the whole tensor)", None),
        *([_ATOMIC] if _row is _PUT else []),
        p_attr("chunk_rows", "Rows per chunk (0: one chunk)", (int,), 0),
        p_attr("chunk_cols", "Columns per chunk (0: one chunk)", (int,), 0),
        p_flag("pipeline", "Overlap the chunks"),
    ]
    pld_op(_row, _params, _transfer, "no value")
pld_op(
    entry("tensor.remote_store", "", "Write a tensor into a peer's slice of a window."),
    [
        Param("src", "The tensor written", accepts=("tensor",)),
        Param("target", "The window written", accepts=(_WINDOW,)),
        p_value("peer", "The peer rank"),
        p_list("offsets", "Where in the peer's slice"),
        _ATOMIC,
    ],
    _same_window("target"),
    "no value",
    short=True,
)
_TARGET = Param("target", "The window reduced / filled in place", accepts=(_WINDOW,))
_SIGNAL_OPT = Param("signal", "The INT32 signal window", accepts=(_WINDOW,), default=None)
_REDUCE = p_enum("op", "pld.ReduceOp.Sum, Max, Min or Prod", 0)
_COLLECTIVES: list[tuple[Entry, list[Param], str]] = [
    (
        entry(
            "tensor.allreduce",
            "",
            "Reduce every rank's slice; each rank gets the result (in place).",
        ),
        [
            _TARGET,
            _SIGNAL_OPT,
            _REDUCE,
            p_text("mode", "mesh or ring", "mesh"),
            p_attr("core_num", "Cores used", (int,), 1),
        ],
        "target",
    ),
    (
        entry("tensor.barrier", "", "Wait until every rank reaches it."),
        [_SIGNAL],
        "signal",
    ),
    (
        entry("tensor.broadcast", "", "Copy the root rank's slice to every rank."),
        [_TARGET, _SIGNAL, p_attr("root", "The root rank", (int,))],
        "target",
    ),
    (
        entry("tensor.allgather", "", "Gather every rank's slice into each rank."),
        [Param("local", "This rank's part", accepts=(_WINDOW,)), _TARGET, _SIGNAL],
        "target",
    ),
    (
        entry("tensor.reduce_scatter", "", "Reduce and scatter the chunks."),
        [_TARGET, _SIGNAL, _REDUCE],
        "target",
    ),
    (
        entry("tensor.all_to_all", "", "Send each rank its chunk of input."),
        [Param("input", "Chunks to send", accepts=(_WINDOW,)), _TARGET, _SIGNAL],
        "target",
    ),
    (
        entry("tensor.all_to_all_v", "", "Send each rank a variable number of rows."),
        [
            Param("input", "Chunks to send", accepts=(_WINDOW,)),
            _TARGET,
            _SIGNAL,
            Param("send_counts", "Rows per destination", accepts=(_WINDOW,)),
            Param("recv_counts", "Rows per source", accepts=(_WINDOW,)),
        ],
        "target",
    ),
]
for _row, _params, _result in _COLLECTIVES:
    pld_op(_row, _params, _same_window(_result), f"the type of {_result}", role=Role.BARRIER)


# --- tile: remote load / store -----------------------------------------------------------------


@rule
def _remote_load(ctx: DeduceContext) -> Type:
    target = window_tensor(ctx, "target")
    peer_scalar(ctx)
    int_elements(ctx, "offsets")
    shape = int_elements(ctx, "shape")
    if target is None:
        return UNKNOWN
    return TileType(shape, target.dtype, memory=MemorySpace.Vec)


pld_op(
    entry("tile.remote_load", "", "Read a peer's slice of a window into a tile."),
    [
        Param("target", "The window read", accepts=(_WINDOW,)),
        p_value("peer", "The peer rank"),
        p_list("offsets", "Where in the peer's slice"),
        p_list("shape", "Shape of the tile"),
        p_list("valid_shape", "Valid part of the tile", None),
    ],
    _remote_load,
    "t(shape, target dtype) in Vec",
    short=True,
    role=Role.MOVE,
    result_space=MemorySpace.Vec,
)
pld_op(
    entry("tile.remote_store", "", "Write a tile into a peer's slice of a window."),
    [
        p_tile("src", "The tile written"),
        Param("target", "The window written", accepts=(_WINDOW,)),
        p_value("peer", "The peer rank"),
        p_list("offsets", "Where in the peer's slice"),
        _ATOMIC,
    ],
    _same_window("target"),
    "no value",
    short=True,
)


__all__ = ["GROUPS", "NAMESPACE", "pld_spellings", "resolve_pld"]
