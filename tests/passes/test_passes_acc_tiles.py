"""A kernel's matmul whose product is larger than Acc and only assembled into a tensor (the
product placed in DDR, upstream's AutoTileMatmulL0): computed and assembled in blocks of rows
(or columns) of which two fit Acc, before ConvertTensorToBlockOps converts the kernel. The
blocks compute what the whole product computes (the reference interpreter on both)."""

from __future__ import annotations

import re
import textwrap

import numpy as np

from ptoc.frontend import analyze_source
from ptoc.interp.run import run_function
from ptoc.ir.function import Program
from ptoc.ir.types import MemorySpace
from ptoc.passes import DEFAULT_TARGET, run_pipeline
from ptoc.passes.acc_tiles import mat_placed, split_products
from ptoc.printer import print_program

SOURCE = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self,
            a: pl.Tensor[[{m}, 32], pl.FP32],
            b: pl.Tensor[[32, {n}], pl.FP32],
            out: pl.Out[pl.Tensor[[{rows}, {n}], pl.FP32]],
        ) -> pl.Tensor[[{rows}, {n}], pl.FP32]:
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            out = pl.assemble(out, c, [{at}, 0])
            return out
    """)
ACC = DEFAULT_TARGET.capacity(MemorySpace.Acc)


def program(m: int, n: int, rows: int | None = None, at: int = 0) -> Program:
    text = SOURCE.format(m=m, n=n, rows=rows or m, at=at)
    (found,) = analyze_source(text, "k.py").all_programs()
    return run_pipeline(found, ["ConvertToSSA"]).program


def split(found: Program) -> Program:
    (function,) = found.functions
    return Program(found.name, (split_products(function, ACC),), span=found.span)


def calls(found: Program) -> list[str]:
    """The tensor op calls of the printed function, one line each (wrapped ones joined)."""
    text = " ".join(line.strip() for line in print_program(found).splitlines())
    text = text.replace("( ", "(").replace(" )", ")")
    return re.findall(r"= (pl\.tensor\.\w+\(.*?\))(?= \w+: pl\.| return)", text)


def test_a_product_over_acc_is_computed_and_assembled_in_row_blocks() -> None:
    # [256, 256] FP32 is 262144 bytes, A2/A3's Acc 131072: blocks of 64 rows (two fit)
    assert calls(split(program(256, 256, rows=320, at=64))) == [
        call
        for i in range(4)
        for call in (
            f"pl.tensor.view(a, [64, 32], [{64 * i}, 0])",
            f"pl.tensor.matmul(a_{i}, b, out_dtype=pl.FP32)",
            f"pl.tensor.assemble({'out' if i == 0 else f'out_1_{i - 1}'}, c_{i}, "
            f"[{64 + 64 * i}, 0])",
        )
    ]


def test_a_product_too_wide_for_a_row_block_is_split_by_columns() -> None:
    # 16 rows of 4096 FP32 columns are 262144 bytes: blocks of 1024 columns instead
    found = calls(split(program(16, 4096)))
    assert found[:3] == [
        "pl.tensor.view(b, [32, 1024], [0, 0])",
        "pl.tensor.matmul(a, b_0, out_dtype=pl.FP32)",
        "pl.tensor.assemble(out, c_0, [0, 0])",
    ]
    assert len(found) == 12 and found[-1] == "pl.tensor.assemble(out_1_2, c_3, [0, 3072])"


def test_a_product_of_2_to_the_40_rows_is_left_alone_not_searched_for_ever() -> None:
    # Counting blocks down from 2**40 - 16 never ended (a typo the editor analyses as it is
    # typed), and the blocks that fit would be 2**34 of them: over MAX_BLOCKS (256), the
    # product stays whole, for the converter's E400 over Acc.
    for m in (2**40, 2**15):  # 64-row blocks: 2**34, 512
        huge = program(m, 256)
        assert split(huge).functions[0] is huge.functions[0]
    found = calls(split(program(2**14, 256)))  # 256 blocks
    assert len(found) == 3 * 256
    assert found[-2:] == [
        "pl.tensor.matmul(a_255, b, out_dtype=pl.FP32)",
        "pl.tensor.assemble(out_1_254, c_255, [16320, 0])",
    ]


def test_the_blocks_compute_the_whole_product() -> None:
    whole = program(256, 256, rows=320, at=64)
    rng = np.random.default_rng(0)
    inputs = {
        "a": rng.uniform(-2, 2, (256, 32)).astype(np.float32),
        "b": rng.uniform(-2, 2, (32, 256)).astype(np.float32),
        "out": rng.uniform(-2, 2, (320, 256)).astype(np.float32),
    }
    expected = run_function(whole, "k", inputs).outputs["out"]
    assert np.array_equal(run_function(split(whole), "k", inputs).outputs["out"], expected)
    assert np.array_equal(expected[:64], inputs["out"][:64])  # the window only


def test_a_product_that_fits_or_is_read_otherwise_is_left_alone() -> None:
    fits = program(128, 128)
    assert split(fits).functions[0] is fits.functions[0]
    assemble = "out = pl.assemble(out, c, [{at}, 0])"
    text = SOURCE.replace(assemble, assemble + "\n        d = pl.exp(c)")
    (found,) = analyze_source(text.format(m=256, n=256, rows=256, at=0), "k.py").all_programs()
    read_twice = run_pipeline(found, ["ConvertToSSA"]).program
    assert split(read_twice).functions[0] is read_twice.functions[0]


# --- the Mat placement ---------------------------------------------------------------------

CHAIN = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self,
            a: pl.Tensor[[{m}, 32], pl.FP16],
            b: pl.Tensor[[32, {n}], pl.FP16],
            e: pl.Tensor[[{n}, 64], pl.FP16],
            out: pl.Out[pl.Tensor[[{m}, 64], pl.FP32]],
        ) -> pl.Tensor[[{m}, 64], pl.FP32]:
            c = pl.matmul(a, b, out_dtype=pl.FP32)
            cb = pl.cast(c, pl.{dtype}, mode="{mode}")
            d = pl.matmul(cb, e, out_dtype=pl.FP32){extra}
            out = pl.assemble(out, d, [0, 0])
            return out
    """)


def placements(
    m: int = 256,
    n: int = 256,
    dtype: str = "FP16",
    mode: str = "rint",
    extra: str = "",
    chain: str = CHAIN,
) -> dict[str, tuple[str, str, int, int]]:
    """mat_placed of the chain, by product name: (cast, dtype, axis, block)."""
    text = chain.format(m=m, n=n, dtype=dtype, mode=mode, extra=extra)
    (found,) = analyze_source(text, "k.py").all_programs()
    (function,) = run_pipeline(found, ["ConvertToSSA"]).program.functions
    return {
        product.name: (p.cast.name, p.dtype.name, p.axis, p.block)
        for product, p in mat_placed(function, ACC).items()
    }


def test_a_product_over_acc_cast_into_a_second_matmul_is_placed_in_mat() -> None:
    # [256, 256] FP32 is 262144 bytes: blocks of 64 rows (two of them fit Acc's 131072)
    assert placements() == {"c": ("cb", "FP16", 0, 64)}
    assert placements(dtype="BF16") == {"c": ("cb", "BF16", 0, 64)}
    # 16 rows of 4096 columns: blocks of 1024 columns
    assert placements(m=16, n=4096) == {"c": ("cb", "FP16", 1, 1024)}


def test_a_product_that_fits_or_a_cast_fixpipe_cannot_do_is_not_placed() -> None:
    assert placements(m=128, n=128) == {}  # fits Acc: the converting move (tensor_to_block.py)
    assert placements(mode="round") == {}  # ties away from zero: FIXPIPE rounds half to even
    assert placements(dtype="FP32") == {}  # no narrowing: nothing for FIXPIPE to convert
    assert placements(extra="\n        f = pl.exp(cb)") == {}  # a vector op reads the cast too
    unread = CHAIN.replace("d = pl.matmul(cb, e, out_dtype=pl.FP32)", "d = pl.matmul(a, b)")
    assert placements(chain=unread) == {}  # no matmul reads the cast
    int8 = CHAIN.replace("pl.FP16]", "pl.INT8]").replace(
        "out_dtype=pl.FP32)\n", "out_dtype=pl.INT32)\n", 1
    )
    assert placements(chain=int8) == {}  # an INT32 product: FIXPIPE's cast is FP32's
