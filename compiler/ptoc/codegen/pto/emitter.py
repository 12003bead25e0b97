"""Text building blocks: SSA values and names, the constant pool, and the line emitter."""

from __future__ import annotations

import math
import re
import struct
from collections.abc import Iterator
from contextlib import contextmanager

from ...ir.span import Span
from ...records import field, record
from ..common import SpanTracking
from ..cpp_names import is_reserved
from . import mlir_types as mt


@record(frozen=True, slots=True)
class Value:
    """An SSA value: its name (``%0``, ``%c32``, ``%arg1``, ``%5#1``) and MLIR type."""

    name: str
    type: str

    def typed(self) -> str:
        """``%0 : !pto.tile_buf<...>``, the form of ``ins(...)``/``outs(...)`` operands."""
        return f"{self.name} : {self.type}"


_NOT_IN_NAME = re.compile(r"[^A-Za-z0-9_$.\-]")
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*")


def symbol_name(name: str) -> str:
    """A function's symbol: PTOAS names the C++ function after it, so a C++ keyword or a name
    of pto-isa gets a ``_`` suffix (``new_``)."""
    return name + "_" if is_reserved(name) else name


def symbol(name: str) -> str:
    """``@name`` (``symbol_name``), quoted when it is not a bare MLIR identifier."""
    name = symbol_name(name)
    if _SYMBOL.fullmatch(name):
        return "@" + name
    return '@"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


class Names:
    """Function-wide SSA names: ``%argN`` params, ``%N`` results, named values made unique.

    Every name passes through ``unique`` or ``number`` so that a loop variable called ``c32``
    and the constant 32 can never both be ``%c32``.
    """

    def __init__(self, first_number: int = 0) -> None:
        self.used: set[str] = set()
        self.next_number = first_number

    def reserve(self, name: str) -> str:
        self.used.add(name)
        return name

    def number(self) -> str:
        name = f"%{self.next_number}"
        self.next_number += 1
        return self.reserve(name)

    def unique(self, base: str) -> str:
        """``%base``, else ``%base_1``, ``%base_2``, ..."""
        base = _NOT_IN_NAME.sub("_", base)
        if not base or base[0].isdigit() or base[0] == "-":
            base = "v" + base
        candidate = f"%{base}"
        suffix = 1
        while candidate in self.used:
            candidate = f"%{base}_{suffix}"
            suffix += 1
        return self.reserve(candidate)


def float_literal(value: float, mlir_type: str) -> str:
    """A float as MLIR accepts it: always a decimal point, hex bit patterns for inf/nan."""
    if math.isinf(value) or math.isnan(value):
        return _float_bits(value, mlir_type)
    text = repr(float(value))
    mantissa, sep, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    return mantissa + (sep + exponent if sep else "")


def _float_bits(value: float, mlir_type: str) -> str:
    if mlir_type == "f64":
        return f"0x{struct.unpack('<Q', struct.pack('<d', value))[0]:016X}"
    bits32: int = struct.unpack("<I", struct.pack("<f", value))[0]
    if mlir_type == "f32":
        return f"0x{bits32:08X}"
    if mlir_type == "bf16":
        return f"0x{bits32 >> 16:04X}"
    return f"0x{struct.unpack('<H', struct.pack('<e', value))[0]:04X}"


class Constants:
    """``arith.constant`` values, created on first need and emitted at the top of the function.

    Naming follows MLIR's printer: ``%c32`` (index), ``%c1_i32`` (other integers),
    ``%true``/``%false``, ``%cst``, ``%cst_1``, ... (floats).
    """

    def __init__(self, names: Names) -> None:
        self.names = names
        self.lines: list[str] = []
        self._cache: dict[tuple[str, str], Value] = {}
        self._indices: dict[int, Value] = {}  # index constants of ``_cache``, by value

    def integer(self, value: int, mlir_type: str = mt.INDEX) -> Value:
        indices = mlir_type == mt.INDEX and type(value) is int
        if indices:  # the common case (shapes, offsets), looked up without building a key
            found = self._indices.get(value)
            if found is not None:
                return found
        if mlir_type == mt.BOOL:
            return self.boolean(bool(value))
        if mt.is_float(mlir_type):
            return self.floating(float(value), mlir_type)
        key = (str(value), mlir_type)
        if key not in self._cache:
            base = f"c{value}" if mlir_type == mt.INDEX else f"c{value}_{mlir_type}"
            self._add(key, self.names.unique(base), f"{value} : {mlir_type}")
        found = self._cache[key]
        if indices:
            self._indices[value] = found
        return found

    def boolean(self, value: bool) -> Value:
        key = (str(value), mt.BOOL)
        if key not in self._cache:
            text = "true" if value else "false"
            self._add(key, self.names.unique(text), text)
        return self._cache[key]

    def floating(self, value: float, mlir_type: str) -> Value:
        literal = float_literal(value, mlir_type)
        key = (literal, mlir_type)
        if key not in self._cache:
            self._add(key, self.names.unique("cst"), f"{literal} : {mlir_type}")
        return self._cache[key]

    def _add(self, key: tuple[str, str], name: str, body: str) -> None:
        self._cache[key] = Value(name, key[1])
        self.lines.append(f"{name} = arith.constant {body}")


# Groups of statements are separated by a blank line. These kinds always start a new group;
# consecutive statements of the other kinds (sync, scalar) share one; a region's terminator
# (scf.yield / scf.condition) stays attached to the group before it.
_ALWAYS_SEPARATE = frozenset({"block", "control", "return"})
_ATTACHED = frozenset({"yield"})


@record
class Region:
    """The lines of one region, each with the span of the IR statement it was emitted for
    (``spans``, parallel to ``lines``; None for a line of no statement), so a PTOAS
    diagnostic on it can point at the kernel's source."""

    indent: int
    last_kind: str | None = None
    pending_kind: str | None = None
    after_label: bool = False  # the first group after a block label needs no separation
    pad: str = ""  # ``indent`` spaces, the prefix of every line
    lines: list[str] = field(default_factory=list)
    spans: list[Span | None] = field(default_factory=list)


class Emitter(SpanTracking):
    """Indented lines in regions (function body, loop bodies, branches)."""

    STEP = 2

    def __init__(self, indent: int) -> None:
        self._regions: list[Region] = [Region(indent, pad=" " * indent)]

    @property
    def _top(self) -> Region:
        return self._regions[-1]

    @property
    def indent(self) -> int:
        return self._top.indent

    @property
    def region_lines(self) -> Region:
        """The lines emitted so far (at the outermost region)."""
        return self._regions[0]

    def begin(self, kind: str) -> None:
        """Start the lines of one statement of ``kind``. The blank line that separates groups
        is written with the statement's first line, so a statement that emits nothing
        (an alias, an elided op) leaves no trace."""
        self._top.pending_kind = kind

    def _separate(self) -> None:
        top = self._regions[-1]
        kind = top.pending_kind
        if kind is None:
            return
        if kind in _ATTACHED:
            top.pending_kind = None
            return
        if (
            top.lines
            and not top.after_label
            and (kind in _ALWAYS_SEPARATE or kind != top.last_kind)
        ):
            top.lines.append("")
            top.spans.append(None)
        top.last_kind = kind
        top.pending_kind = None
        top.after_label = False

    def line(self, text: str, *continuations: str, hang: int = 0) -> None:
        """One line, plus continuation lines indented ``hang`` columns further."""
        top = self._regions[-1]
        if top.pending_kind is not None:
            self._separate()
        pad = top.pad
        top.lines.append(pad + text)
        top.spans.append(self.span)
        if continuations:
            pad += " " * hang
            for cont in continuations:
                top.lines.append(pad + cont)
                top.spans.append(self.span)

    def label(self, text: str) -> None:
        """A block label (``^bb0(...):``), outdented one step as MLIR prints it."""
        self._separate()
        top = self._top
        top.lines.append(" " * max(self.indent - self.STEP, 0) + text)
        top.spans.append(self.span)
        top.after_label = True

    def comment(self, text: str) -> None:
        self.line(f"// {text}")

    def error(self, message: str) -> None:
        self.line(f"// error: {message}")

    @contextmanager
    def region(self) -> Iterator[Region]:
        """Collect the lines of a nested region (one level deeper); yields the region,
        which the caller splices where it belongs."""
        indent = self.indent + self.STEP
        region = Region(indent, pad=" " * indent)
        self._regions.append(region)
        try:
            yield region
        finally:
            self._regions.pop()

    def splice(self, region: Region) -> None:
        self._separate()
        top = self._top
        top.lines.extend(region.lines)
        top.spans.extend(region.spans)
