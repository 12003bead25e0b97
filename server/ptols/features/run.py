"""``ptols/run``: ``ptoc run --sim`` on a function of the document, in a child process.

The document's current text (saved or not) is written to a scratch folder and run there: the
generated C++ is built against pto-isa's CPU simulator and its results are compared with the
reference interpreter's, exactly as on the command line. A child process keeps the server
safe from the build and the simulated kernel (which may crash or hang: the run is bounded).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import protocol

#: A run that takes longer than this (seconds) is stopped (a cold pto-isa build takes ~1 min).
TIMEOUT = 600.0
#: The diagnostic code of a run whose results do not match (docs/lsp-extensions.md).
MISMATCH_CODE = "E406"

# "x (FP32): max abs error 0, max rel error 0 (rtol 0.0001, atol 1e-05): ok"
_RESULT = re.compile(
    r"^(?P<name>\S+) \((?P<dtype>\w+)\): max abs error (?P<abs>\S+), "
    r"max rel error (?P<rel>\S+) \(rtol [^)]*\): (?P<verdict>ok|MISMATCH.*)$"
)


@dataclass
class RunOutput:
    name: str
    max_abs_error: float
    max_rel_error: float
    ok: bool
    detail: str  # the verdict as ptoc run printed it ("ok", "MISMATCH in 3 of 8192, ...")


@dataclass
class RunResult:
    ok: bool
    message: str
    log: str
    outputs: list[RunOutput] = field(default_factory=list)
    #: True when the kernel ran and some result differed (not a build or tool problem).
    mismatch: bool = False

    def message_result(self) -> protocol.RunResult:
        """The ``ptols/run`` answer."""
        outputs = [
            protocol.RunOutput(o.name, o.max_abs_error, o.max_rel_error, o.ok) for o in self.outputs
        ]
        return protocol.RunResult(self.ok, outputs, self.message, self.log)


def run_function(
    text: str,
    file_name: str,
    function: str,
    seed: int = 0,
    edition: str | None = None,
    specialise: int | None = None,
) -> RunResult:
    """``ptoc run FILE --function F --sim --seed S [--edition E] [--specialise N]`` on
    ``text``; never raises. The copy is run outside the project, so the edition the editor
    analysed it in is given."""
    with tempfile.TemporaryDirectory(prefix="ptols-run-") as scratch:
        path = Path(scratch) / (os.path.basename(file_name) or "kernel.py")
        path.write_text(text, encoding="utf-8")
        command = [*ptoc_command(), "run", path.name, "--function", function]
        command += ["--sim", "--seed", str(seed)]
        command += ["--edition", edition] if edition else []
        command += ["--specialise", str(specialise)] if specialise is not None else []
        try:
            completed = subprocess.run(  # in a private folder (0700), its TMPDIR too
                command,
                cwd=scratch,
                env={**os.environ, "TMPDIR": scratch},
                capture_output=True,
                text=True,
                timeout=TIMEOUT,
            )
        except subprocess.TimeoutExpired:
            return RunResult(False, f"{function}: the run took longer than {TIMEOUT:g} s", "")
        except OSError as exc:
            return RunResult(False, f"{function}: could not start ptoc run: {exc}", "")
    return parse_run(completed.stdout, completed.stderr, completed.returncode, function)


def ptoc_command() -> list[str]:
    """``$PTOLS_PTOC`` (a command line, e.g. another install's ``ptoc``), else this
    interpreter's ``python -m ptoc``."""
    configured = os.environ.get("PTOLS_PTOC", "").strip()
    return shlex.split(configured) if configured else [sys.executable, "-m", "ptoc"]


def parse_run(stdout: str, stderr: str, returncode: int, function: str) -> RunResult:
    """The result of a ``ptoc run --sim``, from what it printed."""
    outputs: list[RunOutput] = []
    for line in stdout.splitlines():
        found = _RESULT.match(line)
        if found is not None:
            outputs.append(
                RunOutput(
                    found["name"],
                    float(found["abs"]),
                    float(found["rel"]),
                    found["verdict"] == "ok",
                    found["verdict"],
                )
            )
    log = (stderr + stdout).strip()
    lines = [line for line in stdout.splitlines() if line.strip()]
    if returncode == 0:
        message = lines[-1] if lines else f"{function}: ok"
        return RunResult(True, message, log, outputs)
    mismatch = any(not o.ok for o in outputs)
    problems = [
        line.removeprefix("ptoc: ") for line in stderr.splitlines() if line.startswith("ptoc: ")
    ]
    # progress and notes, not problems
    problems = [p for p in problems if not p.endswith("...") and not p.startswith("note: ")]
    if mismatch:
        message = lines[-1] if lines else f"{function}: results differ"
    elif problems:
        message = problems[0]
    else:
        message = (stderr.strip().splitlines() or [f"ptoc run failed ({returncode})"])[-1]
    return RunResult(False, message, log, outputs, mismatch)


def mismatch_message(result: RunResult) -> str:
    """The diagnostic's text: which results differ and by how much."""
    bad = [o for o in result.outputs if not o.ok]
    parts = [f"{o.name}: {o.detail} (max abs error {o.max_abs_error:g})" for o in bad]
    return "the simulator and the reference interpreter disagree: " + "; ".join(parts)


__all__ = ["MISMATCH_CODE", "RunOutput", "RunResult", "mismatch_message", "parse_run"]
