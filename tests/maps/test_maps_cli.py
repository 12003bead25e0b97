"""``ptoc compile --line-map / --annotate / --memory-map``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ptoc.cli import main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    source = (EXAMPLES / "simple_add.py").read_text(encoding="utf-8")
    (tmp_path / "simple_add.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_line_map_json(kernel: Path) -> None:
    assert main(["compile", "simple_add.py", "--line-map", "map.json", "-o", "k.cpp"]) == 0
    mapped = json.loads((kernel / "map.json").read_text(encoding="utf-8"))
    assert (mapped["file"], mapped["target"]) == ("simple_add.py", "cce")
    generated = (kernel / "k.cpp").read_text(encoding="utf-8").split("\n")
    entry = next(e for e in mapped["entries"] if "TADD" in generated[e["generated"]["endLine"]])
    assert entry == {
        "generated": {"startLine": 39, "endLine": 41},
        "source": {"start": {"line": 20, "character": 8}, "end": {"line": 20, "character": 68}},
    }
    assert len(mapped["entries"]) == 13


def test_annotate_with_line_map_describes_the_annotated_text(kernel: Path) -> None:
    args = ["compile", "simple_add.py", "--annotate", "--line-map", "map.json", "-o", "k.cpp"]
    assert main(args) == 0
    lines = (kernel / "k.cpp").read_text(encoding="utf-8").split("\n")
    body = lines.index("    // Function body")
    assert lines[body + 1 : body + 11] == [
        "    // simple_add.py:19",
        "    TLOAD(tile_x, xGlobal);",
        "    // simple_add.py:20",
        "    TLOAD(tile_y, yGlobal);",
        "    // simple_add.py:21",
        "    set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "    wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);",
        "    TADD(tile_z, tile_x, tile_y);",
        "    // simple_add.py:22",
        "    set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);",
    ]
    mapped = json.loads((kernel / "map.json").read_text(encoding="utf-8"))
    tadd = lines.index("    TADD(tile_z, tile_x, tile_y);")
    (entry,) = [e for e in mapped["entries"] if e["generated"]["endLine"] == tadd]
    assert entry["generated"]["startLine"] == tadd - 3  # from its comment on
    assert entry["source"]["start"] == {"line": 20, "character": 8}


def test_line_map_of_mlir(kernel: Path) -> None:
    args = ["compile", "simple_add.py", "--target", "pto", "--line-map", "m.json", "-o", "k.mlir"]
    assert main(args) == 0
    lines = (kernel / "k.mlir").read_text(encoding="utf-8").split("\n")
    entries = json.loads((kernel / "m.json").read_text(encoding="utf-8"))["entries"]
    tadd = next(i for i, line in enumerate(lines) if "pto.tadd" in line)
    (entry,) = [
        e for e in entries if e["generated"]["startLine"] <= tadd <= e["generated"]["endLine"]
    ]
    assert entry["generated"] == {"startLine": tadd - 1, "endLine": tadd + 1}
    assert lines[tadd - 1] == "    // Add"  # the op's heading comment belongs to it too
    assert entry["source"]["start"] == {"line": 20, "character": 8}


def test_memory_map_svg(kernel: Path) -> None:
    assert main(["compile", "simple_add.py", "--memory-map", "map.svg", "-o", "k.cpp"]) == 0
    svg = (kernel / "map.svg").read_text(encoding="utf-8")
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg"')
    assert svg.count('class="buffer"') == 3
    assert svg.count('class="capacity"') == 1


def test_memory_map_is_written_when_buffers_overflow(kernel: Path) -> None:
    (kernel / "big.py").write_text(
        (kernel / "simple_add.py")
        .read_text(encoding="utf-8")
        .replace("128, 64", "256, 256")
        .replace("[0, 0], [128, 64]", "[0, 0], [256, 256]"),
        encoding="utf-8",
    )
    assert main(["compile", "big.py", "--memory-map", "map.json", "-o", "k.cpp"]) == 1
    (fn,) = json.loads((kernel / "map.json").read_text(encoding="utf-8"))["functions"]
    assert fn["spaces"] == [{"space": "Vec", "capacity": 196608, "used": 786432, "overflow": True}]
    assert not (kernel / "k.cpp").exists()
