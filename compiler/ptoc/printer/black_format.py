"""The final formatting step: printed text goes through black, so ``ptoc fmt --check``
accepts it as is."""

from __future__ import annotations

import black

DEFAULT_LINE_LENGTH = 88


def format_source(text: str, line_length: int = DEFAULT_LINE_LENGTH) -> str:
    """``text`` as black formats it; unchanged if black rejects it (the printer never
    raises, and unformatted text is still the right program)."""
    try:
        return black.format_str(text, mode=black.Mode(line_length=line_length))
    except Exception:  # black.InvalidInput, or anything from malformed IR names
        return text if text.endswith("\n") else text + "\n"
