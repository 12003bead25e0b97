"""Seeded inputs from a function's parameter types, and ``--inputs FILE.npz``.

Value ranges (the same for tensors and scalars of a dtype), chosen so that the reference and
the simulator compute on well-conditioned numbers:

* floats: magnitudes uniform in [0.5, 2) with a random sign. No value is near 0, so division
  and ``recip`` are safe; when the function uses ``log``, ``sqrt``, ``rsqrt`` or ``pow`` every
  value is positive instead.
* signed integers: uniform in [-8, 8]; unsigned: [0, 8]. When the function divides, takes a
  remainder or shifts, [1, 8] instead (no division by 0, no negative shift counts).
* booleans: fair coin flips.

Integer scalars that act as loop bounds or offsets rarely make sense at random: give them with
``--inputs``.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ..ir.dtype import DataType
from ..ir.expr import Call, ConstInt
from ..ir.function import Function, Program
from ..ir.types import ScalarType, ShapedType, TensorType
from ..ir.visitor import IRVisitor

if TYPE_CHECKING:
    import numpy as np

POSITIVE_ONLY_OPS = frozenset({"log", "sqrt", "rsqrt", "pow"})
NONZERO_INT_OPS = frozenset(
    {"div", "divs", "rem", "rems", "floordiv", "shl", "shr", "shls", "shrs"}
)


class InputProblem(Exception):
    """An input that cannot be generated or does not fit the parameter (exit code 2)."""


def numpy_dtype(dtype: DataType) -> Any:
    """The numpy element type the reference interpreter uses for ``dtype``."""
    from ..interp import InterpError
    from ..interp.numeric import np_dtype

    try:
        return np_dtype(dtype)
    except InterpError:
        raise InputProblem(f"no host representation for {dtype.name} values") from None


def static_shape(param_name: str, type_: ShapedType) -> tuple[int, ...]:
    dims: list[int] = []
    for dim in type_.shape:
        if not isinstance(dim, ConstInt):
            raise InputProblem(
                f"parameter '{param_name}' has a dynamic shape: give its value with --inputs"
            )
        dims.append(dim.value)
    return tuple(dims)


class _OpNames(IRVisitor):
    def __init__(self) -> None:
        self.names: set[str] = set()

    def visit_Call(self, node: Call) -> None:
        self.names.add(node.op_name.rsplit(".", 1)[-1])
        self.generic_visit(node)


def short_op_names(functions: Iterable[Function]) -> set[str]:
    scan = _OpNames()
    for function in functions:
        scan.visit(function)
    return scan.names


def random_values(
    rng: np.random.Generator, dtype: DataType, shape: tuple[int, ...], ops: set[str]
) -> np.ndarray:
    import numpy as np

    if dtype.is_float:
        magnitude = rng.uniform(0.5, 2.0, size=shape)
        if not ops & POSITIVE_ONLY_OPS:
            magnitude *= rng.choice(np.array([-1.0, 1.0]), size=shape)
        return magnitude.astype(numpy_dtype(dtype))
    if dtype.is_bool:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    low = 1 if ops & NONZERO_INT_OPS else (-8 if dtype.is_signed else 0)
    return rng.integers(low, 9, size=shape).astype(numpy_dtype(dtype))


def generate_inputs(
    program: Program, function: Function, seed: int, given: dict[str, np.ndarray] | None = None
) -> dict[str, np.ndarray]:
    """One array per parameter (0-d for scalars), in parameter order: ``given`` ones checked
    against the parameter types and converted to their dtype, the rest generated from ``seed``."""
    import numpy as np

    given = dict(given or {})
    rng = np.random.default_rng(seed)
    ops = short_op_names(program.functions)
    values: dict[str, np.ndarray] = {}
    for param in function.params:
        type_ = param.type
        if isinstance(type_, ScalarType):
            shape: tuple[int, ...] = ()
            dtype = type_.dtype
        elif isinstance(type_, TensorType):
            shape = static_shape(param.name, type_)
            dtype = type_.dtype
        else:
            raise InputProblem(
                f"parameter '{param.name}' of type {type_.short()} cannot be an input"
            )
        generated = random_values(rng, dtype, shape, ops)  # drawn even when given: stable seeds
        if param.name in given:
            generated = fit_input(param.name, np.asarray(given.pop(param.name)), shape, dtype)
        values[param.name] = generated
    if given:
        names = ", ".join(sorted(given))
        raise InputProblem(f"inputs that are not parameters of '{function.name}': {names}")
    return values


def fit_input(
    name: str, supplied: np.ndarray, shape: tuple[int, ...], dtype: DataType
) -> np.ndarray:
    """``supplied`` as the parameter's dtype, or an InputProblem naming what does not fit
    (a silent cast would drop imaginary parts, fractions or high bits)."""
    import numpy as np

    if supplied.shape != shape:
        raise InputProblem(
            f"input '{name}' has shape {list(supplied.shape)}, the parameter {list(shape)}"
        )
    kind = supplied.dtype.kind
    if kind not in "biuf":
        raise InputProblem(
            f"input '{name}' holds {supplied.dtype} values, not real numbers: the parameter is "
            f"{dtype.name}"
        )
    target = numpy_dtype(dtype)
    with np.errstate(invalid="ignore", over="ignore"):  # out of range: reported below
        converted = supplied.astype(target)
    if (dtype.is_int or dtype.is_bool) and kind != "b":
        exact = np.array_equal(converted.astype(np.float64), supplied.astype(np.float64))
        if not exact:
            raise InputProblem(
                f"input '{name}' has values that {dtype.name} cannot hold exactly "
                f"(fractions or out of range)"
            )
    return converted


def load_npz(path: str) -> dict[str, np.ndarray]:
    """The arrays of ``path`` by name; an InputProblem for a file that is not a readable,
    non-empty .npz archive of plain arrays."""
    import zipfile

    import numpy as np

    try:
        with zipfile.ZipFile(path) as archive:
            if not archive.namelist():
                raise InputProblem(f"'{path}' holds no arrays: save them with numpy.savez")
        with np.load(path, allow_pickle=False) as archive:
            return {name: archive[name] for name in archive.files}
    except zipfile.BadZipFile:
        raise InputProblem(
            f"'{path}' is not a .npz archive: save the inputs with numpy.savez"
        ) from None
    except (OSError, ValueError, EOFError, KeyError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise InputProblem(f"cannot read inputs from '{path}': {reason}") from None
