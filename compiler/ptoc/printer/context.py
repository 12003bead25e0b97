"""State shared by the pieces of one printing run."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..ir.expr import IterArg, Var
from ..ir.function import Function
from ..ir.stmt import AssignStmt, ForStmt, IfStmt, WhileStmt
from ..ir.visitor import IRVisitor


@dataclass
class FreeNames:
    """Names printed in a function but bound nowhere in it: the symbolic dimensions
    (``pl.dynamic("N")``). The module printer declares them after the import, in order of
    first appearance, so that the printed text parses back."""

    bound: set[str] = field(default_factory=set)
    names: dict[str, None] = field(default_factory=dict)  # an ordered set

    def note(self, var: Var) -> None:
        if var.name and var.name not in self.bound:
            self.names.setdefault(var.name, None)


class _Definitions(IRVisitor):
    """Collects the names of every variable a function defines."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def define(self, *variables: Var) -> None:
        self.names.update(v.name for v in variables)

    def visit_AssignStmt(self, node: AssignStmt) -> None:
        self.define(node.var)
        self.generic_visit(node)

    def visit_ForStmt(self, node: ForStmt) -> None:
        self.define(node.loop_var, *node.iter_args, *node.return_vars)
        self.generic_visit(node)

    def visit_WhileStmt(self, node: WhileStmt) -> None:
        self.define(*node.iter_args, *node.return_vars)
        self.generic_visit(node)

    def visit_IfStmt(self, node: IfStmt) -> None:
        self.define(*node.return_vars)
        self.generic_visit(node)

    def visit_IterArg(self, node: IterArg) -> None:
        self.define(node)
        self.generic_visit(node)


def bound_names(fn: Function) -> set[str]:
    collector = _Definitions()
    collector.define(*fn.params)
    collector.visit(fn.body)
    return collector.names
