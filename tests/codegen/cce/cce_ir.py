"""Hand-built post-pass IR for the CCE generator tests (tiles carry MemRefs, sync is explicit)."""

from __future__ import annotations

from ptoc.ir import (
    AssignStmt,
    Binary,
    BinaryOp,
    Call,
    ConstFloat,
    DataType,
    EvalStmt,
    Expr,
    Function,
    FunctionType,
    IterArg,
    MemorySpace,
    MemRef,
    Op,
    ReturnStmt,
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
    YieldStmt,
    const_int,
    make_tuple,
)
from ptoc.ops import PipeType

FILE = "kernel.py"
FP32 = DataType.FP32
INDEX = ScalarType(DataType.INT64)


def at(line: int, column: int = 8, end_column: int = 40) -> Span:
    return Span(FILE, line, column, line, end_column)


def tensor(*shape: int, dtype: DataType = FP32) -> TensorType:
    return TensorType(tuple(const_int(d) for d in shape), dtype)


def tile(
    *shape: int,
    dtype: DataType = FP32,
    space: MemorySpace | None = MemorySpace.Vec,
    addr: int | None = 0,
    view: TileView | None = None,
    mem_id: int = 0,
) -> TileType:
    size = 1
    for d in shape:
        size *= d
    memref = None if space is None else MemRef(space, addr, size * dtype.bits // 8, mem_id)
    return TileType(tuple(const_int(d) for d in shape), dtype, memref, view)


def var(name: str, type_: Type, line: int = 0) -> Var:
    return Var(type_, name=name, span=at(line) if line else Span.unknown(FILE))


def i(value: int) -> Expr:
    return const_int(value)


def f32(value: float) -> Expr:
    return ConstFloat(ScalarType(FP32), value=value)


def mul(lhs: Expr, rhs: Expr) -> Expr:
    return Binary(INDEX, op=BinaryOp.Mul, lhs=lhs, rhs=rhs)


def add(lhs: Expr, rhs: Expr) -> Expr:
    return Binary(INDEX, op=BinaryOp.Add, lhs=lhs, rhs=rhs)


def lt(lhs: Expr, rhs: Expr) -> Expr:
    return Binary(ScalarType(DataType.BOOL), op=BinaryOp.Lt, lhs=lhs, rhs=rhs)


def call(op: str, *args: Expr, type_: Type | None = None, line: int = 0, **kwargs: object) -> Call:
    return Call(
        type_ if type_ is not None else UnknownType(),
        callee=Op(op),
        args=tuple(args),
        kwargs=tuple(kwargs.items()),  # type: ignore[arg-type]
        span=at(line) if line else Span.unknown(FILE),
    )


def offsets(*values: int | Expr) -> Expr:
    return make_tuple(tuple(const_int(v) if isinstance(v, int) else v for v in values))


def assign(target: Var, value: Expr, line: int = 0) -> AssignStmt:
    return AssignStmt(target, value, span=at(line) if line else Span.unknown(FILE))


def load(target: Var, source: Var, offs: tuple[int | Expr, ...], line: int = 0) -> AssignStmt:
    assert isinstance(target.type, TileType)
    shape = tuple(d.value for d in target.type.shape)  # type: ignore[attr-defined]
    value = call(
        "block.load", source, offsets(*offs), offsets(*shape), type_=target.type, line=line
    )
    return assign(target, value, line)


def store(
    result: Var | None, tile_var: Var, offs: tuple[int | Expr, ...], out: Var, line: int = 0
) -> Stmt:
    assert isinstance(tile_var.type, TileType)
    shape = tuple(d.value for d in tile_var.type.shape)  # type: ignore[attr-defined]
    value = call(
        "block.store", tile_var, offsets(*offs), offsets(*shape), out, type_=out.type, line=line
    )
    if result is None:
        return EvalStmt(value, span=value.span)
    return assign(result, value, line)


def op(target: Var, name: str, *args: Expr, line: int = 0, **kwargs: object) -> AssignStmt:
    return assign(target, call(name, *args, type_=target.type, line=line, **kwargs), line)


def sync(set_pipe: PipeType, wait_pipe: PipeType, event: int = 0) -> list[Stmt]:
    kwargs = {"set_pipe": set_pipe, "wait_pipe": wait_pipe, "event_id": event}
    return [
        EvalStmt(call("system.sync_src", **kwargs)),
        EvalStmt(call("system.sync_dst", **kwargs)),
    ]


def barrier(kind: str) -> Stmt:
    return EvalStmt(call(f"system.bar_{kind}"))


def seq(*stmts: Stmt | list[Stmt]) -> SeqStmts:
    flat: list[Stmt] = []
    for s in stmts:
        flat.extend(s if isinstance(s, list) else [s])
    return SeqStmts(tuple(flat))


def function(
    name: str,
    params: list[Var],
    *body: Stmt | list[Stmt],
    func_type: FunctionType = FunctionType.InCore,
) -> Function:
    return Function(name, tuple(params), (), seq(*body), func_type, span=at(1, 4, 30))


def iter_arg(name: str, type_: Type, init: Expr) -> IterArg:
    return IterArg(type_, name=name, init_value=init)


def yield_(*values: Expr) -> YieldStmt:
    return YieldStmt(tuple(values))


def simple_add() -> Function:
    """Seed 000's complete example, after the default pipeline: three 128x64 FP32 tiles at
    sequential 32-byte-aligned addresses, sync inserted around the add."""
    x, y, output = (var(n, tensor(128, 64), line=2) for n in ("x", "y", "output"))
    tile_x = var("tile_x", tile(128, 64, addr=0x0, mem_id=0))
    tile_y = var("tile_y", tile(128, 64, addr=0x8000, mem_id=1))
    tile_z = var("tile_z", tile(128, 64, addr=0x10000, mem_id=2))
    result = var("result", tensor(128, 64))
    return function(
        "simple_add",
        [x, y, output],
        load(tile_x, x, (0, 0), line=3),
        load(tile_y, y, (0, 0), line=4),
        sync(PipeType.MTE2, PipeType.V),
        op(tile_z, "block.add", tile_x, tile_y, line=5),
        sync(PipeType.V, PipeType.MTE3),
        store(result, tile_z, (0, 0), output, line=6),
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
