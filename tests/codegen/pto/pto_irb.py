"""Post-pass IR for the PTO code generator tests, built with ``ir_builder`` (TileTypes carry
MemRefs), and helpers that cut the generated text."""

from __future__ import annotations

from ir_builder import Builder, Dim, at, ints

from ptoc.codegen.pto import generate_pto
from ptoc.diagnostics import Diagnostic
from ptoc.ir import (
    NO_SPAN,
    AssignStmt,
    AttrValue,
    EvalStmt,
    Function,
    FunctionType,
    MemorySpace,
    Program,
    Span,
    Stmt,
    TileType,
    Var,
)

#: The PTO tests' functions are Opaque unless they say otherwise.
_BUILD = Builder(kind=FunctionType.Opaque)
define, function = _BUILD.define, _BUILD.function
__all__ = ["at", "define", "function"]


def program(*functions: Function) -> Program:
    return _BUILD.program(*functions, name="kernels", span=NO_SPAN)


def _shape(tile: Var) -> list[int]:
    assert isinstance(tile.type, TileType)
    return [d.value for d in tile.type.shape]  # type: ignore[attr-defined]


def load(var: Var, source: Var, offsets: list[Dim], span: Span = NO_SPAN) -> AssignStmt:
    return define(
        var,
        "block.load",
        source,
        ints(*offsets),
        ints(*_shape(var)),
        span=span,
        target_memory=MemorySpace.Vec,
    )


def store(value: Var, offsets: list[Dim], target: Var, result: Var | None = None) -> Stmt:
    expr = _BUILD.call(
        "block.store", value, ints(*offsets), ints(*_shape(value)), target, type_=target.type
    )
    return AssignStmt(result, expr) if result is not None else EvalStmt(expr)


def sync(op: str, **kwargs: AttrValue) -> EvalStmt:
    return EvalStmt(_BUILD.call(op, **kwargs))


def generate(*functions: Function) -> tuple[str, list[Diagnostic]]:
    result = generate_pto(program(*functions))
    return result.text, result.diagnostics


def body_of(text: str) -> str:
    """The statements of the (only) function after its constants, views and allocations,
    dedented to column 0."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.endswith("{")) + 1
    titles = [
        i
        for i, line in enumerate(lines)
        if line.strip() in ("// Constants", "// Tensor views", "// Allocations")
    ]
    if titles:
        start = lines.index("", titles[-1]) + 1
    body = lines[start:-2]  # drop the closing "  }" and "}"
    return "\n".join(line[4:] for line in body) + "\n"


def tile_buf(
    rows: int = 32, cols: int = 32, dtype: str = "f32", loc: str = "vec", extra: str = ""
) -> str:
    """The full tile_buf type with the seed's defaults: a [M, 1] Vec tile is a col_major
    column vector; other rows are whole 32-byte blocks (a [16, 4] f32 tile has cols=8)."""
    blayout, physical = "row_major", cols
    if cols == 1 and rows > 1 and loc == "vec":
        blayout = "col_major"
    else:
        per_block = 32 // {"f32": 4, "i32": 4, "f16": 2, "bf16": 2, "i16": 2, "i8": 1}[dtype]
        physical = -(-cols // per_block) * per_block
    return (
        f"!pto.tile_buf<loc={loc}, dtype={dtype}, rows={rows}, cols={physical}, v_row={rows}, "
        f"v_col={cols}, blayout={blayout}, slayout=none_box, fractal=512, pad=0{extra}>"
    )


TB = tile_buf()


def short(text: str) -> str:
    """The text with the default 32x32 f32 Vec tile_buf type abbreviated to ``TB``."""
    return text.replace(TB, "TB")
