"""Loops, conditionals, yields and pointer inheritance through them."""

from __future__ import annotations

from cce_ir import (
    assign,
    body_lines,
    define,
    f32,
    function,
    iter_arg,
    load,
    seq,
    store,
    var,
    yield_,
)
from ir_builder import INDEX, add, i, lt, mul, placed_t, tensor_t

from ptoc.codegen.cce import generate_cce
from ptoc.ir import (
    Binary,
    BinaryOp,
    DataType,
    ForKind,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScalarType,
    WhileStmt,
)

BOOL = ScalarType(DataType.BOOL)


def gen_body(fn: object) -> list[str]:
    result = generate_cce(fn)  # type: ignore[arg-type]
    assert result.diagnostics == []
    return body_lines(result.text)


def test_loop_over_windows_with_a_tensor_iter_arg_inherits_the_output_pointer() -> None:
    x = var("x", tensor_t(128, 64))
    out = var("out", tensor_t(128, 64))
    i_ = var("i", INDEX)
    t = var("t", placed_t(32, 64, addr=0x0))
    u = var("u", placed_t(32, 64, addr=0x2000))
    out_iter = iter_arg("out_iter", tensor_t(128, 64), out)
    out_new = var("out_new", tensor_t(128, 64))
    out_final = var("out_final", tensor_t(128, 64))
    row = mul(i_, i(32))
    loop = ForStmt(
        i_,
        i(0),
        i(4),
        i(1),
        seq(
            load(t, x, (row, 0)),
            define(u, "block.adds", t, f32(1.0)),
            store(out_new, u, (row, 0), out_iter),
            yield_(out_new),
        ),
        (out_iter,),
        (out_final,),
    )
    tail = var("tail", tensor_t(128, 64))
    fn = function("windows", [x, out], loop, store(tail, u, (0, 0), out_final), ReturnStmt((tail,)))
    assert gen_body(fn) == [
        "auto out_iter = outGlobal;",
        "for (int64_t i = 0; i < 4; i += 1) {",
        "    GlobalTensor<float, Shape<1, 1, 1, 32, 64>, Stride<1, 1, 1, 64, 1>> xGlobalWindow(x "
        "+ (i * 32) * 64 + 0);",
        "    TLOAD(t, xGlobalWindow);",
        "    TADDS(u, t, 1.0f);",
        "    GlobalTensor<float, Shape<1, 1, 1, 32, 64>, Stride<1, 1, 1, 64, 1>> "
        "out_iterWindow(out + (i * 32) * 64 + 0);",
        "    TSTORE(out_iterWindow, u);",
        "}",
        # The loop result is the iter arg; its pointer is out's.
        "GlobalTensor<float, Shape<1, 1, 1, 32, 64>, Stride<1, 1, 1, 64, 1>> out_iterWindow(out + "
        "0 * 64 + 0);",
        "TSTORE(out_iterWindow, u);",
    ]


def test_nested_loops_carry_a_tile_and_a_scalar() -> None:
    x = var("x", tensor_t(128, 64))
    zero = var("zero", placed_t(32, 32, addr=0x0))
    t = var("t", placed_t(32, 32, addr=0x1000))
    nxt = var("nxt", placed_t(32, 32, addr=0x2000))
    i_, j_ = var("i", INDEX), var("j", INDEX)
    acc = iter_arg("acc", zero.type, zero)
    count = iter_arg("count", INDEX, i(0))
    acc_in = iter_arg("acc_in", zero.type, acc)
    acc_j = var("acc_j", zero.type)
    acc_i, count_i = var("acc_i", zero.type), var("count_i", INDEX)
    bumped = var("bumped", INDEX)
    inner = ForStmt(
        j_,
        i(0),
        i(2),
        i(1),
        seq(
            load(t, x, (mul(i_, i(32)), mul(j_, i(32)))),
            define(nxt, "block.add", acc_in, t),
            yield_(nxt),
        ),
        (acc_in,),
        (acc_j,),
    )
    outer = ForStmt(
        i_,
        i(0),
        i(4),
        i(1),
        seq(inner, assign(bumped, add(count, i(1))), yield_(acc_j, bumped)),
        (acc, count),
        (acc_i, count_i),
    )
    fn = function("nested", [x], load(zero, x, (0, 0)), outer)
    assert gen_body(fn) == [
        "GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 64, 1>> xGlobalWindow(x + 0 "
        "* 64 + 0);",
        "TLOAD(zero, xGlobalWindow);",
        "auto acc = zero;",
        "int64_t count = 0;",
        "for (int64_t i = 0; i < 4; i += 1) {",
        "    auto acc_in = acc;",
        "    for (int64_t j = 0; j < 2; j += 1) {",
        "        GlobalTensor<float, Shape<1, 1, 1, 32, 32>, Stride<1, 1, 1, 64, 1>> "
        "xGlobalWindow_1(x + (i * 32) * 64 + (j * 32));",
        "        TLOAD(t, xGlobalWindow_1);",
        "        TADD(nxt, acc_in, t);",
        # The carried tile stays in its buffer (zero's): the yielded one is copied into it.
        "        pipe_barrier(PIPE_V);",
        "        TMOV(acc_in, nxt);",
        "    }",
        "    int64_t bumped = (count + 1);",
        "    count = bumped;",
        "}",
    ]


def test_sibling_loops_keep_their_loop_variable_name_and_parallel_is_marked() -> None:
    n = var("n", INDEX)
    first, second = var("i", INDEX), var("i", INDEX)
    s1, s2 = var("s", INDEX), var("s", INDEX)
    fn = function(
        "k",
        [n],
        ForStmt(first, i(0), n, i(1), seq(assign(s1, mul(first, i(2))))),
        ForStmt(
            second,
            i(1),
            mul(n, i(2)),
            i(2),
            seq(assign(s2, add(second, i(1)))),
            kind=ForKind.Parallel,
        ),
    )
    assert gen_body(fn) == [
        "for (int64_t i = 0; i < n; i += 1) {",
        "    int64_t s = (i * 2);",
        "}",
        "// parallel loop: iterations are independent",
        "for (int64_t i = 1; i < (n * 2); i += 2) {",
        "    int64_t s = (i + 1);",
        "}",
    ]


def test_swapping_yield_goes_through_temporaries() -> None:
    a, b = iter_arg("a", INDEX, i(1)), iter_arg("b", INDEX, i(2))
    k = var("k", INDEX)
    ra, rb = var("ra", INDEX), var("rb", INDEX)
    fn = function("swap", [], ForStmt(k, i(0), i(3), i(1), seq(yield_(b, a)), (a, b), (ra, rb)))
    assert gen_body(fn) == [
        "int64_t a = 1;",
        "int64_t b = 2;",
        "for (int64_t k = 0; k < 3; k += 1) {",
        "    auto a_next = b;",
        "    auto b_next = a;",
        "    a = a_next;",
        "    b = b_next;",
        "}",
    ]


def test_if_else_declares_results_before_the_if_and_assigns_them_in_each_branch() -> None:
    x = var("x", tensor_t(32, 32))
    out = var("out", tensor_t(32, 32))
    n = var("n", INDEX)
    a = var("a", placed_t(32, 32, addr=0x0))
    a2 = var("a2", placed_t(32, 32, addr=0x1000))
    a3 = var("a3", placed_t(32, 32, addr=0x2000))
    stored = var("stored", tensor_t(32, 32))
    r_tile = var("r_tile", placed_t(32, 32, addr=0x3000))
    r_out = var("r_out", tensor_t(32, 32))
    r_n = var("r_n", INDEX)
    cond = Binary(BOOL, op=BinaryOp.Gt, lhs=n, rhs=i(0))
    branch = IfStmt(
        cond,
        seq(
            define(a2, "block.adds", a, f32(1.0)),
            store(stored, a2, (0, 0), out),
            yield_(a2, stored, n),
        ),
        seq(define(a3, "block.muls", a, f32(2.0)), yield_(a3, out, i(0))),
        (r_tile, r_out, r_n),
    )
    final = var("final", tensor_t(32, 32))
    fn = function(
        "branchy",
        [x, out, n],
        load(a, x, (0, 0)),
        branch,
        store(final, r_tile, (16, 0), r_out),
        ReturnStmt((final,)),
    )
    result = generate_cce(fn)
    assert result.diagnostics == []
    # if results are not prologue tiles
    assert "r_tileType" not in result.text.split("// Function body")[0]
    assert body_lines(result.text) == [
        "TLOAD(a, xGlobal);",
        "using r_tileType = Tile<TileType::Vec, float, 32, 32, BLayout::RowMajor, -1, -1>;",
        "r_tileType r_tile(32, 32);",
        "TASSIGN(r_tile, 0x3000);",
        "using r_outShapeDim5 = Shape<1, 1, 1, 32, 32>;",
        "using r_outStrideDim5 = Stride<1, 1, 1, 32, 1>;",
        "using r_outType = GlobalTensor<float, r_outShapeDim5, r_outStrideDim5>;",
        "r_outType r_out;",
        "int64_t r_n;",
        "if (n > 0) {",
        "    TADDS(a2, a, 1.0f);",
        # Conservative: a GlobalTensor over `out` (r_out) moves later, so every access to
        # that pointer restates its address.
        "    TASSIGN(outGlobal, out + 0 * 32 + 0);",
        "    TSTORE(outGlobal, a2);",
        "    r_tile = a2;",
        "    r_out = outGlobal;",
        "    r_n = n;",
        "} else {",
        "    TMULS(a3, a, 2.0f);",
        "    r_tile = a3;",
        "    r_out = outGlobal;",
        "    r_n = 0;",
        "}",
        # r_out inherited out's pointer from both branches.
        "TASSIGN(r_out, out + 16 * 32 + 0);",
        "TSTORE(r_out, r_tile);",
    ]


def test_if_without_else_and_without_results() -> None:
    n = var("n", INDEX)
    m = var("m", INDEX)
    fn = function("k", [n], IfStmt(lt(n, i(4)), seq(assign(m, add(n, i(1))))))
    assert gen_body(fn) == ["if (n < 4) {", "    int64_t m = (n + 1);", "}"]


def test_while_with_carried_values() -> None:
    k = iter_arg("k", INDEX, i(0))
    k2 = var("k2", INDEX)
    done = var("done", INDEX)
    fn = function(
        "k",
        [],
        WhileStmt(lt(k, i(10)), seq(assign(k2, add(k, i(3))), yield_(k2)), (k,), (done,)),
    )
    assert gen_body(fn) == [
        "int64_t k = 0;",
        "while (k < 10) {",
        "    int64_t k2 = (k + 3);",
        "    k = k2;",
        "}",
    ]


def test_if_inside_a_loop_passes_the_tensor_pointer_through_both() -> None:
    out = var("out", tensor_t(64, 16))
    t = var("t", placed_t(16, 16, addr=0x0))
    x = var("x", tensor_t(64, 16))
    i_ = var("i", INDEX)
    acc = iter_arg("acc", out.type, out)
    s1 = var("s1", tensor_t(64, 16))
    picked = var("picked", tensor_t(64, 16))
    result = var("result", tensor_t(64, 16))
    even = Binary(
        BOOL, op=BinaryOp.Eq, lhs=Binary(INDEX, op=BinaryOp.FloorMod, lhs=i_, rhs=i(2)), rhs=i(0)
    )
    body = seq(
        load(t, x, (mul(i_, i(16)), 0)),
        IfStmt(
            even,
            seq(store(s1, t, (mul(i_, i(16)), 0), acc), yield_(s1)),
            seq(yield_(acc)),
            (picked,),
        ),
        yield_(picked),
    )
    fn = function("k", [x, out], ForStmt(i_, i(0), i(4), i(1), body, (acc,), (result,)))
    assert gen_body(fn) == [
        "auto acc = outGlobal;",
        "for (int64_t i = 0; i < 4; i += 1) {",
        "    GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> xGlobalWindow(x "
        "+ (i * 16) * 16 + 0);",
        "    TLOAD(t, xGlobalWindow);",
        "    using pickedShapeDim5 = Shape<1, 1, 1, 64, 16>;",
        "    using pickedStrideDim5 = Stride<1, 1, 1, 16, 1>;",
        "    using pickedType = GlobalTensor<float, pickedShapeDim5, pickedStrideDim5>;",
        "    pickedType picked;",
        "    if ((i % 2) == 0) {",
        "        GlobalTensor<float, Shape<1, 1, 1, 16, 16>, Stride<1, 1, 1, 16, 1>> "
        "accWindow(out + (i * 16) * 16 + 0);",
        "        TSTORE(accWindow, t);",
        "        picked = acc;",
        "    } else {",
        "        picked = acc;",
        "    }",
        "    acc = picked;",
        "}",
    ]
