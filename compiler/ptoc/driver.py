"""The compile driver: source text (or an analysis) + target + function + pipeline -> text.

The one place that strings the stages together, so ``ptoc compile``, ``ptoc fmt`` and the
language server's previews and buffer hovers cannot drift apart. It alone knows the targets,
the named pipelines, which pipeline a target uses by default, how a program is narrowed to one
function, which generator serves a target, and how a source file is read.

Importing this module is cheap: the front end, the passes and the code generators load on
first use (the server imports it before the compiler is warm).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from .diagnostics import Diagnostic, Severity, strict_annotations
from .editions import Edition, EditionSource
from .filekind import is_pypto_source
from .ir.function import Function, Program
from .ir.span import Span
from .perf import bound_c_heap, collect_when_grown  # for long-lived callers (the language server)
from .records import field, record

if TYPE_CHECKING:
    from pathlib import Path  # (pathlib loads urllib: ~4 ms of a `ptoc check`)

    from .codegen.common import CodegenResult
    from .codegen.pto.ptoas import SynchronisedCpp
    from .config import ConfigCache
    from .frontend.analysis import ModuleAnalysis
    from .frontend.edition import EditionInForce
    from .passes.manager import PipelineResult

# --- targets and pipelines ----------------------------------------------------------------------

#: Code targets: CCE C++ on pto-isa, MLIR in the PTO dialect, the IR after the whole pipeline.
TARGETS = ("cce", "pto", "pto-cpp", "ir")
#: ``pass:<Name>``: the IR right after that pass.
PASS_TARGET = "pass:"
PTOAS_CODE = "E405"  # PTOAS rejects (or is known to crash on) the MLIR ptoc generated
#: The language of each target's text (for syntax highlighting); pass targets print IR.
LANGUAGES: Mapping[str, str] = {"cce": "cpp", "pto": "mlir", "pto-cpp": "cpp", "ir": "python"}

_ALL_PASSES = (
    "ConvertToSSA",
    "FlattenCalls",
    "OutlineIncoreScopes",
    "InlineCalls",
    "ConvertTensorToBlockOps",
    "Verifier",
    "AddReductionScratch",
    "InitMemRef",
    "MemoryReuse",
    "InsertSync",
    "AllocateMemoryAddr",
)
PIPELINES: Mapping[str, tuple[str, ...]] = {
    # For the CCE C++ code generator: everything, sync included.
    "default": _ALL_PASSES,
    # For PTO MLIR: ptoas schedules its own synchronisation (seed 002), and func.call keeps
    # calls between functions.
    "ptoas": tuple(name for name in _ALL_PASSES if name not in ("InsertSync", "InlineCalls")),
}


def default_pipeline(target: str) -> str:
    """The pipeline a target gets when none is named: PTO MLIR goes to ptoas."""
    return "ptoas" if target in ("pto", "pto-cpp") else "default"


def pass_targets() -> list[str]:
    """``pass:<Name>`` for every registered pass, in registration order."""
    from .passes import PASSES

    return [PASS_TARGET + name for name in PASSES]


def pass_descriptions() -> list[tuple[str, str]]:
    """(name, description) of every registered pass, for pass pickers."""
    from .passes import PASSES

    return [(name, getattr(cls, "description", "")) for name, cls in PASSES.items()]


#: Every stage of the compiler, and those ``ptoc check`` runs (the passes for E401/E402).
STAGES = ("frontend", "printer", "passes", "codegen.cce", "codegen.pto")
CHECK_STAGES = ("frontend", "passes")


def preload(stages: Sequence[str] = STAGES) -> None:
    """Import these stages now (the server does this while idle, so no request pays for it)."""
    import importlib

    for stage in stages:
        importlib.import_module(f"{__package__}.{stage}")


def all_targets() -> list[str]:
    return [*TARGETS, *pass_targets()]


def target_language(target: str) -> str:
    return LANGUAGES.get(target, "python")


#: Set by a caller that keeps pipeline results, e.g. the language server, which shares one
#: result per function between a preview and the hardware view: ``run_pipeline`` then returns
#: ``shared(program, pipeline, compute)``, where ``compute()`` runs the pipeline.
SHARED_PIPELINES: ContextVar[Callable[..., PipelineResult] | None] = ContextVar(
    "SHARED_PIPELINES", default=None
)


def run_pipeline(program: Program, pipeline: str | Sequence[str] = "default") -> PipelineResult:
    """Run a named pipeline (or an explicit list of passes); an unknown name is an E404."""
    shared = SHARED_PIPELINES.get()
    if shared is not None:
        return shared(program, pipeline, lambda: _lower(program, pipeline))
    return _lower(program, pipeline)


def _lower(program: Program, pipeline: str | Sequence[str]) -> PipelineResult:
    from .diagnostics import DiagnosticBag
    from .passes import PipelineResult
    from .passes import run_pipeline as run_passes

    if isinstance(pipeline, str):
        names = PIPELINES.get(pipeline)
        if names is None:
            bag = DiagnosticBag()
            bag.error(
                "E404",
                f"unknown pipeline '{pipeline}' (known: {', '.join(PIPELINES)})",
                program.span,
            )
            return PipelineResult(program, bag.sorted())
        return run_passes(program, names)
    return run_passes(program, pipeline)


def run_pipelines(program: Program, pipelines: Sequence[str]) -> dict[str, PipelineResult]:
    """Several named pipelines over one program, each result exactly ``run_pipeline``'s; the
    passes they start with run once (``default`` and ``ptoas`` share those before InlineCalls)."""
    from .passes.manager import run_pipelines as run_shared

    known = [name for name in pipelines if name in PIPELINES]
    results = dict(
        zip(known, run_shared(program, [PIPELINES[name] for name in known]), strict=True)
    )
    return {name: results.get(name) or run_pipeline(program, name) for name in pipelines}


# --- reading and recognising source files -------------------------------------------------------

#: Directory walks never descend into these (nor into any hidden directory).
SKIPPED_DIRS = frozenset({".venv", "venv", "node_modules", "__pycache__", "build", "dist"})


class SourceError(Exception):
    """A file that cannot be read or is not UTF-8; the message names it."""


def read_text(path: str) -> str:
    """The file decoded as UTF-8, exactly (a BOM and ``\\r\\n`` kept: ``ptoc fmt`` writes them
    back)."""
    try:
        with open(path or ".", "rb") as file:  # "": the current directory, as pathlib reads it
            data = file.read()
    except FileNotFoundError:
        raise SourceError(f"cannot read '{path}': no such file or directory") from None
    except IsADirectoryError:
        raise SourceError(f"cannot read '{path}': it is a directory") from None
    except OSError as exc:
        raise SourceError(f"cannot read '{path}': {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SourceError(
            f"cannot read '{path}': not valid UTF-8 (byte 0x{data[exc.start]:02x} on line {line})"
        ) from None


def read_source(path: str) -> str:
    """The file's text for the compiler: UTF-8, a leading BOM dropped (as Python itself does)."""
    return read_text(path).removeprefix("\ufeff")


def walk_python_files(
    root: str, on_error: Callable[[OSError], None] | None = None
) -> Iterator[str]:
    """Every ``.py`` file below ``root`` in sorted order, skipping hidden and tool directories;
    a directory that cannot be listed goes to ``on_error`` (ignored without one)."""
    for directory, subdirs, names in os.walk(root, onerror=on_error):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(names):
            if name.endswith(".py"):
                yield os.path.normpath(os.path.join(directory, name))


# --- the front end ------------------------------------------------------------------------------


def internal_error(path: str, stage: str, exc: BaseException) -> Diagnostic:
    message = f"internal error in the {stage}: {type(exc).__name__}: {exc}"
    return Diagnostic("E900", Severity.ERROR, message, Span(path, 1, 0, 1, 0))


def analyze(
    text: str, path: str, edition: tuple[Edition, EditionSource] | None = None
) -> ModuleAnalysis:
    """Run the front end; a crash inside it becomes an E900 diagnostic instead of a traceback.
    ``edition``: chosen by the caller (a flag, an editor setting); else the project's
    ``[tool.ptoc] edition``; else the file's spellings decide."""
    from .frontend import analyze_source
    from .frontend.analysis import ModuleAnalysis

    try:
        chosen = edition or _CHOSEN_EDITION or project_edition(path)
        specs = project_jit(path) if "jit" in text else None
        if chosen is None and not specs:
            return analyze_source(text, path)
        return analyze_source(text, path, edition=chosen, jit_specs=specs)
    except Exception as exc:  # the front end must not raise; keep going with the other files
        analysis = ModuleAnalysis(path=path, text=text, uses_pypto=True)
        analysis.diagnostics.append(internal_error(path, "front end", exc))
        return analysis


_CHOSEN_EDITION: tuple[Edition, EditionSource] | None = None


def choose_edition(name: str | None) -> None:
    """``--edition``: the edition of every file this process analyses (None: undo)."""
    global _CHOSEN_EDITION
    from .editions import EditionSource, parse_edition

    edition = parse_edition(name)
    _CHOSEN_EDITION = None if edition is None else (edition, EditionSource.FLAG)


def project_edition(path: str) -> tuple[Edition, EditionSource] | None:
    """``[tool.ptoc] edition`` of the project ``path`` belongs to (an unreadable configuration
    is the command's business: here it sets nothing)."""
    folder = os.path.dirname(os.path.abspath(path))
    if path.startswith("<") or not _may_set(folder, b"edition"):
        return None  # (reading the configuration loads pathlib and tomllib: only when there)
    from .config import ConfigError
    from .editions import EditionSource

    try:
        edition = _config_cache().for_file(path).edition
    except (ConfigError, OSError):
        return None
    return None if edition is None else (edition, EditionSource.PROJECT)


def project_jit(path: str) -> dict[str, tuple[str, ...]] | None:
    """``[tool.ptoc.jit]`` of the project ``path`` belongs to: specialisations by kernel name
    (an unreadable configuration is the command's business: here it gives none)."""
    folder = os.path.dirname(os.path.abspath(path))
    if path.startswith("<") or not _may_set(folder, b"jit"):
        return None
    from .config import ConfigError

    try:
        return _config_cache().for_file(path).jit_table() or None
    except (ConfigError, OSError):
        return None


@functools.cache
def _may_set(folder: str, key: bytes) -> bool:
    """Whether the ``pyproject.toml`` governing files of ``folder`` (ptoc.config's walk) may
    set ``key``: its text names it. Reading it properly loads pathlib and tomllib."""
    candidate = os.path.join(folder, "pyproject.toml")
    if os.path.isfile(candidate):
        try:
            with open(candidate, "rb") as handle:
                return key in handle.read()
        except OSError:
            return False
    if any(os.path.exists(os.path.join(folder, m)) for m in (".git", ".hg")):
        return False
    parent = os.path.dirname(folder)
    return parent != folder and _may_set(parent, key)


@functools.cache
def _config_cache() -> ConfigCache:
    from .config import ConfigCache

    return ConfigCache()


# --- narrowing to one function ------------------------------------------------------------------


def direct_calls(fn: Function) -> list[str]:
    """The names of the program functions ``fn`` calls itself, in order."""
    calls = _calls_visitor()()
    calls.visit(fn)
    names: list[str] = calls.names
    return names


# The visitor classes below are made once, on first use (their modules load lazily): a class
# made per call was a reference cycle per call for the collector, ~90 per 1,000 edits in the
# server, part of the garbage that set its memory's high-water mark (issue #33).
@functools.cache
def _calls_visitor() -> Any:
    from .ir.expr import Call, GlobalVar, Submit
    from .ir.visitor import IRVisitor

    class Calls(IRVisitor):
        def __init__(self) -> None:
            self.names: list[str] = []

        def visit_Call(self, node: Call) -> None:
            if isinstance(node.callee, GlobalVar):
                self.names.append(node.callee.name)
            self.generic_visit(node)

        def visit_Submit(self, node: Submit) -> None:  # pl.submit's kernel is called too
            if isinstance(node.kernel, GlobalVar):
                self.names.append(node.kernel.name)
            self.generic_visit(node)

    return Calls


@functools.cache
def _definitions_visitor() -> Any:
    from .ir.stmt import AssignStmt
    from .ir.visitor import IRVisitor

    class Definitions(IRVisitor):
        def __init__(self) -> None:
            self.types: dict[Any, Any] = {}

        def visit_AssignStmt(self, node: AssignStmt) -> None:
            self.types[node.var.span] = node.var.type
            self.generic_visit(node)

    return Definitions


def callees(
    program: Program, function: str, calls_of: Callable[[Function], list[str]] = direct_calls
) -> list[str]:
    """``function`` and every program function it calls, directly or not, in discovery order
    (``calls_of``: ``direct_calls``, or a caller's kept answers)."""
    wanted: list[str] = []
    pending = [function]
    while pending:
        name = pending.pop()
        fn = program.function(name)
        if fn is None or name in wanted:
            continue
        wanted.append(name)
        pending.extend(calls_of(fn))
    return wanted


def narrow(program: Program, function: str) -> Program:
    """The program reduced to one function and what it calls: the passes then work on just
    what is shown (a 2,000-line program compiles one kernel, not all of them)."""
    wanted = callees(program, function)
    kept = tuple(fn for fn in program.functions if fn.name in wanted)
    return Program(program.name, kept, span=program.span)


def only_function(program: Program, function: str | None) -> Program:
    """The program reduced to exactly one function (what IR output shows), or unchanged."""
    if function is None:
        return program
    fn = program.function(function)
    return program if fn is None else Program(program.name, (fn,), span=program.span)


def select_programs(programs: Sequence[Program], function: str | None) -> list[Program]:
    """Every program, or those defining ``function``, each narrowed to it and its callees."""
    if function is None:
        return list(programs)
    return [narrow(p, function) for p in programs if p.function(function) is not None]


# --- compiling ----------------------------------------------------------------------------------


@record
class ProgramOutput:
    """One program's way through the back end."""

    source: Program  # what entered the pipeline (narrowed when a function was named)
    pipeline: PipelineResult | None  # None when the pipeline failed internally
    text: str  # this program's part of the result ("" when it has none)
    #: Per line of ``text``, the source it was generated for (None: not known).
    line_spans: list[Span | None] = field(default_factory=list)
    #: The errors of its orchestration functions' host code (what has no host lowering
    #: here): the kernels' code in ``text`` is whole beside them.
    host_errors: list[Diagnostic] = field(default_factory=list)


@record
class CompileResult:
    target: str
    pipeline: str
    function: str | None
    prefix: str  # the module alias IR text is printed with (the file's own)
    front_end: list[Diagnostic] = field(default_factory=list)
    #: Diagnostics of the passes and the code generator (and their internal errors).
    back_end: list[Diagnostic] = field(default_factory=list)
    programs: list[ProgramOutput] = field(default_factory=list)
    #: Programs in the file before narrowing (0: nothing to compile).
    available: int = 0
    #: PTOAS, when PTO MLIR is to be checked by it (``--verify``, previews) or assembled
    #: (``pto-cpp``).
    ptoas: Path | None = None
    #: The PTOAS version the MLIR is written for (None: ``ptoas``'s own, else the default).
    ptoas_version: str | None = None
    #: The spelling IR text is printed in (``printed_edition`` of the file's edition).
    edition: Edition = Edition.V2026_03

    @property
    def diagnostics(self) -> list[Diagnostic]:
        return [*self.front_end, *self.back_end]

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    @property
    def language(self) -> str:
        return target_language(self.target)

    @property
    def only_rejected_by_ptoas(self) -> bool:
        """PTO MLIR was generated and only PTOAS's verdict on it failed (E405): the MLIR is
        what the user needs to see what went wrong, so it is kept."""
        errors = [d for d in self.diagnostics if d.severity is Severity.ERROR]
        return self.target == "pto" and bool(errors) and all(d.code == PTOAS_CODE for d in errors)

    @property
    def kernels_whole(self) -> bool:
        """Every error is an orchestration function's host code that has no lowering here
        (or PTOAS's verdict on PTO MLIR): the kernels compiled, and their code is shown
        beside the E400 naming what is missing."""
        host = [d for p in self.programs for d in p.host_errors]
        kept = [
            d
            for d in self.diagnostics
            if d.severity is Severity.ERROR
            and d not in host
            and not (self.target == "pto" and d.code == PTOAS_CODE)
        ]
        return bool(host) and not kept

    @property
    def text(self) -> str:
        """The generated text: each program's part (see ``join_texts``), ending in a newline;
        empty when anything failed (stale or partial code is never shown), except PTO MLIR
        that only PTOAS rejected (``only_rejected_by_ptoas``) and kernels beside an
        orchestration function that has no host lowering (``kernels_whole``)."""
        if self.has_errors and not (self.only_rejected_by_ptoas or self.kernels_whole):
            return ""
        return join_texts([p.text for p in self.programs], self.language)

    @property
    def line_spans(self) -> list[Span | None]:
        """Per line of ``text``, the source span it came from (None where none is known):
        the compiler's side of the source map."""
        if self.has_errors and not (self.only_rejected_by_ptoas or self.kernels_whole):
            return []
        return join_spans([(p.text, p.line_spans) for p in self.programs], self.language)


def join_texts(texts: Sequence[str], language: str = "") -> str:
    """Several generated modules, ending in a newline, separated by one blank line; by two
    for Python (printed IR), which is what black and ``ptoc fmt`` keep between top-level
    definitions."""
    separator = "\n\n\n" if language == "python" else "\n\n"
    body = separator.join(text.rstrip("\n") for text in texts if text)
    return body + "\n" if body else ""


def join_spans(
    parts: Sequence[tuple[str, Sequence[Span | None]]], language: str = ""
) -> list[Span | None]:
    """The line spans of ``join_texts`` of the parts' texts, line for line (None on blank
    lines)."""
    gap = 2 if language == "python" else 1
    spans: list[Span | None] = []
    for text, text_spans in parts:
        if not text:
            continue
        if spans:
            spans.extend([None] * gap)
        lines = text.rstrip("\n").split("\n")
        padded = [*text_spans, *[None] * len(lines)]
        # A blank line separates; it comes from no statement.
        spans.extend(padded[i] if line.strip() else None for i, line in enumerate(lines))
    return spans


def check_target(target: str) -> None:
    if target in TARGETS:
        return
    if target.startswith(PASS_TARGET) and target in pass_targets():
        return
    raise ValueError(f"unknown target '{target}' (known: {', '.join(all_targets())})")


def compile_source(
    source: str | ModuleAnalysis,
    target: str = "cce",
    function: str | None = None,
    pipeline: str | None = None,
    path: str = "<string>",
    strict: bool = False,
    ptoas: Path | None = None,
    ptoas_version: str | None = None,
) -> CompileResult:
    """Front end (unless given an analysis), pipeline, then the target's generator or printer.

    ``pipeline`` None means the target's default; ``strict`` makes the annotation warnings
    errors (``[tool.ptoc] strict-annotations``), which then stop compilation as in the CLI.
    With ``ptoas``, PTO MLIR is checked by PTOAS (what it rejects: E405 on the kernel's
    lines) and ``pto-cpp`` is the C++ it makes; the MLIR is written for ``ptoas_version``
    (None: ``ptoas``'s own version, else the default, v0.57).
    Never raises for anything the input causes: failures are diagnostics (an unknown target is
    the caller's mistake: ValueError).
    """
    check_target(target)
    analysis = analyze(source, path) if isinstance(source, str) else source
    chosen = pipeline or default_pipeline(target)
    front_end = list(analysis.diagnostics)
    result = CompileResult(
        target,
        chosen,
        function,
        analysis.prefix,
        front_end=strict_annotations(front_end) if strict else front_end,
        ptoas=ptoas,
        ptoas_version=ptoas_version,
        edition=printed_edition(analysis.edition),
    )
    programs = analysis.all_programs()
    result.available = len(programs)
    if result.has_errors:
        return result
    for program in select_programs(built_with_defaults(analysis, programs), function):
        output = compile_program(program, result, analysis.path)
        result.programs.append(output)
        if output.pipeline is None:
            break  # an internal failure of the passes: reported once, not once per program
    return result


def built_with_defaults(analysis: ModuleAnalysis, programs: list[Program]) -> list[Program]:
    """The programs to compile: a builder's (checked for every size) as the builder makes it
    when run (``ModuleAnalysis.built_concretely``), where that checks clean."""
    if not any(program.name in analysis.built for program in programs):
        return programs
    again = analysis.built_concretely()
    if again is None:
        return programs
    concrete = {program.name: program for program in again.all_programs()}
    return [
        concrete.get(program.name, program) if program.name in analysis.built else program
        for program in programs
    ]


def compile_file(
    path: str, target: str = "cce", function: str | None = None, pipeline: str | None = None
) -> CompileResult:
    """``compile_source`` of a file (raises SourceError when it cannot be read)."""
    return compile_source(read_source(path), target, function, pipeline, path)


def compile_program(program: Program, result: CompileResult, path: str) -> ProgramOutput:
    try:
        lowered = run_pipeline(program, result.pipeline)
    except Exception as exc:  # passes must not raise; report it like any other error
        result.back_end.append(internal_error(path, "pass pipeline", exc))
        return ProgramOutput(program, None, "")
    result.back_end.extend(lowered.diagnostics)
    target = result.target
    if target.startswith(PASS_TARGET):
        wanted = target.removeprefix(PASS_TARGET)
        snapshot = lowered.after(wanted)
        if snapshot is None:
            return ProgramOutput(
                program, lowered, f"# pass '{wanted}' is not in the '{result.pipeline}' pipeline\n"
            )
        return ProgramOutput(program, lowered, *print_ir_mapped(snapshot, result))
    if lowered.has_errors:
        return ProgramOutput(program, lowered, "")
    unbound = unbound_value_errors(lowered.program)
    if unbound:
        result.back_end.extend(unbound)
        return ProgramOutput(program, lowered, "")
    try:
        generated = generate(target, lowered.program, result)
    except Exception as exc:  # code generators must not raise either
        result.back_end.append(internal_error(path, f"{target} code generator", exc))
        return ProgramOutput(program, lowered, "")
    result.back_end.extend(generated.diagnostics)
    return ProgramOutput(
        program, lowered, generated.text, generated.line_spans, generated.host_errors
    )


def unbound_value_errors(program: Program) -> list[Diagnostic]:
    """E400 at each value a function reads that nothing gives it (``passes.verifier.
    unbound_values``): no code can read it."""
    from .passes.verifier import unbound_values

    found = []
    for fn in program.functions:
        for var in unbound_values(fn):
            message = (
                f"'{var.name}' has no value in '{fn.name}': no parameter, statement or "
                "parameter's shape gives it (a pl.dynamic dimension only a loop uses, or a "
                "value of the Python around the kernel that ptoc cannot compute); pass it as "
                "a pl.Scalar parameter"
            )
            found.append(Diagnostic("E400", Severity.ERROR, message, var.span))
    return found


def print_ir(program: Program, result: CompileResult) -> str:
    return print_ir_mapped(program, result)[0]


def print_ir_mapped(program: Program, result: CompileResult) -> tuple[str, list[Span | None]]:
    from .printer import print_program_mapped

    # one function's IR is its own and its callees' (the kernels outlined from it), as its code
    narrowed = program if result.function is None else narrow(program, result.function)
    return print_program_mapped(narrowed, prefix=result.prefix, edition=result.edition)


def printed_edition(in_force: EditionInForce | None) -> Edition:
    """The spelling a file's IR is printed in (``ptoc print``, IR targets, pass dumps and
    diffs): its edition's, when anything chose it; a file without a spelling of one edition
    keeps the 2026-03 printed form."""
    if in_force is None or in_force.source is EditionSource.DEFAULT:
        return Edition.V2026_03
    return in_force.edition


def generate(target: str, program: Program, result: CompileResult) -> CodegenResult:
    """The final IR as the target's text, its diagnostics and line spans: the target ->
    generator map. The C++ PTOAS makes (``pto-cpp``) has no map: its lines are PTOAS's."""
    from .codegen.common import CodegenResult

    if target == "cce":
        from .codegen.cce import generate_cce

        generated = generate_cce(program, function=result.function)
    elif target in ("pto", "pto-cpp"):
        from .codegen.pto import generate_pto
        from .codegen.pto.ptoas import PtoasMissing, generate_checked_mapped
        from .codegen.pto.versions import DEFAULT_VERSION

        ptoas = result.ptoas
        if target == "pto-cpp" and ptoas is None:
            try:
                ptoas = find_ptoas(version=result.ptoas_version)
            except PtoasMissing as exc:
                return CodegenResult(f"// {exc}\n")
        if ptoas is not None:
            return generate_checked_mapped(
                program, ptoas, function=result.function, cpp=target == "pto-cpp"
            )
        version = result.ptoas_version or DEFAULT_VERSION
        generated = generate_pto(program, function=result.function, ptoas_version=version)
    else:
        text, spans = print_ir_mapped(program, result)
        return CodegenResult(text, [], spans)
    return generated


def find_ptoas(option: str | None = None, version: str | None = None) -> Path:
    """PTOAS: ``option``, else ``$PTOAS``, else the vendor copy of ``version`` (default
    v0.57) beside the repository, else ``ptoas`` on PATH; with ``version``, a binary of that
    version (``ptoc.codegen.pto.ptoas.PtoasMissing`` when none is found)."""
    from .codegen.pto.ptoas import find_ptoas as find

    return find(option, version)


def ptoas_synchronised_cpp(
    program: Program, ptoas: Path, function: str | None = None
) -> SynchronisedCpp | None:
    """PTOAS's C++ of ``program`` (lowered by the ``ptoas`` pipeline; of ``function`` and its
    callees when given) with PTOAS's own sync insertion on, and the MLIR and line spans that
    map it back to the source (``codegen.pto.ptoas.SynchronisedCpp``); None when ptoc or
    PTOAS reports an error. The run ``pto-cpp`` made of the same MLIR is reused."""
    from .codegen.pto.ptoas import synchronised_cpp

    return synchronised_cpp(program, ptoas, function=function)


def verify_sync(result: CompileResult) -> list[Diagnostic]:
    """``ptoc compile --verify-sync``'s findings on a compile (``ptoc.verify_sync``): on the
    PTO route, on the sync PTOAS inserts, read from the run ``pto-cpp`` made."""
    from .verify_sync import verify_compiled

    return verify_compiled(result)


def available_ptoas(version: str | None = None) -> Path | None:
    """PTOAS (of ``version``, when given) when it is found, else None (previews check PTO
    MLIR when they can)."""
    from .codegen.pto.ptoas import PtoasMissing

    try:
        return find_ptoas(version=version)
    except PtoasMissing:
        return None


# --- buffer hovers ------------------------------------------------------------------------------


def buffer_types(
    analysis: ModuleAnalysis, pipeline: str, memo: dict[Any, Any] | None = None
) -> dict[Any, Any]:
    """Definition span -> type after the pipeline (tiles then carry buffer and address).

    Each function runs through the pipeline alone (with its callees); ``memo`` keeps the result
    per function so that after an edit only the changed function is compiled again. When the
    pipeline fails (the buffers do not fit: E402), the buffers are kept without addresses: the
    ones it assigned are not where a kernel could put them.
    """
    from .ir.equality import structural_hash

    found: dict[Any, Any] = {}
    memo = memo if memo is not None else {}
    for program in analysis.all_programs():
        for fn in program.functions:
            key = (program.name, fn.name, fn.span, structural_hash(fn), pipeline)
            spans = memo.get(key)
            if spans is None:
                collect = _definitions_visitor()()
                lowered = run_pipeline(narrow(program, fn.name), pipeline)
                compiled_fn = lowered.program.function(fn.name)
                if compiled_fn is not None:
                    collect.visit(compiled_fn)
                if lowered.has_errors:
                    collect.types = {span: _unplaced(t) for span, t in collect.types.items()}
                spans = memo[key] = collect.types
            found.update(spans)
    return found


def _unplaced(value_type: Any) -> Any:
    """A type whose buffer has no address (allocation failed)."""
    from .ir.types import ShapedType
    from .ir.visitor import with_fields

    memref = getattr(value_type, "memref", None)
    if not isinstance(value_type, ShapedType) or memref is None or memref.addr is None:
        return value_type
    return with_fields(value_type, memref=with_fields(memref, addr=None))


# --- what compiling would say about tiles, for check and the editor ---------------------------

#: The back-end codes ``ptoc check`` and the editor report: a tile whose shape is not constant
#: (E401) and on-chip memory beyond capacity (E402). Both come from passes every target runs
#: (InitMemRef, MemoryReuse, AllocateMemoryAddr), so they are what ``ptoc compile`` reports.
#: Also the note on a mixed kernel scope the passes split into a cube and a vector kernel (I009),
#: and a matmul result the accumulator writes without its out_dtype's rounding (W035).
BACKEND_CODES = frozenset({"E401", "E402", "I009", "W035"})
#: The pipeline they are taken from: the shorter one, since sync changes no buffer.
BACKEND_PIPELINE = "ptoas"


def _inside(span: Span, outer: Span) -> bool:
    return (outer.line, outer.column) <= (span.line, span.column) and (
        span.end_line,
        span.end_column,
    ) <= (outer.end_line, outer.end_column)


def function_backend_diagnostics(program: Program, function: str) -> tuple[Diagnostic, ...]:
    """E401 / E402 of one function (run with its callees; theirs are their own), and when it
    holds sync statements of its own, what the synchronisation checker finds in them (the
    pipeline inserts none: they are the function's sync)."""
    from .kernel_facts import launches_only
    from .passes.sync_check import holds_sync, verify_function

    fn = program.function(function)
    if fn is None or launches_only(fn):
        # (an orchestration without InCore scopes has no tile of its own, and the checker
        # has nothing to check on the host: lowering a 2,000-submit one found nothing in 1 s)
        return ()
    result = run_pipeline(narrow(program, function), BACKEND_PIPELINE)
    found = [d for d in result.diagnostics if d.code in BACKEND_CODES and _inside(d.span, fn.span)]
    lowered = result.program.function(function)
    if not result.has_errors and lowered is not None and holds_sync(fn):
        found += [d for d in verify_function(lowered) if _inside(d.span, fn.span)]
    return tuple(found)


def backend_diagnostics(
    analysis: ModuleAnalysis,
    memo: dict[Any, Any] | None = None,
    *,
    compute: bool = True,
    together: bool = False,
) -> list[Diagnostic]:
    """E401 / E402 of every function in which the front end found no error, and the sync
    checker's findings on the sync statements a function holds. Programs a
    builder function makes are left out: their sizes are known only when the builder runs.

    ``memo`` keeps each function's result per function object: with the front end's analysis
    cache an unchanged function is the same object after an edit, so only changed functions
    run again. ``compute=False`` answers from ``memo`` alone (instantly: what is known).

    ``together`` (the command line, which keeps nothing): a program without front-end errors
    is first lowered whole, once. The passes treat each function on its own, so when that run
    reports no error no function has E401 / E402, and one pipeline has answered for all of
    them instead of one per function with its callees (about half the time on a large file).
    Only a run that reports errors is followed by the per-function runs, which say exactly
    which function each error belongs to (an error stops a pipeline, and with it the
    functions after it)."""
    from .passes.sync_check import holds_sync

    memo = memo if memo is not None else {}
    errors = [d.span for d in analysis.diagnostics if d.severity is Severity.ERROR]
    found: list[Diagnostic] = []
    for program in analysis.all_programs():
        if program.name in analysis.built:
            continue
        erroneous = {
            fn.name for fn in program.functions if any(_inside(s, fn.span) for s in errors)
        }
        if together and compute and not erroneous:
            whole = _lowered_whole(program)
            if whole is not None and not any(holds_sync(fn) for fn in program.functions):
                found += [d for d in whole.diagnostics if d.code in BACKEND_CODES]
                continue
        for fn in program.functions:
            if fn.name in erroneous:
                continue  # its IR is partly unknown; what it says about tiles would mislead
            key = (program.name, id(fn))
            entry = memo.get(key)
            if entry is None or entry[0] is not fn:
                if not compute:
                    continue
                try:
                    entry = (fn, function_backend_diagnostics(program, fn.name))
                except Exception:  # the passes must not raise; compile reports it if they do
                    entry = (fn, ())
                memo[key] = entry
            found.extend(entry[1])
    return found


def _lowered_whole(program: Program) -> PipelineResult | None:
    """The pipeline E401 / E402 come from run over the whole program, when it reports no
    error (of any code: one stops the pipeline); its notes are the program's."""
    try:
        result = run_pipeline(program, BACKEND_PIPELINE)
    except Exception:  # the passes must not raise; the per-function runs will say more
        return None
    return None if result.has_errors else result


__all__ = [
    "BACKEND_CODES",
    "bound_c_heap",
    "collect_when_grown",
    "LANGUAGES",
    "PASS_TARGET",
    "PIPELINES",
    "SKIPPED_DIRS",
    "TARGETS",
    "CompileResult",
    "backend_diagnostics",
    "function_backend_diagnostics",
    "ProgramOutput",
    "SourceError",
    "all_targets",
    "analyze",
    "available_ptoas",
    "buffer_types",
    "compile_file",
    "find_ptoas",
    "ptoas_synchronised_cpp",
    "verify_sync",
    "compile_source",
    "default_pipeline",
    "pass_descriptions",
    "preload",
    "is_pypto_source",
    "join_texts",
    "narrow",
    "pass_targets",
    "read_source",
    "read_text",
    "run_pipeline",
    "run_pipelines",
    "select_programs",
    "target_language",
    "walk_python_files",
]
