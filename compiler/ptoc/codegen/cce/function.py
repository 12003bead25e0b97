"""One IR function -> one pto-isa C++ kernel (seed 000/001, "Code Generation Flow").

Three phases: the prologue (signature, argument unpacking, GlobalTensor and Tile declarations),
the body (``statements.py``: block ops -> instructions, control flow), the epilogue (the
closing brace).

Expressions follow the seed's dual-mode pattern: an op call in statement position emits the
instruction (``ops.lower_call``); a scalar expression is inline C++ text (``(i * 128)``,
``expressions.value``). All of them share one ``FunctionContext``.

Errors: a construct that cannot be lowered raises CodegenError; the statement guard turns it
into a diagnostic plus a ``// error: ...`` line at that spot and carries on with the next
statement.
"""

from __future__ import annotations

from functools import lru_cache

from ...diagnostics import Diagnostic
from ...ir.expr import Var
from ...ir.function import Function
from ...ir.span import Span
from ...ir.types import ScalarType, TensorType
from ..common import CodegenError
from . import statements
from .context import FunctionContext, sanitize_identifier
from .declarations import emit_tile
from .tile_collector import TileCollector


@lru_cache(maxsize=4096)  # a pure function of the name
def kernel_name(function_name: str) -> str:
    """``simple_add`` -> ``runSimpleAdd``; a character outside ASCII becomes ``u<hex>`` (two
    functions whose names still meet are refused: ``module.kernel_name_clashes``)."""
    ascii_name = "".join(c if c.isascii() else f"u{ord(c):x}" for c in function_name)
    parts = [p for p in ascii_name.split("_") if p]
    return sanitize_identifier("run" + "".join(p[:1].upper() + p[1:] for p in parts))


class CCECodegen:
    """Generates one kernel. ``reseated`` lists the raw pointers that some load/store moves
    away from their base (found by a first run, see ``module.generate_kernel``); ``None``:
    every access gets its TASSIGN."""

    def __init__(self, reseated: frozenset[str] | None = None) -> None:
        self.ctx = FunctionContext(reseated)

    def generate(self, func: Function) -> str:
        ctx = self.ctx
        ctx.fallback_span = func.span
        ctx.param_count = len(func.params)
        ctx.out.emit_line(
            f"__aicore__ __attribute__((always_inline)) void {kernel_name(func.name)}"
            "(__gm__ int64_t* args)"
        )
        ctx.out.emit_line("{")
        ctx.out.indent()
        _prologue(ctx, func)
        ctx.out.emit_line("// Function body")
        statements.statement(ctx, func.body)
        ctx.out.dedent()
        ctx.out.emit_line("}")
        return ctx.out.code()

    @property
    def reseated(self) -> set[str]:
        """The raw pointers some access of this run moved away from their base."""
        return self.ctx.reseated

    @property
    def line_spans(self) -> list[Span | None]:
        return self.ctx.out.spans

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return self.ctx.bag.sorted()


# --- prologue ----------------------------------------------------------------------------------


def _prologue(ctx: FunctionContext, func: Function) -> None:
    pointers: dict[Var, str] = {}
    failed: set[Var] = set()  # reported once at unpacking, not again below
    if func.params:
        ctx.out.emit_line("// Unpack arguments")
        for index, param in enumerate(func.params):
            failed.add(param)
            ctx.attempt(param.span, _unpack, ctx, param, index, pointers, failed)
        ctx.out.emit_line()
    _global_tensors(ctx, func, pointers, failed)
    tiles = TileCollector.collect(func.body)
    if tiles:
        ctx.out.emit_line("// Tile type definitions and allocations")
        for k, (stmt, tile_type) in enumerate(tiles):
            if k:
                ctx.out.emit_line()
            name = ctx.names.sanitize_name(stmt.var)
            ctx.attempt(stmt.span, emit_tile, ctx, name, tile_type, stmt.span)
        ctx.out.emit_line()


def _unpack(
    ctx: FunctionContext, param: Var, index: int, pointers: dict[Var, str], failed: set[Var]
) -> None:
    """Argument ``index``: a tensor's raw pointer or a scalar's value (``failed`` keeps the
    parameters that could not be unpacked)."""
    what = f"parameter '{param.name}'"
    if isinstance(param.type, TensorType):
        pointer = ctx.names.reserve(sanitize_identifier(param.name))
        pointers[param] = pointer
        ctx.out.emit_line(ctx.declarer.unpack_tensor(pointer, index, param.type, what, param.span))
    elif isinstance(param.type, ScalarType):
        name = ctx.names.sanitize_name(param)
        ctx.names.register_var(param, name)
        ctx.out.emit_line(
            ctx.declarer.unpack_scalar(name, index, param.type.dtype, what, param.span)
        )
    else:
        raise CodegenError(
            "E400",
            f"{what} of type {param.type.short()} cannot be passed to a CCE kernel "
            "(only tensors and scalars)",
            param.span,
        )
    failed.discard(param)


def _global_tensors(
    ctx: FunctionContext, func: Function, pointers: dict[Var, str], failed: set[Var]
) -> None:
    """The GlobalTensor of each tensor parameter, bound to its raw pointer (a parameter
    that failed at unpacking gets its names, not its lines)."""
    tensors = [p for p in func.params if isinstance(p.type, TensorType)]
    if not tensors:
        return
    ctx.out.emit_line("// Global tensor declarations")
    emitted = [False]
    for param in tensors:
        base = pointers.get(param) or ctx.names.reserve(sanitize_identifier(param.name))
        instance = ctx.names.reserve(base + "Global")
        ctx.attempt(
            param.span, _global_tensor, ctx, param, base, instance, param in failed, emitted
        )
    ctx.out.emit_line()


def _global_tensor(
    ctx: FunctionContext, param: Var, base: str, instance: str, failed: bool, emitted: list[bool]
) -> None:
    """``emitted[0]``: whether a group was emitted before (groups are separated by a blank)."""
    assert isinstance(param.type, TensorType)
    ctx.names.register_var(param, instance)
    ctx.names.register_pointer(instance, base)
    if failed:
        return
    if emitted[0]:
        ctx.out.emit_line()
    emitted[0] = True
    for line in ctx.declarer.global_tensor(base, instance, param.type, base, param.span):
        ctx.out.emit_line(line)
