"""Post-pass IR for the CCE generator tests, built with ``ir_builder`` (tiles carry MemRefs,
sync is explicit), and helpers that cut sections out of the generated text."""

from __future__ import annotations

from typing import Any

from ir_builder import FILE, Builder, Dim, at, ints, placed_t, tensor_t
from ir_builder import f as f32

from ptoc.ir import (
    NO_SPAN,
    AssignStmt,
    EvalStmt,
    Expr,
    Function,
    FunctionType,
    ReturnStmt,
    Span,
    Stmt,
    TileType,
    Var,
)
from ptoc.ops import PipeType

#: Nodes not given a span have an unknown one in the kernel's file.
_BUILD = Builder(spans=lambda: Span.unknown(FILE))
var, call, assign, define = _BUILD.var, _BUILD.call, _BUILD.assign, _BUILD.define
seq, iter_arg, yield_ = _BUILD.seq, _BUILD.iter_arg, _BUILD.yield_
__all__ = ["at", "f32", "var", "call", "assign", "define", "seq", "iter_arg", "yield_"]


def offsets(*values: Dim) -> Expr:
    return ints(*values, span=NO_SPAN)


def function(
    name: str,
    params: list[Var],
    *body: Stmt | list[Stmt],
    kind: FunctionType = FunctionType.InCore,
) -> Function:
    return _BUILD.function(name, params, *body, kind=kind, span=at(1, 4, 30))


def _shape(tile: Var) -> tuple[int, ...]:
    assert isinstance(tile.type, TileType)
    return tuple(d.value for d in tile.type.shape)  # type: ignore[attr-defined]


def load(target: Var, source: Var, offs: tuple[Dim, ...], span: Span | None = None) -> AssignStmt:
    value = call(
        "block.load",
        source,
        offsets(*offs),
        offsets(*_shape(target)),
        type_=target.type,
        span=span,
    )
    return assign(target, value, span)


def store(
    result: Var | None, tile_var: Var, offs: tuple[Dim, ...], out: Var, span: Span | None = None
) -> Stmt:
    value = call(
        "block.store",
        tile_var,
        offsets(*offs),
        offsets(*_shape(tile_var)),
        out,
        type_=out.type,
        span=span,
    )
    if result is None:
        return EvalStmt(value, span=value.span)
    return assign(result, value, span)


def sync(set_pipe: PipeType, wait_pipe: PipeType, event: int = 0) -> list[Stmt]:
    kwargs: dict[str, Any] = {"set_pipe": set_pipe, "wait_pipe": wait_pipe, "event_id": event}
    return [
        EvalStmt(call("system.sync_src", span=NO_SPAN, **kwargs)),
        EvalStmt(call("system.sync_dst", span=NO_SPAN, **kwargs)),
    ]


def barrier(kind: str) -> Stmt:
    return EvalStmt(call(f"system.bar_{kind}", span=NO_SPAN))


def simple_add() -> Function:
    """Seed 000's complete example, after the default pipeline: three 128x64 FP32 tiles at
    sequential 32-byte-aligned addresses, sync inserted around the add."""
    x, y, output = (var(n, tensor_t(128, 64), at(2)) for n in ("x", "y", "output"))
    tile_x = var("tile_x", placed_t(128, 64, addr=0x0, mem_id=0))
    tile_y = var("tile_y", placed_t(128, 64, addr=0x8000, mem_id=1))
    tile_z = var("tile_z", placed_t(128, 64, addr=0x10000, mem_id=2))
    result = var("result", tensor_t(128, 64))
    return function(
        "simple_add",
        [x, y, output],
        load(tile_x, x, (0, 0), at(3)),
        load(tile_y, y, (0, 0), at(4)),
        sync(PipeType.MTE2, PipeType.V),
        define(tile_z, "block.add", tile_x, tile_y, span=at(5)),
        sync(PipeType.V, PipeType.MTE3),
        store(result, tile_z, (0, 0), output, at(6)),
        ReturnStmt((result,)),
    )


def body_lines(text: str) -> list[str]:
    """The lines after ``// Function body`` up to the closing brace, one indent removed."""
    lines = text.splitlines()
    start = lines.index("    // Function body") + 1
    end = len(lines) - 1 - lines[::-1].index("}")
    return [line[4:] for line in lines[start:end]]


def section_lines(text: str, header: str) -> list[str]:
    """The lines of a prologue section (after ``// <header>`` up to the next blank-line-then-
    comment or the body), one indent removed."""
    lines = text.splitlines()
    start = lines.index("    // " + header) + 1
    out: list[str] = []
    for line in lines[start:]:
        if line.startswith("    // ") and not line.startswith("    // error"):
            break
        out.append(line[4:])
    while out and out[-1] == "":
        out.pop()
    return out
