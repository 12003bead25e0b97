"""Client settings (section `ptoc` of the standard workspace configuration)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ptoc.editions import ChosenEdition
    from ptoc.fmt.config import PtocConfig


@dataclass
class Settings:
    default_target: str = "cce"
    pipeline: str | None = None  # None: each target's default pipeline (as `ptoc compile`)
    inlay_hints: bool = True
    sync_hints: bool = True  # inlayHints.sync: where InsertSync put set/wait flags, barriers
    cycle_hints: bool = True  # inlayHints.cycles: each line's predicted cycles (the timeline)
    parameter_hints: bool = False  # inlayHints.parameterNames: `offsets:` before op arguments
    format_on_save: bool = False
    severity_overrides: dict[str, str] = field(default_factory=dict)
    line_length: int = 88
    strict_annotations: bool = False  # annotation warnings (W006-W008) shown as errors
    edition: str | None = None  # "2026-03" / "2026-08": every file's edition; None: "auto"

    def overrides_for(self, path: str, codes: set[str]) -> dict[str, str]:
        """Severity overrides for a document whose diagnostics have ``codes``: the annotation
        warnings are errors when this setting or the project's ``[tool.ptoc]
        strict-annotations`` says so; explicit overrides win."""
        from ptoc.diagnostics import STRICT_ANNOTATION_CODES

        strict_codes = codes & STRICT_ANNOTATION_CODES
        if not strict_codes or not self.strict_for(path):
            return self.severity_overrides
        return {code: "error" for code in strict_codes} | self.severity_overrides

    def edition_for(self, path: str) -> ChosenEdition | None:
        """The edition chosen for ``path`` outside the file: this setting, else the project's
        ``[tool.ptoc] edition``; None lets the file's spellings decide."""
        from ptoc.editions import EditionSource, parse_edition

        chosen = parse_edition(self.edition)
        if chosen is not None:
            return chosen, EditionSource.EDITOR
        project = project_config(path)
        if project is None or project.edition is None:
            return None
        return project.edition, EditionSource.PROJECT

    def front_end_choices(
        self, path: str, source: str
    ) -> tuple[ChosenEdition | None, dict[str, tuple[str, ...]] | None]:
        """What the front end is told besides the text: the edition chosen outside the file
        and the project's JIT specialisations (read only for a text that mentions jit). The
        document's analysis and the pass diff's child analyse with the same."""
        return self.edition_for(path), project_jit(path) if "jit" in source else None

    def strict_for(self, path: str) -> bool:
        """Whether annotation warnings are errors for ``path`` (this setting or the project's)."""
        return self.strict_annotations or project_strict_annotations(path)

    @staticmethod
    def from_client(value: Any) -> Settings:
        """Read the `ptoc` section; unknown or ill-typed entries keep their defaults."""
        from ptoc.driver import PIPELINES, TARGETS  # here: the compiler loads after `initialize`

        settings = Settings()
        if not isinstance(value, dict):
            return settings
        preview = value.get("preview")
        target = (
            preview.get("defaultTarget")
            if isinstance(preview, dict)
            else value.get("defaultTarget")
        )
        if target in TARGETS:
            settings.default_target = target
        if value.get("pipeline") in PIPELINES:
            settings.pipeline = value["pipeline"]
        hints = value.get("inlayHints")
        if isinstance(hints, dict) and isinstance(hints.get("enabled"), bool):
            settings.inlay_hints = hints["enabled"]
        elif isinstance(value.get("inlayHints.enabled"), bool):
            settings.inlay_hints = value["inlayHints.enabled"]
        if isinstance(hints, dict) and isinstance(hints.get("sync"), bool):
            settings.sync_hints = hints["sync"]
        elif isinstance(value.get("inlayHints.sync"), bool):
            settings.sync_hints = value["inlayHints.sync"]
        if isinstance(hints, dict) and isinstance(hints.get("cycles"), bool):
            settings.cycle_hints = hints["cycles"]
        elif isinstance(value.get("inlayHints.cycles"), bool):
            settings.cycle_hints = value["inlayHints.cycles"]
        if isinstance(hints, dict) and isinstance(hints.get("parameterNames"), bool):
            settings.parameter_hints = hints["parameterNames"]
        elif isinstance(value.get("inlayHints.parameterNames"), bool):
            settings.parameter_hints = value["inlayHints.parameterNames"]
        if isinstance(value.get("formatOnSave"), bool):
            settings.format_on_save = value["formatOnSave"]
        overrides = value.get("severityOverrides")
        if isinstance(overrides, dict):
            settings.severity_overrides = {
                str(code): str(level).lower()
                for code, level in overrides.items()
                if str(level).lower() in ("error", "warning", "information", "info", "hint", "off")
            }
        if value.get("edition") in ("2026-03", "2026-08"):
            settings.edition = value["edition"]
        if isinstance(value.get("strictAnnotations"), bool):
            settings.strict_annotations = value["strictAnnotations"]
        if isinstance(value.get("lineLength"), int) and 20 <= value["lineLength"] <= 400:
            settings.line_length = value["lineLength"]
        return settings


_PROJECTS: dict[tuple[str, float], PtocConfig | None] = {}  # (pyproject.toml, mtime) -> it


def project_strict_annotations(path: str) -> bool:
    """``[tool.ptoc] strict-annotations`` of the project holding ``path`` (false when absent or
    unreadable: the editor keeps showing the file)."""
    config = project_config(path)
    return config is not None and config.strict_annotations


def project_jit(path: str) -> dict[str, tuple[str, ...]] | None:
    """``[tool.ptoc.jit]`` of the project holding ``path``: specialisations by kernel name."""
    config = project_config(path)
    return config.jit_table() or None if config is not None else None


def project_config(path: str) -> PtocConfig | None:
    """``[tool.ptoc]`` of the project holding ``path``, read again when the file changes (None
    when there is none or it cannot be read)."""
    import os

    from ptoc.fmt.config import ConfigError, find_pyproject, load_config

    pyproject = find_pyproject(path)
    if pyproject is None:
        return None
    try:
        key = (str(pyproject), os.stat(pyproject).st_mtime)
    except OSError:
        return None
    if key not in _PROJECTS:
        try:
            _PROJECTS[key] = load_config(pyproject)
        except ConfigError:
            _PROJECTS[key] = None
    return _PROJECTS[key]
