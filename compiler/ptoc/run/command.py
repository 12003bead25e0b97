"""``ptoc run KERNEL.py --function F [--seed S] [--inputs FILE.npz] [--sim] [--pto-isa DIR]
[--keep DIR] [--debug]``.

Exit codes: 0 ran (and with ``--sim``, every output matched); 1 the kernel has errors, the
interpreter or the simulator failed, or an output did not match; 2 a usage problem: unreadable
files, bad inputs, or a missing tool (the message names the fix).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from ..cli import (
    EXIT_ERRORS,
    EXIT_OK,
    EXIT_USAGE,
    InputError,
    add_specialise,
    fail,
    has_errors,
    load_programs,
    report,
)
from ..diagnostics import Diagnostic
from ..ir.function import Function, Program
from .comparable import refusal, within

if TYPE_CHECKING:
    import numpy as np

    from .execute import Results
    from .simulator import SimRun, Toolchain

DESCRIPTION = (
    "Run FUNCTION of FILE on seeded inputs with the reference interpreter; with --sim also "
    "compile its generated CCE C++ against pto-isa's CPU simulator, run it, and compare every "
    "tensor argument and scalar result with the interpreter's (exit 1 on a mismatch)."
)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = subparsers.add_parser(
        "run",
        help="run a kernel with the reference interpreter (and the simulator)",
        description=DESCRIPTION,
    )
    parser.add_argument("file", metavar="FILE")
    parser.add_argument("--function", required=True, metavar="NAME", help="the function to run")
    parser.add_argument(
        "--seed", type=int, default=0, help="seed of the generated inputs (default 0)"
    )
    parser.add_argument(
        "--inputs", metavar="FILE.npz", help="arrays by parameter name (the rest are generated)"
    )
    parser.add_argument(
        "--sim", action="store_true", help="also run the generated C++ on pto-isa's CPU simulator"
    )
    parser.add_argument(
        "--pto-isa",
        metavar="DIR",
        help="pto-isa checkout (default: $PTO_ISA_ROOT, then ../shared/vendor/pto-isa)",
    )
    parser.add_argument(
        "--keep", metavar="DIR", help="keep the C++, the inputs and both results in DIR"
    )
    parser.add_argument(
        "--debug",
        action="store_true",
        help="implies --sim: build the simulator executable with -g -O0 and the kernel's C++ "
        "with #line directives naming FILE's lines, keep the build folder (--keep DIR, else a "
        "new one, printed) and print the gdb command that reruns the kernel there",
    )
    add_specialise(parser)
    parser.add_argument(
        "--pipes",
        nargs="?",
        const="default",
        choices=("default", "ptoas"),
        metavar="PIPELINE",
        help="run the lowered function (pipeline default, or ptoas: the sync the file holds) "
        "with each pipe its own stream, in many seeded orders the sync allows; report races, "
        "deadlocks and results that differ (exit 1)",
    )
    parser.set_defaults(handler=run_command)


def cache_dir() -> Path:
    """``$PTOC_CACHE_DIR``, else ``$XDG_CACHE_HOME/ptoc/sim``, else ``~/.cache/ptoc/sim``."""
    if os.environ.get("PTOC_CACHE_DIR"):
        return Path(os.environ["PTOC_CACHE_DIR"]).absolute()  # tools run in other folders
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(Path.home(), ".cache")
    return (Path(base) / "ptoc" / "sim").absolute()


def find_function(
    path: str, function: str, specialise: int | None = None
) -> tuple[Program, Function, list[Diagnostic]]:
    """The program defining ``function`` (a @pl.jit kernel's as its ``specialise``-th call,
    default its first, gives it shapes), the function and the file's diagnostics."""
    loaded = load_programs(path, specialise)
    report(loaded.diagnostics)
    if has_errors(loaded.diagnostics):
        raise _HasErrors
    for program in loaded.programs:
        found = program.function(function)
        if found is not None:
            label = loaded.jit_labels.get(program.name, [])
            n = specialise or 1
            if len(label) > 1 or (label and specialise is not None):
                note = f"'{program.name}' specialisation {n} of {len(label)}: {label[n - 1]}"
                print(f"ptoc: note: {note}", file=sys.stderr, flush=True)
            return program, found, list(loaded.diagnostics)
    if function in loaded.no_specialisation:
        raise InputError(f"'{path}': {loaded.no_specialisation[function]}")
    raise InputError(f"no function named '{function}' in '{path}'")


class _HasErrors(Exception):
    pass


def run_command(args: argparse.Namespace) -> int:
    from .inputs import InputProblem
    from .toolchain import ToolMissing  # subprocess and tempfile: `ptoc check` must not pay

    try:
        return _run(args)
    except _HasErrors:
        return EXIT_ERRORS
    except (InputProblem, ToolMissing) as exc:
        fail(str(exc))
        return EXIT_USAGE


def _run(args: argparse.Namespace) -> int:
    from .toolchain import ToolMissing

    try:
        import numpy  # noqa: F401  (only to name the fix)
    except ImportError:
        raise ToolMissing("ptoc run needs numpy: pip install numpy") from None
    from .execute import tensor_level

    program, function, diagnostics = find_function(args.file, args.function, args.specialise)
    if args.debug and args.pipes:
        raise InputError("--debug builds the simulator run; it does not go with --pipes")
    if args.debug:
        args.sim = True
        if not args.keep:
            args.keep = tempfile.mkdtemp(prefix="ptoc-debug-")
            print(f"ptoc: note: keeping the debug build in {args.keep}", file=sys.stderr)
    if args.pipes:
        from .pipes_command import run_pipes_command

        return run_pipes_command(args, program, function)
    toolchain = (
        _toolchain(args.pto_isa, args.debug) if args.sim else None
    )  # missing tools: fail first
    if toolchain is not None:
        refused = refusal(function.name, within(diagnostics, program, function.name))
        if refused is not None:
            fail(refused)
            return EXIT_ERRORS
        from .orchestration import launches_kernels

        if launches_kernels(program, function.name):
            from .orchestration_command import run_orchestration_command

            return run_orchestration_command(args, program, function, toolchain)
    if toolchain is not None:
        program, function = tensor_level(program, function.name)
    inputs, keep = seeded_inputs(args, program, function)
    expected = _reference(program, function, inputs)
    if expected is None:
        return EXIT_ERRORS
    if keep is not None:
        save_arrays(keep / "reference.npz", _flatten(expected))
    if toolchain is None:
        _print_results(function, expected)
        return EXIT_OK

    return _simulate_and_report(args, (program, function), inputs, expected, toolchain)


def _simulate_and_report(
    args: argparse.Namespace,
    found: tuple[Program, Function],
    inputs: dict[str, np.ndarray],
    expected: Results,
    toolchain: Toolchain,
) -> int:
    """The kernel built and run on the simulator, its results compared with ``expected``."""
    from ..scratch import private_folder
    from .execute import (
        describe_failure,
        reference_results,
        set_aside_unwritten,
        unwritten_elements,
    )

    program, function = found
    keep = Path(args.keep) if args.keep else None
    with private_folder("ptoc-run-") as scratch:
        workdir = keep / "sim" if keep is not None else scratch
        outcome = _simulate(args.file, program, function, inputs, toolchain, keep, workdir)
        if outcome is None:
            return EXIT_ERRORS
        run, actual = outcome
        if actual is None:
            fail(describe_failure(run))
            return EXIT_ERRORS
    if keep is not None:
        save_arrays(keep / "simulator.npz", _flatten(actual))
    masks = unwritten_elements(
        expected.outputs, lambda: reference_results(program, function, inputs).outputs
    )
    set_aside_unwritten(actual.outputs, expected.outputs, masks)
    return _report(function, actual, expected, run.returncode)


def _toolchain(option: str | None, debug: bool) -> Toolchain:
    from .simulator import Toolchain
    from .toolchain import find_compiler, find_pto_isa

    return Toolchain(find_compiler(), find_pto_isa(option), cache_dir(), debug)


def _reference(
    program: Program, function: Function, inputs: dict[str, np.ndarray]
) -> Results | None:
    from .execute import reference_results
    from .toolchain import ToolMissing

    try:
        from ..interp import InterpError
    except ImportError:
        raise ToolMissing("the reference interpreter (ptoc.interp) is not installed") from None
    try:
        return reference_results(program, function, inputs)
    except InterpError as exc:
        fail(f"the reference interpreter stopped: {exc}")
        return None


def _simulate(
    path: str,
    program: Program,
    function: Function,
    inputs: dict[str, np.ndarray],
    toolchain: Toolchain,
    keep: Path | None,
    workdir: Path,
) -> tuple[SimRun, Results | None] | None:
    from . import simulator
    from .execute import cce_kernel_lines, debug_translation_unit, sim_arguments, sim_results
    from .harness import HarnessError, translation_unit

    text, spans, diagnostics = cce_kernel_lines(program, function.name)
    report(d for d in diagnostics if d.span.file == path or not d.span.is_known)
    if text is None:
        return None
    refused = refusal(function.name, diagnostics)
    if refused is not None:
        fail(refused)
        return None
    try:
        if toolchain.debug and keep is not None:
            source = debug_translation_unit(text, spans, keep.absolute() / "kernel.cpp")
        else:
            source = translation_unit([text])
    except HarnessError:  # (launches_kernels said it is a kernel)
        fail(f"'{function.name}' has no kernel entry the simulator can run")
        return None
    if keep is not None:
        (keep / "kernel.cpp").write_text(source, encoding="utf-8")
    no_bf16 = simulator.bf16_refusal(toolchain, source, function.name)
    if no_bf16 is not None:
        fail(no_bf16)
        return None
    try:
        executable = simulator.build(toolchain, source, label=function.name, progress=progress)
    except simulator.BuildFailed as exc:
        fail(f"{exc}:\n" + "\n".join(exc.log.rstrip().splitlines()[:40]))
        return None
    if toolchain.debug:
        known = [span.line for span in spans if span is not None and span.is_known]
        debug_hint(executable, workdir, f"{Path(path).name}:{known[0]}" if known else None)
    run = simulator.run(
        executable, 0, sim_arguments(function, inputs), len(function.return_types), workdir
    )
    if run.returncode not in (0, 3):
        return run, None
    return run, sim_results(function, inputs, run)


def debug_hint(executable: Path, workdir: Path, line: str | None) -> None:
    """How to rerun the simulated kernel under gdb (``--debug``): the run's arguments stay in
    ``workdir``."""
    from .toolchain import UB_BYTES

    folder = workdir.absolute()
    lines = [
        f"debug build: {executable}",
        f"to debug: cd {folder} && PTO_CPU_SIM_UB_BYTES={UB_BYTES} PTO_CPU_SIM_NUM_CORES=1 "
        f"gdb --args {executable} 0 "
        f"{folder}",
    ]
    if line is not None:
        lines.append(f"then, in gdb: break {line} (any kernel line), run")
    for text in lines:
        print(f"ptoc: note: {text}", file=sys.stderr, flush=True)


def progress(message: str) -> None:
    print(f"ptoc: {message} ...", file=sys.stderr, flush=True)


def _report(function: Function, actual: Results, expected: Results, returncode: int) -> int:
    from .execute import compare_results

    comparisons = compare_results(function, actual, expected)
    for comparison in comparisons:
        print(comparison.line())
    if returncode == 3:
        fail("the kernel wrote outside a tensor argument (guard bytes changed)")
    mismatched = [c for c in comparisons if not c.ok]
    if mismatched or returncode == 3:
        print(f"{function.name}: simulator and reference interpreter DISAGREE")
        return EXIT_ERRORS
    print(
        f"{function.name}: simulator and reference interpreter agree on {len(comparisons)} results"
    )
    return EXIT_OK


def _print_results(function: Function, results: Results) -> None:
    for name, array in results.outputs.items():
        print(f"{name}: {_summary(array)}")
    for position, value in results.returns.items():
        print(f"return {position}: {value!r}")
    print(f"{function.name}: ran on the reference interpreter (add --sim to compare with pto-isa)")


def _summary(array: np.ndarray) -> str:
    import numpy as np

    if array.size == 0:
        return f"{list(array.shape)} (empty)"
    values = np.asarray(array, dtype=np.float64)
    return (
        f"{list(array.shape)} min {values.min():.6g} max {values.max():.6g} "
        f"mean {values.mean():.6g}"
    )


def _flatten(results: Results) -> dict[str, np.ndarray]:
    import numpy as np

    flat = dict(results.outputs)
    flat.update({f"return_{k}": np.asarray(v) for k, v in results.returns.items()})
    return flat


def seeded_inputs(
    args: argparse.Namespace, program: Program, function: Function
) -> tuple[dict[str, np.ndarray], Path | None]:
    """The run's inputs (``--inputs``, else seeded) and the ``--keep`` folder, which gets
    them as ``inputs.npz``."""
    from .inputs import generate_inputs, load_npz

    given = load_npz(args.inputs) if args.inputs else None
    inputs = generate_inputs(program, function, args.seed, given)
    keep = Path(args.keep) if args.keep else None
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        save_arrays(keep / "inputs.npz", inputs)
    return inputs, keep


def save_arrays(path: Path, arrays: dict[str, np.ndarray]) -> None:
    import numpy as np

    try:
        np.savez(path, **arrays)  # type: ignore[arg-type]
    except OSError as exc:
        raise InputError(f"cannot write '{path}': {exc.strerror or exc}") from None
