"""Every IR node declares its child fields once (``CHILDREN``); these tests hold the
declarations to the dataclass fields and pin the order ``children`` derives from them."""

from __future__ import annotations

import re

import pytest
from ir_builder import (
    INDEX,
    add,
    assign,
    for_,
    function,
    i,
    if_,
    ints,
    scalar,
    scope,
    tile,
    while_,
)

from ptoc import records
from ptoc.ir import Binary, Call, Expr, Function, IterArg, Program, Stmt, WhileStmt, children
from ptoc.ir import expr as expr_module
from ptoc.ir import stmt as stmt_module
from ptoc.ir.fields import BODY, OPERAND, Role, declare, layout


def node_classes() -> list[type]:
    """Every concrete node class of the IR modules."""
    found: list[type] = [Function, Program]
    for module in (expr_module, stmt_module):
        for value in vars(module).values():
            if isinstance(value, type) and issubclass(value, Expr | Stmt):
                if value.__module__ == module.__name__:
                    found.append(value)
    return found


def holds_nodes(annotation: str) -> bool:
    """Whether a field's annotation admits IR nodes (a Type, a name or an enum does not)."""
    return re.search(r"\b(Expr|Var|IterArg|Stmt|Function)\b", annotation) is not None


@pytest.mark.parametrize("cls", node_classes(), ids=lambda c: c.__name__)
def test_every_field_holding_nodes_is_declared_and_nothing_else(cls: type) -> None:
    hints = {f.name: str(f.type) for f in records.fields(cls)}
    holding = {name for name, annotation in hints.items() if holds_nodes(annotation)}
    declared = {name for name, _ in cls.CHILDREN}
    assert declared == holding - {"type"}


@pytest.mark.parametrize("cls", node_classes(), ids=lambda c: c.__name__)
def test_every_role_is_a_role(cls: type) -> None:
    assert all(isinstance(role, Role) for _, role in cls.CHILDREN)


def test_a_declaration_keeps_keyword_order() -> None:
    assert declare(b=OPERAND, a=BODY) == (("b", OPERAND), ("a", BODY))


def test_the_layout_splits_fields_by_role() -> None:
    loop = layout(stmt_module.ForStmt)
    assert loop.names == ("start", "stop", "step", "loop_var", "iter_args", "body", "return_vars")
    assert loop.operands == ("start", "stop", "step")
    assert loop.binds == ("loop_var", "iter_args")
    assert loop.bodies == ("body",)
    assert loop.results == ("return_vars",)
    assert loop.attributes == ("kind", "stage")
    assert loop.scopes == (
        ("loop_var", False),
        ("iter_args", False),
        ("body", True),
        ("return_vars", False),
    )
    assert layout(WhileStmt).conditions == ("condition",)
    assert layout(Call).attributes == ("callee", "kwargs")
    assert layout(Binary).attributes == ("op",)
    assert layout(Function).attributes == (
        "name",
        "return_types",
        "func_type",
        "param_directions",
        "level",
        "role",
    )


def test_declaring_a_field_the_class_lacks_is_an_error() -> None:
    @records.record(frozen=True, slots=True, eq=False)
    class Broken(Stmt):
        body: Stmt
        CHILDREN = declare(bodies=BODY)

    with pytest.raises(
        TypeError, match=r"Broken declares children it has no field for: \['bodies'\]"
    ):
        layout(Broken)


def test_children_come_in_evaluation_order() -> None:
    n = scalar("n")
    i_ = scalar("i")
    acc = IterArg(INDEX, name="acc", init_value=n)
    out = scalar("out")
    body = assign("next", add(acc, i_))
    loop = for_(i_, n, body, start=1, carry=[acc], results=[out])
    assert children(loop) == [loop.start, loop.stop, loop.step, i_, acc, loop.body, out]
    assert children(acc) == [n]
    assert children(body) == [body.value, body.var]

    cond = scalar("c")
    spin = while_(cond, body, carry=[acc], results=[out])
    assert children(spin) == [acc, cond, spin.body, out]

    branch = if_(cond, body)
    assert children(branch) == [cond, branch.then_body]  # no else: nothing for it

    kept = scope(body)
    assert children(kept) == [kept.body]
    t = tile(16, 16, name="t")
    fn = function("f", [t], kept)
    assert children(fn) == [t, fn.body]
    pair = ints(1, n)
    assert children(pair) == [pair.elements[0], n]
    assert children(i(3)) == []


def test_children_of_something_else_is_an_error() -> None:
    with pytest.raises(TypeError, match="not an IR node: int"):
        children(3)  # type: ignore[arg-type]
