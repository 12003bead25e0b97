"""CodeEmitter, CodeContext, TypeConverter, ISAMapper and TileCollector on their own."""

from __future__ import annotations

import pytest
from cce_ir import define, load, seq, var
from ir_builder import placed_t, tensor_t

from ptoc.codegen import CodegenError
from ptoc.codegen.cce import CodeContext, CodeEmitter, TileCollector, TypeConverter, kernel_name
from ptoc.codegen.cce.context import sanitize_identifier
from ptoc.codegen.cce.expressions import floor_division
from ptoc.codegen.cce.ops import cmp_mode, event_name, pipe_name, round_mode
from ptoc.ir import BinaryOp, ConstBool, DataType, IfStmt, MemorySpace, ScalarType, Span
from ptoc.ops import PipeType

SPAN = Span.unknown()


def test_emitter_indents_four_spaces_per_level_and_blocks_close() -> None:
    emitter = CodeEmitter()
    emitter.emit_line("void f() {")
    emitter.indent()
    emitter.emit_line("int x = 42;")
    with emitter.block("if (x) {"):
        emitter.emit_line("x = 0;")
    emitter.emit_line()
    emitter.dedent()
    emitter.emit_line("}")
    assert (
        emitter.code() == "void f() {\n    int x = 42;\n    if (x) {\n        x = 0;\n    }\n\n}\n"
    )


def test_emitter_refuses_to_dedent_below_zero() -> None:
    with pytest.raises(ValueError):
        CodeEmitter().dedent()


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("tile_x", "tile_x"),
        ("x.1", "x_1"),
        ("1st", "_1st"),
        ("int", "int_"),
        ("args", "args_"),
        ("", "_"),
    ],
)
def test_sanitize_identifier(name: str, expected: str) -> None:
    assert sanitize_identifier(name) == expected


def test_context_registers_once_and_looks_up() -> None:
    context = CodeContext()
    x = var("x", tensor_t(4))
    context.register_var(x, "xGlobal")
    assert context.get_var_name(x) == "xGlobal"
    with pytest.raises(CodegenError) as info:
        context.register_var(x, "xGlobal")
    assert info.value.code == "E900"
    with pytest.raises(CodegenError):
        context.get_var_name(var("y", tensor_t(4)))


def test_context_makes_distinct_vars_unique_in_scope_but_reuses_closed_scopes() -> None:
    context = CodeContext()
    first, second, third = (var("i", ScalarType(DataType.INT64)) for _ in range(3))
    assert context.sanitize_name(first) == "i"
    assert context.sanitize_name(first) == "i"  # stable for the same Var
    context.push_scope()
    assert context.sanitize_name(second) == "i_1"  # shadows an outer i: renamed
    context.pop_scope()
    context.push_scope()
    context.pop_scope()
    assert context.reserve("i_1") == "i_1"  # freed when its scope closed
    assert context.sanitize_name(third) == "i_2"


def test_context_pointer_tracking() -> None:
    context = CodeContext()
    context.register_pointer("outputGlobal", "output")
    assert context.get_pointer("outputGlobal") == "output"
    context.register_pointer("r", frozenset({"a", "b"}))
    assert context.get_pointer("r") is None  # ambiguous
    assert context.pointers("r") == frozenset({"a", "b"})
    assert context.get_pointer("unknown") is None


@pytest.mark.parametrize(
    ("dtype", "cpp"),
    [
        (DataType.FP32, "float"),
        (DataType.FP16, "half"),
        (DataType.BF16, "bfloat16_t"),
        (DataType.INT8, "int8_t"),
        (DataType.INT16, "int16_t"),
        (DataType.INT32, "int32_t"),
        (DataType.INT64, "int64_t"),
        (DataType.UINT8, "uint8_t"),
        (DataType.UINT16, "uint16_t"),
        (DataType.UINT32, "uint32_t"),
        (DataType.UINT64, "uint64_t"),
        (DataType.BOOL, "bool"),
        (DataType.FP8E4M3FN, None),
        (DataType.INT4, None),
        (DataType.HF8, None),
    ],
)
def test_dtype_table(dtype: DataType, cpp: str | None) -> None:
    assert TypeConverter.convert_dtype(dtype) == cpp


def test_shape_and_stride_are_padded_to_5d_row_major() -> None:
    converter = TypeConverter()
    assert converter.generate_shape_type([128, 64]) == "Shape<1, 1, 1, 128, 64>"
    assert converter.generate_stride_type([128, 64]) == "Stride<1, 1, 1, 64, 1>"
    assert converter.generate_shape_type([4, 8, 16]) == "Shape<1, 1, 4, 8, 16>"
    assert converter.generate_stride_type([4, 8, 16]) == "Stride<1, 1, 128, 16, 1>"
    assert converter.generate_stride_type([32]) == "Stride<1, 1, 1, 1, 1>"
    assert converter.generate_shape_type([2, 3, 4, 5, 6]) == "Shape<2, 3, 4, 5, 6>"
    with pytest.raises(ValueError):
        converter.generate_shape_type([1, 2, 3, 4, 5, 6])


def test_memory_annotation() -> None:
    assert TypeConverter.memory_annotation(MemorySpace.DDR) == "__gm__"
    assert TypeConverter.memory_annotation(MemorySpace.Vec) == ""
    assert TypeConverter.tile_location(MemorySpace.Acc) == "Acc"
    assert TypeConverter.tile_location(MemorySpace.DDR) is None


def test_attribute_spellings() -> None:
    assert pipe_name(PipeType.MTE2, SPAN) == "PIPE_MTE2"
    assert pipe_name(4, SPAN) == "PIPE_V"  # the registry's number for V
    assert pipe_name("mte3", SPAN) == "PIPE_MTE3"
    assert event_name(3, SPAN) == "EVENT_ID3"
    assert round_mode("floor", SPAN) == "RoundMode::CAST_FLOOR"
    assert round_mode(1, SPAN) == "RoundMode::CAST_RINT"
    assert cmp_mode(4, SPAN) == "CmpMode::GT"
    with pytest.raises(CodegenError):
        pipe_name(99, SPAN)
    with pytest.raises(CodegenError):
        round_mode("sideways", SPAN)


def test_kernel_name_is_camel_case() -> None:
    assert kernel_name("simple_add") == "runSimpleAdd"
    assert kernel_name("matmul_2d_kernel") == "runMatmul2dKernel"
    assert kernel_name("flash") == "runFlash"


def test_tile_collector_takes_assigned_tiles_in_body_order_but_not_if_results() -> None:
    x = var("x", tensor_t(16, 16))
    a, b, c, r = (var(n, placed_t(16, 16)) for n in ("a", "b", "c", "r"))
    inner = seq(define(c, "block.add", a, b))
    body = seq(
        load(a, x, (0, 0)),
        IfStmt(ConstBool(ScalarType(DataType.BOOL), value=True), inner, None, (r,)),
        load(b, x, (0, 0)),
    )
    assert [stmt.var for stmt, _ in TileCollector.collect(body)] == [a, c, b]


@pytest.mark.parametrize(
    ("op", "dtype", "positive", "expected"),
    [
        (BinaryOp.FloorDiv, DataType.INT64, False, "(a / b - (a % b != 0 && (a < 0) != (b < 0)))"),
        (BinaryOp.FloorDiv, DataType.INT32, True, "(a / b - (a % b < 0))"),
        (BinaryOp.FloatDiv, DataType.INT64, True, "(a / b - (a % b < 0))"),
        (BinaryOp.FloorMod, DataType.INT64, False, "(((a % b) + b) % b)"),
        (BinaryOp.FloorDiv, DataType.FP32, False, "floor(a / b)"),
        (BinaryOp.FloorMod, DataType.FP32, False, "(a - floor(a / b) * b)"),
        (BinaryOp.FloorDiv, DataType.UINT32, False, None),  # C++'s / floors there
        (BinaryOp.FloatDiv, DataType.FP32, False, None),
        (BinaryOp.Add, DataType.INT64, False, None),
    ],
)
def test_floor_division_forms(
    op: BinaryOp, dtype: DataType, positive: bool, expected: str | None
) -> None:
    assert floor_division(op, "a", "b", dtype, positive) == expected


@pytest.mark.parametrize(
    ("pending", "clobbers"),
    [
        ([("a", "b"), ("b", "a")], True),  # b = a reads the a just written
        ([("a", "b"), ("c", "a_1 + xa")], False),  # a only inside other words
        ([("a", "b"), ("c", "a+1")], True),
        ([("acc_0", "x"), ("y", "TADD(acc_0, z)")], True),
        ([("a", "b"), ("b", "c")], False),  # an earlier value read by none later
    ],
)
def test_clobbers_reads_whole_words_without_filling_the_re_cache(
    pending: list[tuple[str, str]], clobbers: bool
) -> None:
    import re

    from ptoc.codegen.cce.statements import _clobbers

    re.purge()
    assert _clobbers(pending) is clobbers
    assert len(re._cache) == 0  # type: ignore[attr-defined]  # no pattern per name
