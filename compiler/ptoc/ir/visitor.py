"""IRVisitor walks the IR; IRMutator rebuilds it, sharing every unchanged subtree.

Dispatch is by node class name: override ``visit_Call``, ``visit_ForStmt``, ... and call
``self.generic_visit(node)`` (visitor) or ``super().visit_X(node)`` (mutator) to recurse.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .expr import (
    Binary,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    IterArg,
    MakeTuple,
    TupleGetItem,
    Unary,
    Var,
)
from .function import Function, Program
from .stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)

Node = Expr | Stmt | Function | Program


def children(node: Node) -> list[Node]:
    """Direct children in evaluation / definition order (the order equality walks them)."""
    match node:
        case IterArg():
            return [node.init_value] if node.init_value is not None else []
        case Var() | ConstInt() | ConstFloat() | ConstBool():
            return []
        case Binary():
            return [node.lhs, node.rhs]
        case Unary():
            return [node.operand]
        case Call():
            return list(node.args)
        case MakeTuple():
            return list(node.elements)
        case TupleGetItem():
            return [node.tuple_value]
        case AssignStmt():
            return [node.value, node.var]
        case EvalStmt():
            return [node.expr]
        case SeqStmts():
            return list(node.stmts)
        case YieldStmt() | ReturnStmt():
            return list(node.values)
        case IfStmt():
            out: list[Node] = [node.condition, node.then_body]
            if node.else_body is not None:
                out.append(node.else_body)
            return out + list(node.return_vars)
        case ForStmt():
            return [
                node.start,
                node.stop,
                node.step,
                node.loop_var,
                *node.iter_args,
                node.body,
                *node.return_vars,
            ]
        case WhileStmt():
            return [*node.iter_args, node.condition, node.body, *node.return_vars]
        case ScopeStmt():
            return [node.body]
        case Function():
            return [*node.params, node.body]
        case Program():
            return list(node.functions)
    raise TypeError(f"not an IR node: {type(node).__name__}")


_NOT_CHILDREN = frozenset(("span", "type", "callee", "kwargs", "op", "index", "name", "kind"))
_CHILD_FIELDS: dict[type, tuple[str, ...]] = {}
_ALL_FIELDS: dict[type, tuple[str, ...]] = {}


def _child_fields(cls: type) -> tuple[str, ...]:
    """Fields of a node class that may hold child nodes (cached: the mutator is hot)."""
    names = _CHILD_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls) if f.name not in _NOT_CHILDREN)
        _CHILD_FIELDS[cls] = names
    return names


def rebuild(node: Any, changes: dict[str, Any]) -> Any:
    """A copy of a frozen node with some fields replaced, without re-running ``__init__``
    (``dataclasses.replace`` costs several times more and the mutator calls it per node)."""
    cls = type(node)
    names = _ALL_FIELDS.get(cls)
    if names is None:
        names = tuple(f.name for f in dataclasses.fields(cls))
        _ALL_FIELDS[cls] = names
    new = object.__new__(cls)
    for name in names:
        object.__setattr__(new, name, changes[name] if name in changes else getattr(node, name))
    return new


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
        new = dataclasses.replace(var, init_value=init)
        self.var_map[var] = new
        return new

    def generic_mutate(self, node: Any) -> Any:
        changes: dict[str, Any] | None = None
        mutate = self.mutate
        for name in _child_fields(type(node)):
            value = getattr(node, name)
            if isinstance(value, _NODE_CLASSES):
                new_value = mutate(value)
            elif isinstance(value, tuple) and value and isinstance(value[0], _NODE_CLASSES):
                items = [mutate(v) for v in value]
                new_value = value
                for a, b in zip(items, value):  # noqa: B905 (same length by construction)
                    if a is not b:
                        new_value = tuple(items)
                        break
            else:
                continue
            if new_value is not value:
                if changes is None:
                    changes = {}
                changes[name] = new_value
        return rebuild(node, changes) if changes else node


#: isinstance against a tuple of classes is several times cheaper than against a union.
_NODE_CLASSES = (Expr, Stmt, Function)
_MUTATOR_METHODS: dict[tuple[type, type], Any] = {}


def _mutator_method(mutator: type, node: type) -> Any:
    """A mutator class's ``mutate_<NodeClass>`` function (None if it has none), looked up once
    per pair of classes instead of building the name on every node."""
    key = (mutator, node)
    try:
        return _MUTATOR_METHODS[key]
    except KeyError:
        method = getattr(mutator, "mutate_" + node.__name__, None)
        if method is None and node in _LEAVES:
            method = _unchanged
        _MUTATOR_METHODS[key] = method
        return method


#: Nodes without children: a mutator that does not override them returns them as they are.
_LEAVES = frozenset((ConstInt, ConstFloat, ConstBool))


def _unchanged(_mutator: IRMutator, node: Any) -> Any:
    return node


def with_fields(node: Any, **changes: Any) -> Any:
    """``dataclasses.replace`` for IR nodes and types, several times cheaper (passes call it
    for every node they rewrite)."""
    return rebuild(node, changes)
