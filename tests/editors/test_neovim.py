"""A real editor client: headless Neovim attaches ptols to a kernel, sees a diagnostic and a hover.

Neovim comes from the distribution (scripts/test.sh installs it when missing)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KERNEL = """import pypto.language as pl


@pl.function
def kernel(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
    tile = pl.load(a, [0, 0], [64, 64])
    bad = pl.add(tile, missing)
    r = pl.store(tile, [0, 0], [64, 64], a)
    return r
"""

# Both scripts open PTOLS_RESULT as `out`, attach ptols to PTOLS_FILE's buffer `bufnr`.
ATTACH = r"""
local out = io.open(vim.env.PTOLS_RESULT, "w")
local client_id = vim.lsp.start_client({
  name = "ptols",
  cmd = { vim.env.PTOLS_PYTHON, "-m", "ptols" },
  root_dir = vim.env.PTOLS_ROOT,
})
vim.cmd("edit " .. vim.env.PTOLS_FILE)
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, client_id)
"""

# What both the attaching script above and docs/install.md's snippet check: a diagnostic and a
# hover on `tile` (needs `out` and `bufnr`).
DIAGNOSTIC_AND_HOVER = r"""
local function finish(code)
  out:close()
  if code == 0 then vim.cmd("qall!") else vim.cmd("cquit! " .. code) end
end
local ok = vim.wait(20000, function() return #vim.diagnostic.get(bufnr) > 0 end, 50)
if not ok then out:write("no diagnostics\n"); finish(2) return end
for _, d in ipairs(vim.diagnostic.get(bufnr)) do
  out:write(string.format("diagnostic %s %d:%d %s\n", d.code, d.lnum, d.col, d.message))
end
local params = {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) },
  position = { line = 5, character = 5 },
}
local responses = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", params, 10000)
for _, response in pairs(responses or {}) do
  if response.result and response.result.contents then
    out:write("hover " .. response.result.contents.value:gsub("\n", " ") .. "\n")
  end
end
finish(0)
"""
INIT = ATTACH + DIAGNOSTIC_AND_HOVER

# docs/install.md's Neovim snippet as users paste it, then the kernel opened as they would:
# with filetype detection on, which Neovim turns on only after init.lua has run.
INSTALL_DOC = Path(__file__).resolve().parents[2] / "docs" / "install.md"
OPEN_KERNEL = r"""
local out = io.open(vim.env.PTOLS_RESULT, "w")
vim.cmd("filetype on")
vim.cmd("edit " .. vim.env.PTOLS_FILE)
local bufnr = vim.api.nvim_get_current_buf()
"""


def run_neovim(tmp_path: Path, kernel_text: str, init_text: str, timeout: float) -> list[str]:
    """Run headless Neovim with ``init_text`` on a kernel file (its own XDG directories);
    the lines the script wrote to its result file."""
    kernel = tmp_path / "kernel.py"
    kernel.write_text(kernel_text)
    init = tmp_path / "init.lua"
    init.write_text(init_text)
    result = tmp_path / "result.txt"
    env = dict(os.environ)
    for name in ("XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME"):
        env[name] = str(tmp_path / name.lower())
    env.update(
        # `ptols` on PATH, as docs/install.md asks (the test venv's).
        PATH=os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")]),
        PTOLS_PYTHON=sys.executable,
        PTOLS_ROOT=str(tmp_path),
        PTOLS_FILE=str(kernel),
        PTOLS_RESULT=str(result),
    )
    completed = subprocess.run(
        ["nvim", "--headless", "-u", str(init)],
        env=env,
        cwd=tmp_path,
        timeout=timeout,
        capture_output=True,
        text=True,
    )
    output = result.read_text() if result.exists() else ""
    assert completed.returncode == 0, (completed.stdout, completed.stderr, output)
    return output.splitlines()


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is installed by scripts/test.sh")
def test_neovim_sees_diagnostic_and_hover(tmp_path: Path):
    lines = run_neovim(tmp_path, KERNEL, INIT, timeout=90)
    assert "diagnostic E200 6:23 Undefined variable 'missing'" in lines[0]
    hover = next(line for line in lines if line.startswith("hover"))
    assert "(variable) tile: pl.Tile[[64, 64], pl.FP32]" in hover


def neovim_snippet() -> str:
    """The Lua block of docs/install.md's Neovim section."""
    section = INSTALL_DOC.read_text().split("\n## Neovim\n", 1)[1].split("\n## ", 1)[0]
    return section.split("```lua\n", 1)[1].split("```", 1)[0]


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is installed by scripts/test.sh")
def test_install_doc_neovim_snippet_attaches_ptols(tmp_path: Path):
    snippet = neovim_snippet()
    assert 'cmd = { "ptols" }' in snippet
    lines = run_neovim(tmp_path, KERNEL, snippet + OPEN_KERNEL + DIAGNOSTIC_AND_HOVER, timeout=90)
    assert "diagnostic E200 6:23 Undefined variable 'missing'" in lines[0]
    hover = next(line for line in lines if line.startswith("hover"))
    assert "(variable) tile: pl.Tile[[64, 64], pl.FP32]" in hover


HARDWARE_KERNEL = """import pypto.language as pl


@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
        tile_a = pl.load(a, [0, 0], [64, 64])
        tile_b = pl.exp(tile_a)
        pl.store(tile_b, [0, 0], [64, 64], out)
"""

# The request scripts: wait for the server's capabilities, `ask` for one request's result; each
# script defines `report`, which FINISH runs before quitting.
REQUESTS = (
    ATTACH
    + r"""
vim.wait(20000, function()
  local client = vim.lsp.get_client_by_id(client_id)
  return client ~= nil and client.server_capabilities ~= nil
end, 50)
local doc = { uri = vim.uri_from_bufnr(bufnr) }
local function ask(method, params)
  local responses = vim.lsp.buf_request_sync(bufnr, method, params, 30000)
  for _, response in pairs(responses or {}) do
    if response.result then return response.result end
  end
end
"""
)
FINISH = r"""
local ok, problem = pcall(report)
if not ok then out:write("error " .. tostring(problem) .. "\n") end
out:close()
vim.cmd("qall!")
"""

# Neovim users get the hardware view through the documented requests (docs/lsp-extensions.md).
HARDWARE_INIT = (
    REQUESTS
    + r"""
local function report()
  local map = ask("ptols/sourceMap",
    { textDocument = doc, target = "cce", ["function"] = "kernel" })
  local lines = vim.split(map.content, "\n")
  for _, e in ipairs(map.entries) do
    for line = e.generated.startLine, e.generated.endLine do
      if lines[line + 1]:match("TEXP") then
        out:write(string.format("map %s -> %d:%d-%d:%d\n", vim.trim(lines[line + 1]),
          e.source.start.line, e.source.start.character, e.source["end"].line,
          e.source["end"].character))
      end
    end
  end
  local memory = ask("ptols/memoryMap", { textDocument = doc, ["function"] = "kernel" })
  for _, fn in ipairs(memory.functions) do
    for _, b in ipairs(fn.buffers) do
      out:write(string.format("buffer %s %s %d %d %d-%d\n", b.name, b.space, b.start, b.size,
        b.firstUse.index, b.lastUse.index))
    end
  end
end
"""
    + FINISH
)


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is installed by scripts/test.sh")
def test_neovim_gets_source_and_memory_maps(tmp_path: Path):
    assert run_neovim(tmp_path, HARDWARE_KERNEL, HARDWARE_INIT, timeout=120) == [
        "map TEXP(tile_b, tile_a); -> 8:8-8:31",
        "buffer tile_a Vec 0 16384 0-1",
        "buffer tile_b Vec 16384 16384 1-2",
    ]


# The hardware kernel with a loop carrying a tile instead of its exp, and a caller.
STRUCTURE_KERNEL = HARDWARE_KERNEL.replace(
    """        tile_b = pl.exp(tile_a)
        pl.store(tile_b, [0, 0], [64, 64], out)
""",
    """        for i, (acc,) in pl.range(2, init_values=(tile_a,)):
            total = pl.add(acc, tile_a)
            acc_next = pl.yield_(total)
        pl.store(acc_next, [0, 0], [64, 64], out)

    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]):
        self.kernel(a, out)
""",
)

# The standard requests of issue #31, sent as Neovim sends any LSP request; the answers read back.
STRUCTURE_INIT = (
    REQUESTS
    + r"""
local function report()
  local tokens = ask("textDocument/semanticTokens/full", { textDocument = doc })
  local line, column = 0, 0
  for i = 1, #tokens.data, 5 do
    local d = tokens.data
    line = line + d[i]
    column = (d[i] == 0) and (column + d[i + 1]) or d[i + 1]
    if line == 9 then
      out:write(string.format("token %d:%d %d %d %d\n", line, column, d[i + 2], d[i + 3], d[i + 4]))
    end
  end
  for _, r in ipairs(ask("textDocument/foldingRange", { textDocument = doc })) do
    out:write(string.format("fold %d-%d\n", r.startLine, r.endLine))
  end
  local at = { textDocument = doc, position = { line = 8, character = 17 } }
  for _, h in ipairs(ask("textDocument/documentHighlight", at)) do
    out:write(string.format("highlight %d:%d %d\n", h.range.start.line, h.range.start.character,
      h.kind))
  end
  local items = ask("textDocument/prepareCallHierarchy",
    { textDocument = doc, position = { line = 15, character = 14 } })
  for _, call in ipairs(ask("callHierarchy/incomingCalls", { item = items[1] })) do
    out:write(string.format("caller %s of %s\n", call.from.name, items[1].name))
  end
end
"""
    + FINISH
)


@pytest.mark.skipif(shutil.which("nvim") is None, reason="neovim is installed by scripts/test.sh")
def test_neovim_gets_semantic_tokens_folds_highlights_and_calls(tmp_path: Path):
    from ptols.capabilities import TOKEN_MODIFIERS, TOKEN_TYPES

    def token(line: int, column: int, length: int, kind: str, *modifiers: str) -> str:
        bits = sum(1 << TOKEN_MODIFIERS.index(name) for name in modifiers)
        return f"token {line}:{column} {length} {TOKEN_TYPES.index(kind)} {bits}"

    assert run_neovim(tmp_path, STRUCTURE_KERNEL, STRUCTURE_INIT, timeout=120) == [
        # total = pl.add(acc, tile_a)
        token(9, 12, 5, "variable", "declaration", "tile"),
        token(9, 20, 2, "namespace", "defaultLibrary"),
        token(9, 23, 3, "function", "defaultLibrary"),
        token(9, 27, 3, "variable", "tile", "loopCarried"),
        token(9, 32, 6, "variable", "tile"),
        "fold 4-15",
        "fold 6-11",
        "fold 8-10",
        "fold 14-15",
        # acc: the iter_arg, its init value, its read, the loop's result, the yielded value
        "highlight 8:16 3",
        "highlight 8:50 3",
        "highlight 9:27 2",
        "highlight 10:12 3",
        "highlight 10:33 3",
        "highlight 11:17 2",
        "caller main of kernel",
    ]
