"""What cannot be lowered: a diagnostic with a stable code and the construct's span, a
``// error:`` line at that spot, and the rest of the kernel still generated."""

from __future__ import annotations

from cce_ir import (
    assign,
    at,
    body_lines,
    call,
    define,
    function,
    load,
    offsets,
    section_lines,
    seq,
    simple_add,
    store,
    var,
    yield_,
)
from ir_builder import INDEX, i, placed_t, tensor_t

from ptoc.codegen.cce import generate_cce
from ptoc.ir import (
    Call,
    ConstBool,
    DataType,
    EvalStmt,
    FunctionType,
    GlobalVar,
    IfStmt,
    Program,
    ScalarType,
    SeqStmts,
    Span,
    TensorType,
    TileType,
    Var,
)
from ptoc.ir.types import MemorySpace


def codes_and_spans(result: object) -> list[tuple[str, Span]]:
    return [(d.code, d.span) for d in result.diagnostics]  # type: ignore[attr-defined]


def test_tensor_op_has_no_lowering_and_the_rest_is_generated() -> None:
    x = var("x", tensor_t(16, 16))
    a = var("a", placed_t(16, 16, addr=0x0))
    b = var("b", placed_t(16, 16, addr=0x400))
    y = var("y", tensor_t(16, 16))
    fn = function(
        "k",
        [x],
        assign(y, call("tensor.add", x, x, type_=x.type, span=at(4)), span=at(4)),
        load(a, x, (0, 0), span=at(5)),
        define(b, "block.exp", a, span=at(6)),
    )
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E400", at(4))]
    assert result.diagnostics[0].message == (
        "'tensor.add' has no CCE lowering (tensor ops run on the host side; use block ops in "
        "kernels)"
    )
    assert body_lines(result.text) == [
        "// error: 'tensor.add' has no CCE lowering (tensor ops run on the host side; use block "
        "ops in kernels)",
        "TLOAD(a, xGlobal);",
        "TEXP(b, a);",
    ]


def test_sels_is_an_error_naming_the_tsels_pto_isa_has() -> None:
    """pto-isa's TSELS selects by a mask tile between a tile and a scalar: no instruction
    selects between two tiles by a scalar mode, so block.sels is E400, not a TSELS call that
    does not compile."""
    x = var("x", tensor_t(16, 16))
    a = var("a", placed_t(16, 16, addr=0x0))
    b = var("b", placed_t(16, 16, addr=0x400))
    fn = function(
        "k",
        [x],
        load(a, x, (0, 0), span=at(5)),
        define(b, "block.sels", a, a, i(1), span=at(6)),
    )
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E400", at(6))]
    message = (
        "'block.sels' has no CCE lowering: pto-isa's TSELS(dst, mask, src, tmp, scalar) picks "
        "src where a bit of a mask tile is set and a scalar elsewhere; no instruction selects "
        "between two tiles by a scalar mode (use sel(mask, lhs, rhs))"
    )
    assert result.diagnostics[0].message == message
    assert body_lines(result.text) == ["TLOAD(a, xGlobal);", f"// error: {message}"]


def test_dynamic_tile_shape_is_e401_at_the_assignment() -> None:
    x = var("x", tensor_t(64, 64))
    n = var("n", INDEX)
    dyn = TileType((n, i(64)), DataType.FP32, placed_t(1, 1).memref)
    t = var("t", dyn)
    fn = function("k", [x, n], load_dynamic(t, x, span=at(7)))
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E401", at(7))]
    assert section_lines(result.text, "Tile type definitions and allocations") == [
        "// error: tile 't' has a dynamic shape; CCE code needs every dimension constant: declare "
        "it with constant sizes",
    ]


def load_dynamic(target: Var, source: Var, span: Span) -> object:
    value = call("block.load", source, offsets(0, 0), offsets(16, 64), type_=target.type, span=span)
    return assign(target, value, span)


def test_windows_of_a_dynamic_tensor_are_not_reported_again() -> None:
    n = var("n", INDEX, span=at(2))
    x = Var(TensorType((n, i(64)), DataType.FP32), name="x", span=at(3))
    out = Var(TensorType((n, i(64)), DataType.FP32), name="out", span=at(4))
    t = var("t", placed_t(16, 64))
    fn = function(
        "k",
        [n, x, out],
        seq(load(t, x, (16, 0), span=at(5)), store(None, t, (16, 0), out, span=at(6))),
    )
    result = generate_cce(fn)
    # One E401 per tensor parameter; the GlobalTensors of its windows only carry the mark.
    assert codes_and_spans(result) == [("E401", at(3)), ("E401", at(4))]
    assert (
        "// error: tensor 'xGlobal' has a dynamic shape; CCE code needs every dimension constant"
        in result.text
    )


def test_dynamic_tensor_parameter_is_e401_at_the_parameter() -> None:
    n = var("n", INDEX, span=at(2))
    x = Var(TensorType((n, i(64)), DataType.FP32), name="x", span=at(3))
    fn = function("k", [n, x])
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E401", at(3))]
    assert section_lines(result.text, "Global tensor declarations") == [
        "// error: tensor 'x' has a dynamic shape; CCE code needs every dimension constant: "
        "declare it with constant sizes",
    ]


def test_tile_without_memref_is_declared_without_tassign_and_reported_e403() -> None:
    x = var("x", tensor_t(16, 16))
    t = var("t", placed_t(16, 16, space=None))
    fn = function("k", [x], load(t, x, (0, 0), span=at(5)))
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E403", at(5))]
    assert section_lines(result.text, "Tile type definitions and allocations") == [
        "using tType = Tile<TileType::Vec, float, 16, 16, BLayout::RowMajor, -1, -1>;",
        "tType t(16, 16);",
        "// error: tile 't' has no MemRef (run the default pass pipeline); TASSIGN skipped",
    ]
    assert body_lines(result.text) == ["TLOAD(t, xGlobal);"]


def test_tile_with_an_unallocated_buffer_or_in_ddr_is_e403() -> None:
    x = var("x", tensor_t(16, 16))
    t = var("t", placed_t(16, 16, addr=None))
    u = var("u", placed_t(16, 16, space=MemorySpace.DDR))
    fn = function("k", [x], load(t, x, (0, 0), span=at(5)), define(u, "block.exp", t, span=at(6)))
    assert codes_and_spans(generate_cce(fn)) == [("E403", at(5)), ("E403", at(6))]


def test_unsupported_dtype_is_e400_on_the_parameter_and_on_the_tile() -> None:
    x = var("x", tensor_t(16, 16, dtype=DataType.FP8E4M3FN), span=at(2))
    t = var("t", placed_t(16, 16, dtype=DataType.FP8E4M3FN))
    fn = function("k", [x], load(t, x, (0, 0), span=at(6)))
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E400", at(2)), ("E400", at(6))]
    assert result.diagnostics[0].message == (
        "parameter 'x': element type FP8E4M3FN has no CCE C++ type"
    )
    assert section_lines(result.text, "Unpack arguments") == [
        "// error: parameter 'x': element type FP8E4M3FN has no CCE C++ type",
    ]


def test_tile_parameter_is_rejected() -> None:
    t = var("t", placed_t(16, 16), span=at(2))
    result = generate_cce(function("k", [t]))
    assert codes_and_spans(result) == [("E400", at(2))]
    assert "cannot be passed to a CCE kernel" in result.diagnostics[0].message


def test_call_to_another_function_is_e400() -> None:
    x = var("x", tensor_t(16, 16))
    y = var("y", tensor_t(16, 16))
    value = Call(x.type, callee=GlobalVar("helper"), args=(x,), span=at(4))
    result = generate_cce(function("k", [x], assign(y, value, span=at(4))))
    assert codes_and_spans(result) == [("E400", at(4))]
    assert result.diagnostics[0].message == (
        "call to function 'helper' cannot be generated inside a CCE kernel"
    )


def test_unassigned_tile_op_and_nested_call_are_e400() -> None:
    x = var("x", tensor_t(16, 16))
    a = var("a", placed_t(16, 16, addr=0x0))
    b = var("b", placed_t(16, 16, addr=0x400))
    nested = call("block.exp", a, type_=a.type, span=at(6))
    fn = function(
        "k",
        [x],
        load(a, x, (0, 0)),
        EvalStmt(call("block.exp", a, type_=a.type, span=at(5)), span=at(5)),
        assign(b, call("block.add", a, nested, type_=a.type, span=at(7)), span=at(7)),
    )
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E400", at(5)), ("E400", at(6))]
    assert [d.message for d in result.diagnostics] == [
        "the result of block.exp is not assigned; its instruction needs a destination tile",
        "a nested op call must be assigned to a variable before it is used",
    ]


def test_a_tensor_that_may_be_either_of_two_cannot_be_addressed() -> None:
    a = var("a", tensor_t(32, 32))
    b = var("b", tensor_t(32, 32))
    t = var("t", placed_t(16, 32, addr=0x0))
    r = var("r", tensor_t(32, 32))
    done = var("done", tensor_t(32, 32))
    flag = ConstBool(ScalarType(DataType.BOOL), value=True)
    fn = function(
        "k",
        [a, b],
        load(t, a, (0, 0)),
        IfStmt(flag, SeqStmts((yield_(a),)), SeqStmts((yield_(b),)), (r,)),
        store(done, t, (16, 0), r, span=at(9)),
    )
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E400", at(9))]
    assert result.diagnostics[0].message == "cannot address 'r': it may refer to a or b"


def test_reduction_over_a_leading_axis_is_e400() -> None:
    x = var("x", tensor_t(4, 16, 16))
    t = var("t", placed_t(4, 16, 16, addr=0x0))
    s = var("s", placed_t(16, 16, addr=0x2000))
    fn = function("k", [x], load(t, x, (0, 0, 0)), define(s, "block.sum", t, axis=0, span=at(8)))
    result = generate_cce(fn)
    assert codes_and_spans(result) == [("E400", at(8))]


def test_function_filter_that_matches_nothing_is_e203() -> None:
    program = Program("P", (simple_add(),), span=at(1, 0, 10))
    result = generate_cce(program, "nope")
    assert result.text == ""
    assert codes_and_spans(result) == [("E203", at(1, 0, 10))]


def test_orchestration_functions_get_host_code_not_a_kernel() -> None:
    orchestrator = function("main", [], kind=FunctionType.Orchestration)
    program = Program("P", (orchestrator, simple_add()))
    result = generate_cce(program)
    assert result.diagnostics == []
    host, kernel = result.text.split("\n\n__aicore__ ", 1)
    assert host.startswith("// Orchestration function main: runs on the AICPU")
    assert "void aicpu_orchestration_entry(PTO2Runtime* rt, uint64_t* args, int arg_count)" in host
    assert host.endswith("// KERNELS = [\n// ]")
    assert kernel.startswith("__attribute__((always_inline)) void runSimpleAdd(")


def test_duplicate_registration_is_an_internal_error_not_an_exception() -> None:
    x = var("x", tensor_t(16, 16), span=at(2))
    result = generate_cce(function("k", [x, x]))
    assert [d.code for d in result.diagnostics] == ["E900"]
    assert result.diagnostics[0].message.startswith("internal: variable 'x' registered twice")
    assert result.diagnostics[0].span == at(2)


def test_malformed_ir_never_raises_out_of_generate_cce() -> None:
    broken = IfStmt(None, SeqStmts(()))  # type: ignore[arg-type]
    fn = function("k", [], broken)
    result = generate_cce(fn)
    assert [d.code for d in result.diagnostics] == ["E900"]
    assert result.diagnostics[0].span == at(1, 4, 30)  # the function
    assert result.text == "// error: internal error in k\n"
