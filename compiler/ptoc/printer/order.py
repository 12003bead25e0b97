"""Function order in a printed program: every callee before its callers."""

from __future__ import annotations

from collections.abc import Sequence

from ..ir.expr import Call, GlobalVar
from ..ir.function import Function
from ..ir.visitor import IRVisitor


class _Callees(IRVisitor):
    def __init__(self) -> None:
        self.names: list[str] = []

    def visit_Call(self, node: Call) -> None:
        if isinstance(node.callee, GlobalVar) and node.callee.name not in self.names:
            self.names.append(node.callee.name)
        self.generic_visit(node)


def callees(fn: Function) -> list[str]:
    """Names of the program functions ``fn`` calls, in order of first call."""
    collector = _Callees()
    collector.visit(fn.body)
    return collector.names


def callee_first(functions: Sequence[Function]) -> list[Function]:
    """Source order, except that a callee moves up to just before its first caller.

    Depth-first, post-order. Recursion (a cycle) cannot be ordered; its members keep the
    order in which the walk reaches them.
    """
    by_name: dict[str, Function] = {}
    for fn in functions:
        by_name.setdefault(fn.name, fn)
    placed: list[Function] = []
    seen: set[int] = set()
    for fn in functions:
        _place(fn, by_name, seen, placed)
    return placed


def _place(
    fn: Function, by_name: dict[str, Function], seen: set[int], placed: list[Function]
) -> None:
    # (a module function: a nested one calling itself is a reference cycle, issue #33)
    if id(fn) in seen:
        return
    seen.add(id(fn))
    for name in callees(fn):
        callee = by_name.get(name)
        if callee is not None:
            _place(callee, by_name, seen, placed)
    placed.append(fn)
