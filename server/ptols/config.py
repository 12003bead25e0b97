"""Client settings (section `ptoc` of the standard workspace configuration)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Settings:
    default_target: str = "cce"
    pipeline: str | None = None  # None: each target's default pipeline (as `ptoc compile`)
    inlay_hints: bool = True
    sync_hints: bool = True  # inlayHints.sync: where InsertSync put set/wait flags, barriers
    parameter_hints: bool = False  # inlayHints.parameterNames: `offsets:` before op arguments
    format_on_save: bool = False
    severity_overrides: dict[str, str] = field(default_factory=dict)
    line_length: int = 88
    strict_annotations: bool = False  # annotation warnings (W006-W008) shown as errors

    def overrides_for(self, path: str, codes: set[str]) -> dict[str, str]:
        """Severity overrides for a document whose diagnostics have ``codes``: the annotation
        warnings are errors when this setting or the project's ``[tool.ptoc]
        strict-annotations`` says so; explicit overrides win."""
        from ptoc.diagnostics import STRICT_ANNOTATION_CODES

        strict_codes = codes & STRICT_ANNOTATION_CODES
        if not strict_codes or not self.strict_for(path):
            return self.severity_overrides
        return {code: "error" for code in strict_codes} | self.severity_overrides

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
        if isinstance(value.get("strictAnnotations"), bool):
            settings.strict_annotations = value["strictAnnotations"]
        if isinstance(value.get("lineLength"), int) and 20 <= value["lineLength"] <= 400:
            settings.line_length = value["lineLength"]
        return settings


_PROJECT_FLAGS: dict[tuple[str, float], bool] = {}  # (pyproject.toml, mtime) -> strict-annotations


def project_strict_annotations(path: str) -> bool:
    """``[tool.ptoc] strict-annotations`` of the project holding ``path`` (false when absent or
    unreadable: the editor keeps showing the file)."""
    import os

    from ptoc.fmt.config import ConfigError, find_pyproject, load_config

    pyproject = find_pyproject(path)
    if pyproject is None:
        return False
    try:
        key = (str(pyproject), os.stat(pyproject).st_mtime)
    except OSError:
        return False
    if key not in _PROJECT_FLAGS:
        try:
            _PROJECT_FLAGS[key] = load_config(pyproject).strict_annotations
        except ConfigError:
            _PROJECT_FLAGS[key] = False
    return _PROJECT_FLAGS[key]
