"""The wheel installed into a fresh venv works on its own: `ptoc check` and an LSP session with
the installed `ptols`, far from this checkout."""

from __future__ import annotations

import subprocess
from pathlib import Path

from conftest import ROOT
from raw_lsp import RawServer

import ptoc

KERNEL = (ROOT / "examples" / "simple_add.py").read_text()


def test_installed_ptoc_is_the_wheels(installed: Path, tmp_path: Path):
    where = subprocess.run(
        [
            str(installed / "python"),
            "-c",
            "import ptoc, ptols; print(ptoc.__file__, ptols.__file__)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert all(path.startswith(str(installed.parent)) for path in where), where
    version = subprocess.run(
        [str(installed / "ptoc"), "--version"], capture_output=True, text=True, check=True
    )
    assert version.stdout == f"ptoc {ptoc.__version__}\n"


def test_installed_ptoc_checks_an_example(installed: Path, tmp_path: Path):
    kernel = tmp_path / "simple_add.py"
    kernel.write_text(KERNEL)
    clean = subprocess.run(
        [str(installed / "ptoc"), "check", str(kernel)], capture_output=True, text=True
    )
    assert (clean.returncode, clean.stdout, clean.stderr) == (
        0,
        "",
        "0 errors, 0 warnings in 1 file\n",
    )
    kernel.write_text(KERNEL.replace("pl.add(tile_x, tile_y)", "pl.add(tile_x, nope)"))
    broken = subprocess.run(
        [str(installed / "ptoc"), "check", str(kernel)], capture_output=True, text=True
    )
    assert broken.returncode == 1
    assert "E200" in broken.stdout and "Undefined variable 'nope'" in broken.stdout


def test_installed_ptols_answers_an_lsp_session(installed: Path, tmp_path: Path):
    kernel = tmp_path / "simple_add.py"
    text = KERNEL.replace("pl.add(tile_x, tile_y)", "pl.add(tile_x, nope)")
    kernel.write_text(text)
    uri = kernel.as_uri()
    server = RawServer(tmp_path, command=(str(installed / "ptols"),))
    try:
        server.initialize(tmp_path)
        document = {"uri": uri, "languageId": "python", "version": 1, "text": text}
        server.notify("textDocument/didOpen", {"textDocument": document})
        [diagnostic] = server.diagnostics(uri, 1)
        assert (diagnostic["code"], diagnostic["message"]) == ("E200", "Undefined variable 'nope'")
        line = next(i for i, t in enumerate(text.splitlines()) if "tile_x: pl.Tile" in t)
        position = {"line": line, "character": text.splitlines()[line].index("tile_x") + 1}
        server.request(
            1, "textDocument/hover", {"textDocument": {"uri": uri}, "position": position}
        )
        hover = server.response(1)["result"]["contents"]["value"]
        assert "(variable) tile_x: pl.Tile[[128, 64], pl.FP32]" in hover
        server.request(2, "shutdown", None)
        assert server.response(2)["result"] is None
        server.notify("exit", None)
        assert server.wait(10) == 0
    finally:
        server.close()
