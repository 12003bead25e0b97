"""`ptoc compile --target ir --pass-diff`: what each pass changed in the IR (issue #31)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from cli_samples import EXAMPLES, run_ptoc

from ptoc.cli import main
from ptoc.driver import compile_source
from ptoc.pass_diff import explore

SIMPLE_ADD = EXAMPLES / "simple_add.py"

HEADER = """\
# SimpleAdd: 11 passes, 3 changed the IR
# unchanged (hidden): ConvertToSSA, FlattenCalls, OutlineIncoreScopes, InlineCalls, \
ConvertTensorToBlockOps, Verifier, AddReductionScratch, MemoryReuse
=== 08 InitMemRef  +17 -9
"""

INSERT_SYNC = """\
=== 10 InsertSync  +12 -0
--- before InsertSync
+++ after InsertSync
@@ -19,9 +19,21 @@
         tile_y: pl.Tile[
             [128, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, None, 32768, 4)
         ] = pl.block.load(y, [0, 0], [128, 64])
+        pl.system.sync_src(
+            set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0
+        )
+        pl.system.sync_dst(
+            set_pipe=pl.PipeType.MTE2, wait_pipe=pl.PipeType.V, event_id=0
+        )
         tile_z: pl.Tile[
             [128, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, None, 32768, 5)
         ] = pl.block.add(tile_x, tile_y)
+        pl.system.sync_src(
+            set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0
+        )
+        pl.system.sync_dst(
+            set_pipe=pl.PipeType.V, wait_pipe=pl.PipeType.MTE3, event_id=0
+        )
         result: pl.Tensor[
             [128, 64], pl.FP32, pl.MemRef(pl.MemorySpace.DDR, None, 32768, 2)
         ] = pl.block.store(tile_z, [0, 0], [128, 64], output)
=== 11 AllocateMemoryAddr  +3 -3
"""


def row(left: str, marker: str, right: str, column: int = 83) -> str:
    return f"{left:<{column}} {marker} {right}".rstrip()


TILE_X = "            [128, 64], pl.FP32, pl.MemRef(pl.MemorySpace.Vec, {}, 32768, 3)"
SIDE_BY_SIDE_ALLOCATE = [
    "=== 11 AllocateMemoryAddr  +3 -3",
    "@@ 14 | 14 @@",
    row("        ],", " ", "        ],"),
    row("    ) -> pl.Tensor[[128, 64], pl.FP32]:", " ", "    ) -> pl.Tensor[[128, 64], pl.FP32]:"),
    row("        tile_x: pl.Tile[", " ", "        tile_x: pl.Tile["),
    row(TILE_X.format("None"), "|", TILE_X.format("0x0")),
]


def pass_diff(capsys: pytest.CaptureFixture[str], *options: str) -> str:
    code = main(["compile", str(SIMPLE_ADD), "--target", "ir", "--pass-diff", *options])
    assert code == 0
    return capsys.readouterr().out


def test_names_every_pass_counts_the_changed_ones_and_hides_the_others(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = pass_diff(capsys)
    assert out.startswith(HEADER)
    headers = [line for line in out.splitlines() if line.startswith("=== ")]
    assert headers == [
        "=== 08 InitMemRef  +17 -9",
        "=== 10 InsertSync  +12 -0",
        "=== 11 AllocateMemoryAddr  +3 -3",
    ]


def test_a_pass_is_shown_as_a_unified_diff_of_the_ir_before_and_after_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = pass_diff(capsys)
    start = out.index("=== 10 InsertSync")
    end = out.index("=== 11 AllocateMemoryAddr") + len("=== 11 AllocateMemoryAddr  +3 -3\n")
    assert out[start:end] == INSERT_SYNC


@pytest.mark.skipif(shutil.which("diff") is None, reason="needs diff")
def test_each_unified_diff_is_what_diff_u_says_of_the_dumped_passes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["compile", str(SIMPLE_ADD), "--target", "ir", "--dump-passes", str(tmp_path)]) == 0
    capsys.readouterr()
    out = pass_diff(capsys)
    dumps = sorted(tmp_path.iterdir())
    for section in out.split("=== ")[1:]:
        index = int(section[:2])
        mine = section.split("\n", 3)[3]  # after the header and the ---/+++ lines
        real = subprocess.run(
            ["diff", "-u", str(dumps[index - 1]), str(dumps[index])],
            capture_output=True,
            text=True,
            check=False,
        )
        assert real.returncode == 1
        assert mine == real.stdout.split("\n", 2)[2]


def test_side_by_side_puts_before_left_and_after_right_cut_to_the_width(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "170")  # two columns of 83 and " | "
    out = pass_diff(capsys, "side-by-side")
    lines = out[out.index("=== 11 AllocateMemoryAddr") :].splitlines()
    assert lines[: len(SIDE_BY_SIDE_ALLOCATE)] == SIDE_BY_SIDE_ALLOCATE
    monkeypatch.setenv("COLUMNS", "100")
    narrow = pass_diff(capsys, "side-by-side").splitlines()
    assert max(len(line) for line in narrow if not line.startswith("# ")) <= 100
    assert row(TILE_X.format("None")[:47] + "…", "|", TILE_X.format("0x0")[:47] + "…", 48) in narrow


def test_the_counts_are_the_lines_each_pass_added_and_removed() -> None:
    result = compile_source(SIMPLE_ADD.read_text(encoding="utf-8"), "ir", path=str(SIMPLE_ADD))
    (program,) = explore(result)
    assert [stage.name for stage in program.stages][:2] == ["input", "ConvertToSSA"]
    changed = {p.name: (p.added, p.removed) for p in program.changed}
    assert changed == {"InitMemRef": (17, 9), "InsertSync": (12, 0), "AllocateMemoryAddr": (3, 3)}
    # the stages keep their source map: the inserted sync lines map to the statement they serve
    insert = program.stages[10]
    sync_line = insert.lines.index("        pl.system.sync_src(")
    span = insert.spans[sync_line]
    assert span is not None and span.line == 21  # tile_z = pl.add(...) waits


def test_pass_diff_is_for_the_ir_target() -> None:
    result = run_ptoc("compile", str(SIMPLE_ADD), "--target", "cce", "--pass-diff")
    assert result.returncode == 2
    assert "--pass-diff shows the IR each pass makes: use it with --target ir" in result.stderr


@pytest.mark.parametrize("name", ["simple_add.py", "tensor_attention.py"])
def test_every_stage_is_its_program_printed_afresh(name: str) -> None:
    """Stages share work (a line laid out once for all of them, the final program's text
    taken from the compile): each is still exactly what printing its program alone gives."""
    from ptoc.driver import print_ir_mapped
    from ptoc.printer import black_format

    path = EXAMPLES / name
    result = compile_source(path.read_text(encoding="utf-8"), "ir", path=str(path))
    (output,) = result.programs
    assert output.pipeline is not None
    (program,) = explore(result)
    points = [output.source, *(snapshot for _, snapshot in output.pipeline.snapshots)]
    assert len(points) == len(program.stages)
    for stage, printed in zip(program.stages, points, strict=True):
        black_format.clear_caches()
        text, spans = print_ir_mapped(printed, result)
        assert (stage.text, stage.spans) == (text, tuple(spans)), stage.name
