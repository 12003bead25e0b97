"""Running PTOAS, the PTO dialect's assembler, on generated MLIR.

PTOAS parses and verifies PTO MLIR and lowers it to C++ on pto-isa; a non-zero exit with a
located diagnostic (``loc("file":LINE:COL): error: ...``) means the MLIR is not valid PTO.
ptoc never ships or links it: it is found at run time (``--ptoas``, ``$PTOAS``, the vendor
copy beside the repository, or ``ptoas`` on PATH). Two versions are supported: v0.57, which
today's PyPTO pins and which is the default, and v0.27, the 2026-03 edition's (chosen with
``--ptoas-version 0.27``; a binary's own version is what ``ptoas --version`` prints).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path

from ...diagnostics import Diagnostic, Related, Severity
from ...ir.function import Function, Program
from ...ir.span import Span
from ...records import field, record, replace
from ...scratch import private_folder, run_tool
from ..common import CodegenResult
from .versions import DEFAULT_VERSION, VENDOR_FOLDERS

PTOAS_ENV = "PTOAS"
TIMEOUT_SECONDS = 60
#: The option that makes PTOAS insert set_flag / wait_flag / pipe_barrier itself.
INSERT_SYNC = "--enable-insert-sync"
INSTALL_HINT = (
    "pass --ptoas PATH or set PTOAS to the PTOAS binary (hw-native-sys/PTOAS; it needs "
    "libllvm19: apt-get install -y libllvm19 libz3-4)"
)

# ``loc("kernel.pto":12:58): error: expected ','`` (MLIR's located diagnostics; PTOAS also
# prints its pass pipeline's debug lines, which carry no location and are ignored).
_LOCATED = re.compile(
    r'^loc\("(?P<file>[^"]*)":(?P<line>\d+):(?P<column>\d+)\): '
    r"(?P<severity>error|warning|note|remark): (?P<message>.*)$"
)
# A diagnostic without a location (e.g. ``error: ...`` at the start of a line).
_UNLOCATED = re.compile(r"^(?:Error|error): (?P<message>.*)$")


class PtoasMissing(Exception):
    """No PTOAS binary was found where it was asked for; the message says where to get it."""


@record(frozen=True, slots=True)
class PtoasDiagnostic:
    """One diagnostic PTOAS printed: 1-based line and column in the MLIR it was given (0
    when PTOAS gave no location)."""

    severity: str
    message: str
    line: int = 0
    column: int = 0


@record
class PtoasResult:
    ok: bool
    cpp: str  # the generated C++ (empty when PTOAS failed)
    diagnostics: list[PtoasDiagnostic] = field(default_factory=list)
    output: str = ""  # everything PTOAS printed, for a message when nothing was located


def repository_root() -> Path:
    """The checkout this package lives in (compiler/ptoc/codegen/pto -> the repository)."""
    return Path(__file__).resolve().parents[4]


_VERSION = re.compile(r"\bptoas\s+v?(?P<version>\d+\.\d+)")


def vendor_ptoas(version: str = DEFAULT_VERSION) -> Path:
    folder = VENDOR_FOLDERS[version]
    return repository_root().parent / "shared" / "vendor" / folder / "ptoas"


def find_ptoas(option: str | None = None, version: str | None = None) -> Path:
    """``--ptoas PATH``, else ``$PTOAS``, else the vendor copy of ``version`` (default
    v0.57) beside the repository, else ``ptoas`` on PATH. With ``version``, the binary must
    say it is that version (``ptoas --version``). Raises PtoasMissing."""
    if option or os.environ.get(PTOAS_ENV):
        origin = "--ptoas" if option else PTOAS_ENV
        candidate = Path(option or os.environ[PTOAS_ENV])
        if not (candidate.is_file() and os.access(candidate, os.X_OK)):
            raise PtoasMissing(f"PTOAS not found at '{candidate}' ({origin}): {INSTALL_HINT}")
        return _checked(candidate.resolve(), version, origin)
    vendor = vendor_ptoas(version or DEFAULT_VERSION)
    if vendor.is_file() and os.access(vendor, os.X_OK):
        return vendor
    on_path = shutil.which("ptoas")
    if on_path is not None:
        return _checked(Path(on_path), version, "PATH")
    wanted = f" v{version}" if version else ""
    raise PtoasMissing(f"PTOAS{wanted} not found: {INSTALL_HINT}")


def _checked(ptoas: Path, version: str | None, origin: str) -> Path:
    found = ptoas_version(ptoas)
    if version is not None and found != version:
        said = f"v{found}" if found else "of no version it states"
        raise PtoasMissing(f"PTOAS at '{ptoas}' ({origin}) is {said}, not v{version}")
    return ptoas


def ptoas_version(ptoas: Path) -> str | None:
    """The version ``ptoas --version`` states (``ptoas 0.57`` -> "0.57"), or None."""
    stat = ptoas.stat()
    return _version_of(str(ptoas), stat.st_size, stat.st_mtime_ns)


@cache
def _version_of(path: str, size: int, mtime: int) -> str | None:
    del size, mtime  # part of the cache key: a replaced binary is asked again
    try:
        done = subprocess.run(
            [path, "--version"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = _VERSION.search(done.stdout + done.stderr)
    return found["version"] if found else None


def run_ptoas(
    mlir: str, ptoas: Path, *, name: str = "kernel.pto", options: Sequence[str] = ()
) -> PtoasResult:
    """Assemble ``mlir`` with PTOAS in a scratch directory (with its ``options``, e.g.
    ``--enable-insert-sync``); never raises for what PTOAS reports (a crash or a timeout is an
    unlocated error diagnostic)."""
    with private_folder("ptoc-ptoas-") as scratch:
        source, target = scratch / name, scratch / "kernel.cpp"
        source.write_text(mlir, encoding="utf-8")
        try:
            done = run_tool(
                [str(ptoas), str(source), "-o", str(target), *options], TIMEOUT_SECONDS, scratch
            )
        except subprocess.TimeoutExpired:
            message = f"PTOAS did not finish within {TIMEOUT_SECONDS} s"
            return PtoasResult(False, "", [PtoasDiagnostic("error", message)])
        except OSError as exc:
            return PtoasResult(False, "", [PtoasDiagnostic("error", f"cannot run PTOAS: {exc}")])
        output = done.stderr + done.stdout
        diagnostics = parse_diagnostics(output)
        ok = done.returncode == 0 and target.is_file()
        if not ok and not any(d.severity == "error" for d in diagnostics):
            detail = output.strip().splitlines()[-1] if output.strip() else "no output"
            diagnostics.append(
                PtoasDiagnostic("error", f"PTOAS failed (exit code {done.returncode}): {detail}")
            )
        cpp = target.read_text(encoding="utf-8") if ok else ""
        return PtoasResult(ok, cpp, diagnostics, output)


def parse_diagnostics(output: str) -> list[PtoasDiagnostic]:
    """The located diagnostics in PTOAS's output, in order, plus unlocated errors other
    than its closing summary ("Failed to parse MLIR.", "Pass execution failed.")."""
    found: list[PtoasDiagnostic] = []
    for line in output.splitlines():
        located = _LOCATED.match(line.strip())
        if located is not None:
            found.append(
                PtoasDiagnostic(
                    located["severity"],
                    located["message"].strip(),
                    int(located["line"]),
                    int(located["column"]),
                )
            )
            continue
        unlocated = _UNLOCATED.match(line.strip())
        if unlocated is not None and not _is_summary(unlocated["message"]):
            found.append(PtoasDiagnostic("error", unlocated["message"].strip()))
    return found


def _is_summary(message: str) -> bool:
    return message.strip() in ("Failed to parse MLIR.", "Pass execution failed.")


# --- PTOAS's verdict as diagnostics on the kernel's source ----------------------------------

_MEMO: dict[tuple[str, str, tuple[str, ...]], PtoasResult] = {}
_MEMO_SIZE = 32


def assemble(mlir: str, ptoas: Path, options: tuple[str, ...] = ()) -> PtoasResult:
    """``run_ptoas``, remembered per (binary, text, options): an unchanged preview costs
    nothing, and the sync check of a ``pto-cpp`` preview reads the C++ the preview made."""
    key = (str(ptoas), mlir, options)
    found = _MEMO.get(key)
    if found is None:
        found = run_ptoas(mlir, ptoas, options=options)
        if len(_MEMO) >= _MEMO_SIZE:
            _MEMO.pop(next(iter(_MEMO)))
        _MEMO[key] = found
    return found


def located(
    result: PtoasResult, line_spans: Sequence[Span | None], fallback: Span
) -> list[Diagnostic]:
    """PTOAS's errors and warnings as E405 diagnostics on the source the offending MLIR line
    was generated for (``fallback``, e.g. the program, when the line has none); its notes
    become related information of the diagnostic before them."""
    out: list[Diagnostic] = []
    for found in result.diagnostics:
        span = fallback
        if 0 < found.line <= len(line_spans):
            span = line_spans[found.line - 1] or fallback
        where = f" (MLIR line {found.line})" if found.line else ""
        if found.severity == "note" and out:
            last = out[-1]
            note = Related(span, f"PTOAS note: {found.message}{where}")
            out[-1] = replace(last, related=(*last.related, note))
            continue
        if found.severity not in ("error", "warning"):
            continue
        severity = Severity.ERROR if found.severity == "error" else Severity.WARNING
        out.append(Diagnostic("E405", severity, f"PTOAS: {found.message}{where}", span))
    return out


def verify(
    generated: CodegenResult, ptoas: Path, fallback: Span, options: tuple[str, ...] = ()
) -> tuple[PtoasResult, list[Diagnostic]]:
    """Assemble generated PTO MLIR (with PTOAS's ``options``); what PTOAS rejects (or is
    known to crash on: it is then not run), as diagnostics on the kernel."""
    from .ptoas_known import known_crashes

    crashes = known_crashes(generated.text, ptoas)
    if crashes:
        found = [PtoasDiagnostic("error", message, line, col) for line, col, message in crashes]
        result = PtoasResult(False, "", found)
    else:
        result = assemble(generated.text, ptoas, options)
    return result, located(result, generated.line_spans, fallback)


def generate_checked(
    program: Program, ptoas: Path, *, function: str | None = None, cpp: bool = False
) -> tuple[str, list[Diagnostic]]:
    """PTO MLIR checked by PTOAS (``ptoc compile --target pto --verify``), or with ``cpp``
    the C++ PTOAS makes of it (``--target pto-cpp``): the text and every diagnostic, PTOAS's
    on the kernel's lines. No C++ when generation or PTOAS failed."""
    checked = generate_checked_mapped(program, ptoas, function=function, cpp=cpp)
    return checked.text, checked.diagnostics


def generate_checked_mapped(
    program: Program, ptoas: Path, *, function: str | None = None, cpp: bool = False
) -> CodegenResult:
    """``generate_checked`` and the line spans of the MLIR (PTOAS leaves it as it is); none
    for the C++, whose lines are PTOAS's. The C++ is the PTO route's: PTOAS inserts its sync
    (``--enable-insert-sync``). The MLIR is written for the version the binary states (the
    default when it states none). PTOAS checks the kernels also when only an orchestration
    function has no host lowering (its lines are comments in the module)."""
    from . import generate_pto

    version = ptoas_version(ptoas) or DEFAULT_VERSION
    generated = generate_pto(program, function=function, ptoas_version=version)
    spans = [] if cpp else list(generated.line_spans)
    diagnostics = list(generated.diagnostics)
    host = generated.host_errors
    if any(d.severity is Severity.ERROR and d not in host for d in diagnostics):
        return CodegenResult("" if cpp else generated.text, diagnostics, spans, host)
    result, found = verify(generated, ptoas, program.span, (INSERT_SYNC,) if cpp else ())
    diagnostics += found
    return CodegenResult(result.cpp if cpp else generated.text, diagnostics, spans, host)


# --- PTOAS's own synchronisation (``ptoc compile --verify-sync`` on the PTO route) ----------


@record
class SynchronisedCpp:
    """PTOAS's C++ of a program with its sync insertion on, and what maps it back: the MLIR
    it was made from, that MLIR's line spans, and each kernel's C++ name -> its function."""

    cpp: str
    mlir: str
    line_spans: list[Span | None]
    functions: dict[str, Function]


def synchronised_cpp(
    program: Program,
    ptoas: Path,
    run: Callable[[str, Path], PtoasResult] | None = None,
    function: str | None = None,
) -> SynchronisedCpp | None:
    """The C++ PTOAS makes of ``program`` (after the ``ptoas`` pipeline; of ``function`` and
    its callees when given, as ``--function`` writes the MLIR) when it inserts the sync; None
    when ptoc or PTOAS reports an error (``ptoc compile`` says which). ``run`` assembles the
    MLIR (default: PTOAS with ``--enable-insert-sync``, remembered as ``pto-cpp``'s run, so
    the C++ a preview or ``--target pto-cpp`` made is read without running PTOAS again;
    tests pass a cached one)."""
    from . import generate_pto
    from .emitter import symbol_name

    version = ptoas_version(ptoas) or DEFAULT_VERSION
    generated = generate_pto(program, function=function, ptoas_version=version)
    if any(d.severity is Severity.ERROR for d in generated.diagnostics):
        return None
    if run is None:
        result = assemble(generated.text, ptoas, (INSERT_SYNC,))
    else:
        result = run(generated.text, ptoas)
    if not result.ok:
        return None
    functions = {symbol_name(fn.name): fn for fn in program.functions}
    return SynchronisedCpp(result.cpp, generated.text, list(generated.line_spans), functions)
