"""``ptoc fmt``: rewrite legacy spellings to canonical ones (the front end's W003 fixes), format
with black, and keep the result only if it provably means the same program.

``format_source`` is the whole formatter for one text (the language server uses it too);
``command`` is the ``ptoc fmt`` subcommand, ``config`` reads ``[tool.ptoc]``.
"""

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .formatter import DEFAULT_LINE_LENGTH, FormatResult, FormatStatus, format_source


def __getattr__(name: str) -> Any:
    """The formatter's names load on first use: ``ptoc check`` imports ``ptoc.fmt.config``
    and must not pay for the formatter."""
    if name in __all__:
        from . import formatter

        return getattr(formatter, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["DEFAULT_LINE_LENGTH", "FormatResult", "FormatStatus", "format_source"]
