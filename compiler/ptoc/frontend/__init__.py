"""The DSL front end: PyPTO source text -> IR + diagnostics. Never imports or runs user code."""

from .analysis import ModuleAnalysis, Occurrence, OccurrenceKind, SymbolIndex


def analyze_source(text: str, path: str = "<string>") -> ModuleAnalysis:
    from .module import analyze_module

    return analyze_module(text, path)


__all__ = ["ModuleAnalysis", "Occurrence", "OccurrenceKind", "SymbolIndex", "analyze_source"]
