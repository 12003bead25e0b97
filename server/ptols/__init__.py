"""ptols: the PyPTO language server. It asks ptoc; it never reimplements the compiler."""

# One version for ptoc, ptols and the VS Code extension: ptoc's (tests/release checks the
# extension's package.json against it).
from ptoc import __version__
