"""Hover: the deduced type of a name or expression; for an op, its registry entry."""

from __future__ import annotations

from lsprotocol import types

from ptoc.editions import Edition
from ptoc.frontend import ModuleAnalysis, Occurrence, OccurrenceKind
from ptoc.ir.types import (
    TASK_ID_TYPE,
    DistributedTensorType,
    MemorySpace,
    ShapedType,
    TileType,
    Type,
)
from ptoc.language import entry
from ptoc.ops import REGISTRY, OpDef
from ptoc.ops.describe import op_traits, param_traits
from ptoc.printer import op_spelling

from .common import has_dtype_variable, type_text

KIND_LABEL = {
    OccurrenceKind.VARIABLE: "variable",
    OccurrenceKind.PARAMETER: "parameter",
    OccurrenceKind.ITER_ARG: "loop-carried value",
    OccurrenceKind.LOOP_VAR: "loop variable",
    OccurrenceKind.CONSTANT: "constant",
    OccurrenceKind.TYPE: "type",
    OccurrenceKind.EXPRESSION: "expression",
}


def op_markdown(
    op: OpDef, prefix: str = "pl", result: Type | None = None, edition: Edition | None = None
) -> str:
    """The hover text of an op, straight from its registration, spelled as ``edition``
    spells it (``pl.tile.add`` in 2026-08, ``pl.block.add`` in 2026-03)."""
    namespace, name = op_spelling(op.name, edition or Edition.V2026_03)
    if edition is None or edition is Edition.V2026_03:
        name = (op.dsl_names or (op.short_name,))[0]
    spelled = f"{prefix}.{namespace}.{name}"
    if op.namespace == "pld":  # pld.tensor.window: the distributed module's own spelling
        spelled = f"pld.{op.short_name}"
    lines = [
        f"```python\n{spelled}({', '.join(p.signature() for p in op.params)})\n```",
        op.description,
    ]
    if result is not None:
        lines.append(f"**Result here:** `{type_text(result, prefix)}`")
    if op.type_rule_doc:
        lines.append(f"**Type rule:** `{op.type_rule_doc}`")
    params = [
        f"- `{p.signature()}`: {p.doc}" + (f" _({t})_" if (t := param_traits(p)) else "")
        for p in op.params
    ]
    if params:
        lines.append("**Parameters**\n" + "\n".join(params))
    lines.append(" · ".join(f"{label}: `{value}`" for label, value in op_traits(op)))
    notes = list(dict.fromkeys(n for n in (op.cce.note, op.pto.note) if n))  # often one note
    if notes:
        lines.append("\n".join(f"_{n}_" for n in notes))
    return "\n\n".join(lines)


def value_markdown(
    occ: Occurrence,
    prefix: str,
    buffers: dict[object, Type] | None,
) -> str:
    label = KIND_LABEL.get(occ.kind, occ.kind.value)
    shown = type_text(occ.type, prefix) if occ.type is not None else "?"
    text = f"```python\n({label}) {occ.name}: {shown}\n```"
    details: list[str] = []
    t = occ.type
    if isinstance(t, ShapedType):
        from ptoc.ir.shape import num_elements

        count = num_elements(t.shape)
        if count is not None and has_dtype_variable(t):
            details.append(f"{count} elements")  # of a parameter's dtype: bytes unknown
        elif count is not None:
            details.append(f"{count} elements · {int(count * t.dtype.bits / 8)} bytes")
        space = (
            "DDR"
            if not isinstance(t, TileType)
            else (t.memory_space.name if t.memory_space is not None else "Vec (default)")
        )
        details.append(f"memory: {space}")
        if isinstance(t, DistributedTensorType):
            buffer = f"window buffer `{t.window}`" if t.window else "a window buffer of the caller"
            details.append(f"a view of this rank's slice of {buffer}")
    if buffers is not None and occ.definition is not None:
        after = buffers.get(occ.definition)
        if isinstance(after, ShapedType) and after.memref is not None:
            details = [d for d in details if not d.startswith("memory:")]
            memref = after.memref
            if memref.addr is None and memref.memory_space is not MemorySpace.DDR:
                # no address: allocation did not succeed (see the E402), or the pipeline stops early
                details.append(
                    f"after the pipeline: buffer `{memref.memory_space.name}#{memref.id}` "
                    f"({memref.size} B), no address: allocation did not succeed"
                )
            else:
                details.append(f"after the pipeline: buffer `{memref.short()}`")
    if t == TASK_ID_TYPE and occ.detail:
        details.append(occ.detail[0].upper() + occ.detail[1:])  # which call produced it
    if occ.kind is OccurrenceKind.CONSTANT and occ.detail:
        details.append(f"value: `{occ.detail}`")
    if details:
        text += "\n\n" + "\n\n".join(details)
    return text


def hover(
    analysis: ModuleAnalysis,
    occ: Occurrence,
    hover_range: types.Range,
    buffers: dict[object, Type] | None = None,
) -> types.Hover | None:
    prefix = analysis.prefix
    in_force = analysis.edition
    if occ.kind is OccurrenceKind.OP and occ.op_name:
        op = REGISTRY.get(occ.op_name)
        if op is None:
            return None
        body = op_markdown(op, prefix, occ.type, in_force.edition if in_force else None)
    elif occ.kind is OccurrenceKind.FUNCTION:
        body = f"```python\n{occ.detail or occ.name}\n```"
    elif occ.kind is OccurrenceKind.PROGRAM:
        body = f"```python\n@{prefix}.program\nclass {occ.name}\n```"
    elif occ.kind is OccurrenceKind.HELPER:
        item = entry(occ.name)
        if item is None:
            return None
        body = f"```python\n{prefix}.{item.signature}\n```\n\n{item.doc}"
    elif occ.kind is OccurrenceKind.TYPE:
        body = f"```python\n{type_text(occ.type, prefix)}\n```"
    else:
        body = value_markdown(occ, prefix, buffers)
    if in_force is not None and occ.kind in _EDITION_SHOWN:
        body += f"\n\n_Edition: {in_force.describe()}_"
    return types.Hover(types.MarkupContent(types.MarkupKind.Markdown, body), hover_range)


# The hovers that say which edition is in force: where a spelling's meaning is the edition's.
_EDITION_SHOWN = frozenset((OccurrenceKind.OP, OccurrenceKind.FUNCTION, OccurrenceKind.PROGRAM))
