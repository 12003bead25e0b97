"""Evaluation of statements and expressions.

Names resolve by spelling to the latest value bound on the path to the use, as the DSL does,
so front-end IR (where a name may be assigned again, and a value assigned in a branch or a
loop body stays visible after it) and SSA IR after the passes mean the same thing. Tiles and
scalars are values; tensors are buffers passed by reference, which stores write into.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from ..ir.dtype import DataType
from ..ir.expr import (
    Binary,
    BinaryOp,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    GlobalVar,
    MakeTuple,
    Op,
    Submit,
    TupleGetItem,
    Unary,
    UnaryOp,
    Var,
)
from ..ir.function import Function, Program
from ..ir.span import Span
from ..ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ..ir.types import ScalarType, ShapedType, Type
from .errors import InterpError
from .numeric import cast_to, np_dtype, scalar
from .opcall import OpCall

MAX_CALL_DEPTH = 64


class _Yield:
    __slots__ = ("values",)

    def __init__(self, values: list[Any]) -> None:
        self.values = values


class _Return(Exception):
    def __init__(self, values: list[Any]) -> None:
        self.values = values


class Frame:
    """One function activation: its bindings by name, and the dynamic dimensions its tensor
    parameters fixed."""

    def __init__(self, function: Function) -> None:
        self.function = function
        self.values: dict[str, Any] = {}
        self.dims: dict[str, int] = {}
        self.site = function.span  # the statement running: where a missing name is reported


class Evaluator:
    def __init__(
        self, program: Program, block_idx: int = 0, max_iterations: int = 10_000_000
    ) -> None:
        self.program = program
        self.block_idx = block_idx
        self.max_iterations = max_iterations
        self.depth = 0
        self.site = program.span  # the statement running last, for internal failures
        from ..ops import semantics  # here, not at import time: semantics imports ptoc.interp

        self.semantics = semantics.SEMANTICS

    # -- functions ---------------------------------------------------------------------------

    def call_function(self, function: Function, args: list[Any], span: Span) -> list[Any]:
        if self.depth >= MAX_CALL_DEPTH:
            raise InterpError(f"calls nested deeper than {MAX_CALL_DEPTH} (recursion?)", span)
        frame = Frame(function)
        for param, value in zip(function.params, args, strict=True):
            frame.values[param.name] = self.bind_param(frame, param, value)
        self.depth += 1
        try:
            self.exec(function.body, frame)
            returned: list[Any] = []
        except _Return as done:
            returned = done.values
        finally:
            self.depth -= 1
        return [
            self.conform(value, type_, function.span)
            for value, type_ in zip(returned, function.return_types, strict=False)
        ]

    def bind_param(self, frame: Frame, param: Var, value: Any) -> Any:
        """A parameter's value; a tensor's dynamic dimensions take their sizes from it."""
        type_ = param.type
        if isinstance(type_, ScalarType):
            if isinstance(value, np.ndarray) and value.ndim == 0:
                value = value[()]
            try:
                if not _is_scalar(value):
                    raise TypeError(f"got {type(value).__name__}")
                return scalar(value, type_.dtype, param.span)
            except (TypeError, ValueError, OverflowError) as error:
                raise InterpError(
                    f"'{param.name}' must be a number for {type_.short()}: {error}", param.span
                ) from error
        if isinstance(type_, ShapedType):
            array = value
            if not isinstance(array, np.ndarray) or array.ndim != type_.rank:
                raise InterpError(
                    f"'{param.name}' must be a {type_.rank}-D array for {type_.short()}", param.span
                )
            for axis, dim in enumerate(type_.shape):
                self.bind_dim(frame, dim, array.shape[axis], param)
            return array
        return value

    def bind_dim(self, frame: Frame, dim: Expr, size: int, param: Var) -> None:
        if isinstance(dim, ConstInt):
            if dim.value != size:
                raise InterpError(
                    f"'{param.name}' has {size} on a dimension of static size {dim.value}",
                    param.span,
                )
        elif isinstance(dim, Var):
            bound = frame.dims.setdefault(dim.name, size)
            if bound != size:
                raise InterpError(
                    f"dimension '{dim.name}' is {bound} elsewhere but '{param.name}' has {size}",
                    param.span,
                )

    def conform(self, value: Any, type_: Type, span: Span) -> Any:
        """A scalar brought to the declared scalar type (other values stay as they are)."""
        if isinstance(type_, ScalarType) and _is_scalar(value):
            return scalar(value, type_.dtype, span)
        return value

    # -- statements --------------------------------------------------------------------------

    def exec(self, stmt: Stmt, frame: Frame) -> _Yield | None:
        """Run a statement; a yield ends the body it closes and is handed to its owner."""
        if not isinstance(stmt, SeqStmts | ScopeStmt):
            frame.site = self.site = stmt.span
        match stmt:
            case SeqStmts():
                for inner in stmt.stmts:
                    signal = self.exec(inner, frame)
                    if signal is not None:
                        return signal
                return None
            case AssignStmt():
                value = self.eval(stmt.value, frame)
                frame.values[stmt.var.name] = self.conform(value, stmt.var.type, stmt.span)
                return None
            case EvalStmt():
                self.eval(stmt.expr, frame)
                return None
            case YieldStmt():
                return _Yield([self.eval(v, frame) for v in stmt.values])
            case ReturnStmt():
                raise _Return([self.eval(v, frame) for v in stmt.values])
            case IfStmt():
                self.exec_if(stmt, frame)
                return None
            case ForStmt():
                self.exec_for(stmt, frame)
                return None
            case WhileStmt():
                self.exec_while(stmt, frame)
                return None
            case ScopeStmt():
                return self.exec(stmt.body, frame)
        raise InterpError(f"cannot run a {type(stmt).__name__}", stmt.span)

    def bind_results(
        self, names: tuple[Var, ...], values: list[Any], frame: Frame, span: Span
    ) -> None:
        if len(values) != len(names):
            raise InterpError(f"{len(values)} value(s) yielded for {len(names)} result(s)", span)
        for var, value in zip(names, values, strict=True):
            frame.values[var.name] = self.conform(value, var.type, span)

    def exec_if(self, stmt: IfStmt, frame: Frame) -> None:
        taken = stmt.then_body if self.truth(stmt.condition, frame) else stmt.else_body
        signal = self.exec(taken, frame) if taken is not None else None
        if stmt.return_vars:
            if signal is None:
                raise InterpError("the branch taken yields no value", stmt.span)
            self.bind_results(stmt.return_vars, signal.values, frame, stmt.span)

    def exec_for(self, stmt: ForStmt, frame: Frame) -> None:
        start, stop, step = (self.index(e, frame) for e in (stmt.start, stmt.stop, stmt.step))
        if step == 0:
            raise InterpError("the loop step is zero", stmt.span)
        if len(range(start, stop, step)) > self.max_iterations:
            raise InterpError(
                f"the loop would run {len(range(start, stop, step))} times (more "
                f"than {self.max_iterations})",
                stmt.span,
            )
        current = [
            self.eval(arg.init_value, frame)
            if arg.init_value is not None
            else frame.values.get(arg.name)
            for arg in stmt.iter_args
        ]
        for index in range(start, stop, step):
            frame.values[stmt.loop_var.name] = self.conform(index, stmt.loop_var.type, stmt.span)
            current = self.iteration(stmt, current, frame)
        self.bind_results(stmt.return_vars, current, frame, stmt.span)

    def exec_while(self, stmt: WhileStmt, frame: Frame) -> None:
        current = [
            self.eval(arg.init_value, frame)
            if arg.init_value is not None
            else frame.values.get(arg.name)
            for arg in stmt.iter_args
        ]
        count = 0
        while True:
            for arg, value in zip(stmt.iter_args, current, strict=True):
                frame.values[arg.name] = self.conform(value, arg.type, stmt.span)
            if not self.truth(stmt.condition, frame):
                break
            count += 1
            if count > self.max_iterations:
                raise InterpError(f"the loop ran more than {self.max_iterations} times", stmt.span)
            current = self.iteration(stmt, current, frame)
        self.bind_results(stmt.return_vars, current, frame, stmt.span)

    def iteration(self, stmt: ForStmt | WhileStmt, current: list[Any], frame: Frame) -> list[Any]:
        for arg, value in zip(stmt.iter_args, current, strict=True):
            frame.values[arg.name] = self.conform(value, arg.type, stmt.span)
        signal = self.exec(stmt.body, frame)
        if not stmt.iter_args:
            return current
        if signal is None:
            raise InterpError("the loop body yields no value", stmt.span)
        if len(signal.values) != len(stmt.iter_args):
            raise InterpError(
                f"the loop body yields {len(signal.values)} value(s) for "
                f"{len(stmt.iter_args)} loop-carried value(s)",
                stmt.span,
            )
        return signal.values

    # -- expressions -------------------------------------------------------------------------

    def truth(self, expr: Expr, frame: Frame) -> bool:
        return bool(self.eval(expr, frame))

    def index(self, expr: Expr, frame: Frame) -> int:
        value = self.eval(expr, frame)
        if not _is_scalar(value) or isinstance(value, float | np.floating):
            raise InterpError("a loop bound must be an integer", expr.span)
        return int(value)

    def eval(self, expr: Expr, frame: Frame) -> Any:
        match expr:
            case Var():
                return self.lookup(expr, frame)
            case ConstInt() | ConstFloat():
                return scalar(expr.value, _scalar_dtype(expr), expr.span)
            case ConstBool():
                return np.bool_(expr.value)
            case Binary():
                return self.binary(expr, frame)
            case Unary():
                return self.unary(expr, frame)
            case MakeTuple():
                return tuple(self.eval(e, frame) for e in expr.elements)
            case TupleGetItem():
                value = self.eval(expr.tuple_value, frame)
                return value[expr.index]
            case Call():
                return self.call(expr, frame)
            case Submit():  # the kernel's result and a TaskId (its number, never read)
                call = Call(expr.type, callee=expr.kernel, args=expr.args, span=expr.span)
                result = self.call(call, frame)
                return (result, np.int64(0)) if len(expr.type.types) > 1 else (np.int64(0),)  # type: ignore[attr-defined]
        raise InterpError(f"cannot evaluate a {type(expr).__name__}", expr.span)

    def lookup(self, var: Var, frame: Frame) -> Any:
        if var.name in frame.values:
            return frame.values[var.name]
        if var.name in frame.dims:
            return np.int64(frame.dims[var.name])
        raise InterpError(f"'{var.name}' has no value here", frame.site)

    def call(self, expr: Call, frame: Frame) -> Any:
        args = tuple(self.eval(a, frame) for a in expr.args)
        if isinstance(expr.callee, GlobalVar):
            function = self.program.function(expr.callee.name)
            if function is None:
                raise InterpError(f"no function '{expr.callee.name}' in the program", expr.span)
            if len(args) != len(function.params):
                raise InterpError(
                    f"'{function.name}' takes {len(function.params)} argument(s), got {len(args)}",
                    expr.span,
                )
            results = self.call_function(function, list(args), expr.span)
            if len(results) == 1:
                return results[0]
            return tuple(results) if results else None
        assert isinstance(expr.callee, Op)
        run = self.semantics.get(expr.callee.name)
        if run is None:
            raise InterpError(f"the interpreter cannot run '{expr.callee.name}'", expr.span)
        try:
            return run(OpCall(expr, args, self.block_idx, partial(self.eval, frame=frame)))
        except InterpError:
            raise
        except Exception as error:  # a numpy failure inside an op is still located
            raise InterpError(f"{expr.callee.name}: {error}", expr.span) from error

    def binary(self, expr: Binary, frame: Frame) -> Any:
        op = expr.op
        if op is BinaryOp.And:
            return np.bool_(self.truth(expr.lhs, frame) and self.truth(expr.rhs, frame))
        if op is BinaryOp.Or:
            return np.bool_(self.truth(expr.lhs, frame) or self.truth(expr.rhs, frame))
        lhs, rhs = self.eval(expr.lhs, frame), self.eval(expr.rhs, frame)
        if op.is_comparison:
            return np.bool_(_COMPARISONS[op](_exact(lhs), _exact(rhs)))
        dtype = _scalar_dtype(expr)
        if not np_dtype(dtype, expr.span).kind == "f":
            return scalar(_integer_binary(op, int(lhs), int(rhs), expr.span), dtype, expr.span)
        target = np_dtype(dtype, expr.span)
        a, b = cast_to(lhs, target)[()], cast_to(rhs, target)[()]
        return scalar(_float_binary(op, a, b, expr.span), dtype, expr.span)

    def unary(self, expr: Unary, frame: Frame) -> Any:
        value = self.eval(expr.operand, frame)
        if expr.op is UnaryOp.Not:
            return np.bool_(not bool(value))
        dtype = _scalar_dtype(expr)
        if expr.op is UnaryOp.BitNot:
            return scalar(~int(value), dtype, expr.span)
        if expr.op is UnaryOp.Neg:
            exact = _exact(value)
            return scalar(-exact, dtype, expr.span)
        if expr.op is UnaryOp.Cast:
            return scalar(_exact(value), dtype, expr.span)  # truncates, wraps
        return scalar(abs(_exact(value)), dtype, expr.span)


def _is_scalar(value: Any) -> bool:
    return isinstance(value, int | float | bool | np.generic)


def _exact(value: Any) -> int | float:
    """A numpy scalar as an exact Python number (integers stay integers)."""
    if isinstance(value, bool | np.bool_):
        return int(value)
    if isinstance(value, int | np.integer):
        return int(value)
    return float(value)


def _scalar_dtype(expr: Expr) -> DataType:
    if isinstance(expr.type, ScalarType):
        return expr.type.dtype
    raise InterpError(f"the value has no scalar type ({expr.type.short()})", expr.span)


_COMPARISONS = {
    BinaryOp.Eq: lambda a, b: a == b,
    BinaryOp.Ne: lambda a, b: a != b,
    BinaryOp.Lt: lambda a, b: a < b,
    BinaryOp.Le: lambda a, b: a <= b,
    BinaryOp.Gt: lambda a, b: a > b,
    BinaryOp.Ge: lambda a, b: a >= b,
}


# Arithmetic shared by integer scalars (exact Python ints, wrapped afterwards) and float
# scalars (numpy scalars of the result dtype, so each operation rounds to it).
_ARITHMETIC: dict[BinaryOp, Callable[[Any, Any], Any]] = {
    BinaryOp.Add: operator.add,
    BinaryOp.Sub: operator.sub,
    BinaryOp.Mul: operator.mul,
    BinaryOp.Min: lambda a, b: b if b < a else a,
    BinaryOp.Max: lambda a, b: b if a < b else a,
}
_INTEGER: dict[BinaryOp, Callable[[int, int], int]] = {
    **_ARITHMETIC,
    BinaryOp.FloorDiv: operator.floordiv,  # // and % floor, as in the DSL
    BinaryOp.FloatDiv: operator.floordiv,
    BinaryOp.FloorMod: operator.mod,
    BinaryOp.Pow: operator.pow,
    BinaryOp.Xor: operator.xor,
    BinaryOp.BitAnd: operator.and_,
    BinaryOp.BitOr: operator.or_,
    BinaryOp.Shl: lambda a, b: a << b if b < 64 else 0,
    BinaryOp.Shr: operator.rshift,
}
_FLOAT: dict[BinaryOp, Callable[[Any, Any], Any]] = {
    **_ARITHMETIC,
    BinaryOp.FloatDiv: operator.truediv,
    BinaryOp.FloorDiv: np.floor_divide,
    BinaryOp.FloorMod: np.mod,
    BinaryOp.Pow: np.power,
}


def _integer_binary(op: BinaryOp, a: int, b: int, span: Span) -> int:
    if op in (BinaryOp.FloorDiv, BinaryOp.FloorMod, BinaryOp.FloatDiv) and b == 0:
        raise InterpError("integer division by zero", span)
    if op in (BinaryOp.Pow, BinaryOp.Shl, BinaryOp.Shr) and b < 0:
        raise InterpError(f"a negative right operand of '{op.symbol}'", span)
    if op not in _INTEGER:
        raise InterpError(f"'{op.symbol}' is not an integer operation", span)
    return _INTEGER[op](a, b)


def _float_binary(op: BinaryOp, a: Any, b: Any, span: Span) -> Any:
    if op not in _FLOAT:
        raise InterpError(f"'{op.symbol}' is not a float operation", span)
    return _FLOAT[op](a, b)
