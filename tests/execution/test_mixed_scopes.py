"""Mixed kernel scopes end to end (``ptoc.mixed_kernels``): split into a cube kernel and a
vector kernel, the product handed over in GM, the orchestration with both kernels run on
pto-isa's CPU simulator matches the reference interpreter running the unsplit source."""

from __future__ import annotations

import textwrap

import pytest

from .bench import Bench
from .test_orchestration import run_end_to_end

HEADER = """\
import pypto.language as pl


@pl.program
class Mixed:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
"""

PROGRAMS = {
    # per row block: set-up (r0, the views) both kernels compute, the product through GM
    "row_blocks": """\
        for i in pl.range(2):
            with pl.at(
                level=pl.Level.CORE_GROUP,
                optimizations=[pl.split(pl.SplitMode.LEFT_RIGHT)],
                name_hint="mixed",
            ):
                r0 = i * 32
                rows = pl.slice(a, [32, 128], [r0, 0])
                acc = pl.matmul(rows, b, out_dtype=pl.FP32)
                part = pl.slice(bias, [32, 64], [r0, 0])
                out = pl.assemble(out, pl.exp(pl.mul(pl.add(acc, part), 0.01)), [r0, 0])
        return out
    """,
    # vector work written before the matmul that does not read it: in the vector kernel
    "vector_first": """\
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            half = pl.mul(bias, 0.5)
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            out = pl.assemble(out, pl.sub(acc, half), [0, 0])
        return out
    """,
}


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_a_split_mixed_scope_runs_as_the_reference(key: str, bench: Bench) -> None:
    source = HEADER + textwrap.indent(textwrap.dedent(PROGRAMS[key]), " " * 8)
    assert run_end_to_end(bench, source, "main") == []
