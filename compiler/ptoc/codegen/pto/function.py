"""One IR function -> one ``func.func`` (seed 002, "Generation Order").

Inside the function, in this fixed order: constants, tensor views, allocations, body, return
(in a memory space whose buffers overflow it together, an allocation PTOAS could otherwise not
give reused memory moves down to its buffer's first use: ``lifetimes``).
SSA numbering follows the seed's complete example: the k allocations are ``%0..%k-1``, the n
tensor views ``%k..%k+n-1``, and body results continue from ``%k+n`` — even though the views
are printed before the allocations. There is one allocation per unique MemRef, unless tiles of
different tile_buf types share a MemRef (see ``collect_buffers``).
"""

from __future__ import annotations

from collections.abc import Iterator

from ...diagnostics import DiagnosticBag
from ...ir.expr import ConstInt, Expr, Var
from ...ir.function import Function, FunctionType, Program
from ...ir.span import Span
from ...ir.stmt import ReturnStmt, Stmt, YieldStmt
from ...ir.types import MemRef, ScalarType, TensorType, TileType
from ...ir.visitor import children
from ...ir.walk import stmt_defs, walk_stmts
from ...passes.target import DEFAULT_TARGET
from ...records import record
from ..common import CodegenError
from . import expressions, lifetimes, pipes, statements
from . import mlir_types as mt
from .context import POISON, FunctionContext, Poisoned
from .emitter import Emitter, Region, Value, symbol
from .versions import DEFAULT_VERSION

FUNC_INDENT = "  "


@record(frozen=True, slots=True)
class Buffer:
    """One ``pto.alloc_tile``: a MemRef and the tile_buf type it is used with (or the error
    that type raised), named after the first tile written into it."""

    memref: MemRef
    tile_buf: str | CodegenError
    name: str
    span: Span

    @property
    def key(self) -> tuple[mt.MemRefKey, str | None]:
        tile_buf = self.tile_buf if isinstance(self.tile_buf, str) else None
        return mt.memref_key(self.memref), tile_buf


def collect_buffers(body: Stmt, tile_bufs: mt.TileBufs | None = None) -> list[Buffer]:
    """One buffer per unique (MemRef, tile_buf type) of the assigned tiles, in order of
    first definition.

    MemoryReuse lets a smaller tile share a larger one's MemRef; an SSA value has one type,
    so each distinct tile_buf type used with a MemRef gets its own allocation (they never
    live at the same time, so this costs ptoas nothing it could not reuse itself).
    """
    seen: dict[tuple[mt.MemRefKey, str | None], Buffer] = {}
    tile_bufs = tile_bufs or mt.TileBufs()
    # Every variable a statement defines: assignments, and the results of loops and
    # branches (a carried tile's home buffer is its result's MemRef).
    for stmt in walk_stmts(body):
        for var in stmt_defs(stmt):
            tile = var.type
            if isinstance(tile, TileType) and tile.memref is not None:
                _add_buffer(seen, tile, tile.memref, var, stmt, tile_bufs)
    return list(seen.values())


def _add_buffer(
    seen: dict[tuple[mt.MemRefKey, str | None], Buffer],
    tile: TileType,
    memref: MemRef,
    var: Var,
    stmt: Stmt,
    tile_bufs: mt.TileBufs,
) -> None:
    span = var.span if var.span.is_known else stmt.span
    key: tuple[mt.MemRefKey, str | None]
    try:
        key = (mt.memref_key(memref), tile_bufs.of(tile, span, var.name))
    except CodegenError as error:
        key = (mt.memref_key(memref), None)
        if key not in seen:
            seen[key] = Buffer(memref, error, var.name, span)
        return
    if key not in seen:  # named after the first tile written into it
        seen[key] = Buffer(memref, key[1], var.name, span)


def generate_function(
    fn: Function,
    bag: DiagnosticBag,
    program: Program | None = None,
    *,
    helper: bool = False,
    tile_bufs: mt.TileBufs | None = None,
    ptoas_version: str = DEFAULT_VERSION,
) -> tuple[list[str], list[Span]]:
    """Its lines and, per line, the span of the statement it came from (the function's own
    for lines of no statement).

    ``helper``: a function other functions of the module call, which returns its scalar
    results (``func.call``); every other function is a kernel, whose scalar results go
    through pointer parameters (PTOAS entry functions return nothing) and which is marked
    ``attributes {pto.entry}`` (PTOAS v0.57 makes no unmarked function an entry).
    ``tile_bufs``: the tile_buf types worked out so far (shared by a module's functions);
    ``ptoas_version``: the PTOAS the forms are written for."""
    tile_bufs = tile_bufs or mt.TileBufs()
    buffers = collect_buffers(fn.body, tile_bufs)
    tensors = [p for p in fn.params if isinstance(p.type, TensorType)]
    ctx = FunctionContext(bag, first_number=len(buffers) + len(tensors))
    ctx.tile_bufs = tile_bufs
    ctx.program = program
    ctx.returns_values = helper
    ctx.ptoas_version = ptoas_version

    params = _parameters(ctx, fn)
    if not helper:
        params += _result_pointers(ctx, fn)
    ctx.func_type = fn.func_type
    for pipe in [] if helper else pipes.pipe_ids(fn):  # each pipe's GM slot ring, last
        slots = Value(ctx.names.reserve(f"%pipe_slots{pipe}"), pipes.SLOTS_TYPE)
        ctx.pipe_slots[pipe] = slots
        params.append(f"{slots.name}: {slots.type}")
    param_errors = _take(ctx)
    _tensor_views(ctx, fn, first=len(buffers))
    views = _take(ctx)
    allocations, body = _allocations_and_body(ctx, fn, buffers)
    indent = " " * FunctionContext.BODY_INDENT
    for v in ctx.scratches.values():
        allocations.lines.append(f"{indent}{v.name} = pto.alloc_tile : {v.type}")
        allocations.spans.append(None)

    constant_lines = [indent + line for line in ctx.constants.lines]
    constants = Region(0, lines=constant_lines, spans=[None] * len(constant_lines))
    sections = [
        param_errors,
        _titled("Constants", constants),
        _titled("Tensor views", views),
        _titled("Allocations", allocations),
        body,
        Region(0, lines=[indent + _return_line(ctx.returned)], spans=[None]),
    ]
    attributes = [] if helper else ["pto.entry", *_kernel_kind(fn, buffers)]
    head = _signature(fn, params, [v.type for v in ctx.returned], attributes)
    return _assemble(fn, head, sections)


def _assemble(
    fn: Function, head: list[str], sections: list[Region]
) -> tuple[list[str], list[Span]]:
    """The signature, the non-empty sections a blank line apart, the closing brace; lines of
    no statement (signature, constants, return) belong to the function."""
    lines = head
    spans: list[Span | None] = [None] * len(lines)
    first = True
    for section in sections:
        if section.lines:
            if not first:
                lines.append("")
                spans.append(None)
            lines.extend(section.lines)
            spans.extend(section.spans)
            first = False
    lines.append(FUNC_INDENT + "}")
    spans.append(None)
    span = fn.span
    return lines, [span if s is None else s for s in spans]


def _take(ctx: FunctionContext) -> Region:
    """The lines emitted so far, leaving a fresh emitter for the next section."""
    region = ctx.out.region_lines
    ctx.out = Emitter(FunctionContext.BODY_INDENT)
    return region


def _titled(title: str, region: Region) -> Region:
    if region.lines:
        region.lines.insert(0, " " * FunctionContext.BODY_INDENT + f"// {title}")
        region.spans.insert(0, None)
    return region


def _return_line(values: list[Value]) -> str:
    if not values:
        return "return"
    return f"return {', '.join(v.name for v in values)} : {', '.join(v.type for v in values)}"


# Each on-chip memory space's bytes (by its ``loc`` name), as the passes plan them.
_CAPACITIES = {space.mlir_name: size for space, size in DEFAULT_TARGET.capacities.items()}

# The buffers of each core: a kernel whose tiles are all on one runs on that core.
_CUBE_SPACES = frozenset(("mat", "left", "right", "acc", "bias"))
_VECTOR_SPACES = frozenset(("vec",))


def _kernel_kind(fn: Function, buffers: list[Buffer]) -> list[str]:
    """``pto.kernel_kind`` of a kernel whose tiles are all in the vector core's buffer (or
    all in the cube core's): the 2026-08 AIV / AIC function, whose flags PTOAS v0.57 places
    on that core. A kernel using both, or no tile, has none, unless it declares its core and
    sets a pipe up (PTOAS's pipe ops must know their core)."""
    declared = {FunctionType.AIC: "cube", FunctionType.AIV: "vector"}.get(fn.func_type)
    if declared is not None and pipes.pipe_ids(fn):
        return [f"pto.kernel_kind = #pto.kernel_kind<{declared}>"]
    spaces = {b.memref.memory_space.mlir_name for b in buffers}
    for kind, core in (("vector", _VECTOR_SPACES), ("cube", _CUBE_SPACES)):
        if spaces and spaces <= core:
            return [f"pto.kernel_kind = #pto.kernel_kind<{kind}>"]
    return []


def _signature(
    fn: Function, params: list[str], results: list[str], attributes: list[str]
) -> list[str]:
    """``func.func @name(%arg0: T0,`` with further parameters aligned under the ``(``.
    Only helpers have results: kernels store theirs through pointers."""
    head = f"{FUNC_INDENT}func.func {symbol(fn.name)}("
    tail = ")"
    if len(results) == 1:
        tail += f" -> {results[0]}"
    elif results:
        tail += " -> (" + ", ".join(results) + ")"
    if attributes:
        tail += f" attributes {{{', '.join(attributes)}}}"
    tail += " {"
    if not params:
        return [head + tail]
    pad = " " * (len(head) - 1)
    lines = [head + params[0]]
    lines.extend(pad + p for p in params[1:])
    lines[-1] += tail
    lines[:-1] = [line + "," for line in lines[:-1]]
    return lines


def _parameters(ctx: FunctionContext, fn: Function) -> list[str]:
    """``%argN: type`` per parameter; scalars are bound to their argument here."""
    out: list[str] = []
    for i, param in enumerate(fn.params):
        name = ctx.names.reserve(f"%arg{i}")
        span = param.span if param.span.is_known else fn.span
        try:
            type_ = _parameter_type(param, span)
        except CodegenError as error:
            ctx.report(error)
            ctx.bind(param, POISON)
            out.append(f"{name}: none")
            continue
        out.append(f"{name}: {type_}")
        if isinstance(param.type, ScalarType):
            ctx.bind(param, Value(name, type_))
        elif isinstance(param.type, TensorType):
            ctx.pointers[param] = Value(name, type_)
    return out


def _result_pointers(ctx: FunctionContext, fn: Function) -> list[str]:
    """One ``!pto.ptr<T>`` parameter per scalar result, after the function's parameters:
    the kernel stores the result at index 0 (PTOAS: "entry functions must return void")."""
    out: list[str] = []
    returns = [s for s in statements.flatten(fn.body) if isinstance(s, ReturnStmt)]
    values = returns[-1].values if returns else ()
    for result in (v.type for v in values):
        if not isinstance(result, ScalarType):
            continue
        name = ctx.names.reserve(f"%arg{len(fn.params) + len(out)}")
        try:
            pointer = mt.ptr_type(mt.scalar_type(result.dtype, fn.span))
        except CodegenError as error:
            ctx.report(error)
            pointer = mt.ptr_type("i64")
        ctx.result_pointers.append(Value(name, pointer))
        out.append(f"{name}: {pointer}")
    return out


def _parameter_type(param: Var, span: Span) -> str:
    t = param.type
    if isinstance(t, TensorType):
        return mt.ptr_type(mt.element_type(t.dtype, span))
    if isinstance(t, ScalarType):
        return mt.scalar_type(t.dtype, span)
    if isinstance(t, TileType):
        raise CodegenError(
            "E400",
            f"tile parameter '{param.name}' is not allowed in a PTO kernel; "
            "pass a tensor and load it",
            span,
        )
    raise CodegenError(
        "E400", f"parameter '{param.name}' of type {t.short()} has no PTO form", span
    )


# --- tensor views ---------------------------------------------------------------------------


def _tensor_views(ctx: FunctionContext, fn: Function, first: int) -> None:
    """One view per tensor parameter, numbered in parameter order from ``first``."""
    number = first
    for index, param in enumerate(fn.params):
        if not isinstance(param.type, TensorType):
            continue
        name = ctx.names.reserve(f"%{number}")
        number += 1
        if param in ctx.env:  # its parameter type already failed
            continue
        span = param.span if param.span.is_known else fn.span
        try:
            with ctx.out.statement(span):
                ctx.bind(param, _tensor_view(ctx, param, index, name, span))
        except CodegenError as error:
            ctx.report(error)
            ctx.bind(param, POISON)
        except Poisoned as poisoned:  # a dimension names a parameter that failed
            ctx.skipped(poisoned)
            ctx.bind(param, POISON)


def _tensor_view(ctx: FunctionContext, param: Var, index: int, name: str, span: Span) -> Value:
    tensor = param.type
    assert isinstance(tensor, TensorType)
    element = mt.element_type(tensor.dtype, span)
    shape = [_dim(ctx, d, param, span) for d in tensor.shape]
    strides = _row_major_strides(ctx, shape)
    shape_values = [_materialize(ctx, d) for d in shape]
    stride_values = [_materialize(ctx, s) for s in strides]
    view_type = mt.tensor_view_type(len(shape), element)
    prefix = f"{name} = "
    ctx.out.line(
        f"{prefix}pto.make_tensor_view %arg{index}, "
        f"shape = [{', '.join(v.name for v in shape_values)}],",
        f"strides = [{', '.join(v.name for v in stride_values)}] : {view_type}",
        hang=len(prefix),
    )
    return Value(name, view_type)


Dim = int | Value


def _dim(ctx: FunctionContext, dim: Expr, param: Var, span: Span) -> Dim:
    """A static extent, or the index value of a dynamic one bound to a scalar parameter."""
    if isinstance(dim, ConstInt):
        return dim.value
    unbound = [v for v in _variables(dim) if v not in ctx.env]
    if unbound:
        free = unbound[0]
        raise CodegenError(
            "E401",
            f"tensor '{param.name}' has dynamic dimension '{free.name}', which is not a "
            "scalar parameter of the function; PTO needs its value: declare the tensor with "
            "constant sizes",
            dim.span if dim.span.is_known else span,
        )
    return expressions.index(ctx, dim, span)


def _variables(expr: Expr) -> Iterator[Var]:
    if isinstance(expr, Var):
        yield expr
    for child in children(expr):
        if isinstance(child, Expr):
            yield from _variables(child)


def _row_major_strides(ctx: FunctionContext, shape: list[Dim]) -> list[Dim]:
    strides: list[Dim] = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = _multiply(ctx, strides[i + 1], shape[i + 1])
    return strides


def _multiply(ctx: FunctionContext, a: Dim, b: Dim) -> Dim:
    if isinstance(a, int) and isinstance(b, int):
        return a * b
    if a == 1:
        return b
    if b == 1:
        return a
    lhs, rhs = _materialize(ctx, a), _materialize(ctx, b)
    return ctx.emit_result(mt.INDEX, f"arith.muli {lhs.name}, {rhs.name} : index")


def _materialize(ctx: FunctionContext, dim: Dim) -> Value:
    return ctx.constants.integer(dim) if isinstance(dim, int) else dim


# --- allocations -------------------------------------------------------------------------------


def _dynamic_valid(ctx: FunctionContext, tile_buf: str) -> str:
    """`` valid_row = %c16 valid_col = %c128``: a tile_buf whose valid shape is known at run
    time is allocated whole (its definition sets the region with pto.set_validshape)."""
    fields = mt.tile_buf_fields(tile_buf)
    if fields.get("v_row") != "?":
        return ""
    rows = ctx.constants.integer(int(fields["rows"])).name
    cols = ctx.constants.integer(int(fields["cols"])).name
    return f" valid_row = {rows} valid_col = {cols}"


def _allocations(ctx: FunctionContext, buffers: list[Buffer]) -> list[lifetimes.Allocation]:
    """One ``pto.alloc_tile`` per buffer, in order; where each one's lines are."""
    placed: list[lifetimes.Allocation] = []
    lines = ctx.out.region_lines.lines
    for number, buffer in enumerate(buffers):
        name = ctx.names.reserve(f"%{number}")
        if isinstance(buffer.tile_buf, CodegenError):
            ctx.report(buffer.tile_buf)
            ctx.buffers[buffer.key] = POISON
            continue
        first = len(lines)
        saved = ctx.out.enter(buffer.span)
        ctx.out.line(
            f"{name} = pto.alloc_tile{_dynamic_valid(ctx, buffer.tile_buf)} : {buffer.tile_buf}"
        )
        ctx.out.span = saved
        ctx.buffers[buffer.key] = Value(name, buffer.tile_buf)
        space, size = (
            buffer.memref.memory_space.mlir_name,
            lifetimes.tile_buf_bytes(buffer.tile_buf),
        )
        placed.append(lifetimes.Allocation(name, space, size, first, len(lines)))
    return placed


def _allocations_and_body(
    ctx: FunctionContext, fn: Function, buffers: list[Buffer]
) -> tuple[Region, Region]:
    """The allocations section and the body, each allocation where PTOAS should see it
    (``lifetimes``: in a memory space the buffers overflow together, a buffer whose memory
    another could reuse is allocated at its first use)."""
    placed = _allocations(ctx, buffers)
    allocations = _take(ctx)
    starts = _emit_body(ctx, fn)
    body = _take(ctx)
    scratch = [v.type for v in ctx.scratches.values()]
    spaces = lifetimes.crowded(placed, _CAPACITIES, scratch)
    lifetimes.place(allocations, placed, body, starts, spaces)
    return allocations, body


def _emit_body(ctx: FunctionContext, fn: Function) -> list[int]:
    """The function's statements; where each top-level one's lines start."""
    starts: list[int] = []
    for stmt in statements.flatten(fn.body):
        if not isinstance(stmt, YieldStmt):
            starts.append(len(ctx.out.region_lines.lines))
            statements.emit_statement(ctx, stmt)
    return starts
