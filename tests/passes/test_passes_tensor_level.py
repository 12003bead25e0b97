"""OutlineIncoreScopes and ConvertTensorToBlockOps: exact IR after each, tiling by the target's
unified-buffer capacity, and the programs they leave compiling on both back ends."""

from __future__ import annotations

import textwrap

from passes_ir import both_targets

from ptoc import driver
from ptoc.frontend import analyze_source
from ptoc.ir import structural_equal
from ptoc.ir.types import MemorySpace
from ptoc.passes import DEFAULT_TARGET, Target, run_pipeline
from ptoc.printer import print_program

UP_TO_OUTLINE = ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes"]
UP_TO_CONVERT = [*UP_TO_OUTLINE, "ConvertTensorToBlockOps"]

HEADER = "import pypto.language as pl\n\n\n@pl.program\n"

SCOPES = HEADER + textwrap.dedent("""\
    class P:
        @pl.function
        def main(
            self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64]
        ) -> pl.Tensor[[64], pl.FP32]:
            y: pl.Tensor[[64], pl.FP32] = pl.add(x, 1.0)
            with pl.incore():
                a: pl.Tensor[[64], pl.FP32] = pl.mul(y, x)
                b: pl.Tensor[[64], pl.FP32] = pl.exp(a)
                c: pl.Tensor[[64], pl.FP32] = pl.add(b, a)
            z: pl.Tensor[[64], pl.FP32] = pl.add(c, b)
            return z
    """)

BIG = HEADER + textwrap.dedent("""\
    class Big:
        @pl.function(type=pl.FunctionType.InCore)
        def big_kernel(
            self, x: pl.Tensor[[512, 256], pl.FP32], y: pl.Tensor[[512, 1], pl.FP32]
        ) -> pl.Tensor[[512, 1], pl.FP32]:
            z: pl.Tensor[[512, 256], pl.FP32] = pl.exp(x)
            s: pl.Tensor[[512, 1], pl.FP32] = pl.row_sum(z)
            w: pl.Tensor[[512, 1], pl.FP32] = pl.add(s, y)
            return w
    """)


def after(source: str, passes: list[str], target: Target | None = None) -> str:
    (program,) = analyze_source(source, "k.py").all_programs()
    result = run_pipeline(program, passes, target)
    assert [d.format() for d in result.diagnostics] == []
    text = print_program(result.program)
    return text.split("@pl.program\n", 1)[1]


def test_a_scope_becomes_an_incore_function_and_its_caller_orchestration() -> None:
    assert after(SCOPES, UP_TO_OUTLINE) == textwrap.dedent("""\
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(
                self, y: pl.Tensor[[64], pl.FP32], x: pl.Tensor[[64], pl.FP32]
            ) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
                a: pl.Tensor[[64], pl.FP32] = pl.tensor.mul(y, x)
                b: pl.Tensor[[64], pl.FP32] = pl.tensor.exp(a)
                c: pl.Tensor[[64], pl.FP32] = pl.tensor.add(b, a)
                return b, c

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64]
            ) -> pl.Tensor[[64], pl.FP32]:
                y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, 1.0)
                _tuple_tmp: tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]] = (
                    self.main_incore_0(y, x)
                )
                b: pl.Tensor[[64], pl.FP32] = _tuple_tmp[0]
                c: pl.Tensor[[64], pl.FP32] = _tuple_tmp[1]
                z: pl.Tensor[[64], pl.FP32] = pl.tensor.add(c, b)
                return z
        """)


def test_tensor_ops_become_loads_block_ops_and_stores_into_out_parameters() -> None:
    assert after(SCOPES, UP_TO_CONVERT) == textwrap.dedent("""\
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def main_incore_0(
                self,
                y: pl.Tensor[[64], pl.FP32],
                x: pl.Tensor[[64], pl.FP32],
                out_0: pl.Out[pl.Tensor[[64], pl.FP32]],
                out_1: pl.Out[pl.Tensor[[64], pl.FP32]],
            ) -> tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]]:
                y_tile: pl.Tile[[64], pl.FP32] = pl.block.load(y, [0], [64])
                x_tile: pl.Tile[[64], pl.FP32] = pl.block.load(x, [0], [64])
                a_tile: pl.Tile[[64], pl.FP32] = pl.block.mul(y_tile, x_tile)
                b_tile: pl.Tile[[64], pl.FP32] = pl.block.exp(a_tile)
                c_tile: pl.Tile[[64], pl.FP32] = pl.block.add(b_tile, a_tile)
                b: pl.Tensor[[64], pl.FP32] = pl.block.store(b_tile, [0], [64], out_0)
                c: pl.Tensor[[64], pl.FP32] = pl.block.store(c_tile, [0], [64], out_1)
                return b, c

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(
                self, x: pl.Tensor[[64], pl.FP32], n: pl.Scalar[pl.INT64]
            ) -> pl.Tensor[[64], pl.FP32]:
                y: pl.Tensor[[64], pl.FP32] = pl.tensor.add(x, 1.0)
                out_0: pl.Tensor[[64], pl.FP32] = pl.tensor.create_tensor([64], dtype=pl.FP32)
                out_1: pl.Tensor[[64], pl.FP32] = pl.tensor.create_tensor([64], dtype=pl.FP32)
                _tuple_tmp: tuple[pl.Tensor[[64], pl.FP32], pl.Tensor[[64], pl.FP32]] = (
                    self.main_incore_0(y, x, out_0, out_1)
                )
                b: pl.Tensor[[64], pl.FP32] = _tuple_tmp[0]
                c: pl.Tensor[[64], pl.FP32] = _tuple_tmp[1]
                z: pl.Tensor[[64], pl.FP32] = pl.tensor.add(c, b)
                return z
        """)


def test_a_kernel_too_big_for_the_unified_buffer_runs_over_row_windows() -> None:
    # 512 x 256 FP32 tiles are 512 KiB each; 32 rows keep every tile within 192 KiB. Each step
    # stores its window into the Out parameter, which the function returns.
    assert after(BIG, UP_TO_CONVERT) == textwrap.dedent("""\
        class Big:
            @pl.function(type=pl.FunctionType.InCore)
            def big_kernel(
                self,
                x: pl.Tensor[[512, 256], pl.FP32],
                y: pl.Tensor[[512, 1], pl.FP32],
                out_0: pl.Out[pl.Tensor[[512, 1], pl.FP32]],
            ) -> pl.Tensor[[512, 1], pl.FP32]:
                for i in pl.range(0, 512, 32):
                    x_tile: pl.Tile[[32, 256], pl.FP32] = pl.block.load(x, [i, 0], [32, 256])
                    y_tile: pl.Tile[[32, 1], pl.FP32] = pl.block.load(y, [i, 0], [32, 1])
                    z_tile: pl.Tile[[32, 256], pl.FP32] = pl.block.exp(x_tile)
                    tmp_tile: pl.Tile[[32, 256], pl.FP32] = pl.block.create_tile(
                        [32, 256], dtype=pl.FP32
                    )
                    s_tile: pl.Tile[[32, 1], pl.FP32] = pl.block.row_sum(z_tile, tmp_tile)
                    w_tile: pl.Tile[[32, 1], pl.FP32] = pl.block.add(s_tile, y_tile)
                    w: pl.Tensor[[512, 1], pl.FP32] = pl.block.store(
                        w_tile, [i, 0], [32, 1], out_0
                    )
                return out_0
        """)


def test_the_window_follows_the_targets_capacity() -> None:
    roomy = Target(capacities={**DEFAULT_TARGET.capacities, MemorySpace.Vec: 4 << 20})
    assert "pl.range" not in after(BIG, UP_TO_CONVERT, roomy)
    small = Target(capacities={**DEFAULT_TARGET.capacities, MemorySpace.Vec: 64 * 1024})
    # Three [R, 256] tiles and three [R, 1] tiles fit 64 KiB for R <= 21: 16 divides 512.
    assert "for i in pl.range(0, 512, 16):" in after(BIG, UP_TO_CONVERT, small)


def test_a_leading_dimension_of_2_to_the_40_finds_its_window_at_once() -> None:
    # Counting windows down from 2**40 - 1 never ended (a typo the editor analyses as it is
    # typed): the search starts at 8 x capacity rows, more than any window that fits.
    huge = BIG.replace("512,", f"{2**40},")
    assert f"for i in pl.range(0, {2**40}, 32):" in after(huge, UP_TO_CONVERT)


def test_block_level_programs_are_left_alone() -> None:
    source = HEADER + textwrap.dedent("""\
        class K:
            @pl.function(type=pl.FunctionType.InCore)
            def k(
                self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Out[pl.Tensor[[16, 16], pl.FP32]]
            ) -> pl.Tensor[[16, 16], pl.FP32]:
                t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
                r: pl.Tensor[[16, 16], pl.FP32] = pl.store(t, [0, 0], [16, 16], out)
                return r
        """)
    (program,) = analyze_source(source, "k.py").all_programs()
    flat = run_pipeline(program, ["ConvertToSSA", "FlattenCalls"]).program
    assert run_pipeline(flat, ["OutlineIncoreScopes", "ConvertTensorToBlockOps"]).program is flat


def test_tensor_level_kernels_compile_for_both_targets() -> None:
    cce, pto = both_targets(BIG)
    assert "for (int64_t i = 0; i < 512; i += 32) {" in cce
    assert "TROWSUM(s_tile, z_tile, tmp_tile);" in cce
    assert "pto.trowsum" in pto


EDGES = HEADER + textwrap.dedent("""\
    class E:
        @pl.function(type=pl.FunctionType.InCore)
        def created(self, x: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
            t: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
            y: pl.Tensor[[16, 16], pl.FP32] = pl.maximum(x, t)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def branch(
            self, x: pl.Tensor[[64, 16], pl.FP32], n: pl.Scalar[pl.INT64]
        ) -> pl.Tensor[[64, 16], pl.FP32]:
            if n > 0:
                y: pl.Tensor[[64, 16], pl.FP32] = pl.add(x, x)
                z = pl.yield_(y)
            else:
                y2: pl.Tensor[[64, 16], pl.FP32] = pl.mul(x, x)
                z = pl.yield_(y2)
            return z

        @pl.function(type=pl.FunctionType.InCore)
        def window(
            self, x: pl.Tensor[[64, 16], pl.FP32], i: pl.Scalar[pl.INT64]
        ) -> pl.Tensor[[16, 16], pl.FP32]:
            v: pl.Tensor[[16, 16], pl.FP32] = pl.view(x, [16, 16], [i * 16, 0])
            y: pl.Tensor[[16, 16], pl.FP32] = pl.exp(v)
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 16], pl.FP32]) -> pl.Tensor[[64, 16], pl.FP32]:
            for i in pl.range(4):
                y: pl.Tensor[[16, 16], pl.FP32] = self.window(x, i)
            r: pl.Tensor[[64, 16], pl.FP32] = self.branch(x, 0)
            return r
""")


def test_created_tensors_branches_views_and_calls_in_loops() -> None:
    # A tensor the kernel creates becomes an uninitialised tile; an if yielding tiles gets tile
    # results (the store a new name); a view of a parameter is a load of that window; a call in
    # a loop body gets its output tensor created in the loop.
    assert after(EDGES, UP_TO_CONVERT) == textwrap.dedent("""\
    class E:
        @pl.function(type=pl.FunctionType.InCore)
        def created(
            self,
            x: pl.Tensor[[16, 16], pl.FP32],
            out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        ) -> pl.Tensor[[16, 16], pl.FP32]:
            x_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.load(x, [0, 0], [16, 16])
            t_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.create_tile(
                [16, 16], dtype=pl.FP32
            )
            y_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.maximum(x_tile, t_tile)
            y: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(
                y_tile, [0, 0], [16, 16], out_0
            )
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def branch(
            self,
            x: pl.Tensor[[64, 16], pl.FP32],
            n: pl.Scalar[pl.INT64],
            out_0: pl.Out[pl.Tensor[[64, 16], pl.FP32]],
        ) -> pl.Tensor[[64, 16], pl.FP32]:
            x_tile: pl.Tile[[64, 16], pl.FP32] = pl.block.load(x, [0, 0], [64, 16])
            if n > 0:
                y_tile: pl.Tile[[64, 16], pl.FP32] = pl.block.add(x_tile, x_tile)
                z: pl.Tile[[64, 16], pl.FP32] = pl.yield_(y_tile)
            else:
                y2_tile: pl.Tile[[64, 16], pl.FP32] = pl.block.mul(x_tile, x_tile)
                z: pl.Tile[[64, 16], pl.FP32] = pl.yield_(y2_tile)
            z_1: pl.Tensor[[64, 16], pl.FP32] = pl.block.store(z, [0, 0], [64, 16], out_0)
            return z_1

        @pl.function(type=pl.FunctionType.InCore)
        def window(
            self,
            x: pl.Tensor[[64, 16], pl.FP32],
            i: pl.Scalar[pl.INT64],
            out_0: pl.Out[pl.Tensor[[16, 16], pl.FP32]],
        ) -> pl.Tensor[[16, 16], pl.FP32]:
            v_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.load(x, [i * 16, 0], [16, 16])
            y_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.exp(v_tile)
            y: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(
                y_tile, [0, 0], [16, 16], out_0
            )
            return y

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 16], pl.FP32]) -> pl.Tensor[[64, 16], pl.FP32]:
            for i in pl.range(0, 4, 1):
                out_0: pl.Tensor[[16, 16], pl.FP32] = pl.tensor.create_tensor(
                    [16, 16], dtype=pl.FP32
                )
                y: pl.Tensor[[16, 16], pl.FP32] = self.window(x, i, out_0)
            out_0_1: pl.Tensor[[64, 16], pl.FP32] = pl.tensor.create_tensor(
                [64, 16], dtype=pl.FP32
            )
            r: pl.Tensor[[64, 16], pl.FP32] = self.branch(x, 0, out_0_1)
            return r
""")


def test_every_snapshot_of_these_programs_prints_and_parses_back() -> None:
    for source in (SCOPES, BIG, EDGES):
        (program,) = analyze_source(source, "k.py").all_programs()
        for name, snapshot in driver.run_pipeline(program, "default").snapshots:
            text = print_program(snapshot)
            reparsed = analyze_source(text, f"<after {name}>")
            assert not reparsed.has_errors, (name, text)
            (again,) = reparsed.all_programs()
            assert structural_equal(snapshot, again), (name, text)


ASSEMBLE = HEADER + textwrap.dedent("""\
    class A:
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(
            self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]
        ) -> pl.Tensor[[64, 64], pl.FP32]:
            y: pl.Tensor[[32, 64], pl.FP32] = pl.exp(x)
            out: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out, y, [32, 0])
            return out
    """)


def test_an_assemble_in_a_kernel_stores_its_source_tile_into_the_targets_window() -> None:
    """As upstream's ConvertTensorToTileOps: ``tile.store`` of the source's tile at the offset,
    and the target parameter the store writes becomes ``Out``."""
    assert after(ASSEMBLE, ["ConvertToSSA", "ConvertTensorToBlockOps"]) == textwrap.dedent("""\
        class A:
            @pl.function(type=pl.FunctionType.InCore)
            def kernel(
                self, x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]
            ) -> pl.Tensor[[64, 64], pl.FP32]:
                x_tile: pl.Tile[[32, 64], pl.FP32] = pl.block.load(x, [0, 0], [32, 64])
                y_tile: pl.Tile[[32, 64], pl.FP32] = pl.block.exp(x_tile)
                out_1: pl.Tensor[[64, 64], pl.FP32] = pl.block.store(
                    y_tile, [32, 0], [32, 64], out
                )
                return out_1
        """)
    cce, pto = both_targets(ASSEMBLE)
    assert (
        "GlobalTensor<float, Shape<1, 1, 1, 32, 64>, Stride<1, 1, 1, 64, 1>> "
        "outGlobalWindow(out + 32 * 64 + 0);\n    TSTORE(outGlobalWindow, y_tile);"
    ) in cce
    assert "pto.partition_view %3, offsets = [%c32, %c0], sizes = [%c32, %c64]" in pto
