"""IR helpers the passes share: walking definitions and uses, comparing types, rebuilding a
function with new variable types, and fresh names."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..ir.expr import (
    Binary,
    Call,
    Expr,
    IterArg,
    MakeTuple,
    Op,
    TupleGetItem,
    Unary,
    Var,
)
from ..ir.function import Function
from ..ir.shape import num_elements
from ..ir.span import Span
from ..ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    body_stmts,
)
from ..ir.types import ShapedType, TupleType, Type, UnknownType
from ..ir.visitor import IRMutator, with_fields
from ..ops.registry import REGISTRY

# --- expressions ---------------------------------------------------------------------------


def expr_vars(expr: Expr) -> Iterator[Var]:
    """Every variable an expression reads, in evaluation order (a loop-carried variable used
    as a value is a use of the variable, not of its initial value)."""
    if isinstance(expr, Var):
        yield expr
    elif isinstance(expr, Binary):
        yield from expr_vars(expr.lhs)
        yield from expr_vars(expr.rhs)
    elif isinstance(expr, Unary):
        yield from expr_vars(expr.operand)
    elif isinstance(expr, Call):
        for arg in expr.args:
            yield from expr_vars(arg)
    elif isinstance(expr, MakeTuple):
        for element in expr.elements:
            yield from expr_vars(element)
    elif isinstance(expr, TupleGetItem):
        yield from expr_vars(expr.tuple_value)


def contains_call(expr: Expr) -> bool:
    if isinstance(expr, Call):
        return True
    if isinstance(expr, Binary):
        return contains_call(expr.lhs) or contains_call(expr.rhs)
    if isinstance(expr, Unary):
        return contains_call(expr.operand)
    if isinstance(expr, MakeTuple):
        return any(contains_call(e) for e in expr.elements)
    if isinstance(expr, TupleGetItem):
        return contains_call(expr.tuple_value)
    return False


def op_call_of(stmt: Stmt) -> Call | None:
    """The call a statement evaluates at its top (``x = op(...)`` or ``op(...)``)."""
    value = (
        stmt.value
        if isinstance(stmt, AssignStmt)
        else (stmt.expr if isinstance(stmt, EvalStmt) else None)
    )
    return value if isinstance(value, Call) else None


def direct_exprs(stmt: Stmt) -> list[Expr]:
    """The expressions a statement itself evaluates (not those of nested bodies). Loop
    conditions are evaluated inside the loop and are not listed here."""
    if isinstance(stmt, AssignStmt):
        return [stmt.value]
    if isinstance(stmt, EvalStmt):
        return [stmt.expr]
    if isinstance(stmt, YieldStmt | ReturnStmt):
        return list(stmt.values)
    if isinstance(stmt, IfStmt):
        return [stmt.condition]
    if isinstance(stmt, ForStmt):
        inits = [a.init_value for a in stmt.iter_args if a.init_value is not None]
        return [stmt.start, stmt.stop, stmt.step, *inits]
    if isinstance(stmt, WhileStmt):
        return [a.init_value for a in stmt.iter_args if a.init_value is not None]
    return []


# --- statements ----------------------------------------------------------------------------


def walk_stmts(stmt: Stmt | None) -> Iterator[Stmt]:
    """Every statement in pre-order, nested bodies included."""
    if stmt is None:
        return
    yield stmt
    if isinstance(stmt, SeqStmts):
        for s in stmt.stmts:
            yield from walk_stmts(s)
    elif isinstance(stmt, IfStmt):
        yield from walk_stmts(stmt.then_body)
        yield from walk_stmts(stmt.else_body)
    elif isinstance(stmt, ForStmt | WhileStmt | ScopeStmt):
        yield from walk_stmts(stmt.body)


def stmt_defs(stmt: Stmt) -> list[Var]:
    """Variables a statement binds in its enclosing scope, excluding nested bodies: the target
    of an assignment, or the results of an if / loop."""
    if isinstance(stmt, AssignStmt):
        return [stmt.var]
    if isinstance(stmt, IfStmt | ForStmt | WhileStmt):
        return list(stmt.return_vars)
    return []


def defined_vars(fn: Function) -> list[tuple[Var, Stmt | None]]:
    """Every variable the function binds, in definition order, with the statement binding it
    (None for parameters)."""
    out: list[tuple[Var, Stmt | None]] = [(p, None) for p in fn.params]

    def visit(stmt: Stmt | None) -> None:
        if stmt is None:
            return
        if isinstance(stmt, SeqStmts):
            for s in stmt.stmts:
                visit(s)
        elif isinstance(stmt, AssignStmt):
            out.append((stmt.var, stmt))
        elif isinstance(stmt, IfStmt):
            visit(stmt.then_body)
            visit(stmt.else_body)
            out.extend((v, stmt) for v in stmt.return_vars)
        elif isinstance(stmt, ForStmt):
            out.append((stmt.loop_var, stmt))
            out.extend((a, stmt) for a in stmt.iter_args)
            visit(stmt.body)
            out.extend((v, stmt) for v in stmt.return_vars)
        elif isinstance(stmt, WhileStmt):
            out.extend((a, stmt) for a in stmt.iter_args)
            visit(stmt.body)
            out.extend((v, stmt) for v in stmt.return_vars)
        elif isinstance(stmt, ScopeStmt):
            visit(stmt.body)

    visit(fn.body)
    return out


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
    elements = num_elements(t.shape)
    if elements is None:
        return None
    return -(-elements * t.dtype.bits // 8)


def shape_vars(t: Type) -> Iterator[Var]:
    """Symbolic dimensions (variables) in a type's shape."""
    if isinstance(t, ShapedType):
        for dim in t.shape:
            yield from expr_vars(dim)
    elif isinstance(t, TupleType):
        for sub in t.types:
            yield from shape_vars(sub)


# --- rebuilding ----------------------------------------------------------------------------


class _Retyper(IRMutator):
    """Substitutes variables; an op call whose arguments changed gets its type deduced again
    (a store's result type is its destination's, MemRef included), as the front end would
    deduce it when the printed IR is read back."""

    def mutate_Call(self, call: Call) -> Expr:
        new = self.generic_mutate(call)
        if new is call or not isinstance(new.callee, Op):
            return new
        op = REGISTRY.get(new.callee.name)
        if op is None:
            return new
        try:
            deduced = op.deduce(op.bind(new.args), dict(new.kwargs))
        except Exception:  # keep the old type if the rule rejects what it once accepted
            return new
        if isinstance(deduced, UnknownType):
            return new
        return with_fields(new, type=deduced)


def retype_function(
    fn: Function, new_types: dict[Var, Type], mutator: IRMutator | None = None
) -> Function:
    """``fn`` with the listed variables' types replaced, at their definition and every use.

    By default every op call whose arguments changed has its type deduced again; a pass that
    knows better passes its own ``mutator``."""
    if not new_types:
        return fn
    mutator = mutator if mutator is not None else _Retyper()
    for var, _ in defined_vars(fn):
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

    def fresh(self, name: str) -> str:
        if name not in self.taken:
            self.taken.add(name)
            return name
        k = 1
        while f"{name}_{k}" in self.taken or f"{name}_{k}" in self.reserved:
            k += 1
        self.taken.add(f"{name}_{k}")
        return f"{name}_{k}"

    def temp(self, prefix: str = "_t") -> str:
        """A new name for a compiler temporary: ``_t0``, ``_t1``, ..."""
        k = 0
        while f"{prefix}{k}" in self.taken or f"{prefix}{k}" in self.reserved:
            k += 1
        self.taken.add(f"{prefix}{k}")
        return f"{prefix}{k}"
