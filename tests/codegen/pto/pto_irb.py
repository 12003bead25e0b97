"""Hand-built post-pass IR for the PTO code generator tests (TileTypes carry MemRefs)."""

from __future__ import annotations

from ptoc.codegen.pto import generate_pto
from ptoc.diagnostics import Diagnostic
from ptoc.ir import (
    NO_SPAN,
    AssignStmt,
    AttrValue,
    Call,
    DataType,
    EvalStmt,
    Expr,
    Function,
    MemorySpace,
    MemRef,
    Op,
    Program,
    ScalarType,
    SeqStmts,
    Span,
    Stmt,
    TensorType,
    TileType,
    TileView,
    Type,
    UnknownType,
    Var,
    const_int,
    make_tuple,
)

F32 = DataType.FP32
FILE = "kernel.py"


def at(line: int, column: int, end_column: int) -> Span:
    return Span(FILE, line, column, line, end_column)


def dims(shape: tuple[int, ...] | list[int]) -> tuple[Expr, ...]:
    return tuple(const_int(d) for d in shape)


def ints(*values: int | Expr) -> Expr:
    return make_tuple(tuple(const_int(v) if isinstance(v, int) else v for v in values))


def tensor(name: str, shape: list[int], dtype: DataType = F32, span: Span = NO_SPAN) -> Var:
    return Var(TensorType(dims(shape), dtype), name=name, span=span)


def scalar(name: str, dtype: DataType = DataType.INT64, span: Span = NO_SPAN) -> Var:
    return Var(ScalarType(dtype), name=name, span=span)


def memref(ident: int, space: MemorySpace = MemorySpace.Vec, size: int = 4096) -> MemRef:
    return MemRef(space, ident * size, size, ident)


def tile_type(
    shape: list[int],
    buffer: MemRef | None,
    dtype: DataType = F32,
    view: TileView | None = None,
) -> TileType:
    return TileType(dims(shape), dtype, memref=buffer, tile_view=view)


def tile(
    name: str,
    shape: list[int],
    buffer: MemRef | None,
    dtype: DataType = F32,
    view: TileView | None = None,
    span: Span = NO_SPAN,
) -> Var:
    return Var(tile_type(shape, buffer, dtype, view), name=name, span=span)


def call(
    op: str, *args: Expr, type_: Type | None = None, span: Span = NO_SPAN, **kwargs: AttrValue
) -> Call:
    return Call(
        type_ if type_ is not None else UnknownType(),
        callee=Op(op),
        args=tuple(args),
        kwargs=tuple(kwargs.items()),
        span=span,
    )


def assign(var: Var, op: str, *args: Expr, span: Span = NO_SPAN, **kwargs: AttrValue) -> AssignStmt:
    return AssignStmt(var, call(op, *args, type_=var.type, span=span, **kwargs), span=span)


def load(var: Var, source: Var, offsets: list[int | Expr], span: Span = NO_SPAN) -> AssignStmt:
    assert isinstance(var.type, TileType)
    shape = [d.value for d in var.type.shape]  # type: ignore[attr-defined]
    return assign(
        var,
        "block.load",
        source,
        ints(*offsets),
        ints(*shape),
        span=span,
        target_memory=MemorySpace.Vec,
    )


def store(value: Var, offsets: list[int | Expr], target: Var, result: Var | None = None) -> Stmt:
    assert isinstance(value.type, TileType)
    shape = [d.value for d in value.type.shape]  # type: ignore[attr-defined]
    expr = call("block.store", value, ints(*offsets), ints(*shape), target, type_=target.type)
    return AssignStmt(result, expr) if result is not None else EvalStmt(expr)


def sync(op: str, **kwargs: AttrValue) -> EvalStmt:
    return EvalStmt(call(op, **kwargs))


def function(name: str, params: list[Var], *body: Stmt, span: Span = NO_SPAN) -> Function:
    return Function(name, tuple(params), (), SeqStmts(tuple(body)), span=span)


def program(*functions: Function) -> Program:
    return Program("kernels", tuple(functions))


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
