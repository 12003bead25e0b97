from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from lsprotocol import types
from pytest_lsp import LanguageClient

if TYPE_CHECKING:
    from ptoc.frontend import ModuleAnalysis
    from ptols.convert import Positions

KERNEL = """import pypto.language as pl


@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(
        self,
        a: pl.Tensor[[64, 64], pl.FP32],
        b: pl.Tensor[[64, 64], pl.FP32],
        out: pl.Tensor[[64, 64], pl.FP32],
    ) -> pl.Tensor[[64, 64], pl.FP32]:
        tile_a = pl.load(a, [0, 0], [64, 64])
        tile_b = pl.load(b, [0, 0], [64, 64])
        tile_c = pl.add(tile_a, tile_b)
        result = pl.store(tile_c, [0, 0], [64, 64], out)
        return result

    @pl.function
    def main(self, a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32], out: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
        r = self.kernel(a, b, out)
        return r
"""


# A program with a loop carrying a tile, an `if` yielding a result from each branch, a comment
# block and calls between its functions.
LOOP_KERNEL = """import pypto.language as pl

# A kernel and its caller:
# the loop carries one tile.


@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[128, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]):
        first = pl.load(x, [0, 0], [32, 64])
        for i, (acc,) in pl.range(1, 4, init_values=(first,)):
            rows = pl.load(x, [i * 32, 0], [32, 64])
            if i < 2:
                picked = pl.yield_(rows)
            else:
                doubled = pl.add(rows, rows)
                picked = pl.yield_(doubled)
            total = pl.add(acc, picked)
            acc_next = pl.yield_(total)
        result = pl.store(acc_next, [0, 0], [32, 64], out)
        return result

    @pl.function
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]):
        r = self.kernel(x, out)
        s = self.kernel(x, r)
        return s
"""


def position_of(text: str, needle: str, offset: int = 0, occurrence: int = 1) -> types.Position:
    index = -1
    for _ in range(occurrence):
        index = text.index(needle, index + 1)
    index += offset
    line = text.count("\n", 0, index)
    return types.Position(line, index - (text.rfind("\n", 0, index) + 1))


async def open_document(client: LanguageClient, path: Path, text: str, version: int = 1) -> str:
    path.write_text(text)
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri, "python", version, text))
    )
    await wait_for_diagnostics(client, uri, version)
    return uri


async def wait_for_diagnostics(
    client: LanguageClient, uri: str, version: int, timeout: float = 20.0
):
    """The diagnostics published for exactly this version of the document."""
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        for params in reversed(client.published):  # type: ignore[attr-defined]
            if params.uri == uri and params.version == version:
                return params.diagnostics
        await asyncio.sleep(0.005)
    raise TimeoutError(f"no diagnostics for {uri} version {version}")


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text)],
        )
    )


class Analysed(NamedTuple):
    """A text analysed as the server analyses it, for calling the feature modules directly."""

    text: str
    analysis: ModuleAnalysis
    positions: Positions

    def at(self, needle: str, offset: int = 0, occurrence: int = 1) -> tuple[int, int]:
        """(1-based line, code-point column) of ``needle`` (+ ``offset``) in the text."""
        return self.positions.position(position_of(self.text, needle, offset, occurrence))

    def offset(self, needle: str, offset: int = 0) -> int:
        return self.text.index(needle) + offset


def analysed(text: str = KERNEL) -> Analysed:
    from ptoc.frontend import analyze_source
    from ptols.convert import Positions
    from ptols.text import LineIndex

    return Analysed(text, analyze_source(text, "k.py"), Positions(LineIndex(text), "utf-16"))
