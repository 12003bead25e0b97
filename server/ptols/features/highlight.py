"""Document highlights: every read and write of the value under the cursor. A loop-carried
value is one value with its init value, what the body yields for it and the loop's result;
an `if`'s result is one value with what each branch yields."""

from __future__ import annotations

from dataclasses import dataclass, field

from lsprotocol import types

from ptoc.frontend import ModuleAnalysis, Occurrence, OccurrenceKind
from ptoc.ir.expr import Var
from ptoc.ir.span import Span
from ptoc.ir.stmt import ForStmt, IfStmt, SeqStmts, Stmt, WhileStmt, YieldStmt
from ptoc.ir.walk import walk_stmts

from ..convert import Positions
from ..text import LineIndex, Stale

Place = tuple[int, int, int, int]  # a span's (line, column, end line, end column)
NOT_VALUES = (OccurrenceKind.TYPE, OccurrenceKind.OP, OccurrenceKind.HELPER)


def place(span: Span) -> Place:
    return span.line, span.column, span.end_line, span.end_column


@dataclass
class Carried:
    """One value carried through yields: the definitions naming it (iter_arg, results) and
    the values written into it, each with the lines where that write is (header, yield)."""

    names: set[Place] = field(default_factory=set)
    writers: list[tuple[Place, int, int]] = field(default_factory=list)
    # (name, first line, last line): each branch's `r = pl.yield_(...)` defines the result again
    targets: list[tuple[str, int, int]] = field(default_factory=list)

    def write(self, value: object, first_line: int, last_line: int) -> None:
        if isinstance(value, Var) and value.span.is_known:
            self.writers.append((place(value.span), first_line, last_line))


def final_yield(body: Stmt | None) -> YieldStmt | None:
    if isinstance(body, SeqStmts) and body.stmts:
        body = body.stmts[-1]
    return body if isinstance(body, YieldStmt) else None


def carried_values(analysis: ModuleAnalysis) -> list[Carried]:
    found: list[Carried] = []
    functions = [fn for program in analysis.programs for fn in program.functions]
    for fn in [*functions, *analysis.functions]:
        for stmt in walk_stmts(fn.body):
            if isinstance(stmt, ForStmt | WhileStmt) and stmt.iter_args:
                found += loop_values(stmt)
            elif isinstance(stmt, IfStmt) and stmt.return_vars:
                found += branch_values(stmt)
    return found


def loop_values(stmt: ForStmt | WhileStmt) -> list[Carried]:
    found = []
    yielded = final_yield(stmt.body)
    header_end = first_line(stmt.body) - 1
    for index, arg in enumerate(stmt.iter_args):
        value = Carried({place(arg.span)})
        if index < len(stmt.return_vars):
            value.names.add(place(stmt.return_vars[index].span))
        value.write(arg.init_value, stmt.span.line, max(header_end, stmt.span.line))
        if yielded is not None and index < len(yielded.values):
            value.write(yielded.values[index], yielded.span.line, yielded.span.end_line)
        found.append(value)
    return found


def branch_values(stmt: IfStmt) -> list[Carried]:
    found = []
    yields = [final_yield(stmt.then_body), final_yield(stmt.else_body)]
    for index, result in enumerate(stmt.return_vars):
        value = Carried({place(result.span)})
        for yielded in yields:
            if yielded is not None and index < len(yielded.values):
                value.write(yielded.values[index], yielded.span.line, yielded.span.end_line)
                value.targets.append((result.name, yielded.span.line, yielded.span.end_line))
        found.append(value)
    return found


def first_line(body: Stmt) -> int:
    if isinstance(body, SeqStmts) and body.stmts:
        body = body.stmts[0]
    return body.span.line


def highlights(
    analysis: ModuleAnalysis, occ: Occurrence, positions: Positions
) -> list[types.DocumentHighlight]:
    if occ.kind in NOT_VALUES or occ.kind is OccurrenceKind.EXPRESSION:
        return []
    target = place(occ.definition or occ.span)
    names = {target}
    writers: list[tuple[Place, int, int]] = []
    for value in carried_values(analysis):
        names_again = value.names | redefinitions(value, positions.analysed)
        if target in names_again:
            names |= names_again
            writers += value.writers
    kinds: dict[Place, types.DocumentHighlightKind] = {
        here: types.DocumentHighlightKind.Write for here in names if here != target
    }
    for other in analysis.index.occurrences:
        if other.kind in NOT_VALUES or other.kind is OccurrenceKind.EXPRESSION:
            continue
        defined = place(other.definition or other.span)
        here = place(other.span)
        if defined in names:
            kinds[here] = write_or_read(other)
        elif any(defined == w and first <= here[0] <= last for w, first, last in writers):
            kinds[here] = types.DocumentHighlightKind.Write
    found = []
    for here in sorted(kinds):
        try:
            span_range = positions.offset_range(*offsets(positions, here))
        except Stale:
            continue
        found.append(types.DocumentHighlight(range=span_range, kind=kinds[here]))
    return found


def redefinitions(value: Carried, index: LineIndex) -> set[Place]:
    """Where each branch's `r = pl.yield_(...)` names an `if`'s result again (the front end
    indexes only the first)."""
    found = set()
    for name, first, _ in value.targets:
        if first - 1 < index.line_count:
            start = assigned_at(index.line(first - 1), name)
            if start is not None:
                found.add((first, start, first, start + len(name)))
    return found


def assigned_at(line: str, name: str) -> int | None:
    """Where ``line`` starts by assigning (or annotating) ``name``: its column, or None. (Not
    a pattern per name: those filled the ``re`` module's cache with the user's names.)"""
    start = len(line) - len(line.lstrip())
    if not line.startswith(name, start):
        return None
    rest = line[start + len(name) :].lstrip()
    return start if rest[:1] in (":", "=") else None


def write_or_read(occ: Occurrence) -> types.DocumentHighlightKind:
    if occ.is_definition:
        return types.DocumentHighlightKind.Write
    return types.DocumentHighlightKind.Read


def offsets(positions: Positions, here: Place) -> tuple[int, int]:
    """A place in the analysed text -> code-point offsets in the current text (Stale where the
    text changed)."""
    start = positions.analysed.offset(here[0] - 1, here[1])
    end = positions.analysed.offset(here[2] - 1, here[3])
    if positions.shift is not None:
        start, end = positions.shift.forward(start, end)
    return start, end
