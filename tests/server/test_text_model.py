"""ptols.text: positions, edits and the mapping of an older text's offsets, in-process."""

from __future__ import annotations

import re

import pytest
from lsprotocol import types

from ptols.text import LineIndex, Stale, TextShift, apply_change


def change(
    text: str, start: tuple[int, int], end: tuple[int, int], new: str, encoding: str = "utf-16"
) -> str:
    edit = types.TextDocumentContentChangePartial(
        range=types.Range(types.Position(*start), types.Position(*end)), text=new
    )
    return apply_change(text, LineIndex(text), edit, encoding)


def test_only_lsp_line_breaks_end_lines():
    index = LineIndex("a\rb\r\nc\nd\x0ce\u2028f\x85g")
    assert index.starts == [0, 2, 5, 7]
    assert index.line(3) == "d\x0ce\u2028f\x85g"


def test_past_the_end_of_a_line_or_the_document_means_its_end():
    assert change("ab\ncd", (0, 9), (0, 9), "X") == "abX\ncd"
    assert change("ab\ncd", (1, 2), (7, 0), "X") == "ab\ncdX"
    assert change("ab\r\ncd", (0, 5), (1, 0), "") == "abcd"  # the whole \r\n goes


def test_columns_count_the_negotiated_code_units():
    text = "x = '😀é' + y\n"
    assert change(text, (0, 9), (0, 9), "!") == "x = '😀é'! + y\n"  # UTF-16: 😀 is two units
    assert change(text, (0, 12), (0, 12), "!", "utf-8") == "x = '😀é'! + y\n"  # UTF-8: 4 + 2 bytes
    assert change(text, (0, 8), (0, 8), "!", "utf-32") == "x = '😀é'! + y\n"
    assert change(text, (0, 6), (0, 6), "!") == "x = '!😀é' + y\n"  # inside the pair: before it


def test_offsets_round_trip_through_positions():
    text = "a😀\r\nb\rc"
    index = LineIndex(text)
    for offset in range(len(text) + 1):
        if text[offset - 1 : offset + 1] == "\r\n":
            continue  # between \r and \n is no position
        assert index.offset_of(index.position_of(offset, "utf-16"), "utf-16") == offset


def test_text_shift_maps_unchanged_text_and_refuses_changed_text():
    old = "one\ntwo\nthree\n"
    new = "one\nNEW\nLINES\ntwo\nthree\n"  # two lines inserted before `two`
    shift = TextShift(old, new)
    assert shift.forward(0, 3) == (0, 3)
    assert shift.forward(4, 7) == (14, 17)  # `two` moved with the insertion
    assert shift.backward(15) == 5
    with pytest.raises(Stale):
        shift.backward(6)  # inside `NEW`
    replaced = TextShift("a = bc + d", "a = xyz + d")
    with pytest.raises(Stale):
        replaced.forward(4, 6)  # `bc` was replaced
    assert replaced.forward(9, 10) == (10, 11)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "a",
        "\n",
        "\n\n",
        "a\nb",
        "a\nb\n",
        "é\n😀x\n\nz",
        "a\x0cb\u2028c\n\x85d",
        "a\r\nb",
        "\r",
    ],
)
def test_line_starts_are_those_of_lsp_line_breaks(text: str) -> None:
    """Only \\r\\n, \\r and \\n end lines (\\x0c, \\u2028, \\x85 do not), by either method."""
    expected = [0] + [match.end() for match in re.finditer(r"\r\n|\r|\n", text)]
    assert LineIndex(text).starts == expected
