"""Mixed kernel scopes end to end (``ptoc.mixed_kernels``): split into a cube kernel and a
vector kernel, the product handed over in GM, the orchestration with both kernels run on
pto-isa's CPU simulator matches the reference interpreter running the unsplit source (the CCE
route); on the PTO route, PTOAS accepts both kernels' MLIR and its C++ compiles."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from ptoc import driver
from ptoc.cli import analyze
from ptoc.codegen.pto.ptoas import PtoasMissing, find_ptoas
from ptoc.scratch import private_folder

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
    # cube and vector work in one loop: a cube loop storing each iteration's product into its
    # slot of a GM intermediate, then a vector loop reading it (loop fission)
    "loop": """\
        for ob in pl.range(0, 4, 2):
            with pl.at(
                level=pl.Level.CORE_GROUP,
                optimizations=[pl.split(pl.SplitMode.UP_DOWN)],
                name_hint="out_proj_residual",
            ):
                for oi in pl.range(ob, ob + 2):
                    o0 = oi * 16
                    acc = pl.matmul(a, pl.slice(b, [128, 16], [0, o0]), out_dtype=pl.FP32)
                    part = pl.slice(bias, [64, 16], [0, o0])
                    out = pl.assemble(out, pl.add(acc, pl.exp(part)), [0, o0])
        return out
    """,
    # qwen3's out_proj_residual (FP16 here, the simulator's BF16 being _Float16): a K-loop
    # of matmul / matmul_acc per output block, then the residual add, in one loop (fission)
    "out_proj_residual": """\
        for ob in pl.parallel(0, 4, 2):
            with pl.at(
                level=pl.Level.CORE_GROUP,
                optimizations=[pl.split(pl.SplitMode.UP_DOWN)],
                name_hint="out_proj_residual",
            ):
                for oi in pl.range(ob, ob + 2):
                    o0 = oi * 16
                    resid_chunk = bias[:, o0 : o0 + 16]
                    o_acc = pl.create_tensor([64, 16], dtype=pl.FP32)
                    for kb in pl.pipeline(0, 2, stage=2):
                        k0 = kb * 64
                        a_chunk = a[:, k0 : k0 + 64]
                        w_chunk = b[k0 : k0 + 64, o0 : o0 + 16]
                        if k0 == 0:
                            o_acc = pl.matmul(a_chunk, w_chunk, out_dtype=pl.FP32)
                        else:
                            o_acc = pl.matmul_acc(o_acc, a_chunk, w_chunk)
                    resid = pl.mul(resid_chunk, 0.5)
                    out = pl.assemble(out, pl.add(o_acc, resid), [0, o0])
        return out
    """,
    # the loop's rows, with a stepped range: slot (k - 0) // 32
    "stepped_loop": """\
        with pl.at(level=pl.Level.CORE_GROUP):
            for k in pl.range(0, 64, 32):
                acc = pl.matmul(pl.slice(a, [32, 128], [k, 0]), b, out_dtype=pl.FP32)
                out = pl.assemble(out, pl.sub(acc, pl.slice(bias, [32, 64], [k, 0])), [k, 0])
        return out
    """,
}


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_a_split_mixed_scope_runs_as_the_reference(key: str, bench: Bench) -> None:
    source = HEADER + textwrap.indent(textwrap.dedent(PROGRAMS[key]), " " * 8)
    assert run_end_to_end(bench, source, "main") == []


CALLED = """\
import pypto.language as pl


@pl.program
class Called:
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        a: pl.Tensor[[32, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[32, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
        r0: pl.Scalar[pl.INDEX],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        out = pl.assemble(out, pl.mul(pl.add(c, bias), 0.5), [r0, 0])
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i in pl.range(2):
            rows = pl.slice(a, [32, 128], [i * 32, 0])
            part = pl.slice(bias, [32, 64], [i * 32, 0])
            out = self.k(rows, b, part, out, i * 32)
        return out
"""


# a called function whose loop holds both kinds of work: inlined, then split by loop fission
CALLED_LOOP = CALLED.replace(
    """        c = pl.matmul(a, b, out_dtype=pl.FP32)
        out = pl.assemble(out, pl.mul(pl.add(c, bias), 0.5), [r0, 0])
""",
    """        for j in pl.range(2):
            rows = pl.slice(a, [16, 128], [j * 16, 0])
            c = pl.matmul(rows, b, out_dtype=pl.FP32)
            part = pl.slice(bias, [16, 64], [j * 16, 0])
            out = pl.assemble(out, pl.mul(pl.add(c, part), 0.5), [r0 + j * 16, 0])
""",
)


@pytest.mark.parametrize("source", [CALLED, CALLED_LOOP], ids=["rows", "loop"])
def test_a_called_mixed_incore_function_runs_as_the_reference(source: str, bench: Bench) -> None:
    """Each call inlined as a scope and split (``passes/mixed_functions.py``)."""
    assert source.count("pl.matmul(") == 1 and (source is CALLED or "for j in" in source)
    assert run_end_to_end(bench, source, "main") == []


@pytest.fixture(scope="module")
def ptoas(request: pytest.FixtureRequest) -> Path:
    """PTOAS: ``--ptoas``, else found as ``ptoc compile --verify`` finds it (v0.57)."""
    try:
        return find_ptoas(request.config.getoption("--ptoas"))
    except PtoasMissing as exc:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI=true and PTOAS is missing: {exc}")
        pytest.skip(str(exc))


@pytest.mark.parametrize("key", sorted(PROGRAMS))
def test_ptoas_accepts_both_kernels_and_their_cpp_compiles(
    key: str, ptoas: Path, bench: Bench
) -> None:
    source = HEADER + textwrap.indent(textwrap.dedent(PROGRAMS[key]), " " * 8)
    texts = []
    for target in ("pto", "pto-cpp"):
        result = driver.compile_source(analyze(source, "k.py"), target, ptoas=ptoas)
        assert [d.code for d in result.diagnostics] == ["I009"]
        texts.append(result.text)
    mlir, cpp = texts
    # one pto.tmatmul (or pto.tmatmul.acc) per matmul of the source, all in the cube kernel
    assert mlir.count("pto.tmatmul") == PROGRAMS[key].count("pl.matmul")
    assert cpp.count("__global__ AICORE void") == 2
    assert done_compiling(cpp, bench) == ""


def test_ptoas_accepts_a_called_mixed_functions_kernels(ptoas: Path, bench: Bench) -> None:
    texts = []
    for target in ("pto", "pto-cpp"):
        result = driver.compile_source(analyze(CALLED, "k.py"), target, ptoas=ptoas)
        assert [d.code for d in result.diagnostics] == ["I009"]
        texts.append(result.text)
    mlir, cpp = texts
    assert mlir.count("pto.tmatmul") == 1 and cpp.count("__global__ AICORE void") == 2
    assert done_compiling(cpp, bench) == ""


def done_compiling(cpp: str, bench: Bench) -> str:
    """What the C++ compiler says of ``cpp`` against pto-isa ("" when it compiles)."""
    toolchain = bench.toolchain
    with private_folder("ptoc-test-") as folder:
        (folder / "kernel.cpp").write_text(cpp, encoding="utf-8")
        command = [toolchain.compiler.command, *toolchain.flags(), "-fsyntax-only", "kernel.cpp"]
        done = subprocess.run(command, cwd=folder, capture_output=True, text=True, timeout=300)
    return done.stderr if done.returncode else ""
