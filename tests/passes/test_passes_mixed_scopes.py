"""A mixed kernel scope (a vector op reading its matmul's product, which A2/A3's vector unit
cannot read from Acc) is split by OutlineIncoreScopes into a cube kernel and a vector kernel,
the product handed over in GM (``ptoc.mixed_kernels``, ``passes/mixed_scopes.py``): the exact
IR, the I009 note, launches, what is not split (E400 at the op, as before), both back ends and
the task graph."""

from __future__ import annotations

import textwrap

from passes_ir import both_targets

from ptoc.diagnostics import CODES, Severity
from ptoc.frontend import analyze_source
from ptoc.graph import function_graph
from ptoc.graph.model import TaskGraph
from ptoc.passes import run_pipeline
from ptoc.printer import print_program

UP_TO_OUTLINE = ["ConvertToSSA", "FlattenCalls", "OutlineIncoreScopes"]
UP_TO_CONVERT = [*UP_TO_OUTLINE, "ConvertTensorToBlockOps"]
HEADER = "import pypto.language as pl\n\n\n@pl.program\n"

SPLIT_NOTE = (
    "info[I009]: this kernel scope is split into a cube kernel and a vector kernel, launched "
    "one after the other, the matmul's product handed over through a tensor in GM (A2/A3's "
    "vector unit cannot read the cube's Acc buffer); upstream's cross-core pipe between the "
    "two, and the overlap pl.split asks for, are not modelled"
)
PRODUCT_READ = (
    "reads the result of a matmul in the same kernel: the product is in the cube unit's Acc "
    "buffer, which vector instructions cannot read (A2/A3 has no Acc -> Vec move, and the cube "
    "and vector units are separate cores); compute the matmul in a kernel of its own (its own "
    "InCore function or `with pl.incore():` scope) and pass its result"
)

PARAMS = """\
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
"""


def orchestration(body: str) -> str:
    return (
        HEADER
        + (
            "class Mixed:\n"
            "    @pl.function\n"
            "    def main(\n"
            "        self,\n" + PARAMS + "    ) -> pl.Tensor[[64, 64], pl.FP32]:\n"
        )
        + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


# Row block i of a @ b + bias, per iteration: r0 is set-up both kernels compute.
MIXED = orchestration("""\
    for i in pl.range(2):
        with pl.at(
            level=pl.Level.CORE_GROUP,
            optimizations=[pl.split(pl.SplitMode.UP_DOWN)],
            name_hint="mixed",
        ):
            r0 = i * 32
            rows = pl.slice(a, [32, 128], [r0, 0])
            acc = pl.matmul(rows, b, out_dtype=pl.FP32)
            part = pl.slice(bias, [32, 64], [r0, 0])
            out = pl.assemble(out, pl.add(acc, part), [r0, 0])
    return out
""")

MIXED_OUTLINED = """\
class Mixed:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(
        self,
        i: pl.Scalar[pl.INDEX],
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
    ) -> pl.Tensor[[32, 64], pl.FP32]:
        r0: pl.Scalar[pl.INDEX] = i * 32
        rows: pl.Tensor[[32, 128], pl.FP16] = pl.tensor.view(a, [32, 128], [r0, 0])
        acc: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.matmul(rows, b, out_dtype=pl.FP32)
        return acc

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_1(
        self,
        i: pl.Scalar[pl.INDEX],
        bias: pl.Tensor[[64, 64], pl.FP32],
        acc: pl.Tensor[[32, 64], pl.FP32],
        out_1: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        r0: pl.Scalar[pl.INDEX] = i * 32
        part: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.view(bias, [32, 64], [r0, 0])
        _t0: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.add(acc, part)
        out_2: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out_1, _t0, [r0, 0])
        return out_2

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for i, (out_1,) in pl.range(0, 2, 1, init_values=(out,)):
            acc: pl.Tensor[[32, 64], pl.FP32] = self.main_incore_0(i, a, b)
            out_2: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_1(
                i, bias, acc, out_1
            )
            out_3: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(out_2)
        return out_3
"""


def lowered(source: str, passes: list[str]) -> tuple[str, list[str]]:
    (program,) = analyze_source(source, "k.py").all_programs()
    result = run_pipeline(program, passes)
    text = print_program(result.program).split("@pl.program\n", 1)[1]
    return text, [d.format() for d in result.diagnostics]


def test_a_mixed_scope_becomes_a_cube_kernel_then_a_vector_kernel_reading_its_product() -> None:
    text, diagnostics = lowered(MIXED, UP_TO_OUTLINE)
    assert text == MIXED_OUTLINED
    assert diagnostics == [f"k.py:15:13: {SPLIT_NOTE}"]


def test_the_note_covers_the_scope_and_is_information() -> None:
    (program,) = analyze_source(MIXED, "k.py").all_programs()
    (note,) = run_pipeline(program, UP_TO_OUTLINE).diagnostics
    assert (note.span.line, note.span.column, note.span.end_line, note.span.end_column) == (
        15,
        12,
        24,
        66,
    )
    assert note.severity is Severity.INFO and CODES["I009"].severity is Severity.INFO


def test_each_half_lowers_the_product_through_gm() -> None:
    text, diagnostics = lowered(MIXED, UP_TO_CONVERT)
    assert diagnostics == [f"k.py:15:13: {SPLIT_NOTE}"]
    lines = [line.strip() for line in text.splitlines()]
    # the cube kernel stores the product from Acc into an Out tensor; the vector kernel
    # loads it from there into Vec
    assert "acc: pl.Tensor[[32, 64], pl.FP32] = pl.block.l0c_store(" in lines
    assert "acc_tile: pl.Tile[[32, 64], pl.FP32] = pl.block.load(acc, [0, 0], [32, 64])" in lines


def test_both_targets_compile_the_two_kernels() -> None:
    cce, pto = both_targets(MIXED)
    assert cce.count("TMATMUL(") == 1 and cce.count("TADD(") == 1
    assert "main_incore_0" in cce and "main_incore_1" in cce
    assert pto.count("pto.tmatmul") == 1 and pto.count("pto.tadd") == 1


LAUNCH = orchestration("""\
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="first") as t0:
        b2 = pl.mul(bias, 2.0)
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="mixed", deps=[t0]) as t1:
        acc = pl.matmul(pl.slice(a, [64, 128], [0, 0]), b, out_dtype=pl.FP32)
        out = pl.assemble(out, pl.add(acc, b2), [0, 0])
    return out
""")


def test_a_launch_splits_into_two_launches_the_vector_one_waiting_for_the_cube_one() -> None:
    text, _ = lowered(LAUNCH, UP_TO_OUTLINE)
    body = text.split("    ) -> pl.Tensor[[64, 64], pl.FP32]:\n")[-1]
    assert [line.strip() for line in body.splitlines()] == [
        "_task0: tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(",
        "self.main_incore_0, bias",
        ")",
        "b2: pl.Tensor[[64, 64], pl.FP32] = _task0[0]",
        "t0: pl.Scalar[pl.TASK_ID] = _task0[1]",
        "_task1: tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(",
        "self.main_incore_1, a, b, deps=[t0]",
        ")",
        "acc: pl.Tensor[[64, 64], pl.FP32] = _task1[0]",
        "mixed_aic_task: pl.Scalar[pl.TASK_ID] = _task1[1]",
        "_task2: tuple[pl.Tensor[[64, 64], pl.FP32], pl.Scalar[pl.TASK_ID]] = pl.submit(",
        "self.main_incore_2, acc, b2, out, deps=[mixed_aic_task]",
        ")",
        "out_1: pl.Tensor[[64, 64], pl.FP32] = _task2[0]",
        "t1: pl.Scalar[pl.TASK_ID] = _task2[1]",
        "return out_1",
    ]


def test_the_task_graph_draws_the_two_kernels() -> None:
    analysis = analyze_source(LAUNCH, "k.py")
    graph = function_graph(analysis, "main")
    assert isinstance(graph, TaskGraph)
    assert [(t.kernel, t.task_id) for t in graph.tasks] == [
        ("first", "t0"),
        ("mixed_aic", "mixed_aic_task"),
        ("mixed_aiv", "t1"),
    ]
    assert [(e.source, e.target, e.kind, e.label) for e in graph.edges] == [
        (0, 1, "deps", "t0"),
        (1, 2, "deps", "mixed_aic_task"),
        (1, 2, "data", "acc"),
        (0, 2, "data", "b2"),
    ]


# Cube and vector work in one loop (upstream's qwen3 out_proj_residual): loop fission.
LOOP = orchestration("""\
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
                out = pl.assemble(out, pl.add(acc, part), [0, o0])
    return out
""")

LOOP_OUTLINED = """\
class Mixed:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(
        self,
        ob: pl.Scalar[pl.INDEX],
        acc_gm: pl.Tensor[[128, 16], pl.FP32],
        b: pl.Tensor[[128, 64], pl.FP16],
        a: pl.Tensor[[64, 128], pl.FP16],
    ) -> pl.Tensor[[128, 16], pl.FP32]:
        for oi, (acc_gm_1,) in pl.range(ob, ob + 2, 1, init_values=(acc_gm,)):
            o0: pl.Scalar[pl.INDEX] = oi * 16
            _t0: pl.Tensor[[128, 16], pl.FP16] = pl.tensor.view(b, [128, 16], [0, o0])
            acc: pl.Tensor[[64, 16], pl.FP32] = pl.tensor.matmul(
                a, _t0, out_dtype=pl.FP32
            )
            acc_gm_2: pl.Tensor[[128, 16], pl.FP32] = pl.tensor.assemble(
                acc_gm_1, acc, [(oi - ob) * 64, 0]
            )
            acc_gm_3: pl.Tensor[[128, 16], pl.FP32] = pl.yield_(acc_gm_2)
        return acc_gm_3

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_1(
        self,
        ob: pl.Scalar[pl.INDEX],
        out_1: pl.Tensor[[64, 64], pl.FP32],
        acc_gm_3: pl.Tensor[[128, 16], pl.FP32],
        bias: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for oi, (out_2,) in pl.range(ob, ob + 2, 1, init_values=(out_1,)):
            acc: pl.Tensor[[64, 16], pl.FP32] = pl.tensor.view(
                acc_gm_3, [64, 16], [(oi - ob) * 64, 0]
            )
            o0: pl.Scalar[pl.INDEX] = oi * 16
            part: pl.Tensor[[64, 16], pl.FP32] = pl.tensor.view(bias, [64, 16], [0, o0])
            _t1: pl.Tensor[[64, 16], pl.FP32] = pl.tensor.add(acc, part)
            out_3: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(
                out_2, _t1, [0, o0]
            )
            out_4: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(out_3)
        return out_4

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        for ob, (out_1,) in pl.range(0, 4, 2, init_values=(out,)):
            acc_gm: pl.Tensor[[128, 16], pl.FP32] = pl.tensor.create_tensor(
                [128, 16], dtype=pl.FP32
            )
            acc_gm_3: pl.Tensor[[128, 16], pl.FP32] = self.main_incore_0(
                ob, acc_gm, b, a
            )
            out_4: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_1(
                ob, out_1, acc_gm_3, bias
            )
            out_5: pl.Tensor[[64, 64], pl.FP32] = pl.yield_(out_4)
        return out_5
"""


def test_a_loop_of_cube_and_vector_work_becomes_a_cube_loop_then_a_vector_loop() -> None:
    """The cube loop stores each iteration's product into its slot of an intermediate the
    orchestration creates (the trip count times the product's rows); the vector loop reads
    its slot back."""
    text, diagnostics = lowered(LOOP, UP_TO_OUTLINE)
    assert text == LOOP_OUTLINED
    assert diagnostics == [f"k.py:15:13: {SPLIT_NOTE}"]


def test_both_targets_compile_the_two_loops() -> None:
    cce, pto = both_targets(LOOP)
    assert cce.count("TMATMUL(") == 1 and cce.count("TADD(") == 1
    assert pto.count("pto.tmatmul") == 1 and pto.count("pto.tadd") == 1


def test_the_task_graph_draws_the_two_loop_kernels_per_launch() -> None:
    """Each launch's cube kernel makes its own intermediate: no edge between launches'
    cube kernels."""
    graph = function_graph(analyze_source(LOOP, "k.py"), "main")
    assert isinstance(graph, TaskGraph)
    assert [t.kernel for t in graph.tasks] == ["out_proj_residual_aic", "out_proj_residual_aiv"] * 2
    assert [(e.source, e.target, e.kind, e.label) for e in graph.edges] == [
        (0, 1, "data", "acc_gm"),
        (2, 3, "data", "acc_gm"),
        (1, 3, "data", "out"),
    ]


def test_a_range_from_an_expression_to_it_plus_n_has_n_slots() -> None:
    source = orchestration("""\
        for ob in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                for oi in pl.range(ob * 2, ob * 2 + 2):
                    acc = pl.matmul(a, pl.slice(b, [128, 16], [0, oi * 16]), out_dtype=pl.FP32)
                    out = pl.assemble(out, pl.exp(acc), [0, oi * 16])
        return out
    """)
    text, diagnostics = lowered(source, UP_TO_OUTLINE)
    assert diagnostics == [f"k.py:15:13: {SPLIT_NOTE}"]
    lines = [line.strip() for line in text.splitlines()]
    assert "acc_gm: pl.Tensor[[128, 16], pl.FP32] = pl.tensor.create_tensor(" in lines
    assert "acc_gm_1, acc, [(oi - ob * 2) * 64, 0]" in lines


def test_a_loop_written_with_init_values_is_split_and_drawn_so() -> None:
    source = orchestration("""\
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="m"):
            for k, (acc_out,) in pl.range(2, init_values=(out,)):
                acc = pl.matmul(pl.slice(a, [32, 128], [k * 32, 0]), b, out_dtype=pl.FP32)
                nxt = pl.assemble(acc_out, pl.exp(acc), [k * 32, 0])
                res = pl.yield_(nxt)
        return res
    """)
    _, diagnostics = lowered(source, UP_TO_CONVERT)
    assert diagnostics == [f"k.py:14:9: {SPLIT_NOTE}"]
    graph = function_graph(analyze_source(source, "k.py"), "main")
    assert isinstance(graph, TaskGraph)
    assert [t.kernel for t in graph.tasks] == ["m_aic", "m_aiv"]
    assert [(e.source, e.target, e.kind, e.label) for e in graph.edges] == [
        (0, 1, "data", "acc_gm")
    ]


def test_vector_work_before_the_matmul_in_the_loop_goes_to_the_vector_loop() -> None:
    source = orchestration("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            for k in pl.range(0, 64, 32):
                s = pl.mul(pl.slice(bias, [32, 64], [k, 0]), 2.0)
                acc = pl.matmul(pl.slice(a, [32, 128], [k, 0]), b, out_dtype=pl.FP32)
                out = pl.assemble(out, pl.add(acc, s), [k, 0])
        return out
    """)
    text, diagnostics = lowered(source, UP_TO_OUTLINE)
    assert diagnostics == [f"k.py:14:9: {SPLIT_NOTE}"]
    lines = [line.strip() for line in text.splitlines()]
    # slot k // 32 of a [64, 64] intermediate
    assert "acc_gm_2: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(" in lines
    assert "acc_gm_1, acc, [k // 32 * 32, 0]" in lines
    assert "acc_gm_3, [32, 64], [k // 32 * 32, 0]" in lines
    vector = lines[lines.index("def main_incore_1(") :]
    assert "s: pl.Tensor[[32, 64], pl.FP32] = pl.tensor.mul(_t0, 2.0)" in vector
    assert not any("pl.tensor.mul(" in line for line in lines[: len(lines) - len(vector)])


# --- what is not split: E400 at the op reading the product, no note --------------------------


def test_a_loop_carrying_a_vector_result_into_the_cube_work_is_not_split() -> None:
    """The matmul of iteration k + 1 reads what the vector work of iteration k wrote: two
    loops one after the other would change the result."""
    source = orchestration("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            for k in pl.range(2):
                acc = pl.matmul(pl.slice(a, [32, 128], [0, 0]), b, out_dtype=pl.FP32)
                a = pl.assemble(a, pl.cast(acc, target_type=pl.FP16), [32, 0])
                out = pl.assemble(out, acc, [k * 32, 0])
        return out
    """)
    _, diagnostics = lowered(source, UP_TO_CONVERT)
    assert diagnostics == [
        "k.py:16:17: error[E400]: tensor.matmul in a kernel: operand '_t0' is computed in the "
        "kernel; the cube unit reads its operands from memory (A2/A3 moves no Vec tile into "
        "Mat): pass it as a parameter (or a tensor.view of one), computed by another kernel"
    ]


def test_a_loop_reading_the_product_of_the_iteration_before_is_not_split() -> None:
    """The vector work reads the product the loop carries in from the iteration before (a
    slot per iteration holds this iteration's)."""
    source = orchestration("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.matmul(pl.slice(a, [64, 64], [0, 0]), pl.slice(b, [64, 64], [0, 0]))
            for k in pl.range(1, 2):
                out = pl.assemble(out, pl.add(acc, bias), [0, 0])
                a_k = pl.slice(a, [64, 64], [0, k * 64])
                acc = pl.matmul_acc(acc, a_k, pl.slice(b, [64, 64], [k * 64, 0]))
        return out
    """)
    _, diagnostics = lowered(source, UP_TO_CONVERT)
    assert diagnostics == [f"k.py:17:40: error[E400]: 'tensor.add' {PRODUCT_READ}"]


def test_a_loop_of_no_static_trip_count_is_not_split() -> None:
    """The intermediate holds one product per iteration: its rows need the trip count."""
    source = orchestration("""\
        for j in pl.range(2):
            with pl.at(level=pl.Level.CORE_GROUP):
                for k in pl.range(j, 2):
                    acc = pl.matmul(pl.slice(a, [32, 128], [k * 32, 0]), b, out_dtype=pl.FP32)
                    s = pl.add(acc, pl.slice(bias, [32, 64], [k * 32, 0]))
                    out = pl.assemble(out, s, [k * 32, 0])
        return out
    """)
    _, diagnostics = lowered(source, UP_TO_CONVERT)
    assert diagnostics == [f"k.py:18:21: error[E400]: 'tensor.add' {PRODUCT_READ}"]


def test_cube_work_reading_a_vector_result_is_not_split() -> None:
    source = orchestration("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            e = pl.exp(a)
            acc = pl.matmul(e, b, out_dtype=pl.FP32)
            out = pl.assemble(out, pl.add(acc, bias), [0, 0])
        return out
    """)
    _, diagnostics = lowered(source, UP_TO_CONVERT)
    assert [d.split(": ", 1)[0] for d in diagnostics] == ["k.py:16:13"]
    assert "error[E400]: tensor.matmul in a kernel: operand 'e' is computed" in diagnostics[0]


def test_a_hand_written_incore_function_is_not_split() -> None:
    """The split is of a scope (the orchestration gets the intermediate tensor); an InCore
    function written by hand, 2026-08 spelling, that no orchestration calls (to inline it as
    a scope) keeps the E400 at the op."""
    source = HEADER + textwrap.dedent("""\
        class K:
            @pl.function(type=pl.FunctionType.InCore)
            def k(
                self,
                a: pl.Tensor[[16, 32], pl.FP16],
                b: pl.Tensor[[32, 16], pl.FP16],
                bias: pl.Tensor[[16, 16], pl.FP32],
            ) -> pl.Tensor[[16, 16], pl.FP32]:
                c = pl.matmul(a, b, out_dtype=pl.FP32)
                d = pl.add(c, bias)
                return d
        """)
    _, diagnostics = lowered(source, UP_TO_CONVERT)
    assert diagnostics == [f"k.py:14:9: error[E400]: 'tensor.add' {PRODUCT_READ}"]


KERNEL = """\
    @pl.function(type=pl.FunctionType.InCore)
    def k(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        c = pl.matmul(a, b, out_dtype=pl.FP32)
        out = pl.assemble(out, pl.add(c, bias), [0, 0])
        return out

"""


def calling(body: str) -> str:
    """A program of the mixed InCore function ``k`` and an orchestration ``main`` (body)."""
    return orchestration(body).replace(
        "class Mixed:\n    @pl.function\n",
        "class Mixed:\n" + KERNEL + "    @pl.function(type=pl.FunctionType.Orchestration)\n",
    )


CALLED_OUTLINED = """\
class Mixed:
    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_0(
        self, a: pl.Tensor[[64, 128], pl.FP16], b: pl.Tensor[[128, 64], pl.FP16]
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        c: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.matmul(a, b, out_dtype=pl.FP32)
        return c

    @pl.function(type=pl.FunctionType.InCore)
    def main_incore_1(
        self,
        c: pl.Tensor[[64, 64], pl.FP32],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        _t0: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.add(c, bias)
        out_1_1: pl.Tensor[[64, 64], pl.FP32] = pl.tensor.assemble(out, _t0, [0, 0])
        return out_1_1

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        c: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_0(a, b)
        out_1_1: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_1(c, bias, out)
        return out_1_1
"""

CALLED_NOTE = SPLIT_NOTE.replace("this kernel scope is", "the InCore function 'k' called here is")


def test_a_called_mixed_incore_function_is_inlined_as_a_scope_and_split() -> None:
    """Its call becomes its body in a scope, split as one written so; the function goes."""
    text, diagnostics = lowered(
        calling("out = self.k(a, b, bias, out)\nreturn out\n"), UP_TO_OUTLINE
    )
    assert text == CALLED_OUTLINED
    assert diagnostics == [f"k.py:26:9: {CALLED_NOTE}"]


def test_each_call_of_a_mixed_function_is_split_in_its_place() -> None:
    source = calling("""\
        for i in pl.range(2):
            out = self.k(a, b, bias, out)
        return out
    """)
    text, diagnostics = lowered(source, UP_TO_CONVERT)
    assert diagnostics == [f"k.py:27:13: {CALLED_NOTE}"]
    assert "def k(" not in text and "def main_incore_1(" in text
    cce, pto = both_targets(source)
    assert cce.count("TMATMUL(") == 1 and pto.count("pto.tadd") == 1


def test_a_2026_03_incore_function_is_inlined_and_split_too() -> None:
    source = calling("out = self.k(a, b, bias, out)\nreturn out\n").replace(
        "pl.matmul(",
        "pl.op.matmul(",  # (a 2026-03 spelling: the file is 2026-03)
    )
    assert analyze_source(source, "k.py").edition.edition.value == "2026-03"
    text, diagnostics = lowered(source, UP_TO_CONVERT)
    assert diagnostics == [f"k.py:26:9: {CALLED_NOTE}"]
    assert "def k(" not in text and "def main_incore_1(" in text


def test_a_mixed_function_also_submitted_keeps_its_e400() -> None:
    """A submit launches the function as one task: the function stays for it, its E400 with
    it (the plain call beside it is split)."""
    source = calling("""\
        out = self.k(a, b, bias, out)
        out2, t = pl.submit(self.k, a, b, bias, out)
        return out2
    """)
    text, diagnostics = lowered(source, UP_TO_CONVERT)
    assert diagnostics == [
        f"k.py:15:32: error[E400]: 'tensor.add' {PRODUCT_READ}",
        f"k.py:26:9: {CALLED_NOTE}",
    ]
    assert "def k(" in text and "self.k, " in text


def test_a_scope_that_only_stores_its_product_is_one_kernel() -> None:
    source = orchestration("""\
        with pl.at(level=pl.Level.CORE_GROUP):
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            out = pl.assemble(out, acc, [0, 0])
        return out
    """)
    text, diagnostics = lowered(source, UP_TO_OUTLINE)
    assert diagnostics == []
    assert "main_incore_0" in text and "main_incore_1" not in text


def test_a_2026_03_incore_scope_is_split_too() -> None:
    source = orchestration("""\
        with pl.incore():
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            out = pl.assemble(out, pl.add(acc, bias), [0, 0])
        return out
    """)
    text, diagnostics = lowered(source, UP_TO_OUTLINE)
    assert diagnostics == [f"k.py:14:9: {SPLIT_NOTE}"]
    assert "acc: pl.Tensor[[64, 64], pl.FP32] = self.main_incore_0(a, b)" in text
