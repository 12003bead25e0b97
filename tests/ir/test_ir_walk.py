"""The walkers of ``ptoc.ir.walk`` read each node's declared roles; a node class they have
never heard of (``Repeat`` below) is walked, mutated and compared without changing them."""

from __future__ import annotations

from ir_builder import (
    BOOL,
    INDEX,
    add,
    assign,
    call,
    for_,
    function,
    i,
    if_,
    ints,
    iter_arg,
    lt,
    ret,
    scalar,
    scope,
    seq,
    while_,
    yield_,
)

from ptoc.ir import Expr, IRMutator, Stmt, Var, structural_equal, structural_hash
from ptoc.ir.fields import BINDS, BODY, OPERAND, declare
from ptoc.ir.walk import (
    bodies,
    conditions,
    contains_call,
    defined_vars,
    direct_exprs,
    expr_vars,
    stmt_binds,
    stmt_definitions,
    stmt_defs,
    stmt_reads,
    walk_stmts,
)
from ptoc.records import record


@record(frozen=True, slots=True, eq=False)
class Repeat(Stmt):
    """A toy loop: run ``body`` ``count`` times with ``index`` counting."""

    count: Expr
    index: Var
    body: Stmt

    CHILDREN = declare(count=OPERAND, index=BINDS, body=BODY)


def test_expression_variables_in_evaluation_order_without_initial_values() -> None:
    a, b = scalar("a"), scalar("b")
    carried = iter_arg("acc", INDEX, scalar("init"))
    expr = add(call("op", b, ints(a, carried)), a)
    assert [v.name for v in expr_vars(expr)] == ["b", "a", "acc", "a"]
    assert contains_call(expr)
    assert not contains_call(add(a, b))


def loops() -> tuple[Stmt, dict[str, Var]]:
    n, k, init, out, done = (scalar(name) for name in ("n", "k", "init", "out", "done"))
    acc = iter_arg("acc", INDEX, add(init, i(1)))
    step = assign("next", add(acc, k))
    loop = for_(k, n, step, yield_(step.var), carry=[acc], results=[out])
    flag = iter_arg("flag", BOOL, lt(out, n))
    spin = while_(flag, assign("again", lt(out, n)), carry=[flag], results=[done])
    names = {"n": n, "k": k, "init": init, "out": out, "acc": acc, "flag": flag, "done": done}
    return seq(loop, spin), names


def test_what_a_statement_reads_defines_and_nests() -> None:
    body, v = loops()
    loop, spin = body.stmts  # type: ignore[attr-defined]
    assert direct_exprs(loop) == [loop.start, loop.stop, loop.step, v["acc"].init_value]
    assert direct_exprs(spin) == [v["flag"].init_value]
    assert conditions(loop) == []
    assert conditions(spin) == [v["flag"]]
    assert stmt_binds(loop) == [v["k"], v["acc"]]
    assert stmt_defs(loop) == [v["out"]]
    assert bodies(loop) == [loop.body]
    assert [type(s).__name__ for s in walk_stmts(body)] == [
        "SeqStmts",
        "ForStmt",
        "SeqStmts",
        "AssignStmt",
        "YieldStmt",
        "WhileStmt",
        "SeqStmts",
        "AssignStmt",
    ]


def test_reads_include_initial_values_and_conditions_in_order() -> None:
    body, _ = loops()
    assert [v.name for v in stmt_reads(body)] == [
        "n",  # the for loop's stop
        "init",  # acc's initial value
        "acc",
        "k",
        "next",  # the yield
        "out",  # flag's initial value
        "n",
        "flag",  # the while condition
        "out",
        "n",
    ]


def test_definitions_in_order_with_their_statement() -> None:
    body, _ = loops()
    fn = function("f", [scalar("n")], body)
    defs = [(var.name, type(stmt).__name__ if stmt else None) for var, stmt in defined_vars(fn)]
    assert defs == [
        ("n", None),
        ("k", "ForStmt"),
        ("acc", "ForStmt"),
        ("next", "AssignStmt"),
        ("out", "ForStmt"),
        ("flag", "WhileStmt"),
        ("again", "AssignStmt"),
        ("done", "WhileStmt"),
    ]
    assert [v.name for v in stmt_definitions(body)] == [name for name, _ in defs[1:]]


def test_if_results_follow_both_branches() -> None:
    c, r = scalar("c", BOOL.dtype), scalar("r")
    branch = if_(c, assign("a", i(1)), assign("b", i(2)), results=[r])
    assert stmt_definitions(branch)[-1] is r
    assert [v.name for v in stmt_definitions(branch)] == ["a", "b", "r"]
    assert direct_exprs(branch) == [c]


def test_a_new_node_is_walked_from_its_declaration_alone() -> None:
    n, k = scalar("n"), scalar("k")
    inner = assign("x", add(k, n))
    node = Repeat(add(n, i(1)), k, seq(scope(inner), ret(inner.var)))
    assert [v.name for v in stmt_reads(node)] == ["n", "k", "n", "x"]
    assert direct_exprs(node) == [node.count]
    assert stmt_binds(node) == [k]
    assert [v.name for v in stmt_definitions(node)] == ["k", "x"]
    assert inner in list(walk_stmts(node))

    renamed = scalar("m")
    mutator = IRMutator()
    mutator.var_map[n] = renamed
    new = mutator.mutate_stmt(node)
    assert isinstance(new, Repeat)
    assert [v.name for v in stmt_reads(new)] == ["m", "k", "m", "x"]
    assert new.index is k  # unchanged children are shared, not copied

    twin_n, twin_k = scalar("n"), scalar("k")
    twin_inner = assign("x", add(twin_k, twin_n))
    twin = Repeat(add(twin_n, i(1)), twin_k, seq(scope(twin_inner), ret(twin_inner.var)))
    assert structural_equal(node, twin)
    assert structural_hash(node) == structural_hash(twin)
    assert not structural_equal(node, new)
