"""Diagnostics: severities, quick fixes, and the catalog of stable codes."""

from .codes import CODES, CodeInfo, code_url
from .diagnostic import (
    Diagnostic,
    DiagnosticBag,
    Fix,
    Related,
    Severity,
    TextEdit,
    replacement_fixes,
)

__all__ = ["CODES", "CodeInfo", "Diagnostic", "DiagnosticBag", "Fix", "Related", "Severity", "TextEdit", "code_url", "replacement_fixes"]
