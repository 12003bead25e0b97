"""Client settings (section `ptoc` of the standard workspace configuration)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

TARGETS = ("cce", "pto", "ir")
PIPELINES = ("default", "ptoas")


@dataclass
class Settings:
    default_target: str = "cce"
    pipeline: str = "default"
    inlay_hints: bool = True
    format_on_save: bool = False
    severity_overrides: dict[str, str] = field(default_factory=dict)
    line_length: int = 88

    @staticmethod
    def from_client(value: Any) -> Settings:
        """Read the `ptoc` section; unknown or ill-typed entries keep their defaults."""
        settings = Settings()
        if not isinstance(value, dict):
            return settings
        preview = value.get("preview")
        target = preview.get("defaultTarget") if isinstance(preview, dict) else value.get("defaultTarget")
        if target in TARGETS:
            settings.default_target = target
        if value.get("pipeline") in PIPELINES:
            settings.pipeline = value["pipeline"]
        hints = value.get("inlayHints")
        if isinstance(hints, dict) and isinstance(hints.get("enabled"), bool):
            settings.inlay_hints = hints["enabled"]
        elif isinstance(value.get("inlayHints.enabled"), bool):
            settings.inlay_hints = value["inlayHints.enabled"]
        if isinstance(value.get("formatOnSave"), bool):
            settings.format_on_save = value["formatOnSave"]
        overrides = value.get("severityOverrides")
        if isinstance(overrides, dict):
            settings.severity_overrides = {
                str(code): str(level).lower()
                for code, level in overrides.items()
                if str(level).lower() in ("error", "warning", "information", "info", "hint", "off")
            }
        if isinstance(value.get("lineLength"), int) and 20 <= value["lineLength"] <= 400:
            settings.line_length = value["lineLength"]
        return settings
