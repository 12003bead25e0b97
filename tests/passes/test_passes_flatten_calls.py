"""FlattenCalls: nested calls become statements of their own, in evaluation order."""

from __future__ import annotations

import passes_ir as P

from ptoc.ir import (
    AssignStmt,
    ForStmt,
    Function,
    IfStmt,
    IterArg,
    ReturnStmt,
    Var,
    YieldStmt,
)
from ptoc.passes import FlattenCalls, PassContext, run_pipeline


def flattened(fn: Function) -> Function:
    result = run_pipeline(P.program(fn), ["FlattenCalls", "Verifier"])
    assert result.diagnostics == []
    return result.program.functions[0]


def _tiles() -> tuple[Var, Var, Var]:
    return (
        P.var("a", P.tile_t(16, 16)),
        P.var("b", P.tile_t(16, 16)),
        P.var("c", P.tile_t(16, 16)),
    )


def test_nested_arguments_are_evaluated_first_in_order() -> None:
    a, b, c = _tiles()
    inner = P.op("block.exp", b)
    middle = P.op("block.mul", a, inner)
    other = P.op("block.sqrt", c)
    top = P.assign("r", P.op("block.add", middle, other))
    fn = flattened(P.function("k", [a, b, c], [top]))
    assert P.lines(fn) == [
        "_t0 = block.exp(b)",
        "_t1 = block.mul(a, _t0)",
        "_t2 = block.sqrt(c)",
        "r = block.add(_t1, _t2)",
    ]
    stmts = fn.body.stmts  # type: ignore[attr-defined]
    # A temporary's statement and variable take the span of the call they hold.
    assert [s.span for s in stmts[:3]] == [inner.span, middle.span, other.span]
    assert stmts[0].var.span == inner.span
    assert stmts[3].span == top.span


def test_temporaries_avoid_names_in_use() -> None:
    a, b, _ = _tiles()
    taken = P.assign("_t0", P.op("block.exp", a))
    top = P.assign("r", P.op("block.add", P.op("block.exp", b), taken.var))
    assert P.lines(flattened(P.function("k", [a, b], [taken, top]))) == [
        "_t0 = block.exp(a)",
        "_t1 = block.exp(b)",
        "r = block.add(_t1, _t0)",
    ]


def test_calls_in_conditions_yields_and_returns_are_hoisted() -> None:
    x = P.var("x", P.tensor_t(16, 16))
    a, _, _ = _tiles()
    n = P.var("n", P.INDEX)
    dim = P.op("tensor.dim", x, P.const_int(0))
    cond = P.gt(dim, n)
    picked = P.var("picked", a.type)
    branch = IfStmt(
        cond,
        YieldStmt((P.op("block.exp", a),), span=P.span()),
        YieldStmt((a,), span=P.span()),
        return_vars=(picked,),
        span=P.span(),
    )
    ret = ReturnStmt((P.op("block.sqrt", picked),), span=P.span())
    fn = flattened(P.function("k", [x, a, n], [branch, ret], returns=[a.type]))
    assert P.lines(fn) == [
        "_t0 = tensor.dim(x, 0)",
        "if _t0 > n -> picked:",
        "  _t1 = block.exp(a)",
        "  yield _t1",
        "else:",
        "  yield a",
        "_t2 = block.sqrt(picked)",
        "return _t2",
    ]


def test_loop_bounds_and_initial_values_are_hoisted_before_the_loop() -> None:
    x = P.var("x", P.tensor_t(16, 16))
    a, _, _ = _tiles()
    i = P.var("i", P.INDEX)
    acc = IterArg(a.type, name="acc", init_value=P.op("block.exp", a), span=P.span())
    step = P.assign("step", P.op("block.add", acc, acc))
    result = P.var("result", a.type)
    loop = ForStmt(
        i,
        P.const_int(0),
        P.op("tensor.dim", x, P.const_int(1)),
        P.const_int(1),
        P.seq(step, YieldStmt((step.var,), span=P.span())),
        iter_args=(acc,),
        return_vars=(result,),
        span=P.span(),
    )
    fn = flattened(
        P.function("k", [x, a], [loop, ReturnStmt((result,), span=P.span())], returns=[a.type])
    )
    assert P.lines(fn) == [
        "_t0 = tensor.dim(x, 1)",
        "_t1 = block.exp(a)",
        "for i in 0.._t0 carry(acc=_t1) -> result:",
        "  step = block.add(acc, acc)",
        "  yield step",
        "return result",
    ]
    new_loop = fn.body.stmts[2]  # type: ignore[attr-defined]
    body_add = new_loop.body.stmts[0].value
    # Uses of the rebuilt loop-carried variable follow it.
    assert body_add.args[0] is new_loop.iter_args[0]


def test_a_flat_program_is_returned_unchanged() -> None:
    program = P.program(P.simple_add())
    assert FlattenCalls().run(program, PassContext()) is program


def test_the_verifier_reports_nested_calls() -> None:
    a, b, _ = _tiles()
    top = P.assign("r", P.op("block.add", P.op("block.exp", b), a))
    result = run_pipeline(P.program(P.function("k", [a, b], [top])), ["Verifier"])
    assert [(d.code, d.span) for d in result.diagnostics] == [("E404", top.span)]
    assert isinstance(top, AssignStmt)
