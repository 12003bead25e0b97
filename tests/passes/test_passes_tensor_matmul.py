"""ConvertTensorToBlockOps on tensor-level matmuls and loops: the exact IR (K sliced by the
target's Left / Right capacities, the product stored from Acc), the E400s for what the cube
unit cannot do, loops whose body computes the carried tensor, and both back ends."""

from __future__ import annotations

import textwrap
from types import MappingProxyType

from passes_ir import both_targets

from ptoc.frontend import analyze_source
from ptoc.ir.types import MemorySpace
from ptoc.passes import DEFAULT_TARGET, Target, run_pipeline
from ptoc.printer import print_program

UP_TO_CONVERT = ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes", "ConvertTensorToBlockOps"]
HEADER = "import pypto.language as pl\n\n\n@pl.program\n"

SLICED = HEADER + textwrap.dedent("""\
    class M:
        @pl.function(type=pl.FunctionType.InCore)
        def mm(
            self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 32], pl.FP16]
        ) -> pl.Tensor[[32, 32], pl.FP32]:
            rows: pl.Tensor[[32, 128], pl.FP16] = pl.view(a, [32, 128], [32, 0])
            c: pl.Tensor[[32, 32], pl.FP32] = pl.matmul(rows, b, out_dtype=pl.FP32)
            return c
    """)


def small_cube() -> Target:
    capacities = dict(DEFAULT_TARGET.capacities)
    capacities[MemorySpace.Left] = capacities[MemorySpace.Right] = 4096
    return Target(capacities=MappingProxyType(capacities))


def converted(source: str, target: Target | None = None) -> tuple[str, list[str]]:
    (program,) = analyze_source(source, "k.py").all_programs()
    result = run_pipeline(program, UP_TO_CONVERT, target)
    text = print_program(result.program).split("@pl.program\n", 1)[1]
    return text, [d.format() for d in result.diagnostics]


def test_a_matmul_loads_into_mat_moves_to_left_and_right_and_accumulates_over_k() -> None:
    text, diagnostics = converted(SLICED, small_cube())
    assert diagnostics == []
    # [32, 128] x [128, 32] FP16: a K slice of 64 is the widest whose [32, K] and [K, 32]
    # tiles fit 4 KB each; the view's window becomes the load's offsets.
    lines = [line.strip() for line in text.splitlines()]
    calls = [line.split("= ", 1)[1] for line in lines if line.startswith("] = pl.block")]
    assert calls == [
        "pl.block.load(a, [32, 0], [32, 64], target_memory=pl.MemorySpace.Mat)",
        "pl.block.move(a_mat, target_memory=pl.MemorySpace.Left)",
        "pl.block.load(b, [0, 0], [64, 32], target_memory=pl.MemorySpace.Mat)",
        "pl.block.move(b_mat, target_memory=pl.MemorySpace.Right)",
        "pl.block.matmul(a_left, b_right)",
        "pl.block.load(a, [32, kk], [32, 64], target_memory=pl.MemorySpace.Mat)",
        "pl.block.move(a_mat_1, target_memory=pl.MemorySpace.Left)",
        "pl.block.load(b, [kk, 0], [64, 32], target_memory=pl.MemorySpace.Mat)",
        "pl.block.move(b_mat_1, target_memory=pl.MemorySpace.Right)",
        "pl.block.matmul_acc(c_tile_sum, a_left_1, b_right_1)",
    ]
    assert "] = pl.yield_(c_acc)" in lines
    assert "for kk, (c_tile_sum,) in pl.range(64, 128, 64, init_values=(c_tile,)):" in lines
    assert "c: pl.Tensor[[32, 32], pl.FP32] = pl.block.l0c_store(" in lines
    assert "c_tile_1, [0, 0], [32, 32], out_0" in lines
    assert "out_0: pl.Out[pl.Tensor[[32, 32], pl.FP32]]," in lines


def test_with_the_default_capacities_k_is_one_slice() -> None:
    text, diagnostics = converted(SLICED)
    assert diagnostics == []
    assert "pl.range" not in text
    assert "pl.block.load(a, [32, 0], [32, 128], target_memory=pl.MemorySpace.Mat)" in text


def test_a_huge_k_is_sliced_from_what_fits_not_counted_down_from_k() -> None:
    # K = 2**40 (a typo the editor analyses as it is typed): the slice search counted down
    # from K itself, ~10**12 steps, and `ptoc check` (and the server's E402 job) never ended.
    huge = SLICED.replace("128]", f"{2**40}]").replace("[128,", f"[{2**40},")
    text, diagnostics = converted(huge, small_cube())
    assert diagnostics == []
    assert f"for kk, (c_tile_sum,) in pl.range(64, {2**40}, 64, init_values=(c_tile,)):" in text


def test_matmul_kernels_compile_for_both_targets() -> None:
    cce, pto = both_targets(SLICED)
    assert "TMATMUL(c_tile, a_left, b_right);" in cce
    assert "pto.tmatmul" in pto


def kernel(body: str, params: str, result: str) -> str:
    return (
        HEADER
        + textwrap.dedent(f"""\
        class K:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, {params}) -> {result}:
        """)
        + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


def test_a_product_read_by_a_vector_op_is_an_e400_at_that_op() -> None:
    source = kernel(
        """\
        c: pl.Tensor[[16, 16], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        d: pl.Tensor[[16, 16], pl.FP32] = pl.exp(c)
        return d
        """,
        "a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16]",
        "pl.Tensor[[16, 16], pl.FP32]",
    )
    _, diagnostics = converted(source)
    assert diagnostics == [
        "k.py:9:9: error[E400]: 'tensor.exp' reads the result of a matmul in the same kernel: "
        "the product is in the cube unit's Acc buffer, which vector instructions cannot read "
        "(A2/A3 has no Acc -> Vec move, and the cube and vector units are separate cores); "
        "compute the matmul in a kernel of its own (its own InCore function or "
        "`with pl.incore():` scope) and pass its result"
    ]


def test_an_operand_computed_in_the_kernel_is_an_e400_at_the_operand() -> None:
    source = kernel(
        """\
        e: pl.Tensor[[16, 32], pl.FP16] = pl.exp(a)
        c: pl.Tensor[[16, 16], pl.FP32] = pl.matmul(e, b, out_dtype=pl.FP32)
        return c
        """,
        "a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16]",
        "pl.Tensor[[16, 16], pl.FP32]",
    )
    _, diagnostics = converted(source)
    assert diagnostics == [
        "k.py:9:9: error[E400]: tensor.matmul in a kernel: operand 'e' is computed in the "
        "kernel; the cube unit reads its operands from memory (A2/A3 moves no Vec tile into "
        "Mat): pass it as a parameter (or a tensor.view of one), computed by another kernel"
    ]


def test_transposed_operands_and_a_product_larger_than_acc_are_e400s() -> None:
    transposed = kernel(
        """\
        c: pl.Tensor[[16, 16], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32, b_trans=True)
        return c
        """,
        "a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[16, 32], pl.FP16]",
        "pl.Tensor[[16, 16], pl.FP32]",
    )
    assert converted(transposed)[1] == [
        "k.py:8:9: error[E400]: tensor.matmul in a kernel: b_trans=True is not lowered to "
        "block ops yet (operands are loaded in their stored layout); pass the operand already "
        "transposed"
    ]
    huge = kernel(
        """\
        c: pl.Tensor[[256, 256], pl.FP32] = pl.matmul(a, b, out_dtype=pl.FP32)
        return c
        """,
        "a: pl.Tensor[[256, 16], pl.FP16], b: pl.Tensor[[16, 256], pl.FP16]",
        "pl.Tensor[[256, 256], pl.FP32]",
    )
    assert converted(huge)[1] == [
        "k.py:8:9: error[E400]: tensor.matmul in a kernel: the product [256, 256] needs "
        "262144 bytes of Acc, more than its 131072 (L0C); ptoc tiles a product over Acc only "
        'when it is assembled into a tensor or cast (mode="rint") into a second matmul\'s '
        "operand (PyPTO's AutoTileMatmulL0 places it elsewhere too): split the rows or columns "
        "with tensor.view"
    ]


def test_a_loop_whose_body_computes_the_carried_tensor_carries_a_tile() -> None:
    source = kernel(
        """\
        for i, (acc,) in pl.range(4, init_values=(x,)):
            y: pl.Tensor[[16, 16], pl.FP32] = pl.add(x, acc)
            t: pl.Tensor[[16, 16], pl.FP32] = pl.create_tensor([16, 16], dtype=pl.FP32)
            out = pl.yield_(y)
        return out
        """,
        "x: pl.Tensor[[16, 16], pl.FP32]",
        "pl.Tensor[[16, 16], pl.FP32]",
    )
    text, diagnostics = converted(source)
    assert diagnostics == []
    body = text.split("-> pl.Tensor[[16, 16], pl.FP32]:\n", 1)[1]
    assert body == textwrap.indent(
        textwrap.dedent("""\
            x_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.load(x, [0, 0], [16, 16])
            for i, (acc,) in pl.range(0, 4, 1, init_values=(x_tile,)):
                y_tile: pl.Tile[[16, 16], pl.FP32] = pl.block.add(x_tile, acc)
                out: pl.Tile[[16, 16], pl.FP32] = pl.yield_(y_tile)
            out_1: pl.Tensor[[16, 16], pl.FP32] = pl.block.store(
                out, [0, 0], [16, 16], out_0
            )
            return out_1
        """),
        " " * 8,
    )


def test_a_carried_tile_whose_initial_tile_is_read_again_starts_from_a_copy() -> None:
    source = kernel(
        """\
        x_tile = pl.load(x, [0, 0], [16, 16])
        for i, (acc,) in pl.range(4, init_values=(x_tile,)):
            y = pl.add(x_tile, acc)
            out = pl.yield_(y)
        for j, (acc2,) in pl.range(2, init_values=(out,)):
            z = pl.add(acc2, acc2)
            out2 = pl.yield_(z)
        r = pl.store(out2, [0, 0], [16, 16], o)
        return r
        """,
        "x: pl.Tensor[[16, 16], pl.FP32], o: pl.Tensor[[16, 16], pl.FP32]",
        "pl.Tensor[[16, 16], pl.FP32]",
    )
    (program,) = analyze_source(source, "k.py").all_programs()
    result = run_pipeline(program, ["ConvertToSSA", "FlattenCalls", "InitMemRef"])
    assert [d.format() for d in result.diagnostics] == []
    text = print_program(result.program)
    # x_tile is read in the loop too: the loop starts from a copy in a buffer of its own; out
    # is read only as the second loop's start, which keeps its buffer.
    assert "acc_init: pl.Tile[" in text
    assert "] = pl.block.vec_move(x_tile)" in text
    assert "in pl.range(0, 4, 1, init_values=(acc_init,)):" in text
    assert "in pl.range(0, 2, 1, init_values=(out,)):" in text
    assert text.count("pl.block.vec_move") == 1


# A tensor K loop as today's examples write it (qwen3_jit's q_projection, reduced): the first
# slice's product starts the accumulator, the others add to it (issue #27).
K_LOOP = textwrap.dedent("""\
    import pypto.language as pl
    import torch

    M, N, K, NS, KS = 16, 128, 128, 64, 64


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
    """)


def block_calls(text: str) -> list[str]:
    lines = [line.strip() for line in text.splitlines()]
    return [line.split("= ", 1)[1] for line in lines if line.startswith("] = pl.block")]


def test_a_k_loop_of_matmul_then_matmul_acc_carries_an_acc_tile() -> None:
    """The loop carries an Acc tile from the start (the created tensor becomes an Acc tile the
    first iteration's matmul overwrites); ``matmul_acc`` is loaded and multiplied as
    ``matmul`` is, adding to the carried tile; the product is stored from Acc."""
    text, diagnostics = converted(K_LOOP)
    assert diagnostics == []
    kernel = text.split("@pl.function(type=pl.FunctionType.Orchestration)")[0]
    assert block_calls(kernel) == [
        "pl.block.create_tile(",
        "pl.block.load(",
        "pl.block.move(x_mat, target_memory=pl.MemorySpace.Left)",
        "pl.block.load(",
        "pl.block.move(w_mat, target_memory=pl.MemorySpace.Right)",
        "pl.block.matmul(x_left, w_right)",
        "pl.block.load(",
        "pl.block.move(x_mat_1, target_memory=pl.MemorySpace.Left)",
        "pl.block.load(",
        "pl.block.move(w_mat_1, target_memory=pl.MemorySpace.Right)",
        "pl.block.matmul_acc(acc_1, x_left_1, w_right_1)",
    ]
    lines = [line.strip() for line in kernel.splitlines()]
    for line in (
        "[16, 64], dtype=pl.FP32, target_memory=pl.MemorySpace.Acc",
        "0, 128 // 64, 1, init_values=(acc_tile,), stage=2",
        "x, [0, k0], [16, 64], target_memory=pl.MemorySpace.Mat",
        "w, [k0, n0], [64, 64], target_memory=pl.MemorySpace.Mat",
        "] = pl.yield_(acc_2_tile)",
        "] = pl.yield_(acc_3_acc)",
        "] = pl.yield_(acc_4)",
        "acc_5, [0, n0], [16, 64], y_1",
    ):
        assert line in lines, line
    assert "y_2: pl.Tensor[[16, 128], pl.FP32] = pl.block.l0c_store(" in lines
    assert "tensor." not in kernel  # every tensor op lowered, no create_tensor left
    # the carried value, the if's result and the loop's result are all Acc tiles
    assert kernel.count("fractal=1024,") == 4 + 1  # acc_2_tile, acc_4 x2, acc_3_acc, acc_5


def test_matmul_acc_on_a_tensor_that_is_no_product_is_an_e400() -> None:
    source = kernel(
        """\
        d: pl.Tensor[[16, 16], pl.FP32] = pl.matmul_acc(c, a, b)
        return d
        """,
        "a: pl.Tensor[[16, 32], pl.FP16], b: pl.Tensor[[32, 16], pl.FP16], "
        "c: pl.Tensor[[16, 16], pl.FP32]",
        "pl.Tensor[[16, 16], pl.FP32]",
    )
    _, diagnostics = converted(source)
    assert diagnostics == [
        "k.py:8:9: error[E400]: tensor.matmul_acc in a kernel: the accumulator 'c' of matmul_acc "
        "must be a product of this kernel (a tensor.matmul's result, carried through the K "
        "loop), which is in the cube unit's Acc buffer"
    ]
