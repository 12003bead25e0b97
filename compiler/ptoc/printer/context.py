"""State shared by the pieces of one printing run."""

from __future__ import annotations

from ..ir.expr import Var
from ..ir.function import Function
from ..ir.walk import defined_vars
from ..records import field, record


@record
class FreeNames:
    """Names printed in a function but bound nowhere in it: the symbolic dimensions
    (``pl.dynamic("N")``). The module printer declares them after the import, in order of
    first appearance, so that the printed text parses back."""

    bound: set[str] = field(default_factory=set)
    names: dict[str, None] = field(default_factory=dict)  # an ordered set

    def note(self, var: Var) -> None:
        if var.name and var.name not in self.bound:
            self.names.setdefault(var.name, None)


def bound_names(fn: Function) -> set[str]:
    """The names of every variable ``fn`` defines (parameters included)."""
    return {var.name for var, _ in defined_vars(fn)}
