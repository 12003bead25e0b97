"""``ptoc upgrade [--check] [--diff] PATH...``

Exit codes follow ``ptoc fmt``: 0 nothing to upgrade, or every file upgraded; 1 ``--check``
found a file to upgrade, or a file was refused because its proof failed; 2 a path or file
that cannot be used. Results (``would upgrade PATH``, diffs) go to stdout; ``upgraded PATH``,
the lines left as written (``PATH:LINE:COL: left ...``), problems and the summary to stderr.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..cli import fail, plural
from ..filekind import is_pypto_source

if TYPE_CHECKING:
    from ..fmt.command import Tally
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
    from ..fmt.command import add_rewriting_command

    summary = "rewrite 2026-03 kernels in 2026-08 spelling, proven to lower to the same IR"
    parser = add_rewriting_command(subparsers, "upgrade", summary, DESCRIPTION, "upgraded")
    parser.set_defaults(handler=run)
    return parser


def run(args: argparse.Namespace) -> int:
    from ..fmt.command import Tally, run_over_files

    tally = Tally(verb="upgraded", wish="upgrade")
    return run_over_files(args, tally, lambda path, named: upgrade_one(path, named, args, tally))


def upgrade_one(path: str, explicit: bool, args: argparse.Namespace, tally: Tally) -> None:
    from ..fmt.command import deliver
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
    failure = f"cannot upgrade {path}: {result.reason}"
    if tally.count(result.status, failure, f"refusing to upgrade {path}: {result.reason}"):
        deliver(path, text, result.text, args, tally, f" ({plural(result.rewritten, 'rewrite')})")


def report_left(path: str, result: UpgradeResult) -> None:
    for note in result.left:
        print(
            f"{path}:{note.line}:{note.column}: left `{note.spelling}`: {note.why}", file=sys.stderr
        )
