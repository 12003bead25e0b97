"""AddReductionScratch: give each instruction the scratch tiles it needs, as IR tiles, so the
later passes give them buffers, reuse and synchronisation like any other tile.

* A reduction along the last axis (keepdim): pto-isa's TROWSUM / TROWMAX / TROWMIN and PTO's
  trowsum ... take a scratch tile. ``r = block.sum(t, axis=-1, keepdim=True)`` becomes
  ``tmp = block.create_tile(t.shape, t.dtype); r = block.row_sum(t, tmp)``: the registration
  names the scratch form (``OpDef.scratch_form``). A reduction without keepdim keeps its form
  (its rank-reduced result is not the scratch form's [rows, 1]).
* A transpose of a 2-D tile: TTRANS takes a scratch tile, ``block.transpose_scratch(t, tmp)``;
  so does a transposing move within Vec (``OpDef.transpose_form``): ``block.move(t, Vec,
  transpose=True)`` is ``block.transpose(t, 0, 1)``, its result row-major (A2/A3's TMOV does
  not transpose, and a ColMajor Vec tile is no operand of the vector instructions).
* A comparison: TCMP / TCMPS write a bit mask, not values (``OpDef.mask_form``).
  ``c = block.cmp(a, b, cmp_type=k)`` becomes ``c_mask = block.cmp_mask(a, b, cmp_type=k);
  c_ones = block.full(c.shape, dtype=c.dtype, value=1); c_tmp = block.create_tile(..);
  c = block.select_scalar(c_mask, c_ones, c_tmp, 0)``, so ``c`` keeps its dtype and holds 1
  where the comparison holds, else 0 (``block.cmps`` likewise, through ``block.cmps_mask``).
* An op of three tiles A2/A3 has no instruction for (``OpDef.pair_form``): ``r =
  block.addc(a, b, c)`` becomes ``r_pair = block.add(a, b); r = block.add(r_pair, c)``.
* An operand given where its instruction does not read it (``Param.staged_from``): a bias row
  in Mat is moved into the bias table TMATMUL_BIAS reads (``block.move(.., Bias)``).
* Tile operands of another dtype than an element-wise result (``OpDef.promoted``): converted
  into the result's dtype first (``passes/promoted_operands.py``): ``c = block.add(a_fp16,
  b_fp32)`` becomes ``c_lhs = block.cast(a_fp16, target_type=FP32, mode="rint"); c =
  block.add(c_lhs, b_fp32)``.
* A selection by a tile of values: TSEL reads a bit mask. ``r = block.sel(m, a, b)`` becomes
  ``r_zeros = block.full(m.shape, dtype=m.dtype, value=0); r_mask = block.cmp_mask(m, r_zeros,
  cmp_type=1); r_tmp = block.create_tile(..); r = block.select_tiles(r_mask, a, b, r_tmp)``.

Operands the mask instructions do not take (other dtypes, broadcasting, dynamic shapes) keep
the call, which code generation then reports.
"""

from __future__ import annotations

from ..ir.dtype import DataType
from ..ir.expr import AttrValue, Call, ConstFloat, Expr, Op, Var, const_int, make_tuple
from ..ir.function import Function
from ..ir.shape import static_shape
from ..ir.span import Span
from ..ir.stmt import AssignStmt, SeqStmts, Stmt
from ..ir.types import MemorySpace, ScalarType, TileType, Type
from ..ir.visitor import with_fields
from ..ops import REGISTRY, OpDef, OpError, ParamKind, Role
from .base import FunctionPass, PassContext
from .function_names import FunctionNames
from .irutil import NameAllocator, flatten_seq, retype_function
from .op_info import creator_op, op_def, the_first, tile_space
from .promoted_operands import with_promoted_operands
from .rewriter import map_bodies

# Bytes of a row-major tile row's alignment, and of TSELS' scratch (one scalar on A2/A3:
# pto-isa include/pto/npu/a2a3/TSels.hpp writes the scalar into it).
_ROW_BYTES = 32


class _AddScratch:
    """Rewrites the assignments that need scratch; only statements change (no variable is
    renamed), so the others, and every expression, are kept as they are."""

    def __init__(self, names: NameAllocator) -> None:
        self.names = names
        # Variables whose type the rewrite changed (a transposing move's result is row-major).
        self.new_types: dict[Var, Type] = {}

    def rewrite(self, stmt: Stmt) -> Stmt:
        if isinstance(stmt, SeqStmts):
            stmts = tuple(self.rewrite(s) for s in stmt.stmts)
            if all(a is b for a, b in zip(stmts, stmt.stmts, strict=True)):
                return stmt
            return with_fields(stmt, stmts=tuple(flatten_seq(stmts)))
        if isinstance(stmt, AssignStmt):
            return self.assign(stmt)
        return map_bodies(stmt, self.rewrite)

    def assign(self, stmt: AssignStmt) -> Stmt:
        value = stmt.value
        op = op_def(value) if isinstance(value, Call) else None
        if op is None or not isinstance(value, Call):
            return stmt
        promoted = with_promoted_operands(stmt, value, op, self.names)
        if promoted is None:
            return self.instruction(stmt, value, op)
        conversions, stmt = promoted
        assert isinstance(stmt.value, Call)
        rewritten = self.instruction(stmt, stmt.value, op)
        return SeqStmts(tuple(flatten_seq((*conversions, rewritten))), span=stmt.span)

    def instruction(self, stmt: AssignStmt, value: Call, op: OpDef) -> Stmt:
        """The assignment of a call whose operands the instruction takes as they are."""
        staged = self.staged(stmt, value, op)
        if staged is not None:
            return staged
        if op.mask_form is not None:
            rewritten = self.through_mask(stmt, value, op)
            if rewritten is not None:
                return rewritten
        paired = self.as_pair(stmt, value, op)
        if paired is not None:
            return paired
        transposed = self.transposing_move(value, op)
        if transposed is not None:
            self.new_types[stmt.var] = transposed.type
            stmt, value = with_fields(stmt, value=transposed), transposed
        found = self.scratch_form(value)
        if found is None:
            return stmt
        scratch_op, source, shape = found
        assert isinstance(source.type, TileType)
        span = value.span
        create, scratch = self.create(f"{stmt.var.name}_tmp", shape, source.type.dtype, span)
        compute = Call(value.type, callee=Op(scratch_op), args=(source, scratch), span=span)
        return SeqStmts(
            (AssignStmt(scratch, create, span=stmt.span), with_fields(stmt, value=compute)),
            span=stmt.span,
        )

    def create(
        self, name: str, shape: tuple[int, ...], dtype: DataType, span: Span
    ) -> tuple[Call, Var]:
        """A ``block.create_tile`` call, every attribute spelled out as the front end writes
        it, and the variable it defines."""
        creator = creator_op("block")
        dims = make_tuple(tuple(const_int(d, span=span) for d in shape), span)
        kwargs = tuple(
            (p.name, dtype if p.name == "dtype" else p.default)
            for p in creator.params
            if p.kind is ParamKind.ATTR
        )
        tile_type = creator.deduce({"shape": dims}, dict(kwargs))
        call = Call(tile_type, callee=Op(creator.name), args=(dims,), kwargs=kwargs, span=span)
        return call, Var(tile_type, name=self.names.fresh(name), span=span)

    def scratch_form(self, call: Call) -> tuple[str, Var, tuple[int, ...]] | None:
        """The scratch form of a call of a tile variable with a static shape, the tile, and the
        scratch tile's shape: a last-axis, keepdim reduction's is its source's; TTRANS's is
        the result's, rows padded to a 32-byte block and columns to the 16 (8-bit: 32) rows
        it transposes at a time (pto-isa include/pto/npu/a2a3/TTrans.hpp, TTransOperation)."""
        op = op_def(call)
        if op is None or op.scratch_form is None or not call.args:
            return None
        if REGISTRY.get(op.scratch_form) is None:
            return None
        source = call.args[0]
        if not isinstance(source, Var) or not isinstance(source.type, TileType):
            return None
        dims = static_shape(source.type.shape)
        if dims is None or len(dims) < 2:
            return None
        if op.role is Role.VIEW:
            if len(dims) != 2:
                return None
            rows, cols = dims
            size = max(source.type.dtype.bits // 8, 1)
            block, stride = _ROW_BYTES // size, 32 if size == 1 else 16
            return op.scratch_form, source, (_round_up(cols, block), _round_up(rows, stride))
        axis = call.kwarg("axis")
        if not isinstance(axis, int) or isinstance(axis, bool):
            return None
        if axis % len(dims) != len(dims) - 1 or call.kwarg("keepdim") is not True:
            return None
        return op.scratch_form, source, tuple(dims)

    def as_pair(self, stmt: AssignStmt, call: Call, op: OpDef) -> Stmt | None:
        """``r = block.addc(a, b, c)`` as its ``pair_form``: ``r_pair = block.add(a, b); r =
        block.add(r_pair, c)``; None for other ops or when a rule refuses the operands."""
        forms = [REGISTRY.get(n) for n in op.pair_form] if op.pair_form is not None else []
        if len(forms) != 2 or None in forms or len(call.args) != 3:
            return None
        first, second = forms
        assert first is not None and second is not None
        out: list[Stmt] = []
        try:
            pair = self.define(out, f"{stmt.var.name}_pair", first, call.args[:2], (), stmt)
            result = second.deduce(second.bind((pair, call.args[2])), {})
        except OpError:
            return None
        value = Call(result, callee=Op(second.name), args=(pair, call.args[2]), span=call.span)
        out.append(with_fields(stmt, value=value))
        return SeqStmts(tuple(out), span=stmt.span)

    def transposing_move(self, call: Call, op: OpDef) -> Call | None:
        """``block.move(t, Vec, transpose=True)`` of a Vec tile as its ``transpose_form``
        (``block.transpose(t, 0, 1)``, a row-major result); None for other moves."""
        form = REGISTRY.get(op.transpose_form) if op.transpose_form is not None else None
        source = call.args[0] if call.args else None
        if form is None or call.kwarg("transpose") is not True or source is None:
            return None
        spaces = (tile_space(call), getattr(source.type, "memory_space", None))
        if spaces != (MemorySpace.Vec, MemorySpace.Vec):
            return None
        span = call.span
        args = (source, const_int(0, span=span), const_int(1, span=span))
        try:
            result = form.deduce(form.bind(args), {})
        except OpError:
            return None
        return Call(result, callee=Op(form.name), args=args, span=span)

    def through_mask(self, stmt: AssignStmt, call: Call, op: OpDef) -> Stmt | None:
        """The comparison computed through its bit mask (module docstring); None when the
        mask instruction does not take these operands."""
        form = op.mask_form
        result = call.type
        assert form is not None
        compare, fill, select = (REGISTRY.get(n) for n in (form.compare, form.fill, form.select))
        if compare is None or fill is None or select is None or not isinstance(result, TileType):
            return None
        dims = static_shape(result.shape)
        if dims is None or len(dims) == 2 and dims[1] == 1 and dims[0] > 1:
            # A one-column tile is column-major; A2/A3's TSEL / TSELS take row-major tiles
            # only (pto-isa include/pto/npu/a2a3/TSels.hpp, TSel.hpp static_asserts).
            return None
        name, dtype = stmt.var.name, result.dtype
        out: list[Stmt] = []
        try:
            if form.mask_of is None:  # the op's own comparison, then 1 where a bit is set
                if not _compared_in(call.args, dtype):
                    return None
                mask = self.define(out, f"{name}_mask", compare, call.args, call.kwargs, stmt)
                ones = self.filled(out, f"{name}_ones", fill, dims, dtype, 1, stmt)
                operands: tuple[Expr, ...] = (ones, _number(0, dtype, call.span))
            else:  # a tile of values: its nonzero elements, then pick between the tiles
                bound = op.bind(call.args)
                values = bound[form.mask_of]
                tiles = tuple(a for n, a in bound.items() if n != form.mask_of)
                if not _selectable(values, tiles, result, dims):
                    return None
                assert isinstance(values.type, TileType)
                zeros = self.filled(out, f"{name}_zeros", fill, dims, values.type.dtype, 0, stmt)
                mask = self.define(
                    out, f"{name}_mask", compare, (values, zeros), form.nonzero, stmt
                )
                operands = tiles
        except OpError:
            return None
        create, tmp = self.create(
            f"{name}_tmp", (1, _ROW_BYTES * 8 // dtype.bits), dtype, call.span
        )
        out.append(AssignStmt(tmp, create, span=stmt.span))
        if form.mask_of is None:
            args: tuple[Expr, ...] = (mask, operands[0], tmp, operands[1])
        else:
            args = (mask, *operands, tmp)
        pick = Call(result, callee=Op(select.name), args=args, span=call.span)
        out.append(with_fields(stmt, value=pick))
        return SeqStmts(tuple(out), span=stmt.span)

    def staged(self, stmt: AssignStmt, call: Call, op: OpDef) -> Stmt | None:
        """An operand given in a space its instruction does not read it from
        (``Param.staged_from``), moved first into the one it does: ``r =
        block.matmul_bias(a, b, bias_mat)`` becomes ``r_bias = block.move(bias_mat,
        target_memory=Bias); r = block.matmul_bias(a, b, r_bias)``."""
        out: list[Stmt] = []
        args = list(call.args)
        move = _move_between_spaces()
        for index, (param, arg) in enumerate(zip(op.expr_params, call.args, strict=False)):
            space = arg.type.memory_space if isinstance(arg.type, TileType) else None
            if space is None or space not in param.staged_from:
                continue
            kwargs: tuple[tuple[str, AttrValue], ...] = (("target_memory", param.spaces[0]),)
            name = f"{stmt.var.name}_{param.name}"
            args[index] = self.define(out, name, move, (arg,), kwargs, stmt)
        if not out:
            return None
        return SeqStmts((*out, with_fields(stmt, value=with_fields(call, args=tuple(args)))))

    def define(
        self,
        out: list[Stmt],
        name: str,
        op: OpDef,
        args: tuple[Expr, ...],
        kwargs: tuple[tuple[str, AttrValue], ...],
        stmt: AssignStmt,
    ) -> Var:
        """``name = op(args, kwargs)`` appended to ``out`` (OpError when its rule refuses)."""
        span = stmt.value.span
        value_type = op.deduce(op.bind(args), dict(kwargs))
        var = Var(value_type, name=self.names.fresh(name), span=span)
        call = Call(value_type, callee=Op(op.name), args=args, kwargs=kwargs, span=span)
        out.append(AssignStmt(var, call, span=stmt.span))
        return var

    def filled(
        self,
        out: list[Stmt],
        name: str,
        fill: OpDef,
        dims: list[int],
        dtype: DataType,
        value: int,
        stmt: AssignStmt,
    ) -> Var:
        """A tile of ``dims`` with every element ``value``."""
        span = stmt.value.span
        shape = make_tuple(tuple(const_int(d, span=span) for d in dims), span)
        args = (shape, _number(value, dtype, span))
        return self.define(out, name, fill, args, (("dtype", dtype),), stmt)


def _move_between_spaces() -> OpDef:
    """The registry's move into a named memory space (block.move)."""
    return the_first(Role.MOVE, "block", lambda op: op.param("target_memory") is not None)


def _selectable(values: Expr, tiles: tuple[Expr, ...], result: TileType, dims: list[int]) -> bool:
    """Whether TSEL can pick between ``tiles`` by the nonzero elements of ``values``: all of
    the result's 2-D shape, its columns a multiple of 8 (the CPU simulator's TSEL reads the
    mask as one bit stream, A2/A3's row by row: they agree only then), both tiles of the
    result's dtype."""
    if len(dims) != 2 or dims[1] % 8 or len(tiles) != 2:
        return False
    for tile in (values, *tiles):
        if not isinstance(tile.type, TileType) or static_shape(tile.type.shape) != dims:
            return False
    return all(isinstance(t.type, TileType) and t.type.dtype is result.dtype for t in tiles)


def _compared_in(args: tuple[Expr, ...], dtype: DataType) -> bool:
    """Whether the mask instruction compares in the result's dtype: its tile operands are of
    it (TCMPS converts the scalar to the tile's type; the IR compares in the promoted one)."""
    return all(a.type.dtype is dtype for a in args if isinstance(a.type, TileType))


def _number(value: int, dtype: DataType, span: Span) -> Expr:
    """A literal of ``dtype``."""
    if dtype.is_float:
        return ConstFloat(ScalarType(dtype), value=float(value), span=span)
    return const_int(value, dtype, span)


def _round_up(value: int, multiple: int) -> int:
    return -(-value // multiple) * multiple


class AddReductionScratch(FunctionPass):
    """The pass (see the module's docstring)."""

    name = "AddReductionScratch"
    description = (
        "Give each instruction the scratch tiles it needs: last-axis reductions (keepdim) "
        "and transposes a scratch tile, comparisons their bit mask and a select of 1 / 0; "
        "tile operands of another dtype than the element-wise result are converted first."
    )

    def run_function(self, fn: Function, ctx: PassContext) -> Function:
        rewriter = _AddScratch(FunctionNames(fn))
        body = rewriter.rewrite(fn.body)
        if body is fn.body:
            return fn
        return retype_function(with_fields(fn, body=body), rewriter.new_types)
