"""One definition of a line for the whole project: LSP's and Python's tokenizer's.

A line ends at ``\\n``, ``\\r\\n`` or ``\\r``, and nowhere else. ``str.splitlines`` also breaks at
form feeds, vertical tabs, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and U+2029, which would put every
position after such a character on the wrong line.
"""

from __future__ import annotations

import re
import warnings

LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
BREAK = re.compile(r"\r\n|\r|\n")
# CPython re-reads the line of a syntax error from the file named in ast.parse(filename=...);
# a directory cannot be read that way, so the line then comes from the text being parsed.
PARSE_FILENAME = "/"
# Python's SyntaxWarnings about a text ptoc parses ("invalid decimal literal" for ``1if x``) are
# about code ptoc reads and never runs: they would go to stderr, the CLI's and the server's log,
# as noise. Only warnings raised while parsing such text (named PARSE_FILENAME, or a string
# without a name) are silenced; ``ast.parse`` here is never the program's own compilation.
warnings.filterwarnings("ignore", category=SyntaxWarning, module=r"(/|<unknown>)\Z")


# The ASCII characters other than \n and \r that str.splitlines also breaks at.
_ODD_ASCII_BREAKS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e")


def split_lines(text: str) -> list[str]:
    """The lines of ``text`` with their line breaks (``[]`` for an empty text)."""
    if text.isascii() and not any(c in text for c in _ODD_ASCII_BREAKS):
        return text.splitlines(keepends=True)  # the same lines here, several times faster
    return LINE.findall(text)
