"""Mixed kernel scopes split before outlining: OutlineIncoreScopes calls
``split_mixed_scopes`` on each function it outlines scopes of, which replaces every InCore
scope whose vector work reads its matmul's product by a cube scope and a vector scope
(``ptoc.mixed_kernels``), each then outlined as a kernel: the orchestration gets the product
as an intermediate tensor and launches the two kernels in order. The result is the same as
upstream's; the overlap of the two units (its cross-core pipe, ``pl.split``'s halving of the
vector work across the AIV lanes) is not modelled, which the I009 note on the scope says.
A scope that cannot be split is left as it is (ConvertTensorToBlockOps then reports E400 at
the op reading the product), as is a hand-written InCore function (E400 too).
"""

from __future__ import annotations

from ..ir import stmt as st
from ..mixed_kernels import split_mixed_scope
from .base import PassContext
from .irutil import NameAllocator
from .rewriter import StmtRewriter


class _Splitter(StmtRewriter):
    def __init__(self, ctx: PassContext, names: NameAllocator) -> None:
        self.ctx = ctx
        self.names = names

    def rewrite_ScopeStmt(self, scope: st.ScopeStmt) -> st.Stmt:
        if scope.kind is not st.ScopeKind.InCore:
            return self.rewrite_fields(scope)
        found = split_mixed_scope(scope, self.names.fresh, ssa=True)
        if found is None:
            return scope
        creations, *halves = found
        self.ctx.diagnostics.error(
            "I009",
            "this kernel scope is split into a cube kernel and a vector kernel, launched one "
            "after the other, the matmul's product handed over through a tensor in GM (A2/A3's "
            "vector unit cannot read the cube's Acc buffer); upstream's cross-core pipe between "
            "the two, and the overlap pl.split asks for, are not modelled",
            scope.span,
        )
        return st.SeqStmts((*creations, *halves), span=scope.span)


def split_mixed_scopes(body: st.Stmt, ctx: PassContext, names: NameAllocator) -> st.Stmt:
    """``body`` with each mixed InCore scope replaced by its cube scope and its vector scope
    (the same node when none is mixed)."""
    return _Splitter(ctx, names).rewrite(body)
