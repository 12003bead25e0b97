"""Which ``@pl.jit`` specialisation a request means: the editor chooses one ("PyPTO: Choose
Specialisation") and sends its index and its key (``kernel_key``: the kernel's name and its
parameters' types, ``ModuleAnalysis.jit_keys``). The key wins, so the choice follows its
specialisation when an edit adds, removes or reorders calls; when the chosen one is gone, the
first is used and the note says so."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ptoc.frontend import ModuleAnalysis


@dataclass(frozen=True)
class Choice:
    n: int | None  # 1-based, each kernel's n-th (None: the analysis as it is, each one's first)
    note: str = ""  # why the chosen specialisation is not the one used ("" when it is)


def choose(
    analysis: ModuleAnalysis, function: str | None, index: int | None, key: str | None
) -> Choice:
    """The specialisation a request about ``function`` (None: the whole file) uses."""
    if index is None and key is None:
        return Choice(None)
    kernels = about(analysis, function)
    if not kernels:
        return Choice(None)  # no @pl.jit kernel concerned: nothing to choose
    if key is not None:
        for name in kernels:
            for n, types in enumerate(analysis.jit_keys.get(name, []), 1):
                # (a key without the kernel's name, from an older server, is its types alone)
                if key in (kernel_key(name, types), types):
                    return Choice(n)
        return first(analysis, kernels[0], f"the chosen specialisation ({key})")
    assert index is not None
    if index <= max(len(analysis.jit_keys.get(name, [])) for name in kernels):
        return Choice(index)
    return first(analysis, kernels[0], f"specialisation {index}")


def kernel_key(kernel: str, types: str) -> str:
    """A specialisation's key: the kernel's name and its parameters' types (two kernels with the
    same parameter types have different keys), ``scale(a: Tensor[[32, 32], FP32], ...)``."""
    return f"{kernel}({types})"


def about(analysis: ModuleAnalysis, function: str | None) -> list[str]:
    """The specialised kernels a request concerns: the one whose program defines ``function``,
    or every one."""
    found = [name for name, programs in analysis.jit_specialisations.items() if programs]
    if function is None:
        return found
    return [
        name
        for name in found
        if any(p.function(function) is not None for p in analysis.jit_specialisations[name])
    ]


def first(analysis: ModuleAnalysis, kernel: str, chosen: str) -> Choice:
    label = analysis.jit_labels[kernel][0]
    return Choice(1, f"'{kernel}': {chosen} is no longer in the file; using its first ({label})")
