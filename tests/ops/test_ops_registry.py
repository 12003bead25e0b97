"""The registry as a whole: the op set, metadata every consumer relies on, lowerings, pipes."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from ops_ir import opdef

from ptoc.editions import Edition
from ptoc.ir import DataType, MemorySpace
from ptoc.ops import GM_ELEMENT, REGISTRY, REQUIRED, Category, OpDef, ParamKind, PipeType

OPS_DIR = Path(opdef("block.add").source_file).parent

TENSOR_OPS = {
    "create",
    "read",
    "dim",
    "view",
    "assemble",
    "reshape",
    "transpose",
    "add",
    "sub",
    "mul",
    "div",
    "add_scalar",
    "sub_scalar",
    "mul_scalar",
    "div_scalar",
    "maximum",
    "exp",
    "cast",
    "row_max",
    "row_sum",
    "matmul",
}
BLOCK_OPS = {
    # 7.2 memory
    "create_tile",
    "load",
    "store",
    "l0c_store",
    "move",
    "vec_move",
    "insert",  # (pass-inserted: a block of a product over Acc into a Mat tile)
    "full",
    "fillpad",
    "get_block_idx",
    "alloc",
    # 7.3 element-wise
    "add",
    "sub",
    "mul",
    "div",
    "maximum",
    "minimum",
    "rem",
    "and",
    "or",
    "shl",
    "shr",
    "xor",
    "prelu",
    "addc",
    "subc",
    "adds",
    "subs",
    "muls",
    "divs",
    "rems",
    "maxs",
    "mins",
    "lrelu",
    "ands",
    "ors",
    "shls",
    "shrs",
    "xors",
    "addsc",
    "subsc",
    "sel",
    "sels",
    "cmp",
    "cmps",
    # inserted by AddReductionScratch: what block.cmp and block.transpose are computed with
    "cmp_mask",
    "cmps_mask",
    "select_scalar",
    "select_tiles",
    "transpose_scratch",
    "neg",
    "exp",
    "sqrt",
    "rsqrt",
    "recip",
    "log",
    "abs",
    "relu",
    "not",
    "cast",
    # 7.4 matmul
    "matmul",
    "gemv",
    "matmul_acc",
    "gemv_acc",
    "matmul_bias",
    "gemv_bias",
    "batch_matmul",
    # 7.5 reductions, broadcasts, transforms
    "sum",
    "max",
    "min",
    "row_sum",
    "row_max",
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
    "view",
    "reshape",
    "transpose",
}
SYSTEM_OPS = {"sync_src", "sync_dst", "bar_v", "bar_m", "bar_all"}

ALL_OPS = sorted(REGISTRY, key=lambda o: o.name)


def test_the_op_set_is_complete() -> None:
    expected = (
        {f"tensor.{n}" for n in TENSOR_OPS}
        | {f"block.{n}" for n in BLOCK_OPS}
        | {f"system.{n}" for n in SYSTEM_OPS}
    )
    assert {o.name for o in REGISTRY if o.since is Edition.V2026_03} == expected
    # the ops 2026-08 added: tests/ops/test_ops_2608.py


def test_categories() -> None:
    for definition in REGISTRY:
        namespace = definition.namespace
        if namespace == "pld":  # pld.<group>.X: the group's category
            namespace = {"tile": "block"}.get(definition.short_name.split(".")[0], "tensor")
            namespace = "system" if definition.short_name.startswith("system.") else namespace
        expected = {
            "tensor": Category.TENSOR,
            "block": Category.BLOCK,
            "system": Category.SYNC,
            "array": Category.SYNC,
            "prefetch": Category.SYNC,
        }[namespace]
        assert definition.category is expected, definition.name


@pytest.mark.parametrize("definition", ALL_OPS, ids=lambda o: o.name)
def test_metadata(definition: OpDef) -> None:
    assert definition.description.strip()
    assert definition.type_rule_doc.strip()
    assert isinstance(definition.pipe, PipeType)
    for param in definition.params:
        assert param.doc.strip(), f"{definition.name}.{param.name}"
        if param.kind is ParamKind.ATTR:
            assert param.attr_types, f"{definition.name}.{param.name}"
        else:
            assert param.accepts, f"{definition.name}.{param.name}"
    # Both lowerings decided: an instruction, or a note saying why there is none.
    for lowering in (definition.cce, definition.pto):
        assert lowering.instruction or lowering.note, definition.name


@pytest.mark.parametrize("definition", ALL_OPS, ids=lambda o: o.name)
def test_source_location_points_at_the_registration(definition: OpDef) -> None:
    path = Path(definition.source_file)
    assert path.parent == OPS_DIR and path.suffix == ".py"
    assert path.name in ("tensor.py", "block.py", "system.py") or (
        definition.since is Edition.V2026_08
        and re.fullmatch(r"(tile|tensor|system|distributed)_2608\w*\.py", path.name)
    )
    line = path.read_text().splitlines()[definition.name_line - 1]
    assert f'"{definition.short_name}"' in line or f'"{definition.name}"' in line, line


def test_expr_params_with_defaults_are_trailing() -> None:
    # Call.args holds EXPR arguments in order: an omitted optional one must be the last.
    for definition in REGISTRY:
        exprs = [p for p in definition.params if p.kind is ParamKind.EXPR]
        optional = [i for i, p in enumerate(exprs) if not p.required]
        assert optional in ([], list(range(len(exprs) - len(optional), len(exprs)))), (
            definition.name
        )


def test_pipes() -> None:
    expected = {
        "block.load": PipeType.MTE2,
        "block.store": PipeType.MTE3,
        "block.l0c_store": PipeType.FIX,
        "block.move": PipeType.MTE1,
        "block.matmul": PipeType.M,
        "block.gemv_bias": PipeType.M,
        "block.add": PipeType.V,
        "block.sum": PipeType.V,
        "block.row_expand_mul": PipeType.V,
        "block.cast": PipeType.V,
        "block.expands": PipeType.V,
        "block.get_block_idx": PipeType.S,
    }
    for name, pipe in expected.items():
        assert opdef(name).pipe is pipe, name
    for definition in REGISTRY:
        if definition.namespace in ("tensor", "system"):
            assert definition.pipe is PipeType.S, definition.name
        if definition.name.startswith(("block.matmul", "block.gemv")):
            assert definition.pipe is PipeType.M, definition.name


# Seed 000's ISA mapping table, plus the pto-isa names of every other block op.
CCE = {
    "block.load": "TLOAD",
    "block.store": "TSTORE",
    "block.l0c_store": "TSTORE",
    "block.add": "TADD",
    "block.sub": "TSUB",
    "block.mul": "TMUL",
    "block.div": "TDIV",
    "block.adds": "TADDS",
    "block.subs": "TSUBS",
    "block.muls": "TMULS",
    "block.divs": "TDIVS",
    "block.sqrt": "TSQRT",
    "block.sum": "TROWSUM",
    "block.max": "TROWMAX",
    "block.min": "TROWMIN",
    "system.sync_src": "set_flag",
    "system.sync_dst": "wait_flag",
    "system.bar_v": "pipe_barrier",
    "system.bar_m": "pipe_barrier",
    "system.bar_all": "pipe_barrier",
    "block.exp": "TEXP",
    "block.log": "TLOG",
    "block.abs": "TABS",
    "block.relu": "TRELU",
    "block.neg": "TNEG",
    "block.rsqrt": "TRSQRT",
    "block.recip": "TRECIP",
    "block.maximum": "TMAX",
    "block.minimum": "TMIN",
    "block.maxs": "TMAXS",
    "block.mins": "TMINS",
    "block.rem": "TREM",
    "block.rems": "TREMS",
    "block.and": "TAND",
    "block.or": "TOR",
    "block.xor": "TXOR",
    "block.shl": "TSHL",
    "block.shr": "TSHR",
    "block.ands": "TANDS",
    "block.ors": "TORS",
    "block.xors": "TXORS",
    "block.shls": "TSHLS",
    "block.shrs": "TSHRS",
    "block.not": "TNOT",
    "block.prelu": "TPRELU",
    "block.lrelu": "TLRELU",
    "block.addc": "TADDC",
    "block.subc": "TSUBC",
    "block.addsc": "TADDSC",
    "block.subsc": "TSUBSC",
    "block.sel": "TSEL",
    "block.sels": None,  # pto-isa's TSELS takes a mask tile and a scalar
    "block.cmp": "TCMP",
    "block.cmp_mask": "TCMP",
    "block.select_scalar": "TSELS",
    "block.select_tiles": "TSEL",
    "block.cmps": "TCMPS",
    "block.cmps_mask": "TCMPS",
    "block.cast": "TCVT",
    "block.matmul": "TMATMUL",
    "block.matmul_acc": "TMATMUL_ACC",
    "block.matmul_bias": "TMATMUL_BIAS",
    "block.gemv": "TGEMV",
    "block.gemv_acc": "TGEMV_ACC",
    "block.gemv_bias": "TGEMV_BIAS",
    "block.row_sum": "TROWSUM",
    "block.row_max": "TROWMAX",
    "block.row_min": "TROWMIN",
    "block.row_expand": "TROWEXPAND",
    "block.row_expand_add": "TROWEXPANDADD",
    "block.row_expand_sub": "TROWEXPANDSUB",
    "block.row_expand_mul": "TROWEXPANDMUL",
    "block.row_expand_div": "TROWEXPANDDIV",
    "block.col_expand": "TCOLEXPAND",
    "block.col_expand_mul": "TCOLEXPANDMUL",
    "block.col_expand_div": "TCOLEXPANDDIV",
    "block.col_expand_sub": "TCOLEXPANDSUB",
    "block.expands": "TEXPANDS",
    "block.full": "TEXPANDS",
    "block.transpose": "TTRANS",
    "block.transpose_scratch": "TTRANS",
    "block.reshape": "TRESHAPE",
    "block.move": "TMOV",
    "block.vec_move": "TMOV",
    "block.insert": "TINSERT",
    "block.fillpad": "TFILLPAD",
    "block.view": "TEXTRACT",
    "block.get_block_idx": "get_block_idx",
    # no instruction of their own (each has a note saying why)
    "block.create_tile": None,
    "block.alloc": None,
    "block.batch_matmul": None,
}


# Seed 002's mapping table and the sync spellings.
PTO = {
    "block.load": "pto.tload",
    "block.insert": "pto.tinsert",
    "block.store": "pto.tstore",
    "block.mul": "pto.tmul",
    "block.adds": "pto.tadds",
    "block.addc": "pto.taddc",
    "system.sync_src": "pto.set_flag",
    "system.sync_dst": "pto.wait_flag",
    "system.bar_all": "pto.barrier",
    "block.row_expand_add": "pto.trowexpandadd",
    "block.matmul": "pto.tmatmul",
}


def test_cce_lowerings() -> None:
    kernel_ops = {
        o.name for o in REGISTRY if o.namespace != "tensor" and o.since is Edition.V2026_03
    }
    assert set(CCE) == kernel_ops
    for name, instruction in CCE.items():
        assert opdef(name).cce.instruction == instruction, name
    assert opdef("block.sum").cce.note == "axis=0 -> TCOLSUM, axis=1 -> TROWSUM"
    assert opdef("block.max").cce.note == "axis=0 -> TCOLMAX, axis=1 -> TROWMAX"
    assert opdef("system.bar_m").cce.note == "PIPE_M"


def test_pto_lowerings() -> None:
    for name, instruction in PTO.items():
        assert opdef(name).pto.instruction == instruction, name
    assert opdef("block.load").pto.note == "with pto.partition_view for the window"
    assert opdef("block.sum").pto.note == "axis=0 -> pto.tcolsum, axis=1 -> pto.trowsum"
    assert opdef("block.matmul_acc").pto.instruction == "pto.tmatmul.acc"  # the dialect's dots
    assert opdef("block.gemv_bias").pto.instruction == "pto.tgemv.bias"
    for definition in REGISTRY:  # a block instruction's dialect op: lower case, variants dotted
        cce, pto = definition.cce.instruction, definition.pto.instruction
        if cce is not None and cce.startswith("T") and pto is not None:
            # (2026-08's pto.tfillpad_expand / _inplace keep the underscore)
            dotted, kept = "pto." + cce.lower().replace("_", "."), "pto." + cce.lower()
            assert pto in (dotted, kept if cce.startswith("TFILLPAD_") else dotted), definition.name
    # an instruction the dialect spells differently says why it has no PTO form
    assert opdef("block.sels").pto.instruction is None
    assert (
        "tmp" not in opdef("block.sels").pto.note and "scratch tile" in opdef("block.sels").pto.note
    )


def _vendor(*parts: str) -> Path:
    path = Path(__file__).resolve().parents[2].parent / "shared" / "vendor"
    path = path.joinpath(*parts)
    if not path.exists():
        if os.environ.get("CI") == "true":
            pytest.fail(f"{path} is missing")
        pytest.skip(f"{path} is missing (the real target tools)")
    return path


def _lowering_names(definition: OpDef, target: str) -> set[str]:
    lowering = definition.lowering(target)
    names = {
        lowering.instruction,
        lowering.column_form,
        lowering.row_broadcast,
        lowering.col_broadcast,
    }
    return {n for n in names if n is not None}


def test_every_pto_op_name_is_one_the_dialect_defines() -> None:
    text = _vendor("ptoas", "spec", "PTOOps.td").read_text()
    defined = {"pto." + m for m in re.findall(r'Op<"([a-z_.0-9]+)"', text)}
    used = {n for d in REGISTRY for n in _lowering_names(d, "pto")}
    assert used, "no PTO lowerings"
    assert used - defined == set()


def test_every_cce_instruction_exists_in_pto_isa() -> None:
    include = _vendor("pto-isa", "include", "pto")
    text = "\n".join(p.read_text(errors="replace") for p in include.rglob("*.hpp"))
    used = {n for d in REGISTRY for n in _lowering_names(d, "cce")}
    # (an element of a kernel's tensor parameter is C++ indexing, no instruction: below)
    missing = {n for n in used - {GM_ELEMENT} if not re.search(rf"\b{re.escape(n)}\b", text)}
    assert missing == set()


def test_only_tensor_read_is_a_read_through_a_parameters_pointer() -> None:
    assert [d.name for d in REGISTRY if d.cce.instruction == GM_ELEMENT] == ["tensor.read"]
    assert opdef("tensor.read").pto.instruction == "pto.load_scalar"


def test_tensor_ops_have_no_kernel_lowering() -> None:
    """But tensor.read: an element of a kernel's tensor parameter (a block table) is read by
    the scalar unit in the kernel, as upstream's paged-attention kernels do."""
    for definition in REGISTRY.in_namespace("tensor"):
        if definition.name == "tensor.read":
            continue
        for lowering in (definition.cce, definition.pto):
            assert lowering.instruction is None
            assert (
                lowering.note
                == "tensor ops run on the orchestration side; use block ops in kernels"
            )


def test_dsl_names() -> None:
    assert opdef("block.and").dsl_names == ("and_",)
    assert opdef("block.or").dsl_names == ("or_",)
    assert opdef("block.not").dsl_names == ("not_",)
    assert opdef("tensor.create").dsl_names == ("create_tensor", "create")
    assert opdef("block.add").dsl_names == ()  # the short name


def test_internal_ops() -> None:
    hidden = {o.name for o in REGISTRY if not o.dsl_visible}
    assert hidden == {
        "block.alloc",
        "block.batch_matmul",
        "block.cmp_mask",
        "block.cmps_mask",
        "block.insert",
        "block.select_scalar",
        "block.select_tiles",
        "block.transpose_scratch",
    }


@pytest.mark.parametrize(
    ("name", "signature"),
    [
        # the IR op carries 2026-08's valid region (spec §11) as its last operand
        (
            "block.load",
            "block.load(tensor, offsets, shapes, target_memory=pl.MemorySpace.Vec, "
            "valid_shape=None)",
        ),
        ("block.store", "block.store(tile, offsets, shapes, output_tensor, atomic=None)"),
        ("block.sum", "block.sum(tile, axis, keepdim=False)"),
        ("block.cast", "block.cast(tile, target_type, mode='round')"),
        ("block.cmp", "block.cmp(lhs, rhs, cmp_type=0)"),
        ("block.create_tile", "block.create_tile(shape, dtype, target_memory=pl.MemorySpace.Vec)"),
        ("block.full", "block.full(shape, dtype, value)"),
        ("block.move", "block.move(tile, target_memory, transpose=False, dtype=None)"),
        ("block.row_sum", "block.row_sum(tile, tmp_tile=None)"),
        ("block.xor", "block.xor(lhs, rhs, tmp)"),
        ("block.sel", "block.sel(mask, lhs, rhs)"),
        ("block.addsc", "block.addsc(lhs, scalar, rhs2)"),
        ("block.matmul_acc", "block.matmul_acc(acc, lhs, rhs)"),
        ("tensor.create", "tensor.create(shape, dtype)"),
        (
            "tensor.matmul",
            "tensor.matmul(lhs, rhs, out_dtype=None, a_trans=False, b_trans=False, "
            "c_matrix_nz=False)",
        ),
        ("tensor.view", "tensor.view(tensor, shape, offset)"),
        ("system.sync_src", "system.sync_src(set_pipe, wait_pipe, event_id)"),
        ("system.bar_all", "system.bar_all()"),
    ],
)
def test_signatures(name: str, signature: str) -> None:
    assert opdef(name).signature() == signature


def test_attribute_params() -> None:
    load_memory = opdef("block.load").param("target_memory")
    assert load_memory is not None
    assert (load_memory.kind, load_memory.default, load_memory.attr_types) == (
        ParamKind.ATTR,
        MemorySpace.Vec,
        (MemorySpace,),
    )
    axis = opdef("block.sum").param("axis")
    assert axis is not None and (axis.kind, axis.default, axis.attr_types) == (
        ParamKind.ATTR,
        REQUIRED,
        (int,),
    )
    target = opdef("tensor.cast").param("target_type")
    assert target is not None and target.attr_types == (DataType,)
    for name in ("block.create_tile", "block.full", "tensor.create"):
        dtype = opdef(name).param("dtype")
        assert (
            dtype is not None and dtype.kind is ParamKind.ATTR and dtype.attr_types == (DataType,)
        )
    shape = opdef("block.create_tile").param("shape")
    assert shape is not None and (shape.kind, shape.accepts) == (ParamKind.EXPR, ("shape",))


def test_matmul_descriptions_state_the_acc_view() -> None:
    for name in ("block.matmul", "block.gemv_acc", "block.matmul_bias", "block.batch_matmul"):
        assert "blayout col_major, slayout row_major, fractal 1024" in opdef(name).description
