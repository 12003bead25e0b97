"""Host-side C++ for an Orchestration function, on the PTO2 runtime (docs/codegen-orchestration.md).

The orchestration function runs on the AICPU: it wraps the device buffers it is given as
tensors, creates the intermediate tensors, and submits every call of an InCore function as a
task whose parameters say which tensors it reads, writes or updates (the runtime derives the
dependencies between tasks from them). Beside the C++, ``kernel_config`` describes the build:
the runtime, the orchestration source and entry point, and every kernel with its id and core.

The files mirror the kernel generator's: ``function.py`` (the file: head, buffers, body,
tail; and ``kernel_config``), ``statements.py``, ``ops.py`` (tasks and tensor ops),
``expressions.py`` (host C++ values), ``context.py`` (state while emitting) and
``analysis.py`` (which tensor each variable names, which kernels are launched).
"""

from .analysis import Kernel, core_of, returned_param
from .function import ENTRY, OrchestrationResult, generate_orchestration, kernel_config

__all__ = [
    "ENTRY",
    "Kernel",
    "OrchestrationResult",
    "core_of",
    "generate_orchestration",
    "kernel_config",
    "returned_param",
]
