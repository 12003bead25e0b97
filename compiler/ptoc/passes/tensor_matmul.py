"""A tensor-level matmul in an InCore function as cube instructions (ConvertTensorToBlockOps).

``c = tensor.matmul(a, b)``, ``a`` [M, K] and ``b`` [K, N] read from memory (parameters or
``tensor.view`` windows of them), becomes: a K-slice of each loaded into Mat, moved to Left /
Right, ``block.matmul`` into Acc; when K does not fit at once, a loop over the remaining slices
adds each product with the registry's ``acc_form`` (``block.matmul_acc``). The slice is the
largest divisor of K whose tiles fit Left, Right and Mat together (the target's capacities)
and keeps whole 32-byte rows. The product stays in Acc: a returned product is stored with the
store from Acc (the FIX pipe converts it to the result's type).

``c = tensor.matmul_acc(acc, a, b)`` is lowered the same way, its first slice added to ``acc``'s
tile, which must be in Acc: a carried product, as in the K loop ``if k0 == 0: acc = matmul(..)
else: acc = matmul_acc(acc, ..)`` (the loop then carries an Acc tile, tensor_to_block.py).

An operand may also be a product already in Mat: ``cast(product, FP16 / BF16, mode="rint")``
is the converting move Acc -> Mat (tensor_to_block.py); a product larger than Acc read so is
computed in blocks of rows (or columns), each converted into its window of one Mat tile
(``block.insert``, the blocks acc_tiles.py's ``mat_placed`` chose: upstream's AutoTileMatmulL0
with the product placed in Mat). A Mat operand is moved whole into Left / Right, or copied there
a slice of K at a time (``block.extract``: TEXTRACT) when it does not fit at once.
What the hardware cannot do is an E400 at the matmul: an operand computed in the kernel (a Vec
tile cannot reach Mat on A2/A3). What ptoc does not lower yet is an E400 too: a product larger
than Acc read otherwise (returned, or read by a vector op; a product assembled into a tensor is
blocked before: acc_tiles.py), transposed operands (``a_trans`` / ``b_trans``), ranks other
than 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..ir.dtype import INDEX, DataType
from ..ir.expr import (
    Binary,
    BinaryOp,
    Call,
    ConstInt,
    Expr,
    IterArg,
    MakeTuple,
    Var,
    const_int,
)
from ..ir.shape import static_shape
from ..ir.stmt import AssignStmt, ForStmt, SeqStmts, Stmt, YieldStmt
from ..ir.types import MemorySpace, ScalarType, TensorType, TileType
from ..ops.registry import REGISTRY, OpDef, OpError, PipeType, Role, op_call
from .acc_tiles import MatPlacement
from .build import index_tuple
from .op_info import creator_op, the_first

if TYPE_CHECKING:
    from .tensor_to_block import _Converter

# A matmul operand: the tensor (or Mat tile) it is read from, the window's offsets, [rows, cols].
_Operand = tuple[Var, list[Expr], tuple[int, int]]
_ACC_BYTES = 4  # an Acc element is FP32 or INT32
_ROW_BYTES = 32  # a tile row is a whole number of 32-byte blocks


class MatmulLowering:
    def __init__(self, converter: _Converter, stmt: AssignStmt, call: Call, block: OpDef) -> None:
        self.conv = converter
        self.stmt = stmt
        self.call = call
        self.block = block
        self.span = stmt.span
        self.out: list[Stmt] = []
        self.in_mat: set[Var] = set()  # operands already in Mat (a converting move's result)
        # the op adding a product to an Acc tile: block.matmul's acc_form, or the op itself
        acc_form = REGISTRY.get(block.acc_form) if block.acc_form else None
        self.accumulate_op = acc_form or block

    def error(self, message: str) -> None:
        """An E400 at the matmul's statement (an operand variable's span is its definition)."""
        self.conv.ctx.error("E400", f"{self.call.op_name} in a kernel: {message}", self.span)

    def run(self) -> list[Stmt] | None:
        """The statements replacing the matmul; None (after an E400) when it stays."""
        inputs = self.inputs()
        if inputs is None:
            return None
        start, (a, a_off, (m, k)), (b, b_off, (_, n)) = inputs
        dtype = a.type.dtype if isinstance(a.type, (TensorType, TileType)) else None
        if (
            not isinstance(b.type, (TensorType, TileType))
            or b.type.dtype is not dtype
            or dtype is None
        ):
            self.error("both operands must have the same element type")
            return None
        size = max(dtype.bits // 8, 1)
        target = self.conv.ctx.target
        acc_capacity = target.capacity(MemorySpace.Acc)
        placed = self.conv.mat_placed.get(self.stmt.var)
        if acc_capacity is not None and m * n * _ACC_BYTES > acc_capacity and placed is None:
            self.error(
                f"the product [{m}, {n}] needs {m * n * _ACC_BYTES} bytes of Acc, more than "
                f"its {acc_capacity} (L0C); ptoc tiles a product over Acc only when it is "
                'assembled into a tensor or cast (mode="rint") into a second matmul\'s operand '
                "(PyPTO's AutoTileMatmulL0 places it elsewhere too): split the rows or columns "
                "with tensor.view"
            )
            return None
        try:
            if placed is not None:
                return self.into_mat(placed, (a, a_off, b, b_off), (m, k, n), dtype)
            result = self.in_acc((a, a_off, b, b_off), (m, k, n), size, start)
        except OpError as exc:
            self.error(str(exc))
            return None
        if result is None:
            return None
        self.conv.tiles[self.stmt.var] = result
        return self.out

    def in_acc(
        self,
        operands: tuple[Var, list[Expr], Var, list[Expr]],
        dims: tuple[int, int, int],
        size: int,
        start: Var | None = None,
    ) -> Var | None:
        """The product of the [m, k] window of ``a`` and the [k, n] window of ``b`` in Acc, over
        slices of K when it does not fit at once, added to ``start`` (``matmul_acc``'s Acc tile)
        when given (None after an E400)."""
        a, a_off, b, b_off = operands
        m, k, n = dims
        step = self.k_slice(m, k, n, size)
        if step is None:
            self.error(
                f"no slice of K = {k} fits Left, Right and Mat together for [{m}, K] x [K, {n}]"
            )
            return None
        first, stmts = self.product(a, a_off, b, b_off, (m, n, step), start, _zero())
        self.out.extend(stmts)
        if step < k:
            return self.accumulate(first, a, a_off, b, b_off, (m, n, step), k)
        return first

    def into_mat(
        self,
        placed: MatPlacement,
        operands: tuple[Var, list[Expr], Var, list[Expr]],
        dims: tuple[int, int, int],
        dtype: DataType,
    ) -> list[Stmt] | None:
        """A product over Acc whose rint cast a second matmul reads (acc_tiles.py): each block
        of rows (or columns) computed in Acc and converted into its window of one Mat tile
        (``block.insert``), which is the cast's value."""
        a, a_off, b, b_off = operands
        m, k, n = dims
        span, cast = self.span, placed.cast
        create = op_call(
            creator_op("block"),
            [index_tuple([m, n], span)],
            (("dtype", placed.dtype), ("target_memory", MemorySpace.Mat)),
            span,
        )
        scratch = self.assign(f"{cast.name}_mat", create, self.out)
        insert = insert_op()
        for i in range(dims[2 * placed.axis] // placed.block):
            start = i * placed.block
            if placed.axis == 0:
                windows = (a, [_plus(a_off[0], _index(start)), a_off[1]], b, b_off)
                sizes, at = (placed.block, k, n), [start, 0]
            else:
                windows = (a, a_off, b, [b_off[0], _plus(b_off[1], _index(start))])
                sizes, at = (m, k, placed.block), [0, start]
            tile = self.in_acc(windows, sizes, max(dtype.bits // 8, 1))
            if tile is None:
                return None
            into = op_call(insert, [scratch, tile, index_tuple(at, span)], (), span)
            scratch = self.assign(f"{cast.name}_mat", into, self.out)
        self.conv.tiles[cast] = scratch
        self.conv.folded.add(cast)
        return self.out

    # --- operands ------------------------------------------------------------------------

    def inputs(self) -> tuple[Var | None, _Operand, _Operand] | None:
        """The Acc tile a ``matmul_acc`` adds to (None for ``matmul``) and both operands; None
        after an E400 for what is not lowered."""
        call = self.call
        for attr in ("a_trans", "b_trans", "c_matrix_nz"):
            if call.kwarg(attr) is True:
                self.error(
                    f"{attr}=True is not lowered to block ops yet (operands are loaded in "
                    "their stored layout); pass the operand already transposed"
                )
                return None
        bound = matmul_args(call)
        if "init_cond" in bound:
            self.error(
                "init_cond is not lowered to block ops yet: branch on the condition "
                "(matmul when it holds, matmul_acc otherwise)"
            )
            return None
        acc_arg = bound.get("acc")
        start = None if acc_arg is None else self.accumulator(acc_arg)
        if acc_arg is not None and start is None:
            return None
        lhs, rhs = self.operand(bound["lhs"]), self.operand(bound["rhs"])
        if lhs is None or rhs is None:
            return None
        return start, lhs, rhs

    def accumulator(self, arg: Expr) -> Var | None:
        """The Acc tile ``matmul_acc`` adds to: a product of this kernel (carried or not)."""
        tile = self.conv.value(arg)
        if isinstance(tile, Var) and _in_acc(tile):
            return tile
        self.error(
            f"the accumulator '{getattr(arg, 'name', arg)}' of matmul_acc must be a product "
            "of this kernel (a tensor.matmul's result, carried through the K loop), which is "
            "in the cube unit's Acc buffer"
        )
        return None

    def operand(self, arg: Expr) -> _Operand | None:
        """The tensor a matmul operand is read from, the window's offsets and its [rows, cols]."""
        conv = self.conv
        base: Var | None = None
        offsets: list[Expr] = []
        dims: list[int] | None = None
        if isinstance(arg, Var) and arg in conv.views:
            base, offset, shape = conv.views[arg]
            moved = conv.value(offset)
            assert isinstance(moved, MakeTuple)
            offsets, dims = list(moved.elements), static_shape(shape.elements)
        elif isinstance(arg, Var) and arg in conv.params and isinstance(arg.type, TensorType):
            base, dims = arg, static_shape(arg.type.shape)
            offsets = [const_int(0, INDEX, self.span) for _ in arg.type.shape]
        tile = conv.tiles.get(arg) if isinstance(arg, Var) else None
        if isinstance(tile, Var) and isinstance(tile.type, TileType):
            if tile.type.memory_space is MemorySpace.Mat and tile.type.rank == 2:
                self.in_mat.add(tile)
                rows, cols = static_shape(tile.type.shape) or (0, 0)
                return tile, [_zero(), _zero()], (rows, cols)
        if base is None:
            self.error(
                f"operand '{getattr(arg, 'name', arg)}' is computed in the kernel; the cube "
                "unit reads its operands from memory (A2/A3 moves no Vec tile into Mat): pass "
                "it as a parameter (or a tensor.view of one), computed by another kernel"
            )
            return None
        if dims is None or len(dims) != 2 or not isinstance(base.type, TensorType):
            self.error(
                f"operand '{getattr(arg, 'name', arg)}' must be a 2-D tensor of constant shape"
            )
            return None
        if base.type.rank != 2:
            self.error(f"operand '{base.name}' must be a window of a 2-D tensor")
            return None
        return base, offsets, (dims[0], dims[1])

    def k_slice(self, m: int, k: int, n: int, size: int) -> int | None:
        """The largest slice of K whose tiles fit Left, Right and Mat together. A product
        reading a Mat tile computed in the kernel comes after the product that computed it,
        whose Left / Right tiles keep their buffers unless the new ones fit in them
        (MemoryReuse gives a tile an earlier buffer only when that one is as large): its
        slices take half of Left and Right."""
        target = self.conv.ctx.target
        share = 2 if self.in_mat else 1
        left = target.capacity(MemorySpace.Left)
        right = target.capacity(MemorySpace.Right)
        mat = target.capacity(MemorySpace.Mat)
        # Every slice up to the largest the capacities allow fits: search from there (counting
        # down from K itself took hours for K = 2**40, a typo analysed as it is typed).
        largest = k
        for capacity, per_step in (
            (left, m * size * share),
            (right, n * size * share),
            (mat, (m + n) * size),
        ):
            if capacity is not None and per_step > 0:
                largest = min(largest, capacity // per_step)
        for step in range(largest, 0, -1):
            if k % step == 0 and (step == k or (step * size) % _ROW_BYTES == 0):
                return step
        return None

    # --- statements ----------------------------------------------------------------------

    def assign(self, name: str, call: Call, into: list[Stmt]) -> Var:
        var = Var(call.type, name=self.conv.names.fresh(name), span=self.span)
        into.append(AssignStmt(var, call, span=self.span))
        return var

    def cube_tile(
        self, tensor: Var, offsets: list[Expr], shape: tuple[int, int], space: MemorySpace
    ) -> tuple[Var, list[Stmt]]:
        """Load a window into Mat and move it to Left or Right."""
        stmts: list[Stmt] = []
        side = "left" if space is MemorySpace.Left else "right"
        if tensor in self.in_mat:
            return self.assign(
                f"{tensor.name}_{side}", self.from_mat(tensor, offsets, shape, space), stmts
            ), stmts
        load = op_call(
            REGISTRY.the(Role.LOAD, "block"),
            [tensor, index_tuple(offsets, self.span), index_tuple(shape, self.span)],
            (("target_memory", MemorySpace.Mat),),
            self.span,
        )
        mat = self.assign(f"{tensor.name}_mat", load, stmts)
        move = op_call(move_op(), [mat], (("target_memory", space),), self.span)
        return self.assign(f"{tensor.name}_{side}", move, stmts), stmts

    def from_mat(
        self, tile: Var, offsets: list[Expr], shape: tuple[int, int], space: MemorySpace
    ) -> Call:
        """A Mat tile moved whole into Left / Right, or a window of it copied there (a slice
        of K: TEXTRACT)."""
        assert isinstance(tile.type, TileType)
        whole = static_shape(tile.type.shape)
        if whole is not None and tuple(whole) == shape:
            return op_call(move_op(), [tile], (("target_memory", space),), self.span)
        return op_call(
            extract_op(),
            [tile, offsets[0], offsets[1], index_tuple(shape, self.span)],
            (("target_memory", space),),
            self.span,
        )

    def product(
        self,
        a: Var,
        a_off: list[Expr],
        b: Var,
        b_off: list[Expr],
        sizes: tuple[int, int, int],
        acc: Var | None,
        k_offset: Expr,
    ) -> tuple[Var, list[Stmt]]:
        """One K slice: load both operands and multiply (adding to ``acc`` when given)."""
        m, n, step = sizes
        into: list[Stmt] = []
        a_window = [a_off[0], _plus(a_off[1], k_offset)]
        b_window = [_plus(b_off[0], k_offset), b_off[1]]
        left, stmts = self.cube_tile(a, a_window, (m, step), MemorySpace.Left)
        into.extend(stmts)
        right, stmts = self.cube_tile(b, b_window, (step, n), MemorySpace.Right)
        into.extend(stmts)
        name = self.stmt.var.name
        if acc is None:
            product = op_call(self.block, [left, right], (), self.span)
            return self.assign(f"{name}_tile", product, into), into
        total = op_call(self.accumulate_op, [acc, left, right], (), self.span)
        return self.assign(f"{name}_acc", total, into), into

    def accumulate(
        self,
        first: Var,
        a: Var,
        a_off: list[Expr],
        b: Var,
        b_off: list[Expr],
        sizes: tuple[int, int, int],
        k: int,
    ) -> Var:
        """``for kk in range(step, K, step)`` adding each slice's product to the carried Acc."""
        step = sizes[2]
        span = self.span
        names = self.conv.names
        kk = Var(ScalarType(INDEX), name=names.fresh("kk"), span=span)
        carried = IterArg(
            first.type, name=names.fresh(f"{first.name}_sum"), span=span, init_value=first
        )
        total, stmts = self.product(a, a_off, b, b_off, sizes, carried, kk)
        body: list[Stmt] = [*stmts, YieldStmt((total,), span=span)]
        result = Var(first.type, name=names.fresh(f"{self.stmt.var.name}_tile"), span=span)
        loop = ForStmt(
            kk,
            const_int(step, INDEX, span),
            const_int(k, INDEX, span),
            const_int(step, INDEX, span),
            SeqStmts(tuple(body), span=span),
            iter_args=(carried,),
            return_vars=(result,),
            span=span,
        )
        self.out.append(loop)
        return result


def insert_op() -> OpDef:
    """The converting insert Acc -> Mat (the FIX pipe's)."""
    return the_first(Role.MOVE, "block", lambda op: op.pipe is PipeType.FIX)


def extract_op() -> OpDef:
    """The copy of a window of a Mat tile into Left / Right (TEXTRACT)."""
    return the_first(
        Role.MOVE,
        "block",
        lambda op: op.param("index_row") is not None and op.pipe is PipeType.MTE1,
    )


def _index(value: int) -> ConstInt:
    return const_int(value, INDEX)


def matmul_args(call: Call) -> dict[str, Expr]:
    """A tensor matmul's value arguments by parameter name: ``lhs``, ``rhs``, and for
    ``matmul_acc`` the accumulator ``acc`` (and ``init_cond`` when given)."""
    op = REGISTRY.get(call.op_name)
    bound = op.bind(call.args) if op is not None else {}
    if "lhs" not in bound or "rhs" not in bound:
        return {"lhs": call.args[0], "rhs": call.args[1]}
    return bound


def _in_acc(value: Expr) -> bool:
    return isinstance(value.type, TileType) and value.type.memory_space is MemorySpace.Acc


def move_op() -> OpDef:
    """The move between on-chip buffers (Mat -> Left / Right), not the Vec copy."""
    return the_first(Role.MOVE, "block", lambda op: op.result_space_attr is not None)


def _zero() -> ConstInt:
    return const_int(0, INDEX)


def _plus(offset: Expr, delta: Expr) -> Expr:
    if isinstance(delta, ConstInt) and delta.value == 0:
        return offset
    if isinstance(offset, ConstInt) and offset.value == 0:
        return delta
    return Binary(offset.type, op=BinaryOp.Add, lhs=offset, rhs=delta, span=delta.span)
