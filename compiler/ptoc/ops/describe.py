"""Plain-text renderings of an op's traits, shared by hover, signature help and the generated
operator reference, so every place that shows an op says the same thing."""

from __future__ import annotations

from .registry import Access, Lowering, OpDef, Param, ParamKind, Role


def param_traits(param: Param) -> str:
    """What the op does with a value operand: ``written; in Vec`` (empty when plainly read)."""
    if param.kind is not ParamKind.EXPR:
        return ""
    parts: list[str] = []
    if param.access is Access.WRITE:
        parts.append("written")
    elif param.access is Access.SHAPE:
        parts.append("only its shape is used")
    if param.spaces:
        parts.append("in " + " or ".join(space.name for space in param.spaces))
    return "; ".join(parts)


def lowering_text(lowering: Lowering) -> str:
    """``TROWSUM`` with its variants: ``TROWSUM (column axis: TCOLSUM)``."""
    if lowering.instruction is None:
        return "no instruction" if lowering.elided else "not supported"
    text = lowering.instruction
    variants = [
        ("column axis", lowering.column_form),
        ("row vector rhs", lowering.row_broadcast),
        ("column vector rhs", lowering.col_broadcast),
    ]
    shown = [f"{label}: {name}" for label, name in variants if name]
    if lowering.operands is not None:
        shown.append("operands: " + ", ".join(lowering.operands))
    if lowering.scratch:
        shown.append("takes a scratch tile")
    shown += [f"{a.param} as {a.name} = #pto<{a.enum} ..>" for a in lowering.typed_attrs]
    if lowering.returns_value:
        shown.append("returns its result")
    shown += _a2a3_forms(lowering)
    return f"{text} ({'; '.join(shown)})" if shown else text


def _a2a3_forms(lowering: Lowering) -> list[str]:
    """What the PTO lowering takes on A2/A3, and the forms it uses for the rest."""
    shown: list[str] = []
    if lowering.dtypes:
        shown.append("A2/A3 elements: " + ", ".join(d.name for d in lowering.dtypes))
    if lowering.bitwise:
        shown.append("wider integers on INT16 views")
    if lowering.tile_form is not None:
        kept = ", ".join(d.name for d in lowering.scalar_dtypes)
        shown.append(f"other than {kept}: {lowering.tile_form} of the expanded scalar")
    if lowering.scalar_dtype is not None:
        shown.append(f"scalar as {lowering.scalar_dtype.name}")
    if lowering.byte_scratch:
        shown.append("scratch as a UINT8 mask")
    if lowering.vec_window is not None:
        shown.append(f"a Vec source: {lowering.vec_window} + copy")
    return shown


def op_traits(op: OpDef) -> list[tuple[str, str]]:
    """(label, value) pairs of the op's traits, in display order."""
    facts = [("Role", op.role.value), ("Pipe", op.pipe.name)]
    if op.result_space_attr is not None:
        facts.append(("Result in", f"the '{op.result_space_attr}' buffer"))
    elif op.result_space is not None:
        facts.append(("Result in", op.result_space.name))
    if op.aliases is not None and op.role is Role.VIEW:
        facts.append(("Result shares", f"the buffer of '{op.aliases}' (no copy)"))
    elif op.aliases is not None:
        facts.append(("Result is", f"'{op.aliases}', updated in place"))
    if op.scalar_form is not None:
        facts.append(("Scalar form", op.scalar_form))
    if op.block_form is not None:
        facts.append(("In InCore functions", op.block_form))
    facts.append(("CCE", lowering_text(op.cce)))
    facts.append(("PTO", lowering_text(op.pto)))
    return facts
