"""Diagnostics: severities, quick fixes, and the catalog of stable codes."""

from .codes import CODES, STRICT_ANNOTATION_CODES, CodeInfo, code_url, strict_annotations
from .diagnostic import (
    Diagnostic,
    DiagnosticBag,
    Fix,
    Related,
    Severity,
    TextEdit,
    replacement_fixes,
)

__all__ = [
    "CODES",
    "STRICT_ANNOTATION_CODES",
    "CodeInfo",
    "Diagnostic",
    "DiagnosticBag",
    "Fix",
    "Related",
    "Severity",
    "TextEdit",
    "code_url",
    "replacement_fixes",
    "strict_annotations",
]
