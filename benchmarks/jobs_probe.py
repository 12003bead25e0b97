"""``ptoc check -j N FOLDER`` as a process, with its CPU time split by process. Not a test.

    .venv/bin/python benchmarks/jobs_probe.py N FOLDER NOTES_FOLDER

Prints one line (a Python literal): the CPU time (ms) of the main process and of each worker.
On a machine whose other work takes cores away, wall time cannot show what ``-j`` gives; the
CPU split can: with idle cores the run would take about ``main + max(workers)`` (the main
process waits while the workers check), against ``main`` of a ``-j 1`` run that did it all.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import sys
import time
from pathlib import Path

from ptoc import cli

check_file = cli.check_file


def timed_check_file(path: str, explicit: bool) -> cli.FileCheck:
    """``cli.check_file``, then this process's CPU time so far, noted under its pid (a forked
    worker's CPU time starts at zero)."""
    found = check_file(path, explicit)
    with open(os.path.join(os.environ["PTOC_JOBS_PROBE"], str(os.getpid())), "w") as note:
        note.write(str(time.process_time()))
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
    workers = [
        float(note.read_text()) * 1000.0
        for note in Path(notes).iterdir()
        if int(note.name) != os.getpid()
    ]
    print(repr({"code": code, "main_ms": main_ms, "workers_ms": sorted(workers)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
