"""One definition of a line for the whole project: LSP's and Python's tokenizer's.

A line ends at ``\\n``, ``\\r\\n`` or ``\\r``, and nowhere else. ``str.splitlines`` also breaks at
form feeds, vertical tabs, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and U+2029, which would put every
position after such a character on the wrong line.
"""

from __future__ import annotations

import re

LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
BREAK = re.compile(r"\r\n|\r|\n")
# CPython re-reads the line of a syntax error from the file named in ast.parse(filename=...);
# a directory cannot be read that way, so the line then comes from the text being parsed.
PARSE_FILENAME = "/"


# The ASCII characters other than \n and \r that str.splitlines also breaks at.
_ODD_ASCII_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their line breaks (``[]`` for an empty text)."""
    if text.isascii() and not any(c in text for c in _ODD_ASCII_BREAKS):
        return text.splitlines(keepends=True)  # the same lines here, several times faster
    return LINE.findall(text)
