"""The reference interpreter: the executable meaning of a program's IR, on numpy arrays.

``run_function(program, name, inputs)`` evaluates one function of a program, straight from
the front end or after any pass, and returns the final contents of its tensor parameters and
its return values. What each op computes is in ``ptoc.ops.semantics``. numpy is imported
here only, never on the ``check`` / ``compile`` path.
"""

from .errors import InterpError
from .run import InterpResult, run_function

__all__ = ["InterpError", "InterpResult", "run_function"]
