"""Resolving DSL spellings to ops (spec section 5), namespace by namespace."""

from __future__ import annotations

import pytest
from ir_builder import FP32, INT64, tensor_t, tile_t

from ptoc.editions import Edition
from ptoc.ir import UNKNOWN, BinaryOp, ScalarType, TupleType, Type
from ptoc.ops import REGISTRY, resolve_op
from ptoc.ops.dispatch import Resolution, dsl_spellings

# Unified names that always mean the tensor op / the block op, whatever the arguments (the
# ops' ``unified_always`` trait; these lists pin the behaviour of spec section 5).
TENSOR_ONLY = frozenset(
    {
        "create_tensor",
        "dim",
        "assemble",
        "add_scalar",
        "sub_scalar",
        "mul_scalar",
        "div_scalar",
    }
)
BLOCK_ONLY = frozenset(
    {
        "load",
        "store",
        "l0c_store",
        "move",
        "neg",
        "sqrt",
        "rsqrt",
        "recip",
        "log",
        "relu",
        "abs",
        "matmul_acc",
        "matmul_bias",
        "gemv",
        "gemv_acc",
        "gemv_bias",
        "minimum",
        "cmp",
        "cmps",
        "adds",
        "subs",
        "muls",
        "divs",
        "sum",
        "row_min",
        "row_expand",
        "row_expand_add",
        "row_expand_sub",
        "row_expand_mul",
        "row_expand_div",
        "col_expand",
        "col_expand_mul",
        "col_expand_div",
        "col_expand_sub",
        "expands",
        "create_tile",
        # 2026-08 ops whose first argument is not a tile (a scalar, a tensor, none)
        "arange",
        "tri",
        "random",
        "mgather",
        "get_block_num",
        "get_subblock_idx",
    }
)

T = tensor_t(8, 8)
t = tile_t(8, 8)
S = ScalarType(INT64)
F = ScalarType(FP32)


def resolved(namespace: tuple[str, ...], name: str, *types: Type) -> str:
    resolution = resolve_op(namespace, name, list(types))
    assert resolution.op is not None, resolution
    assert resolution.code == ""
    return resolution.op.name


def failed(namespace: tuple[str, ...], name: str, *types: Type) -> Resolution:
    resolution = resolve_op(namespace, name, list(types))
    assert resolution.op is None
    assert resolution.scalar_binary is None
    return resolution


# --- pl.tensor.X / pl.block.X / pl.system.X ------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "types", "expected"),
    [
        ("add", (T, T), "tensor.add"),
        ("add", (T, S), "tensor.add_scalar"),
        ("sub", (T, F), "tensor.sub_scalar"),
        ("mul", (T, S), "tensor.mul_scalar"),
        ("div", (T, F), "tensor.div_scalar"),
        ("add_scalar", (T, S), "tensor.add_scalar"),
        ("create_tensor", (), "tensor.create"),
        ("create", (), "tensor.create"),  # the printer's older spelling still parses
        ("matmul", (T, T), "tensor.matmul"),
        ("maximum", (T, S), "tensor.maximum"),  # only add/sub/mul/div have scalar forms
    ],
)
def test_tensor_namespace(name: str, types: tuple[Type, ...], expected: str) -> None:
    assert resolved(("tensor",), name, *types) == expected


@pytest.mark.parametrize(
    ("name", "types", "expected"),
    [
        ("add", (t, t), "block.add"),
        ("add", (t, S), "block.adds"),
        ("sub", (t, F), "block.subs"),
        ("mul", (t, S), "block.muls"),
        ("div", (t, S), "block.divs"),
        ("and_", (t, t), "block.and"),
        ("or_", (t, t), "block.or"),
        ("not_", (t,), "block.not"),
        ("full", (TupleType(()),), "block.full"),
        ("get_block_idx", (), "block.get_block_idx"),
        ("load", (T,), "block.load"),
    ],
)
def test_block_namespace(name: str, types: tuple[Type, ...], expected: str) -> None:
    assert resolved(("block",), name, *types) == expected


def test_block_namespace_keyword_names_need_the_underscore() -> None:
    assert failed(("block",), "and", t, t).code == "E300"


@pytest.mark.parametrize("name", ["sync_src", "sync_dst", "bar_v", "bar_m", "bar_all"])
def test_system_namespace(name: str) -> None:
    assert resolved(("system",), name) == f"system.{name}"


def test_unknown_names_suggest_spellings_of_the_namespace() -> None:
    lod = failed(("block",), "lod", T)
    assert (lod.code, lod.message) == ("E300", "Unknown block operation: lod")
    assert lod.suggestions == ["load", "log"]
    assert len(failed(("block",), "ad", t).suggestions) <= 3
    assert failed(("tensor",), "reshap", T).suggestions[0] == "reshape"
    assert failed(("tensor",), "load", T).message == "Unknown tensor operation: load"
    sync = failed(("system",), "sync_sr")
    assert (sync.code, sync.message, sync.suggestions[0]) == (
        "E300",
        "Unknown system operation: sync_sr",
        "sync_src",
    )


@pytest.mark.parametrize("name", ["batch_matmul", "alloc"])
def test_internal_ops_cannot_be_called(name: str) -> None:
    resolution = failed(("block",), name, t, t)
    assert resolution.code == "E301"
    assert f"'block.{name}' is internal" in resolution.message
    assert failed((), name, t, t).code == "E301"


@pytest.mark.parametrize("namespace", [("op", "block"), ("op", "tensor")])
def test_legacy_namespaces(namespace: tuple[str, ...]) -> None:
    resolution = resolve_op(namespace, "add", [T, T] if namespace[1] == "tensor" else [t, t])
    assert resolution.op is not None and resolution.op.name == f"{namespace[1]}.add"
    assert resolution.legacy
    assert not resolve_op((namespace[1],), "add", [T, T]).legacy
    unknown = resolve_op(namespace, "lod", [T])
    assert (unknown.code, unknown.legacy) == ("E300", True)


def test_seed_004_row_sum_resolves() -> None:
    assert resolved(("op", "block"), "row_sum", t) == "block.row_sum"


@pytest.mark.parametrize("namespace", [("op", "system"), ("foo",), ("block", "x"), ("op",)])
def test_unknown_namespace(namespace: tuple[str, ...]) -> None:
    resolution = failed(namespace, "add", t, t)
    assert resolution.code == "E300"
    assert resolution.message == f"Unknown operation namespace 'pl.{'.'.join(namespace)}'"


# --- unified pl.X --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(TENSOR_ONLY))
def test_tensor_only_names(name: str) -> None:
    # Whatever the arguments: the op's own rule reports a wrong argument.
    expected = "tensor.create" if name == "create_tensor" else f"tensor.{name}"
    assert resolved((), name, t, S) == expected


@pytest.mark.parametrize("name", sorted(BLOCK_ONLY))
def test_block_only_names(name: str) -> None:
    expected = "block.ci" if name == "arange" else f"block.{name}"  # pl.arange: tile.ci
    assert resolved((), name, T, S) == expected


def test_unified_always_trait_is_exactly_these_names() -> None:
    marked = {
        (op.dsl_names or (op.short_name,))[0]: op.namespace for op in REGISTRY if op.unified_always
    }
    assert {n for n, ns in marked.items() if ns == "tensor"} == TENSOR_ONLY
    assert {n for n, ns in marked.items() if ns == "block"} == BLOCK_ONLY


@pytest.mark.parametrize(
    ("name", "types", "expected"),
    [
        ("add", (T, T), "tensor.add"),
        ("add", (t, t), "block.add"),
        ("add", (t, S), "block.adds"),
        ("sub", (t, F), "block.subs"),
        ("mul", (t, S), "block.muls"),
        ("div", (t, F), "block.divs"),
        ("add", (T, F), "tensor.add_scalar"),
        ("div", (T, S), "tensor.div_scalar"),
        ("exp", (T,), "tensor.exp"),
        ("exp", (t,), "block.exp"),
        ("cast", (T,), "tensor.cast"),
        ("cast", (t,), "block.cast"),
        ("matmul", (t, t), "block.matmul"),
        ("matmul", (T, T), "tensor.matmul"),
        ("row_sum", (t, t), "block.row_sum"),
        ("row_max", (T,), "tensor.row_max"),
        ("view", (t,), "block.view"),
        ("reshape", (T,), "tensor.reshape"),
        ("transpose", (t,), "block.transpose"),
        ("maximum", (t, t), "block.maximum"),
        ("max", (t,), "block.max"),
        # names the original accepts on tiles through type dispatch
        ("and_", (t, t), "block.and"),
        ("rem", (t, t), "block.rem"),
        ("sel", (t, t), "block.sel"),
        ("maxs", (t, S), "block.maxs"),
        ("fillpad", (t,), "block.fillpad"),
        ("read", (T,), "tensor.read"),
    ],
)
def test_type_dispatch(name: str, types: tuple[Type, ...], expected: str) -> None:
    assert resolved((), name, *types) == expected


@pytest.mark.parametrize(("name", "op"), [("min", BinaryOp.Min), ("max", BinaryOp.Max)])
def test_scalar_min_max(name: str, op: BinaryOp) -> None:
    resolution = resolve_op((), name, [S, F])
    assert (resolution.op, resolution.code, resolution.scalar_binary) == (None, "", op)


@pytest.mark.parametrize(
    ("name", "types"), [("add", (S, S)), ("min", (S,)), ("max", (S, t)), ("exp", (F,))]
)
def test_other_scalar_calls(name: str, types: tuple[Type, ...]) -> None:
    resolution = failed((), name, *types)
    assert (resolution.code, resolution.message) == (
        "E310",
        f"Operation '{name}' is not supported for scalar arguments",
    )


def test_no_arguments() -> None:
    resolution = failed((), "add")
    assert resolution.code == "E310"
    assert resolution.message == "Operation 'add' requires at least one argument for type dispatch"
    # A name only one namespace has says where it lives.
    rem = failed((), "rem")
    assert rem.message == (
        "Operation 'rem' requires at least one argument for type dispatch (use pl.block.rem)"
    )


def test_wrong_kind_for_a_one_sided_name() -> None:
    rem = failed((), "rem", T, T)
    assert (rem.code, rem.message) == (
        "E310",
        "Operation 'rem' is not supported for tensor arguments (it takes tiles)",
    )
    # (2026-08 gave every 2026-03 tensor-only name a tile twin: read, full, ...)
    clone = failed((), "expand_clone", t)
    assert (clone.code, clone.message) == (
        "E310",
        "Operation 'expand_clone' is not supported for tile arguments (it takes tensors)",
    )


def test_other_first_argument_types() -> None:
    rem = failed((), "rem", TupleType((S, S)))
    assert (rem.code, rem.message) == (
        "E310",
        "Cannot dispatch 'rem': first argument has type tuple[Scalar[INT64], Scalar[INT64]] "
        "(use pl.block.rem)",
    )
    assert (
        failed((), "add", TupleType(())).message
        == "Cannot dispatch 'add': first argument has type tuple[]"
    )


def test_unknown_unified_name() -> None:
    resolution = failed((), "lod", T)
    assert (resolution.code, resolution.message) == ("E300", "Unknown tensor operation: lod")
    assert resolution.suggestions == ["load", "log"]
    assert failed((), "ad", t).message == "Unknown block operation: ad"
    assert failed((), "ad", S).message == "Unknown operation: ad"
    assert failed((), "sync_src").code == "E300"  # sync ops are only pl.system.X
    assert "create" not in failed((), "creat", T).suggestions  # pl.create is not a unified name


def test_unknown_first_argument() -> None:
    # Resolved by name when only one namespace has it (so later arguments are still checked) ...
    assert resolved((), "sqrt", UNKNOWN) == "block.sqrt"
    assert resolved((), "expand_clone", UNKNOWN) == "tensor.expand_clone"
    assert resolved((), "adds", UNKNOWN, S) == "block.adds"
    # ... silent when ambiguous: the earlier error already explains it.
    for name in ("add", "exp", "min", "max"):
        resolution = resolve_op((), name, [UNKNOWN, S])
        assert (resolution.op, resolution.code, resolution.scalar_binary) == (None, "", None)
    assert failed((), "lod", UNKNOWN).code == "E300"


# --- spellings for completion --------------------------------------------------------------------


def test_dsl_spellings() -> None:
    block = dict(dsl_spellings(("block",)))
    assert block["and_"].name == "block.and"
    assert "and" not in block and "batch_matmul" not in block and "alloc" not in block
    assert dict(dsl_spellings(("op", "block"))) == block
    tensor = dsl_spellings(("tensor",))
    assert [name for name, op in tensor if op.name == "tensor.create"] == [
        "create",
        "create_tensor",
    ]
    assert [name for name, op in dsl_spellings(("system",)) if op.since is Edition.V2026_03] == [
        "bar_all",
        "bar_m",
        "bar_v",
        "sync_dst",
        "sync_src",
    ]
    assert dsl_spellings(("nope",)) == []


def test_unified_spellings() -> None:
    pairs = dsl_spellings(())
    names = [name for name, _ in pairs]
    assert names == sorted(set(names))  # sorted, each spelling once
    unified = dict(pairs)
    assert unified["create_tensor"].name == "tensor.create"
    assert unified["dim"].name == "tensor.dim"
    assert unified["add_scalar"].name == "tensor.add_scalar"
    assert unified["add"].name == "block.add"  # shared names are listed with the block op
    assert unified["load"].name == "block.load"
    assert "create" not in unified and "sync_src" not in unified and "batch_matmul" not in unified
    for name in names:  # every listed spelling resolves (given a tile, a tensor or a scalar)
        for first in (t, T, S):
            if resolve_op((), name, [first, first]).op is not None:
                break
        else:
            raise AssertionError(f"pl.{name} resolves for no argument kind")
