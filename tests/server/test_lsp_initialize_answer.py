"""The answer to `initialize` that ptols computes without pygls (capabilities.py, sent by
early.py before pygls loads) is pygls' own answer, as JSON text, for real clients' requests
and for the client capabilities the negotiation depends on."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types

from ptols import capabilities
from ptols.server import create_server

CLIENTS = Path(__file__).parent / "clients"
VSCODE = json.loads((CLIENTS / "vscode-1.90.json").read_text())  # recorded from VS Code 1.90
NEOVIM = json.loads((CLIENTS / "neovim-0.7.json").read_text())  # recorded from Neovim 0.7.2


def client(capabilities: dict[str, Any], **more: Any) -> dict[str, Any]:
    return {"processId": None, "rootUri": None, "capabilities": capabilities, **more}


def encodings(*offered: str) -> dict[str, Any]:
    return client({"general": {"positionEncodings": list(offered)}})


CASES: dict[str, dict[str, Any]] = {
    "vscode": VSCODE,
    "neovim": NEOVIM,
    "empty": client({}),
    "utf-8 and utf-32 only": encodings("utf-8", "utf-32"),
    "utf-32 only": encodings("utf-32"),
    "utf-32 first": encodings("utf-32", "utf-16", "utf-8"),
    "unknown encodings only": encodings("utf-7", "latin-1"),
    "no encodings": encodings(),
    "general without encodings": client({"general": {}}),
    "willSave stated false": client(
        {"textDocument": {"synchronization": {"willSave": False, "didSave": True}}}
    ),
    "willSaveWaitUntil only": client(
        {"textDocument": {"synchronization": {"willSaveWaitUntil": True}}}
    ),
    "prepareSupport false": client({"textDocument": {"rename": {"prepareSupport": False}}}),
    "prepareSupport true": client({"textDocument": {"rename": {"prepareSupport": True}}}),
    "nulls": client({"general": None, "textDocument": None}, clientInfo=None, trace=None),
    "notebooks": client({"notebookDocument": {"synchronization": {}}}),
    "file operations": client({"workspace": {"fileOperations": {"willRename": True}}}),
    "with launch fields": {
        **VSCODE,
        "workDoneToken": "t1",
        "initializationOptions": {"a": [1]},
        "locale": "de",
    },
}


def pygls_answer(params: dict[str, Any]) -> str:
    """What pygls sends as the result of `initialize` for ``params``, as JSON text."""
    server = create_server()
    protocol = server.protocol
    structured = protocol._converter.structure(copy.deepcopy(params), types.InitializeParams)
    steps = protocol.lsp_initialize(structured)
    with pytest.raises(StopIteration) as done:  # ptols has no initialize handler of its own
        next(steps)
    return json.dumps(done.value.value, default=protocol._serialize_message)


@pytest.mark.parametrize("name", list(CASES))
def test_the_computed_answer_is_pygls_answer_as_json_text(name: str) -> None:
    params = CASES[name]
    assert json.dumps(capabilities.initialize_result(params)) == pygls_answer(params)


def test_the_cases_cover_each_negotiated_value() -> None:
    """The cases above would catch a table that ignored the client's offers."""
    answers = [capabilities.initialize_result(params) for params in CASES.values()]
    found = [answer["capabilities"] for answer in answers if answer is not None]
    assert {caps["positionEncoding"] for caps in found} == {"utf-8", "utf-16", "utf-32"}
    assert {json.dumps(caps["textDocumentSync"]) for caps in found} == {
        '{"openClose": true, "change": 2, "save": true}',
        '{"openClose": true, "change": 2, "willSave": false, "save": true}',
        '{"openClose": true, "change": 2, "willSaveWaitUntil": false, "save": true}',
        '{"openClose": true, "change": 2, "willSave": false, "willSaveWaitUntil": false, '
        '"save": true}',
    }
    assert {json.dumps(caps["renameProvider"]) for caps in found} == {
        "true",
        '{"prepareProvider": true}',
    }


@pytest.mark.parametrize(
    "params",
    [
        {"processId": 1},  # no capabilities
        client([]),
        client({}, processId="12"),
        client({}, processId=True),
        client({}, rootUri=3),
        client({}, clientInfo={"version": "1"}),
        client({}, trace="loud"),
        client({}, workspaceFolders=[{"uri": "file:///a"}]),
        client({}, workDoneToken=1.5),
        client({"general": {"positionEncodings": "utf-8"}}),
        client({"general": {"positionEncodings": [8]}}),
        client({"general": []}),
        client({"textDocument": {"synchronization": {"willSave": 1}}}),
        client({"textDocument": {"rename": {"prepareSupport": "yes"}}}),
    ],
)
def test_params_it_does_not_understand_are_left_to_pygls(params: dict[str, Any]) -> None:
    assert capabilities.initialize_result(params) is None
