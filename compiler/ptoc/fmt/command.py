"""``ptoc fmt [--check] [--diff] [--line-length N] [--pypto-only] PATH...``

Exit codes follow the other commands: 0 nothing wrong; 1 ``--check``/``--diff --check`` found
a file to reformat, or a file was refused because a safety proof failed; 2 a path or file that
cannot be used (missing, not UTF-8, not valid Python, bad ``[tool.ptoc]``). Results (``would
reformat PATH``, diffs) go to stdout; ``reformatted PATH``, problems and the summary to stderr.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..cli import (
    EXIT_ERRORS,
    EXIT_OK,
    EXIT_USAGE,
    discover,
    fail,
    plural,
    positive_int,
)
from ..filekind import is_pypto_source
from ..records import record

if TYPE_CHECKING:  # these load when a file is formatted: `ptoc check` registers fmt, no more
    from .config import ConfigCache
    from .formatter import FormatResult

DESCRIPTION = (
    "Rewrite legacy spellings to their canonical form and format with black, writing a file "
    "only when its ptoc IR, Python AST, comments and docstrings are proven unchanged. A "
    "directory is searched for .py files that import pypto.language or are printed IR (hidden "
    "directories, .venv and node_modules are skipped); a file named explicitly is formatted "
    "even when it is not a kernel, unless --pypto-only is given. The line length comes from "
    "--line-length, else [tool.ptoc] line-length in the nearest pyproject.toml, else 88."
)


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Register ``fmt`` on the ``ptoc`` command's subparsers."""
    parser = add_rewriting_command(
        subparsers,
        "fmt",
        "format kernels (canonical spellings, then black), proven safe",
        DESCRIPTION,
        "reformatted",
    )
    parser.add_argument(
        "--line-length",
        type=positive_int,
        default=None,
        metavar="N",
        help="default: from pyproject.toml, else 88",
    )
    parser.add_argument(
        "--pypto-only",
        action="store_true",
        help="skip files that do not import pypto.language even when named explicitly (pre-commit)",
    )
    parser.set_defaults(handler=run)
    return parser


def add_rewriting_command(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    summary: str,
    description: str,
    verb: str,
) -> argparse.ArgumentParser:
    """A command that rewrites files: ``PATH...``, ``--check`` and ``--diff``."""
    parser = subparsers.add_parser(name, help=summary, description=description)
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument(
        "--check", action="store_true", help=f"write nothing; exit 1 if any file would be {verb}"
    )
    parser.add_argument(
        "--diff", action="store_true", help="write nothing; print a unified diff of each change"
    )
    return parser


@record
class Tally:
    """What a run over files did (``ptoc fmt`` and ``ptoc upgrade``)."""

    changed: int = 0
    unchanged: int = 0
    refused: int = 0
    failed: int = 0
    verb: str = "reformatted"  # what a change is called, in the summary and per file
    wish: str = "reformat"  # what --check says it would do

    def count(self, status: str, failure: str, refusal: str) -> bool:
        """Count one file's outcome, saying why it failed or was refused; True when it
        changed (the caller delivers the change)."""
        if status == "error":
            fail(failure)
            self.failed += 1
        elif status == "refused":
            fail(refusal)
            self.refused += 1
        elif status == "unchanged":
            self.unchanged += 1
        elif status in ("formatted", "upgraded"):
            self.changed += 1
            return True
        return False

    def summary(self, dry_run: bool) -> str:
        verb = f"would be {self.verb}" if dry_run else self.verb
        parts = [f"{plural(self.changed, 'file')} {verb}", f"{self.unchanged} unchanged"]
        if self.refused:
            parts.append(f"{self.refused} refused")
        if self.failed:
            parts.append(f"{self.failed} failed")
        return ", ".join(parts)


def run(args: argparse.Namespace) -> int:
    from .config import ConfigCache

    configs = ConfigCache()
    tally = Tally()

    def format_file(path: str, named: bool) -> None:
        format_one(path, named and not args.pypto_only, args, configs, tally)

    return run_over_files(args, tally, format_file)


def run_over_files(
    args: argparse.Namespace, tally: Tally, handle: Callable[[str, bool], None]
) -> int:
    """``handle(path, named_explicitly)`` for each file of ``args.paths``; the exit code."""
    from .files import remove_leftovers

    files, problems = discover(args.paths)
    for problem in problems:
        fail(problem)
    tally.failed += len(problems)
    dry_run = bool(args.check or args.diff)
    folders: set[str] = set()
    with terminate_as_exit():
        for path, named in files:
            folder = os.path.dirname(os.path.realpath(path))
            if not dry_run and folder not in folders:  # what a killed run left behind
                folders.add(folder)
                remove_leftovers(folder)
            handle(path, named)

    print(tally.summary(dry_run), file=sys.stderr)
    if tally.failed:
        return EXIT_USAGE
    if tally.refused or (args.check and tally.changed):
        return EXIT_ERRORS
    return EXIT_OK


@contextlib.contextmanager
def terminate_as_exit() -> Iterator[None]:
    """SIGTERM raises SystemExit meanwhile, so a write in progress removes its temporary
    (SIGKILL cannot be caught: the next run removes those)."""
    import signal  # here and below: `ptoc check` registers fmt and must not pay for these
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def exit_now(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    previous = signal.signal(signal.SIGTERM, exit_now)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def format_one(
    path: str, explicit: bool, args: argparse.Namespace, configs: ConfigCache, tally: Tally
) -> None:
    from .config import ConfigError, effective_line_length
    from .files import FileProblem, read_text
    from .formatter import DEFAULT_LINE_LENGTH, format_source

    try:
        text = read_text(path)
        if not explicit and not is_pypto_source(text):
            return
        config = configs.for_file(path)
    except (FileProblem, ConfigError) as exc:
        fail(str(exc))
        tally.failed += 1
        return
    line_length = effective_line_length(args.line_length, config, DEFAULT_LINE_LENGTH)
    result = format_source(text, path, line_length, explicit=explicit)

    failure = f"cannot format {location(path, result)}: {result.reason}"
    if tally.count(result.status, failure, f"refusing to reformat {path}: {result.reason}"):
        report_change(path, text, result, args, tally)


def report_change(
    path: str, text: str, result: FormatResult, args: argparse.Namespace, tally: Tally
) -> None:
    deliver(path, text, result.text, args, tally)


def deliver(
    path: str, text: str, new_text: str, args: argparse.Namespace, tally: Tally, note: str = ""
) -> None:
    """Show (--diff, --check) or write a changed file; ``note`` follows its name on stderr."""
    from .files import FileProblem, write_atomic

    if args.diff:
        sys.stdout.write(unified_diff(path, text, new_text, tally.verb))
    if args.check:
        sys.stdout.write(f"would {tally.wish} {path}\n")
    if args.check or args.diff:
        return
    try:
        write_atomic(path, new_text)
    except FileProblem as exc:
        fail(str(exc))
        tally.changed -= 1
        tally.failed += 1
        return
    print(f"{tally.verb} {path}{note}", file=sys.stderr)


def location(path: str, result: FormatResult) -> str:
    if result.line and result.column:
        return f"{path}:{result.line}:{result.column}"
    if result.line:
        return f"{path}:{result.line}"
    return path


def unified_diff(path: str, before: str, after: str, verb: str = "reformatted") -> str:
    """A unified diff of two texts, marking a missing final newline the way diff(1) does."""
    import difflib

    out: list[str] = []
    diff = difflib.unified_diff(
        source_lines(before),
        source_lines(after),
        f"{path} (original)",
        f"{path} ({'formatted' if verb == 'reformatted' else verb})",
    )
    for line in diff:
        out.append(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n")
    return "".join(out)


def source_lines(text: str) -> list[str]:
    """Lines ending in ``\\n`` (unlike ``str.splitlines``, form feeds do not end a line)."""
    return [line for line in re.split(r"(?<=\n)", text) if line]
