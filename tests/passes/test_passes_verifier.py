"""Verifier: structural invariants, reported with exact codes and spans."""

from __future__ import annotations

import passes_ir as P

from ptoc.ir import ForStmt, Function, IfStmt, IterArg, ReturnStmt, Span, Type, YieldStmt
from ptoc.passes import run_pipeline


def problems(fn: Function) -> list[tuple[str, str, Span]]:
    result = run_pipeline(P.program(fn), ["Verifier"])
    return [(d.code, d.message, d.span) for d in result.diagnostics]


def test_the_three_kernels_are_clean() -> None:
    for make in (P.simple_add, P.loop_kernel, P.if_kernel):
        assert problems(make()) == []


def test_use_before_definition() -> None:
    a = P.var("a", P.tile_t(8, 8))
    later = P.assign("later", P.op("block.exp", a))
    early = P.assign("early", P.op("block.exp", later.var))
    fn = P.function("k", [a], [early, later])
    assert problems(fn) == [
        ("E200", "'later' is used here but not defined at this point", early.span)
    ]


def test_a_loop_body_value_is_not_visible_after_the_loop() -> None:
    a = P.var("a", P.tile_t(8, 8))
    i = P.var("i", P.INDEX)
    inside = P.assign("inside", P.op("block.exp", a))
    loop = ForStmt(i, P.const_int(0), P.const_int(2), P.const_int(1), P.seq(inside), span=P.span())
    ret = ReturnStmt((inside.var,), span=P.span())
    fn = P.function("k", [a], [loop, ret], returns=[a.type])
    assert problems(fn) == [
        ("E200", "'inside' is used here but not defined at this point", ret.span)
    ]


def _if(
    then_n: int, else_n: int, results: int, value_type: Type | None = None
) -> tuple[Function, list[YieldStmt]]:
    """``if n > 0`` yielding ``then_n`` / ``else_n`` copies of a value, with ``results``
    results of the 8x8 tile type."""
    a = P.var("a", P.tile_t(8, 8))
    value = P.var("v", value_type or a.type)
    n = P.var("n", P.INDEX)
    yields = [
        YieldStmt((value,) * then_n, span=P.span()),
        YieldStmt((value,) * else_n, span=P.span()),
    ]
    rvs = tuple(P.var(f"r{k}", a.type) for k in range(results))
    stmt = IfStmt(P.gt(n, 0), yields[0], yields[1], return_vars=rvs, span=P.span())
    return P.function("k", [a, value, n], [stmt]), yields


def test_yield_count_must_match_the_results() -> None:
    fn, yields = _if(2, 1, 1)
    assert problems(fn) == [
        ("E009", "the if branch yields 2 value(s) but 1 are expected", yields[0].span)
    ]


def test_yield_types_must_match_the_results() -> None:
    fn, yields = _if(1, 1, 1, P.tile_t(4, 4))
    assert problems(fn) == [
        (
            "E108",
            "yielded value 1 has type Tile[[4, 4], FP32] but Tile[[8, 8], FP32] is expected",
            yields[0].span,
        ),
        (
            "E108",
            "yielded value 1 has type Tile[[4, 4], FP32] but Tile[[8, 8], FP32] is expected",
            yields[1].span,
        ),
    ]


def test_a_branch_without_yield_when_results_are_expected() -> None:
    a = P.var("a", P.tile_t(8, 8))
    n = P.var("n", P.INDEX)
    step = P.assign("s", P.op("block.exp", a))
    r = P.var("r", a.type)
    stmt = IfStmt(
        P.gt(n, 0),
        P.seq(step, YieldStmt((step.var,), span=P.span())),
        P.seq(step),
        return_vars=(r,),
        span=P.span(),
    )
    fn = P.function("k", [a, n], [stmt])
    assert problems(fn) == [
        ("E010", "the if branch must end with a yield of 1 value(s)", stmt.span)
    ]


def test_loop_carried_types_must_agree() -> None:
    a = P.var("a", P.tile_t(8, 8))
    small = P.var("small", P.tile_t(4, 4))
    i = P.var("i", P.INDEX)
    acc = IterArg(a.type, name="acc", init_value=small, span=P.span())
    r = P.var("r", a.type)
    yield_ = YieldStmt((acc,), span=P.span())
    loop = ForStmt(
        i,
        P.const_int(0),
        P.const_int(2),
        P.const_int(1),
        yield_,
        iter_args=(acc,),
        return_vars=(r,),
        span=P.span(),
    )
    fn = P.function("k", [a, small], [loop])
    assert problems(fn) == [
        (
            "E108",
            "loop-carried 'acc' has type Tile[[8, 8], FP32] but starts as Tile[[4, 4], FP32]",
            loop.span,
        )
    ]


def test_assignment_and_return_types() -> None:
    a = P.var("a", P.tile_t(8, 8))
    bad = P.AssignStmt(P.var("bad", P.tile_t(2, 2)), P.op("block.exp", a), span=P.span())
    ret = ReturnStmt((a,), span=P.span())
    fn = P.function("k", [a], [bad, ret], returns=[P.tile_t(8, 8, dtype=P.FP16)])
    assert problems(fn) == [
        (
            "E404",
            "'bad' has type Tile[[2, 2], FP32] but its value has type Tile[[8, 8], FP32]",
            bad.span,
        ),
        (
            "E107",
            "returned value has type Tile[[8, 8], FP32] but 'k' returns Tile[[8, 8], FP16]",
            ret.span,
        ),
    ]


def test_conditions_must_be_scalars() -> None:
    a = P.var("a", P.tile_t(8, 8))
    stmt = IfStmt(a, P.seq(), span=P.span())
    fn = P.function("k", [a], [stmt])
    assert problems(fn) == [
        ("E110", "the condition must be a scalar, got Tile[[8, 8], FP32]", stmt.span)
    ]


def test_a_symbolic_dimension_needs_no_definition_but_a_local_does() -> None:
    m = P.var("M", P.INDEX)  # pl.dynamic("M"), bound outside the function
    a = P.var("a", P.tile_t(8, 8))
    i = P.var("i", P.INDEX)
    inner = P.assign("inner", P.op("block.exp", a))
    loop = ForStmt(i, P.const_int(0), m, P.const_int(1), P.seq(inner), span=P.span())
    fn = P.function("k", [a], [loop])
    assert problems(fn) == []
    # The same bound, once it is a local of the function, must be defined first.
    local_m = P.assign("M", P.const_int(4))
    late = ForStmt(i, P.const_int(0), local_m.var, P.const_int(1), P.seq(inner), span=P.span())
    fn = P.function("k", [a], [late, local_m])
    assert problems(fn) == [("E200", "'M' is used here but not defined at this point", late.span)]
