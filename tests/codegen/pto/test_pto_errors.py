"""What cannot be lowered: a diagnostic with a stable code and a precise span, an
``// error:`` line at the spot, uses of the failed value skipped without a second report,
and never an exception out of generate_pto."""

from __future__ import annotations

from ir_builder import FILE, buffer, call, ints, scalar, tensor, tile
from pto_irb import at, body_of, define, function, generate, load, program, store, sync

from ptoc.codegen.pto import generate_pto
from ptoc.ir import (
    AssignStmt,
    Binary,
    BinaryOp,
    Call,
    DataType,
    EvalStmt,
    ForStmt,
    GlobalVar,
    IfStmt,
    MemorySpace,
    ReturnStmt,
    ScalarType,
    SeqStmts,
    Span,
    TensorType,
    UnknownType,
    Var,
    YieldStmt,
    const_int,
)

I64 = ScalarType(DataType.INT64)


def codes(diagnostics):
    return [(d.code, d.span.line, d.span.column, d.span.end_column) for d in diagnostics]


def test_op_without_pto_lowering() -> None:
    a = tensor(32, 32, name="a")
    b = tensor(32, 32, name="b")
    fn = function(
        "k", [a], AssignStmt(b, call("tensor.add", a, a, type_=b.type, span=at(4, 8, 26)))
    )
    text, diagnostics = generate(fn)
    assert codes(diagnostics) == [("E400", 4, 8, 26)]
    assert diagnostics[0].message.startswith("tensor.add has no PTO lowering")
    assert body_of(text) == f"// Add\n// error: {diagnostics[0].message}\n\nreturn\n"


def test_tile_without_memref_is_reported_once() -> None:
    a, out = tensor(32, 32, name="a"), tensor(32, 32, name="out")
    t0 = tile(32, 32, memref=None, span=at(3, 4, 6), name="t0")
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    fn = function(
        "k",
        [a, out],
        load(t0, a, [0, 0], span=at(3, 4, 30)),
        define(t1, "block.exp", t0),
        store(t1, [0, 0], out),
    )
    text, diagnostics = generate(fn)
    assert codes(diagnostics) == [("E403", 3, 4, 6)]
    assert body_of(text) == (
        "// Load t0\n"
        "// error: tile 't0' has no buffer (MemRef); run the PTO pass pipeline first\n"
        "\n"
        "// Exp\n"
        "// error: skipped: 't0' failed earlier\n"
        "\n"
        "// Store t1\n"
        "// error: skipped: 't1' failed earlier\n"
        "\n"
        "return\n"
    )


def test_dynamic_tile_shape() -> None:
    a = tensor(64, 64, name="a")
    n = scalar("n")
    t_type = tile(32, 32, memref=buffer(0), name="t").type
    dyn_dim = Var(I64, name="n", span=at(5, 20, 21))
    t = Var(
        type(t_type)((dyn_dim, const_int(32)), DataType.FP32, memref=buffer(0)),
        name="t",
        span=at(5, 4, 5),
    )
    fn = function("k", [n, a], define(t, "block.load", a, ints(0, 0), ints(dyn_dim, 32)))
    text, diagnostics = generate(fn)
    assert codes(diagnostics) == [("E401", 5, 20, 21)]
    assert "    // Allocations\n    // error: tile 't' must have a constant shape for PTO\n" in text
    assert "// Load t\n    // error: skipped: 't' failed earlier\n" in text


def test_tensor_with_a_free_dynamic_dimension() -> None:
    big_n = Var(I64, name="N", span=at(2, 30, 31))
    a = Var(TensorType((big_n, const_int(32)), DataType.FP32), name="a", span=at(2, 20, 40))
    t = tile(32, 32, memref=buffer(0), name="t")
    text, diagnostics = generate(function("k", [a], load(t, a, [0, 0])))
    assert codes(diagnostics) == [("E401", 2, 30, 31)]
    assert "dynamic dimension 'N'" in diagnostics[0].message
    assert "    // Tensor views\n    // error: tensor 'a' has dynamic dimension 'N'" in text
    assert "// error: skipped: 'a' failed earlier" in text


def test_tile_parameter_and_unsupported_dtype() -> None:
    t = tile(32, 32, memref=buffer(0), span=at(2, 10, 11), name="t")
    f8 = tensor(32, dtype=DataType.FP8, span=at(2, 40, 42), name="f8")
    text, diagnostics = generate(function("k", [t, f8]))
    assert codes(diagnostics) == [("E400", 2, 10, 11), ("E400", 2, 40, 42)]
    assert diagnostics[1].message == "data type FP8 has no PTO MLIR equivalent"
    assert text.startswith(
        'module attributes {pto.target_arch = "a2a3"} {\n'
        "  func.func @k(%arg0: none,\n"
        "              %arg1: none) attributes {pto.entry} {\n"
        "    // error: tile parameter 't' is not allowed in a PTO kernel; pass a tensor and load "
        "it\n"
        "    // error: data type FP8 has no PTO MLIR equivalent\n"
        "\n"
        "    return\n"
    )


def test_bad_sync_attribute() -> None:
    stmt = sync("system.sync_src", set_pipe="MTE9", wait_pipe=4, event_id=0)
    stmt = EvalStmt(
        Call(UnknownType(), callee=stmt.expr.callee, kwargs=stmt.expr.kwargs, span=at(7, 4, 50))
    )
    text, diagnostics = generate(function("k", [], stmt))
    assert codes(diagnostics) == [("E309", 7, 4, 50)]
    assert diagnostics[0].message == "system.sync_src: 'set_pipe' must be a pipe, got 'MTE9'"


def test_call_to_a_program_function() -> None:
    a = tensor(32, 32, name="a")
    stmt = EvalStmt(Call(UnknownType(), callee=GlobalVar("helper"), args=(a,), span=at(3, 4, 20)))
    _, diagnostics = generate(function("k", [a], stmt))
    assert codes(diagnostics) == [("E400", 3, 4, 20)]
    assert diagnostics[0].message == "'helper' is not a function of this program"
    # a helper that takes a tensor: only scalars can be passed to a function
    helper = function("helper", [tensor(32, 32, name="t")])
    _, diagnostics = generate(function("k", [a], stmt), helper)
    assert codes(diagnostics) == [("E400", 3, 4, 20)]
    assert diagnostics[0].message == (
        "a call passing Tensor[[32, 32], FP32] 't' to 'helper' has no PTO lowering (only "
        "scalars can be passed to a function)"
    )


def test_unknown_function_name() -> None:
    prog = program(function("k", []))
    result = generate_pto(prog, function="missing")
    assert [d.code for d in result.diagnostics] == ["E203"]
    assert result.text == 'module attributes {pto.target_arch = "a2a3"} {\n}\n'


def test_return_inside_a_loop_and_if_without_else() -> None:
    n = scalar("n")
    i = Var(I64, name="i")
    r = Var(I64, name="r")
    loop = ForStmt(
        i,
        const_int(0),
        const_int(4),
        const_int(1),
        SeqStmts((ReturnStmt((i,), span=at(4, 8, 16)),)),
    )
    branch = IfStmt(
        Binary(ScalarType(DataType.BOOL), op=BinaryOp.Gt, lhs=n, rhs=const_int(0)),
        SeqStmts((YieldStmt((n,)),)),
        None,
        return_vars=(r,),
        span=at(5, 4, 20),
    )
    text, diagnostics = generate(function("k", [n], loop, branch))
    assert codes(diagnostics) == [("E400", 4, 8, 16), ("E400", 5, 4, 20)]
    assert diagnostics[0].message == "a return inside a loop or branch has no PTO lowering"
    assert diagnostics[1].message == "an if with results needs an else branch (scf.if)"
    assert "  // error: a return inside a loop or branch has no PTO lowering\n" in body_of(text)


def test_float_floor_division() -> None:
    x = scalar("x", DataType.FP32)
    y = Var(ScalarType(DataType.FP32), name="y")
    expr = Binary(ScalarType(DataType.FP32), op=BinaryOp.FloorDiv, lhs=x, rhs=x, span=at(3, 8, 14))
    _, diagnostics = generate(function("k", [x], AssignStmt(y, expr, span=at(3, 4, 14))))
    assert codes(diagnostics) == [("E400", 3, 8, 14)]
    assert diagnostics[0].message == "'//' on FP32 has no PTO lowering"


def test_broken_ir_becomes_an_internal_error_not_an_exception() -> None:
    a = tensor(32, 32, name="a")
    broken = EvalStmt(Call(UnknownType(), callee=None, span=at(6, 4, 9)), span=at(6, 4, 9))  # type: ignore[arg-type]
    t = tile(32, 32, memref=buffer(0), name="t")
    text, diagnostics = generate(function("k", [a], broken, load(t, a, [0, 0])))
    assert codes(diagnostics) == [("E900", 6, 4, 9)]
    assert "pto.tload" in text  # the statements after it still lower


def test_every_diagnostic_is_in_the_source_file() -> None:
    a = tensor(32, 32, span=at(2, 1, 2), name="a")
    t = tile(32, 32, memref=None, span=at(3, 4, 5), name="t")
    _, diagnostics = generate(function("k", [a], load(t, a, [0, 0])))
    assert diagnostics and all(d.span.file == FILE for d in diagnostics)
    assert all(isinstance(d.span, Span) for d in diagnostics)


def test_load_into_a_memory_space_without_tile_view() -> None:
    """An Acc tile loaded without a tile view still lowers: defaults fill the type."""
    a = tensor(16, 16, name="a")
    t = tile(16, 16, memref=buffer(0, MemorySpace.Mat), name="t")
    text, diagnostics = generate(function("k", [a], load(t, a, [0, 0])))
    assert diagnostics == []
    assert "loc=mat, dtype=f32, rows=16, cols=16" in text


def test_tensor_dimension_from_a_failed_parameter_is_skipped() -> None:
    bad = scalar("bad", DataType.FP8, span=at(2, 10, 13))
    a = Var(TensorType((bad, const_int(8)), DataType.FP32), name="a", span=at(2, 20, 21))
    text, diagnostics = generate(function("k", [bad, a]))
    assert codes(diagnostics) == [("E400", 2, 10, 13)]
    assert "    // Tensor views\n    // error: skipped: 'bad' failed earlier\n" in text


def test_orchestration_functions_get_a_comment_not_errors():
    from ptoc.driver import run_pipeline
    from ptoc.frontend import analyze_source

    text = """import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.Orchestration)
    def host(self, a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        b = pl.add(a, a)
        return b
"""
    (program,) = analyze_source(text, "o.py").programs
    result = generate_pto(run_pipeline(program, "ptoas").program)
    # Host code (as comments, the same C++ as the CCE target's); the add is left out (W010).
    assert [d.code for d in result.diagnostics] == ["W010"]
    assert result.text.startswith(
        'module attributes {pto.target_arch = "a2a3"} {\n'
        "  // // Orchestration function host: runs on the AICPU"
    )
    assert (
        "  //     // not generated: b = tensor.add(...) computes on tensors (W010)\n" in result.text
    )
    assert result.text.endswith("  // // KERNELS = [\n  // // ]\n}\n")
