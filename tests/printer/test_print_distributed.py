"""Programs with distributed PyPTO and cross-core pipes print in their own spellings
(``pld.<group>.X``, ``pld.DistributedTensor``, ``device=r``, ``pl.system.tpush_to_aic``), with
the ``pld`` import, and parse back to a structurally equal IR."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc.editions import Edition
from ptoc.frontend import analyze_source
from ptoc.ir.equality import structural_equal
from ptoc.printer import print_program

DATA = Path(__file__).parent.parent / "data" / "pipes"
FILES = ["ok_host_dispatch.py", "ok_ring_program.py", "ok_cross_core_pipe.py"]


@pytest.mark.parametrize("name", FILES)
def test_prints_and_parses_back(name: str) -> None:
    analysis = analyze_source((DATA / name).read_text(encoding="utf-8"), name)
    assert analysis.diagnostics == []
    program = analysis.all_programs()[0]
    printed = print_program(program, edition=Edition.V2026_08)
    again = analyze_source(printed, "printed.py")
    assert [d.format() for d in again.diagnostics] == []
    assert structural_equal(program, again.all_programs()[0])


def test_the_host_dispatch_keeps_its_rank_and_the_pld_spellings() -> None:
    text = (DATA / "ok_host_dispatch.py").read_text(encoding="utf-8")
    printed = print_program(analyze_source(text, "h.py").all_programs()[0])
    assert "import pypto.language.distributed as pld\n" in printed
    assert "buf: pl.Ptr = pld.tensor.alloc_window_buffer(256)" in printed
    assert "for r in pl.range(0, pld.system.world_size(), 1):" in printed
    assert "data: pld.DistributedTensor[[64], pl.FP32] = pld.tensor.window(" in printed
    assert "self.per_rank(x, data, device=r)" in printed
