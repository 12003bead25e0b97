"""FlattenCalls: every call becomes a statement of its own.

Code generation emits one instruction per op-call statement, so a call nested in another
call's arguments, in an arithmetic operand, an if condition, loop bounds, initial values, a
yield or a return is evaluated first into a temporary (``_t0``, ``_t1``, ... unique in the
function), in evaluation order, just before the statement that used it. A while loop's
condition is evaluated on every iteration and is left as it is.
"""

from __future__ import annotations

from ..ir.expr import Binary, Call, Expr, IterArg, MakeTuple, TupleGetItem, Unary, Var
from ..ir.function import Function
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
from ..ir.visitor import IRMutator, with_fields
from .base import FunctionPass, PassContext
from .irutil import NameAllocator, defined_vars, flatten_seq


class _Flattener:
    def __init__(self, fn: Function, ctx: PassContext) -> None:
        self.ctx = ctx
        self.names = NameAllocator(v.name for v, _ in defined_vars(fn))
        # Loop-carried variables rebuilt because their initial value changed.
        self.var_map: dict[Var, Var] = {}

    def expr(self, expr: Expr, out: list[Stmt], span: Span, hoist: bool = True) -> Expr:
        """``expr`` with nested calls moved into statements appended to ``out``; with
        ``hoist`` a call at the top is moved too (its temporary is returned)."""
        if isinstance(expr, Var):
            return self.var_map.get(expr, expr)
        if isinstance(expr, Call):
            args = tuple(self.expr(a, out, span) for a in expr.args)
            call = expr if _same(args, expr.args) else with_fields(expr, args=args)
            if not hoist:
                return call
            where = call.span if call.span.is_known else span
            temp = Var(call.type, name=self.names.temp(), span=where)
            out.append(AssignStmt(temp, call, span=where))
            return temp
        if isinstance(expr, Binary):
            lhs, rhs = self.expr(expr.lhs, out, span), self.expr(expr.rhs, out, span)
            if lhs is expr.lhs and rhs is expr.rhs:
                return expr
            return with_fields(expr, lhs=lhs, rhs=rhs)
        if isinstance(expr, Unary):
            operand = self.expr(expr.operand, out, span)
            return expr if operand is expr.operand else with_fields(expr, operand=operand)
        if isinstance(expr, MakeTuple):
            elements = tuple(self.expr(e, out, span) for e in expr.elements)
            return expr if _same(elements, expr.elements) else with_fields(expr, elements=elements)
        if isinstance(expr, TupleGetItem):
            value = self.expr(expr.tuple_value, out, span)
            return expr if value is expr.tuple_value else with_fields(expr, tuple_value=value)
        return expr

    def body(self, stmt: Stmt) -> Stmt:
        stmts = self.stmt(stmt)
        if len(stmts) == 1:
            return stmts[0]
        return SeqStmts(tuple(stmts), span=stmt.span)

    def stmt(self, stmt: Stmt) -> list[Stmt]:
        """The statements replacing ``stmt``: hoisted calls first, then ``stmt`` itself."""
        self.ctx.at(stmt.span)
        out: list[Stmt] = []
        span = stmt.span
        new: Stmt
        if isinstance(stmt, SeqStmts):
            children = flatten_seq(s for child in stmt.stmts for s in self.stmt(child))
            if _same(tuple(children), stmt.stmts):
                return [stmt]
            return [SeqStmts(tuple(children), span=span)]
        if isinstance(stmt, AssignStmt):
            value = self.expr(stmt.value, out, span, hoist=False)
            new = stmt if value is stmt.value else with_fields(stmt, value=value)
        elif isinstance(stmt, EvalStmt):
            value = self.expr(stmt.expr, out, span, hoist=False)
            new = stmt if value is stmt.expr else with_fields(stmt, expr=value)
        elif isinstance(stmt, YieldStmt | ReturnStmt):
            values = tuple(self.expr(v, out, span) for v in stmt.values)
            new = stmt if _same(values, stmt.values) else with_fields(stmt, values=values)
        elif isinstance(stmt, IfStmt):
            condition = self.expr(stmt.condition, out, span)
            new = with_fields(
                stmt,
                condition=condition,
                then_body=self.body(stmt.then_body),
                else_body=self.body(stmt.else_body) if stmt.else_body is not None else None,
            )
        elif isinstance(stmt, ForStmt):
            start, stop, step = (
                self.expr(e, out, span) for e in (stmt.start, stmt.stop, stmt.step)
            )
            iter_args = self.iter_args(stmt.iter_args, out, span)
            new = with_fields(
                stmt,
                start=start,
                stop=stop,
                step=step,
                iter_args=iter_args,
                body=self.body(stmt.body),
            )
        elif isinstance(stmt, WhileStmt):
            iter_args = self.iter_args(stmt.iter_args, out, span)
            new = with_fields(
                stmt,
                iter_args=iter_args,
                body=self.body(stmt.body),
                condition=self.rename(stmt.condition),
            )
        elif isinstance(stmt, ScopeStmt):
            new = with_fields(stmt, body=self.body(stmt.body))
        else:
            new = stmt
        return [*out, new]

    def iter_args(
        self, args: tuple[IterArg, ...], out: list[Stmt], span: Span
    ) -> tuple[IterArg, ...]:
        result = []
        for arg in args:
            if arg.init_value is None:
                result.append(arg)
                continue
            init = self.expr(arg.init_value, out, span)
            if init is arg.init_value:
                result.append(arg)
                continue
            new = with_fields(arg, init_value=init)
            self.var_map[arg] = new
            result.append(new)
        return tuple(result)

    def rename(self, expr: Expr) -> Expr:
        """Variable substitution only (for the while condition, which is not flattened)."""
        mutator = IRMutator()
        mutator.var_map.update(self.var_map)
        return mutator.mutate_expr(expr)


def _same(a: tuple[object, ...], b: tuple[object, ...]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


class FlattenCalls(FunctionPass):
    name = "FlattenCalls"
    description = (
        "Move calls nested in arguments, operands, conditions, bounds, yields and "
        "returns into temporaries (_t0, _t1, ...) so every op call is a statement."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        flattener = _Flattener(fn, ctx)
        body = flattener.body(fn.body)
        return fn if body is fn.body else with_fields(fn, body=body)
