"""Round trip through the front end: source -> IR -> printed text -> IR.

For each program: the printed text parses without errors into a structurally equal IR
(names included), and printing that IR again gives the same text. Sources are written
callee-before-caller, the printer's order, so programs compare function by function.
"""

from __future__ import annotations

import pytest

from ptoc.frontend import ModuleAnalysis, analyze_source
from ptoc.ir import Program, structural_equal
from ptoc.printer import print_program

TILE_KERNEL = """\
import pypto.language as pl


@pl.program
class TileAdd:
    @pl.function(type=pl.FunctionType.InCore)
    def tile_add(
        self,
        a: pl.Tensor[[128, 128], pl.FP32],
        b: pl.Tensor[[128, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[128, 128], pl.FP32]],
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        for i, (acc,) in pl.range(0, 4, 1, init_values=(out,)):
            ta: pl.Tile[[32, 128], pl.FP32] = pl.load(a, [i * 32, 0], [32, 128])
            tb: pl.Tile[[32, 128], pl.FP32] = pl.block.load(b, [i * 32, 0], [32, 128])
            tc: pl.Tile[[32, 128], pl.FP32] = pl.add(ta, tb)
            td: pl.Tile[[32, 128], pl.FP32] = pl.block.muls(tc, 0.5)
            stored: pl.Tensor[[128, 128], pl.FP32] = pl.store(td, [i * 32, 0], [32, 128], acc)
            result: pl.Tensor[[128, 128], pl.FP32] = pl.yield_(stored)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[128, 128], pl.FP32], y: pl.Tensor[[128, 128], pl.FP32]
    ) -> pl.Tensor[[128, 128], pl.FP32]:
        z: pl.Tensor[[128, 128], pl.FP32] = pl.create_tensor([128, 128], dtype=pl.FP32)
        with pl.incore():
            summed: pl.Tensor[[128, 128], pl.FP32] = self.tile_add(x, y, z)
        return summed
"""

SCALARS = """\
import pypto.language as pl


@pl.program
class Scalars:
    @pl.function
    def arith(self, a: pl.Scalar[pl.INT64], b: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        c: pl.Scalar[pl.INT64] = (a + b) * (a - b) // 3 % 7
        d: pl.Scalar[pl.INT64] = a - (b - -5)
        e: pl.Scalar[pl.INT32] = pl.const(5, pl.INT32)
        f: pl.Scalar[pl.FP32] = 1.5
        g: pl.Scalar[pl.FP16] = pl.const(2.5, pl.FP16)
        h: pl.Scalar[pl.INT64] = min(c, d) + max(a, abs(b))
        k: pl.Scalar[pl.BOOL] = True
        return h

    @pl.function
    def branches(
        self, a: pl.Scalar[pl.INT64], b: pl.Scalar[pl.INT64]
    ) -> tuple[pl.Scalar[pl.INT64], pl.Scalar[pl.INT64]]:
        if a < b:
            r: pl.Scalar[pl.INT64] = pl.yield_(a * 2)
        else:
            r: pl.Scalar[pl.INT64] = pl.yield_(b)
        if a == r:
            s, t = pl.yield_(a, b)
        else:
            if b > 0:
                u: pl.Scalar[pl.INT64] = pl.yield_(b)
            else:
                u: pl.Scalar[pl.INT64] = pl.yield_(-b)
            s, t = pl.yield_(u, a)
        return s, t

    @pl.function
    def loops(self, n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
        total: pl.Scalar[pl.INT64] = 0
        for i, (acc, prod) in pl.range(0, n, 1, init_values=(total, 1)):
            acc2, prod2 = pl.yield_(acc + i, prod * 2)
        for j, (k,) in pl.parallel(0, 8, 2, init_values=(acc2,)):
            k2: pl.Scalar[pl.INT64] = pl.yield_(k + j)
        for x, y in pl.while_(init_values=(k2, prod2)):
            pl.cond(x < 100)
            x2, y2 = pl.yield_(x + y, y)
        w: pl.Scalar[pl.INT64] = x2
        while w < 1000:
            w: pl.Scalar[pl.INT64] = w * 2
        for m in pl.range(4):
            q: pl.Scalar[pl.INT64] = m + 1
        return w
"""

OPERATORS = """\
import pypto.language as pl


@pl.program
class Operators:
    @pl.function
    def operators(
        self,
        a: pl.Scalar[pl.INT64],
        b: pl.Scalar[pl.INT64],
        x: pl.Scalar[pl.FP32],
        p: pl.Scalar[pl.BOOL],
    ) -> pl.Scalar[pl.INT64]:
        c: pl.Scalar[pl.INT64] = a**2 + (a << 1) - (b >> 2) + (a & b | a ^ b) + ~a
        d: pl.Scalar[pl.BOOL] = not p
        e: pl.Scalar[pl.BOOL] = (a < b) == (b < a)
        f: pl.Scalar[pl.FP32] = x / 2.0 - -0.5
        g: pl.Scalar[pl.INT8] = pl.const(-3, pl.INT8)
        h: pl.Scalar[pl.BOOL] = p and (a > 0 or b > 0)
        k: pl.Scalar[pl.INT64] = (a - b) ** -1 // (a * (b + 1))
        return c
"""

TYPES_AND_CALLS = """\
import pypto.language as pl


@pl.program
class Typed:
    @pl.function(type=pl.FunctionType.InCore)
    def typed(
        self,
        a: pl.Tensor[[64, 128], pl.FP16, pl.NZ],
        b: pl.InOut[pl.Tensor[[64, 128], pl.FP32]],
        t: pl.Tile[[32, 32], pl.FP16, pl.MemRef(pl.MemorySpace.Vec, 0x1000, 2048, 1)],
        v: pl.Tile[
            [32, 32],
            pl.FP16,
            pl.TileView(blayout=pl.BLayout.col_major, valid_shape=[16, 32]),
        ],
        s: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[64, 128], pl.FP16]:
        c: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.add(b, 1.0)
        d: pl.Tensor[[64, 128], pl.FP16] = pl.tensor.cast(c, target_type=pl.FP16, mode="floor")
        pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)
        pl.system.bar_all()
        return d

"""

DYNAMIC = """\
import pypto.language as pl

M = pl.dynamic("M")
N = pl.dynamic("N")


@pl.program
class Dynamic:
    @pl.function
    def passthrough(
        self, a: pl.Tensor[[M, N], pl.FP32], b: pl.Out[pl.Tensor[[M, N], pl.FP32]]
    ) -> pl.Tensor[[M, N], pl.FP32]:
        c: pl.Tensor[[M, N], pl.FP32] = pl.tensor.add(a, b)
        return c
"""

STANDALONE = """\
import pypto.language as pl


@pl.function(type=pl.FunctionType.InCore)
def standalone(a: pl.Tile[[16, 16], pl.FP32]) -> pl.Tile[[16, 16], pl.FP32]:
    b: pl.Tile[[16, 16], pl.FP32] = pl.block.exp(a)
    c: pl.Tile[[16, 16], pl.FP32] = pl.block.adds(b, 1.0)
    return c
"""

# Known gaps between the printer's contract and the front end, kept as strict xfails so that
# they are noticed (XPASS fails) once the front end closes them.
TUPLE_UNPACK = """\
import pypto.language as pl


@pl.program
class Unpack:
    @pl.function
    def split(
        self, x: pl.Tensor[[64, 128], pl.FP32]
    ) -> tuple[pl.Tensor[[64, 128], pl.FP32], pl.Tensor[[64, 128], pl.FP32]]:
        y: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.mul(x, 2.0)
        return x, y

    @pl.function
    def use_split(self, x: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tensor[[64, 128], pl.FP32]:
        p, q = self.split(x)
        r: pl.Tensor[[64, 128], pl.FP32] = pl.tensor.add(p, q)
        return r
"""

DEFAULT_ATTRIBUTE = """\
import pypto.language as pl


@pl.program
class Defaults:
    @pl.function(type=pl.FunctionType.InCore)
    def load(self, a: pl.Tensor[[64, 128], pl.FP32]) -> pl.Tile[[32, 128], pl.FP32]:
        t: pl.Tile[[32, 128], pl.FP32] = pl.block.load(
            a, [0, 0], [32, 128], target_memory=pl.MemorySpace.Vec
        )
        return t
"""

GAPS: dict[str, tuple[str, str, set[str]]] = {}  # known round-trip gaps: none

SOURCES = {
    "tile_kernel": TILE_KERNEL,
    "scalars": SCALARS,
    "operators": OPERATORS,
    "types_and_calls": TYPES_AND_CALLS,
    "dynamic": DYNAMIC,
    "standalone": STANDALONE,
    "tuple_unpack": TUPLE_UNPACK,
    "default_attribute": DEFAULT_ATTRIBUTE,
}


def cases(check: str) -> list[object]:
    """Every source; a known gap is an expected failure for the checks it breaks."""
    params: list[object] = [pytest.param(name, id=name) for name in sorted(SOURCES)]
    for name, (_, reason, breaks) in sorted(GAPS.items()):
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if check in breaks else []
        params.append(pytest.param(name, id=name, marks=marks))
    return params


def source(name: str) -> str:
    return SOURCES[name] if name in SOURCES else GAPS[name][0]


def parse(text: str, what: str) -> list[Program]:
    analysis = analyze_source(text, f"<{what}>")
    assert not analysis.has_errors, describe(analysis, text)
    programs = analysis.all_programs()
    assert programs, f"{what}: no program found"
    return programs


def describe(analysis: ModuleAnalysis, text: str) -> str:
    lines = [f"{d.code} {d.span}: {d.message}" for d in analysis.diagnostics]
    return "\n".join(lines) + "\n--- text ---\n" + text


@pytest.mark.parametrize("name", cases("equal"))
def test_round_trip_is_structurally_equal(name: str) -> None:
    for original in parse(source(name), name):
        printed = print_program(original)
        (reparsed,) = parse(printed, f"printed {name}")
        assert structural_equal(original, reparsed), printed


@pytest.mark.parametrize("name", cases("idempotent"))
def test_printing_is_idempotent(name: str) -> None:
    for original in parse(source(name), name):
        printed = print_program(original)
        (reparsed,) = parse(printed, f"printed {name}")
        assert print_program(reparsed) == printed


@pytest.mark.parametrize("name", cases("prefix"))
def test_round_trip_with_another_prefix(name: str) -> None:
    for original in parse(source(name), name):
        printed = print_program(original, prefix="pi")
        assert "import pypto.language as pi\n" in printed
        (reparsed,) = parse(printed, f"printed {name}")
        assert structural_equal(original, reparsed), printed


def test_forward_calls_are_reordered_and_still_equal() -> None:
    source = TILE_KERNEL.replace("class TileAdd:", "class Reordered:")
    # Move `main` (the caller) above `tile_add`.
    head, rest = source.split("    @pl.function(type=pl.FunctionType.InCore)\n", 1)
    kernel, main = rest.split("    @pl.function(type=pl.FunctionType.Orchestration)\n", 1)
    source = (
        head
        + "    @pl.function(type=pl.FunctionType.Orchestration)\n"
        + main.rstrip("\n")
        + "\n\n    @pl.function(type=pl.FunctionType.InCore)\n"
        + kernel.rstrip("\n")
        + "\n"
    )
    (original,) = parse(source, "reordered")
    assert [f.name for f in original.functions] == ["main", "tile_add"]
    printed = print_program(original)
    (reparsed,) = parse(printed, "printed reordered")
    assert [f.name for f in reparsed.functions] == ["tile_add", "main"]
    for fn in original.functions:
        counterpart = reparsed.function(fn.name)
        assert counterpart is not None
        assert structural_equal(fn, counterpart), printed
