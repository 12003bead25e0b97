"""``driver.backend_diagnostics(..., together=True)`` (what ``ptoc check`` runs): the same
E401 / E402 as one pipeline per function, from one pipeline per program when that is clean."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

from ptoc import driver
from ptoc.frontend import analyze_source

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
from gen_kernel import generate  # noqa: E402  (the benchmarks folder is not a package)


def function(name: str, shape: str, window: str, body: str = "u = pl.add(t, t)") -> str:
    tensor = f"pl.Tensor[{shape}, pl.FP32]"
    return f"""
    @pl.function(type=pl.FunctionType.InCore)
    def {name}(self, a: {tensor}, out: {tensor}) -> {tensor}:
        t = pl.load(a, [0, 0], {window})
        {body}
        out = pl.store(u, [0, 0], {window}, out)
        return out
"""


MIXED = """import pypto.language as pl


@pl.program
class M:
    @pl.function
    def main(
        self,
        a: pl.Tensor[[64, 128], pl.FP16],
        b: pl.Tensor[[128, 64], pl.FP16],
        bias: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        with pl.at(level=pl.Level.CORE_GROUP, optimizations=[pl.split(pl.SplitMode.UP_DOWN)]):
            acc = pl.matmul(a, b, out_dtype=pl.FP32)
            out = pl.assemble(out, pl.add(acc, bias), [0, 0])
        return out
"""


def program(*functions: str) -> str:
    header = 'import pypto.language as pl\n\nN = pl.dynamic("N")\n\n\n@pl.program\nclass P:'
    return header + "".join(functions)


FITS = function("fits", "[128, 64]", "[128, 64]")
TOO_BIG = function("too_big", "[256, 256]", "[256, 256]")
DYNAMIC = function("dynamic", "[N, 32]", "[N, 32]")
BROKEN = function("broken", "[256, 256]", "[256, 256]", body="u = pl.add(t, tt)")

SOURCES = {
    **{path.name: path.read_text(encoding="utf-8") for path in (ROOT / "examples").glob("*.py")},
    "generated kernel": generate(300),
    "clean": program(FITS, function("also_fits", "[64, 64]", "[64, 64]")),
    "one too big": program(FITS, TOO_BIG, function("after", "[32, 32]", "[32, 32]")),
    "two errors": program(TOO_BIG, DYNAMIC, FITS),
    "a front-end error too": program(BROKEN, TOO_BIG, FITS),
    "a mixed scope": MIXED,  # the passes split it: an I009 note
}


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_together_finds_exactly_what_one_pipeline_per_function_finds(name: str) -> None:
    analysis = analyze_source(SOURCES[name], "kernel.py")
    expected = driver.backend_diagnostics(analysis)
    assert driver.backend_diagnostics(analysis, together=True) == expected
    if name == "a mixed scope":
        assert [(d.code, d.span.line) for d in expected] == [("I009", 14)]
    if name in ("one too big", "two errors"):
        assert {d.code for d in expected} == (
            {"E402"} if name == "one too big" else {"E401", "E402"}
        )


def test_a_clean_program_is_lowered_once(monkeypatch: pytest.MonkeyPatch) -> None:
    per_function: list[str] = []
    original = driver.function_backend_diagnostics

    def counted(program: Any, function: str) -> Any:
        per_function.append(function)
        return original(program, function)

    monkeypatch.setattr(driver, "function_backend_diagnostics", counted)
    clean = analyze_source(SOURCES["clean"], "kernel.py")
    assert driver.backend_diagnostics(clean, together=True) == []
    assert per_function == []
    faulty = analyze_source(SOURCES["one too big"], "kernel.py")
    assert [d.code for d in driver.backend_diagnostics(faulty, together=True)] == ["E402"]
    assert per_function == ["fits", "too_big", "after"]  # an error: each function on its own
