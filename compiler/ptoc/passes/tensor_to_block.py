"""ConvertTensorToBlockOps: tensor ops in InCore functions become loads, block ops and stores.

A kernel computes on tiles in the unified buffer, so inside each InCore function:

* a tensor parameter a converted op reads is loaded whole at the top of the function
  (``x_tile = pl.load(x, [0, 0], [M, N])``); a ``tensor.view`` of a parameter becomes a load
  of that window where the view was;
* each tensor op with a block form (the registry's ``block_form`` trait: ``tensor.add`` ->
  ``block.add``, ``tensor.add_scalar`` -> ``block.adds``, ...) becomes that block op on the
  tiles (``y_tile``); an op whose block form writes a scratch tile (row reductions) gets one
  of its input's shape;
* a returned tile is stored into a new ``Out`` parameter ``out_<k>`` (the k-th result) and the
  stored tensor is returned; every caller creates that tensor (``tensor.create``) and passes it;
* a ``tensor.matmul`` becomes cube instructions over slices of K (``tensor_matmul.py``), its
  product stored from Acc;
* a ``tensor.assemble(target, value, offset)`` becomes a store of the value's tile into that
  window of the target (from Acc through the FIX pipe; ``atomic=`` kept), as upstream's
  ConvertTensorToTileOps lowers it; the parameter it updates becomes ``Out`` (``InOut`` when
  the kernel reads it too, an atomic add included);
* a loop whose body computes a carried tensor carries a tile, starting as the initial
  tensor's tile.

When the tiles of a straight-line kernel would not fit the unified buffer together (the
target's Vec capacity), and every tensor has the same leading dimension M (or 1, for a value
broadcast along it) and only element-wise ops, casts and row reductions are involved, the
iteration space is tiled along that dimension: the body runs in ``for i in pl.range(0, M, R)``
on ``[R, ...]`` windows, R the largest divisor of M whose tiles fit, each step storing its
window into the Out parameters (nothing is carried through the loop).
"""

from __future__ import annotations

from .. import records
from ..ir.dsl_enums import AtomicType
from ..ir.dtype import INDEX, DataType
from ..ir.expr import (
    Call,
    Expr,
    GlobalVar,
    IterArg,
    MakeTuple,
    Op,
    Submit,
    Var,
    const_int,
    make_tuple,
)
from ..ir.fields import layout
from ..ir.function import Function, ParamDirection, Program
from ..ir.shape import static_shape, static_value
from ..ir.span import Span
from ..ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForStmt,
    IfStmt,
    LoopStmt,
    ReturnStmt,
    SeqStmts,
    Stmt,
    YieldStmt,
)
from ..ir.types import MemorySpace, ScalarType, ShapedType, TensorType, TileType, Type
from ..ir.visitor import IRMutator, with_fields
from ..ops.registry import REGISTRY, Access, OpDef, OpError, PipeType, Role, op_call
from ..records import field, record
from .acc_tiles import is_rint, mat_placed, split_products
from .base import Pass, PassContext
from .build import index_tuple
from .irutil import (
    NameAllocator,
    byte_size,
    defined_vars,
    final_yield,
    flatten_seq,
    seq,
    stmt_reads,
    walk_stmts,
)
from .op_info import creator_op, is_tensor_op, op_def, the_first
from .tensor_matmul import MatmulLowering, matmul_args, move_op

_TILEABLE_ROLES = (Role.ELEMENTWISE, Role.CAST, Role.REDUCTION)


def _block_form(call: Call) -> OpDef | None:
    op = op_def(call)
    if op is None or op.block_form is None:
        return None
    return REGISTRY.get(op.block_form)


def _is_view(call: Call) -> bool:
    op = op_def(call)
    return (
        op is not None
        and op.namespace == "tensor"
        and op.role is Role.VIEW
        and op.block_form is None
    )


def _on_chip(value: Expr) -> bool:
    return isinstance(value, Var) and isinstance(value.type, TileType)


def _tile_window_op() -> OpDef:
    """The block op taking a window (shape at offset) of a tile."""
    return the_first(
        Role.VIEW, "block", lambda op: op.param("offset") is not None and op.aliases is None
    )


def _in_acc(value: Expr) -> bool:
    return isinstance(value.type, TileType) and value.type.memory_space is MemorySpace.Acc


def _store_op_of(tile: Expr) -> OpDef:
    """The store of ``tile`` into a tensor: from Acc through the FIX pipe (which converts to
    the tensor's type), else from the unified buffer."""
    pipe = PipeType.FIX if _in_acc(tile) else PipeType.MTE3
    return the_first(Role.STORE, "block", lambda op: op.pipe is pipe)


def _check_rounding(
    ctx: PassContext, source: Expr, tile: Expr, into: TensorType, where: str, span: Span
) -> None:
    """W035 for a matmul result of a narrower float (its out_dtype: the tensor-level
    ``source``'s type) written from Acc into a wider float tensor: the FIX pipe converts the
    FP32 accumulator straight to the tensor's type, so the rounding to out_dtype the source
    asks for does not happen."""
    if not (_in_acc(tile) and isinstance(source.type, TensorType)):
        return
    narrow, wide = source.type.dtype, into.dtype
    if not (narrow.is_float and wide.is_float and narrow.bits < wide.bits):
        return
    ctx.error(
        "W035",
        f"this {narrow.name} matmul result goes straight from the accumulator into {where} "
        f"of {wide.name}: the FIX pipe converts the FP32 accumulator to {wide.name}, so it is "
        f"never rounded to {narrow.name} on the device (the reference interpreter rounds it); "
        f"ask for out_dtype=pl.{wide.name}, or write it into a tensor of {narrow.name}",
        span,
    )


def _matmul_operands(fn: Function) -> set[Var]:
    """Variables a tensor-level matmul of ``fn`` multiplies."""
    found: set[Var] = set()
    for stmt in walk_stmts(fn.body):
        if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            block = _block_form(stmt.value)
            if block is not None and block.role is Role.MATMUL:
                args = matmul_args(stmt.value)
                found.update(a for a in (args["lhs"], args["rhs"]) if isinstance(a, Var))
    return found


def _computed(body: Stmt, found: dict[Var, bool]) -> None:
    """Variables of ``body`` a tensor op with a block form computes (so they become tiles),
    each with whether it is a matmul's product (a tile in Acc); an if's result counts when a
    branch yields such a value in its place."""
    for stmt in flatten_seq([body]):
        if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            block = _block_form(stmt.value)
            if block is not None:
                found[stmt.var] = block.role is Role.MATMUL
        elif isinstance(stmt, IfStmt):
            branches = [b for b in (stmt.then_body, stmt.else_body) if b is not None]
            for branch in branches:
                _computed(branch, found)
            for k, var in enumerate(stmt.return_vars):
                kinds = [
                    found[v]
                    for v in (_yielded(b, k) for b in branches)
                    if isinstance(v, Var) and v in found
                ]
                if kinds:
                    found[var] = any(kinds)
        elif isinstance(stmt, LoopStmt):
            _computed(stmt.body, found)


def _yielded(body: Stmt, k: int) -> Expr | None:
    last = final_yield(body)
    return last.values[k] if last is not None and k < len(last.values) else None


def _computed_yields(loop: LoopStmt) -> dict[int, bool]:
    """Positions whose yielded value the loop body computes with a tensor op that has a block
    form (so it becomes a tile, and the carried value must start as one), each with whether
    that tile is a matmul's product in Acc (the K loop of a product carries an Acc tile)."""
    last = final_yield(loop.body)
    if last is None:
        return {}
    computed: dict[Var, bool] = {}
    _computed(loop.body, computed)
    return {
        k: computed[v] for k, v in enumerate(last.values) if isinstance(v, Var) and v in computed
    }


class _DropAssignments(IRMutator):
    def __init__(self, dropped: set[Var]) -> None:
        super().__init__()
        self.dropped = dropped

    def mutate_SeqStmts(self, stmt: SeqStmts) -> Stmt:
        kept = tuple(
            self.mutate_stmt(s)
            for s in stmt.stmts
            if not (isinstance(s, AssignStmt) and s.var in self.dropped)
        )
        return with_fields(stmt, stmts=kept)


def _converts(fn: Function) -> bool:
    return fn.func_type.is_incore and any(
        isinstance(s, AssignStmt)
        and isinstance(s.value, Call)
        and (_block_form(s.value) is not None or is_tensor_op(s.value, Role.STORE))
        for s in walk_stmts(fn.body)
    )


@record
class _Window:
    """Tiling along the leading dimension: rows per step and the loop variable."""

    rows: int
    full: int
    offset: Var


@record
class _Converted:
    function: Function
    out_types: list[TensorType] = field(default_factory=list)


class _Converter:
    def __init__(self, fn: Function, ctx: PassContext, window: _Window | None) -> None:
        self.fn = fn
        self.ctx = ctx
        self.window = window
        self.names = NameAllocator(v.name for v, _ in defined_vars(fn))
        self.tiles: dict[Var, Expr] = {}
        self.views: dict[Var, tuple[Var, MakeTuple, MakeTuple]] = {}
        self.params = set(fn.params)
        self.created: set[Var] = set()
        self.stored: dict[Var, Var] = {}  # a returned store's result -> its Out parameter
        self.top_loads: list[Stmt] = []
        self.out_params: list[Var] = []
        self.sub = IRMutator()
        self.tile_bytes = 0
        self.matmul_operands = _matmul_operands(fn)
        self.pending: list[Stmt] = []  # loads a converted op needs right before it
        self.written: set[Var] = set()  # parameters an assemble stores into
        self.read_too: set[Var] = set()  # ... of which an atomic store reads
        self.origin: dict[Var, Var] = {}  # a carried or stored tensor -> the one it updates
        # Products over Acc computed in blocks into the Mat tile of the cast reading them
        # (acc_tiles.py), and those casts once done.
        self.mat_placed = mat_placed(fn, ctx.target.capacity(MemorySpace.Acc))
        self.folded: set[Var] = set()

    # --- windows of tensors --------------------------------------------------------------

    def window_of(self, tensor: Var, span: Span) -> tuple[MakeTuple, MakeTuple]:
        """Offsets and shape of the part of ``tensor`` one step works on."""
        assert isinstance(tensor.type, ShapedType)
        shape: list[Expr | int] = list(tensor.type.shape)
        offsets: list[Expr | int] = [0] * len(shape)
        w = self.window
        if w is not None and shape and static_value(tensor.type.shape[0]) == w.full:
            shape[0], offsets[0] = w.rows, w.offset
        return index_tuple(offsets, span), index_tuple(shape, span)

    def load(self, tensor: Var, span: Span) -> Var:
        offsets, shapes = self.window_of(tensor, span)
        call = op_call(self.load_op(), [tensor, offsets, shapes], (), span)
        tile = Var(call.type, name=self.names.fresh(f"{tensor.name}_tile"), span=span)
        self.count(call.type)
        self.top_loads.append(AssignStmt(tile, call, span=span))
        self.tiles[tensor] = tile
        return tile

    @staticmethod
    def load_op() -> OpDef:
        return REGISTRY.the(Role.LOAD, "block")

    def count(self, t: Type) -> None:
        """Add a unified-buffer tile to the bytes the kernel needs at once."""
        if isinstance(t, TileType) and t.memory_space in (None, MemorySpace.Vec):
            self.tile_bytes += byte_size(t) or 0

    # --- statements ----------------------------------------------------------------------

    def run(self) -> _Converted:
        body = self.stmts(flatten_seq([self.fn.body]))
        params = (*self.fn.params, *self.out_params)
        directions = (
            *(self.direction(i) for i in range(len(self.fn.params))),
            *(ParamDirection.Out for _ in self.out_params),
        )
        stmts = self.without_unused_creations([*self.top_loads, *body])
        new = with_fields(
            self.fn, params=params, param_directions=directions, body=seq(stmts, self.fn.body.span)
        )
        return _Converted(new, [p.type for p in self.out_params])  # type: ignore[misc]

    def direction(self, index: int) -> ParamDirection:
        """A parameter's direction; an ``In`` one a store writes becomes ``Out``, or ``InOut``
        when the kernel reads it too (upstream's direction upgrade)."""
        declared, param = self.fn.direction(index), self.fn.params[index]
        if declared is not ParamDirection.In or param not in self.written:
            return declared
        read = param in self.tiles or param in self.read_too
        return ParamDirection.InOut if read else ParamDirection.Out

    def without_unused_creations(self, stmts: list[Stmt]) -> list[Stmt]:
        """Drop a kernel's ``tensor.create`` whose every use became a tile (kernels have no
        tensor creation), at any depth."""
        whole = SeqStmts(tuple(stmts))
        used = set(stmt_reads(whole))
        unused = {v for v in self.created if v not in used}
        if not unused:
            return stmts
        kept = _DropAssignments(unused).mutate_stmt(whole)
        assert isinstance(kept, SeqStmts)
        return list(kept.stmts)

    def stmts(self, stmts: list[Stmt]) -> list[Stmt]:
        out: list[Stmt] = []
        for stmt in stmts:
            self.ctx.at(stmt.span)
            out.extend(self.stmt(stmt))
        return out

    def value(self, expr: Expr) -> Expr:
        if isinstance(expr, Var) and expr in self.tiles:
            return self.tiles[expr]
        self.sub.var_map = {k: v for k, v in self.tiles.items() if isinstance(v, Var)}
        return self.sub.mutate_expr(expr)

    def tile_arg(self, arg: Expr, span: Span, space: MemorySpace = MemorySpace.Vec) -> Expr:
        if isinstance(arg, Var) and isinstance(arg.type, TensorType):
            if arg in self.tiles:
                return self.tiles[arg]
            if arg in self.params:
                return self.load(arg, span)
            if arg in self.views:  # a view loaded for a matmul that a vector op reads too
                base, offset, shape = self.views[arg]
                load = op_call(self.load_op(), [base, self.value(offset), shape], (), span)
                tile = Var(load.type, name=self.names.fresh(f"{arg.name}_tile"), span=span)
                self.count(load.type)
                self.pending.append(AssignStmt(tile, load, span=span))
                self.tiles[arg] = tile
                return tile
            if arg in self.created:
                # A tensor the kernel creates and computes on: an uninitialised tile instead
                # (in Acc for a product's accumulator).
                memory = () if space is MemorySpace.Vec else (("target_memory", space),)
                create = op_call(
                    creator_op("block"),
                    [make_tuple(arg.type.shape, span)],
                    (("dtype", arg.type.dtype), *memory),
                    span,
                )
                tile = Var(create.type, name=self.names.fresh(f"{arg.name}_tile"), span=span)
                self.count(create.type)
                self.top_loads.append(AssignStmt(tile, create, span=span))
                self.tiles[arg] = tile
                return tile
        return self.value(arg)

    def stmt(self, stmt: Stmt) -> list[Stmt]:
        if isinstance(stmt, AssignStmt) and isinstance(stmt.value, Call):
            converted = self.convert_call(stmt)
            if converted is not None:
                return converted
        if isinstance(stmt, ReturnStmt):
            return self.ret(stmt)
        if isinstance(stmt, IfStmt):
            return [self.if_stmt(stmt)]
        if isinstance(stmt, LoopStmt):
            return self.loop(stmt)
        if isinstance(stmt, YieldStmt):
            return [with_fields(stmt, values=tuple(self.value(v) for v in stmt.values))]
        if isinstance(stmt, AssignStmt):
            return [with_fields(stmt, value=self.value(stmt.value))]
        if isinstance(stmt, EvalStmt):
            return [with_fields(stmt, expr=self.value(stmt.expr))]
        return [stmt]

    def body(self, body: Stmt) -> Stmt:
        return seq(self.stmts(flatten_seq([body])), body.span)

    def if_stmt(self, stmt: IfStmt) -> IfStmt:
        then_body = self.body(stmt.then_body)
        else_body = None if stmt.else_body is None else self.body(stmt.else_body)
        new_vars = self.retyped(stmt.return_vars, then_body)
        return with_fields(
            stmt,
            condition=self.value(stmt.condition),
            then_body=then_body,
            else_body=else_body,
            return_vars=new_vars,
        )

    def loop(self, stmt: LoopStmt) -> list[Stmt]:
        iter_args = self.iter_args(stmt)
        loads, self.pending = self.pending, []
        body = self.body(stmt.body)
        changes: dict[str, object] = {
            "body": body,
            "iter_args": iter_args,
            "return_vars": self.retyped(stmt.return_vars, body),
        }
        for name in (*layout(type(stmt)).operands, *layout(type(stmt)).conditions):
            changes[name] = self.value(getattr(stmt, name))  # bounds, condition
        return [*loads, with_fields(stmt, **changes)]

    def iter_args(self, stmt: LoopStmt) -> tuple[IterArg, ...]:
        iter_args = []
        computed = _computed_yields(stmt)
        for k, arg in enumerate(stmt.iter_args):
            init = self.value(arg.init_value) if arg.init_value is not None else None
            if k in computed and init is not None and isinstance(init.type, TensorType):
                # The body computes the carried value on tiles: carry a tile from the start
                # (InitMemRef copies it when the tensor's tile is read elsewhere too); a
                # product's accumulator starts as an Acc tile the first matmul overwrites.
                space = MemorySpace.Acc if computed[k] else MemorySpace.Vec
                init = self.tile_arg(init, stmt.span, space)
            if init is not None and init.type is not arg.type and isinstance(init.type, TileType):
                new_arg = records.replace(arg, type=init.type, init_value=init)
                self.names.taken.add(arg.name)
            else:
                new_arg = records.replace(arg, init_value=init)
            self.tiles[arg] = new_arg
            if isinstance(init, Var):
                self.origin[new_arg] = self.origin.get(init, init)
            iter_args.append(new_arg)
        return tuple(iter_args)

    def retyped(self, return_vars: tuple[Var, ...], body: Stmt) -> tuple[Var, ...]:
        """Results of an if / loop whose yielded values became tiles become tiles too."""
        last = final_yield(body)
        if last is None:
            return return_vars
        out = []
        for var, value in zip(return_vars, last.values, strict=False):
            if isinstance(value.type, TileType) and not isinstance(var.type, TileType):
                new = records.replace(var, type=value.type)
                self.tiles[var] = new
                self.names.taken.add(var.name)  # the tile keeps the name; a store gets another
                out.append(new)
            else:
                out.append(var)
        return tuple(out)

    def convert_call(self, stmt: AssignStmt) -> list[Stmt] | None:
        call = stmt.value
        assert isinstance(call, Call)
        span = stmt.span
        if call.callee == Op(creator_op("tensor").name):
            self.created.add(stmt.var)
            return None
        if _is_view(call) and call.args and call.args[0] in self.params:
            base = call.args[0]
            assert isinstance(base, Var)
            shape, offset = call.args[1], call.args[2]
            assert isinstance(shape, MakeTuple) and isinstance(offset, MakeTuple)
            self.views[stmt.var] = (base, offset, shape)
            if stmt.var in self.matmul_operands:
                return []  # loaded into Mat where the matmul is (matmul.py)
            load = op_call(self.load_op(), [base, self.value(offset), shape], (), span)
            tile = Var(load.type, name=self.names.fresh(f"{stmt.var.name}_tile"), span=span)
            self.count(load.type)
            self.tiles[stmt.var] = tile
            return [AssignStmt(tile, load, span=span)]
        if _is_view(call) and call.args and _on_chip(self.value(call.args[0])):
            return self.window_of_tile(stmt, call)
        if stmt.var in self.folded:
            return []  # the cast a blocked product was converted into Mat with (matmul.py)
        if is_tensor_op(call, Role.STORE):
            return self.assemble(stmt, call)
        block = _block_form(call)
        if block is None:
            return None
        if block.role is Role.MATMUL:
            return MatmulLowering(self, stmt, call, block).run()
        args = [self.tile_arg(a, span) for a in call.args]
        folded = self.folded_cast(stmt, call, args)
        if folded is not None:
            return folded
        if self.reads_acc(call, args, span):
            return None
        loads, self.pending = self.pending, []
        pre: list[Stmt] = []
        given = len(args)
        for param in block.expr_params[given:]:
            if param.access is Access.WRITE and "tile" in param.accepts:
                scratch = self.scratch(args[0], span)
                pre.append(scratch)
                args.append(scratch.var)
        try:
            new_call = op_call(block, args, call.kwargs, span)
        except OpError:
            # An operand that did not become a tile (a tensor the kernel cannot load): the op
            # stays a tensor op, which code generation reports (E400) at its own span.
            return [*loads, with_fields(stmt, value=self.value(call))]
        tile = Var(new_call.type, name=self.names.fresh(f"{stmt.var.name}_tile"), span=span)
        self.count(new_call.type)
        self.tiles[stmt.var] = tile
        return [*loads, *pre, AssignStmt(tile, new_call, span=span)]

    def window_of_tile(self, stmt: AssignStmt, call: Call) -> list[Stmt] | None:
        """``tensor.view`` of a tensor the kernel computed (a tile): the block op taking that
        window of the tile (``block.view``; qwen3_jit's ``q_block[:, 0:HALF_DIM]`` of a
        reshaped row)."""
        window = _tile_window_op()
        loads, self.pending = self.pending, []
        args = [self.value(a) for a in call.args]
        try:
            new_call = op_call(window, args, (), stmt.span)
        except OpError:
            return None  # stays a tensor op (E400 at its span)
        tile = Var(new_call.type, name=self.names.fresh(f"{stmt.var.name}_tile"), span=stmt.span)
        self.count(new_call.type)
        self.tiles[stmt.var] = tile
        return [*loads, AssignStmt(tile, new_call, span=stmt.span)]

    def reads_acc(self, call: Call, args: list[Expr], span: Span) -> bool:
        """E400 (True) when a vector op reads a matmul's product."""
        if not any(_in_acc(a) for a in args):
            return False
        self.ctx.error(
            "E400",
            f"'{call.op_name}' reads the result of a matmul in the same kernel: the "
            "product is in the cube unit's Acc buffer, which vector instructions cannot "
            "read (A2/A3 has no Acc -> Vec move, and the cube and vector units are "
            "separate cores); compute the matmul in a kernel of its own (its own "
            "InCore function or `with pl.incore():` scope) and pass its result",
            span,
        )
        return True

    def folded_cast(self, stmt: AssignStmt, call: Call, args: list[Expr]) -> list[Stmt] | None:
        """``cb = cast(product, FP16 / BF16, mode="rint")`` feeding a matmul: the converting
        move Acc -> Mat (TMOV's FIXPIPE pre-quantisation rounds half to even), as upstream's
        autotiler folds it; the matmul takes its operand from that Mat tile."""
        op = op_def(call)
        if op is None or op.role is not Role.CAST or stmt.var not in self.matmul_operands:
            return None
        dtype = call.kwarg("target_type")
        if not args or not _in_acc(args[0]) or not is_rint(call.kwarg("mode")):
            return None
        if dtype not in (DataType.FP16, DataType.BF16):
            return None
        move = op_call(
            move_op(),
            [args[0]],
            (("target_memory", MemorySpace.Mat), ("dtype", dtype)),
            stmt.span,
        )
        tile = Var(move.type, name=self.names.fresh(f"{stmt.var.name}_mat"), span=stmt.span)
        self.tiles[stmt.var] = tile
        return [AssignStmt(tile, move, span=stmt.span)]

    def assemble(self, stmt: AssignStmt, call: Call) -> list[Stmt] | None:
        """``tensor.assemble(target, source, offset)``: the source's tile stored into the
        window of the target it covers (from Acc through the FIX pipe), as upstream's
        ConvertTensorToTileOps lowers it (``tile.store``); the result is the target."""
        target, source, offset = call.args[:3]
        into = self.value(target)
        if not (isinstance(into, Var) and isinstance(into.type, TensorType)):
            return None  # a target that became a tile: stays a tensor op (E400)
        if self.window is not None:
            return None
        span = stmt.span
        tile = self.tile_arg(source, span)
        if not isinstance(tile.type, TileType) or not isinstance(offset, MakeTuple):
            return None
        loads, self.pending = self.pending, []
        _check_rounding(self.ctx, source, tile, into.type, "a tensor", span)
        store_op = _store_op_of(tile)
        shapes = make_tuple(tile.type.shape, span)
        atomic = call.kwarg("atomic")
        kwargs = () if atomic in (None, AtomicType.None_) else (("atomic", atomic),)
        store = op_call(store_op, [tile, self.value(offset), shapes, into], kwargs, span)
        origin = self.origin.get(into, into)
        self.origin[stmt.var] = origin
        if origin in self.params:
            self.written.add(origin)
            if kwargs:  # an atomic store reads what it adds to
                self.read_too.add(origin)
        return [*loads, AssignStmt(stmt.var, store, span=span)]

    def scratch(self, like: Expr, span: Span) -> AssignStmt:
        t = like.type
        assert isinstance(t, TileType)
        create = creator_op("block")
        call = op_call(create, [make_tuple(t.shape, span)], (("dtype", t.dtype),), span)
        self.count(call.type)
        return AssignStmt(
            Var(call.type, name=self.names.fresh("tmp_tile"), span=span), call, span=span
        )

    def ret(self, stmt: ReturnStmt) -> list[Stmt]:
        out: list[Stmt] = []
        values: list[Expr] = []
        for k, value in enumerate(stmt.values):
            new = self.value(value)
            if not isinstance(new.type, TileType) or k >= len(self.fn.return_types):
                values.append(new)
                continue
            declared = self.fn.return_types[k]
            assert isinstance(declared, TensorType)
            param = Var(
                declared, name=self.names.fresh(f"out_{len(self.out_params)}"), span=stmt.span
            )
            self.out_params.append(param)
            offsets, shapes = self.window_of(param, stmt.span)
            _check_rounding(self.ctx, value, new, declared, "the returned tensor", stmt.span)
            store_op = _store_op_of(new)
            store = op_call(store_op, [new, offsets, shapes, param], (), stmt.span)
            name = value.name if isinstance(value, Var) else param.name
            result = Var(store.type, name=self.names.fresh(name), span=stmt.span)
            out.append(AssignStmt(result, store, span=stmt.span))
            values.append(result)
            self.stored[result] = param
        return [*out, with_fields(stmt, values=tuple(values))]


# --- tiling ------------------------------------------------------------------------------


def _leading_dim(fn: Function) -> int | None:
    """M when every tensor of a straight-line kernel has leading dimension M (or 1) and only
    element-wise ops, casts and row reductions are converted; None otherwise."""
    stmts = flatten_seq([fn.body])
    if not stmts or not isinstance(stmts[-1], ReturnStmt):
        return None
    leading: set[int] = set()
    tensors = [p for p in fn.params if isinstance(p.type, TensorType)]
    for stmt in stmts[:-1]:
        if not isinstance(stmt, AssignStmt) or not isinstance(stmt.value, Call):
            return None
        block = _block_form(stmt.value)
        if block is None or block.role not in _TILEABLE_ROLES:
            return None
        tensors.append(stmt.var)
    for var in tensors:
        t = var.type
        if not isinstance(t, TensorType) or not t.shape:
            return None
        dims = static_shape(t.shape)
        if dims is None:
            return None
        if dims[0] != 1:
            leading.add(dims[0])
    return leading.pop() if len(leading) == 1 else None


def _tiled(fn: Function, ctx: PassContext, full: int, rows: int) -> Function:
    """The kernel over ``[rows, ...]`` windows: each step stores its window straight into the
    Out parameters (nothing is carried: PTOAS takes no tensor view as a loop-carried value),
    and the function returns those parameters."""
    span = fn.body.span
    names = NameAllocator(v.name for v, _ in defined_vars(fn))
    loop_var = Var(ScalarType(INDEX), name=names.fresh("i"), span=span)
    converter = _Converter(fn, ctx, _Window(rows, full, loop_var))
    converted = converter.run().function
    stmts = flatten_seq([converted.body])
    returned = stmts[-1]
    assert isinstance(returned, ReturnStmt)
    loop = ForStmt(
        loop_var,
        const_int(0, INDEX, span),
        const_int(full, INDEX, span),
        const_int(rows, INDEX, span),
        seq(stmts[:-1], span),
        span=span,
    )
    final = ReturnStmt(
        tuple(converter.stored.get(v, v) if isinstance(v, Var) else v for v in returned.values),
        span=returned.span,
    )
    return with_fields(converted, body=SeqStmts((loop, final), span=span))


def _convert(fn: Function, ctx: PassContext) -> _Converted:
    whole = _Converter(fn, ctx, None)
    converted = whole.run()
    capacity = ctx.target.capacity(MemorySpace.Vec)
    full = _leading_dim(fn)
    if capacity is None or whole.tile_bytes <= capacity or full is None:
        return converted
    # A window of more than 8 x capacity rows cannot fit (each row holds at least one element
    # of at least one bit): counting down from a leading dimension of 2**40 never ended.
    for rows in range(min(full - 1, 8 * capacity), 0, -1):
        if full % rows:
            continue
        trial = _Converter(fn, ctx, _Window(rows, full, Var(ScalarType(INDEX), name="i")))
        trial.run()
        if trial.tile_bytes <= capacity:
            return _Converted(_tiled(fn, ctx, full, rows), converted.out_types)
    return converted


# --- callers -------------------------------------------------------------------------------


class _CallSites(IRMutator):
    """Callers create the new Out tensors and pass them."""

    def __init__(self, fn: Function, outs: dict[str, list[TensorType]]) -> None:
        super().__init__()
        self.outs = outs
        self.names = NameAllocator(v.name for v, _ in defined_vars(fn))

    def mutate_SeqStmts(self, stmt: SeqStmts) -> Stmt:
        out: list[Stmt] = []
        for s in stmt.stmts:
            out.extend(self.expand(s))
        return with_fields(stmt, stmts=tuple(out))

    def mutate_AssignStmt(self, stmt: AssignStmt) -> Stmt:
        """A call that is a body of its own (not in a SeqStmts)."""
        return self.body(stmt)

    def mutate_EvalStmt(self, stmt: EvalStmt) -> Stmt:
        return self.body(stmt)

    def expand(self, stmt: Stmt) -> list[Stmt]:
        value = (
            stmt.value
            if isinstance(stmt, AssignStmt)
            else (stmt.expr if isinstance(stmt, EvalStmt) else None)
        )
        # (a launch: a call, or a submit such as an outlined ``pl.at(...) as tid`` region)
        callee = value.callee if isinstance(value, Call) else None
        callee = value.kernel if isinstance(value, Submit) else callee
        if not (isinstance(callee, GlobalVar) and callee.name in self.outs):
            return [stmt if isinstance(stmt, AssignStmt | EvalStmt) else self.mutate_stmt(stmt)]
        assert isinstance(value, Call | Submit)
        creates: list[Stmt] = []
        extra: list[Expr] = []
        for k, t in enumerate(self.outs[callee.name]):
            create = op_call(
                creator_op("tensor"),
                [make_tuple(t.shape, stmt.span)],
                (("dtype", t.dtype),),
                stmt.span,
            )
            var = Var(create.type, name=self.names.fresh(f"out_{k}"), span=stmt.span)
            creates.append(AssignStmt(var, create, span=stmt.span))
            extra.append(var)
        call = with_fields(value, args=(*value.args, *extra))
        new = (
            with_fields(stmt, value=call)
            if isinstance(stmt, AssignStmt)
            else with_fields(stmt, expr=call)
        )
        return [*creates, new]

    def body(self, stmt: Stmt) -> Stmt:
        if not isinstance(stmt, SeqStmts):
            parts = self.expand(stmt)
            return parts[0] if len(parts) == 1 else SeqStmts(tuple(parts), span=stmt.span)
        return self.mutate_stmt(stmt)


class ConvertTensorToBlockOps(Pass):
    name = "ConvertTensorToBlockOps"
    description = (
        "tensor ops in InCore functions become loads, block ops and stores over "
        "tiles that fit the unified buffer (tiled along the leading dimension when "
        "they do not); callers pass the output tensors"
    )

    def run(self, program: Program, ctx: PassContext) -> Program:
        outs: dict[str, list[TensorType]] = {}
        functions: list[Function] = []
        for fn in program.functions:
            if _converts(fn):
                ctx.at(fn.span)
                fn = split_products(fn, ctx.target.capacity(MemorySpace.Acc))
                converted = _convert(fn, ctx)
                functions.append(converted.function)
                if converted.out_types:
                    outs[fn.name] = converted.out_types
            else:
                functions.append(fn)
        if not outs and all(n is o for n, o in zip(functions, program.functions, strict=True)):
            return program
        if outs:
            functions = [
                fn if fn.func_type.is_incore and fn.name not in outs else self.callers(fn, outs)
                for fn in functions
            ]
        return Program(program.name, tuple(functions), span=program.span)

    @staticmethod
    def callers(fn: Function, outs: dict[str, list[TensorType]]) -> Function:
        sites = _CallSites(fn, outs)
        body = sites.body(fn.body)
        return fn if body is fn.body else with_fields(fn, body=body)
