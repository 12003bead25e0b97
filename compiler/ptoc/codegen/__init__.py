"""Code generators: IR after the pass pipeline -> target text (CCE C++, PTO MLIR).

``generate_cce`` and ``generate_pto`` are loaded on first use, so importing the shared
``CodegenResult`` / ``CodegenError`` does not pull in either back end.
"""

from __future__ import annotations

from typing import Any

from .common import CodegenError, CodegenResult

__all__ = ["CodegenError", "CodegenResult", "generate_cce", "generate_pto"]


def __getattr__(name: str) -> Any:
    if name == "generate_cce":
        from .cce import generate_cce

        return generate_cce
    if name == "generate_pto":
        from .pto import generate_pto

        return generate_pto
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
