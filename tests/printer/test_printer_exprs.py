"""Expressions: literals, operator precedence, calls of ops and functions, tuples."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from typing import Any

import black
import pytest
from ir_builder import BOOL, binary, call, f, fn_call, i, scalar, tensor_t, unary, var
from printer_ir import registered, sample_ops

from ptoc.ir import (
    BinaryOp,
    ConstBool,
    ConstFloat,
    ConstInt,
    DataType,
    Expr,
    MakeTuple,
    MemorySpace,
    TupleGetItem,
    TupleType,
    Unary,
    UnaryOp,
    Var,
    make_tuple,
)
from ptoc.ir.expr import Binary
from ptoc.ops.registry import PipeType
from ptoc.printer import print_expr

B = BinaryOp
U = UnaryOp
a, b, c, d = (scalar(n) for n in "abcd")
x = scalar("x", DataType.FP32)


@pytest.fixture(autouse=True)
def ops() -> Iterator[None]:
    with registered(sample_ops()):
        yield


def black_keeps(text: str) -> bool:
    source = f"x = {text}\n"
    return black.format_str(source, mode=black.Mode()) == source


# --- literals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("expr", "text"),
    [
        (i(42), "42"),
        (i(-5), "-5"),
        (i(0), "0"),
        (i(5, DataType.INT32), "pl.const(5, pl.INT32)"),
        (i(-5, DataType.INT32), "pl.const(-5, pl.INT32)"),
        (i(7, DataType.UINT64), "pl.const(7, pl.UINT64)"),
        (f(1.5), "1.5"),
        (f(2.0), "2.0"),
        (f(-0.25), "-0.25"),
        (f(1e-05), "1e-05"),
        (f(1e20), "1e20"),
        (f(float("inf")), "1e999"),
        (f(1.5, DataType.FP16), "pl.const(1.5, pl.FP16)"),
        (f(3.0, DataType.BF16), "pl.const(3.0, pl.BF16)"),
        (ConstBool(BOOL, value=True), "True"),
        (ConstBool(BOOL, value=False), "False"),
    ],
)
def test_literals(expr: Expr, text: str) -> None:
    assert print_expr(expr) == text
    assert black_keeps(text)


def test_index_typed_constant_is_a_plain_int() -> None:
    from ptoc.ir import INDEX

    assert print_expr(i(64, INDEX)) == "64"


def test_literals_read_back_as_the_same_value() -> None:
    for value in (0.1, 1e-05, 1e20, 123456.789, -2.5e-300):
        assert float(print_expr(f(value))) == value


# --- precedence ----------------------------------------------------------------------------

PRECEDENCE_CASES: list[tuple[Expr, str]] = [
    (binary(B.Add, a, b), "a + b"),
    (binary(B.Mul, binary(B.Add, a, b), c), "(a + b) * c"),
    (binary(B.Mul, a, binary(B.Add, b, c)), "a * (b + c)"),
    (binary(B.Add, a, binary(B.Mul, b, c)), "a + b * c"),
    (binary(B.Sub, binary(B.Sub, a, b), c), "a - b - c"),
    (binary(B.Sub, a, binary(B.Sub, b, c)), "a - (b - c)"),
    (binary(B.Add, a, binary(B.Sub, b, c)), "a + (b - c)"),
    (binary(B.FloorMod, binary(B.FloorDiv, a, b), c), "a // b % c"),
    (binary(B.FloorDiv, a, binary(B.FloorMod, b, c)), "a // (b % c)"),
    (binary(B.FloatDiv, x, binary(B.Mul, x, x)), "x / (x * x)"),
    (binary(B.Pow, a, b), "a**b"),
    (binary(B.Pow, a, binary(B.Pow, b, c)), "a**b**c"),
    (binary(B.Pow, binary(B.Pow, a, b), c), "(a**b) ** c"),
    (binary(B.Pow, a, binary(B.Pow, unary(U.Neg, b), c)), "a ** (-b) ** c"),
    (binary(B.Pow, a, unary(U.Neg, binary(B.Pow, b, c))), "a ** -(b**c)"),
    (binary(B.Pow, a, unary(U.BitNot, b)), "a**~b"),
    (binary(B.Pow, a, unary(U.Neg, unary(U.Neg, b))), "a ** --b"),
    (binary(B.Pow, unary(U.Neg, a), b), "(-a) ** b"),
    (binary(B.Pow, a, unary(U.Neg, b)), "a**-b"),
    (binary(B.Pow, i(-5), i(2)), "(-5) ** 2"),
    (binary(B.Pow, a, i(-1)), "a**-1"),
    (binary(B.Pow, a, i(2, DataType.INT32)), "a ** pl.const(2, pl.INT32)"),
    (binary(B.Pow, binary(B.Add, a, b), i(2)), "(a + b) ** 2"),
    (binary(B.Mul, binary(B.Pow, a, i(2)), b), "a**2 * b"),
    (unary(U.Neg, binary(B.Pow, a, b)), "-(a**b)"),
    (unary(U.Neg, binary(B.Add, a, b)), "-(a + b)"),
    (unary(U.Neg, unary(U.Neg, a)), "--a"),
    (unary(U.Neg, i(-5)), "--5"),
    (binary(B.Sub, a, i(-5)), "a - -5"),
    (binary(B.Add, i(-5), a), "-5 + a"),
    (binary(B.Mul, unary(U.BitNot, a), b), "~a * b"),
    (unary(U.BitNot, binary(B.BitAnd, a, b)), "~(a & b)"),
    (binary(B.Lt, a, binary(B.Add, b, c)), "a < b + c"),
    (binary(B.Eq, binary(B.Lt, a, b), c), "(a < b) == c"),
    (binary(B.Lt, a, binary(B.Lt, b, c)), "a < (b < c)"),
    (binary(B.Ne, a, b), "a != b"),
    (binary(B.Le, a, b), "a <= b"),
    (binary(B.Ge, a, b), "a >= b"),
    (binary(B.Gt, a, b), "a > b"),
    (unary(U.Not, binary(B.And, a, b)), "not (a and b)"),
    (binary(B.And, unary(U.Not, a), b), "not a and b"),
    (binary(B.Eq, unary(U.Not, a), b), "(not a) == b"),
    (unary(U.Not, binary(B.Eq, a, b)), "not a == b"),
    (binary(B.Add, a, unary(U.Not, b)), "a + (not b)"),
    (unary(U.Neg, unary(U.Not, a)), "-(not a)"),
    (binary(B.Or, a, binary(B.And, b, c)), "a or b and c"),
    (binary(B.And, binary(B.Or, a, b), c), "(a or b) and c"),
    (binary(B.And, a, binary(B.And, b, c)), "a and (b and c)"),
    (binary(B.Shl, a, binary(B.Add, b, c)), "a << b + c"),
    (binary(B.Add, binary(B.Shr, a, b), c), "(a >> b) + c"),
    (binary(B.BitOr, binary(B.BitAnd, a, b), binary(B.Xor, c, d)), "a & b | c ^ d"),
    (binary(B.BitAnd, binary(B.BitOr, a, b), c), "(a | b) & c"),
    (binary(B.Min, binary(B.Add, a, b), c), "min(a + b, c)"),
    (binary(B.Mul, binary(B.Max, a, b), c), "max(a, b) * c"),
    (unary(U.Abs, binary(B.Sub, a, b)), "abs(a - b)"),
    (unary(U.Neg, unary(U.Abs, a)), "-abs(a)"),
    (binary(B.Pow, unary(U.Abs, a), i(2)), "abs(a) ** 2"),
]


@pytest.mark.parametrize(("expr", "text"), PRECEDENCE_CASES)
def test_precedence(expr: Expr, text: str) -> None:
    assert print_expr(expr) == text


@pytest.mark.parametrize(("expr", "text"), PRECEDENCE_CASES)
def test_python_reads_the_same_tree(expr: Expr, text: str) -> None:
    """Independent of the expected strings: Python's own parser must group the printed
    text exactly as the IR is grouped."""
    assert ast_shape(ast.parse(print_expr(expr), mode="eval").body) == ir_shape(expr)


@pytest.mark.parametrize(("expr", "text"), PRECEDENCE_CASES)
def test_black_leaves_expressions_alone(expr: Expr, text: str) -> None:
    assert black_keeps(print_expr(expr))


_AST_BINARY = {
    ast.Add: "Add",
    ast.Sub: "Sub",
    ast.Mult: "Mul",
    ast.FloorDiv: "FloorDiv",
    ast.Mod: "FloorMod",
    ast.Div: "FloatDiv",
    ast.Pow: "Pow",
    ast.BitXor: "Xor",
    ast.BitAnd: "BitAnd",
    ast.BitOr: "BitOr",
    ast.LShift: "Shl",
    ast.RShift: "Shr",
}
_AST_COMPARE = {
    ast.Eq: "Eq",
    ast.NotEq: "Ne",
    ast.Lt: "Lt",
    ast.LtE: "Le",
    ast.Gt: "Gt",
    ast.GtE: "Ge",
}
_AST_UNARY = {ast.USub: "Neg", ast.Invert: "BitNot", ast.Not: "Not"}


def ast_shape(node: ast.expr) -> Any:
    match node:
        case ast.Name(id=name):
            return ("name", name)
        case ast.Constant(value=value):
            return ("num", value)
        case ast.UnaryOp(op=ast.USub(), operand=ast.Constant(value=int() | float() as value)):
            return ("num", -value)
        case ast.UnaryOp(op=op_, operand=operand):
            return (_AST_UNARY[type(op_)], ast_shape(operand))
        case ast.BinOp(left=left, op=op_, right=right):
            return (_AST_BINARY[type(op_)], ast_shape(left), ast_shape(right))
        case ast.BoolOp(op=op_, values=values):
            name = "And" if isinstance(op_, ast.And) else "Or"
            shape = ast_shape(values[0])
            for value in values[1:]:
                shape = (name, shape, ast_shape(value))
            return shape
        case ast.Compare(left=left, ops=[op_], comparators=[right]):
            return (_AST_COMPARE[type(op_)], ast_shape(left), ast_shape(right))
        case ast.Call(func=ast.Name(id=name), args=args) if name in ("min", "max", "abs"):
            return (name.capitalize(), *(ast_shape(arg) for arg in args))
        case ast.Call(func=ast.Attribute(attr="const"), args=[value, ast.Attribute(attr=dt)]):
            return ("const", ast_shape(value)[1], dt)
    raise AssertionError(f"unexpected syntax: {ast.dump(node)}")


def ir_shape(e: Expr) -> Any:
    match e:
        case Var(name=name):
            return ("name", name)
        case ConstInt() | ConstFloat() if e.dtype in (DataType.INT64, DataType.FP32):
            return ("num", e.value)
        case ConstInt() | ConstFloat():
            return ("const", e.value, e.dtype.name)
        case Binary(op=op_, lhs=lhs, rhs=rhs):
            return (op_.name, ir_shape(lhs), ir_shape(rhs))
        case Unary(op=op_, operand=operand):
            return (op_.name, ir_shape(operand))
    raise AssertionError(f"unexpected IR: {e!r}")


# --- calls ---------------------------------------------------------------------------------

T = tensor_t(64, 128)
t, u = var("t", T), var("u", T)


def test_op_call_uses_namespace_and_name() -> None:
    assert print_expr(call("block.add", t, u)) == "pl.block.add(t, u)"


def test_op_call_uses_first_dsl_name() -> None:
    assert print_expr(call("block.and", t, u)) == "pl.block.and_(t, u)"
    shape = make_tuple((i(64), i(128)))
    created = call("tensor.create", shape, dtype=DataType.FP32)
    assert print_expr(created) == "pl.tensor.create_tensor([64, 128], dtype=pl.FP32)"


def test_tensor_scalar_op_prints_without_suffix() -> None:
    assert print_expr(call("tensor.add_scalar", t, f(1.5))) == "pl.tensor.add(t, 1.5)"


def test_unregistered_tensor_scalar_op_also_drops_the_suffix() -> None:
    assert print_expr(call("tensor.mul_scalar", t, i(2))) == "pl.tensor.mul(t, 2)"


def test_unregistered_op_keeps_short_name_and_all_kwargs() -> None:
    text = print_expr(call("block.frobnicate", t, mode=1, scale=0.5))
    assert text == "pl.block.frobnicate(t, mode=1, scale=0.5)"


def test_unregistered_keyword_named_op_gets_an_underscore() -> None:
    assert print_expr(call("block.not", t)) == "pl.block.not_(t)"


def test_attribute_equal_to_default_is_omitted() -> None:
    offsets, shapes = make_tuple((i(0), i(0))), make_tuple((i(32), i(32)))
    load_vec = call("block.load", t, offsets, shapes, target_memory=MemorySpace.Vec)
    load_mat = call("block.load", t, offsets, shapes, target_memory=MemorySpace.Mat)
    assert print_expr(load_vec) == "pl.block.load(t, [0, 0], [32, 32])"
    assert print_expr(load_mat) == (
        "pl.block.load(t, [0, 0], [32, 32], target_memory=pl.MemorySpace.Mat)"
    )


def test_required_attribute_is_always_printed() -> None:
    cast = call("block.cast", t, target_type=DataType.FP16, mode="round")
    assert print_expr(cast) == "pl.block.cast(t, target_type=pl.FP16)"
    cast = call("block.cast", t, target_type=DataType.FP16, mode="floor")
    assert print_expr(cast) == 'pl.block.cast(t, target_type=pl.FP16, mode="floor")'


def test_bool_is_not_taken_for_an_int_default() -> None:
    assert print_expr(call("block.flagged", t, count=True)) == "pl.block.flagged(t, count=True)"
    assert print_expr(call("block.flagged", t, count=1)) == "pl.block.flagged(t)"


def test_attribute_value_kinds() -> None:
    text = print_expr(
        call(
            "block.frobnicate",
            t,
            n=-3,
            ratio=0.5,
            flag=False,
            name="it's",
            plain="x",
            dtype=DataType.BF16,
            space=MemorySpace.Left,
            pipe=PipeType.MTE2,  # type: ignore[arg-type]
            axes=(0, (1, 2)),
            nothing=None,
        )
    )
    assert text == (
        'pl.block.frobnicate(t, n=-3, ratio=0.5, flag=False, name="it\'s", plain="x", '
        "dtype=pl.BF16, space=pl.MemorySpace.Left, pipe=pl.PipeType.MTE2, axes=[0, [1, 2]], "
        "nothing=None)"
    )


def test_sync_op_in_system_namespace() -> None:
    sync = call("system.sync_src", set_pipe=PipeType.MTE2, wait_pipe=PipeType.V, event_id=0)  # type: ignore[arg-type]
    assert print_expr(sync) == (
        "pl.system.sync_src(set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0)"
    )
    assert print_expr(call("system.bar_all")) == "pl.system.bar_all()"


def test_function_call_goes_through_self() -> None:
    assert print_expr(fn_call("helper", t, a)) == "self.helper(t, a)"


def test_make_tuple_is_a_list() -> None:
    assert print_expr(make_tuple((a, i(1), binary(B.Mul, b, i(32))))) == "[a, 1, b * 32]"
    assert print_expr(MakeTuple(TupleType(()), elements=())) == "[]"


def test_tuple_get_item() -> None:
    pair = var("_t", TupleType((T, T)))
    assert print_expr(TupleGetItem(T, tuple_value=pair, index=1)) == "_t[1]"
    result = fn_call("split", t, type_=TupleType((T, T)))
    assert print_expr(TupleGetItem(T, tuple_value=result, index=0)) == "self.split(t)[0]"


def test_nested_calls_and_scalar_arguments() -> None:
    inner = call("block.add", t, u)
    offset = binary(B.Mul, a, i(32))
    outer = call("block.load", inner, make_tuple((offset, i(0))), make_tuple((i(32), i(32))))
    assert print_expr(outer) == "pl.block.load(pl.block.add(t, u), [a * 32, 0], [32, 32])"


# --- prefix --------------------------------------------------------------------------------


def test_prefix_applies_everywhere() -> None:
    expr = call(
        "block.load",
        t,
        make_tuple((i(0, DataType.INT32), i(0))),
        make_tuple((i(32), i(32))),
        target_memory=MemorySpace.Mat,
    )
    assert print_expr(expr, prefix="pi") == (
        "pi.block.load(t, [pi.const(0, pi.INT32), 0], [32, 32], target_memory=pi.MemorySpace.Mat)"
    )


def test_unary_node_ids() -> None:
    """Every UnaryOp has a spelling (guards against a new enum member going unprinted)."""
    for op_ in UnaryOp:
        text = print_expr(Unary(a.type, op=op_, operand=a))
        assert "a" in text and text != "a"
