"""The legal PTO forms on A2/A3 (PTOAS's default target): element types an instruction does
not take are an E400 on the op's call, unless another form computes the same (INT16 views for
bit-wise ops, an expanded scalar for integer maxs / 32-bit ands, a UINT8 mask for prelu's tmp,
an f32 slope for lrelu, pto.subset + pto.tmov for a window of whole rows of a Vec tile)."""

from __future__ import annotations

import textwrap

import pytest

from ptoc.codegen.pto import generate_pto
from ptoc.codegen.pto.versions import DEFAULT_VERSION
from ptoc.diagnostics import Diagnostic
from ptoc.driver import run_pipeline
from ptoc.frontend import analyze_source


def kernel(params: str, body: str) -> str:
    lines = "".join(f"        {line}\n" for line in textwrap.dedent(body).strip().splitlines())
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def k(self, {params}):\n{lines}"
    )


def compile_pto(
    params: str, body: str, version: str = DEFAULT_VERSION
) -> tuple[str, list[tuple[Where, str]]]:
    """The PTO MLIR of kernel(params, body) for PTOAS ``version``, which the front end and
    the passes accept, and where and what each code-generation diagnostic is."""
    analysis = analyze_source(kernel(params, body), "k.py")
    assert analysis.diagnostics == []
    lowered = run_pipeline(analysis.programs[0], "ptoas")
    assert lowered.diagnostics == []
    generated = generate_pto(lowered.program, ptoas_version=version)
    return generated.text, [(where(d), d.message) for d in generated.diagnostics]


def tile(dtype: str, rows: int = 16, cols: int = 64, v_row: object = None) -> str:
    return (
        f"!pto.tile_buf<loc=vec, dtype={dtype}, rows={rows}, cols={cols}, "
        f"v_row={rows if v_row is None else v_row}, v_col={cols}, blayout=row_major, "
        "slayout=none_box, fractal=512, pad=0>"
    )


Where = tuple[str, int, int, int, int]  # code, first line and column, last line and column


def where(diagnostic: Diagnostic) -> Where:
    span = diagnostic.span
    return diagnostic.code, span.line, span.column, span.end_line, span.end_column


def tensors(dtype: str, *names: str, shape: str = "[16, 64]") -> str:
    return ", ".join(f"{n}: pl.Tensor[{shape}, pl.{dtype}]" for n in names)


def test_an_element_type_the_instruction_does_not_take_is_e400_on_the_call() -> None:
    text, diagnostics = compile_pto(
        tensors("BF16", "a", "out"),
        """
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.add(t, t)
        pl.store(u, [0, 0], [16, 64], out)
        """,
    )
    message = (
        "block.add: pto.tadd takes INT16, UINT16, INT32, UINT32, FP16, FP32 elements on A2/A3 "
        "(PTOAS), not BF16; convert with pl.cast(..., target_type=pl.FP32) first"
    )
    assert diagnostics == [(("E400", 9, 12, 9, 24), message)]
    assert f"// error: {message}" in text


def test_a_literal_that_promotes_to_int64_says_why() -> None:
    _, diagnostics = compile_pto(
        tensors("INT32", "a") + ", out: pl.Tensor[[16, 64], pl.INT64]",
        """
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.add(t, 3)
        pl.store(u, [0, 0], [16, 64], out)
        """,
    )
    assert diagnostics == [
        (
            ("E400", 9, 12, 9, 24),
            "block.adds: pto.tadds takes INT16, UINT16, INT32, UINT32, FP16, FP32 elements on "
            "A2/A3 (PTOAS), not INT64 (a literal makes the INT32 tile's result INT64); use a "
            "pl.Scalar[pl.INT32] value instead of the literal",
        )
    ]


def test_a_bitwise_op_on_int32_runs_on_int16_views() -> None:
    text, diagnostics = compile_pto(
        tensors("INT32", "a", "out"),
        """
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.block.and_(t, t)
        pl.store(u, [0, 0], [16, 64], out)
        """,
    )
    assert diagnostics == []
    i32, i16 = tile("i32"), tile("i16", cols=128)
    assert (
        f"    %5 = pto.treshape %0 : {i32} -> {i16}\n"
        f"    %6 = pto.treshape %1 : {i32} -> {i16}\n"
        f"    pto.tand ins(%5, %5 : {i16}, {i16})\n"
        f"             outs(%6 : {i16})\n"
    ) in text


def test_an_int32_scalar_is_expanded_for_maxs_and_for_ands() -> None:
    text, diagnostics = compile_pto(
        tensors("INT32", "a", "out") + ", s: pl.Scalar[pl.INT32]",
        """
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.maxs(t, s)
        v = pl.block.ands(u, s)
        pl.store(v, [0, 0], [16, 64], out)
        """,
    )
    assert diagnostics == []
    i32, i16 = tile("i32"), tile("i16", cols=128)
    assert f"    %scratch = pto.alloc_tile : {i32}\n" in text
    assert (
        f"    pto.texpands ins(%arg2 : i32)\n"
        f"                 outs(%scratch : {i32})\n"
        f"    pto.tmax ins(%0, %scratch : {i32}, {i32})\n"
    ) in text
    assert f"    %6 = pto.treshape %scratch : {i32} -> {i16}\n" in text
    assert "pto.tmaxs" not in text and "pto.tands" not in text


PRELU = """
        t = pl.load(a, [0, 0], [16, 64])
        tmp = pl.create_tile([16, 64], dtype=pl.FP32)
        u = pl.prelu(t, t, tmp)
        pl.store(u, [0, 0], [16, 64], out)
        """


def test_prelu_takes_a_uint8_mask_of_one_row_more_than_its_result() -> None:
    text, diagnostics = compile_pto(tensors("FP32", "a", "out"), PRELU)
    assert diagnostics == []
    f32, u8 = tile("f32"), tile("ui8", rows=17)
    assert f"    pto.tprelu ins(%0, %0, %scratch : {f32}, {f32}, {u8})\n" in text
    assert f"    %scratch = pto.alloc_tile : {u8}\n" in text
    assert "pto.bitcast" not in text


def test_prelu_for_ptoas_v027_takes_its_tmp_as_a_uint8_mask() -> None:
    text, diagnostics = compile_pto(tensors("FP32", "a", "out"), PRELU, version="0.27")
    assert diagnostics == []
    f32, u8 = tile("f32"), tile("ui8")
    assert f"    %6 = pto.bitcast %1 : {f32} -> {u8}\n" in text
    assert f"    pto.tprelu ins(%0, %0, %6 : {f32}, {f32}, {u8})\n" in text


def test_a_prelu_tmp_of_no_whole_32_byte_mask_rows_is_e400() -> None:
    _, diagnostics = compile_pto(
        tensors("FP32", "a", "out", shape="[16, 8]"),
        """
        t = pl.load(a, [0, 0], [16, 8])
        tmp = pl.create_tile([16, 8], dtype=pl.FP32)
        u = pl.prelu(t, t, tmp)
        pl.store(u, [0, 0], [16, 8], out)
        """,
    )
    assert diagnostics == [
        (
            ("E400", 10, 12, 10, 31),
            "the scratch tile's 8 columns are no whole 32-byte rows as the UINT8 mask A2/A3 "
            "wants: give it a multiple of 32 columns",
        )
    ]


def test_lrelu_slope_is_f32_whatever_the_tile() -> None:
    text, diagnostics = compile_pto(
        tensors("FP16", "a", "out") + ", s: pl.Scalar[pl.FP16]",
        """
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.lrelu(t, s)
        pl.store(u, [0, 0], [16, 64], out)
        """,
    )
    assert diagnostics == []
    f16 = tile("f16")
    assert "    %5 = arith.extf %arg2 : f16 to f32\n" in text
    assert f"    pto.tlrelu ins(%0, %5 : {f16}, f32)\n" in text


WINDOWS = """
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.view(t, [8, 64], [8, 0])
        w = pl.view(t, [8, 64], [i, 0])
        pl.store(u, [0, 0], [8, 64], out)
        pl.store(w, [0, 0], [8, 64], out)
        """
WINDOW_PARAMS = tensors("FP32", "a") + ", out: pl.Tensor[[8, 64], pl.FP32], i: pl.Scalar[pl.INT64]"


WHOLE, PART = tile("f32"), tile("f32", rows=8)


@pytest.mark.parametrize(
    ("version", "view", "dynamic"),
    [
        # v0.57 states the view's type; at a dynamic row it takes the window's rows as valid
        ("0.57", f"pto.subview %0[{{}}, %c0] sizes [8, 64] : {WHOLE} -> {PART}", PART),
        # v0.27 types it by its source and infers a dynamic valid row count
        ("0.27", f"pto.subset %0[{{}}, %c0] sizes [8, 64] : {WHOLE}", tile("f32", 8, v_row="?")),
    ],
)
def test_a_window_of_whole_rows_of_a_vec_tile_is_a_view_copied_with_tmov(
    version: str, view: str, dynamic: str
) -> None:
    text, diagnostics = compile_pto(WINDOW_PARAMS, WINDOWS, version=version)
    assert diagnostics == []
    assert (
        f"    %6 = {view.format('%c8')}\n"
        f"    pto.tmov ins(%6 : {PART})\n"
        f"             outs(%1 : {PART})\n"
    ) in text
    assert f"    %8 = {view.format('%7')}\n    pto.tmov ins(%8 : {dynamic})\n" in text
    assert "pto.textract" not in text


COLUMNS = """
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.view(t, [16, 32], [0, 32])
        pl.store(u, [0, 0], [16, 32], out)
        """


def columns_params(dtype: str = "FP32") -> str:
    return tensors(dtype, "a") + f", out: pl.Tensor[[16, 32], pl.{dtype}]"


def test_a_window_of_part_of_each_row_of_a_vec_tile_is_a_subview_copied_with_tmax() -> None:
    """The view keeps the source's row stride (PTOAS lowers it to Tile<16, 64, valid 16x32>),
    which pto.tmov and the broadcasting ops reject: TMAX of the view with itself copies it
    into the window's own buffer (execution: test_qwen3_vector_execution.py's rope_q)."""
    text, diagnostics = compile_pto(columns_params(), COLUMNS)
    assert diagnostics == []
    part = tile("f32", cols=32)
    assert (
        f"    %5 = pto.subview %0[%c0, %c32] sizes [16, 32] : {WHOLE} -> {part}\n"
        f"    pto.tmax ins(%5, %5 : {part}, {part})\n"
        f"             outs(%1 : {part})\n"
    ) in text
    assert "pto.tmov" not in text and "%scratch" not in text


def test_a_window_of_part_of_each_row_of_a_reshaped_tile_is_taken_of_a_copy() -> None:
    """PTOAS v0.57 lowers no pto.subview of a pto.treshape result: the reshaped tile is
    copied into a scratch tile of its type (pto.tmov, same shapes) and viewed there."""
    text, diagnostics = compile_pto(
        tensors("FP32", "a", shape="[1, 128]") + ", out: pl.Tensor[[2, 32], pl.FP32]",
        """
        t = pl.load(a, [0, 0], [1, 128])
        r = pl.reshape(t, [2, 64])
        u = pl.view(r, [2, 32], [0, 32])
        pl.store(u, [0, 0], [2, 32], out)
        """,
    )
    assert diagnostics == []
    rows, part = tile("f32", rows=2), tile("f32", rows=2, cols=32)
    assert (
        f"    pto.tmov ins(%6 : {rows})\n"
        f"             outs(%scratch : {rows})\n"
        f"    %7 = pto.subview %scratch[%c0, %c32] sizes [2, 32] : {rows} -> {part}\n"
        f"    pto.tmax ins(%7, %7 : {part}, {part})\n"
        f"             outs(%2 : {part})\n"
    ) in text


def test_a_window_of_part_of_each_row_is_e400_where_no_copy_takes_its_dtype() -> None:
    _, diagnostics = compile_pto(columns_params("INT8"), COLUMNS)
    assert diagnostics == [
        (
            ("E400", 9, 12, 9, 41),
            "block.view: a window of part of each row of a Vec tile is copied on A2/A3 by "
            "pto.tmax, which takes INT16, UINT16, INT32, UINT32, FP16, FP32, not INT8: cast "
            "the tile first, or take whole rows",
        )
    ]


def test_a_window_of_part_of_each_row_of_a_vec_tile_is_e400_before_ptoas_057() -> None:
    _, diagnostics = compile_pto(columns_params(), COLUMNS, version="0.27")
    assert diagnostics == [
        (
            ("E400", 9, 12, 9, 41),
            "block.view: this window of a Vec tile has no A2/A3 PTO form: pto.textract reads "
            "Mat tiles only, pto.subset views whole rows of a row-major tile (here 64 "
            "columns from column 0), and only PTOAS v0.57's pto.subview views part of each row",
        )
    ]


def test_an_unsigned_scalar_expands_as_the_signed_type_of_its_width() -> None:
    """texpands takes signed integers: the expanded tile is viewed as the unsigned type for
    pto.tmin, and is viewed as INT16 directly for pto.tor (PTOAS lowers no view of a view)."""
    text, diagnostics = compile_pto(
        tensors("UINT16", "a", "out") + ", " + tensors("UINT32", "b", "o2") + ", "
        "s: pl.Scalar[pl.UINT16], w: pl.Scalar[pl.UINT32]",
        """
        t = pl.load(a, [0, 0], [16, 64])
        u = pl.mins(t, s)
        pl.store(u, [0, 0], [16, 64], out)
        x = pl.load(b, [0, 0], [16, 64])
        y = pl.block.ors(x, w)
        pl.store(y, [0, 0], [16, 64], o2)
        """,
    )
    assert diagnostics == []
    i16, u16, i32 = tile("i16"), tile("ui16"), tile("i32")
    assert (
        f"    pto.texpands ins(%arg4 : i16)\n"
        f"                 outs(%scratch : {i16})\n"
        f"    %9 = pto.bitcast %scratch : {i16} -> {u16}\n"
        f"    pto.tmin ins(%0, %9 : {u16}, {u16})\n"
    ) in text
    assert (
        f"    pto.texpands ins(%arg5 : i32)\n"
        f"                 outs(%scratch_1 : {i32})\n"
        f"    %12 = pto.treshape %2 : {tile('ui32')} -> {tile('i16', cols=128)}\n"
        f"    %13 = pto.treshape %scratch_1 : {i32} -> {tile('i16', cols=128)}\n"
    ) in text


def test_a_bitwise_op_on_int32_column_vectors_has_no_int16_view() -> None:
    _, diagnostics = compile_pto(
        tensors("INT32", "a", "out", shape="[32, 1]"),
        """
        t = pl.load(a, [0, 0], [32, 1])
        u = pl.block.and_(t, t)
        pl.store(u, [0, 0], [32, 1], out)
        """,
    )
    assert diagnostics == [
        (
            ("E400", 9, 12, 9, 31),
            "a tile of i32 elements in col_major layout has no INT16 view on A2/A3 "
            "(pto.treshape reinterprets the rows of row-major tiles)",
        )
    ]


def test_the_transposed_right_operand_is_a_zn_view_of_its_mat_tile() -> None:
    # TMATMUL reads Right in zN (execution: scores_q_kT_FP16_16x32 through PTOAS)
    text, diagnostics = compile_pto(
        "q: pl.Tensor[[16, 32], pl.FP16], k: pl.Tensor[[16, 32], pl.FP16], "
        "c: pl.Tensor[[16, 16], pl.FP32]",
        """
        q_mat = pl.load(q, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)
        k_mat = pl.load(k, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)
        q_left = pl.move(q_mat, target_memory=pl.MemorySpace.Left)
        k_right = pl.move(k_mat, target_memory=pl.MemorySpace.Right, transpose=True)
        acc = pl.matmul(q_left, k_right)
        pl.l0c_store(acc, [0, 0], [16, 16], c)
        """,
    )
    assert diagnostics == []

    def layout(loc: str, rows: int, cols: int, blayout: str, slayout: str) -> str:
        return (
            f"!pto.tile_buf<loc={loc}, dtype=f16, rows={rows}, cols={cols}, v_row={rows}, "
            f"v_col={cols}, blayout={blayout}, slayout={slayout}, fractal=512, pad=0>"
        )

    nz = layout("mat", 16, 32, "col_major", "row_major")
    zn = layout("mat", 32, 16, "row_major", "col_major")
    right = layout("right", 32, 16, "row_major", "col_major")
    assert f"    %10 = pto.treshape %1 : {nz} -> {zn}\n" in text
    assert f"    pto.tmov ins(%10 : {zn})\n             outs(%3 : {right})\n" in text


ROW_SUM_OF_4 = """
        t = pl.load(a, [0, 0], [4, 64])
        tmp = pl.create_tile([4, 64], dtype=pl.FP32)
        s = pl.row_sum(t, tmp)
        pl.store(s, [0, 0], [4, 1], out)
        """


@pytest.mark.parametrize("version", ["0.57", "0.27"])
def test_a_row_sum_into_a_padded_short_column_reads_its_source_with_as_many_rows(
    version: str,
) -> None:
    """[4, 1] FP32 is declared rows=8, v_row=4 and pto-isa's CPU TROWSUM asserts its source
    has as many rows (registry Lowering.same_rows): v0.57 views the source's 8 rows, valid 4;
    v0.27's pto.subset is typed by its source and has no such view."""
    params = tensors("FP32", "a", shape="[4, 64]") + ", out: pl.Tensor[[4, 1], pl.FP32]"
    text, diagnostics = compile_pto(params, ROW_SUM_OF_4, version=version)
    assert diagnostics == []
    source, rows = tile("f32", rows=4), tile("f32", rows=8, v_row=4)
    column = (
        "!pto.tile_buf<loc=vec, dtype=f32, rows=8, cols=1, v_row=4, v_col=1, "
        "blayout=col_major, slayout=none_box, fractal=512, pad=0>"
    )
    if version == "0.57":
        assert (
            f"    %6 = pto.subview %0[%c0, %c0] sizes [8, 64] : {source} -> {rows}\n"
            f"    pto.trowsum ins(%6, %1 : {rows}, {source})\n"
            f"                outs(%2 : {column})\n"
        ) in text
    else:
        assert "subview" not in text and "subset" not in text
        assert f"    pto.trowsum ins(%0, %1 : {source}, {source})\n" in text
