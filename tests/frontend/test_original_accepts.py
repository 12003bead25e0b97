"""Programs the original compiler accepts get no error (issue 13): annotations it ignores are
warnings with the deduced type, shapes that cannot be proven different are accepted, and the
module constants it evaluates are understood. Each test is a program in the pattern of real
kernels, with the exact codes and ranges it must get."""

from __future__ import annotations

import textwrap

import pytest
from frontend_helpers import where

from ptoc.diagnostics import Diagnostic, Severity
from ptoc.frontend import ModuleAnalysis, analyze_source
from ptoc.ir.stmt import AssignStmt, SeqStmts
from ptoc.ir.types import ScalarType, TensorType, TileType

HEADER = "import pypto.language as pl\n\n"


def run(body: str) -> tuple[str, ModuleAnalysis]:
    text = HEADER + textwrap.dedent(body)
    return text, analyze_source(text, "k.py")


def found(analysis: ModuleAnalysis) -> list[tuple[str, tuple[int, int, int, int]]]:
    return [
        (d.code, (d.span.line, d.span.column, d.span.end_line, d.span.end_column))
        for d in analysis.diagnostics
    ]


def only(analysis: ModuleAnalysis, code: str) -> Diagnostic:
    (diagnostic,) = [d for d in analysis.diagnostics if d.code == code]
    return diagnostic


def local_type(analysis: ModuleAnalysis, function: str, name: str):  # noqa: ANN201
    """The type the IR gives the local ``name`` of ``function``."""
    for program in analysis.all_programs():
        fn = program.function(function)
        if fn is None:
            continue
        stack = [fn.body]
        while stack:
            stmt = stack.pop()
            if isinstance(stmt, AssignStmt) and stmt.var.name == name:
                return stmt.var.type
            if isinstance(stmt, SeqStmts):
                stack.extend(stmt.stmts)
            for attr in ("body", "then_body", "else_body"):
                child = getattr(stmt, attr, None)
                if child is not None:
                    stack.append(child)
    raise AssertionError(f"no local {name} in {function}")


# --- 1. local annotations that disagree with the deduced type: W006 -----------------------------


def test_w006_loop_index_promotes_the_annotated_int32() -> None:
    text, a = run("""
        @pl.function
        def count(val: pl.Tensor[[1], pl.INT32], out: pl.Tensor[[4], pl.INT64]):
            for i in pl.range(4):
                new: pl.Tensor[[1], pl.INT32] = pl.add(val, i)
                out = pl.tensor.assemble(out, new, [i])
    """)
    assert found(a) == [("W006", where(text, "pl.Tensor[[1], pl.INT32]", 2))]  # not the parameter
    d = only(a, "W006")
    assert d.severity is Severity.WARNING
    assert d.message == (
        "annotation says Tensor[[1], INT32] but the value is Tensor[[1], INT64]; the deduced type "
        "is used"
    )
    assert [(f.title, f.edits[0].new_text, f.preferred) for f in d.fixes] == [
        ("Change the annotation to `pl.Tensor[[1], pl.INT64]`", "pl.Tensor[[1], pl.INT64]", True)
    ]
    new_type = local_type(a, "count", "new")
    assert isinstance(new_type, TensorType) and new_type.short() == "Tensor[[1], INT64]"


def test_w006_scalar_read_annotated_with_another_dtype() -> None:
    text, a = run("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(cfg: pl.Tensor[[4], pl.INT64]):
            n: pl.Scalar[pl.UINT64] = pl.tensor.read(cfg, [0])
            m = n + 1
    """)
    assert found(a) == [("W006", where(text, "pl.Scalar[pl.UINT64]"))]
    assert only(a, "W006").fixes[0].edits[0].new_text == "pl.Scalar[pl.INT64]"
    assert local_type(a, "main", "m") == ScalarType(local_type(a, "main", "n").dtype)
    assert local_type(a, "main", "n").short() == "Scalar[INT64]"


def test_w006_reduction_annotated_with_a_kept_dimension() -> None:
    text, a = run("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Tensor[[16, 32], pl.FP32]):
            t = pl.load(x, [0, 0], [16, 32])
            s: pl.Tile[[1, 32], pl.FP32] = pl.min(t, axis=0)
    """)
    assert found(a) == [("W006", where(text, "pl.Tile[[1, 32], pl.FP32]"))]
    assert only(a, "W006").message.startswith(
        "annotation says Tile[[1, 32], FP32] but the value is Tile[[32], FP32]"
    )
    assert isinstance(local_type(a, "k", "s"), TileType)
    assert local_type(a, "k", "s").short() == "Tile[[32], FP32]"


def test_w006_matmul_annotated_with_the_untransposed_shape() -> None:
    text, a = run("""
        @pl.function(type=pl.FunctionType.Orchestration)
        def attn(q: pl.Tensor[[16, 64], pl.FP16], k: pl.Tensor[[128, 64], pl.FP16]):
            s: pl.Tensor[[16, 64], pl.FP16] = pl.matmul(q, k, b_trans=True)
            p = pl.exp(s)
    """)
    assert found(a) == [("W006", where(text, "pl.Tensor[[16, 64], pl.FP16]", 2))]
    assert local_type(a, "attn", "p").short() == "Tensor[[16, 128], FP16]"


def test_w006_annotated_if_result_uses_the_deduced_type() -> None:
    text, a = run("""
        @pl.function
        def pick(n: pl.Scalar[pl.INT32], m: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
            if n > m:
                r: pl.Scalar[pl.INT64] = pl.yield_(n)
            else:
                r: pl.Scalar[pl.INT64] = pl.yield_(m)
            return r
    """)
    assert found(a) == [
        ("W006", where(text, "pl.Scalar[pl.INT64]", 1)),
        ("W006", where(text, "pl.Scalar[pl.INT64]", 2)),
    ]


def test_matching_annotations_give_nothing() -> None:
    _, a = run("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Tensor[[16, 32], pl.FP32], out: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP32]:
            t: pl.Tile[[16, 32], pl.FP32] = pl.load(x, [0, 0], [16, 32])
            r: pl.Tensor[[16, 32], pl.FP32] = pl.store(t, [0, 0], [16, 32], out)
            return r
    """)
    assert a.diagnostics == []


# --- return annotations: W007, and the IR returns what is returned -------------------------------


def test_w007_return_annotation_differs_and_compiles() -> None:
    text, a = run("""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[16, 32], pl.FP32], out: pl.Tensor[[16, 32], pl.FP32]) -> pl.Tensor[[16, 32], pl.FP16]:
                t = pl.load(x, [0, 0], [16, 32])
                r = pl.store(t, [0, 0], [16, 32], out)
                return r
    """)
    assert found(a) == [("W007", where(text, "r\n")[:3] + (where(text, "r\n")[1] + 1,))]
    d = only(a, "W007")
    assert d.message == (
        "returns Tensor[[16, 32], FP32] but 'k' is annotated to return Tensor[[16, 32], FP16]; "
        "the deduced type is used"
    )
    assert d.fixes[0].edits[0].new_text == "pl.Tensor[[16, 32], pl.FP32]"
    assert d.fixes[0].edits[0].span.line == where(text, "pl.FP16]:")[0]
    (program,) = a.programs
    fn = program.function("k")
    assert fn is not None and [t.short() for t in fn.return_types] == ["Tensor[[16, 32], FP32]"]

    from ptoc.driver import run_pipeline

    result = run_pipeline(program, pipeline="default")
    assert [d.code for d in result.diagnostics if d.severity is Severity.ERROR] == []


def test_w007_return_count_differs() -> None:
    text, a = run("""
        @pl.function
        def f(a: pl.Scalar[pl.INT64]) -> tuple[pl.Scalar[pl.INT64], pl.Scalar[pl.INT64]]:
            return a
    """)
    assert found(a) == [("W007", where(text, "return a"))]
    assert only(a, "W007").message == "'f' is annotated to return 2 value(s) but this returns 1"


# --- strict-annotations --------------------------------------------------------------------------


def test_strict_annotations_makes_the_annotation_warnings_errors() -> None:
    from ptoc.diagnostics import strict_annotations

    _, a = run("""
        @pl.function
        def f(a: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT64]:
            b: pl.Scalar[pl.INT16] = a + 1
            c: pl.Scalar[64] = a
            for i in pl.range(4, 1, 2, 3):
                d = i
            return a
    """)
    assert [(d.code, d.severity) for d in a.diagnostics] == [
        ("W006", Severity.WARNING),
        ("W008", Severity.WARNING),
        ("W004", Severity.WARNING),
        ("W007", Severity.WARNING),
    ]
    assert [(d.code, d.severity) for d in strict_annotations(a.diagnostics)] == [
        ("W006", Severity.ERROR),
        ("W008", Severity.ERROR),
        ("W004", Severity.WARNING),
        ("W007", Severity.ERROR),
    ]


# --- 2. call arguments ---------------------------------------------------------------------------

KERNEL_16x128 = """
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, q: pl.Tensor[[16, 128], pl.FP32], out: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
        return out
"""


def program(*bodies: str) -> str:
    """A program class whose methods are ``bodies`` (each written at method indentation)."""
    methods = "".join(textwrap.indent(textwrap.dedent(b), "    ") for b in bodies)
    return "@pl.program\nclass Attn:\n" + methods


def test_shape_read_at_run_time_is_not_an_error() -> None:
    text, a = run(
        program(
            KERNEL_16x128,
            """
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, cfg: pl.Tensor[[4], pl.INT64], out: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
            head_dim = pl.tensor.read(cfg, [0])
            q = pl.create_tensor([16, head_dim], dtype=pl.FP32)
            r = self.kernel(q, out)
            return r
    """,
        )
    )
    # no error; q is read before anything writes it (the task-graph warning W041, #28)
    assert [d.code for d in a.diagnostics] == ["W041"]


def test_dynamic_parameter_accepts_a_static_shape() -> None:
    text, a = run(
        'N = pl.dynamic("N")\n\n'
        + program(
            """
        @pl.function(type=pl.FunctionType.InCore)
        def kernel(self, x: pl.Tensor[[N, 128], pl.FP32]) -> pl.Tensor[[N, 128], pl.FP32]:
            return x
    """,
            """
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64, 128], pl.FP32]):
            r = self.kernel(x)
    """,
        )
    )
    assert a.diagnostics == []


def test_w009_static_shape_difference_from_orchestration_to_incore() -> None:
    text, a = run(
        program(
            KERNEL_16x128,
            """
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, big: pl.Tensor[[64, 128], pl.FP32], out: pl.Tensor[[16, 16], pl.FP32]) -> pl.Tensor[[16, 16], pl.FP32]:
            r = self.kernel(big, out)
            return r
    """,
        )
    )
    assert found(a) == [("W009", where(text, "big, out")[:3] + (where(text, "big, out")[1] + 3,))]
    d = only(a, "W009")
    assert d.severity is Severity.WARNING
    assert d.message == (
        "argument 'q' of 'kernel' must be Tensor[[16, 128], FP32], got Tensor[[64, 128], FP32]; "
        "the kernel sees the declared shape"
    )
    assert d.related[0].span.line == where(text, "q: pl.Tensor")[0]


@pytest.mark.parametrize(
    ("caller_type", "argument", "code"),
    [
        (
            "Opaque",
            "pl.Tensor[[64, 128], pl.FP32]",
            "E111",
        ),  # a static difference, not orchestration
        ("Orchestration", "pl.Tensor[[16, 128], pl.FP16]", "E111"),  # another dtype
        ("Orchestration", "pl.Tensor[[16, 128, 1], pl.FP32]", "W009"),  # another rank
        ("Orchestration", "pl.Scalar[pl.FP32]", "E111"),  # another kind
    ],
)
def test_other_argument_differences(caller_type: str, argument: str, code: str) -> None:
    text, a = run(
        program(
            KERNEL_16x128,
            f"""
        @pl.function(type=pl.FunctionType.{caller_type})
        def main(self, arg: {argument}, out: pl.Tensor[[16, 16], pl.FP32]):
            r = self.kernel(arg, out)
    """,
        )
    )
    assert found(a) == [(code, where(text, "arg, out")[:3] + (where(text, "arg, out")[1] + 3,))]


# --- 3. module constants -------------------------------------------------------------------------


def test_tuple_unpacked_dict_and_list_constants_in_shapes_and_bodies() -> None:
    text, a = run("""
        rows, cols = 128, 64
        SHAPE = (32, 16)
        h, w = SHAPE
        CFG = {"rows": 128, "tile": [16, 16], "dtype": pl.FP16}


        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Tensor[[CFG["rows"], cols], pl.FP32], y: pl.Tensor[CFG["tile"], pl.FP32]) -> pl.Tensor[[rows, 64], pl.FP32]:
            t = pl.load(x, [0, 0], [h, SHAPE[1]])
            u = pl.cast(t, CFG["dtype"])
            n = CFG["rows"] * w
            return x
    """)
    assert a.diagnostics == []
    assert local_type(a, "k", "t").short() == "Tile[[32, 16], FP32]"
    assert local_type(a, "k", "u").short() == "Tile[[32, 16], FP16]"
    assert local_type(a, "k", "n").short() == "Scalar[INT64]"
    (fn,) = a.functions
    assert [p.type.short() for p in fn.params] == [
        "Tensor[[128, 64], FP32]",
        "Tensor[[16, 16], FP32]",
    ]


def test_missing_dict_key_is_e205_on_the_subscript() -> None:
    text, a = run("""
        CFG = {"rows": 128}


        @pl.function
        def k(n: pl.Scalar[pl.INT64]):
            m = CFG["cols"] + n
    """)
    assert found(a) == [("E205", where(text, 'CFG["cols"]'))]
    assert (
        only(a, "E205").message
        == "`CFG[\"cols\"]` cannot be evaluated statically: no key 'cols' in the dict"
    )


def test_unpacking_a_count_mismatch_leaves_the_names_undefined() -> None:
    text, a = run("""
        rows, cols = 128, 64, 32


        @pl.function
        def k(x: pl.Tensor[[rows, 64], pl.FP32]):
            y = x
    """)
    assert found(a) == [("E205", where(text, "rows, 64]")[:3] + (where(text, "rows, 64]")[1] + 4,))]


def test_function_aliases_call_the_function_they_name() -> None:
    text, a = run("""
        @pl.function(type=pl.FunctionType.InCore)
        def original_fn(x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
            return x


        @pl.inline
        def double(t):
            return pl.add(t, t)


        aliased = original_fn
        twice = double
        again = aliased


        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
                y = aliased(x)
                z = twice(y)
                w = again(z)
                return w
    """)
    assert a.diagnostics == []
    (prog,) = a.programs
    assert [f.name for f in prog.functions] == ["main", "original_fn"]
    assert local_type(a, "main", "w").short() == "Tensor[[64, 64], FP32]"
    alias_use = a.index.at(where(text, "aliased(x)")[0], where(text, "aliased(x)")[1])
    assert alias_use is not None and alias_use.definition == where_span(text, "original_fn")


def where_span(text: str, needle: str):  # noqa: ANN201
    from ptoc.ir.span import Span

    line, column, end_line, end_column = where(text, needle)
    return Span("k.py", line, column, end_line, end_column)


# --- 4. malformed local annotations: W008 --------------------------------------------------------


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (
            "pl.Tensor[pl.FP32, 64, 1]",
            "malformed annotation: Shape must be a list or tuple, e.g. [64, 128]; "
            "the form is `pl.Tensor[[64, 1], pl.FP32]`; the deduced type Tensor[[64, 1], FP32] is "
            "used",
        ),
        (
            "pl.Tensor[64, 1, pl.FP32]",
            "malformed annotation: Shape must be a list or tuple, e.g. [64, 128]; "
            "the form is `pl.Tensor[[64, 1], pl.FP32]`; the deduced type Tensor[[64, 1], FP32] is "
            "used",
        ),
        (
            "pl.Tensor[[64, 1]]",
            "malformed annotation: Tensor requires [shape, dtype], e.g. Tensor[[64, 128], "
            "pl.FP32]; "
            "the deduced type Tensor[[64, 1], FP32] is used",
        ),
        (
            "pl.Tensor[[64, M], pl.FP32]",
            "malformed annotation: Unknown shape variable 'M'; the deduced type Tensor[[64, 1], "
            "FP32] is used",
        ),
        (
            "int",
            "malformed annotation: `int` is not a PyPTO type; the deduced type Tensor[[64, 1], "
            "FP32] is used",
        ),
    ],
)
def test_w008_malformed_local_annotation(annotation: str, message: str) -> None:
    text, a = run(f"""
        @pl.function
        def f(a: pl.Tensor[[64, 1], pl.FP32]):
            y: {annotation} = pl.add(a, a)
            z = pl.add(y, a)
    """)
    assert found(a) == [
        ("W008", where(text, annotation + " ")[:3] + (where(text, annotation + " ")[3] - 1,))
    ]
    d = only(a, "W008")
    assert d.message == message
    assert d.fixes[0].edits[0].new_text == "pl.Tensor[[64, 1], pl.FP32]"
    assert local_type(a, "f", "z").short() == "Tensor[[64, 1], FP32]"


def test_w008_layout_on_a_local_tile_names_the_tile_form() -> None:
    text, a = run("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Tensor[[16, 16], pl.FP32]):
            t: pl.Tile[[16, 16], pl.FP32, pl.NZ] = pl.load(x, [0, 0], [16, 16])
    """)
    assert found(a) == [("W008", where(text, "pl.Tile[[16, 16], pl.FP32, pl.NZ]"))]
    assert only(a, "W008").message == (
        "malformed annotation: Layout is only supported for Tensor; the form is "
        "`pl.Tile[[16, 16], pl.FP32]`; the deduced type Tile[[16, 16], FP32] is used"
    )


def test_malformed_parameter_annotation_is_still_an_error() -> None:
    text, a = run("""
        @pl.function
        def f(a: pl.Tensor[pl.FP32, 64, 1]):
            y = a
    """)
    assert found(a) == [("E104", where(text, "pl.FP32")), ("E105", where(text, "64"))]


# --- what the original rejects: E207 -------------------------------------------------------------

CONFLICT = """
    @pl.function(type=pl.FunctionType.InCore)
    def helper(x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
        return x


    @pl.program
    class P:
        @pl.function(type=pl.FunctionType.InCore)
        def helper(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            return x

        @pl.function(type=pl.FunctionType.Orchestration)
        def main(self, x: pl.Tensor[[64], pl.FP32]) -> pl.Tensor[[64], pl.FP32]:
            y = CALL(x)
            return y
"""


def test_e207_standalone_function_named_like_a_program_function() -> None:
    text, a = run(CONFLICT.replace("CALL", "helper"))
    assert found(a) == [("E207", where(text, "helper(x)")[:3] + (where(text, "helper(x)")[1] + 6,))]
    d = only(a, "E207")
    assert d.message == (
        "the standalone function 'helper' conflicts with program function 'helper' of 'P'; "
        "call the method as self.helper(...) or rename one of them"
    )
    assert [r.span.line for r in d.related] == [
        where(text, "def helper(x")[0],
        where(text, "def helper(self")[0],
    ]


def test_e207_through_an_alias_and_no_conflict_for_self_calls() -> None:
    aliased = CONFLICT.replace(
        "    @pl.program", "    other = helper\n\n\n    @pl.program"
    ).replace("CALL", "other")
    text, a = run(aliased)
    assert found(a) == [("E207", where(text, "other(x)")[:3] + (where(text, "other(x)")[1] + 5,))]
    _, ok = run(CONFLICT.replace("CALL", "self.helper"))
    assert ok.diagnostics == []


# --- printed IR in the seed 003 form: bare op names ----------------------------------------------

SEED_003 = """# pypto.program: seed
import pypto.language as pl


def compute(a: pl.Tensor[[4, 8], pl.FP32], b: pl.Tensor[[4, 8], pl.FP32]) -> pl.Tensor[[4, 8], pl.FP32]:
    c: pl.Tensor[[4, 8], pl.FP32] = CALL_ADD(a, b)
    d: pl.Tensor[[4, 8], pl.FP32] = CALL_MUL(c, 2.0)
    return d
"""


def test_bare_category_op_names_are_the_ops_with_a_w003_note() -> None:
    from ptoc.ir import structural_equal

    text = SEED_003.replace("CALL_ADD", "tensor_add").replace("CALL_MUL", "tensor_mul")
    a = analyze_source(text, "seed.py")
    assert found(a) == [("W003", where(text, "tensor_add")), ("W003", where(text, "tensor_mul"))]
    first = a.diagnostics[0]
    assert first.severity is Severity.INFO
    assert (
        first.message
        == "seed 003 bare op name `tensor_add`; the current spelling is `pl.tensor.add`"
    )
    assert first.fixes[0].edits[0].new_text == "pl.tensor.add"
    modern = analyze_source(
        SEED_003.replace("CALL_ADD", "pl.tensor.add").replace("CALL_MUL", "pl.tensor.mul"),
        "seed.py",
    )
    assert modern.diagnostics == []
    assert structural_equal(a.programs[0], modern.programs[0])


def test_unknown_bare_op_names_stay_unsupported_calls() -> None:
    text = SEED_003.replace("CALL_ADD", "tensor_frob").replace("CALL_MUL", "pl.tensor.mul")
    a = analyze_source(text, "seed.py")
    assert found(a) == [("E301", where(text, "tensor_frob"))]


def test_bare_op_names_are_only_read_in_printed_module_form() -> None:
    text, a = run("""
        @pl.function
        def f(a: pl.Tensor[[4, 8], pl.FP32]):
            c = tensor_add(a, a)
    """)
    assert found(a) == [("E301", where(text, "tensor_add"))]
