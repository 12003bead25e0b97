"""``ptoc check -j N FOLDER`` as a process, with its CPU time split by process. Not a test.

    .venv/bin/python benchmarks/jobs_probe.py N FOLDER NOTES_FOLDER

Prints one line (a Python literal): the CPU time (ms) of the main process, where in it its
own share of the files began and ended, and each forked worker's CPU time. On a machine whose
other work takes cores away, wall time cannot show what ``-j`` gives; the CPU split can: with
idle cores the run would take about the main process's time before its first file, plus the
longest share (its own or a worker's), plus its time after its last file, against the main
process's time of a ``-j 1`` run that did it all.
"""

from __future__ import annotations

import ast
import contextlib
import io
import os
import resource
import sys
import time
from pathlib import Path

from ptoc import cli

check_file = cli.check_file


#: This process's CPU time (s) when its first file began, by pid (forked workers inherit it).
first_began: dict[int, float] = {}


def timed_check_file(path: str, explicit: bool) -> cli.FileCheck:
    """``cli.check_file``, then this process's CPU time (ms) when its first file began and now,
    noted under its pid (a forked worker's CPU time starts at zero)."""
    began = first_began.setdefault(os.getpid(), time.process_time())
    found = check_file(path, explicit)
    with open(os.path.join(os.environ["PTOC_JOBS_PROBE"], str(os.getpid())), "w") as note:
        note.write(repr((began * 1000.0, time.process_time() * 1000.0)))
    return found


def cpu_ms(usage: resource.struct_rusage) -> float:
    return (usage.ru_utime + usage.ru_stime) * 1000.0


def main() -> int:
    jobs, folder, notes = sys.argv[1:4]  # notes: an empty folder (tempfile costs ms to import)
    os.environ["PTOC_JOBS_PROBE"] = notes
    cli.check_file = timed_check_file  # what the pool maps (forked workers see it too)
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = cli.main(["check", "-j", jobs, folder])
    main_ms = cpu_ms(resource.getrusage(resource.RUSAGE_SELF))
    spans = {int(note.name): ast.literal_eval(note.read_text()) for note in Path(notes).iterdir()}
    first_ms, last_ms = spans.pop(os.getpid())
    workers = sorted(last for _, last in spans.values())
    print(
        repr(
            {
                "code": code,
                "main_ms": main_ms,
                "main_files_ms": (first_ms, last_ms),
                "workers_ms": workers,
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
