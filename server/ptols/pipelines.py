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
    from ptoc.frontend import ModuleAnalysis
    from ptoc.ir.function import Function, Program
    from ptoc.passes.manager import PipelineResult

log = logging.getLogger("ptols")
T = TypeVar("T")
Key = tuple[Any, ...]


class SharedPipelines:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        # key -> (the functions the key names by identity, the result or its computation)
        self.results: dict[Key, tuple[tuple[Function, ...], Future[PipelineResult]]] = {}

    def run(self, job: Callable[..., T], *args: Any) -> T:
        """``job(*args)``, sharing the pipelines it runs with the other jobs of the document
        (on the calling thread: made for ``run_in_executor``)."""
        from ptoc.driver import SHARED_PIPELINES

        token = SHARED_PIPELINES.set(self.lowered)
        try:
            return job(*args)
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
        try:
            future.set_result(compute())
        except BaseException as error:
            with self.lock:  # not kept: the next job tries again
                self.results.pop(key, None)
            future.set_exception(error)
            raise
        return future.result()

    def keep_only(self, analysis: ModuleAnalysis) -> None:
        """Forget the results of functions that are not in ``analysis`` (the latest one)."""
        alive = {id(fn) for program in analysis.all_programs() for fn in program.functions}
        with self.lock:
            for key, (functions, _) in list(self.results.items()):
                if not all(id(fn) in alive for fn in functions):
                    del self.results[key]
