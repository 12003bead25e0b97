"""The memory map (after AllocateMemoryAddr), its SVG picture, and the sync sites."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from ptoc.cli import main
from ptoc.driver import analyze, read_source, run_pipeline
from ptoc.memory_map import map_json, memory_map
from ptoc.memory_svg import LANE_HEIGHT, LEFT, RIGHT, WIDTH, render_svg
from ptoc.sync_sites import function_sync_sites

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SVG = "{http://www.w3.org/2000/svg}"

TOO_BIG = """\
import pypto.language as pl


@pl.program
class TooBig:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[256, 256], pl.FP32], out: pl.Tensor[[256, 256], pl.FP32]):
        t: pl.Tile[[256, 256], pl.FP32] = pl.load(x, [0, 0], [256, 256])
        pl.store(t, [0, 0], [256, 256], out)
"""


def rng(line: int, start: int, end_line: int, end: int) -> dict[str, dict[str, int]]:
    return {
        "start": {"line": line, "character": start},
        "end": {"line": end_line, "character": end},
    }


def use(index: int, line: int, end_line: int, end: int) -> dict[str, object]:
    return {"index": index, "range": rng(line, 8, end_line, end)}


def vec_tile(name: str, start: int, first: dict[str, object], last: dict[str, object]) -> object:
    """A 128x64 FP32 tile of simple_add in the protocol's shape."""
    return {
        "name": name,
        "space": "Vec",
        "start": start,
        "size": 32768,
        "firstUse": first,
        "lastUse": last,
        "reuseGroup": None,
        "dtype": "FP32",
        "shape": [128, 64],
        "valueSize": 32768,
    }


ADD, STORE = use(2, 20, 20, 68), use(3, 21, 23, 9)  # statements 2 (tile_z = ...) and 3
SIMPLE_ADD_MAP = {
    "file": "simple_add.py",
    "functions": [
        {
            "name": "simple_add",
            "range": rng(12, 4, 24, 21),
            "statements": 5,
            "spaces": [{"space": "Vec", "capacity": 196608, "used": 98304, "overflow": False}],
            "buffers": [
                vec_tile("tile_x", 0, use(0, 18, 18, 75), ADD),
                vec_tile("tile_y", 0x8000, use(1, 19, 19, 75), ADD),
                vec_tile("tile_z", 0x10000, ADD, STORE),
            ],
        }
    ],
}


def test_cli_writes_the_memory_map_json(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = (EXAMPLES / "simple_add.py").read_text(encoding="utf-8")
    (tmp_path / "simple_add.py").write_text(source, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code = main(["compile", "simple_add.py", "--memory-map", "map.json", "-o", "k.cpp"])
    assert code == 0
    assert json.loads((tmp_path / "map.json").read_text(encoding="utf-8")) == SIMPLE_ADD_MAP


def test_reuse_groups_and_lifetimes() -> None:
    path = str(EXAMPLES / "block_computation.py")
    (fn,) = memory_map(analyze(read_source(path), path)).functions
    assert fn.statements == 8
    assert [
        (b.name, b.start, b.size, b.first_use.index, b.last_use.index, b.reuse_group)
        for b in fn.buffers
    ] == [
        ("tile_a", 0, 16384, 0, 2, 3),
        ("tile_b", 16384, 16384, 1, 2, 4),
        ("tile_mul", 32768, 16384, 2, 3, 5),
        ("tile_sqrt", 0, 16384, 3, 5, 3),  # tile_a's buffer, once tile_a is dead
        ("tile_sum_tmp", 16384, 16384, 4, 5, 4),  # AddReductionScratch's row_sum scratch
        ("tile_sum", 32768, 16384, 5, 6, 5),
    ]
    assert fn.buffers[4].first_use.span.line == 25  # the scratch belongs to the sum's line
    # tile_sum, [32, 1] FP32, lives in tile_mul's 16 KB buffer: its first 128 bytes
    assert [b.value_size for b in fn.buffers] == [16384] * 5 + [128]


def test_overflow_is_reported_and_drawn_red() -> None:
    found = memory_map(analyze(TOO_BIG, "big.py"))
    assert [d.code for d in found.diagnostics] == ["E402"]
    (fn,) = map_json(found.functions, TOO_BIG)
    assert fn["spaces"] == [{"space": "Vec", "capacity": 196608, "used": 262144, "overflow": True}]
    svg = ET.fromstring(render_svg(found.functions))
    (lane,) = [g for g in svg.iter(SVG + "g") if g.get("class") == "lane"]
    assert lane.get("data-overflow") == "true"
    title = next(t for t in lane.iter(SVG + "text") if t.get("class") == "lane-title")
    assert title.text == "kernel · Vec: 262144 of 196608 B — overflow"
    assert title.get("fill") == "#e15759"
    (box,) = [g for g in lane.iter(SVG + "g") if "buffer" in (g.get("class") or "")]
    assert box.get("class") == "buffer overflow"
    assert box.find(SVG + "rect").get("fill") == "#e15759"  # type: ignore[union-attr]
    (line,) = [e for e in lane.iter(SVG + "line") if e.get("class") == "capacity"]
    # The lane spans the 262144 bytes used; the capacity is 3/4 of the way down.
    assert float(line.get("y1", "")) == 52 + LANE_HEIGHT * 196608 / 262144


def test_svg_has_one_lane_per_space_and_a_box_per_buffer() -> None:
    path = str(EXAMPLES / "simple_add.py")
    functions = memory_map(analyze(read_source(path), path)).functions
    svg = ET.fromstring(render_svg(functions))
    lanes = [g for g in svg.iter(SVG + "g") if g.get("class") == "lane"]
    assert [(g.get("data-function"), g.get("data-space")) for g in lanes] == [("simple_add", "Vec")]
    boxes = [g for g in lanes[0].iter(SVG + "g") if g.get("class") == "buffer"]
    step = (WIDTH - LEFT - RIGHT) / 5
    scale = LANE_HEIGHT / 196608
    geometry = []
    for box in boxes:
        rect = box.find(SVG + "rect")
        assert rect is not None
        geometry.append(
            (
                box.get("data-name"),
                float(rect.get("x", "")),
                float(rect.get("width", "")),
                float(rect.get("y", "")),
                float(rect.get("height", "")),
            )
        )
    expected = [
        ("tile_x", 0, 3, 0),
        ("tile_y", 1, 2, 0x8000),
        ("tile_z", 2, 2, 0x10000),
    ]
    assert [g[0] for g in geometry] == [e[0] for e in expected]
    for (_, x, width, y, height), (_, first, count, start) in zip(geometry, expected, strict=True):
        assert x == round(LEFT + first * step, 1)
        assert width == round(count * step, 1)
        assert y == round(52 + start * scale, 1)
        assert height == round(32768 * scale, 1)
    titles = [box.findtext(SVG + "title") for box in boxes]
    assert titles[0] == (
        "tile_x: Vec [0x0, 0x8000) 32768 B · FP32[128x64] · statements 0–2 · line 19"
    )


def test_sync_sites_name_the_guarded_statements() -> None:
    path = str(EXAMPLES / "simple_add.py")
    (program,) = analyze(read_source(path), path).all_programs()
    (fn,) = run_pipeline(program, "default").program.functions
    sites = function_sync_sites(fn)
    assert [(s.span.line, s.label, s.instructions) for s in sites] == [
        (
            21,
            "⇄ MTE2→V",
            ("set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)", "wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0)"),
        ),
        (
            22,
            "⇄ V→MTE3",
            ("set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)", "wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0)"),
        ),
    ]


def test_sync_written_in_the_source_is_not_a_site() -> None:
    source = """\
import pypto.language as pl


@pl.program
class P:
    @pl.function(type=pl.FunctionType.InCore)
    def k(self, x: pl.Tensor[[16, 16], pl.FP32], out: pl.Tensor[[16, 16], pl.FP32]):
        t: pl.Tile[[16, 16], pl.FP32] = pl.load(x, [0, 0], [16, 16])
        pl.system.bar_v()
        u: pl.Tile[[16, 16], pl.FP32] = pl.exp(t)
        pl.store(u, [0, 0], [16, 16], out)
"""
    (program,) = analyze(source, "k.py").all_programs()
    (fn,) = run_pipeline(program, "default").program.functions
    assert [(s.span.line, s.label) for s in function_sync_sites(fn)] == [
        (10, "⇄ MTE2→V"),
        (11, "⇄ V→MTE3"),
    ]
