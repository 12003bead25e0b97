"""Generated code that points home (`ptoc compile --line-directives`): the line spans the code
generators record become `#line N "file.py"` directives in C++, so clang's messages and gdb
name the kernel's lines, and `loc("file.py":L:C)` locations on PTO MLIR operations, so
PTOAS's and the MLIR tools' messages do. Both read the generated text and its line spans only:
the generators are unchanged."""

from __future__ import annotations

from collections.abc import Sequence

from .ir.span import Span


def c_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def known(span: Span | None) -> Span | None:
    return span if span is not None and span.is_known else None


def cpp_line_directives(
    text: str, spans: Sequence[Span | None], generated: str
) -> tuple[str, list[Span | None]]:
    """``text`` with a `#line` before each line whose number, as the compiler counts it, would
    not be its statement's line: lines from a statement count as that statement's source line,
    the others as their own line of ``generated`` (the output file). Also the line spans of
    the result (a directive has the span of the line it stands before)."""
    lines = text.split("\n")
    padded = [*spans, *[None] * len(lines)]
    out: list[str] = []
    out_spans: list[Span | None] = []
    file, number = generated, 1  # what the compiler takes the next line to be
    for line, span in zip(lines, padded[: len(lines)], strict=True):
        source = known(span)
        want = (source.file, source.line) if source is not None else (generated, len(out) + 1)
        if want != (file, number) and line.strip():
            if source is None:
                want = (generated, len(out) + 2)  # the line's own, after the directive
            out.append(f"#line {want[1]} {c_string(want[0])}")
            out_spans.append(span)
            file, number = want
        out.append(line)
        out_spans.append(span)
        number += 1
    if text.endswith("\n"):
        out_spans.pop()  # the empty "line" after the last line break
    return "\n".join(out), out_spans


def opens_region(line: str) -> bool:
    return line.rstrip().endswith("{")


def mlir_location(span: Span) -> str:
    return f"loc({c_string(span.file)}:{span.line}:{span.column + 1})"


def mlir_locations(text: str, spans: Sequence[Span | None]) -> str:
    """``text`` with `loc(...)` after each operation generated for a statement: after its last
    line (an operation may continue on more-indented lines), or for an operation with a region
    (a last line ending in `{`) after the `}` that closes it."""
    lines = text.split("\n")
    padded = [*spans, *[None] * len(lines)]
    regions: list[Span | None] = []  # the operations whose regions are open, innermost last
    current: tuple[int, int, Span | None] | None = None  # open operation: last line, indent, span

    def close() -> None:
        nonlocal current
        if current is None:
            return
        last, _, span = current
        if opens_region(lines[last]):
            regions.append(span)
        elif span is not None:
            lines[last] = f"{lines[last]} {mlir_location(span)}"
        current = None

    for index, line in enumerate(lines):
        stripped = line.strip()
        indent = len(line) - len(line.lstrip())
        if not stripped or stripped.startswith("//"):
            close()
        elif stripped.startswith("}"):
            close()
            if not stripped.endswith("{"):  # `} else {` continues the operation
                span = regions.pop() if regions else None
                if span is not None:
                    lines[index] = f"{line} {mlir_location(span)}"
        elif current is not None and indent > current[1] and not opens_region(lines[current[0]]):
            current = (index, current[1], current[2])  # a continuation line
        else:
            close()
            current = (index, indent, known(padded[index]))
    close()
    return "\n".join(lines)
