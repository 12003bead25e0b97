"""Statements, as lines of source; nested blocks are indented by four spaces.

SSA control flow: an ``if`` or loop with return variables ends each body with a YieldStmt,
printed as an assignment to those variables (``r: T = pl.yield_(v)``, or
``r1, r2 = pl.yield_(v1, v2)`` for several, which cannot carry annotations).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..editions import RULES, Edition
from ..ir.expr import ConstInt, Expr, IterArg, Var
from ..ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    IfStmt,
    LoopJumpStmt,
    ReturnStmt,
    ScopeKind,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ..ir.types import ScalarType, UnknownType
from .expressions import ExprPrinter
from .literals import tuple_literal
from .spans import indented, span_of, tag

INDENT = "    "


class StmtPrinter(ExprPrinter):
    # The variables a YieldStmt met now assigns (those of the innermost if / loop).
    yield_targets: tuple[Var, ...] = ()

    def lines(self, stmt: Stmt | None) -> list[str]:
        if stmt is None:
            return []
        result = self.visit(stmt)
        if not isinstance(result, list):
            return []
        # Lines of nested statements already carry their own span.
        return [line if span_of(line) else tag(line, stmt.span) for line in result]

    def block(
        self, body: Stmt | None, targets: tuple[Var, ...] = (), leading: Sequence[str] = ()
    ) -> list[str]:
        """An indented body; ``targets`` are the variables its yields assign."""
        saved, self.yield_targets = self.yield_targets, targets
        try:
            inner = [*leading, *self.lines(body)]
        finally:
            self.yield_targets = saved
        return [indented(INDENT, line) for line in inner or ["pass"]]

    def annotated(self, var: Var) -> str:
        """``name: T``, or the bare name when the type has no spelling."""
        if isinstance(var.type, UnknownType):
            return var.name
        return f"{var.name}: {self.types.type(var.type)}"

    def exprs(self, values: Sequence[Expr]) -> str:
        return ", ".join(self.expr(v) for v in values)

    # simple statements

    def visit_SeqStmts(self, node: SeqStmts) -> list[str]:
        return [line for stmt in node.stmts for line in self.lines(stmt)]

    def visit_AssignStmt(self, node: AssignStmt) -> list[str]:
        return [f"{self.annotated(node.var)} = {self.expr(node.value)}"]

    def visit_EvalStmt(self, node: EvalStmt) -> list[str]:
        return [self.expr(node.expr)]

    def visit_ReturnStmt(self, node: ReturnStmt) -> list[str]:
        return [f"return {self.exprs(node.values)}".rstrip()]

    def visit_YieldStmt(self, node: YieldStmt) -> list[str]:
        call = f"{self.prefix}.yield_({self.exprs(node.values)})"
        targets = self.yield_targets
        if not targets:
            return [call] if node.values else []  # an empty yield carries nothing to print
        if len(targets) == 1:
            return [f"{self.annotated(targets[0])} = {call}"]
        return [f"{', '.join(v.name for v in targets)} = {call}"]

    # compound statements

    def visit_IfStmt(self, node: IfStmt) -> list[str]:
        out = [f"if {self.expr(node.condition)}:", *self.block(node.then_body, node.return_vars)]
        if node.else_body is not None:
            out += ["else:", *self.block(node.else_body, node.return_vars)]
        return out

    def visit_ForStmt(self, node: ForStmt) -> list[str]:
        helper = node.kind.value
        bounds = self.exprs(self._bounds(node))
        target = self.expr(node.loop_var)
        if node.iter_args:
            target += f", {self._names(node.iter_args)}"
            bounds += f", init_values={self._inits(node.iter_args)}"
        if node.kind is ForKind.Pipeline:
            bounds += f", stage={node.stage}"
        header = f"for {target} in {self.prefix}.{helper}({bounds}):"
        return [header, *self.block(node.body, node.return_vars)]

    def _bounds(self, node: ForStmt) -> tuple[Expr, ...]:
        """A loop's bounds as written: all three, or in the edition's shortest form (a start
        of 0 and a step of 1 left out where they read back as the same constants)."""
        if not RULES[self.edition].short_loop_bounds or not self._bare(node.step, 1):
            return (node.start, node.stop, node.step)
        if self._bare(node.start, 0):
            return (node.stop,)
        return (node.start, node.stop)

    def _bare(self, e: Expr, value: int) -> bool:
        """``e`` is the constant ``value`` of the dtype a bare integer reads back as."""
        return (
            isinstance(e, ConstInt)
            and e.value == value
            and isinstance(e.type, ScalarType)
            and e.type.dtype is self.int_literal
        )

    def visit_LoopJumpStmt(self, node: LoopJumpStmt) -> list[str]:
        return [node.kind]

    def visit_WhileStmt(self, node: WhileStmt) -> list[str]:
        condition = self.expr(node.condition)
        if not node.iter_args:
            return [f"while {condition}:", *self.block(node.body, node.return_vars)]
        names, inits = self._names(node.iter_args), self._inits(node.iter_args)
        if len(node.iter_args) > 1:
            names = names[1:-1]  # black drops a for target's parentheses, unless a 1-tuple
        header = f"for {names} in {self.prefix}.while_(init_values={inits}):"
        cond = f"{self.prefix}.cond({condition})"
        return [header, *self.block(node.body, node.return_vars, leading=[cond])]

    def visit_ScopeStmt(self, node: ScopeStmt) -> list[str]:
        # A scope is not a yield boundary: yields inside it belong to the enclosing construct.
        header = scope_header(self.prefix, node.kind, self.edition)
        if node.kind is ScopeKind.Spmd and node.core_num is not None:
            header = f"{self.prefix}.spmd({self.expr(node.core_num)})"
        launch = node.deps or node.name_hint or node.task_id is not None
        if launch and self.edition is not Edition.V2026_03 and header.endswith(")"):
            header = header[:-1] + self.launch_keywords(node, header.endswith("()")) + ")"
            if node.task_id is not None:
                header += f" as {self.expr(node.task_id)}"
        return [f"with {header}:", *self.block(node.body, self.yield_targets)]

    def launch_keywords(self, node: ScopeStmt, first: bool) -> str:
        """A ``pl.at`` / ``pl.spmd`` launch's ``name_hint=`` and ``deps=`` keywords."""
        keywords = [f'name_hint="{node.name_hint}"'] if node.name_hint else []
        if node.deps:
            keywords.append(f"deps=[{', '.join(self.expr(d) for d in node.deps)}]")
        text = ", ".join(keywords)
        return text if first or not text else ", " + text

    def _names(self, iter_args: Sequence[IterArg]) -> str:
        return tuple_literal([self.expr(a) for a in iter_args])

    def _inits(self, iter_args: Sequence[IterArg]) -> str:
        return tuple_literal(
            [self.expr(a.init_value) if a.init_value is not None else "None" for a in iter_args]
        )


def scope_header(prefix: str, kind: ScopeKind, edition: Edition) -> str:
    """``pl.incore()`` in 2026-03; 2026-08 writes the same scope ``pl.at(level=...)``."""
    if edition is Edition.V2026_03 or kind is not ScopeKind.InCore:
        return f"{prefix}.{kind.value}()"
    return f"{prefix}.at(level={prefix}.Level.CORE_GROUP)"
