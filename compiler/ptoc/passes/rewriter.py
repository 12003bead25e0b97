"""The rewriter base passes build on instead of one isinstance switch per pass.

``StmtRewriter.rewrite`` calls ``rewrite_<NodeClass>`` when the pass defines one; every other
statement is rebuilt field by field from its declared child fields (``ptoc.ir.fields``):
operands, conditions, bindings and results go through the ``operand`` / ``condition`` /
``binding`` / ``result`` hooks (unchanged by default), bodies are rewritten recursively. A
statement nothing changed in is returned as the very same object, and a sequence splices the
sequences its statements became. So a pass names only the statements it treats specially,
and a new kind of statement needs no change in it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ir.expr import Expr, Var
from ..ir.fields import BINDS, BODY, CONDITION, OPERAND, RESULT, Role, layout
from ..ir.stmt import SeqStmts, Stmt
from ..ir.visitor import rebuild, with_fields
from .irutil import flatten_seq


class StmtRewriter:
    def rewrite(self, stmt: Stmt) -> Stmt:
        method = _method(type(self), type(stmt))
        if method is not None:
            result: Stmt = method(self, stmt)
            return result
        return self.rewrite_fields(stmt)

    def rewrite_SeqStmts(self, stmt: SeqStmts) -> Stmt:
        parts = [self.rewrite(s) for s in stmt.stmts]
        if all(new is old for new, old in zip(parts, stmt.stmts, strict=True)):
            return stmt
        return with_fields(stmt, stmts=tuple(flatten_seq(parts)))

    def rewrite_fields(self, stmt: Stmt) -> Stmt:
        """``stmt`` with each child field passed through the hook of its role."""
        changes: dict[str, Any] = {}
        for name, role in layout(type(stmt)).fields:
            value = getattr(stmt, name)
            if value is None:
                continue
            hook = getattr(self, _HOOKS[role])
            if type(value) is tuple:
                items = tuple(hook(v, stmt) for v in value)
                if any(a is not b for a, b in zip(items, value, strict=True)):
                    changes[name] = items
            else:
                new = hook(value, stmt)
                if new is not value:
                    changes[name] = new
        return rebuild(stmt, changes) if changes else stmt

    # --- hooks, one per role (``owner`` is the statement holding the field) ---------------

    def operand(self, expr: Expr, owner: Stmt) -> Expr:
        return expr

    def condition(self, expr: Expr, owner: Stmt) -> Expr:
        return expr

    def binding(self, var: Var, owner: Stmt) -> Var:
        return var

    def result(self, var: Var, owner: Stmt) -> Var:
        return var

    def body(self, stmt: Stmt, owner: Stmt) -> Stmt:
        return self.rewrite(stmt)


#: The hook each role's fields go through.
_HOOKS: dict[Role, str] = {
    OPERAND: "operand",
    CONDITION: "condition",
    BINDS: "binding",
    RESULT: "result",
    BODY: "body",
}


def map_bodies(stmt: Stmt, rewrite: Callable[[Stmt], Stmt]) -> Stmt:
    """``stmt`` with each of its bodies passed through ``rewrite`` (the same node when none
    changed; a statement without bodies is returned as it is)."""
    changes: dict[str, Any] = {}
    for name in layout(type(stmt)).bodies:
        value = getattr(stmt, name)
        if value is None:
            continue
        if type(value) is tuple:
            items = tuple(rewrite(v) for v in value)
            if any(a is not b for a, b in zip(items, value, strict=True)):
                changes[name] = items
        else:
            new = rewrite(value)
            if new is not value:
                changes[name] = new
    return rebuild(stmt, changes) if changes else stmt


_METHODS: dict[tuple[type, type], Any] = {}


def _method(rewriter: type, node: type) -> Any:
    """A rewriter class's ``rewrite_<NodeClass>`` function, looked up once per pair."""
    key = (rewriter, node)
    try:
        return _METHODS[key]
    except KeyError:
        found = _METHODS[key] = getattr(rewriter, "rewrite_" + node.__name__, None)
        return found
