"""``python -m ptoc`` and the ``ptoc`` console script: the command line of ``ptoc.cli``.

A command is one short process, so the cyclic collector stays off: before any file is read it
would scan the ~100,000 objects the imports create (modules, classes, functions, the op
registry; none of them garbage) again and again, ~4 % of ``ptoc check`` of a small kernel.
Reference counting still frees what a command drops; the few cycles it leaves (a 40-kernel
``ptoc check`` leaves ~600 objects more, +0.2 MB) go with the process. The language server and
in-process callers of ``ptoc.cli.main`` keep the collector's own schedule.

For the same reason the process ends as soon as the command is done and its output flushed:
Python's own exit would free every module and object one by one (~10 ms after checking 40
kernels) for a process about to vanish. Every file a command writes is closed by then.
"""

import gc
import os
import sys

gc.disable()

from .cli import main as run  # noqa: E402  (imported with the collector off)


def main() -> int:
    try:
        code = run()
    except KeyboardInterrupt:  # Ctrl-C: the shell's convention, not a traceback
        print("ptoc: interrupted", file=sys.stderr)
        code = 128 + 2
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # e.g. a closed pipe: Python's own exit reports it, as it always has
        return code
    os._exit(code)


if __name__ == "__main__":
    sys.exit(main())
