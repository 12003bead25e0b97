"""W031: each spelling of the other edition in a file whose edition was chosen (by a flag, the
editor or the project), with the quick fix that writes the chosen edition's spelling. Emitted
once, after the analysis, from the rewrite table (``upgrades`` forwards, ``downgrades`` back)."""

from __future__ import annotations

import ast
import re

from ..diagnostics import DiagnosticBag, Fix
from ..editions import Edition, EditionSource
from .analysis import ModuleAnalysis
from .names import DslImports
from .source import SourceText

CHOSEN = (EditionSource.FLAG, EditionSource.EDITOR, EditionSource.PROJECT)
# Forms of one edition that are no names, so not among the spellings edition detection looks
# for (where they decide nothing): 2026-08's ``store(tile, [offsets], out...)``, 2026-03's
# ``@pl.function(attrs=...)``.
FORMS = {
    Edition.V2026_08: re.compile(r"store\(\s*[^,()\[\]]+,\s*\[[^\]]*\]\s*,\s*[A-Za-z_]\w*\s*[,)]"),
    Edition.V2026_03: re.compile(r"\battrs\s*="),
}


def report_other_edition(
    bag: DiagnosticBag, tree: ast.Module, analysis: ModuleAnalysis, imports: DslImports
) -> None:
    in_force = analysis.edition
    if in_force is None or in_force.source not in CHOSEN:
        return
    other = Edition.V2026_03 if in_force.edition is Edition.V2026_08 else Edition.V2026_08
    detection = in_force.detection
    if detection is None or not (other in detection.first or FORMS[other].search(analysis.text)):
        return  # (no spelling of the other edition: nothing to walk for)
    # (the rewrite tables load only for a file that has the other edition's spellings)
    from .downgrades import OldSpellings
    from .upgrades import Planner

    source = SourceText(analysis.text, analysis.path)
    finder = Planner if other is Edition.V2026_03 else OldSpellings
    for rewrite in finder(source, imports, analysis).plan(tree).rewrites:
        bag.error(
            "W031",
            f"`{rewrite.old}` is the PyPTO {other} spelling; {in_force.edition.label} "
            f"({in_force.source.value}) writes `{rewrite.new}`",
            rewrite.span,
            fixes=(Fix(rewrite.title, rewrite.edits, preferred=True),),
        )
