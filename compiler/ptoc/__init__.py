"""ptoc: a static, pure-Python compiler for PyPTO kernels.

Data flows one way: source text -> syntax (``frontend``) -> IR (``ir``) -> ``passes``
-> ``codegen``.
The operator registry (``ops``) is the single source of truth for every op's signature,
type rule, documentation and lowering.
"""

__version__ = "0.1.0"
