"""Hardware legality: each mistake pto-isa rejects (or computes garbage from) gets exactly one
diagnostic on its range; the header and line of the constraint are cited per test (paths under
pto-isa/include/pto)."""

from __future__ import annotations

import textwrap

import pytest

from ptoc import driver
from ptoc.diagnostics import Severity
from ptoc.diagnostics.codes import CODES
from ptoc.frontend import analyze_source

HEADER = "import pypto.language as pl\n\n"
T16 = "pl.Tensor[[32, 32], pl.FP16]"
T32 = "pl.Tensor[[32, 32], pl.FP32]"

# A correct cube kernel: Mat loads, moves to Left / Right, matmul, accumulate, FIX-pipe store.
PRELUDE = f"""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {T16}, b: {T16}, out: {T32}, out16: {T16}, o64: pl.Tensor[[64, 64], pl.FP32],
          oi: pl.Tensor[[32, 32], pl.INT32], o1: pl.Tensor[[32], pl.FP32]) -> {T32}:
        ma = pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        mb = pl.load(b, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        la = pl.move(ma, target_memory=pl.MemorySpace.Left)
        rb = pl.move(mb, target_memory=pl.MemorySpace.Right)
        acc = pl.matmul(la, rb)
        acc2 = pl.matmul_acc(acc, la, rb)
        va = pl.load(a, [0, 0], [32, 32])
        v32 = pl.load(out, [0, 0], [32, 32])
"""
EPILOGUE = """
        out = pl.l0c_store(acc2, [0, 0], [32, 32], out)
        return out
"""


def check(mistake: str) -> tuple[str, list[tuple[str, int, int, int, int, str]]]:
    text = HEADER + textwrap.dedent(PRELUDE) + textwrap.indent(textwrap.dedent(mistake), " " * 8)
    text += textwrap.dedent(EPILOGUE)
    analysis = analyze_source(text, "k.py")
    return text, [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column, d.message)
        for d in analysis.diagnostics
    ]


def at(text: str, needle: str) -> tuple[int, int, int, int]:
    """Where ``needle`` first occurs in the mistake (after the prelude)."""
    index = text.index(needle, len(HEADER + textwrap.dedent(PRELUDE)))
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1)
    return (line, column, line, column + len(needle))


def one(mistake: str, code: str, needle: str) -> str:
    """The mistake gets exactly one diagnostic, ``code`` on ``needle``; returns its message."""
    text, found = check(mistake)
    assert [(c, *r) for c, *r, _ in found] == [(code, *at(text, needle))], found
    return found[0][-1]


def test_the_correct_kernel_gets_nothing() -> None:
    assert check("")[1] == []


def test_matmul_operands_in_vec() -> None:
    # npu/a2a3/TMatmul.hpp:94: "TileLeft TileType must be set to TileType::Left."
    message = one("c = pl.matmul(va, rb)", "E320", "va")
    assert message == (
        "block.matmul: argument 'lhs' must be a tile in Left, got one in Vec; load it into Mat "
        "(target_memory=pl.MemorySpace.Mat), then pl.move(..., target_memory=pl.MemorySpace.Left)"
    )
    # npu/a2a3/TMatmul.hpp:95: "TileRight TileType must be set to TileType::Right."
    one("c = pl.matmul(la, va)", "E320", "va")


def test_matmul_operands_swapped_is_one_error() -> None:
    # npu/a2a3/TMatmul.hpp:94-95 reject both operands; one mistake, one error.
    message = one("c = pl.matmul(rb, la)", "E320", "rb")
    assert "the operands are swapped" in message


def test_vec_accumulator() -> None:
    # npu/a2a3/TMatmul.hpp:96: "TileRes TileType must be set to TileType::Acc."
    message = one("c = pl.matmul_acc(va, la, rb)", "E320", "va")
    assert message.endswith("an Acc tile is the result of pl.matmul")


def test_l0c_store_of_a_vec_tile() -> None:
    # npu/a2a3/TStore.hpp:294: "Source TileType only support Acc!" (the FIX-pipe store)
    message = one("o = pl.l0c_store(va, [0, 0], [32, 32], out16)", "E320", "va")
    assert message.endswith("store a Vec tile with pl.store")


def test_vector_op_on_an_acc_tile() -> None:
    # npu/a2a3/TAdd.hpp:67: "TADD only support row major layout." (Acc is column-major)
    one("d = pl.add(acc, acc)", "E320", "acc")
    one("d = pl.exp(acc)", "E320", "acc")


def test_store_of_an_acc_tile_is_a_warning() -> None:
    # TSTORE takes an Acc tile (npu/a2a3/TStore.hpp:264) and the original accepts it, but
    # pl.store is synchronised as MTE3 work while Acc drains through the FIX pipe.
    message = one("o = pl.store(acc, [0, 0], [32, 32], out)", "W025", "acc")
    assert message.endswith("use pl.l0c_store")


def test_moves_the_hardware_cannot_do() -> None:
    # npu/a2a3/TMov.hpp:142: "TMov: Invalid TileType." (Mat -> Left/Right, Vec -> Vec, Acc -> Mat)
    message = one(
        "x = pl.move(va, target_memory=pl.MemorySpace.Left)", "E320", "pl.MemorySpace.Left"
    )
    assert message.startswith("block.move: the hardware cannot move a tile Vec -> Left")
    one("x = pl.move(la, target_memory=pl.MemorySpace.Right)", "E320", "pl.MemorySpace.Right")
    one("x = pl.move(ma, target_memory=pl.MemorySpace.Vec)", "E320", "pl.MemorySpace.Vec")


def test_moves_only_a5_does_are_warnings() -> None:
    # npu/a5/TMov.hpp:770 moves Acc -> Vec, npu/a2a3/TMov.hpp:142 does not.
    message = one(
        "x = pl.move(acc, target_memory=pl.MemorySpace.Vec)", "W020", "pl.MemorySpace.Vec"
    )
    assert message.startswith("block.move: only A5 moves a tile Acc -> Vec directly")
    one("x = pl.move(va, target_memory=pl.MemorySpace.Mat)", "W020", "pl.MemorySpace.Mat")


def test_moves_the_hardware_does_are_accepted() -> None:
    assert (
        check(
            "x = pl.move(va, target_memory=pl.MemorySpace.Vec)\n"
            "y = pl.move(acc, target_memory=pl.MemorySpace.Mat)"
        )[1]
        == []
    )


def test_store_into_a_tensor_of_another_element_size() -> None:
    # common/arch/memory/tstore_common.hpp:336: "Source dtype must be same with dst dtype!"
    message = one("o = pl.store(v32, [0, 0], [32, 32], out16)", "E321", "out16")
    assert message == (
        "block.store: a FP32 tile cannot be stored into a FP16 tensor: the copy does not convert "
        "elements; convert first: pl.cast(..., target_type=pl.FP16)"
    )


def test_store_into_a_tensor_of_the_same_size_reinterprets() -> None:
    # tstore_common.hpp:336 compares sizes only: FP32 bits land in an INT32 tensor unconverted.
    one("o = pl.store(v32, [0, 0], [32, 32], oi)", "W021", "oi")


def test_l0c_store_converts() -> None:
    # npu/a2a3/TStore.hpp:223: Acc FP32 -> half / bfloat16 / float / int32 outputs.
    assert check("o = pl.l0c_store(acc, [0, 0], [32, 32], out16)")[1] == []


def test_store_window_larger_than_the_tile() -> None:
    # cpu/TStore.hpp:33 only asserts the window holds the tile: the rest is not written.
    message = one("o = pl.store(v32, [0, 0], [64, 32], o64)", "W022", "[64, 32]")
    assert message == (
        "block.store: the window [64, 32] is not the tile's shape [32, 32]: only "
        "the tile's 1024 elements are written, 1024 of the window's are left "
        "unchanged"
    )


def test_rank_one_tile_with_a_two_d_window() -> None:
    text = "r = pl.row_sum(v32, v32)\nrr = pl.reshape(r, [32])\n"
    one(text + "o = pl.store(rr, [0, 0], [32, 32], out)", "W022", "[32, 32]")
    # [32] into a [1, 32] window is the same layout.
    assert check(text + "o = pl.store(rr, [0, 0], [1, 32], out)")[1] == []


def incore(signature: str, body: str) -> str:
    """A program with one InCore kernel ``k(self, <signature>)`` and its body."""
    return (
        HEADER + "\n@pl.program\nclass P:\n    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def k(self, {signature}:\n" + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


PROGRAM = incore(
    f"a: {T32}, out: {T32}) -> {T32}",
    """
    t = pl.load(a, [0, 0], [32, 32])
    out = pl.store(t, [0, 0], [32, 32], out)
    return out
""",
)


def program_diagnostics(extra: str) -> tuple[str, list[tuple[str, int, int, int, int]]]:
    text = PROGRAM + textwrap.indent(textwrap.dedent(extra), " " * 4)
    return text, [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in analyze_source(text, "k.py").diagnostics
    ]


def last(text: str, needle: str) -> tuple[int, int, int, int]:
    index = text.rindex(needle)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1)
    return (line, column, line, column + len(needle))


def test_incore_calling_incore_checks_and_only_pto_says_what_it_cannot_pass() -> None:
    # Upstream's outlining makes InCore wrappers of InCore functions: the program is valid.
    # The CCE pipeline inlines the callee; the PTO generator cannot pass a tensor to a call.
    text, found = program_diagnostics(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k2(self, a: {T32}, out: {T32}) -> {T32}:
            out_2 = self.k(a, out)
            return out_2
    """)
    assert found == []
    cce = driver.compile_source(text, "cce", function="k2", path="k.py")
    assert [d.code for d in cce.diagnostics if d.severity is Severity.ERROR] == []
    assert cce.text is not None and "TSTORE(outGlobal, t);" in kernel_body(cce.text, "runK2")
    pto = driver.compile_source(text, "pto", path="k.py")
    line, column, _, _ = last(text, "self.k(a, out)")
    assert [(d.code, d.span.line, d.span.column) for d in pto.diagnostics] == [
        ("E400", line, column)
    ]


def kernel_body(text: str, name: str) -> str:
    start = text.index(f" void {name}(")
    return text[start : text.index("\n}\n", start)]


def test_block_op_in_orchestration_is_a_warning() -> None:
    text, found = program_diagnostics(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T32}, out: {T32}) -> {T32}:
            t = pl.load(a, [0, 0], [32, 32])
            out = self.k(a, out)
            return out
    """)
    line, column, _, _ = last(text, "load(a, [0, 0]")
    assert found == [("W024", line, column, line, column + len("load"))]


def test_block_op_in_an_incore_scope_of_orchestration_is_fine() -> None:
    _, found = program_diagnostics(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, a: {T32}, out: {T32}) -> {T32}:
            with pl.incore():
                t = pl.load(a, [0, 0], [32, 32])
                out = pl.store(t, [0, 0], [32, 32], out)
            return out
    """)
    assert found == []


BUILDER = f"""import pypto.language as pl

Q_TILE = 16


def build_program(batch: int, num_heads: int, q_tile: int = Q_TILE, scale: float = 0.5):
    \"\"\"The original's examples build parameterised programs so.\"\"\"
    rows = batch * num_heads
    BLOCK = 32
    LOOPS = (num_heads + q_tile - 1) // q_tile

    @pl.program
    class Built:
        @pl.function(type=pl.FunctionType.InCore)
        def k(self, a: pl.Tensor[[rows, 32], pl.FP32],
              out: pl.Tensor[[rows, 32], pl.FP32]) -> pl.Tensor[[rows, 32], pl.FP32]:
            for i in pl.range(LOOPS):
                t = pl.load(a, [i * q_tile, 0], [Q_TILE, BLOCK])
                u = pl.muls(t, scale)
                out = pl.store(u, [i * q_tile, 0], [Q_TILE, BLOCK], out)
            return out

    return Built


def build_kernel(n: int):
    @pl.function(type=pl.FunctionType.InCore)
    def kern(a: pl.Tensor[[n, 64], pl.FP32], out: {T32}) -> {T32}:
        t = pl.load(a, [0, 0], [32, 32])
        out = pl.store(t, [0, 0], [32, 32], out)
        return out

    return kern
"""


def test_a_program_built_by_a_function_is_analysed() -> None:
    analysis = analyze_source(BUILDER, "k.py")
    assert analysis.diagnostics == []
    assert [p.name for p in analysis.all_programs()] == ["Built", "kern"]
    assert analysis.built == {"Built", "kern"}
    # The builder's values are symbolic there and leave scope after it.
    k = analysis.all_programs()[0].functions[0]
    assert k.params[0].type.short() == "Tensor[[rows, 32], FP32]"


def test_a_mistake_in_a_built_program_is_reported() -> None:
    text = BUILDER.replace("u = pl.muls(t, scale)", "u = pl.muls(t, sclae)")
    found = [(d.code, d.span.line) for d in analyze_source(text, "k.py").diagnostics]
    assert found == [("E200", text[: text.index("sclae")].count("\n") + 1)]


def test_builder_values_do_not_leak_into_the_module() -> None:
    text = (
        BUILDER
        + """

@pl.function(type=pl.FunctionType.InCore)
def outside(a: pl.Tensor[[rows, 32], pl.FP32]) -> pl.Tensor[[rows, 32], pl.FP32]:
    return a
"""
    )
    found = [d.code for d in analyze_source(text, "k.py").diagnostics]
    assert found == ["E104", "E104"]  # `rows` is unknown outside the builder


def test_editing_a_builder_value_reanalyses_its_program() -> None:
    from ptoc.frontend import AnalysisCache

    cache = AnalysisCache()
    assert analyze_source(BUILDER, "k.py", cache).diagnostics == []
    wider = BUILDER.replace("BLOCK = 32", "BLOCK = 64")
    found = analyze_source(wider, "k.py", cache).diagnostics
    assert [d.code for d in found] == ["E308"]  # the load; what follows from it is not repeated
    assert found == analyze_source(wider, "k.py").diagnostics


T128 = "pl.Tensor[[128, 32], pl.FP32]"
LOOPS = incore(f"a: {T128}, out: {T128}) -> {T128}", "t0 = pl.load(a, [0, 0], [32, 32])\n")


def loop_diagnostics(body: str) -> tuple[str, list[tuple[str, int, int, int, int, str]]]:
    text = LOOPS + textwrap.indent(textwrap.dedent(body), " " * 8) + "        return out\n"
    return text, [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column, d.message)
        for d in analyze_source(text, "k.py").diagnostics
    ]


def test_out_of_bounds_window_in_a_loop_with_constant_bounds() -> None:
    # The last iteration reads rows 128..160 of a 128-row tensor (cpu/TLoad.hpp asserts the
    # window inside the global tensor).
    text, found = loop_diagnostics("""
        for i in pl.range(5):
            t = pl.load(a, [i * 32, 0], [32, 32])
            out = pl.store(t, [i * 32, 0], [32, 32], out)
    """)
    assert found == [
        (
            "E308",
            *last(text, "[i * 32, 0], [32, 32])")[:2],
            last(text, "[i * 32, 0], [32, 32])")[0],
            last(text, "[i * 32, 0], [32, 32])")[1] + len("[i * 32, 0]"),
            "block.load: with i in 0..4 the window on dimension 0 reaches 128..160, "
            "outside the tensor's extent 128",
        )
    ]


def test_nested_loops_and_steps() -> None:
    text, found = loop_diagnostics("""
        for k in pl.range(2):
            for m in pl.range(0, 2, 1):
                t = pl.load(a, [(k * 2 + m + 1) * 32, 0], [32, 32])
    """)
    assert [f[0] for f in found] == ["E308"]
    assert "with k in 0..1, m in 0..1" in found[0][-1]


def test_windows_inside_the_tensor_on_every_iteration_get_nothing() -> None:
    _, found = loop_diagnostics("""
        for i in pl.range(0, 128, 32):
            t = pl.load(a, [i, 0], [32, 32])
            out = pl.store(t, [i, 0], [32, 32], out)
        for j in pl.range(4, 0, -1):
            u = pl.load(a, [(j - 1) * 32, 0], [32, 32])
        for n in pl.range(0):
            v = pl.load(a, [n * 1000, 0], [32, 32])
        for p in pl.range(5):
            for q in pl.range(p, 4):  # never runs when p = 4
                w = pl.load(a, [p * 32, 0], [32, 32])
    """)
    assert found == []


def test_a_guarded_window_is_not_judged_by_the_loop_bounds() -> None:
    _, found = loop_diagnostics("""
        for j in pl.range(5):
            if j < 4:
                t = pl.load(a, [j * 32, 0], [32, 32])
    """)
    assert found == []


CATALOG_PRELUDE = """import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.FP16], out: pl.Tensor[[32, 32], pl.FP32],
          out_fp16: pl.Tensor[[32, 32], pl.FP16], out_int32: pl.Tensor[[32, 32], pl.INT32],
          out_64x64: pl.Tensor[[64, 64], pl.FP32], w: pl.Tensor[[32, 64], pl.FP32]) -> None:
        a_vec = pl.load(a, [0, 0], [32, 32])
        b_vec = pl.load(a, [0, 0], [32, 32])
        a_mat = pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        b_mat = pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)
        acc = pl.matmul(pl.move(a_mat, target_memory=pl.MemorySpace.Left),
                        pl.move(b_mat, target_memory=pl.MemorySpace.Right))
        t_fp32 = pl.load(out, [0, 0], [32, 32])
        t_32x64 = pl.load(w, [0, 0], [32, 64])
"""


@pytest.mark.parametrize("code", ["E320", "E321", "W020", "W021", "W022", "W025"])
def test_catalog_example_and_fix_run(code: str) -> None:
    """The catalog's example gets exactly its code, and its fix nothing."""
    info = CODES[code]
    for snippet, expected in ((info.example, [code]), (info.fix, [])):
        text = CATALOG_PRELUDE + textwrap.indent(snippet, " " * 8) + "\n"
        assert [d.code for d in analyze_source(text, "k.py").diagnostics] == expected, snippet


def test_vector_op_on_a_mat_tile() -> None:
    # npu/a2a3/TAdd.hpp:67: a Mat tile is column-major; the vector unit reads Vec only.
    message = one("d = pl.add(ma, ma)", "E320", "ma")
    assert message == (
        "block.add: argument 'lhs' must be a tile in Vec, got one in Mat; vector "
        "instructions read Vec tiles: load it into Vec (the default target_memory)"
    )


def test_rank_one_tile_with_an_equally_large_two_d_window() -> None:
    text = "r = pl.row_sum(v32, v32)\nrr = pl.reshape(r, [32])\n"
    message = one(text + "o = pl.store(rr, [0, 0], [8, 4], out)", "W022", "[8, 4]")
    assert message.endswith(
        "a rank-1 tile is one row, written along the window's last dimension only"
    )
    # A column stored as a vector holds the same elements in the same order.
    assert check("r = pl.row_sum(v32, v32)\no = pl.store(r, [0], [32], o1)")[1] == []


def test_spaces_flow_through_loops_and_ifs() -> None:
    # The K loop of a matmul: the carried accumulator stays in Acc.
    loop = textwrap.dedent("""
        for kk, (c,) in pl.range(4, init_values=(acc,)):
            c2 = pl.matmul_acc(c, la, rb)
            c_out = pl.yield_(c2)
    """)
    assert check(loop + "o = pl.l0c_store(c_out, [0, 0], [32, 32], out)")[1] == []
    text, found = check(loop + "d = pl.exp(c_out)")
    assert [(c, *r) for c, *r, _ in found] == [
        ("E320", *last(text, "c_out)")[:3], last(text, "c_out)")[3] - 1)
    ]
    branches = textwrap.dedent("""
        kk0 = 1
        if kk0 > 0:
            s = pl.yield_(acc)
        else:
            s = pl.yield_(acc2)
    """)
    text, found = check(branches + "d = pl.add(s, s)")
    line, column, _, _ = last(text, "s, s)")
    assert [(c, *r) for c, *r, _ in found] == [("E320", line, column, line, column + 1)]


def test_incore_calling_any_program_function_checks_clean() -> None:
    # As an InCore function calling another: the code generators decide (the CCE pipeline
    # inlines the call).
    text, found = program_diagnostics(f"""
        @pl.function
        def helper(self, a: {T32}) -> {T32}:
            return a

        @pl.function(type=pl.FunctionType.InCore)
        def k2(self, a: {T32}) -> {T32}:
            b = self.helper(a)
            return b
    """)
    assert found == []


MATMUL_OF = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: pl.Tensor[[32, 32], pl.{dtype}], b: pl.Tensor[[32, 32], pl.{dtype}]):
        la = pl.move(pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat),
                     target_memory=pl.MemorySpace.Left)
        rb = pl.move(pl.load(b, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat),
                     target_memory=pl.MemorySpace.Right)
        c = pl.matmul(la, rb)
"""


def matmul_of(dtype: str) -> list[tuple[str, int, int, int, str]]:
    analysis = analyze_source(MATMUL_OF.format(dtype=dtype), "k.py")
    return [
        (d.code, d.span.line, d.span.column, d.span.end_column, d.message)
        for d in analysis.diagnostics
    ]


@pytest.mark.parametrize("dtype", ["INT8", "FP16", "BF16", "FP32"])
def test_matmul_of_a_dtype_tmatmul_takes(dtype: str) -> None:
    # npu/a2a3/TMatmul.hpp:83-92 (and cpu/TMatmul.hpp:27-33): s8 -> s32, f16 / bf16 / f32 -> f32
    assert matmul_of(dtype) == []


@pytest.mark.parametrize("dtype", ["INT16", "INT32", "UINT8", "FP4"])
def test_matmul_of_a_dtype_no_tmatmul_takes(dtype: str) -> None:
    # npu/a2a3/TMatmul.hpp:92: "The data type is not supported."
    assert matmul_of(dtype) == [
        (
            "E306",
            12,  # the lhs of ``c = pl.matmul(la, rb)``
            22,
            24,
            f"block.matmul: the hardware cannot multiply {dtype} tiles (TMATMUL takes INT8, "
            "FP16, BF16, FP32 operands: INT8 into INT32, the floats into FP32); convert them "
            "first with pl.cast",
        )
    ]


@pytest.mark.parametrize("dtype", ["FP8E4M3FN", "FP8E5M2", "HF8"])
def test_matmul_of_8_bit_floats_is_a5_only(dtype: str) -> None:
    # npu/a5/TMatmul.hpp:151-160 multiplies them, npu/a2a3/TMatmul.hpp:83-92 does not.
    assert matmul_of(dtype) == [
        (
            "W028",
            12,
            22,
            24,
            f"block.matmul: only A5 multiplies {dtype} tiles; on A2/A3 TMATMUL takes INT8, "
            "FP16, BF16, FP32 operands",
        )
    ]
