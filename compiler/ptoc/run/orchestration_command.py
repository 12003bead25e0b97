"""``ptoc run --sim`` of a function that launches kernels (an Orchestration function, or a
``@pl.jit`` entry whose ``pl.at`` scopes become kernels): its host code and every kernel it
launches in one executable with the host shim (``orchestration.py``), run on the simulator
and compared, tensor by tensor, with the reference interpreter running the source program."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from ..cli import EXIT_ERRORS, EXIT_OK, fail, report
from ..ir.function import Function, Program
from .comparable import refusal

if TYPE_CHECKING:
    import numpy as np

    from .orchestration import HostSlot
    from .simulator import SimRun, Toolchain


def run_orchestration_command(
    args: argparse.Namespace, program: Program, function: Function, toolchain: Toolchain
) -> int:
    from ..interp import InterpError
    from ..scratch import private_folder
    from .command import progress, save_arrays, seeded_inputs
    from .execute import unwritten_elements
    from .orchestration import UnplacedResult, compile_orchestration, host_slots
    from .orchestration import reference_tensors as reference

    inputs, keep = seeded_inputs(args, program, function)
    try:
        expected = reference(program, function, inputs)
    except InterpError as exc:
        fail(f"the reference interpreter stopped: {exc}")
        return EXIT_ERRORS
    if keep is not None:
        save_arrays(keep / "reference.npz", _file_names(expected))
    compiled, diagnostics = compile_orchestration(program, function.name)
    report(d for d in diagnostics if d.span.file == args.file or not d.span.is_known)
    if compiled is None:
        return EXIT_ERRORS
    refused = refusal(function.name, diagnostics)
    if refused is not None:
        fail(refused)
        return EXIT_ERRORS
    try:
        slots = host_slots(compiled, inputs)
    except UnplacedResult as exc:
        fail(f"'{function.name}' cannot be run on the simulator: {exc}")
        return EXIT_ERRORS
    if keep is not None:
        (keep / "kernel.cpp").write_text(compiled.source, encoding="utf-8")
    with private_folder("ptoc-run-") as scratch:
        workdir = keep / "sim" if keep is not None else scratch
        run = _simulate(compiled.source, slots, toolchain, function.name, workdir, progress)
    if run is None:
        return EXIT_ERRORS
    unwritten = unwritten_elements(expected, lambda: reference(program, function, inputs))
    return _report(function.name, len(compiled.kernels), slots, run, expected, unwritten, keep)


def _simulate(
    source: str,
    slots: list[HostSlot],
    toolchain: Toolchain,
    label: str,
    workdir: Path,
    progress: Callable[[str], None],
) -> SimRun | None:
    from . import simulator
    from .execute import describe_failure
    from .orchestration import slot_arguments

    no_bf16 = simulator.bf16_refusal(toolchain, source, label)
    if no_bf16 is not None:
        fail(no_bf16)
        return None
    try:
        executable = simulator.build(toolchain, source, label=label, progress=progress)
    except simulator.BuildFailed as exc:
        fail(f"{exc}:\n" + "\n".join(exc.log.rstrip().splitlines()[:40]))
        return None
    if toolchain.debug:  # (no #line directives here: gdb names the lines of kernel.cpp)
        from .command import debug_hint

        debug_hint(executable, workdir, None)
    run = simulator.run(executable, 0, slot_arguments(slots), 0, workdir)
    if run.returncode not in (0, 3):
        fail(describe_failure(run))
        return None
    return run


def _report(
    name: str,
    kernels: int,
    slots: list[HostSlot],
    run: SimRun,
    expected: dict[str, np.ndarray],
    unwritten: dict[str, np.ndarray],
    keep: Path | None,
) -> int:
    from .command import save_arrays
    from .execute import set_aside_unwritten
    from .orchestration import compare_slots, slot_results

    actual = slot_results(slots, run)
    if keep is not None:
        save_arrays(keep / "simulator.npz", _file_names(actual))
    set_aside_unwritten(actual, expected, unwritten)
    comparisons = compare_slots(slots, actual, expected)
    for comparison in comparisons:
        print(comparison.line())
    if run.returncode == 3:
        fail("a kernel wrote outside a tensor argument (guard bytes changed)")
    if run.returncode == 3 or any(not c.ok for c in comparisons):
        print(f"{name}: simulator and reference interpreter DISAGREE")
        return EXIT_ERRORS
    print(
        f"{name}: simulator (host code and {kernels} kernel(s) run as tasks in program order) "
        f"and reference interpreter agree on {len(comparisons)} results"
    )
    return EXIT_OK


def _file_names(arrays: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """``return 0`` as ``return_0``: the names ``--inputs`` files and ``--keep`` use."""
    return {name.replace(" ", "_"): array for name, array in arrays.items()}
