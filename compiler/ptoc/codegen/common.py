"""What every code generator returns, the exception used inside one to abandon a construct, and
the calls of a body (which both generators look for before they emit)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from ..diagnostics import Diagnostic, Severity
from ..ir.dtype import DataType
from ..ir.expr import Call, ConstBool, ConstFloat, ConstInt, Expr, GlobalVar, MakeTuple, Var
from ..ir.fields import child_values, layout
from ..ir.function import Function, Program
from ..ir.shape import dim_str, shapes_equal, static_value
from ..ir.span import NO_SPAN, Span
from ..ir.stmt import LoopJumpStmt, Stmt
from ..ir.types import ScalarType, ShapedType, TileType
from ..ir.walk import walk_stmts
from ..ops.registry import OpDef
from ..ops.rules import promote_all
from ..records import field, record


class SpanTracking:
    """The source statement an emitter's lines come from, set around each statement's lines
    (both generators' emitters record it per line for the source map)."""

    span: Span | None = None

    def enter(self, span: Span) -> Span | None:
        """Lines emitted from now on come from ``span`` (when it is known); returns the span to
        restore afterwards (``statement`` without a context manager's cost, for hot loops)."""
        saved = self.span
        if span.is_known:
            self.span = span
        return saved

    @contextmanager
    def statement(self, span: Span) -> Iterator[None]:
        """Lines emitted inside come from the source at ``span`` (when it is known)."""
        saved = self.span
        if span.is_known:
            self.span = span
        try:
            yield
        finally:
            self.span = saved


@record
class CodegenResult:
    """Generated text plus the diagnostics found while generating it.

    The text is always produced (possibly with ``// error: ...`` markers) so an editor
    preview can show everything that did lower; ``diagnostics`` says what did not.
    """

    text: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # Per output line (0-based), the source the line was generated for, when known.
    line_spans: list[Span | None] = field(default_factory=list)
    #: The errors of orchestration (host) functions' code, among ``diagnostics``: what has no
    #: host lowering here. The kernels' code beside them is whole (a preview shows it).
    host_errors: list[Diagnostic] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.diagnostics


def host_function(program: Program | None, func: Function) -> tuple[list[str], Diagnostic]:
    """A function that runs on the host (``@pl.jit.host``): not generated, said so in a comment
    and an I010 note naming the chip programs it launches, which are."""
    chip = {f.name for f in program.functions if not f.on_host} if program is not None else set()
    called = {c.callee.name for c in calls_in(func.body) if isinstance(c.callee, GlobalVar)}
    launched = ", ".join(sorted(called & chip))
    where = f"'{func.name}' runs on the host (level {getattr(func.level, 'name', '?')})"
    if getattr(func.role, "name", None) == "SubWorker":
        message = f"{where} as a sub-worker (Python the host runtime calls): no code for it"
    else:
        what = f" ({launched})" if launched else ""
        message = (
            f"{where}: ptoc generates the chip programs it launches{what}, not the host "
            "runtime's code"
        )
    return [f"// {func.name}: {message}"], Diagnostic("I010", Severity.INFO, message, func.span)


class CodegenError(Exception):
    """Raised inside a generator for a construct it cannot lower.

    It never escapes a public entry point: the entry point turns it into a diagnostic
    with ``code`` and ``span`` (a code from ``ptoc.diagnostics.codes``).
    """

    def __init__(self, code: str, message: str, span: Span = NO_SPAN) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.span = span


def axis_instruction(op: OpDef, target: str, call: Call) -> str:
    """An axis reduction's instruction on ``target``, by the reduced axis (E400 for an axis
    other than the last two)."""
    axis = call.kwarg("axis")
    source = call.args[0].type if call.args else None
    rank = source.rank if isinstance(source, ShapedType) else 2
    chosen = None
    if isinstance(axis, int) and not isinstance(axis, bool):
        chosen = op.column_or_row(op.lowering(target), axis, rank)
    if chosen is None:
        raise CodegenError(
            "E400",
            f"{op.name} over axis {axis!r} of a rank-{rank} tile has no instruction (only the "
            "last two axes: the last one -> the row form, the one before -> the column form)",
            call.span,
        )
    return chosen


def check_spaces(op: OpDef, call: Call, target: str) -> None:
    """E400 where the instruction does not move between the call's spaces (the lowering's
    ``space_pairs``: its first operand's and its result's, which is the operand the result
    aliases when it has one)."""
    lowering = op.lowering(target.lower())
    if not lowering.space_pairs or not lowering.operands:
        return
    bound = op.bind(call.args)
    operand = bound.get(lowering.operands[0])
    source = operand.type if operand is not None else None
    written = bound.get(op.aliases) if op.aliases else None  # the result is its buffer
    result = written.type if written is not None else call.type
    if not (isinstance(source, TileType) and isinstance(result, TileType)):
        return
    start, end = source.memory_space, result.memory_space
    if start is None or end is None or (start, end) in lowering.space_pairs:
        return
    takes = ", ".join(f"{a.name} -> {b.name}" for a, b in lowering.space_pairs)
    raise CodegenError(
        "E400",
        f"{op.name} from {start.name} into {end.name} has no {target} lowering here "
        f"({lowering.instruction} of this op: {takes})",
        call.span,
    )


def check_valid_region_reads(op: OpDef, call: Call, target: str) -> None:
    """E400 where an op reads a tile whose valid region (2026-08) is narrower than the tile
    and the op does not compute over valid regions as ptoc models them: the registry's
    ``reads_valid_region`` ops (fillpad, store) read them; its ``keeps_valid_region`` ops
    (element-wise) compute over their destination's region, which is the first operand's,
    and pto-isa asks every source for that same region (TADD_IMPL's PTO_ASSERTs; the CPU
    instructions take one tile type for all three), so a source of another region is E400.
    Any other op: what the instruction computes outside the region is not modelled."""
    if op.reads_valid_region or op.reduces_valid_region:
        return
    if op.keeps_valid_region:
        _check_same_regions(op, call, target)
        return
    for arg in call.args:
        valid = narrower_region(arg.type)
        if valid is None:
            continue
        raise CodegenError(
            "E400",
            f"{op.name} reads tile{_named(arg)} whose valid region [{_dims(valid)}] is "
            f"narrower than the tile: ptoc's {target} code models valid regions in "
            "element-wise ops, fillpad and store only; fill the rest first (pl.tile.fillpad) "
            "or load the whole window",
            call.span,
        )


def narrower_region(type_: object) -> tuple[Expr, ...] | None:
    """A tile's valid region when its type states one narrower than the tile (None: the
    tile is valid throughout, or the value is no tile)."""
    if not isinstance(type_, TileType) or type_.tile_view is None:
        return None
    valid, shape = type_.tile_view.valid_shape, type_.shape
    if valid is None:
        return None
    if len(valid) == len(shape) and all(
        static_value(v) is not None and static_value(v) == static_value(d)
        for v, d in zip(valid, shape, strict=True)
    ):
        return None
    return valid


def _check_same_regions(op: OpDef, call: Call, target: str) -> None:
    tiles = [a for a in call.args if isinstance(a.type, TileType)]
    regions = [narrower_region(a.type) for a in tiles]
    if all(r is None for r in regions):
        return
    first, wanted = tiles[0], regions[0]
    for arg, region in zip(tiles[1:], regions[1:], strict=True):
        if wanted is not None and region is not None and shapes_equal(wanted, region):
            continue
        if wanted is None and region is None:
            continue
        mine = f"[{_dims(region)}]" if region is not None else "the whole tile"
        theirs = f"[{_dims(wanted)}]" if wanted is not None else "the whole tile"
        raise CodegenError(
            "E400",
            f"{op.name} computes over the valid region of its first operand{_named(first)}, "
            f"{theirs}, and pto-isa's instruction reads the same region of every source; "
            f"tile{_named(arg)} has {mine} ({target}): give both one region "
            "(pl.tile.set_validshape) or fill the first (pl.tile.fillpad)",
            call.span,
        )


def _named(arg: Expr) -> str:
    return f" '{arg.name}'" if isinstance(arg, Var) else ""


def _dims(dims: Sequence[Expr]) -> str:
    return ", ".join(dim_str(d) for d in dims)


def result_is_promoted(call: Call) -> bool:
    """Whether a tile call's result dtype is its operands' promoted one (an FP16 tile plus
    1.5 is FP32), not one its rule sets otherwise (TCMPS's uint8 mask)."""
    dtypes = [a.type.dtype for a in call.args if isinstance(a.type, (TileType, ScalarType))]
    result = call.type
    return isinstance(result, TileType) and bool(dtypes) and promote_all(dtypes) is result.dtype


# Expressions that hold no other expression (a plain Var: an IterArg holds its initial value).
_LEAVES = frozenset((Var, ConstInt, ConstFloat, ConstBool))


def calls_in(body: Stmt) -> list[Call]:
    """Every call in ``body``, nested statements and expressions included, in pre-order.
    Statements are walked as statements and only expressions that can hold a call are
    entered: the generators ask this of every function, and most expressions are variables."""
    found: list[Call] = []
    for stmt in walk_stmts(body):
        for child in child_values(stmt):
            if isinstance(child, Expr):
                _collect_calls(child, found)
    return found


# A call's and a tuple's children are read directly (the common cases), not by layout.
assert layout(Call).names == ("args",) and layout(MakeTuple).names == ("elements",)


def _collect_calls(expr: Expr, found: list[Call]) -> None:
    if type(expr) in _LEAVES:
        return
    children: Sequence[Expr]
    if isinstance(expr, Call):
        found.append(expr)
        children = expr.args
    elif isinstance(expr, MakeTuple):
        children = expr.elements
    else:
        children = child_values(expr)
    for child in children:
        _collect_calls(child, found)


def no_loop_jumps(target: str) -> Callable[[Any, LoopJumpStmt], None]:
    """``break`` / ``continue`` leave a loop early, which the passes' SSA form and the
    synchronisation they insert do not model yet: a precise E400, never wrong code."""

    def lower(ctx: Any, stmt: LoopJumpStmt) -> None:
        raise CodegenError(
            "E400",
            f"`{stmt.kind}` has no {target} lowering yet: rewrite the loop with "
            "pl.while_ and a condition",
            stmt.span,
        )

    return lower


def not_taken(
    op: OpDef, instruction: str, takes: Sequence[DataType], call: Call, dtype: DataType, judge: str
) -> str:
    """Why ``instruction`` cannot compute ``call`` in ``dtype`` on A2/A3 (``takes``: the
    element types it does take, as ``judge`` states them), with the way out."""
    names = ", ".join(d.name for d in takes)
    sources = {a.type.dtype for a in call.args if isinstance(a.type, TileType)}
    promoted = ""
    hint = f"convert with pl.cast(..., target_type=pl.{takes[-1].name}) first"
    if sources and dtype not in sources:
        source = next(iter(sources)).name
        promoted = f" (a literal makes the {source} tile's result {dtype.name})"
        hint = f"use a pl.Scalar[pl.{source}] value instead of the literal"
    return (
        f"{op.name}: {instruction} takes {names} elements on A2/A3 ({judge}), not "
        f"{dtype.name}{promoted}; {hint}"
    )


def called_functions(fn: Function) -> list[str]:
    """The program functions ``fn`` calls (a kernel's helpers, the kernels an orchestration
    function launches)."""
    return [call.callee.name for call in calls_in(fn.body) if isinstance(call.callee, GlobalVar)]


def with_callees(program: Program, function: str) -> set[str]:
    """``function`` and every program function it calls, directly or not: what generating
    one function emits (a helper's definition for ``func.call``; the kernels outlined from an
    orchestration or a ``@pl.jit`` entry, which are its code)."""
    wanted: set[str] = set()
    pending = [function]
    while pending:
        name = pending.pop()
        fn = program.function(name)
        if fn is not None and name not in wanted:
            wanted.add(name)
            pending.extend(called_functions(fn))
    return wanted
