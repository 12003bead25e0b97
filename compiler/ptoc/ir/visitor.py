"""IRVisitor walks the IR; IRMutator rebuilds it, sharing every unchanged subtree.

Dispatch is by node class name: override ``visit_Call``, ``visit_ForStmt``, ... and call
``self.generic_visit(node)`` (visitor) or ``super().visit_X(node)`` (mutator) to recurse.
"""

from __future__ import annotations

from typing import Any

from .. import records
from .expr import Expr, IterArg, Var
from .fields import child_values, layout
from .function import Function, Program
from .stmt import Stmt

Node = Expr | Stmt | Function | Program


def children(node: Node) -> list[Node]:
    """Direct children in evaluation / definition order (the order equality walks them), as
    each node class declares them (``CHILDREN``)."""
    if not isinstance(node, _NODE_CLASSES + (Program,)):
        raise TypeError(f"not an IR node: {type(node).__name__}")
    return child_values(node)


def rebuild(node: Any, changes: dict[str, Any]) -> Any:
    """A copy of a frozen node with some fields replaced, without re-running ``__init__``
    (``records.replace`` costs several times more and the mutator calls it per node)."""
    cls = type(node)
    names = _ALL_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in records.fields(cls))
        _ALL_FIELDS[cls] = names
    new = object.__new__(cls)
    for name in names:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(node, name))
    return new


_ALL_FIELDS: dict[type, tuple[str, ...]] = {}


class IRVisitor:
    def visit(self, node: Node) -> Any:
        method = getattr(self, "visit_" + type(node).__name__, None)
        if method is None:
            return self.generic_visit(node)
        return method(node)

    def generic_visit(self, node: Node) -> None:
        for child in children(node):
            self.visit(child)


class IRMutator:
    """Rebuilds nodes whose children changed; returns the very same node otherwise.

    Var definitions are mapped through ``self.var_map`` so that rewriting a definition
    (e.g. giving a tile a MemRef) also rewrites every use.
    """

    def __init__(self) -> None:
        self.var_map: dict[Var, Var] = {}

    def mutate(self, node: Any) -> Any:
        cls = type(node)
        method = _mutator_method(type(self), cls)
        if method is not None:
            return method(self, node)
        return self.generic_mutate(node)

    def mutate_expr(self, expr: Expr) -> Expr:
        result = self.mutate(expr)
        assert isinstance(result, Expr)
        return result

    def mutate_stmt(self, stmt: Stmt) -> Stmt:
        result = self.mutate(stmt)
        assert isinstance(result, Stmt)
        return result

    def mutate_Var(self, var: Var) -> Var:
        return self.var_map.get(var, var)

    def mutate_IterArg(self, var: IterArg) -> Var:
        if var in self.var_map:
            return self.var_map[var]
        if var.init_value is None:
            return var
        init = self.mutate_expr(var.init_value)
        if init is var.init_value:
            return var
        new = records.replace(var, init_value=init)
        self.var_map[var] = new
        return new

    def generic_mutate(self, node: Any) -> Any:
        changes: dict[str, Any] | None = None
        mutate = self.mutate
        for name in layout(type(node)).names:
            value = getattr(node, name)
            if value is None:
                continue
            if type(value) is tuple:
                items = [mutate(v) for v in value]
                new_value = value
                for a, b in zip(items, value):  # noqa: B905 (same length by construction)
                    if a is not b:
                        new_value = tuple(items)
                        break
            else:
                new_value = mutate(value)
            if new_value is not value:
                if changes is None:
                    changes = {}
                changes[name] = new_value
        return rebuild(node, changes) if changes else node


#: isinstance against a tuple of classes is several times cheaper than against a union.
_NODE_CLASSES: tuple[type, ...] = (Expr, Stmt, Function)
_MUTATOR_METHODS: dict[tuple[type, type], Any] = {}


def _mutator_method(mutator: type, node: type) -> Any:
    """A mutator class's ``mutate_<NodeClass>`` function (None if it has none), looked up once
    per pair of classes instead of building the name on every node."""
    key = (mutator, node)
    try:
        return _MUTATOR_METHODS[key]
    except KeyError:
        method = getattr(mutator, "mutate_" + node.__name__, None)
        if method is None and not layout(node).names:
            method = _unchanged
        _MUTATOR_METHODS[key] = method
        return method


def _unchanged(_mutator: IRMutator, node: Any) -> Any:
    return node


def with_fields(node: Any, **changes: Any) -> Any:
    """``records.replace`` for IR nodes and types, several times cheaper (passes call it
    for every node they rewrite)."""
    return rebuild(node, changes)
