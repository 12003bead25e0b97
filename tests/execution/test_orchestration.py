"""Tensor-level programs end to end: the orchestration C++ and every kernel it launches, built
into one executable with the host shim (``ptoc.run.orchestration``) and run on pto-isa's CPU
simulator, against the reference interpreter running the source program (not the IR after
the passes: this checks the passes too)."""

from __future__ import annotations

import tempfile
import textwrap
from pathlib import Path

import numpy as np
import pytest

from ptoc.cli import analyze
from ptoc.ir.types import TensorType
from ptoc.run import simulator
from ptoc.run.execute import describe_failure
from ptoc.run.inputs import generate_inputs
from ptoc.run.orchestration import (
    compare_slots,
    compile_orchestration,
    host_slots,
    reference_tensors,
    slot_arguments,
    slot_results,
)

from .bench import Bench

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
HEADER = "import pypto.language as pl\n\n\n@pl.program\n"

# A loop carrying a tensor that a kernel updates in place (an InOut parameter), started by
# another kernel's result.
LOOP_CARRIED = HEADER + textwrap.dedent("""\
    class Carried:
        @pl.function(type=pl.FunctionType.InCore)
        def double(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            y: pl.Tensor[[64, 64], pl.FP32] = pl.add(x, x)
            return y

        @pl.function(type=pl.FunctionType.InCore)
        def accumulate(
            self,
            x: pl.Tensor[[64, 64], pl.FP32],
            acc: pl.InOut[pl.Tensor[[64, 64], pl.FP32]],
        ) -> pl.Tensor[[64, 64], pl.FP32]:
            t = pl.load(x, [0, 0], [64, 64])
            a = pl.load(acc, [0, 0], [64, 64])
            s = pl.add(a, t)
            r = pl.store(s, [0, 0], [64, 64], acc)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            first: pl.Tensor[[64, 64], pl.FP32] = self.double(x)
            for i, (acc,) in pl.range(3, init_values=(first,)):
                nxt: pl.Tensor[[64, 64], pl.FP32] = self.accumulate(x, acc)
                out = pl.yield_(nxt)
            return out
    """)

# Column windows of the input (views the shim gathers) through a tensor-level kernel whose
# loop carries a tile, placed into the result by a block-level kernel at a scalar offset.
VIEWS = HEADER + textwrap.dedent("""\
    class Windows:
        @pl.function(type=pl.FunctionType.InCore)
        def triple(self, x: pl.Tensor[[64, 16], pl.FP32]) -> pl.Tensor[[64, 16], pl.FP32]:
            for i, (acc,) in pl.range(2, init_values=(x,)):
                y: pl.Tensor[[64, 16], pl.FP32] = pl.add(acc, x)
                out = pl.yield_(y)
            return out

        @pl.function(type=pl.FunctionType.InCore)
        def place(
            self,
            part: pl.Tensor[[64, 16], pl.FP32],
            whole: pl.InOut[pl.Tensor[[64, 64], pl.FP32]],
            col: pl.Scalar[pl.INDEX],
        ) -> pl.Tensor[[64, 64], pl.FP32]:
            t = pl.load(part, [0, 0], [64, 16])
            r = pl.store(t, [0, col], [64, 16], whole)
            return r

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            result: pl.Tensor[[64, 64], pl.FP32] = pl.create_tensor([64, 64], dtype=pl.FP32)
            for i, (res,) in pl.range(4, init_values=(result,)):
                cols: pl.Tensor[[64, 16], pl.FP32] = pl.view(x, [64, 16], [0, i * 16])
                tripled: pl.Tensor[[64, 16], pl.FP32] = self.triple(cols)
                placed: pl.Tensor[[64, 64], pl.FP32] = self.place(tripled, res, i * 16)
                done = pl.yield_(placed)
            return done
    """)

# Cube and vector kernels: a matmul over K slices, then a vector kernel on its product.
MATMUL = HEADER + textwrap.dedent("""\
    class Product:
        @pl.function
        def main(
            self, a: pl.Tensor[[64, 256], pl.FP16], b: pl.Tensor[[256, 128], pl.FP16]
        ) -> pl.Tensor[[64, 128], pl.FP32]:
            with pl.incore():
                c: pl.Tensor[[64, 128], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
            with pl.incore():
                scaled: pl.Tensor[[64, 128], pl.FP32] = pl.mul(c, 0.25)
                shifted: pl.Tensor[[64, 128], pl.FP32] = pl.add(scaled, 1.0)
            return shifted
    """)

# A K loop as today's examples write it (qwen3_jit's projections, reduced): the first slice's
# product starts the carried accumulator, matmul_acc adds the others; two column blocks.
K_LOOP = textwrap.dedent("""\
    import pypto.language as pl
    import torch


    @pl.jit
    def projection(x: pl.Tensor, w: pl.Tensor, y: pl.Out[pl.Tensor]):
        for n0 in pl.parallel(0, 64, 32):
            with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
                acc = pl.create_tensor([16, 32], dtype=pl.FP32)
                for kb in pl.pipeline(0, 4, stage=2):
                    k0 = kb * 32
                    tile_x = x[:, k0 : k0 + 32]
                    tile_w = w[k0 : k0 + 32, n0 : n0 + 32]
                    if k0 == 0:
                        acc = pl.matmul(tile_x, tile_w, out_dtype=pl.FP32)
                    else:
                        acc = pl.matmul_acc(acc, tile_x, tile_w)
                y = pl.assemble(y, acc, [0, n0])
        return y


    if __name__ == "__main__":
        x = torch.randn(16, 128, dtype=torch.float16)
        w = torch.randn(128, 64, dtype=torch.float16)
        projection(x, w, torch.zeros((16, 64), dtype=torch.float32))
    """)

PROGRAMS = {
    "examples/tensor_add.py::main": ((EXAMPLES / "tensor_add.py").read_text("utf-8"), "main"),
    "examples/tensor_attention.py::attention": (
        (EXAMPLES / "tensor_attention.py").read_text("utf-8"),
        "attention",
    ),
    "examples/tensor_flash_attention.py::flash_attention": (
        (EXAMPLES / "tensor_flash_attention.py").read_text("utf-8"),
        "flash_attention",
    ),
    "loop_carried": (LOOP_CARRIED, "main"),
    "views_in_a_loop": (VIEWS, "main"),
    "matmul_then_vector": (MATMUL, "main"),
    "k_loop_matmul_acc": (K_LOOP, "projection"),
}


def run_end_to_end(
    bench: Bench,
    source: str,
    function: str,
    given: dict[str, np.ndarray] | None = None,
    path: str = "program.py",
) -> list[str]:
    """Mismatches between the simulator and the interpreter (empty: they agree); ``given``:
    inputs by parameter name (the others drawn at random); ``path``: where the source is (its
    sibling modules are read from there)."""
    analysis = analyze(source, path)
    program = next(p for p in analysis.all_programs() if p.function(function) is not None)
    original = program.function(function)
    assert original is not None
    inputs = generate_inputs(program, original, 0, given)
    expected = reference_tensors(program, original, inputs)
    compiled, diagnostics = compile_orchestration(program, function)
    assert compiled is not None, [d.format() for d in diagnostics]
    slots = host_slots(compiled, inputs)
    executable = simulator.build(bench.toolchain, compiled.source, "orchestration")
    workdir = Path(tempfile.mkdtemp(prefix="orch-", dir=bench.scratch))
    run = simulator.run(executable, 0, slot_arguments(slots), 0, workdir)
    assert run.returncode == 0, describe_failure(run)
    comparisons = compare_slots(slots, slot_results(slots, run), expected)
    assert len(comparisons) == sum(isinstance(s.type, TensorType) for s in slots)
    return [c.line() for c in comparisons if not c.ok]


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_tensor_level_program_matches_the_reference(key: str, bench: Bench) -> None:
    source, function = PROGRAMS[key]
    assert run_end_to_end(bench, source, function) == []


# An FP32 scalar the host passes on (its slot holds the float's bits: the host code read them
# as a number, 1.5 as 1069547520.0) and an INDEX scalar in a tile's type inside a pl.at region
# (the outlined kernel kept the caller's variable there: E900 "used before it is defined").
SCALED_WINDOW = HEADER + textwrap.dedent("""\
    class ScaledWindow:
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(
            self,
            data: pl.Tensor[[64, 64], pl.FP32],
            scale: pl.Scalar[pl.FP32],
            vlen: pl.Scalar[pl.INDEX],
            output: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
        ) -> pl.Tensor[[64, 64], pl.FP32]:
            with pl.at(level=pl.Level.CORE_GROUP):
                window = pl.load(
                    data, [0, 0], [64, 64], valid_shape=[64, vlen],
                    target_memory=pl.MemorySpace.Vec,
                )
                padded = pl.tile.fillpad(window, pad_value=pl.PadValue.zero)
                pl.store(pl.mul(padded, scale), [0, 0], output)
            return output
    """)


def test_a_float_scalar_and_a_valid_extent_reach_the_kernel(bench: Bench) -> None:
    given = {"scale": np.array(1.5, dtype=np.float32), "vlen": np.array(40, dtype=np.int64)}
    assert run_end_to_end(bench, SCALED_WINDOW, "main", given) == []
