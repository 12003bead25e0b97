"""ConvertTensorToBlockOps on the 2026-08 tensor ops whose block op of the same name computes
the same on tiles (the registry's ``block_form``): ``tensor.recip`` and the row / column
broadcasts become ``block.recip``, ``block.row_expand_mul``, ``block.col_expand_mul``, ...
inside a kernel (qwen3_jit's RMSNorm and SiLU, issue #27), exact IR; and the registry says so."""

from __future__ import annotations

import textwrap

import pytest

from ptoc.editions import Edition, EditionSource
from ptoc.frontend import analyze_source
from ptoc.ops.registry import REGISTRY
from ptoc.passes import run_pipeline
from ptoc.printer import print_program

UP_TO_CONVERT = ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes", "ConvertTensorToBlockOps"]

NORM = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class Norm:
        @pl.function(type=pl.FunctionType.InCore)
        def norm(
            self,
            x: pl.Tensor[[16, 64], pl.FP32],
            v: pl.Tensor[[16, 1], pl.FP32],
            g: pl.Tensor[[1, 64], pl.FP32],
        ) -> pl.Tensor[[16, 64], pl.FP32]:
            inv = pl.recip(v)
            rows = pl.row_expand_mul(x, inv)
            cols = pl.col_expand_mul(rows, g)
            out = pl.col_expand_sub(cols, g)
            return out
    """)


def after(source: str) -> str:
    analysis = analyze_source(source, "k.py", edition=(Edition.V2026_08, EditionSource.FLAG))
    assert [d.format() for d in analysis.diagnostics] == []
    (program,) = analysis.all_programs()
    result = run_pipeline(program, UP_TO_CONVERT)
    assert [d.format() for d in result.diagnostics] == []
    return print_program(result.program).split("@pl.program\n", 1)[1]


def test_recip_and_the_broadcasts_become_their_block_ops() -> None:
    assert after(NORM) == textwrap.dedent("""\
        class Norm:
            @pl.function(type=pl.FunctionType.InCore)
            def norm(
                self,
                x: pl.Tensor[[16, 64], pl.FP32],
                v: pl.Tensor[[16, 1], pl.FP32],
                g: pl.Tensor[[1, 64], pl.FP32],
                out_0: pl.Out[pl.Tensor[[16, 64], pl.FP32]],
            ) -> pl.Tensor[[16, 64], pl.FP32]:
                v_tile: pl.Tile[[16, 1], pl.FP32] = pl.block.load(v, [0, 0], [16, 1])
                x_tile: pl.Tile[[16, 64], pl.FP32] = pl.block.load(x, [0, 0], [16, 64])
                g_tile: pl.Tile[[1, 64], pl.FP32] = pl.block.load(g, [0, 0], [1, 64])
                inv_tile: pl.Tile[[16, 1], pl.FP32] = pl.block.recip(v_tile)
                rows_tile: pl.Tile[[16, 64], pl.FP32] = pl.block.row_expand_mul(
                    x_tile, inv_tile
                )
                cols_tile: pl.Tile[[16, 64], pl.FP32] = pl.block.col_expand_mul(
                    rows_tile, g_tile
                )
                out_tile: pl.Tile[[16, 64], pl.FP32] = pl.block.col_expand_sub(
                    cols_tile, g_tile
                )
                out: pl.Tensor[[16, 64], pl.FP32] = pl.block.store(
                    out_tile, [0, 0], [16, 64], out_0
                )
                return out
        """)


TWINS = (
    "recip",
    *(f"row_expand_{op}" for op in ("add", "sub", "mul", "div", "max", "min", "expdif")),
    "col_expand",
    *(f"col_expand_{op}" for op in ("add", "sub", "mul", "div", "max", "min", "expdif")),
)


@pytest.mark.parametrize("name", TWINS)
def test_the_registry_names_the_block_op_of_the_same_operands(name: str) -> None:
    tensor_op, block_op = REGISTRY.get(f"tensor.{name}"), REGISTRY.get(f"block.{name}")
    assert tensor_op is not None and block_op is not None
    assert tensor_op.block_form == block_op.name
    assert len(tensor_op.expr_params) == len(block_op.expr_params) == 2 - (name == "recip")


BROADCAST = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class One:
        @pl.function(type=pl.FunctionType.InCore)
        def one(
            self, x: pl.Tensor[[16, 64], pl.FP32], v: pl.Tensor[[{vec}], pl.FP32]
        ) -> pl.Tensor[[16, 64], pl.FP32]:
            z = pl.{name}(x, v)
            return z
    """)


@pytest.mark.parametrize("name", [n for n in TWINS if n != "recip"])
def test_each_broadcast_becomes_its_block_op_on_the_loaded_tiles(name: str) -> None:
    vec = "16, 1" if name.startswith("row") else "1, 64"
    text = after(BROADCAST.format(name=name, vec=vec))
    body = text.split("-> pl.Tensor[[16, 64], pl.FP32]:\n", 1)[1]
    assert body == textwrap.indent(
        textwrap.dedent(f"""\
            x_tile: pl.Tile[[16, 64], pl.FP32] = pl.block.load(x, [0, 0], [16, 64])
            v_tile: pl.Tile[[{vec}], pl.FP32] = pl.block.load(v, [0, 0], [{vec}])
            z_tile: pl.Tile[[16, 64], pl.FP32] = pl.block.{name}(x_tile, v_tile)
            z: pl.Tensor[[16, 64], pl.FP32] = pl.block.store(
                z_tile, [0, 0], [16, 64], out_0
            )
            return z
            """),
        " " * 8,
    )


WINDOWS = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class Windows:
        @pl.function(type=pl.FunctionType.InCore)
        def halves(
            self, q: pl.Tensor[[4, 512], pl.FP32], b: pl.Scalar[pl.INDEX]
        ) -> pl.Tensor[[4, 32], pl.FP32]:
            block = pl.reshape(q[b : b + 1, 0:256], [4, 64])
            lo = block[:, 0:32]
            hi = block[:, 32:64]
            both = pl.sub(lo, hi)
            return both
    """)


def test_a_window_of_a_computed_tensor_is_the_window_of_its_tile() -> None:
    """``q[b : b + 1, ..]`` of a parameter is a load; the windows of the reshaped row (a tile)
    are ``block.view`` of that tile (qwen3_jit's RoPE of Q, issue #27)."""
    text = after(WINDOWS)
    assert text.split("-> pl.Tensor[[4, 32], pl.FP32]:\n", 1)[1] == textwrap.indent(
        textwrap.dedent("""\
            _t0_tile: pl.Tile[[1, 256], pl.FP32] = pl.block.load(q, [b, 0], [1, 256])
            block_tile: pl.Tile[[4, 64], pl.FP32] = pl.block.reshape(_t0_tile, [4, 64])
            lo_tile: pl.Tile[[4, 32], pl.FP32] = pl.block.view(block_tile, [4, 32], [0, 0])
            hi_tile: pl.Tile[[4, 32], pl.FP32] = pl.block.view(block_tile, [4, 32], [0, 32])
            both_tile: pl.Tile[[4, 32], pl.FP32] = pl.block.sub(lo_tile, hi_tile)
            both: pl.Tensor[[4, 32], pl.FP32] = pl.block.store(
                both_tile, [0, 0], [4, 32], out_0
            )
            return both
            """),
        " " * 8,
    )
