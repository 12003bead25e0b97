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
from ptoc.ir.function import Program

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


def test_an_op_that_does_not_model_the_region_is_e400_on_both_routes() -> None:
    source = SOURCE.replace(
        "p = pl.tile.fillpad(t, pad_value=pl.PadValue.min)", "p = pl.exp(t)"
    ).replace("part = pl.store(t, [0, 0], part)", "part = pl.store(p, [0, 0], part)")
    analysis = analyze_source(source, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert analysis.diagnostics == []
    message = (
        "block.exp reads tile 't' whose valid region [16, n] is narrower than the tile: "
        "ptoc's {} code models valid regions in fillpad and store only; fill the rest first "
        "(pl.tile.fillpad) or load the whole window"
    )
    cce = generate_cce(run_pipeline(analysis.programs[0], "default").program)
    pto = generate_pto(run_pipeline(analysis.programs[0], "ptoas").program)
    for generated, target in ((cce, "CCE"), (pto, "PTO")):
        found = [(d.code, d.message, d.span.line, d.span.column) for d in generated.diagnostics]
        assert found == [("E400", message.format(target), 15, 12)]
