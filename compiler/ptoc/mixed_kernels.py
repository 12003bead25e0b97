"""Mixed kernel scopes: an InCore scope whose vector work reads its cube work's product, and
the cube scope and vector scope it splits into (``split_scope``).

A2/A3's cube and vector units are separate cores: a vector op cannot read a matmul's product,
which lives in the cube's Acc buffer. Upstream (ExpandMixedKernel) splits such a kernel into
an AIC and an AIV kernel joined by a cross-core pipe. ptoc splits the scope into a cube scope
and a vector scope, the product handed over in GM as a tensor, as two scopes written by hand
would (``staged_matmul_bias`` of upstream's ``examples/advanced/03_mixed_kernel.py``). The
passes outline the two (``passes/mixed_scopes.py``), the task graph draws them as two tasks.

The body is split at its top-level statements:

* cube statements: a matmul, a loop or ``if`` whose ops are matmuls, views, stores and
  scalar arithmetic only, and a store (``tensor.assemble``) of a product;
* set-up statements: views, created tensors, scalar arithmetic;
* vector statements: everything else.

The cube scope holds the cube statements and the set-up they read; the vector scope holds the
rest, with its own copy of the set-up it reads (fresh variables: each still has one
definition). A ``for`` loop holding both kinds is split first by loop fission (``_Fission``):
a cube loop storing each iteration's product into its slot of a GM intermediate (created
before the scope), then a vector loop reading it back. A scope is not split when no vector
statement reads a product, when a top-level statement mixes both kinds otherwise (or a loop
carries a vector result into the cube work, or has no static trip count), or when the cube
work needs a vector statement.

``pl.split(mode)`` plays no part: its halving of the vector work across the AIV lanes is a
schedule, which changes no result. The halves are named after the scope's ``name_hint``
with ``_aic`` / ``_aiv``, as upstream names its two kernels.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from .ir import stmt as st
from .ir.dtype import DataType
from .ir.equality import structural_equal
from .ir.expr import (
    AttrValue,
    Binary,
    BinaryOp,
    Call,
    ConstInt,
    Expr,
    GlobalVar,
    IterArg,
    Op,
    Var,
    const_int,
    make_tuple,
)
from .ir.fields import field_nodes, layout
from .ir.span import Span
from .ir.types import TASK_ID_TYPE, TensorType, Type
from .ir.visitor import IRMutator, with_fields
from .ir.walk import conditions, direct_exprs, stmt_definitions, stmt_defs, stmt_reads, walk_stmts
from .ops.registry import REGISTRY, OpDef, Role, op_call

#: Roles of ops a cube kernel and a vector kernel may both hold.
_NEUTRAL = frozenset({Role.VIEW, Role.CREATE, Role.SCALAR})


class _Kind(Enum):
    SETUP = "setup"
    CUBE = "cube"
    VECTOR = "vector"
    MIXED = "mixed"
    OTHER = "other"  # a statement that ends the body's flow (return, yield, break, ...)


def _role(call: Call) -> Role | None:
    """The role of an op call; None for a call of a function (what it does is unknown)."""
    if isinstance(call.callee, GlobalVar):
        return None
    op = REGISTRY.get(call.callee.name) if isinstance(call.callee, Op) else None
    return op.role if op is not None else None


def _calls(stmt: st.Stmt) -> list[Call]:
    """Every call a statement and its bodies evaluate, nested ones too (the front end's IR,
    which the task graph splits, has not had its calls flattened)."""
    found: list[Call] = []
    todo: list[Expr] = []
    for inner in walk_stmts(stmt):
        todo += [*direct_exprs(inner), *conditions(inner)]
    while todo:
        expr = todo.pop()
        if isinstance(expr, Call):
            found.append(expr)
        todo += [e for e in field_nodes(expr, layout(type(expr)).operands) if isinstance(e, Expr)]
    return found


def _kind(stmt: st.Stmt) -> _Kind:
    if isinstance(stmt, st.ReturnStmt | st.YieldStmt | st.LoopJumpStmt):
        return _Kind.OTHER
    if any(isinstance(inner, st.ReturnStmt) for inner in walk_stmts(stmt)):
        return _Kind.OTHER
    roles = {_role(call) for call in _calls(stmt)}
    vector = any(role is not Role.STORE and role not in _NEUTRAL for role in roles - {Role.MATMUL})
    if Role.MATMUL in roles:
        return _Kind.MIXED if vector else _Kind.CUBE
    return _Kind.VECTOR if vector else _Kind.SETUP


def _is_store(stmt: st.Stmt, kind: _Kind) -> bool:
    call = _top_call(stmt)
    return kind is _Kind.SETUP and call is not None and _role(call) is Role.STORE


class _Split:
    """The two halves of one scope's body, or why there are none (``None`` from ``run``)."""

    def __init__(self, stmts: list[st.Stmt]) -> None:
        self.stmts = stmts
        self.kinds = [_kind(s) for s in stmts]
        self.definer: dict[Var, int] = {}
        for i, s in enumerate(stmts):
            for var in stmt_definitions(s):
                self.definer[var] = i

    def needs(self, i: int) -> list[int]:
        """The top-level statements statement ``i`` reads a variable of."""
        return sorted({self.definer[v] for v in stmt_reads(self.stmts[i]) if v in self.definer})

    def run(
        self, handed: frozenset[Var] = frozenset()
    ) -> tuple[list[st.Stmt], list[st.Stmt]] | None:
        """``handed``: products besides the cube statements' results (what a split loop
        assigns again, in the front end's IR)."""
        kinds = self.kinds
        if _Kind.OTHER in kinds or _Kind.MIXED in kinds:
            return None
        products = handed | {
            v
            for i, k in enumerate(kinds)
            if k is _Kind.CUBE
            for v in stmt_definitions(self.stmts[i])
        }
        cube = {i for i, k in enumerate(kinds) if k is _Kind.CUBE}
        for i, s in enumerate(self.stmts):  # a product stored into a tensor (from Acc)
            if _is_store(s, kinds[i]) and any(v in products for v in stmt_reads(s)):
                cube.add(i)
        readers = [
            i
            for i, k in enumerate(kinds)
            if k is _Kind.VECTOR and any(v in products for v in stmt_reads(self.stmts[i]))
        ]
        if not readers:
            return None
        first = self.closure(cube, cube)
        if any(kinds[i] is _Kind.VECTOR for i in first):
            return None  # the cube work reads a vector result: not separable here
        second = [i for i in range(len(self.stmts)) if i not in first]
        # the set-up the vector work reads too (what it reads of the cube work is handed over)
        shared = self.closure(set(second), cube) & first
        return [self.stmts[i] for i in sorted(first)], self.copied(sorted(shared), second)

    def closure(self, start: set[int], stop: set[int]) -> set[int]:
        """``start`` and the statements it reads, transitively, not through ``stop``."""
        found = set(start)
        todo = list(start)
        while todo:
            for j in self.needs(todo.pop()):
                if j not in found and j not in stop:
                    found.add(j)
                    todo.append(j)
        return found

    def copied(self, shared: list[int], second: list[int]) -> list[st.Stmt]:
        """The vector half: its own copy of the set-up it shares with the cube half (fresh
        variables, so that each variable still has one definition), then its statements."""
        rename = IRMutator()
        for i in shared:
            for var in stmt_definitions(self.stmts[i]):
                rename.var_map[var] = Var(var.type, name=var.name, span=var.span)
        return [rename.mutate_stmt(self.stmts[i]) for i in sorted([*shared, *second])]


def split_scope(
    scope: st.ScopeStmt, fresh: Callable[[str], str] | None = None
) -> tuple[st.ScopeStmt, st.ScopeStmt] | None:
    """The cube scope and the vector scope ``scope`` (the front end's IR) splits into, or
    None (``split_mixed_scope``, its intermediates' creations left out)."""
    found = split_mixed_scope(scope, fresh)
    return None if found is None else found[1:]


def split_mixed_scope(
    scope: st.ScopeStmt, fresh: Callable[[str], str] | None = None, ssa: bool = False
) -> tuple[list[st.Stmt], st.ScopeStmt, st.ScopeStmt] | None:
    """The creations of the GM intermediates a split loop stores its products in (which go
    before both), the cube scope and the vector scope ``scope`` splits into, or None. A
    launch (a scope with ``deps=`` or a TaskId) gives the cube scope a TaskId (named by
    ``fresh``) the vector scope waits for; the scope's own TaskId is the vector scope's.
    ``ssa``: loops carry values as iter_args (``_Fission``)."""
    stmts: list[st.Stmt] = []
    creations: list[st.Stmt] = []
    for stmt in _flatten(scope.body):
        if isinstance(stmt, st.ForStmt) and _kind(stmt) is _Kind.MIXED:
            fission = _Fission(stmt, fresh or (lambda name: name), ssa).run()
            if fission is None:
                return None
            creations += fission[0]
            stmts += fission[1:]
        else:
            stmts.append(stmt)
    handed = frozenset(v for c in creations for v in stmt_defs(c))
    halves = _Split(stmts).run(handed)
    if halves is None:
        return None
    first, second = halves
    if not ssa:  # the front end's IR, for the task graph: the cube kernel makes its own
        first, creations = [*creations, *first], []
    span = scope.span
    hint = scope.name_hint
    task: Var | None = None
    if scope.deps or scope.task_id is not None:
        name = f"{hint}_aic_task" if hint else "_aic_task"
        task = Var(TASK_ID_TYPE, name=fresh(name) if fresh else name, span=span)
    cube = with_fields(
        scope,
        body=_seq(first, span),
        task_id=task,
        name_hint=f"{hint}_aic" if hint else "",
    )
    vector = with_fields(
        scope,
        body=_seq(second, span),
        deps=(task,) if task is not None else (),
        name_hint=f"{hint}_aiv" if hint else "",
    )
    return creations, cube, vector


def _top_call(stmt: st.Stmt) -> Call | None:
    value = (
        stmt.value
        if isinstance(stmt, st.AssignStmt)
        else (stmt.expr if isinstance(stmt, st.EvalStmt) else None)
    )
    return value if isinstance(value, Call) else None


def _flatten(stmt: st.Stmt) -> list[st.Stmt]:
    if isinstance(stmt, st.SeqStmts):
        return [s for inner in stmt.stmts for s in _flatten(inner)]
    return [stmt]


def _seq(stmts: list[st.Stmt], span: Span) -> st.Stmt:
    return stmts[0] if len(stmts) == 1 else st.SeqStmts(tuple(stmts), span=span)


# --- loop fission: cube work and vector work in one loop of the scope -------------------------


class _Fission:
    """A loop of the scope whose body splits (``_Split``) into cube work and vector work, as
    two loops over the same range: the cube loop stores each iteration's product into its
    slot of a GM intermediate (the trip count times the product's rows), the vector loop reads
    it back from there. ``ssa``: the loop carries its values as iter_args (the passes' IR);
    otherwise variables are assigned again (the front end's, which the task graph reads).
    ``run`` is None when the loop does not split, or when a value flows from the vector work
    back into the cube work (a carried value, or a product read before it is computed), or
    the trip count is not static."""

    def __init__(self, loop: st.ForStmt, fresh: Callable[[str], str], ssa: bool) -> None:
        self.loop = loop
        self.fresh = fresh
        self.ssa = ssa or bool(loop.iter_args)  # (the front end's init_values= loops too)
        body = _flatten(loop.body)
        self.yielded: tuple[Expr, ...] = ()
        if body and isinstance(body[-1], st.YieldStmt):
            self.yielded = body[-1].values
            body = body[:-1]
        self.body = body

    def run(self) -> tuple[list[st.Stmt], st.ForStmt, st.ForStmt] | None:
        """The intermediates' creations (before the scope), the cube loop, the vector loop."""
        trips = _trip_count(self.loop)
        if len(self.yielded) != len(self.loop.iter_args):
            return None  # (a body that does not end in its yield)
        halves = _Split(self.body).run() if trips is not None else None
        if trips is None or halves is None:
            return None
        first, second = halves
        cube_defs = {v for s in first for v in stmt_definitions(s)}
        second_reads = {v for s in second for v in stmt_reads(s)}
        products = [v for s in first for v in stmt_definitions(s) if v in second_reads]
        sides = self.carried_sides(first, second, cube_defs)
        if sides is None or not all(self.slotted(p, trips) for p in products):
            return None
        if not self.ssa and not self.read_after_computed(products):
            return None
        creations, cube = self.cube_loop(first, products, trips, sides)
        return creations, cube, self.vector_loop(second, products, cube, sides)

    def carried_sides(
        self, first: list[st.Stmt], second: list[st.Stmt], cube_defs: set[Var]
    ) -> list[bool] | None:
        """Per carried value, whether the cube loop carries it (else the vector loop); None
        when one half reads what the other carries."""
        first_reads = {v for s in first for v in stmt_reads(s)}
        second_reads = {v for s in second for v in stmt_reads(s)}
        sides = []
        for arg, value in zip(self.loop.iter_args, self.yielded, strict=True):
            cube = (value in cube_defs) if isinstance(value, Var) else False
            cube = cube or (arg in first_reads and arg not in second_reads)
            if arg in (second_reads if cube else first_reads):
                return None
            sides.append(cube)
        return sides

    def read_after_computed(self, products: list[Var]) -> bool:
        """Without iter_args, a product read before its statement reads the last iteration's."""
        for p in products:
            seen = False
            for s in self.body:
                if p in stmt_definitions(s):
                    seen = True
                elif p in stmt_reads(s) and not seen:
                    return False
        return True

    def slotted(self, product: Var, trips: int) -> bool:
        t = product.type
        return (
            isinstance(t, TensorType) and t.rank >= 1 and isinstance(t.shape[0], ConstInt)
        ) and trips > 0

    def slot_offsets(self, product: Var, loop_var: Var) -> Expr:
        """``[slot * rows, 0, ...]``: the iteration's window of the intermediate."""
        loop = self.loop
        index = loop_var.type
        span = loop.span
        slot: Expr = loop_var
        if not (isinstance(loop.start, ConstInt) and loop.start.value == 0):
            slot = Binary(index, op=BinaryOp.Sub, lhs=slot, rhs=loop.start, span=span)
        if not (isinstance(loop.step, ConstInt) and loop.step.value == 1):
            slot = Binary(index, op=BinaryOp.FloorDiv, lhs=slot, rhs=loop.step, span=span)
        assert isinstance(product.type, TensorType)
        rows = product.type.shape[0]
        assert isinstance(rows, ConstInt)
        first = Binary(index, op=BinaryOp.Mul, lhs=slot, rhs=_index(rows.value, span), span=span)
        rest = [_index(0, span) for _ in product.type.shape[1:]]
        return make_tuple((first, *rest), span)

    def var(self, like: Var, name: str, type_: Type | None = None) -> Var:
        return Var(type_ or like.type, name=self.fresh(name), span=like.span)

    def cube_loop(
        self, first: list[st.Stmt], products: list[Var], trips: int, sides: list[bool]
    ) -> tuple[list[st.Stmt], st.ForStmt]:
        loop = self.loop
        span = loop.span
        creations: list[st.Stmt] = []
        stores: list[st.Stmt] = []
        args = [a for a, cube in zip(loop.iter_args, sides, strict=True) if cube]
        yielded = [v for v, cube in zip(self.yielded, sides, strict=True) if cube]
        results = [v for v, cube in zip(loop.return_vars, sides, strict=True) if cube]
        for p in products:
            assert isinstance(p.type, TensorType)
            rows = p.type.shape[0]
            assert isinstance(rows, ConstInt)
            shape = (_index(rows.value * trips, span), *p.type.shape[1:])
            create = _call(
                REGISTRY.the(Role.CREATE, "tensor"),
                [make_tuple(shape, span)],
                {"dtype": p.type.dtype},
            )
            whole = self.var(p, f"{p.name}_gm", create.type)
            creations.append(st.AssignStmt(whole, create, span=span))
            target: Var = whole
            if self.ssa:
                target = IterArg(whole.type, name=self.fresh(whole.name), init_value=whole)
                args.append(target)  # type: ignore[arg-type]
            stored = self.var(whole, whole.name) if self.ssa else whole
            if self.ssa:
                results.append(self.var(whole, whole.name))
            offsets = self.slot_offsets(p, loop.loop_var)
            stores.append(
                st.AssignStmt(
                    stored,
                    _call(REGISTRY.the(Role.STORE, "tensor"), [target, p, offsets]),
                    span=span,
                )
            )
            yielded.append(stored)
        body = [*first, *stores]
        if self.ssa and args:
            body.append(st.YieldStmt(tuple(yielded), span=span))
        cube = with_fields(
            loop,
            body=_seq(body, span),
            iter_args=tuple(args) if self.ssa else (),
            return_vars=tuple(results) if self.ssa else (),
        )
        return creations, cube

    def vector_loop(
        self, second: list[st.Stmt], products: list[Var], cube: st.ForStmt, sides: list[bool]
    ) -> st.ForStmt:
        loop = self.loop
        span = loop.span
        # the intermediates: the cube loop's results (ssa) or the variables it assigns
        count = len(products)
        wholes = list(cube.return_vars[-count:]) if self.ssa else []
        if not self.ssa:
            wholes = [stmt_defs(s)[0] for s in _flatten(cube.body)[-count:]]
        rename = IRMutator()
        # (its own copy of the loop variable, named as it: the vector kernel's, as ``copied``'s)
        old = loop.loop_var
        rename.var_map[old] = loop_var = Var(old.type, name=old.name, span=old.span)
        reads: list[st.Stmt] = []
        for p, whole in zip(products, wholes, strict=True):
            assert isinstance(p.type, TensorType)
            shape = make_tuple(tuple(p.type.shape), span)
            view = _call(_tensor_view(), [whole, shape, self.slot_offsets(p, loop_var)])
            rename.var_map[p] = read = Var(p.type, name=p.name, span=p.span)
            reads.append(st.AssignStmt(read, view, span=span))
        body = [*reads, *(rename.mutate_stmt(s) for s in second)]
        yielded = [v for v, cube_side in zip(self.yielded, sides, strict=True) if not cube_side]
        if yielded:
            body.append(st.YieldStmt(tuple(rename.mutate_expr(v) for v in yielded), span=span))
        keep = [not cube_side for cube_side in sides]
        return with_fields(
            loop,
            loop_var=loop_var,
            body=_seq(body, span),
            iter_args=tuple(a for a, k in zip(loop.iter_args, keep, strict=True) if k),
            return_vars=tuple(v for v, k in zip(loop.return_vars, keep, strict=True) if k),
        )


def _trip_count(loop: st.ForStmt) -> int | None:
    """The loop's static trip count: constant bounds, or ``range(x, x + n, step)``."""
    if not isinstance(loop.step, ConstInt) or loop.step.value <= 0:
        return None
    start, stop = loop.start, loop.stop
    if isinstance(start, ConstInt) and isinstance(stop, ConstInt):
        span = stop.value - start.value
    elif (
        isinstance(stop, Binary)
        and stop.op is BinaryOp.Add
        and structural_equal(stop.lhs, start)
        and isinstance(stop.rhs, ConstInt)
    ):
        span = stop.rhs.value
    else:
        return None
    return max(0, -(-span // loop.step.value))


def _index(value: int, span: Span) -> ConstInt:
    return const_int(value, DataType.INDEX, span)


def _tensor_view() -> OpDef:
    """The window of a tensor (``tensor.view``: offsets and a shape)."""
    found = REGISTRY.first(Role.VIEW, "tensor", lambda op: op.short_name == "view")
    assert found is not None
    return found


def _call(op: OpDef, args: list[Expr], attrs: dict[str, AttrValue] | None = None) -> Call:
    """``op_call`` at the first operand's place."""
    return op_call(op, args, tuple((attrs or {}).items()), args[0].span)
