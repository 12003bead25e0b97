"""FlattenCalls: every call becomes a statement of its own.

Code generation emits one instruction per op-call statement, so a call nested in another
call's arguments, in an arithmetic operand, an if condition, loop bounds, initial values, a
yield or a return is evaluated first into a temporary (``_t0``, ``_t1``, ... unique in the
function), in evaluation order, just before the statement that used it. A while loop's
condition is evaluated on every iteration and is left as it is.
"""

from __future__ import annotations

from ..ir.expr import Call, Expr, IterArg, Var
from ..ir.function import Function
from ..ir.span import Span
from ..ir.stmt import AssignStmt, EvalStmt, SeqStmts, Stmt
from ..ir.visitor import IRMutator, with_fields
from .base import FunctionPass, PassContext
from .function_names import FunctionNames
from .irutil import NameAllocator
from .rewriter import StmtRewriter
from .verifier import scan_evaluated

#: The statements evaluating one expression (a tuple: ``isinstance`` with a new union costs more).
_EVALUATING = (AssignStmt, EvalStmt)


class _Hoister(IRMutator):
    """Moves every call of an expression into a temporary assigned by a statement appended
    to ``out``, innermost first; variables are renamed through ``var_map``."""

    def __init__(self, names: NameAllocator) -> None:
        super().__init__()
        self.names = names
        self.out: list[Stmt] = []
        self.span = Span.unknown("")

    def mutate_IterArg(self, var: IterArg) -> Var:
        return self.var_map.get(var, var)  # a use: its initial value is not evaluated here

    def mutate_Call(self, call: Call) -> Expr:
        call = self.generic_mutate(call)
        where = call.span if call.span.is_known else self.span
        temp = Var(call.type, name=self.names.temp(), span=where)
        self.out.append(AssignStmt(temp, call, span=where))
        return temp


class _Flattener(StmtRewriter):
    """Each statement becomes the statements its nested calls were hoisted into, then itself;
    the hooks flatten operands and initial values and only rename in a while condition."""

    def __init__(self, fn: Function, ctx: PassContext) -> None:
        self.ctx = ctx
        # Loop-carried variables rebuilt because their initial value changed are in its map.
        self.hoister = _Hoister(FunctionNames(fn))

    def rewrite(self, stmt: Stmt) -> Stmt:
        self.ctx.at(stmt.span)
        if isinstance(stmt, SeqStmts):
            return super().rewrite(stmt)
        if isinstance(stmt, _EVALUATING) and self.unchanged(stmt):
            return stmt
        hoister = self.hoister
        outer_out, outer_span = hoister.out, hoister.span
        hoister.out, hoister.span = [], stmt.span
        new = super().rewrite(stmt)
        hoisted = hoister.out
        hoister.out, hoister.span = outer_out, outer_span
        return SeqStmts((*hoisted, new), span=stmt.span) if hoisted else new

    def unchanged(self, stmt: AssignStmt | EvalStmt) -> bool:
        """Whether a statement has nothing to hoist or rename (most have neither)."""
        if self.hoister.var_map or type(stmt) is AssignStmt and type(stmt.var) is not Var:
            return False
        value = stmt.value if isinstance(stmt, AssignStmt) else stmt.expr
        return not scan_evaluated(value, [])

    def operand(self, expr: Expr, owner: Stmt) -> Expr:
        if isinstance(owner, _EVALUATING) and isinstance(expr, Call):
            return self.hoister.generic_mutate(expr)  # the statement's own call stays
        return self.hoister.mutate_expr(expr)

    def binding(self, var: Var, owner: Stmt) -> Var:
        if not isinstance(var, IterArg) or var.init_value is None:
            return var
        init = self.hoister.mutate_expr(var.init_value)
        if init is var.init_value:
            return var
        new = with_fields(var, init_value=init)
        self.hoister.var_map[var] = new
        return new

    def condition(self, expr: Expr, owner: Stmt) -> Expr:
        """Variable substitution only: a while condition is evaluated on every iteration."""
        mutator = IRMutator()
        mutator.var_map.update(self.hoister.var_map)
        return mutator.mutate_expr(expr)


class FlattenCalls(FunctionPass):
    name = "FlattenCalls"
    description = (
        "Move calls nested in arguments, operands, conditions, bounds, yields and "
        "returns into temporaries (_t0, _t1, ...) so every op call is a statement."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        body = _Flattener(fn, ctx).rewrite(fn.body)
        return fn if body is fn.body else with_fields(fn, body=body)
