"""The custom requests' classes (ptols.protocol) against their two other descriptions: the
TypeScript interfaces of docs/lsp-extensions.md (exactly: the same field names, optional `?`
fields and `| null` types) and those of the extension's logic/protocol.ts (compatibly: what the
extension reads, the server always sends; what the server needs, the extension always sends).
And the JSON the classes make is byte for byte what the server sent before they existed."""

from __future__ import annotations

import json
import re
import types as pytypes
import typing
from dataclasses import dataclass
from pathlib import Path

import attrs
import pytest
from lsprotocol import types
from lsprotocol.converters import get_converter

from ptols import protocol
from ptols.handlers import HANDLERS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs" / "lsp-extensions.md"
EXTENSION = ROOT / "vscode-extension" / "src" / "logic" / "protocol.ts"


@dataclass
class TsField:
    optional: bool
    nullable: bool
    type: str  # the type's text, `[]` removed


def split_top(text: str, separators: str = ";\n") -> list[str]:
    """``text`` cut at the separators outside braces."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(text):
        depth += {"{": 1, "}": -1}.get(char, 0)
        if depth == 0 and char in separators:
            parts.append(text[start:i])
            start = i + 1
    return [p.strip() for p in [*parts, text[start:]] if p.strip()]


def ts_fields(body: str) -> dict[str, TsField]:
    fields = {}
    for part in split_top(re.sub(r"/\*.*?\*/|//[^\n]*", "", body, flags=re.DOTALL)):
        match = re.fullmatch(r"(\w+)(\?)?\s*:\s*(.+)", part, re.DOTALL)
        assert match is not None, f"not a field: {part!r}"
        name, optional, kind = match.groups()
        alternatives = [a.strip() for a in split_top(kind, "|")]
        nullable = "null" in alternatives
        kind = " | ".join(a for a in alternatives if a != "null").removesuffix("[]")
        fields[name] = TsField(bool(optional), nullable, kind)
    return fields


def ts_interfaces(text: str) -> dict[str, dict[str, TsField]]:
    """Every `interface Name { ... }` of a TypeScript text, by name."""
    found = {}
    for match in re.finditer(r"interface (\w+) \{", text):
        depth, end = 1, match.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(text[end], 0)
            end += 1
        found[match.group(1)] = ts_fields(text[match.end() : end - 1])
    return found


def camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(part.title() for part in rest)


@dataclass
class PyField:
    optional: bool
    nullable: bool
    inner: type | None  # the attrs class inside (through list[...]), if any


def py_fields(cls: type) -> dict[str, PyField]:
    hints = typing.get_type_hints(cls)
    fields = {}
    for field in attrs.fields(cls):
        kind = hints[field.name]
        args = typing.get_args(kind) if isinstance(kind, pytypes.UnionType) else (kind,)
        inner = next(a for a in args if a is not type(None))
        if typing.get_origin(inner) is list:
            inner = typing.get_args(inner)[0]
        optional = field.default is not attrs.NOTHING
        nullable = type(None) in args and not optional  # an optional None is left out
        fields[camel(field.name)] = PyField(optional, nullable, inner if attrs.has(inner) else None)
    return fields


def nested(kind: str, known: dict[str, dict[str, TsField]]) -> dict[str, TsField] | None:
    """The fields of an inline object type or of a named interface of the same text."""
    if kind.startswith("{"):
        return ts_fields(kind.strip()[1:-1])
    return known.get(kind)


def compare_exactly(cls: type, ts: dict[str, TsField], known: dict[str, dict[str, TsField]]):
    py = py_fields(cls)
    assert list(py) == list(ts), cls.__name__
    for name, field in ts.items():
        where = f"{cls.__name__}.{name}"
        assert (py[name].optional, py[name].nullable) == (field.optional, field.nullable), where
        inner_ts, inner_py = nested(field.type, known), py[name].inner
        if inner_ts is not None and inner_py is not None:
            compare_exactly(inner_py, inner_ts, known)


def compare_compatibly(
    cls: type, ts: dict[str, TsField], known: dict[str, dict[str, TsField]], to_server: bool
):
    py = py_fields(cls)
    for name, field in ts.items():
        where = f"{cls.__name__}.{name}"
        assert name in py, f"{where}: the extension names a field the server does not have"
        mine = py[name]
        if to_server:  # what the server requires, the extension must always send
            assert field.optional <= mine.optional and field.nullable <= mine.nullable, where
        else:  # what the extension requires, the server must always send
            assert mine.optional <= field.optional and mine.nullable <= field.nullable, where
        inner_ts, inner_py = nested(field.type, known), mine.inner
        if inner_ts is not None and inner_py is not None:
            compare_compatibly(inner_py, inner_ts, known, to_server)
    if to_server:
        missing = [n for n, f in py.items() if not f.optional and n not in ts]
        assert missing == [], f"{cls.__name__}: the extension never sends {missing}"


def named_classes() -> dict[str, tuple[type, bool]]:
    """Every class of protocol.METHODS by name, with whether the client sends it."""
    found = {}
    for params, result in protocol.METHODS.values():
        if params is not None:
            found[params.__name__] = (params, result is not None)
        if result is not None:
            found[result.__name__] = (result, False)
    return found


def test_every_method_is_documented_and_every_documented_method_is_known():
    headings = re.findall(r"^## `(ptols/\w+)`", DOCS.read_text(), re.MULTILINE)
    assert sorted(headings) == sorted(protocol.METHODS)


def test_every_request_has_a_handler():
    requests = {m for m, (_, result) in protocol.METHODS.items() if result is not None}
    assert requests <= {handler.method for handler in HANDLERS}


def test_the_classes_match_the_documented_interfaces_exactly():
    documented = ts_interfaces(DOCS.read_text())
    classes = named_classes()
    assert sorted(documented) == sorted(classes)
    for name, (cls, _) in classes.items():
        compare_exactly(cls, documented[name], documented)


def test_the_classes_fit_what_the_extension_reads_and_sends():
    declared = ts_interfaces(EXTENSION.read_text())
    classes = named_classes()
    shared = sorted(set(declared) & set(classes))
    assert "PreviewParams" in shared and "PreviewResult" in shared  # the check reads something
    for name in shared:
        cls, to_server = classes[name]
        compare_compatibly(cls, declared[name], declared, to_server)


def test_the_checks_see_a_difference():
    documented = ts_interfaces("interface StatusParams { state: string; uri: string }")
    with pytest.raises(AssertionError):  # uri is optional in the class
        compare_exactly(protocol.StatusParams, documented["StatusParams"], documented)
    declared = ts_interfaces("interface PreviewResult { language: string; extra: number }")
    with pytest.raises(AssertionError):
        compare_compatibly(protocol.PreviewResult, declared["PreviewResult"], declared, False)


def wire(value: object) -> str:
    return json.dumps(get_converter().unstructure(value))


def test_the_wire_format_is_the_one_before_the_classes():
    origin = types.Range(types.Position(0, 0), types.Position(0, 3))
    range_json = {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 3}}
    diagnostic = protocol.PreviewDiagnostic(origin, 2, "W900", "deep")
    assert wire(protocol.PreviewResult("cpp", "x", None, [diagnostic])) == json.dumps(
        {
            "language": "cpp",
            "content": "x",
            "version": None,
            "diagnostics": [
                {"range": range_json, "severity": 2, "code": "W900", "message": "deep"}
            ],
        }
    )
    assert wire(protocol.PreviewResult("cpp", "", 3, [], pending=True)) == json.dumps(
        {"language": "cpp", "content": "", "version": 3, "diagnostics": [], "pending": True}
    )
    entry = protocol.FunctionEntry("k", None, origin)
    assert wire(protocol.FunctionsResult([entry])) == json.dumps(
        {"functions": [{"name": "k", "program": None, "range": range_json}]}
    )
    passes = protocol.PassesResult([protocol.PassEntry("A", "does a")], {"default": ["A"]})
    assert wire(passes) == json.dumps(
        {"passes": [{"name": "A", "description": "does a"}], "pipelines": {"default": ["A"]}}
    )
    assert wire(protocol.TextDigestResult(1, 2, "ab")) == json.dumps(
        {"version": 1, "length": 2, "sha256": "ab"}
    )
    assert wire(protocol.StatusParams("ready")) == json.dumps({"state": "ready"})
    assert wire(protocol.StatusParams("ready", "u")) == json.dumps({"state": "ready", "uri": "u"})
    assert wire(protocol.PreviewChangedParams("u", None)) == json.dumps(
        {"uri": "u", "version": None}
    )


def test_request_params_are_read_into_their_classes():
    message = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": protocol.PREVIEW,
        "params": {"textDocument": {"uri": "file:///k.py"}, "function": "kernel"},
    }
    read = get_converter().structure(message, protocol.REQUESTS[protocol.PREVIEW])
    assert read.params == protocol.PreviewParams(
        types.TextDocumentIdentifier("file:///k.py"), function="kernel"
    )
