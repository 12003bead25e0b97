"""The CCE back end: pto-isa C++ kernels (seeds 000 and 001).

``generate_cce(program_or_function, function=None) -> CodegenResult``.
"""

from .codegen import CCECodegen, kernel_name
from .context import CodeContext, sanitize_identifier
from .emitter import CodeEmitter
from .generate import generate_cce, generate_function
from .isa_mapper import ISAMapper, ISAMapping
from .tile_collector import TileCollector
from .type_converter import TypeConverter

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
