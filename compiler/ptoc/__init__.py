"""ptoc: a static, pure-Python compiler for PyPTO kernels.

Data flows one way: source text -> syntax (``frontend``) -> IR (``ir``) -> ``passes``
-> ``codegen``.
The operator registry (``ops``) is the single source of truth for every op's signature,
type rule, documentation and lowering.
"""

# The one version of the project: the wheel's metadata (pyproject.toml reads it here), ptols
# and the VS Code extension (its package.json, checked by tests/release) share it.
__version__ = "0.1.0"
