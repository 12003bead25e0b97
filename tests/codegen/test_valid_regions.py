"""Valid regions (PyPTO 2026-08, spec §11) as each consumer models them: the reference
interpreter pads and stores by the region (known at run time), the CCE route sets it on the
tile and copies it through a GlobalTensor of its shape, the PTO route allocates the tile with
dynamic valid extents and sets them with ``pto.set_validshape`` (v0.57's spelling)."""

from __future__ import annotations

import numpy as np

from ptoc.codegen.cce import generate_cce
from ptoc.codegen.pto import generate_pto
from ptoc.driver import run_pipeline
from ptoc.editions import Edition, EditionSource
from ptoc.frontend import analyze_source
from ptoc.interp import run_function
from ptoc.ir.equality import structural_equal
from ptoc.ir.function import Program
from ptoc.printer import print_program

SOURCE = """import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        a: pl.Tensor[[16, 128], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
        part: pl.Out[pl.Tensor[[16, 128], pl.FP32]],
    ) -> tuple[pl.Tensor[[16, 128], pl.FP32], pl.Tensor[[16, 128], pl.FP32]]:
        t = pl.load(a, [0, 0], [16, 128], valid_shape=[16, n])
        p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)
        out = pl.store(p, [0, 0], out)
        part = pl.store(t, [0, 0], part)
        return out, part
"""
TILE = (
    "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=128, v_row=?, v_col=?, "
    "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
)
PADDED = (
    "!pto.tile_buf<loc=vec, dtype=f32, rows=16, cols=128, v_row=16, v_col=128, "
    "blayout=row_major, slayout=none_box, fractal=512, pad=3>"
)


def program() -> Program:
    analysis = analyze_source(SOURCE, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert [d.format() for d in analysis.diagnostics] == []
    return analysis.programs[0]


def test_the_interpreter_pads_outside_the_region_and_stores_only_the_region() -> None:
    a = np.arange(16 * 128, dtype=np.float32).reshape(16, 128)
    before = np.full((16, 128), 7.0, dtype=np.float32)
    result = run_function(program(), "k", {"a": a, "n": 100, "out": before, "part": before})
    out, part = result.outputs["out"], result.outputs["part"]
    assert np.array_equal(out[:, :100], a[:, :100]) and np.all(out[:, 100:] == -np.inf)
    assert np.array_equal(part[:, :100], a[:, :100]) and np.all(part[:, 100:] == 7.0)


def test_cce_sets_the_region_on_the_tile_and_copies_it() -> None:
    lowered = run_pipeline(program(), "default")
    text = generate_cce(lowered.program).text
    region = "GlobalTensor<float, Shape<1, 1, 1, 16, -1>, Stride<1, 1, 1, 128, 1>>"
    given = "Shape<1, 1, 1, 16, -1>(1, 1, 1, 16, n)"
    assert f"    {region} aGlobalValid(a + 0 * 128 + 0, {given});\n" in text
    assert "    t.SetValidShape(16, n);\n    TLOAD(t, aGlobalValid);\n" in text
    assert "PadValue::Min>;" in text and "TFILLPAD(p, t);" in text
    assert f"    {region} partGlobalValid(part + 0 * 128 + 0, {given});\n" in text
    assert "TSTORE(partGlobalValid, t);" in text


def test_pto_allocates_dynamic_extents_and_sets_them_before_the_load() -> None:
    lowered = run_pipeline(program(), "ptoas")
    generated = generate_pto(lowered.program, ptoas_version="0.57")
    assert generated.diagnostics == []
    text = generated.text
    assert f"%0 = pto.alloc_tile valid_row = %c16 valid_col = %c128 : {TILE}\n" in text
    # (the INDEX parameter is an `index` already: no cast)
    assert f"    pto.set_validshape %0, %c16, %arg1 : {TILE}\n" in text
    assert "sizes = [%c16, %arg1]\n" in text
    assert "-> !pto.partition_tensor_view<16x?xf32>" in text
    assert f"pto.tfillpad ins(%0 : {TILE})" in text and f"outs(%1 : {PADDED})" in text


def diagnostics_of_both_routes(source: str) -> dict[str, list[tuple[str, str, int, int]]]:
    analysis = analyze_source(source, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert analysis.diagnostics == []
    cce = generate_cce(run_pipeline(analysis.programs[0], "default").program)
    pto = generate_pto(run_pipeline(analysis.programs[0], "ptoas").program)
    return {
        target: [(d.code, d.message, d.span.line, d.span.column) for d in generated.diagnostics]
        for generated, target in ((cce, "CCE"), (pto, "PTO"))
    }


def test_an_op_that_does_not_model_the_region_is_e400_on_both_routes() -> None:
    source = SOURCE.replace(
        "p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)", "p = pl.tile.rems(t, 3.0)"
    ).replace("part = pl.store(t, [0, 0], part)", "part = pl.store(p, [0, 0], part)")
    message = (
        "block.rems reads tile 't' whose valid region [16, n] is narrower than the tile: "
        "ptoc's {} code models valid regions in element-wise ops, fillpad and store only; "
        "fill the rest first (pl.tile.fillpad) or load the whole window"
    )
    for target, found in diagnostics_of_both_routes(source).items():
        assert found == [("E400", message.format(target), 15, 12)]


CHAIN = SOURCE.replace(
    "p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)",
    "e = pl.exp(t)\n        s = pl.add(e, t)\n        p = pl.tile.fillpad(s)",
)


def test_an_element_wise_result_takes_its_first_operands_region() -> None:
    analysis = analyze_source(CHAIN, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert analysis.diagnostics == []
    text = print_program(analysis.programs[0])
    region = "pl.Tile[[16, 128], pl.FP32, pl.TileView(valid_shape=[16, n])]"
    assert f"e: {region} = pl.block.exp(\n            t\n" in text
    assert f"s: {region} = pl.block.add(\n            e, t\n" in text
    assert "p: pl.Tile[[16, 128], pl.FP32, pl.TileView(pad=pl.PadMode.zero)] =" in text


def test_cce_and_pto_set_an_element_wise_results_region_before_its_instruction() -> None:
    program_ = analyze_source(
        CHAIN, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG)
    ).programs[0]
    cce = generate_cce(run_pipeline(program_, "default").program).text
    assert "    e.SetValidShape(16, n);\n    TEXP(e, t);\n" in cce
    assert "    s.SetValidShape(16, n);\n    TADD(s, e, t);\n" in cce
    pto = generate_pto(run_pipeline(program_, "ptoas").program, ptoas_version="0.57").text
    lines = pto.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith("pto.texp ins("))
    assert lines[at - 1].strip().startswith("pto.set_validshape %")
    assert lines[at - 1].strip().endswith(f", %c16, %arg1 : {TILE}")


def test_sources_of_different_regions_are_e400_naming_both() -> None:
    source = SOURCE.replace(
        "p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)",
        "w = pl.load(a, [0, 0], [16, 128])\n        s = pl.add(t, w)\n"
        "        p = pl.tile.fillpad(s)",
    )
    message = (
        "block.add computes over the valid region of its first operand 't', [16, n], and "
        "pto-isa's instruction reads the same region of every source; tile 'w' has the whole "
        "tile ({}): give both one region (pl.tile.set_validshape) or fill the first "
        "(pl.tile.fillpad)"
    )
    for target, found in diagnostics_of_both_routes(source).items():
        assert found == [("E400", message.format(target), 16, 12)]


SET = SOURCE.replace(
    "t = pl.load(a, [0, 0], [16, 128], valid_shape=[16, n])",
    "w = pl.load(a, [0, 0], [16, 128])\n        t = pl.tile.set_validshape(w, 16, n)",
)


def test_set_validshape_runs_on_the_interpreter() -> None:
    analysis = analyze_source(SET, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert analysis.diagnostics == []
    a = np.arange(16 * 128, dtype=np.float32).reshape(16, 128)
    before = np.full((16, 128), 7.0, dtype=np.float32)
    result = run_function(
        analysis.programs[0], "k", {"a": a, "n": 100, "out": before, "part": before}
    )
    out, part = result.outputs["out"], result.outputs["part"]
    assert np.array_equal(out[:, :100], a[:, :100]) and np.all(out[:, 100:] == -np.inf)
    assert np.array_equal(part[:, :100], a[:, :100]) and np.all(part[:, 100:] == 7.0)


def test_set_validshape_is_the_sources_storage_with_the_region_set() -> None:
    program_ = analyze_source(SET, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG)).programs[
        0
    ]
    cce = generate_cce(run_pipeline(program_, "default").program).text
    assert "    TASSIGN(w, 0x0);\n" in cce and "    TASSIGN(t, 0x0);\n" in cce
    assert "    t.SetValidShape(16, n);\n" in cce
    pto = generate_pto(run_pipeline(program_, "ptoas").program, ptoas_version="0.57").text
    whole = TILE.replace("v_row=?, v_col=?", "v_row=16, v_col=128")
    assert f"    %7 = pto.treshape %0 : {whole} -> {TILE}\n" in pto
    assert f"    pto.set_validshape %7, %c16, %arg1 : {TILE}\n" in pto


SLICE = """import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        a: pl.Tensor[[16, 128], pl.FP32],
        n: pl.Scalar[pl.INDEX],
        out: pl.Out[pl.Tensor[[8, 128], pl.FP32]],
    ) -> pl.Tensor[[8, 128], pl.FP32]:
        t = pl.load(a, [0, 0], [16, 128])
        s = pl.slice(t, [8, 128], [8, 0], valid_shape=[8, n])
        out = pl.store(s, [0, 0], out)
        return out
"""
WINDOW = TILE.replace("rows=16", "rows=8")


def test_a_slice_states_its_valid_region_and_each_route_copies_it() -> None:
    analysis = analyze_source(SLICE, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert analysis.diagnostics == []
    text = print_program(analysis.programs[0], edition=Edition.V2026_08)
    assert "s: pl.Tile[[8, 128], pl.FP32, pl.TileView(valid_shape=[8, n])] =" in text
    cce = generate_cce(run_pipeline(analysis.programs[0], "default").program).text
    assert "    s.SetValidShape(8, n);\n    TEXTRACT(s, t, 8, 0);\n" in cce
    pto = generate_pto(
        run_pipeline(analysis.programs[0], "ptoas").program, ptoas_version="0.57"
    ).text
    assert f"    pto.set_validshape %1, %c8, %arg1 : {WINDOW}\n" in pto
    view = WINDOW.replace("v_row=?", "v_row=8")  # PTOAS infers a constant extent static
    whole = TILE.replace("v_row=?, v_col=?", "v_row=16, v_col=128")
    subview = f"pto.subview %0[%c8, %c0] sizes [8, 128] valid [%c8, %arg1] : {whole} -> {view}"
    assert subview in pto


def test_a_slices_constant_region_outside_its_window_is_e308() -> None:
    source = SLICE.replace("valid_shape=[8, n]", "valid_shape=[9, n]")
    analysis = analyze_source(source, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert [(d.code, d.span.line) for d in analysis.diagnostics] == [("E308", 14)]


def test_2026_03s_window_view_still_has_no_valid_shape() -> None:
    source = SLICE.replace("pl.slice(", "pl.block.view(").replace(
        "pl.load(a, [0, 0], [16, 128])", "pl.block.load(a, [0, 0], [16, 128])"
    )
    analysis = analyze_source(source, "k.py", edition=(Edition.V2026_03, EditionSource.FLAG))
    found = [(d.code, d.message) for d in analysis.diagnostics if d.code.startswith("E")]
    assert found[0] == (
        "E302",
        "block.view got an unexpected keyword argument 'valid_shape'; did you mean 'shape'?",
    )


ROW_SUM = SET.replace(
    "p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)\n        out = pl.store(p, [0, 0], out)",
    "tmp = pl.create_tile([16, 128], dtype=pl.FP32, target_memory=pl.MemorySpace.Vec)\n"
    "        p = pl.row_sum(t, tmp)",
).replace("part = pl.store(t, [0, 0], part)", "part = pl.store(p, [0, 0], part)")


def test_a_row_reduction_reads_the_region_and_keeps_its_rows() -> None:
    analysis = analyze_source(ROW_SUM, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert [d.code for d in analysis.diagnostics] == []
    text = print_program(analysis.programs[0], edition=Edition.V2026_08)
    assert "p: pl.Tile[[16, 1], pl.FP32] =" in text  # every row valid: no region of its own
    a = np.arange(16 * 128, dtype=np.float32).reshape(16, 128) / 1000
    before = np.full((16, 128), 7.0, dtype=np.float32)
    result = run_function(
        analysis.programs[0], "k", {"a": a, "n": 100, "out": before, "part": before}
    )
    part = result.outputs["part"]
    assert np.allclose(part[:, 0], a[:, :100].sum(axis=1)) and np.all(part[:, 1:] == 7.0)
    # (tests/ptoas/test_valid_regions_execution.py runs row reductions on both routes)
    rows = ROW_SUM.replace("set_validshape(w, 16, n)", "set_validshape(w, n, n)")
    analysis = analyze_source(rows, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    text = print_program(analysis.programs[0], edition=Edition.V2026_08)
    assert "p: pl.Tile[[16, 1], pl.FP32, pl.TileView(valid_shape=[n, 1])] =" in text


def test_2026_08_tile_division_needs_one_valid_region() -> None:
    source = SOURCE.replace(
        "p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)",
        "w = pl.load(a, [0, 0], [16, 128])\n        q = pl.div(t, t)\n        p = pl.div(q, w)",
    )
    analysis = analyze_source(source, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    found = [(d.code, d.message, d.span.line, d.span.column) for d in analysis.diagnostics]
    message = "block.div: 'lhs' and 'rhs' must have one valid region, got [16, n] and [16, 128]"
    assert found == [("E307", message, 17, 22)]


def test_an_extent_an_if_yields_is_renamed_with_the_rest_in_ssa() -> None:
    source = SOURCE.replace(
        "        t = pl.load(a, [0, 0], [16, 128], valid_shape=[16, n])",
        "        if n > 4:\n            vlen = n\n        else:\n            vlen = 128\n"
        "        t = pl.load(a, [0, 0], [16, 128], valid_shape=[16, vlen])",
    )
    analysis = analyze_source(source, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert analysis.diagnostics == []
    cce = generate_cce(run_pipeline(analysis.programs[0], "default").program)
    assert cce.diagnostics == []  # was E900: the type read 'vlen' before the if's result
    assert "    t.SetValidShape(16, vlen_2);\n" in cce.text
    pto = generate_pto(run_pipeline(analysis.programs[0], "ptoas").program)
    assert pto.diagnostics == []


def test_printed_regions_known_at_run_time_parse_back_equal() -> None:
    for source in (SOURCE, SET, CHAIN, SLICE):
        analysis = analyze_source(source, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
        text = print_program(analysis.programs[0], edition=Edition.V2026_08)
        assert "valid_shape=[" in text and ", n]" in text
        again = analyze_source(text, "p.py", edition=(Edition.V2026_08, EditionSource.FLAG))
        assert [d.format() for d in again.diagnostics] == []  # was W008: unknown 'n'
        assert structural_equal(analysis.programs[0], again.programs[0])
