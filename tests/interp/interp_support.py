"""Running small kernels written in the DSL through the reference interpreter."""

from __future__ import annotations

import textwrap
from typing import Any

import numpy as np

from ptoc.frontend import analyze_source
from ptoc.interp import InterpResult, run_function
from ptoc.ir.function import Program

HEADER = "import pypto.language as pl\n\n\n"


def program_of(source: str, path: str = "kernel.py") -> Program:
    """The one program (or standalone function) of a DSL source; it must check clean."""
    text = HEADER + textwrap.dedent(source)
    analysis = analyze_source(text, path)
    errors = [d.format() for d in analysis.diagnostics if d.severity.value == "error"]
    assert errors == []
    programs = analysis.all_programs()
    assert len(programs) == 1
    return programs[0]


def run(source: str, inputs: dict[str, Any], name: str | None = None) -> InterpResult:
    program = program_of(source)
    return run_function(program, name or program.functions[0].name, inputs)


def only_return(source: str, inputs: dict[str, Any]) -> Any:
    (value,) = run(source, inputs).returns
    return value


def tile_kernel(body: str, params: str, result: str) -> str:
    """A standalone function with the given parameters, body and returned tile type."""
    return f"@pl.function\ndef f({params}) -> {result}:\n" + textwrap.indent(
        textwrap.dedent(body), "    ")


def arange(shape: tuple[int, ...], dtype: Any, start: float = 0) -> np.ndarray:
    return (np.arange(int(np.prod(shape))) + start).reshape(shape).astype(dtype)
