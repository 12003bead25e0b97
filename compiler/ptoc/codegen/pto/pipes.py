"""Cross-core pipe ops -> PTOAS v0.57's frontend pipe ops (its IR manual, section 4.18).

  system.reserve_buffer      %r = pto.reserve_buffer {name = "..", size = N,
                                  location = #pto.address_space<mat|vec>, auto = true} -> i32
  system.import_peer_buffer  %r = pto.import_reserved_buffer {name = "..", peer_func = @f} -> i32
  system.a?c_initialize_pipe pto.a?c_initialize_pipe {id, dir_mask, slot_size[, slot_num,
                                  local_slot_num]} (gm_slot_buffer = %slots : !pto.ptr<i8>,
                                  c2v_consumer_buf = %a : i32, v2c_consumer_buf = %b : i32)
  system.tpush_to_aiv / aic  pto.tpush_to_aiv(%tile : T) {id = 0, split = 0}
  system.tpop_from_aic / aiv %t = pto.tpop_from_aic {id = 0, split = 0} -> T
  system.tfree_to_aic / aiv  pto.tfree_from_aic(%tile : T) {id = 0, split = 0}

On A2/A3 (ptoc's target) a pipe runs through a ring of slots in GM: a kernel takes one more
parameter per pipe it sets up, ``%pipe_slots<id>: !pto.ptr<i8>``, after its own (and its
result pointers), in the order of the ids: the launcher passes each pipe's ring to both its
ends. The reserved buffer is a consumer's local FIFO, which PTOAS places with the tiles
(``auto = true``: ptoc's tiles have no fixed addresses either). Synchronisation is PTOAS's, as
for every op ptoc writes.
"""

from __future__ import annotations

import json
from enum import Enum

from ...ir.expr import Call, Expr, Op, Var
from ...ir.function import Function, FunctionType
from ...ir.span import Span
from ...ir.types import TileType
from ...ir.walk import direct_exprs, walk_stmts
from ...ops.registry import REGISTRY
from ..common import CodegenError
from . import expressions, versions
from . import mlir_types as mt
from .context import Binding, FunctionContext
from .emitter import Value

# The PTO spellings of the pipe ops (their registrations' ``pto`` lowering) and their forms.
SETUP = frozenset({"pto.aic_initialize_pipe", "pto.aiv_initialize_pipe"})
PUSH = frozenset({"pto.tpush_to_aiv", "pto.tpush_to_aic"})
POP = frozenset({"pto.tpop_from_aic", "pto.tpop_from_aiv"})
FREE = frozenset({"pto.tfree_from_aic", "pto.tfree_from_aiv"})
RESERVE, IMPORT = "pto.reserve_buffer", "pto.import_reserved_buffer"
INSTRUCTIONS = frozenset({*SETUP, *PUSH, *POP, *FREE, RESERVE, IMPORT})
SLOTS_TYPE = mt.ptr_type("i8")
_CORE = {FunctionType.AIC: "mat", FunctionType.AIV: "vec"}  # where a consumer's FIFO lives


def pipe_ids(fn: Function) -> list[int]:
    """The ids of the pipes the kernel sets up, each of which takes its own GM slot ring."""
    ids = {
        e.kwarg("id") or 0
        for stmt in walk_stmts(fn.body)
        for e in direct_exprs(stmt)
        if isinstance(e, Call) and isinstance(e.callee, Op) and _instruction(e) in SETUP
    }
    return sorted(i for i in ids if isinstance(i, int))


def _instruction(call: Call) -> str | None:
    op = REGISTRY.get(call.callee.name)
    return op.pto.instruction if op is not None else None


def lower_pipe(ctx: FunctionContext, call: Call, result: Var | None, span: Span) -> Binding | None:
    name, instruction = call.callee.name, _instruction(call) or ""
    if not versions.has_pipe_ids(ctx.ptoas_version):
        raise CodegenError(
            "E400",
            f"{name}: ptoc writes cross-core pipes for PTOAS v0.57 (pipe ids, slot counts); "
            f"PTOAS v{ctx.ptoas_version} spells them without",
            span,
        )
    if instruction == RESERVE:
        return _reserve(ctx, call, span)
    if instruction == IMPORT:
        return _import(ctx, call, span)
    if instruction in SETUP:
        _setup(ctx, instruction, call, span)
        return None
    attrs = f"{{id = {_int(call, 'id', 0, span)}, split = {_int(call, 'split', 0, span)}}}"
    if instruction in POP:
        target = result.type if result is not None else call.type
        if not isinstance(target, TileType) or target.memref is None:
            raise CodegenError("E400", f"{name}: the popped tile has no buffer type", span)
        tile_buf = mt.tile_buf_type(target, span)
        return ctx.emit_result(tile_buf, f"{instruction} {attrs} -> {tile_buf}")
    tile = _tile(ctx, call.args[0], span)  # a push or a free
    ctx.out.line(f"{instruction}({tile.name} : {tile.type}) {attrs}")
    return None


def _reserve(ctx: FunctionContext, call: Call, span: Span) -> Value:
    location = _CORE.get(ctx.func_type)
    if location is None:
        raise CodegenError(
            "E400",
            f"{call.callee.name}: PTOAS places a reserved FIFO on one core: write it in an "
            "AIC or AIV function (pl.FunctionType.AIC / AIV)",
            span,
        )
    base = call.kwarg("base")
    if isinstance(base, int) and not isinstance(base, bool) and base >= 0:
        raise CodegenError(
            "E400",
            f"{call.callee.name}: base={base} has no PTO form here: PTOAS plans the local "
            "addresses in ptoc's flow (leave base out, or pl.AUTO)",
            span,
        )
    text = (
        f"{RESERVE} {{name = {json.dumps(str(call.kwarg('name')))}, "
        f"size = {_int(call, 'size', None, span)}, "
        f"location = #pto.address_space<{location}>, auto = true}} -> i32"
    )
    return ctx.emit_result("i32", text)


def _import(ctx: FunctionContext, call: Call, span: Span) -> Value:
    peer = call.kwarg("peer_func")
    if not isinstance(peer, str):
        message = f"{call.callee.name}: peer_func must name a function"
        raise CodegenError("E400", message, span)
    name = json.dumps(str(call.kwarg("name")))
    return ctx.emit_result("i32", f"{IMPORT} {{name = {name}, peer_func = @{peer}}} -> i32")


def _setup(ctx: FunctionContext, instruction: str, call: Call, span: Span) -> None:
    pipe = _int(call, "id", 0, span)
    slots = ctx.pipe_slots.get(pipe)
    if slots is None:
        message = f"{call.callee.name}: the kernel has no pipe slot parameter"
        raise CodegenError("E400", message, span)
    attrs = [f"id = {pipe}"]
    attrs += [f"{k} = {_int(call, k, None, span)}" for k in ("dir_mask", "slot_size")]
    for key in ("slot_num", "local_slot_num"):
        value = call.kwarg(key)
        if value is not None:
            attrs.append(f"{key} = {_int(call, key, None, span)}")
    buffers = [
        f"{key} = {_i32(ctx, call.args[i] if i < len(call.args) else None, span).name} : i32"
        for i, key in enumerate(("c2v_consumer_buf", "v2c_consumer_buf"))
    ]
    ctx.out.line(
        f"{instruction} {{{', '.join(attrs)}}}",
        f"  (gm_slot_buffer = {slots.name} : {slots.type}, {', '.join(buffers)})",
    )


def _tile(ctx: FunctionContext, arg: Expr, span: Span) -> Value:
    if not isinstance(arg, Var) or not isinstance(arg.type, TileType):
        raise CodegenError("E400", "a pipe moves a tile variable", span)
    return ctx.value(arg, span)


def _i32(ctx: FunctionContext, arg: Expr | None, span: Span) -> Value:
    """A consumer-buffer operand: a reserved / imported buffer, or 0 (an unused direction)."""
    if arg is None:
        return ctx.constants.integer(0, "i32")
    if isinstance(arg, Var):
        found = ctx.value(arg, span)
        if found.type == "i32":
            return found
    return expressions.scalar(ctx, arg, span, "i32")


def _int(call: Call, key: str, default: int | None, span: Span) -> int:
    value = call.kwarg(key)
    value = default if value is None else value
    if isinstance(value, Enum):
        value = value.value
    if not isinstance(value, int) or isinstance(value, bool):
        raise CodegenError("E400", f"{call.callee.name}: {key} must be an integer", span)
    return value
