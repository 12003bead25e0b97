"""System ops (``system.*``, spec dsl-surface.md section 7.6): pipe synchronisation.

The sync-insertion pass creates them; the printer writes them as ``pl.system.X(...)`` with
``pl.PipeType.X`` attributes, and the front end reads that spelling back. They have no value.
"""

from __future__ import annotations

from ..ir.types import UNKNOWN, Type
from .registry import Category, DeduceContext, Lowering, PipeType, Role
from .rules import attr_int, entry, p_attr, register_entry, rule

# CCE event ids EVENT_ID0 .. EVENT_ID7.
_EVENT_IDS = range(8)
_PIPE_VALUES = {p.value for p in PipeType}


def _check_pipe(ctx: DeduceContext, name: str) -> None:
    value = ctx.attr(name)
    if isinstance(value, PipeType):
        return
    # The seed spelling passes the pipe's integer code (set_pipe=2).
    if attr_int(ctx, name) not in _PIPE_VALUES:
        ctx.fail(
            f"{ctx.op.name}: attribute '{name}' must be a pl.PipeType, got {value!r}",
            at=name,
            code="E309",
        )


@rule
def _flag(ctx: DeduceContext) -> Type:
    _check_pipe(ctx, "set_pipe")
    _check_pipe(ctx, "wait_pipe")
    event = attr_int(ctx, "event_id")
    if event not in _EVENT_IDS:
        ctx.fail(
            f"{ctx.op.name}: attribute 'event_id' must be 0..7, got {event}",
            at="event_id",
            code="E309",
        )
    return UNKNOWN


@rule
def _barrier(ctx: DeduceContext) -> Type:
    return UNKNOWN


_PIPE = (PipeType, int)
_FLAG_PARAMS = [
    p_attr("set_pipe", "Pipe that signals (e.g. pl.PipeType.MTE2)", _PIPE),
    p_attr("wait_pipe", "Pipe that waits (e.g. pl.PipeType.V)", _PIPE),
    p_attr("event_id", "Event flag 0..7", (int,)),
]
_SYNC = {"pipe": PipeType.S, "type_rule_doc": "no value"}

for _row in (
    entry(
        "sync_src",
        "set_flag",
        "Signal an event from set_pipe to wait_pipe once set_pipe's earlier work is done.",
        role=Role.SET_FLAG,
    ),
    entry(
        "sync_dst",
        "wait_flag",
        "Make wait_pipe wait for the event signalled by the matching sync_src.",
        role=Role.WAIT_FLAG,
    ),
):
    register_entry(
        _row,
        f"system.{_row.name}",
        Category.SYNC,
        _FLAG_PARAMS,
        _flag,
        cce=Lowering(_row.instruction),
        pto=Lowering("pto." + _row.instruction),
        **_SYNC,
    )

# Each barrier's instruction names the pipe it orders (pipe_barrier(PIPE_V)).
for _row in (
    entry(
        "bar_v",
        "pipe_barrier",
        "Barrier on the vector pipe: later vector work waits for earlier vector work.",
        barrier_pipe=PipeType.V,
    ),
    entry(
        "bar_m",
        "pipe_barrier",
        "Barrier on the matrix pipe: later cube work waits for earlier cube work.",
        barrier_pipe=PipeType.M,
    ),
    entry("bar_all", "pipe_barrier", "Barrier on every pipe.", barrier_pipe=PipeType.ALL),
):
    _pipe = "PIPE_" + dict(_row.traits)["barrier_pipe"].name
    register_entry(
        _row,
        f"system.{_row.name}",
        Category.SYNC,
        [],
        _barrier,
        role=Role.BARRIER,
        cce=Lowering(_row.instruction, _pipe),
        pto=Lowering("pto.barrier", _pipe),
        **_SYNC,
    )
