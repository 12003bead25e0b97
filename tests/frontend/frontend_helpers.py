from __future__ import annotations

import textwrap

from ptoc.frontend import ModuleAnalysis, analyze_source

HEADER = "import pypto.language as pl\n\n"


def analyze(body: str, *, header: bool = True, path: str = "k.py") -> ModuleAnalysis:
    text = textwrap.dedent(body)
    if header:
        text = HEADER + text
    return analyze_source(text, path)


def codes(analysis: ModuleAnalysis) -> list[tuple[str, int, int, int, int]]:
    """(code, line, column, end_line, end_column) with 1-based lines, 0-based columns."""
    return [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in analysis.diagnostics
    ]


def errors(analysis: ModuleAnalysis) -> list[str]:
    return [d.code for d in analysis.diagnostics if d.severity.value == "error"]


def only_function(analysis: ModuleAnalysis):
    programs = analysis.all_programs()
    assert len(programs) == 1, programs
    assert len(programs[0].functions) == 1
    return programs[0].functions[0]


def where(text: str, needle: str, occurrence: int = 1) -> tuple[int, int, int, int]:
    """(line, column, end_line, end_column) of the n-th occurrence of needle (single line)."""
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index) + 1
    column = index - (text.rfind("\n", 0, index) + 1)
    return (line, column, line, column + len(needle))
