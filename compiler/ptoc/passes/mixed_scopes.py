"""Mixed kernel scopes split before outlining: OutlineIncoreScopes calls
``split_mixed_scopes`` on each function it outlines scopes of, which replaces every InCore
scope whose vector work reads its matmul's product by a cube scope and a vector scope
(``ptoc.mixed_kernels``), each then outlined as a kernel: the orchestration gets the product
as an intermediate tensor and launches the two kernels in order. The result is the same as
upstream's; the overlap of the two units (its cross-core pipe, ``pl.split``'s halving of the
vector work across the AIV lanes) is not modelled, which the I009 note on the scope says.
A scope that cannot be split is left as it is (ConvertTensorToBlockOps then reports E400 at
the op reading the product). A hand-written mixed InCore function is inlined at its calls as
such a scope (``mixed_functions.py``) when it splits; else it keeps its E400 too.
"""

from __future__ import annotations

from ..ir import stmt as st
from ..ir.expr import Var
from ..ir.function import Function
from ..ir.visitor import IRMutator
from ..mixed_kernels import split_mixed_scope
from .base import PassContext
from .irutil import NameAllocator
from .mixed_functions import called_kernel, inline_call
from .rewriter import StmtRewriter

_NOTE = (
    "{what} split into a cube kernel and a vector kernel, launched one after the other, the "
    "matmul's product handed over through a tensor in GM (A2/A3's vector unit cannot read the "
    "cube's Acc buffer); upstream's cross-core pipe between the two, and the overlap pl.split "
    "asks for, are not modelled"
)


class _Splitter(StmtRewriter):
    def __init__(
        self, ctx: PassContext, names: NameAllocator, functions: dict[str, Function]
    ) -> None:
        self.ctx = ctx
        self.names = names
        self.functions = functions
        self.results: dict[Var, Var] = {}  # a call's result -> the inlined scope's

    def fresh(self, name: str) -> str:
        """A name no variable of the function has (``name`` itself when none has it)."""
        found = self.names.fresh(name)
        return self.names.fresh(name) if found in self.names.reserved else found

    def rewrite_ScopeStmt(self, scope: st.ScopeStmt, called: str = "") -> st.Stmt:
        if scope.kind is not st.ScopeKind.InCore:
            return self.rewrite_fields(scope)
        found = split_mixed_scope(scope, self.fresh, ssa=True)
        if found is None:
            return scope
        creations, *halves = found
        what = (
            f"the InCore function '{called}' called here is" if called else "this kernel scope is"
        )
        self.ctx.diagnostics.error("I009", _NOTE.format(what=what), scope.span)
        return st.SeqStmts((*creations, *halves), span=scope.span)

    def rewrite_AssignStmt(self, stmt: st.AssignStmt) -> st.Stmt:
        return self.inlined(stmt)

    def rewrite_EvalStmt(self, stmt: st.EvalStmt) -> st.Stmt:
        return self.inlined(stmt)

    def inlined(self, stmt: st.Stmt) -> st.Stmt:
        """A call of a mixed InCore function as its body in a scope, split
        (``mixed_functions.py``)."""
        fn = called_kernel(stmt, self.functions)
        if fn is None:
            return stmt
        bindings, scope, results = inline_call(stmt, fn, self.fresh)
        split = self.rewrite_ScopeStmt(scope, fn.name)
        if split is scope:  # (it splits on its own: it does here too)
            return stmt
        self.results.update(results)
        return st.SeqStmts((*bindings, split), span=stmt.span)


def split_mixed_scopes(
    body: st.Stmt,
    ctx: PassContext,
    names: NameAllocator,
    functions: dict[str, Function] | None = None,
) -> st.Stmt:
    """``body`` with each mixed InCore scope replaced by its cube scope and its vector scope
    (the same node when none is mixed), and each call statement of one of ``functions``
    (``mixed_functions``) by those of its body."""
    splitter = _Splitter(ctx, names, functions or {})
    new = splitter.rewrite(body)
    if splitter.results:
        rename = IRMutator()
        rename.var_map = splitter.results
        new = rename.mutate_stmt(new)
    return new
