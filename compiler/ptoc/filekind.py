"""Is this a PyPTO file? The one sniff the front end, the CLI's directory walks, ``ptoc fmt``
and the language server share: a file is a kernel file when it imports ``pypto.language`` (or
the legacy ``pypto.ir``) or starts with a printed-IR header. It reads text only, so it is cheap
enough to run on every file of a workspace before any analysis."""

from __future__ import annotations

import re
from collections.abc import Sequence

from .lines import split_lines

# `# pypto.program: NAME` before any code marks a printed IR file.
HEADER = re.compile(r"^#\s*pypto\.program(?::\s*(?P<name>[A-Za-z_][A-Za-z0-9_]*))?\s*$")
# An import statement that names the DSL module (also as one of several imports on the line).
IMPORT_LINE = re.compile(
    r"^[ \t]*(import[ \t]+[^\n#]*\bpypto\.(language|ir)\b"
    r"|from[ \t]+pypto(\.language)?[ \t]+import\b)",
    re.MULTILINE,
)
HEADER_LINES = 20


def program_header(lines: Sequence[str]) -> tuple[bool, str | None]:
    """(is a printed IR file, its program name) from the leading comment lines."""
    for line in lines[:HEADER_LINES]:
        stripped = line.strip()
        if not stripped:
            continue
        match = HEADER.match(stripped)
        if match:
            return True, match.group("name")
        if not stripped.startswith("#"):
            break
    return False, None


def imports_pypto(text: str) -> bool:
    """Whether some line of ``text`` imports the DSL module (works on text that does not parse)."""
    return IMPORT_LINE.search(text) is not None


def is_pypto_source(text: str) -> bool:
    """A printed IR file, or a file with an import of ``pypto.language``."""
    return program_header(split_lines(text[:20_000])[:HEADER_LINES])[0] or imports_pypto(text)
