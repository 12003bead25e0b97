"""The ``ptoc`` command line: ``check``, ``print`` and ``compile`` (``fmt`` is added separately).

Exit codes are the same for every command: 0 no errors (warnings allowed), 1 the input has errors,
2 a usage error or an input that cannot be read. Diagnostics go to stderr in the one-line text
form ``path:line:col: severity[CODE]: message``; results (printed IR, generated code, the JSON of
``check --format json``) go to stdout or to ``-o``.
"""

from __future__ import annotations

import argparse
import errno
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, Severity
from .ir.function import Program
from .ir.span import Span

if TYPE_CHECKING:
    from .frontend.analysis import ModuleAnalysis

EXIT_OK = 0
EXIT_ERRORS = 1
EXIT_USAGE = 2

# Directory walks never descend into these (nor into any hidden directory).
SKIPPED_DIRS = frozenset({".venv", "node_modules", "__pycache__"})

TARGETS = ("cce", "pto", "ir")
PIPELINES = ("default", "ptoas")


class InputError(Exception):
    """A problem with the command's input (missing, unreadable, not UTF-8): exit code 2."""


# --- reading and analysing files ---------------------------------------------------------------


def read_source(path: str) -> str:
    """The file's text, decoded as UTF-8 (a leading BOM is dropped, as Python itself does)."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise InputError(f"cannot read '{path}': no such file or directory") from None
    except IsADirectoryError:
        raise InputError(f"cannot read '{path}': it is a directory") from None
    except OSError as exc:
        raise InputError(f"cannot read '{path}': {exc.strerror or exc}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"cannot read '{path}': not valid UTF-8 (byte 0x{data[exc.start]:02x} on line {line})"
        ) from None
    return text.removeprefix("\ufeff")


def analyze(text: str, path: str) -> ModuleAnalysis:
    """Run the front end; a crash inside it becomes an E900 diagnostic instead of a traceback."""
    from .frontend import analyze_source
    from .frontend.analysis import ModuleAnalysis

    try:
        return analyze_source(text, path)
    except Exception as exc:  # the front end must not raise; keep checking the other files
        analysis = ModuleAnalysis(path=path, text=text, uses_pypto=True)
        analysis.diagnostics.append(internal_error(path, "front end", exc))
        return analysis


def internal_error(path: str, stage: str, exc: BaseException) -> Diagnostic:
    message = f"internal error in the {stage}: {type(exc).__name__}: {exc}"
    return Diagnostic("E900", Severity.ERROR, message, Span(path, 1, 0, 1, 0))


def might_use_pypto(text: str) -> bool:
    """Cheap filter for directory walks: a file that imports pypto.language (or is a printed IR
    file) necessarily mentions ``pypto``; only those are handed to the front end."""
    return "pypto" in text


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
            for file in walk_python_files(raw, problems):
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


def walk_python_files(root: str, problems: list[str]) -> list[str]:
    """Every ``.py`` file below ``root`` in sorted order, skipping hidden and tool directories;
    a directory that cannot be listed is added to ``problems``."""
    def unreadable(exc: OSError) -> None:
        problems.append(f"cannot read directory '{exc.filename}': {exc.strerror or exc}")

    files: list[str] = []
    for directory, subdirs, names in os.walk(root, onerror=unreadable):
        subdirs[:] = sorted(d for d in subdirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(names):
            if name.endswith(".py"):
                files.append(os.path.normpath(os.path.join(directory, name)))
    return files


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


def run_check(args: argparse.Namespace) -> int:
    files, problems = discover(args.paths)
    diagnostics: list[Diagnostic] = []
    checked = 0
    for path, explicit in files:
        try:
            text = read_source(path)
        except InputError as exc:
            problems.append(str(exc))
            continue
        if not explicit and not might_use_pypto(text):
            continue
        analysis = analyze(text, path)
        if not explicit and not analysis.uses_pypto:
            continue
        checked += 1
        diagnostics.extend(analysis.diagnostics)

    ordered = sorted_diagnostics(diagnostics)
    if args.format == "json":
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


@dataclass
class LoadedFile:
    path: str
    programs: list[Program]
    diagnostics: list[Diagnostic]


def load_programs(path: str) -> LoadedFile:
    """Read and analyse one file (raises InputError when it cannot be read)."""
    analysis = analyze(read_source(path), path)
    return LoadedFile(path, analysis.all_programs(), list(analysis.diagnostics))


def select_programs(loaded: LoadedFile, function: str | None) -> list[Program]:
    """All programs, or only those defining ``function`` (raises InputError when none does)."""
    if function is None:
        return loaded.programs
    chosen = [p for p in loaded.programs if p.function(function) is not None]
    if not chosen:
        raise InputError(f"no function named '{function}' in '{loaded.path}'")
    return chosen


def only_function(program: Program, function: str | None) -> Program:
    """The program reduced to one function (for printing), or unchanged."""
    if function is None:
        return program
    fn = program.function(function)
    assert fn is not None  # select_programs guarantees it
    return Program(program.name, (fn,), span=program.span)


def join_outputs(texts: Sequence[str]) -> str:
    """Several generated modules, separated by one blank line, ending in a newline."""
    body = "\n\n".join(text.rstrip("\n") for text in texts)
    return body + "\n" if body else ""


def emit(text: str, output: str | None) -> None:
    if output is None:
        sys.stdout.write(text)
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise InputError(f"cannot write '{output}': {exc.strerror or exc}") from None


# --- ptoc print ----------------------------------------------------------------------------------


def run_print(args: argparse.Namespace) -> int:
    from .printer import print_program

    loaded = load_programs(args.file)
    if has_errors(loaded.diagnostics):
        report(loaded.diagnostics)
        return EXIT_ERRORS
    programs = select_programs(loaded, args.function)
    report(loaded.diagnostics)
    if not programs:
        fail(f"'{args.file}' contains no @pl.program or @pl.function")
        return EXIT_ERRORS

    texts: list[str] = []
    for program in programs:
        try:
            texts.append(
                print_program(
                    only_function(program, args.function),
                    prefix=args.prefix,
                    line_length=args.line_length,
                )
            )
        except Exception as exc:  # the printer must not raise; say so instead of a traceback
            report([internal_error(args.file, "printer", exc)])
            return EXIT_ERRORS
    sys.stdout.write(join_outputs(texts))
    return EXIT_OK


# --- ptoc compile --------------------------------------------------------------------------------


def default_pipeline(target: str) -> str:
    """PTO output goes through ptoas, which schedules its own synchronisation (seed 002)."""
    return "ptoas" if target == "pto" else "default"


def run_compile(args: argparse.Namespace) -> int:
    from .passes import run_pipeline
    from .printer import print_program

    loaded = load_programs(args.file)
    diagnostics = list(loaded.diagnostics)
    if has_errors(diagnostics):
        report(diagnostics)
        return EXIT_ERRORS
    programs = select_programs(loaded, args.function)
    if not programs:
        report(diagnostics)
        fail(f"'{args.file}' contains no @pl.program or @pl.function")
        return EXIT_ERRORS

    pipeline = args.pipeline or default_pipeline(args.target)
    generate = code_generator(args.target, args.function, print_program)
    texts: list[str] = []
    for program in programs:
        try:
            result = run_pipeline(program, pipeline=pipeline)
        except Exception as exc:  # passes must not raise; report it like any other error
            diagnostics.append(internal_error(args.file, "pass pipeline", exc))
            break
        diagnostics.extend(result.diagnostics)
        if args.dump_passes:
            folder = args.dump_passes
            if len(programs) > 1:
                folder = os.path.join(folder, safe_file_name(program.name))
            dump_passes(folder, program, result.snapshots, print_program)
        if has_errors(result.diagnostics):
            continue
        try:
            text, codegen_diagnostics = generate(result.program)
        except Exception as exc:  # code generators must not raise either
            diagnostics.append(internal_error(args.file, f"{args.target} code generator", exc))
            continue
        diagnostics.extend(codegen_diagnostics)
        texts.append(text)

    report(diagnostics)
    if has_errors(diagnostics):
        return EXIT_ERRORS
    emit(join_outputs(texts), args.output)
    return EXIT_OK


Generator = Callable[[Program], tuple[str, list[Diagnostic]]]


def code_generator(target: str, function: str | None, print_program: Callable[..., str]) -> Generator:
    """What turns the final IR into text for ``target``."""
    if target == "cce":
        from .codegen.cce import generate_cce

        def cce(program: Program) -> tuple[str, list[Diagnostic]]:
            result = generate_cce(program, function=function)
            return result.text, list(result.diagnostics)

        return cce
    if target == "pto":
        from .codegen.pto import generate_pto

        def pto(program: Program) -> tuple[str, list[Diagnostic]]:
            result = generate_pto(program, function=function)
            return result.text, list(result.diagnostics)

        return pto

    def ir(program: Program) -> tuple[str, list[Diagnostic]]:
        return print_program(only_function(program, function)), []

    return ir


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
        try:
            Path(target).write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(f"cannot write '{target}': {exc.strerror or exc}") from None


# --- the argument parser -------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ptoc",
        description="ptoc: check, print and compile PyPTO kernels (import pypto.language as pl).",
    )
    parser.add_argument("--version", action="version", version=f"ptoc {ptoc_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = commands.add_parser(
        "check",
        help="report diagnostics for files and directories",
        description="Report diagnostics. A directory is searched for .py files that use "
        "pypto.language (hidden directories, .venv and node_modules are skipped); a file "
        "named explicitly is always checked.",
    )
    check.add_argument("paths", nargs="+", metavar="PATH")
    check.add_argument("--format", choices=("text", "json"), default="text")
    check.set_defaults(handler=run_check)

    show = commands.add_parser(
        "print",
        help="print the IR of a file in canonical form",
        description="Print every program of FILE as canonical Python-syntax IR.",
    )
    show.add_argument("file", metavar="FILE")
    show.add_argument("--prefix", default="pl", help="module alias of pypto.language (default: pl)")
    show.add_argument("--line-length", type=positive_int, default=88, metavar="N")
    show.add_argument("--function", metavar="NAME", help="print only this function")
    show.set_defaults(handler=run_print)

    compile_ = commands.add_parser(
        "compile",
        help="compile a file to CCE C++, PTO MLIR or optimised IR",
        description="Front end, pass pipeline, then code generation for the chosen target.",
    )
    compile_.add_argument("file", metavar="FILE")
    compile_.add_argument("--target", choices=TARGETS, default="cce")
    compile_.add_argument("--function", metavar="NAME", help="generate code for this function only")
    compile_.add_argument(
        "--pipeline",
        choices=PIPELINES,
        default=None,
        help="pass pipeline (default: ptoas for --target pto, default otherwise)",
    )
    compile_.add_argument(
        "--dump-passes", metavar="DIR", help="write the IR after each pass to DIR/NN_<pass>.py"
    )
    compile_.add_argument("-o", "--output", metavar="OUT", help="write the result to OUT")
    compile_.set_defaults(handler=run_compile)

    # --- ptoc fmt: RESERVED ------------------------------------------------------------------
    # The formatter is its own issue. It registers `fmt` here, e.g.
    #     fmt = commands.add_parser("fmt", help=...)
    #     fmt.add_argument("paths", nargs="+"); fmt.add_argument("--check", ...)
    #     fmt.set_defaults(handler=run_fmt)
    # and reuses discover(), read_source(), fail() and the exit codes above.
    # ------------------------------------------------------------------------------------------
    from .fmt.command import add_parser as add_fmt_parser  # imported here: fmt imports this module

    add_fmt_parser(commands)
    return parser


def ptoc_version() -> str:
    try:
        return metadata.version("ptoc")
    except metadata.PackageNotFoundError:  # running from a source tree that is not installed
        return "unknown"


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
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits on --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else EXIT_USAGE
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_usage(sys.stderr)
        fail("a command is required (check, print, compile, fmt)")
        return EXIT_USAGE
    try:
        code: int = handler(args)
        return code
    except InputError as exc:
        fail(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:  # e.g. `ptoc print f.py | head`: the reader is gone, stop quietly
        silence_stdout()
        return EXIT_ERRORS


def silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass


if __name__ == "__main__":
    sys.exit(main())
