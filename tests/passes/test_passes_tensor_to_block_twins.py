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
