"""Builds execution kernels in batches and runs them on pto-isa's CPU simulator.

Kernels expected to work are built several to a translation unit (one compiler process per
batch, batches in parallel, one per core); a batch the compiler rejects is rebuilt kernel by
kernel so one bad kernel fails only its own test. Kernels marked with a known defect are built
alone. Executables are cached by content hash (``ptoc.run.simulator``), so a re-run with
unchanged kernels builds nothing. Before a kernel runs, its text is checked for what the
simulator computes right and the chip does not (accumulators.py).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ptoc.cli import analyze
from ptoc.diagnostics import Severity
from ptoc.ir.function import Function, Program
from ptoc.run import simulator
from ptoc.run.compare import Comparison
from ptoc.run.execute import (
    Results,
    cce_kernel,
    compare_results,
    describe_failure,
    reference_results,
    sim_arguments,
    sim_results,
    tensor_level,
)
from ptoc.run.harness import translation_unit
from ptoc.run.inputs import generate_inputs

from .accumulators import accumulator_problems

BATCH_SIZE = 12


@dataclass
class Kernel:
    """One function to execute: its program, its C++ (or why there is none), its inputs."""

    key: str
    program: Program
    function: Function
    inputs: dict[str, np.ndarray]
    text: str | None = None
    problem: str | None = None
    alone: bool = False  # build in its own translation unit
    executable: Path | None = None
    index: int = 0  # position in its translation unit


@dataclass
class Outcome:
    problem: str | None = None
    comparisons: list[Comparison] = field(default_factory=list)

    def mismatches(self) -> list[str]:
        return [c.line() for c in self.comparisons if not c.ok]


def load_kernel(
    key: str,
    source: str,
    function: str,
    seed: int = 0,
    fixed: dict[str, np.ndarray] | None = None,
    alone: bool = False,
    codegen: bool = True,
) -> Kernel:
    analysis = analyze(source, f"{key}.py")
    errors = [d.format() for d in analysis.diagnostics if d.severity is Severity.ERROR]
    assert not errors, f"{key}: the front end rejects the kernel: {errors}"
    program = next(p for p in analysis.all_programs() if p.function(function) is not None)
    program, found = tensor_level(program, function)
    kernel = Kernel(key, program, found, generate_inputs(program, found, seed, fixed), alone=alone)
    if not codegen:
        return kernel
    text, diagnostics = cce_kernel(program, function)
    if text is None:
        kernel.problem = "code generation failed: " + "; ".join(d.format() for d in diagnostics)
    kernel.text = text
    return kernel


class Bench:
    def __init__(self, toolchain: simulator.Toolchain) -> None:
        self.toolchain = toolchain
        self.scratch = Path(tempfile.mkdtemp(prefix="ptoc-exec-"))
        # removed when the bench goes (or the session ends): runs are compared, not kept
        weakref.finalize(self, shutil.rmtree, self.scratch, ignore_errors=True)
        self._lock = threading.Lock()
        self._runs = 0

    def build_all(self, kernels: Sequence[Kernel]) -> None:
        buildable = [k for k in kernels if k.text is not None and k.executable is None]
        grouped = [k for k in buildable if not k.alone]
        batches = [grouped[i : i + BATCH_SIZE] for i in range(0, len(grouped), BATCH_SIZE)]
        batches += [[k] for k in buildable if k.alone]
        simulator.precompiled_header(self.toolchain)  # once, before the parallel builds
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            list(pool.map(self._build_batch, batches))

    def _build_batch(self, batch: list[Kernel]) -> None:
        try:
            source = translation_unit([k.text or "" for k in batch])
            executable = simulator.build(self.toolchain, source)
        except simulator.BuildFailed as exc:
            if len(batch) > 1:
                for kernel in batch:
                    self._build_batch([kernel])
                return
            batch[0].problem = f"{exc}:\n" + "\n".join(exc.log.splitlines()[:30])
            return
        for index, kernel in enumerate(batch):
            kernel.executable, kernel.index = executable, index

    def execute(self, kernel: Kernel, expected: Results) -> Outcome:
        if kernel.problem is None and kernel.text is not None:
            # What the simulator computes right and the chip does not (accumulators.py).
            wrong = accumulator_problems(kernel.text)
            kernel.problem = "; ".join(wrong) if wrong else None
        if kernel.executable is None and kernel.problem is None:
            self.build_all([kernel])
        if kernel.problem is not None:
            return Outcome(kernel.problem)
        assert kernel.executable is not None
        with self._lock:
            self._runs += 1
            workdir = self.scratch / f"run{self._runs}"
        run = simulator.run(
            kernel.executable,
            kernel.index,
            sim_arguments(kernel.function, kernel.inputs),
            len(kernel.function.return_types),
            workdir,
        )
        if run.returncode not in (0, 3):
            return Outcome(describe_failure(run))
        actual = sim_results(kernel.function, kernel.inputs, run)
        outcome = Outcome(comparisons=compare_results(kernel.function, actual, expected))
        if run.returncode == 3:
            outcome.problem = "the kernel wrote outside a tensor argument"
        return outcome


def expected_results(kernel: Kernel) -> Results:
    """What the reference interpreter computes for the kernel's inputs."""
    return reference_results(kernel.program, kernel.function, kernel.inputs)
