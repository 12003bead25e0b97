"""A mixed kernel scope (cube work, then vector work reading its product) becomes two scopes.

A2/A3's cube and vector units are separate cores: a vector op cannot read a matmul's product,
which lives in the cube's Acc buffer. Upstream (ExpandMixedKernel) splits such a kernel into
an AIC and an AIV kernel joined by a cross-core pipe. ptoc splits the scope before outlining
(OutlineIncoreScopes calls ``split_mixed_scopes``) into a cube scope and a vector scope, the
product handed over in GM as a tensor, as two scopes written by hand would
(``staged_matmul_bias`` of upstream's ``examples/advanced/03_mixed_kernel.py``): the
orchestration gets the product as an intermediate tensor and launches the two kernels in
order. The result is the same; the overlap of the two units (the pipe, ``pl.split``'s halving
of the vector work across the AIV lanes) is not modelled, which the I009 note on the scope
says.

The body is split at its top-level statements (SSA, calls flattened):

* cube statements: a matmul, a loop or ``if`` whose ops are matmuls, views, stores and
  scalar arithmetic only, and a store (``tensor.assemble``) of a product;
* set-up statements: views, created tensors, scalar arithmetic;
* vector statements: everything else.

The cube scope holds the cube statements and the set-up they read; the vector scope holds the
rest, with its own copy of the set-up it reads. A scope is left as it is (tensor_to_block then
reports E400 at the op reading the product) when no vector statement reads a product, when a
top-level statement mixes both kinds, or when the cube work needs a vector statement.
"""

from __future__ import annotations

from enum import Enum

from ..ir import stmt as st
from ..ir.expr import Call, GlobalVar, Var
from ..ir.types import TASK_ID_TYPE
from ..ir.visitor import IRMutator, with_fields
from ..ops.registry import Role
from . import irutil
from .base import PassContext
from .op_info import op_def
from .rewriter import StmtRewriter

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
    op = op_def(call)
    return op.role if op is not None else None


def _kind(stmt: st.Stmt) -> _Kind:
    if isinstance(stmt, st.ReturnStmt | st.YieldStmt | st.LoopJumpStmt):
        return _Kind.OTHER
    cube = vector = False
    for inner in irutil.walk_stmts(stmt):
        if isinstance(inner, st.ReturnStmt):
            return _Kind.OTHER
        call = irutil.op_call_of(inner)
        if call is None:
            continue
        role = _role(call)
        if role is Role.MATMUL:
            cube = True
        elif role is not Role.STORE and role not in _NEUTRAL:
            vector = True
    if cube:
        return _Kind.MIXED if vector else _Kind.CUBE
    return _Kind.VECTOR if vector else _Kind.SETUP


def _is_store(stmt: st.Stmt) -> bool:
    call = irutil.op_call_of(stmt)
    return isinstance(stmt, st.AssignStmt) and call is not None and _role(call) is Role.STORE


class _Split:
    """The two halves of one scope's body, or why there are none (``None`` from ``run``)."""

    def __init__(self, stmts: list[st.Stmt]) -> None:
        self.stmts = stmts
        self.kinds = [_kind(s) for s in stmts]
        self.definer: dict[Var, int] = {}
        for i, s in enumerate(stmts):
            for var in irutil.stmt_defs(s):
                self.definer[var] = i

    def needs(self, i: int) -> list[int]:
        """The top-level statements statement ``i`` reads a variable of."""
        return sorted(
            {self.definer[v] for v in irutil.stmt_reads(self.stmts[i]) if v in self.definer}
        )

    def run(self) -> tuple[list[st.Stmt], list[st.Stmt]] | None:
        kinds = self.kinds
        if _Kind.OTHER in kinds or _Kind.MIXED in kinds:
            return None
        products = {
            v
            for i, k in enumerate(kinds)
            if k is _Kind.CUBE
            for v in irutil.stmt_defs(self.stmts[i])
        }
        cube = {i for i, k in enumerate(kinds) if k is _Kind.CUBE}
        for i, s in enumerate(self.stmts):  # a product stored into a tensor: the FIX pipe's
            if _is_store(s) and any(v in products for v in irutil.stmt_reads(s)):
                cube.add(i)
        readers = [
            i
            for i, k in enumerate(kinds)
            if k is _Kind.VECTOR and any(v in products for v in irutil.stmt_reads(self.stmts[i]))
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
            for var in irutil.stmt_definitions(self.stmts[i]):
                rename.var_map[var] = Var(var.type, name=var.name, span=var.span)
        return [rename.mutate_stmt(self.stmts[i]) for i in sorted([*shared, *second])]


def split_scope(scope: st.ScopeStmt) -> tuple[st.ScopeStmt, st.ScopeStmt] | None:
    """The cube scope and the vector scope ``scope`` splits into, or None."""
    halves = _Split(irutil.flatten_seq([scope.body])).run()
    if halves is None:
        return None
    first, second = halves
    span = scope.span
    hint = scope.name_hint
    task: Var | None = None
    if scope.deps or scope.task_id is not None:
        # a launch: the vector kernel waits for the cube kernel, the scope's TaskId is its
        task = Var(TASK_ID_TYPE, name=f"{hint or 'cube'}_task", span=span)
    cube = with_fields(
        scope,
        body=irutil.seq(first, span),
        task_id=task,
        name_hint=f"{hint}_aic" if hint else "",
    )
    vector = with_fields(
        scope,
        body=irutil.seq(second, span),
        deps=(task,) if task is not None else (),
        name_hint=f"{hint}_aiv" if hint else "",
    )
    return cube, vector


class _Splitter(StmtRewriter):
    def __init__(self, ctx: PassContext) -> None:
        self.ctx = ctx

    def rewrite_ScopeStmt(self, scope: st.ScopeStmt) -> st.Stmt:
        if scope.kind is not st.ScopeKind.InCore:
            return self.rewrite_fields(scope)
        halves = split_scope(scope)
        if halves is None:
            return scope
        self.ctx.diagnostics.error(
            "I009",
            "this kernel scope is split into a cube kernel and a vector kernel, launched one "
            "after the other, the matmul's product handed over through a tensor in GM (A2/A3's "
            "vector unit cannot read the cube's Acc buffer); the two units do not overlap: "
            "the cross-core pipe and pl.split's halving of the vector work are not modelled",
            scope.span,
        )
        return st.SeqStmts(halves, span=scope.span)


def split_mixed_scopes(body: st.Stmt, ctx: PassContext) -> st.Stmt:
    """``body`` with each mixed InCore scope replaced by its cube scope and its vector scope
    (the same node when none is mixed)."""
    return _Splitter(ctx).rewrite(body)
