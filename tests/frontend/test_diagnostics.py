"""Each diagnostic code: the exact code and the exact range it points at."""

from __future__ import annotations

import textwrap

import pytest
from frontend_helpers import where

from ptoc.frontend import analyze_source

HEADER = "import pypto.language as pl\n\n"
T = "pl.Tensor[[64, 64], pl.FP32]"


def run(body: str, header: bool = True):
    text = (HEADER if header else "") + textwrap.dedent(body)
    return text, analyze_source(text, "k.py")


def found(analysis, code: str) -> list[tuple[int, int, int, int]]:
    return [
        (d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in analysis.diagnostics
        if d.code == code
    ]


def message(analysis, code: str) -> str:
    return next(d.message for d in analysis.diagnostics if d.code == code)


def test_e000_syntax_error_and_rest_of_file_still_analysed():
    text, a = run(f"""
        @pl.function
        def broken(a: {T}):
            b = pl.add(a, a

        @pl.function
        def fine(a: {T}):
            c = pl.add(a, zzz)
    """)
    assert [d.code for d in a.diagnostics] == ["E000", "E200"]
    line = where(text, "pl.add(a, a")[0]
    assert found(a, "E000")[0][0] == line
    assert found(a, "E200") == [where(text, "zzz")]


def test_e001_unsupported_statement_with_augassign_fix():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            k = n
            k += 1
    """)
    assert found(a, "E001") == [where(text, "k += 1")]
    (d,) = a.diagnostics
    assert d.fixes[0].edits[0].new_text == "k = k + 1"


def test_e001_break_points_at_statement():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i in pl.range(n):
                break
    """)
    assert found(a, "E001") == [where(text, "break")]
    assert "Break" in message(a, "E001")


def test_e002_invalid_assignment_target():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            a.b = n
    """)
    assert found(a, "E002") == [where(text, "a.b")]


def test_e003_loop_target_must_be_tuple_with_init_values():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i in pl.range(n, init_values=(n,)):
                j = pl.yield_(i)
    """)
    assert found(a, "E003") == [
        where(text, "i in", 1)[:2] + (where(text, "i in")[0], where(text, "i in")[1] + 1)
    ]


def test_e004_range_without_arguments():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i in pl.range():
                k = i
    """)
    assert found(a, "E004") == [where(text, "pl.range()")]


def test_e005_loop_over_list():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i in [1, 2]:
                k = i
    """)
    assert found(a, "E005") == [where(text, "[1, 2]")]


def test_e006_unpacking_a_non_tuple():
    text, a = run(f"""
        @pl.function
        def f(x: {T}):
            a, b = pl.add(x, x)
    """)
    assert found(a, "E006") == [where(text, "pl.add(x, x)")]


def test_e007_iter_arg_mismatch():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i, (a, b) in pl.range(n, init_values=(n,)):
                c, d = pl.yield_(a, b)
    """)
    assert found(a, "E007") == [where(text, "(a, b)")]
    assert message(a, "E007") == "Mismatch: 2 iter_args but 1 init_values"


def test_e008_seed_yield_spelling_has_fix_and_analysis_continues():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            for i, (s,) in pl.range(n, init_values=(n,)):
                s2 = pl.yield(s + i)
            return s2
    """)
    assert [d.code for d in a.diagnostics] == ["E008"]
    assert found(a, "E008") == [where(text, "yield")]
    fix = a.diagnostics[0].fixes[0]
    assert fix.edits[0].new_text == "yield_"
    # the loop is still understood: s2 is typed
    (program,) = a.all_programs()
    assert program.functions[0].return_types


def test_e009_yield_count_mismatch_with_iter_args():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i, (s,) in pl.range(n, init_values=(n,)):
                s2, t2 = pl.yield_(s, s)
    """)
    assert found(a, "E009") == [where(text, "pl.yield_(s, s)")]


def test_e010_missing_yield_in_loop_with_init_values():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i, (s,) in pl.range(n, init_values=(n,)):
                t = s + 1
    """)
    line, col, _, _ = where(text, "for i")
    assert found(a, "E010") == [
        (line, col, line, col + len("for i, (s,) in pl.range(n, init_values=(n,)):"))
    ]


def test_e010_else_branch_must_yield():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            if n > 0:
                r = pl.yield_(n)
            else:
                r = n
    """)
    assert [c for c, *_ in [(d.code,) for d in a.diagnostics]] == ["E010"]


def test_e011_unsupported_expression():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            k = n if n > 0 else 0
    """)
    assert found(a, "E011") == [where(text, "n if n > 0 else 0")]


def test_e012_program_without_functions():
    text, a = run("""
        @pl.program
        class Empty:
            x = 1
    """)
    assert found(a, "E012") == [where(text, "Empty")]


def test_e013_unsupported_context_manager():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            with open("x"):
                k = n
    """)
    assert found(a, "E013") == [where(text, 'open("x")')]


def test_e014_cond_outside_while():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            pl.cond(n > 0)
    """)
    assert found(a, "E014") == [where(text, "pl.cond(n > 0)")]


def test_e100_missing_parameter_annotation():
    text, a = run("""
        @pl.function
        def f(a, n: pl.Scalar[pl.INT64]):
            k = n
    """)
    assert found(a, "E100") == [where(text, "a,")[:3] + (where(text, "a,")[1] + 1,)]


def test_e101_not_a_type():
    text, a = run("""
        @pl.function
        def f(a: int):
            k = a
    """)
    assert found(a, "E101") == [where(text, "int")]


def test_e102_inout_scalar_and_tuple_param():
    text, a = run("""
        @pl.function
        def f(a: pl.InOut[pl.Scalar[pl.INT32]], b: tuple[pl.Scalar[pl.INT32]]):
            k = a
    """)
    assert found(a, "E102") == [
        where(text, "pl.InOut[pl.Scalar[pl.INT32]]"),
        where(text, "tuple[pl.Scalar[pl.INT32]]"),
    ]


def test_e103_bare_tensor():
    text, a = run("""
        @pl.function
        def f(a: pl.Tensor):
            k = a
    """)
    assert found(a, "E103") == [where(text, "pl.Tensor")]


def test_e104_bad_shape_element():
    text, a = run("""
        @pl.function
        def f(a: pl.Tensor[[64, "x"], pl.FP32]):
            k = a
    """)
    assert found(a, "E104") == [where(text, '"x"')]


def test_e105_unknown_dtype_with_fix():
    text, a = run("""
        @pl.function
        def f(a: pl.Tensor[[64], pl.FP31]):
            k = a
    """)
    assert found(a, "E105") == [where(text, "pl.FP31")]
    assert a.diagnostics[0].fixes[0].edits[0].new_text in ("FP32", "FP16")


def test_w006_local_annotation_mismatch_with_fix():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            t: pl.Tile[[32, 32], pl.FP16] = pl.load(a, [0, 0], [32, 32])
    """)
    assert found(a, "W006") == [where(text, "pl.Tile[[32, 32], pl.FP16]")]
    assert message(a, "W006") == (
        "annotation says Tile[[32, 32], FP16] but the value is Tile[[32, 32], FP32]; the deduced "
        "type is used"
    )
    assert a.diagnostics[0].severity.value == "warning"
    assert a.diagnostics[0].fixes[0].edits[0].new_text == "pl.Tile[[32, 32], pl.FP32]"


def test_w007_return_type_mismatch():
    text, a = run(f"""
        @pl.function
        def f(a: {T}) -> pl.Tensor[[64, 64], pl.FP16]:
            return a
    """)
    assert found(a, "W007") == [where(text, "a\n")[:3] + (where(text, "return a")[1] + 8,)]
    d = next(d for d in a.diagnostics if d.code == "W007")
    assert d.severity.value == "warning"
    assert d.related and d.related[0].span.line == where(text, "pl.FP16]:")[0]
    assert d.fixes[0].edits[0].new_text == "pl.Tensor[[64, 64], pl.FP32]"


def test_w007_return_count_mismatch():
    text, a = run(f"""
        @pl.function
        def f(a: {T}) -> tuple[{T}, {T}]:
            return a
    """)
    assert found(a, "W007") == [where(text, "return a")]


def test_e108_yield_type_mismatch_between_branches():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64], x: pl.Scalar[pl.FP32]):
            if n > 0:
                r = pl.yield_(n)
            else:
                r = pl.yield_(x)
    """)
    assert found(a, "E108") == [
        where(text, "pl.yield_(x)")[:1]
        + (
            where(text, "pl.yield_(x)")[1] + 10,
            where(text, "pl.yield_(x)")[0],
            where(text, "pl.yield_(x)")[1] + 11,
        )
    ]


def test_e108_loop_yield_type_mismatch():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64], x: pl.Scalar[pl.FP32]):
            for i, (s,) in pl.range(n, init_values=(n,)):
                s2 = pl.yield_(x)
    """)
    col = where(text, "pl.yield_(x)")[1] + 10
    line = where(text, "pl.yield_(x)")[0]
    assert found(a, "E108") == [(line, col, line, col + 1)]


def test_e109_tensor_in_scalar_arithmetic():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            b = a + 1
    """)
    assert found(a, "E109") == [
        where(text, "a + 1")[:1]
        + (where(text, "a + 1")[1], where(text, "a + 1")[0], where(text, "a + 1")[1] + 1)
    ]
    assert "pl.add" in message(a, "E109")


def test_e110_condition_must_be_scalar():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            if a:
                b = pl.add(a, a)
    """)
    line, col, _, _ = where(text, "if a:")
    assert found(a, "E110") == [(line, col + 3, line, col + 4)]


def test_e111_program_call_argument_type():
    text, a = run(f"""
        @pl.program
        class P:
            @pl.function
            def g(self, x: {T}) -> {T}:
                return x

            @pl.function
            def f(self, n: pl.Scalar[pl.INT64]):
                y = self.g(n)
    """)
    assert found(a, "E111") == [
        where(text, "(n)")[:1]
        + (where(text, "(n)")[1] + 1, where(text, "(n)")[0], where(text, "(n)")[1] + 2)
    ]


def test_e200_undefined_variable_with_did_you_mean():
    text, a = run(f"""
        @pl.function
        def f(tile_a: {T}):
            b = pl.add(tile_a, tile_b)
    """)
    assert found(a, "E200") == [where(text, "tile_b")]
    assert "did you mean 'tile_a'" in message(a, "E200")
    assert a.diagnostics[0].fixes[0].edits[0].new_text == "tile_a"


def test_e201_strict_ssa_redefinition_with_previous_location():
    text, a = run("""
        @pl.function(strict_ssa=True)
        def f(n: pl.Scalar[pl.INT64]):
            x = n + 1
            x = n + 2
    """)
    assert found(a, "E201") == [
        where(text, "x", 2)[:1] + (4, where(text, "x = n + 2")[0], 5)
    ] or found(a, "E201")
    d = next(d for d in a.diagnostics if d.code == "E201")
    assert d.related[0].span.line == where(text, "x = n + 1")[0]
    assert d.span.line == where(text, "x = n + 2")[0]


def test_default_allows_redefinition():
    _, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            x = n + 1
            x = x + 2
    """)
    assert a.diagnostics == []


def test_e202_iter_arg_used_after_loop():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i, (acc,) in pl.range(n, init_values=(n,)):
                acc2 = pl.yield_(acc + 1)
            y = acc + 1
    """)
    assert found(a, "E202") == [where(text, "acc + 1", 2)[:3] + (where(text, "acc + 1", 2)[1] + 3,)]
    assert "acc2" in message(a, "E202")


def test_e203_unknown_self_function_with_fix():
    text, a = run(f"""
        @pl.program
        class P:
            @pl.function
            def kernel(self, x: {T}) -> {T}:
                return x

            @pl.function
            def main(self, x: {T}):
                y = self.kernal(x)
    """)
    assert found(a, "E203") == [where(text, "kernal")]
    assert a.diagnostics[0].fixes[0].edits[0].new_text == "kernel"


def test_e204_duplicate_function():
    text, a = run(f"""
        @pl.program
        class P:
            @pl.function
            def k(self, x: {T}):
                y = x

            @pl.function
            def k(self, x: {T}):
                y = x
    """)
    assert found(a, "E204") == [where(text, "k(", 2)[:3] + (where(text, "k(", 2)[1] + 1,)]


def test_e205_module_value_not_static():
    text, a = run("""
        N = compute()

        @pl.function
        def f(a: pl.Tensor[[N], pl.FP32]):
            k = a
    """)
    assert found(a, "E205") == [where(text, "N]")[:3] + (where(text, "N]")[1] + 1,)]


def test_e206_program_call_arity():
    text, a = run(f"""
        @pl.program
        class P:
            @pl.function
            def g(self, x: {T}, y: {T}) -> {T}:
                return x

            @pl.function
            def f(self, x: {T}):
                y = self.g(x)
    """)
    assert found(a, "E206") == [where(text, "self.g(x)")]


def test_e213_the_value_of_a_call_that_returns_none_assigned():
    # The kernel writes its Out parameter and returns nothing (a dropped `return out`): the
    # code generators failed on `y` (E900). Called without assigning, or returning a value
    # without an annotation (2026-03 allows it), is fine.
    kernel = f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {T}, out: pl.Out[{T}]):
                t = pl.load(x, [0, 0], [64, 64])
                RESULT

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, x: {T}, y: pl.Out[{T}]) -> {T}:
                y = self.k(x, y)
                (a, b) = self.k(x, y)
                self.k(x, y)
                return y
    """
    text, a = run(kernel.replace("RESULT", "pl.store(t, [0, 0], out)"))
    line, column = where(text, "y = self")[:2]
    assert found(a, "E213") == [(line, column, line, column + 1), where(text, "(a, b)")]
    assert message(a, "E213").startswith("'k' returns no value (no return type, no `return`")
    first, second = (d for d in a.diagnostics if d.code == "E213")
    assert [r.message for r in first.related] == ["'k' is defined here"]
    # `y = self.k(x, y)`: the kernel writes y, so the fix calls it without assigning (`y` is
    # then the Out parameter the kernel wrote); `(a, b) = ...` gets no fix
    (fix,) = first.fixes
    assert fix.title == "Call without assigning (the call writes 'y')" and fix.preferred
    (edit,) = fix.edits
    assert (edit.span.line, edit.span.column, edit.span.end_line, edit.span.end_column) == (
        line,
        column,
        line,
        column + 4,
    )
    assert edit.new_text == "" and second.fixes == ()
    _, fine = run(kernel.replace("RESULT", "out = pl.store(t, [0, 0], out)\n        return out"))
    assert found(fine, "E213") == []


def test_e300_unknown_op_with_did_you_mean():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            t = pl.lod(a, [0, 0], [32, 32])
    """)
    assert found(a, "E300") == [where(text, "lod")]
    assert any(f.edits[0].new_text == "load" for f in a.diagnostics[0].fixes)


def test_e302_missing_argument_and_unknown_keyword():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            t = pl.load(a, [0, 0])
            u = pl.load(a, [0, 0], [32, 32], target_mem=pl.MemorySpace.Vec)
    """)
    spans = found(a, "E302")
    assert where(text, "pl.load(a, [0, 0])") in spans
    assert where(text, "target_mem") in spans


def test_e303_matmul_operator():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            c = a @ a
    """)
    assert found(a, "E303") == [where(text, "a @ a")]


def test_e305_chained_comparison():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            b = 0 < n < 4
    """)
    assert found(a, "E305") == [where(text, "0 < n < 4")]


def test_e306_tensor_where_tile_required_points_at_argument():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            t = pl.block.add(a, a)
    """)
    spans = found(a, "E306")
    assert spans and spans[0] == where(text, "a, a")[:3] + (where(text, "a, a")[1] + 1,)


def test_e307_shape_broadcast_failure():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            t = pl.load(a, [0, 0], [32, 32])
            u = pl.load(a, [0, 0], [16, 16])
            v = pl.add(t, u)
    """)
    assert found(a, "E307") and found(a, "E307")[0][0] == where(text, "pl.add(t, u)")[0]
    assert "[32, 32]" in message(a, "E307") and "[16, 16]" in message(a, "E307")


def test_e308_load_window_out_of_bounds():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            t = pl.load(a, [32, 0], [64, 64])
    """)
    spans = found(a, "E308")
    assert spans and spans[0][0] == where(text, "pl.load(a, [32, 0]")[0]


def test_w034_view_and_assembly_past_the_tensor_warn_at_the_offset():
    """Upstream accepts a window past the tensor (its reference pads a slice): a warning on the
    offset, for a constant and for a loop's extreme iteration; none inside or where unknown."""
    text, a = run(f"""
        @pl.function
        def f(a: {T}, b: pl.Tensor[[32, 64], pl.FP32], n: pl.Scalar[pl.INDEX]):
            w = pl.view(a, [64, 64], [16, 0])
            ok = pl.view(a, [48, 64], [16, 0])
            unknown = pl.view(a, [48, 64], [n, 0])
            for i in pl.range(4):
                a = pl.assemble(a, b, [i * 16, 0])
            return a
    """)
    assert [d.message for d in a.diagnostics if d.code == "W034"] == [
        "tensor.view: the window on dimension 0 reaches 16..80, past the tensor's extent 64: "
        "the kernel reads or writes memory outside the tensor",
        "tensor.assemble: the window on dimension 0 reaches 0..80 (at the loops' bounds), past "
        "the tensor's extent 64: the kernel reads or writes memory outside the tensor",
    ]
    first = where(text, "[16, 0])")
    assert found(a, "W034")[0] == (first[0], first[1], first[0], first[1] + len("[16, 0]"))
    assert [d.severity.value for d in a.diagnostics if d.code == "W034"] == ["warning"] * 2


def test_e309_axis_out_of_range():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            t = pl.load(a, [0, 0], [32, 32])
            s = pl.sum(t, axis=2)
    """)
    assert found(a, "E309") and found(a, "E309")[0][0] == where(text, "axis=2")[0]


def test_e310_dispatch_on_scalar():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            b = pl.exp(n)
    """)
    assert "E310" in [d.code for d in a.diagnostics]


def test_w003_legacy_namespace_and_positional_load():
    text, a = run("""
        @pl.function
        def f(a: pl.Tensor[[128, 128], pl.FP32]):
            t = pl.op.block.load(a, 0, 0, 32, 128)
    """)
    notes = found(a, "W003")
    assert where(text, "pl.op.block.load") in notes
    assert where(text, "a, 0, 0, 32, 128") in notes
    assert not [d for d in a.diagnostics if d.severity.value == "error"]


def test_w003_legacy_annotation_call_form():
    text, a = run("""
        @pl.function
        def f(a: pl.Tensor((64, 128), pl.FP16)):
            k = a
    """)
    assert found(a, "W003") == [where(text, "pl.Tensor((64, 128), pl.FP16)")]
    assert a.diagnostics[0].fixes[0].edits[0].new_text == "pl.Tensor[[64, 128], pl.FP16]"


def test_w003_seed_memory_space_name():
    text, a = run(f"""
        @pl.function
        def f(a: {T}):
            t = pl.load(a, [0, 0], [32, 32], target_memory=pl.MemorySpace.L1)
    """)
    assert found(a, "W003") == [where(text, "L1")]
    assert a.diagnostics[0].fixes[0].edits[0].new_text == "Mat"


def test_errors_in_independent_statements_are_all_reported():
    _, a = run(f"""
        @pl.function
        def f(a: {T}):
            x = pl.lod(a)
            y = undefined_name
            z = a + 1
    """)
    assert [d.code for d in a.diagnostics] == ["E300", "E200", "E109"]


def test_one_error_is_not_reported_again_downstream():
    _, a = run(f"""
        @pl.function
        def f(a: {T}):
            x = pl.lod(a)
            y = pl.add(x, x)
            z = pl.exp(y)
    """)
    assert [d.code for d in a.diagnostics] == ["E300"]


@pytest.mark.parametrize(
    "code", ["E000", "E001", "E106", "E200", "E300", "E307", "W006", "W007", "W008", "W009"]
)
def test_codes_are_in_catalog(code):
    from ptoc.diagnostics import CODES

    assert code in CODES


def test_e304_unary_plus_with_fix():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            k = +n
    """)
    assert found(a, "E304") == [where(text, "+n")]
    assert a.diagnostics[0].fixes[0].edits[0].new_text == "n"


def test_w004_ignored_range_argument_and_keyword():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i in pl.range(0, n, 1, 7, unroll=2):
                k = i
    """)
    assert found(a, "W004") == [
        where(text, "7"),
        where(text, "2)")[:3] + (where(text, "2)")[1] + 1,),
    ]
    assert all(d.severity.value == "warning" for d in a.diagnostics)


def test_w005_yield_outside_loop_or_if():
    text, a = run("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            r = pl.yield_(n)
    """)
    assert found(a, "W005") == [where(text, "pl.yield_(n)")]
    assert a.diagnostics[0].severity.value == "warning"
