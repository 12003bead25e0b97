"""The legal PTO form of a vector op on A2/A3, the target PTOAS checks by default.

The registry's ``pto`` lowering says which element types an instruction takes there (as
PTOAS's verifier states them) and which other form computes the same when it does not take
the op's: a bit-wise op on its INT16 reinterpretation, a scalar form as its tile form with
the scalar expanded into a tile, a scratch operand as a byte mask. What has no legal form is
an E400 on the op's call, reported before PTOAS runs (docs/codegen-pto.md).
"""

from __future__ import annotations

from ...ir.dtype import DataType
from ...ir.expr import Call
from ...ir.span import Span
from ...ir.types import ScalarType, TileType
from ...ops.registry import REGISTRY, Access, Lowering, OpDef, Role
from ...records import record
from ..common import CodegenError, not_taken
from . import mlir_types as mt
from . import versions
from .context import FunctionContext
from .emitter import Value

# Bit-wise instructions on wider integers run on this reinterpretation.
NARROW = DataType.INT16


@record(frozen=True, slots=True)
class Form:
    """How an op call is emitted: the instruction, the scalar parameter expanded into a tile
    of ``expand_as`` elements (None: none), and the element type every tile is
    reinterpreted as (None: their own)."""

    instruction: str
    expand: str | None = None
    expand_as: DataType | None = None
    narrow: DataType | None = None


def choose(op: OpDef, instruction: str, call: Call, result: TileType, span: Span) -> Form:
    """The form of ``call`` whose instruction takes ``result``'s element type, or E400."""
    dtype = result.dtype
    tile_form = _tile_form(op, call, dtype)
    if tile_form is not None:
        return tile_form
    narrow = _narrow(op.pto, dtype)
    if not op.pto.dtypes or dtype in op.pto.dtypes or narrow is not None:
        return Form(instruction, narrow=narrow)
    message = not_taken(op, instruction, op.pto.dtypes, call, dtype, "PTOAS")
    raise CodegenError("E400", message, span)


def _narrow(lowering: Lowering, dtype: DataType) -> DataType | None:
    """INT16 for a bit-wise instruction that does not take wider integers ``dtype``."""
    if not lowering.bitwise or dtype in lowering.dtypes or not dtype.is_int:
        return None
    return NARROW if dtype.bits > NARROW.bits and dtype.bits % NARROW.bits == 0 else None


def _tile_form(op: OpDef, call: Call, dtype: DataType) -> Form | None:
    """The tile form of a scalar op whose scalar form does not take ``dtype``, when it
    takes ``dtype`` (or its INT16 view) and the scalar can be expanded into a tile."""
    lowering = op.pto
    if lowering.tile_form is None or dtype in lowering.scalar_dtypes:
        return None
    tile_op, scalar = REGISTRY.get(lowering.tile_form), _scalar_param(op, call)
    if tile_op is None or tile_op.pto.instruction is None or scalar is None:
        return None
    narrow = _narrow(tile_op.pto, dtype)
    if tile_op.pto.dtypes and dtype not in tile_op.pto.dtypes and narrow is None:
        return None
    takes = scalar_expansion().pto.dtypes
    # texpands takes signed integers only: an unsigned scalar expands as the signed type of
    # its width, whose tile is then viewed as the unsigned one (the same bits).
    signless = DataType.__members__.get(dtype.name.removeprefix("U"), dtype)
    expand_as = next((d for d in (dtype, signless) if not takes or d in takes), None)
    if expand_as is None:
        return None
    return Form(tile_op.pto.instruction, scalar, expand_as, narrow)


def _scalar_param(op: OpDef, call: Call) -> str | None:
    return next(
        (name for name, arg in op.bind(call.args).items() if isinstance(arg.type, ScalarType)),
        None,
    )


def reinterpret(ctx: FunctionContext, value: Value, dtype: DataType, span: Span) -> Value:
    """``%r = pto.treshape %v : T -> T'``: the same bytes as ``dtype`` elements (rows keep
    their bytes, so a row has proportionally more or fewer columns)."""
    target = retyped(value.type, dtype, span)
    if target == value.type:
        return value
    text = f"{reshape_instruction()} {value.name} : {value.type} -> {target}"
    return ctx.emit_result(target, text)


def reshape_instruction() -> str:
    """The registry's reinterpreting view instruction (block.reshape: pto.treshape)."""
    found = REGISTRY.first(
        Role.VIEW, "block", lambda op: op.pto.returns_value and op.pto.instruction is not None
    )
    if found is None or found.pto.instruction is None:
        raise CodegenError("E900", "the registry has no reinterpreting tile view")
    return found.pto.instruction


def retyped(tile_buf: str, dtype: DataType, span: Span) -> str:
    """A row-major tile_buf type with ``dtype`` elements over the same bytes."""
    fields = mt.tile_buf_fields(tile_buf)
    old = next((d for d, name in mt.ELEMENT_TYPES.items() if name == fields.get("dtype")), None)
    layout, what = fields.get("blayout"), f"a tile of {fields.get('dtype')} elements"
    if old is None or layout != "row_major":
        raise CodegenError(
            "E400",
            f"{what} in {layout} layout has no {dtype.name} view on A2/A3 (pto.treshape "
            "reinterprets the rows of row-major tiles)",
            span,
        )
    scale = old.bits / dtype.bits
    cols, v_col = (int(fields[k]) * scale for k in ("cols", "v_col"))
    if not (cols.is_integer() and v_col.is_integer()):
        raise CodegenError(
            "E400", f"{what}'s {fields['v_col']} columns have no whole {dtype.name} view", span
        )
    fields.update(dtype=mt.ELEMENT_TYPES[dtype], cols=str(int(cols)), v_col=str(int(v_col)))
    return mt.tile_buf_of(fields)


def byte_mask(ctx: FunctionContext, value: Value, span: Span) -> Value:
    """The UINT8 mask A2/A3's instruction wants in place of the scratch tile ``value``, with
    its columns in bytes. PTOAS v0.27 wants it shaped like the sources: ``value`` viewed as
    ``ui8`` (``pto.bitcast``). v0.57 checks what pto-isa's TPRELU asserts, a row more than
    the result (the select mask lives after the compare's): a scratch of that shape."""
    fields = mt.tile_buf_fields(value.type)
    if fields.get("dtype") == "ui8" and not versions.mask_extra_rows(ctx.ptoas_version):
        return value
    if int(fields.get("cols", "0")) % int(mt.ROW_ALIGN_BYTES):
        raise CodegenError(
            "E400",
            f"the scratch tile's {fields.get('cols')} columns are no whole 32-byte rows as "
            "the UINT8 mask A2/A3 wants: give it a multiple of 32 columns",
            span,
        )
    fields["dtype"] = "ui8"
    extra = versions.mask_extra_rows(ctx.ptoas_version)
    if extra:
        rows = int(fields["rows"]) + extra
        fields.update(rows=str(rows), v_row=str(rows))
        return ctx.scratch(mt.tile_buf_of(fields), "mask")
    target = mt.tile_buf_of(fields)
    return ctx.emit_result(target, f"pto.bitcast {value.name} : {value.type} -> {target}")


def expanded(ctx: FunctionContext, scalar: Value, like: Value, form: Form, span: Span) -> Value:
    """The scalar in every element of a scratch tile shaped like ``like`` with the form's
    ``expand_as`` elements of the same width (pto.texpands), viewed as ``like``'s type
    unless the form views every tile as INT16 anyway (PTOAS lowers no view of a view)."""
    dtype = form.expand_as
    assert dtype is not None
    name = scalar_expansion().pto.instruction
    if name is None:
        raise CodegenError("E900", "the registry's scalar expansion has no PTO instruction")
    tile = ctx.scratch(retyped(like.type, dtype, span), "expanded")
    ctx.out.line(
        f"{name} ins({scalar.name} : {scalar.type})", f"outs({tile.typed()})", hang=len(name) + 1
    )
    if tile.type == like.type or form.narrow is not None:
        return tile
    return ctx.emit_result(like.type, f"pto.bitcast {tile.name} : {tile.type} -> {like.type}")


def scalar_expansion() -> OpDef:
    """The op that fills a tile shaped like its target with a scalar (block.expands)."""
    found = REGISTRY.first(Role.BROADCAST, "block", _expands_a_scalar)
    if found is None:
        raise CodegenError("E900", "the registry has no scalar expansion")
    return found


def _expands_a_scalar(op: OpDef) -> bool:
    params = op.expr_params
    return bool(params) and params[0].access is Access.SHAPE and "scalar" in params[-1].accepts


def tile_copy() -> str:
    """The instruction copying a tile between buffers (block.move's pto.tmov)."""
    found = REGISTRY.first(Role.MOVE, "block", lambda op: op.pto.instruction is not None)
    if found is None or found.pto.instruction is None:
        raise CodegenError("E900", "the registry has no PTO tile copy")
    return found.pto.instruction
