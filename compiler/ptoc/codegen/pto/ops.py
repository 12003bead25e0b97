"""Op calls -> PTO instructions. The instruction name is the registry's ``pto`` lowering.

Forms (seed 002, "Operator Mappings"):
  block.load     %p = pto.partition_view <view>, offsets = [..], sizes = [..]
                      : !pto.tensor_view<..> -> !pto.partition_tensor_view<..>
                 pto.tload ins(%p : ..) outs(%buf : !pto.tile_buf<..>)
  block.store    partition_view of the output tensor, then
                 pto.tstore ins(%buf : ..) outs(%p : ..)   (l0c_store alike)
  other block    <instr> ins(<operand> : <type>, ...) outs(%buf : <type>) {<attributes>}
                 operands are the op's expression arguments in order (a list argument gives
                 one index operand per element, none when it is the result's shape); a
                 tile result is written into the buffer of the result's MemRef; a scalar
                 result is ``%N = <instr> ins(..) : <type>``.
  sync           <instr>[<PIPE_MTE2>, <PIPE_V>, <EVENT_ID0>]   (system.sync_src / sync_dst)
                 <instr> <PIPE_V>                             (system.bar_v / bar_m / bar_all)
                 the PTOAS spelling of set_flag / wait_flag / barrier.

Attributes: every keyword argument of the call except those the outs buffer's type already
states (memory spaces, data types) and unset ones (None), as an MLIR attribute dictionary.
Which form an op takes is its registered role; an elided lowering (``block.create_tile``, a
pass-inserted ``block.alloc``) emits nothing: the buffer is the ``pto.alloc_tile`` of the
MemRef. Axis reductions pick the row or column instruction from ``axis``.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from enum import Enum

from ...ir.dtype import DataType
from ...ir.expr import Call, ConstInt, Expr, GlobalVar, MakeTuple, Var
from ...ir.shape import constant_value, shapes_equal, static_value
from ...ir.span import Span
from ...ir.types import MemorySpace, ScalarType, TensorType, TileType, Type, UnknownType
from ...ops.registry import (
    REGISTRY,
    Access,
    OpDef,
    Param,
    ParamKind,
    PipeType,
    Role,
    TypedAttr,
)
from ...records import record
from ..common import (
    CodegenError,
    axis_instruction,
    check_spaces,
    check_valid_region_reads,
    result_is_promoted,
)
from . import expressions, forms, gm_element, pipes, versions
from . import mlir_types as mt
from .context import Binding, FunctionContext
from .emitter import Value, float_literal
from .emitter import symbol as _symbol

# Comment verbs for the basic arithmetic ops (the seed's "// Multiply"); other ops are named
# by their short name in sentence case ("Row sum", "Exp").
_VERBS = {"add": "Add", "sub": "Subtract", "mul": "Multiply", "div": "Divide"}


def registered(call: Call) -> OpDef | None:
    if isinstance(call.callee, GlobalVar):
        return None
    return REGISTRY.get(call.op_name)


def statement_kind(op: OpDef | None) -> str:
    """The group of ``registered(call)``'s statement (see ``Emitter.begin``)."""
    return "sync" if op is not None and op.is_sync else "block"


def comment_for(op: OpDef | None, call: Call, result: Var | None) -> str | None:
    """The ``// ...`` line above the instructions of ``call`` to ``op`` (``registered(call)``;
    none for sync and elided ops)."""
    if op is None:
        return None
    if op.role is Role.LOAD:
        return f"Load {result.name}" if result is not None else "Load"
    if op.role is Role.STORE:
        tile = call.args[0] if call.args else None
        return f"Store {tile.name}" if isinstance(tile, Var) else "Store"
    if op.is_sync or op.pto.elided:
        return None
    return _facts(op).comment


def lower_call(ctx: FunctionContext, call: Call, result: Var | None, span: Span) -> Binding | None:
    """Emit the instructions of one op call; returns what ``result`` is bound to."""
    at = expressions.span_of(call, span)
    if isinstance(call.callee, GlobalVar):
        return _func_call(ctx, call.callee.name, call, at)
    op = REGISTRY.get(call.op_name)
    if op is None:
        raise CodegenError("E400", f"'{call.op_name}' is not a registered op", at)
    if op.pto.elided:
        return _result_buffer(ctx, call, result, at) if op.role is Role.CREATE else None
    if op.pto.instruction in pipes.INSTRUCTIONS:
        return pipes.lower_pipe(ctx, call, result, at)
    if op.pto.instruction == gm_element.INSTRUCTION:
        return gm_element.read(ctx, call, at)
    instruction = op.pto.instruction
    if instruction is None:
        note = f" ({op.pto.note})" if op.pto.note else ""
        raise CodegenError("E400", f"{op.name} has no PTO lowering{note}", at)
    check_valid_region_reads(op, call, "PTO")
    check_spaces(op, call, "PTO")
    if not versions.takes(ctx.ptoas_version, op.pto.since_ptoas):
        raise CodegenError(
            "E400",
            f"{op.name} ({instruction}) has no PTOAS v{ctx.ptoas_version} form here: "
            f"v{op.pto.since_ptoas} and later take it",
            at,
        )
    if op.is_sync:
        _sync(ctx, op, instruction, call, at)
        return None
    if op.role is Role.LOAD:
        return _load(ctx, instruction, call, result, at)
    if op.role is Role.STORE:
        return _store(ctx, op, instruction, call, at)
    if op.pto.vec_window is not None and _in_vec(call):
        return _vec_window(ctx, op, op.pto.vec_window, call, result, at)
    if op.role is Role.MOVE and call.kwarg("transpose") is True and _into_right(call):
        return _transposed_operand(ctx, instruction, call, result, at)
    scratch = op.pto.scratch
    implied: tuple[str, ...] = ()
    if op.pto.column_form is not None:
        # The instruction states the axis: axis / keepdim are not repeated as attributes.
        instruction = axis_instruction(op, "pto", call)
        scratch = scratch and instruction == op.pto.instruction  # column forms take none
        implied = ("axis", "keepdim")
    elif op.pto.row_broadcast is not None:
        instruction = _broadcast_form(op, call, instruction)
    return _block_op(ctx, op, instruction, call, result, at, scratch=scratch, implied=implied)


def _broadcast_form(op: OpDef, call: Call, instruction: str) -> str:
    """A binary op whose rhs is a per-row [M, 1] / per-column [1, N] vector against a wider
    lhs: the instruction that expands it (TROWEXPANDADD / TCOLEXPANDADD)."""
    if len(call.args) != 2:
        return instruction
    lhs, rhs = (a.type for a in call.args)
    if not (isinstance(lhs, TileType) and isinstance(rhs, TileType)) or lhs.rank != 2:
        return instruction
    if rhs.rank != 2 or shapes_equal(lhs.shape, rhs.shape):
        return instruction
    rows, cols = (static_value(d) for d in rhs.shape)
    if cols == 1 and op.pto.row_broadcast is not None:
        return op.pto.row_broadcast
    if rows == 1 and op.pto.col_broadcast is not None:
        return op.pto.col_broadcast
    return instruction


def _into_right(call: Call) -> bool:
    source = call.args[0].type if call.args else None
    return (
        isinstance(source, TileType)
        and source.memory_space is MemorySpace.Mat
        and call.kwarg("target_memory") is MemorySpace.Right
    )


def _transposed_operand(
    ctx: FunctionContext, instruction: str, call: Call, result: Var | None, span: Span
) -> Value:
    """``move(k_mat, Right, transpose=True)``, the right operand of ``q @ kᵀ``: a Mat tile
    as loads write it (nZ) is, read with the dimensions swapped, its transpose in the layout
    TMATMUL reads Right in (zN). So the source is viewed so (``pto.treshape``, no data moves)
    and copied into the Right tile (``pto.tmov``, one layout into the same)."""
    source = _operand(ctx, call.args[0], None, span)
    fields = mt.tile_buf_fields(source.type)
    if (fields["blayout"], fields["slayout"]) != mt.MAT_LAYOUT:
        raise CodegenError(
            "E400",
            "block.move(transpose=True) into Right reads a Mat tile in the layout loads write "
            f"(blayout=col_major, slayout=row_major), not blayout={fields['blayout']}, "
            f"slayout={fields['slayout']}",
            span,
        )
    fields.update(
        rows=fields["cols"], cols=fields["rows"], v_row=fields["v_col"], v_col=fields["v_row"]
    )
    fields["blayout"], fields["slayout"] = mt.RIGHT_LAYOUT
    view_type = mt.tile_buf_of(fields)
    reshape = forms.reshape_instruction()
    view = ctx.emit_result(view_type, f"{reshape} {source.name} : {source.type} -> {view_type}")
    out = _result_buffer(ctx, call, result, span)
    _ins_outs(ctx, instruction, f"ins({view.typed()})", f"outs({out.typed()})")
    return out


def _in_vec(call: Call) -> bool:
    source = call.args[0].type if call.args else None
    return isinstance(source, TileType) and source.memory_space is MemorySpace.Vec


def _vec_window(
    ctx: FunctionContext, op: OpDef, instruction: str, call: Call, result: Var | None, span: Span
) -> Value:
    """A window of a Vec tile: A2/A3's ``pto.textract`` reads Mat only, so the window is an
    aliasing view (``%w = pto.subview %src[%r, %c] sizes [R, C] : T -> W``; v0.27:
    ``pto.subset ... : T``) copied into the result's buffer. Whole rows of a row-major tile
    are copied with ``pto.tmov``; a window of part of each row (PTOAS v0.57) keeps the
    source's row stride, which tmov and the broadcasting ops reject, so it is copied with an
    element-wise op reading it (``_strided_copy``)."""
    bound = op.bind(call.args)
    shape, offset = bound.get("shape"), bound.get("offset")
    source = _operand(ctx, call.args[0], None, span)
    fields = mt.tile_buf_fields(source.type)
    if not isinstance(shape, MakeTuple) or not isinstance(offset, MakeTuple):
        raise CodegenError("E400", f"{op.name}: cannot read the window's shape and offset", span)
    sizes = mt.static_dims(shape.elements, "the window", span)
    subview = versions.has_subview(ctx.ptoas_version)
    if subview:
        instruction = versions.SUBVIEW
    whole_rows = _whole_rows(op, instruction, sizes, offset.elements, fields, span)
    copy = None if whole_rows else _strided_copy(op, call, span)
    if not whole_rows:
        source = _allocated(ctx, call.args[0], source, span)
    out = _result_buffer(ctx, call, result, span)
    starts = [expressions.index(ctx, o, span) for o in offset.elements]
    valid = _window_valid(sizes, offset.elements, fields, subview)
    given = _window_region(ctx, op, instruction, call, out, valid, span)
    fields.update(rows=str(sizes[0]), cols=str(sizes[1]), v_row=valid[0], v_col=valid[1])
    view_type = mt.tile_buf_of(fields)
    names = ", ".join(v.name for v in starts)
    head = f"{source.name}[{names}] sizes [{sizes[0]}, {sizes[1]}]{given} : {source.type}"
    if subview:
        head = f"{head} -> {view_type}"
    view = ctx.emit_result(view_type, f"{instruction} {head}")
    if copy is None:
        _ins_outs(ctx, forms.tile_copy(), f"ins({view.typed()})", f"outs({out.typed()})")
    else:
        both = f"ins({view.name}, {view.name} : {view.type}, {view.type})"
        _ins_outs(ctx, copy, both, f"outs({out.typed()})")
    return out


def _whole_rows(
    op: OpDef,
    instruction: str,
    sizes: Sequence[int],
    offset: Sequence[Expr],
    fields: dict[str, str],
    span: Span,
) -> bool:
    """Whether the window is whole rows of a row-major tile (False: part of each row, which
    PTOAS v0.57's pto.subview views); E400 for a window neither form views."""
    row_major = (fields["blayout"], fields["slayout"]) == ("row_major", "none_box")
    two_d = len(sizes) == 2 and len(offset) == 2
    if two_d and row_major and sizes[1] == int(fields["cols"]) and static_value(offset[1]) == 0:
        return True
    if instruction == versions.SUBVIEW and two_d and row_major:
        return False
    raise CodegenError(
        "E400",
        f"{op.name}: this window of a Vec tile has no A2/A3 PTO form: pto.textract reads "
        f"Mat tiles only, {instruction} views whole rows of a row-major tile (here "
        f"{fields['cols']} columns from column 0), and only PTOAS v0.57's pto.subview "
        "views part of each row",
        span,
    )


def _window_valid(
    sizes: Sequence[int], offset: Sequence[Expr], fields: dict[str, str], subview: bool
) -> list[str]:
    """The view's valid extents: the part of the window inside the source's valid region."""
    valid: list[str] = []
    limits = (fields["v_row"], fields["v_col"])
    for size, start, limit in zip(sizes, offset, limits, strict=True):
        first = static_value(start)
        if first is None or not limit.isdigit():
            # v0.27 infers a dynamic valid size; v0.57 takes the window's size as it.
            valid.append(str(size) if subview else "?")
        else:
            valid.append(str(max(0, min(size, int(limit) - first))))
    return valid


def _strided_copy(op: OpDef, call: Call, span: Span) -> str:
    """The instruction copying a window of part of each row into a compact tile: the
    element-wise maximum of the view with itself (exact for every dtype it takes, -0.0 and
    NaN included), which, unlike pto.tmov, PTOAS v0.57 lets read a strided view."""
    maximum = REGISTRY.first(Role.ELEMENTWISE, "block", _is_strided_copy)
    instruction = maximum.pto.instruction if maximum is not None else None
    if maximum is None or instruction is None:
        raise CodegenError("E900", f"the registry has no block op lowered to {_STRIDED_COPY}")
    dtype = call.type.dtype if isinstance(call.type, TileType) else None
    if maximum.pto.dtypes and dtype not in maximum.pto.dtypes:
        takes = ", ".join(str(d) for d in maximum.pto.dtypes)
        raise CodegenError(
            "E400",
            f"{op.name}: a window of part of each row of a Vec tile is copied on A2/A3 by "
            f"{instruction}, which takes {takes}, not {dtype}: cast the tile first, or take "
            "whole rows",
            span,
        )
    return instruction


# The instruction of the element-wise op that copies a strided view (see _strided_copy).
_STRIDED_COPY = "pto.tmax"


def _is_strided_copy(op: OpDef) -> bool:
    return op.pto.instruction == _STRIDED_COPY


def _allocated(ctx: FunctionContext, arg: Expr, source: Value, span: Span) -> Value:
    """A tile PTOAS v0.57 can take a pto.subview of: its buffer (pto.alloc_tile). A value
    derived from one (pto.treshape's result) has none: it is copied into a scratch tile of
    its type first (PTOAS fails to lower a subview of a view)."""
    tile = arg.type
    if isinstance(arg, Var) and isinstance(tile, TileType) and tile.memref is not None:
        try:
            if ctx.buffer(tile, arg.name, span).name == source.name:
                return source
        except CodegenError:
            pass
    scratch = ctx.scratch(source.type, "window")
    _ins_outs(ctx, forms.tile_copy(), f"ins({source.typed()})", f"outs({scratch.typed()})")
    return scratch


def _window_region(
    ctx: FunctionContext,
    op: OpDef,
    instruction: str,
    call: Call,
    out: Value,
    valid: list[str],
    span: Span,
) -> str:
    """slice(..., valid_shape=): the region of the view (``valid`` updated to its type's
    extents) and of the result's buffer (set when known at run time, before the copy: TMOV
    asserts the two agree); returns the view's ``valid [..]`` clause ("" without one)."""
    region = _valid_region(call.type, 2)
    if region is None:
        return ""
    if instruction != versions.SUBVIEW:
        raise CodegenError(
            "E400",
            f"{op.name}: a window's valid region has no PTOAS v{ctx.ptoas_version} form "
            f"({instruction} states none); PTOAS v0.57's pto.subview takes one",
            span,
        )
    valid[:], given = _stated_region(ctx, region, span)
    assert isinstance(call.type, TileType)
    _set_dynamic_region(ctx, out, call.type, span)
    return given


def _stated_region(
    ctx: FunctionContext, region: Sequence[Expr], span: Span
) -> tuple[list[str], str]:
    """A window's valid region as pto.subview states it: its type's ``v_row`` / ``v_col``
    (a constant extent is static, PTOAS infers it so; another is ``?``) and, when one is
    known at run time only, the ``valid [%r, %c]`` clause (PTOAS v0.57, PTOOps.td)."""
    statics = [static_value(d) for d in region]
    dims = [str(v) if v is not None else "?" for v in statics]
    if all(v is not None for v in statics):
        return dims, ""  # omitted operands: the result type is authoritative
    extents = [expressions.index(ctx, d, span) for d in region]
    return dims, f" valid [{', '.join(v.name for v in extents)}]"


def _func_call(ctx: FunctionContext, name: str, call: Call, span: Span) -> Binding | None:
    """``%r = func.call @f(%a, %b) : (i64, i64) -> i64``: a call of a function of the module
    (emitted as a helper that returns its results). Scalars only: a kernel's tensor views and
    tile buffers have no form as call arguments."""
    callee = ctx.program.function(name) if ctx.program is not None else None
    if callee is None:
        raise CodegenError("E400", f"'{name}' is not a function of this program", span)
    if len(call.args) != len(callee.params):
        raise CodegenError(
            "E400",
            f"'{name}' takes {len(callee.params)} arguments, this call passes {len(call.args)}",
            span,
        )
    values: list[Value] = []
    for param, arg in zip(callee.params, call.args, strict=True):
        if not isinstance(param.type, ScalarType):
            raise CodegenError(
                "E400",
                f"a call passing {param.type.short()} '{param.name}' to '{name}' has no "
                "PTO lowering (only scalars can be passed to a function)",
                span,
            )
        values.append(expressions.scalar(ctx, arg, span, mt.scalar_type(param.type.dtype, span)))
    results: list[str] = []
    for type_ in callee.return_types:
        if isinstance(type_, TensorType):
            continue  # written into the caller's tensor: the helper returns nothing for it
        if not isinstance(type_, ScalarType):
            raise CodegenError(
                "E400",
                f"'{name}' returns {type_.short()}: only scalar results have a PTO form",
                span,
            )
        results.append(mt.scalar_type(type_.dtype, span))
    names = ", ".join(v.name for v in values)
    arrow = results[0] if len(results) == 1 else "(" + ", ".join(results) + ")"
    text = f"func.call {_symbol(name)}({names}) : ({', '.join(v.type for v in values)}) -> {arrow}"
    if not results:
        ctx.out.line(text)
        return None
    if len(results) == 1:
        return ctx.emit_result(results[0], text)
    base = ctx.names.number()
    ctx.out.line(f"{base}:{len(results)} = {text}")
    return tuple(Value(f"{base}#{i}", t) for i, t in enumerate(results))


# --- load / store ------------------------------------------------------------------------------


def _window(
    call: Call, is_load: bool, span: Span
) -> tuple[tuple[Expr, ...], tuple[Expr, ...], Expr | None]:
    """Offsets, sizes and (for a store) the output tensor, in the current or seed-004 form."""
    args = call.args
    output = args[3] if not is_load and len(args) == 4 else None
    if len(args) >= 3 and isinstance(args[1], MakeTuple) and isinstance(args[2], MakeTuple):
        offsets, sizes = args[1].elements, args[2].elements
    elif len(args) >= 5:  # seed 004: (tensor, row, col, height, width[, output])
        offsets, sizes = (args[1], args[2]), (args[3], args[4])
        output = args[5] if not is_load and len(args) == 6 else None
    else:
        raise CodegenError("E400", f"{call.op_name}: cannot read the offsets and shapes", span)
    if len(offsets) != len(sizes):
        raise CodegenError(
            "E400", f"{call.op_name}: {len(offsets)} offsets but {len(sizes)} sizes", span
        )
    return offsets, sizes, output


def _tensor_view(ctx: FunctionContext, expr: Expr, span: Span) -> tuple[Value, TensorType]:
    at = expressions.span_of(expr, span)
    if not isinstance(expr, Var) or not isinstance(expr.type, TensorType):
        raise CodegenError("E400", "expected a tensor variable here", at)
    return ctx.value(expr, at), expr.type


def _partition(
    ctx: FunctionContext,
    view: Value,
    tensor: TensorType,
    offsets: Sequence[Expr],
    sizes: Sequence[Expr],
    span: Span,
    valid_region: bool = False,
) -> Value:
    """The window of a load / store; a load's valid region may be known at run time only
    (``valid_region``: its sizes are that region's)."""
    element = mt.element_type(tensor.dtype, span)
    offset_values = [expressions.index(ctx, o, span) for o in offsets]
    if not valid_region:
        mt.static_dims(sizes, "a load/store window", span)  # E401 at a dynamic one
    static_sizes = [static_value(s) for s in sizes]
    size_values = [
        ctx.constants.integer(v) if v is not None else expressions.index(ctx, s, span)
        for s, v in zip(sizes, static_sizes, strict=True)
    ]
    part_type = mt.partition_view_type(static_sizes, element)
    offsets_text = ", ".join(v.name for v in offset_values)
    sizes_text = ", ".join(v.name for v in size_values)
    return ctx.emit_result(
        part_type,
        f"pto.partition_view {view.name}, offsets = [{offsets_text}], sizes = [{sizes_text}]",
        f": {view.type} -> {part_type}",
    )


def _ins_outs(ctx: FunctionContext, instruction: str, ins: str, outs: str) -> None:
    """``<instr> ins(..)`` with ``outs(..)`` on the next line, aligned under ``ins``."""
    ctx.out.line(f"{instruction} {ins}", outs, hang=len(instruction) + 1)


def _load(
    ctx: FunctionContext, instruction: str, call: Call, result: Var | None, span: Span
) -> Value:
    offsets, sizes, _ = _window(call, is_load=True, span=span)
    view, tensor = _tensor_view(ctx, call.args[0], span)
    out = _result_buffer(ctx, call, result, span)
    valid = _valid_region(call.type, len(sizes))
    if valid is not None:
        # TLOAD copies the partition's shape, which must be the tile's valid shape
        sizes = valid
        if mt.tile_buf_fields(out.type).get("v_row") == "?":
            _set_valid_shape(ctx, out, valid, span)
    part = _partition(ctx, view, tensor, offsets, sizes, span, valid_region=valid is not None)
    _ins_outs(ctx, instruction, f"ins({part.typed()})", f"outs({out.typed()})")
    return out


def _valid_region(tile: Type, rank: int) -> tuple[Expr, ...] | None:
    """A tile's valid region of ``rank`` dimensions (2026-08), None when it is the whole
    tile."""
    view = tile.tile_view if isinstance(tile, TileType) else None
    if view is None or view.valid_shape is None or len(view.valid_shape) != rank:
        return None
    return view.valid_shape


def _set_dynamic_region(ctx: FunctionContext, tile: Value, tile_type: TileType, span: Span) -> None:
    """``pto.set_validshape`` of a tile whose valid region is known at run time only."""
    valid = _valid_region(tile_type, 2)
    if valid is not None and any(static_value(d) is None for d in valid):
        _set_valid_shape(ctx, tile, valid, span)


def _set_valid_shape(ctx: FunctionContext, tile: Value, valid: Sequence[Expr], span: Span) -> None:
    """``pto.set_validshape %t, %rows, %cols : T``: a valid region known at run time."""
    extents = [expressions.index(ctx, d, span) for d in valid]
    if len(extents) == 1:
        extents.insert(0, ctx.constants.integer(1))
    names = ", ".join(v.name for v in extents)
    ctx.out.line(f"pto.set_validshape {tile.name}, {names} : {tile.type}")


def _store(ctx: FunctionContext, op: OpDef, instruction: str, call: Call, span: Span) -> Value:
    offsets, sizes, output = _window(call, is_load=False, span=span)
    if output is None:
        raise CodegenError("E400", f"{call.op_name}: missing the output tensor", span)
    tile = _operand(ctx, call.args[0], None, span)
    view, tensor = _tensor_view(ctx, output, span)
    valid = _valid_region(call.args[0].type, len(sizes))
    if valid is not None:  # TSTORE copies the tile's valid region
        sizes = valid
    part = _partition(ctx, view, tensor, offsets, sizes, span, valid_region=valid is not None)
    atomic = _typed_attributes(op, call, (), span)  # {atomicType = ...} when atomic
    _ins_outs(ctx, instruction, f"ins({tile.typed()})", f"outs({part.typed()}){atomic}")
    return view  # the store's result is the output tensor itself


# --- other block ops --------------------------------------------------------------------------


def _result_buffer(ctx: FunctionContext, call: Call, result: Var | None, span: Span) -> Value:
    """The buffer an op writes: the alloc_tile of the result variable's MemRef (or the home
    buffer of the carried tile it becomes)."""
    if result is not None and result in ctx.redirects:
        return ctx.redirects[result]
    name = result.name if result is not None else call.op_name
    at = result.span if result is not None and result.span.is_known else span
    candidates = [
        t for t in (result.type if result else None, call.type) if isinstance(t, TileType)
    ]
    if not candidates:
        raise CodegenError("E400", f"the result of {call.op_name} is not a tile", at)
    tile = next((t for t in candidates if t.memref is not None), None)
    if tile is None:
        raise CodegenError(
            "E403", f"tile '{name}' has no buffer (MemRef); run the PTO pass pipeline first", at
        )
    return ctx.buffer(tile, name, at)


def _list_operand(
    ctx: FunctionContext, arg: MakeTuple, result_type: Type, span: Span
) -> list[Value]:
    """A list argument: one index operand per element, or nothing when it is the result
    tile's shape (``block.full``, ``block.reshape``), which the outs buffer's type states."""
    if isinstance(result_type, TileType) and _same_dims(arg.elements, result_type.shape):
        return []
    return [expressions.index(ctx, element, span) for element in arg.elements]


def _same_dims(given: Sequence[Expr], shape: Sequence[Expr]) -> bool:
    """The same dimensions, arithmetic on constants folded (``[16 - 8, 128]`` is ``[8, 128]``)."""
    if shapes_equal(given, shape):
        return True
    if len(given) != len(shape):
        return False
    folded = [(constant_value(a), constant_value(b)) for a, b in zip(given, shape, strict=True)]
    return all(a is not None and a == b for a, b in folded)


def _operand(ctx: FunctionContext, arg: Expr, literal_type: str | None, span: Span) -> Value:
    """An ``ins`` operand: a tile or tensor variable, or a scalar.

    A literal takes the element type of the op's result tile (it has no width of its own);
    a scalar variable keeps its own type.
    """
    at = expressions.span_of(arg, span)
    if isinstance(arg.type, ScalarType):
        own = mt.scalar_type(arg.type.dtype, at)
        want = literal_type if literal_type is not None and expressions.is_literal(arg) else own
        return expressions.scalar(ctx, arg, at, want)
    if isinstance(arg, Var):
        return ctx.value(arg, at)
    raise CodegenError("E400", "assign a nested op call to a variable first", at)


def _ins(operands: Sequence[Value], attrs: str = "") -> str:
    """``ins(%a, %b {attrs} : T0, T1)``: the operands, the op's attribute dictionary where
    the dialect's assembly formats put it, then the operand types."""
    if not operands:
        return ""
    names = ", ".join(v.name for v in operands)
    return f"ins({names}{attrs} : {', '.join(v.type for v in operands)})"


def _operand_args(op: OpDef, call: Call) -> list[tuple[str, Expr]]:
    """The call's value arguments the instruction takes, by parameter name, in its order:
    not those that only give the result's shape (``block.expands``' target)."""
    bound = op.bind(call.args)
    names = _facts(op).operand_names
    return [(name, bound[name]) for name in (bound if names is None else names) if name in bound]


@record(frozen=True, slots=True)
class _OpFacts:
    """What lowering a call reads from its op's registration, worked out once per op (the
    registry is fixed; kernels call the same few ops thousands of times)."""

    # The instruction's operands in order (None: every bound argument but shape-only ones).
    operand_names: tuple[str, ...] | None
    # The attribute parameters, each with its typed PTO attribute (None: untyped).
    attributes: tuple[tuple[Param, TypedAttr | None], ...]
    comment: str | None


_FACTS: dict[int, tuple[OpDef, _OpFacts]] = {}


def _facts(op: OpDef) -> _OpFacts:
    known = _FACTS.get(id(op))
    if known is not None and known[0] is op:
        return known[1]
    shape_only = frozenset(p.name for p in op.expr_params if p.access is Access.SHAPE)
    operands = op.pto.operands
    if operands is not None:
        operands = tuple(n for n in operands if n not in shape_only)
    elif shape_only:
        operands = tuple(n for n in op.expr_names if n not in shape_only)
    typed = {t.param: t for t in op.pto.typed_attrs}
    attributes = tuple(
        (p, typed.get(p.name))
        for p in op.params
        if p.kind is ParamKind.ATTR and p.name not in op.pto.stated_by_type
    )
    short = op.short_name
    comment = _VERBS.get(short, short.replace("_", " ").capitalize())
    facts = _OpFacts(operands, attributes, comment)
    _FACTS[id(op)] = (op, facts)
    return facts


def _block_op(
    ctx: FunctionContext,
    op: OpDef,
    instruction: str,
    call: Call,
    result: Var | None,
    span: Span,
    *,
    scratch: bool = False,
    implied: tuple[str, ...] = (),
) -> Value | None:
    result_type = result.type if result is not None else call.type
    attrs = _typed_attributes(op, call, implied, span)
    if op.pto.returns_value:
        return _value_op(ctx, instruction, call, result_type, attrs, span)
    out: Value | None = None
    literal_type: str | None = None
    form = forms.Form(instruction)
    if isinstance(result_type, TileType):
        form = forms.choose(op, instruction, call, result_type, span)
        instruction = form.instruction
        out = _result_buffer(ctx, call, result, span)
        literal_type = mt.scalar_type(op.pto.scalar_dtype or result_type.dtype, span)
        # a region known at run time: the instruction computes over the destination's
        # (element-wise ops) or writes it (a row reduction's valid rows)
        _set_dynamic_region(ctx, out, result_type, span)
    given = _operand_args(op, call)
    operands = _block_operands(ctx, op, given, result_type, out, form, literal_type, span)
    if op.pto.same_rows and isinstance(result_type, TileType) and operands:
        operands[0] = _padded_rows_source(ctx, operands[0], result_type, span)
    if scratch and not any(name in op.written_params for name, _ in given):
        source = next((v for v in operands if v.type.startswith("!pto.tile_buf")), None)
        if source is None:
            raise CodegenError("E400", f"{instruction} needs a source tile for its scratch", span)
        operands.append(ctx.scratch(source.type))
    if out is not None:
        assert isinstance(result_type, TileType)
        _write_tile(ctx, op, instruction, call, result_type, out, form, operands, attrs, span)
        return out
    ins = _ins(operands, attrs)
    if isinstance(result_type, ScalarType):
        scalar_type = mt.scalar_type(result_type.dtype, span)
        if not ins:  # nothing to type: the op's result type is its own (pto.get_block_idx)
            if scalar_type == mt.INDEX:  # 2026-08's INDEX queries: the instruction gives i64
                raw = ctx.emit_result(_QUERY_TYPE, f"{instruction}{attrs}")
                return expressions.coerce(ctx, raw, mt.INDEX, span)
            return ctx.emit_result(scalar_type, f"{instruction}{attrs}")
        return ctx.emit_result(scalar_type, f"{instruction} {ins} : {scalar_type}")
    if isinstance(result_type, UnknownType):
        ctx.out.line(f"{instruction} {ins}".rstrip())
        return None
    raise CodegenError(
        "E400", f"{call.op_name} returning {result_type.short()} has no PTO lowering", span
    )


#: The type of what a scalar query without operands (``pto.get_block_idx``) gives.
_QUERY_TYPE = "i64"


def _padded_rows_source(
    ctx: FunctionContext, source: Value, result_type: TileType, span: Span
) -> Value:
    """The source of an instruction whose result keeps its source's rows
    (``Lowering.same_rows``: pto-isa's CPU TROWSUM asserts them equal) when the result is a
    short column declared with padded rows ([4, 1] FP32 is rows=8, v_row=4): a
    ``pto.subview`` of as many rows at the source's address, valid rows the source's. v0.27's
    ``pto.subset`` is typed by its source and has no such view: the source stays."""
    if not mt.is_column_vector(result_type) or not versions.has_subview(ctx.ptoas_version):
        return source
    fields = mt.tile_buf_fields(source.type)
    rows = mt.aligned_cols(static_value(result_type.shape[0]) or 1, result_type.dtype)
    if fields["rows"] == str(rows) or not fields["rows"].isdigit():
        return source
    view = dict(fields, rows=str(rows))
    view_type = mt.tile_buf_of(view)
    zero = ctx.constants.integer(0)
    return ctx.emit_result(
        view_type,
        f"{versions.SUBVIEW} {source.name}[{zero.name}, {zero.name}] sizes [{rows}, "
        f"{fields['cols']}] : {source.type} -> {view_type}",
    )


def _block_operands(
    ctx: FunctionContext,
    op: OpDef,
    given: list[tuple[str, Expr]],
    result_type: Type,
    out: Value | None,
    form: forms.Form,
    literal_type: str | None,
    span: Span,
) -> list[Value]:
    """The instruction's operands: a list argument one index each, a scalar coerced to the
    op's scalar type, expanded to a tile or made a byte mask when the form says so."""
    operands: list[Value] = []
    masked = op.written_params if op.pto.byte_scratch else ()
    for name, arg in given:
        if isinstance(arg, MakeTuple):
            operands.extend(_list_operand(ctx, arg, result_type, span))
            continue
        if name in op.pto.index_operands and isinstance(arg.type, ScalarType):
            operands.append(expressions.index(ctx, arg, span))
            continue
        value = _operand(ctx, arg, literal_type, span)
        if op.pto.scalar_dtype is not None and isinstance(arg.type, ScalarType):
            value = expressions.coerce(ctx, value, literal_type or value.type, span)
        if out is not None and name == form.expand and form.expand_as is not None:
            value = forms.expanded(ctx, value, out, form, span)
        elif name in masked:
            value = forms.byte_mask(ctx, value, span)
        operands.append(value)
    return operands


def _write_tile(
    ctx: FunctionContext,
    op: OpDef,
    instruction: str,
    call: Call,
    result_type: TileType,
    out: Value,
    form: forms.Form,
    operands: list[Value],
    attrs: str,
    span: Span,
) -> None:
    """``<instr> ins(..) outs(%buf)``: the instruction writing the result's buffer (through
    reinterpreted views for a narrowed form, row views for column vectors)."""
    if form.narrow is not None:
        views: dict[str, Value] = {}  # one view per tile: and(t, t) reads one
        for value in operands:
            if value.name not in views:
                views[value.name] = _narrowed(ctx, value, form.narrow, span)
        operands = [views[v.name] for v in operands]
        target = forms.reinterpret(ctx, out, form.narrow, span)
        _ins_outs(ctx, instruction, _ins(operands, attrs), f"outs({target.typed()})")
        return
    target = out
    if result_is_promoted(call):
        operands = _promote_source(ctx, op, operands, out, span)
    if _on_column_vectors(op, call, result_type):
        rows = _row_views(op, call, result_type, span)
        row = mt.row_view_type(result_type, span)
        operands = [_row_view(ctx, v, rows[v.type]) if v.type in rows else v for v in operands]
        target = _row_view(ctx, out, row)
    ins = _ins(operands, attrs)
    if ins:
        _ins_outs(ctx, instruction, ins, f"outs({target.typed()})")
    else:
        ctx.out.line(f"{instruction} outs({target.typed()})")


def _narrowed(ctx: FunctionContext, value: Value, dtype: DataType, span: Span) -> Value:
    """A tile operand reinterpreted as ``dtype`` (scalars stay)."""
    if not value.type.startswith("!pto.tile_buf"):
        return value
    return forms.reinterpret(ctx, value, dtype, span)


def _promote_source(
    ctx: FunctionContext, op: OpDef, operands: list[Value], out: Value, span: Span
) -> list[Value]:
    """An element-wise op of one tile and scalars whose result type is promoted (an FP16
    tile plus 1.5 is FP32): PTO's instructions keep the element type, so the tile is first
    converted into the destination (the registry's cast instruction), and the op runs there
    in place."""
    tiles = [v for v in operands if v.type.startswith("!pto.tile_buf")]
    if op.role is not Role.ELEMENTWISE or len(tiles) != 1 or tiles[0].type == out.type:
        return operands
    source = tiles[0]
    if _dtype_of(source.type) == _dtype_of(out.type):
        return operands
    convert = REGISTRY.the(Role.CAST, "block").pto.instruction
    if convert is None:
        raise CodegenError("E900", "the registry has no PTO cast instruction", span)
    _ins_outs(ctx, convert, _ins([source]), f"outs({out.typed()})")
    return [out if v is source else v for v in operands]


def _dtype_of(tile_buf: str) -> str:
    return tile_buf.split("dtype=", 1)[1].split(",", 1)[0]


def _on_column_vectors(op: OpDef, call: Call, result_type: Type) -> bool:
    """An element-wise op whose result and tile operands are all column vectors: PTOAS runs
    element-wise ops on row-major tiles only, so it runs on their [1, M] reinterpretations."""
    if op.role not in (Role.ELEMENTWISE, Role.CAST, Role.BROADCAST):
        return False
    if not (isinstance(result_type, TileType) and mt.is_column_vector(result_type)):
        return False
    args = [a for _, a in _operand_args(op, call)]  # block.expands: its target is no operand
    tiles = [a.type for a in args if isinstance(a.type, TileType)]
    return all(mt.is_column_vector(t) for t in tiles)


def _row_views(op: OpDef, call: Call, result_type: TileType, span: Span) -> dict[str, str]:
    """The [1, M] row type of each column vector the op reads or writes, by its own type (a
    conversion's source has another dtype than its result)."""
    rows = {mt.tile_buf_type(result_type, span): mt.row_view_type(result_type, span)}
    for _, arg in _operand_args(op, call):
        if isinstance(arg.type, TileType):
            column = mt.tile_buf_type(arg.type, span)
            rows.setdefault(column, mt.row_view_type(arg.type, span))
    return rows


def _row_view(ctx: FunctionContext, column: Value, row_type: str) -> Value:
    """``%r = pto.treshape %col : [M, 1] col_major -> [1, M] row_major`` (no data moves)."""
    return ctx.emit_result(
        row_type, f"{forms.reshape_instruction()} {column.name} : {column.type} -> {row_type}"
    )


def _value_op(
    ctx: FunctionContext, instruction: str, call: Call, result_type: Type, attrs: str, span: Span
) -> Value:
    """``%r = <instr> %src : T1 -> T2``: an instruction that returns a new view of its
    source (pto.treshape) instead of writing a destination buffer."""
    if not isinstance(result_type, TileType) or not call.args:
        raise CodegenError("E400", f"{call.op_name} needs a tile source and a tile result", span)
    source = _operand(ctx, call.args[0], None, span)
    target = mt.tile_buf_type(result_type, span)
    view = ctx.emit_result(
        target, f"{instruction} {source.name}{attrs} : {source.type} -> {target}"
    )
    # a region known at run time (set_validshape's; v_row=?, v_col=? in the view's type)
    _set_dynamic_region(ctx, view, result_type, span)
    return view


def _typed_attributes(op: OpDef, call: Call, implied: tuple[str, ...], span: Span) -> str:
    """The instruction's typed attributes (``{cmpMode = #pto<cmp lt>}``). Any other attribute
    must be stated by the types (memory spaces, data types, the axis) or keep its default:
    the dialect has no spelling for it (E400)."""
    attributes = _facts(op).attributes
    if not attributes:
        return ""
    given = dict(call.kwargs)
    items: list[str] = []
    for param, attribute in attributes:
        if param.name in implied:
            continue
        value = given.get(param.name, None if param.required else param.default)
        if value is None or isinstance(value, MemorySpace | DataType):
            continue
        if attribute is not None:
            spelled = attribute.spell(value)
            if spelled is None:
                raise CodegenError(
                    "E400", f"{op.name}: {param.name}={value!r} has no PTO {attribute.enum}", span
                )
            items.append(f"{attribute.name} = {spelled}")
        elif param.required or value != param.default:
            raise CodegenError(
                "E400",
                f"{op.name}: {param.name}={_attribute(value)} has no PTO form "
                f"({op.pto.instruction} has no such attribute)",
                span,
            )
    return " {" + ", ".join(items) + "}" if items else ""


def _attribute(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return float_literal(value, "f64")
    if isinstance(value, tuple):
        return "[" + ", ".join(_attribute(v) for v in value) + "]"
    if isinstance(value, Enum):
        return json.dumps(value.name)
    return json.dumps(str(value))


# --- synchronization ----------------------------------------------------------------------------


def _sync(ctx: FunctionContext, op: OpDef, instruction: str, call: Call, span: Span) -> None:
    if op.role in (Role.SET_FLAG, Role.WAIT_FLAG):
        set_pipe = _pipe(call, "set_pipe", 0, span)
        wait_pipe = _pipe(call, "wait_pipe", 1, span)
        event = _event_id(call, span)
        ctx.out.line(f"{instruction}[<PIPE_{set_pipe}>, <PIPE_{wait_pipe}>, <EVENT_ID{event}>]")
    else:
        assert op.barrier_pipe is not None, op.name
        ctx.out.line(f"{instruction} <PIPE_{op.barrier_pipe.name}>")


def _sync_attr(call: Call, name: str, position: int) -> object:
    """A sync attribute: the keyword, or (seed 001's form) a constant positional argument."""
    value = call.kwarg(name)
    if value is None and position < len(call.args) and isinstance(call.args[position], ConstInt):
        value = call.args[position].value  # type: ignore[attr-defined]
    return value


def _pipe(call: Call, name: str, position: int, span: Span) -> str:
    value = _sync_attr(call, name, position)
    pipe: PipeType | None = None
    if isinstance(value, PipeType):
        pipe = value
    elif isinstance(value, int) and not isinstance(value, bool):
        pipe = next((p for p in PipeType if p.value == value), None)
    elif isinstance(value, str):
        pipe = PipeType.__members__.get(value.removeprefix("PIPE_"))
    if pipe is None:
        raise CodegenError("E309", f"{call.op_name}: '{name}' must be a pipe, got {value!r}", span)
    return pipe.name


def _event_id(call: Call, span: Span) -> int:
    value = _sync_attr(call, "event_id", 2)
    if isinstance(value, str) and value.startswith("EVENT_ID") and value[8:].isdigit():
        return int(value[8:])
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    raise CodegenError(
        "E309", f"{call.op_name}: 'event_id' must be a non-negative integer, got {value!r}", span
    )
