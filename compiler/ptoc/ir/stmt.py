"""Statements. SSA-style control flow: ``IfStmt``/``ForStmt``/``WhileStmt`` carry
``return_vars`` bound by the ``YieldStmt`` that ends each body."""

from __future__ import annotations

from enum import Enum
from typing import ClassVar

from ..records import field, record
from .expr import Expr, IterArg, Var
from .fields import BINDS, BODY, CONDITION, OPERAND, RESULT, ChildFields, declare
from .span import NO_SPAN, Span


@record(frozen=True, slots=True, eq=False)
class Stmt:
    span: Span = field(default=NO_SPAN, kw_only=True)

    #: The fields holding child nodes, with their roles (see ``ptoc.ir.fields``).
    CHILDREN: ClassVar[ChildFields] = ()


@record(frozen=True, slots=True, eq=False)
class AssignStmt(Stmt):
    var: Var
    value: Expr

    CHILDREN = declare(value=OPERAND, var=RESULT)


@record(frozen=True, slots=True, eq=False)
class EvalStmt(Stmt):
    """An expression evaluated for its effect (``pl.store(...)``, sync ops)."""

    expr: Expr

    CHILDREN = declare(expr=OPERAND)


@record(frozen=True, slots=True, eq=False)
class SeqStmts(Stmt):
    stmts: tuple[Stmt, ...] = ()

    CHILDREN = declare(stmts=BODY)


@record(frozen=True, slots=True, eq=False)
class YieldStmt(Stmt):
    values: tuple[Expr, ...] = ()

    CHILDREN = declare(values=OPERAND)


@record(frozen=True, slots=True, eq=False)
class LoopJumpStmt(Stmt):
    """2026-08's ``break`` / ``continue`` of the innermost loop (``kind`` is the keyword)."""

    kind: str = "break"


@record(frozen=True, slots=True, eq=False)
class ReturnStmt(Stmt):
    values: tuple[Expr, ...] = ()

    CHILDREN = declare(values=OPERAND)


@record(frozen=True, slots=True, eq=False)
class IfStmt(Stmt):
    condition: Expr
    then_body: Stmt
    else_body: Stmt | None = None
    return_vars: tuple[Var, ...] = ()

    CHILDREN = declare(condition=OPERAND, then_body=BODY, else_body=BODY, return_vars=RESULT)


class ForKind(Enum):
    """How a loop runs; the value is the DSL helper that writes it."""

    Sequential = "range"
    Parallel = "parallel"
    Unroll = "unroll"  # 2026-08: unrolled at compile time (constant bounds)
    Pipeline = "pipeline"  # 2026-08: software-pipelined (``stage=``)


@record(frozen=True, slots=True, eq=False)
class ForStmt(Stmt):
    loop_var: Var
    start: Expr
    stop: Expr
    step: Expr
    body: Stmt
    iter_args: tuple[IterArg, ...] = ()
    return_vars: tuple[Var, ...] = ()
    kind: ForKind = ForKind.Sequential
    stage: int = 0  # a Pipeline loop's number of stages

    CHILDREN = declare(
        start=OPERAND,
        stop=OPERAND,
        step=OPERAND,
        loop_var=BINDS,
        iter_args=BINDS,
        body=BODY,
        return_vars=RESULT,
    )


@record(frozen=True, slots=True, eq=False)
class WhileStmt(Stmt):
    """``pl.while_`` with ``pl.cond`` (iter_args present) or a natural ``while`` (none)."""

    condition: Expr
    body: Stmt
    iter_args: tuple[IterArg, ...] = ()
    return_vars: tuple[Var, ...] = ()

    CHILDREN = declare(iter_args=BINDS, condition=CONDITION, body=BODY, return_vars=RESULT)


class ScopeKind(Enum):
    """What a scope is; the value is the DSL helper that writes it."""

    InCore = "incore"
    # 2026-08's runtime scopes (spec §6): automatic or manual dependency tracking.
    Auto = "scope"
    Manual = "manual_scope"
    # ``with pl.spmd(n):`` whose body calls kernels: each runs on ``core_num`` blocks.
    Spmd = "spmd"


@record(frozen=True, slots=True, eq=False)
class ScopeStmt(Stmt):
    body: Stmt
    kind: ScopeKind = ScopeKind.InCore
    core_num: Expr | None = None  # a Spmd scope's width
    # 2026-08's ``with pl.at(..., deps=[t1, arr], name_hint="n") as tid:`` (and ``pl.spmd``):
    # the TaskIds (and TaskId arrays) the launch waits for, the TaskId it binds, its name.
    deps: tuple[Expr, ...] = ()
    task_id: Var | None = None
    name_hint: str = ""
    # Where ``deps=[...]`` is written (each dep's Var has the span of its definition).
    deps_span: Span = NO_SPAN

    CHILDREN = declare(deps=OPERAND, core_num=OPERAND, body=BODY, task_id=RESULT)


def body_stmts(stmt: Stmt | None) -> tuple[Stmt, ...]:
    """The statements of a body, flattening a SeqStmts."""
    if stmt is None:
        return ()
    if isinstance(stmt, SeqStmts):
        return stmt.stmts
    return (stmt,)


#: The statements whose body runs repeatedly, carrying ``iter_args`` into ``return_vars``
#: (usable with ``isinstance``; name it instead of listing the loop classes).
LoopStmt = ForStmt | WhileStmt
