"""Cross-core pipes on the PTO target: ptoc writes PTOAS v0.57's frontend pipe ops for an AIV and
an AIC kernel that talk both ways (v057/pipes.py), each pipe with its own GM slot ring
parameter, and PTOAS v0.57 accepts them and lowers them to pto-isa's TPUSH / TPOP / TFREE."""

from __future__ import annotations

import re
from pathlib import Path

from test_ptoas_2608 import ptoas_v057  # noqa: F401  (the fixture)
from test_ptoas_accepts import explain

from ptoc.cli import main
from ptoc.codegen.pto.ptoas import run_ptoas

KERNEL = Path(__file__).parent / "v057" / "pipes.py"  # (v0.57 only: not in the corpus)
PIPE_OPS = {
    "pto.import_reserved_buffer",
    "pto.reserve_buffer",
    "pto.aiv_initialize_pipe",
    "pto.aic_initialize_pipe",
    "pto.tpush_to_aic",
    "pto.tpush_to_aiv",
    "pto.tpop_from_aic",
    "pto.tpop_from_aiv",
    "pto.tfree_from_aic",
    "pto.tfree_from_aiv",
}


def test_ptoas_v057_accepts_the_pipes_both_ways(ptoas_v057: Path, tmp_path: Path) -> None:  # noqa: F811
    out = tmp_path / "pipes.pto"
    assert main(["compile", str(KERNEL), "--target", "pto", "-o", str(out)]) == 0
    mlir = out.read_text(encoding="utf-8")
    assert PIPE_OPS <= set(re.findall(r"\b(pto\.[a-z_.0-9]+)\b", mlir))
    result = run_ptoas(mlir, ptoas_v057)
    assert result.ok, f"PTOAS v0.57 rejects {KERNEL.name}:\n{explain(result)}"
    assert re.search(
        r"TPUSH<TPipe<0, Direction::DIR_V2C, 1024, 2, 2, true>, Tile<TileType::Vec", result.cpp
    )
    assert re.search(
        r"TPOP<TPipe<2, Direction::DIR_C2V, 1024, 2, 2, true>, Tile<TileType::Vec", result.cpp
    )
    assert re.search(
        r"TPUSH<TPipe<2, Direction::DIR_C2V, 1024, 2, 2, true>, Tile<TileType::Acc", result.cpp
    )
    assert "TFREE<TPipe<0, Direction::DIR_V2C" in result.cpp
