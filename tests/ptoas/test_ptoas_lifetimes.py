"""PTOAS plans a tile buffer from its ``pto.alloc_tile`` to its last use (issue #29): a kernel
whose buffers of one memory space fit only one after the other must allocate the later ones
where they are first used (codegen/pto/lifetimes.py). Upstream's fits_l0c_split_k
(advanced/02_auto_tile_matmul.py) K-loops a [128, 512] @ [512, 128] product over two 64 KB
[256, 128] Right slices, then multiplies its product by a [128, 64] Right tile: with every
allocation at the top of the function both PTOAS versions reported "right overflow, requires
655360 bits while 524288 bits avaliable!" (64 + 16 KB of A2/A3's 64 KB L0B)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from pto_bench import Bench, expected_results, routed_kernel
from test_ptoas_accepts import explain

from ptoc import driver
from ptoc.cli import analyze
from ptoc.codegen.pto.ptoas import ptoas_version, run_ptoas
from ptoc.diagnostics import Severity
from ptoc.editions import Edition
from ptoc.run.simulator import Toolchain

EXAMPLE = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "pypto-2026-08"
    / "examples"
    / "advanced"
    / "02_auto_tile_matmul.py"
)
# The FP16 twin of fits_l0c_split_k (tests/execution/test_folded_cast.py runs it).
TWIN = """\
import pypto.language as pl


@pl.program
class Chained:
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
"""


def pto_text(source: str, path: str, function: str, version: str | None = None) -> str:
    analysis = analyze(source, path)
    result = driver.compile_source(analysis, "pto", function, path=path, ptoas_version=version)
    assert [d.format() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    return "\n".join(p.text for p in result.programs)


def example_text(version: str | None = None) -> str:
    if not EXAMPLE.is_file():
        pytest.skip("the upstream examples are not beside the repo")
    source = EXAMPLE.read_text(encoding="utf-8")
    return pto_text(source, str(EXAMPLE), "fits_l0c_split_k", version)


def right_allocations(text: str) -> list[tuple[int, str]]:
    """(line number, shape) of each Right buffer's allocation."""
    return [
        (number, f"{m.group(1)}x{m.group(2)}")
        for number, line in enumerate(text.splitlines())
        if (
            m := re.search(
                r"pto\.alloc_tile : !pto\.tile_buf<loc=right, \w+=\w+, rows=(\d+), "
                r"cols=(\d+)",
                line,
            )
        )
    ]


def test_the_second_matmuls_right_tile_is_allocated_after_the_k_loop() -> None:
    text = example_text()
    lines = text.splitlines()
    loop_end = max(i for i, line in enumerate(lines) if line == "    }")  # the K-loop's end
    (slice_line, slice_shape), (tile_line, tile_shape) = right_allocations(text)
    assert (slice_shape, tile_shape) == ("256x128", "128x64")
    assert slice_line < lines.index("    // Allocations") + 12  # at the top: the loop uses it
    assert tile_line > loop_end  # first used by the second matmul's move, after the loop


@pytest.mark.parametrize("source", ["example", "fp16_twin"])
def test_ptoas_plans_the_k_looped_chain_in_l0b(source: str, ptoas_each: Path) -> None:
    version = ptoas_version(ptoas_each)
    if source == "example":
        text = example_text(version)
    else:
        text = pto_text(TWIN, "twin.py", "split_k", version)
    result = run_ptoas(text, ptoas_each)
    assert result.ok, f"PTOAS rejects fits_l0c_split_k ({source}):\n{explain(result)}"


# The twin as one kernel, with K = 512 (split-K: two [256, 128] Right slices) and K = 64 (one
# matmul): what both routes run on the simulator.
KERNEL = """\
import pypto.language as pl


@pl.program
class Chained:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[128, K], pl.FP16],
        b: pl.Tensor[[K, 128], pl.FP16],
        e: pl.Tensor[[128, 64], pl.FP16],
        out: pl.Out[pl.Tensor[[128, 64], pl.FP32]],
    ) -> pl.Tensor[[128, 64], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        cb = pl.cast(c, pl.FP16, mode="rint")
        d = pl.matmul(cb, e, out_dtype=pl.FP32)
        out = pl.assemble(out, d, [0, 0])
        return out
"""


def small_integers(k: int) -> dict[str, np.ndarray]:
    """Inputs in -2..2, whose products and sums are exact in FP32 and the product's cast
    to FP16 too (|c| <= 2 * 2 * 512 = 2048): the kernel's K-slices add up to the reference's
    sum whatever their order (with random inputs a last-bit difference becomes one FP16 step
    in a few elements: test_folded_cast.py's split_k)."""
    rng = np.random.default_rng(29)
    shapes = {"a": (128, k), "b": (k, 128), "e": (128, 64)}
    return {name: rng.integers(-2, 3, shape).astype(np.float16) for name, shape in shapes.items()}


@pytest.mark.parametrize("route", ["cce", "pto"])
@pytest.mark.parametrize("k", [512, 64], ids=["split_k", "full_k"])
def test_the_fp16_chain_runs_on_both_routes_as_on_the_interpreter(
    k: int, route: str, toolchain: Toolchain, ptoas: Path
) -> None:
    name = f"folded_cast_chain_k{k}@{route}"
    source = KERNEL.replace("K]", f"{k}]").replace("[K,", f"[{k},")
    kernel = routed_kernel(name, source, Edition.V2026_08, route, ptoas, small_integers(k))
    outcome = Bench(toolchain).execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())
