"""Per op family: the instruction (from the registry's pto lowering), typed ins/outs,
scalar operands, attributes, axis-dependent reductions, sync ops and buffer sharing."""

from __future__ import annotations

from ir_builder import buffer, call, ints, scalar, tensor, tile
from pto_irb import at, body_of, define, function, generate, load, short, store, sync, tile_buf

from ptoc.ir import (
    BLayout,
    ConstFloat,
    DataType,
    EvalStmt,
    MemorySpace,
    ScalarType,
    TileView,
    const_int,
)
from ptoc.ops.registry import PipeType

F32 = ScalarType(DataType.FP32)


def kernel(body):
    """A kernel over tensors a, out (32x32 f32): it loads a into t0 (buffer %0), then
    ``body(a, out, t0)``."""
    a, out = tensor(32, 32, name="a"), tensor(32, 32, name="out")
    t0 = tile(32, 32, memref=buffer(0), name="t0")
    return function("k", [a, out], load(t0, a, [0, 0]), *body(a, out, t0))


def body_after_first_load(text: str) -> str:
    body = body_of(text)
    return body.split("\n\n", 1)[1]


def test_tile_tile_op_writes_the_result_buffer() -> None:
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    text, diagnostics = generate(kernel(lambda a, out, t0: [define(t1, "block.add", t0, t0)]))
    assert diagnostics == []
    assert short(body_after_first_load(text)) == (
        "// Add\npto.tadd ins(%0, %0 : TB, TB)\n         outs(%1 : TB)\n\nreturn\n"
    )


def test_three_operand_add_is_taddc() -> None:
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    text, _ = generate(kernel(lambda a, out, t0: [define(t1, "block.addc", t0, t0, t0)]))
    assert "pto.taddc ins(%0, %0, %0 : TB, TB, TB)\n" in short(text)


def test_scalar_literals_take_the_element_type_of_the_result() -> None:
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    half = ConstFloat(F32, value=1.5)
    text, diagnostics = generate(
        kernel(
            lambda a, out, t0: [
                define(t1, "block.adds", t0, half),
                define(t1, "block.muls", t0, const_int(2)),  # an INT64 literal on an f32 tile
            ]
        )
    )
    assert diagnostics == []
    assert "    %cst = arith.constant 1.5 : f32\n    %cst_1 = arith.constant 2.0 : f32\n" in text
    assert short(body_after_first_load(text)) == (
        "// Adds\n"
        "pto.tadds ins(%0, %cst : TB, f32)\n"
        "          outs(%1 : TB)\n"
        "\n"
        "// Muls\n"
        "pto.tmuls ins(%0, %cst_1 : TB, f32)\n"
        "          outs(%1 : TB)\n"
        "\n"
        "return\n"
    )


def test_scalar_parameter_operand_keeps_its_type() -> None:
    a, out, s = tensor(32, 32, name="a"), tensor(32, 32, name="out"), scalar("s", DataType.FP32)
    t0, t1 = tile(32, 32, memref=buffer(0), name="t0"), tile(32, 32, memref=buffer(1), name="t1")
    fn = function("k", [a, s, out], load(t0, a, [0, 0]), define(t1, "block.subs", t0, s))
    text, _ = generate(fn)
    assert text.startswith(
        'module attributes {pto.target_arch = "a2a3"} {\n'
        "  func.func @k(%arg0: !pto.ptr<f32>,\n"
        "              %arg1: f32,\n"
        "              %arg2: !pto.ptr<f32>) attributes {pto.entry, "
        "pto.kernel_kind = #pto.kernel_kind<vector>} {\n"
    )
    assert "pto.tsubs ins(%0, %arg1 : TB, f32)\n" in short(text)


def test_unary_and_row_reduction_with_scratch_tile() -> None:
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    row = tile(32, 1, memref=buffer(2), name="row")
    text, _ = generate(
        kernel(
            lambda a, out, t0: [
                define(t1, "block.exp", t0),
                define(row, "block.row_sum", t1, t0),
            ]
        )
    )
    assert short(body_after_first_load(text)) == (
        "// Exp\n"
        "pto.texp ins(%0 : TB)\n"
        "         outs(%1 : TB)\n"
        "\n"
        "// Row sum\n"
        "pto.trowsum ins(%1, %0 : TB, TB)\n"
        f"            outs(%2 : {tile_buf(32, 1)})\n"
        "\n"
        "return\n"
    )


def test_axis_reduction_picks_row_or_column_instruction() -> None:
    cols = tile(1, 32, memref=buffer(1), name="cols")
    rows = tile(32, 1, memref=buffer(2), name="rows")
    text, _ = generate(
        kernel(
            lambda a, out, t0: [
                define(cols, "block.sum", t0, axis=0, keepdim=True),
                define(rows, "block.max", t0, axis=-1, keepdim=True),
            ]
        )
    )
    body = short(body_after_first_load(text))
    assert f"pto.tcolsum ins(%0 : TB)\n            outs(%1 : {tile_buf(1, 32)})\n" in body
    # the row form takes a scratch tile, allocated with the buffers when the IR has none
    assert (
        f"pto.trowmax ins(%0, %scratch : TB, TB)\n            outs(%2 : {tile_buf(32, 1)})\n"
        in body
    )
    assert "axis" not in body  # the instruction states the axis
    assert "    %scratch = pto.alloc_tile : " + tile_buf() + "\n\n" in text


def test_attributes_become_typed_dialect_attributes() -> None:
    half = tile(32, 32, memref=buffer(1), dtype=DataType.FP16, name="half")
    mask = tile(32, 32, memref=buffer(2), name="mask")
    text, _ = generate(
        kernel(
            lambda a, out, t0: [
                define(half, "block.cast", t0, target_type=DataType.FP16, mode="round"),
                define(mask, "block.cmp", t0, t0, cmp_type=2),
            ]
        )
    )
    body = short(body_after_first_load(text))
    # target_type is stated by the outs buffer's dtype; mode and cmp_type are the typed
    # attributes PTOAttrs.td defines, where each op's assembly format puts its attr-dict
    assert (
        f"pto.tcvt ins(%0 {{rmode = #pto<round_mode ROUND>}} : TB)\n"
        f"         outs(%1 : {tile_buf(dtype='f16')})\n"
    ) in body
    assert (
        "pto.tcmp ins(%0, %0 {cmpMode = #pto<cmp lt>} : TB, TB)\n         outs(%2 : TB)\n" in body
    )


def test_an_attribute_the_dialect_cannot_spell_is_an_error() -> None:
    moved = tile(32, 32, memref=buffer(1), name="moved")
    text, diagnostics = generate(
        kernel(
            lambda a, out, t0: [
                define(
                    moved,
                    "block.move",
                    t0,
                    target_memory=MemorySpace.Vec,
                    transpose=True,
                    span=at(5, 8, 40),
                ),
            ]
        )
    )
    assert [(d.code, d.message, d.span) for d in diagnostics] == [
        (
            "E400",
            "block.move: transpose=true has no PTO form (pto.tmov has no such attribute)",
            at(5, 8, 40),
        )
    ]


def test_matmul_buffers_use_their_memory_space_and_tile_view() -> None:
    left_view = TileView(blayout=BLayout.row_major, slayout=BLayout.row_major, fractal=512)
    acc_view = TileView(blayout=BLayout.col_major, slayout=BLayout.row_major, fractal=1024)
    lhs = tile(
        16, 32, memref=buffer(1, MemorySpace.Left), dtype=DataType.FP16, view=left_view, name="lhs"
    )
    # no view: a Right tile is in the one layout TMATMUL reads (zN) whatever its view
    rhs = tile(32, 16, memref=buffer(2, MemorySpace.Right), dtype=DataType.FP16, name="rhs")
    acc = tile(
        16, 16, memref=buffer(3, MemorySpace.Acc), dtype=DataType.FP32, view=acc_view, name="acc"
    )
    a16, b16 = (
        tensor(16, 32, dtype=DataType.FP16, name="a"),
        tensor(32, 16, dtype=DataType.FP16, name="b"),
    )
    fn = function(
        "mm",
        [a16, b16],
        load(lhs, a16, [0, 0]),
        load(rhs, b16, [0, 0]),
        define(acc, "block.matmul", lhs, rhs),
    )
    text, diagnostics = generate(fn)
    assert diagnostics == []
    assert (
        "    %0 = pto.alloc_tile : !pto.tile_buf<loc=left, dtype=f16, rows=16, cols=32, "
        "v_row=16, v_col=32, blayout=row_major, slayout=row_major, fractal=512, pad=0>\n"
        "    %1 = pto.alloc_tile : !pto.tile_buf<loc=right, dtype=f16, rows=32, cols=16, "
        "v_row=32, v_col=16, blayout=row_major, slayout=col_major, fractal=512, pad=0>\n"
        "    %2 = pto.alloc_tile : !pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=16, "
        "v_row=16, v_col=16, blayout=col_major, slayout=row_major, fractal=1024, pad=0>\n"
    ) in text
    assert "    // Matmul\n    pto.tmatmul ins(%0, %1 : !pto.tile_buf<loc=left" in text


def test_tiles_sharing_a_memref_share_one_allocation() -> None:
    a, out = tensor(32, 32, name="a"), tensor(32, 32, name="out")
    shared = buffer(0)
    t0, t1, t2 = (
        tile(32, 32, memref=shared, name="t0"),
        tile(32, 32, memref=buffer(1), name="t1"),
        tile(32, 32, memref=shared, name="t2"),
    )
    fn = function(
        "k",
        [a, out],
        load(t0, a, [0, 0]),
        define(t1, "block.exp", t0),
        define(t2, "block.exp", t1),
        store(t2, [0, 0], out),
    )
    text, _ = generate(fn)
    assert text.count("pto.alloc_tile") == 2
    body = short(body_of(text))
    assert "pto.texp ins(%1 : TB)\n         outs(%0 : TB)\n" in body
    assert "pto.tstore ins(%0 : TB)\n" in body
    # two allocations, two views: the body starts at %4
    assert "%4 = pto.partition_view %2," in body


def test_valid_shape_of_the_tile_view_sets_v_row_and_v_col() -> None:
    view = TileView(valid_shape=(const_int(30), const_int(17)))
    t0 = tile(32, 32, memref=buffer(0), view=view, name="t0")
    a = tensor(32, 32, name="a")
    text, _ = generate(function("k", [a], load(t0, a, [0, 0])))
    assert "rows=32, cols=32, v_row=30, v_col=17, blayout=row_major" in text


def test_one_dimensional_tile_is_one_row() -> None:
    a = tensor(64, name="a")
    t0 = tile(64, memref=buffer(0), name="t0")
    text, _ = generate(function("k", [a], load(t0, a, [0])))
    assert tile_buf(1, 64) in text
    assert "pto.make_tensor_view %arg0, shape = [%c64],\n         strides = [%c1]" in text
    assert "offsets = [%c0], sizes = [%c64]" in text
    assert ": !pto.tensor_view<?xf32> -> !pto.partition_tensor_view<64xf32>" in text


def test_sync_ops_use_the_ptoas_flag_and_barrier_syntax() -> None:
    text, diagnostics = generate(
        kernel(
            lambda a, out, t0: [
                sync("system.sync_src", set_pipe=PipeType.MTE2, wait_pipe=PipeType.V, event_id=0),
                sync("system.sync_dst", set_pipe=PipeType.MTE2, wait_pipe=PipeType.V, event_id=0),
                sync("system.bar_v"),
                sync("system.sync_src", set_pipe=4, wait_pipe=2, event_id=3),  # seed integer codes
                sync("system.bar_all"),
                store(t0, [0, 0], out),
            ]
        )
    )
    assert diagnostics == []
    assert short(body_after_first_load(text)) == (
        "pto.set_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]\n"
        "pto.wait_flag[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]\n"
        "pto.barrier <PIPE_V>\n"
        "pto.set_flag[<PIPE_V>, <PIPE_MTE3>, <EVENT_ID3>]\n"
        "pto.barrier <PIPE_ALL>\n"
        "\n"
        "// Store t0\n"
        "%4 = pto.partition_view %2, offsets = [%c0, %c0], sizes = [%c32, %c32]\n"
        "     : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>\n"
        "pto.tstore ins(%0 : TB)\n"
        "           outs(%4 : !pto.partition_tensor_view<32x32xf32>)\n"
        "\n"
        "return\n"
    )


def test_create_tile_is_just_its_allocation() -> None:
    a, out = tensor(32, 32, name="a"), tensor(32, 32, name="out")
    acc = tile(32, 32, memref=buffer(0), name="acc")
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    fn = function(
        "k",
        [a, out],
        define(
            acc,
            "block.create_tile",
            ints(32, 32),
            dtype=DataType.FP32,
            target_memory=MemorySpace.Vec,
        ),
        define(t1, "block.exp", acc),
    )
    text, diagnostics = generate(fn)
    assert diagnostics == []
    assert short(body_of(text)) == (
        "// Exp\npto.texp ins(%0 : TB)\n         outs(%1 : TB)\n\nreturn\n"
    )


def test_store_result_is_the_output_tensor_view() -> None:
    a, out = tensor(32, 32, name="a"), tensor(32, 32, name="out")
    t0 = tile(32, 32, memref=buffer(0), name="t0")
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    out2 = tensor(32, 32, name="out2")
    fn = function(
        "k",
        [a, out],
        load(t0, a, [0, 0]),
        store(t0, [0, 0], out, result=out2),
        load(t1, out2, [0, 0]),
    )
    text, _ = generate(fn)
    assert "    %5 = pto.partition_view %3, offsets" in text  # the store, into out's view
    assert "    %6 = pto.partition_view %3, offsets" in text  # the reload reads the same view


def test_block_op_with_scalar_result() -> None:
    a = tensor(32, 32, name="a")
    idx = scalar("idx", DataType.UINT64)
    t0 = tile(32, 32, memref=buffer(0), name="t0")
    from ptoc.ir import AssignStmt, Binary, BinaryOp, Var

    row = Var(ScalarType(DataType.INT64), name="row")
    fn = function(
        "k",
        [a],
        AssignStmt(idx, call("block.get_block_idx", type_=idx.type)),
        AssignStmt(
            row, Binary(ScalarType(DataType.INT64), op=BinaryOp.Mul, lhs=idx, rhs=const_int(32))
        ),
        load(t0, a, [row, 0], span=at(3, 4, 40)),
    )
    text, diagnostics = generate(fn)
    assert diagnostics == []
    assert short(body_of(text)) == (
        "// Get block idx\n"
        "%2 = pto.get_block_idx\n"  # its result is always i64: the format has no type
        "\n"
        "%3 = arith.index_castui %2 : i64 to index\n"
        "%4 = arith.muli %3, %c32 : index\n"
        "\n"
        "// Load t0\n"
        "%5 = pto.partition_view %1, offsets = [%4, %c0], sizes = [%c32, %c32]\n"
        "     : !pto.tensor_view<?x?xf32> -> !pto.partition_tensor_view<32x32xf32>\n"
        "pto.tload ins(%5 : !pto.partition_tensor_view<32x32xf32>)\n"
        "          outs(%0 : TB)\n"
        "\n"
        "return\n"
    )


def test_seed_004_positional_load_and_store() -> None:
    a, out = tensor(64, 64, name="a"), tensor(64, 64, name="out")
    t0 = tile(32, 64, memref=buffer(0), name="t0")
    c = const_int
    fn = function(
        "k",
        [a, out],
        define(t0, "block.load", a, c(32), c(0), c(32), c(64)),
        EvalStmt(call("block.store", t0, c(0), c(0), c(32), c(64), out, type_=out.type)),
    )
    text, diagnostics = generate(fn)
    assert diagnostics == []
    assert "offsets = [%c32, %c0], sizes = [%c32, %c64]" in text
    assert "offsets = [%c0, %c0], sizes = [%c32, %c64]" in text


def test_reused_memref_with_a_different_tile_type_gets_its_own_allocation() -> None:
    """MemoryReuse puts a [32, 1] tile into a [32, 32] tile's buffer; an SSA value has one
    type, so the smaller tile gets an alloc_tile of its own type."""
    a, out = tensor(32, 32, name="a"), tensor(32, 1, name="out")
    t0 = tile(32, 32, memref=buffer(0), name="t0")
    row = tile(32, 1, memref=buffer(0), name="row")  # the same MemRef
    fn = function(
        "k",
        [a, out],
        load(t0, a, [0, 0]),
        define(row, "block.row_sum", t0),
        store(row, [0, 0], out),
    )
    text, diagnostics = generate(fn)
    assert diagnostics == []
    assert (
        "    // Allocations\n"
        "    %0 = pto.alloc_tile : " + tile_buf() + "\n"
        "    %1 = pto.alloc_tile : " + tile_buf(32, 1) + "\n"
        "    %scratch = pto.alloc_tile : " + tile_buf() + "\n"
        "\n"
    ) in text
    body = body_of(text)
    assert (
        f"pto.trowsum ins(%0, %scratch : {tile_buf()}, {tile_buf()})\n"
        f"            outs(%1 : {tile_buf(32, 1)})\n"
    ) in body
    assert f"pto.tstore ins(%1 : {tile_buf(32, 1)})\n" in body


COLUMN = (
    "!pto.tile_buf<loc=vec, dtype=f32, rows=32, cols=1, v_row=32, v_col=1, "
    "blayout=col_major, slayout=none_box, fractal=512, pad=0>"
)
ROW_VIEW = (
    "!pto.tile_buf<loc=vec, dtype=f32, rows=1, cols=32, v_row=1, v_col=32, "
    "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
)


def test_a_one_column_tile_is_a_col_major_column_vector() -> None:
    """PTOAS's TROWSUM / TROWEXPANDADD take per-row vectors col_major; its element-wise ops
    take row-major tiles only, so those run on [1, M] reinterpretations (pto.treshape)."""
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    rows, rows2 = (
        tile(32, 1, memref=buffer(2), name="rows"),
        tile(32, 1, memref=buffer(3), name="rows2"),
    )
    text, diagnostics = generate(
        kernel(
            lambda a, out, t0: [
                define(rows, "block.max", t0, axis=1, keepdim=True),
                define(rows2, "block.exp", rows),
                define(t1, "block.sub", t0, rows2),  # a per-row rhs: the row-broadcast instruction
            ]
        )
    )
    assert diagnostics == []
    assert short(body_after_first_load(text)) == (
        "// Max\n"  # buffers by first definition: t0 %0, rows %1, rows2 %2, t1 %3
        f"pto.trowmax ins(%0, %scratch : TB, TB)\n            outs(%1 : {COLUMN})\n"
        "\n"
        "// Exp\n"
        f"%7 = pto.treshape %1 : {COLUMN} -> {ROW_VIEW}\n"
        f"%8 = pto.treshape %2 : {COLUMN} -> {ROW_VIEW}\n"
        f"pto.texp ins(%7 : {ROW_VIEW})\n         outs(%8 : {ROW_VIEW})\n"
        "\n"
        "// Subtract\n"
        f"pto.trowexpandsub ins(%0, %2 : TB, {COLUMN})\n                  outs(%3 : TB)\n"
        "\n"
        "return\n"
    )


def test_a_narrow_row_major_tile_is_padded_to_whole_32_byte_rows() -> None:
    a = tensor(16, 4, name="a")
    t0 = tile(16, 4, memref=buffer(0), name="t0")
    text, _ = generate(function("k", [a], load(t0, a, [0, 0])))
    assert "rows=16, cols=8, v_row=16, v_col=4, blayout=row_major" in text  # 4 x f32 = 16 B


def test_operands_scratch_and_value_forms_follow_the_registry() -> None:
    t1, t2, t3 = (
        tile(32, 32, memref=buffer(1), name="t1"),
        tile(32, 32, memref=buffer(2), name="t2"),
        tile(32, 32, memref=buffer(3), name="t3"),
    )
    flat = tile(16, 64, memref=buffer(4), name="flat")
    text, diagnostics = generate(
        kernel(
            lambda a, out, t0: [
                define(t1, "block.expands", t0, ConstFloat(F32, value=2.0)),  # only the scalar
                define(t2, "block.transpose", t1, const_int(0), const_int(1)),  # tile + scratch
                define(t3, "block.sel", t0, t1, t2),  # mask, lhs, rhs + scratch
                define(flat, "block.reshape", t3, ints(16, 64)),  # returns its result
            ]
        )
    )
    assert diagnostics == []
    body = short(body_after_first_load(text))
    assert "pto.texpands ins(%cst : f32)\n             outs(%1 : TB)\n" in body
    assert "pto.ttrans ins(%1, %scratch : TB, TB)\n           outs(%2 : TB)\n" in body
    assert "pto.tsel ins(%0, %1, %2, %scratch : TB, TB, TB, TB)\n" in body
    assert f"%8 = pto.treshape %3 : TB -> {tile_buf(16, 64)}\n" in body


def test_an_op_the_dialect_spells_differently_is_an_error_with_the_reason() -> None:
    t1 = tile(32, 32, memref=buffer(1), name="t1")
    _, diagnostics = generate(
        kernel(
            lambda a, out, t0: [
                define(t1, "block.sels", t0, t0, const_int(1), span=at(4, 8, 30)),
            ]
        )
    )
    assert [(d.code, d.span) for d in diagnostics] == [("E400", at(4, 8, 30))]
    assert diagnostics[0].message.startswith(
        "block.sels has no PTO lowering (pto.tsels takes a mask tile, a source, a scratch tile"
    )


def test_a_promoting_scalar_op_converts_its_tile_into_the_destination_first() -> None:
    """FP16 tile + an FP32 scalar is FP32: PTO's tadds keeps the element type, so the tile is
    converted into the result's buffer (pto.tcvt) and the op runs there in place."""
    a, out = tensor(32, 32, dtype=DataType.FP16, name="a"), tensor(32, 32, name="out")
    half = tile(32, 32, memref=buffer(0), dtype=DataType.FP16, name="half")
    wide = tile(32, 32, memref=buffer(1), name="wide")
    fn = function(
        "k",
        [a, out],
        load(half, a, [0, 0]),
        define(wide, "block.adds", half, ConstFloat(F32, value=1.5)),
    )
    text, diagnostics = generate(fn)
    assert diagnostics == []
    assert short(body_after_first_load(text)) == (
        "// Adds\n"
        f"pto.tcvt ins(%0 : {tile_buf(dtype='f16')})\n"
        "         outs(%1 : TB)\n"
        "pto.tadds ins(%1, %cst : TB, f32)\n"
        "          outs(%1 : TB)\n"
        "\n"
        "return\n"
    )
