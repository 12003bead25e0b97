"""Walkers over the IR, derived from each node class's child-field roles (``ptoc.ir.fields``):
what a statement reads, what it defines, which statements it nests. None of them names a
node class beyond ``Var`` and ``Call``, so a new node needs no change here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..codecache import compiled
from .expr import Call, Expr, Var
from .fields import BINDS, CONDITION, OPERAND, RESULT, field_nodes, layout
from .function import Function
from .stmt import Stmt


def _spread(value: Any) -> tuple[Any, ...]:
    """A field's nodes: a tuple as it is, one node alone, ``None`` as nothing."""
    if type(value) is tuple:
        return value
    return () if value is None else (value,)


# --- expressions ---------------------------------------------------------------------------


def expr_vars(expr: Expr) -> list[Var]:
    """Every variable an expression reads, in evaluation order (a loop-carried variable used
    as a value is a use of the variable, not of its initial value)."""
    out: list[Var] = []
    _vars_into(expr, out)
    return out


def _vars_into(expr: Expr, out: list[Var]) -> None:
    _VARS[type(expr)](expr, out)


def contains_call(expr: Expr) -> bool:
    if isinstance(expr, Call):
        return True
    if isinstance(expr, Var):
        return False
    for name in layout(type(expr)).operands:
        value = getattr(expr, name)
        if type(value) is tuple:
            for item in value:
                if contains_call(item):
                    return True
        elif value is not None and contains_call(value):
            return True
    return False


# --- statements ----------------------------------------------------------------------------


def direct_exprs(stmt: Stmt) -> list[Expr]:
    """The expressions a statement itself evaluates once, in order (not those of nested
    bodies): its operands and the initial values of the variables it binds. Loop conditions,
    evaluated again on every iteration, are not listed (see ``conditions``)."""
    out: list[Expr] = []
    for name, role in layout(type(stmt)).fields:
        if role is OPERAND:
            out.extend(_spread(getattr(stmt, name)))
        elif role is BINDS or role is RESULT:
            for var in _spread(getattr(stmt, name)):
                out.extend(field_nodes(var, layout(type(var)).operands))
    return out


def conditions(stmt: Stmt) -> list[Expr]:
    """The expressions a statement evaluates before each run of its body."""
    return field_nodes(stmt, layout(type(stmt)).conditions)


def bodies(stmt: Stmt) -> list[Stmt]:
    """The statements directly nested in ``stmt`` (the bodies it holds), in order."""
    return field_nodes(stmt, layout(type(stmt)).bodies)


def walk_stmts(stmt: Stmt | None) -> list[Stmt]:
    """Every statement in pre-order, nested bodies included."""
    out: list[Stmt] = []
    if stmt is not None:
        _stmts_into(stmt, out)
    return out


def _stmts_into(stmt: Stmt, out: list[Stmt]) -> None:
    _STMTS[type(stmt)](stmt, out)


def stmt_defs(stmt: Stmt) -> list[Var]:
    """Variables a statement binds in its enclosing scope, excluding nested bodies: the target
    of an assignment, or the results of an if / loop."""
    return field_nodes(stmt, layout(type(stmt)).results)


def stmt_binds(stmt: Stmt) -> list[Var]:
    """Variables a statement binds for its own body (a loop variable, carried values)."""
    return field_nodes(stmt, layout(type(stmt)).binds)


def stmt_reads(stmt: Stmt) -> list[Var]:
    """Variables a statement and its nested bodies read, in order, loop conditions included."""
    out: list[Var] = []
    for s in walk_stmts(stmt):
        for name, role in layout(type(s)).fields:
            if role is OPERAND or role is CONDITION:
                for expr in _spread(getattr(s, name)):
                    _vars_into(expr, out)
            elif role is BINDS or role is RESULT:
                for var in _spread(getattr(s, name)):
                    for init in field_nodes(var, layout(type(var)).operands):
                        _vars_into(init, out)
    return out


def defined_vars(fn: Function) -> list[tuple[Var, Stmt | None]]:
    """Every variable the function binds, in definition order, with the statement binding it
    (None for parameters)."""
    out: list[tuple[Var, Stmt | None]] = [(p, None) for p in fn.params]
    _definitions(fn.body, out)
    return out


def stmt_definitions(stmt: Stmt) -> list[Var]:
    """Every variable a statement and its nested bodies bind, in definition order."""
    out: list[tuple[Var, Stmt | None]] = []
    _definitions(stmt, out)
    return [var for var, _ in out]


def _definitions(stmt: Stmt, out: list[tuple[Var, Stmt | None]]) -> None:
    _DEFINITIONS[type(stmt)](stmt, out)


# --- the walkers' per-class steps, compiled -----------------------------------------------------

Step = Callable[[Any, list[Any]], None]


class _Steps(dict[type, Step]):
    """One walker's step for each node class, compiled on first use from the class's layout
    (a statement per field instead of a loop over the field names with ``getattr``)."""

    def __init__(self, lines: Callable[[type], list[str]]) -> None:
        super().__init__()
        self.lines = lines

    def __missing__(self, cls: type) -> Step:
        names = layout(cls).names
        assert all(name.isidentifier() for name in names)
        source = "\n".join(["def step(node, out):", *self.lines(cls), "    pass"])
        namespace: dict[str, Any] = {"steps": self}
        exec(compiled(source), namespace)
        step: Step = namespace["step"]
        self[cls] = step
        return step


def _recurse(name: str) -> list[str]:
    """Lines walking on into the nodes a field holds (one, ``None`` or a tuple)."""
    return [
        f"    value = node.{name}",
        "    if type(value) is tuple:",
        "        for item in value:",
        "            steps[type(item)](item, out)",
        "    elif value is not None:",
        "        steps[type(value)](value, out)",
    ]


def _vars_lines(cls: type) -> list[str]:
    if issubclass(cls, Var):
        return ["    out.append(node)"]
    return [line for name in layout(cls).operands for line in _recurse(name)]


def _stmts_lines(cls: type) -> list[str]:
    return ["    out.append(node)", *(line for n in layout(cls).bodies for line in _recurse(n))]


def _definitions_lines(cls: type) -> list[str]:
    lines = []
    for name, is_body in layout(cls).scopes:
        if is_body:
            lines += _recurse(name)
        else:
            lines += [
                f"    value = node.{name}",
                "    if type(value) is tuple:",
                "        out.extend([(var, node) for var in value])",
                "    elif value is not None:",
                "        out.append((value, node))",
            ]
    return lines


_VARS = _Steps(_vars_lines)
_STMTS = _Steps(_stmts_lines)
_DEFINITIONS = _Steps(_definitions_lines)
