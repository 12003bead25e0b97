"""The generated reference pages are up to date and complete."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from ptoc.diagnostics.codes import CODES
from ptoc.docs_gen import is_prose, main, render_diagnostics, render_operators
from ptoc.ops import REGISTRY

DOCS = Path(__file__).resolve().parents[2] / "docs"
REGENERATE = "regenerate with: bash scripts/gen-docs.sh"


def test_diagnostics_page_is_up_to_date() -> None:
    committed = (DOCS / "diagnostics.md").read_text(encoding="utf-8")
    assert committed == render_diagnostics(), REGENERATE


def test_operators_page_is_up_to_date() -> None:
    committed = (DOCS / "operators.md").read_text(encoding="utf-8")
    assert committed == render_operators(), REGENERATE


def test_every_code_has_exactly_one_section() -> None:
    text = render_diagnostics()
    headings = re.findall(r"^## (\S+)$", text, flags=re.MULTILINE)
    assert headings == list(CODES)
    for info in CODES.values():
        section = text.split(f"\n## {info.code}\n", 1)[1].split("\n## ", 1)[0]
        assert f"**{info.name}** · {info.severity.value}" in section
        assert info.summary in section


def test_code_examples_are_code_blocks_and_advice_is_prose() -> None:
    text = render_diagnostics()
    e000 = text.split("\n## E000\n", 1)[1].split("\n## ", 1)[0]
    assert "**Fails:**\n\n```python\nx = pl.add(a, b\n```" in e000
    assert "**Fix:**\n\n```python\nx = pl.add(a, b)\n```" in e000
    e204 = text.split("\n## E204\n", 1)[1].split("\n## ", 1)[0]
    assert "**Fails:** Two `def kernel` in one @pl.program." in e204
    assert "**Fix:** Rename one." in e204


@pytest.mark.parametrize(
    ("text", "prose"),
    [
        ("rename one", True),
        ("use pl.matmul", True),
        ("for i in pl.range(3):", False),
        ("if i < n:", False),
        ("with open('f'):", False),
        ("x = pl.add(a, b)", False),
        ("pl.tensor.matmul(...) in a kernel compiled for cce", False),
    ],
)
def test_prose_detection(text: str, prose: bool) -> None:
    assert is_prose(text) is prose


def test_every_registered_op_has_a_section() -> None:
    text = render_operators()
    headings = re.findall(r"^### `([^`]+)`$", text, flags=re.MULTILINE)
    assert sorted(headings) == sorted(op.name for op in REGISTRY)
    assert len(REGISTRY) > 0, "the op registry is empty"


def test_operator_sections_show_spellings_and_lowerings() -> None:
    text = render_operators()
    add = text.split("\n### `block.add`\n", 1)[1].split("\n### ", 1)[0]
    assert "`pl.add`" in add and "`pl.block.add`" in add
    assert "- CCE: `TADD (row vector rhs: TROWEXPANDADD; column vector rhs: TCOLEXPANDADD)`" in add
    assert (
        "- PTO: `pto.tadd (row vector rhs: pto.trowexpandadd; column vector rhs: "
        "pto.tcolexpandadd; A2/A3 elements: INT16, UINT16, INT32, UINT32, FP16, FP32)`" in add
    )
    ands = text.split("\n### `block.ands`\n", 1)[1].split("\n### ", 1)[0]
    assert (
        "- PTO: `pto.tands (A2/A3 elements: INT8, UINT8, INT16, UINT16; other than INT8, "
        "UINT8, INT16, UINT16: block.and of the expanded scalar)`" in ands
    )
    assert "- Role: elementwise" in add
    assert "- Scalar form: `block.adds`" in add
    assert "- Pipe: V" in add
    row_sum = text.split("\n### `block.row_sum`\n", 1)[1].split("\n### ", 1)[0]
    assert "(written; in Vec) |" in row_sum  # the scratch tile
    load = text.split("\n### `block.load`\n", 1)[1].split("\n### ", 1)[0]
    assert "| `target_memory` |" in load
    assert "- Pipe: MTE2" in load
    assert "- Result in: the 'target_memory' buffer" in load
    matmul_acc = text.split("\n### `block.matmul_acc`\n", 1)[1].split("\n### ", 1)[0]
    assert "- PTO: `pto.tmatmul.acc`" in matmul_acc
    assert "- Result in: Acc" in matmul_acc


def test_command_line_writes_the_same_text(tmp_path: Path) -> None:
    out = tmp_path / "diagnostics.md"
    assert main(["diagnostics", "-o", str(out)]) == 0
    assert out.read_text(encoding="utf-8") == render_diagnostics()
    result = subprocess.run(
        [sys.executable, "-m", "ptoc.docs_gen", "operators"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (result.returncode, result.stdout) == (0, render_operators())
