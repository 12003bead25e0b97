"""A statement's shape: its text with every identifier and plain integer replaced by a
placeholder of the same length (``a...``, ``1...``).

Black's layout depends on token kinds and widths, never on which name or digits a token
holds, so statements of one shape (the same call on other tiles, other sizes) are laid out
alike: the printer asks black once per shape and puts the tokens back. Keywords, soft
keywords, non-ASCII names (whose width may differ) and other numbers stay as they are.
"""

from __future__ import annotations

import io
import keyword
import re
import tokenize

from ..records import record

_PLAIN_INT = re.compile(r"[1-9][0-9]*")


@record(frozen=True)
class Shape:
    text: str
    tokens: tuple[str, ...]  # the replaced tokens, in order

    def restore(self, formatted: str) -> str | None:
        """``formatted`` (black's layout of ``text``) with the tokens put back; None if black
        did not keep them in order (then the caller formats the statement itself)."""
        found = _replaceable(formatted)
        if found is None or len(found) != len(self.tokens):
            return None
        lines = formatted.split("\n")
        for (row, column, placeholder), token in zip(found, self.tokens, strict=True):
            if placeholder != _placeholder(token):
                return None
            line = lines[row]
            lines[row] = line[:column] + token + line[column + len(token) :]
        return "\n".join(lines)


def shape_of(text: str) -> Shape | None:
    """The shape of one statement's source, or None when it cannot be tokenised."""
    found = _replaceable(text)
    if found is None:
        return None
    lines = text.split("\n")
    tokens = []
    for row, column, token in found:
        tokens.append(token)
        line = lines[row]
        lines[row] = line[:column] + _placeholder(token) + line[column + len(token) :]
    return Shape("\n".join(lines), tuple(tokens))


def _placeholder(token: str) -> str:
    return ("1" if token[0].isdigit() else "a") * len(token)


def _replaceable(text: str) -> list[tuple[int, int, str]] | None:
    """(0-based row, column, token) of every identifier and plain integer."""
    out = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            kind, value = tok.type, tok.string
            if (
                kind == tokenize.NAME
                and value.isascii()
                and not keyword.iskeyword(value)
                and not keyword.issoftkeyword(value)
            ) or (kind == tokenize.NUMBER and _PLAIN_INT.fullmatch(value)):
                out.append((tok.start[0] - 1, tok.start[1], value))
    except (tokenize.TokenError, SyntaxError):
        return None
    return out
