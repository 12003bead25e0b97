"""The one builder of hand-made IR for the tests (types, values, expressions, statements,
functions), so that every test module spells IR the same way.

Conventions: ``*_t`` builds a type, the plain name a variable of it (``tile_t(16, 32)`` is a
TileType, ``tile(16, 32, name="a")`` a Var); shapes are given as arguments, an ``int`` for a
constant dimension or an ``Expr`` for a symbolic one; ``call`` builds a call of an op by name
with the type you give, ``op`` one typed by the op's own type rule.

The module-level functions build nodes without spans. A module whose tests check spans
makes its own ``Builder(spans=...)`` (``FreshLines`` puts every node on a line of its own)
and uses that builder's methods instead.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

from ptoc.ir import (
    NO_SPAN,
    UNKNOWN,
    AssignStmt,
    AttrValue,
    Binary,
    BinaryOp,
    Call,
    ConstBool,
    ConstFloat,
    DataType,
    EvalStmt,
    Expr,
    ForStmt,
    Function,
    FunctionType,
    GlobalVar,
    IfStmt,
    IterArg,
    MakeTuple,
    MemorySpace,
    MemRef,
    Op,
    ParamDirection,
    Program,
    ReturnStmt,
    ScalarType,
    ScopeStmt,
    SeqStmts,
    Span,
    Stmt,
    TensorType,
    TileType,
    TileView,
    Type,
    Unary,
    UnaryOp,
    Var,
    WhileStmt,
    YieldStmt,
    const_int,
    make_tuple,
)
from ptoc.ops import REGISTRY

FILE = "kernel.py"
FP16, FP32, BF16 = DataType.FP16, DataType.FP32, DataType.BF16
INT8, INT16, INT32, INT64 = DataType.INT8, DataType.INT16, DataType.INT32, DataType.INT64
UINT16, UINT64 = DataType.UINT16, DataType.UINT64
INDEX = ScalarType(INT64)
BOOL = ScalarType(DataType.BOOL)

Dim = int | Expr
Body = Stmt | Sequence[Stmt]


def at(line: int, column: int = 8, end_column: int = 40, file: str = FILE) -> Span:
    """A one-line span of the pretend source file."""
    return Span(file, line, column, line, end_column)


class FreshLines:
    """A span policy putting each node on the next line of ``file`` (1, 2, 3, ...); called
    with a line, it gives a span on that line instead."""

    def __init__(self, file: str = FILE) -> None:
        self.file = file
        self.lines = itertools.count(1)

    def __call__(self, line: int | None = None, column: int = 4, width: int = 30) -> Span:
        line = next(self.lines) if line is None else line
        return Span(self.file, line, column, line, column + width)


def dim(value: Dim) -> Expr:
    return const_int(value) if isinstance(value, int) else value


def dims(values: Sequence[Dim]) -> tuple[Expr, ...]:
    return tuple(dim(v) for v in values)


def i(value: int, dtype: DataType = INT64) -> Expr:
    """An integer literal (INT64, as the parser reads one, unless told)."""
    return const_int(value, dtype)


def f(value: float, dtype: DataType = FP32) -> ConstFloat:
    return ConstFloat(ScalarType(dtype), value=value)


def true() -> ConstBool:
    return ConstBool(BOOL, value=True)


def tensor_t(*shape: Dim, dtype: DataType = FP32, **extra: object) -> TensorType:
    return TensorType(dims(shape), dtype, **extra)  # type: ignore[arg-type]


def tile_t(
    *shape: Dim,
    dtype: DataType = FP32,
    memref: MemRef | None = None,
    view: TileView | None = None,
    **extra: object,
) -> TileType:
    return TileType(dims(shape), dtype, memref, view, **extra)  # type: ignore[arg-type]


def placed_t(
    *shape: int,
    dtype: DataType = FP32,
    space: MemorySpace | None = MemorySpace.Vec,
    addr: int | None = 0,
    mem_id: int = 0,
    view: TileView | None = None,
) -> TileType:
    """A tile type as memory allocation leaves it: in a buffer of ``space`` at ``addr``, as
    large as the tile (no buffer when ``space`` is None)."""
    size = -(-math.prod(shape) * dtype.bits // 8)
    memref = None if space is None else MemRef(space, addr, size, mem_id)
    return tile_t(*shape, dtype=dtype, memref=memref, view=view)


def buffer(
    ident: int,
    space: MemorySpace = MemorySpace.Vec,
    size: int = 4096,
    addr: int | None = None,
) -> MemRef:
    """A MemRef as allocation leaves it (by default at ``ident * size``)."""
    return MemRef(space, ident * size if addr is None else addr, size, ident)


class Builder:
    """Builds values, expressions and statements, giving each node a span from ``spans``
    unless one is passed (``span=``)."""

    def __init__(
        self,
        spans: Callable[[], Span] = lambda: NO_SPAN,
        kind: FunctionType = FunctionType.InCore,
    ) -> None:
        self.spans = spans
        self.kind = kind

    def span(self, span: Span | None = None) -> Span:
        return self.spans() if span is None else span

    # --- values ---------------------------------------------------------------------------

    def var(self, name: str, type_: Type, span: Span | None = None) -> Var:
        return Var(type_, name=name, span=self.span(span))

    def scalar(self, name: str = "s", dtype: DataType = INT64, span: Span | None = None) -> Var:
        return self.var(name, ScalarType(dtype), span)

    def tensor(
        self, *shape: Dim, dtype: DataType = FP32, name: str = "x", span: Span | None = None
    ) -> Var:
        return self.var(name, tensor_t(*shape, dtype=dtype), span)

    def tile(
        self,
        *shape: Dim,
        dtype: DataType = FP32,
        name: str = "t",
        memref: MemRef | None = None,
        view: TileView | None = None,
        span: Span | None = None,
    ) -> Var:
        return self.var(name, tile_t(*shape, dtype=dtype, memref=memref, view=view), span)

    def iter_arg(self, name: str, type_: Type, init: Expr, span: Span | None = None) -> IterArg:
        return IterArg(type_, name=name, init_value=init, span=self.span(span))

    # --- expressions ----------------------------------------------------------------------

    def ints(self, *values: Dim, span: Span | None = None) -> MakeTuple:
        """A list argument such as ``[0, i * 32]``."""
        return make_tuple(dims(values), span=self.span(span))

    def binary(self, op: BinaryOp, lhs: Dim, rhs: Dim, span: Span | None = None) -> Binary:
        left, right = dim(lhs), dim(rhs)
        type_ = BOOL if op.is_comparison else left.type
        return Binary(type_, op=op, lhs=left, rhs=right, span=self.span(span))

    def add(self, lhs: Dim, rhs: Dim) -> Binary:
        return self.binary(BinaryOp.Add, lhs, rhs)

    def mul(self, lhs: Dim, rhs: Dim) -> Binary:
        return self.binary(BinaryOp.Mul, lhs, rhs)

    def lt(self, lhs: Dim, rhs: Dim) -> Binary:
        return self.binary(BinaryOp.Lt, lhs, rhs)

    def gt(self, lhs: Dim, rhs: Dim) -> Binary:
        return self.binary(BinaryOp.Gt, lhs, rhs)

    def unary(self, op: UnaryOp, operand: Expr, span: Span | None = None) -> Unary:
        return Unary(operand.type, op=op, operand=operand, span=self.span(span))

    def call(
        self,
        name: str,
        /,
        *args: Expr,
        type_: Type = UNKNOWN,
        span: Span | None = None,
        **kwargs: AttrValue,
    ) -> Call:
        """A call of the op ``name`` with the type given (none by default)."""
        return Call(
            type_,
            callee=Op(name),
            args=args,
            kwargs=tuple(kwargs.items()),
            span=self.span(span),
        )

    def op(self, name: str, /, *args: Expr, span: Span | None = None, **attrs: AttrValue) -> Call:
        """A call of a registered op, typed by the op's own type rule."""
        opdef = REGISTRY.get(name)
        assert opdef is not None, f"{name} is not registered"
        result = opdef.deduce(opdef.bind(args), dict(attrs))
        return self.call(name, *args, type_=result, span=span, **attrs)

    def fn_call(
        self, name: str, *args: Expr, type_: Type = UNKNOWN, span: Span | None = None
    ) -> Call:
        """A call of the program's function ``name``."""
        return Call(type_, callee=GlobalVar(name), args=args, span=self.span(span))

    # --- statements -----------------------------------------------------------------------

    def assign(self, target: Var | str, value: Expr, span: Span | None = None) -> AssignStmt:
        """``target = value``; a name gets a fresh variable of the value's type."""
        where = self.span(span)
        if isinstance(target, str):
            target = Var(value.type, name=target, span=where)
        return AssignStmt(target, value, span=where)

    def define(
        self, target: Var, name: str, /, *args: Expr, span: Span | None = None, **kwargs: AttrValue
    ) -> AssignStmt:
        """``target = name(args)``, the call typed as its target (as after the passes)."""
        where = self.span(span)
        value = self.call(name, *args, type_=target.type, span=where, **kwargs)
        return AssignStmt(target, value, span=where)

    def eval_(self, expr: Expr, span: Span | None = None) -> EvalStmt:
        if span is None and expr.span.is_known:
            span = expr.span
        return EvalStmt(expr, span=self.span(span))

    def seq(self, *stmts: Body, span: Span | None = None) -> SeqStmts:
        """A statement sequence; lists among the arguments are spliced in."""
        flat: list[Stmt] = []
        for s in stmts:
            flat.extend([s] if isinstance(s, Stmt) else s)
        return SeqStmts(tuple(flat), span=self.span(span))

    def block(self, *body: Body) -> Stmt:
        """A body: a single sequence as it is, anything else in a new sequence."""
        if len(body) == 1 and isinstance(body[0], SeqStmts):
            return body[0]
        return self.seq(*body)

    def yield_(self, *values: Expr, span: Span | None = None) -> YieldStmt:
        return YieldStmt(values, span=self.span(span))

    def ret(self, *values: Expr, span: Span | None = None) -> ReturnStmt:
        return ReturnStmt(values, span=self.span(span))

    def for_(
        self,
        loop_var: Var,
        stop: Dim,
        *body: Body,
        start: Dim = 0,
        step: Dim = 1,
        carry: Sequence[IterArg] = (),
        results: Sequence[Var] = (),
        span: Span | None = None,
    ) -> ForStmt:
        """``for loop_var in range(start, stop, step)``, carrying ``carry`` into ``results``."""
        return ForStmt(
            loop_var,
            dim(start),
            dim(stop),
            dim(step),
            self.block(*body),
            iter_args=tuple(carry),
            return_vars=tuple(results),
            span=self.span(span),
        )

    def while_(
        self,
        condition: Expr,
        *body: Body,
        carry: Sequence[IterArg] = (),
        results: Sequence[Var] = (),
        span: Span | None = None,
    ) -> WhileStmt:
        return WhileStmt(
            condition,
            self.block(*body),
            iter_args=tuple(carry),
            return_vars=tuple(results),
            span=self.span(span),
        )

    def if_(
        self,
        condition: Expr,
        then: Body,
        else_: Body | None = None,
        results: Sequence[Var] = (),
        span: Span | None = None,
    ) -> IfStmt:
        return IfStmt(
            condition,
            self.block(then),
            self.block(else_) if else_ is not None else None,
            return_vars=tuple(results),
            span=self.span(span),
        )

    def scope(self, *body: Body, span: Span | None = None) -> ScopeStmt:
        """``with pl.incore():``"""
        return ScopeStmt(self.block(*body), span=self.span(span))

    def function(
        self,
        name: str,
        params: Sequence[Var],
        *body: Body,
        returns: Sequence[Type] = (),
        kind: FunctionType | None = None,
        directions: Sequence[ParamDirection] = (),
        span: Span | None = None,
    ) -> Function:
        return Function(
            name,
            tuple(params),
            tuple(returns),
            self.block(*body),
            self.kind if kind is None else kind,
            tuple(directions),
            span=self.span(span),
        )

    def program(self, *functions: Function, name: str = "P", span: Span | None = None) -> Program:
        return Program(name, functions, span=self.span(span))


#: Nodes without spans, in InCore functions.
PLAIN = Builder()
var, scalar, tensor, tile, iter_arg = (
    PLAIN.var,
    PLAIN.scalar,
    PLAIN.tensor,
    PLAIN.tile,
    PLAIN.iter_arg,
)
ints, binary, add, mul, lt, gt, unary = (
    PLAIN.ints,
    PLAIN.binary,
    PLAIN.add,
    PLAIN.mul,
    PLAIN.lt,
    PLAIN.gt,
    PLAIN.unary,
)
call, op, fn_call = PLAIN.call, PLAIN.op, PLAIN.fn_call
assign, define, eval_, seq = PLAIN.assign, PLAIN.define, PLAIN.eval_, PLAIN.seq
yield_, ret = PLAIN.yield_, PLAIN.ret
for_, while_, if_, scope = PLAIN.for_, PLAIN.while_, PLAIN.if_, PLAIN.scope
function, program = PLAIN.function, PLAIN.program
