"""How a registered op is spelled in printed source, and which of its attributes are shown."""

from __future__ import annotations

import keyword
from collections.abc import Callable
from typing import Any

from ..editions import Edition, namespace_in
from ..ir.equality import structural_equal
from ..ir.expr import AttrValue, Call, Expr
from ..ops.registry import REGISTRY, EditionForm, OpDef, Param, ParamKind
from ..ops.renames import spelled_as

_SCALAR_SUFFIX = "_scalar"


def op_spelling(op_name: str, edition: Edition = Edition.V2026_03) -> tuple[str, str]:
    """(namespace, DSL name) of an IR op: ``block.and`` -> ("block", "and_"),
    ``tensor.create`` -> ("tensor", "create_tensor"), ``tensor.add_scalar`` -> ("tensor", "add").

    The DSL name is the op's first registered spelling; an op missing from the registry keeps
    its short name. ``tensor.X_scalar`` drops the suffix: the front end picks the scalar form
    again from the argument type.
    """
    namespace, dot, short = op_name.partition(".")
    if not dot:
        namespace, short = "", op_name
    if edition is not Edition.V2026_03 and (written := spelled_as(op_name, edition)):
        op_name = written
        namespace, _, short = op_name.partition(".")
    opdef = REGISTRY.get(op_name)
    name = opdef.dsl_names[0] if opdef is not None and opdef.dsl_names else short
    if edition is not Edition.V2026_03 and opdef is not None:
        namespace = namespace_in(namespace, edition)
        name = edition_name(opdef, edition) or name
    elif (
        namespace == "tensor" and name.endswith(_SCALAR_SUFFIX) and len(name) > len(_SCALAR_SUFFIX)
    ):
        name = name[: -len(_SCALAR_SUFFIX)]
    if keyword.iskeyword(name):
        name += "_"  # `and`, `or`, `not` are spelled with a trailing underscore in the DSL
    return namespace, name


def edition_name(opdef: OpDef, edition: Edition) -> str | None:
    """The op's spelling that only ``edition`` has, or the name its form there is written
    with (2026-08's ``store`` of an Acc tile)."""
    for name, owner in opdef.edition_names:
        if owner is edition and not name.startswith("pl."):
            return name
    form = edition_form(opdef, edition)
    return form.spelled if form is not None else None


def edition_form(opdef: OpDef, edition: Edition) -> EditionForm | None:
    return next((f for f in opdef.edition_forms if f.edition is edition), None)


def form_arguments(
    form: EditionForm, opdef: OpDef, node: Call, expr: Callable[[Expr], str]
) -> list[str]:
    """A call's value arguments in the order of an edition's form (2026-08's ``store(tile,
    offsets, output_tensor)``), leaving out those the form derives to the same value."""
    bound = opdef.bind(node.args)
    for name in form.derived:
        if name in bound:
            rest = {k: v for k, v in bound.items() if k != name}
            derived = form.convert(rest).get(name)
            if derived is not None and structural_equal(derived, bound[name], names=False):
                bound = rest
    return value_arguments(form.params, bound, expr)


def value_arguments(
    params: tuple[Param, ...], bound: dict[str, Expr], expr: Callable[[Expr], str]
) -> list[str]:
    """Value arguments in parameter order, positional until one is left out or an attribute
    (printed by keyword) comes between: ``full([16, 128], value=0.0, dtype=pl.FP32)``."""
    texts: list[str] = []
    keywords = False
    for param in params:
        if param.kind is not ParamKind.EXPR:
            keywords = True  # attributes are printed by keyword, after the values
            continue
        if param.name not in bound:
            keywords = True  # a later value argument is named
            continue
        value = expr(bound[param.name])
        texts.append(f"{param.name}={value}" if keywords else value)
    return texts


def shown_kwargs(
    op_name: str, kwargs: tuple[tuple[str, AttrValue], ...]
) -> list[tuple[str, AttrValue]]:
    """The attributes worth printing, in their stored order: those equal to the registered
    default are left out."""
    opdef = REGISTRY.get(op_name)
    if opdef is None:
        return list(kwargs)
    return [(name, value) for name, value in kwargs if not _is_default(opdef, name, value)]


def _is_default(opdef: OpDef, name: str, value: AttrValue) -> bool:
    param = opdef.param(name)
    if param is None or param.kind is not ParamKind.ATTR or param.required:
        return False
    return _same(value, param.default)


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same kind (so that ``True`` is not taken for a default of ``1``)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)
