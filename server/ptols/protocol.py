"""The custom LSP extensions of ptols (docs/lsp-extensions.md): method names and typed payloads.

The payloads are attrs classes, as lsprotocol's own types are, so pygls' converter reads and
writes them: fields are snake_case here and camelCase on the wire, a field with a default is
optional (left out of the JSON when None), a field without one is always written (``null``
included). tests/server/test_lsp_protocol_types.py checks every class against the document and the
extension's `logic/protocol.ts`.
"""

from __future__ import annotations

from typing import Any

import attrs
from lsprotocol import types

PREVIEW = "ptols/preview"
PREVIEW_CHANGED = "ptols/previewChanged"
FUNCTIONS = "ptols/functions"
PASSES = "ptols/passes"
TEXT_DIGEST = "ptols/textDigest"
STATUS = "ptols/status"
SOURCE_MAP = "ptols/sourceMap"
MEMORY_MAP = "ptols/memoryMap"
RUN = "ptols/run"
SPECIALISATIONS = "ptols/specialisations"
TIMELINE = "ptols/timeline"
TASK_GRAPH = "ptols/taskGraph"
PASS_DIFF = "ptols/passDiff"
INSTRUCTION = "ptols/instruction"


@attrs.define
class PreviewParams:
    text_document: types.TextDocumentIdentifier
    target: str | None = None  # None: the `preview.defaultTarget` setting
    function: str | None = None
    pipeline: str | None = None  # None: the `pipeline` setting, else the target's own
    specialisation: int | None = None  # 1-based: each @pl.jit kernel's N-th (None: its first)
    # The chosen specialisation's `key` (ptols/specialisations): it wins over the index.
    specialisation_key: str | None = None


@attrs.define
class PreviewDiagnostic:
    range: types.Range
    severity: int
    code: str
    message: str


@attrs.define
class PreviewResult:
    language: str
    content: str
    version: int | None
    diagnostics: list[PreviewDiagnostic]
    pending: bool | None = None  # True: still compiling, ptols/previewChanged follows
    note: str | None = None  # the chosen specialisation is gone: which one is shown instead


@attrs.define
class PreviewChangedParams:
    uri: str
    version: int | None


@attrs.define
class FunctionsParams:
    text_document: types.TextDocumentIdentifier


@attrs.define
class FunctionEntry:
    name: str
    program: str | None
    range: types.Range


@attrs.define
class FunctionsResult:
    functions: list[FunctionEntry]


@attrs.define
class SpecialisationsParams:
    text_document: types.TextDocumentIdentifier


@attrs.define
class Specialisation:
    index: int  # 1-based: the preview's `specialisation`
    label: str  # where it comes from: "call at line 42: a: [128, 128] FP32, ..."
    key: str  # what it is (kernel and parameters' types): the same across edits that move calls


@attrs.define
class JitKernel:
    name: str
    range: types.Range
    specialisations: list[Specialisation]


@attrs.define
class SpecialisationsResult:
    version: int | None
    kernels: list[JitKernel]


@attrs.define
class PassEntry:
    name: str
    description: str


@attrs.define
class PassesResult:
    passes: list[PassEntry]
    pipelines: dict[str, list[str]]


@attrs.define
class TextDigestParams:
    text_document: types.TextDocumentIdentifier


@attrs.define
class TextDigestResult:
    version: int | None
    length: int
    sha256: str


@attrs.define
class StatusParams:
    state: str  # "analysing" | "ready"
    uri: str | None = None
    # With "ready": the document's language edition and why ("PyPTO 2026-08 (detected ...)").
    edition: str | None = None


@attrs.define
class SourceMapParams:
    text_document: types.TextDocumentIdentifier
    target: str | None = None  # as PreviewParams
    function: str | None = None
    pipeline: str | None = None


@attrs.define
class GeneratedLines:
    start_line: int  # 0-based, inclusive
    end_line: int


@attrs.define
class SourceMapEntry:
    generated: GeneratedLines
    source: types.Range


@attrs.define
class SourceMapResult:
    version: int | None
    content: str  # ptols/preview's content for the same params
    entries: list[SourceMapEntry]


@attrs.define
class MemoryMapParams:
    text_document: types.TextDocumentIdentifier
    function: str | None = None
    specialisation: int | None = None  # as ptols/preview's
    specialisation_key: str | None = None


@attrs.define
class BufferUse:
    index: int  # statement index in program order
    range: types.Range


@attrs.define
class MemoryBuffer:
    name: str
    space: str
    start: int
    size: int
    first_use: BufferUse
    last_use: BufferUse
    reuse_group: int | None
    dtype: str
    shape: list[int]
    value_size: int  # bytes the tile occupies from start (< size: a sub-range of its buffer)


@attrs.define
class MemorySpaceInfo:
    space: str
    capacity: int
    used: int
    overflow: bool


@attrs.define
class FunctionMemoryMap:
    name: str
    range: types.Range
    statements: int
    spaces: list[MemorySpaceInfo]
    buffers: list[MemoryBuffer]


@attrs.define
class MemoryMapResult:
    version: int | None
    functions: list[FunctionMemoryMap]
    diagnostics: list[PreviewDiagnostic]
    note: str | None = None  # as ptols/preview's


@attrs.define
class RunParams:
    text_document: types.TextDocumentIdentifier
    function: str
    seed: int | None = None  # None: 0, as ptoc run
    work_done_token: int | str | None = None
    specialisation: int | None = None  # as ptols/preview's
    specialisation_key: str | None = None


@attrs.define
class RunOutput:
    name: str
    max_abs_error: float
    max_rel_error: float
    ok: bool


@attrs.define
class RunResult:
    ok: bool
    outputs: list[RunOutput]
    message: str
    log: str
    note: str | None = None  # as ptols/preview's
    specialisation: int | None = None  # the specialisation that ran (a @pl.jit kernel's)


@attrs.define
class TimelineParams:
    text_document: types.TextDocumentIdentifier
    function: str | None = None


@attrs.define
class TimelineLane:
    pipe: str
    busy: int  # cycles
    utilisation: float  # busy / total


@attrs.define
class TimelineInstruction:
    name: str  # TLOAD, TADD, ...
    pipe: str
    start: int  # cycles from the kernel's start
    cycles: int
    line: int  # 0-based source line of its statement


@attrs.define
class TimelineArrow:
    signal: str  # the pipe that sets the flag
    wait: str  # the pipe that waits for it
    set_time: int
    wait_time: int
    set_line: int  # 0-based source lines
    wait_line: int


@attrs.define
class TimelineWait:
    pipe: str
    signal: str
    cycles: int
    wait_line: int
    set_line: int


@attrs.define
class FunctionTimeline:
    name: str
    range: types.Range
    total: int
    lanes: list[TimelineLane]
    instructions: list[TimelineInstruction]
    arrows: list[TimelineArrow]
    critical_path: list[int]  # indices into instructions, first to last
    bottleneck: str | None
    longest_wait: TimelineWait | None
    notes: list[str]


@attrs.define
class TimelineResult:
    version: int | None
    frequency_hz: float | None  # the clock the cycles are counted at
    functions: list[FunctionTimeline]
    message: str  # why there is no timeline, or ""


@attrs.define
class TaskGraphParams:
    text_document: types.TextDocumentIdentifier
    function: str


@attrs.define
class TaskGraphTask:
    index: int
    kernel: str  # the kernel launched
    kind: str  # "submit" | "spmd_submit" | "call" | "region"
    range: types.Range  # the call
    kernel_range: types.Range | None  # the kernel's definition (None: a region)
    width: str  # SPMD blocks
    task_id: str  # the TaskId's name, or ""
    scope: str  # "manual" | "auto" | ""
    loops: list[str]  # the loops around the call, outermost first
    # How often the loops drawn once around it run ("runs batch_cfg times at run time"),
    # outermost first.
    notes: list[str]
    cluster: int | None  # the innermost loop drawn once around it (TaskGraphCluster.index)


@attrs.define
class TaskGraphCluster:
    """A loop the graph draws once: a box around its tasks, labelled as DOT's subgraph is."""

    index: int
    label: str  # "range(batch_cfg)", "parallel(branches)", "while"
    note: str  # how often it runs: "runs batch_cfg times at run time"
    parent: int | None  # the loop drawn once around it


@attrs.define
class TaskGraphEdge:
    source: int
    target: int
    kind: str  # "deps" | "data"
    label: str  # the TaskId or the tensor


@attrs.define
class TaskGraphResult:
    version: int | None
    function: str
    tasks: list[TaskGraphTask]
    edges: list[TaskGraphEdge]
    message: str  # why there is no graph, or ""
    clusters: list[TaskGraphCluster]


@attrs.define
class PassDiffParams:
    text_document: types.TextDocumentIdentifier
    function: str | None = None
    pipeline: str | None = None  # None: the `pipeline` setting, else the IR target's own


@attrs.define
class PassStage:
    name: str  # "input", else the pass the IR is the result of
    content: str
    entries: list[SourceMapEntry]


@attrs.define
class PassChange:
    name: str
    description: str
    before: int  # index into stages
    after: int  # index into stages (== before: the pass changed nothing)
    added: int
    removed: int
    # [beforeStart, beforeEnd, afterStart, afterEnd]: 0-based lines, end exclusive
    changes: list[list[int]]


@attrs.define
class ProgramPassDiff:
    program: str
    stages: list[PassStage]
    passes: list[PassChange]


@attrs.define
class PassDiffResult:
    version: int | None
    pipeline: str
    programs: list[ProgramPassDiff]
    diagnostics: list[PreviewDiagnostic]


@attrs.define
class InstructionParams:
    name: str  # as the generated code spells it: TADD, pto.tadd, set_flag
    target: str | None = None  # "cce" or "pto"; None: both


@attrs.define
class InstructionOperand:
    name: str
    traits: str


@attrs.define
class InstructionEntry:
    instruction: str
    target: str
    op: str  # block.add
    form: str  # "" or the variant: "row vector rhs"
    description: str
    pipe: str
    operands: list[InstructionOperand]
    attributes: list[str]
    note: str


@attrs.define
class InstructionResult:
    entries: list[InstructionEntry]


def request_class(method: str, params: type) -> type:
    """The JSON-RPC request message of a custom method, for pygls to read its params into
    ``params`` (a request that does not fit is answered with InvalidParams)."""
    message_id: Any = int | str  # a union: attrs takes it, its stubs say `type`
    fields = {
        "id": attrs.field(type=message_id),
        "params": attrs.field(type=params),
        "method": attrs.field(type=str, default=method),
        "jsonrpc": attrs.field(type=str, default="2.0"),
    }
    return attrs.make_class(f"{params.__name__}Request", fields)


# Every custom method: (params class, result class); no result class: a notification from the
# server. pygls reads a request's params into its class (REQUESTS); ptols/passes takes none.
METHODS: dict[str, tuple[type | None, type | None]] = {
    PREVIEW: (PreviewParams, PreviewResult),
    PREVIEW_CHANGED: (PreviewChangedParams, None),
    FUNCTIONS: (FunctionsParams, FunctionsResult),
    PASSES: (None, PassesResult),
    TEXT_DIGEST: (TextDigestParams, TextDigestResult),
    STATUS: (StatusParams, None),
    SOURCE_MAP: (SourceMapParams, SourceMapResult),
    MEMORY_MAP: (MemoryMapParams, MemoryMapResult),
    RUN: (RunParams, RunResult),
    SPECIALISATIONS: (SpecialisationsParams, SpecialisationsResult),
    TIMELINE: (TimelineParams, TimelineResult),
    TASK_GRAPH: (TaskGraphParams, TaskGraphResult),
    PASS_DIFF: (PassDiffParams, PassDiffResult),
    INSTRUCTION: (InstructionParams, InstructionResult),
}
REQUESTS: dict[str, type] = {
    method: request_class(method, params)
    for method, (params, result) in METHODS.items()
    if params is not None and result is not None
}
