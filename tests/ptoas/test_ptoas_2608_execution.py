"""PyPTO 2026-08's own kernels end to end on both routes: every InCore kernel of today's upstream
examples (../shared/pypto-2026-08/examples, read in place: the ``@pl.jit`` specialisations and
builder programs, with their ``pl.at`` scopes outlined) goes ptoc --target pto -> PTOAS v0.57
-> C++ -> pto-isa's CPU simulator, and ptoc --target cce -> the simulator, and each must
compute what the reference interpreter computes. Kernels are built in batches, cached by
content hash, as the other execution tests are."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
from pto_bench import Bench, Kernel, expected_results, matrix

from ptoc import driver
from ptoc.frontend import analyze_source
from ptoc.ir.function import FunctionType, Program
from ptoc.run.execute import cce_kernel, tensor_level
from ptoc.run.inputs import InputProblem, generate_inputs
from ptoc.run.pto_kernel import LauncherError, pto_kernel
from ptoc.run.simulator import Toolchain

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "frontend"))
from test_upstream_examples import CHOSEN, FILES  # noqa: E402

OUTLINE = ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes"]
ROUTES = ("cce", "pto")

# Kernels both routes compute alike and the interpreter does not (xfail strict: a fix must
# remove the entry): BF16 tensors, which pto-isa's CPU simulator holds as _Float16 here.
PAGED = "models/04_paged_attention.py::"
AUTO = "advanced/02_auto_tile_matmul.py::"
BATCH, DYNAMIC = "models/05_paged_attention_batch.py::", "models/06_paged_attention_dynamic.py::"
MULTI, SPMD = "models/07_paged_attention_multi_config.py::", "models/09_paged_attention_spmd.py::"
ASSEMBLE, VALID = "intermediate/05_assemble.py::", "intermediate/06_dyn_valid_shape.py::"
ACC_MAT_ASSEMBLE = "an Acc -> Mat pl.tile.assemble has no lowering (E400)"
DEFECTS: dict[str, str] = {
    PAGED + "PagedAttentionProgram::kernel_qk_matmul": matrix.NO_SIM_BF16,
    PAGED + "PagedAttentionUnalignedProgram::kernel_qk_matmul": matrix.NO_SIM_BF16,
    PAGED + "PagedAttentionProgram::kernel_pv_matmul": matrix.NO_SIM_BF16,
    PAGED + "PagedAttentionUnalignedProgram::kernel_pv_matmul": matrix.NO_SIM_BF16,
    PAGED + "PagedAttentionProgram::kernel_softmax_prepare": matrix.NO_SIM_BF16,
    PAGED + "PagedAttentionUnalignedProgram::kernel_softmax_prepare_unaligned": matrix.NO_SIM_BF16,
    **{
        DYNAMIC + f"DynamicPagedAttentionProgram::dyn_kernel_{name}": matrix.NO_SIM_BF16
        for name in ("qk_matmul", "pv_matmul", "softmax_prepare")
    },
    **{
        key: matrix.NO_SIM_BF16
        for key in (
            *(BATCH + f"BatchPagedAttentionProgram::Kernel{k}" for k in ("QkMatmul", "PvMatmul")),
            BATCH + "BatchPagedAttentionProgram::KernelSoftmaxPrepare",
            *(
                MULTI + f"PagedAttentionMultiConfigProgram::kernel_{k}"
                for k in ("qk_matmul", "pv_matmul")
            ),
            *(SPMD + f"SpmdPagedAttentionProgram::Spmd{k}" for k in ("QkMatmul", "PvMatmul")),
            SPMD + "SpmdPagedAttentionProgram::SpmdSoftmaxPrepare",
        )
    },
    # The rint cast of the product folded into the converting move Acc -> Mat: BF16 (the FP16
    # chain of tests/execution/test_folded_cast.py runs on both routes). Split-K's PTO route
    # assembles since the second matmul's Right tile is allocated after the K-loop, where the
    # loop's [256, 128] Right slice is dead (tests/ptoas/test_ptoas_lifetimes.py).
    # Upstream's AutoTileMatmulL0 with the product in Mat: mat_* (the [256, 256] FP32 product:
    # 262144 bytes; A2/A3's L0C holds 131072, pto-isa buffer_limits.hpp) computed in blocks of
    # 64 rows, each converted into its window of one BF16 Mat tile (block.insert: TINSERT
    # Acc -> Mat) the second matmul reads (passes/acc_tiles.py).
    **{
        AUTO + f"{name}::{name}_incore_0": matrix.NO_SIM_BF16
        for name in ("mat_split_k", "mat_full_k")
    },
    AUTO + "fits_l0c_full_k::fits_l0c_full_k_incore_0": matrix.NO_SIM_BF16,
    AUTO + "fits_l0c_split_k::fits_l0c_split_k_incore_0": matrix.NO_SIM_BF16,
    # Specialised since ptoc reads `kernel.lower(*args)` over a table of cases: its
    # pl.tile.assemble of an Acc tile into a Mat tile (TINSERT on the FIX pipe) has no lowering
    # here (E400); the Vec -> Vec ones run on both routes.
    ASSEMBLE + "tile_assemble_acc_mat::tile_assemble_acc_mat_incore_0": ACC_MAT_ASSEMBLE,
}
# Scalars a kernel's meaning needs in a range (a valid extent of 0..128 columns; counts of
# requests and blocks, offsets and flags of the sizes in SIZES).


def _ints(**values: int | list[int]) -> dict[str, np.ndarray]:
    """Scalars as INT64, lists (block tables, context lengths) as INT32 tensors."""
    return {
        name: np.array(value, dtype=np.int32 if isinstance(value, list) else np.int64)
        for name, value in values.items()
    }


# Block tables: physical blocks of the key / value caches in SIZES, in a shuffled order.
_BLOCKS_05 = [(5 * i + 3) % 16 for i in range(16)]  # 16 blocks of 16 rows
_BLOCKS_07 = [(7 * i + 2) % 32 for i in range(64)]  # 32 blocks of 64 rows
_BLOCKS_09 = [5, 2, 7, 0, 3, 6, 1, 4]  # 8 blocks of 128 rows


INPUTS: dict[str, dict[str, np.ndarray]] = {
    # the K-slice (0..3) the kernel multiplies
    "advanced/01_split_k.py::matmul_split_k::matmul_split_k_incore_1": _ints(ks=2),
    # upstream's __main__: a valid length of the 64 columns; cfg [is_last, last_len, full_len]
    # and [n_blocks, last_len, block_size] (random ones load past the 128 rows).
    VALID + "dyn_valid_shape::dyn_valid_shape_incore_0": _ints(vlen=32),
    VALID + "dyn_valid_shape_if_else::dyn_valid_shape_if_else_incore_0": {
        "cfg": np.array([1, 48, 64], dtype=np.int64)
    },
    VALID + "dyn_valid_shape_loop::dyn_valid_shape_loop_incore_0": {
        "cfg": np.array([2, 48, 64], dtype=np.int64)
    },
    PAGED + "PagedAttentionUnalignedProgram::kernel_softmax_prepare_unaligned": _ints(
        valid_len=100
    ),
    BATCH + "BatchPagedAttentionProgram::KernelOnlineUpdate": _ints(
        is_first=0, is_last=1, batch_count=1, q_offset=0, num_heads_param=16
    ),
    DYNAMIC + "DynamicPagedAttentionProgram::dyn_kernel_softmax_prepare": _ints(valid_len=100),
    MULTI + "PagedAttentionMultiConfigProgram::kernel_softmax_prepare": _ints(
        n_blocks=3, last_valid_len=40
    ),
    SPMD + "SpmdPagedAttentionProgram::SpmdOnlineUpdate": _ints(is_first=0, batch_count=2),
    **{
        BATCH + f"BatchPagedAttentionProgram::Kernel{name}": _ints(
            block_table=_BLOCKS_05, batch_count=1, block_idx=3, block_num=16, **extra
        )
        for name, extra in (
            ("QkMatmul", {"q_offset": 0, "num_heads_param": 16}),
            ("PvMatmul", {}),
        )
    },
    BATCH + "BatchPagedAttentionProgram::KernelSoftmaxPrepare": _ints(
        context_lens=[100], batch_count=1, block_idx=3
    ),
    **{
        MULTI + f"PagedAttentionMultiConfigProgram::kernel_{name}": _ints(
            block_indices=_BLOCKS_07, n_blocks=3
        )
        for name in ("qk_matmul", "pv_matmul")
    },
    **{
        SPMD + f"SpmdPagedAttentionProgram::Spmd{name}": _ints(
            block_table=_BLOCKS_09,
            context_lens=[300, 500],
            batch_count=2,
            block_idx_kv=1,
            block_num=4,
            block_size_param=128,
            **extra,
        )
        for name, extra in (
            ("QkMatmul", {"q_offset": 0, "num_heads_param": 16}),
            ("PvMatmul", {}),
        )
    },
    SPMD + "SpmdPagedAttentionProgram::SpmdSoftmaxPrepare": _ints(
        context_lens=[300, 500], batch_count=2, block_idx_kv=1, block_size_param=128
    ),
    SPMD + "SpmdPagedAttentionProgram::SpmdNormalize": _ints(
        batch_count=2, q_offset=0, num_heads_param=16
    ),
}
# The sizes a builder's programs are specialised to (its parameters, locals that are not
# constants, and the file's pl.dynamic dimensions, by name): the file's own call in main()
# where its sizes fit the simulator, else fewer requests / blocks of the same tile sizes.
# Builders' other parameters take their defaults.
SIZES: dict[str, dict[str, int]] = {
    # main(): BuildBatchPagedAttentionProgram(batch=1, num_heads=16, head_dim=16, ...)
    "models/05_paged_attention_batch.py": {
        "batch": 1,
        "num_heads": 16,
        "head_dim": 16,
        "block_size": 16,
        "max_num_blocks_per_req": 16,
    },
    # main(): q_tile=16, head_dim=128, block_size=128; the kernels' dims are those.
    "models/06_paged_attention_dynamic.py": {
        "q_tile": 16,
        "head_dim": 128,
        "block_size": 128,
        "Q_HEADS": 16,
        "HEAD_DIM_DYN": 128,
        "BLOCK_SIZE_DYN": 128,
    },
    # The builder's defaults (q_tile 16, head_dim 128, block_size 64, 64 blocks unrolled),
    # also for the kernel factories without defaults; the kernels' dims are those, a key
    # cache of one request of main()'s 32 blocks.
    "models/07_paged_attention_multi_config.py": {
        "q_tile": 16,
        "head_dim": 128,
        "block_size": 64,
        "n_unroll_q": 64 * 16,
        "Q_HEADS": 16,
        "HEAD_DIM_DYN": 128,
        "KV_HEAD_DIM_DYN": 128,
        "BLOCK_SIZE_DYN": 64,
        "KEY_CACHE_ROWS_DYN": 32 * 64,
    },
    # main()'s head_dim / block_size for 2 requests of 4 blocks (main(): 4 of 256).
    "models/09_paged_attention_spmd.py": {
        "batch": 2,
        "num_heads": 16,
        "head_dim": 128,
        "block_size": 128,
        "max_num_blocks_per_req": 4,
    },
    # chained_snapshot_shape(branches=DEFAULT_BRANCHES): (4 * 4 * TILE_M, BIG_N)
    "utils/phase_fence_dep_compression.py": {"big_m": 4 * 4 * 32, "big_n": 32},
}
# Every kernel has code on both routes (none is left out of RUN): ddr_* are computed and
# assembled in blocks (passes/acc_tiles.py); mat_* in blocks inserted into one Mat tile
# (block.insert); 03_mixed_kernel.py's mixed_matmul_bias / _lr are split into a cube kernel and
# a vector kernel (passes/mixed_scopes.py); a kernel that fails only for the simulator's BF16
# is a DEFECTS entry, run and expected to fail (test_a_bf16_kernel_has_code_on_both_routes).


def incore_kernels() -> dict[str, tuple[Program, str]]:
    """Every InCore kernel with static shapes, by ``file::program::function``."""
    found: dict[str, tuple[Program, str]] = {}
    for path in FILES:
        text, name = path.read_text(encoding="utf-8"), f"{path.parent.name}/{path.name}"
        analysis = analyze_source(
            text, str(path), edition=CHOSEN, builder_defaults=True, sizes=SIZES.get(name)
        )
        for program in analysis.all_programs():
            if program.name not in {*analysis.jit_specialisations, *analysis.built}:
                continue
            outlined = driver.run_pipeline(program, OUTLINE)
            if outlined.has_errors:
                continue
            for function in outlined.program.functions:
                if function.func_type is not FunctionType.InCore:
                    continue
                key = f"{name}::{program.name}::{function.name}"
                found[key] = (outlined.program, function.name)
    return found


KERNELS = incore_kernels()
pytestmark = pytest.mark.skipif(not KERNELS, reason="the upstream examples are not beside the repo")
_kernels: dict[str, Kernel] = {}
_static: dict[str, bool] = {}


def static(key: str) -> bool:
    """Whether the interpreter can make the kernel's inputs (no dynamic parameter shape)."""
    if key not in _static:
        program, function = KERNELS[key]
        level, found = tensor_level(program, function)
        try:
            generate_inputs(level, found, 0, {})
        except InputProblem:
            _static[key] = False
        else:
            _static[key] = True
    return _static[key]


def kernel_for(key: str, route: str, ptoas: Path) -> Kernel:
    name = f"{key}@{route}"
    if name not in _kernels:
        program, function = KERNELS[key]
        level, found = tensor_level(program, function)
        kernel = Kernel(name, level, found, generate_inputs(level, found, 0, INPUTS.get(key)))
        try:
            if route == "cce":
                kernel.text, diagnostics = cce_kernel(level, function)
            else:
                kernel.text, diagnostics = pto_kernel(level, function, ptoas)
        except LauncherError as exc:
            kernel.problem = str(exc)
        else:
            if kernel.text is None:
                kernel.problem = "; ".join(d.format() for d in diagnostics)
        _kernels[name] = kernel
    return _kernels[name]


RUN = sorted(k for k in KERNELS if static(k))


def params(keys: list[str]) -> list[object]:
    return [
        pytest.param(
            key,
            route,
            id=f"{key}@{route}",
            marks=[pytest.mark.xfail(strict=True, reason=DEFECTS[key])] if key in DEFECTS else [],
        )
        for key in keys
        for route in ROUTES
    ]


@pytest.fixture(scope="module")
def bench(toolchain: Toolchain, ptoas: Path) -> Bench:
    """Every kernel of both routes, built in batches before the first test runs."""
    bench = Bench(toolchain)
    bench.build_all([kernel_for(key, route, ptoas) for key in RUN for route in ROUTES])
    return bench


def test_the_kernels_are_found() -> None:
    assert set(DEFECTS) <= set(RUN) and set(INPUTS) <= set(RUN)
    assert len(RUN) >= 67


@pytest.mark.parametrize(("key", "route"), params(RUN))
def test_2026_08_kernel_matches_the_reference(
    key: str, route: str, bench: Bench, ptoas: Path
) -> None:
    kernel = kernel_for(key, route, ptoas)
    outcome = bench.execute(kernel, expected_results(kernel))
    assert outcome.problem is None, outcome.problem
    assert not outcome.mismatches(), "\n".join(outcome.mismatches())


@pytest.mark.parametrize(
    ("key", "route"),
    [(k, r) for k in sorted(DEFECTS) if DEFECTS[k] == matrix.NO_SIM_BF16 for r in ROUTES],
)
def test_a_bf16_kernel_has_code_on_both_routes(key: str, route: str, ptoas: Path) -> None:
    """A kernel that fails only for the simulator's BF16 has its C++ on both routes (PTOAS
    accepts its MLIR): fits_l0c_split_k's since the second matmul's Right tile is allocated
    after the K-loop (before: PTOAS E405 "right overflow")."""
    kernel = kernel_for(key, route, ptoas)
    assert kernel.problem is None and kernel.text is not None
