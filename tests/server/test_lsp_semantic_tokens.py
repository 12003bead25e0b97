"""Semantic tokens over real LSP round trips: the legend, every token of a known kernel (ops,
tiles / tensors / scalars, memory spaces, dtypes, loop-carried values), deltas after an edit."""

from __future__ import annotations

from pathlib import Path

from lsp_helpers import LOOP_KERNEL, change, open_document, wait_for_diagnostics
from lsprotocol import types
from pytest_lsp import LanguageClient

from ptols.capabilities import TOKEN_MODIFIERS, TOKEN_TYPES

# The loop kernel with a module constant, a memory space and a comment naming an op.
KERNEL = (
    LOOP_KERNEL.replace(
        "import pypto.language as pl\n", "import pypto.language as pl\n\nN = 4\n", 1
    )
    .replace("pl.range(1, 4,", "pl.range(1, N,")
    .replace("[32, 64])\n        for", "[32, 64], target_memory=pl.MemorySpace.Vec)\n        for")
    .replace(
        "r = self.kernel(x, out)", "r = self.kernel(x, out)  # pl.add in a comment is no token"
    )
)

TOKENS = [
    "2:0 N variable declaration readonly",
    "8:1 pl namespace defaultLibrary",
    "8:4 program decorator defaultLibrary",
    "9:6 Demo class declaration",
    "10:5 pl namespace defaultLibrary",
    "10:8 function decorator defaultLibrary",
    "10:22 pl namespace defaultLibrary",
    "10:25 FunctionType enum defaultLibrary",
    "10:38 InCore enumMember defaultLibrary",
    "11:8 kernel function declaration",
    "11:21 x parameter declaration tensor",
    "11:24 pl namespace defaultLibrary",
    "11:27 Tensor type defaultLibrary",
    "11:45 pl namespace defaultLibrary",
    "11:48 FP32 enumMember defaultLibrary dtype",
    "11:55 out parameter declaration tensor",
    "11:60 pl namespace defaultLibrary",
    "11:63 Tensor type defaultLibrary",
    "11:80 pl namespace defaultLibrary",
    "11:83 FP32 enumMember defaultLibrary dtype",
    "12:8 first variable declaration tile",
    "12:16 pl namespace defaultLibrary",
    "12:19 load function defaultLibrary",
    "12:24 x parameter tensor",
    "12:59 pl namespace defaultLibrary",
    "12:62 MemorySpace enum defaultLibrary",
    "12:74 Vec enumMember defaultLibrary memorySpace",
    "13:12 i variable declaration scalar",
    "13:16 acc variable declaration tile loopCarried",
    "13:25 pl namespace defaultLibrary",
    "13:28 range macro defaultLibrary",
    "13:37 N variable readonly scalar",
    "13:53 first variable tile",
    "14:12 rows variable declaration tile",
    "14:19 pl namespace defaultLibrary",
    "14:22 load function defaultLibrary",
    "14:27 x parameter tensor",
    "14:31 i variable scalar",
    "15:15 i variable scalar",
    "16:16 picked variable declaration tile",
    "16:25 pl namespace defaultLibrary",
    "16:28 yield_ macro defaultLibrary",
    "16:35 rows variable tile",
    "18:16 doubled variable declaration tile",
    "18:26 pl namespace defaultLibrary",
    "18:29 add function defaultLibrary",
    "18:33 rows variable tile",
    "18:39 rows variable tile",
    "19:25 pl namespace defaultLibrary",
    "19:28 yield_ macro defaultLibrary",
    "19:35 doubled variable tile",
    "20:12 total variable declaration tile",
    "20:20 pl namespace defaultLibrary",
    "20:23 add function defaultLibrary",
    "20:27 acc variable tile loopCarried",
    "20:32 picked variable tile",
    "21:12 acc_next variable declaration tile",
    "21:23 pl namespace defaultLibrary",
    "21:26 yield_ macro defaultLibrary",
    "21:33 total variable tile",
    "22:8 result variable declaration tensor",
    "22:17 pl namespace defaultLibrary",
    "22:20 store function defaultLibrary",
    "22:26 acc_next variable tile",
    "22:54 out parameter tensor",
    "23:15 result variable tensor",
    "25:5 pl namespace defaultLibrary",
    "25:8 function decorator defaultLibrary",
    "26:8 main function declaration",
    "26:19 x parameter declaration tensor",
    "26:22 pl namespace defaultLibrary",
    "26:25 Tensor type defaultLibrary",
    "26:43 pl namespace defaultLibrary",
    "26:46 FP32 enumMember defaultLibrary dtype",
    "26:53 out parameter declaration tensor",
    "26:58 pl namespace defaultLibrary",
    "26:61 Tensor type defaultLibrary",
    "26:78 pl namespace defaultLibrary",
    "26:81 FP32 enumMember defaultLibrary dtype",
    "27:8 r variable declaration",
    "27:17 kernel function",
    "27:24 x parameter tensor",
    "27:27 out parameter tensor",
    "28:8 s variable declaration",
    "28:17 kernel function",
    "28:24 x parameter tensor",
    "28:27 r variable",
    "29:15 s variable",
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
    edited = KERNEL.replace("total = pl.add(acc, picked)", "total = pl.exp(acc)")
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
        token.replace("20:23 add", "20:23 exp") for token in TOKENS if not token.startswith("20:32")
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


# --- ptols.features.semantic_tokens called directly, without a client ----------------------------


def test_columns_count_in_the_negotiated_encoding():
    from lsp_helpers import KERNEL as SMALL

    from ptoc.frontend import analyze_source
    from ptols.convert import Positions
    from ptols.features.semantic_tokens import encode
    from ptols.text import LineIndex

    text = SMALL.replace("tile_c", "tile_ä")  # two UTF-8 bytes, one UTF-16 unit
    analysis = analyze_source(text, "k.py")
    utf16 = decode(text, encode(analysis, Positions(LineIndex(text), "utf-16")))
    assert "14:8 tile_ä variable declaration tile" in utf16
    assert "14:17 pl namespace defaultLibrary" in utf16
    utf8 = encode(analysis, Positions(LineIndex(text), "utf-8"))
    # the same tokens; on line 14 everything after `tile_ä` one column further, and it longer
    assert len(utf8) == len(encode(analysis, Positions(LineIndex(text), "utf-16")))
    line, starts = 0, []
    for index in range(0, len(utf8), 5):
        line += utf8[index]
        if line == 14:
            starts.append((utf8[index + 1], utf8[index + 2]))
    assert starts[:2] == [(8, 7), (10, 2)]  # tile_ä: 7 bytes; `pl` 10 bytes after its start


def test_tokens_of_an_older_analysis_move_with_the_edits_or_are_left_out():
    from ptoc.frontend import analyze_source
    from ptols.convert import Positions
    from ptols.features.semantic_tokens import encode
    from ptols.text import LineIndex

    analysis = analyze_source(KERNEL, "k.py")
    newer = KERNEL.replace("N = 4\n", "N = 4\nM = 5\n").replace("total = pl.add", "total = pl.ad")
    data = encode(analysis, Positions(LineIndex(KERNEL), "utf-16", LineIndex(newer)))
    moved = [
        f"{int(token.split(':')[0]) + 1}:{token.split(':', 1)[1]}"
        for token in TOKENS
        if int(token.split(":")[0]) > 20  # after the last change (line 20 of the older text)
    ]
    found = decode(newer, data)
    assert found[0] == TOKENS[0] == "2:0 N variable declaration readonly"  # before the changes
    # after them a line further (and on the changed line a column back); between them: none
    assert found[1:] == [
        "21:26 acc variable tile loopCarried",
        "21:31 picked variable tile",
        *moved,
    ]
    assert not any(token.startswith("21:") and " add " in token for token in found)


def test_the_line_cache_holds_only_the_current_lines_of_each_document() -> None:
    """Issue #33: the cache of each line's `pl.` chains kept every line ever seen (up to 50,000
    before it was cleared): in an edit storm the server's memory grew with every edit. Now it
    holds the lines of each document's last scan, reused by the next one."""
    from ptoc.frontend import analyze_source
    from ptols.features import semantic_tokens
    from ptols.text import LineIndex

    semantic_tokens.LINE_TOKENS.clear()
    for version in range(300):
        text = LOOP_KERNEL + f"\nx{version} = pl.add\n"
        analysis = analyze_source(text, "/ws/k.py")
        rows = dict(semantic_tokens.lines_of_tokens(analysis, LineIndex(text)))
        assert rows  # the kernel's chains are found
    (kept,) = semantic_tokens.LINE_TOKENS.values()
    assert set(kept) == set(text.split("\n"))
