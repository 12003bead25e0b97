"""``ptoc fmt``: rewrite legacy spellings to canonical ones (the front end's W003 fixes), format
with black, and keep the result only if it provably means the same program.

``format_source`` is the whole formatter for one text (the language server uses it too);
``command`` is the ``ptoc fmt`` subcommand, ``config`` reads ``[tool.ptoc]``.
"""

from .formatter import DEFAULT_LINE_LENGTH, FormatResult, FormatStatus, format_source

__all__ = ["DEFAULT_LINE_LENGTH", "FormatResult", "FormatStatus", "format_source"]
