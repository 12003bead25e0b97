"""Child-field declarations: each IR node class names its child fields once, with their role.

``CHILDREN = declare(start=OPERAND, stop=OPERAND, ..., body=BODY)`` lists the fields that
hold IR nodes, in evaluation / definition order (the order ``children`` returns them and
equality pairs variables in). Everything that walks the IR generically - ``children``, the
mutator, structural equality and hashing, the walkers of ``ptoc.ir.walk`` - reads the
per-class ``Layout`` derived from it, so a new node is described in one place.

A field holds one node, ``None`` (an optional child) or a tuple of nodes.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .. import records
from ..enums import IdentityEnum
from ..records import record


class Role(IdentityEnum):
    """What a child field is to the node that holds it."""

    #: An expression the node evaluates once, before any of its bodies (an argument, a bound).
    OPERAND = "operand"
    #: An expression evaluated again before each run of the body (a while loop's condition).
    CONDITION = "condition"
    #: Variables the node binds for its own body (a loop variable, carried values, parameters).
    #: A binding's own operands (an IterArg's initial value) are evaluated by this node.
    BINDS = "binds"
    #: Variables the node binds for the code after it (an assignment's target, loop results).
    RESULT = "result"
    #: Nested code: statements (or a program's functions).
    BODY = "body"


OPERAND, CONDITION, BINDS = Role.OPERAND, Role.CONDITION, Role.BINDS
RESULT, BODY = Role.RESULT, Role.BODY
#: The roles whose fields hold variables the node defines.
DEFINING = frozenset((Role.BINDS, Role.RESULT))
#: The roles whose fields hold expressions the node reads.
READING = frozenset((Role.OPERAND, Role.CONDITION))

ChildFields = tuple[tuple[str, Role], ...]


def declare(**roles: Role) -> ChildFields:
    """A node class's child fields in evaluation order (keyword order is kept)."""
    return tuple(roles.items())


@record(frozen=True, slots=True)
class Layout:
    """What generic walkers need to know about one node class, derived once per class (the
    per-role tuples spare the hot walkers a test of each field's role)."""

    #: (field name, role) of every child field, in evaluation order.
    fields: ChildFields
    #: Names of the other fields, compared by structural equality as plain values (spans and
    #: type excluded: spans, a node's own and any ``*_span``, are ignored, types are compared
    #: structurally).
    attributes: tuple[str, ...]
    #: Names of the child fields, in order; then of those of each role.
    names: tuple[str, ...] = ()
    operands: tuple[str, ...] = ()
    conditions: tuple[str, ...] = ()
    binds: tuple[str, ...] = ()
    results: tuple[str, ...] = ()
    bodies: tuple[str, ...] = ()
    #: (name, is a body) of the fields holding definitions or bodies, in order.
    scopes: tuple[tuple[str, bool], ...] = ()

    def of_role(self, *roles: Role) -> tuple[str, ...]:
        return tuple(name for name, role in self.fields if role in roles)


class _Layouts(dict[type, Layout]):
    def __missing__(self, cls: type) -> Layout:
        found = self[cls] = _derive(cls)
        return found


_LAYOUTS = _Layouts()
#: The layout of a node class, derived on first use (a plain dict lookup after that: the
#: walkers and the mutator ask for it at every node).
layout: Callable[[type], Layout] = _LAYOUTS.__getitem__


def _derive(cls: type) -> Layout:
    declared: ChildFields = getattr(cls, "CHILDREN", ())
    all_names = tuple(f.name for f in records.fields(cls))
    names = tuple(name for name, _ in declared)
    unknown = [name for name in names if name not in all_names]
    if unknown:
        raise TypeError(f"{cls.__name__} declares children it has no field for: {unknown}")
    attributes = tuple(
        n
        for n in all_names
        if n not in names and n not in ("span", "type") and not n.endswith("_span")
    )
    by_role = {role: tuple(n for n, r in declared if r is role) for role in Role}
    return Layout(
        declared,
        attributes,
        names,
        by_role[Role.OPERAND],
        by_role[Role.CONDITION],
        by_role[Role.BINDS],
        by_role[Role.RESULT],
        by_role[Role.BODY],
        tuple((n, r is Role.BODY) for n, r in declared if r is Role.BODY or r in DEFINING),
    )


def child_values(node: Any) -> list[Any]:
    """The direct children of a node, in declaration order (``None`` skipped, tuples spread)."""
    return field_nodes(node, layout(type(node)).names)


def field_nodes(node: Any, names: tuple[str, ...]) -> list[Any]:
    """The nodes held by the named fields of ``node``, in order."""
    out: list[Any] = []
    for name in names:
        value = getattr(node, name)
        if type(value) is tuple:
            out.extend(value)
        elif value is not None:
            out.append(value)
    return out
