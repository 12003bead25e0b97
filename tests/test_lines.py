"""``split_lines``: LSP's line breaks only, on its fast (ASCII) path and its general one."""

from __future__ import annotations

import itertools

from ptoc.lines import LINE, split_lines


def test_odd_ascii_breaks_are_not_line_breaks() -> None:
    text = "a\x0bb\x0cc\x1cd\x1de\x1ef\x1fg\n"
    assert split_lines(text) == [text]


def test_every_break_and_ending() -> None:
    assert split_lines("") == []
    assert split_lines("a\r\nb\rc\nd") == ["a\r\n", "b\r", "c\n", "d"]
    assert split_lines("\n\n") == ["\n", "\n"]
    assert split_lines("é\u2028\x85x\ny") == ["é\u2028\x85x\n", "y"]


def test_agrees_with_the_definition() -> None:
    pieces = ["a", " ", "\n", "\r", "\r\n", "\x0b", "\x0c", "\x1c", "\x1e", "\x85", "\u2029"]
    for size in range(4):
        for combination in itertools.product(pieces, repeat=size):
            text = "".join(combination)
            assert split_lines(text) == LINE.findall(text), repr(text)
