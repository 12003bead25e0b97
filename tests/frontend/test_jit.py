"""``@pl.jit`` kernels (issue #27): found as the spec's §2 says, checked for every shape, and
specialised from the calls in their own file. Upstream's examples are read in place
(../shared/pypto-2026-08/examples), never copied."""

from __future__ import annotations

import ast
import textwrap
import time
from pathlib import Path

import pytest
from frontend_helpers import where

from ptoc import driver
from ptoc.diagnostics import Severity
from ptoc.editions import Edition, EditionSource
from ptoc.frontend import ModuleAnalysis, OccurrenceKind, analyze_source
from ptoc.ir.dsl_enums import Level
from ptoc.ir.function import FunctionType
from ptoc.printer import print_program

EXAMPLES = Path(__file__).resolve().parents[3] / "shared" / "pypto-2026-08" / "examples"
CHOSEN = (Edition.V2026_08, EditionSource.FLAG)
JIT_FILES = (
    sorted(p for p in EXAMPLES.rglob("*.py") if "@pl.jit" in p.read_text(encoding="utf-8"))
    if EXAMPLES.is_dir()
    else []
)


def name_of(path: Path) -> str:
    return path.relative_to(EXAMPLES).as_posix()


def analyse_example(path: Path) -> ModuleAnalysis:
    return analyze_source(path.read_text(encoding="utf-8"), str(path), edition=CHOSEN)


def jit_defs(path: Path) -> list[str]:
    found = []
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.FunctionDef) and any(
            "jit" in ast.unparse(d) for d in node.decorator_list
        ):
            found.append(node.name)
    return found


def test_the_examples_hold_37_jit_files() -> None:
    if not EXAMPLES.is_dir():
        pytest.skip("the upstream examples are not beside the repo")
    assert len(JIT_FILES) == 37


@pytest.mark.parametrize("path", JIT_FILES, ids=name_of)
def test_every_jit_kernel_has_a_symbol_a_signature_and_no_false_error(path: Path) -> None:
    analysis = analyse_example(path)
    names = jit_defs(path)  # (a package's __init__ only mentions @pl.jit in its docstring)
    assert set(names) <= set(analysis.jit_functions)
    for name in names:
        definitions = [
            o
            for o in analysis.index.occurrences
            if o.kind is OccurrenceKind.FUNCTION and o.is_definition and o.name == name
        ]
        assert len(definitions) == 1, name
        assert definitions[0].detail.startswith(f"def {name}(")
    errors = {
        f"{d.code}:{d.span.line}" for d in analysis.diagnostics if d.severity is Severity.ERROR
    }
    assert errors == set()


SPECIALISED = [
    "beginner/01_hello_world.py",
    "beginner/02_elementwise.py",
    "beginner/03_scalar_ops.py",
    "beginner/04_activation.py",
    "beginner/05_matmul.py",
    "intermediate/01_fused_linear.py",
    "intermediate/02_softmax.py",
    "intermediate/03_normalization.py",
    "intermediate/04_matmul_acc.py",
    "models/01_ffn.py",
    "models/02_vector_dag.py",
    "utils/error_handling.py",
    # read since kernel.lower / kernel.compile are calls of the kernel
    "utils/cross_function_calls.py",
    "intermediate/06_dyn_valid_shape.py",
    "runtime/explicit_dispatch.py",
]


@pytest.mark.parametrize("name", SPECIALISED)
@pytest.mark.parametrize("target", ["cce", "pto"])
def test_a_kernel_called_in_its_file_compiles_for_that_call(name: str, target: str) -> None:
    path = EXAMPLES / name
    if not path.is_file():
        pytest.skip("the upstream examples are not beside the repo")
    analysis = analyse_example(path)
    assert analysis.programs
    result = driver.compile_source(analysis, target, path=str(path))
    assert [d.format() for d in result.diagnostics if d.severity is Severity.ERROR] == []
    assert len(result.programs) == len(analysis.programs) and result.text.strip()


def analyse(body: str, path: str = "k.py") -> ModuleAnalysis:
    text = "import pypto.language as pl\nimport torch\n\n" + textwrap.dedent(body)
    return analyze_source(text, path, edition=CHOSEN)


def found(analysis: ModuleAnalysis) -> list[tuple[str, int, int, int, int]]:
    return [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in analysis.diagnostics
    ]


# The project's own JIT example (64 x 64 load windows), without its calls.
EXAMPLE = (Path(__file__).resolve().parents[2] / "examples" / "jit_tile_add.py").read_text(
    encoding="utf-8"
)
KERNEL = EXAMPLE[: EXAMPLE.index("if __name__")]


def called(*lines: str) -> tuple[str, ModuleAnalysis]:
    """The kernel with these lines in its file's ``__main__`` block."""
    text = KERNEL + 'if __name__ == "__main__":\n' + "".join(f"    {line}\n" for line in lines)
    return text, analyze_source(text, "k.py", edition=CHOSEN)


def test_the_call_gives_the_kernel_its_shapes_and_the_program_prints_them() -> None:
    _, analysis = called(
        "a = torch.zeros((128, 256), dtype=torch.float16)",
        "b = torch.randn(128, 256, dtype=torch.float16)",
        "c = torch.zeros_like(a)",
        "tile_add(a, b, c, config=None)",
    )
    assert found(analysis) == []
    (program,) = analysis.programs
    assert program.functions[0].func_type is FunctionType.Orchestration
    printed = print_program(program, edition=Edition.V2026_08)
    assert "a: pl.Tensor[[128, 256], pl.FP16]" in printed
    assert "c: pl.Out[pl.Tensor[[128, 256], pl.FP16]]" in printed


def test_bare_tensors_hover_as_unknown_tensors_before_a_call() -> None:
    analysis = analyze_source(KERNEL, "k.py", edition=CHOSEN)
    assert found(analysis) == []
    assert analysis.programs == []  # no shapes: nothing to generate code for
    (definition,) = [
        o
        for o in analysis.index.occurrences
        if o.is_definition and o.kind is OccurrenceKind.FUNCTION
    ]
    assert definition.detail.splitlines() == [
        "def tile_add(a: Tensor[?, ?], b: Tensor[?, ?], c: Tensor[?, ?]) -> Tensor[?, ?]",
        "# a needs rank 2, at least [64, 64]",
        "# b needs rank 2, at least [64, 64]",
        "# c needs rank 2",
    ]


def test_a_shape_clash_for_every_shape_is_reported_where_it_is() -> None:
    text = KERNEL.replace("pl.load(b, [0, 0], [64, 64])", "pl.load(b, [0, 0], [32, 32])")
    analysis = analyze_source(text, "k.py", edition=CHOSEN)
    assert found(analysis) == [("E307", *where(text, "tile_b", 2))]  # the add's rhs


def test_a_call_too_small_for_the_load_windows_is_an_error_at_the_call() -> None:
    text, analysis = called("a = torch.zeros((32, 32), dtype=torch.float32)", "tile_add(a, a, a)")
    assert found(analysis) == [("E209", *where(text, "tile_add(a, a, a)"))]
    (diagnostic,) = analysis.diagnostics
    assert "a: [32, 32] FP32" in diagnostic.message and "[E308]" in diagnostic.message
    assert diagnostic.related[0].span.line == where(text, "pl.load(a")[0]  # cannot fit


def test_a_warning_only_a_calls_shapes_make_is_reported_where_it_is_naming_the_call() -> None:
    """An assembly past the tensor (W034) is known only with the call's shapes: it is reported
    on the kernel's offset once, with the call's arguments; errors stay the call's (E209)."""
    text = (
        "import pypto.language as pl\nimport torch\n\n\n@pl.jit\n"
        "def acc(a: pl.Tensor, c: pl.Out[pl.Tensor]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        c = pl.assemble(c, a, [16, 0])\n"
        "    return c\n\n\n"
        'if __name__ == "__main__":\n'
        "    acc(torch.zeros(64, 64), torch.zeros(64, 64))\n"
        "    acc(torch.zeros(64, 64), torch.zeros(64, 64))\n"
    )
    analysis = analyze_source(text, "k.py", edition=CHOSEN)
    assert found(analysis) == [("W034", *where(text, "[16, 0]"))]
    (diagnostic,) = analysis.diagnostics
    assert diagnostic.message == (
        "tensor.assemble: the window on dimension 0 reaches 16..80, past the tensor's extent 64: "
        "the kernel reads or writes memory outside the tensor (with the arguments of the call at "
        "line 13: a: [64, 64] FP32, c: [64, 64] FP32)"
    )
    assert diagnostic.related[-1].span.line == 13


def test_a_failing_call_of_a_wide_kernel_names_its_first_arguments_only() -> None:
    """#33: a 2,000-parameter kernel's failing call made a 40 KB message listing them all."""
    params = ", ".join(f"p{i}: pl.Tensor" for i in range(20))
    text = (
        "import pypto.language as pl\nimport torch\n\n\n@pl.jit\n"
        f"def wide({params}, out: pl.Out[pl.Tensor]):\n"
        "    with pl.at(level=pl.Level.CORE_GROUP):\n"
        "        pl.store(pl.load(p0, [0, 0], [16, 16]), [0, 0], out)\n    return out\n\n\n"
        'if __name__ == "__main__":\n'
        f"    wide({', '.join(['torch.zeros(1, 16)'] * 20)}, torch.zeros(16, 16))\n"
    )
    (diagnostic,) = analyze_source(text, "k.py").diagnostics
    arguments = ", ".join(f"p{i}: [1, 16] FP32" for i in range(8))
    assert diagnostic.code == "E209"
    assert diagnostic.message.startswith(
        f"with this call's arguments ({arguments}, … (13 more)) 'wide' fails: block.load:"
    )


def test_a_call_with_the_wrong_number_of_arguments_is_an_error_at_the_call() -> None:
    text, analysis = called("a = torch.zeros((64, 64))", "tile_add(a, a, config=None)")
    assert found(analysis) == [("E210", *where(text, "tile_add(a, a, config=None)"))]
    assert "takes 3 argument(s) (a, b, c) but this call passes 2" in analysis.diagnostics[0].message


def test_an_out_never_written_is_a_warning_on_the_parameter() -> None:
    analysis = analyse(
        """
        @pl.jit
        def forgets(a: pl.Tensor, c: pl.Out[pl.Tensor]):
            with pl.at(level=pl.Level.CORE_GROUP):
                x = pl.load(a, [0, 0], [64, 64])
            return c
        """
    )
    assert found(analysis) == [("W033", 6, 26, 6, 27)]


def test_an_unreadable_call_argument_is_a_note_and_the_kernel_stays_checked() -> None:
    text, analysis = called("c = torch.zeros((64, 64))", "tile_add(load_input(), c, c)")
    assert found(analysis) == [("I002", *where(text, "load_input()"))]
    assert analysis.diagnostics[0].severity is Severity.INFO
    assert "argument 'a'" in analysis.diagnostics[0].message


def test_calls_in_a_loop_over_kernels_and_sizes_each_give_a_specialisation() -> None:
    _, analysis = called(
        "for fn, n in ((tile_add, 128), (tile_add, 256)):",
        "    a = torch.zeros((n, 64), dtype=torch.float32)",
        "    fn(a, a, a)",
    )
    assert found(analysis) == []
    programs = analysis.jit_specialisations["tile_add"]
    assert [p.functions[0].params[0].type.short() for p in programs] == [
        "Tensor[[128, 64], FP32]",
        "Tensor[[256, 64], FP32]",
    ]


def test_sub_functions_take_the_kinds_and_the_types_their_calls_pass() -> None:
    analysis = analyse(
        """
        @pl.jit.incore
        def add_kernel(x: pl.Tensor, y: pl.Tensor, out: pl.Out[pl.Tensor]):
            t = pl.add(pl.load(x, [0, 0], [64, 64]), pl.load(y, [0, 0], [64, 64]))
            out = pl.store(t, [0, 0], out)
            return out

        @pl.jit
        def entry(a: pl.Tensor, b: pl.Tensor, c: pl.Out[pl.Tensor]):
            c = add_kernel(a, b, c)
            return c

        if __name__ == "__main__":
            a = torch.zeros((64, 64), dtype=torch.float32)
            entry(a, a, a)
        """
    )
    assert found(analysis) == []
    (program,) = analysis.programs
    kinds = {f.name: f.func_type for f in program.functions}
    assert kinds == {"entry": FunctionType.Orchestration, "add_kernel": FunctionType.InCore}
    kernel = next(f for f in program.functions if f.name == "add_kernel")
    assert kernel.params[0].type.short() == "Tensor[[64, 64], FP32]"


def test_an_extern_kernel_source_must_exist_next_to_the_file(tmp_path: Path) -> None:
    (tmp_path / "add.cpp").write_text("// kernel\n", encoding="utf-8")
    body = """
        @pl.jit.extern(source="add.cpp", core_type="aiv")
        def present(x: pl.Tensor, y: pl.Out[pl.Tensor]): ...

        @pl.jit.extern(source="missing.cpp", core_type="aiv")
        def absent(x: pl.Tensor, y: pl.Out[pl.Tensor]): ...
        """
    analysis = analyse(body, str(tmp_path / "k.py"))
    assert found(analysis) == [("E208", 8, 22, 8, 35)]


def test_a_bare_tensor_in_a_pl_function_is_still_an_error() -> None:
    analysis = analyse(
        """
        @pl.function
        def f(a: pl.Tensor) -> None:
            return
        """
    )
    assert [d.code for d in analysis.diagnostics] == ["E103"]


SUGAR = """
@pl.jit
def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    M, N = a.shape
    rows = a.shape[0]
    D = pl.dynamic("D")
    a.bind_dynamic(1, D)
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(a, [0, 0], [64, 64])
        u = pl.cast(t, a.dtype)
        pl.store(u, [0, 0], c)
    return c

"""


def test_the_specializers_body_sugar_is_accepted_before_any_call() -> None:
    assert found(analyse(SUGAR)) == []


def test_shape_and_dtype_read_the_calls_tensor() -> None:
    analysis = analyse(
        SUGAR
        + """
if __name__ == "__main__":
    a = torch.zeros((128, 256), dtype=torch.float16)
    k(a, a)
"""
    )
    assert found(analysis) == []
    printed = print_program(analysis.programs[0], edition=Edition.V2026_08)
    # (2026-08: a shape's dims queried as scalars are INDEX, spec §4)
    assert "M: pl.Scalar[pl.INDEX] = _tuple_tmp[0]" in printed
    # (and print bare, as 2026-08 prints every INDEX constant, spec §16)
    assert "_tuple_tmp: tuple[pl.Scalar[pl.INDEX], pl.Scalar[pl.INDEX]] = [128, 256]\n" in printed
    assert "pl.tile.cast(t, target_type=pl.FP16)" in printed
    assert "bind_dynamic" not in printed


def test_a_specialise_comment_above_the_kernel_is_a_call_from_elsewhere() -> None:
    comments = (
        "# ptoc: specialise a=[128, 128]:FP32 b=[128, 128]:FP32 c=[128, 128]:FP32\n"
        "# ptoc: specialise a=[32, 32]:FP16 b=[32, 32]:FP16 c=[32, 32]:FP16\n"
        "# ptoc: specialise a=[64, 64]:FP32\n"
    )
    text = KERNEL.replace("@pl.jit\n", comments + "@pl.jit\n")
    analysis = analyze_source(text, "k.py", edition=CHOSEN)
    small = where(text, "# ptoc: specialise a=[32, 32]:FP16 b=[32, 32]:FP16 c=[32, 32]:FP16")
    partial = where(text, "# ptoc: specialise a=[64, 64]:FP32")
    assert found(analysis) == [("E209", *small), ("I002", *partial)]
    assert "gives 'b', 'c' of 'tile_add' no shape" in analysis.diagnostics[1].message
    (program,) = analysis.jit_specialisations["tile_add"]  # the small one fails
    assert program.functions[0].params[0].type.short() == "Tensor[[128, 128], FP32]"


def test_an_incore_sub_function_keeps_its_level() -> None:
    analysis = analyse(
        """
        @pl.jit.incore(level=pl.Level.AIV)
        def kernel(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], out)
            return out

        @pl.jit
        def entry(a: pl.Tensor, c: pl.Out[pl.Tensor]):
            c = kernel(a, c)
            return c

        if __name__ == "__main__":
            a = torch.zeros((64, 64), dtype=torch.float32)
            entry(a, a)
        """
    )
    assert found(analysis) == []
    kernel = analysis.programs[0].function("kernel")
    assert kernel is not None and kernel.level is Level.AIV


def test_a_call_through_a_module_table_of_kernels_specialises_each() -> None:
    text = KERNEL + "MODES = {'add': tile_add}\n\n"
    text += 'if __name__ == "__main__":\n    a = torch.zeros((96, 64))\n'
    text += '    MODES["add"](a, a, a)\n'
    analysis = analyze_source(text, "k.py", edition=CHOSEN)
    assert found(analysis) == []
    (program,) = analysis.jit_specialisations["tile_add"]
    assert program.functions[0].params[0].type.short() == "Tensor[[96, 64], FP32]"


def shapes_of(analysis: ModuleAnalysis, kernel: str = "tile_add") -> list[str]:
    return [p.functions[0].params[0].type.short() for p in analysis.jit_specialisations[kernel]]


def test_a_stage_of_the_kernel_is_a_call_with_its_samples() -> None:
    """``kernel.lower(*samples)`` and ``kernel.compile(*samples, config=...)``: upstream's
    tests and examples give sample tensors so (utils/cross_function_calls.py)."""
    _, analysis = called(
        "a = torch.randn(96, 64, dtype=torch.float32)",
        "tile_add.lower(a, a, torch.zeros_like(a))",
        "b = torch.full((128, 64), 2.0).share_memory_()",
        "compiled = tile_add.compile(b, b, b.clone(), config=RunConfig())",
    )
    assert found(analysis) == []
    assert shapes_of(analysis) == ["Tensor[[96, 64], FP32]", "Tensor[[128, 64], FP32]"]


def test_a_table_of_cases_spread_into_the_call_gives_each_its_shapes() -> None:
    """upstream's intermediate/05_assemble.py: ``for name, fn, args in cases: fn.lower(*args)``."""
    _, analysis = called(
        "cases = [",
        '    ("small", tile_add, (torch.randn(64, 64), torch.randn(64, 64), torch.ones(64, 64))),',
        '    ("tall", tile_add, (torch.randn(192, 64), torch.rand(192, 64), torch.ones(192, 64))),',
        "]",
        "for name, fn, args in cases:",
        "    prog = fn.lower(*args)",
    )
    assert found(analysis) == []
    assert shapes_of(analysis) == ["Tensor[[64, 64], FP32]", "Tensor[[192, 64], FP32]"]


def test_a_kernel_chosen_by_a_condition_is_called_with_the_arguments_it_fits() -> None:
    """upstream's distributed/04_barrier.py: ``program = a if builtin else b``, each call guarded
    by the same condition; only a call that fits neither kernel is E210."""
    text = KERNEL + textwrap.dedent(
        """\
        @pl.jit
        def one_arg(a: pl.Tensor):
            return a


        if __name__ == "__main__":
            a = torch.zeros((64, 64))
            program = tile_add if FLAG else one_arg
            if FLAG:
                program.compile(a, a, a)
            else:
                program.compile(a)
            program(a, a)
        """
    )
    analysis = analyze_source(text, "k.py", edition=CHOSEN)
    assert found(analysis) == [("E210", *where(text, "program(a, a)"))]
    assert shapes_of(analysis) == ["Tensor[[64, 64], FP32]"]
    assert shapes_of(analysis, "one_arg") == ["Tensor[[64, 64], FP32]"]


def test_a_loop_over_a_tables_items_specialises_each_kernel() -> None:
    """upstream's intermediate/07_task_graph.py: ``for name, kernel in _MODES.items():``."""
    text = KERNEL + "MODES = {'add': tile_add}\n\n"
    text += 'if __name__ == "__main__":\n    x = torch.randn(ROWS, 64)\n'
    text += "    for name, kernel in MODES.items():\n        kernel(x, x, x)\n"
    analysis = analyze_source(text.replace("ROWS", "80"), "k.py", edition=CHOSEN)
    assert found(analysis) == []
    assert shapes_of(analysis) == ["Tensor[[80, 64], FP32]"]


@pytest.mark.parametrize(
    ("construction", "expected"),
    [
        ("torch.tensor([[1, 2], [3, 4]])", "Tensor[[2, 2], INT64]"),
        ("torch.tensor([1.0, 48, 64])", "Tensor[[3], FP32]"),
        ("torch.tensor([[1, 2], [3]])", None),  # ragged: torch refuses it
        ("torch.arange(2, 66, dtype=torch.float32).reshape(8, -1)", "Tensor[[8, 8], FP32]"),
        ("torch.full((64, 64), 3)", "Tensor[[64, 64], INT64]"),
        ("torch.randn(64, 64).to('cpu', torch.float16)", "Tensor[[64, 64], FP16]"),
        ("torch.randn(64, 64).view(32, 3)", None),  # 2,048 elements are not 96
    ],
)
def test_odd_torch_constructors_are_read_or_said_unreadable(
    construction: str, expected: str | None
) -> None:
    text = KERNEL + "@pl.jit\ndef passed_on(a: pl.Tensor):\n    return a\n\n\n"
    text += f'if __name__ == "__main__":\n    a = {construction}\n    passed_on(a)\n'
    analysis = analyze_source(text, "k.py", edition=CHOSEN)
    if expected is None:
        assert [d.code for d in analysis.diagnostics] == ["I002"]
        assert not analysis.jit_specialisations.get("passed_on")
    else:
        assert found(analysis) == []
        assert shapes_of(analysis, "passed_on") == [expected]


def test_the_program_lists_callees_before_the_entry_and_prints_back_clean() -> None:
    analysis = analyse(
        """
        @pl.jit.incore
        def leaf(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], out)
            return out

        @pl.jit.incore
        def middle(x: pl.Tensor, out: pl.Out[pl.Tensor]):
            out = pl.store(pl.load(x, [0, 0], [64, 64]), [0, 0], out)
            return out

        @pl.jit
        def entry(a: pl.Tensor, c: pl.Out[pl.Tensor]):
            c = middle(a, c)
            c = leaf(a, c)
            return c

        if __name__ == "__main__":
            a = torch.zeros((64, 64), dtype=torch.float32)
            entry(a, a)
        """
    )
    assert found(analysis) == []
    (program,) = analysis.programs
    assert [f.name for f in program.functions] == ["middle", "leaf", "entry"]
    printed = print_program(program, edition=Edition.V2026_08)
    again = analyze_source(printed, "printed.py", edition=CHOSEN)
    assert [d.format() for d in again.diagnostics] == []
    assert [f.name for f in again.programs[0].functions] == ["middle", "leaf", "entry"]


def test_a_2000_parameter_signature_is_analysed_in_linear_time() -> None:
    """Each parameter's rank and load windows came from a walk of the whole kernel per
    parameter: 38 s for 2,000 parameters (issue #33); one walk answers them all."""
    names = [f"p{i}" for i in range(2000)]
    params = ", ".join(f"{n}: pl.Tensor" for n in names)
    loads = "".join(f"        t{i} = pl.load(p{i}, [0, 0], [16, 16])\n" for i in range(0, 2000, 50))
    text = (
        "import pypto.language as pl\n\n\n"
        f"@pl.jit\ndef wide({params}, out: pl.Out[pl.Tensor]):\n"
        f"    with pl.at(level=pl.Level.CORE_GROUP):\n{loads}"
        "        pl.store(t0, [0, 0], out)\n    return out\n"
    )
    started = time.monotonic()
    analysis = analyze_source(text, "wide.py", edition=CHOSEN)
    took = time.monotonic() - started
    assert found(analysis) == []
    hover = next(o.detail for o in analysis.index.occurrences if o.name == "wide")
    assert "# p1950 needs rank 2, at least [16, 16]" in hover
    assert "# p1 needs" not in hover
    assert took < 3.0


SLICED = """
import pypto.language as pl
import torch


@pl.jit
def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    for ks in pl.parallel(0, 4):
        with pl.at(level=pl.Level.CORE_GROUP):
            k0 = ks * 32
            c = pl.assemble(c, pl.add(a[:, k0 : k0 + 32], 1.0), [0, k0])
    return c


if __name__ == "__main__":
    a = torch.zeros((16, 128), dtype=torch.float32)
    c = torch.zeros((16, 128), dtype=torch.float32)
    k(a, c)
"""


def test_a_slice_from_a_start_to_start_plus_a_constant_is_that_wide() -> None:
    """``a[:, k0 : k0 + 32]`` is 32 columns wherever ``k0`` is (split-K's slices): a window
    of constant shape, which a kernel can load."""
    analysis = analyze_source(SLICED, "k.py", edition=CHOSEN)
    assert found(analysis) == []
    printed = print_program(analysis.programs[0], edition=Edition.V2026_08)
    assert "pl.tensor.adds(pl.tensor.slice(a, [16, 32], [0, k0]), 1.0)" in printed
    for target in ("cce", "pto"):  # the window loads, the sum is stored at [0, k0]
        result = driver.compile_source(analysis, target, "k", path="k.py")
        assert [d.format() for d in result.diagnostics] == []


SLICED_BETWEEN = """
import pypto.language as pl
import torch


@pl.jit
def k(a: pl.Tensor, c: pl.Out[pl.Tensor]):
    for ks in pl.parallel(0, 2):
        with pl.at(level=pl.Level.CORE_GROUP):
            col = ks * 64
            hi = a[:, col + 32 : col + 64]
            head = a[:, ks * 64 : (ks + 1) * 64 - 32]
            c = pl.assemble(c, pl.add(hi, head), [0, col])
    return c


if __name__ == "__main__":
    a = torch.zeros((16, 128), dtype=torch.float32)
    c = torch.zeros((16, 128), dtype=torch.float32)
    k(a, c)
"""


def test_a_slice_between_two_offsets_of_one_start_is_their_difference_wide() -> None:
    """``a[:, col + 32 : col + 64]`` and ``a[:, i * 64 : (i + 1) * 64 - 32]`` are 32 columns
    wherever ``col`` and ``i`` are (qwen3_jit's RoPE halves and head slices): they add without
    a false shape clash, and the kernel loads both windows."""
    analysis = analyze_source(SLICED_BETWEEN, "k.py", edition=CHOSEN)
    assert found(analysis) == []
    printed = print_program(analysis.programs[0], edition=Edition.V2026_08)
    lines = [line.strip() for line in printed.splitlines()]
    assert "hi: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.slice(" in lines
    assert "a, [16, 32], [0, col + 32]" in lines
    assert "head: pl.Tensor[[16, 32], pl.FP32] = pl.tensor.slice(" in lines
    assert "a, [16, 32], [0, ks * 64]" in lines
    for target in ("cce", "pto"):
        result = driver.compile_source(analysis, target, "k", path="k.py")
        assert [d.format() for d in result.diagnostics] == []


@pytest.mark.parametrize("target", ["cce", "pto"])
def test_tile_assemble_lowers_vec_into_vec_and_says_why_not_acc_into_mat(target: str) -> None:
    """upstream's intermediate/05_assemble.py, specialised by its table of cases: five kernels
    assemble Vec tiles (TINSERT); the sixth an Acc tile into a Mat tile (TINSERT converts on
    the FIX pipe there), which has no lowering here."""
    path = EXAMPLES / "intermediate" / "05_assemble.py"
    if not path.is_file():
        pytest.skip("the upstream examples are not beside the repo")
    analysis = analyse_example(path)
    for name in analysis.jit_specialisations:
        result = driver.compile_source(analysis, target, name, path=str(path))
        errors = [d for d in result.diagnostics if d.severity is Severity.ERROR]
        if name != "tile_assemble_acc_mat":
            assert errors == [], name
            continue
        instruction = "TINSERT" if target == "cce" else "pto.tinsert"
        assert [(d.code, d.span.line, d.span.column, d.message) for d in errors] == [
            (
                "E400",
                80,
                17,  # 0-based (`ptoc` prints 80:18)
                f"block.assemble from Acc into Mat has no {target.upper()} lowering here "
                f"({instruction} of this op: Vec -> Vec)",
            )
        ]


def test_a_loop_over_a_huge_table_is_read_once_and_said_so() -> None:
    """Two nested loops over a module table of 3,000 numbers made 9,000,000 calls to read
    (each a program to check): the analysis never ended."""
    table = "TABLE = [" + ", ".join(map(str, range(3000))) + "]\n\n"
    text = (
        table
        + KERNEL
        + textwrap.dedent(
            """\
        if __name__ == "__main__":
            for i in TABLE:
                for j in TABLE:
                    a = torch.zeros((64, 64))
                    tile_add(a, a, a)
        """
        )
    )
    started = time.perf_counter()
    analysis = analyze_source(text, "k.py", edition=CHOSEN)
    assert time.perf_counter() - started < 5
    line = text.count("\n", 0, text.index("for i in TABLE")) + 1
    message = (
        "this loop would run its body 3,000 times: ptoc reads its calls once, with the loop's "
        "variables unknown (it follows at most 1,000 loop passes per file)"
    )
    assert [(d.code, d.span.line, d.span.column, d.message) for d in analysis.diagnostics] == [
        ("I002", line, 13, message),
        ("I002", line + 1, 17, message),
    ]
    assert shapes_of(analysis) == ["Tensor[[64, 64], FP32]"]


def test_calls_past_the_64th_of_a_kernel_give_no_specialisation_and_say_so() -> None:
    text, analysis = called(
        f"for n in ({', '.join(str(64 * (i + 1)) for i in range(70))}):",
        "    a = torch.zeros((n, 64))",
        "    tile_add(a, a, a)",
    )
    assert len(analysis.jit_specialisations["tile_add"]) == 64
    (note,) = analysis.diagnostics
    assert (note.code, note.span.line) == (
        "I002",
        text.count("\n", 0, text.rindex("tile_add(a")) + 1,
    )
    assert note.message == (
        "'tile_add' has 64 calls before this one: this and later calls give no specialisation "
        "(each is a program ptoc checks)"
    )
