"""One pipeline result per function of a document, shared by the server's background jobs.

A preview of a function, the hardware view's facts (ptoc.kernel_facts), the buffer hovers and
E401 / E402 each narrow the program to one function and its callees and run a pipeline over
it, on their own threads. The result depends only on that narrowed program and the pipeline,
so the jobs of one document share it: ``run`` calls a job with ``ptoc.driver``'s
SHARED_PIPELINES set to this cache, and the first job to need a result computes it while the
others wait for it.

The key holds the function objects themselves (by identity, kept alive by the entry): the front
end's analysis cache gives an unchanged function the same object in the next version, and an
edited one (or one that moved) a new object, so a result is never used for other text.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from ptoc.driver import PipelineResult
    from ptoc.frontend import ModuleAnalysis
    from ptoc.ir.function import Function, Program

log = logging.getLogger("ptols")
T = TypeVar("T")
Key = tuple[Any, ...]


#: The longest a pipeline waits for the foreground (see SharedPipelines.quiet).
MAX_PAUSE = 1.0


class SharedPipelines:
    def __init__(self, quiet: threading.Event | None = None) -> None:
        # Set while no edit waits for its analysis (the server's): a pipeline about to run
        # waits for it (at most MAX_PAUSE), so background compiles never compete with the
        # analysis an editor waits for (for the processor and for Python's interpreter lock).
        self.quiet = quiet
        self.lock = threading.Lock()
        # key -> (the functions the key names by identity, the result or its computation)
        self.results: dict[Key, tuple[tuple[Function, ...], Future[PipelineResult]]] = {}
        self.hashes: dict[int, tuple[Function, int]] = {}  # id -> (function, structural hash)
        self.calls: dict[int, tuple[Function, list[str]]] = {}  # id -> (function, its calls)

    def run(self, job: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        """``job(*args, **kwargs)``, sharing the pipelines it runs with the other jobs of the
        document (on the calling thread: made for ``run_in_executor``)."""
        from ptoc.driver import SHARED_PIPELINES

        token = SHARED_PIPELINES.set(self.lowered)
        try:
            return job(*args, **kwargs)
        finally:
            SHARED_PIPELINES.reset(token)

    def lowered(
        self,
        program: Program,
        pipeline: str | Sequence[str],
        compute: Callable[[], PipelineResult],
    ) -> PipelineResult:
        """The result of ``pipeline`` over ``program``: computed here, or by the job that
        started it first (waited for)."""
        functions = tuple(program.functions)
        named = pipeline if isinstance(pipeline, str) else tuple(pipeline)
        key = (program.name, program.span, tuple(map(id, functions)), named)
        with self.lock:
            entry = self.results.get(key)
            if entry is None:
                future: Future[PipelineResult] = Future()
                self.results[key] = (functions, future)
        if entry is not None:
            return entry[1].result()
        log.debug("pipeline %s of %s: computed", named, ", ".join(f.name for f in functions))
        if self.quiet is not None:
            self.quiet.wait(MAX_PAUSE)
        try:
            future.set_result(compute())
        except BaseException as error:
            with self.lock:  # not kept: the next job tries again
                self.results.pop(key, None)
            future.set_exception(error)
            raise
        return future.result()

    def structural_hash(self, fn: Function) -> int:
        """``ptoc.ir.equality.structural_hash(fn)``, kept per function object: finding the
        facts of a document hashes every function, and most are the same objects after an
        edit."""
        known = self.hashes.get(id(fn))
        if known is None or known[0] is not fn:
            from ptoc.ir.equality import structural_hash

            known = self.hashes[id(fn)] = (fn, structural_hash(fn))
        return known[1]

    def direct_calls(self, fn: Function) -> list[str]:
        """``ptoc.driver.direct_calls(fn)``, kept per function object."""
        known = self.calls.get(id(fn))
        if known is None or known[0] is not fn:
            from ptoc.driver import direct_calls

            known = self.calls[id(fn)] = (fn, direct_calls(fn))
        return known[1]

    def keep_only(self, analysis: ModuleAnalysis) -> None:
        """Forget what is kept of functions that are not in ``analysis`` (the latest one)."""
        alive = {id(fn) for program in analysis.all_programs() for fn in program.functions}
        with self.lock:
            for key, (functions, _) in list(self.results.items()):
                if not all(id(fn) in alive for fn in functions):
                    del self.results[key]
            for table in (self.hashes, self.calls):
                for identity in [i for i in table if i not in alive]:
                    del table[identity]
