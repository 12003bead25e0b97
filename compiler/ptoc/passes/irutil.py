"""IR helpers the passes share: walking definitions and uses (the walkers themselves live in
``ptoc.ir.walk``, derived from the nodes' declarations), comparing types, rebuilding a function
with new variable types, and fresh names."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..ir.expr import Call, ConstInt, Expr, IterArg, Op, Var
from ..ir.function import Function
from ..ir.span import Span
from ..ir.stmt import AssignStmt, EvalStmt, SeqStmts, Stmt, YieldStmt, body_stmts
from ..ir.types import ShapedType, TileType, TupleType, Type, UnknownType
from ..ir.visitor import IRMutator, with_fields
from ..ir.walk import (
    bodies,
    conditions,
    contains_call,
    defined_vars,
    direct_exprs,
    expr_vars,
    stmt_binds,
    stmt_definitions,
    stmt_defs,
    stmt_reads,
    walk_stmts,
)
from ..ops.registry import REGISTRY, Role

__all__ = [
    "NameAllocator",
    "bodies",
    "byte_size",
    "conditions",
    "contains_call",
    "defined_vars",
    "direct_exprs",
    "expr_vars",
    "final_yield",
    "flatten_seq",
    "op_call_of",
    "retype_function",
    "seq",
    "shape_vars",
    "stmt_binds",
    "stmt_definitions",
    "stmt_defs",
    "stmt_reads",
    "substitute_in_type",
    "walk_stmts",
]


def op_call_of(stmt: Stmt) -> Call | None:
    """The call a statement evaluates at its top (``x = op(...)`` or ``op(...)``)."""
    value = (
        stmt.value
        if isinstance(stmt, AssignStmt)
        else (stmt.expr if isinstance(stmt, EvalStmt) else None)
    )
    return value if isinstance(value, Call) else None


# --- statements ----------------------------------------------------------------------------


def final_yield(body: Stmt | None) -> YieldStmt | None:
    """The yield that ends a body, if it ends with one."""
    stmts = body_stmts(body)
    if stmts and isinstance(stmts[-1], YieldStmt):
        return stmts[-1]
    if stmts and isinstance(stmts[-1], SeqStmts):
        return final_yield(stmts[-1])
    return None


def seq(stmts: list[Stmt], span: Span) -> Stmt:
    """A body from a statement list: the statement itself when there is exactly one."""
    if len(stmts) == 1:
        return stmts[0]
    return SeqStmts(tuple(stmts), span=span)


def flatten_seq(stmts: Iterable[Stmt]) -> list[Stmt]:
    """Splice nested SeqStmts into one flat list."""
    out: list[Stmt] = []
    for s in stmts:
        if isinstance(s, SeqStmts):
            out.extend(flatten_seq(s.stmts))
        else:
            out.append(s)
    return out


# --- types ---------------------------------------------------------------------------------


def byte_size(t: ShapedType) -> int | None:
    """Bytes a static-shaped tile or tensor occupies (sub-byte types round up)."""
    elements = 1  # ``num_elements``, without its intermediate list: InitMemRef asks per tile
    for dim in t.shape:
        if not isinstance(dim, ConstInt):
            return None
        elements *= dim.value
    return -(-elements * t.dtype.bits // 8)


def shape_vars(t: Type) -> Iterator[Var]:
    """Symbolic dimensions (variables) in a type's shape."""
    if isinstance(t, ShapedType):
        for dim in t.shape:
            if not isinstance(dim, ConstInt):
                yield from expr_vars(dim)
    elif isinstance(t, TupleType):
        for sub in t.types:
            yield from shape_vars(sub)


def substitute_in_type(t: Type, mutator: IRMutator) -> Type:
    """``t`` with ``mutator``'s variables substituted in its expressions (a shape's dimensions, a
    tile's valid shape, strides and offset); the very same type when none changed."""
    if isinstance(t, TupleType):
        types = tuple(substitute_in_type(sub, mutator) for sub in t.types)
        changed = any(new is not old for new, old in zip(types, t.types, strict=True))
        return with_fields(t, types=types) if changed else t
    if not isinstance(t, ShapedType):
        return t
    shape = _substituted(t.shape, mutator)
    view = t.tile_view if isinstance(t, TileType) else None
    new_view = view
    if view is not None:
        valid = _substituted(view.valid_shape, mutator)
        stride = _substituted(view.stride, mutator)
        offset = view.start_offset
        offset = mutator.mutate_expr(offset) if offset is not None else None
        if (
            valid is not view.valid_shape
            or stride is not view.stride
            or offset is not view.start_offset
        ):
            new_view = with_fields(view, valid_shape=valid, stride=stride, start_offset=offset)
    if shape is t.shape and new_view is view:
        return t
    if isinstance(t, TileType):
        return with_fields(t, shape=shape, tile_view=new_view)
    return with_fields(t, shape=shape)


def _substituted(dims: tuple[Expr, ...] | None, mutator: IRMutator) -> tuple[Expr, ...] | None:
    if dims is None:
        return None
    new = tuple(mutator.mutate_expr(d) for d in dims)
    return dims if all(a is b for a, b in zip(new, dims, strict=True)) else new


# --- rebuilding ----------------------------------------------------------------------------


class _Retyper(IRMutator):
    """Substitutes variables whose buffers (MemRefs) changed. A type rule builds a fresh result
    type from its arguments' shapes and dtypes, so only the ops whose result is an argument's
    storage (a store's result is its destination, MemRef included) or lives where its source
    does (a view) get their type deduced again, as the front end would deduce it when the
    printed IR is read back; every other call keeps its type."""

    def mutate_Call(self, call: Call) -> Expr:
        new = self.generic_mutate(call)
        if new is call or not isinstance(new.callee, Op):
            return new
        op = REGISTRY.get(new.callee.name)
        if op is None or (op.aliases is None and op.role is not Role.VIEW):
            return new
        try:
            deduced = op.deduce(op.bind(new.args), dict(new.kwargs))
        except Exception:  # keep the old type if the rule rejects what it once accepted
            return new
        if isinstance(deduced, UnknownType):
            return new
        return with_fields(new, type=deduced)


def retype_function(
    fn: Function,
    new_types: dict[Var, Type],
    mutator: IRMutator | None = None,
    definitions: list[tuple[Var, Stmt | None]] | None = None,
) -> Function:
    """``fn`` with the listed variables' types replaced, at their definition and every use (the
    new types differ from the old in their MemRef only).

    By default a store or view whose arguments changed has its type deduced again; a pass that
    knows better passes its own ``mutator``; ``definitions`` are ``fn``'s ``defined_vars``
    when the caller has them already."""
    if not new_types:
        return fn
    mutator = mutator if mutator is not None else _Retyper()
    for var, _ in defined_vars(fn) if definitions is None else definitions:
        new_type = new_types.get(var)
        if isinstance(var, IterArg) and var.init_value is not None:
            init = mutator.mutate_expr(var.init_value)
            if new_type is not None or init is not var.init_value:
                mutator.var_map[var] = with_fields(var, type=new_type or var.type, init_value=init)
        elif new_type is not None:
            mutator.var_map[var] = with_fields(var, type=new_type)
    result = mutator.mutate(fn)
    assert isinstance(result, Function)
    return result


class NameAllocator:
    """Unique variable names in one function: the first request for a name gets it, later
    ones get ``name_1``, ``name_2``, ... skipping every name in ``reserved`` (the names the
    function already uses, so a version never collides with a user's own ``x_1``)."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.reserved = set(reserved)
        self.taken: set[str] = set()
        # name (or temporary prefix) -> the suffix its next search starts at: every smaller
        # one is taken or reserved already (``taken`` only grows), so a name assigned n
        # times costs n steps in all, not n**2 / 2 (2,000 ``pl.submit`` of one TaskId).
        self.next_suffix: dict[str, int] = {}

    def fresh(self, name: str) -> str:
        if name not in self.taken:
            self.taken.add(name)
            return name
        return self._first_free(name, name + "_", 1)

    def temp(self, prefix: str = "_t") -> str:
        """A new name for a compiler temporary: ``_t0``, ``_t1``, ..."""
        return self._first_free("\0" + prefix, prefix, 0)

    def _first_free(self, key: str, stem: str, start: int) -> str:
        k = self.next_suffix.get(key, start)
        while f"{stem}{k}" in self.taken or f"{stem}{k}" in self.reserved:
            k += 1
        self.taken.add(f"{stem}{k}")
        self.next_suffix[key] = k + 1
        return f"{stem}{k}"
