"""What successive analyses of one document share: per-function results keyed by everything
the function's analysis reads, so an edit inside one function re-analyses only that one."""

from __future__ import annotations

from ..records import field, record
from .context import ModuleEnv
from .lower import LoweredFunction
from .segments import SegmentCache
from .signatures import ReadSignature


@record
class AnalysisCache:
    """Per-function results of earlier analyses of one document (the server keeps one per
    open file): an edit inside one function re-analyses only that function."""

    functions: dict[tuple[object, ...], LoweredFunction] = field(default_factory=dict)
    signatures: dict[tuple[object, ...], ReadSignature] = field(default_factory=dict)
    segments: SegmentCache = field(default_factory=SegmentCache)
    used: set[tuple[object, ...]] = field(default_factory=set)  # keys the current analysis read
    used_before: set[tuple[object, ...]] = field(default_factory=set)  # ... and the one before

    def trim(self) -> None:
        """Keep what the last two analyses used (an undo finds its entries again): every other
        entry belongs to a text that is gone, and keeping them grew memory with every edit."""
        keep = self.used | self.used_before
        for table in (self.functions, self.signatures):
            for key in [key for key in table if key not in keep]:
                del table[key]
        self.used_before, self.used = self.used, set()


def constants_fingerprint(env: ModuleEnv) -> int:
    """What annotations can read: module constants (and undefined module names) and imports."""
    consts = tuple(sorted((name, repr(value)) for name, value in env.consts.values.items()))
    undefined = tuple(sorted(set(env.consts.definitions) - set(env.consts.values)))
    imports = (
        tuple(sorted(env.imports.aliases)),
        env.imports.dotted,
        tuple(sorted(env.imports.from_names.items())),
        env.imports.star,
    )
    return hash((consts, undefined, imports))


def module_fingerprint(env: ModuleEnv, constants: int) -> int:
    """What a function body can see besides signatures: the above, inline helpers, and the
    module's standalone functions."""
    inline = tuple(
        (name, env.source.segment(node), env.source.span(node))
        for name, node in env.inline_defs.items()
    )
    external = tuple((s.name, s.describe()) for s in env.external_functions.values())
    aliases = tuple(sorted(env.function_aliases.items()))
    return hash((constants, inline, external, aliases, env.edition, env.rules))
