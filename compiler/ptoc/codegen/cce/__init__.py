"""The CCE back end: pto-isa C++ kernels (seeds 000 and 001).

``generate_cce(program_or_function, function=None) -> CodegenResult``.
"""

from .context import CodeContext, sanitize_identifier
from .cpp_types import TypeConverter
from .emitter import CodeEmitter
from .function import CCECodegen, kernel_name
from .module import generate_cce, generate_function
from .ops import ISAMapper, ISAMapping
from .tile_collector import TileCollector

__all__ = [
    "CCECodegen",
    "CodeContext",
    "CodeEmitter",
    "ISAMapper",
    "ISAMapping",
    "TileCollector",
    "TypeConverter",
    "generate_cce",
    "generate_function",
    "kernel_name",
    "sanitize_identifier",
]
