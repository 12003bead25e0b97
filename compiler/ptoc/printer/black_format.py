"""The final formatting step: printed text is what black makes of it, so ``ptoc fmt --check``
accepts it as is.

Black costs about a millisecond per line (more on a long class), so printed lines do not all
go through it: the printer already writes black's spellings, and a line that fits is left as
it is; only a longer one is handed to black, on its own (dedented, at the width its
indentation leaves, which is how black measures it too), and only once per shape (see
``shapes``). Tests compare the result with black's on the whole text.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..ir.span import Span
from .shapes import shape_of
from .spans import span_of

DEFAULT_LINE_LENGTH = 88
_HEADERS = ("def ", "for ", "if ", "elif ", "while ", "with ", "class ")


def format_source(text: str, line_length: int = DEFAULT_LINE_LENGTH) -> str:
    """``text`` as black formats it; unchanged if black rejects it (the printer never
    raises, and unformatted text is still the right program)."""
    import black  # ~100 ms to import: loaded only when a text needs it (never by check)

    try:
        return black.format_str(text, mode=black.Mode(line_length=line_length))
    except Exception:  # black.InvalidInput, or anything from malformed IR names
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
    out: list[str] = []
    spans: list[Span | None] = []
    for line in lines:
        if len(line) <= line_length and line.isascii():  # else black measures wide characters
            out.append(line)
            spans.append(span_of(line))
            continue
        split = _split(str(line), line_length)  # a plain key: the cache keeps no line's span
        if split is None:
            text = format_source("\n".join(lines) + "\n", line_length)
            return text, [None] * text.count("\n")
        out.append(split)
        spans.extend([span_of(line)] * (split.count("\n") + 1))
    return "\n".join(out) + "\n", spans


@lru_cache(maxsize=4096)
def _split(line: str, line_length: int) -> str | None:
    """Black's form of one long line, or None if it is not a statement black takes alone
    (kept per line: the stages of a pass diff print most lines again)."""
    text = line.lstrip(" ")
    indent = line[: len(line) - len(text)]
    width = line_length - len(indent)
    shape = shape_of(text)
    laid_out = _black_alone(shape.text, width) if shape is not None else None
    formatted = shape.restore(laid_out) if shape is not None and laid_out is not None else None
    if formatted is None:
        formatted = _black_alone(text, width)
    if formatted is None:
        return None
    return "\n".join(indent + part if part else part for part in formatted.split("\n"))


@lru_cache(maxsize=4096)
def _black_alone(text: str, width: int) -> str | None:
    # A compound statement's header needs a body, a decorator its function.
    if text.startswith("@"):
        tail = ["def f():", "    pass"]
    elif text.startswith(_HEADERS) or text == "else:":
        tail = ["    pass"]
    else:
        tail = []
    source = "\n".join([text, *tail]) + "\n"
    import black

    try:
        formatted = black.format_str(source, mode=black.Mode(line_length=width))
    except Exception:  # malformed names: the whole text goes to format_source instead
        return None
    kept = formatted.split("\n")[: -1 - len(tail)]
    if formatted.split("\n")[-1 - len(tail) :] != [*tail, ""] or not kept:
        return None
    return "\n".join(kept)
