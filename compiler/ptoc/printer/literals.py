"""Python literal spellings, written the way black leaves them (so fragments that are not
passed through black still match the formatted module text)."""

from __future__ import annotations

import math


def float_literal(value: float) -> str:
    """A float literal that reads back as the same value; always recognisably a float."""
    if math.isinf(value):
        # 1e999 overflows to infinity when read: the only literal spelling of it.
        return "1e999" if value > 0 else "-1e999"
    if math.isnan(value):
        return 'float("nan")'
    return repr(value).replace("e+", "e")


def string_literal(value: str) -> str:
    """Double quotes unless that needs more escapes (black's preference)."""
    text = repr(value)
    if text.startswith("'") and '"' not in value:
        text = '"' + text[1:-1] + '"'
    return text


def hex_literal(value: int) -> str:
    digits = f"{abs(value):X}"
    return f"-0x{digits}" if value < 0 else f"0x{digits}"


def tuple_literal(items: list[str]) -> str:
    """A parenthesised tuple; a single element keeps its trailing comma."""
    if len(items) == 1:
        return f"({items[0]},)"
    return "(" + ", ".join(items) + ")"
