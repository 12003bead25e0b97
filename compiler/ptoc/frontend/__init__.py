"""The DSL front end: PyPTO source text -> IR + diagnostics. Never imports or runs user code."""

from ..editions import Edition, EditionSource
from .analysis import FunctionInfo, ModuleAnalysis, Occurrence, OccurrenceKind, SymbolIndex
from .edition import EditionInForce
from .module import AnalysisCache, analyze_module


def analyze_source(
    text: str,
    path: str = "<string>",
    cache: AnalysisCache | None = None,
    edition: tuple[Edition, EditionSource] | None = None,
    builder_defaults: bool = False,
    jit_specs: dict[str, tuple[str, ...]] | None = None,
    sizes: dict[str, int] | None = None,
) -> ModuleAnalysis:
    """Analyse one file's text. Pass the same ``cache`` for successive versions of a document
    to re-analyse only the functions an edit touched. ``edition``: the edition chosen for the
    file and by whom (flag, editor, project); None: from its spellings. ``builder_defaults``:
    a builder function's parameters take their defaults (the programs it builds when called
    without arguments) instead of standing for every size. ``jit_specs``: the project's
    ``[tool.ptoc.jit]`` specialisations, by kernel name. ``sizes``: values, by name, for
    builder parameters, builder locals that are not constants (``m, n = shape_of(b)``) and
    ``pl.dynamic("N")`` dimensions, which then are those constants instead of symbols (the
    programs one call of a builder makes, at one size)."""
    return analyze_module(text, path, cache, edition, builder_defaults, jit_specs, sizes)


__all__ = [
    "AnalysisCache",
    "EditionInForce",
    "FunctionInfo",
    "ModuleAnalysis",
    "Occurrence",
    "OccurrenceKind",
    "SymbolIndex",
    "analyze_source",
]
