"""Op calls -> pto-isa instructions (seed 000, section 4): ``lower_call``, and ISAMapper, which
picks the instruction.

Every fact comes from the op's registration: the instruction (``OpDef.cce``), its column form
for axis reductions (axis 0 -> TCOLSUM, axis 1 -> TROWSUM), the pipe a barrier orders, and the
attributes that become trailing C++ arguments (``Lowering.attr_args``: cast round modes,
compare modes). This module renders what depends on the call itself: the operands, the
destination, and for loads and stores the GlobalTensor window and its address.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...ir.dsl_enums import AtomicType
from ...ir.expr import AttrValue, Call, ConstInt, Expr, MakeTuple, Op, Var
from ...ir.shape import static_shape
from ...ir.span import Span
from ...ir.types import MemorySpace, ScalarType, ShapedType, TensorType, TileType, Type
from ...ops import GM_ELEMENT, REGISTRY, Access, Category, OpDef, Param, PipeType, Role
from ...ops.registry import VALID_SHAPE_METHOD
from ...passes.op_info import op_def
from ...records import record
from ..common import (
    CodegenError,
    axis_instruction,
    check_spaces,
    check_valid_region_reads,
    not_taken,
    result_is_promoted,
)
from . import (
    byte_mask,
    column_vectors,
    expressions,
    gm_element,
    in_place,
    transposed_operand,
    valid_regions,
)
from .declarations import column_layout, cpp_dtype, static_dims, tile_rows_cols

if TYPE_CHECKING:
    from .context import FunctionContext

ROUND_MODES = ("none", "rint", "round", "floor", "ceil", "trunc", "odd")
CMP_MODES = ("EQ", "NE", "LT", "LE", "GT", "GE")


@record(frozen=True, slots=True)
class ISAMapping:
    op: OpDef
    instruction: str
    # Attribute arguments, rendered, placed after the operands.
    attr_args: tuple[str, ...] = ()

    @property
    def op_name(self) -> str:
        return self.op.name

    @property
    def role(self) -> Role:
        return self.op.role

    @property
    def operand_names(self) -> tuple[str, ...]:
        """Names of the op's value (EXPR) parameters, in argument order."""
        return tuple(p.name for p in self.op.expr_params)


def pipe_name(value: AttrValue | PipeType, span: Span) -> str:
    """``PipeType.MTE2`` (or its number, or its name) -> ``PIPE_MTE2``."""
    if isinstance(value, PipeType):
        return "PIPE_" + value.name
    if isinstance(value, int) and not isinstance(value, bool):
        try:
            return "PIPE_" + PipeType(value).name
        except ValueError:
            pass
    if isinstance(value, str):
        name = value.upper().removeprefix("PIPE_")
        if name in PipeType.__members__:
            return "PIPE_" + name
    raise CodegenError("E400", f"not a hardware pipe: {value!r}", span)


def event_name(value: AttrValue, span: Span) -> str:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return f"EVENT_ID{value}"
    if isinstance(value, str) and value.startswith("EVENT_ID"):
        return value
    raise CodegenError("E400", f"not an event id: {value!r}", span)


def round_mode(value: AttrValue, span: Span) -> str:
    """A cast mode (name or its number 0..6) -> ``RoundMode::CAST_ROUND`` etc."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(ROUND_MODES):
        value = ROUND_MODES[value]
    if isinstance(value, str) and value.lower() in ROUND_MODES:
        return "RoundMode::CAST_" + value.upper()
    raise CodegenError("E400", f"unsupported cast mode {value!r}", span)


def cmp_mode(value: AttrValue, span: Span) -> str:
    """A compare type (EQ 0, NE 1, LT 2, LE 3, GT 4, GE 5) -> ``CmpMode::EQ`` etc."""
    if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < len(CMP_MODES):
        return "CmpMode::" + CMP_MODES[value]
    if isinstance(value, str) and value.upper() in CMP_MODES:
        return "CmpMode::" + value.upper()
    raise CodegenError("E400", f"unsupported compare type {value!r}", span)


class ISAMapper:
    def get_mapping(self, call: Call, registered: OpDef | None = None) -> ISAMapping:
        """The instruction for ``call``; CodegenError E400 when the CCE target has none.
        ``registered``: the call's op, when the caller has looked it up already."""
        span = call.span
        if not isinstance(call.callee, Op):
            raise CodegenError(
                "E400",
                f"call to function '{call.callee.name}' cannot be generated inside a CCE kernel",
                span,
            )
        name = call.callee.name
        op = registered if registered is not None else REGISTRY.get(name)
        instruction = op.cce.instruction if op is not None else None
        if op is None or instruction is None:
            hint = ""
            if op is not None and op.category is Category.TENSOR and op.namespace == "tensor":
                hint = " (tensor ops run on the host side; use block ops in kernels)"
            elif op is not None and op.cce.note:  # (pld.tensor.X: the op's own word)
                hint = f": {op.cce.note}"
            raise CodegenError("E400", f"'{name}' has no CCE lowering{hint}", span)

        if op.is_sync:
            return _sync_mapping(op, instruction, call)
        if op.cce.column_form is not None:
            instruction = axis_instruction(op, "cce", call)
        if op.cce.row_broadcast is not None:
            instruction = _broadcast_instruction(op, call, instruction)
        attrs = tuple(
            _ATTR_RENDERERS[name](_attr(op, call, name), span) for name in op.cce.attr_args
        )
        return ISAMapping(op, instruction, attrs)


# Sync mappings depend on the op and the call's keywords only, and kernels are full of them.
_SYNC_MAPPINGS: dict[tuple[object, ...], ISAMapping] = {}
_SYNC_CACHE_SIZE = 1024


def _sync_mapping(op: OpDef, instruction: str, call: Call) -> ISAMapping:
    # Typed: True == 1, but True is no event id.
    key: tuple[object, ...] = (id(op), *((k, type(v), v) for k, v in call.kwargs))
    try:
        found = _SYNC_MAPPINGS.get(key)
        cacheable = True
    except TypeError:  # an unhashable keyword value: rendered below, reported there
        found, cacheable = None, False
    if found is not None and found.op is op:
        return found
    span = call.span
    if op.role is Role.BARRIER:
        assert op.barrier_pipe is not None, op.name
        args: tuple[str, ...] = (pipe_name(op.barrier_pipe, span),)
    else:
        args = (
            pipe_name(call.kwarg("set_pipe"), span),
            pipe_name(call.kwarg("wait_pipe"), span),
            event_name(call.kwarg("event_id", 0), span),
        )
    mapping = ISAMapping(op, instruction, args)
    if cacheable:
        if len(_SYNC_MAPPINGS) >= _SYNC_CACHE_SIZE:
            _SYNC_MAPPINGS.clear()
        _SYNC_MAPPINGS[key] = mapping
    return mapping


def _broadcast_instruction(op: OpDef, call: Call, instruction: str) -> str:
    """A binary op whose rhs is a per-row vector [M, 1] or a per-column vector [1, N] of an
    [M, N] lhs is the op's TROWEXPAND / TCOLEXPAND form (a plain element-wise instruction
    would read past the vector). Other broadcasts have no instruction: E400."""
    if len(call.args) < 2:
        return instruction
    lhs, rhs = (_matrix_shape(arg.type) for arg in call.args[:2])
    if lhs is None or rhs is None or lhs == rhs:
        return instruction
    (rows, cols), (vec_rows, vec_cols) = lhs, rhs
    if vec_cols == 1 and vec_rows == rows and cols > 1 and op.cce.row_broadcast:
        return op.cce.row_broadcast
    if vec_rows == 1 and vec_cols == cols and rows > 1 and op.cce.col_broadcast:
        return op.cce.col_broadcast
    raise CodegenError(
        "E400",
        f"{op.name} of a [{rows}, {cols}] and a [{vec_rows}, {vec_cols}] tile has no CCE "
        "instruction: only the rhs may be broadcast, as a per-row [M, 1] or a per-column "
        "[1, N] vector (swap the operands of a commutative op, or expand the lhs first)",
        call.span,
    )


def _matrix_shape(type_: object) -> tuple[int, int] | None:
    """Rows and columns of a tile with a static shape of rank 2 or more, as pto-isa sees it."""
    if not isinstance(type_, ShapedType):
        return None
    dims = static_shape(type_.shape)
    if dims is None or len(dims) < 2:
        return None
    return tile_rows_cols(dims)


def _attr(op: OpDef, call: Call, name: str) -> AttrValue:
    """An attribute of the call, or the parameter's default when the call leaves it out."""
    param = op.param(name)
    default = param.default if param is not None and not param.required else None
    return call.kwarg(name, default)


# How an attribute named in ``Lowering.attr_args`` becomes a C++ argument.
_ATTR_RENDERERS = {"mode": round_mode, "cmp_type": cmp_mode}


# --- lowering (statement mode) ----------------------------------------------------------------

_ISA = ISAMapper()

# List parameters that only restate the destination tile's shape (or its valid region).
SHAPE_PARAMS = frozenset({"shape", "shapes", "valid_shape"})


def lower_call(
    ctx: FunctionContext, call: Call, target: str = "", target_type: Type | None = None
) -> str:
    """Emit the instruction of an op call writing ``target`` (a C++ name; "" when the call is
    not assigned) and return ""; a scalar-valued op is an inline C++ call instead, returned
    as text (value mode). ``target_type`` is the IR type of the variable ``target`` names."""
    op = op_def(call)
    if op is not None:
        if op.cce.elided:
            # Allocation only: the tile is declared (with its TASSIGN) from its MemRef.
            return ""
        if op.is_sync:
            ctx.out.emit_line(_sync_line(op, call))
            return ""
    mapping = _ISA.get_mapping(call, op)
    check_valid_region_reads(mapping.op, call, "CCE")
    check_spaces(mapping.op, call, "CCE")
    _check_rewritten(call, mapping.op, mapping.instruction)
    _check_element_type(call, mapping.op, mapping.instruction, target_type)
    role = mapping.role
    if role is Role.LOAD:
        _lower_load(ctx, call, mapping.instruction, target)
        return ""
    if role is Role.STORE:
        _lower_store(ctx, call, mapping.instruction)
        return ""
    if _lowered_apart(ctx, call, mapping, target, target_type):
        return ""
    operands = _operands(ctx, call, mapping.op)
    if target:
        operands = _convert_promoted_operand(ctx, call, mapping.op, operands, target)
        operands = in_place.write_in_place(ctx, call, mapping.op, target, operands)
    if isinstance(call.type, ScalarType):
        return _value(ctx, call, mapping, operands)
    if not target:
        raise CodegenError(
            "E400",
            f"the result of {mapping.op_name} is not assigned; its instruction needs a "
            "destination tile",
            call.span,
        )
    same_rows = mapping.op.cce.same_rows and mapping.instruction == mapping.op.cce.instruction
    if same_rows and column_vectors.emit_on_padded_source(
        ctx, mapping.instruction, target, target_type, call, operands, mapping.attr_args
    ):
        return ""
    rows = column_vectors.on_row_views(call, role, target_type)
    if rows is not None:
        assert isinstance(target_type, TileType)
        column_vectors.emit_on_row_views(
            ctx, mapping.instruction, target, target_type, rows, operands, mapping.attr_args, call
        )
        return ""
    arguments = [target, *operands, *mapping.attr_args]
    if mapping.op.cce.byte_scratch and byte_mask.emit_with_mask(
        ctx, mapping.op, mapping.instruction, call, arguments
    ):
        return ""
    ctx.out.emit_line(f"{mapping.instruction}({', '.join(arguments)});")
    return ""


def _value(ctx: FunctionContext, call: Call, mapping: ISAMapping, operands: list[str]) -> str:
    """A scalar-valued op: an inline C++ call (value mode), or an element of a tensor
    parameter read through its pointer (gm_element.py)."""
    if mapping.instruction == GM_ELEMENT:
        return gm_element.read(ctx, call)
    return f"{mapping.instruction}({', '.join([*operands, *mapping.attr_args])})"


def _lowered_apart(
    ctx: FunctionContext, call: Call, mapping: ISAMapping, target: str, target_type: Type | None
) -> bool:
    """The calls lowered apart from the generic instruction (True: nothing else to emit): a
    transposing move, and valid regions (2026-08): ``set_validshape`` is the region alone;
    a result's region known at run time is set before its instruction, which computes over
    the destination's valid region (element-wise ops, a window's TEXTRACT)."""
    if mapping.role is Role.MOVE and call.kwarg("transpose") is True and target:
        if _lower_transposing_move(ctx, call, mapping.instruction, target, target_type):
            return True
    if mapping.instruction == VALID_SHAPE_METHOD:
        valid_regions.lower_set_valid_shape(ctx, call, target, target_type)
        return True
    tile = target_type if isinstance(target_type, TileType) else call.type
    if target and isinstance(tile, TileType):  # (element-wise ops, TEXTRACT: the dst's)
        valid_regions.set_valid_shape(ctx, target, tile, call)
    return False


# Sync lines depend on the op and the call's keywords only, and kernels are full of them.
_SYNC_LINES: dict[tuple[object, ...], tuple[OpDef, str]] = {}


def _sync_line(op: OpDef, call: Call) -> str:
    """``set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);``: a sync op's whole line."""
    kwargs = call.kwargs
    # Typed: True == 1, but True is no event id.
    key = (id(op), kwargs, tuple([type(v) for _, v in kwargs]))
    try:
        found = _SYNC_LINES.get(key)
        cacheable = True
    except TypeError:  # an unhashable keyword value: rendered below, reported there
        found, cacheable = None, False
    if found is not None and found[0] is op:
        return found[1]
    mapping = _ISA.get_mapping(call, op)
    _check_rewritten(call, mapping.op, mapping.instruction)
    line = f"{mapping.instruction}({', '.join(mapping.attr_args)});"
    if cacheable:
        if len(_SYNC_LINES) >= _SYNC_CACHE_SIZE:
            _SYNC_LINES.clear()
        _SYNC_LINES[key] = (op, line)
    return line


def _check_rewritten(call: Call, op: OpDef, instruction: str) -> None:
    """Calls AddReductionScratch leaves alone because their instruction cannot take the
    operands: a comparison or selection (TCMP writes, TSEL reads, a bit mask; block.cmp and
    block.sel work on 1 / 0 values) or an instruction needing a scratch tile the call does
    not give (TTRANS, TROWSUM ...)."""
    if op.mask_form is not None:
        operands = ", ".join(arg.type.short() for arg in call.args)
        raise CodegenError(
            "E400",
            f"{op.name} of {operands} has no CCE form: {instruction} works on a bit mask, "
            f"which ptoc builds only as the registration says ({op.cce.note})",
            call.span,
        )
    rewritable = op.scratch_form is not None and op.cce.scratch
    if not rewritable or instruction != op.cce.instruction:
        return
    written = set(op.written_params)
    given = {p.name for p, _ in zip(op.expr_params, call.args, strict=False)}
    if not written & given:
        raise CodegenError(
            "E400",
            f"{instruction} needs a scratch tile, which {op.name} gets only for a 2-D tile of "
            "static shape (along the last axis with keepdim=True, for a reduction)",
            call.span,
        )


def _check_element_type(call: Call, op: OpDef, instruction: str, result: Type | None) -> None:
    """E400 for a result element type the instruction's A2/A3 implementation does not take
    (``Lowering.dtypes``; pto-isa's CPU simulator takes more)."""
    takes = op.cce.dtypes
    if not takes or instruction != op.cce.instruction or not isinstance(result, TileType):
        return
    if result.dtype not in takes:
        message = not_taken(op, instruction, takes, call, result.dtype, "pto-isa's npu/a2a3")
        raise CodegenError("E400", message, call.span)


def _lower_transposing_move(
    ctx: FunctionContext, call: Call, instruction: str, target: str, result: Type | None
) -> bool:
    """A transposing move from Mat into Right (transposed_operand.py). Within Vec it is a
    transpose (TTRANS), which AddReductionScratch makes of a 2-D tile of static shape: E400
    for any other (A2/A3's TMOV copies; a ColMajor Vec tile is no vector operand). False
    (not handled) for other memory spaces."""
    source = call.args[0] if call.args else None
    if not isinstance(source, Var) or not isinstance(source.type, TileType):
        return False
    if not isinstance(result, TileType) or result.memref is None or source.type.memref is None:
        return False
    spaces = (source.type.memref.memory_space, result.memref.memory_space)
    if spaces == (MemorySpace.Mat, MemorySpace.Right):
        return transposed_operand.lower(ctx, source, instruction, target, call.span)
    if set(spaces) != {MemorySpace.Vec}:
        return False
    raise CodegenError(
        "E400",
        f"block.move(transpose=True) within Vec is a transpose (TTRANS), computed for a 2-D "
        f"tile of static shape, not {source.type.short()}",
        call.span,
    )


def _convert_promoted_operand(
    ctx: FunctionContext, call: Call, op: OpDef, operands: list[str], target: str
) -> list[str]:
    """An element-wise op on one tile whose result has another dtype (a scalar operand
    promoted it: FP16 tile + 1.5 is FP32) converts the tile into the destination first,
    ``TCVT(dst, src, RoundMode::CAST_RINT)``, then works there in place: pto-isa's
    instructions take operands of the destination's type."""
    if op.role is not Role.ELEMENTWISE or not isinstance(call.type, TileType):
        return operands
    tiles = [arg for arg in call.args if isinstance(arg.type, TileType)]
    if len(tiles) != 1:
        return operands
    tile = tiles[0]
    assert isinstance(tile.type, TileType)
    if tile.type.dtype is call.type.dtype or not result_is_promoted(call):
        return operands  # same type, or a result the rule gives (TCMPS's uint8 mask)
    source = expressions.operand(ctx, tile)
    convert = REGISTRY.the(Role.CAST, "block").cce.instruction
    mode = round_mode("rint", call.span)
    ctx.out.emit_line(f"{convert}({target}, {source}, {mode});")
    ctx.out.emit_line("pipe_barrier(PIPE_V);")  # the op reads what TCVT wrote
    return [target if text == source else text for text in operands]


def _operands(ctx: FunctionContext, call: Call, op: OpDef) -> list[str]:
    """Instruction operands in argument order. A list argument is a shape (already in the
    destination tile's type: left out) or positions such as a view's offset (passed
    element by element); an operand only giving the result's shape is left out too, and so
    is one the instruction does not take (``Lowering.operands``: block.insert's target is
    the destination, the result's buffer)."""
    params: tuple[Param, ...] = op.expr_params
    taken = op.cce.operands
    out: list[str] = []
    for index, arg in enumerate(call.args):
        param = params[index] if index < len(params) else None
        if param is not None and param.access is Access.SHAPE:
            continue
        if param is not None and taken is not None and param.name not in taken:
            continue
        if isinstance(arg, MakeTuple):
            if param is None or param.name not in SHAPE_PARAMS:
                out.extend(expressions.operand(ctx, e) for e in arg.elements)
            continue
        out.append(expressions.operand(ctx, arg))
    return out


# --- loads and stores ----------------------------------------------------------------------------


def has_own_window(dims: list[int], window: list[int], offset_count: int) -> bool:
    """Whether a load/store window gets a GlobalTensor of its own (it is smaller than its
    tensor, of the same rank); otherwise the access moves the tensor's own GlobalTensor."""
    return window != dims and len(window) == len(dims) == offset_count


def _window_offsets(call: Call, first: int) -> tuple[Expr, ...]:
    """Offsets of a load/store: a list argument, or the seed's positional (row, col)."""
    if len(call.args) > first and isinstance(call.args[first], MakeTuple):
        offsets = call.args[first]
        assert isinstance(offsets, MakeTuple)
        return offsets.elements
    return tuple(call.args[first : first + 2])


def _tensor_operand(
    ctx: FunctionContext, expr: Expr, op_name: str, span: Span
) -> tuple[str, TensorType]:
    if not isinstance(expr, Var) or not isinstance(expr.type, TensorType):
        raise CodegenError("E400", f"{op_name}: the tensor operand must be a tensor variable", span)
    return ctx.names.get_var_name(expr), expr.type


def _lower_load(ctx: FunctionContext, call: Call, instruction: str, target: str) -> None:
    if not call.args:
        raise CodegenError("E900", "internal: block.load without arguments", call.span)
    global_name, tensor = _tensor_operand(ctx, call.args[0], call.op_name, call.span)
    if not target:
        raise CodegenError("E400", "the result of block.load is not assigned to a tile", call.span)
    offsets = _window_offsets(call, 1)
    tile = call.type
    if isinstance(tile, TileType) and valid_regions.valid_region(tile) is not None:
        dims = static_dims(tensor.shape, f"tensor '{global_name}'", call.span, follow_on=True)
        address = _address(ctx, global_name, dims, offsets, call.span)
        window = valid_regions.region_global(ctx, global_name, tensor, address, tile, call)
        valid_regions.set_valid_shape(ctx, target, tile, call)
        ctx.out.emit_line(f"{instruction}({target}, {window});")
        return
    window = _window_global(ctx, global_name, tensor, offsets, call)
    if window is None:
        _seat(ctx, global_name, tensor, offsets, call.span)
    ctx.out.emit_line(f"{instruction}({target}, {window or global_name});")


def _lower_store(ctx: FunctionContext, call: Call, instruction: str) -> None:
    if len(call.args) < 2:
        raise CodegenError(
            "E900", f"internal: {call.callee.name} with too few arguments", call.span
        )
    tile = expressions.operand(ctx, call.args[0])
    global_name, tensor = _tensor_operand(ctx, call.args[-1], call.callee.name, call.span)
    offsets = _window_offsets(call, 1)
    tile_type = call.args[0].type
    if isinstance(tile_type, TileType) and valid_regions.valid_region(tile_type) is not None:
        dims = static_dims(tensor.shape, f"tensor '{global_name}'", call.span, follow_on=True)
        address = _address(ctx, global_name, dims, offsets, call.span)
        region = valid_regions.region_global(ctx, global_name, tensor, address, tile_type, call)
        assert region is not None  # (the tile has a valid region)
        ctx.out.emit_line(f"{_atomic(instruction, call, region, tile)}({region}, {tile});")
        return
    window = _window_global(ctx, global_name, tensor, offsets, call)
    if window is None:
        _seat(ctx, global_name, tensor, offsets, call.span)
    destination = window or global_name
    ctx.out.emit_line(f"{_atomic(instruction, call, destination, tile)}({destination}, {tile});")


def _atomic(instruction: str, call: Call, destination: str, tile: str) -> str:
    """TSTORE, or with ``atomic=pl.AtomicType.Add`` its atomic-add form
    (``TSTORE<TileData, GlobalData, AtomicType::AtomicAdd>``, pto-isa's only atomic mode)."""
    mode = call.kwarg("atomic")
    if mode is None or mode is AtomicType.None_:
        return instruction
    if mode is not AtomicType.Add:
        raise CodegenError(
            "E400", f"{call.op_name}: atomic={mode} has no TSTORE form (only Add)", call.span
        )
    return f"{instruction}<decltype({tile}), decltype({destination}), AtomicType::AtomicAdd>"


def _window_global(
    ctx: FunctionContext,
    global_name: str,
    tensor: TensorType,
    offsets: tuple[Expr, ...],
    call: Call,
) -> str | None:
    """A window smaller than its tensor gets a GlobalTensor of its own: the window's
    Shape with the tensor's strides, at the window's address (pto-isa's TLOAD/TSTORE
    require the global shape to equal the tile's valid shape). None for a whole-tensor
    access, which keeps the tensor's own GlobalTensor."""
    shapes = call.args[2] if len(call.args) > 2 else None
    if not isinstance(shapes, MakeTuple):
        return None
    what = f"tensor '{global_name}'"
    # A dynamic tensor here is a parameter's, reported at the parameter.
    dims = static_dims(tensor.shape, what, call.span, follow_on=True)
    window = static_dims(shapes.elements, f"the window of {what}", call.span)
    if not has_own_window(dims, window, len(offsets)):
        return None
    _check_column_window(call, dims, window)
    address = _address(ctx, global_name, dims, offsets, call.span)
    element = cpp_dtype(tensor.dtype, what, call.span)
    name = ctx.names.reserve(global_name + "Window")
    shape = ctx.types.generate_shape_type(window)
    stride = ctx.types.generate_stride_type(dims)
    layout = column_layout(dims, window)
    ctx.out.emit_line(f"GlobalTensor<{element}, {shape}, {stride}{layout}> {name}({address});")
    return name


def _check_column_window(call: Call, dims: list[int], window: list[int]) -> None:
    """E416 for a one-column Vec tile copied from or to one column of a wider tensor: the
    tile is ColMajor and A2/A3's TLOAD / TSTORE copy such a tile to a DN tensor only
    (``column_layout``), which a strided column is not."""
    if len(window) != 2 or len(dims) != 2 or window[1] != 1 or window[0] == 1 or dims[1] == 1:
        return
    loaded = isinstance(call.type, TileType)
    tile = call.type if loaded else call.args[0].type
    if not isinstance(tile, TileType) or tile.memory_space not in (MemorySpace.Vec, None):
        return
    verb = "loaded from" if loaded else "stored to"
    tensor = call.args[0] if loaded else call.args[-1]
    what = f"tensor '{tensor.name}'" if isinstance(tensor, Var) else "tensor"
    raise CodegenError(
        "E416",
        f"a [{window[0]}, 1] Vec tile {verb} one column of the {list(dims)} {what}: a "
        "one-column tile is column-major, and A2/A3's TLOAD / TSTORE copy it to a DN "
        "tensor only (a contiguous column), not a strided column of an ND tensor; copy "
        f"whole rows (a [{window[0]}, {dims[1]}] window) or keep the column in a "
        f"[{dims[0]}, 1] tensor",
        call.span,
    )


def _address(
    ctx: FunctionContext, global_name: str, dims: list[int], offsets: tuple[Expr, ...], span: Span
) -> str:
    """``x + row * stride + col``: the element at ``offsets`` of the tensor behind
    ``global_name`` (E400 when that may be either of several tensors)."""
    pointer = ctx.names.get_pointer(global_name)
    if pointer is None:
        pointers = ctx.names.pointers(global_name)
        choices = " or ".join(sorted(pointers)) if pointers else "no known tensor"
        message = f"cannot address '{global_name}': it may refer to {choices}"
        raise CodegenError("E400", message, span)
    strides = ctx.types.row_major_strides(dims)
    value = expressions.value
    terms = [f"{value(ctx, o)} * {s}" for o, s in zip(offsets[:-1], strides[:-1], strict=True)]
    if offsets:
        terms.append(value(ctx, offsets[-1]))
    return " + ".join([pointer, *terms])


def _seat(
    ctx: FunctionContext,
    global_name: str,
    tensor: TensorType,
    offsets: tuple[Expr, ...],
    span: Span,
) -> None:
    """Point ``global_name`` at the window: ``TASSIGN(xGlobal, x + row * stride + col);``.

    Skipped when the offset is statically zero and the GlobalTensor still sits at its
    base, i.e. no access anywhere in the kernel moves a GlobalTensor of that pointer
    (the seed's simple_add has no TASSIGN on its tensors)."""
    zero = all(isinstance(o, ConstInt) and o.value == 0 for o in offsets)
    pointers = ctx.names.pointers(global_name)
    known = ctx.known_reseated
    if zero and known is not None and pointers and not (pointers & known):
        ctx.skipped_seats |= pointers
        return
    # A dynamic tensor here is a parameter's, reported at the parameter.
    dims = static_dims(tensor.shape, f"tensor '{global_name}'", span, follow_on=True)
    if len(offsets) != len(dims):
        raise CodegenError(
            "E400",
            f"{len(offsets)} offsets for a rank-{len(dims)} tensor '{global_name}'",
            span,
        )
    address = _address(ctx, global_name, dims, offsets, span)
    pointer = ctx.names.get_pointer(global_name)
    if not zero and pointer is not None:
        ctx.reseated.add(pointer)
    ctx.out.emit_line(f"TASSIGN({global_name}, {address});")
