"""PTOAS's C++ as the pipes see it: the checker's instruction stream of one kernel.

What is read (``cpp_syntax`` gives the statements):

* tiles: ``Tile<TileType::Vec, float, 32, 64, ...> v10;`` declares one (its space, and
  rows x columns x element bytes), ``... v11 = v10;`` a copy, ``TASSIGN(v11, v12)`` places
  it at the address ``v12`` holds (a constant PTOAS declared: ``const int64_t v7 = 0;``,
  ``uint64_t v12 = (uint64_t) v7;``), so a tile is the byte range ``[addr, addr + size)`` of
  its space; ``TRESHAPE(v23, v8)`` makes ``v23`` another view of ``v8``'s bytes, and a tile
  assigned another (``v5 = v11;``) may be either;
* tensors: ``GlobalTensor<...> v21 = GlobalTensor<...>(v1 + ..., ...)`` is a view of the GM
  parameter ``v1``: all views of one parameter are one range, as on the IR route;
* instructions: a call ``TNAME(dst, src...)`` on its pipe (``cpp_pipes``), writing its first
  operand and reading the others (pto-isa's order; scalars are not buffers);
* sync: ``set_flag`` / ``wait_flag(PIPE_Q, PIPE_P, EVENT_IDn)``, ``pipe_barrier(PIPE_X)``,
  and ``ptoas_auto_sync_tail`` (a barrier of every pipe, or its MTE3 -> S event);
* structure: ``for (T i = a; i < b; i += c)`` (its trip count when a, b, c are constants)
  and ``if (...) { } else { }``; ``#if defined(__DAV_VEC__)`` / ``__DAV_CUBE__`` sections run on
  the vector or the cube core, each checked as a stream of its own;
* multi-buffering: a loop whose sync names its event by a variable (``event_t v26 =
  (event_t) v25; wait_flag(PIPE_V, PIPE_MTE2, v26);``, PTOAS's dynamic event ids, computed
  from the loop variable modulo N, as its slot addresses are) is unrolled by residue: its
  body is read N times, the loop variable standing for ``a + j * c`` (j < N) modulo N
  (``cpp_values``), so each copy's events and addresses are constants; the copies make the
  loop's body, and the iterations a trip count leaves over (any, when it is not known) follow
  it.

Scalar declarations and assignments, pointer stores and the mask and cache calls PTOAS
writes are scalar work, not instructions. Any other statement is not understood: it is
listed (``unknown``) and left out, and the rest is still read.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ...ir import stmt as ir
from ...ir.expr import ConstBool
from ...ir.span import Span
from ...ir.types import DataType, ScalarType
from ...ops.registry import PipeType
from ...records import field, record
from .cpp_pipes import GM, VEC, instruction_pipe
from .cpp_syntax import CppBlock, CppDirective, CppFunction, CppNode, CppStatement
from .cpp_values import Known, Value, evaluate
from .stream import (
    Access,
    BarrierInstr,
    Branch,
    EventKey,
    Loop,
    Node,
    OpInstr,
    Region,
    SetInstr,
    WaitInstr,
)

#: Bytes of the element types PTOAS spells (C++'s and pto-isa's names).
ELEMENT_BYTES = {
    "float": 4,
    "half": 2,
    "bfloat16_t": 2,
    "int8_t": 1,
    "uint8_t": 1,
    "int16_t": 2,
    "uint16_t": 2,
    "int32_t": 4,
    "uint32_t": 4,
    "int64_t": 8,
    "uint64_t": 8,
}
#: Calls of scalar work PTOAS writes around the instructions.
SCALAR_CALLS = frozenset({"set_mask_norm", "set_vector_mask", "dcci", "dsb"})
CORES = ("__DAV_VEC__", "__DAV_CUBE__")

_IDENT = r"[A-Za-z_]\w*"
_CALL = re.compile(rf"^(?P<name>{_IDENT})\s*\((?P<args>.*)\)$")
_DECLARATION = re.compile(
    rf"^(?:const\s+)?(?P<type>{_IDENT}(?:::{_IDENT})*(?:\s*<.*>)?\s*\**)\s+"
    rf"(?P<name>{_IDENT})(?:\s*=\s*(?P<init>.*))?$"
)
_ASSIGNMENT = re.compile(r"^(?P<target>[^=]+?)\s*=\s*(?P<value>[^=].*)$")
_TILE = re.compile(
    r"^Tile\s*<\s*TileType::(?P<space>\w+)\s*,\s*(?P<dtype>\w+)\s*,\s*(?P<rows>\d+)\s*,\s*"
    r"(?P<cols>\d+)(?:\s*,\s*BLayout::(?P<layout>\w+)\s*,\s*(?P<vrows>-?\d+)\s*,\s*"
    r"(?P<vcols>-?\d+))?"
)
#: PTOAS's rule for vector chains (its InsertSync, ``CanPrunePipeVBarrier``): a V instruction
#: reading exactly the bytes the V instruction before it wrote needs no ``pipe_barrier(PIPE_V)``
#: when that access is contiguous and at least this many repeats of 256 bytes (the vector
#: register) long: the hardware keeps such a chain in order.
CHAIN_MIN_REPEATS = 16
VECTOR_REPEAT_BYTES = 256
_FOR = re.compile(
    rf"^for\s*\(\s*(?:{_IDENT}\s+)?(?P<var>{_IDENT})\s*=\s*(?P<start>[^;]+);\s*(?P=var)\s*<\s*"
    rf"(?P<stop>[^;]+);\s*(?P=var)\s*\+=\s*(?P<step>[^)]+)\)$"
)
_EVENT = re.compile(r"EVENT_ID(\d+)")
_FLAG_CALL = re.compile(r"^(?:set_flag|wait_flag)\s*\((?P<args>.*)\)$")
_MODULUS = re.compile(r"%\s*(?:\(\s*\w+\s*\)\s*)?(?P<modulus>\w+)")
#: The most copies a loop is unrolled into (PTOAS's multi-buffers have at most 16 slots).
MAX_PERIOD = 16
_DEFINED = re.compile(r"defined\s*\(\s*(?P<macro>\w+)\s*\)")
#: The condition of the IR statements that stand for C++ blocks (their span is all they say).
_TRUE = ConstBool(ScalarType(DataType.BOOL), value=True)


@record(frozen=True, slots=True, eq=False)
class CppStmt(ir.Stmt):
    """A statement of PTOAS's C++ in the checker's stream: its text, its C++ line, and (the
    span) the kernel source it was generated for."""

    text: str = ""
    cpp_line: int = 0


def split_arguments(text: str) -> list[str]:
    """A call's arguments, split at the commas outside parentheses and angle brackets."""
    parts: list[str] = []
    current: list[str] = []
    depth = 0
    for char in text:
        if char in "(<[":
            depth += 1
        elif char in ")>]":
            depth -= 1
        if char == "," and depth == 0:
            parts.append("".join(current).strip())
            current = []
            continue
        current.append(char)
    if "".join(current).strip():
        parts.append("".join(current).strip())
    return parts


def cores_of(function: CppFunction) -> list[str | None]:
    """The cores whose sections the kernel has (None: it has none, one stream)."""
    found: set[str] = set()

    def visit(nodes: tuple[CppNode, ...]) -> None:
        for node in nodes:
            if isinstance(node, CppDirective):
                found.update(m["macro"] for m in _DEFINED.finditer(node.text))
            elif isinstance(node, CppBlock):
                visit(node.body)
                visit(node.orelse or ())

    visit(function.body)
    cores = [c for c in CORES if c in found]
    return list(cores) if cores else [None]


@record
class _Scope:
    """What the reader knows at a point: constants, tiles and tensors by variable."""

    constants: dict[str, int] = field(default_factory=dict)
    #: Values right modulo the unrolling's period only (from loop variables being unrolled).
    congruent: dict[str, int] = field(default_factory=dict)
    # name -> (space, bytes, whether an exact V chain on it is ordered: ``chain_ordered``)
    tiles: dict[str, tuple[str, int, bool]] = field(default_factory=dict)
    buffers: dict[str, frozenset[Region]] = field(default_factory=dict)
    scalars: set[str] = field(default_factory=set)  # parameters and scalar variables


class CppStreamReader:
    """One kernel of PTOAS's C++, as run by one core (``core``: its ``__DAV_*__`` macro, or
    None for every statement), read into the checker's nodes."""

    def __init__(
        self, function: CppFunction, core: str | None, locate: Callable[[CppStatement], Span]
    ) -> None:
        self.core = core
        self.locate = locate
        self.scope = _Scope()
        self.unknown: list[tuple[CppStatement, str]] = []
        self.chained: set[Region] = set()  # the checker's ``chained`` regions
        self.conditions: list[bool] = []
        self.period = 0  # the unrolling's period, in an unrolled loop (0: none)
        self.scope.scalars.update(function.parameters)
        self.nodes = self.read(function.body)

    # --- structure --------------------------------------------------------------------------

    def read(self, nodes: tuple[CppNode, ...]) -> tuple[Node, ...]:
        out: list[Node] = []
        for node in nodes:
            if isinstance(node, CppDirective):
                self.directive(node)
            elif not all(self.conditions):
                continue
            elif isinstance(node, CppBlock):
                self.block(node, out)
            else:
                out.extend(self.statement(node))
        return tuple(out)

    def directive(self, node: CppDirective) -> None:
        text = node.text.lstrip("#").strip()
        if text.startswith("if"):
            macros = [m["macro"] for m in _DEFINED.finditer(text)]
            cores = [m for m in macros if m in CORES]
            self.conditions.append(not cores or self.core is None or self.core in cores)
        elif text.startswith("else") and self.conditions:
            self.conditions[-1] = not self.conditions[-1]
        elif text.startswith("endif") and self.conditions:
            self.conditions.pop()

    def block(self, node: CppBlock, out: list[Node]) -> None:
        where = self.stmt(CppStatement(node.header, node.line))
        header = node.header
        if header.startswith("if"):
            then = self.read(node.body)
            orelse = self.read(node.orelse or ())
            out.append(Branch(ir.IfStmt(_TRUE, ir.SeqStmts(), span=where.span), then, orelse))
            return
        if re.match(r"(for|while)\s*\(", header):
            loop = _FOR.match(header)
            trips = self.trips(loop["start"], loop["stop"], loop["step"]) if loop else None
            stmt = ir.WhileStmt(_TRUE, ir.SeqStmts(), span=where.span)
            if loop is not None:
                self.scope.scalars.add(loop["var"])
                period = self.unrolling(node)
                start, step = self.value(loop["start"]), self.value(loop["step"])
                if period > 1 and start is not None and step is not None:
                    out.extend(self.unrolled(node, stmt, loop["var"], (start, step, period), trips))
                    return
            body = self.read(node.body)
            out.append(Loop(stmt, body, trips))
            return
        self.unknown.append((CppStatement(header, node.line), "a block that is no for loop or if"))
        out.extend(self.read(node.body))

    def unrolling(self, node: CppBlock) -> int:
        """The period a loop is unrolled by: when its sync names an event by a variable, the
        least common multiple of the constant moduli its statements take (0: none)."""
        statements: list[CppStatement] = []
        _statements(node.body, statements)
        dynamic = False
        for statement in statements:
            flag = _FLAG_CALL.match(statement.text)
            arguments = split_arguments(flag["args"]) if flag else []
            if len(arguments) == 3 and not _EVENT.fullmatch(arguments[2]):
                dynamic = True
        if not dynamic:
            return 0
        period = 1
        for statement in statements:
            for found in _MODULUS.finditer(statement.text):
                modulus = self.value(found["modulus"])
                if modulus is not None and 1 < modulus <= MAX_PERIOD:
                    period = math.lcm(period, modulus)
        return period if period <= MAX_PERIOD else 0

    def unrolled(
        self,
        node: CppBlock,
        stmt: ir.WhileStmt,
        var: str,
        shape: tuple[int, int, int],
        trips: int | None,
    ) -> list[Node]:
        """The loop unrolled by residue (``shape``: its start, step and the period N): a loop
        of N copies of its body, then the iterations left over, each copy read with the loop
        variable standing for its residue."""
        start, step, period = shape

        def copy(j: int) -> tuple[Node, ...]:
            outer, self.period = self.period, math.lcm(self.period or 1, period)
            self.scope.congruent[var] = start + j * step
            try:
                return self.read(node.body)
            finally:
                self.scope.congruent.pop(var, None)
                self.period = outer

        body = tuple(n for j in range(period) for n in copy(j))
        if trips is not None:
            full, left = divmod(trips, period)
            out: list[Node] = [Loop(stmt, body, full)] if full else []
            for j in range(left):
                out.extend(copy(j))
            return out
        # any number of iterations: whole periods, then stopping after any copy of the next
        tail: tuple[Node, ...] = ()
        for j in range(period - 2, -1, -1):
            then = (*copy(j), *tail)
            tail = (Branch(ir.IfStmt(_TRUE, ir.SeqStmts(), span=stmt.span), then, ()),)
        return [Loop(stmt, body, None), *tail]

    def trips(self, start: str, stop: str, step: str) -> int | None:
        values = [self.value(start), self.value(stop), self.value(step)]
        if any(v is None for v in values):
            return None
        first, last, stride = (v for v in values if v is not None)
        return max(0, -(-(last - first) // stride)) if stride > 0 else None

    def stmt(self, statement: CppStatement) -> CppStmt:
        return CppStmt(statement.text, statement.line, span=self.locate(statement))

    # --- statements -------------------------------------------------------------------------

    def statement(self, node: CppStatement) -> list[Node]:
        text = node.text
        call = _CALL.match(text)
        if call is not None and "=" not in text.split("(", 1)[0]:
            return self.call(node, call["name"], split_arguments(call["args"]))
        if text == "return" or text.startswith("return "):
            return []
        declared = _DECLARATION.match(text)
        if declared is not None and declared["type"] not in ("return",):
            self.declare(declared["type"].strip(), declared["name"], declared["init"])
            return []
        assigned = _ASSIGNMENT.match(text)
        if assigned is not None:
            self.assign(assigned["target"].strip(), assigned["value"].strip())
            return []
        self.unknown.append((node, "a statement of no form the reader knows"))
        return []

    def declare(self, type_: str, name: str, init: str | None) -> None:
        scope = self.scope
        tile = _TILE.match(type_)
        if tile is not None:
            size = ELEMENT_BYTES.get(tile["dtype"], 1) * int(tile["rows"]) * int(tile["cols"])
            scope.tiles[name] = (tile["space"], size, chain_ordered(tile))
            if init is not None and init.strip() in scope.buffers:
                scope.buffers[name] = scope.buffers[init.strip()]
            return
        if type_.startswith("GlobalTensor") and init is not None:
            opened = init.find("(")
            arguments = split_arguments(init[opened + 1 : init.rfind(")")]) if opened > 0 else []
            base = self.tensor_base(arguments[0] if arguments else "")
            scope.buffers[name] = frozenset({Region(f"{GM}#{base}", 0, 1)})
            return
        scope.scalars.add(name)
        value = self.evaluate(init) if init is not None else None
        scope.constants.pop(name, None)
        scope.congruent.pop(name, None)
        if value is not None and value.known is Known.EXACT:
            scope.constants[name] = value.number
        elif value is not None:
            scope.congruent[name] = value.number

    def assign(self, target: str, value: str) -> None:
        scope = self.scope
        if target in scope.tiles and value in scope.buffers:
            scope.buffers[target] = scope.buffers.get(target, frozenset()) | scope.buffers[value]
        else:
            scope.constants.pop(target, None)
            scope.congruent.pop(target, None)

    def tensor_base(self, pointer: str) -> str:
        """The parameter a GM address expression starts from (``v1 + (v7 + ...)`` -> v1)."""
        names = re.findall(_IDENT, pointer)
        for name in names:
            regions = self.scope.buffers.get(name)
            if regions is not None:
                return next(iter(regions)).space.split("#", 1)[1]
        return names[0] if names else pointer

    def value(self, text: str) -> int | None:
        """The exact value of a scalar expression (None: not known)."""
        found = self.evaluate(text)
        return found.number if found is not None and found.known is Known.EXACT else None

    def evaluate(self, text: str) -> Value | None:
        return evaluate(text, self.known, self.period)

    def known(self, name: str) -> Value | None:
        if name in self.scope.constants:
            return Value(self.scope.constants[name])
        if name in self.scope.congruent:
            return Value(self.scope.congruent[name], Known.CONGRUENT)
        return None

    def call(self, node: CppStatement, name: str, args: list[str]) -> list[Node]:
        if name in ("set_flag", "wait_flag"):
            return self.flag(node, name, args)
        if name == "pipe_barrier":
            pipe = _pipe(args[0]) if args else None
            if pipe is None:
                self.unknown.append((node, "a barrier of no pipe the reader knows"))
                return []
            return [BarrierInstr(self.stmt(node), pipe)]
        if name == "ptoas_auto_sync_tail":
            return self.tail(node, args)
        if name == "TASSIGN":
            self.place(args)
            return []
        if name == "TRESHAPE" and len(args) == 2 and args[1] in self.scope.buffers:
            self.scope.buffers[args[0]] = self.scope.buffers[args[1]]
            return []
        if name in SCALAR_CALLS:
            return []
        if re.fullmatch(r"T[A-Z0-9_]+", name):
            return self.instruction(node, name, args)
        self.unknown.append((node, f"a call of {name}, which is no pto-isa instruction or sync"))
        return []

    def flag(self, node: CppStatement, name: str, args: list[str]) -> list[Node]:
        signal, wait = (_pipe(args[0]), _pipe(args[1])) if len(args) == 3 else (None, None)
        if signal is None or wait is None:
            self.unknown.append((node, f"a {name} of no pipes and event id the reader knows"))
            return []
        named = _EVENT.fullmatch(args[2])
        event = int(named[1]) if named is not None else self.value(args[2])
        if event is None:
            self.unknown.append((node, f"a {name} whose event id {args[2]} is not known"))
            return []
        key = EventKey(signal, wait, event)
        stmt = self.stmt(node)
        return [SetInstr(stmt, key) if name == "set_flag" else WaitInstr(stmt, key)]

    def tail(self, node: CppStatement, args: list[str]) -> list[Node]:
        stmt = self.stmt(node)
        if args and args[0].endswith("kSetWaitMte3ToSEvent0"):
            key = EventKey(PipeType.MTE3, PipeType.S, 0)
            return [SetInstr(stmt, key), WaitInstr(stmt, key)]
        return [BarrierInstr(stmt, PipeType.ALL)]

    def place(self, args: list[str]) -> None:
        tile = self.scope.tiles.get(args[0]) if len(args) == 2 else None
        if tile is None:
            return
        address = self.value(args[1])
        space, size, chained = tile
        if address is None:
            region = Region(f"{space}#{args[0]}", 0, 1)  # an address PTOAS did not state
        else:
            region = Region(space, address, address + max(size, 1))
            if chained:
                self.chained.add(region)
        self.scope.buffers[args[0]] = frozenset({region})

    def instruction(self, node: CppStatement, name: str, args: list[str]) -> list[Node]:
        scope = self.scope
        unplaced = [
            a
            for a in args
            if re.fullmatch(_IDENT, a) and a not in scope.buffers and a not in scope.scalars
        ]
        if unplaced:
            what = "a tile without an address" if unplaced[0] in scope.tiles else "unknown"
            self.unknown.append((node, f"its operand {unplaced[0]} is {what}"))
            return []
        operands = [scope.buffers.get(a) for a in args]
        writes = operands[0] if operands and operands[0] is not None else frozenset()
        reads = frozenset(r for regions in operands[1:] if regions for r in regions)
        pipe, why = instruction_pipe(name, _spaces(reads), _spaces(writes))
        if pipe is None:
            self.unknown.append((node, why))
            return []
        if pipe in (PipeType.S, PipeType.ALL):
            return []
        access = Access(tuple(sorted(reads)), tuple(sorted(writes)))
        return [OpInstr(self.stmt(node), pipe, access)]


def _statements(nodes: tuple[CppNode, ...], into: list[CppStatement]) -> None:
    for node in nodes:
        if isinstance(node, CppBlock):
            _statements(node.body, into)
            _statements(node.orelse or (), into)
        elif isinstance(node, CppStatement):
            into.append(node)


def chain_ordered(tile: re.Match[str]) -> bool:
    """Whether a tile of this type is a contiguous vector access of at least
    ``CHAIN_MIN_REPEATS`` repeats (its valid region; a dynamic one is not known to be)."""
    if tile["space"] != VEC or tile["vrows"] is None:
        return False
    rows, cols = int(tile["rows"]), int(tile["cols"])
    valid_rows, valid_cols = int(tile["vrows"]), int(tile["vcols"])
    if not (0 < valid_rows <= rows and 0 < valid_cols <= cols):
        return False
    if tile["layout"] == "RowMajor":
        contiguous = valid_cols == cols or valid_rows == 1
    else:
        contiguous = valid_rows == rows or valid_cols == 1
    element = ELEMENT_BYTES.get(tile["dtype"], 0)
    if not contiguous or element == 0:
        return False
    per_repeat = VECTOR_REPEAT_BYTES // element
    return -(-(valid_rows * valid_cols) // per_repeat) >= CHAIN_MIN_REPEATS


def _spaces(regions: frozenset[Region]) -> frozenset[str]:
    return frozenset(r.space.split("#", 1)[0] for r in regions)


def _pipe(text: str) -> PipeType | None:
    name = text.strip().removeprefix("PIPE_")
    return PipeType.__members__.get(name) if text.strip().startswith("PIPE_") else None
