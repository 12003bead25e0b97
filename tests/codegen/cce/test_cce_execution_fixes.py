"""What pto-isa requires of the generated C++, as exact text (each also has an execution test
in tests/execution that failed before the fix)."""

from __future__ import annotations

from ptoc.frontend import analyze_source
from ptoc.run.execute import cce_kernel

HEADER = "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"


def generate(body: str, function: str) -> list[str]:
    analysis = analyze_source(HEADER + body, "k.py")
    assert not analysis.diagnostics
    text, diagnostics = cce_kernel(analysis.all_programs()[0], function)
    assert text is not None, diagnostics
    return [line.strip() for line in text.splitlines()]


def test_a_scalar_result_is_stored_in_the_slot_after_the_arguments() -> None:
    lines = generate(
        "    @pl.function\n"
        "    def twice(self, x: pl.Scalar[pl.INT32], y: pl.Scalar[pl.FP32]) -> "
        "pl.Scalar[pl.FP32]:\n"
        "        z: pl.Scalar[pl.FP32] = y * 2.0\n"
        "        return z\n",
        "twice",
    )
    assert lines[-3:] == [
        "float z = (y * 2.0f);",
        "*reinterpret_cast<__gm__ float*>(&args[2]) = z;",
        "}",
    ]


def test_a_one_column_vector_tile_is_col_major() -> None:
    lines = generate(
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def col(self, x: pl.Tensor[[32, 1], pl.FP32], y: pl.Tensor[[32, 1], pl.FP32]):\n"
        "        t = pl.load(x, [0, 0], [32, 1])\n"
        "        e = pl.exp(t)\n"
        "        pl.store(e, [0, 0], [32, 1], y)\n",
        "col",
    )
    assert "using tType = Tile<TileType::Vec, float, 32, 1, BLayout::ColMajor, -1, -1>;" in lines
    assert "using eType = Tile<TileType::Vec, float, 32, 1, BLayout::ColMajor, -1, -1>;" in lines
    # A2/A3's TLOAD / TSTORE copy a ColMajor tile to a DN global tensor only
    dn = "GlobalTensor<float, xShapeDim5, xStrideDim5, pto::Layout::DN>;"
    assert f"using xGlobalType = {dn}" in lines


BROADCASTS = (
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def bc(self, x: pl.Tensor[[32, 64], pl.FP32], r: pl.Tensor[[32, 1], pl.FP32],\n"
    "           c: pl.Tensor[[1, 64], pl.FP32], y: pl.Tensor[[32, 64], pl.FP32]):\n"
    "        tx = pl.load(x, [0, 0], [32, 64])\n"
    "        tr = pl.load(r, [0, 0], [32, 1])\n"
    "        tc = pl.load(c, [0, 0], [1, 64])\n"
    "        a = pl.sub(tx, tr)\n"
    "        b = pl.maximum(a, tc)\n"
    "        pl.store(b, [0, 0], [32, 64], y)\n"
)


def test_a_broadcast_rhs_vector_selects_the_row_or_column_expand_form() -> None:
    lines = generate(BROADCASTS, "bc")
    assert "TROWEXPANDSUB(a, tx, tr);" in lines
    assert "TCOLEXPANDMAX(b, a, tc);" in lines


def test_a_broadcast_lhs_has_no_instruction() -> None:
    analysis = analyze_source(
        HEADER + BROADCASTS.replace("pl.sub(tx, tr)", "pl.sub(tr, tx)"), "k.py"
    )
    text, diagnostics = cce_kernel(analysis.all_programs()[0], "bc")
    assert text is None
    assert [(d.code, d.message) for d in diagnostics] == [
        (
            "E400",
            "block.sub of a [32, 1] and a [32, 64] tile has no CCE instruction: only the rhs "
            "may be broadcast, as a per-row [M, 1] or a per-column [1, N] vector (swap the "
            "operands of a commutative op, or expand the lhs first)",
        )
    ]


COMPARE = (
    "    @pl.function(type=pl.FunctionType.InCore)\n"
    "    def lt(self, x: pl.Tensor[[16, 64], pl.FP32], z: pl.Tensor[[16, 64], pl.FP32],\n"
    "           y: pl.Tensor[[16, 64], pl.FP32]):\n"
    "        a = pl.load(x, [0, 0], [16, 64])\n"
    "        b = pl.load(z, [0, 0], [16, 64])\n"
    "        c = pl.cmp(a, b, cmp_type=2)\n"
    "        pl.store(c, [0, 0], [16, 64], y)\n"
)


def test_a_compare_writes_a_uint8_mask_and_selects_one_or_zero() -> None:
    lines = generate(COMPARE, "lt")
    assert (
        "using c_maskType = Tile<TileType::Vec, uint8_t, 16, 32, BLayout::RowMajor, -1, -1>;"
        in (lines)
    )
    body = lines[lines.index("// Function body") + 5 : -4]
    assert body == [
        "TCMP(c_mask, a, b, CmpMode::LT);",
        "pipe_barrier(PIPE_V);",
        "TEXPANDS(c_ones, 1.0f);",
        "pipe_barrier(PIPE_V);",
        "TSELS(c, c_mask, c_ones, c_tmp, 0.0f);",
    ]


def test_a_vector_write_into_a_buffer_an_earlier_vector_op_reads_waits_for_it() -> None:
    # MemoryReuse puts the ones in a's buffer (a is dead after TCMP). The V pipe may overlap
    # its instructions, so TEXPANDS must not start while TCMP still reads a: the barrier
    # between them is for that write-after-read (the CPU simulator runs instructions in
    # order and pipe_barrier is a no-op there, so only the text can show it).
    lines = generate(COMPARE, "lt")
    address = lines[lines.index("aType a(16, 64);") + 1]
    assert address == "TASSIGN(a, 0x0);"
    assert lines[lines.index("c_onesType c_ones(16, 64);") + 1] == "TASSIGN(c_ones, 0x0);"
    texpands = lines.index("TEXPANDS(c_ones, 1.0f);")
    assert lines[texpands - 2 : texpands] == [
        "TCMP(c_mask, a, b, CmpMode::LT);",
        "pipe_barrier(PIPE_V);",
    ]


def test_a_compare_of_one_column_tiles_has_no_cce_form() -> None:
    # One-column tiles are column-major, and A2/A3's TSELS takes row-major tiles only.
    source = HEADER + COMPARE.replace("[16, 64]", "[32, 1]")
    analysis = analyze_source(source, "k.py")
    assert not analysis.diagnostics
    text, diagnostics = cce_kernel(analysis.all_programs()[0], "lt")
    assert [(d.code, d.span.line) for d in diagnostics] == [("E400", 11)]
    assert "not one column: TSELS takes row-major tiles" in diagnostics[0].message
    assert text is None or "TCMP(c" not in text


def test_a_scalar_op_on_column_vectors_runs_on_their_row_views() -> None:
    # TMULS asserts row-major tiles (execution: rms_norm_FP32, row_mean_square_muls_FP32)
    lines = generate(
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def scale(self, x: pl.Tensor[[32, 1], pl.FP32], y: pl.Tensor[[32, 1], pl.FP32]):\n"
        "        t = pl.load(x, [0, 0], [32, 1])\n"
        "        m = pl.mul(t, 0.5)\n"
        "        pl.store(m, [0, 0], [32, 1], y)\n",
        "scale",
    )
    start = lines.index(
        "using mRowType = Tile<TileType::Vec, float, 1, 32, BLayout::RowMajor, -1, -1>;"
    )
    assert lines[start - 1 : start + 8] == [
        "{",
        "using mRowType = Tile<TileType::Vec, float, 1, 32, BLayout::RowMajor, -1, -1>;",
        "mRowType mRow(1, 32);",
        "TASSIGN(mRow, 0x80);",
        "using tRowType = Tile<TileType::Vec, float, 1, 32, BLayout::RowMajor, -1, -1>;",
        "tRowType tRow(1, 32);",
        "TASSIGN(tRow, 0x0);",
        "TMULS(mRow, tRow, 0.5f);",
        "}",
    ]


def test_the_transposed_right_operand_is_a_zn_view_of_its_mat_tile() -> None:
    # TMATMUL reads Right in zN (execution: scores_q_kT_FP16_16x32)
    lines = generate(
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def scores(self, q: pl.Tensor[[16, 32], pl.FP16], k: pl.Tensor[[16, 32], pl.FP16],\n"
        "               c: pl.Tensor[[16, 16], pl.FP32]):\n"
        "        q_mat = pl.load(q, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)\n"
        "        k_mat = pl.load(k, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)\n"
        "        q_left = pl.move(q_mat, target_memory=pl.MemorySpace.Left)\n"
        "        k_right = pl.move(k_mat, target_memory=pl.MemorySpace.Right, transpose=True)\n"
        "        acc = pl.matmul(q_left, k_right)\n"
        "        pl.l0c_store(acc, [0, 0], [16, 16], c)\n",
        "scores",
    )
    right = "Tile<TileType::Right, half, 32, 16, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>"
    assert f"using k_rightType = {right};" in lines
    start = lines.index("TMOV(q_left, q_mat);") + 1
    view = "Tile<TileType::Mat, half, 32, 16, BLayout::RowMajor, -1, -1, SLayout::ColMajor, 512>"
    assert lines[start : start + 6] == [
        "{",
        f"using k_rightTransposedType = {view};",
        "k_rightTransposed k_rightTransposed(32, 16);".replace(
            "Transposed k_", "TransposedType k_"
        ),
        "TASSIGN(k_rightTransposed, 0x400);",
        "TMOV(k_right, k_rightTransposed);",
        "}",
    ]


def test_a_bias_row_in_mat_is_moved_into_the_bias_table() -> None:
    # TMATMUL_BIAS reads its bias from Bias (execution: matmul_bias_FP16_16x32x64)
    lines = generate(
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def mb(self, a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 64], pl.FP16],\n"
        "           bias: pl.Tensor[[1, 64], pl.FP32], c: pl.Tensor[[16, 64], pl.FP32]):\n"
        "        a_mat = pl.load(a, [0, 0], [16, 32], target_memory=pl.MemorySpace.Mat)\n"
        "        b_mat = pl.load(b, [0, 0], [32, 64], target_memory=pl.MemorySpace.Mat)\n"
        "        bias_mat = pl.load(bias, [0, 0], [1, 64], target_memory=pl.MemorySpace.Mat)\n"
        "        a_left = pl.move(a_mat, target_memory=pl.MemorySpace.Left)\n"
        "        b_right = pl.move(b_mat, target_memory=pl.MemorySpace.Right)\n"
        "        acc = pl.matmul_bias(a_left, b_right, bias_mat)\n"
        "        pl.l0c_store(acc, [0, 0], [16, 64], c)\n",
        "mb",
    )
    assert (
        "using acc_biasType = Tile<TileType::Bias, float, 1, 64, BLayout::RowMajor, -1, -1>;"
        in lines
    )
    assert "TMOV(acc_bias, bias_mat);" in lines
    assert "TMATMUL_BIAS(acc, a_left, b_right, acc_bias);" in lines


def test_a_short_column_is_declared_in_whole_32_byte_blocks() -> None:
    # [4, 1] FP32 is 16 bytes: pto-isa's Tile asserts whole blocks, so 8 rows, 4 valid; the
    # CPU simulator's TROWSUM wants its source's rows to match: a view of 8 rows, 4 valid.
    lines = generate(
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def stats(self, x: pl.Tensor[[4, 64], pl.FP32], y: pl.Tensor[[4, 1], pl.FP32]):\n"
        "        t = pl.load(x, [0, 0], [4, 64])\n"
        "        tmp = pl.create_tile([4, 64], dtype=pl.FP32)\n"
        "        s = pl.row_sum(t, tmp)\n"
        "        m = pl.mul(s, 0.5)\n"
        "        pl.store(m, [0, 0], [4, 1], y)\n",
        "stats",
    )
    assert "using sType = Tile<TileType::Vec, float, 8, 1, BLayout::ColMajor, -1, -1>;" in lines
    assert "sType s(4, 1);" in lines
    at = lines.index("TROWSUM(s, tRows, tmp);")
    assert lines[at - 3 : at] == [
        "using tRowsType = Tile<TileType::Vec, float, 8, 64, BLayout::RowMajor, -1, -1>;",
        "tRowsType tRows(4, 64);",
        "TASSIGN(tRows, 0x0);",
    ]
    assert "using mRowType = Tile<TileType::Vec, float, 1, 8, BLayout::RowMajor, -1, -1>;" in lines


def test_a_column_of_a_wider_tensor_is_e416() -> None:
    source = HEADER + (
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def col(self, x: pl.Tensor[[16, 8], pl.FP32], y: pl.Tensor[[16, 8], pl.FP32]):\n"
        "        t = pl.load(x, [0, 2], [16, 1])\n"
        "        e = pl.exp(t)\n"
        "        pl.store(e, [0, 3], [16, 1], y)\n"
    )
    analysis = analyze_source(source, "k.py")
    text, diagnostics = cce_kernel(analysis.all_programs()[0], "col")
    assert text is None
    assert [(d.code, d.message) for d in diagnostics] == [
        (
            "E416",
            "a [16, 1] Vec tile loaded from one column of the [16, 8] tensor 'x': a one-column "
            "tile is column-major, and A2/A3's TLOAD / TSTORE copy it to a DN tensor only (a "
            "contiguous column), not a strided column of an ND tensor; copy whole rows (a "
            "[16, 8] window) or keep the column in a [16, 1] tensor",
        ),
        (
            "E416",
            "a [16, 1] Vec tile stored to one column of the [16, 8] tensor 'y': a one-column "
            "tile is column-major, and A2/A3's TLOAD / TSTORE copy it to a DN tensor only (a "
            "contiguous column), not a strided column of an ND tensor; copy whole rows (a "
            "[16, 8] window) or keep the column in a [16, 1] tensor",
        ),
    ]
    spans = [(d.span.line, d.span.column, d.span.end_column) for d in diagnostics]
    assert spans == [(8, 12, 39), (10, 8, 39)]
