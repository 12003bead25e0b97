"""AddReductionScratch: last-axis reductions with keepdim get their scratch tile."""

from __future__ import annotations

from ptoc.driver import analyze, run_pipeline
from ptoc.printer import print_program

SOURCE = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 1], pl.FP32],
          z: pl.Tensor[[1, 64], pl.FP32]):
        t = pl.load(x, [0, 0], [16, 64])
        r = pl.max(t, axis=-1, keepdim=True)
        c = pl.sum(t, axis=0, keepdim=True)
        pl.store(r, [0, 0], [16, 1], y)
        pl.store(c, [0, 0], [1, 64], z)
"""


def body_after_the_pass(source: str = SOURCE) -> list[str]:
    program = analyze(source, "k.py").all_programs()[0]
    result = run_pipeline(program, ["ConvertToSSA", "FlattenCalls", "AddReductionScratch"])
    assert result.diagnostics == []
    text = print_program(result.program, line_length=200)
    return [line.strip() for line in text.splitlines() if " = pl." in line]


def test_a_last_axis_reduction_takes_a_scratch_tile_and_a_column_one_does_not() -> None:
    assert body_after_the_pass() == [
        "t: pl.Tile[[16, 64], pl.FP32] = pl.block.load(x, [0, 0], [16, 64])",
        "r_tmp: pl.Tile[[16, 64], pl.FP32] = pl.block.create_tile([16, 64], dtype=pl.FP32)",
        "r: pl.Tile[[16, 1], pl.FP32] = pl.block.row_max(t, r_tmp)",
        "c: pl.Tile[[1, 64], pl.FP32] = pl.block.sum(t, axis=0, keepdim=True)",
    ]


MOVES = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[64, 16], pl.FP32]):
        t = pl.load(x, [0, 0], [16, 64])
        u = pl.move(t, target_memory=pl.MemorySpace.Vec, transpose=True)
        m = pl.load(x, [0, 0], [16, 64], target_memory=pl.MemorySpace.Mat)
        v = pl.move(m, target_memory=pl.MemorySpace.Right, transpose=True)
        w = pl.add(u, u)
        pl.store(w, [0, 0], [64, 16], y)
"""


def test_a_transposing_move_within_vec_is_a_transpose_into_a_row_major_tile() -> None:
    # A2/A3's TMOV does not transpose and its vector instructions take row-major tiles
    # only: the move is TTRANS with its scratch; the move into Right keeps its form.
    lines = body_after_the_pass(MOVES)
    assert lines[1:3] + lines[4:] == [
        "u_tmp: pl.Tile[[64, 16], pl.FP32] = pl.block.create_tile([64, 16], dtype=pl.FP32)",
        "u: pl.Tile[[64, 16], pl.FP32] = pl.block.transpose_scratch(t, u_tmp)",
        "v: pl.Tile[[64, 16], pl.FP32, pl.TileView(blayout=pl.BLayout.col_major, "
        "slayout=pl.BLayout.row_major)] = pl.block.move(m, target_memory=pl.MemorySpace.Right, "
        "transpose=True)",
        "w: pl.Tile[[64, 16], pl.FP32] = pl.block.add(u, u)",
    ]
