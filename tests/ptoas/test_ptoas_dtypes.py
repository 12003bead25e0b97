"""The registry's A2/A3 element-type tables (``Lowering.dtypes``, ``scalar_dtypes``) say what
PTOAS takes: for one op of each table, PTOAS assembles the instruction on exactly the element
types the table lists (an integer ``pto.tmaxs`` passes PTOAS's verifier but not its lowering,
so a scalar form's table is ``scalar_dtypes``). Checked against each supported PTOAS: v0.57
takes a few more types than v0.27 (``WIDER``); ptoc writes what both take."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from ptoc.codegen.pto import mlir_types as mt
from ptoc.codegen.pto.ptoas import ptoas_version, run_ptoas
from ptoc.ir.dtype import DataType
from ptoc.ir.span import NO_SPAN
from ptoc.ops import REGISTRY
from ptoc.ops.registry import Access, OpDef

# What a version takes beyond the tables, per op checked (v0.57 lifted A2/A3 limits v0.27
# kept: pto.tand on 32-bit integers, pto.texpands on BF16).
WIDER: dict[str, dict[str, set[DataType]]] = {
    "0.57": {
        "block.and": {DataType.INT32, DataType.UINT32},
        "block.expands": {DataType.BF16},
    },
}
CANDIDATES = tuple(d for d in mt.ELEMENT_TYPES if d not in (DataType.BOOL, DataType.UINT64))


def taken(op: OpDef) -> tuple[DataType, ...]:
    return op.pto.scalar_dtypes if op.pto.tile_form is not None else op.pto.dtypes


def one_op_per_table() -> list[OpDef]:
    """Ops of tile operands (and a scalar, a scratch tile), one per distinct table."""
    chosen: dict[tuple[DataType, ...], OpDef] = {}
    for op in REGISTRY:
        kinds = operand_kinds(op)
        plain = all(k == "tile" for k in kinds[:-1]) and len(kinds) <= 2
        if op.pto.dtypes and plain and op.pto.instruction is not None:
            chosen.setdefault(taken(op), op)
    return list(chosen.values())


def operand_kinds(op: OpDef) -> list[str]:
    """The instruction's operands: tiles and scalars (a shape-only parameter is none)."""
    return [
        p.accepts[0] if p.accepts else "scalar"
        for p in op.expr_params
        if p.access is not Access.SHAPE
    ]


def kernel(op: OpDef, dtype: DataType) -> str:
    """``func.func @k(%s: S)``: tiles allocated, the op's instruction on them."""
    element = mt.ELEMENT_TYPES[dtype]
    tile = (
        f"!pto.tile_buf<loc=vec, dtype={element}, rows=16, cols=64, v_row=16, v_col=64, "
        "blayout=row_major, slayout=none_box, fractal=512, pad=0>"
    )
    scalar = mt.scalar_type(op.pto.scalar_dtype or dtype, NO_SPAN)
    kinds = operand_kinds(op) + (["tile"] if op.pto.scratch else [])
    names = [f"%{i}" if kind == "tile" else "%s" for i, kind in enumerate(kinds)]
    types = [tile if kind == "tile" else scalar for kind in kinds]
    allocations = [f"    {n} = pto.alloc_tile : {tile}" for n in (*names, "%out") if n != "%s"]
    return "\n".join(
        [
            'module attributes {pto.target_arch = "a2a3"} {',
            f"  func.func @k(%s: {scalar}) attributes {{pto.entry}} {{",
            *allocations,
            f"    {op.pto.instruction} ins({', '.join(names)} : {', '.join(types)}) "
            f"outs(%out : {tile})",
            "    return",
            "  }",
            "}",
            "",
        ]
    )


OPS = one_op_per_table()


@pytest.mark.parametrize("op", OPS, ids=[op.name for op in OPS])
def test_ptoas_takes_exactly_the_tables_element_types(op: OpDef, ptoas_each: Path) -> None:
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda d: run_ptoas(kernel(op, d), ptoas_each).ok, CANDIDATES))
    accepted = {d for d, ok in zip(CANDIDATES, results, strict=True) if ok}
    wider = WIDER.get(ptoas_version(ptoas_each) or "", {}).get(op.name, set())
    assert accepted == set(taken(op)) | wider


def test_every_table_is_checked() -> None:
    tables = {taken(op) for op in REGISTRY if op.pto.dtypes}
    assert tables == {taken(op) for op in OPS}
    assert len(OPS) >= 8
