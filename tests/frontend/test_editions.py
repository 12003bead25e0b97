"""The two language editions: which one is in force for a file and why, the 2026-08 forms of
the core language beside the 2026-03 ones, and printing each program in its own edition."""

from __future__ import annotations

import textwrap

from frontend_helpers import where

from ptoc.editions import Edition, EditionSource
from ptoc.frontend import analyze_source
from ptoc.frontend.edition import spelling_table
from ptoc.ir.equality import structural_equal
from ptoc.ir.expr import Call
from ptoc.ir.function import FunctionType
from ptoc.ir.shape import static_value
from ptoc.ir.stmt import ScopeKind, ScopeStmt
from ptoc.ir.types import MemorySpace, TileType
from ptoc.ir.walk import walk_stmts
from ptoc.printer import print_program

HEADER = "import pypto.language as pl\n\n"
T = "pl.Tensor[[64, 64], pl.FP32]"


def analyse(body: str, edition: tuple[Edition, EditionSource] | None = None):
    text = HEADER + textwrap.dedent(body)
    return text, analyze_source(text, "k.py", edition=edition)


def codes(analysis) -> list[str]:
    return [d.code for d in analysis.diagnostics]


def calls(function) -> list[Call]:
    found = []
    for stmt in walk_stmts(function.body):
        value = getattr(stmt, "value", None)
        if isinstance(value, Call):
            found.append(value)
    return found


OLD_KERNEL = f"""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {T}, out: pl.Out[{T}]) -> {T}:
        t = pl.block.load(a, [0, 0], [64, 64])
        u = pl.block.add(t, t)
        out = pl.block.store(u, [0, 0], [64, 64], out)
        return out
"""

NEW_KERNEL = f"""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {T}, out: pl.Out[{T}]) -> {T}:
        t = pl.tile.load(a, [0, 0], [64, 64])
        u = pl.tile.add(t, t)
        out = pl.tile.store(u, [0, 0], out)
        return out
"""


# --- which edition is in force -----------------------------------------------------------


def test_spellings_of_one_edition_decide_it():
    _, old = analyse(OLD_KERNEL)
    _, new = analyse(NEW_KERNEL)
    assert (old.edition.edition, old.edition.source) == (Edition.V2026_03, EditionSource.DETECTED)
    assert (new.edition.edition, new.edition.source) == (Edition.V2026_08, EditionSource.DETECTED)
    assert codes(old) == codes(new) == []


def test_the_2026_03_store_form_alone_marks_the_edition():
    _, a = analyse(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {T}, out: pl.Out[{T}]) -> {T}:
            t = pl.load(a, [0, 0], [64, 64])
            out = pl.store(
                t, [0, 0], [64, 64], out
            )
            return out
    """)
    assert a.edition.edition is Edition.V2026_03
    assert a.edition.detection.first[Edition.V2026_03].spelling == "pl.store"


def test_a_file_with_neither_is_the_newest_edition():
    _, a = analyse(f"""
        @pl.function
        def f(a: {T}) -> {T}:
            return pl.add(a, a)
    """)
    assert (a.edition.edition, a.edition.source) == (Edition.V2026_08, EditionSource.DEFAULT)
    assert "newest" in a.edition.describe()


def test_a_file_mixing_both_gets_one_warning_on_the_other_editions_first_spelling():
    text, a = analyse(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {T}, out: pl.Out[{T}]) -> {T}:
            t = pl.tile.load(a, [0, 0], [64, 64])
            u = pl.block.add(t, t)
            v = pl.block.mul(u, u)
            out = pl.tile.store(v, [0, 0], out)
            return out
    """)
    assert codes(a) == ["W030"]
    (warning,) = a.diagnostics
    assert a.edition.edition is Edition.V2026_08
    line, column, _, _ = where(text, "pl.block.add")
    assert (warning.span.line, warning.span.column) == (line, column)
    assert (warning.span.end_column - warning.span.column) == len("pl.block.add")
    assert "`pl.block.add` is PyPTO 2026-03" in warning.message
    assert "`pl.tile.load`" in warning.message


def test_the_first_spelling_is_found_without_counting_lines_per_match(monkeypatch):
    # Issue #33: the line of every one-edition spelling was counted from the start of the
    # file to compare it with the first one found (4,000 ``pl.submit``: 0.36 s, quadratic).
    from ptoc import editions

    counted: list[int] = []
    real = editions._line_of
    monkeypatch.setattr(
        editions, "_line_of", lambda text, offset: counted.append(offset) or real(text, offset)
    )
    many = "".join(f"    u{i} = pl.tile.add(t, t)\n" for i in range(300))
    text = (
        "import pypto.language as pl\n" + many + "v = pl.block.mul(u, u); w = pl.block.add(u, u)\n"
    )
    found = spelling_table().detect(text, ("pl",))
    assert len(counted) <= 4  # once per evidence kept, not once per match
    newer, older = found.first[Edition.V2026_08], found.first[Edition.V2026_03]
    assert (newer.spelling, newer.line, newer.column) == ("pl.tile.add", 2, 9)
    assert (older.spelling, older.line, older.column) == ("pl.block.mul", 302, 4)


def test_an_edition_chosen_outside_the_file_wins():
    _, a = analyse(NEW_KERNEL, (Edition.V2026_03, EditionSource.FLAG))
    assert (a.edition.edition, a.edition.source) == (Edition.V2026_03, EditionSource.FLAG)
    # both spellings are accepted in either edition; each of the other's gets W031 (a quick fix)
    assert codes(a) == ["W031"] * 3
    assert a.edition.describe() == "PyPTO 2026-03 (chosen on the command line)"


# --- the 2026-08 core language ------------------------------------------------------------


def test_2026_08_store_takes_the_output_tensor_third_and_stores_the_whole_tile():
    _, a = analyse(NEW_KERNEL)
    (fn,) = a.programs[0].functions
    store = calls(fn)[-1]
    assert store.callee.name == "block.store"
    assert [e.value for e in store.args[2].elements] == [64, 64]
    _, old = analyse(OLD_KERNEL)
    # (the same IR but for the index dtype: 2026-08's literals are INDEX, 2026-03's INT64)
    assert structural_equal(old.programs[0], a.programs[0], index_as_int64=True)


def test_2026_08_store_of_an_acc_tile_is_the_fix_pipes_store():
    _, a = analyse("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            a: pl.Tensor[[32, 32], pl.FP16],
            b: pl.Tensor[[32, 32], pl.FP16],
            out: pl.Out[pl.Tensor[[32, 32], pl.FP32]],
        ) -> pl.Tensor[[32, 32], pl.FP32]:
            ta = pl.load(a, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
            tb = pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat)
            la = pl.move(ta, pl.Mem.Left)
            rb = pl.move(tb, pl.Mem.Right)
            acc = pl.matmul(la, rb)
            out = pl.store(acc, [0, 0], out)
            return out
    """)
    assert codes(a) == []
    assert calls(a.functions[0])[-1].callee.name == "block.l0c_store"


def test_2026_08_load_takes_valid_shape_fourth_and_memory_by_keyword():
    _, a = analyse(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {T}) -> pl.Tile[[64, 64], pl.FP32]:
            t = pl.load(a, [0, 0], [64, 64], [64, 32], target_memory=pl.Mem.Mat, clamp=False)
            return t
    """)
    # the valid region is the tile's (spec §11): its type says it, the window's rest is padding
    assert codes(a) == []
    load = calls(a.functions[0])[0]
    assert isinstance(load.type, TileType) and load.type.memory_space is MemorySpace.Mat
    view = load.type.tile_view
    assert view is not None and [static_value(d) for d in view.valid_shape or ()] == [64, 32]
    _, whole = analyse(
        f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {T}) -> pl.Tile[[64, 64], pl.FP32]:
            t = pl.load(a, [0, 0], [64, 64], [64, 64])
            return t
    """,
        NEW,
    )
    assert codes(whole) == []  # the whole window valid: nothing left out
    whole_load = calls(whole.functions[0])[0]
    assert isinstance(whole_load.type, TileType) and whole_load.type.tile_view is None


def test_2026_08_load_valid_shape_past_the_window_is_e308():
    _, a = analyse(
        f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {T}) -> pl.Tile[[64, 64], pl.FP32]:
            t = pl.load(a, [0, 0], [64, 64], valid_shape=[64, 65])
            return t
    """,
        NEW,
    )
    assert [(d.code, d.message) for d in a.diagnostics] == [
        ("E308", "block.load: valid size 65 on dimension 1 is outside 0..64 (the window's)")
    ]


def test_2026_03_load_reads_valid_shape_but_does_not_model_it():
    body = f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {T}) -> pl.Tile[[64, 64], pl.FP32]:
            t = pl.load(a, [0, 0], [64, 64], target_memory=pl.Mem.Mat, valid_shape=[64, 32])
            return t
    """
    text, old = analyse(body, (Edition.V2026_03, EditionSource.FLAG))
    found = [(d.code, d.message, tuple(d.span[1:])) for d in old.diagnostics]
    assert found == [
        (
            "W004",
            "block.load: 'valid_shape' is accepted but not modelled by ptoc: the IR, the "
            "interpreter and the generated code ignore it",
            where(text, "[64, 32]"),
        )
    ]
    load = calls(old.functions[0])[0]
    assert load.args[3:] == ()  # dropped: the tile is the whole window
    assert isinstance(load.type, TileType) and load.type.memory_space is MemorySpace.Mat
    assert load.type.tile_view is None or load.type.tile_view.valid_shape is None
    _, new = analyse(body, (Edition.V2026_08, EditionSource.FLAG))
    assert codes(new) == []
    view = calls(new.functions[0])[0].type.tile_view
    assert view is not None and [static_value(d) for d in view.valid_shape or ()] == [64, 32]


def test_a_2026_03_load_prints_its_memory_fourth_and_never_a_valid_shape_there():
    _, old = analyse(f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {T}) -> pl.Tile[[64, 64], pl.FP32]:
                t = pl.block.load(a, [0, 0], [64, 64], pl.MemorySpace.Mat)
                return t
    """)
    assert codes(old) == [] and old.edition.edition is Edition.V2026_03
    printed = print_program(old.programs[0], edition=Edition.V2026_03)
    assert "pl.block.load(a, [0, 0], [64, 64], target_memory=pl.MemorySpace.Mat)" in printed
    again = analyze_source(printed, "p.py", edition=(Edition.V2026_03, EditionSource.FLAG))
    assert codes(again) == []
    assert structural_equal(old.programs[0], again.programs[0])
    # a 2026-08 valid region printed in 2026-03: by keyword, where 2026-03 reads the memory
    _, new = analyse(
        f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {T}) -> pl.Tile[[64, 64], pl.FP32]:
                t = pl.tile.load(a, [0, 0], [64, 64], [64, 32], target_memory=pl.Mem.Mat)
                return t
        """,
        (Edition.V2026_08, EditionSource.FLAG),
    )
    assert codes(new) == []
    printed = print_program(new.programs[0], edition=Edition.V2026_03)
    assert "pl.block.load(\n" in printed
    keywords = "valid_shape=[64, 32], target_memory=pl.MemorySpace.Mat"
    assert f"a, [0, 0], [64, 64], {keywords}\n" in printed
    read = analyze_source(printed, "p.py", edition=(Edition.V2026_03, EditionSource.FLAG))
    assert codes(read) == ["W004"]


def test_pl_at_core_group_is_an_incore_scope_and_other_scopes_keep_their_body():
    text, a = analyse(f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def f(a: {T}, out: pl.Out[{T}]) -> {T}:
            with pl.manual_scope():
                with pl.at(level=pl.Level.CORE_GROUP, name_hint="add") as tid:
                    t = pl.load(a, [0, 0], [64, 64])
                    out = pl.store(pl.add(t, t), [0, 0], out)
            return out
    """)
    assert codes(a) == []
    scopes = [s for s in walk_stmts(a.functions[0].body) if isinstance(s, ScopeStmt)]
    # the manual scope is kept as a runtime scope (#28), its body in it
    assert [s.kind for s in scopes] == [ScopeKind.Manual, ScopeKind.InCore]
    assert any(o.name == "tid" for o in a.index.occurrences)


def test_an_unknown_scope_is_one_error_and_its_body_is_still_checked():
    text, a = analyse(f"""
        @pl.function
        def f(a: {T}) -> {T}:
            with pl.incore_v2():
                b = pl.add(a, undefined_name)
            return a
    """)
    assert codes(a) == ["E013", "E200"]
    assert (a.diagnostics[1].span.line, a.diagnostics[1].span.column) == where(
        text, "undefined_name"
    )[:2]


def test_pl_at_keywords_are_checked():
    text, a = analyse(f"""
        @pl.function
        def f(a: {T}) -> {T}:
            with pl.at(level=pl.Level.CORE_GROUP, role=pl.Role.Orchestrator, speed=3):
                b = pl.add(a, a)
            return b
    """)
    assert sorted(codes(a)) == ["E013", "E013"]
    messages = " ".join(d.message for d in a.diagnostics)
    assert "unexpected keyword argument 'speed'" in messages
    assert "takes no role=" in messages


def test_renamed_ops_resolve_to_the_same_ops():
    _, new = analyse(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {T}) -> pl.Tile[[16, 16], pl.FP32]:
            t = pl.load(a, [0, 0], [64, 64])
            s = pl.slice(t, [16, 16], [0, 0])
            c = pl.tile.create([16, 16], dtype=pl.FP32)
            m = pl.maximums(s, 0.0)
            return m
    """)
    assert codes(new) == []
    assert [c.callee.name for c in calls(new.functions[0])] == [
        "block.load",
        "block.view",
        "block.create_tile",
        "block.maxs",
    ]


def test_tile_annotations_may_name_their_memory_space_and_a_memref():
    _, a = analyse("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: pl.Tensor[[16, 16], pl.FP16]) -> pl.Tile[[16, 16], pl.FP16]:
            t: pl.Tile[[16, 16], pl.FP16, pl.Mem.Vec] = pl.load(a, [0, 0], [16, 16])
            u: pl.Tile[[16, 16], pl.FP16, pl.MemRef("mem_vec_0", 0, 512), pl.Mem.Vec] = t
            return u
    """)
    assert codes(a) == []


def test_function_levels_roles_and_the_new_kinds():
    _, a = analyse(f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.AIV)
            def k(self, a: {T}) -> {T}:
                return a

            @pl.function(level=pl.Level.HOST, role=pl.Role.SubWorker)
            def callback(x, y):
                print(x + y)  # ordinary Python: not analysed
    """)
    assert codes(a) == []
    k, callback = a.programs[0].functions
    assert k.func_type is FunctionType.AIV and k.func_type.is_incore
    assert callback.level.name == "HOST" and callback.role.name == "SubWorker"


# --- pl.parse("...") texts --------------------------------------------------------------------


def test_program_texts_are_checked_where_they_stand():
    text = textwrap.dedent('''
        import pypto.language as pl

        def build():
            code = """
        @pl.function
        def f(x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
            return pl.add(x, missing)
        """
            return pl.parse(code)
    ''')
    a = analyze_source(text, "k.py")
    assert codes(a) == ["E200"]
    assert (a.diagnostics[0].span.line, a.diagnostics[0].span.column) == where(text, "missing")[:2]
    assert [f.name for f in a.functions] == ["f"]


def test_a_text_parsed_inside_try_reports_its_errors_as_information():
    text = textwrap.dedent('''
        import pypto.language as pl

        def expect_failure():
            bad = """
        @pl.function
        def g(x: pl.Tensor[[8], pl.FP32]) -> pl.Tensor[[8], pl.FP32]:
            return x +
        """
            try:
                pl.parse(bad)
            except SyntaxError:
                pass
    ''')
    a = analyze_source(text, "k.py")
    assert [(d.code, d.severity.value) for d in a.diagnostics] == [("E000", "info")]


# --- printing each program in its own edition ------------------------------------------------


def test_a_2026_08_program_prints_in_2026_08_spelling_and_parses_back_equal():
    _, a = analyse(NEW_KERNEL)
    printed = print_program(a.programs[0], edition=Edition.V2026_08)
    assert "pl.tile.load(a, [0, 0], [64, 64])" in printed
    assert "pl.tile.store(u, [0, 0], out)" in printed
    assert "pl.block" not in printed
    again = analyze_source(printed, "p.py")
    assert codes(again) == []
    assert again.edition.edition is Edition.V2026_08
    assert structural_equal(a.programs[0], again.programs[0])


def test_an_incore_scope_prints_as_pl_at_in_2026_08():
    _, a = analyse(f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.Orchestration)
            def f(self, a: {T}, out: pl.Out[{T}]) -> {T}:
                with pl.at(level=pl.Level.CORE_GROUP):
                    t = pl.tile.load(a, [0, 0], [64, 64])
                    out = pl.tile.store(t, [0, 0], out)
                return out
    """)
    printed = print_program(a.programs[0], edition=Edition.V2026_08)
    assert "with pl.at(level=pl.Level.CORE_GROUP):" in printed
    old = print_program(a.programs[0], edition=Edition.V2026_03)
    assert "with pl.incore():" in old
    assert structural_equal(a.programs[0], analyze_source(printed, "p.py").programs[0])
    # (2026-03 reads the INDEX literals as INT64: the same IR but for the index dtype)
    again = analyze_source(old, "p.py").programs[0]
    assert not structural_equal(a.programs[0], again)
    assert structural_equal(a.programs[0], again, index_as_int64=True)


# --- spellings both editions have that mean different things (spec §15) -------------------

OLD, NEW = (Edition.V2026_03, EditionSource.FLAG), (Edition.V2026_08, EditionSource.FLAG)


def typed(body: str, edition, name: str):
    _, a = analyse(body, edition)
    found = [o.type for o in a.index.occurrences if o.name == name and o.is_definition]
    return a, found[0]


def test_tile_plus_scalar_keeps_the_tiles_dtype_in_2026_08_only():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: pl.Tensor[[16, 64], pl.INT32]):
            t = pl.load(a, [0, 0], [16, 64])
            u = pl.add(t, 1.5)
    """
    _, old = typed(body, OLD, "u")
    _, new = typed(body, NEW, "u")
    assert (old.dtype.name, new.dtype.name) == ("FP32", "INT32")


def test_a_tile_comparison_is_a_packed_uint8_mask_in_2026_08():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: pl.Tensor[[16, 64], pl.FP16]):
            h = pl.load(a, [0, 0], [16, 64])
            c = pl.cmp(h, h)
    """
    _, old = typed(body, OLD, "c")
    _, new = typed(body, NEW, "c")
    assert old.short() == "Tile[[16, 64], FP16]"
    assert new.short() == "Tile[[16, 32], UINT8]"


def test_pl_max_of_a_tile_is_an_error_in_2026_08_only():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: pl.Tensor[[16, 64], pl.FP16]):
            h = pl.load(a, [0, 0], [16, 64])
            m = pl.max(h, 1)
    """
    text, old = analyse(body, OLD)
    _, new = analyse(body, NEW)
    assert codes(old) == []
    assert codes(new) == ["E310"]
    assert "pl.max is scalar-only in PyPTO 2026-08" in new.diagnostics[0].message


def test_not_of_an_integer_is_logical_in_2026_08():
    body = """
        @pl.function
        def f(n: pl.Scalar[pl.INT32]):
            b = not n
    """
    _, old = typed(body, OLD, "b")
    _, new = typed(body, NEW, "b")
    assert (old.dtype.name, new.dtype.name) == ("INT32", "BOOL")


def test_the_third_argument_of_tensor_view_is_a_valid_shape_in_2026_08():
    body = f"""
        @pl.function
        def f(a: {T}) -> pl.Tensor[[16, 16], pl.FP32]:
            v = pl.tensor.view(a, [16, 16], [0, 16])
            return v
    """
    text, old = analyse(body, OLD)
    _, new = analyse(body, NEW)
    assert codes(old) == []
    assert codes(new) == ["W032"]
    assert (new.diagnostics[0].span.line, new.diagnostics[0].span.column) == where(text, "[0, 16]")[
        :2
    ]
    offsets = lambda a: [e.value for e in calls(a.functions[0])[0].args[2].elements]  # noqa: E731
    assert (offsets(old), offsets(new)) == ([0, 16], [0, 0])


def test_the_block_index_is_index_typed_in_2026_08():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k():
            i = pl.tile.get_block_idx()
    """
    _, old = typed(body, OLD, "i")
    _, new = typed(body, NEW, "i")
    assert (old.dtype.name, new.dtype.name) == ("UINT64", "INDEX")  # INDEX is its own dtype


def test_a_file_tied_to_no_edition_keeps_the_2026_03_meanings():
    _, a = analyse("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: pl.Tensor[[16, 64], pl.INT32]):
            t = pl.load(a, [0, 0], [16, 64])
            u = pl.add(t, 1.5)
    """)
    assert a.edition.source is EditionSource.DEFAULT
    u = next(o.type for o in a.index.occurrences if o.name == "u" and o.is_definition)
    assert u.dtype.name == "FP32"
    assert "2026-03 meaning" in a.edition.describe()


# --- programs the original accepts (issue #26, item 7) ----------------------------------------


def test_an_integer_scalar_for_a_bool_parameter_and_a_widening_yield_are_warnings():
    text, a = analyse(f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {T}, flag: pl.Scalar[pl.BOOL], out: pl.Out[{T}]) -> {T}:
                t = pl.block.load(a, [0, 0], [16, 16])
                out = pl.block.store(t, [0, 0], [16, 16], out)
                return out

            @pl.function(type=pl.FunctionType.Orchestration)
            def main(self, a: {T}, out: pl.Out[{T}]) -> {T}:
                n: pl.Scalar[pl.INT32] = pl.const(0, pl.INT32)
                for i, (m,) in pl.range(4, init_values=(n,)):
                    m2 = pl.yield_(m + i)
                out = self.k(a, m2, out)
                return out
    """)
    assert [(d.code, d.span.line, d.span.column) for d in a.diagnostics] == [
        ("W027", *where(text, "m + i")[:2]),
        ("W026", *where(text, "m2, out")[:2]),
    ]


def test_offsets_may_be_a_name_bound_to_a_list():
    _, a = analyse(f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {T}, out: pl.Out[{T}]) -> {T}:
            offs = [0, 16]
            t = pl.block.load(a, offs, [16, 16])
            out = pl.block.store(t, offs, [16, 16], out)
            return out
    """)
    assert codes(a) == []
    load = calls(a.functions[0])[1]
    assert [e.value for e in load.args[1].elements] == [0, 16]


def test_break_and_continue_are_checked_where_they_stand_and_print_back():
    text, a = analyse(
        """
        @pl.function(type=pl.FunctionType.InCore)
        def k(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            for i in pl.range(10):
                if i > n:
                    break
                continue
            for j in pl.parallel(4):
                break
            continue
            return n
    """,
        NEW,
    )
    assert [(d.code, d.span.line) for d in a.diagnostics] == [
        ("E014", where(text, "break", 2)[0]),
        ("E014", where(text, "continue", 2)[0]),
    ]
    assert "not allowed in a pl.parallel loop" in a.diagnostics[0].message


def test_break_compiles_to_a_precise_e400_not_to_wrong_code():
    from ptoc import driver

    text = HEADER + textwrap.dedent("""
        @pl.function(type=pl.FunctionType.InCore)
        def k(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            for i in pl.range(10):
                if i > n:
                    break
            return n
    """)
    a = analyze_source(text, "k.py", edition=NEW)
    for target in ("cce", "pto"):
        result = driver.compile_source(a, target, path="k.py")
        assert [(d.code, d.span.line) for d in result.diagnostics] == [
            ("E400", where(text, "break")[0])
        ]
    old = analyze_source(text, "k.py", edition=OLD)
    assert [d.code for d in old.diagnostics] == ["E001"]  # 2026-03 has no break
    again = analyze_source(print_program(a.all_programs()[0]), "p.py", edition=NEW)
    assert structural_equal(a.all_programs()[0], again.all_programs()[0])


def test_a_2026_08_loop_may_reassign_its_carried_names_instead_of_yielding():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k(x: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
            for i, (acc,) in pl.range(4, init_values=(x,)):
                acc = acc + 1.0
            return acc_out
    """
    _, new = analyse(body, NEW)
    _, old = analyse(body, OLD)
    assert codes(new) == []
    assert "E010" in codes(old)  # 2026-03 wants the pl.yield_
    printed = print_program(new.all_programs()[0], edition=Edition.V2026_08)
    again = analyze_source(printed, "p.py", edition=NEW)
    assert structural_equal(new.all_programs()[0], again.all_programs()[0])


def test_a_name_2026_08_has_for_tensors_too_dispatches_by_the_argument():
    body = f"""
        @pl.function
        def f(a: {T}) -> {T}:
            b = pl.abs(a)
            return b
    """
    _, new = analyse(body, NEW)
    _, old = analyse(body, OLD)
    assert codes(new) == [] and calls(new.functions[0])[0].callee.name == "tensor.abs"
    assert "E306" in codes(old)  # 2026-03 had pl.abs for tiles only


def test_distributed_calls_are_typed_and_their_arguments_checked():
    text = textwrap.dedent("""
        import pypto.language as pl
        import pypto.language.distributed as pld

        @pl.function(level=pl.Level.HOST, role=pl.Role.Orchestrator)
        def host(x: pld.DistributedTensor[[1, 64], pl.FP32]):
            n = pld.world_size()
            pld.system.notify(x, 0, [0, 0], 1, op=pld.NotifyOp.AtomicAdd)
            pld.system.wait(x, [0, 0], missing, cmp=pld.WaitCmp.Ge)
            return x
    """)
    a = analyze_source(text, "d.py")
    assert [(d.code, d.severity.value) for d in a.diagnostics] == [("E200", "error")]
    assert (a.diagnostics[0].span.line, a.diagnostics[0].span.column) == where(text, "missing")[:2]


def test_2026_08_slice_is_the_window_view_and_its_extra_keywords_are_said_once():
    W = "pl.Tensor[[16, 64], pl.FP32]"  # noqa: N806
    text, a = analyse(
        f"""
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: {T}, out: pl.Out[{W}]) -> {W}:
                w = pl.slice(x, [16, 64], [16, 0])
                t = pl.tile.load(w, [0, 0], [16, 64])
                s = pl.tile.slice(t, [8, 64], [8, 0], valid_shape=[4, 64])
                out = pl.store(t, [0, 0], out)
                return out
    """,
        NEW,
    )
    found = [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in a.diagnostics
    ]
    assert found == []  # a tile's valid region is modelled (spec §11)
    window = calls(a.programs[0].functions[0])[0]
    assert window.callee.name == "tensor.view"
    assert [e.value for e in window.args[2].elements] == [16, 0]  # the offset, not a valid shape
    printed = print_program(a.programs[0], edition=Edition.V2026_08)
    assert "pl.tensor.slice(x, [16, 64], [16, 0])" in printed
    assert "= pl.tile.slice(\n            t, [8, 64], [8, 0], [4, 64]\n        )" in printed
