"""The kernel source lines of PTOAS's C++ statements.

PTOAS's C++ carries no locations, but it keeps the order of the MLIR it lowers: each ``pto.X``
operation becomes its pto-isa call ``X`` (``pto.tmatmul.acc`` -> ``TMATMUL_ACC``), each
``scf.for`` / ``scf.if`` its ``for`` / ``if``, in the same order, with PTOAS's sync added
between them. ptoc knows the source line of each MLIR line it generated (the line spans
``--line-directives`` writes as ``loc(...)``), so the k-th call is matched with the next
operation of its name, in order, and takes its line. A ``set_flag`` takes the line of the
instruction before it (the one whose work it signals), a ``wait_flag`` or barrier the line of
the instruction after it (the one it holds); what matches nothing takes the function's.

Sync the kernel writes itself is in the MLIR too (``pto.set_flag[<PIPE_MTE2>, <PIPE_V>,
<EVENT_ID0>]``, ``pto.barrier <PIPE_V>``): PTOAS writes it as ``set_flag(PIPE_MTE2, PIPE_V,
EVENT_ID0)`` / ``pipe_barrier(PIPE_V)`` in place, so such a statement takes the line of its
own operation, when that operation comes next (among sync operations only: a statement PTOAS
inserted never skips an instruction of the MLIR).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ...ir.span import Span
from .cpp_syntax import CppBlock, CppFunction, CppNode, CppStatement

_FUNC = re.compile(r"^\s*func\.func\s+(?:\w+\s+)?@(?P<name>[\w$.]+)\s*\(")
_OPERATION = re.compile(r"^\s*(?:%[^=]*=\s*)?(?P<dialect>pto|scf)\.(?P<op>[\w.]+)")
_INSTRUCTION = re.compile(r"^(?P<name>T[A-Z0-9_]+)\s*\(")
_SIGNALS = ("set_flag", "ptoas_auto_sync_tail")
# The kernel's own sync in the MLIR, and PTOAS's C++ of it: both keyed by their C++ text.
_MLIR_FLAG = re.compile(
    r"^\s*pto\.(?P<kind>set_flag|wait_flag)\[<(?P<set>\w+)>, <(?P<wait>\w+)>, <(?P<event>\w+)>\]"
)
_MLIR_BARRIER = re.compile(r"^\s*pto\.barrier <(?P<pipe>\w+)>")
_CPP_SYNC = re.compile(r"^(?:set_flag|wait_flag|pipe_barrier)\s*\(")
_NOT_OPERATIONS = frozenset({"TASSIGN"})


def _key(dialect: str, op: str) -> str | None:
    if dialect == "scf":
        return {"for": "for", "if": "if"}.get(op)
    return op.replace(".", "_").upper()


def mlir_operations(
    mlir: str, spans: Sequence[Span | None]
) -> dict[str, list[tuple[str, Span | None]]]:
    """Function symbol -> its operations in order: (the C++ they become, their source)."""
    found: dict[str, list[tuple[str, Span | None]]] = {}
    current: list[tuple[str, Span | None]] | None = None
    for index, line in enumerate(mlir.split("\n")):
        function = _FUNC.match(line)
        if function is not None:
            current = found.setdefault(function["name"], [])
            continue
        operation = _OPERATION.match(line)
        if operation is None or current is None:
            continue
        key = _sync_key(line) or _key(operation["dialect"], operation["op"])
        if key is not None:
            current.append((key, spans[index] if index < len(spans) else None))
    return found


def _sync_key(line: str) -> str | None:
    """The C++ PTOAS writes for a sync operation of the MLIR (None: it is none)."""
    flag = _MLIR_FLAG.match(line)
    if flag is not None:
        return f"{flag['kind']}({flag['set']}, {flag['wait']}, {flag['event']})"
    barrier = _MLIR_BARRIER.match(line)
    return f"pipe_barrier({barrier['pipe']})" if barrier is not None else None


def _is_sync(key: str) -> bool:
    return _CPP_SYNC.match(key) is not None


def _in_order(nodes: tuple[CppNode, ...], into: list[CppStatement]) -> None:
    for node in nodes:
        if isinstance(node, CppBlock):
            into.append(CppStatement(node.header, node.line))
            _in_order(node.body, into)
            _in_order(node.orelse or (), into)
        elif isinstance(node, CppStatement):
            into.append(node)


def _operation_key(statement: CppStatement) -> str | None:
    text = statement.text
    if text.startswith("for ") or text.startswith("for("):
        return "for"
    if text.startswith("if ") or text.startswith("if("):
        return "if"
    if _CPP_SYNC.match(text):
        return " ".join(text.rstrip(";").split())
    found = _INSTRUCTION.match(text)
    if found is None or found["name"] in _NOT_OPERATIONS:
        return None
    return found["name"]


def statement_locator(
    function: CppFunction,
    operations: Sequence[tuple[str, Span | None]],
    fallback: Span,
) -> Callable[[CppStatement], Span]:
    """Each statement of ``function`` -> the kernel source it stands for (see the module)."""
    statements: list[CppStatement] = []
    _in_order(function.body, statements)
    matched: dict[int, Span] = {}
    position = 0
    for statement in statements:
        key = _operation_key(statement)
        if key is None:
            continue
        for index in range(position, len(operations)):
            if _is_sync(key) and not _is_sync(operations[index][0]):
                break  # sync PTOAS inserted: it takes the lines around it
            if operations[index][0] == key:
                span = operations[index][1]
                if span is not None and span.is_known:
                    matched[statement.line] = span
                position = index + 1
                break
    before: list[Span | None] = []  # the matched line at or before each statement
    last: Span | None = None
    for statement in statements:
        last = matched.get(statement.line, last)
        before.append(last)
    after: list[Span | None] = [None] * len(statements)  # ... at or after it
    last = None
    for number in range(len(statements) - 1, -1, -1):
        last = matched.get(statements[number].line, last)
        after[number] = last
    located: dict[int, Span] = {}
    for number, statement in enumerate(statements):
        if statement.line in matched:
            located[statement.line] = matched[statement.line]
            continue
        previous = before[number]
        following = after[number]
        if statement.text.startswith(_SIGNALS):
            nearest = previous or following
        else:
            nearest = following or previous
        located[statement.line] = nearest or fallback
    return lambda statement: located.get(statement.line, fallback)
