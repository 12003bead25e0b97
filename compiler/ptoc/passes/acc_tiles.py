"""A kernel's matmul whose product is larger than Acc, stored where it goes in [m, n] blocks
(ConvertTensorToBlockOps, before it converts the kernel): upstream's AutoTileMatmulL0 with
the product placed in DDR.

``c = tensor.matmul(a, b)`` ([M, K] x [K, N], ``a`` and ``b`` parameters) whose only use is
``t2 = tensor.assemble(t, c, [r, s])`` becomes, at the assemble, one matmul per block of rows
(or, when one row block of 16 does not fit, of columns) and an assemble of each block into its
window of ``t``::

    c_0 = tensor.matmul(tensor.view(a, [m, K], [0, 0]), b)
    t_0 = tensor.assemble(t, c_0, [r, s])
    c_1 = tensor.matmul(tensor.view(a, [m, K], [m, 0]), b)
    t2 = tensor.assemble(t_0, c_1, [r + m, s])

``m`` (or ``n``) is the largest divisor of M (N), in whole fractals of 16, of which two blocks
fit Acc (a K loop's first product and the sum it carries are two tiles).
Each block is then an ordinary matmul (tensor_matmul.py: K slices, the block in Acc) and each
assemble a store from Acc.

The Mat placement (``mat_placed``): a product over Acc whose only use is
``cb = tensor.cast(c, FP16 / BF16, mode="rint")`` read only as matmul operands is computed in
the same blocks where ConvertTensorToBlockOps lowers the matmul (tensor_matmul.py), each
block converted into its window of one Mat tile (``block.insert``: TINSERT Acc -> Mat, the FIX
pipe rounding half to even as the cast says), which the second matmul reads as ``cb``. A
product read otherwise (by a vector op) keeps the E400 of its size.
"""

from __future__ import annotations

from ..ir.dtype import INDEX, DataType
from ..ir.expr import Binary, BinaryOp, Call, ConstInt, Expr, MakeTuple, Var, const_int
from ..ir.function import Function
from ..ir.shape import static_shape
from ..ir.stmt import AssignStmt, SeqStmts, Stmt
from ..ir.types import TensorType
from ..ir.visitor import with_fields
from ..ir.walk import stmt_reads
from ..ops.registry import REGISTRY, OpError, Role, op_call
from ..records import record
from .build import index_tuple
from .op_info import is_tensor_op, op_def

_ACC_BYTES = 4  # an Acc element is FP32 or INT32
_FRACTAL = 16  # rows (and columns) of an Acc fractal
# Acc tiles of a block live at once: a K loop's first product and the sum it carries.
_LIVE = 2
# The most blocks a product is split into (each is unrolled into its own statements): a
# product of 2**40 rows (a typo the editor analyses as it is typed) is an E400 over Acc
# instead of billions of statements.
MAX_BLOCKS = 256


def split_products(fn: Function, acc_capacity: int | None) -> Function:
    """``fn`` with each product over ``acc_capacity`` bytes that is only assembled into a
    tensor computed and assembled in blocks (the function itself when there is none)."""
    if acc_capacity is None or not isinstance(fn.body, SeqStmts):
        return fn
    stmts = list(fn.body.stmts)
    reads: dict[Var, int] = {}
    for var in stmt_reads(fn.body):  # (every statement, nested ones included)
        reads[var] = reads.get(var, 0) + 1
    params = set(fn.params)
    changed = False
    for index, stmt in enumerate(stmts):
        if not isinstance(stmt, AssignStmt) or reads.get(stmt.var, 0) != 1:
            continue
        plan = _plan(stmt, params, acc_capacity)
        found = None if plan is None else _assemble_of(stmts, index, stmt.var)
        if plan is None or found is None:
            continue
        assemble = stmts[found]
        assert isinstance(assemble, AssignStmt)
        try:
            blocks = _blocks(stmt, assemble, plan)
        except OpError:
            continue
        stmts[found] = SeqStmts(tuple(blocks), span=assemble.span)
        stmts[index] = SeqStmts((), span=stmt.span)
        changed = True
    if not changed:
        return fn
    return with_fields(fn, body=SeqStmts(tuple(stmts), span=fn.body.span))


def _plan(stmt: AssignStmt, params: set[Var], capacity: int) -> tuple[int, int] | None:
    """(axis, block) of a matmul of two parameters whose product is over Acc: rows (axis 0)
    or columns (axis 1) in blocks of ``block``; None for any other statement."""
    if not is_tensor_op(stmt.value, Role.MATMUL):
        return None
    call = stmt.value
    assert isinstance(call, Call)
    if any(call.kwarg(attr) is True for attr in ("a_trans", "b_trans", "c_matrix_nz")):
        return None
    a, b = call.args[0], call.args[1]
    if not (a in params and b in params and isinstance(stmt.var.type, TensorType)):
        return None
    return _blocking(stmt.var.type, capacity)


def _blocking(product: TensorType, capacity: int) -> tuple[int, int] | None:
    """(axis, block) of a 2-D product over Acc: rows (axis 0) or columns (axis 1) in blocks
    of ``block``, the largest divisor in whole fractals of which two fit Acc; None when the
    product fits Acc (or no block does)."""
    shape = static_shape(product.shape)
    if shape is None or len(shape) != 2 or shape[0] * shape[1] * _ACC_BYTES <= capacity:
        return None
    for axis in (0, 1):
        whole, other = shape[axis], shape[1 - axis]
        # The blocks are whole - 16, whole - 32, ...; two fit Acc from the first at most
        # ``fitting`` on (counting down from a whole of 2**40 never ended).
        fitting = capacity // max(other * _ACC_BYTES * _LIVE, 1)
        skipped = max(1, -(-(whole - fitting) // _FRACTAL))
        for block in range(whole - skipped * _FRACTAL, 0, -_FRACTAL):
            if whole % block == 0:
                if whole // block <= MAX_BLOCKS:
                    return axis, block
                break  # smaller blocks only make more of them: try the other axis
    return None


# --- the Mat placement ---------------------------------------------------------------------


@record(frozen=True, slots=True)
class MatPlacement:
    """A product over Acc computed in blocks into one Mat tile: the cast that reads it (the
    Mat tile's value), the tile's element type, and the blocks (rows: axis 0, or columns)."""

    cast: Var
    dtype: DataType
    axis: int
    block: int


def is_rint(mode: object) -> bool:
    """The cast mode FIXPIPE rounds with (half to even): ``"rint"`` or its index 1."""
    return mode == 1 or (isinstance(mode, str) and mode.lower() == "rint")


def mat_placed(fn: Function, acc_capacity: int | None) -> dict[Var, MatPlacement]:
    """The products of ``fn``'s body over ``acc_capacity`` bytes whose only use is a cast
    to FP16 / BF16 with ``mode="rint"`` that only matmuls read (as operands), by product."""
    if acc_capacity is None or not isinstance(fn.body, SeqStmts):
        return {}
    reads: dict[Var, int] = {}
    for var in stmt_reads(fn.body):
        reads[var] = reads.get(var, 0) + 1
    operand_reads: dict[Var, int] = {}
    products: dict[Var, AssignStmt] = {}
    casts: list[AssignStmt] = []
    for stmt in fn.body.stmts:
        if not isinstance(stmt, AssignStmt):
            continue
        if is_tensor_op(stmt.value, Role.MATMUL):
            products[stmt.var] = stmt
            call = stmt.value
            assert isinstance(call, Call)
            for arg in call.args[:2]:
                if isinstance(arg, Var):
                    operand_reads[arg] = operand_reads.get(arg, 0) + 1
        elif is_tensor_op(stmt.value, Role.CAST):
            casts.append(stmt)
    found: dict[Var, MatPlacement] = {}
    for cast in casts:
        call = cast.value
        assert isinstance(call, Call)
        source = call.args[0] if call.args else None
        dtype = call.kwarg("target_type")
        if not (isinstance(source, Var) and source in products and reads.get(source) == 1):
            continue
        if dtype not in (DataType.FP16, DataType.BF16) or not is_rint(call.kwarg("mode")):
            continue
        operand = operand_reads.get(cast.var, 0)
        if operand == 0 or reads.get(cast.var, 0) != operand:
            continue
        matmul = products[source].value
        assert isinstance(matmul, Call) and isinstance(dtype, DataType)
        transposed = any(matmul.kwarg(a) is True for a in ("a_trans", "b_trans", "c_matrix_nz"))
        plan = None if transposed else _blocking_of(source, acc_capacity)
        if plan is not None:
            found[source] = MatPlacement(cast.var, dtype, *plan)
    return found


def _blocking_of(product: Var, capacity: int) -> tuple[int, int] | None:
    """The blocks of an FP32 product (what FIXPIPE converts to FP16 / BF16)."""
    t = product.type
    if not isinstance(t, TensorType) or t.dtype is not DataType.FP32:
        return None
    return _blocking(t, capacity)


def _assemble_of(stmts: list[Stmt], index: int, product: Var) -> int | None:
    """The position of the statement after ``index`` that assembles ``product`` into a tensor
    at a window of static rank 2."""
    for position in range(index + 1, len(stmts)):
        stmt = stmts[position]
        if not isinstance(stmt, AssignStmt) or not is_tensor_op(stmt.value, Role.STORE):
            continue
        call = stmt.value
        assert isinstance(call, Call)
        offset = call.args[2] if len(call.args) > 2 else None
        if call.args[1] is product and isinstance(offset, MakeTuple) and len(offset.elements) == 2:
            return position
    return None


def _blocks(matmul: AssignStmt, assemble: AssignStmt, plan: tuple[int, int]) -> list[Stmt]:
    """The views, block products and assembles replacing ``matmul`` and ``assemble``."""
    axis, block = plan
    call, into = matmul.value, assemble.value
    assert isinstance(call, Call) and isinstance(into, Call)
    a, b, offset = call.args[0], call.args[1], into.args[2]
    operand = a if axis == 0 else b
    matmul_op, assemble_op = op_def(call), op_def(into)
    assert matmul_op is not None and assemble_op is not None
    view_op = REGISTRY.get(f"{matmul_op.namespace}.view")  # the window of a tensor
    assert view_op is not None
    assert isinstance(operand, Var) and isinstance(operand.type, TensorType)
    assert isinstance(offset, MakeTuple)
    dims = static_shape(operand.type.shape)
    assert dims is not None
    span, target = matmul.span, into.args[0]
    out: list[Stmt] = []
    count = dims[axis] // block
    for i in range(count):
        shape = [block, dims[1]] if axis == 0 else [dims[0], block]
        start = [i * block, 0] if axis == 0 else [0, i * block]
        window_of = [operand, index_tuple(shape, span), index_tuple(start, span)]
        view = op_call(view_op, window_of, (), span)
        window = Var(view.type, name=f"{operand.name}_{i}", span=span)
        args = (window, b) if axis == 0 else (a, window)
        product = op_call(matmul_op, [*args, *call.args[2:]], call.kwargs, span)
        part = Var(product.type, name=f"{matmul.var.name}_{i}", span=span)
        at = list(offset.elements)
        at[axis] = _plus(at[axis], i * block)
        placed_args = [target, part, index_tuple(at, span), *into.args[3:]]
        placed = op_call(assemble_op, placed_args, into.kwargs, span)
        name = f"{assemble.var.name}_{i}"
        result = assemble.var if i == count - 1 else Var(placed.type, name=name, span=span)
        out += [
            AssignStmt(window, view, span=span),
            AssignStmt(part, product, span=span),
            AssignStmt(result, placed, span=span),
        ]
        target = result
    return out


def _plus(offset: Expr, delta: int) -> Expr:
    if delta == 0:
        return offset
    if isinstance(offset, ConstInt):
        return const_int(offset.value + delta, INDEX, offset.span)
    step = const_int(delta, INDEX, offset.span)
    return Binary(offset.type, op=BinaryOp.Add, lhs=offset, rhs=step, span=offset.span)
