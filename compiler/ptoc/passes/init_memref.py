"""InitMemRef: give every tile and tensor variable a buffer (MemRef) with no address yet.

* tensor parameters: a DDR MemRef of the tensor's size (0 when the shape is dynamic);
* a tile defined by an op: a fresh MemRef in the op's ``target_memory`` when it has one
  (block.load, block.move, block.create_tile), in Acc for the matmul family, else in Vec,
  sized elements x element bytes; a dynamic tile shape is an E401 diagnostic;
* a tensor defined by a store shares the MemRef of the tensor it writes (and a tensor view
  that of its source); other tensors get a fresh DDR MemRef; a tile whose op's result is an
  argument's storage (``OpDef.aliases``: a reshape, which TRESHAPE / pto.treshape make a view
  of its source; block.matmul_acc, which A2/A3's TMATMUL_ACC adds into its accumulator's own
  buffer) shares that argument's MemRef, and an accumulator read after the op that updates it
  is an E400 (accumulators.py);
* a plain copy ``y = x`` shares x's MemRef; loop-carried values and loop results share the
  MemRef of the initial value, if results that of the value the then branch yields (see
  buffers.py for how the passes account for the other values flowing in); a carried Vec tile
  whose initial tile is read elsewhere starts from a copy first (carried_copies.py).

MemRef ids are sequential in definition order within each function, parameters first.
"""

from __future__ import annotations

from ..ir.expr import Call, Expr, Var
from ..ir.function import Function
from ..ir.shape import shape_str
from ..ir.stmt import AssignStmt, IfStmt, LoopStmt, Stmt
from ..ir.types import MemorySpace, MemRef, ShapedType, TensorType, TileType, Type
from ..ir.visitor import with_fields
from .accumulators import check_accumulators
from .base import FunctionPass, PassContext
from .buffers import memref_of
from .carried_copies import copy_shared_loop_inits
from .irutil import bodies, byte_size, final_yield, retype_function
from .op_info import aliased_arg, tile_space


class _Initializer:
    def __init__(self, fn: Function, ctx: PassContext) -> None:
        self.fn = fn
        self.ctx = ctx
        self.next_id = 0
        self.memrefs: dict[Var, MemRef] = {}
        self.new_types: dict[Var, Type] = {}
        self.dynamic: set[Var] = set()  # tiles of dynamic shape (reported at their origin)
        self.reported: set[str] = set()  # tensors whose dynamic windows were reported

    def run(self) -> Function:
        for param in self.fn.params:
            if isinstance(param.type, ShapedType):
                space = MemorySpace.DDR if isinstance(param.type, TensorType) else MemorySpace.Vec
                self.assign(param, self.fresh(space, param.type))
        self.stmt(self.fn.body)
        return retype_function(self.fn, self.new_types)

    def fresh(self, space: MemorySpace, t: ShapedType, size: int | None = None) -> MemRef:
        size = byte_size(t) if size is None else size
        memref = MemRef(space, None, size or 0, self.next_id)
        self.next_id += 1
        return memref

    def assign(self, var: Var, memref: MemRef) -> None:
        assert isinstance(var.type, ShapedType)
        self.memrefs[var] = memref
        self.new_types[var] = with_fields(var.type, memref=memref)

    def memref(self, value: Expr | None) -> MemRef | None:
        """The MemRef a value names, as assigned so far."""
        if isinstance(value, Var):
            return self.memrefs.get(value) or memref_of(value)
        return None

    def share_or_fresh(self, var: Var, *sources: Expr | None) -> None:
        if not isinstance(var.type, ShapedType):
            return
        for source in sources:
            memref = self.memref(source)
            if memref is not None:
                self.assign(var, memref)
                return
        space = MemorySpace.DDR if isinstance(var.type, TensorType) else MemorySpace.Vec
        self.assign(var, self.fresh(space, var.type))

    def stmt(self, stmt: Stmt | None) -> None:
        if stmt is None:
            return
        self.ctx.at(stmt.span)
        if isinstance(stmt, AssignStmt):
            self.define(stmt)
        elif isinstance(stmt, IfStmt):
            self.stmt(stmt.then_body)
            self.stmt(stmt.else_body)
            then_yield, else_yield = final_yield(stmt.then_body), final_yield(stmt.else_body)
            for i, result in enumerate(stmt.return_vars):
                self.share_or_fresh(result, _nth(then_yield, i), _nth(else_yield, i))
        elif isinstance(stmt, LoopStmt):
            for arg in stmt.iter_args:
                self.share_or_fresh(arg, arg.init_value)
            self.stmt(stmt.body)
            for arg, result in zip(stmt.iter_args, stmt.return_vars, strict=False):
                self.share_or_fresh(result, arg)
        else:
            for body in bodies(stmt):
                self.stmt(body)

    def define(self, stmt: AssignStmt) -> None:
        var, value = stmt.var, stmt.value
        if isinstance(value, Var) and self.memref(value) is not None:
            self.share_or_fresh(var, value)
        elif isinstance(var.type, TileType) and self.memref(aliased(value)) is not None:
            self.share_or_fresh(var, aliased(value))  # a reshape: the source's buffer
        elif isinstance(var.type, TileType):
            size = byte_size(var.type)
            self.assign(var, self.fresh(tile_space(value), var.type, size))
            if size is None:
                self.dynamic_tile(var, var.type, value, stmt)
        elif isinstance(var.type, TensorType):
            self.share_or_fresh(var, aliased(value))

    def dynamic_tile(self, var: Var, tile: TileType, value: Expr, stmt: AssignStmt) -> None:
        """E401 once where a dynamic shape enters (a window of a tensor, say), not again for
        every tile computed from it; named by the user's tensor when there is one."""
        self.dynamic.add(var)
        args = value.args if isinstance(value, Call) else (value,)
        if any(isinstance(a, Var) and a in self.dynamic for a in args):
            return
        shape = shape_str(tile.shape)
        source = next(
            (a for a in args if isinstance(a, Var) and isinstance(a.type, TensorType)), None
        )
        if source is None:
            self.ctx.error(
                "E401",
                f"tile '{var.name}' has the dynamic shape {shape}; on-chip "
                "buffers need a static shape: give it constant dimensions",
                stmt.span,
            )
            return
        if source.name in self.reported:
            return
        self.reported.add(source.name)
        assert isinstance(source.type, TensorType)
        if byte_size(source.type) is None:  # the generators need the tensor's sizes too
            fix = f"declare '{source.name}' with constant sizes and load windows of constant size"
        else:
            fix = "give the window constant sizes and loop over the dimension in steps of that size"
        self.ctx.error(
            "E401",
            f"the window of '{source.name}' has the dynamic shape {shape}, but a tile "
            f"needs a static shape: {fix}",
            stmt.span,
        )


def aliased(value: Expr) -> Expr | None:
    """The argument whose buffer a call's result is (``OpDef.aliases``), if any."""
    return aliased_arg(value) if isinstance(value, Call) else None


def _nth(stmt: object, i: int) -> Expr | None:
    values = getattr(stmt, "values", ())
    return values[i] if i < len(values) else None


class InitMemRef(FunctionPass):
    name = "InitMemRef"
    description = (
        "Give every tile a buffer (MemRef) in its memory space - the op's "
        "target_memory, Acc for matmul results, else Vec - and tensor parameters a "
        "DDR buffer; addresses come later."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        result = _Initializer(copy_shared_loop_inits(fn), ctx).run()
        check_accumulators(result, ctx)
        return result
