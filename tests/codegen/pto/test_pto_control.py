"""Loops, branches and scalar arithmetic: scf.for / scf.if / scf.while with their results,
arith ops in index or the scalar's own type, and the conversions between them."""

from __future__ import annotations

from ir_builder import buffer, ints, scalar, tensor, tile, tile_t
from pto_irb import body_of, define, function, generate, load, short, store

from ptoc.ir import (
    AssignStmt,
    Binary,
    BinaryOp,
    ConstFloat,
    DataType,
    ForKind,
    ForStmt,
    IfStmt,
    IterArg,
    ReturnStmt,
    ScalarType,
    ScopeStmt,
    SeqStmts,
    TensorType,
    Unary,
    UnaryOp,
    Var,
    WhileStmt,
    YieldStmt,
    const_int,
)

I64 = ScalarType(DataType.INT64)
I32 = ScalarType(DataType.INT32)
F32 = ScalarType(DataType.FP32)
BOOL = ScalarType(DataType.BOOL)


def binary(type_, op, lhs, rhs):
    return Binary(type_, op=op, lhs=lhs, rhs=rhs)


def seq(*stmts):
    return SeqStmts(tuple(stmts))


def accumulate_kernel():
    """acc = 0-tile; for i in 0..4: acc += load(a[i*32:, :]); if n > 0: exp(acc) else acc."""
    a, out, n = tensor(128, 32, name="a"), tensor(32, 32, name="out"), scalar("n")
    acc0 = tile(32, 32, memref=buffer(0), name="acc0")
    t = tile(32, 32, memref=buffer(1), name="t")
    acc_next = tile(32, 32, memref=buffer(0), name="acc_next")
    res = tile(32, 32, memref=buffer(2), name="res")
    i, off = Var(I64, name="i"), Var(I64, name="off")
    acc = IterArg(acc0.type, name="acc", init_value=acc0)
    acc_out, r = Var(acc0.type, name="acc_out"), Var(acc0.type, name="r")
    loop = ForStmt(
        i,
        const_int(0),
        const_int(4),
        const_int(1),
        seq(
            AssignStmt(off, binary(I64, BinaryOp.Mul, i, const_int(32))),
            load(t, a, [off, 0]),
            define(acc_next, "block.add", acc, t),
            YieldStmt((acc_next,)),
        ),
        iter_args=(acc,),
        return_vars=(acc_out,),
    )
    branch = IfStmt(
        binary(BOOL, BinaryOp.Gt, n, const_int(0)),
        seq(define(res, "block.exp", acc_out), YieldStmt((res,))),
        seq(YieldStmt((acc_out,))),
        return_vars=(r,),
    )
    return function(
        "accumulate",
        [a, n, out],
        define(acc0, "block.full", ints(32, 32), ConstFloat(F32, value=0.0), dtype=DataType.FP32),
        loop,
        branch,
        store(r, [0, 0], out),
    )


def test_loop_with_a_carried_tile_and_an_if_with_a_result() -> None:
    text, diagnostics = generate(accumulate_kernel())
    assert diagnostics == []
    assert text.startswith(
        'module attributes {pto.target_arch = "a2a3"} {\n'
        "  func.func @accumulate(%arg0: !pto.ptr<f32>,\n"
        "                       %arg1: i64,\n"
        "                       %arg2: !pto.ptr<f32>) attributes {pto.entry, "
        "pto.kernel_kind = #pto.kernel_kind<vector>} {\n"
        "    // Constants\n"
        "    %c128 = arith.constant 128 : index\n"
        "    %c32 = arith.constant 32 : index\n"
        "    %c1 = arith.constant 1 : index\n"
        "    %cst = arith.constant 0.0 : f32\n"
        "    %c0 = arith.constant 0 : index\n"
        "    %c4 = arith.constant 4 : index\n"
    )
    assert short(body_of(text)) == (
        "// Full\n"
        "pto.texpands ins(%cst : f32)\n"
        "             outs(%0 : TB)\n"
        "\n"
        # the carried tile lives in its home buffer %0 (acc_out's MemRef, which the passes
        # give acc0 too): PTOAS cannot lower a tile_buf iter_arg, and a buffer needs none
        "scf.for %i = %c0 to %c4 step %c1 {\n"
        "  %5 = arith.muli %i, %c32 : index\n"
        "\n"
        "  // Load t\n"
        "  %6 = pto.partition_view %3, offsets = [%5, %c0], sizes = [%c32, %c32]\n"
        "       : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>\n"
        "  pto.tload ins(%6 : !pto.partition_tensor_view<32x32xf32>)\n"
        "            outs(%1 : TB)\n"
        "\n"
        "  // Add\n"
        "  pto.tadd ins(%0, %1 : TB, TB)\n"
        "           outs(%0 : TB)\n"
        "}\n"
        "\n"
        "%7 = arith.index_cast %arg1 : i64 to index\n"
        "%8 = arith.cmpi sgt, %7, %c0 : index\n"
        "scf.if %8 {\n"
        "  // Exp\n"
        "  pto.texp ins(%0 : TB)\n"
        "           outs(%2 : TB)\n"
        "\n"
        "  // carried tile: into its home buffer\n"  # the branch's result r is buffer %0
        "  pto.tmov ins(%2 : TB)\n"
        "           outs(%0 : TB)\n"
        "}\n"  # the else branch yields acc_out, already in %0: nothing left to do
        "\n"
        "// Store r\n"
        "%9 = pto.partition_view %4, offsets = [%c0, %c0], sizes = [%c32, %c32]\n"
        "     : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>\n"
        "pto.tstore ins(%0 : TB)\n"
        "           outs(%9 : !pto.partition_tensor_view<32x32xf32>)\n"
        "\n"
        "return\n"
    )


def test_a_carried_tile_in_another_buffer_is_copied_home() -> None:
    """The loop's result lives in %0; an initial value and a yield in other buffers are
    copied into it (before the loop, at the end of each iteration)."""
    a, out = tensor(32, 32, name="a"), tensor(32, 32, name="out")
    init, home, step = (
        tile(32, 32, memref=buffer(1), name="init"),
        buffer(0),
        tile(32, 32, memref=buffer(2), name="s"),
    )
    i = Var(I64, name="i")
    acc = IterArg(tile_t(32, 32, memref=home), name="acc", init_value=init)
    result = Var(tile_t(32, 32, memref=home), name="result")
    loop = ForStmt(
        i,
        const_int(0),
        const_int(2),
        const_int(1),
        seq(define(step, "block.exp", acc), YieldStmt((step,))),
        iter_args=(acc,),
        return_vars=(result,),
    )
    text, diagnostics = generate(
        function("k", [a, out], load(init, a, [0, 0]), loop, store(result, [0, 0], out))
    )
    assert diagnostics == []
    body = short(body_of(text))
    # buffers in order of first definition: init %0, the home (result) %1, s %2
    copy_in = (
        "// carried tile: into its home buffer\npto.tmov ins(%0 : TB)\n         outs(%1 : TB)\n"
    )
    assert copy_in + "\nscf.for %i = %c0 to %c2 step %c1 {\n" in body
    assert (
        "  pto.texp ins(%1 : TB)\n           outs(%2 : TB)\n\n"
        "  // carried tile: into its home buffer\n"
        "  pto.tmov ins(%2 : TB)\n           outs(%1 : TB)\n}\n"
    ) in body
    assert "pto.tstore ins(%1 : TB)" in body


def test_nested_loops_without_results_and_a_carried_tensor() -> None:
    a, out = tensor(64, 64, name="a"), tensor(64, 64, name="out")
    t = tile(32, 32, memref=buffer(0), name="t")
    i, j = Var(I64, name="i"), Var(I64, name="i")  # the same name twice: made unique
    o = IterArg(out.type, name="o", init_value=out)
    o2, o_final = tensor(64, 64, name="o2"), tensor(64, 64, name="o_final")
    inner = ForStmt(j, const_int(0), const_int(64), const_int(32), seq(load(t, a, [i, j])))
    outer = ForStmt(
        i,
        const_int(0),
        const_int(64),
        const_int(32),
        seq(inner, store(t, [i, 0], o, result=o2), YieldStmt((o2,))),
        iter_args=(o,),
        return_vars=(o_final,),
        kind=ForKind.Parallel,
    )
    text, diagnostics = generate(function("tiles", [a, out], outer))
    assert diagnostics == []
    assert short(body_of(text)) == (
        "// parallel loop: iterations are independent\n"
        "%3 = scf.for %i = %c0 to %c64 step %c32 iter_args(%o = %2) -> "
        "(!pto.tensor_view<?x?xf32>) {\n"
        "  scf.for %i_1 = %c0 to %c64 step %c32 {\n"
        "    // Load t\n"
        "    %4 = pto.partition_view %1, offsets = [%i, %i_1], sizes = [%c32, %c32]\n"
        "         : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>\n"
        "    pto.tload ins(%4 : !pto.partition_tensor_view<32x32xf32>)\n"
        "              outs(%0 : TB)\n"
        "  }\n"
        "\n"
        "  // Store t\n"
        "  %5 = pto.partition_view %o, offsets = [%i, %c0], sizes = [%c32, %c32]\n"
        "       : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>\n"
        "  pto.tstore ins(%0 : TB)\n"
        "             outs(%5 : !pto.partition_tensor_view<32x32xf32>)\n"
        "  scf.yield %o : !pto.tensor_view<?x?xf32>\n"
        "}\n"
        "\n"
        "return\n"
    )


def test_if_without_results_and_a_scope() -> None:
    a, flag = tensor(32, 32, name="a"), scalar("flag", DataType.BOOL)
    t = tile(32, 32, memref=buffer(0), name="t")
    body = IfStmt(flag, ScopeStmt(seq(load(t, a, [0, 0]))))
    text, diagnostics = generate(function("maybe", [a, flag], body))
    assert diagnostics == []
    assert short(body_of(text)) == (
        "scf.if %arg1 {\n"
        "  // Load t\n"
        "  %2 = pto.partition_view %1, offsets = [%c0, %c0], sizes = [%c32, %c32]\n"
        "       : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>\n"
        "  pto.tload ins(%2 : !pto.partition_tensor_view<32x32xf32>)\n"
        "            outs(%0 : TB)\n"
        "}\n"
        "\n"
        "return\n"
    )


def test_while_loop_and_scalar_arithmetic() -> None:
    n, m, x = scalar("n"), scalar("m", DataType.INT32), scalar("x", DataType.FP32)
    k = IterArg(I64, name="k", init_value=const_int(0))
    k2, k_out = Var(I64, name="k2"), Var(I64, name="k_out")
    loop = WhileStmt(
        binary(BOOL, BinaryOp.Lt, k, n),
        seq(AssignStmt(k2, binary(I64, BinaryOp.Add, k, const_int(1))), YieldStmt((k2,))),
        iter_args=(k,),
        return_vars=(k_out,),
    )
    q, r, f = Var(I64, name="q"), Var(I64, name="r"), Var(F32, name="f")
    g, neg = Var(I32, name="g"), Var(I64, name="neg")
    fn = function(
        "scalars",
        [n, m, x],
        loop,
        AssignStmt(q, binary(I64, BinaryOp.FloorDiv, k_out, m)),
        AssignStmt(r, binary(I64, BinaryOp.FloorMod, q, const_int(3))),
        AssignStmt(f, binary(F32, BinaryOp.Mul, x, ConstFloat(F32, value=0.5))),
        AssignStmt(g, binary(I32, BinaryOp.Add, m, const_int(1))),
        AssignStmt(neg, Unary(I64, op=UnaryOp.Neg, operand=r)),
        ReturnStmt((neg, f)),
    )
    text, diagnostics = generate(fn)
    assert diagnostics == []
    assert text == (
        'module attributes {pto.target_arch = "a2a3"} {\n'
        "  func.func @scalars(%arg0: i64,\n"
        "                    %arg1: i32,\n"
        "                    %arg2: f32,\n"
        # PTOAS entry functions return nothing: each scalar result has a pointer
        "                    %arg3: !pto.ptr<i64>,\n"
        "                    %arg4: !pto.ptr<f32>) attributes {pto.entry} {\n"
        "    // Constants\n"
        "    %c0 = arith.constant 0 : index\n"
        "    %c1 = arith.constant 1 : index\n"
        "    %c3 = arith.constant 3 : index\n"
        "    %cst = arith.constant 0.5 : f32\n"
        "    %c1_i32 = arith.constant 1 : i32\n"
        "\n"
        "    %0 = scf.while (%k = %c0) : (index) -> (index) {\n"
        "      %1 = arith.index_cast %arg0 : i64 to index\n"
        "      %2 = arith.cmpi slt, %k, %1 : index\n"
        "      scf.condition(%2) %k : index\n"
        "    } do {\n"
        "    ^bb0(%k_1: index):\n"
        "      %3 = arith.addi %k_1, %c1 : index\n"
        "      scf.yield %3 : index\n"
        "    }\n"
        "\n"
        "    %4 = arith.index_cast %arg1 : i32 to index\n"
        "    %5 = arith.floordivsi %0, %4 : index\n"
        "    %6 = arith.floordivsi %5, %c3 : index\n"
        "    %7 = arith.muli %6, %c3 : index\n"
        "    %8 = arith.subi %5, %7 : index\n"
        "    %9 = arith.mulf %arg2, %cst : f32\n"
        "    %10 = arith.addi %arg1, %c1_i32 : i32\n"
        "    %11 = arith.subi %c0, %8 : index\n"
        "    %12 = arith.index_cast %11 : index to i64\n"
        "    pto.store_scalar %12, %arg3[%c0] : !pto.ptr<i64>, i64\n"
        "    pto.store_scalar %9, %arg4[%c0] : !pto.ptr<f32>, f32\n"
        "\n"
        "    return\n"
        "  }\n"
        "}\n"
    )


def test_conversion_is_reused_within_its_region_only() -> None:
    n = scalar("n")
    i = Var(I64, name="i")
    x, y, z = Var(I64, name="x"), Var(I64, name="y"), Var(I64, name="z")
    loop = ForStmt(
        i,
        const_int(0),
        const_int(2),
        const_int(1),
        seq(
            AssignStmt(x, binary(I64, BinaryOp.Add, n, i)),
            AssignStmt(y, binary(I64, BinaryOp.Mul, n, i)),
        ),
    )
    fn = function("casts", [n], loop, AssignStmt(z, binary(I64, BinaryOp.Sub, n, const_int(1))))
    text, _ = generate(fn)
    assert body_of(text) == (
        "scf.for %i = %c0 to %c2 step %c1 {\n"
        "  %0 = arith.index_cast %arg0 : i64 to index\n"
        "  %1 = arith.addi %0, %i : index\n"
        "  %2 = arith.muli %0, %i : index\n"
        "}\n"
        "\n"
        "%3 = arith.index_cast %arg0 : i64 to index\n"
        "%4 = arith.subi %3, %c1 : index\n"
        "\n"
        "return\n"
    )


def test_float_and_unsigned_comparisons_and_conversions() -> None:
    x, u = scalar("x", DataType.FP16), scalar("u", DataType.UINT32)
    b1, b2, w = Var(BOOL, name="b1"), Var(BOOL, name="b2"), Var(F32, name="w")
    fn = function(
        "cmp",
        [x, u],
        AssignStmt(b1, binary(BOOL, BinaryOp.Le, x, ConstFloat(F32, value=2.0))),
        AssignStmt(b2, binary(BOOL, BinaryOp.Lt, u, const_int(7, DataType.UINT32))),
        AssignStmt(w, binary(F32, BinaryOp.Add, x, u)),
    )
    text, diagnostics = generate(fn)
    assert diagnostics == []
    assert (
        "func.func @cmp(%arg0: f16,\n                %arg1: i32) attributes {pto.entry} {" in text
    )
    assert body_of(text) == (
        "%0 = arith.extf %arg0 : f16 to f32\n"
        "%1 = arith.cmpf ole, %0, %cst : f32\n"
        "%2 = arith.cmpi ult, %arg1, %c7_i32 : i32\n"
        "%3 = arith.uitofp %arg1 : i32 to f32\n"
        "%4 = arith.addf %0, %3 : f32\n"
        "\n"
        "return\n"
    )


def test_tensor_with_dimensions_from_scalar_parameters() -> None:
    n, m = scalar("n"), scalar("m", DataType.INT32)
    a = Var(TensorType((n, const_int(64)), DataType.FP16), name="a")
    b = Var(TensorType((const_int(8), m, n), DataType.FP16), name="b")
    text, diagnostics = generate(function("dyn", [n, m, a, b]))
    assert diagnostics == []
    assert text == (
        'module attributes {pto.target_arch = "a2a3"} {\n'
        "  func.func @dyn(%arg0: i64,\n"
        "                %arg1: i32,\n"
        "                %arg2: !pto.ptr<f16>,\n"
        "                %arg3: !pto.ptr<f16>) attributes {pto.entry} {\n"
        "    // Constants\n"
        "    %c64 = arith.constant 64 : index\n"
        "    %c1 = arith.constant 1 : index\n"
        "    %c8 = arith.constant 8 : index\n"
        "\n"
        "    // Tensor views\n"
        "    %2 = arith.index_cast %arg0 : i64 to index\n"
        "    %0 = pto.make_tensor_view %arg2, shape = [%2, %c64],\n"
        "         strides = [%c64, %c1] : !pto.tensor_view<?x?xf16>\n"
        "    %3 = arith.index_cast %arg1 : i32 to index\n"
        "    %4 = arith.muli %2, %3 : index\n"
        "    %1 = pto.make_tensor_view %arg3, shape = [%c8, %3, %2],\n"
        "         strides = [%4, %2, %c1] : !pto.tensor_view<?x?x?xf16>\n"
        "\n"
        "    return\n"
        "  }\n"
        "}\n"
    )


def test_several_functions_and_selecting_one() -> None:
    from pto_irb import program

    from ptoc.codegen.pto import generate_pto

    first, second = function("first", []), function("second", [scalar("s")])
    text, diagnostics = generate(first, second)
    assert diagnostics == []
    # PTOAS makes no function of a module of several its entry unless it is marked so
    assert text == (
        'module attributes {pto.target_arch = "a2a3"} {\n'
        "  func.func @first() attributes {pto.entry} {\n"
        "    return\n"
        "  }\n"
        "\n"
        "  func.func @second(%arg0: i64) attributes {pto.entry} {\n"
        "    return\n"
        "  }\n"
        "}\n"
    )
    only = generate_pto(program(first, second), function="second")
    assert only.text == (
        'module attributes {pto.target_arch = "a2a3"} {\n'
        "  func.func @second(%arg0: i64) attributes {pto.entry} {\n    return\n  }\n}\n"
    )


def _acc_loop(read_after: bool):
    """for i: nxt = matmul_acc(acc, l, r) (nxt in its own Acc buffer); yield nxt."""
    from ptoc.ir import BLayout, MemorySpace, TileView

    acc_view = TileView(blayout=BLayout.col_major, slayout=BLayout.row_major, fractal=1024)
    home, other = buffer(0, MemorySpace.Acc), buffer(1, MemorySpace.Acc)
    left = tile(16, 16, memref=buffer(2, MemorySpace.Left), dtype=DataType.FP16, name="l")
    right = tile(16, 16, memref=buffer(3, MemorySpace.Right), dtype=DataType.FP16, name="r")
    first = tile(16, 16, memref=home, view=acc_view, name="first")
    acc = IterArg(tile_t(16, 16, memref=home, view=acc_view), name="acc", init_value=first)
    nxt = tile(16, 16, memref=other, view=acc_view, name="nxt")
    result = Var(tile_t(16, 16, memref=home, view=acc_view), name="result")
    body = [define(nxt, "block.matmul_acc", acc, left, right)]
    if read_after:
        body.append(
            define(
                tile(16, 16, memref=buffer(4, MemorySpace.Acc), view=acc_view, name="again"),
                "block.matmul_acc",
                acc,
                left,
                right,
            )
        )
    loop = ForStmt(
        Var(I64, name="i"),
        const_int(0),
        const_int(2),
        const_int(1),
        seq(*body, YieldStmt((nxt,))),
        iter_args=(acc,),
        return_vars=(result,),
    )
    a, b = (
        tensor(16, 16, dtype=DataType.FP16, name="a"),
        tensor(16, 16, dtype=DataType.FP16, name="b"),
    )
    return function(
        "k",
        [a, b],
        load(left, a, [0, 0]),
        load(right, b, [0, 0]),
        define(first, "block.matmul", left, right),
        loop,
    )


def test_a_carried_acc_tile_is_accumulated_in_its_home_buffer() -> None:
    """PTO has no Acc -> Acc copy: the op producing the yielded tile writes the home buffer."""
    text, diagnostics = generate(_acc_loop(read_after=False))
    assert diagnostics == []
    assert "pto.tmov" not in text
    acc = (
        "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, v_row=16, v_col=16, "
        "blayout=col_major, slayout=row_major, fractal=1024, pad=0>"
    )
    assert f"      pto.tmatmul.acc ins(%2, %0, %1 : {acc}," in text
    assert f"                      outs(%2 : {acc})\n    }}\n" in text


def test_a_carried_acc_tile_read_after_its_update_is_an_error() -> None:
    _, diagnostics = generate(_acc_loop(read_after=True))
    assert [(d.code, d.message) for d in diagnostics] == [
        (
            "E400",
            "a carried tile outside Vec is updated in place (PTO copies tiles only vec -> "
            "vec): yield the result of the op that updates it, and read the carried value only up "
            "to that op",
        )
    ]


NEGATIVE_LOOP = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self, a: pl.Tensor[[16, 64], pl.FP32], out: pl.Tensor[[16, 64], pl.FP32]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        ta = pl.load(a, [0, 0], [16, 64])
        for j, (acc,) in pl.range(-6, 6, init_values=(ta,)):
            e = pl.adds(acc, 10.0)
            acc_next = pl.yield_(e)
        done = pl.store(acc_next, [0, 0], [16, 64], out)
        return done
"""


def test_a_loop_over_negative_numbers_counts_in_i64() -> None:
    # PTOAS declares an index counter size_t in its C++: from -6 that loop would never run.
    from ptoc.driver import compile_source

    result = compile_source(NEGATIVE_LOOP, "pto", path="k.py")
    assert not result.has_errors, result.diagnostics
    lines = result.text.splitlines()
    assert "    %c-6_i64 = arith.constant -6 : i64" in lines
    assert "    scf.for %j = %c-6_i64 to %c6_i64 step %c1_i64 : i64 {" in lines
