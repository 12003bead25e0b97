"""Where ptoc runs outside tools (PTOAS, the C++ compiler, the simulated kernel): a private
temporary folder (mode 0700: no other user reads or plants files there) that is removed
afterwards, also the tool's own TMPDIR, so what it writes on the side stays private too."""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def private_folder(prefix: str) -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix=prefix) as name:
        os.chmod(name, 0o700)  # mkdtemp's own mode; stated, as the promise the callers rely on
        yield Path(name)


def tool_environment(folder: Path, **extra: str) -> dict[str, str]:
    """The environment a tool runs in: ours, with its temporary files kept in ``folder``."""
    return {**os.environ, "TMPDIR": str(folder), **extra}


def run_tool(
    command: list[str], timeout: float, folder: Path | None = None, **environment: str
) -> subprocess.CompletedProcess[str]:
    """``command`` run without a shell, its output captured as text, stopped after ``timeout``
    seconds (``subprocess.TimeoutExpired``; ``OSError`` when it cannot start), in ``folder``
    (a private one the caller made) or in a private folder of its own; ``environment`` adds
    to its environment."""
    if folder is None:
        with private_folder("ptoc-tool-") as scratch:
            return run_tool(command, timeout, scratch, **environment)
    return subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        cwd=folder,
        env=tool_environment(folder, **environment),
    )
