"""The ``ptoc`` command line: ``check``, ``print`` and ``compile`` (``fmt`` is added separately).

Exit codes are the same for every command: 0 no errors (warnings allowed), 1 the input has errors,
2 a usage error or an input that cannot be read. Diagnostics go to stderr in the one-line text
form ``path:line:col: severity[CODE]: message``; results (printed IR, generated code, the JSON of
``check --format json``) go to stdout or to ``-o``.
"""

from __future__ import annotations

import argparse
import errno
import functools
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any

from . import driver
from .diagnostics import STRICT_ANNOTATION_CODES, Diagnostic, Severity, strict_annotations
from .driver import printed_edition  # (here too: `ptoc print` and its tests)
from .editions import EDITION_NAMES, Edition
from .filekind import is_pypto_source
from .ir.function import Program
from .records import field, record

if TYPE_CHECKING:
    from pathlib import Path  # not at run time: pathlib loads urllib (~4 ms a start)

    from .config import ConfigCache
    from .driver import CompileResult
    from .frontend.analysis import ModuleAnalysis
    from .ir.span import Span

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2


class InputError(Exception):
    """A problem with the command's input (missing, unreadable, not UTF-8): exit code 2."""


# --- reading and analysing files ---------------------------------------------------------------


def read_source(path: str) -> str:
    """The file's text (the driver reads it: UTF-8, a leading BOM dropped)."""
    try:
        return driver.read_source(path)
    except driver.SourceError as exc:
        raise InputError(str(exc)) from None


@functools.cache
def configs() -> ConfigCache:
    """``[tool.ptoc]`` of each file, each pyproject.toml read once per run."""
    from .config import ConfigCache

    return ConfigCache()


def analyze(text: str, path: str, problems: list[str] | None = None) -> ModuleAnalysis:
    """Run the front end (through the driver: a crash is an E900 diagnostic, not a traceback).
    With ``[tool.ptoc] strict-annotations = true`` the annotation warnings are errors; an
    unreadable configuration is a problem (exit code 2) and the file is checked without it."""
    analysis = driver.analyze(text, path)
    if any(d.code in STRICT_ANNOTATION_CODES for d in analysis.diagnostics):
        from .config import ConfigError

        try:
            strict = configs().for_file(path).strict_annotations
        except ConfigError as exc:
            if problems is None:
                raise InputError(str(exc)) from None
            problems.append(str(exc))
            strict = False
        if strict:
            analysis.diagnostics = strict_annotations(analysis.diagnostics)
    return analysis


def discover(paths: Sequence[str]) -> tuple[list[tuple[str, bool]], list[str]]:
    """Expand the command-line paths into ``(file, named_explicitly)`` pairs, deduplicated in
    order, plus one error message per path that does not exist."""
    found: list[tuple[str, bool]] = []
    problems: list[str] = []
    seen: set[str] = set()

    def add(path: str, explicit: bool) -> None:
        key = os.path.normcase(os.path.abspath(path))
        if key not in seen:
            seen.add(key)
            found.append((path, explicit))

    for raw in paths:
        if os.path.isdir(raw):
            for file in driver.walk_python_files(raw, unreadable_into(problems)):
                add(file, False)
        elif os.path.exists(raw):
            add(raw, True)
        else:
            problems.append(f"cannot read '{raw}': {why_missing(raw)}")
    return found, problems


def why_missing(path: str) -> str:
    """Why ``os.path.exists(path)`` is false: a symlink loop or a dangling link is named as such."""
    try:
        os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "a symbolic link loop (too many levels of symbolic links)"
        if exc.errno == errno.ENOENT and os.path.islink(path):
            return "a symbolic link to a missing file"
        if exc.errno != errno.ENOENT:
            return exc.strerror or str(exc)
    return "no such file or directory"


def unreadable_into(problems: list[str]) -> Callable[[OSError], None]:
    """A walk's error handler: a directory that cannot be listed becomes a problem (exit 2)."""

    def unreadable(exc: OSError) -> None:
        problems.append(f"cannot read directory '{exc.filename}': {exc.strerror or exc}")

    return unreadable


# --- printing diagnostics -------------------------------------------------------------------------


def sort_key(diagnostic: Diagnostic) -> tuple[str, int, int, int, int, str, str]:
    span = diagnostic.span
    return (
        span.file,
        span.line,
        span.column,
        span.end_line,
        span.end_column,
        diagnostic.code,
        diagnostic.message,
    )


def sorted_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=sort_key)


def has_errors(diagnostics: Iterable[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


def report(diagnostics: Iterable[Diagnostic]) -> None:
    for diagnostic in sorted_diagnostics(diagnostics):
        print(diagnostic.format(), file=sys.stderr)


def fail(message: str) -> None:
    print(f"ptoc: error: {message}", file=sys.stderr)


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def summary_line(diagnostics: Sequence[Diagnostic], files: int) -> str:
    errors = sum(1 for d in diagnostics if d.severity is Severity.ERROR)
    warnings = sum(1 for d in diagnostics if d.severity is Severity.WARNING)
    return f"{plural(errors, 'error')}, {plural(warnings, 'warning')} in {plural(files, 'file')}"


# --- ptoc check ----------------------------------------------------------------------------------


@record
class FileCheck:
    """What checking one file found (a worker process sends it back, so plain data only)."""

    checked: bool = False
    diagnostics: list[Diagnostic] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    edition: str = ""  # the edition in force and why (``ptoc check -v``)


def check_file(path: str, explicit: bool) -> FileCheck:
    """Check one file; a file found by a directory walk counts only if it uses pypto."""
    found = FileCheck()
    try:
        text = read_source(path)
    except InputError as exc:
        found.problems.append(str(exc))
        return found
    if not explicit and not is_pypto_source(text):
        return found
    analysis = analyze(text, path, found.problems)
    if explicit or analysis.uses_pypto:
        found.checked = True
        if analysis.edition is not None:
            found.edition = analysis.edition.describe()
        found.diagnostics = [
            *analysis.diagnostics,
            *driver.backend_diagnostics(analysis, together=True),
        ]
    return found


def check_files(files: Sequence[tuple[str, bool]], jobs: int) -> list[FileCheck]:
    """Every file's result in the order given, on up to ``jobs`` processes (each file is
    independent; a worker costs a few ms to start, so one file or one job stays in-process)."""
    if min(jobs, len(files)) < 2:
        return [check_file(path, explicit) for path, explicit in files]
    import gc

    from .parallel import ordered_map

    # Forked workers start with what check needs imported, once (~1 ms each).
    driver.preload(driver.CHECK_STAGES)
    gc.freeze()  # the compiler's objects are inherited, not scanned (nor copied) by each worker
    try:
        return ordered_map(check_file, files, jobs)
    finally:
        gc.unfreeze()


#: Source a default ``check`` needs before it starts workers: a fork, its copy-on-write faults
#: and the results' trip back cost ~5 ms, which pays back from about this much source (on 2
#: cores, 16 copies of the 0.9 kB simple_add.py took 65 ms on one process or two; two 10 kB
#: kernels 80 ms on one, 69 ms on two).
WORKERS_MIN_BYTES = 16 * 1024


def auto_jobs(files: Sequence[tuple[str, bool]]) -> int:
    """``-j``'s default: one process per core when the files hold enough source, else one."""
    size = 0
    for path, _ in files:
        try:
            size += os.path.getsize(path)
        except OSError:  # reported when the file is read
            continue
        if size >= WORKERS_MIN_BYTES:
            return default_jobs()
    return 1


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on every platform
        return os.cpu_count() or 1


def run_check(args: argparse.Namespace) -> int:
    files, problems = discover(args.paths)
    diagnostics: list[Diagnostic] = []
    checked = 0
    for (path, _), found in zip(
        files, check_files(files, args.jobs or auto_jobs(files)), strict=True
    ):
        problems.extend(found.problems)
        checked += found.checked
        diagnostics.extend(found.diagnostics)
        if args.verbose and found.checked:
            print(f"{path}: {found.edition or 'not a PyPTO file'}", file=sys.stderr)

    ordered = sorted_diagnostics(diagnostics)
    if args.format == "json":
        import json

        sys.stdout.write(json.dumps([d.to_json() for d in ordered], indent=2) + "\n")
    else:
        for diagnostic in ordered:
            sys.stdout.write(diagnostic.format() + "\n")
    for problem in problems:
        fail(problem)
    print(summary_line(ordered, checked), file=sys.stderr)

    if problems:
        return EXIT_USAGE
    return EXIT_ERRORS if has_errors(ordered) else EXIT_OK


# --- shared by print and compile -----------------------------------------------------------------


@record
class LoadedFile:
    path: str
    programs: list[Program]
    diagnostics: list[Diagnostic]
    edition: Edition = Edition.V2026_03  # the spelling the file's IR is printed in
    why_empty: str = "contains no @pl.program or @pl.function"
    # Where each @pl.jit entry's specialisations come from, in order (``jit_labels``).
    jit_labels: dict[str, list[str]] = field(default_factory=dict)
    # Per JIT function, why ``specialise`` gives it no program (``no_such_specialisation``).
    no_specialisation: dict[str, str] = field(default_factory=dict)


def load_programs(path: str, specialise: int | None = None) -> LoadedFile:
    """Read and analyse one file (raises InputError when it cannot be read); ``specialise``:
    each @pl.jit kernel as its n-th call in the file gives it shapes."""
    return loaded_from(analyze(read_source(path), path), path, specialise)


def loaded_from(analysis: ModuleAnalysis, path: str, specialise: int | None) -> LoadedFile:
    """A file's analysis, each @pl.jit kernel as its ``specialise``-th call gives it shapes."""
    if specialise is not None:
        analysis.specialise(specialise)
    edition = printed_edition(analysis.edition)
    diagnostics = list(analysis.diagnostics)
    why = analysis.nothing_to_compile()
    labels = analysis.jit_labels
    missing = {
        name: why_not
        for name in analysis.jit_functions
        if (why_not := analysis.no_such_specialisation(name, specialise or 1)) is not None
    }
    return LoadedFile(path, analysis.all_programs(), diagnostics, edition, why, labels, missing)


def select_programs(loaded: LoadedFile, function: str | None) -> list[Program]:
    """All programs, or only those defining ``function`` (raises InputError when none does)."""
    if function is None:
        return loaded.programs
    chosen = [p for p in loaded.programs if p.function(function) is not None]
    if not chosen and function in loaded.no_specialisation:
        raise InputError(f"'{loaded.path}': {loaded.no_specialisation[function]}")
    if not chosen:
        raise InputError(f"no function named '{function}' in '{loaded.path}'")
    return chosen


def emit(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
    else:
        write_text(output, text)


# --- ptoc print ----------------------------------------------------------------------------------


def run_print(args: argparse.Namespace) -> int:
    from .printer import print_program

    if args.jit_signature:
        return print_jit_signatures(args.file)
    loaded = load_programs(args.file, args.specialise)
    if has_errors(loaded.diagnostics):
        report(loaded.diagnostics)
        return EXIT_ERRORS
    programs = select_programs(loaded, args.function)
    report(loaded.diagnostics)
    if not programs:
        fail(f"'{args.file}' {loaded.why_empty}")
        return EXIT_ERRORS

    texts: list[str] = []
    for program in programs:
        try:
            texts.append(
                print_program(
                    driver.only_function(program, args.function),
                    prefix=args.prefix,
                    line_length=args.line_length,
                    edition=loaded.edition,
                )
            )
        except Exception as exc:  # the printer must not raise; say so instead of a traceback
            report([driver.internal_error(args.file, "printer", exc)])
            return EXIT_ERRORS
    sys.stdout.write(driver.join_texts(texts, "python"))
    return EXIT_OK


def print_jit_signatures(path: str) -> int:
    """Each @pl.jit kernel's signature for every shape and what a call must pass (its hover)."""
    from .frontend import OccurrenceKind

    analysis = analyze(read_source(path), path)
    report(analysis.diagnostics)
    kernels = [
        o.detail
        for o in analysis.index.occurrences
        if o.kind is OccurrenceKind.FUNCTION
        and o.is_definition
        and o.name in analysis.jit_specialisations
    ]
    if not kernels:
        fail(f"'{path}' has no @pl.jit kernel")
        return EXIT_ERRORS
    sys.stdout.write("\n\n".join(kernels) + "\n")
    return EXIT_ERRORS if analysis.has_errors else EXIT_OK


# --- ptoc compile --------------------------------------------------------------------------------


def chosen_ptoas(args: argparse.Namespace) -> Path | str | None:
    """The PTOAS ``--verify`` and ``--target pto-cpp`` need (None: no need), or why there is
    none."""
    if args.ptoas_version is not None:
        from .codegen.pto.versions import VERSIONS

        if args.ptoas_version not in VERSIONS:
            return f"--ptoas-version {args.ptoas_version}: supported are {', '.join(VERSIONS)}"
    if not (args.verify or args.target == "pto-cpp" or (args.verify_sync and args.ptoas)):
        return None
    from .codegen.pto.ptoas import PtoasMissing

    try:
        return driver.find_ptoas(args.ptoas, args.ptoas_version)
    except PtoasMissing as exc:
        return str(exc)


def run_compile(args: argparse.Namespace) -> int:
    analysis = analyze(read_source(args.file), args.file)
    if analysis.has_errors:
        report(analysis.diagnostics)
        return EXIT_ERRORS
    loaded = loaded_from(analysis, args.file, args.specialise)
    if not select_programs(loaded, args.function):
        report(loaded.diagnostics)
        fail(f"'{args.file}' {analysis.nothing_to_compile()}")
        return EXIT_ERRORS

    if args.verify and args.target != "pto":
        fail("--verify checks PTO MLIR: use it with --target pto")
        return EXIT_USAGE
    misuse = option_misuse(args)
    if misuse:
        fail(misuse)
        return EXIT_USAGE
    ptoas = chosen_ptoas(args)
    if isinstance(ptoas, str):
        fail(ptoas)
        return EXIT_USAGE
    compile_round = partial(
        driver.compile_source,
        target=args.target,
        function=args.function,
        pipeline=args.pipeline,
        ptoas=ptoas,
        ptoas_version=args.ptoas_version,
    )
    result = compile_round(analysis)
    if args.dump_passes:
        from .printer import print_program

        for output in result.programs:
            folder = args.dump_passes
            if len(result.programs) > 1:
                folder = os.path.join(folder, safe_file_name(output.source.name))
            snapshots = output.pipeline.snapshots if output.pipeline is not None else []
            dump_passes(
                folder,
                output.source,
                snapshots,
                partial(print_program, prefix=result.prefix, edition=result.edition),
            )

    return finish_compile(args, result, analysis, compile_round)


def finish_compile(
    args: argparse.Namespace,
    result: CompileResult,
    analysis: ModuleAnalysis,
    compile_round: Callable[[ModuleAnalysis], CompileResult],
) -> int:
    """Report, then write what the options ask for and the generated text."""
    report(result.diagnostics)
    if args.pass_diff:
        return write_pass_diff(result, args.pass_diff, args.output)
    if args.verify_sync and not sync_verified(result):
        return EXIT_ERRORS
    if (args.timeline or args.timeline_summary) and not result.has_errors:
        write_timeline(result, args.timeline, args.timeline_summary, args.timeline_scalar)
    if args.memory_map:
        write_memory_map(analysis, args.function, args.memory_map)
    if result.has_errors:
        # (MLIR only PTOAS rejected, or kernels beside an orchestration function without a
        # host lowering: the text to look at)
        if result.text and not args.output:
            emit(result.text, None)
        return EXIT_ERRORS
    from . import compile_all

    count = compile_all.rounds(analysis, args)
    if count > 1:
        return emit_every_specialisation(args, result, analysis, count, compile_round)
    emit_compiled(args, result, analysis)
    return EXIT_OK


def emit_every_specialisation(
    args: argparse.Namespace,
    first: CompileResult,
    analysis: ModuleAnalysis,
    count: int,
    compile_round: Callable[[ModuleAnalysis], CompileResult],
) -> int:
    """Each JIT kernel for each of its specialisations (``ptoc.compile_all``)."""
    from . import compile_all

    comment = "#" if first.language == "python" else "//"
    code = EXIT_OK

    def named(n: int) -> str | None:
        return (
            args.output if n == 1 or args.output is None else compile_all.numbered(args.output, n)
        )

    texts = [(1, compile_all.banner(analysis, 1, comment) + marked_text(args, first, named(1))[0])]
    for n, result in compile_all.later_rounds(analysis, args, count, compile_round):
        report(result.diagnostics)
        if result.has_errors:
            code = EXIT_ERRORS
            continue
        text = marked_text(args, result, named(n))[0]
        texts.append((n, compile_all.banner(analysis, n, comment) + text))
    if args.output is None:
        emit("\n".join(text for _, text in texts), None)
    else:
        for n, text in texts:
            emit(text, named(n))
    return code


def option_misuse(args: argparse.Namespace) -> str:
    """Why the options do not go together ("" when they do)."""
    if args.line_directives and args.target not in ("cce", "pto"):
        return "--line-directives marks C++ (--target cce) and PTO MLIR (--target pto)"
    if args.pass_diff and args.target != "ir":
        return "--pass-diff shows the IR each pass makes: use it with --target ir"
    return ""


def write_pass_diff(result: CompileResult, style: str, output: str | None) -> int:
    """What each pass changed in the IR (``--pass-diff``)."""
    from .pass_diff import explore, render

    programs = explore(result)
    emit(render(programs, style, terminal_width()), output)
    return EXIT_ERRORS if result.has_errors else EXIT_OK


def emit_compiled(
    args: argparse.Namespace, result: CompileResult, analysis: ModuleAnalysis
) -> None:
    """The generated text with what the options add, and the source map beside it."""
    text, spans = marked_text(args, result, args.output)
    if args.line_map:
        from .sourcemap import line_map_json

        mapped = line_map_json(args.file, args.target, spans, analysis.text)
        import json

        write_text(args.line_map, json.dumps(mapped, indent=1) + "\n")
    emit(text, args.output)


def marked_text(
    args: argparse.Namespace, result: CompileResult, output: str | None
) -> tuple[str, list[Span | None]]:
    """The generated text with what the options add (annotations, line directives)."""
    text, spans = result.text, result.line_spans
    if args.annotate:
        from .sourcemap import annotate

        text, spans = annotate(text, spans, "#" if result.language == "python" else "//")
    if args.line_directives and args.target == "cce":
        from .line_directives import cpp_line_directives

        stem = os.path.splitext(os.path.basename(args.file))[0]
        text, spans = cpp_line_directives(text, spans, output or f"{stem}.cpp")
    elif args.line_directives:
        from .line_directives import mlir_locations

        text = mlir_locations(text, spans)
    return text, spans


def sync_verified(result: driver.CompileResult) -> bool:
    """``--verify-sync``: report the checker's findings; True when there are none (or the
    compile failed already)."""
    if result.has_errors:
        return True
    from .verify_sync import verify_compiled

    findings = verify_compiled(result)
    report(findings)
    return not any(d.severity is Severity.ERROR for d in findings)


def write_timeline(
    result: driver.CompileResult, out: str | None, show: bool, given: list[str] | None
) -> None:
    """``--timeline OUT.json`` / ``--timeline-summary``: the predicted per-pipe timeline, with
    cycle facts read from pto-isa (a missing installation is a usage error); ``given``: the
    ``--timeline-scalar NAME=VALUE`` options."""
    import json

    from .run.toolchain import ToolMissing, find_pto_isa
    from .timeline import TablesMissing, compiled_timelines, summary, trace_json

    scalars: dict[str, int] = {}
    for item in given or []:
        name, _, value = item.partition("=")
        try:
            scalars[name.strip()] = int(value)
        except ValueError:
            raise InputError(f"--timeline-scalar {item}: expected NAME=INTEGER") from None
    try:
        root = find_pto_isa(None)
        timelines = compiled_timelines(result, root, scalars)
    except (ToolMissing, TablesMissing) as exc:
        raise InputError(f"--timeline needs pto-isa's cost-model tables: {exc}") from None
    if out:
        write_text(out, json.dumps(trace_json(timelines)) + "\n")
    if show:
        from .timeline.tables import CostTables

        frequency = CostTables.load(root).frequency_hz
        sys.stderr.write("".join(summary(t, frequency) for t in timelines))


def write_memory_map(analysis: ModuleAnalysis, function: str | None, out: str) -> None:
    """``--memory-map``: the map after AllocateMemoryAddr, as SVG when ``out`` ends in
    ``.svg``, else JSON (written even when buffers overflow: that is what it shows)."""
    from .memory_map import map_json, memory_map

    found = memory_map(analysis, function)
    if out.lower().endswith(".svg"):
        from .memory_svg import render_svg

        write_text(out, render_svg(found.functions))
    else:
        document = {"file": analysis.path, "functions": map_json(found.functions, analysis.text)}
        import json

        write_text(out, json.dumps(document, indent=1) + "\n")


def write_text(path: str, text: str) -> None:
    try:
        with open(path or ".", "w", encoding="utf-8") as file:  # "": as pathlib, the folder
            file.write(text)
    except OSError as exc:
        raise InputError(f"cannot write '{path}': {exc.strerror or exc}") from None


def safe_file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "_"


def dump_passes(
    folder: str,
    program: Program,
    snapshots: Sequence[tuple[str, Program]],
    print_program: Callable[..., str],
) -> None:
    """``00_input.py`` (the front end's IR), then ``NN_<pass>.py`` after each pass."""
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise InputError(f"cannot create '{folder}': {exc.strerror or exc}") from None
    stages = [("input", program), *snapshots]
    for index, (name, snapshot) in enumerate(stages):
        target = os.path.join(folder, f"{index:02d}_{safe_file_name(name)}.py")
        try:
            text = print_program(snapshot)
        except Exception as exc:  # keep the other snapshots
            text = f"# printing the IR after {name} failed: {type(exc).__name__}: {exc}\n"
        write_text(target, text)


# --- the argument parser -------------------------------------------------------------------------


def terminal_width() -> int:
    """``$COLUMNS``, else the terminal's width, else 80 (what ``shutil.get_terminal_size``
    answers; shutil itself loads the compression modules, a few ms of every start)."""
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns <= 0 and sys.__stdout__ is not None:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 80
    return columns if columns > 0 else 80


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, given its width: argparse builds one for every ``add_argument``
    and would import shutil to size it."""

    def __init__(self, prog: str, **options: Any) -> None:
        options.setdefault("width", terminal_width() - 2)  # argparse's own margin
        super().__init__(prog, **options)


class ArgumentParser(argparse.ArgumentParser):
    """A parser (and, as ``add_subparsers`` copies the class, every subcommand's) that formats
    help with ``HelpFormatter``."""

    def __init__(self, *args: Any, **options: Any) -> None:
        options.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **options)


def add_check_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    check = commands.add_parser(
        "check",
        help="report diagnostics for files and directories",
        description="Report diagnostics. A directory is searched for .py files that use "
        "pypto.language (hidden directories, .venv and node_modules are skipped); a file "
        "named explicitly is always checked.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.add_argument(
        "-j",
        "--jobs",
        type=positive_int,
        default=None,
        metavar="N",
        help="check files on N processes (default: one per core once the files hold 16 kB of "
        "source or more, else one)",
    )
    check.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="also say, for each file, which language edition is in force and why",
    )
    check.set_defaults(handler=run_check)


def add_print_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    show = commands.add_parser(
        "print",
        help="print the IR of a file in canonical form",
        description="Print every program of FILE as canonical Python-syntax IR.",
    )
    show.add_argument("file", metavar="FILE")
    show.add_argument("--prefix", default="pl", help="module alias of pypto.language (default: pl)")
    show.add_argument("--line-length", type=positive_int, default=88, metavar="N")
    show.add_argument("--function", metavar="NAME", help="print only this function")
    add_specialise(show)
    show.add_argument(
        "--jit-signature",
        action="store_true",
        help="print each @pl.jit kernel's signature and what a call must pass, not its IR",
    )
    show.set_defaults(handler=run_print)


def add_compile_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    compile_ = commands.add_parser(
        "compile",
        help="compile a file to CCE C++, PTO MLIR or optimised IR",
        description="Front end, pass pipeline, then code generation for the chosen target.",
    )
    compile_.add_argument("file", metavar="FILE")
    compile_.add_argument(
        "--target",
        choices=LazyChoices(driver.all_targets),
        default="cce",
        metavar="TARGET",
        help="cce (C++ on pto-isa), pto (PTO MLIR), ir (the IR after the pipeline) or "
        "pass:NAME (the IR right after that pass); default: cce",
    )
    compile_.add_argument(
        "--function",
        metavar="NAME",
        help="generate code for this function and the functions it calls or launches (the"
        " kernels outlined from a @pl.jit entry or an orchestration function)",
    )
    compile_.add_argument(
        "--pipeline",
        choices=tuple(driver.PIPELINES),
        default=None,
        help="pass pipeline (default: ptoas for --target pto and pto-cpp, default otherwise)",
    )
    add_specialise(compile_)
    add_compile_outputs(compile_)
    compile_.set_defaults(handler=run_compile)


def add_specialise(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--specialise",
        type=positive_int,
        default=None,
        metavar="N",
        help="each @pl.jit kernel with the shapes of its N-th call in the file "
        "(default: its first)",
    )


def add_compile_outputs(compile_: argparse.ArgumentParser) -> None:
    """``ptoc compile``'s options that write or check something beside the generated code."""
    compile_.add_argument(
        "--dump-passes", metavar="DIR", help="write the IR after each pass to DIR/NN_<pass>.py"
    )
    compile_.add_argument("-o", "--output", metavar="OUT", help="write the result to OUT")
    compile_.add_argument(
        "--verify",
        action="store_true",
        help="run PTOAS on the PTO MLIR and report what it rejects on the kernel's lines",
    )
    compile_.add_argument(
        "--verify-sync",
        action="store_true",
        help="check the lowered functions' synchronisation (every cross-pipe access ordered, "
        "set/wait pairs matched, no event reused in flight, no deadlock); a finding is an error. "
        "On the PTO route (--target pto, --pipeline ptoas) it checks the sync PTOAS inserts, "
        "in the C++ PTOAS makes with --enable-insert-sync",
    )
    compile_.add_argument(
        "--timeline",
        metavar="OUT.json",
        help="write the predicted per-pipe timeline of each kernel (Chrome trace format; cycles "
        "from pto-isa's cost-model tables, found as for ptoc run --sim)",
    )
    compile_.add_argument(
        "--timeline-summary",
        action="store_true",
        help="print each kernel's predicted cycles, pipe utilisation, bottleneck, longest wait "
        "and critical path (on stderr)",
    )
    compile_.add_argument(
        "--timeline-scalar",
        action="append",
        metavar="NAME=VALUE",
        help="the value of a scalar parameter for the timeline: loops whose trip count depends "
        "on it are counted that many times (else once); repeatable",
    )
    add_ptoas_options(compile_)
    add_source_maps(compile_)


def add_ptoas_options(compile_: argparse.ArgumentParser) -> None:
    """Which PTOAS judges the MLIR (``--verify``, ``pto-cpp``)."""
    compile_.add_argument(
        "--ptoas",
        metavar="PATH",
        help="the PTOAS binary (default: $PTOAS, else the vendor copy of --ptoas-version "
        "beside the repository, ../shared/vendor/ptoas-v0.57/ptoas, else ptoas on PATH)",
    )
    compile_.add_argument(
        "--ptoas-version",
        metavar="VERSION",
        default=None,
        help="the PTOAS version to use: 0.57 (today's PyPTO, the default) or 0.27 (the "
        "2026-03 edition's); a --ptoas or $PTOAS binary must be that version",
    )


def add_source_maps(compile_: argparse.ArgumentParser) -> None:
    """Outputs that tie the generated code to the kernel's lines, and the memory map."""
    compile_.add_argument(
        "--line-map",
        metavar="MAP.json",
        help="write the source map: for each run of generated lines, the source range it "
        "came from (0-based lines, LSP ranges)",
    )
    compile_.add_argument(
        "--annotate",
        action="store_true",
        help="put a '// FILE:LINE' comment above the lines generated for each statement",
    )
    compile_.add_argument(
        "--line-directives",
        action="store_true",
        help="make the output name the kernel's lines: '#line N \"FILE\"' in C++ (clang, gdb), "
        "'loc(\"FILE\":L:C)' on PTO MLIR operations (PTOAS, mlir tools)",
    )
    compile_.add_argument(
        "--pass-diff",
        nargs="?",
        const="unified",
        choices=("unified", "side-by-side"),
        metavar="STYLE",
        help="with --target ir: instead of the IR, what each pass changed in it (+added "
        "-removed lines; passes that changed nothing are named, not shown), as a unified "
        "(the default) or side-by-side diff",
    )
    compile_.add_argument(
        "--memory-map",
        metavar="OUT.json|OUT.svg",
        help="write every function's on-chip buffers after AllocateMemoryAddr (address, size, "
        "lifetime, reuse group, capacity), as JSON or as an SVG picture",
    )


#: The commands, in the order ``ptoc --help`` lists them.
COMMANDS = ("check", "print", "compile", "fmt", "upgrade", "run", "graph")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or with only ``command``'s own (all a run that names its
    command needs: argparse builds each command's parser whole, and fmt's and run's import
    their modules)."""
    parser: argparse.ArgumentParser = ArgumentParser(
        prog="ptoc",
        description="ptoc: check, print and compile PyPTO kernels (import pypto.language as pl).",
    )
    parser.add_argument(
        "--version", action=VersionAction, nargs=0, help="show the version and exit"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        if command in (None, name):
            command_parser_adder(name)(commands)
    for sub in commands.choices.values():
        sub.add_argument(
            "--edition",
            choices=EDITION_NAMES,
            default=None,
            help="the language edition of every file (default: the project's [tool.ptoc] "
            "edition, else each file's spellings, else the newest)",
        )
    return parser


def command_parser_adder(
    name: str,
) -> Callable[[argparse._SubParsersAction[argparse.ArgumentParser]], object]:
    """The function adding command ``name``'s parser."""
    # Imported here: both command modules import this one.
    if name == "fmt":
        from .fmt.command import add_parser as add_fmt_parser

        return add_fmt_parser
    if name == "upgrade":
        from .upgrade.command import add_parser as add_upgrade_parser

        return add_upgrade_parser
    if name == "run":
        from .run.command import add_parser as add_run_parser

        return add_run_parser
    if name == "graph":
        from .graph.command import add_parser as add_graph_parser

        return add_graph_parser
    adders = {"check": add_check_parser, "print": add_print_parser, "compile": add_compile_parser}
    return adders[name]


def named_command(argv: Sequence[str]) -> str | None:
    """The command ``argv`` starts with, if any (else, for ``--help``, ``--version`` or a usage
    error, every command's parser is built)."""
    return argv[0] if argv and argv[0] in COMMANDS else None


def ptoc_version() -> str:
    from importlib import metadata  # tens of ms to import: only --version needs it

    try:
        return metadata.version("ptoc")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


class VersionAction(argparse.Action):
    """``--version``: argparse's own wants the text up front, which costs every command the
    package-metadata import."""

    def __call__(self, parser: argparse.ArgumentParser, *_: object) -> None:
        print(f"ptoc {ptoc_version()}")
        parser.exit()


class LazyChoices(Sequence[str]):
    """Choices computed when argparse first looks at them (the pass targets name every
    registered pass, and the passes are only worth importing for ``compile``)."""

    def __init__(self, compute: Callable[[], list[str]]) -> None:
        self.compute = compute

    @functools.cached_property
    def items(self) -> list[str]:
        return self.compute()

    def __getitem__(self, index: int) -> str:  # type: ignore[override]
        return self.items[index]

    def __len__(self) -> int:
        return len(self.items)

    def __contains__(self, value: object) -> bool:
        return value in self.items


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got '{text}'")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``ptoc`` console script and ``python -m ptoc``; returns the exit code."""
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(named_command(argv))
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_usage(sys.stderr)
        fail("a command is required (check, print, compile, fmt, upgrade, run)")
        return EXIT_USAGE
    configs.cache_clear()  # configuration is read afresh by every run
    chosen = getattr(args, "edition", None)
    if chosen:
        driver.choose_edition(chosen)
    try:
        code: int = handler(args)
        return code
    except InputError as exc:
        fail(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `ptoc print f.py | head`: the reader is gone, stop quietly
        silence_stdout()
        return EXIT_ERRORS
    finally:
        if chosen:  # the choice is this run's: an in-process caller's next run starts afresh
            driver.choose_edition(None)


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
