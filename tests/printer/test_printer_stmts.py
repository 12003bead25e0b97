"""Statements and control flow, printed by ``print_stmt``."""

from __future__ import annotations

from collections.abc import Iterator

import black
import pytest
from ir_builder import INDEX, binary, call, f, fn_call, i, scalar, tensor_t, var
from printer_ir import registered, sample_ops

from ptoc.ir import (
    UNKNOWN,
    AssignStmt,
    BinaryOp,
    EvalStmt,
    ForKind,
    ForStmt,
    IfStmt,
    IterArg,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    TupleGetItem,
    TupleType,
    Var,
    WhileStmt,
    YieldStmt,
)
from ptoc.printer import print_stmt

B = BinaryOp
T = tensor_t(64, 128)
a, b, n = scalar("a"), scalar("b"), scalar("n")
t, u = var("t", T), var("u", T)


@pytest.fixture(autouse=True)
def ops() -> Iterator[None]:
    with registered(sample_ops()):
        yield


def seq(*stmts: Stmt) -> SeqStmts:
    return SeqStmts(stmts)


def iter_arg(name: str, init: Var) -> IterArg:
    return IterArg(init.type, name=name, init_value=init)


def check(stmt: Stmt, expected: str, prefix: str = "pl") -> None:
    text = print_stmt(stmt, prefix=prefix)
    assert text == expected
    assert black.format_str(text, mode=black.Mode()) == text


# --- simple statements ---------------------------------------------------------------------


def test_assignment_is_annotated() -> None:
    check(
        AssignStmt(var("x", INDEX), binary(B.Add, a, i(1))),
        "x: pl.Scalar[pl.INT64] = a + 1\n",
    )


def test_assignment_of_an_op_call() -> None:
    check(
        AssignStmt(var("c", T), call("block.add", t, u, type_=T)),
        "c: pl.Tensor[[64, 128], pl.FP32] = pl.block.add(t, u)\n",
    )


def test_value_without_a_type_is_assigned_unannotated() -> None:
    check(AssignStmt(var("s", UNKNOWN), call("system.bar_v")), "s = pl.system.bar_v()\n")


def test_tuple_value_then_items() -> None:
    pair = TupleType((T, INDEX))
    tmp = var("_t", pair)
    stmt = seq(
        AssignStmt(tmp, fn_call("split", t, type_=pair)),
        AssignStmt(var("x", T), TupleGetItem(T, tuple_value=tmp, index=0)),
        AssignStmt(var("k", INDEX), TupleGetItem(INDEX, tuple_value=tmp, index=1)),
    )
    check(
        stmt,
        "_t: tuple[pl.Tensor[[64, 128], pl.FP32], pl.Scalar[pl.INT64]] = self.split(t)\n"
        "x: pl.Tensor[[64, 128], pl.FP32] = _t[0]\n"
        "k: pl.Scalar[pl.INT64] = _t[1]\n",
    )


def test_evaluation_statement() -> None:
    check(EvalStmt(call("system.bar_all")), "pl.system.bar_all()\n")


@pytest.mark.parametrize(
    ("values", "text"),
    [((), "return\n"), ((a,), "return a\n"), ((a, t), "return a, t\n")],
)
def test_return(values: tuple[Var, ...], text: str) -> None:
    check(ReturnStmt(values=values), text)


def test_long_statement_is_wrapped_by_black() -> None:
    long_call = call("block.add", call("block.add", t, u), call("block.add", u, t), type_=T)
    check(
        AssignStmt(var("result_with_a_long_name", T), long_call),
        "result_with_a_long_name: pl.Tensor[[64, 128], pl.FP32] = pl.block.add(\n"
        "    pl.block.add(t, u), pl.block.add(u, t)\n"
        ")\n",
    )


def test_line_length_is_configurable() -> None:
    stmt = AssignStmt(var("c", T), call("block.add", t, u, type_=T))
    text = print_stmt(stmt, line_length=40)
    assert text == "c: pl.Tensor[[64, 128], pl.FP32] = (\n    pl.block.add(t, u)\n)\n"
    assert black.format_str(text, mode=black.Mode(line_length=40)) == text
    assert print_stmt(stmt) == "c: pl.Tensor[[64, 128], pl.FP32] = pl.block.add(t, u)\n"


def test_prefix() -> None:
    check(
        AssignStmt(var("x", INDEX), call("block.add", a, i(1, INDEX.dtype))),
        "x: pi.Scalar[pi.INT64] = pi.block.add(a, 1)\n",
        prefix="pi",
    )


# --- if ------------------------------------------------------------------------------------


def test_if_else_without_results() -> None:
    stmt = IfStmt(
        binary(B.Gt, a, i(0)),
        EvalStmt(call("system.bar_v")),
        EvalStmt(call("system.bar_m")),
    )
    check(stmt, "if a > 0:\n    pl.system.bar_v()\nelse:\n    pl.system.bar_m()\n")


def test_if_with_one_result_yields_into_an_annotated_variable() -> None:
    r = var("r", INDEX)
    stmt = IfStmt(
        binary(B.Lt, a, b),
        YieldStmt(values=(binary(B.Mul, a, i(2)),)),
        YieldStmt(values=(b,)),
        return_vars=(r,),
    )
    check(
        stmt,
        "if a < b:\n"
        "    r: pl.Scalar[pl.INT64] = pl.yield_(a * 2)\n"
        "else:\n"
        "    r: pl.Scalar[pl.INT64] = pl.yield_(b)\n",
    )


def test_if_with_several_results_unpacks_without_annotations() -> None:
    r1, r2 = var("r1", T), var("r2", INDEX)
    then = seq(
        AssignStmt(var("s", T), call("block.add", t, u, type_=T)),
        YieldStmt(values=(var("s", T), a)),
    )
    stmt = IfStmt(binary(B.Eq, a, i(1)), then, YieldStmt(values=(t, b)), return_vars=(r1, r2))
    check(
        stmt,
        "if a == 1:\n"
        "    s: pl.Tensor[[64, 128], pl.FP32] = pl.block.add(t, u)\n"
        "    r1, r2 = pl.yield_(s, a)\n"
        "else:\n"
        "    r1, r2 = pl.yield_(t, b)\n",
    )


def test_if_without_else() -> None:
    stmt = IfStmt(binary(B.Ne, a, b), YieldStmt(values=(a,)), return_vars=(var("r", INDEX),))
    check(stmt, "if a != b:\n    r: pl.Scalar[pl.INT64] = pl.yield_(a)\n")


def test_empty_branches_print_pass() -> None:
    stmt = IfStmt(binary(B.Gt, a, b), seq(), seq())
    check(stmt, "if a > b:\n    pass\nelse:\n    pass\n")


def test_nested_if_in_else_is_not_turned_into_elif() -> None:
    inner = IfStmt(binary(B.Gt, b, i(0)), EvalStmt(call("system.bar_v")))
    stmt = IfStmt(binary(B.Gt, a, i(0)), EvalStmt(call("system.bar_m")), inner)
    check(
        stmt,
        "if a > 0:\n    pl.system.bar_m()\nelse:\n    if b > 0:\n        pl.system.bar_v()\n",
    )


# --- for -----------------------------------------------------------------------------------


def test_for_range_always_has_three_bounds() -> None:
    loop_var = var("i", INDEX)
    body = AssignStmt(var("x", INDEX), binary(B.Mul, loop_var, i(32)))
    check(
        ForStmt(loop_var, i(0), n, i(1), body),
        "for i in pl.range(0, n, 1):\n    x: pl.Scalar[pl.INT64] = i * 32\n",
    )


def test_parallel_for() -> None:
    loop_var = var("k", INDEX)
    stmt = ForStmt(
        loop_var, i(2), i(16), i(2), EvalStmt(call("system.bar_v")), kind=ForKind.Parallel
    )
    check(stmt, "for k in pl.parallel(2, 16, 2):\n    pl.system.bar_v()\n")


def test_for_with_empty_body() -> None:
    check(
        ForStmt(var("i", INDEX), i(0), i(4), i(1), seq()), "for i in pl.range(0, 4, 1):\n    pass\n"
    )


def test_for_with_one_iter_arg() -> None:
    loop_var, acc = var("i", INDEX), iter_arg("acc", a)
    body = YieldStmt(values=(binary(B.Add, acc, loop_var),))
    stmt = ForStmt(
        loop_var, i(0), i(10), i(1), body, iter_args=(acc,), return_vars=(var("total", INDEX),)
    )
    check(
        stmt,
        "for i, (acc,) in pl.range(0, 10, 1, init_values=(a,)):\n"
        "    total: pl.Scalar[pl.INT64] = pl.yield_(acc + i)\n",
    )


def test_for_with_several_iter_args() -> None:
    loop_var = var("i", INDEX)
    acc, tile_acc = iter_arg("acc", a), iter_arg("o", t)
    body = seq(
        AssignStmt(var("o2", T), call("block.add", tile_acc, u, type_=T)),
        YieldStmt(values=(binary(B.Add, acc, i(1)), var("o2", T))),
    )
    stmt = ForStmt(
        loop_var,
        i(0),
        n,
        i(1),
        body,
        iter_args=(acc, tile_acc),
        return_vars=(var("acc_out", INDEX), var("o_out", T)),
        kind=ForKind.Parallel,
    )
    check(
        stmt,
        "for i, (acc, o) in pl.parallel(0, n, 1, init_values=(a, t)):\n"
        "    o2: pl.Tensor[[64, 128], pl.FP32] = pl.block.add(o, u)\n"
        "    acc_out, o_out = pl.yield_(acc + 1, o2)\n",
    )


def test_yields_belong_to_the_innermost_construct() -> None:
    """An if inside a loop yields into the if's variable; the loop's own yield, after it,
    into the loop's; a scope is transparent."""
    loop_var, acc = var("i", INDEX), iter_arg("acc", a)
    picked = var("picked", INDEX)
    branch = IfStmt(
        binary(B.Gt, loop_var, i(4)),
        YieldStmt(values=(loop_var,)),
        YieldStmt(values=(i(0),)),
        return_vars=(picked,),
    )
    body = seq(branch, ScopeStmt(YieldStmt(values=(binary(B.Add, acc, picked),))))
    stmt = ForStmt(
        loop_var, i(0), i(8), i(1), body, iter_args=(acc,), return_vars=(var("out", INDEX),)
    )
    check(
        stmt,
        "for i, (acc,) in pl.range(0, 8, 1, init_values=(a,)):\n"
        "    if i > 4:\n"
        "        picked: pl.Scalar[pl.INT64] = pl.yield_(i)\n"
        "    else:\n"
        "        picked: pl.Scalar[pl.INT64] = pl.yield_(0)\n"
        "    with pl.incore():\n"
        "        out: pl.Scalar[pl.INT64] = pl.yield_(acc + picked)\n",
    )


def test_yield_outside_any_construct() -> None:
    check(YieldStmt(values=(a, b)), "pl.yield_(a, b)\n")
    check(YieldStmt(), "pass\n")


# --- while ---------------------------------------------------------------------------------


def test_while_with_iter_args_uses_while_and_cond() -> None:
    x, y = iter_arg("x", a), iter_arg("y", f(0.0))
    body = YieldStmt(values=(binary(B.Add, x, i(1)), binary(B.Mul, y, f(2.0))))
    stmt = WhileStmt(
        binary(B.Lt, x, n),
        body,
        iter_args=(x, y),
        return_vars=(var("x_out", INDEX), var("y_out", y.type)),
    )
    # black drops the redundant parentheses of a tuple target: (x, y) -> x, y
    check(
        stmt,
        "for x, y in pl.while_(init_values=(a, 0.0)):\n"
        "    pl.cond(x < n)\n"
        "    x_out, y_out = pl.yield_(x + 1, y * 2.0)\n",
    )


def test_while_with_one_iter_arg() -> None:
    x = iter_arg("x", a)
    stmt = WhileStmt(
        binary(B.Lt, x, i(100)),
        YieldStmt(values=(binary(B.Mul, x, i(2)),)),
        iter_args=(x,),
        return_vars=(var("x_out", INDEX),),
    )
    check(
        stmt,
        "for (x,) in pl.while_(init_values=(a,)):\n"
        "    pl.cond(x < 100)\n"
        "    x_out: pl.Scalar[pl.INT64] = pl.yield_(x * 2)\n",
    )


def test_natural_while() -> None:
    stmt = WhileStmt(binary(B.Lt, a, b), AssignStmt(var("a", INDEX), binary(B.Add, a, i(1))))
    check(stmt, "while a < b:\n    a: pl.Scalar[pl.INT64] = a + 1\n")


def test_natural_while_with_empty_body() -> None:
    check(WhileStmt(binary(B.Lt, a, b), seq()), "while a < b:\n    pass\n")


# --- scope ---------------------------------------------------------------------------------


def test_incore_scope() -> None:
    body = seq(
        AssignStmt(var("c", T), call("block.add", t, u, type_=T)),
        EvalStmt(call("system.bar_all")),
    )
    check(
        ScopeStmt(body),
        "with pl.incore():\n"
        "    c: pl.Tensor[[64, 128], pl.FP32] = pl.block.add(t, u)\n"
        "    pl.system.bar_all()\n",
    )
    check(ScopeStmt(seq()), "with pi.incore():\n    pass\n", prefix="pi")


def test_empty_sequence_is_pass() -> None:
    check(seq(), "pass\n")
