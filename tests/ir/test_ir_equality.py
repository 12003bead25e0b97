"""Structural equality and hashing: children compared in declaration order, variables paired
where they are bound, the other fields (the layout's attributes) compared as values."""

from __future__ import annotations

from ir_builder import (
    INDEX,
    add,
    assign,
    at,
    call,
    for_,
    function,
    i,
    iter_arg,
    mul,
    scalar,
    tile,
    yield_,
)

from ptoc.ir import ForKind, Function, structural_equal, structural_hash
from ptoc.ir.expr import TupleGetItem


def kernel(name: str = "x", op: str = "block.exp", factor: int = 2) -> Function:
    x = tile(16, 16, name=name, span=at(2))
    y = assign("y", call(op, x, type_=x.type, span=at(3)))
    n = scalar("n")
    acc = iter_arg("acc", INDEX, mul(n, factor))
    k = scalar("k")
    loop = for_(k, n, assign("s", add(acc, k)), yield_(acc), carry=[acc], results=[scalar("r")])
    return function("f", [x, n], y, loop)


def test_equal_structures_are_equal_and_hash_alike_whatever_their_spans() -> None:
    a, b = kernel(), kernel()
    assert a is not b
    assert structural_equal(a, b)
    assert structural_hash(a) == structural_hash(b)


def test_names_count_unless_told_otherwise() -> None:
    a, b = kernel("x"), kernel("z")
    assert not structural_equal(a, b)
    assert structural_equal(a, b, names=False)
    assert structural_hash(a, names=False) == structural_hash(b, names=False)


def test_attributes_are_compared() -> None:
    assert not structural_equal(kernel(op="block.exp"), kernel(op="block.log"))
    assert not structural_equal(kernel(factor=2), kernel(factor=3))
    assert structural_hash(kernel(op="block.exp")) != structural_hash(kernel(op="block.log"))
    n = scalar("n")
    pair = call("split", n)
    assert not structural_equal(
        TupleGetItem(INDEX, tuple_value=pair, index=0),
        TupleGetItem(INDEX, tuple_value=pair, index=1),
    )


def test_for_kind_is_an_attribute() -> None:
    k, n = scalar("k"), scalar("n")
    serial = for_(k, n, assign("a", i(1)))
    parallel = for_(k, n, assign("a", i(1)))
    object.__setattr__(parallel, "kind", ForKind.Parallel)
    assert not structural_equal(serial, parallel)


def test_a_variable_bound_once_must_be_the_same_variable_at_every_use() -> None:
    x, y = scalar("x"), scalar("x")
    same = function("f", [x, y], assign("a", add(x, x)))
    crossed = function("f", [x, y], assign("a", add(x, y)))
    assert not structural_equal(same, crossed)
