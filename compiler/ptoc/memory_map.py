"""The memory map: where every on-chip buffer of a function lives and when it is live.

Per function after AllocateMemoryAddr: each tile an op defines, with its memory space, byte
address range, first and last use (statement index in program order, and the statement's
source span) and reuse group (tiles MemoryReuse put in one buffer share a group), and per
memory space the capacity, the bytes used and whether they overflow it. ``ptoc compile
--memory-map`` writes it as JSON or SVG (``memory_svg``); ``ptols/memoryMap`` answers with
the same JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from .diagnostics import Diagnostic
from .ir.expr import Call, Var
from .ir.function import Function, Program
from .ir.shape import static_shape
from .ir.span import Span
from .ir.stmt import AssignStmt, EvalStmt, Stmt
from .ir.types import MemorySpace, ShapedType
from .lines import split_lines
from .records import record
from .sourcemap import lsp_range

if TYPE_CHECKING:
    from .frontend.analysis import ModuleAnalysis

#: The pipeline the map is read after (the one the CCE code comes from). Synchronisation takes
#: no place in program order: statement indices count the other statements only, so they do
#: not depend on what InsertSync added.
PIPELINE = "default"


@record(frozen=True)
class Use:
    index: int  # 0-based statement index in program order
    span: Span


@record(frozen=True)
class Buffer:
    name: str
    space: str
    start: int
    size: int
    first_use: Use
    last_use: Use
    reuse_group: int | None
    dtype: str
    shape: tuple[int, ...]
    #: Bytes the tile itself occupies from ``start``: less than ``size`` when it shares a
    #: larger buffer (MemoryReuse), a sub-range of it.
    value_size: int = 0

    @property
    def end(self) -> int:
        return self.start + self.size


@record(frozen=True)
class SpaceUse:
    space: str
    capacity: int
    used: int

    @property
    def overflow(self) -> bool:
        return self.used > self.capacity


@record(frozen=True)
class FunctionMap:
    name: str
    span: Span
    statements: int
    spaces: tuple[SpaceUse, ...]
    buffers: tuple[Buffer, ...]


@record
class MemoryMap:
    functions: list[FunctionMap]
    diagnostics: list[Diagnostic]


def function_map(fn: Function) -> FunctionMap | None:
    """The map of one function after AllocateMemoryAddr; None when it has no on-chip tile."""
    from .passes.irutil import byte_size
    from .passes.memory_reuse import function_lifetimes
    from .passes.target import DEFAULT_TARGET

    lifetimes = function_lifetimes(fn)
    # position (from 1) -> index in program order without sync statements
    indices: list[int] = []
    statements: list[Stmt] = []
    for stmt in lifetimes.statements:
        indices.append(max(len(statements) - 1, 0) if _is_sync(stmt) else len(statements))
        if not _is_sync(stmt):
            statements.append(stmt)
    defined: list[tuple[Var, AssignStmt]] = []
    for stmt in statements:
        if isinstance(stmt, AssignStmt) and not isinstance(stmt.value, Var):
            memref = _memref(stmt.var)
            if memref is not None and memref.addr is not None:
                defined.append((stmt.var, stmt))
    if not defined:
        return None
    sharing: dict[int, int] = {}
    for var, _ in defined:
        memref = _memref(var)
        assert memref is not None
        sharing[memref.id] = sharing.get(memref.id, 0) + 1

    def use(position: int) -> Use:
        index = indices[min(max(position - 1, 0), len(indices) - 1)]
        return Use(index, statements[index].span)

    buffers: list[Buffer] = []
    for var, _ in defined:
        memref = _memref(var)
        assert memref is not None and memref.addr is not None and isinstance(var.type, ShapedType)
        first, last = lifetimes.interval(var)
        buffers.append(
            Buffer(
                name=var.name,
                space=memref.memory_space.name,
                start=memref.addr,
                size=memref.size,
                first_use=use(first),
                last_use=use(last),
                reuse_group=memref.id if sharing[memref.id] > 1 else None,
                dtype=var.type.dtype.name,
                shape=tuple(static_shape(var.type.shape) or ()),
                value_size=min(byte_size(var.type) or memref.size, memref.size),
            )
        )
    spaces: list[SpaceUse] = []
    for space in MemorySpace:
        inside = [b for b in buffers if b.space == space.name]
        capacity = DEFAULT_TARGET.capacity(space)
        if inside and capacity is not None:
            spaces.append(SpaceUse(space.name, capacity, max(b.end for b in inside)))
    return FunctionMap(fn.name, fn.span, len(statements), tuple(spaces), tuple(buffers))


def _is_sync(stmt: Stmt) -> bool:
    from .passes.op_info import op_def

    if not isinstance(stmt, EvalStmt) or not isinstance(stmt.expr, Call):
        return False
    op = op_def(stmt.expr)
    return op is not None and op.is_sync


def _memref(var: Var) -> Any:
    memref = var.type.memref if isinstance(var.type, ShapedType) else None
    if memref is None or memref.memory_space is MemorySpace.DDR:
        return None
    return memref


def program_maps(program: Program, function: str | None = None) -> MemoryMap:
    """The maps of every function the pipeline leaves with on-chip tiles (``function``
    narrows the program to it and its callees first)."""
    from .driver import narrow, run_pipeline

    if function is not None:
        program = narrow(program, function)
    lowered = run_pipeline(program, PIPELINE)
    allocated = lowered.after("AllocateMemoryAddr")
    maps: list[FunctionMap] = []
    if allocated is not None:
        for fn in allocated.functions:
            found = function_map(fn)
            if found is not None:
                maps.append(found)
    return MemoryMap(maps, list(lowered.diagnostics))


def memory_map(analysis: ModuleAnalysis, function: str | None = None) -> MemoryMap:
    """Every program of an analysed file (those defining ``function`` when it is given);
    nothing when the front end found errors."""
    if analysis.has_errors:
        return MemoryMap([], [])
    result = MemoryMap([], [])
    for program in analysis.all_programs():
        if function is not None and program.function(function) is None:
            continue
        found = program_maps(program, function)
        result.functions += found.functions
        result.diagnostics += found.diagnostics
    return result


def map_json(maps: Sequence[FunctionMap], source: str) -> list[dict[str, Any]]:
    """The protocol's ``FunctionMemoryMap`` list, ranges as LSP ranges over ``source``."""
    lines = split_lines(source)

    def use(u: Use) -> dict[str, Any]:
        return {"index": u.index, "range": lsp_range(u.span, lines)}

    return [
        {
            "name": m.name,
            "range": lsp_range(m.span, lines),
            "statements": m.statements,
            "spaces": [
                {"space": s.space, "capacity": s.capacity, "used": s.used, "overflow": s.overflow}
                for s in m.spaces
            ],
            "buffers": [
                {
                    "name": b.name,
                    "space": b.space,
                    "start": b.start,
                    "size": b.size,
                    "firstUse": use(b.first_use),
                    "lastUse": use(b.last_use),
                    "reuseGroup": b.reuse_group,
                    "dtype": b.dtype,
                    "shape": list(b.shape),
                    "valueSize": b.value_size,
                }
                for b in m.buffers
            ],
        }
        for m in maps
    ]


__all__ = [
    "Buffer",
    "FunctionMap",
    "MemoryMap",
    "SpaceUse",
    "Use",
    "function_map",
    "map_json",
    "memory_map",
    "program_maps",
]
