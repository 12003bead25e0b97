"""The ops PyPTO 2026-08 added (spec pypto-2026-08.md section 9): registered once each, since
2026-08, with the type their rules deduce (shape, dtype, where a tile lives), the error a wrong
operand gets, their lowerings and how the unified ``pl.X`` reaches them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from ir_builder import (
    FP16,
    FP32,
    INT16,
    INT32,
    f,
    i,
    ints,
    scalar,
    tensor,
    tensor_t,
    tile,
    tile_t,
    var,
)
from ops_ir import assert_error, assert_type, deduce, error, opdef

from ptoc.editions import Edition
from ptoc.ir import UNKNOWN, DataType, Expr, MemorySpace, PadMode, ScalarType, TupleType, Type
from ptoc.ir.types import TileType
from ptoc.ops import REGISTRY, Access, resolve_op

NEW = [op for op in REGISTRY if op.since is Edition.V2026_08]
S = scalar("s", DataType.INT64)
UINT32 = DataType.UINT32

# spec 9.1 / 9.2, minus the ops the registry had under another name (renames: the lead's).
TILE_2608 = """sin cos fmod fmods part_add part_max part_min part_mul col_expand_add col_expand_max
    col_expand_min col_expand_expdif row_expand_max row_expand_min row_expand_expdif col_max
    col_min col_prod col_sum row_prod row_argmax row_argmin col_argmax col_argmin concat ci tri
    random extract fillpad_expand fillpad_inplace assemble set_validshape reinterpret_view
    transpose_view read write get_block_num get_subblock_idx gather gather_compare gather_mask
    gatherb gather_row mgather scatter scatter_mask scatter_update mscatter sort32 mrgsort
    batch_matmul_acc matmul_mx matmul_mx_acc matmul_mx_bias aiv_shard aic_gather"""
TENSOR_2608 = """cmp abs neg sqrt rsqrt recip log sin cos not minimum fmod and or xor shl shr ands
    ors
    shls shrs xors fmods expands part_add part_max part_min part_mul row_expand row_expand_add
    row_expand_sub row_expand_mul row_expand_div row_expand_max row_expand_min row_expand_expdif
    col_expand col_expand_add col_expand_sub col_expand_mul col_expand_div col_expand_max
    col_expand_min col_expand_expdif row_min row_prod col_max col_min col_prod col_sum row_argmax
    row_argmin col_argmax col_argmin concat ci random full create_l1 set_validshape
    reinterpret_view write get_block_idx get_block_num get_subblock_idx fillpad fillpad_expand
    expand_clone matmul_acc gather scatter scatter_update sort32 mrgsort gather_row paged_gather"""
SYSTEM_2608 = """fence sync_set sync_wait syncall set_ffts cacheinvalid tpush_to_aiv tpush_to_aic
    tpop_from_aic tpop_from_aiv tfree_to_aic tfree_to_aiv aic_initialize_pipe aiv_initialize_pipe
    reserve_buffer import_peer_buffer task_invalid task_dummy available_cluster_count
    available_aiv_count"""
PLD_2608 = """system.world_size system.get_comm_ctx system.rank system.nranks system.notify
    system.wait system.defer_wait tensor.alloc_window_buffer tensor.window tensor.put tensor.get
    tensor.remote_store tensor.allreduce tensor.barrier tensor.broadcast tensor.allgather
    tensor.reduce_scatter tensor.all_to_all tensor.all_to_all_v tile.remote_load
    tile.remote_store"""


def test_every_new_op_is_registered_since_2026_08_in_a_2608_module() -> None:
    expected = (
        {f"block.{n}" for n in TILE_2608.split()}
        | {f"tensor.{n}" for n in TENSOR_2608.split()}
        | {f"system.{n}" for n in SYSTEM_2608.split()}
        | {"array.create", "array.get_element", "array.update_element"}
        | {"prefetch.make_context", "prefetch.async_prefetch", "prefetch.session", "prefetch.wait"}
        | {f"pld.{n}" for n in PLD_2608.split()}
    )
    assert {op.name for op in NEW} == expected
    assert Counter(op.namespace for op in NEW) == {
        "block": 57,
        "tensor": 76,
        "system": 20,
        "array": 3,
        "prefetch": 4,
        "pld": 21,
    }
    for op in NEW:
        assert Path(op.source_file).stem.split("_2608")[0] in (
            "tile",
            "tensor",
            "system",
            "distributed",
        ), op.name
        # every spelling of a 2026-08 op is a 2026-08 spelling
        assert op.spelling_edition(op.short_name, op.namespace) is Edition.V2026_08


# --- deduced types -----------------------------------------------------------------------------

V, MAT, ACC = MemorySpace.Vec, MemorySpace.Mat, MemorySpace.Acc

TYPES: list[tuple[str, dict[str, Expr], dict[str, Any], Type, MemorySpace | None]] = [
    ("block.sin", {"tile": tile(16, 32)}, {}, tile_t(16, 32), V),
    ("block.fmod", {"lhs": tile(16, 1, dtype=FP16), "rhs": tile(16, 32)}, {}, tile_t(16, 32), V),
    (
        "block.fmods",
        {"lhs": tile(16, 32, dtype=FP16), "rhs": f(2.0)},
        {},
        tile_t(16, 32, dtype=FP16),
        V,
    ),
    ("block.col_max", {"tile": tile(16, 32)}, {}, tile_t(1, 32), V),
    ("block.col_sum", {"tile": tile(4, 16, 32)}, {}, tile_t(4, 1, 32), V),
    ("block.row_prod", {"tile": tile(16, 32), "tmp_tile": tile(16, 32)}, {}, tile_t(16, 1), V),
    (
        "block.row_argmax",
        {"tile": tile(16, 32), "tmp_tile": tile(16, 32)},
        {},
        tile_t(16, 1, dtype=INT32),
        V,
    ),
    (
        "block.col_argmin",
        {"tile": tile(16, 32), "tmp_tile": tile(16, 32)},
        {},
        tile_t(1, 32, dtype=INT32),
        V,
    ),
    (
        "block.col_expand_max",
        {"tile": tile(16, 32), "col_vec": tile(1, 32, dtype=FP16)},
        {},
        tile_t(16, 32),
        V,
    ),
    (
        "block.row_expand_expdif",
        {"tile": tile(16, 32), "row_vec": tile(16, 1)},
        {},
        tile_t(16, 32),
        V,
    ),
    ("block.part_add", {"src0": tile(16, 32), "src1": tile(8, 64)}, {}, tile_t(16, 64), V),
    ("block.concat", {"src0": tile(16, 32), "src1": tile(16, 16)}, {}, tile_t(16, 48), V),
    ("block.ci", {"start": i(0), "shape": ints(1, 32)}, {}, tile_t(1, 32, dtype=INT32), V),
    (
        "block.tri",
        {"diagonal": i(0), "shape": ints(16, 16)},
        {"dtype": FP16},
        tile_t(16, 16, dtype=FP16),
        V,
    ),
    (
        "block.random",
        {n: i(1) for n in ("key0", "key1", "counter0", "counter1", "counter2", "counter3")}
        | {"shape": ints(8, 64)},
        {},
        tile_t(8, 64, dtype=UINT32),
        V,
    ),
    (
        "block.extract",
        {"src": tile(64, 64), "index_row": i(0), "index_col": i(32), "shape": ints(64, 32)},
        {"target_memory": MemorySpace.Left},
        tile_t(64, 32),
        MemorySpace.Left,
    ),
    (
        "block.gather",
        {"src": tile(16, 32), "indices": tile(16, 8, dtype=INT32), "tmp": tile(16, 8, dtype=INT32)},
        {},
        tile_t(16, 8),
        V,
    ),
    ("block.gather_mask", {"src": tile(16, 32)}, {"mask_pattern": 3}, tile_t(16, 8), V),
    (
        "block.gatherb",
        {"src": tile(16, 64), "offset": tile(2, 8, dtype=UINT32)},
        {},
        tile_t(2, 64),
        V,
    ),
    (
        "block.sort32",
        {"src": tile(1, 32, dtype=FP16), "idx": tile(1, 32, dtype=UINT32)},
        {},
        tile_t(1, 128, dtype=FP16),
        V,
    ),
    ("block.mrgsort", {"src0": tile(1, 64), "src1": tile(1, 64)}, {}, tile_t(1, 128), V),
    (
        "block.mgather",
        {"mem": tensor(1024, 128), "idx": tile(1, 16, dtype=INT32)},
        {},
        tile_t(16, 128),
        V,
    ),
    (
        "block.read",
        {"tile": tile(16, 32, dtype=INT16), "indices": ints(0, 3)},
        {},
        ScalarType(INT16),
        None,
    ),
    ("block.get_block_num", {}, {}, ScalarType(DataType.INT64), None),
    (
        "block.reinterpret_view",
        {"data": tile(16, 32)},
        {"dtype": FP16},
        tile_t(16, 64, dtype=FP16),
        None,
    ),
    ("block.transpose_view", {"tile": tile(16, 32)}, {}, tile_t(32, 16), None),
    ("tensor.sin", {"input": tensor(8, 8)}, {}, tensor_t(8, 8), None),
    (
        "tensor.cmp",
        {"lhs": tensor(8, 8, dtype=INT32), "rhs": f(0.5)},
        {"cmp_type": 2},
        tensor_t(8, 8),
        None,
    ),
    ("tensor.cmp", {"lhs": tensor(8, 1), "rhs": tensor(1, 8)}, {}, tensor_t(8, 8), None),
    (
        "tensor.and",
        {"lhs": tensor(8, 8, dtype=INT16), "rhs": tensor(8, 8, dtype=INT32)},
        {},
        tensor_t(8, 8, dtype=INT32),
        None,
    ),
    (
        "tensor.shls",
        {"lhs": tensor(8, 8, dtype=INT16), "rhs": S},
        {},
        tensor_t(8, 8, dtype=INT16),
        None,
    ),
    ("tensor.col_sum", {"input": tensor(4, 8, 16)}, {}, tensor_t(4, 1, 16), None),
    ("tensor.row_argmax", {"input": tensor(64)}, {}, tensor_t(1, dtype=INT32), None),
    (
        "tensor.ci",
        {"start": i(0), "shape": ints(128)},
        {"dtype": INT16},
        tensor_t(128, dtype=INT16),
        None,
    ),
    (
        "tensor.full",
        {"shape": ints(4, 4), "value": f(1.0)},
        {"dtype": FP16},
        tensor_t(4, 4, dtype=FP16),
        None,
    ),
    (
        "tensor.expand_clone",
        {"src": tensor(1, 64), "target": tensor(32, 64)},
        {},
        tensor_t(32, 64),
        None,
    ),
    (
        "tensor.matmul_acc",
        {"acc": tensor(16, 32), "lhs": tensor(64, 16), "rhs": tensor(64, 32)},
        {"a_trans": True},
        tensor_t(16, 32),
        None,
    ),
    (
        "tensor.gather",
        {"input": tensor(8, 64), "index": tensor(8, 4, dtype=INT32)},
        {"dim": -1},
        tensor_t(8, 4),
        None,
    ),
    (
        "tensor.sort32",
        {"src": tensor(4, 32), "idx": tensor(4, 32, dtype=UINT32)},
        {},
        tensor_t(4, 64),
        None,
    ),
    (
        "tensor.create_l1",
        {"shape": ints(128, 64)},
        {"dtype": FP16},
        tile_t(128, 64, dtype=FP16),
        MAT,
    ),
    (
        "tensor.paged_gather",
        {
            "src": tensor(4096, 128),
            "indices": tensor(64, dtype=INT32),
            "block_table": tensor(32, dtype=INT32),
            "block_size": i(128),
            "size": i(128),
            "max_indices": i(64),
        },
        {},
        tile_t(64, 128),
        MAT,
    ),
    ("system.available_aiv_count", {}, {}, ScalarType(DataType.INT64), None),
    ("system.tpop_from_aic", {"shape": ints(16, 32)}, {"dtype": FP32}, tile_t(16, 32), V),
    ("system.tpop_from_aiv", {}, {}, UNKNOWN, None),
]


def _same_type(actual: Type, expected: Type) -> None:
    if isinstance(expected, TileType):  # views are facts of the memory space, checked below
        assert isinstance(actual, TileType), actual
        assert (actual.short(), actual.dtype) == (expected.short(), expected.dtype)
    else:
        assert_type(actual, expected)


@pytest.mark.parametrize(
    ("name", "args", "attrs", "expected", "memory"), TYPES, ids=[t[0] for t in TYPES]
)
def test_deduced_type(
    name: str,
    args: dict[str, Expr],
    attrs: dict[str, Any],
    expected: Type,
    memory: MemorySpace | None,
) -> None:
    result = deduce(name, attrs, **args)
    _same_type(result, expected)
    if memory is not None:
        assert isinstance(result, TileType) and result.memory_space is memory


def test_results_that_carry_a_view() -> None:
    padded = deduce(
        "block.fillpad_expand", {"pad_value": float("-inf")}, tile=tile(16, 30), shape=ints(16, 32)
    )
    assert isinstance(padded, TileType) and padded.tile_view is not None
    assert (padded.short(), padded.tile_view.pad) == ("Tile[[16, 32], FP32]", PadMode.min)
    valid = deduce(
        "block.set_validshape", tile=tile(16, 32), valid_rows=i(8), valid_cols=scalar("n")
    )
    assert isinstance(valid, TileType) and valid.tile_view is not None
    assert [
        str(getattr(d, "value", getattr(d, "name", d))) for d in valid.tile_view.valid_shape or ()
    ] == ["8", "n"]
    pair = deduce(
        "block.gather_compare", {"out_cols": 8}, src=tile(16, 32), kvalue=f(0.5), tmp=tile(16, 32)
    )
    assert isinstance(pair, TupleType)
    assert [t.short() for t in pair.types] == ["Tile[[16, 8], FP32]", "Tile[[16, 1], INT32]"]
    mx = deduce(
        "block.matmul_mx",
        lhs=tile(16, 64, dtype=FP16),
        lhs_scale=tile(16, 2),
        rhs=tile(64, 32, dtype=FP16),
        rhs_scale=tile(2, 32),
    )
    assert isinstance(mx, TileType) and (mx.short(), mx.memory_space) == (
        "Tile[[16, 32], FP32]",
        ACC,
    )


# --- errors ------------------------------------------------------------------------------------

ERRORS: list[tuple[str, dict[str, Expr], dict[str, Any], str, str, str]] = [
    ("block.sin", {"tile": tile(8, 8, dtype=FP16)}, {}, "E306", "tile", "must be FP32, got FP16"),
    ("block.fmod", {"lhs": tile(8, 8), "rhs": tile(4, 4)}, {}, "E307", "rhs", "compatible shapes"),
    ("block.col_max", {"tile": tensor(8, 8)}, {}, "E306", "tile", "must be a tile"),
    (
        "block.col_expand_add",
        {"tile": tile(8, 16), "col_vec": tile(1, 8)},
        {},
        "E307",
        "col_vec",
        "16 columns",
    ),
    (
        "block.row_expand_max",
        {"tile": tile(8, 16), "row_vec": tile(8, 2)},
        {},
        "E307",
        "row_vec",
        "last dimension 1",
    ),
    (
        "block.part_max",
        {"src0": tile(8, 8), "src1": tile(8, 8, dtype=FP16)},
        {},
        "E306",
        "src1",
        "same dtype",
    ),
    (
        "block.concat",
        {"src0": tile(8, 8), "src1": tile(4, 8)},
        {},
        "E307",
        "src1",
        "dimension 0 differs",
    ),
    (
        "block.ci",
        {"start": i(0), "shape": ints(1, 32)},
        {"dtype": FP32},
        "E309",
        "dtype",
        "INT16, INT32",
    ),
    ("block.ci", {"start": f(0.5), "shape": ints(1, 32)}, {}, "E306", "start", "integer dtype"),
    (
        "block.extract",
        {"src": tile(32, 32), "index_row": i(0), "index_col": i(0), "shape": ints(64, 32)},
        {"target_memory": MemorySpace.Left},
        "E308",
        "shape",
        "exceeds",
    ),
    (
        "block.extract",
        {"src": tile(32, 32), "index_row": i(0), "index_col": i(0), "shape": ints(16, 16)},
        {},
        "E309",
        "target_memory",
        "required",
    ),
    (
        "block.gather_mask",
        {"src": tile(8, 30)},
        {"mask_pattern": 3},
        "E309",
        "mask_pattern",
        "whole columns of Tile[[8, 30], FP32]",
    ),
    (
        "block.gather_mask",
        {"src": tile(8, 32)},
        {"mask_pattern": 9},
        "E309",
        "mask_pattern",
        "MaskPattern",
    ),
    (
        "block.scatter_mask",
        {"dst": tile(8, 32), "src": tile(8, 16)},
        {"mask_pattern": 3},
        "E307",
        "src",
        "the 8 columns of 'dst'",
    ),
    (
        "block.gather",
        {"src": tile(16, 32), "indices": tile(16, 8, dtype=INT32), "tmp": tile(16, 8)},
        {},
        "E306",
        "tmp",
        "must be INT32 like 'indices'",
    ),
    (
        "block.sort32",
        {"src": tile(1, 32), "idx": tile(1, 32, dtype=INT32)},
        {},
        "E306",
        "idx",
        "UINT32",
    ),
    ("block.read", {"tile": tile(8, 8), "indices": ints(0, 8)}, {}, "E308", "indices", "index 8"),
    (
        "block.fillpad_expand",
        {"tile": tile(8, 8), "shape": ints(4, 8)},
        {},
        "E307",
        "shape",
        "below the tile's 8",
    ),
    (
        "block.fillpad_inplace",
        {"tile": tile(8, 8)},
        {"pad_value": 5.0},
        "E309",
        "pad_value",
        "pl.PadValue",
    ),
    (
        "block.set_validshape",
        {"tile": tile(8, 8), "valid_rows": i(9), "valid_cols": i(8)},
        {},
        "E308",
        "valid_rows",
        "outside 0..8",
    ),
    (
        "block.reinterpret_view",
        {"data": tile(8, 8), "shape": ints(8, 8)},
        {"dtype": FP16},
        "E307",
        "shape",
        "256 bytes",
    ),
    (
        "block.matmul_mx",
        {
            "lhs": tile(16, 64),
            "lhs_scale": tile(16, 2),
            "rhs": tile(32, 32),
            "rhs_scale": tile(2, 32),
        },
        {},
        "E307",
        "rhs",
        "inner dimensions differ",
    ),
    (
        "block.batch_matmul_acc",
        {"acc": tile(2, 16, 16), "lhs": tile(2, 16, 8), "rhs": tile(2, 8, 32)},
        {},
        "E307",
        "acc",
        "product is [2, 16, 32]",
    ),
    (
        "block.mgather",
        {"mem": tensor(64, 8), "idx": tile(1, 8, dtype=INT32)},
        {"coalesce": "col"},
        "E309",
        "coalesce",
        "'row' or 'elem'",
    ),
    (
        "block.mscatter",
        {
            "src": tile(1, 8, dtype=FP16),
            "idx": tile(1, 8, dtype=INT32),
            "output_tensor": tensor(64),
        },
        {},
        "E306",
        "src",
        "must be FP32",
    ),
    ("tensor.not", {"input": tensor(8, dtype=INT32)}, {}, "E306", "input", "INT16, UINT16"),
    ("tensor.xor", {"lhs": tensor(8), "rhs": tensor(8)}, {}, "E306", "lhs", "integer dtype"),
    ("tensor.cmp", {"lhs": tensor(8), "rhs": S}, {"cmp_type": 6}, "E309", "cmp_type", "0..5"),
    (
        "block.scatter_update",
        {"input": tile(8, 8), "index": tile(8, 1), "src": tile(8, 8)},
        {},
        "E306",
        "index",
        "integer dtype",
    ),
    (
        "tensor.ci",
        {"start": i(0), "shape": ints(8)},
        {"dtype": FP32},
        "E309",
        "dtype",
        "INT16 or INT32",
    ),
    (
        "tensor.expand_clone",
        {"src": tensor(2, 64), "target": tensor(32, 64)},
        {},
        "E307",
        "src",
        "must be 1 or 32",
    ),
    (
        "tensor.matmul_acc",
        {"acc": tensor(16, 32), "lhs": tensor(16, 64), "rhs": tensor(64, 32), "init_cond": S},
        {},
        "E306",
        "init_cond",
        "BOOL",
    ),
    ("tensor.gather", {"input": tensor(8, 64)}, {}, "E306", "input", "give dim and index"),
    (
        "tensor.paged_gather",
        {
            "src": tensor(64, 8),
            "indices": tensor(8, dtype=INT32),
            "block_table": tensor(4, dtype=INT32),
            "block_size": i(16),
            "size": S,
            "max_indices": i(8),
        },
        {},
        "E306",
        "size",
        "constant integer",
    ),
    ("system.sync_set", {"event_id": i(14)}, {"pipe": 4}, "E309", "event_id", "0..13"),
    ("system.reserve_buffer", {}, {"name": "", "size": 64}, "E309", "name", "non-empty"),
    ("array.create", {"extent": i(4)}, {"dtype": FP32}, "E309", "dtype", "integer type"),
]


@pytest.mark.parametrize(
    ("name", "args", "attrs", "code", "at", "fragment"),
    ERRORS,
    ids=[f"{e[0]}-{e[4]}-{n}" for n, e in enumerate(ERRORS)],
)
def test_wrong_operand(
    name: str, args: dict[str, Expr], attrs: dict[str, Any], code: str, at: str, fragment: str
) -> None:
    assert_error(error(name, attrs, **args), code, at, fragment)


def test_operand_spaces_are_declared() -> None:
    in_vec = var("v", tile_t(16, 64, dtype=FP16, memory=V))
    failure = error(
        "block.matmul_mx",
        lhs=in_vec,
        lhs_scale=tile(16, 2),
        rhs=tile(64, 32),
        rhs_scale=tile(2, 32),
    )
    assert_error(failure, "E320", "lhs", "must be a tile in Left, got one in Vec")
    spaces = {p.name: p.spaces for p in opdef("block.batch_matmul_acc").params}
    assert spaces == {"acc": (ACC,), "lhs": (MemorySpace.Left,), "rhs": (MemorySpace.Right,)}
    assert all(p.spaces == (V,) for p in opdef("block.col_expand_expdif").params)
    assert opdef("block.extract").result_space_attr == "target_memory"


# --- traits, lowerings, dispatch -----------------------------------------------------------------

LOWERED = {
    "block.fmod": ("TFMOD", "pto.tfmod"),
    "block.fmods": ("TFMODS", "pto.tfmods"),
    "block.col_sum": ("TCOLSUM", "pto.tcolsum"),
    "block.col_prod": ("TCOLPROD", "pto.tcolprod"),
    "block.row_prod": ("TROWPROD", "pto.trowprod"),
    "block.row_argmax": ("TROWARGMAX", "pto.trowargmax"),
    "block.col_expand_expdif": ("TCOLEXPANDEXPDIF", "pto.tcolexpandexpdif"),
    "block.part_add": ("TPARTADD", "pto.tpartadd"),
    "block.concat": ("TCONCAT", "pto.tconcat"),
    "block.matmul_mx": (None, None),  # its scales' spaces: LeftScale / RightScale
    "block.extract": ("TEXTRACT", "pto.textract"),  # PTO: index-typed row and column
    "block.gather": ("TGATHER", "pto.tgather"),
    "block.gatherb": ("TGATHERB", "pto.tgatherb"),
    "block.scatter": ("TSCATTER", "pto.tscatter"),
    "block.sort32": ("TSORT32", "pto.tsort32"),
    "block.ci": (None, None),  # TCI / pto.tci: descending, start type
    "block.fillpad_expand": ("TFILLPAD_EXPAND", "pto.tfillpad_expand"),
    "block.fillpad_inplace": ("TFILLPAD_INPLACE", "pto.tfillpad_inplace"),
    "block.get_block_num": ("get_block_num", "pto.get_block_num"),
    "block.get_subblock_idx": ("get_subblockid", "pto.get_subblock_idx"),
}


def test_lowerings() -> None:
    for name, (cce, pto) in LOWERED.items():
        assert (opdef(name).cce.instruction, opdef(name).pto.instruction) == (cce, pto), name
    assert opdef("block.col_sum").cce.operands == ("tile",)  # TCOLSUM's plain form
    assert opdef("block.scatter").cce.operands == ("src", "indexes")  # into dst's buffer
    assert opdef("block.extract").pto.index_operands == ("index_row", "index_col")
    for op in NEW:  # the rest say why code generation reports E400
        for lowering in (op.cce, op.pto):
            assert lowering.instruction is not None or lowering.note, op.name
    assert opdef("block.sin").cce.note.startswith("pto-isa has no sine")


def test_traits() -> None:
    assert (
        opdef("block.col_max").role.value == "reduction" and opdef("block.col_max").pipe.name == "V"
    )
    assert (
        opdef("block.matmul_mx").pipe.name == "M" and opdef("block.matmul_mx").result_space is ACC
    )
    assert opdef("block.extract").pipe.name == "MTE1" and opdef("block.mgather").pipe.name == "MTE2"
    assert opdef("block.mscatter").aliases == "output_tensor"
    assert opdef("system.fence").barrier_pipe is not None and opdef("system.fence").is_sync
    written = {
        op.name: op.written_params for op in NEW if op.namespace == "block" and op.written_params
    }
    assert written["block.row_argmax"] == ("tmp_tile",) and "block.scatter" not in written
    assert opdef("block.scatter").param("dst").access is Access.SHAPE  # type: ignore[union-attr]
    assert opdef("tensor.abs").block_form == "block.abs"
    assert opdef("block.fmod").scalar_form == "block.fmods"
    assert opdef("tensor.fmod").scalar_form == "tensor.fmods"


def _resolved(namespace: tuple[str, ...], name: str, *types: Type) -> str | None:
    op = resolve_op(namespace, name, list(types)).op
    return None if op is None else op.name


def test_unified_dispatch() -> None:
    t, T = tile_t(8, 8), tensor_t(8, 8)
    assert _resolved((), "sin", t) == "block.sin"
    assert _resolved((), "sin", T) == "tensor.sin"
    assert _resolved((), "fmod", t, S.type) == "block.fmods"
    assert _resolved((), "fmod", T, S.type) == "tensor.fmods"
    assert _resolved((), "col_max", T) == "tensor.col_max"
    assert _resolved((), "arange", S.type) == "block.ci"  # pl.arange: tile.ci
    assert _resolved(("tensor",), "arange", S.type) == "tensor.ci"
    assert _resolved(("block",), "ci", S.type) == "block.ci"
    assert _resolved((), "get_block_num") == "block.get_block_num"
    assert _resolved((), "mgather", T) == "block.mgather"  # its first operand is a tensor
    assert _resolved(("system",), "fence") == "system.fence"
    assert (
        _resolved(("block",), "not_", t) == "block.not"
        and _resolved(("tensor",), "not_", T) == "tensor.not"
    )


def test_no_kernel_lowering_for_tensor_ops() -> None:
    for op in NEW:
        if op.namespace == "tensor":
            assert op.cce.instruction is None and op.pto.instruction is None
            assert (
                op.cce.note == "tensor ops run on the orchestration side; use block ops in kernels"
            )


def test_written_tensor_operands() -> None:
    assert opdef("tensor.write").param("tensor").access is Access.WRITE  # type: ignore[union-attr]
    assert opdef("tensor.gather_row").aliases == "acc"
