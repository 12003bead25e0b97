"""PTO back end: MLIR in the PTO-ISA dialect (seed 002)."""

from .module import generate_pto

__all__ = ["generate_pto"]
