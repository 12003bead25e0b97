"""ConvertToSSA: versioned names, if results and loop-carried values for leaking names."""

from __future__ import annotations

import passes_ir as P

from ptoc.frontend import analyze_source
from ptoc.ir import (
    Binary,
    BinaryOp,
    ForStmt,
    Function,
    IfStmt,
    IterArg,
    ReturnStmt,
    ScopeStmt,
    Var,
    WhileStmt,
    YieldStmt,
    structural_equal,
)
from ptoc.passes import ConvertToSSA, PassContext, PipelineResult, run_pipeline, verify_ssa
from ptoc.printer import print_program


def convert(fn: Function) -> PipelineResult:
    return run_pipeline(P.program(fn), ["ConvertToSSA"])


def converted(fn: Function) -> list[str]:
    result = convert(fn)
    assert result.diagnostics == []
    return P.lines(result.program.functions[0])


def add(a: Var, b: Var) -> P.Call:
    return P.op("block.add", a, b)


def _tiles() -> tuple[Var, P.AssignStmt]:
    x = P.var("x", P.tensor_t(32, 32))
    return x, P.assign("t", P.op("block.load", x, P.ints(0, 0), P.ints(32, 32)))


def test_reassigned_names_get_versions() -> None:
    x, t0 = _tiles()
    t1 = P.assign("t", add(t0.var, t0.var))
    t2 = P.assign("t", add(t1.var, t1.var))
    fn = P.function(
        "k", [x], [t0, t1, t2, ReturnStmt((t2.var,), span=P.span())], returns=[t2.var.type]
    )
    assert converted(fn) == [
        "t = block.load(x, [0, 0], [32, 32])",
        "t_1 = block.add(t, t)",
        "t_2 = block.add(t_1, t_1)",
        "return t_2",
    ]


def test_versions_skip_names_the_function_already_uses() -> None:
    x, t0 = _tiles()
    taken = P.assign("t_1", add(t0.var, t0.var))
    again = P.assign("t", add(taken.var, t0.var))
    fn = P.function("k", [x], [t0, taken, again])
    assert converted(fn) == [
        "t = block.load(x, [0, 0], [32, 32])",
        "t_1 = block.add(t, t)",
        "t_2 = block.add(t_1, t)",
    ]


def test_a_name_assigned_in_one_branch_becomes_an_if_result() -> None:
    x, t0 = _tiles()
    n = P.var("n", P.INDEX)
    t1 = P.assign("t", add(t0.var, t0.var))
    branch = IfStmt(P.gt(n, 0), P.seq(t1), span=P.span())
    use = P.assign("u", add(t1.var, t1.var))  # the front end refers to the branch's t
    fn = P.function("k", [x, n], [t0, branch, use])
    result = convert(fn)
    assert result.diagnostics == []
    assert P.lines(result.program.functions[0]) == [
        "t = block.load(x, [0, 0], [32, 32])",
        "if n > 0 -> t_2:",
        "  t_1 = block.add(t, t)",
        "  yield t_1",
        "else:",
        "  yield t",
        "u = block.add(t_2, t_2)",
    ]
    new_if = result.program.functions[0].body.stmts[1]  # type: ignore[attr-defined]
    # New nodes take the span of the statement they come from.
    assert new_if.return_vars[0].span == branch.span
    assert new_if.else_body.span == branch.span


def test_names_assigned_in_both_branches_merge_without_an_earlier_value() -> None:
    x, t0 = _tiles()
    n = P.var("n", P.INDEX)
    a = P.assign("m", add(t0.var, t0.var))
    b = P.assign("m", P.op("block.mul", t0.var, t0.var))
    branch = IfStmt(P.gt(n, 0), P.seq(a), P.seq(b), span=P.span())
    fn = P.function(
        "k", [x, n], [t0, branch, ReturnStmt((b.var,), span=P.span())], returns=[b.var.type]
    )
    assert converted(fn) == [
        "t = block.load(x, [0, 0], [32, 32])",
        "if n > 0 -> m_2:",
        "  m = block.add(t, t)",
        "  yield m",
        "else:",
        "  m_1 = block.mul(t, t)",
        "  yield m_1",
        "return m_2",
    ]


def test_a_name_from_one_branch_only_gets_an_uninitialised_tile_on_the_other_path() -> None:
    x, t0 = _tiles()
    n = P.var("n", P.INDEX)
    only = P.assign("only", add(t0.var, t0.var))
    branch = IfStmt(P.gt(n, 0), P.seq(only), span=P.span())
    fn = P.function(
        "k", [x, n], [t0, branch, ReturnStmt((only.var,), span=P.span())], returns=[only.var.type]
    )
    result = convert(fn)
    assert result.diagnostics == []
    assert P.lines(result.program.functions[0]) == [
        "t = block.load(x, [0, 0], [32, 32])",
        "only = block.create_tile([32, 32], dtype=FP32, target_memory=Vec)",
        "if n > 0 -> only_2:",
        "  only_1 = block.add(t, t)",
        "  yield only_1",
        "else:",
        "  yield only",
        "return only_2",
    ]
    created = result.program.functions[0].body.stmts[1]  # type: ignore[attr-defined]
    assert created.span == only.span and created.value.span == only.span


def test_a_dynamic_tile_from_one_branch_only_is_an_error_at_its_assignment() -> None:
    x = P.var("x", P.tensor_t(32, 32))
    n = P.var("n", P.INDEX)
    only = P.assign("only", P.op("block.load", x, P.ints(0, 0), P.ints(n, 32)))
    branch = IfStmt(P.gt(n, 0), P.seq(only), span=P.span())
    fn = P.function(
        "k", [x, n], [branch, ReturnStmt((only.var,), span=P.span())], returns=[only.var.type]
    )
    result = convert(fn)
    assert [(d.code, d.message, d.span) for d in result.diagnostics] == [
        (
            "E202",
            "'only' is assigned in only one branch of this if but used after it; assign "
            "it in both branches or before the if",
            only.span,
        ),
    ]


def test_branch_names_not_used_after_the_if_stay_local() -> None:
    x, t0 = _tiles()
    n = P.var("n", P.INDEX)
    t1 = P.assign("t", add(t0.var, t0.var))
    branch = IfStmt(P.gt(n, 0), P.seq(t1), span=P.span())
    fn = P.function("k", [x, n], [t0, branch])
    assert converted(fn) == [
        "t = block.load(x, [0, 0], [32, 32])",
        "if n > 0:",
        "  t_1 = block.add(t, t)",
    ]


def test_a_name_updated_in_a_loop_becomes_loop_carried() -> None:
    fn, loop = P.accumulating_loop()
    result = convert(fn)
    assert result.diagnostics == []
    assert P.lines(result.program.functions[0]) == [
        "acc = block.load(x, [0, 0], [32, 32])",
        "for i in 0..4 carry(acc_1=acc) -> acc_3:",
        "  part = block.load(x, [i * 32, 0], [32, 32])",
        "  acc_2 = block.add(acc_1, part)",
        "  yield acc_2",
        "return acc_3",
    ]
    new_loop = result.program.functions[0].body.stmts[1]  # type: ignore[attr-defined]
    carried = new_loop.iter_args[0]
    assert isinstance(carried, IterArg) and carried.span == loop.span
    assert new_loop.return_vars[0].span == loop.span


def test_a_name_overwritten_each_iteration_and_unused_after_is_not_carried() -> None:
    x, t0 = _tiles()
    i = P.var("i", P.INDEX)
    t1 = P.assign("t", P.op("block.load", x, P.ints(0, 0), P.ints(32, 32)))
    use = P.assign("u", add(t1.var, t1.var))
    loop = ForStmt(i, P.const_int(0), P.const_int(2), P.const_int(1), P.seq(t1, use), span=P.span())
    fn = P.function("k", [x], [t0, loop])
    assert converted(fn) == [
        "t = block.load(x, [0, 0], [32, 32])",
        "for i in 0..2:",
        "  t_1 = block.load(x, [0, 0], [32, 32])",
        "  u = block.add(t_1, t_1)",
    ]


def test_a_store_result_first_assigned_in_a_loop_starts_as_its_tensor() -> None:
    x, out = P.var("x", P.tensor_t(128, 32)), P.var("out", P.tensor_t(128, 32))
    i = P.var("i", P.INDEX)
    t = P.assign("t", P.op("block.load", x, P.ints(P.mul(i, 32), 0), P.ints(32, 32)))
    r = P.assign("r", P.op("block.store", t.var, P.ints(P.mul(i, 32), 0), P.ints(32, 32), out))
    loop = ForStmt(i, P.const_int(0), P.const_int(4), P.const_int(1), P.seq(t, r), span=P.span())
    fn = P.function("k", [x, out], [loop, ReturnStmt((r.var,), span=P.span())], returns=[out.type])
    assert converted(fn) == [
        "for i in 0..4 carry(r=out) -> r_2:",
        "  t = block.load(x, [i * 32, 0], [32, 32])",
        "  r_1 = block.store(t, [i * 32, 0], [32, 32], out)",
        "  yield r_1",
        "return r_2",
    ]


def test_values_first_assigned_in_a_loop_and_used_after_start_undefined() -> None:
    x = P.var("x", P.tensor_t(128, 32))
    i = P.var("i", P.INDEX)
    t = P.assign("t", P.op("block.load", x, P.ints(0, 0), P.ints(32, 32)))
    k = P.assign("k", Binary(P.INDEX, op=BinaryOp.Add, lhs=i, rhs=P.const_int(1), span=P.span()))
    loop = ForStmt(i, P.const_int(0), P.const_int(4), P.const_int(1), P.seq(t, k), span=P.span())
    ret = ReturnStmt((t.var, k.var), span=P.span())
    fn = P.function("k", [x], [loop, ret], returns=[t.var.type, k.var.type])
    # On the path that skips the loop the values are undefined; they start as an
    # uninitialised tile and as zero.
    assert converted(fn) == [
        "t = block.create_tile([32, 32], dtype=FP32, target_memory=Vec)",
        "for i in 0..4 carry(t_1=t, k=0) -> t_3, k_2:",
        "  t_2 = block.load(x, [0, 0], [32, 32])",
        "  k_1 = i + 1",
        "  yield t_2, k_1",
        "return t_3, k_2",
    ]


def test_nested_loops_carry_through_both_levels() -> None:
    x = P.var("x", P.tensor_t(32, 32))
    i, j = P.var("i", P.INDEX), P.var("j", P.INDEX)
    acc0 = P.assign("acc", P.op("block.load", x, P.ints(0, 0), P.ints(32, 32)))
    acc1 = P.assign("acc", P.op("block.exp", acc0.var))
    inner = ForStmt(j, P.const_int(0), P.const_int(2), P.const_int(1), P.seq(acc1), span=P.span())
    outer = ForStmt(i, P.const_int(0), P.const_int(3), P.const_int(1), P.seq(inner), span=P.span())
    fn = P.function(
        "k", [x], [acc0, outer, ReturnStmt((acc1.var,), span=P.span())], returns=[acc1.var.type]
    )
    assert converted(fn) == [
        "acc = block.load(x, [0, 0], [32, 32])",
        "for i in 0..3 carry(acc_1=acc) -> acc_5:",
        "  for j in 0..2 carry(acc_2=acc_1) -> acc_4:",
        "    acc_3 = block.exp(acc_2)",
        "    yield acc_3",
        "  yield acc_4",
        "return acc_5",
    ]


def test_explicit_ssa_input_is_left_alone() -> None:
    fn = P.loop_kernel()
    after = convert(fn).program.functions[0]
    assert structural_equal(after, fn)


def test_a_while_condition_reads_the_carried_value() -> None:
    n = P.var("n", P.INDEX)
    k0 = P.assign("k", P.const_int(0))
    k1 = P.assign(
        "k", Binary(P.INDEX, op=BinaryOp.Add, lhs=k0.var, rhs=P.const_int(1), span=P.span())
    )
    loop = WhileStmt(
        Binary(P.BOOL, op=BinaryOp.Lt, lhs=k0.var, rhs=n, span=P.span()), P.seq(k1), span=P.span()
    )
    fn = P.function("k", [n], [k0, loop, ReturnStmt((k1.var,), span=P.span())], returns=[P.INDEX])
    after = convert(fn)
    assert after.diagnostics == []
    new_loop = after.program.functions[0].body.stmts[1]  # type: ignore[attr-defined]
    assert isinstance(new_loop, WhileStmt)
    carried = new_loop.iter_args[0]
    assert carried.name == "k_1" and carried.init_value.name == "k"  # type: ignore[union-attr]
    assert new_loop.condition.lhs is carried  # type: ignore[attr-defined]
    last = new_loop.body.stmts[-1]  # type: ignore[attr-defined]
    assert isinstance(last, YieldStmt) and last.values[0].name == "k_2"  # type: ignore[attr-defined]
    assert [v.name for v in new_loop.return_vars] == ["k_3"]


def test_the_result_passes_the_ssa_check() -> None:
    fn, _ = P.accumulating_loop()
    ctx = PassContext()
    result = ConvertToSSA().run(P.program(fn), ctx)
    assert ctx.diagnostics.items == []
    assert verify_ssa(result.functions[0], ctx) == 0
    # The input binds `acc` twice, and uses the loop's `acc` after the loop.
    assert verify_ssa(fn, ctx) == 2
    assert [(d.code, d.message) for d in ctx.diagnostics.items] == [
        ("E200", "'acc' is used here but not defined at this point"),
        ("E404", "the name 'acc' is bound to two different values"),
    ]


def test_printed_result_parses_back_under_strict_ssa() -> None:
    analysis = analyze_source(P.LEAKY, "leaky.py")
    assert analysis.diagnostics == []
    result = run_pipeline(analysis.programs[0], ["ConvertToSSA"])
    assert result.diagnostics == []
    text = print_program(result.program)
    strict = text.replace(
        "@pl.function(type=pl.FunctionType.InCore)",
        "@pl.function(type=pl.FunctionType.InCore, strict_ssa=True)",
    )
    assert strict != text
    again = analyze_source(strict, "printed.py")
    assert again.diagnostics == []
    assert structural_equal(again.programs[0], result.program)


def test_names_assigned_in_an_incore_scope_stay_visible_after_it() -> None:
    x, t0 = _tiles()
    t1 = P.assign("t", add(t0.var, t0.var))
    scope = ScopeStmt(P.seq(t1), span=P.span())
    after = P.assign("u", add(t1.var, t0.var))  # `t` here is the scope's t
    fn = P.function("k", [x], [t0, scope, after])
    result = convert(fn)
    assert result.diagnostics == []
    new_scope = result.program.functions[0].body.stmts[1]  # type: ignore[attr-defined]
    assert isinstance(new_scope, ScopeStmt)
    assert P.lines(result.program.functions[0])[2] == "u = block.add(t_1, t_1)"
