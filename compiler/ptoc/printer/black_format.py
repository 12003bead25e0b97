"""The final formatting step: printed text is what black makes of it, so ``ptoc fmt --check``
accepts it as is.

Black costs about a millisecond per line (more on a long class), so printed lines do not all
go through it: the printer already writes black's spellings, and a line that fits is left as
it is; only a longer one is handed to black, on its own (dedented, at the width its
indentation leaves, which is how black measures it too), and only once per shape (see
``shapes``). Tests compare the result with black's on the whole text.

Black itself runs where ``set_black_runner`` says: in this process by default, elsewhere for
a long-lived caller. The language server sends it to its formatting child: black's code and
objects (~8 MB) and the cyclic syntax trees each call leaves (~15,000 objects for one IR
preview) stayed in the server for good, and set its memory's high-water mark (issue #33).
"""

from __future__ import annotations

import _thread  # threading would cost ~1 ms to import; a lock is all this needs
from collections import OrderedDict
from collections.abc import Callable, Hashable, Sequence
from typing import Any

from ..ir.span import Span
from .shapes import shape_of
from .spans import span_of

DEFAULT_LINE_LENGTH = 88
_HEADERS = ("def ", "for ", "if ", "elif ", "while ", "with ", "class ")

#: Black over a batch: each (source, line length) -> black's text, or None where black
#: rejects the source. ``black_texts`` runs it here; ``set_black_runner`` chooses another.
BlackRunner = Callable[[list[tuple[str, int]]], list[str | None]]


def black_texts(sources: list[tuple[str, int]]) -> list[str | None]:
    """Black's text for each (source, line length), or None where black rejects it, run in
    this process."""
    import black  # ~100 ms to import: loaded only when a text needs it (never by check)

    found: list[str | None] = []
    for source, line_length in sources:
        try:
            found.append(black.format_str(source, mode=black.Mode(line_length=line_length)))
        except Exception:  # black.InvalidInput, or anything from malformed IR names
            found.append(None)
    return found


_RUNNER: list[BlackRunner] = [black_texts]


def set_black_runner(runner: BlackRunner | None) -> None:
    """Run black through ``runner`` from now on (None: in this process again). A runner that
    raises leaves that batch to this process, so the text printed never depends on it."""
    _RUNNER[0] = runner or black_texts


def _run_black(sources: list[tuple[str, int]]) -> list[str | None]:
    runner = _RUNNER[0]
    if runner is not black_texts:
        try:
            found = runner(sources)
            if len(found) == len(sources):
                return found
        except Exception:  # the runner's process is gone or slow: black runs here instead
            pass
    return black_texts(sources)


class _Kept:
    """At most ``size`` results, the least recently used dropped first (the printer runs on
    several of the server's threads at once)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: OrderedDict[Hashable, Any] = OrderedDict()
        self.lock = _thread.allocate_lock()

    def get(self, key: Hashable) -> tuple[bool, Any]:
        with self.lock:
            if key not in self.items:
                return False, None
            self.items.move_to_end(key)
            return True, self.items[key]

    def put(self, key: Hashable, value: Any) -> None:
        with self.lock:
            self.items[key] = value
            self.items.move_to_end(key)
            while len(self.items) > self.size:
                self.items.popitem(last=False)

    def clear(self) -> None:
        with self.lock:
            self.items.clear()


# Per long line (the stages of a pass diff print most lines again), and per statement shape
# black laid out alone.
_SPLITS = _Kept(4096)
_ALONE = _Kept(4096)


def clear_caches() -> None:
    """Forget every layout kept (tests that count or route black's calls start from
    nothing)."""
    _SPLITS.clear()
    _ALONE.clear()


def format_source(text: str, line_length: int = DEFAULT_LINE_LENGTH) -> str:
    """``text`` as black formats it; unchanged if black rejects it (the printer never
    raises, and unformatted text is still the right program)."""
    (formatted,) = _run_black([(text, line_length)])
    if formatted is not None:
        return formatted
    return text if text.endswith("\n") else text + "\n"


def format_printed(lines: Sequence[str], line_length: int = DEFAULT_LINE_LENGTH) -> str:
    """``format_source`` of the printer's ``lines``: each one logical line, blank lines
    already where black puts them."""
    return format_printed_mapped(lines, line_length)[0]


def format_printed_mapped(
    lines: Sequence[str], line_length: int = DEFAULT_LINE_LENGTH
) -> tuple[str, list[Span | None]]:
    """``format_printed`` and, per output line, the span the printer gave its logical line
    (a line black splits keeps it on every part; none when black had to take the whole
    text)."""
    long = [str(line) for line in lines if not _fits(line, line_length)]  # plain keys: the
    splits = _splits(long, line_length) if long else {}  # caches keep no line's span
    out: list[str] = []
    spans: list[Span | None] = []
    for line in lines:
        if _fits(line, line_length):
            out.append(line)
            spans.append(span_of(line))
            continue
        split = splits[str(line)]
        if split is None:
            text = format_source("\n".join(lines) + "\n", line_length)
            return text, [None] * text.count("\n")
        out.append(split)
        spans.extend([span_of(line)] * (split.count("\n") + 1))
    return "\n".join(out) + "\n", spans


def _fits(line: str, line_length: int) -> bool:
    return len(line) <= line_length and line.isascii()  # else black measures wide characters


def _splits(lines: list[str], line_length: int) -> dict[str, str | None]:
    """Black's form of each long line, or None for one that is not a statement black takes
    alone: its shape laid out (one batch for black), else the line itself (a second)."""
    found: dict[str, str | None] = {}
    todo: list[tuple[str, str, int]] = []  # (line, its text dedented, the width left)
    for line in dict.fromkeys(lines):
        known, split = _SPLITS.get((line, line_length))
        if known:
            found[line] = split
            continue
        text = line.lstrip(" ")
        todo.append((line, text, line_length - (len(line) - len(text))))
    shapes = [shape_of(text) for _, text, _ in todo]
    shaped = iter(_alone([(s.text, w) for s, (_, _, w) in zip(shapes, todo, strict=True) if s]))
    restored: list[str | None] = []
    for shape in shapes:
        form = next(shaped) if shape is not None else None
        restored.append(shape.restore(form) if shape is not None and form is not None else None)
    unshaped = [(text, w) for (_, text, w), r in zip(todo, restored, strict=True) if r is None]
    alone = iter(_alone(unshaped))
    for (line, text, _), formatted in zip(todo, restored, strict=True):
        if formatted is None:
            formatted = next(alone)
        indent = line[: len(line) - len(text)]
        split = (
            None
            if formatted is None
            else "\n".join(indent + part if part else part for part in formatted.split("\n"))
        )
        _SPLITS.put((line, line_length), split)
        found[line] = split
    return found


def _alone(statements: list[tuple[str, int]]) -> list[str | None]:
    """Black's layout of each (statement, width) on its own, or None; each asked once."""
    results: dict[tuple[str, int], str | None] = {}
    missing: list[tuple[str, int]] = []
    for key in dict.fromkeys(statements):
        known, layout = _ALONE.get(key)
        if known:
            results[key] = layout
        else:
            missing.append(key)
    if missing:
        tails = [_tail(text) for text, _ in missing]
        sources = [
            ("\n".join([text, *tail]) + "\n", width)
            for (text, width), tail in zip(missing, tails, strict=True)
        ]
        for key, tail, formatted in zip(missing, tails, _run_black(sources), strict=True):
            layout = None if formatted is None else _without_tail(formatted, tail)
            _ALONE.put(key, layout)
            results[key] = layout
    return [results[key] for key in statements]


def _tail(text: str) -> list[str]:
    """What makes a statement complete on its own: a compound statement's header needs a
    body, a decorator its function."""
    if text.startswith("@"):
        return ["def f():", "    pass"]
    if text.startswith(_HEADERS) or text == "else:":
        return ["    pass"]
    return []


def _without_tail(formatted: str, tail: list[str]) -> str | None:
    kept = formatted.split("\n")[: -1 - len(tail)]
    if formatted.split("\n")[-1 - len(tail) :] != [*tail, ""] or not kept:
        return None
    return "\n".join(kept)
