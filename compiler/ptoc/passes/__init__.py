"""The pass pipeline: IR -> IR transformations between the front end and code generation.

``run_pipeline(program, passes)`` returns the final program, the diagnostics and the IR after
every pass. The named pipelines (``default``, ``ptoas``) belong to ``ptoc.driver``.
"""

from .allocate_memory_addr import AllocateMemoryAddr
from .base import FunctionPass, Pass, PassContext
from .convert_to_ssa import ConvertToSSA
from .flatten_calls import FlattenCalls
from .init_memref import InitMemRef
from .inline_calls import InlineCalls
from .insert_sync import InsertSync
from .manager import PASSES, AfterPass, PassManager, PipelineResult, run_pipeline
from .memory_reuse import MemoryReuse
from .outline_incore import OutlineIncoreScopes
from .reduction_scratch import AddReductionScratch
from .target import DEFAULT_TARGET, Target
from .tensor_to_block import ConvertTensorToBlockOps
from .verifier import Verifier, verify_function, verify_ssa

__all__ = [
    "DEFAULT_TARGET",
    "PASSES",
    "AddReductionScratch",
    "AfterPass",
    "AllocateMemoryAddr",
    "ConvertTensorToBlockOps",
    "ConvertToSSA",
    "FlattenCalls",
    "FunctionPass",
    "InitMemRef",
    "InlineCalls",
    "InsertSync",
    "MemoryReuse",
    "OutlineIncoreScopes",
    "Pass",
    "PassContext",
    "PassManager",
    "PipelineResult",
    "Target",
    "Verifier",
    "run_pipeline",
    "verify_function",
    "verify_ssa",
]
