"""Accumulating products write their accumulator's own tile (issue #29).

A2/A3's TMATMUL_ACC(out, in, a, b) / TGEMV_ACC add into ``out`` and ignore ``in`` while the
CPU simulator reads ``in``: the result of ``block.matmul_acc`` shares its accumulator's buffer
(``aliases="acc"`` on the registration, InitMemRef), the CCE instruction names one tile for
both, and an accumulator still read after the op is an E400. The exact text of ptoc's own K
slices of a matmul and of a q_proj-like K loop, the check the execution bench runs on every
kernel (tests/execution/accumulators.py), and the E400s."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from execution.accumulators import accumulator_problems

from ptoc import driver
from ptoc.frontend import analyze_source
from ptoc.ops import REGISTRY
from ptoc.passes import run_pipeline
from ptoc.run.execute import cce_kernel

GOLDEN = Path(__file__).parent / "golden"

K_SLICED = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class Sliced:
        @pl.function(type=pl.FunctionType.InCore)
        def mm(
            self, a: pl.Tensor[[16, 4096], pl.FP16], b: pl.Tensor[[4096, 32], pl.FP16]
        ) -> pl.Tensor[[16, 32], pl.FP32]:
            c: pl.Tensor[[16, 32], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
            return c
    """)

# qwen3_jit's q_proj, reduced: the K loop's first slice a matmul, the others matmul_acc.
Q_PROJ = textwrap.dedent("""\
    import pypto.language as pl
    import torch

    M, N, K, KS = 16, 32, 256, 128


    @pl.jit
    def q_proj(x: pl.Tensor, w: pl.Tensor, y: pl.Out[pl.Tensor]):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="q_proj"):
            acc = pl.create_tensor([M, N], dtype=pl.FP32)
            for kb in pl.range(0, K // KS):
                k0 = kb * KS
                tile_x = x[:, k0 : k0 + KS]
                tile_w = w[k0 : k0 + KS, :]
                if k0 == 0:
                    acc = pl.matmul(tile_x, tile_w, out_dtype=pl.FP32)
                else:
                    acc = pl.matmul_acc(acc, tile_x, tile_w)
            y = pl.assemble(y, acc, [0, 0])
        return y


    if __name__ == "__main__":
        x = torch.randn(M, K, dtype=torch.float16)
        w = torch.randn(K, N, dtype=torch.float16)
        y = torch.zeros((M, N), dtype=torch.float32)
        q_proj(x, w, y)
    """)


def kernel_text(source: str, path: str, function: str) -> str:
    analysis = analyze_source(source, path)
    assert [d.format() for d in analysis.diagnostics] == []
    (program,) = analysis.all_programs()
    outlined = run_pipeline(program, ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes"])
    text, diagnostics = cce_kernel(outlined.program, function)
    assert text is not None, [d.format() for d in diagnostics]
    return text


def check_golden(name: str, text: str) -> None:
    """Compare with golden/<name>; PTOC_UPDATE_GOLDEN=1 rewrites the file instead."""
    path = GOLDEN / name
    if os.environ.get("PTOC_UPDATE_GOLDEN") == "1":
        path.write_text(text)
    assert text == path.read_text()


def test_the_accumulating_products_name_their_accumulator_as_their_result() -> None:
    for name in (
        "block.matmul_acc",
        "block.gemv_acc",
        "block.batch_matmul_acc",
        "block.matmul_mx_acc",
    ):
        assert REGISTRY.get(name).aliases == "acc", name


def test_ptoc_s_own_k_slices_accumulate_in_the_first_product_s_tile() -> None:
    text = kernel_text(K_SLICED, "sliced.py", "mm")
    check_golden("k_sliced_matmul.cpp", text)
    assert "TMATMUL_ACC(c_acc, c_acc, a_left_1, b_right_1);" in text
    assert accumulator_problems(text) == []


def test_a_q_proj_k_loop_accumulates_in_the_carried_tile() -> None:
    text = kernel_text(Q_PROJ, "q_proj.py", "q_proj_incore_0")
    check_golden("q_proj_k_loop.cpp", text)
    assert accumulator_problems(text) == []


def test_the_check_finds_an_accumulator_read_from_another_tile() -> None:
    """The form the generator emitted before issue #29 (and the matmul golden held)."""
    declared = "TASSIGN(acc, 0x0);\nTASSIGN(acc2, 0x1000);\n"
    wrong = declared + "TMATMUL_ACC(acc2, acc, a_left, b_right);\n"
    assert accumulator_problems(wrong) == [
        "TMATMUL_ACC(acc2, acc, ...): A2/A3 adds into 'acc2' and ignores 'acc', a different tile"
    ]
    gemv = declared + "TGEMV_ACC<AccPhase::Unspecified>(acc2, acc, a_left, b_right);\n"
    assert len(accumulator_problems(gemv)) == 1
    assert accumulator_problems("TMATMUL_ACC(acc, acc, a_left, b_right);\n") == []
    assert accumulator_problems("TMATMUL_ACC(acc, a_left, b_right);\n") == []
    same_address = "TASSIGN(acc, 0x0);\nTASSIGN(acc2, 0x0);\n"
    assert accumulator_problems(same_address + "TMATMUL_ACC(acc2, acc, a, b);\n") == []
    repointed = same_address + "acc = other;\nTMATMUL_ACC(acc2, acc, a, b);\n"
    assert len(accumulator_problems(repointed)) == 1


@pytest.mark.parametrize("path", sorted(GOLDEN.glob("*.cpp")), ids=lambda p: p.name)
def test_every_cce_golden_accumulates_in_place(path: Path) -> None:
    assert accumulator_problems(path.read_text()) == []


# --- an accumulator read after the op that adds into it ----------------------------------------

_LOADS = """\
        a_mat = pl.load(a, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        b_mat = pl.load(b, [0, 0], [16, 16], target_memory=pl.MemorySpace.Mat)
        a_left = pl.move(a_mat, target_memory=pl.MemorySpace.Left)
        b_right = pl.move(b_mat, target_memory=pl.MemorySpace.Right)
"""


def block_kernel(body: str) -> str:
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass P:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        "    def kernel(\n        self,\n"
        "        a: pl.Tensor[[16, 16], pl.FP16],\n"
        "        b: pl.Tensor[[16, 16], pl.FP16],\n"
        "        c: pl.Tensor[[16, 16], pl.FP32],\n"
        "        d: pl.Tensor[[16, 16], pl.FP32],\n"
        "    ) -> pl.Tensor[[16, 16], pl.FP32]:\n" + _LOADS + textwrap.indent(body, " " * 8)
    )


def compile_errors(source: str) -> list[tuple[str, str, tuple[int, int, int, int], str]]:
    """Each route's diagnostics: (target, code, (line, column, end line, end column), text)."""
    found = []
    for target in ("cce", "pto"):
        result = driver.compile_source(source, target, path="k.py")
        for d in result.diagnostics:
            span = (d.span.line, d.span.column, d.span.end_line, d.span.end_column)
            found.append((target, d.code, span, d.message))
    return found


_MESSAGE = (
    "matmul_acc adds into the buffer of its accumulator {held}, which is read after it: "
    "A2/A3's TMATMUL_ACC accumulates in place and an Acc tile cannot be copied; use the "
    "result '{result}' after matmul_acc, or compute a new accumulator for each use"
)


def test_an_accumulator_stored_after_the_sum_is_an_e400_at_the_sum() -> None:
    source = block_kernel(
        textwrap.dedent("""\
        first = pl.matmul(a_left, b_right)
        total = pl.matmul_acc(first, a_left, b_right)
        c2 = pl.l0c_store(first, [0, 0], [16, 16], c)
        d2 = pl.l0c_store(total, [0, 0], [16, 16], d)
        return d2
        """)
    )
    message = _MESSAGE.format(held="'first'", result="total")
    span = (19, 8, 19, 53)  # the matmul_acc statement
    assert compile_errors(source) == [(t, "E400", span, message) for t in ("cce", "pto")]


def test_an_accumulator_from_before_a_loop_added_to_in_it_is_an_e400() -> None:
    """Each iteration would add to the previous iteration's sum, not to ``first``."""
    source = block_kernel(
        textwrap.dedent("""\
        first = pl.matmul(a_left, b_right)
        for i, (out,) in pl.range(0, 2, init_values=(d,)):
            total = pl.matmul_acc(first, a_left, b_right)
            out2 = pl.l0c_store(total, [0, 0], [16, 16], out)
            out3 = pl.yield_(out2)
        return out3
        """)
    )
    message = _MESSAGE.format(held="'first'", result="total")
    span = (20, 12, 20, 57)  # the matmul_acc statement in the loop
    assert compile_errors(source) == [(t, "E400", span, message) for t in ("cce", "pto")]


def test_an_accumulator_read_only_by_its_sum_compiles() -> None:
    source = block_kernel(
        textwrap.dedent("""\
        first = pl.matmul(a_left, b_right)
        total = pl.matmul_acc(first, a_left, b_right)
        d2 = pl.l0c_store(total, [0, 0], [16, 16], d)
        return d2
        """)
    )
    assert compile_errors(source) == []
