"""System, array and prefetch ops PyPTO 2026-08 added (spec pypto-2026-08.md section 9.2):
``pl.system.X`` (IR ``system.X``), ``pl.array.X`` (``array.X``), ``pl.prefetch.X``
(``prefetch.X``) and the cross-core pipe ops also spelled ``pl.X``.

ptoc lowers none of them yet (code generation reports E400 naming the op). The barriers that
order every pipe (``fence``, ``syncall``, the cross-core events) are BARRIER ops on all pipes,
which InsertSync keeps; the others are scalar queries or statements without a value. TaskIds and
arrays have IR types; a prefetch handle (context, event, session) is typed for the prefetch ops'
argument checks (E306 for a value of another kind) and is an unknown value everywhere else.
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from .. import records
from ..ir.dtype import INDEX, DataType
from ..ir.shape import static_value
from ..ir.types import (
    PREFETCH_HANDLE_NAMES,
    TASK_ID_TYPE,
    UNKNOWN,
    ArrayType,
    MemorySpace,
    PrefetchHandleType,
    ScalarType,
    TileType,
    Type,
    UnknownType,
)
from .registry import REGISTRY, Category, DeduceContext, Lowering, Param, PipeType, Role, TypeRule
from .rules import (
    attr_dtype,
    const_int_value,
    entry,
    int_elements,
    p_attr,
    p_tensor,
    p_tile,
    require_integer,
    rule,
)
from .rules_2608 import (
    INDEX_SCALAR,
    index_scalar_rule,
    no_lowering,
    p_dtype,
    p_enum,
    p_list,
    p_text,
    p_value,
    register_2608,
)

_NOT_YET = "ptoc does not lower {} yet"
_OPTIONAL_INT = (int, type(None))
_ALL_PIPES: dict[str, Any] = {"role": Role.BARRIER, "barrier_pipe": PipeType.ALL}
_EVENT_IDS = range(14)


def system_op(
    row: Any,
    params: list[Param],
    type_rule: TypeRule,
    doc: str,
    namespace: str = "system",
    **traits: Any,
) -> None:
    """Register a row's op in ``namespace``; scalar pipe, no lowering unless the row has one."""
    register_2608(
        row,
        f"{namespace}.{row.name}",
        Category.SYNC,
        params,
        type_rule,
        doc,
        **{"pipe": PipeType.S, "role": Role.SCALAR, **traits},
    )


@rule
def _no_value(ctx: DeduceContext) -> Type:
    for param in ctx.op.params:
        if param.accepts == ("scalar",) and ctx.has(param.name):
            ctx.scalar(param.name)
        elif param.accepts == ("tensor",) and ctx.has(param.name):
            ctx.tensor(param.name)
        elif param.accepts == ("tile",) and ctx.has(param.name):
            ctx.tile(param.name)
    return UNKNOWN


@rule
def _event(ctx: DeduceContext) -> Type:
    require_integer(ctx, "event_id", ctx.scalar("event_id").dtype)
    value = const_int_value(ctx.expr("event_id"))
    if value is not None and value not in _EVENT_IDS:
        ctx.fail(f"{ctx.op.name}: event_id must be 0..13, got {value}", at="event_id", code="E309")
    if not isinstance(ctx.attr("pipe"), (PipeType, int)):
        ctx.fail(f"{ctx.op.name}: attribute 'pipe' must be a pl.PipeType", at="pipe", code="E309")
    return UNKNOWN


# --- barriers and events ----------------------------------------------------------------------

system_op(
    entry(
        "fence",
        "",
        "Order global-memory accesses: later ones wait for earlier ones.",
        **no_lowering(_NOT_YET.format("the GM fence")),
    ),
    [],
    _no_value,
    "no value",
    **_ALL_PIPES,
)
_EVENT = p_value("event_id", "Event 0..13 (an integer or INDEX scalar)")
_PIPE = p_attr("pipe", "Pipe that signals / waits (pl.PipeType.X)", (PipeType, int))
_CORE_TYPE = p_attr(
    "core_type", "Core type of the event (default: this core's)", (str, Enum, type(None)), None
)
_CROSS_CORE = no_lowering(_NOT_YET.format("cross-core events"))
system_op(
    entry(
        "sync_set", "", "Signal a cross-core event once pipe's earlier work is done.", **_CROSS_CORE
    ),
    [
        _EVENT,
        _PIPE,
        p_attr("ffts_mode", "FFTS mode of the signal", _OPTIONAL_INT, None),
        _CORE_TYPE,
    ],
    _event,
    "no value",
    **_ALL_PIPES,
)
system_op(
    entry("sync_wait", "", "Make pipe wait for a cross-core event.", **_CROSS_CORE),
    [_EVENT, _PIPE, _CORE_TYPE],
    _event,
    "no value",
    **_ALL_PIPES,
)
system_op(
    entry(
        "syncall",
        "",
        "Barrier across all cores of the launch (hard mode: a full-occupancy launch).",
        **_CROSS_CORE,
    ),
    [
        p_text("core_type", "Cores that join: aiv_only, aic_only or mix", "mix"),
        p_text("mode", "hard (hardware) or soft (through gm_workspace)", "hard"),
        Param("gm_workspace", "DDR workspace of the soft mode", accepts=("tensor",), default=None),
        Param("used_cores", "Cores taking part (default: all)", accepts=("scalar",), default=None),
    ],
    _no_value,
    "no value",
    **_ALL_PIPES,
)
system_op(
    entry(
        "set_ffts", "", "Set up the FFTS cross-core flags from a workspace tensor.", **_CROSS_CORE
    ),
    [p_tensor("workspace", "FFTS workspace tensor")],
    _no_value,
    "no value",
)
system_op(
    entry(
        "cacheinvalid",
        "",
        "Invalidate cache lines of a tensor window (all of GM with no arguments).",
        **no_lowering(_NOT_YET.format("cache maintenance")),
    ),
    [
        Param("tensor", "Tensor whose lines are invalidated", accepts=("tensor",), default=None),
        Param("shapes", "Window size", accepts=("shape",), default=None),
        Param("offsets", "Window start", accepts=("shape",), default=None),
    ],
    _no_value,
    "no value",
)

# --- cross-core pipes ----------------------------------------------------------------------------

# The pipe ops are spelt ``pl.X`` too (the unified name means them whatever the arguments).
_PIPES = {**no_lowering(_NOT_YET.format("cross-core pipes")), "unified_always": True}
_SPLIT = p_enum("split", "How the tile is split between the vector cores (pl.SplitMode)")
_ID = p_attr("id", "Pipe id", _OPTIONAL_INT, None)
_LANE = p_attr("lane_stride", "Lane stride", _OPTIONAL_INT, None)
system_op(
    entry("tpush_to_aiv", "", "Push a tile from the cube core to the vector cores.", **_PIPES),
    [p_tile("tile", "Tile pushed"), _SPLIT, _LANE, _ID],
    _no_value,
    "no value",
)
system_op(
    entry("tpush_to_aic", "", "Push a tile from a vector core to the cube core.", **_PIPES),
    [p_tile("tile", "Tile pushed"), _SPLIT, _ID],
    _no_value,
    "no value",
)


@rule
def _popped(ctx: DeduceContext) -> Type:
    dtype = attr_dtype(ctx, "dtype")
    if not ctx.has("shape") or dtype is None:
        return UNKNOWN  # typed by the assignment's annotation
    return TileType(int_elements(ctx, "shape"), dtype)


_POP_SHAPE = p_list("shape", "Shape of the popped tile (or the assignment's annotation)", None)
_POP_DTYPE = p_dtype("dtype", "Element type of the popped tile", None)
_POP_SPLIT = p_enum("split", "How the tile was split (pl.SplitMode)", 0)
system_op(
    entry("tpop_from_aic", "", "Pop the tile the cube core pushed (on a vector core).", **_PIPES),
    [_POP_SHAPE, _POP_DTYPE, _POP_SPLIT, _LANE, _ID],
    _popped,
    "t(shape, dtype) in Vec",
    role=Role.MOVE,
    result_space=MemorySpace.Vec,
)
system_op(
    entry("tpop_from_aiv", "", "Pop the tile a vector core pushed (on the cube core).", **_PIPES),
    [_POP_SHAPE, _POP_DTYPE, _POP_SPLIT, _ID],
    _popped,
    "t(shape, dtype) in Mat",
    role=Role.MOVE,
    result_space=MemorySpace.Mat,
)
for _row in (
    entry("tfree_to_aic", "", "Release the slot of a tile popped from the cube core.", **_PIPES),
    entry("tfree_to_aiv", "", "Release the slot of a tile popped from a vector core.", **_PIPES),
):
    system_op(
        _row,
        [
            p_tile("tile", "Tile whose slot is released"),
            p_enum("split", "Split of the tile", None),
            _ID,
        ],
        _no_value,
        "no value",
    )
_PIPE_SETUP = [
    Param(
        "c2v_buf",
        "Cube -> vector buffer (a reserve_buffer's .base)",
        accepts=("scalar",),
        default=0,
    ),
    Param("v2c_buf", "Vector -> cube buffer", accepts=("scalar",), default=0),
    p_attr("dir_mask", "Directions set up (bit mask)", (int,)),
    p_attr("slot_size", "Bytes per slot", (int,)),
    p_attr("slot_num", "Slots per direction", _OPTIONAL_INT, None),
    p_attr("local_slot_num", "Slots local to this core", _OPTIONAL_INT, None),
    _ID,
]
for _row in (
    entry("aic_initialize_pipe", "", "Set up the cross-core pipes on the cube core.", **_PIPES),
    entry("aiv_initialize_pipe", "", "Set up the cross-core pipes on a vector core.", **_PIPES),
):
    system_op(_row, _PIPE_SETUP, _no_value, "no value")


@rule
def _buffer(ctx: DeduceContext) -> Type:
    if not ctx.attr("name"):
        ctx.fail(f"{ctx.op.name}: name= must be a non-empty string", at="name", code="E309")
    return INDEX_SCALAR


system_op(
    entry(
        "reserve_buffer",
        "",
        "Reserve a named buffer other cores can import; the result's .base is its address.",
        **_PIPES,
    ),
    [
        p_text("name", "Name of the buffer"),
        p_attr("size", "Size in bytes", (int,)),
        p_attr(
            "base",
            "Address (default pl.AUTO: chosen by the compiler)",
            (int, Enum, type(None)),
            None,
        ),
    ],
    _buffer,
    "s(INDEX): the buffer",
)
system_op(
    entry(
        "import_peer_buffer", "", "A buffer another core's function reserved, by name.", **_PIPES
    ),
    [
        p_text("name", "Name of the buffer"),
        p_attr("peer_func", "The function that reserved it", (object,)),
    ],
    _buffer,
    "s(INDEX): the buffer",
)

# Each pipe op's PTO spelling (PTOAS v0.57's frontend pipe ops; codegen/pto/pipes.py writes
# them, with the GM slot ring A2/A3 needs). The CCE generator does not build pto-isa's TPipe.
_PTOAS_PIPE_OPS = {
    "tpush_to_aiv": "pto.tpush_to_aiv",
    "tpush_to_aic": "pto.tpush_to_aic",
    "tpop_from_aic": "pto.tpop_from_aic",
    "tpop_from_aiv": "pto.tpop_from_aiv",
    "tfree_to_aic": "pto.tfree_from_aic",
    "tfree_to_aiv": "pto.tfree_from_aiv",
    "aic_initialize_pipe": "pto.aic_initialize_pipe",
    "aiv_initialize_pipe": "pto.aiv_initialize_pipe",
    "reserve_buffer": "pto.reserve_buffer",
    "import_peer_buffer": "pto.import_reserved_buffer",
}
for _name, _ptoas in _PTOAS_PIPE_OPS.items():
    REGISTRY.replace(
        records.replace(
            REGISTRY.ops[f"system.{_name}"],
            cce=Lowering(
                None,
                "ptoc does not lower cross-core pipes to CCE yet: pto-isa's TPUSH / TPOP / "
                "TFREE need a TPipe built from the pipe's setup, which ptoc's CCE generator "
                "does not make (the PTO target writes them)",
            ),
            pto=Lowering(_ptoas),
        )
    )


# --- task ids, core counts --------------------------------------------------------------------

_TASKS = no_lowering("task-graph ops run on the orchestration side")


@rule
def _task_id(ctx: DeduceContext) -> Type:
    return TASK_ID_TYPE


system_op(
    entry("task_invalid", "", "An invalid TaskId (the same as None).", **_TASKS),
    [],
    _task_id,
    "TaskId",
)
system_op(
    entry("task_dummy", "", "A TaskId that completes when all of deps have.", **_TASKS),
    [Param("deps", "The TaskIds joined", accepts=("shape",))],
    _task_id,
    "TaskId",
)
_COUNTS = no_lowering(_NOT_YET.format("core counts"))
for _row in (
    entry("available_cluster_count", "", "The number of clusters of this launch.", **_COUNTS),
    entry("available_aiv_count", "", "The number of vector cores of this launch.", **_COUNTS),
):
    system_op(
        _row,
        [],
        index_scalar_rule(),
        "s(INDEX)",
    )

# --- arrays -----------------------------------------------------------------------------------

_ARRAYS = no_lowering(_NOT_YET.format("arrays"))
_ARRAY_DTYPES = (*(d for d in DataType if d.is_int), DataType.TASK_ID)


@rule
def _array_create(ctx: DeduceContext) -> Type:
    require_integer(ctx, "extent", ctx.scalar("extent").dtype)
    dtype = attr_dtype(ctx, "dtype")
    if dtype not in _ARRAY_DTYPES or dtype is None:
        ctx.fail(
            f"{ctx.op.name}: dtype must be an integer type or pl.TASK_ID", at="dtype", code="E309"
        )
    extent = static_value(ctx.expr("extent"))
    if extent is not None and extent <= 0:
        ctx.fail(f"{ctx.op.name}: the extent must be positive, got {extent}", at="extent")
    return ArrayType(extent, dtype)


@rule
def _array_element(ctx: DeduceContext) -> Type:
    array = ctx.type("array")
    if not isinstance(array, ArrayType | UnknownType):
        ctx.fail(
            f"{ctx.op.name}: argument 'array' must be a pl.Array, got {array.short()}", at="array"
        )
    require_integer(ctx, "index", ctx.scalar("index").dtype)
    index, extent = static_value(ctx.expr("index")), getattr(array, "extent", None)
    if index is not None and extent is not None and not 0 <= index < extent:
        ctx.fail(
            f"{ctx.op.name}: index {index} is outside the array's {extent} elements", at="index"
        )
    element = ScalarType(array.dtype) if isinstance(array, ArrayType) else UNKNOWN
    if not ctx.has("value"):
        return element
    value = ctx.scalar("value")
    if isinstance(element, ScalarType) and (value.dtype is DataType.TASK_ID) != (
        element.dtype is DataType.TASK_ID
    ):
        ctx.fail(f"{ctx.op.name}: value must be {element.short()}, got {value.short()}", at="value")
    return array


_ARRAY = Param("array", "The array", accepts=("array",))
_INDEX = p_value("index", "Element index (an integer scalar)")
system_op(
    entry("create", "", "A rank-1 array of extent integers (pl.Array[extent, dtype]).", **_ARRAYS),
    [
        p_value("extent", "Number of elements"),
        p_dtype("dtype", "Integer element type (or pl.TASK_ID)"),
    ],
    _array_create,
    "pl.Array[extent, dtype]",
    namespace="array",
)
system_op(
    entry("get_element", "", "One element of an array (also arr[i]).", **_ARRAYS),
    [_ARRAY, _INDEX],
    _array_element,
    "s(array dtype)",
    namespace="array",
)
system_op(
    entry(
        "update_element", "", "The array with one element replaced (also arr[i] = v).", **_ARRAYS
    ),
    [_ARRAY, _INDEX, p_value("value", "New value")],
    _array_element,
    "the array",
    namespace="array",
)

# --- L2 prefetch ------------------------------------------------------------------------------

_PREFETCH = no_lowering(_NOT_YET.format("L2 prefetch"))


def _handle_arg(ctx: DeduceContext, name: str, kind: str, made_by: str) -> None:
    """E306 when the argument is a value of another kind (a tensor, a scalar, another
    handle); a value of unknown type is not checked."""
    given = ctx.type(name)
    if isinstance(given, PrefetchHandleType) and given.kind == kind:
        return
    if isinstance(given, UnknownType) and not isinstance(given, PrefetchHandleType):
        return
    wanted = PREFETCH_HANDLE_NAMES[kind]
    ctx.fail(
        f"{ctx.op.name}: argument '{name}' must be a pl.{wanted} (made by {made_by}), "
        f"got {given.short()}",
        at=name,
    )


def _handle_rule(kind: str) -> TypeRule:
    """A prefetch op's handle: the context, event or session it makes, its arguments checked."""

    def deduce(ctx: DeduceContext) -> Type:
        if ctx.has("src_tensor"):
            ctx.tensor("src_tensor")
        if ctx.has("ctx"):
            _handle_arg(ctx, "ctx", "context", "pl.prefetch.make_context()")
        return PrefetchHandleType(kind)

    return rule(deduce)


@rule
def _wait(ctx: DeduceContext) -> Type:
    _handle_arg(ctx, "event", "event", "pl.prefetch.async_prefetch(...)")
    _handle_arg(ctx, "session", "session", "pl.prefetch.session(ctx)")
    return ScalarType(INDEX)


_CONTEXT = Param("ctx", "A prefetch context (make_context)", accepts=("prefetch context",))
system_op(
    entry("make_context", "", "A new L2 prefetch context.", **_PREFETCH),
    [],
    _handle_rule("context"),
    "pl.PrefetchAsyncContext",
    namespace="prefetch",
)
system_op(
    entry("async_prefetch", "", "Start prefetching a tensor into L2.", **_PREFETCH),
    [p_tensor("src_tensor", "Tensor prefetched"), _CONTEXT],
    _handle_rule("event"),
    "pl.AsyncEvent",
    namespace="prefetch",
)
system_op(
    entry("session", "", "The session of a prefetch context.", **_PREFETCH),
    [_CONTEXT],
    _handle_rule("session"),
    "pl.AsyncSession",
    namespace="prefetch",
)
system_op(
    entry("wait", "", "Wait for a prefetch to finish.", **_PREFETCH),
    [
        Param("event", "The prefetch's event", accepts=("async event",)),
        Param("session", "The context's session", accepts=("async session",)),
    ],
    _wait,
    "s(INDEX)",
    namespace="prefetch",
)
