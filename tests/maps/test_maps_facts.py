"""Kernel facts: one pipeline run per function gives its memory map, sync sites and the CCE
lines of each statement; kept per function while it is unchanged."""

from __future__ import annotations

from pathlib import Path

from ptoc.driver import analyze, read_source
from ptoc.kernel_facts import document_facts

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_outlined_kernels_belong_to_their_source_function() -> None:
    path = str(EXAMPLES / "tensor_add.py")
    facts = document_facts(analyze(read_source(path), path))
    assert [(f.function, [m.name for m in f.memory]) for f in facts] == [
        ("scaled_sum", ["scaled_sum"]),
        ("main", ["main_incore_0"]),  # the kernel OutlineIncoreScopes made of its scope
    ]
    assert [[site.span.line for site in f.sync] for f in facts] == [[19, 20, 21], [28, 29]]


def test_cce_lines_by_statement() -> None:
    path = str(EXAMPLES / "simple_add.py")
    (facts,) = document_facts(analyze(read_source(path), path))
    by_line = {span.line: lines for span, lines in facts.cce.items()}
    assert by_line[21] == [
        "using tile_zType = Tile<TileType::Vec, float, 128, 64, BLayout::RowMajor, -1, -1>;",
        "tile_zType tile_z(128, 64);",
        "TASSIGN(tile_z, 0x10000);",
        "set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "TADD(tile_z, tile_x, tile_y);",
    ]


def test_memo_keeps_unchanged_functions() -> None:
    path = str(EXAMPLES / "loop_sum.py")
    source = read_source(path)
    memo: dict[object, object] = {}
    first = document_facts(analyze(source, path), memo)
    assert [f.function for f in first] == ["loop_sum", "sum_row_blocks"]
    again = document_facts(analyze(source, path), memo, compute=False)
    assert [id(f) for f in again] == [id(f) for f in first]
    edited = source.replace("pl.range(1, 4,", "pl.range(1, 3,")  # inside sum_row_blocks
    known = document_facts(analyze(edited, path), memo, compute=False)
    assert [id(f) for f in known] == [id(first[0])]  # only the unchanged function is known
