"""Per-function generation state: names, constants, output, and what each IR value became."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Union

from ...diagnostics import DiagnosticBag
from ...ir.expr import Var
from ...ir.function import FunctionType, Program
from ...ir.span import Span
from ...ir.types import TileType
from ..common import CodegenError
from . import mlir_types as mt
from .emitter import Constants, Emitter, Names, Region, Value
from .versions import DEFAULT_VERSION


class Poisoned(Exception):
    """A statement uses a value whose definition failed; it is skipped without a new
    diagnostic so one mistake is reported once."""

    def __init__(self, what: str) -> None:
        super().__init__(what)
        self.what = what


class _Poison:
    def __repr__(self) -> str:
        return "POISON"


POISON = _Poison()

# What an IR variable stands for: one SSA value, a tuple of them, or a failed definition.
Binding = Union[Value, tuple["Binding", ...], _Poison]  # noqa: UP007 (recursive alias)


class FunctionContext:
    BODY_INDENT = 4

    def __init__(self, bag: DiagnosticBag, first_number: int) -> None:
        self.bag = bag
        self.names = Names(first_number)
        self.constants = Constants(self.names)
        self.out = Emitter(self.BODY_INDENT)
        self.env: dict[Var, Binding] = {}
        # Tile buffers: the alloc_tile value per (MemRef, tile_buf type); the type is None
        # (and the value POISON) for a MemRef whose tile type could not be lowered.
        self.buffers: dict[tuple[mt.MemRefKey, str | None], Value | _Poison] = {}
        # Conversions already emitted, per region: a value converted in a loop body is not
        # visible after the loop, so the cache is scoped like the regions.
        self._casts: list[dict[tuple[str, str], Value]] = [{}]
        self.depth = 0  # regions entered: 0 is the function body
        # Scratch tiles instructions need and the IR does not give (TROWSUM's tmp): one
        # pto.alloc_tile per tile_buf type, shared, since a scratch is dead after its use.
        self.scratches: dict[str, Value] = {}
        # Tiles written straight into a carried tile's home buffer (see statements._redirect).
        self.redirects: dict[Var, Value] = {}
        # Where the function's scalar results go: PTOAS entry functions return nothing, so
        # each scalar result is stored through a pointer parameter added after the others.
        self.result_pointers: list[Value] = []
        # A helper (a function others call) returns its scalar results instead.
        self.returns_values = False
        self.returned: list[Value] = []
        self.program: Program | None = None  # the functions a call can name
        self.tile_bufs = mt.TileBufs()  # each tile's tile_buf type (shared with collect_buffers)
        self.ptoas_version = DEFAULT_VERSION  # the PTOAS the forms are written for
        self.func_type = FunctionType.Opaque  # the kernel's core (AIC / AIV) for pipe ops
        self.pointers: dict[Var, Value] = {}  # each tensor parameter's %argN (pto.load_scalar)
        self.pipe_slots: dict[int, Value] = {}  # the GM slot ring of each pipe it sets up

    # --- values of variables -------------------------------------------------------------

    def bind(self, var: Var, binding: Binding) -> None:
        self.env[var] = binding

    def binding(self, var: Var, span: Span) -> Binding:
        found = self.env.get(var)
        if found is None:
            at = var.span if var.span.is_known else span
            raise CodegenError("E900", f"'{var.name}' has no value at this point", at)
        if isinstance(found, _Poison):
            raise Poisoned(var.name)
        return found

    def value(self, var: Var, span: Span) -> Value:
        found = self.binding(var, span)
        if not isinstance(found, Value):
            raise CodegenError("E400", f"'{var.name}' is a tuple, not a single value", span)
        return found

    def buffer(self, tile: TileType, name: str, span: Span) -> Value:
        """The alloc_tile value that tile ``name`` (which has a MemRef) is written into."""
        assert tile.memref is not None
        try:
            tile_buf = self.tile_bufs.of(tile, span, name)
        except CodegenError:
            if (mt.memref_key(tile.memref), None) in self.buffers:
                raise Poisoned(name) from None
            raise
        found = self.buffers.get((mt.memref_key(tile.memref), tile_buf))
        if found is None:
            raise CodegenError("E403", f"tile '{name}' has no allocated buffer", span)
        if isinstance(found, _Poison):
            raise Poisoned(name)
        return found

    def scratch(self, tile_buf: str, purpose: str = "") -> Value:
        """The scratch tile of this type (and purpose: an instruction's scratch and a scalar
        expanded for the same instruction must differ), allocated with the function's
        buffers."""
        key = f"{purpose}:{tile_buf}"
        found = self.scratches.get(key)
        if found is None:
            found = Value(self.names.unique("scratch"), tile_buf)
            self.scratches[key] = found
        return found

    # --- emitted conversions ---------------------------------------------------------------

    def cached_cast(self, key: tuple[str, str]) -> Value | None:
        for scope in reversed(self._casts):
            if key in scope:
                return scope[key]
        return None

    def remember_cast(self, key: tuple[str, str], value: Value) -> None:
        self._casts[-1][key] = value

    @contextmanager
    def region(self) -> Iterator[Region]:
        """A nested region: its own output lines and its own conversion cache."""
        self._casts.append({})
        self.depth += 1
        try:
            with self.out.region() as region:
                yield region
        finally:
            self.depth -= 1
            self._casts.pop()

    # --- diagnostics ---------------------------------------------------------------------

    def report(self, error: CodegenError) -> None:
        """A diagnostic, and an ``// error:`` line at the spot in the output."""
        self.bag.error(error.code, error.message, error.span)
        self.out.error(error.message)

    def skipped(self, poisoned: Poisoned) -> None:
        self.out.error(f"skipped: '{poisoned.what}' failed earlier")

    def emit_result(self, type_: str, text: str, *continuations: str) -> Value:
        """``%N = <text>`` with continuation lines aligned under the op name."""
        name = self.names.number()
        prefix = f"{name} = "
        self.out.line(prefix + text, *continuations, hang=len(prefix))
        return Value(name, type_)
