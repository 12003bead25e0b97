"""AddReductionScratch: a reduction along the last axis gets the scratch tile its instruction
needs (pto-isa's TROWSUM / TROWMAX / TROWMIN and PTO's trowsum ... take one).

``r = block.sum(t, axis=-1, keepdim=True)`` becomes ``tmp = block.create_tile(t.shape, t.dtype);
r = block.row_sum(t, tmp)``: the registration names the scratch form (``OpDef.scratch_form``).
Later passes then give the scratch tile a buffer like any other tile. A reduction without
keepdim keeps its form (its rank-reduced result is not the scratch form's [rows, 1])."""

from __future__ import annotations

from ..ir.expr import Call, Op, Var, make_tuple
from ..ir.function import Function
from ..ir.stmt import AssignStmt, SeqStmts, Stmt
from ..ir.types import TileType
from ..ir.visitor import IRMutator, with_fields
from ..ops import REGISTRY, ParamKind
from .base import FunctionPass, PassContext
from .irutil import NameAllocator, defined_vars, flatten_seq
from .op_info import creator_op, op_def


class _AddScratch(IRMutator):
    def __init__(self, names: NameAllocator) -> None:
        super().__init__()
        self.names = names

    def mutate_SeqStmts(self, stmt: SeqStmts) -> Stmt:
        stmts = tuple(self.mutate_stmt(s) for s in stmt.stmts)
        if all(a is b for a, b in zip(stmts, stmt.stmts, strict=True)):
            return stmt
        return with_fields(stmt, stmts=tuple(flatten_seq(stmts)))

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt:
        value = stmt.value
        rewritten = self.scratch_form(value) if isinstance(value, Call) else None
        if rewritten is None:
            return self.generic_mutate(stmt)
        scratch_op, source = rewritten
        assert isinstance(source.type, TileType)
        span = value.span
        creator = creator_op("block")
        shape = make_tuple(source.type.shape, span)
        # Every attribute spelled out, as the front end writes a create_tile call.
        kwargs = tuple(
            (p.name, source.type.dtype if p.name == "dtype" else p.default)
            for p in creator.params
            if p.kind is ParamKind.ATTR
        )
        scratch_type = creator.deduce({"shape": shape}, dict(kwargs))
        create = Call(
            scratch_type, callee=Op(creator.name), args=(shape,), kwargs=kwargs, span=span
        )
        scratch = Var(scratch_type, name=self.names.fresh(f"{stmt.var.name}_tmp"), span=span)
        reduce = Call(value.type, callee=Op(scratch_op), args=(source, scratch), span=span)
        return SeqStmts(
            (
                AssignStmt(scratch, create, span=stmt.span),
                with_fields(stmt, value=reduce),
            ),
            span=stmt.span,
        )

    @staticmethod
    def scratch_form(call: Call) -> tuple[str, Var] | None:
        """The scratch form of a last-axis, keepdim reduction of a tile variable, and that tile."""
        op = op_def(call)
        if op is None or op.scratch_form is None or not call.args:
            return None
        source = call.args[0]
        if not isinstance(source, Var) or not isinstance(source.type, TileType):
            return None
        rank = len(source.type.shape)
        axis = call.kwarg("axis")
        if rank < 2 or not isinstance(axis, int) or isinstance(axis, bool):
            return None
        if axis % rank != rank - 1 or call.kwarg("keepdim") is not True:
            return None
        if REGISTRY.get(op.scratch_form) is None:
            return None
        return op.scratch_form, source


class AddReductionScratch(FunctionPass):
    """The pass (see the module's docstring)."""

    name = "AddReductionScratch"
    description = "Give each last-axis reduction (keepdim) the scratch tile its instruction needs."

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        rewriter = _AddScratch(NameAllocator(var.name for var, _ in defined_vars(fn)))
        body = rewriter.mutate_stmt(fn.body)
        return fn if body is fn.body else with_fields(fn, body=body)
