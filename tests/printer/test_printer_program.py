"""Whole programs and standalone functions: layout, decorators, parameters, function order,
the symbolic-dimension header, the prefix, and black stability."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator

import black
import pytest
from ir_builder import INDEX, binary, call, fn_call, i, scalar, tensor_t, tile_t, var
from printer_ir import registered, sample_ops

from ptoc.ir import (
    UNKNOWN,
    AssignStmt,
    BinaryOp,
    DataType,
    EvalStmt,
    ForStmt,
    Function,
    FunctionType,
    IterArg,
    MemorySpace,
    MemRef,
    ParamDirection,
    Program,
    ReturnStmt,
    ScalarType,
    ScopeStmt,
    SeqStmts,
    Stmt,
    TupleGetItem,
    TupleType,
    Type,
    YieldStmt,
    make_tuple,
)
from ptoc.printer import print_function, print_program

B = BinaryOp
N, M = scalar("N"), scalar("M")
TN = tensor_t(N, 128)
TILE = tile_t(32, 128)


@pytest.fixture(autouse=True)
def ops() -> Iterator[None]:
    with registered(sample_ops()):
        yield


def fn(
    name: str,
    body: Stmt,
    params: tuple = (),  # type: ignore[type-arg]
    returns: tuple[Type, ...] = (),
    func_type: FunctionType = FunctionType.Opaque,
    directions: tuple[ParamDirection, ...] = (),
) -> Function:
    return Function(name, params, returns, body, func_type, directions)


def calls(*names: str) -> Stmt:
    return SeqStmts(tuple(EvalStmt(fn_call(n)) for n in names))


def method_order(text: str) -> list[str]:
    return re.findall(r"def (\w+)\(self", text)


def kernel_program() -> Program:
    """A tile kernel called from an orchestration function, with a loop and a scope."""
    a, b, out = var("a", TN), var("b", TN), var("out", TN)
    row = var("i", INDEX)
    offsets = make_tuple((binary(B.Mul, row, i(32)), i(0)))
    shapes = make_tuple((i(32), i(128)))
    ta, tb, tc = var("ta", TILE), var("tb", TILE), var("tc", TILE)
    acc = IterArg(TN, name="acc", init_value=out)
    stored = var("stored", TN)
    loop_body = SeqStmts(
        (
            AssignStmt(ta, call("block.load", a, offsets, shapes, type_=TILE)),
            AssignStmt(tb, call("block.load", b, offsets, shapes, type_=TILE)),
            AssignStmt(tc, call("block.add", ta, tb, type_=TILE)),
            AssignStmt(stored, call("block.store", tc, offsets, shapes, acc, type_=TN)),
            YieldStmt(values=(stored,)),
        )
    )
    result = var("result", TN)
    rows = binary(B.FloorDiv, N, i(32))
    kernel_body = SeqStmts(
        (
            ForStmt(row, i(0), rows, i(1), loop_body, iter_args=(acc,), return_vars=(result,)),
            ReturnStmt(values=(result,)),
        )
    )
    kernel = fn(
        "tile_add",
        kernel_body,
        (a, b, out),
        (TN,),
        FunctionType.InCore,
        (ParamDirection.In, ParamDirection.In, ParamDirection.Out),
    )
    x, y = var("x", TN), var("y", TN)
    created = var("z", TN)
    shape = make_tuple((N, i(128)))
    summed = var("summed", TN)
    main_body = SeqStmts(
        (
            AssignStmt(created, call("tensor.create", shape, type_=TN, dtype=DataType.FP32)),
            ScopeStmt(AssignStmt(summed, fn_call("tile_add", x, y, created, type_=TN))),
            ReturnStmt(values=(summed,)),
        )
    )
    main = fn("main", main_body, (x, y), (TN,), FunctionType.Orchestration)
    return Program("Kernel", (main, kernel))


KERNEL_TEXT = """\
# pypto.program: Kernel
import pypto.language as pl

N = pl.dynamic("N")


@pl.program
class Kernel:
    @pl.function(type=pl.FunctionType.InCore)
    def tile_add(
        self,
        a: pl.Tensor[[N, 128], pl.FP32],
        b: pl.Tensor[[N, 128], pl.FP32],
        out: pl.Out[pl.Tensor[[N, 128], pl.FP32]],
    ) -> pl.Tensor[[N, 128], pl.FP32]:
        for i, (acc,) in pl.range(0, N // 32, 1, init_values=(out,)):
            ta: pl.Tile[[32, 128], pl.FP32] = pl.block.load(a, [i * 32, 0], [32, 128])
            tb: pl.Tile[[32, 128], pl.FP32] = pl.block.load(b, [i * 32, 0], [32, 128])
            tc: pl.Tile[[32, 128], pl.FP32] = pl.block.add(ta, tb)
            stored: pl.Tensor[[N, 128], pl.FP32] = pl.block.store(
                tc, [i * 32, 0], [32, 128], acc
            )
            result: pl.Tensor[[N, 128], pl.FP32] = pl.yield_(stored)
        return result

    @pl.function(type=pl.FunctionType.Orchestration)
    def main(
        self, x: pl.Tensor[[N, 128], pl.FP32], y: pl.Tensor[[N, 128], pl.FP32]
    ) -> pl.Tensor[[N, 128], pl.FP32]:
        z: pl.Tensor[[N, 128], pl.FP32] = pl.tensor.create_tensor(
            [N, 128], dtype=pl.FP32
        )
        with pl.incore():
            summed: pl.Tensor[[N, 128], pl.FP32] = self.tile_add(x, y, z)
        return summed
"""


def test_full_program() -> None:
    assert print_program(kernel_program()) == KERNEL_TEXT


def test_prefix_is_used_for_the_import_and_everything_else() -> None:
    text = print_program(kernel_program(), prefix="pi")
    expected = re.sub(r"\bpl\.", "pi.", KERNEL_TEXT).replace("as pl\n", "as pi\n")
    assert text == expected
    assert "import pypto.language as pi\n" in text


def test_line_length_changes_wrapping() -> None:
    wide = print_program(kernel_program(), line_length=120)
    assert (
        "    def main(self, x: pl.Tensor[[N, 128], pl.FP32], y: pl.Tensor[[N, 128], pl.FP32])"
        " -> pl.Tensor[[N, 128], pl.FP32]:\n" in wide
    )
    assert black.format_str(wide, mode=black.Mode(line_length=120)) == wide
    assert wide != KERNEL_TEXT


# --- functions -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("func_type", "decorator"),
    [
        (FunctionType.Opaque, "@pl.function\n"),
        (FunctionType.InCore, "@pl.function(type=pl.FunctionType.InCore)\n"),
        (FunctionType.Orchestration, "@pl.function(type=pl.FunctionType.Orchestration)\n"),
    ],
)
def test_decorator(func_type: FunctionType, decorator: str) -> None:
    text = print_program(Program("P", (fn("f", SeqStmts(()), func_type=func_type),)))
    assert f"    {decorator}    def f(self):\n        pass\n" in text


def test_parameter_directions_and_return_annotations() -> None:
    s = scalar("s", DataType.INT32)
    t_in, t_out, t_io = var("t_in", TN), var("t_out", TN), var("t_io", TN)
    directions = (ParamDirection.In, ParamDirection.In, ParamDirection.Out, ParamDirection.InOut)
    body = ReturnStmt(values=(t_io, s))
    f = fn("f", body, (s, t_in, t_out, t_io), (TN, s.type), directions=directions)
    text = print_program(Program("P", (f,)))
    assert (
        "    @pl.function\n"
        "    def f(\n"
        "        self,\n"
        "        s: pl.Scalar[pl.INT32],\n"
        "        t_in: pl.Tensor[[N, 128], pl.FP32],\n"
        "        t_out: pl.Out[pl.Tensor[[N, 128], pl.FP32]],\n"
        "        t_io: pl.InOut[pl.Tensor[[N, 128], pl.FP32]],\n"
        "    ) -> tuple[pl.Tensor[[N, 128], pl.FP32], pl.Scalar[pl.INT32]]:\n"
        "        return t_io, s\n"
    ) in text


def test_single_and_missing_return_annotation() -> None:
    k = scalar("k")
    one = fn("one", ReturnStmt(values=(k,)), (k,), (k.type,))
    none = fn("none", ReturnStmt(), (k,))
    text = print_program(Program("P", (one, none)))
    assert "    def one(self, k: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:\n" in text
    assert "    def none(self, k: pl.Scalar[pl.INT64]):\n        return\n" in text


def test_tuple_results_of_a_call() -> None:
    pair_type = TupleType((TN, INDEX))
    k = scalar("k")
    split = fn("split", ReturnStmt(values=(var("t", TN), k)), (var("t", TN), k), (TN, INDEX))
    tmp = var("_t", pair_type)
    body = SeqStmts(
        (
            AssignStmt(tmp, fn_call("split", var("t", TN), k, type_=pair_type)),
            AssignStmt(var("first", TN), TupleGetItem(TN, tuple_value=tmp, index=0)),
            ReturnStmt(values=(var("first", TN),)),
        )
    )
    main = fn("main", body, (var("t", TN), k), (TN,))
    text = print_program(Program("P", (main, split)))
    assert (
        "        _t: tuple[pl.Tensor[[N, 128], pl.FP32], pl.Scalar[pl.INT64]] = self.split(t, k)\n"
        "        first: pl.Tensor[[N, 128], pl.FP32] = _t[0]\n"
    ) in text


def test_standalone_function() -> None:
    a = var("a", TILE)
    body = SeqStmts(
        (
            AssignStmt(var("b", TILE), fn_call("helper", a, type_=TILE)),
            ReturnStmt(values=(var("b", TILE),)),
        )
    )
    f = fn("f", body, (a,), (TILE,), FunctionType.InCore)
    assert print_function(f) == (
        "import pypto.language as pl\n"
        "\n"
        "\n"
        "@pl.function(type=pl.FunctionType.InCore)\n"
        "def f(a: pl.Tile[[32, 128], pl.FP32]) -> pl.Tile[[32, 128], pl.FP32]:\n"
        "    b: pl.Tile[[32, 128], pl.FP32] = helper(a)\n"
        "    return b\n"
    )


def test_standalone_function_declares_its_dimensions() -> None:
    a = var("a", tensor_t(M, N))
    text = print_function(fn("g", ReturnStmt(), (a,)), prefix="pi")
    assert text == (
        "import pypto.language as pi\n"
        "\n"
        'M = pi.dynamic("M")\n'
        'N = pi.dynamic("N")\n'
        "\n"
        "\n"
        "@pi.function\n"
        "def g(a: pi.Tensor[[M, N], pi.FP32]):\n"
        "    return\n"
    )


def test_empty_program() -> None:
    assert print_program(Program("Empty", ())) == (
        "# pypto.program: Empty\n"
        "import pypto.language as pl\n"
        "\n"
        "\n"
        "@pl.program\n"
        "class Empty:\n"
        "    pass\n"
    )


def test_memref_types_after_allocation() -> None:
    placed = tile_t(32, 128, memref=MemRef(MemorySpace.Vec, 0x4000, 16384, 2))
    t = var("t", placed)
    f = fn("f", ReturnStmt(values=(t,)), (t,), (placed,), FunctionType.InCore)
    text = print_program(Program("P", (f,)))
    assert "pl.Tile[[32, 128], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, 0x4000, 16384, 2)]" in text
    assert black.format_str(text, mode=black.Mode()) == text


# --- order of functions --------------------------------------------------------------------


def test_callee_moves_before_its_caller() -> None:
    program = Program("P", (fn("main", calls("helper")), fn("helper", calls())))
    assert method_order(print_program(program)) == ["helper", "main"]


def test_call_chain_is_reversed() -> None:
    program = Program("P", (fn("a", calls("b")), fn("b", calls("c")), fn("c", calls())))
    assert method_order(print_program(program)) == ["c", "b", "a"]


def test_source_order_is_kept_otherwise() -> None:
    functions = (
        fn("first", calls()),
        fn("main", calls("leaf", "first")),
        fn("other", calls()),
        fn("leaf", calls()),
    )
    assert method_order(print_program(Program("P", functions))) == [
        "first",
        "leaf",
        "main",
        "other",
    ]


def test_already_ordered_program_is_unchanged() -> None:
    functions = (fn("x", calls()), fn("y", calls("x")), fn("z", calls("y", "x")))
    assert method_order(print_program(Program("P", functions))) == ["x", "y", "z"]


def test_calls_nested_in_control_flow_count() -> None:
    loop = ForStmt(var("i", INDEX), i(0), i(4), i(1), ScopeStmt(calls("deep")))
    program = Program("P", (fn("main", loop), fn("deep", calls())))
    assert method_order(print_program(program)) == ["deep", "main"]


def test_recursion_terminates() -> None:
    program = Program("P", (fn("f", calls("g")), fn("g", calls("f")), fn("h", calls("h"))))
    assert method_order(print_program(program)) == ["g", "f", "h"]


def test_calls_to_unknown_functions_are_ignored() -> None:
    program = Program("P", (fn("b", calls("missing")), fn("a", calls())))
    assert method_order(print_program(program)) == ["b", "a"]


# --- symbolic dimensions -------------------------------------------------------------------


def header(text: str) -> str:
    return text[: text.index("@pl.program")]


def test_dimensions_declared_in_order_of_first_use() -> None:
    x = var("x", tensor_t(M, 64))
    y = var("y", tensor_t(N, M))
    program = Program("P", (fn("f", ReturnStmt(), (y,)), fn("g", ReturnStmt(), (x,))))
    assert header(print_program(program)) == (
        "# pypto.program: P\n"
        "import pypto.language as pl\n"
        "\n"
        'N = pl.dynamic("N")\n'
        'M = pl.dynamic("M")\n'
        "\n"
        "\n"
    )


def test_no_dimensions_no_declarations() -> None:
    x = var("x", tensor_t(4, 4))
    program = Program("P", (fn("f", ReturnStmt(), (x,)),))
    assert header(print_program(program)) == "# pypto.program: P\nimport pypto.language as pl\n\n\n"


def test_dimension_bound_as_a_parameter_is_not_declared() -> None:
    n = scalar("n")
    local = var("t", tile_t(n, 64))
    body = SeqStmts(
        (
            AssignStmt(
                local,
                call(
                    "block.load",
                    var("x", TN),
                    make_tuple((i(0), i(0))),
                    make_tuple((n, i(64))),
                    type_=local.type,
                ),
            ),
            ReturnStmt(),
        )
    )
    program = Program("P", (fn("f", body, (n, var("x", TN))),))
    text = print_program(program)
    assert header(text).splitlines()[2:] == ["", 'N = pl.dynamic("N")', "", ""]
    assert "t: pl.Tile[[n, 64], pl.FP32] = pl.block.load(x, [0, 0], [n, 64])" in text


def test_dimension_used_as_a_value_is_declared() -> None:
    k = var("k", INDEX)
    body = SeqStmts((AssignStmt(k, binary(B.Mul, N, i(2))), ReturnStmt(values=(k,))))
    program = Program("P", (fn("f", body, (), (INDEX,)),))
    text = print_program(program)
    assert 'N = pl.dynamic("N")\n' in header(text)
    assert "        k: pl.Scalar[pl.INT64] = N * 2\n" in text


def test_dimensions_inside_tile_views_and_expressions_are_declared() -> None:
    from ptoc.ir import TileView

    view = TileView(valid_shape=(M, i(16)))
    t = var("t", tile_t(binary(B.Mul, N, i(2)), 16, view=view))
    text = print_program(Program("P", (fn("f", ReturnStmt(), (t,)),)))
    assert header(text).splitlines()[3:5] == ['N = pl.dynamic("N")', 'M = pl.dynamic("M")']
    assert "t: pl.Tile[[N * 2, 16], pl.FP32, pl.TileView(valid_shape=[M, 16])]" in text


# --- output is stable under black and is Python --------------------------------------------


def odd_program() -> Program:
    """Things that stress formatting: long lines, many iter args, deep nesting."""
    names = [f"accumulator_{k}" for k in range(5)]
    inits = [var(f"init_{k}", INDEX) for k in range(5)]
    iter_args = tuple(
        IterArg(INDEX, name=n, init_value=v) for n, v in zip(names, inits, strict=True)
    )
    outs = tuple(var(f"{n}_out", INDEX) for n in names)
    loop_var = var("i", INDEX)
    body = YieldStmt(values=tuple(binary(B.Add, a, loop_var) for a in iter_args))
    loop = ForStmt(loop_var, i(0), i(1000), i(1), body, iter_args=iter_args, return_vars=outs)
    f = fn(
        "many", SeqStmts((loop, ReturnStmt(values=outs))), tuple(inits), tuple(INDEX for _ in outs)
    )
    unknown = fn("broken", AssignStmt(var("u", UNKNOWN), fn_call("many", *inits)), tuple(inits))
    return Program("Odd", (f, unknown))


@pytest.mark.parametrize("line_length", [40, 88, 120])
@pytest.mark.parametrize("make", [kernel_program, odd_program])
def test_black_is_a_fixed_point(make: object, line_length: int) -> None:
    assert callable(make)
    text = print_program(make(), line_length=line_length)
    assert black.format_str(text, mode=black.Mode(line_length=line_length)) == text
    ast.parse(text)


def test_long_headers_and_yields_wrap_as_black_wants() -> None:
    """Black splits the loop target, parenthesises a long unpacking target and a long
    return; all of these read back as the same Python syntax tree."""
    text = print_program(odd_program())
    assert (
        "        for i, (\n"
        "            accumulator_0,\n"
        "            accumulator_1,\n"
        "            accumulator_2,\n"
        "            accumulator_3,\n"
        "            accumulator_4,\n"
        "        ) in pl.range(0, 1000, 1, init_values=(init_0, init_1, init_2, init_3, init_4)):\n"
        "            (\n"
        "                accumulator_0_out,\n"
    ) in text
    assert "            ) = pl.yield_(\n                accumulator_0 + i,\n" in text
    assert "        return (\n            accumulator_0_out,\n" in text
    assert "        u = self.many(init_0, init_1, init_2, init_3, init_4)\n" in text


def test_scalar_type_is_unchanged_by_index_alias() -> None:
    from ptoc.ir import INDEX

    k = var("k", ScalarType(INDEX))
    text = print_program(Program("P", (fn("f", ReturnStmt(), (k,)),)))
    assert "def f(self, k: pl.Scalar[pl.INT64]):" in text
