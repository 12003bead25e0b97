"""``ptols/specialisations``: each @pl.jit kernel of a document and the specialisations its
calls, comments and project table give it, for the editor's "Choose Specialisation"."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..protocol import (
    JitKernel,
    Specialisation,
    SpecialisationsParams,
    SpecialisationsResult,
)
from ..text import Stale
from .common import features, open_document

if TYPE_CHECKING:
    from ..server import PtolsServer


async def specialisations(ls: PtolsServer, params: SpecialisationsParams) -> SpecialisationsResult:
    doc = open_document(ls, params.text_document.uri, "specialisations")
    analysis = await ls.current_analysis(doc)
    if analysis is None:
        return SpecialisationsResult(doc.version, [])
    positions = ls.positions(doc)
    kernels: list[JitKernel] = []
    for name, labels in analysis.jit_labels.items():
        try:
            where = positions.range(analysis.jit_functions[name])
        except (Stale, KeyError):
            continue  # changed since the analysis
        keys = analysis.jit_keys.get(name, [])
        listed = [
            Specialisation(index, label, features.specialisations.kernel_key(name, key))
            for index, (label, key) in enumerate(zip(labels, keys, strict=True), 1)
        ]
        kernels.append(JitKernel(name, where, listed))
    return SpecialisationsResult(doc.analysis_version, kernels)
