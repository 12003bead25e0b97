"""Tile ops PyPTO 2026-08 added (spec pypto-2026-08.md section 9.1): ``pl.tile.X``, which is
the ``block`` namespace inside ptoc (IR ``block.X``). This module holds the element-wise,
broadcast and reduction families; tile_2608_data.py the creation, view and data-movement ops,
tile_2608_cube.py the matmul variants and the cross-core split ops.

Each row lowers to its pto-isa instruction and the PTO v0.57 dialect op where both exist and
take the operands in the op's order; otherwise the row says why there is none (E400).
"""

from __future__ import annotations

from typing import Any

from ..ir.dtype import DataType
from .registry import Access, Category, Param, PipeType, Role
from .rules import (
    Elementwise,
    Entry,
    entry,
    row_reduce_rule,
)
from .rules_2608 import (
    axis_reduce_rule,
    broadcast_families,
    concat_rule,
    elementwise_family,
    no_lowering,
    p_shaped,
    p_value,
    part_rule,
    registrar,
    require_dtypes,
)

_D = DataType
_NO_SINE = (
    "pto-isa has no sine / cosine instruction (no TSIN / TCOS) and PTO v0.57 no pto.tsin / pto.tcos"
)


tile_op = registrar("block", Category.BLOCK, pipe=PipeType.V)


def _family(
    rows: tuple[Entry, ...], params: list[Param], spec: Elementwise, *more: Any, **traits: Any
) -> None:
    elementwise_family("tile", tile_op, rows, params, spec, *more, **traits)


def _tile(name: str, doc: str, **more: Any) -> Param:
    return p_shaped(name, doc, "tile", **more)


_LHS = _tile("lhs", "Left tile operand")
_RHS = _tile("rhs", "Right tile operand (broadcast against lhs)")
_SCALAR_RHS = p_value("rhs", "Scalar applied to every element")
_ONE_TILE = [_tile("tile", "Tile operand")]

# --- element-wise ----------------------------------------------------------------------------

_family(
    (
        entry("sin", "", "Element-wise sine of an FP32 tile.", **no_lowering(_NO_SINE)),
        entry("cos", "", "Element-wise cosine of an FP32 tile.", **no_lowering(_NO_SINE)),
    ),
    _ONE_TILE,
    Elementwise("t"),
    require_dtypes("tile", (_D.FP32,)),
)
_family(
    (
        entry(
            "fmod",
            "TFMOD",
            "Element-wise floating remainder of two tiles (C fmod: the sign of lhs).",
            scalar_form="block.fmods",
        ),
    ),
    [_LHS, _RHS],
    Elementwise("tt"),
)
_family(
    (entry("fmods", "TFMODS", "Floating remainder of every element of a tile by a scalar."),),
    [_LHS, _SCALAR_RHS],
    Elementwise("ts", keep_lhs_dtype=True),
)

_PART_DOC = "t(per dimension the larger of src0, src1, dtype); equal dtypes"
_PART = [_tile("src0", "First tile"), _tile("src1", "Second tile, of src0's dtype")]
for _row in (
    entry("part_add", "TPARTADD", "Sum where both tiles are valid; elsewhere the valid one."),
    entry("part_max", "TPARTMAX", "Maximum where both tiles are valid; elsewhere the valid one."),
    entry("part_min", "TPARTMIN", "Minimum where both tiles are valid; elsewhere the valid one."),
    entry("part_mul", "TPARTMUL", "Product where both tiles are valid; elsewhere the valid one."),
):
    tile_op(_row, _PART, part_rule("tile"), _PART_DOC)

# --- broadcasts of a row / column vector -------------------------------------------------------

broadcast_families(
    "tile",
    tile_op,
    (
        (
            -2,
            [_tile("tile", "Tile of rank 2 or more"), _tile("col_vec", "Per-column values")],
            (
                entry("col_expand_add", "TCOLEXPANDADD", "Add col_vec to every row of tile."),
                entry("col_expand_max", "TCOLEXPANDMAX", "Maximum of each row and col_vec."),
                entry("col_expand_min", "TCOLEXPANDMIN", "Minimum of each row and col_vec."),
                entry(
                    "col_expand_expdif",
                    "TCOLEXPANDEXPDIF",
                    "exp(tile - col_vec): col_vec subtracted from every row, then exponentiated.",
                ),
            ),
        ),
        (
            -1,
            [_tile("tile", "Tile of rank 2 or more"), _tile("row_vec", "Per-row values")],
            (
                entry("row_expand_max", "TROWEXPANDMAX", "Maximum of row i and row_vec[i]."),
                entry("row_expand_min", "TROWEXPANDMIN", "Minimum of row i and row_vec[i]."),
                entry(
                    "row_expand_expdif",
                    "TROWEXPANDEXPDIF",
                    "exp(tile - row_vec): row_vec[i] subtracted from row i, then exponentiated.",
                ),
            ),
        ),
    ),
)

# --- reductions --------------------------------------------------------------------------------

_SOURCE = _tile("tile", "Tile of rank 2 or more")
_SCRATCH = _tile("tmp_tile", "Scratch tile the instruction needs", access=Access.WRITE)
_REDUCTION = {"role": Role.REDUCTION}

for _row in (
    entry("col_max", "TCOLMAX", "Maximum of each column: the rows reduce to 1."),
    entry("col_min", "TCOLMIN", "Minimum of each column: the rows reduce to 1."),
    entry("col_prod", "TCOLPROD", "Product of each column: the rows reduce to 1."),
):
    tile_op(
        _row, [_SOURCE], axis_reduce_rule("tile", -2), "t([..., 1, cols], tile.dtype)", **_REDUCTION
    )
tile_op(
    entry(
        "col_sum",
        "TCOLSUM",
        "Sum of each column: the rows reduce to 1.",
        "the scratch tile is not passed (TCOLSUM's binary-tree form is not used)",
        operands=("tile",),
    ),
    [
        _SOURCE,
        _tile(
            "tmp_tile",
            "Scratch tile (accepted; TCOLSUM's plain form needs none)",
            default=None,
            access=Access.SHAPE,
        ),
    ],
    axis_reduce_rule("tile", -2),
    "t([..., 1, cols], tile.dtype)",
    **_REDUCTION,
)
tile_op(
    entry(
        "row_prod",
        "TROWPROD",
        "Product of each row: the last dimension reduces to 1.",
        scratch=True,
    ),
    [_SOURCE, _SCRATCH],
    row_reduce_rule("tile", 2),
    "t([..., rows, 1], tile.dtype)",
    **_REDUCTION,
)
_ARG_DOC = "t([..., {}], INT32): the index of the {} along each {}"
for _row, _axis, _doc in (
    (
        entry("row_argmax", "TROWARGMAX", "Column index of each row's maximum.", scratch=True),
        -1,
        _ARG_DOC.format("rows, 1", "maximum", "row"),
    ),
    (
        entry("row_argmin", "TROWARGMIN", "Column index of each row's minimum.", scratch=True),
        -1,
        _ARG_DOC.format("rows, 1", "minimum", "row"),
    ),
    (
        entry("col_argmax", "TCOLARGMAX", "Row index of each column's maximum.", scratch=True),
        -2,
        _ARG_DOC.format("1, cols", "maximum", "column"),
    ),
    (
        entry("col_argmin", "TCOLARGMIN", "Row index of each column's minimum.", scratch=True),
        -2,
        _ARG_DOC.format("1, cols", "minimum", "column"),
    ),
):
    tile_op(
        _row, [_SOURCE, _SCRATCH], axis_reduce_rule("tile", _axis, _D.INT32), _doc, **_REDUCTION
    )

tile_op(
    entry("concat", "TCONCAT", "Two tiles side by side: src1's columns after src0's."),
    [_tile("src0", "Left tile"), _tile("src1", "Right tile: same rows and dtype")],
    concat_rule("tile"),
    "t([rows, src0.cols + src1.cols], dtype); equal rows and dtypes",
)
