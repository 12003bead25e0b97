"""CCECodegen: one IR function -> one pto-isa C++ kernel (seed 000/001, "Code Generation Flow").

Three phases: the prologue (signature, argument unpacking, GlobalTensor and Tile declarations),
the body (block ops -> instructions, control flow), the epilogue (the closing brace).

Expressions follow the seed's dual-mode pattern: visiting an op call in statement position
emits the instruction and returns ``""``; visiting a scalar expression returns its inline C++
text (``(i * 128)``). ``_target`` carries the assignment target into the call visitor.

Errors: a construct that cannot be lowered raises CodegenError; the statement guard turns it
into a diagnostic plus a ``// error: ...`` line at that spot and carries on with the next
statement.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager

from ...diagnostics import Diagnostic, DiagnosticBag
from ...ir.expr import (
    Binary,
    BinaryOp,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    IterArg,
    MakeTuple,
    TupleGetItem,
    Unary,
    Var,
)
from ...ir.function import Function
from ...ir.span import Span
from ...ir.stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    IfStmt,
    ReturnStmt,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
)
from ...ir.types import MemorySpace, ScalarType, TensorType, TileType, Type
from ...ir.visitor import IRVisitor, with_fields
from ...ops import REGISTRY, Access, OpDef, Param, Role
from ...passes.op_info import op_def, stored_into
from ..common import CodegenError, result_is_promoted
from . import expressions
from .context import CodeContext, sanitize_identifier
from .cpp_types import TypeConverter
from .declarations import Declarer, FollowOn, cpp_dtype, static_dims
from .emitter import CodeEmitter
from .ops import ISAMapper, round_mode
from .tile_collector import TileCollector

# List parameters that only restate the destination tile's shape.
SHAPE_PARAMS = frozenset({"shape", "shapes"})


def has_own_window(dims: list[int], window: list[int], offset_count: int) -> bool:
    """Whether a load/store window gets a GlobalTensor of its own (it is smaller than its
    tensor, of the same rank); otherwise the access moves the tensor's own GlobalTensor."""
    return window != dims and len(window) == len(dims) == offset_count


_CLOSED_ON_NON_NEGATIVE = (
    BinaryOp.Add,
    BinaryOp.Mul,
    BinaryOp.FloorDiv,
    BinaryOp.FloorMod,
    BinaryOp.Min,
    BinaryOp.Max,
)


def _positive_constant(expr: Expr) -> bool:
    return isinstance(expr, ConstInt) and expr.value > 0


def _check_rewritten(call: Call, op: OpDef, instruction: str) -> None:
    """Calls AddReductionScratch leaves alone because their instruction cannot take the
    operands: a comparison or selection (TCMP writes, TSEL reads, a bit mask; block.cmp and
    block.sel work on 1 / 0 values) or an instruction needing a scratch tile the call does
    not give (TTRANS, TROWSUM ...)."""
    if op.mask_form is not None:
        operands = ", ".join(arg.type.short() for arg in call.args)
        raise CodegenError(
            "E400",
            f"{op.name} of {operands} has no CCE form: {instruction} works on a bit mask, "
            f"which ptoc builds only as the registration says ({op.cce.note})",
            call.span,
        )
    written = set(op.written_params)
    given = {p.name for p, _ in zip(op.expr_params, call.args, strict=False)}
    rewritable = op.scratch_form is not None and op.cce.scratch
    if rewritable and instruction == op.cce.instruction and not written & given:
        raise CodegenError(
            "E400",
            f"{instruction} needs a scratch tile, which {op.name} gets only for a 2-D tile of "
            "static shape (along the last axis with keepdim=True, for a reduction)",
            call.span,
        )


def kernel_name(function_name: str) -> str:
    """``simple_add`` -> ``runSimpleAdd``."""
    parts = [p for p in function_name.split("_") if p]
    return sanitize_identifier("run" + "".join(p[:1].upper() + p[1:] for p in parts))


def _is_static_zero(offsets: tuple[Expr, ...]) -> bool:
    return all(isinstance(o, ConstInt) and o.value == 0 for o in offsets)


class CCECodegen(IRVisitor):
    """Generates one kernel. ``reseated`` lists the raw pointers that some load/store moves
    away from their base (found by a first run); ``None`` means this is that first run, and
    every access then gets its TASSIGN."""

    def __init__(self, reseated: frozenset[str] | None = None) -> None:
        self.emitter = CodeEmitter()
        self.context = CodeContext()
        self.types = TypeConverter()
        self.isa = ISAMapper()
        self.declarer = Declarer(self.context, self.types)
        self.bag = DiagnosticBag()
        self.reseated: set[str] = set()
        self._known_reseated = reseated
        self._target: str = ""  # current_target_var_: the C++ name an op call writes
        self._yields: list[Expr] | None = None  # the yield_buffer_ of the innermost construct
        self._fallback_span: Span | None = None
        self._param_count = 0
        self._target_type: Type | None = None  # the IR type of the variable _target names
        # Loop variables that count up from a non-negative start: // and % need no floor form.
        self._non_negative_vars: set[Var] = set()

    # -- entry -------------------------------------------------------------------------------

    def generate(self, func: Function) -> str:
        self._fallback_span = func.span
        self._param_count = len(func.params)
        self.emitter.emit_line(
            f"__aicore__ __attribute__((always_inline)) void {kernel_name(func.name)}"
            "(__gm__ int64_t* args)"
        )
        self.emitter.emit_line("{")
        self.emitter.indent()
        self._prologue(func)
        self.emitter.emit_line("// Function body")
        self._stmt(func.body)
        self.emitter.dedent()
        self.emitter.emit_line("}")
        return self.emitter.code()

    @property
    def line_spans(self) -> list[Span | None]:
        return self.emitter.spans

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.bag.sorted()

    # -- errors ------------------------------------------------------------------------------

    def report(self, error: CodegenError, span: Span | None = None) -> None:
        """Record ``error`` at its own span, else at ``span``, else at the function."""
        at = error.span
        for candidate in (span, self._fallback_span):
            if not at.is_known and candidate is not None:
                at = candidate
        if not isinstance(error, FollowOn):
            self.bag.error(error.code, error.message, at)
        self.emitter.emit_line("// error: " + " ".join(error.message.split()))

    @contextmanager
    def guard(self, span: Span) -> Iterator[None]:
        try:
            yield
        except CodegenError as error:
            self.report(error, span)

    # -- prologue ----------------------------------------------------------------------------

    def _prologue(self, func: Function) -> None:
        pointers: dict[Var, str] = {}
        failed: set[Var] = set()  # reported once at unpacking, not again below
        if func.params:
            self.emitter.emit_line("// Unpack arguments")
            for index, param in enumerate(func.params):
                with self.emitter.statement(param.span), self.guard(param.span):
                    failed.add(param)
                    self._unpack(param, index, pointers)
                    failed.discard(param)
            self.emitter.emit_line()

        tensors = [p for p in func.params if isinstance(p.type, TensorType)]
        if tensors:
            self.emitter.emit_line("// Global tensor declarations")
            separate = False
            for param in tensors:
                assert isinstance(param.type, TensorType)
                base = pointers.get(param) or self.context.reserve(sanitize_identifier(param.name))
                instance = self.context.reserve(base + "Global")
                with self.emitter.statement(param.span), self.guard(param.span):
                    self.context.register_var(param, instance)
                    self.context.register_pointer(instance, base)
                    if param in failed:
                        continue
                    if separate:
                        self.emitter.emit_line()
                    separate = True
                    for line in self.declarer.global_tensor(
                        base, instance, param.type, base, param.span
                    ):
                        self.emitter.emit_line(line)
            self.emitter.emit_line()

        tiles = TileCollector.collect(func.body)
        if tiles:
            self.emitter.emit_line("// Tile type definitions and allocations")
            for k, (stmt, tile_type) in enumerate(tiles):
                if k:
                    self.emitter.emit_line()
                name = self.context.sanitize_name(stmt.var)
                with self.emitter.statement(stmt.span), self.guard(stmt.span):
                    self._emit_tile(name, tile_type, stmt.span)
            self.emitter.emit_line()

    def _unpack(self, param: Var, index: int, pointers: dict[Var, str]) -> None:
        what = f"parameter '{param.name}'"
        if isinstance(param.type, TensorType):
            pointer = self.context.reserve(sanitize_identifier(param.name))
            pointers[param] = pointer
            self.emitter.emit_line(
                self.declarer.unpack_tensor(pointer, index, param.type, what, param.span)
            )
        elif isinstance(param.type, ScalarType):
            name = self.context.sanitize_name(param)
            self.context.register_var(param, name)
            self.emitter.emit_line(
                self.declarer.unpack_scalar(name, index, param.type.dtype, what, param.span)
            )
        else:
            raise CodegenError(
                "E400",
                f"{what} of type {param.type.short()} cannot be passed to a CCE kernel "
                "(only tensors and scalars)",
                param.span,
            )

    def _emit_tile(self, name: str, tile_type: TileType, span: Span) -> None:
        declaration = self.declarer.tile(name, tile_type, span)
        for line in declaration.lines:
            self.emitter.emit_line(line)
        if declaration.error is not None:
            raise declaration.error

    # -- statements --------------------------------------------------------------------------

    def _stmt(self, stmt: Stmt) -> None:
        """Visit one statement; an error in it is reported there and generation goes on."""
        if isinstance(stmt, SeqStmts):
            for inner in stmt.stmts:
                self._stmt(inner)
            return
        with self.emitter.statement(stmt.span), self.guard(stmt.span):
            self.visit(stmt)

    def visit_SeqStmts(self, stmt: SeqStmts) -> None:
        self._stmt(stmt)

    def visit_ScopeStmt(self, stmt: ScopeStmt) -> None:
        # An InCore scope is the kernel itself here: its names stay visible after it.
        self._stmt(stmt.body)

    def visit_ReturnStmt(self, stmt: ReturnStmt) -> None:
        """Kernels return void: tensor results are already in the output tensors; a scalar
        result goes to the ``args`` slot after the parameters' (result k: ``args[params +
        k]``), in its own type's bits, as scalar arguments come in."""
        for position, value in enumerate(stmt.values):
            if not isinstance(value.type, ScalarType):
                continue
            with self.guard(value.span):
                ctype = cpp_dtype(value.type.dtype, f"result {position}", value.span)
                slot = self._param_count + position
                self.emitter.emit_line(
                    f"*reinterpret_cast<__gm__ {ctype}*>(&args[{slot}]) = {self.value(value)};"
                )

    def visit_YieldStmt(self, stmt: YieldStmt) -> None:
        self._yields = list(stmt.values)

    def visit_EvalStmt(self, stmt: EvalStmt) -> None:
        # Only calls have effects; a bare value statement generates nothing.
        if isinstance(stmt.expr, Call):
            self._target = ""
            text = self.visit(stmt.expr)
            if text:
                self.emitter.emit_line(f"{text};")

    def visit_AssignStmt(self, stmt: AssignStmt) -> None:
        var, value = stmt.var, stmt.value
        if self.context.is_registered(var):
            # The same Var assigned again (a non-SSA body): a plain C++ assignment.
            self._assign(self.context.get_var_name(var), var, value, declare=False)
            return
        if isinstance(var.type, TensorType):
            self.context.register_var(var, self._tensor_alias(var, value))
            self._target = self.context.get_var_name(var)
            if isinstance(value, Call):
                self.visit(value)
            return
        name = self.context.sanitize_name(var)
        self.context.register_var(var, name)
        self._assign(name, var, value, declare=True)

    def _tensor_alias(self, var: Var, value: Expr) -> str:
        """A tensor result names the GlobalTensor it refers to: a store's result is the
        output tensor, an alias is its source. Anything else gets its own name (and fails
        to lower, as tensor ops have no CCE form)."""
        output = stored_into(value) if isinstance(value, Call) else None
        if output is not None:
            if isinstance(output, Var) and self.context.is_registered(output):
                return self.context.get_var_name(output)
        if isinstance(value, Var) and self.context.is_registered(value):
            return self.context.get_var_name(value)
        return self.context.sanitize_name(var)

    def _assign(self, name: str, var: Var, value: Expr, *, declare: bool) -> None:
        self._target, self._target_type = name, var.type
        text = self.visit(value) if isinstance(value, Call) else self.value(value)
        self._target, self._target_type = "", None
        if not text:
            return
        if isinstance(var.type, ScalarType) and declare:
            self.emitter.emit_line(
                f"{cpp_dtype(var.type.dtype, var.name, var.span)} {name} = {text};"
            )
        elif isinstance(var.type, TileType) or not declare:
            # Tiles are declared in the prologue; this rebinds the handle.
            if text != name:
                self.emitter.emit_line(f"{name} = {text};")
        else:
            self.emitter.emit_line(f"auto {name} = {text};")

    # -- control flow ------------------------------------------------------------------------

    @contextmanager
    def _scoped_block(self, opener: str) -> Iterator[None]:
        self.context.push_scope()
        try:
            with self.emitter.block(opener):
                yield
        finally:
            self.context.pop_scope()

    def _init_iter_args(self, iter_args: tuple[IterArg, ...]) -> list[str]:
        """Declare each loop-carried value before the loop, initialised from its init value;
        a tensor one inherits the pointer of the tensor it starts as."""
        names: list[str] = []
        for iter_arg in iter_args:
            name = self.context.sanitize_name(iter_arg)
            self.context.register_var(iter_arg, name)
            names.append(name)
            init = iter_arg.init_value
            if init is None:
                raise CodegenError(
                    "E900", f"internal: iter_arg '{iter_arg.name}' has no init value", iter_arg.span
                )
            text = self.operand(init)
            if isinstance(iter_arg.type, ScalarType):
                ctype = cpp_dtype(iter_arg.type.dtype, iter_arg.name, iter_arg.span)
                self.emitter.emit_line(f"{ctype} {name} = {text};")
            else:
                self.emitter.emit_line(f"auto {name} = {text};")
            if isinstance(iter_arg.type, TensorType):
                self.context.register_pointer(name, self.context.pointers(text))
        return names

    def _visit_body_capturing_yield(self, body: Stmt) -> list[Expr] | None:
        saved, self._yields = self._yields, None
        try:
            self._stmt(body)
            return self._yields
        finally:
            self._yields = saved

    def _copy_tile_yields(
        self, pairs: list[tuple[str, str, Expr]], carried: tuple[IterArg, ...]
    ) -> bool:
        """A carried tile lives in its own buffer (the init value's, where the passes put the
        loop's result): a yielded tile in another buffer is copied into it. Re-pointing the
        handle instead would leave the carried value in a buffer the next iteration
        overwrites while the value is still needed. False (nothing emitted) when a copy would
        overwrite a tile a later copy reads, or a tile is not a vector tile in its own buffer:
        the handles are re-pointed then, as before."""
        if len(carried) != len(pairs):  # an if's results: no buffer of their own to copy into
            return False
        copies: list[tuple[str, str]] = []
        for (name, text, value), iter_arg in zip(pairs, carried, strict=True):
            if not isinstance(value.type, TileType) or name == text:
                continue
            init = iter_arg.init_value
            source = value.type.memref
            target = (
                init.type.memref if init is not None and isinstance(init.type, TileType) else None
            )
            if source is None or target is None or source.addr is None or target.addr is None:
                return False
            if MemorySpace.Vec not in (source.memory_space, target.memory_space) or (
                source.memory_space is not target.memory_space
            ):
                return False
            if source.addr != target.addr:
                copies.append((name, text))
        written: set[str] = set()
        for name, text in copies:
            if text in written:
                return False
            written.add(name)
        if copies:
            self.emitter.emit_line("pipe_barrier(PIPE_V);")  # the copy reads a vector result
            for name, text in copies:
                self.emitter.emit_line(f"TMOV({name}, {text});")
        return True

    def _assign_yields(
        self,
        names: list[str],
        values: list[Expr] | None,
        span: Span,
        carried: tuple[IterArg, ...] = (),
    ) -> None:
        """``name = value;`` for each carried value (skipping ``x = x``); a swap goes through
        temporaries so no value is overwritten before it is read."""
        if values is None:
            return
        if len(values) != len(names):
            raise CodegenError(
                "E900", f"internal: {len(values)} values yielded for {len(names)} results", span
            )
        pairs = [(n, self.operand(v), v) for n, v in zip(names, values, strict=True)]
        if self._copy_tile_yields(pairs, carried):
            pairs = [(n, text, v) for n, text, v in pairs if not isinstance(v.type, TileType)]
        pending = [(n, text) for n, text, _ in pairs if n != text]
        clobbered = False
        for i, (_, text) in enumerate(pending):
            earlier = {n for n, _ in pending[:i]}
            if any(re.search(rf"\b{re.escape(n)}\b", text) for n in earlier):
                clobbered = True
        if clobbered:
            temps = []
            for n, text in pending:
                temp = self.context.reserve(n + "_next")
                temps.append((n, temp))
                self.emitter.emit_line(f"auto {temp} = {text};")
            for n, temp in temps:
                self.emitter.emit_line(f"{n} = {temp};")
        else:
            for n, text in pending:
                self.emitter.emit_line(f"{n} = {text};")
        for n, text, value in pairs:
            if isinstance(value.type, TensorType) and n != text:
                self.context.register_pointer(
                    n, self.context.pointers(n) | self.context.pointers(text)
                )

    def _bind_results(self, return_vars: tuple[Var, ...], names: list[str], span: Span) -> None:
        """Loop results are the final state of the carried values: same C++ names."""
        if len(return_vars) != len(names):
            raise CodegenError(
                "E900",
                f"internal: {len(return_vars)} loop results for {len(names)} carried values",
                span,
            )
        for var, name in zip(return_vars, names, strict=True):
            self.context.register_var(var, name)

    def visit_ForStmt(self, stmt: ForStmt) -> None:
        names = self._init_iter_args(stmt.iter_args)
        start, stop, step = self.value(stmt.start), self.value(stmt.stop), self.value(stmt.step)
        self.context.push_scope()
        try:
            loop_var = self.context.sanitize_name(stmt.loop_var)
            self.context.register_var(stmt.loop_var, loop_var)
            if self._non_negative(stmt.start) and _positive_constant(stmt.step):
                self._non_negative_vars.add(stmt.loop_var)
            if stmt.kind is ForKind.Parallel:
                self.emitter.emit_line("// parallel loop: iterations are independent")
            header = (
                f"for (int64_t {loop_var} = {start}; {loop_var} < {stop}; {loop_var} += {step}) {{"
            )
            with self.emitter.block(header):
                values = self._visit_body_capturing_yield(stmt.body)
                with self.guard(stmt.span):
                    self._assign_yields(names, values, stmt.span, stmt.iter_args)
        finally:
            self.context.pop_scope()
        self._bind_results(stmt.return_vars, names, stmt.span)

    def visit_WhileStmt(self, stmt: WhileStmt) -> None:
        names = self._init_iter_args(stmt.iter_args)
        condition = expressions.unwrap(self.value(stmt.condition))
        with self._scoped_block(f"while ({condition}) {{"):
            values = self._visit_body_capturing_yield(stmt.body)
            with self.guard(stmt.span):
                self._assign_yields(names, values, stmt.span, stmt.iter_args)
        if stmt.iter_args:
            self._bind_results(stmt.return_vars, names, stmt.span)
        else:
            for var in stmt.return_vars:
                self.context.register_var(var, self.context.sanitize_name(var))

    def visit_IfStmt(self, stmt: IfStmt) -> None:
        names = [self._declare_if_result(var, stmt.span) for var in stmt.return_vars]
        condition = expressions.unwrap(self.value(stmt.condition))
        branch_pointers: dict[str, frozenset[str]] = {n: frozenset() for n in names}

        def branch(body: Stmt) -> None:
            values = self._visit_body_capturing_yield(body)
            with self.guard(stmt.span):
                self._assign_yields(names, values, stmt.span)
                for name, var in zip(names, stmt.return_vars, strict=True):
                    if isinstance(var.type, TensorType):
                        branch_pointers[name] |= self.context.pointers(name)
                        self.context.register_pointer(name, frozenset())

        self.emitter.emit_line(f"if ({condition}) {{")
        self.emitter.indent()
        self.context.push_scope()
        try:
            branch(stmt.then_body)
        finally:
            self.context.pop_scope()
            self.emitter.dedent()
        if stmt.else_body is not None:
            self.emitter.emit_line("} else {")
            self.emitter.indent()
            self.context.push_scope()
            try:
                branch(stmt.else_body)
            finally:
                self.context.pop_scope()
                self.emitter.dedent()
        self.emitter.emit_line("}")
        for name, pointers in branch_pointers.items():
            if pointers:
                self.context.register_pointer(name, pointers)

    def _declare_if_result(self, var: Var, span: Span) -> str:
        """An if result is declared just before the if (TileCollector leaves it out)."""
        name = self.context.sanitize_name(var)
        self.context.register_var(var, name)
        at = var.span if var.span.is_known else span
        with self.guard(at):
            if isinstance(var.type, TileType):
                self._emit_tile(name, var.type, at)
            elif isinstance(var.type, TensorType):
                for line in self.declarer.global_tensor(name, name, var.type, None, at):
                    self.emitter.emit_line(line)
            elif isinstance(var.type, ScalarType):
                self.emitter.emit_line(f"{cpp_dtype(var.type.dtype, var.name, at)} {name};")
            else:
                raise CodegenError(
                    "E400", f"if result '{var.name}' of type {var.type.short()} has no C++ form", at
                )
        return name

    # -- op calls (statement mode) -----------------------------------------------------------

    def visit_Call(self, call: Call) -> str:
        target, self._target = self._target, ""
        op = op_def(call)
        if op is not None and op.cce.elided:
            # Allocation only: the tile is declared (with its TASSIGN) from its MemRef.
            return ""
        mapping = self.isa.get_mapping(call)
        _check_rewritten(call, mapping.op, mapping.instruction)
        if mapping.op.is_sync:
            self.emitter.emit_line(f"{mapping.instruction}({', '.join(mapping.attr_args)});")
            return ""
        name = mapping.op_name
        if mapping.role is Role.LOAD:
            self._lower_load(call, mapping.instruction, target)
            return ""
        if mapping.role is Role.STORE:
            self._lower_store(call, mapping.instruction)
            return ""
        if mapping.role is Role.MOVE and call.kwarg("transpose") is True and target:
            if self._lower_transposing_move(call, mapping.instruction, target):
                return ""
        operands = self._operands(call, mapping.op.expr_params)
        if target:
            operands = self._convert_promoted_operand(call, mapping.op, operands, target)
        arguments = ", ".join([*operands, *mapping.attr_args])
        if isinstance(call.type, ScalarType):
            # A scalar-valued op is an inline C++ call (value mode).
            return f"{mapping.instruction}({arguments})"
        if not target:
            raise CodegenError(
                "E400",
                f"the result of {name} is not assigned; its instruction needs a destination tile",
                call.span,
            )
        self.emitter.emit_line(
            f"{mapping.instruction}({', '.join([target, *operands, *mapping.attr_args])});"
        )
        return ""

    def _lower_transposing_move(self, call: Call, instruction: str, target: str) -> bool:
        """A transposing vector-to-vector move: the result's view is the source's with the
        dimensions swapped and the block layout flipped, i.e. the same bytes. So the source
        is copied into a view of the destination's buffer shaped and laid out like the
        source: ``TMOV(view, src)``. False (not handled) for other memory spaces."""
        source = call.args[0] if call.args else None
        result = self._target_type
        if not isinstance(source, Var) or not isinstance(source.type, TileType):
            return False
        if not isinstance(result, TileType) or result.memref is None or source.type.memref is None:
            return False
        if {result.memref.memory_space, source.type.memref.memory_space} != {MemorySpace.Vec}:
            return False
        view = self.context.reserve(target + "SourceView")
        declaration = self.declarer.tile(
            view, with_fields(source.type, memref=result.memref), call.span
        )
        if declaration.error is not None:
            raise declaration.error
        with self.emitter.block("{"):
            for line in declaration.lines:
                self.emitter.emit_line(line)
            self.emitter.emit_line(f"{instruction}({view}, {self.operand(source)});")
        return True

    def _convert_promoted_operand(
        self, call: Call, op: OpDef, operands: list[str], target: str
    ) -> list[str]:
        """An element-wise op on one tile whose result has another dtype (a scalar operand
        promoted it: FP16 tile + 1.5 is FP32) converts the tile into the destination first,
        ``TCVT(dst, src, RoundMode::CAST_RINT)``, then works there in place: pto-isa's
        instructions take operands of the destination's type."""
        if op.role is not Role.ELEMENTWISE or not isinstance(call.type, TileType):
            return operands
        tiles = [arg for arg in call.args if isinstance(arg.type, TileType)]
        if len(tiles) != 1:
            return operands
        tile = tiles[0]
        assert isinstance(tile.type, TileType)
        if tile.type.dtype is call.type.dtype or not result_is_promoted(call):
            return operands  # same type, or a result the rule gives (TCMPS's uint8 mask)
        source = self.operand(tile)
        convert = REGISTRY.the(Role.CAST, "block").cce.instruction
        mode = round_mode("rint", call.span)
        self.emitter.emit_line(f"{convert}({target}, {source}, {mode});")
        self.emitter.emit_line("pipe_barrier(PIPE_V);")  # the op reads what TCVT wrote
        return [target if text == source else text for text in operands]

    def _operands(self, call: Call, params: tuple[Param, ...]) -> list[str]:
        """Instruction operands in argument order. A list argument is a shape (already in the
        destination tile's type: left out) or positions such as a view's offset (passed
        element by element); an operand only giving the result's shape is left out too."""
        out: list[str] = []
        for index, arg in enumerate(call.args):
            param = params[index] if index < len(params) else None
            if param is not None and param.access is Access.SHAPE:
                continue
            if isinstance(arg, MakeTuple):
                if param is None or param.name not in SHAPE_PARAMS:
                    out.extend(self.operand(e) for e in arg.elements)
                continue
            out.append(self.operand(arg))
        return out

    def _window_offsets(self, call: Call, first: int) -> tuple[Expr, ...]:
        """Offsets of a load/store: a list argument, or the seed's positional (row, col)."""
        if len(call.args) > first and isinstance(call.args[first], MakeTuple):
            offsets = call.args[first]
            assert isinstance(offsets, MakeTuple)
            return offsets.elements
        return tuple(call.args[first : first + 2])

    def _tensor_operand(self, expr: Expr, op_name: str, span: Span) -> tuple[str, TensorType]:
        if not isinstance(expr, Var) or not isinstance(expr.type, TensorType):
            raise CodegenError(
                "E400", f"{op_name}: the tensor operand must be a tensor variable", span
            )
        return self.context.get_var_name(expr), expr.type

    def _lower_load(self, call: Call, instruction: str, target: str) -> None:
        if not call.args:
            raise CodegenError("E900", "internal: block.load without arguments", call.span)
        global_name, tensor = self._tensor_operand(call.args[0], call.op_name, call.span)
        if not target:
            raise CodegenError(
                "E400", "the result of block.load is not assigned to a tile", call.span
            )
        offsets = self._window_offsets(call, 1)
        window = self._window_global(global_name, tensor, offsets, call)
        if window is None:
            self._seat(global_name, tensor, offsets, call.span)
        self.emitter.emit_line(f"{instruction}({target}, {window or global_name});")

    def _lower_store(self, call: Call, instruction: str) -> None:
        if len(call.args) < 2:
            raise CodegenError(
                "E900", f"internal: {call.callee.name} with too few arguments", call.span
            )
        tile = self.operand(call.args[0])
        global_name, tensor = self._tensor_operand(call.args[-1], call.callee.name, call.span)
        offsets = self._window_offsets(call, 1)
        window = self._window_global(global_name, tensor, offsets, call)
        if window is None:
            self._seat(global_name, tensor, offsets, call.span)
        self.emitter.emit_line(f"{instruction}({window or global_name}, {tile});")

    def _window_global(
        self, global_name: str, tensor: TensorType, offsets: tuple[Expr, ...], call: Call
    ) -> str | None:
        """A window smaller than its tensor gets a GlobalTensor of its own: the window's
        Shape with the tensor's strides, at the window's address (pto-isa's TLOAD/TSTORE
        require the global shape to equal the tile's valid shape). None for a whole-tensor
        access, which keeps the tensor's own GlobalTensor."""
        shapes = call.args[2] if len(call.args) > 2 else None
        if not isinstance(shapes, MakeTuple):
            return None
        what = f"tensor '{global_name}'"
        # A dynamic tensor here is a parameter's, reported at the parameter.
        dims = static_dims(tensor.shape, what, call.span, follow_on=True)
        window = static_dims(shapes.elements, f"the window of {what}", call.span)
        if not has_own_window(dims, window, len(offsets)):
            return None
        address = self._address(global_name, dims, offsets, call.span)
        element = cpp_dtype(tensor.dtype, what, call.span)
        name = self.context.reserve(global_name + "Window")
        shape = self.types.generate_shape_type(window)
        stride = self.types.generate_stride_type(dims)
        self.emitter.emit_line(f"GlobalTensor<{element}, {shape}, {stride}> {name}({address});")
        return name

    def _address(
        self, global_name: str, dims: list[int], offsets: tuple[Expr, ...], span: Span
    ) -> str:
        """``x + row * stride + col``: the element at ``offsets`` of the tensor behind
        ``global_name`` (E400 when that may be either of several tensors)."""
        pointer = self.context.get_pointer(global_name)
        if pointer is None:
            pointers = self.context.pointers(global_name)
            choices = " or ".join(sorted(pointers)) if pointers else "no known tensor"
            message = f"cannot address '{global_name}': it may refer to {choices}"
            raise CodegenError("E400", message, span)
        strides = self.types.row_major_strides(dims)
        terms = [f"{self.value(o)} * {s}" for o, s in zip(offsets[:-1], strides[:-1], strict=True)]
        if offsets:
            terms.append(self.value(offsets[-1]))
        return " + ".join([pointer, *terms])

    def _seat(
        self, global_name: str, tensor: TensorType, offsets: tuple[Expr, ...], span: Span
    ) -> None:
        """Point ``global_name`` at the window: ``TASSIGN(xGlobal, x + row * stride + col);``.

        Skipped when the offset is statically zero and the GlobalTensor still sits at its
        base, i.e. no access anywhere in the kernel moves a GlobalTensor of that pointer
        (the seed's simple_add has no TASSIGN on its tensors)."""
        zero = _is_static_zero(offsets)
        pointers = self.context.pointers(global_name)
        if (
            zero
            and self._known_reseated is not None
            and pointers
            and not (pointers & self._known_reseated)
        ):
            return
        # A dynamic tensor here is a parameter's, reported at the parameter.
        dims = static_dims(tensor.shape, f"tensor '{global_name}'", span, follow_on=True)
        if len(offsets) != len(dims):
            raise CodegenError(
                "E400",
                f"{len(offsets)} offsets for a rank-{len(dims)} tensor '{global_name}'",
                span,
            )
        address = self._address(global_name, dims, offsets, span)
        pointer = self.context.get_pointer(global_name)
        if not zero and pointer is not None:
            self.reseated.add(pointer)
        self.emitter.emit_line(f"TASSIGN({global_name}, {address});")

    # -- values (value mode) -----------------------------------------------------------------

    def value(self, expr: Expr) -> str:
        """Inline C++ text of a scalar expression."""
        if isinstance(expr, Call):
            self._target = ""
        text = self.visit(expr)
        if not isinstance(text, str) or not text:
            raise CodegenError(
                "E400", f"this {type(expr).__name__} has no C++ value form", expr.span
            )
        return text

    def operand(self, expr: Expr) -> str:
        """An instruction operand: a variable's C++ name or an inline scalar expression."""
        if isinstance(expr, Call):
            raise CodegenError(
                "E400",
                "a nested op call must be assigned to a variable before it is used",
                expr.span,
            )
        return self.value(expr)

    def visit_Var(self, var: Var) -> str:
        if not self.context.is_registered(var) and self.bag.has_errors:
            # Its definition failed and was reported: keep the preview readable.
            return self.context.sanitize_name(var)
        return self.context.get_var_name(var)

    def visit_IterArg(self, var: IterArg) -> str:
        return self.visit_Var(var)

    def visit_ConstInt(self, expr: ConstInt) -> str:
        return str(expr.value)

    def visit_ConstFloat(self, expr: ConstFloat) -> str:
        return expressions.float_literal(expr.value, expr.dtype)

    def visit_ConstBool(self, expr: ConstBool) -> str:
        return expressions.bool_literal(expr.value)

    def visit_Binary(self, expr: Binary) -> str:
        lhs, rhs = self.value(expr.lhs), self.value(expr.rhs)
        dtype = expr.type.dtype if isinstance(expr.type, ScalarType) else None
        positive = _positive_constant(expr.rhs)
        if positive and self._non_negative(expr.lhs):  # truncation and flooring agree
            return expressions.binary(expr.op, lhs, rhs)
        floored = expressions.floor_division(expr.op, lhs, rhs, dtype, positive)
        return floored if floored is not None else expressions.binary(expr.op, lhs, rhs)

    def _non_negative(self, expr: Expr) -> bool:
        """Whether an integer expression is certainly >= 0: constants, loop variables counting
        up from such a start, and sums, products, quotients and remainders of those."""
        if isinstance(expr, ConstInt):
            return expr.value >= 0
        if isinstance(expr, Var):
            return expr in self._non_negative_vars
        if isinstance(expr, Binary) and expr.op in _CLOSED_ON_NON_NEGATIVE:
            return self._non_negative(expr.lhs) and self._non_negative(expr.rhs)
        return False

    def visit_Unary(self, expr: Unary) -> str:
        return expressions.unary(expr.op, self.value(expr.operand))

    def visit_MakeTuple(self, expr: MakeTuple) -> str:
        raise CodegenError("E400", "a list value has no C++ form here", expr.span)

    def visit_TupleGetItem(self, expr: TupleGetItem) -> str:
        raise CodegenError("E400", "tuple values are not supported by the CCE generator", expr.span)
