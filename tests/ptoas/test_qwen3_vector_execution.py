"""qwen3_jit's vector kernels (input / post RMSNorm, SiLU, RoPE + K cache writes) lowered
inside a kernel: ``tensor.recip`` and the row / column broadcasts (``row_expand_mul``,
``col_expand_mul``) take their block forms from the registry (issue #27). The kernels hold
BF16, which pto-isa's CPU simulator holds as _Float16 (matrix.NO_SIM_BF16), so each runs here
as a twin of the same structure in FP16 / FP32, at smaller sizes, on both routes (CCE, and
PTOAS's C++), computing on the simulator what the reference interpreter computes."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pto_bench import Bench, Kernel, expected_results

from ptoc import driver
from ptoc.frontend import analyze_source
from ptoc.ir.function import FunctionType
from ptoc.run.execute import cce_kernel, tensor_level
from ptoc.run.inputs import generate_inputs
from ptoc.run.pto_kernel import pto_kernel
from ptoc.run.simulator import Toolchain

PRELUDE = """\
import pypto.language as pl
import torch

BATCH, HIDDEN, CHUNK = 16, 512, 128
HIDDEN_INV = 1.0 / HIDDEN
EPS = 1e-6

"""

INPUT_RMSNORM = (
    PRELUDE
    + """\
@pl.jit
def rmsnorm(
    hidden_states: pl.Tensor, input_rms_weight: pl.Tensor, normed_states: pl.Out[pl.Tensor]
):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="rmsnorm"):
        partial_sq = pl.full([1, BATCH], dtype=pl.FP32, value=0.0)
        for kb in pl.pipeline(HIDDEN // CHUNK, stage=4):
            k0 = kb * CHUNK
            x_chunk = pl.cast(hidden_states[:, k0 : k0 + CHUNK], target_type=pl.FP32)
            partial_sq = pl.add(
                partial_sq,
                pl.reshape(pl.row_sum(pl.mul(x_chunk, x_chunk)), [1, BATCH]),
            )
        variance = pl.reshape(pl.add(pl.mul(partial_sq, HIDDEN_INV), EPS), [BATCH, 1])
        inv_rms = pl.recip(pl.sqrt(variance))
        for kb in pl.pipeline(HIDDEN // CHUNK, stage=4):
            k0 = kb * CHUNK
            x_chunk = pl.cast(hidden_states[:, k0 : k0 + CHUNK], target_type=pl.FP32)
            gamma = input_rms_weight[:, k0 : k0 + CHUNK]
            normed = pl.col_expand_mul(pl.row_expand_mul(x_chunk, inv_rms), gamma)
            normed_16 = pl.cast(normed, target_type=pl.FP16)
            normed_states = pl.assemble(normed_states, normed_16, [0, k0])
    return normed_states


if __name__ == "__main__":
    hidden_states = torch.randn(BATCH, HIDDEN, dtype=torch.float16)
    input_rms_weight = torch.randn(1, HIDDEN, dtype=torch.float32)
    normed_states = torch.zeros((BATCH, HIDDEN), dtype=torch.float16)
    rmsnorm(hidden_states, input_rms_weight, normed_states)
"""
)

POST_RMSNORM = (
    PRELUDE
    + """\
@pl.jit
def post_rmsnorm(resid: pl.Tensor, post_rms_weight: pl.Tensor, post_norm_tile: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="post_rmsnorm"):
        sq_sum = pl.full([1, BATCH], dtype=pl.FP32, value=0.0)
        for kb in pl.pipeline(HIDDEN // CHUNK, stage=2):
            k0 = kb * CHUNK
            resid_chunk = resid[:, k0 : k0 + CHUNK]
            sq_sum = pl.add(
                sq_sum,
                pl.reshape(pl.row_sum(pl.mul(resid_chunk, resid_chunk)), [1, BATCH]),
            )
        inv_rms = pl.recip(pl.sqrt(pl.add(pl.mul(sq_sum, HIDDEN_INV), EPS)))
        inv_rms_col = pl.reshape(inv_rms, [BATCH, 1])
        for kb in pl.pipeline(HIDDEN // CHUNK, stage=2):
            k0 = kb * CHUNK
            resid_chunk = resid[:, k0 : k0 + CHUNK]
            gamma = post_rms_weight[:, k0 : k0 + CHUNK]
            normed = pl.col_expand_mul(pl.row_expand_mul(resid_chunk, inv_rms_col), gamma)
            normed_16 = pl.cast(normed, target_type=pl.FP16)
            post_norm_tile = pl.assemble(post_norm_tile, normed_16, [0, k0])
    return post_norm_tile


if __name__ == "__main__":
    resid = torch.randn(BATCH, HIDDEN, dtype=torch.float32)
    post_rms_weight = torch.randn(1, HIDDEN, dtype=torch.float32)
    post_norm_tile = torch.zeros((BATCH, HIDDEN), dtype=torch.float16)
    post_rmsnorm(resid, post_rms_weight, post_norm_tile)
"""
)

SILU = (
    PRELUDE
    + """\
@pl.jit
def silu(gate_acc: pl.Tensor, up_acc: pl.Tensor, mlp_tile: pl.Out[pl.Tensor]):
    for o0 in pl.parallel(0, HIDDEN, CHUNK):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="silu"):
            gate = gate_acc[:, o0 : o0 + CHUNK]
            up = up_acc[:, o0 : o0 + CHUNK]
            sigmoid = pl.recip(pl.add(pl.exp(pl.neg(gate)), 1.0))
            mlp_chunk = pl.mul(pl.mul(gate, sigmoid), up)
            mlp_tile = pl.assemble(mlp_tile, pl.cast(mlp_chunk, target_type=pl.FP16), [0, o0])
    return mlp_tile


if __name__ == "__main__":
    gate_acc = torch.randn(BATCH, HIDDEN, dtype=torch.float32)
    up_acc = torch.randn(BATCH, HIDDEN, dtype=torch.float32)
    mlp_tile = torch.zeros((BATCH, HIDDEN), dtype=torch.float16)
    silu(gate_acc, up_acc, mlp_tile)
"""
)

ROPE_K = """\
import pypto.language as pl
import torch

BATCH, KV_HEADS, HEAD_DIM, HALF_DIM, MAX_SEQ = 4, 2, 128, 64, 32


@pl.jit
def rope_k(
    k_proj: pl.Tensor,
    seq_lens: pl.Tensor,
    rope_cos: pl.Tensor,
    rope_sin: pl.Tensor,
    k_cache: pl.Out[pl.Tensor],
):
    for b in pl.parallel(BATCH):
        ctx_len = pl.read(seq_lens, [b])
        pos = ctx_len - 1
        cos_lo = rope_cos[pos : pos + 1, 0:HALF_DIM]
        cos_hi = rope_cos[pos : pos + 1, HALF_DIM:HEAD_DIM]
        sin_lo = rope_sin[pos : pos + 1, 0:HALF_DIM]
        sin_hi = rope_sin[pos : pos + 1, HALF_DIM:HEAD_DIM]
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rope_kv_cache"):
            for ki in pl.range(KV_HEADS):
                kv_col = ki * HEAD_DIM
                k_lo = k_proj[b : b + 1, kv_col : kv_col + HALF_DIM]
                k_hi = k_proj[b : b + 1, kv_col + HALF_DIM : kv_col + HEAD_DIM]
                rot_lo = pl.sub(pl.col_expand_mul(k_lo, cos_lo), pl.col_expand_mul(k_hi, sin_lo))
                rot_hi = pl.add(pl.col_expand_mul(k_hi, cos_hi), pl.col_expand_mul(k_lo, sin_hi))
                cache_row = b * KV_HEADS * MAX_SEQ + ki * MAX_SEQ + pos
                k_cache = pl.assemble(k_cache, pl.cast(rot_lo, target_type=pl.FP16), [cache_row, 0])
                k_cache = pl.assemble(
                    k_cache, pl.cast(rot_hi, target_type=pl.FP16), [cache_row, HALF_DIM]
                )
    return k_cache


if __name__ == "__main__":
    k_proj = torch.randn(BATCH, KV_HEADS * HEAD_DIM, dtype=torch.float32)
    seq_lens = torch.full((BATCH,), 5, dtype=torch.int32)
    rope_cos = torch.randn(MAX_SEQ, HEAD_DIM, dtype=torch.float32)
    rope_sin = torch.randn(MAX_SEQ, HEAD_DIM, dtype=torch.float32)
    k_cache = torch.zeros((BATCH * KV_HEADS * MAX_SEQ, HEAD_DIM), dtype=torch.float16)
    rope_k(k_proj, seq_lens, rope_cos, rope_sin, k_cache)
"""

ROPE_Q = """\
import pypto.language as pl
import torch

BATCH, KV_HEADS, HEAD_DIM, HALF_DIM, Q_BATCH, Q_PAD, Q_PER_KV = 4, 2, 128, 64, 4, 8, 4


@pl.jit
def rope_q(q_proj: pl.Tensor, rope_cos: pl.Tensor, rope_sin: pl.Tensor, q_pad: pl.Out[pl.Tensor]):
    for b in pl.parallel(BATCH):
        cos_lo = rope_cos[b : b + 1, 0:HALF_DIM]
        cos_hi = rope_cos[b : b + 1, HALF_DIM:HEAD_DIM]
        sin_lo = rope_sin[b : b + 1, 0:HALF_DIM]
        sin_hi = rope_sin[b : b + 1, HALF_DIM:HEAD_DIM]
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="rope_q"):
            for ki in pl.range(KV_HEADS):
                q_base = ki * Q_PER_KV
                q_block = pl.reshape(
                    q_proj[b : b + 1, q_base * HEAD_DIM : (q_base + Q_BATCH) * HEAD_DIM],
                    [Q_BATCH, HEAD_DIM],
                )
                q_lo = q_block[:, 0:HALF_DIM]
                q_hi = q_block[:, HALF_DIM:HEAD_DIM]
                q_rot_lo = pl.sub(pl.col_expand_mul(q_lo, cos_lo), pl.col_expand_mul(q_hi, sin_lo))
                q_rot_hi = pl.add(pl.col_expand_mul(q_hi, cos_hi), pl.col_expand_mul(q_lo, sin_hi))
                row0 = b * KV_HEADS * Q_PAD + ki * Q_PAD
                q_pad = pl.assemble(q_pad, pl.cast(q_rot_lo, target_type=pl.FP16), [row0, 0])
                q_pad = pl.assemble(q_pad, pl.cast(q_rot_hi, target_type=pl.FP16), [row0, HALF_DIM])
                q_pad_zero = pl.cast(
                    pl.full([Q_PAD - Q_BATCH, HEAD_DIM], dtype=pl.FP32, value=0.0),
                    target_type=pl.FP16,
                )
                q_pad = pl.assemble(q_pad, q_pad_zero, [row0 + Q_BATCH, 0])
    return q_pad


if __name__ == "__main__":
    q_proj = torch.randn(BATCH, KV_HEADS * Q_PER_KV * HEAD_DIM, dtype=torch.float32)
    rope_cos = torch.randn(BATCH, HEAD_DIM, dtype=torch.float32)
    rope_sin = torch.randn(BATCH, HEAD_DIM, dtype=torch.float32)
    q_pad = torch.zeros((BATCH * KV_HEADS * Q_PAD, HEAD_DIM), dtype=torch.float16)
    rope_q(q_proj, rope_cos, rope_sin, q_pad)
"""

TWINS = {
    "input_rmsnorm": INPUT_RMSNORM,
    "post_rmsnorm": POST_RMSNORM,
    "silu": SILU,
    "rope_k": ROPE_K,
    "rope_q": ROPE_Q,
}
# The scalars of a step of the outer loop: the RoPE twin's batch row and position.
GIVEN = {
    "rope_k": {"b": np.array(2, dtype=np.int64), "pos": np.array(17, dtype=np.int32)},
    "rope_q": {"b": np.array(1, dtype=np.int64)},
}


def kernel_of(name: str) -> tuple[object, str]:
    source = TWINS[name]
    analysis = analyze_source(source, f"{name}.py")
    assert [d.format() for d in analysis.diagnostics] == []
    (program,) = analysis.all_programs()
    result = driver.run_pipeline(program, ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes"])
    assert not result.has_errors
    (kernel,) = [f for f in result.program.functions if f.func_type is FunctionType.InCore]
    return result.program, kernel.name


@pytest.mark.parametrize("route", ["cce", "pto"])
@pytest.mark.parametrize("name", sorted(TWINS))
def test_the_twin_computes_what_the_interpreter_computes(
    name: str, route: str, toolchain: Toolchain, ptoas: Path
) -> None:
    program, function = kernel_of(name)
    level, found = tensor_level(program, function)  # type: ignore[arg-type]
    inputs = generate_inputs(level, found, 0, GIVEN.get(name, {}))
    kernel = Kernel(f"{name}@{route}", level, found, inputs, alone=route == "pto")
    if route == "cce":
        kernel.text, diagnostics = cce_kernel(level, function)
    else:
        kernel.text, diagnostics = pto_kernel(level, function, ptoas)
    assert kernel.text is not None, [d.format() for d in diagnostics]
    expected = expected_results(kernel)
    outcome = Bench(toolchain).execute(kernel, expected)
    assert outcome.problem is None, outcome.problem
    assert outcome.comparisons and not outcome.mismatches(), outcome.mismatches()
    assert all(abs(a).max() > 0.5 for a in expected.outputs.values())  # computed, not zeros


# --- each op lowered on its own -----------------------------------------------------------------

ONE_OP = """\
import pypto.language as pl


@pl.program
class One:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self, x: pl.Tensor[[16, 64], pl.FP32], v: pl.Tensor[[{vec}], pl.FP32]
    ) -> pl.Tensor[[16, 64], pl.FP32]:
        z = pl.{call}
        return z
"""
BROADCASTS = (
    *(f"row_expand_{op}" for op in ("add", "sub", "mul", "div", "max", "min", "expdif")),
    "col_expand",
    *(f"col_expand_{op}" for op in ("add", "sub", "mul", "div", "max", "min", "expdif")),
)
# Block ops the reference interpreter does not run yet (so the kernel is only compiled).
NOT_INTERPRETED = {"row_expand_max", "row_expand_min", "row_expand_expdif"} | {
    "col_expand_add",
    "col_expand_max",
    "col_expand_min",
    "col_expand_expdif",
}


def one_op(name: str) -> str:
    if name == "recip":
        return ONE_OP.format(vec="16, 64", call="add(x, pl.recip(v))")
    vec = "16, 1" if name.startswith("row") else "1, 64"
    return ONE_OP.format(vec=vec, call=f"{name}(x, v)")


@pytest.mark.parametrize("route", ["cce", "pto"])
@pytest.mark.parametrize("name", ["recip", *BROADCASTS])
def test_each_lowered_op_compiles_and_computes_what_the_interpreter_computes(
    name: str, route: str, toolchain: Toolchain, ptoas: Path
) -> None:
    """The kernel's C++ (ptoc's CCE, or PTOAS v0.57's from the PTO MLIR) builds; where the
    interpreter runs the block op, it computes on the simulator what the interpreter does."""
    analysis = analyze_source(one_op(name), f"{name}.py")
    assert [d.format() for d in analysis.diagnostics] == []
    level, found = tensor_level(analysis.programs[0], "kernel")
    assert len(found.params) == 3  # the result is stored into an Out parameter: converted
    inputs = generate_inputs(level, found, 0, {})
    kernel = Kernel(f"{name}@{route}", level, found, inputs, alone=route == "pto")
    if route == "cce":
        kernel.text, diagnostics = cce_kernel(level, "kernel")
    else:
        kernel.text, diagnostics = pto_kernel(level, "kernel", ptoas)
    assert kernel.text is not None, [d.format() for d in diagnostics]
    bench = Bench(toolchain)
    if name in NOT_INTERPRETED:
        bench.build_all([kernel])
        assert kernel.problem is None and kernel.executable is not None, kernel.problem
        return
    expected = expected_results(kernel)
    outcome = bench.execute(kernel, expected)
    assert outcome.problem is None, outcome.problem
    assert outcome.comparisons and not outcome.mismatches(), outcome.mismatches()
