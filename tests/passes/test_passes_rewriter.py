"""StmtRewriter and map_bodies: a pass names only the statements it treats specially."""

from __future__ import annotations

from ir_builder import (
    INDEX,
    add,
    assign,
    call,
    eval_,
    for_,
    i,
    if_,
    iter_arg,
    scalar,
    scope,
    seq,
    while_,
)

from ptoc.ir import EvalStmt, Expr, ScopeStmt, SeqStmts, Stmt, Var
from ptoc.passes.rewriter import StmtRewriter, map_bodies


class Unscoped(StmtRewriter):
    """Replaces each scope by its body; counts the operands it saw."""

    def __init__(self) -> None:
        self.operands: list[str] = []

    def rewrite_ScopeStmt(self, stmt: ScopeStmt) -> Stmt:
        return self.rewrite(stmt.body)

    def operand(self, expr: Expr, owner: Stmt) -> Expr:
        self.operands.append(type(owner).__name__)
        return expr


def test_statements_without_a_method_are_rebuilt_only_when_a_body_changed() -> None:
    n = scalar("n")
    plain = for_(scalar("k"), n, assign("a", i(1)))
    rewriter = Unscoped()
    assert rewriter.rewrite(plain) is plain
    assert rewriter.operands == ["ForStmt", "ForStmt", "ForStmt", "AssignStmt"]

    inner = assign("b", i(2))
    nested = while_(n, scope(inner, assign("c", i(3))))
    new = Unscoped().rewrite(nested)
    assert new is not nested
    assert new.condition is n  # type: ignore[attr-defined]
    # The scope's sequence is spliced into the body's: one flat sequence.
    assert new.body.stmts[0] is inner  # type: ignore[attr-defined]
    assert len(new.body.stmts) == 2  # type: ignore[attr-defined]


def test_hooks_see_every_role() -> None:
    class Seen(StmtRewriter):
        def __init__(self) -> None:
            self.seen: list[str] = []

        def operand(self, expr: Expr, owner: Stmt) -> Expr:
            self.seen.append("operand")
            return expr

        def condition(self, expr: Expr, owner: Stmt) -> Expr:
            self.seen.append("condition")
            return expr

        def binding(self, var: Var, owner: Stmt) -> Var:
            self.seen.append("binding")
            return var

        def result(self, var: Var, owner: Stmt) -> Var:
            self.seen.append("result")
            return var

    n = scalar("n")
    acc = iter_arg("acc", INDEX, n)
    loop = while_(acc, eval_(call("op", acc)), carry=[acc], results=[scalar("r")])
    rewriter = Seen()
    assert rewriter.rewrite(loop) is loop
    assert rewriter.seen == ["binding", "condition", "operand", "result"]


def test_map_bodies_rewrites_each_body_and_keeps_the_rest() -> None:
    c = scalar("c")
    then, other = assign("a", i(1)), assign("b", add(c, i(2)))
    branch = if_(c, then, other)
    dropped = map_bodies(branch, lambda body: SeqStmts(()) if body is branch.else_body else body)
    assert dropped.then_body is branch.then_body  # type: ignore[attr-defined]
    assert dropped.else_body.stmts == ()  # type: ignore[attr-defined]
    leaf = EvalStmt(c)
    assert map_bodies(leaf, lambda body: seq()) is leaf
