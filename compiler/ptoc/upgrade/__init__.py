"""``ptoc upgrade``: rewrite a PyPTO 2026-03 kernel in 2026-08 spelling (spec §15), writing
only what provably lowers to the same IR. ``upgrade_source`` is the whole upgrade of one text
(the language server's "Upgrade to PyPTO 2026-08" uses it too); ``command`` is the subcommand.
"""

from .upgrader import Left, UpgradeResult, UpgradeStatus, upgrade_source

__all__ = ["Left", "UpgradeResult", "UpgradeStatus", "upgrade_source"]
