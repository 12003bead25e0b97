"""How long one instruction keeps its pipe busy, from the cost tables (``tables.py``).

Transfers (loads, stores, moves between the cube's buffers) take their bytes over the path's
bandwidth; FIX's copy out of L0C counts 2 bytes an element, as pto-isa's model does. Vector
instructions take ``head + slope x repeats`` of their intrinsic (a repeat is 256 bytes of the
largest tile they touch), plus the count-mode floor for a binary op whose rows are not whole
repeats. The cube takes its fractal formula. What no table covers takes the model's default
linear cost.
"""

from __future__ import annotations

from math import prod

from ..ir.expr import Call, Var
from ..ir.shape import static_shape
from ..ir.stmt import AssignStmt
from ..ir.types import MemorySpace, ScalarType, ShapedType, TileType
from ..ir.visitor import with_fields
from ..ops.registry import OpDef, PipeType, Role
from ..ops.rules import promote_all
from ..passes.irutil import op_call_of
from ..passes.op_info import op_def
from ..passes.sync_check.stream import OpInstr
from .tables import (
    COUNT_MODE_FLOOR,
    DEFAULT_LINEAR,
    MAD_FRACTAL_K_BYTES,
    MAD_FRACTAL_M,
    MAD_FRACTAL_N,
    MAD_HEAD,
    REPEAT_BYTES,
    CostTables,
)

#: cce_costmodel_sync.hpp: set_vector_mask, set_mask_count, set_mask_norm (EstimateConstCycles).
MASK_CYCLES = 1
#: npu/a2a3/TCvt.hpp sets the vector mask around its vconv (set_vector_mask, twice).
CONVERT_MASKS = 2
#: Instructions made of several intrinsics: TDIVS of a tile by a scalar fills a tile with the
#: scalar and divides (npu/a2a3/TDivS.hpp, DivSOp: vector_dup, then vdiv).
#: TRECIP is that division of 1 by the tile (the cost model's trace names it TDIVS).
COMPOSITE = {"TDIVS": ("vector_dup", "vdiv"), "TRECIP": ("vector_dup", "vdiv")}
#: Vector-to-vector copies: UB -> UB transfers of the result (npu/a2a3/TMov.hpp, TExtract.hpp:
#: copy_ubuf_to_ubuf).
UB_COPIES = frozenset({"TMOV", "TEXTRACT"})
#: Instructions that only re-describe a tile: a cycle of the scalar unit, no pipe time (the
#: vendor README's cost-model notes: TASSIGN / TRESHAPE).
BOOKKEEPING = frozenset({"TRESHAPE"})
#: Reductions along the last axis and the intrinsic reducing a row (npu/a2a3/TRowMax.hpp,
#: TRowSum.hpp: ReduceInstrImpl).
ROW_REDUCTIONS = {"TROWMAX": "vcmax", "TROWMIN": "vcmin", "TROWSUM": "vcadd"}
#: Reductions along the rows' axis, each row folded into the result in turn.
COLUMN_REDUCTIONS = frozenset({"TCOLMAX", "TCOLMIN", "TCOLSUM"})
#: The most repeats one vector instruction takes (pto::REPEAT_MAX).
MAX_REPEATS = 255
_SCALAR_OPS = frozenset({"vadds", "vmuls", "vmaxs", "vmins"})
_COUNT_MODE_OPS = frozenset({"vadd", "vsub", "vmul", "vdiv", "vmax", "vmin", "vand", "vor"})


def _tiles(instr: OpInstr) -> list[ShapedType]:
    """The shaped values an instruction reads and writes, result first."""
    out: list[ShapedType] = []
    stmt = instr.stmt
    if isinstance(stmt, AssignStmt) and isinstance(stmt.var.type, ShapedType):
        out.append(stmt.var.type)
    call = op_call_of(stmt)
    values = call.args if call is not None else getattr(stmt, "values", ())
    out += [a.type for a in values if isinstance(a, Var) and isinstance(a.type, ShapedType)]
    return out


def _size(t: ShapedType) -> tuple[int, int, float]:
    """Elements, columns and bytes per element (0 elements: a shape not known)."""
    shape = static_shape(t.shape) or []
    return (prod(shape) if shape else 0), (shape[-1] if shape else 0), t.dtype.bytes


def instructions(instr: OpInstr, tables: CostTables) -> list[tuple[int, str]]:
    """The busy cycles and CCE name of each instruction the statement becomes: an
    element-wise op whose scalar operand promotes its tile (FP16 tile + 1.5 is FP32) first
    converts the tile into the result (TCVT, as the CCE generator emits it)."""
    main = cycles(instr, tables)
    call = op_call_of(instr.stmt)
    op = op_def(call) if call is not None else None
    if op is None or call is None or op.role is not Role.ELEMENTWISE:
        return [main]
    tiles = [a.type for a in call.args if isinstance(a.type, TileType)]
    result = call.type
    if len(tiles) != 1 or not isinstance(result, TileType) or tiles[0].dtype is result.dtype:
        return [main]
    scalars = [a.type.dtype for a in call.args if isinstance(a.type, ScalarType)]
    if promote_all([tiles[0].dtype, *scalars]) is not result.dtype:
        return [main]  # a result its rule sets otherwise (a comparison's mask)
    return [(_vector(tables, "TCVT", [result, tiles[0]]), "TCVT"), main]


def cycles(instr: OpInstr, tables: CostTables) -> tuple[int, str]:
    """The instruction's busy cycles on its pipe, and its name (the CCE instruction)."""
    call = op_call_of(instr.stmt)
    op = op_def(call) if call is not None else None
    tiles = _tiles(instr)
    if op is None or call is None:  # a yield's copy between vector tiles
        return _ub_copy(tables, tiles), "TMOV"
    name = _instruction(op, call)
    if op.role is Role.ELEMENTWISE and tiles and all(_column_vector(t) for t in tiles):
        tiles = [_as_row(t) for t in tiles]
    if name in UB_COPIES and instr.pipe is PipeType.V:
        return _ub_copy(tables, tiles[:1]), name
    if name in BOOKKEEPING:
        return 0, name
    if op.role is Role.MATMUL or instr.pipe is PipeType.M:
        return _matmul(call), name
    if instr.pipe in (PipeType.MTE2, PipeType.MTE3, PipeType.MTE1, PipeType.FIX):
        return _transfer(tables, op, instr, tiles), name
    if name in COMPOSITE:
        return _composite(tables, name, tiles), name
    if name in COLUMN_REDUCTIONS:
        return _column_reduction(tables, name, tiles), name
    if name in ROW_REDUCTIONS:
        found = _row_reduction(tables, name, tiles)
        if found is not None:
            return found, name
    # Two operands (tile and tile, or tile and scalar): npu/a2a3/TBinOp.hpp, TBinSOp.hpp.
    binary = sum(1 for a in call.args if isinstance(a.type, TileType | ScalarType)) >= 2
    binary = binary or (tables.intrinsic(name) or "") in _SCALAR_OPS  # TNEG: TMULS by -1
    return _vector(tables, name, tiles, binary), name


def _column_vector(t: ShapedType) -> bool:
    """A ``[M, 1]`` Vec tile (M > 1, its default view): the CCE generator runs element-wise
    ops of such tiles on their ``[1, M]`` row views (codegen/cce/column_vectors.py), so they
    cost one row of M elements."""
    shape = static_shape(t.shape) or []
    return (
        isinstance(t, TileType)
        and len(shape) == 2
        and shape[1] == 1
        and shape[0] > 1
        and t.memref is not None
        and t.memref.memory_space is MemorySpace.Vec
        and (t.tile_view is None or t.tile_view.valid_shape is None)
    )


def _as_row(t: ShapedType) -> ShapedType:
    return with_fields(t, shape=tuple(reversed(t.shape)))


def _instruction(op: OpDef, call: Call) -> str:
    """The CCE instruction a call becomes (a reduction's by its axis: TROWSUM / TCOLSUM)."""
    name = op.cce.instruction or op.name
    axis = call.kwarg("axis")
    if op.cce.column_form is not None and isinstance(axis, int) and not isinstance(axis, bool):
        source = call.args[0].type if call.args else None
        rank = source.rank if isinstance(source, ShapedType) else 2
        return op.column_or_row(op.cce, axis, rank) or name
    return name


def _composite(tables: CostTables, instruction: str, tiles: list[ShapedType]) -> int:
    """An instruction made of several intrinsics in turn, each after the one before it has
    drained (its tail); rows narrower than a repeat are a repeat each, under a mask."""
    elements, columns, width = max((_size(t) for t in tiles), default=(0, 0, 4.0))
    per_repeat = max(int(REPEAT_BYTES // width), 1)
    narrow = 0 < columns < per_repeat
    repeats = elements // columns if narrow else max(-(-elements // per_repeat), 1)
    parts = COMPOSITE[instruction]
    total = 2 * MASK_CYCLES if narrow else 0
    for index, intrinsic in enumerate(parts):
        head, slope, tail = tables.linear.get(intrinsic, DEFAULT_LINEAR)
        total += head + slope * repeats + (tail if index < len(parts) - 1 else 0)
    return total


def _column_reduction(tables: CostTables, instruction: str, tiles: list[ShapedType]) -> int:
    """npu/a2a3/TColReduceOps.hpp: the first row copied into the result, then each further
    row folded in by one intrinsic over the whole repeats of a row (count mode: its slope does
    not count) and one over the rest (under a mask), each followed by a barrier (a cycle) that
    drains its tail."""
    elements, columns, width = max((_size(t) for t in tiles), default=(0, 0, 4.0))
    rows = elements // columns if columns else 1
    per_repeat = max(int(REPEAT_BYTES // width), 1)
    head, slope, tail = tables.linear.get(tables.intrinsic(instruction) or "", DEFAULT_LINEAR)
    total = max(tables.transfer_cycles(int(columns * width), "UB_TO_UB"), 1)
    if columns // per_repeat:
        total += 4 * MASK_CYCLES + (rows - 1) * (head + tail + MASK_CYCLES)
    if columns % per_repeat:
        total += 2 * MASK_CYCLES + (rows - 1) * (head + slope + tail + MASK_CYCLES)
    return total


def _row_reduction(tables: CostTables, instruction: str, tiles: list[ShapedType]) -> int | None:
    """npu/a2a3/TRowReduceOps.hpp, OneRepeatProc, for rows of at most one repeat: rows of
    exactly one repeat in count mode (one intrinsic of no repeats, four mask cycles), shorter
    rows under a mask, a repeat each; a barrier (a cycle) drains the tail. Longer rows: None
    (the general path)."""
    elements, columns, width = max((_size(t) for t in tiles), default=(0, 0, 4.0))
    per_repeat = max(int(REPEAT_BYTES // width), 1)
    if not columns or columns > per_repeat:
        return None
    head, slope, tail = tables.linear.get(ROW_REDUCTIONS[instruction], DEFAULT_LINEAR)
    if columns == per_repeat:
        return head + tail + 4 * MASK_CYCLES + MASK_CYCLES
    return head + slope * (elements // columns) + tail + 3 * MASK_CYCLES


def _ub_copy(tables: CostTables, tiles: list[ShapedType]) -> int:
    """TMOV between vector tiles is a UB -> UB copy (npu/a2a3/TMov.hpp, copy_ubuf_to_ubuf)."""
    elements, _, width = max((_size(t) for t in tiles), default=(0, 0, 4.0))
    return max(tables.transfer_cycles(int(elements * width), "UB_TO_UB"), 1)


def _transfer(tables: CostTables, op: OpDef, instr: OpInstr, tiles: list[ShapedType]) -> int:
    tile = next((t for t in tiles if isinstance(t, TileType)), None)
    if tile is None:
        return 1
    elements, _, width = _size(tile)
    space = tile.memref.memory_space if tile.memref is not None else MemorySpace.Vec
    if instr.pipe is PipeType.MTE2:
        path = "GM_TO_UB" if space is MemorySpace.Vec else "GM_TO_L1"
    elif instr.pipe is PipeType.MTE3:
        path = "UB_TO_GM" if space is MemorySpace.Vec else "L1_TO_GM"
    elif instr.pipe is PipeType.FIX:
        path, width = "L0C_TO_GM", 2
    else:
        path = "L1_TO_L0A" if space is MemorySpace.Left else "L1_TO_L0B"
    found = tables.transfer_cycles(int(elements * width), path)
    # Under a cycle: pto-isa's model charges 3 + 2n/64 cycles for n elements (the vendor
    # README's cost-model notes).
    return found if found else int(3 + 2 * elements / 64)


def _matmul(call: Call) -> int:
    operands = [a.type for a in call.args if isinstance(a, Var) and isinstance(a.type, TileType)]
    if len(operands) < 2:
        return MAD_HEAD
    left, right = operands[-2], operands[-1]
    a, b = static_shape(left.shape) or [1, 1], static_shape(right.shape) or [1, 1]
    k_tile = max(int(MAD_FRACTAL_K_BYTES // left.dtype.bytes), 1)
    repeats = -(-a[0] // MAD_FRACTAL_M) * -(-a[-1] // k_tile) * -(-b[-1] // MAD_FRACTAL_N)
    per_repeat = 2 if left.dtype.bytes == 4 else 1
    return MAD_HEAD + per_repeat * repeats


def _vector(
    tables: CostTables, instruction: str, tiles: list[ShapedType], binary: bool = False
) -> int:
    """``head + slope x repeats`` of the instruction's intrinsic. As pto-isa's A2/A3 code
    issues it (npu/a2a3/TBinOp.hpp): rows narrower than a repeat are one repeat each, under a
    mask set and restored (a cycle each); rows that are not whole repeats, or more than 255
    repeats, go in count mode (four mask cycles and, for the ALU ops, the count-mode floor)."""
    sizes = [_size(t) for t in tiles]
    elements, columns, width = max(sizes, default=(0, 0, 4.0))
    per_repeat = max(int(REPEAT_BYTES // width), 1)
    rows = elements // columns if columns else 1
    intrinsic = tables.intrinsic(instruction)
    head, slope, _ = tables.linear.get(intrinsic or "", DEFAULT_LINEAR)
    masks = CONVERT_MASKS if instruction == "TCVT" else 0
    if 0 < columns < per_repeat and binary:
        return head + slope * rows + 2 * MASK_CYCLES
    repeats = max(-(-elements // per_repeat), 1)
    if binary and (columns % per_repeat or repeats > MAX_REPEATS):
        floor = COUNT_MODE_FLOOR if intrinsic in _COUNT_MODE_OPS else 0
        return head + slope * repeats + floor + 4 * MASK_CYCLES
    return head + slope * repeats + masks
