"""How a registered op is spelled in printed source, and which of its attributes are shown."""

from __future__ import annotations

import keyword
from typing import Any

from ..ir.expr import AttrValue
from ..ops.registry import REGISTRY, OpDef, ParamKind

_SCALAR_SUFFIX = "_scalar"


def op_spelling(op_name: str) -> tuple[str, str]:
    """(namespace, DSL name) of an IR op: ``block.and`` -> ("block", "and_"),
    ``tensor.create`` -> ("tensor", "create_tensor"), ``tensor.add_scalar`` -> ("tensor", "add").

    The DSL name is the op's first registered spelling; an op missing from the registry keeps
    its short name. ``tensor.X_scalar`` drops the suffix: the front end picks the scalar form
    again from the argument type.
    """
    namespace, dot, short = op_name.partition(".")
    if not dot:
        namespace, short = "", op_name
    opdef = REGISTRY.get(op_name)
    name = opdef.dsl_names[0] if opdef is not None and opdef.dsl_names else short
    if namespace == "tensor" and name.endswith(_SCALAR_SUFFIX) and len(name) > len(_SCALAR_SUFFIX):
        name = name[: -len(_SCALAR_SUFFIX)]
    if keyword.iskeyword(name):
        name += "_"  # `and`, `or`, `not` are spelled with a trailing underscore in the DSL
    return namespace, name


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
