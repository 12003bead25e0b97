"""A tensor K loop ``if k0 == 0: acc = matmul(..) else: acc = matmul_acc(acc, ..)`` carrying the
product through ``pl.pipeline`` (qwen3_jit's projections, reduced; issue #27): the PTO MLIR writes
both branches' products into the carried Acc buffer (no Acc copy, which PTO does not have),
PTOAS v0.57 accepts it, and the kernel computes on both routes (CCE, and PTOAS's C++) on
pto-isa's CPU simulator what the reference interpreter computes. Then the qwen3_jit kernels
themselves, sized by a ``[tool.ptoc.jit]`` specialisation of their entry (its call site passes
``torch.empty`` tensors built in a list, which ptoc does not read)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from execution.accumulators import accumulator_problems
from pto_bench import Bench, Kernel, expected_results, matrix

from ptoc import driver
from ptoc.codegen.pto.ptoas import run_ptoas
from ptoc.frontend import analyze_source
from ptoc.ir.function import FunctionType, Program
from ptoc.run.execute import cce_kernel, tensor_level
from ptoc.run.inputs import generate_inputs
from ptoc.run.pto_kernel import pto_kernel
from ptoc.run.simulator import Toolchain

K_LOOP = """\
import pypto.language as pl
import torch

M, N, K, NS, KS = 16, 64, 192, 32, 64


@pl.jit
def projection(x: pl.Tensor, w: pl.Tensor, y: pl.Out[pl.Tensor]):
    for n0 in pl.parallel(0, N, NS):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="proj"):
            acc = pl.create_tensor([M, NS], dtype=pl.FP32)
            for kb in pl.pipeline(0, K // KS, stage=2):
                k0 = kb * KS
                tile_x = x[:, k0 : k0 + KS]
                tile_w = w[k0 : k0 + KS, n0 : n0 + NS]
                if k0 == 0:
                    acc = pl.matmul(tile_x, tile_w, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, tile_x, tile_w)
            y = pl.assemble(y, acc, [0, n0])
    return y


if __name__ == "__main__":
    x = torch.randn(M, K, dtype=torch.float16)
    w = torch.randn(K, N, dtype=torch.float16)
    y = torch.zeros((M, N), dtype=torch.float32)
    projection(x, w, y)
"""
KERNEL = "projection_incore_0"
ACC = (
    "!pto.tile_buf<loc=acc, dtype=f32, rows=16, cols=32, v_row=16, v_col=32, "
    "blayout=col_major, slayout=row_major, fractal=1024, pad=0>"
)


def outlined() -> Program:
    analysis = analyze_source(K_LOOP, "k_loop.py")
    assert analysis.diagnostics == []
    (program,) = analysis.all_programs()
    result = driver.run_pipeline(program, ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes"])
    assert not result.has_errors
    return result.program


def k_loop_pto() -> str:
    result = driver.compile_source(K_LOOP, "pto", path="k_loop.py")
    assert [d.format() for d in result.diagnostics] == []
    return result.text


def test_both_products_are_written_into_the_carried_acc_buffer() -> None:
    """The first slice's ``tmatmul`` and the others' ``tmatmul.acc`` write the buffer the loop
    carries (%0), which the store reads after the loop: no copy between Acc buffers, no Acc
    buffer of the accumulating product's own (it is its accumulator's, issue #29), and
    neither the if nor the loop has results."""
    mlir = k_loop_pto()
    products = re.findall(r"pto\.tmatmul(?:\.acc)? ins\((%\d+)[^\n]*\n\s*outs\((%\d+) ", mlir)
    assert products == [("%3", "%0"), ("%0", "%0")]  # tmatmul ins(%3, %5), tmatmul.acc ins(%0, ..)
    assert f"%0 = pto.alloc_tile : {ACC}" in mlir
    assert mlir.count("pto.alloc_tile : !pto.tile_buf<loc=acc") == 2  # the carried, the first
    assert "scf.for %kb = %c0 to %9 step %c1 {" in mlir
    assert "scf.if %11 {" in mlir
    assert "scf.yield" not in mlir
    assert f"pto.tstore ins(%0 : {ACC})" in mlir
    assert "pto.tmov ins(%0" not in mlir and "pto.tmov ins(%1" not in mlir


def test_ptoas_v057_accepts_the_k_loop(ptoas: Path) -> None:
    result = run_ptoas(k_loop_pto(), ptoas)
    assert result.ok, [d.message for d in result.diagnostics]


@pytest.mark.parametrize("route", ["cce", "pto"])
def test_the_k_loop_computes_what_the_interpreter_computes(
    route: str, toolchain: Toolchain, ptoas: Path
) -> None:
    """Three K slices (one matmul, two matmul_acc) of the second column block (n0 = 32)."""
    level, found = tensor_level(outlined(), KERNEL)
    inputs = generate_inputs(level, found, 0, {"n0": np.array(32, dtype=np.int64)})
    kernel = Kernel(f"k_loop@{route}", level, found, inputs, alone=route == "pto")
    if route == "cce":
        kernel.text, diagnostics = cce_kernel(level, KERNEL)
    else:
        kernel.text, diagnostics = pto_kernel(level, KERNEL, ptoas)
    assert kernel.text is not None, [d.format() for d in diagnostics]
    expected = expected_results(kernel)
    outcome = Bench(toolchain).execute(kernel, expected)
    assert outcome.problem is None, outcome.problem
    assert outcome.comparisons and not outcome.mismatches(), outcome.mismatches()
    y = next(a for name, a in expected.outputs.items() if name.startswith("y"))
    assert np.abs(y[:, 32:]).max() > 1.0  # the block computed, not zeros


# --- qwen3_jit ----------------------------------------------------------------------------------

QWEN3 = (
    Path(__file__).resolve().parents[3]
    / "shared"
    / "pypto-2026-08"
    / "examples"
    / "models"
    / "qwen3_jit"
    / "qwen3_decode.py"
)
_B, _H, _I, _KV, _SEQ, _D = 16, 8192, 25600, 1024, 4096, 128  # config.py's sizes
_CACHE = _B * 8 * _SEQ
QWEN3_SHAPES = " ".join(
    (
        f"hidden_states=[{_B}, {_H}]:BF16 input_rms_weight=[1, {_H}]:FP32",
        f"wq=[{_H}, {_H}]:BF16 wk=[{_H}, {_KV}]:BF16 wv=[{_H}, {_KV}]:BF16 seq_lens=[{_B}]:INT32",
        f"rope_cos=[{_SEQ}, {_D}]:FP32 rope_sin=[{_SEQ}, {_D}]:FP32",
        f"k_cache=[{_CACHE}, {_D}]:BF16 v_cache=[{_CACHE}, {_D}]:BF16 wo=[{_H}, {_H}]:BF16",
        f"post_rms_weight=[1, {_H}]:FP32 w_gate=[{_H}, {_I}]:BF16 w_up=[{_H}, {_I}]:BF16",
        f"w_down=[{_I}, {_H}]:BF16 out=[{_B}, {_H}]:BF16",
    )
)
# The K loops of the projections (q_proj, k_proj, v_proj; mlp's gate_proj, up_proj).
QWEN3_COMPILED = (
    "projection.py:43",
    "projection.py:74",
    "projection.py:96",
    "mlp.py:31",
    "mlp.py:44",
    # out_proj_residual and down_proj_residual: the cube half of the split scope (its K loop
    # per output block; mixed_kernels.py's loop fission), the vector half below
    "projection.py:119",
    "projection.py:154",
)
# The vector halves of those split scopes (the residual add of each block's product).
QWEN3_VECTOR_HALVES = ("projection.py:119 (2)", "projection.py:154 (2)")
# The vector kernels (RMSNorm before attention and after it, SiLU, RoPE + KV cache writes + Q
# pad) with the instructions their tensor ops become in a kernel (TRECIP, TROWEXPANDMUL,
# TCOLEXPANDMUL: registry block forms). RoPE's column windows of the reshaped Q row
# (``q_block[:, 0:HALF_DIM]``) are TEXTRACT on CCE, a pto.subview copied by TMAX on PTO.
QWEN3_VECTOR = {
    "rmsnorm.py:33": ("TRECIP(", "TROWEXPANDMUL(", "TCOLEXPANDMUL(", "TROWSUM("),
    "rmsnorm.py:69": ("TRECIP(", "TROWEXPANDMUL(", "TCOLEXPANDMUL(", "TRESHAPE("),
    "mlp.py:57": ("TRECIP(", "TNEG(", "TEXP(", "TMUL("),
    "attention.py:63": ("TCOLEXPANDMUL(", "TSUB(", "TADD(", "TRESHAPE("),
}


def qwen3_kernels() -> dict[str, tuple[Program, str]]:
    """qwen3_decode's kernels (its ``pl.at`` regions, from kernels/*.py) by ``file:line``."""
    if not QWEN3.is_file():
        return {}
    text = QWEN3.read_text(encoding="utf-8")
    analysis = analyze_source(text, str(QWEN3), jit_specs={"qwen3_decode": (QWEN3_SHAPES,)})
    assert [d.format() for d in analysis.diagnostics] == []
    (program,) = analysis.all_programs()
    result = driver.run_pipeline(program, ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes"])
    assert not result.has_errors
    found: dict[str, tuple[Program, str]] = {}
    for fn in result.program.functions:
        if fn.func_type is FunctionType.InCore:
            key = f"{Path(fn.span.file).name}:{fn.span.line}"
            found[key if key not in found else f"{key} (2)"] = (result.program, fn.name)
    return found


QWEN3_KERNELS = qwen3_kernels()
needs_qwen3 = pytest.mark.skipif(not QWEN3_KERNELS, reason="the upstream examples are not beside")


@needs_qwen3
def test_every_qwen3_kernel_is_listed() -> None:
    listed = (*QWEN3_COMPILED, *QWEN3_VECTOR_HALVES, *QWEN3_VECTOR)
    assert sorted(QWEN3_KERNELS) == sorted(listed)


@needs_qwen3
@pytest.mark.parametrize("key", QWEN3_COMPILED)
def test_the_qwen3_k_loop_kernel_compiles_on_both_routes(key: str, ptoas: Path) -> None:
    """Specialised with config.py's sizes ([16, 8192] x [8192, 256] in K slices of 128): CCE
    C++, and PTO MLIR that PTOAS v0.57 turns into C++."""
    program, name = QWEN3_KERNELS[key]
    text, diagnostics = cce_kernel(program, name)
    assert text is not None and "TMATMUL_ACC(" in text, [d.format() for d in diagnostics]
    assert accumulator_problems(text) == []  # A2/A3 adds into the output tile (issue #29)
    text, diagnostics = pto_kernel(program, name, ptoas)
    assert text is not None and "TMATMUL_ACC(" in text, [d.format() for d in diagnostics]
    assert accumulator_problems(text) == []


@needs_qwen3
@pytest.mark.parametrize("key", QWEN3_VECTOR_HALVES)
def test_the_vector_half_of_a_split_qwen3_kernel_compiles_on_both_routes(
    key: str, ptoas: Path
) -> None:
    """The residual add reads each block's product back from GM: no matmul in it."""
    program, name = QWEN3_KERNELS[key]
    for text, diagnostics in (cce_kernel(program, name), pto_kernel(program, name, ptoas)):
        assert text is not None and "TADD(" in text, [d.format() for d in diagnostics]
        assert "TMATMUL" not in text


@needs_qwen3
@pytest.mark.parametrize("route", ["cce", "pto"])
@pytest.mark.parametrize("key", sorted(QWEN3_VECTOR))
def test_the_qwen3_vector_kernel_builds_on_both_routes(
    key: str, route: str, toolchain: Toolchain, ptoas: Path
) -> None:
    """Specialised with config.py's sizes, its C++ (ptoc's CCE, or PTOAS v0.57's from the PTO
    MLIR) builds with clang against pto-isa for the CPU simulator. (It holds BF16, which the
    simulator holds as _Float16, matrix.NO_SIM_BF16: test_qwen3_vector_execution.py runs FP16 /
    FP32 twins of these kernels.)"""
    program, name = QWEN3_KERNELS[key]
    level, found = tensor_level(program, name)
    kernel = Kernel(f"{key}@{route}", level, found, {}, alone=route == "pto")
    if route == "cce":
        kernel.text, diagnostics = cce_kernel(level, name)
    else:
        kernel.text, diagnostics = pto_kernel(level, name, ptoas)
    assert kernel.text is not None, [d.format() for d in diagnostics]
    assert all(call in kernel.text for call in QWEN3_VECTOR[key]), QWEN3_VECTOR[key]
    Bench(toolchain).build_all([kernel])
    assert kernel.problem is None and kernel.executable is not None, kernel.problem


@needs_qwen3
@pytest.mark.xfail(strict=True, reason=matrix.NO_SIM_BF16, raises=AssertionError)
@pytest.mark.parametrize("route", ["cce", "pto"])
@pytest.mark.parametrize("key", sorted(set(QWEN3_VECTOR) - {"attention.py:63"}))
def test_the_qwen3_vector_kernel_runs_as_on_the_interpreter(
    key: str, route: str, toolchain: Toolchain, ptoas: Path
) -> None:
    """The kernel itself on the simulator: its BF16 output is held as _Float16 there, so it
    differs (test_qwen3_vector_execution.py runs its FP16 / FP32 twin; RoPE's, whose batch
    row and position random inputs do not give, runs only there: rope_k, rope_q)."""
    program, name = QWEN3_KERNELS[key]
    level, found = tensor_level(program, name)
    column = {p.name: np.array(256, dtype=np.int64) for p in found.params if p.name == "o0_1"}
    inputs = generate_inputs(level, found, 0, column)  # (SiLU's output column block)
    kernel = Kernel(f"{key}@{route}", level, found, inputs, alone=route == "pto")
    if route == "cce":
        kernel.text, diagnostics = cce_kernel(level, name)
    else:
        kernel.text, diagnostics = pto_kernel(level, name, ptoas)
    assert kernel.text is not None, [d.format() for d in diagnostics]
    outcome = Bench(toolchain).execute(kernel, expected_results(kernel))
    assert outcome.problem is None
    assert len(outcome.comparisons) == 3  # (the problem-free run compared every output)
    assert not outcome.mismatches(), outcome.mismatches()
