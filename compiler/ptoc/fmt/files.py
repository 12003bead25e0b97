"""Reading and writing source files byte-exactly (the BOM and the newline style are kept by
``format_source``; this layer only decodes and encodes UTF-8)."""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile

TEMP_SUFFIX = ".ptoc-fmt"


class FileProblem(Exception):
    """A file that cannot be read, decoded or written; the message names it."""


def read_text(path: str) -> str:
    """The file decoded as UTF-8, BOM and ``\\r\\n`` included (nothing is translated)."""
    from ..driver import SourceError
    from ..driver import read_text as read_exactly

    try:
        return read_exactly(path)
    except SourceError as exc:
        raise FileProblem(str(exc)) from None


def write_atomic(path: str, text: str) -> None:
    """Replace the file's content in one step: write a temporary file in the same folder, give
    it the original's permission bits, then ``os.replace`` it over the original. A symlink is
    followed, so the link stays a link. Readers never see a half-written file. The temporary's
    name carries our process id, so that a run killed before it could clean up leaves
    something ``remove_leftovers`` recognises."""
    target = os.path.realpath(path)
    folder = os.path.dirname(target) or "."
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode)
        fd, temporary = tempfile.mkstemp(
            dir=folder, prefix=f".{os.path.basename(target)}.{os.getpid()}.", suffix=TEMP_SUFFIX
        )
    except OSError as exc:
        raise FileProblem(f"cannot write '{path}': {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8"))
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as exc:  # including KeyboardInterrupt: never leave the temporary behind
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise FileProblem(f"cannot write '{path}': {exc.strerror or exc}") from None
        raise


def remove_leftovers(folder: str) -> None:
    """Delete the temporaries ``write_atomic`` left in ``folder`` when its process was killed
    (``.NAME.PID.RANDOM.ptoc-fmt`` whose PID no longer runs); a live run's are kept."""
    try:
        names = os.listdir(folder or ".")
    except OSError:
        return
    for name in names:
        parts = name.rsplit(".", 3)
        if not (name.startswith(".") and name.endswith(TEMP_SUFFIX) and len(parts) == 4):
            continue
        if parts[1].isdigit() and not _running(int(parts[1])):
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(folder, name))


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # EPERM: it runs, as another user
        return True
    return True
