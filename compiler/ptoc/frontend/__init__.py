"""The DSL front end: PyPTO source text -> IR + diagnostics. Never imports or runs user code."""

from .analysis import FunctionInfo, ModuleAnalysis, Occurrence, OccurrenceKind, SymbolIndex
from .module import AnalysisCache, analyze_module


def analyze_source(
    text: str, path: str = "<string>", cache: AnalysisCache | None = None
) -> ModuleAnalysis:
    """Analyse one file's text. Pass the same ``cache`` for successive versions of a document
    to re-analyse only the functions an edit touched."""
    return analyze_module(text, path, cache)


__all__ = [
    "AnalysisCache",
    "FunctionInfo",
    "ModuleAnalysis",
    "Occurrence",
    "OccurrenceKind",
    "SymbolIndex",
    "analyze_source",
]
