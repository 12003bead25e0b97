"""Mixed kernel scopes: an InCore scope whose vector work reads its cube work's product, and
the cube scope and vector scope it splits into (``split_scope``).

A2/A3's cube and vector units are separate cores: a vector op cannot read a matmul's product,
which lives in the cube's Acc buffer. Upstream (ExpandMixedKernel) splits such a kernel into
an AIC and an AIV kernel joined by a cross-core pipe. ptoc splits the scope into a cube scope
and a vector scope, the product handed over in GM as a tensor, as two scopes written by hand
would (``staged_matmul_bias`` of upstream's ``examples/advanced/03_mixed_kernel.py``). The
passes outline the two (``passes/mixed_scopes.py``), the task graph draws them as two tasks.

The body is split at its top-level statements:

* cube statements: a matmul, a loop or ``if`` whose ops are matmuls, views, stores and
  scalar arithmetic only, and a store (``tensor.assemble``) of a product;
* set-up statements: views, created tensors, scalar arithmetic;
* vector statements: everything else.

The cube scope holds the cube statements and the set-up they read; the vector scope holds the
rest, with its own copy of the set-up it reads (fresh variables: each still has one
definition). A scope is not split when no vector statement reads a product, when a top-level
statement mixes both kinds, or when the cube work needs a vector statement.

``pl.split(mode)`` plays no part: its halving of the vector work across the AIV lanes is a
schedule, which changes no result. The halves are named after the scope's ``name_hint``
with ``_aic`` / ``_aiv``, as upstream names its two kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from .ir import stmt as st
from .ir.expr import Call, Expr, GlobalVar, Op, Var
from .ir.fields import field_nodes, layout
from .ir.span import Span
from .ir.types import TASK_ID_TYPE
from .ir.visitor import IRMutator, with_fields
from .ir.walk import conditions, direct_exprs, stmt_definitions, stmt_defs, stmt_reads, walk_stmts
from .ops.registry import REGISTRY, Role

#: Roles of ops a cube kernel and a vector kernel may both hold.
_NEUTRAL = frozenset({Role.VIEW, Role.CREATE, Role.SCALAR})


class _Kind(Enum):
    SETUP = "setup"
    CUBE = "cube"
    VECTOR = "vector"
    MIXED = "mixed"
    OTHER = "other"  # a statement that ends the body's flow (return, yield, break, ...)


def _role(call: Call) -> Role | None:
    """The role of an op call; None for a call of a function (what it does is unknown)."""
    if isinstance(call.callee, GlobalVar):
        return None
    op = REGISTRY.get(call.callee.name) if isinstance(call.callee, Op) else None
    return op.role if op is not None else None


def _calls(stmt: st.Stmt) -> list[Call]:
    """Every call a statement and its bodies evaluate, nested ones too (the front end's IR,
    which the task graph splits, has not had its calls flattened)."""
    found: list[Call] = []
    todo: list[Expr] = []
    for inner in walk_stmts(stmt):
        todo += [*direct_exprs(inner), *conditions(inner)]
    while todo:
        expr = todo.pop()
        if isinstance(expr, Call):
            found.append(expr)
        todo += [e for e in field_nodes(expr, layout(type(expr)).operands) if isinstance(e, Expr)]
    return found


def _kind(stmt: st.Stmt) -> _Kind:
    if isinstance(stmt, st.ReturnStmt | st.YieldStmt | st.LoopJumpStmt):
        return _Kind.OTHER
    if any(isinstance(inner, st.ReturnStmt) for inner in walk_stmts(stmt)):
        return _Kind.OTHER
    roles = {_role(call) for call in _calls(stmt)}
    vector = any(role is not Role.STORE and role not in _NEUTRAL for role in roles - {Role.MATMUL})
    if Role.MATMUL in roles:
        return _Kind.MIXED if vector else _Kind.CUBE
    return _Kind.VECTOR if vector else _Kind.SETUP


def _is_store(stmt: st.Stmt, kind: _Kind) -> bool:
    call = _top_call(stmt)
    return kind is _Kind.SETUP and call is not None and _role(call) is Role.STORE


class _Split:
    """The two halves of one scope's body, or why there are none (``None`` from ``run``)."""

    def __init__(self, stmts: list[st.Stmt]) -> None:
        self.stmts = stmts
        self.kinds = [_kind(s) for s in stmts]
        self.definer: dict[Var, int] = {}
        for i, s in enumerate(stmts):
            for var in stmt_defs(s):
                self.definer[var] = i

    def needs(self, i: int) -> list[int]:
        """The top-level statements statement ``i`` reads a variable of."""
        return sorted({self.definer[v] for v in stmt_reads(self.stmts[i]) if v in self.definer})

    def run(self) -> tuple[list[st.Stmt], list[st.Stmt]] | None:
        kinds = self.kinds
        if _Kind.OTHER in kinds or _Kind.MIXED in kinds:
            return None
        products = {
            v for i, k in enumerate(kinds) if k is _Kind.CUBE for v in stmt_defs(self.stmts[i])
        }
        cube = {i for i, k in enumerate(kinds) if k is _Kind.CUBE}
        for i, s in enumerate(self.stmts):  # a product stored into a tensor (from Acc)
            if _is_store(s, kinds[i]) and any(v in products for v in stmt_reads(s)):
                cube.add(i)
        readers = [
            i
            for i, k in enumerate(kinds)
            if k is _Kind.VECTOR and any(v in products for v in stmt_reads(self.stmts[i]))
        ]
        if not readers:
            return None
        first = self.closure(cube, cube)
        if any(kinds[i] is _Kind.VECTOR for i in first):
            return None  # the cube work reads a vector result: not separable here
        second = [i for i in range(len(self.stmts)) if i not in first]
        # the set-up the vector work reads too (what it reads of the cube work is handed over)
        shared = self.closure(set(second), cube) & first
        return [self.stmts[i] for i in sorted(first)], self.copied(sorted(shared), second)

    def closure(self, start: set[int], stop: set[int]) -> set[int]:
        """``start`` and the statements it reads, transitively, not through ``stop``."""
        found = set(start)
        todo = list(start)
        while todo:
            for j in self.needs(todo.pop()):
                if j not in found and j not in stop:
                    found.add(j)
                    todo.append(j)
        return found

    def copied(self, shared: list[int], second: list[int]) -> list[st.Stmt]:
        """The vector half: its own copy of the set-up it shares with the cube half (fresh
        variables, so that each variable still has one definition), then its statements."""
        rename = IRMutator()
        for i in shared:
            for var in stmt_definitions(self.stmts[i]):
                rename.var_map[var] = Var(var.type, name=var.name, span=var.span)
        return [rename.mutate_stmt(self.stmts[i]) for i in sorted([*shared, *second])]


def split_scope(
    scope: st.ScopeStmt, fresh: Callable[[str], str] | None = None
) -> tuple[st.ScopeStmt, st.ScopeStmt] | None:
    """The cube scope and the vector scope ``scope`` splits into, or None. A launch (a scope
    with ``deps=`` or a TaskId) gives the cube scope a TaskId (named by ``fresh``) the vector
    scope waits for; the scope's own TaskId is the vector scope's."""
    halves = _Split(_flatten(scope.body)).run()
    if halves is None:
        return None
    first, second = halves
    span = scope.span
    hint = scope.name_hint
    task: Var | None = None
    if scope.deps or scope.task_id is not None:
        name = f"{hint}_aic_task" if hint else "_aic_task"
        task = Var(TASK_ID_TYPE, name=fresh(name) if fresh else name, span=span)
    cube = with_fields(
        scope,
        body=_seq(first, span),
        task_id=task,
        name_hint=f"{hint}_aic" if hint else "",
    )
    vector = with_fields(
        scope,
        body=_seq(second, span),
        deps=(task,) if task is not None else (),
        name_hint=f"{hint}_aiv" if hint else "",
    )
    return cube, vector


def _top_call(stmt: st.Stmt) -> Call | None:
    value = (
        stmt.value
        if isinstance(stmt, st.AssignStmt)
        else (stmt.expr if isinstance(stmt, st.EvalStmt) else None)
    )
    return value if isinstance(value, Call) else None


def _flatten(stmt: st.Stmt) -> list[st.Stmt]:
    if isinstance(stmt, st.SeqStmts):
        return [s for inner in stmt.stmts for s in _flatten(inner)]
    return [stmt]


def _seq(stmts: list[st.Stmt], span: Span) -> st.Stmt:
    return stmts[0] if len(stmts) == 1 else st.SeqStmts(tuple(stmts), span=span)
