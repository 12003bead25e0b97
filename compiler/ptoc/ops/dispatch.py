"""Resolving a DSL call spelling to a registered op (spec dsl-surface.md section 5).

Namespaces, as the front end passes them:
  ()                 unified ``pl.X``        -> by the name lists, then by the first argument's type
  ("block",)         ``pl.block.X``
  ("tensor",)        ``pl.tensor.X``         (``create_tensor`` -> ``tensor.create``)
  ("op", "block")    ``pl.op.block.X``       seed 004 spelling, legacy=True
  ("op", "tensor")   ``pl.op.tensor.X``      legacy=True
  ("system",)        ``pl.system.X``         (the printer's spelling of sync ops)

``arg_types`` are the types of the positional arguments. A ``Resolution`` without an op carries
the diagnostic to report (``code``, ``message``, ``suggestions``); an empty code means "stay
silent": an earlier error already explains why the call cannot be resolved.
"""

from __future__ import annotations

from ..editions import NAMESPACE_ALIASES, Edition
from ..ir.expr import BinaryOp, UnaryOp
from ..ir.types import ScalarType, TensorType, TileType, Type, UnknownType
from ..records import field, record
from .registry import REGISTRY, OpDef

# Which op a unified name means whatever the arguments (``OpDef.unified_always``) and the
# tile-scalar / tensor-scalar form of an op (``OpDef.scalar_form``) are traits of the ops.
_SCALAR_BINARY = {"min": BinaryOp.Min, "max": BinaryOp.Max}
# 2026-08: the unified name of a binary op on two scalars is the scalar expression
# (``pl.add(a, b)`` is ``a + b``); 2026-03 rejected it.
_SCALAR_BINARY_2026_08 = {
    **_SCALAR_BINARY,
    "add": BinaryOp.Add,
    "sub": BinaryOp.Sub,
    "mul": BinaryOp.Mul,
    "div": BinaryOp.FloatDiv,
    "maximum": BinaryOp.Max,
    "minimum": BinaryOp.Min,
}
# Ops that are a one-operand scalar expression on a scalar, with the editions that have them.
_SCALAR_UNARY: dict[str, tuple[UnaryOp, tuple[Edition, ...]]] = {
    "cast": (UnaryOp.Cast, (Edition.V2026_08,)),
}
_NAMESPACES = ("tensor", "block", "system", "array", "prefetch")


@record
class Resolution:
    op: OpDef | None = None
    # When op is None: the diagnostic to report.
    code: str = "E300"
    message: str = ""
    suggestions: list[str] = field(default_factory=list)  # "did you mean" DSL spellings
    legacy: bool = False  # resolved through a legacy namespace (pl.op.block.X)
    # pl.min / pl.max with two scalar arguments: scalar min/max, not an op call.
    scalar_binary: BinaryOp | None = None
    # pl.cast of a scalar (2026-08): a scalar conversion, not an op call.
    scalar_unary: UnaryOp | None = None
    # The op is what the spelling means in the edition in force (ops.renames.MEANINGS): it
    # may be one the DSL cannot name itself.
    meant: bool = False


def resolve_op(
    namespace: tuple[str, ...],
    name: str,
    arg_types: list[Type],
    edition: Edition = Edition.V2026_03,
) -> Resolution:
    if namespace == ():
        return _resolve_unified(name, arg_types, edition)
    legacy = namespace[0] == "op"
    target = namespace[1:] if legacy else namespace
    if len(target) == 1 and target[0] in NAMESPACE_ALIASES and not legacy:
        resolution = _resolve_in(NAMESPACE_ALIASES[target[0]], name, arg_types)
        if resolution.op is None and resolution.message:
            resolution.message = resolution.message.replace(
                f"Unknown {NAMESPACE_ALIASES[target[0]]} ", f"Unknown {target[0]} "
            )
        return resolution
    if len(target) != 1 or target[0] not in _NAMESPACES or (legacy and target[0] == "system"):
        return Resolution(message=f"Unknown operation namespace 'pl.{'.'.join(namespace)}'")
    resolution = _resolve_in(target[0], name, arg_types)
    resolution.legacy = legacy
    return resolution


def dsl_spellings(namespace: tuple[str, ...]) -> list[tuple[str, OpDef]]:
    """Every name callable in a namespace with the op it means, sorted by name (completion).

    In the unified namespace each spelling appears once: a name both tensors and tiles accept
    is listed with its block op (kernels are where unified names are mostly written)."""
    if namespace == ():
        unified: dict[str, OpDef] = {}
        for ns in ("tensor", "block"):  # block second: it wins shared names ...
            for spelling, op in _spellings(ns, primary_only=True):
                taken = unified.get(spelling)
                if taken is None or not taken.unified_always:  # ... unless tensor-only
                    unified[spelling] = op
        for spelling, op in _spellings("system", primary_only=True):
            if op.unified_always:
                unified.setdefault(spelling, op)
        return sorted(unified.items(), key=lambda item: item[0])
    target = namespace[1:] if namespace[0] == "op" else namespace
    if len(target) == 1 and target[0] in NAMESPACE_ALIASES:
        target = (NAMESPACE_ALIASES[target[0]],)
    if len(target) != 1 or target[0] not in _NAMESPACES:
        return []
    return sorted(_spellings(target[0]), key=lambda item: item[0])


# --- internals ---------------------------------------------------------------------------------


def _spellings(namespace: str, *, primary_only: bool = False) -> list[tuple[str, OpDef]]:
    """(spelling, op) of the DSL-visible ops of a namespace. Only the first spelling of an op
    is a unified ``pl.X`` name (``pl.create_tensor``, not ``pl.create``)."""
    pairs: list[tuple[str, OpDef]] = []
    for op in REGISTRY.in_namespace(namespace):
        spellings = op.dsl_names or (op.short_name,)
        if op.dsl_visible:
            pairs.extend((spelling, op) for spelling in spellings[: 1 if primary_only else None])
    return pairs


def _lookup(namespace: str, name: str) -> OpDef | None:
    return REGISTRY.by_dsl_name(namespace, name)


def _with_scalar_form(op: OpDef, arg_types: list[Type]) -> OpDef:
    """A scalar second argument turns an op into its tile-scalar / tensor-scalar form."""
    if op.scalar_form and len(arg_types) >= 2 and isinstance(arg_types[1], ScalarType):
        return REGISTRY.ops[op.scalar_form]
    return op


def _found(op: OpDef) -> Resolution:
    if not op.dsl_visible:
        return Resolution(
            code="E301",
            message=f"Operation '{op.name}' is internal (created by passes) and cannot be called "
            "from the DSL",
        )
    return Resolution(op=op, code="")


def unknown_spelling(message: str, name: str, candidates: list[str]) -> Resolution:
    """An E300 for a name no op has, with the close spellings as suggestions."""
    return _unknown(message, name, candidates)


def _unknown(message: str, name: str, candidates: list[str]) -> Resolution:
    import difflib  # only for a misspelt name: not at start-up

    suggestions = difflib.get_close_matches(name, sorted(set(candidates)), n=3)
    return Resolution(code="E300", message=message, suggestions=suggestions)


def _resolve_in(namespace: str, name: str, arg_types: list[Type]) -> Resolution:
    op = _lookup(namespace, name)
    if op is None:
        candidates = [spelling for spelling, _ in _spellings(namespace)]
        return _unknown(f"Unknown {namespace} operation: {name}", name, candidates)
    return _found(_with_scalar_form(op, arg_types))


_KIND_NAMESPACE: dict[type, str] = {TensorType: "tensor", TileType: "block"}


def _resolve_unified(name: str, arg_types: list[Type], edition: Edition) -> Resolution:
    first_kind = _KIND_NAMESPACE.get(type(arg_types[0])) if arg_types else None
    for ns in ("tensor", "block"):
        op = _lookup(ns, name)
        # (an op's later spelling, such as 2026-08's ``tensor.adds``, dispatches by type; so
        # does a name the edition has in both namespaces, for an argument of the other's kind)
        kin = _lookup(first_kind, name) if first_kind not in (None, ns) else None
        twin = kin is not None and kin.spelling_edition(name, first_kind or "") in (None, edition)
        primary = op is not None and name == (op.dsl_names or (op.short_name,))[0]
        if op is not None and op.unified_always and primary and not twin:
            return _resolve_in(ns, name, arg_types)
    owners = [ns for ns in ("tensor", "block") if _lookup(ns, name) is not None]
    first = arg_types[0] if arg_types else None
    system = _lookup("system", name) if not owners else None
    if system is not None and system.unified_always:  # pl.tpush_to_aiv is pl.system.tpush_to_aiv
        return _found(system)
    if not owners:
        what = {TensorType: "tensor ", TileType: "block "}.get(type(first), "")
        candidates = [spelling for spelling, _ in dsl_spellings(())]
        return _unknown(f"Unknown {what}operation: {name}", name, candidates)
    if first is None:
        hint = f" (use pl.{owners[0]}.{name})" if len(owners) == 1 else ""
        return Resolution(
            code="E310",
            message=f"Operation '{name}' requires at least one argument for type dispatch" + hint,
        )
    if isinstance(first, (TensorType, TileType)):
        is_tensor = isinstance(first, TensorType)
        namespace = "tensor" if is_tensor else "block"
        if namespace not in owners:
            kind, other = ("tensor", "tiles") if is_tensor else ("tile", "tensors")
            return Resolution(
                code="E310",
                message=f"Operation '{name}' is not supported for {kind} arguments "
                f"(it takes {other})",
            )
        return _resolve_in(namespace, name, arg_types)
    if isinstance(first, ScalarType):
        return _resolve_scalar(name, arg_types, edition)
    if isinstance(first, UnknownType):
        if len(owners) == 1 and name not in _SCALAR_BINARY:
            return _resolve_in(owners[0], name, arg_types)
        return Resolution(code="")  # ambiguous: the earlier error explains the unknown type
    hint = f" (use pl.{owners[0]}.{name})" if len(owners) == 1 else ""
    return Resolution(
        code="E310",
        message=f"Cannot dispatch '{name}': first argument has type {first.short()}{hint}",
    )


def _resolve_scalar(name: str, arg_types: list[Type], edition: Edition) -> Resolution:
    two_scalars = len(arg_types) == 2 and isinstance(arg_types[1], (ScalarType, UnknownType))
    table = _SCALAR_BINARY if edition is Edition.V2026_03 else _SCALAR_BINARY_2026_08
    if name in table and two_scalars:
        return Resolution(code="", scalar_binary=table[name])
    unary = _SCALAR_UNARY.get(name)
    if unary is not None and edition in unary[1]:
        return Resolution(code="", scalar_unary=unary[0])
    message = f"Operation '{name}' is not supported for scalar arguments"
    if unary is not None:
        message += f" in PyPTO {edition.value} (PyPTO {unary[1][0].value} accepts a scalar)"
    return Resolution(code="E310", message=message)
