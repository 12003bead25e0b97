"""Integer literals per edition (spec §4, §15, §16): ``ConstInt(INT64)`` in 2026-03,
``ConstInt(INDEX)`` in 2026-08 (``EditionRules.int_literal_dtype``), where a literal paired
with another integer takes its dtype: an INT32 scalar plus 1 stays INT32, and so does an
INT32 tile or tensor plus 1 (a scalar operand of a tile/tensor op that is an INDEX constant
joins no promotion). A ``pl.const(v, DT)`` keeps its dtype. The 2026-08 printer writes
INDEX constants bare, every other integer dtype as ``pl.const(v, pl.DT)`` and loops in the
shortest form; what it prints parses back structurally equal."""

from __future__ import annotations

import textwrap

from ptoc.editions import RULES, Edition, EditionSource
from ptoc.frontend import ModuleAnalysis, analyze_source
from ptoc.ir.dtype import DataType
from ptoc.ir.equality import structural_equal
from ptoc.ir.expr import ConstInt
from ptoc.ir.visitor import Node, children
from ptoc.printer import print_program

HEADER = "import pypto.language as pl\n\n"
OLD, NEW = (Edition.V2026_03, EditionSource.FLAG), (Edition.V2026_08, EditionSource.FLAG)
I32 = "pl.Tensor[[16, 64], pl.INT32]"
F32 = "pl.Tensor[[16, 64], pl.FP32]"

SCALARS = """
@pl.function(type=pl.FunctionType.InCore)
def k(n: pl.Scalar[pl.INT32], w: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT32]:
    x = 7
    neg = -3
    m = n + 1
    r = 1 + n
    j = (n * 2 + 1) // 4
    c = n > 0
    v = w + 1
    t = pl.const(2, pl.INT64) + n
    u = x * 16
    return m
"""


def analyse(body: str, edition: tuple[Edition, EditionSource] | None) -> ModuleAnalysis:
    return analyze_source(HEADER + textwrap.dedent(body), "k.py", edition=edition)


def dtypes(analysis: ModuleAnalysis, *names: str) -> list[str]:
    found = {
        o.name: o.type for o in analysis.index.occurrences if o.is_definition and o.name in names
    }
    return [found[n].dtype.name for n in names]


def literals(analysis: ModuleAnalysis) -> list[tuple[int, str]]:
    """Every integer constant of the one function, in source order, with its dtype."""
    found: list[tuple[int, str]] = []

    def walk(node: Node) -> None:
        if isinstance(node, ConstInt):
            found.append((node.value, node.dtype.name))
        for child in children(node):
            walk(child)

    (fn,) = analysis.functions or analysis.programs[0].functions
    walk(fn.body)
    return found


def test_the_edition_rules_say_which_dtype_an_int_literal_gets():
    assert RULES[Edition.V2026_03].int_literal_dtype is DataType.INT64
    assert RULES[Edition.V2026_08].int_literal_dtype is DataType.INDEX


def test_a_literal_is_int64_in_2026_03_and_index_re_typed_to_its_partner_in_2026_08():
    names = ("x", "neg", "m", "r", "j", "c", "v", "t", "u")
    old, new = analyse(SCALARS, OLD), analyse(SCALARS, NEW)
    # 2026-03: the INT64 literal promotes an INT32 to INT64 (the function's INT32 result: W007)
    assert [d.code for d in old.diagnostics] == ["W007"]
    assert [d.code for d in new.diagnostics] == []
    assert dtypes(old, *names) == [
        "INT64", "INT64", "INT64", "INT64", "INT64", "BOOL", "INT64", "INT64", "INT64",
    ]  # fmt: skip
    # 2026-08: the literal takes the INT32's dtype; a pl.const keeps its own (INT64 + INT32)
    assert dtypes(new, *names) == [
        "INDEX", "INDEX", "INT32", "INT32", "INT32", "BOOL", "INT64", "INT64", "INDEX",
    ]  # fmt: skip
    # the constants stay as written: literals INDEX, the pl.const INT64
    assert literals(new) == [
        (7, "INDEX"), (-3, "INDEX"), (1, "INDEX"), (1, "INDEX"), (2, "INDEX"), (1, "INDEX"),
        (4, "INDEX"), (0, "INDEX"), (1, "INDEX"), (2, "INT64"), (16, "INDEX"),
    ]  # fmt: skip
    assert {dtype for _, dtype in literals(old)} == {"INT64"}


def test_a_file_no_spelling_ties_to_an_edition_keeps_int64_literals():
    a = analyse(SCALARS, None)
    assert a.edition is not None and a.edition.source is EditionSource.DEFAULT
    assert dtypes(a, "x", "m") == ["INT64", "INT64"]


SHAPED = f"""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {I32}, f: {F32}, out: pl.Out[{I32}]) -> {I32}:
        t = pl.tile.load(a, [0, 0], [16, 64])
        u = pl.tile.adds(t, 1)
        v = pl.add(t, 2)
        w = pl.tile.muls(t, -1)
        s = pl.tile.maximums(t, 0)
        g = pl.tile.load(f, [0, 0], [16, 64])
        h = pl.tile.adds(g, 1)
        e = pl.tile.adds(t, pl.const(2, pl.INT64))
        out = pl.tile.store(u, [0, 0], out)
        return out

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(self, a: {I32}, f: {F32}, out: pl.Out[{I32}]) -> {I32}:
        b = pl.tensor.adds(a, 1)
        c = pl.tensor.muls(a, 3)
        d = pl.tensor.adds(a, pl.const(3, pl.INT64))
        g = pl.tensor.cmp(a, 0, cmp_type=4)
        out = self.k(a, f, out)
        return out
"""


def test_a_literal_operand_of_a_tile_or_tensor_op_takes_the_operands_dtype_in_2026_08():
    new = analyse(SHAPED, NEW)
    assert [d.code for d in new.diagnostics] == []
    types = {o.name: o.type.short() for o in new.index.occurrences if o.is_definition and o.type}
    assert [types[n] for n in ("u", "v", "w", "s", "h")] == [
        "Tile[[16, 64], INT32]",
        "Tile[[16, 64], INT32]",
        "Tile[[16, 64], INT32]",
        "Tile[[16, 64], INT32]",
        "Tile[[16, 64], FP32]",
    ]
    # a tile keeps its dtype even beside an explicit INT64 (tile (+) scalar, spec §4)
    assert types["e"] == "Tile[[16, 64], INT32]"
    # a tensor: the literal takes its dtype; an explicit INT64 promotes (tensor (+) scalar)
    assert [types[n] for n in ("b", "c", "d", "g")] == [
        "Tensor[[16, 64], INT32]",
        "Tensor[[16, 64], INT32]",
        "Tensor[[16, 64], INT64]",
        "Tensor[[16, 64], INT32]",
    ]


def test_the_same_tensor_ops_promote_to_int64_in_2026_03():
    old = analyse(
        f"""
        @pl.function(type=pl.FunctionType.Orchestration)
        def main(a: {I32}) -> {I32}:
            b = pl.tensor.add_scalar(a, 1)
            return a
        """,
        OLD,
    )
    assert [d.code for d in old.diagnostics] == []
    assert dtypes(old, "b") == ["INT64"]


PRINTED = f"""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {I32}, n: pl.Scalar[pl.INT32], out: pl.Out[{I32}]) -> {I32}:
        m = n + 1
        big = pl.const(5, pl.INT64) * 2
        small = pl.const(-5, pl.INT32) - n
        for i in pl.range(4):
            row = i * 16
            t = pl.tile.load(a, [row, 0], [16, 64])
            out = pl.tile.store(pl.tile.adds(t, m), [row, 0], out)
        for j in pl.range(1, 4):
            out = pl.tile.store(pl.tile.load(a, [0, 0], [16, 64]), [0, 0], out)
        for q in pl.range(0, 8, 2):
            out = pl.tile.store(pl.tile.load(a, [0, 0], [16, 64]), [0, 0], out)
        return out
"""


def test_2026_08_prints_index_constants_bare_and_others_as_pl_const_and_parses_back():
    a = analyse(PRINTED, NEW)
    assert [d.code for d in a.diagnostics] == []
    printed = print_program(a.programs[0], edition=Edition.V2026_08)
    body = printed[printed.index("m: pl.") :]
    assert body == textwrap.dedent("""\
        m: pl.Scalar[pl.INT32] = n + 1
                big: pl.Scalar[pl.INT64] = pl.const(5, pl.INT64) * 2
                small: pl.Scalar[pl.INT32] = pl.const(-5, pl.INT32) - n
                for i in pl.range(4):
                    row: pl.Scalar[pl.INDEX] = i * 16
                    t: pl.Tile[[16, 64], pl.INT32] = pl.tile.load(a, [row, 0], [16, 64])
                    out: pl.Tensor[[16, 64], pl.INT32] = pl.tile.store(
                        pl.tile.adds(t, m), [row, 0], out
                    )
                for j in pl.range(1, 4):
                    out: pl.Tensor[[16, 64], pl.INT32] = pl.tile.store(
                        pl.tile.load(a, [0, 0], [16, 64]), [0, 0], out
                    )
                for q in pl.range(0, 8, 2):
                    out: pl.Tensor[[16, 64], pl.INT32] = pl.tile.store(
                        pl.tile.load(a, [0, 0], [16, 64]), [0, 0], out
                    )
                return out
        """)
    again = analyze_source(printed, "printed.py")
    assert again.edition is not None and again.edition.edition is Edition.V2026_08
    assert [d.code for d in again.diagnostics] == []
    assert structural_equal(a.programs[0], again.programs[0])


def test_2026_03_prints_int64_constants_bare_and_every_loop_bound():
    old_text = PRINTED.replace("pl.tile.adds(t, m)", "t").replace("pl.tile.", "pl.block.")
    old_text = old_text.replace("[row, 0], out)", "[row, 0], [16, 64], out)")
    old_text = old_text.replace("[0, 0], out)", "[0, 0], [16, 64], out)")
    a = analyse(old_text, OLD)
    assert [d.code for d in a.diagnostics] == []
    printed = print_program(a.programs[0], edition=Edition.V2026_03)
    assert "m: pl.Scalar[pl.INT64] = n + 1\n" in printed
    assert "big: pl.Scalar[pl.INT64] = 5 * 2\n" in printed
    assert "for i in pl.range(0, 4, 1):" in printed
    assert "for j in pl.range(1, 4, 1):" in printed
    again = analyze_source(printed, "printed.py", edition=OLD)
    assert structural_equal(a.programs[0], again.programs[0])


def test_the_upgrade_proof_reads_the_literals_index_as_int64():
    """The same kernel in both editions lowers to the same IR but for the index dtype."""
    kernel = f"""
        @pl.function(type=pl.FunctionType.InCore)
        def k(a: {F32}, out: pl.Out[{F32}]) -> {F32}:
            for i in pl.range(4):
                t = pl.{{ns}}.load(a, [i * 4, 0], [4, 64])
                u = pl.{{ns}}.adds(t, 1)
                out = pl.{{ns}}.store(u, [i * 4, 0], {{shapes}}out)
            return out
    """
    old = analyse(kernel.format(ns="block", shapes="[4, 64], "), OLD)
    new = analyse(kernel.format(ns="tile", shapes=""), NEW)
    assert [d.code for d in old.diagnostics + new.diagnostics] == []
    assert not structural_equal(old.functions[0], new.functions[0])
    assert structural_equal(old.functions[0], new.functions[0], index_as_int64=True)


def test_dynamic_dims_are_of_the_editions_index_dtype():
    body = """
        N = pl.dynamic("N")

        @pl.function(type=pl.FunctionType.InCore)
        def k(a: pl.Tensor[[N, 64], pl.FP32]) -> pl.Tensor[[N, 64], pl.FP32]:
            for i in pl.range(N // 16):
                half = N // 2
            return a
    """
    assert dtypes(analyse(body, OLD), "half") == ["INT64"]
    assert dtypes(analyse(body, NEW), "half") == ["INDEX"]
    new = analyse(body, NEW)
    (fn,) = new.functions
    (dim, _) = fn.params[0].type.shape  # type: ignore[attr-defined]
    assert dim.name == "N" and dim.type.dtype is DataType.INDEX


def test_get_byte_folds_to_a_constant_of_the_editions_index_dtype():
    body = """
        @pl.function(type=pl.FunctionType.InCore)
        def k(n: pl.Scalar[pl.INT32]) -> pl.Scalar[pl.INT32]:
            size = pl.FP16.get_byte()
            return n
    """
    new = analyse(body, NEW)
    assert [d.code for d in new.diagnostics] == []
    assert dtypes(new, "size") == ["INDEX"]
    assert literals(new) == [(2, "INDEX")]


COMPARED = f"""
@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, a: {I32}, n: pl.Scalar[pl.INT32], out: pl.Out[{I32}]) -> {I32}:
        t = pl.tile.load(a, [0, 0], [16, 64])
        if n > 0:
            u = pl.tile.adds(t, n + 1)
        else:
            u = pl.tile.adds(t, 2)
        out = pl.tile.store(u, [0, 0], out)
        return out
"""


def test_literals_beside_an_int32_lower_as_i32_and_offsets_as_index():
    from ptoc import driver

    result = driver.compile_source(HEADER + textwrap.dedent(COMPARED), "pto", path="k.py")
    assert [d.format() for d in result.diagnostics] == []
    lines = [line.strip() for line in result.text.splitlines()]
    # the comparison and the sum in the INT32's own type; the load's offsets are index
    assert "%6 = arith.cmpi sgt, %arg1, %c0_i32 : i32" in lines
    assert "%7 = arith.addi %arg1, %c1_i32 : i32" in lines
    assert "%c0 = arith.constant 0 : index" in lines
    assert "%c2_i32 = arith.constant 2 : i32" in lines
    assert not [line for line in lines if "index_cast" in line]
    cce = driver.compile_source(HEADER + textwrap.dedent(COMPARED), "cce", path="k.py")
    assert "if (n > 0) {" in cce.text and "TADDS(u, t, (n + 1));" in cce.text


def test_the_literals_a_subscript_leaves_out_are_index_and_print_bare():
    body = """
        @pl.program
        class P:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, x: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tile[[8, 64], pl.FP32]:
                t = pl.tile.load(x, [16, 0], [16, 64])
                u = t[8:16, :]
                return u
    """
    a = analyse(body, NEW)
    assert [d.code for d in a.diagnostics] == []
    assert {dtype for _, dtype in literals(a)} == {"INDEX"}
    printed = print_program(a.programs[0], edition=Edition.V2026_08)
    assert "u: pl.Tile[[8, 64], pl.FP32] = pl.tile.slice(t, [8, 64], [8, 0])\n" in printed
    assert structural_equal(a.programs[0], analyze_source(printed, "p.py").programs[0])


LOOP_SCALAR = """
@pl.function(type=pl.FunctionType.InCore)
def k(a: pl.Tensor[[16, 64], pl.FP32], out: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    t = pl.tile.load(a, [0, 0], [16, 64])
    for i in pl.range(4):
        t = pl.tile.adds(t, i)
        t = pl.tile.muls(t, 2)
    out = pl.store(t, [0, 0], out)
    return out
"""


def test_an_index_variable_as_a_tile_ops_scalar_is_w029_with_a_cast_fix() -> None:
    """Spec §4: a non-constant INDEX scalar operand is rejected by upstream (only constants
    take the tile's dtype); the literal 2 beside it is such a constant."""
    analysis = analyse(LOOP_SCALAR, NEW)
    (d,) = analysis.diagnostics
    assert (d.code, d.span.line, d.span.column, d.span.end_column) == ("W029", 8, 28, 29)
    assert d.message == (
        "adds: 'scalar' is an INDEX variable; PyPTO 2026-08 gives only a constant the tile's "
        "dtype and rejects this operand: convert it with pl.cast(scalar, pl.FP32)"
    )
    (fix,) = d.fixes
    (edit,) = fix.edits
    assert (edit.span, edit.new_text) == (d.span, "pl.cast(i, pl.FP32)")
    fixed = LOOP_SCALAR.replace("adds(t, i)", "adds(t, pl.cast(i, pl.FP32))")
    assert [x.format() for x in analyse(fixed, NEW).diagnostics] == []
