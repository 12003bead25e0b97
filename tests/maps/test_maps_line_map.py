"""The source map: each generated line's source range, for every target, through the passes."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc.codegen.pto.module import MODULE_HEADER
from ptoc.driver import compile_source, read_source
from ptoc.ir.span import Span
from ptoc.sourcemap import MapEntry, annotate, entries_json, map_entries, utf16_column

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SIMPLE_ADD = read_source(str(EXAMPLES / "simple_add.py"))


def compact(entries: list[MapEntry]) -> list[tuple[int, int, int, int, int, int]]:
    return [
        (e.start, e.end, e.span.line, e.span.column, e.span.end_line, e.span.end_column)
        for e in entries
    ]


def test_cce_lines_map_to_their_statements() -> None:
    result = compile_source(SIMPLE_ADD, "cce", path="simple_add.py")
    lines = result.text.split("\n")
    assert len(result.line_spans) == len(lines) - 1
    entries = map_entries(result.line_spans)
    assert compact(entries) == [
        (3, 3, 15, 8, 15, 9),  # unpack x (the parameter)
        (4, 4, 16, 8, 16, 9),
        (5, 5, 17, 8, 17, 14),
        (8, 11, 15, 8, 15, 9),  # x's GlobalTensor
        (13, 16, 16, 8, 16, 9),
        (18, 21, 17, 8, 17, 14),
        (24, 26, 19, 8, 19, 75),  # tile_x's declaration and address
        (28, 30, 20, 8, 20, 75),
        (32, 34, 21, 8, 21, 68),
        (37, 37, 19, 8, 19, 75),  # TLOAD(tile_x, ...)
        (38, 38, 20, 8, 20, 75),
        (39, 41, 21, 8, 21, 68),  # the sync InsertSync put before TADD, and TADD
        (42, 44, 22, 8, 24, 9),  # sync, then the three-line store statement's TSTORE
    ]
    assert [lines[i].strip() for i in range(39, 42)] == [
        "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "TADD(tile_z, tile_x, tile_y);",
    ]


def test_pto_ops_map_to_their_statements() -> None:
    result = compile_source(SIMPLE_ADD, "pto", path="simple_add.py")
    lines = result.text.split("\n")
    by_line = {i: span for i, span in enumerate(result.line_spans) if span is not None}
    tadd = next(i for i, line in enumerate(lines) if "pto.tadd" in line)
    assert by_line[tadd][1:] == (21, 8, 21, 68)
    assert by_line[tadd + 1] == by_line[tadd]  # the op's continuation line
    tstore = next(i for i, line in enumerate(lines) if "pto.tstore" in line)
    assert by_line[tstore][1:] == (22, 8, 24, 9)
    unmapped = {lines[i] for i, span in enumerate(result.line_spans) if span is None}
    assert unmapped == {MODULE_HEADER, "", "}"}  # only the module around the function


def test_printed_ir_maps_statements_and_function() -> None:
    result = compile_source(SIMPLE_ADD, "ir", path="simple_add.py")
    lines = result.text.split("\n")
    assert compact(map_entries(result.line_spans)) == [
        (6, 14, 13, 4, 25, 21),  # decorator and signature: the function
        (15, 17, 19, 8, 19, 75),
        (18, 20, 20, 8, 20, 75),
        (21, 29, 21, 8, 21, 68),  # two sync statements and the add, black-split
        (30, 38, 22, 8, 24, 9),
        (39, 39, 25, 8, 25, 21),
    ]
    assert lines[39].strip() == "return result"


@pytest.mark.parametrize("target", ["cce", "pto", "ir", "pass:InsertSync"])
@pytest.mark.parametrize("example", sorted(p.name for p in EXAMPLES.glob("*.py")))
def test_every_kernel_statement_line_is_mapped(example: str, target: str) -> None:
    """In every example, every generated line of a kernel body (an instruction, an op, a
    statement) has a source range inside the file."""
    source = read_source(str(EXAMPLES / example))
    result = compile_source(source, target, path=example)
    assert not result.has_errors
    lines = result.text.split("\n")
    count = len(source.splitlines())
    unmapped = []
    in_kernel = target != "cce"  # CCE: kernels only (host code of orchestration has no map)
    for line, span in zip(lines, result.line_spans, strict=False):
        if line.startswith("__aicore__"):
            in_kernel = True
        elif line == "}" and target == "cce":
            in_kernel = False
        if span is not None:
            assert 1 <= span.line <= span.end_line <= count
        elif in_kernel and _is_instruction(line, target):
            unmapped.append(line)
    assert unmapped == []


def _is_instruction(line: str, target: str) -> bool:
    text = line.strip()
    if target == "cce":
        return text.startswith(("T", "set_flag", "wait_flag", "pipe_barrier"))
    if target == "pto":
        return text.startswith(("pto.t", "pto.set_flag", "pto.wait_flag", "pto.barrier"))
    return text.startswith(("pl.", "return")) or " = pl." in text


def test_entries_json_uses_utf16_columns_and_zero_based_lines() -> None:
    source = "x = 1\n# 𝒳\ny = '𝒳' + z\n"
    span = Span("f.py", 3, 6, 3, 11)  # code points: from after the '𝒳' literal's quote
    (entry,) = entries_json([MapEntry(4, 6, span)], source)
    assert entry == {
        "generated": {"startLine": 4, "endLine": 6},
        "source": {"start": {"line": 2, "character": 7}, "end": {"line": 2, "character": 12}},
    }
    assert utf16_column("'𝒳'", 3) == 4


def test_annotate_marks_each_statement_run_once() -> None:
    span_a, span_b = Span("k.py", 3, 4, 3, 9), Span("k.py", 5, 4, 7, 1)
    text = "void f() {\n    A;\n    B1;\n    B2;\n}\n"
    annotated, spans = annotate(text, [None, span_a, span_b, span_b, span_a])
    assert annotated == ("void f() {\n    // k.py:3\n    A;\n    // k.py:5\n    B1;\n    B2;\n}\n")
    assert spans == [None, span_a, span_a, span_b, span_b, span_b, span_a]
