"""Semantic tokens over real LSP round trips: the legend, every token of a known kernel (ops,
tiles / tensors / scalars, memory spaces, dtypes, loop-carried values), deltas after an edit."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import change, open_document, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.capabilities import TOKEN_MODIFIERS, TOKEN_TYPES

KERNEL = """import pypto.language as pl

N = 4


@pl.program
class Demo:
    @pl.function(type=pl.FunctionType.InCore)
    def kernel(self, x: pl.Tensor[[128, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]):
        first = pl.load(x, [0, 0], [32, 64], target_memory=pl.MemorySpace.Vec)
        for i, (acc,) in pl.range(1, N, init_values=(first,)):
            rows = pl.load(x, [i * 32, 0], [32, 64])
            total = pl.add(acc, rows)
            acc_next = pl.yield_(total)
        result = pl.store(acc_next, [0, 0], [32, 64], out)
        return result

    @pl.function
    def main(self, x: pl.Tensor[[128, 64], pl.FP32], out: pl.Tensor[[32, 64], pl.FP32]):
        r = self.kernel(x, out)  # pl.add in a comment is no token
        return r
"""

TOKENS = [
    "2:0 N variable declaration readonly",
    "5:1 pl namespace defaultLibrary",
    "5:4 program decorator defaultLibrary",
    "6:6 Demo class declaration",
    "7:5 pl namespace defaultLibrary",
    "7:8 function decorator defaultLibrary",
    "7:22 pl namespace defaultLibrary",
    "7:25 FunctionType enum defaultLibrary",
    "7:38 InCore enumMember defaultLibrary",
    "8:8 kernel function declaration",
    "8:21 x parameter declaration tensor",
    "8:24 pl namespace defaultLibrary",
    "8:27 Tensor type defaultLibrary",
    "8:45 pl namespace defaultLibrary",
    "8:48 FP32 enumMember defaultLibrary dtype",
    "8:55 out parameter declaration tensor",
    "8:60 pl namespace defaultLibrary",
    "8:63 Tensor type defaultLibrary",
    "8:80 pl namespace defaultLibrary",
    "8:83 FP32 enumMember defaultLibrary dtype",
    "9:8 first variable declaration tile",
    "9:16 pl namespace defaultLibrary",
    "9:19 load function defaultLibrary",
    "9:24 x parameter tensor",
    "9:59 pl namespace defaultLibrary",
    "9:62 MemorySpace enum defaultLibrary",
    "9:74 Vec enumMember defaultLibrary memorySpace",
    "10:12 i variable declaration scalar",
    "10:16 acc variable declaration tile loopCarried",
    "10:25 pl namespace defaultLibrary",
    "10:28 range macro defaultLibrary",
    "10:37 N variable readonly scalar",
    "10:53 first variable tile",
    "11:12 rows variable declaration tile",
    "11:19 pl namespace defaultLibrary",
    "11:22 load function defaultLibrary",
    "11:27 x parameter tensor",
    "11:31 i variable scalar",
    "12:12 total variable declaration tile",
    "12:20 pl namespace defaultLibrary",
    "12:23 add function defaultLibrary",
    "12:27 acc variable tile loopCarried",
    "12:32 rows variable tile",
    "13:12 acc_next variable declaration tile",
    "13:23 pl namespace defaultLibrary",
    "13:26 yield_ macro defaultLibrary",
    "13:33 total variable tile",
    "14:8 result variable declaration tensor",
    "14:17 pl namespace defaultLibrary",
    "14:20 store function defaultLibrary",
    "14:26 acc_next variable tile",
    "14:54 out parameter tensor",
    "15:15 result variable tensor",
    "17:5 pl namespace defaultLibrary",
    "17:8 function decorator defaultLibrary",
    "18:8 main function declaration",
    "18:19 x parameter declaration tensor",
    "18:22 pl namespace defaultLibrary",
    "18:25 Tensor type defaultLibrary",
    "18:43 pl namespace defaultLibrary",
    "18:46 FP32 enumMember defaultLibrary dtype",
    "18:53 out parameter declaration tensor",
    "18:58 pl namespace defaultLibrary",
    "18:61 Tensor type defaultLibrary",
    "18:78 pl namespace defaultLibrary",
    "18:81 FP32 enumMember defaultLibrary dtype",
    "19:8 r variable declaration",
    "19:17 kernel function",
    "19:24 x parameter tensor",
    "19:27 out parameter tensor",
    "20:15 r variable",
]


def decode(text: str, data: list[int]) -> list[str]:
    """`line:column text type modifiers` of each token."""
    lines = text.split("\n")
    found, line, column = [], 0, 0
    for index in range(0, len(data), 5):
        delta_line, delta_start, length, kind, bits = data[index : index + 5]
        line += delta_line
        column = column + delta_start if delta_line == 0 else delta_start
        modifiers = [name for bit, name in enumerate(TOKEN_MODIFIERS) if bits >> bit & 1]
        word = lines[line][column : column + length]
        found.append(" ".join([f"{line}:{column}", word, TOKEN_TYPES[kind], *modifiers]))
    return found


def apply(data: list[int], edits: list[types.SemanticTokensEdit]) -> list[int]:
    data = list(data)
    for edit in sorted(edits, key=lambda e: e.start, reverse=True):
        data = data[: edit.start] + list(edit.data or []) + data[edit.start + edit.delete_count :]
    return data


def params(uri: str) -> types.SemanticTokensParams:
    return types.SemanticTokensParams(text_document=types.TextDocumentIdentifier(uri))


async def test_the_legend_is_announced(client: LanguageClient):
    capabilities = client.initialize_result.capabilities  # type: ignore[attr-defined]
    provider = capabilities.semantic_tokens_provider
    assert isinstance(provider, types.SemanticTokensOptions)
    assert list(provider.legend.token_types) == TOKEN_TYPES
    assert list(provider.legend.token_modifiers) == TOKEN_MODIFIERS
    assert provider.full == types.SemanticTokensFullDelta(delta=True)


async def test_every_token_of_a_kernel(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    tokens = await client.text_document_semantic_tokens_full_async(params(uri))
    assert tokens is not None and tokens.result_id
    assert decode(KERNEL, tokens.data) == TOKENS


async def test_a_delta_after_an_edit_gives_the_new_tokens(client: LanguageClient, tmp_path: Path):
    uri = await open_document(client, tmp_path / "k.py", KERNEL)
    first = await client.text_document_semantic_tokens_full_async(params(uri))
    assert first is not None and first.result_id is not None
    edited = KERNEL.replace("total = pl.add(acc, rows)", "total = pl.exp(acc)")
    change(client, uri, 2, edited)
    await wait_for_diagnostics(client, uri, 2)
    delta = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(
            text_document=types.TextDocumentIdentifier(uri), previous_result_id=first.result_id
        )
    )
    assert isinstance(delta, types.SemanticTokensDelta)
    assert delta.result_id not in (None, first.result_id)
    assert len(delta.edits) == 1 and len(delta.edits[0].data or []) < 20  # only what changed
    assert decode(edited, apply(first.data, delta.edits)) == [
        token.replace("12:23 add", "12:23 exp") for token in TOKENS if not token.startswith("12:32")
    ]
    again = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(
            text_document=types.TextDocumentIdentifier(uri), previous_result_id=delta.result_id
        )
    )
    assert isinstance(again, types.SemanticTokensDelta) and list(again.edits) == []
    unknown = await client.text_document_semantic_tokens_full_delta_async(
        types.SemanticTokensDeltaParams(
            text_document=types.TextDocumentIdentifier(uri), previous_result_id="no such id"
        )
    )
    assert isinstance(unknown, types.SemanticTokens)
    assert decode(edited, unknown.data) == decode(edited, apply(first.data, delta.edits))
