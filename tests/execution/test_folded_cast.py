"""A matmul's product cast with ``mode="rint"`` and multiplied again in the same kernel (issue
#29, upstream's AutoTileMatmulL0 cast-fold): the cast becomes the converting move Acc -> Mat
(``block.move(..., dtype=FP16)``: TMOV's FIXPIPE pre-quantisation, round half to even) and the
second matmul reads that Mat tile. Upstream's kernels (advanced/02_auto_tile_matmul.py,
fits_l0c_*) are BF16, which pto-isa's CPU simulator holds as _Float16 here; these are the same
shapes in FP16: the simulator must compute what the reference interpreter computes."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ptoc import driver
from ptoc.cli import analyze
from ptoc.diagnostics import Severity

from .bench import Bench
from .test_orchestration import run_end_to_end

SOURCE = """\
import pypto.language as pl


@pl.program
class Chained:
    @pl.function(type=pl.FunctionType.Orchestration)
    def full_k(
        self,
        a: pl.Tensor[[128, 64], pl.FP16],
        b: pl.Tensor[[64, 128], pl.FP16],
        e: pl.Tensor[[128, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            cb = pl.cast(c, pl.FP16, mode="rint")
            d = pl.matmul(cb, e, out_dtype=pl.FP32)
            out = pl.assemble(out, d, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def split_k(
        self,
        a: pl.Tensor[[128, 512], pl.FP16],
        b: pl.Tensor[[512, 128], pl.FP16],
        e: pl.Tensor[[128, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            cb = pl.cast(c, pl.FP16, mode="rint")
            d = pl.matmul(cb, e, out_dtype=pl.FP32)
            out = pl.assemble(out, d, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def mat_full_k(
        self,
        a: pl.Tensor[[256, 32], pl.FP16],
        b: pl.Tensor[[32, 256], pl.FP16],
        e: pl.Tensor[[256, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            cb = pl.cast(c, pl.FP16, mode="rint")
            d = pl.matmul(cb, e, out_dtype=pl.FP32)
            out = pl.assemble(out, d, [0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def mat_split_k(
        self,
        a: pl.Tensor[[256, 192], pl.FP16],
        b: pl.Tensor[[192, 256], pl.FP16],
        e: pl.Tensor[[256, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[256, 64], pl.FP32]],
    ) -> pl.Tensor[[256, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP):
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            cb = pl.cast(c, pl.FP16, mode="rint")
            d = pl.matmul(cb, e, out_dtype=pl.FP32)
            out = pl.assemble(out, d, [0, 0])
        return out
"""
FUNCTIONS = ("full_k", "split_k")


def compiled(function: str, target: str) -> str:
    result = driver.compile_source(analyze(SOURCE, "program.py"), target, function, path="x.py")
    assert [d.format() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    return "\n".join(p.text for p in result.programs)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_the_cast_is_one_converting_move_on_both_routes(function: str) -> None:
    assert compiled(function, "cce")
    text = compiled(function, "pto")
    moves = re.findall(
        r"pto\.tmov ins\(%\w+ : !pto\.tile_buf<loc=(\w+), dtype=(\w+)[^\n]*\n"
        r"\s*outs\(%\w+ : !pto\.tile_buf<loc=(\w+), dtype=(\w+)",
        text,
    )
    assert ("acc", "f32", "mat", "f16") in moves
    assert "pto.tcvt" not in text


# The reference sums K = 512 in one order; the kernel sums two slices of 256 (TMATMUL_ACC adds a
# slice's sum to Acc, pto-isa cpu/TMatmul.hpp:74), and the FP16 cast turns a last-bit FP32
# difference into one FP16 step in a few elements (61 of 8192). With inputs whose sums are exact
# the chain matches on both routes, PTO included (tests/ptoas/test_ptoas_lifetimes.py).
SLICED = "the reference and the kernel sum K in a different order, which the FP16 cast amplifies"


@pytest.mark.parametrize(
    "function",
    ["full_k", pytest.param("split_k", marks=pytest.mark.xfail(strict=True, reason=SLICED))],
)
def test_the_chain_runs_on_the_simulator_as_on_the_interpreter(function: str, bench: Bench) -> None:
    assert run_end_to_end(bench, SOURCE, function) == []


# Upstream's mat_* kernels (advanced/02_auto_tile_matmul.py) in FP16: the [256, 256] product is
# over Acc, computed in blocks of 64 rows each converted into its window of one Mat tile
# (block.insert: TINSERT Acc -> Mat), which the second matmul reads in slices of K (TEXTRACT).
# Small integers make every sum exact in any order (|c| <= 2 * 2 * 192 is an FP16 integer, |d|
# < 2 ** 24): the simulator must compute the interpreter's numbers exactly, so a block in the
# wrong window or a slice of the wrong columns cannot pass, and neither can rounding it to FP16
# a second time (random inputs differ where the kernel sums K in another order than the
# reference: test_the_chain_runs_... above).
def small_integers(function: str) -> dict[str, np.ndarray]:
    k = 32 if function == "mat_full_k" else 192
    rng = np.random.default_rng(1)
    shapes = {"a": (256, k), "b": (k, 256), "e": (256, 64)}
    return {name: rng.integers(-2, 3, shape).astype(np.float16) for name, shape in shapes.items()}


@pytest.mark.parametrize("function", ["mat_full_k", "mat_split_k"])
def test_the_blocked_chain_runs_on_the_simulator_as_on_the_interpreter(
    function: str, bench: Bench
) -> None:
    assert run_end_to_end(bench, SOURCE, function, small_integers(function)) == []


def cube_lines(text: str, start: str) -> list[str]:
    """The block ops' instructions of the kernel whose text starts at ``start`` (to its closing
    brace at column 0), stripped: the cube's TMATMUL* and the moves TEXTRACT / TINSERT."""
    body = text[text.index(start) :]
    body = body[: body.index("\n}\n")]
    return [
        line.strip()
        for line in body.splitlines()
        if re.match(r"\s*(TMATMUL|TINSERT|TEXTRACT|for )", line)
    ]


def test_the_blocks_are_inserted_into_one_mat_tile_in_cce() -> None:
    result = driver.compile_source(analyze(SOURCE, "program.py"), "cce", None, path="x.py")
    text = "\n".join(p.text for p in result.programs)
    assert cube_lines(text, "void runMatFullKIncore0(") == [
        "TMATMUL(c_tile, a_left, b_right);",
        "TINSERT(cb_mat_1, c_tile, 0, 0);",
        "TMATMUL(c_tile_1, a_left_1, b_right_1);",
        "TINSERT(cb_mat_2, c_tile_1, 64, 0);",
        "TMATMUL(c_tile_2, a_left_2, b_right_2);",
        "TINSERT(cb_mat_3, c_tile_2, 128, 0);",
        "TMATMUL(c_tile_3, a_left_3, b_right_3);",
        "TINSERT(cb_mat_4, c_tile_3, 192, 0);",
        "TEXTRACT(cb_mat_4_left, cb_mat_4, 0, 0);",
        "TMATMUL(d_tile, cb_mat_4_left, e_right);",
        "for (int64_t kk = 64; kk < 256; kk += 64) {",
        "TEXTRACT(cb_mat_4_left_1, cb_mat_4, 0, kk);",
        # The sum in its accumulator's tile (A2/A3 adds into the first operand, issue #29).
        "TMATMUL_ACC(d_acc, d_acc, cb_mat_4_left_1, e_right_1);",
    ]


ACC_BLOCK = (
    "!pto.tile_buf<loc=acc, dtype=f32, rows=64, cols=256, v_row=64, v_col=256, "
    "blayout=col_major, slayout=row_major, fractal=1024, pad=0>"
)
MAT_TILE = (
    "!pto.tile_buf<loc=mat, dtype=f16, rows=256, cols=256, v_row=256, v_col=256, "
    "blayout=col_major, slayout=row_major, fractal=512, pad=0>"
)
LEFT_SLICE = (
    "!pto.tile_buf<loc=left, dtype=f16, rows=256, cols=64, v_row=256, v_col=64, "
    "blayout=row_major, slayout=row_major, fractal=512, pad=0>"
)


def test_the_blocks_are_inserted_into_one_mat_tile_in_pto() -> None:
    text = compiled("mat_full_k", "pto")
    moves = re.findall(r"(pto\.t(?:insert|extract) ins\([^\n]*)\n\s*(outs\([^\n]*)", text)
    inserts = [
        (f"pto.tinsert ins(%5, %c{row}, %c0 : {ACC_BLOCK}, index, index)", f"outs(%0 : {MAT_TILE})")
        for row in (0, 64, 128, 192)
    ]
    extracts = [
        (f"pto.textract ins(%0, %c0, {col} : {MAT_TILE}, index, index)", f"outs(%6 : {LEFT_SLICE})")
        for col in ("%c0", "%kk")
    ]
    assert moves == [*inserts, *extracts]
