"""The seed's complete example (seed 002, mul_kernel_2d), byte for byte.

golden/mul_kernel_2d.mlir is the seed's output with its two elisions filled in:
``rows=32, cols=32, ...>`` and ``!pto.tile_buf<...>`` are written as the full tile_buf type
(the seed's own defaults: v_row/v_col = rows/cols, row_major, none_box, 512, pad 0).
Everything else — comments, blank lines, line breaks, the signature's continuation column,
SSA numbering (allocations %0-%2, views %3-%5, body from %6) — is the seed's text, except two
corrections to the form PTOAS accepts (the seed's illustration is not valid PTO; the dialect's
own definitions, PTOOps.td, decide):

- ``pto.make_tensor_view``: a comma before ``strides = [...]`` (its custom parser expects
  ``shape = [...], strides = [...]``; without it PTOAS v0.27 stops at "expected ','");
- ``pto.tmul ins(%0, %1 : T0, T1)``: operands first, then their types (``ins($src0, $src1 :
  type($src0), type($src1))`` in TMulOp's assembly format), not the seed's ``ins(%0 : T0, %1 :
  T1)``, which no PTOAS version parsed;
- the 2026-08 module header ``module attributes {pto.target_arch = "a2a3"}`` (the seed's is a
  bare ``module``) and ``attributes {pto.entry, pto.kernel_kind = ...<vector>}`` on the
  kernel: PTOAS v0.57 makes no unmarked function an entry (``extern "C" __global__``), so
  without it the kernel would be a plain helper nothing launches; its tiles are all in the
  vector core's buffer, so it is an AIV kernel.

tests/ptoas/ runs PTOAS on this file.
"""

from __future__ import annotations

from pathlib import Path

from ir_builder import buffer, tensor, tile
from pto_irb import define, function, generate, load, store

GOLDEN = Path(__file__).parent / "golden"


def mul_kernel_2d():
    a, b, c = tensor(32, 32, name="a"), tensor(32, 32, name="b"), tensor(32, 32, name="c")
    tile_a = tile(32, 32, memref=buffer(0), name="tile_a")
    tile_b = tile(32, 32, memref=buffer(1), name="tile_b")
    tile_c = tile(32, 32, memref=buffer(2), name="tile_c")
    return function(
        "mul_kernel_2d",
        [a, b, c],
        load(tile_a, a, [0, 0]),
        load(tile_b, b, [0, 0]),
        define(tile_c, "block.mul", tile_a, tile_b),
        store(tile_c, [0, 0], c),
    )


def test_mul_kernel_2d_matches_the_seed_exactly() -> None:
    text, diagnostics = generate(mul_kernel_2d())
    assert diagnostics == []
    assert text == (GOLDEN / "mul_kernel_2d.mlir").read_text()


def test_golden_has_no_elisions_left() -> None:
    golden = (GOLDEN / "mul_kernel_2d.mlir").read_text()
    assert "..." not in golden
    assert golden.count("pad=0>") == 9  # 3 allocations + 6 typed tile operands


def test_golden_kernel_is_an_entry_of_an_a2a3_module() -> None:
    lines = (GOLDEN / "mul_kernel_2d.mlir").read_text().splitlines()
    assert lines[0] == 'module attributes {pto.target_arch = "a2a3"} {'
    kind = "pto.kernel_kind = #pto.kernel_kind<vector>"  # its tiles are all Vec
    assert lines[3].endswith(f"%arg2: !pto.ptr<f32>) attributes {{pto.entry, {kind}}} {{")
