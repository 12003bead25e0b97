"""The pass registry and the manager that runs a list of passes.

``run_pipeline(program, passes)`` runs the passes (all of them by default) and returns the final
program, the diagnostics, and a snapshot of the IR after every pass (for ``ptoc compile
--dump-passes`` and the server's ``pass:<name>`` preview). A pass that reports an error stops the
pipeline after its snapshot; a pass that fails internally is reported as one E404 diagnostic at the
closest span it was working on, and the pipeline stops with the last program it had.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..diagnostics import Diagnostic, DiagnosticBag, Severity
from ..ir.function import Program
from ..ops.registry import OpError
from ..perf import gc_paused
from ..records import field, record
from .allocate_memory_addr import AllocateMemoryAddr
from .base import FunctionPass, Pass, PassContext
from .convert_to_ssa import ConvertToSSA
from .flatten_calls import FlattenCalls
from .init_memref import InitMemRef
from .inline_calls import InlineCalls
from .insert_sync import InsertSync
from .memory_reuse import MemoryReuse
from .outline_incore import OutlineIncoreScopes
from .reduction_scratch import AddReductionScratch
from .target import DEFAULT_TARGET, Target
from .tensor_to_block import ConvertTensorToBlockOps
from .verifier import Verifier

PASSES: dict[str, type[Pass]] = {
    cls.name: cls
    for cls in (
        ConvertToSSA,
        FlattenCalls,
        OutlineIncoreScopes,
        InlineCalls,
        ConvertTensorToBlockOps,
        Verifier,
        AddReductionScratch,
        InitMemRef,
        MemoryReuse,
        InsertSync,
        AllocateMemoryAddr,
    )
}

AfterPass = Callable[[str, Program], None]


@record
class PipelineResult:
    program: Program
    diagnostics: list[Diagnostic] = field(default_factory=list)
    snapshots: list[tuple[str, Program]] = field(default_factory=list)

    @property
    def has_errors(self) -> bool:
        return any(d.severity is Severity.ERROR for d in self.diagnostics)

    def after(self, pass_name: str) -> Program | None:
        """The IR right after ``pass_name`` ran (None if it did not run)."""
        for name, program in self.snapshots:
            if name == pass_name:
                return program
        return None


def _error_count(bag: DiagnosticBag) -> int:
    return sum(1 for d in bag.items if d.severity is Severity.ERROR)


@record
class _Progress:
    """A pipeline part-way: the program so far, where passes report, whether it stopped."""

    program: Program
    ctx: PassContext
    snapshots: list[tuple[str, Program]] = field(default_factory=list)
    stopped: bool = False

    def fork(self) -> _Progress:
        """An independent copy to continue with other passes (programs are immutable)."""
        ctx = PassContext(
            DiagnosticBag(), self.ctx.target, done=self.ctx.done, shared=self.ctx.shared
        )
        for diagnostic in self.ctx.diagnostics.items:
            ctx.diagnostics.add(diagnostic)
        return _Progress(self.program, ctx, list(self.snapshots), self.stopped)

    def result(self) -> PipelineResult:
        return PipelineResult(self.program, self.ctx.diagnostics.sorted(), self.snapshots)


class PassManager:
    """Runs a list of registered passes in order."""

    def __init__(self, passes: Sequence[str], target: Target | None = None) -> None:
        self.passes = list(passes)
        self.target = target or DEFAULT_TARGET

    def run(self, program: Program, after_pass: AfterPass | None = None) -> PipelineResult:
        progress = _Progress(program, PassContext(DiagnosticBag(), self.target))
        self.advance(progress, self.passes, after_pass)
        return progress.result()

    @staticmethod
    def advance(
        progress: _Progress, passes: Sequence[str], after_pass: AfterPass | None = None
    ) -> None:
        """Run ``passes`` on from ``progress`` unless it has stopped; stop at an error."""
        ctx, program = progress.ctx, progress.program
        for name in passes:
            if progress.stopped:
                break
            progress.stopped = True
            pass_class = PASSES.get(name)
            if pass_class is None:
                ctx.error(
                    "E404", f"unknown pass '{name}' (known: {', '.join(PASSES)})", program.span
                )
                break
            errors = _error_count(ctx.diagnostics)
            ctx.focus = None
            try:
                program = pass_class().run(program, ctx)
            except OpError as exc:  # an op the statement lowers to is invalid: the program's error
                where = ctx.focus or program.span
                ctx.error("E400", f"{exc} (as {name} lowers this statement)", where)
                break
            except Exception as exc:  # a pass must never take the compiler down
                where = ctx.focus or program.span
                ctx.error("E404", f"pass {name} failed: {type(exc).__name__}: {exc}", where)
                break
            progress.snapshots.append((name, program))
            if after_pass is not None:
                after_pass(name, program)
            progress.stopped = _error_count(ctx.diagnostics) > errors
        progress.program = program


def run_pipeline(
    program: Program,
    passes: Sequence[str] | None = None,
    target: Target | None = None,
    after_pass: AfterPass | None = None,
) -> PipelineResult:
    """Run the listed passes (default: every registered pass, in order) over ``program``.
    Named pipelines are the driver's (``ptoc.driver.PIPELINES``)."""
    if isinstance(passes, str):  # a pipeline name: those are resolved by the driver
        raise TypeError(f"run_pipeline takes a list of pass names, not {passes!r}")
    names = list(PASSES) if passes is None else list(passes)
    with gc_paused():
        return PassManager(names, target).run(program, after_pass)


def run_pipelines(
    program: Program, pipelines: Sequence[Sequence[str]], target: Target | None = None
) -> list[PipelineResult]:
    """Several pass lists over one program, each result as ``run_pipeline`` would give it; the
    passes all the lists start with run once (e.g. those before InlineCalls when one program is
    compiled for both CCE and ptoas), and after that a function pass handles a function that
    several lists reach unchanged once (the functions InlineCalls left as they were)."""
    lists = [list(names) for names in pipelines]
    shared = 0
    while lists and all(
        len(names) > shared and names[shared] == lists[0][shared] for names in lists
    ):
        shared += 1
    with gc_paused():
        ctx = PassContext(DiagnosticBag(), target or DEFAULT_TARGET, done={}, shared={})
        common = _Progress(program, ctx)
        PassManager.advance(common, lists[0][:shared] if lists else [])
        results = []
        for names in lists:
            progress = common.fork()
            PassManager.advance(progress, names[shared:])
            results.append(progress.result())
        return results


__all__ = [
    "AfterPass",
    "FunctionPass",
    "PASSES",
    "Pass",
    "PassContext",
    "PassManager",
    "PipelineResult",
    "run_pipeline",
    "run_pipelines",
]
