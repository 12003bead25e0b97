"""IRVisitor walks the IR; IRMutator rebuilds it, sharing every unchanged subtree.

Dispatch is by node class name: override ``visit_Call``, ``visit_ForStmt``, ... and call
``self.generic_visit(node)`` (visitor) or ``super().visit_X(node)`` (mutator) to recurse.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any, ClassVar

from .. import records
from ..codecache import compiled
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
    copier = _COPIERS.get(cls)
    if copier is None:
        copier = _COPIERS[cls] = _compile_copier(cls)
    return copier(node, changes)


def _compile_copier(cls: type) -> Callable[[Any, dict[str, Any]], Any]:
    """``rebuild`` for one class: a statement per field, compiled once (as ``records``
    compiles ``__init__``), three times faster than a loop over the field names."""
    names = tuple(f.name for f in records.fields(cls))
    assert all(name.isidentifier() for name in names)
    namespace = _storing_namespace(cls, names)
    lines = ["def copier(node, changes):", "    new = new_(cls)"]
    lines += [
        f"    set_{i}(new, changes[{n!r}] if {n!r} in changes else node.{n})"
        for i, n in enumerate(names)
    ]
    lines.append("    return new")
    exec(compiled("\n".join(lines)), namespace)
    copier: Callable[[Any, dict[str, Any]], Any] = namespace["copier"]
    return copier


def _storing_namespace(cls: type, names: tuple[str, ...]) -> dict[str, Any]:
    """The globals of a compiled copier of ``cls``: ``set_<i>(node, value)`` stores field i,
    through its slot's ``__set__`` when it has one (``records.slot_setter``)."""
    namespace: dict[str, Any] = {"new_": object.__new__, "cls": cls}
    for i, name in enumerate(names):
        namespace[f"set_{i}"] = records.slot_setter(cls, name) or partial(_set_field, name)
    return namespace


def _set_field(name: str, node: Any, value: Any) -> None:
    object.__setattr__(node, name, value)


_COPIERS: dict[type, Callable[[Any, dict[str, Any]], Any]] = {}


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

    #: Per mutator class: node class -> the function handling it (see ``_mutator_method``).
    _methods: ClassVar[dict[type, Callable[[Any, Any], Any]]] = {}

    def __init_subclass__(cls) -> None:
        super().__init_subclass__()
        cls._methods = {}

    def __init__(self) -> None:
        self.var_map: dict[Var, Var] = {}

    def mutate(self, node: Any) -> Any:
        try:
            method = self._methods[type(node)]
        except KeyError:
            method = self._methods[type(node)] = _mutator_method(type(self), type(node))
        return method(self, node)

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
        """``node`` with every child mutated, rebuilt only when a child changed."""
        cls = type(node)
        rebuilder = _REBUILDERS.get(cls)
        if rebuilder is None:
            rebuilder = _REBUILDERS[cls] = _compile_rebuilder(cls)
        return rebuilder(self, node)


#: isinstance against a tuple of classes is several times cheaper than against a union.
_NODE_CLASSES: tuple[type, ...] = (Expr, Stmt, Function)


def _mutator_method(mutator: type[IRMutator], node: type) -> Callable[[Any, Any], Any]:
    """What handles a node class in a mutator class: its ``mutate_<NodeClass>``, else
    ``generic_mutate``'s compiled rebuilder (nothing for a node without children), looked up
    once per pair of classes instead of building the name on every node."""
    method = getattr(mutator, "mutate_" + node.__name__, None)
    if method is not None:
        return method  # type: ignore[no-any-return]
    if not layout(node).names:
        return _unchanged
    if mutator.generic_mutate is not IRMutator.generic_mutate:
        return mutator.generic_mutate
    rebuilder = _REBUILDERS.get(node)
    if rebuilder is None:
        rebuilder = _REBUILDERS[node] = _compile_rebuilder(node)
    return rebuilder


def _compile_rebuilder(cls: type) -> Callable[[IRMutator, Any], Any]:
    """``generic_mutate`` for one node class: a block per child field, compiled once (as
    ``_compile_copier``), instead of a loop reading the field names and ``getattr`` per node.
    A tuple field gets a new tuple only when one of its items changes; a changed node is
    built field by field, without a dictionary of changes."""
    children = layout(cls).names
    names = tuple(f.name for f in records.fields(cls))
    assert all(name.isidentifier() for name in names)
    lines = ["def rebuilder(self, node):", "    mutate = self.mutate", "    changed = False"]
    for name in children:
        lines += [
            f"    old = node.{name}",
            f"    v_{name} = old",
            "    if old is not None:",
            "        if type(old) is tuple:",
            "            for i, item in enumerate(old):",
            "                new_item = mutate(item)",
            "                if new_item is not item:",
            f"                    v_{name} = (*old[:i], new_item,"
            " *[mutate(v) for v in old[i + 1 :]])",
            "                    changed = True",
            "                    break",
            "        else:",
            f"            v_{name} = mutate(old)",
            f"            if v_{name} is not old:",
            "                changed = True",
        ]
    namespace = _storing_namespace(cls, names)
    lines += ["    if not changed:", "        return node", "    new = new_(cls)"]
    for i, name in enumerate(names):
        value = f"v_{name}" if name in children else f"node.{name}"
        lines.append(f"    set_{i}(new, {value})")
    lines.append("    return new")
    exec(compiled("\n".join(lines)), namespace)
    rebuilder: Callable[[IRMutator, Any], Any] = namespace["rebuilder"]
    return rebuilder


_REBUILDERS: dict[type, Callable[[IRMutator, Any], Any]] = {}


def _unchanged(_mutator: IRMutator, node: Any) -> Any:
    return node


def with_fields(node: Any, **changes: Any) -> Any:
    """``records.replace`` for IR nodes and types, several times cheaper (passes call it
    for every node they rewrite): ``rebuild``, one call shallower."""
    copier = _COPIERS.get(type(node))
    if copier is None:
        copier = _COPIERS[type(node)] = _compile_copier(type(node))
    return copier(node, changes)
