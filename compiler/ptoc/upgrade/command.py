"""``ptoc upgrade [--check] [--diff] PATH...``

Exit codes follow ``ptoc fmt``: 0 nothing to upgrade, or every file upgraded; 1 ``--check``
found a file to upgrade, or a file was refused because its proof failed; 2 a path or file
that cannot be used. Results (``would upgrade PATH``, diffs) go to stdout; ``upgraded PATH``,
the lines left as written (``PATH:LINE:COL: left ...``), problems and the summary to stderr.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from ..cli import EXIT_ERRORS, EXIT_OK, EXIT_USAGE, discover, fail, plural
from ..filekind import is_pypto_source
from ..records import record

if TYPE_CHECKING:
    from .upgrader import UpgradeResult

DESCRIPTION = (
    "Rewrite PyPTO 2026-03 kernels in 2026-08 spelling (pl.block.X -> pl.tile.X, "
    "with pl.incore() -> with pl.at(level=pl.Level.CORE_GROUP), the 2026-08 store and load "
    "arguments, renamed ops). A file is written only when the upgraded text, analysed as "
    "2026-08, lowers to an IR structurally equal to the original's (analysed as 2026-03) "
    "with the same diagnostics; a rewrite the proof fails on is left out and reported. "
    "Spellings whose meaning differs in 2026-08 are left as written, each reported with why."
)


def add_parser(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
) -> argparse.ArgumentParser:
    """Register ``upgrade`` on the ``ptoc`` command's subparsers."""
    parser = subparsers.add_parser(
        "upgrade",
        help="rewrite 2026-03 kernels in 2026-08 spelling, proven to lower to the same IR",
        description=DESCRIPTION,
    )
    parser.add_argument("paths", nargs="+", metavar="PATH")
    parser.add_argument(
        "--check", action="store_true", help="write nothing; exit 1 if any file would change"
    )
    parser.add_argument(
        "--diff", action="store_true", help="write nothing; print a unified diff of each change"
    )
    parser.set_defaults(handler=run)
    return parser


@record
class Tally:
    upgraded: int = 0
    unchanged: int = 0
    refused: int = 0
    failed: int = 0

    def summary(self, dry_run: bool) -> str:
        verb = "would be upgraded" if dry_run else "upgraded"
        parts = [f"{plural(self.upgraded, 'file')} {verb}", f"{self.unchanged} unchanged"]
        if self.refused:
            parts.append(f"{self.refused} refused")
        if self.failed:
            parts.append(f"{self.failed} failed")
        return ", ".join(parts)


def run(args: argparse.Namespace) -> int:
    from ..fmt.command import terminate_as_exit
    from ..fmt.files import remove_leftovers

    files, problems = discover(args.paths)
    for problem in problems:
        fail(problem)
    tally = Tally(failed=len(problems))
    dry_run = bool(args.check or args.diff)
    folders: set[str] = set()
    with terminate_as_exit():
        for path, named in files:
            folder = os.path.dirname(os.path.realpath(path))
            if not dry_run and folder not in folders:
                folders.add(folder)
                remove_leftovers(folder)
            upgrade_one(path, named, args, tally)
    print(tally.summary(dry_run), file=sys.stderr)
    if tally.failed:
        return EXIT_USAGE
    if tally.refused or (args.check and tally.upgraded):
        return EXIT_ERRORS
    return EXIT_OK


def upgrade_one(path: str, explicit: bool, args: argparse.Namespace, tally: Tally) -> None:
    from ..fmt.files import FileProblem, read_text
    from .upgrader import upgrade_source

    try:
        text = read_text(path)
    except FileProblem as exc:
        fail(str(exc))
        tally.failed += 1
        return
    if not explicit and not is_pypto_source(text):
        return
    result = upgrade_source(text, path, explicit=explicit)
    report_left(path, result)
    if result.status == "error":
        fail(f"cannot upgrade {path}: {result.reason}")
        tally.failed += 1
    elif result.status == "refused":
        fail(f"refusing to upgrade {path}: {result.reason}")
        tally.refused += 1
    elif result.status == "upgraded":
        tally.upgraded += 1
        write_change(path, text, result, args, tally)
    else:
        tally.unchanged += 1


def report_left(path: str, result: UpgradeResult) -> None:
    for note in result.left:
        print(
            f"{path}:{note.line}:{note.column}: left `{note.spelling}`: {note.why}", file=sys.stderr
        )


def write_change(
    path: str, text: str, result: UpgradeResult, args: argparse.Namespace, tally: Tally
) -> None:
    from ..fmt.command import unified_diff
    from ..fmt.files import FileProblem, write_atomic

    if args.diff:
        sys.stdout.write(unified_diff(path, text, result.text).replace("(formatted)", "(upgraded)"))
    if args.check:
        sys.stdout.write(f"would upgrade {path}\n")
    if args.check or args.diff:
        return
    try:
        write_atomic(path, result.text)
    except FileProblem as exc:
        fail(str(exc))
        tally.upgraded -= 1
        tally.failed += 1
        return
    print(f"upgraded {path} ({plural(result.rewritten, 'rewrite')})", file=sys.stderr)
