"""The generated matrix of execution kernels: every op the CCE back end lowers, x the dtypes it
accepts, x shapes and control-flow forms. Each case is a complete PyPyTO program with one InCore
function ``kernel``, a numpy statement of what it computes (used until the reference interpreter
is available, and as a cross-check of it), and, for kernels that fail today because of a known
code-generation defect, the defect's name (the test is ``xfail(strict=True)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

Arrays = dict[str, np.ndarray]

# Known CCE code-generation defects (issue #10). A case names the one that breaks it.
ONE_COLUMN = "one-column tiles need BLayout::ColMajor and Layout::DN globals"
BROADCAST = "broadcasting element-wise ops are emitted as plain element-wise instructions"
ROW_REDUCE_TMP = "row reductions are emitted without the tmp tile TROW* needs"
TCMP_DTYPE = "TCMP/TCMPS write a float tile (pto-isa needs uint8/uint32 masks)"
WINDOW_SHAPE = "loads/stores of windows use the whole tensor's Shape instead of the window's"
CARRIED_YIELD = "loop-carried tile yields re-point handles instead of copying"
MOVE_TRANSPOSE = "move(..., transpose=True) emits a plain TMOV"
SCALAR_RESULT = "scalar results are computed and dropped"
BF16_SPELLING = "BF16 is spelled 'bfloat16' (pto-isa: bfloat16_t)"
PROMOTING_SCALAR = "a scalar op whose literal promotes the tile's dtype gets no TCVT (new)"
SCRATCH_WRITE = "scratch operands are written but declared read-only"

DTYPES = {"FP32": np.float32, "FP16": np.float16, "INT32": np.int32, "INT16": np.int16,
          "INT8": np.int8, "UINT8": np.uint8}


@dataclass
class Case:
    name: str
    source: str
    expect: Callable[[Arrays], Arrays]  # inputs -> the changed tensors, by parameter name
    defect: str | None = None  # a known defect makes the case xfail(strict=True)
    inputs: Arrays = field(default_factory=dict)  # fixed inputs (the rest are generated)
    function: str = "kernel"


def tensor(shape: list[int] | tuple[int, ...], dtype: str) -> str:
    return f"pl.Tensor[[{', '.join(map(str, shape))}], pl.{dtype}]"


def program(params: list[tuple[str, str]], body: list[str], returns: str | None) -> str:
    signature = "".join(f"        {name}: {type_},\n" for name, type_ in params)
    arrow = f" -> {returns}" if returns else ""
    lines = "".join(f"        {line}\n" for line in body)
    return (
        "import pypto.language as pl\n\n\n@pl.program\nclass Generated:\n"
        "    @pl.function(type=pl.FunctionType.InCore)\n"
        f"    def kernel(\n        self,\n{signature}    ){arrow}:\n{lines}"
    )


def window(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join(str(d) for d in shape) + "]"


def zeros(shape: tuple[int, ...]) -> str:
    return "[" + ", ".join("0" for _ in shape) + "]"


def simple(
    name: str,
    inputs: list[tuple[str, tuple[int, ...], str]],
    compute: list[str],
    result: str,
    out_shape: tuple[int, ...],
    out_dtype: str,
    expect: Callable[[Arrays], np.ndarray],
    defect: str | None = None,
    scalars: list[tuple[str, str]] | None = None,
    fixed: Arrays | None = None,
) -> Case:
    """Load every input tensor whole, run ``compute``, store ``result`` into ``out``."""
    params = [(n, tensor(s, d)) for n, s, d in inputs] + [(n, t) for n, t in scalars or []]
    params.append(("out", tensor(out_shape, out_dtype)))
    body = [f"t_{n} = pl.load({n}, {zeros(s)}, {window(s)})" for n, s, _ in inputs]
    body += compute
    body += [
        f"done = pl.store({result}, {zeros(out_shape)}, {window(out_shape)}, out)",
        "return done",
    ]
    source = program(params, body, tensor(out_shape, out_dtype))
    return Case(name, source, lambda a: {"out": expect(a)}, defect, dict(fixed or {}))


def cast(values: np.ndarray, dtype: str) -> np.ndarray:
    return np.asarray(values).astype(DTYPES[dtype])


# --- element-wise ------------------------------------------------------------------------------

BINARY: dict[str, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.divide,
    "maximum": np.maximum,
    "minimum": np.minimum,
}


def binary_cases() -> Iterator[Case]:
    for op, fn in BINARY.items():
        for dtype in ("FP32", "FP16", "INT32", "INT16"):
            if op == "div" and dtype.startswith("INT"):
                continue
            for shape in ((16, 64), (32, 1)):
                defect = ONE_COLUMN if shape[1] == 1 else None
                yield simple(
                    f"{op}_{dtype}_{shape[0]}x{shape[1]}",
                    [("a", shape, dtype), ("b", shape, dtype)],
                    [f"t_c = pl.{op}(t_a, t_b)"],
                    "t_c",
                    shape,
                    dtype,
                    lambda a, fn=fn, dtype=dtype: cast(fn(a["a"], a["b"]), dtype),
                    defect,
                )
    for op in ("add", "sub", "mul", "div", "maximum"):
        fn = BINARY[op]
        for rhs in ((1, 64), (32, 1)):
            yield simple(
                f"{op}_FP32_broadcast_{rhs[0]}x{rhs[1]}",
                [("a", (32, 64), "FP32"), ("b", rhs, "FP32")],
                [f"t_c = pl.{op}(t_a, t_b)"],
                "t_c",
                (32, 64),
                "FP32",
                lambda a, fn=fn: cast(fn(a["a"], a["b"]), "FP32"),
                BROADCAST if rhs[1] != 1 else ONE_COLUMN,
            )


SCALAR_OPS: dict[str, tuple[str, Callable[[np.ndarray, object], np.ndarray]]] = {
    "adds": ("pl.add(t_a, {s})", lambda x, s: x + s),
    "subs": ("pl.sub(t_a, {s})", lambda x, s: x - s),
    "muls": ("pl.mul(t_a, {s})", lambda x, s: x * s),
    "divs": ("pl.div(t_a, {s})", lambda x, s: x / s),
    "maxs": ("pl.maxs(t_a, {s})", lambda x, s: np.maximum(x, s)),
    "mins": ("pl.mins(t_a, {s})", lambda x, s: np.minimum(x, s)),
}


def scalar_cases() -> Iterator[Case]:
    fixed = {"FP32": 0.75, "FP16": 0.75, "INT32": 3}
    for op, (call, fn) in SCALAR_OPS.items():
        for dtype, value in fixed.items():
            if op == "divs" and dtype == "INT32":
                continue
            yield simple(
                f"{op}_{dtype}_parameter",
                [("a", (16, 64), dtype)],
                ["t_c = " + call.format(s="s")],
                "t_c",
                (16, 64),
                dtype,
                lambda a, fn=fn, dtype=dtype: cast(fn(a["a"], a["s"]), dtype),
                scalars=[("s", f"pl.Scalar[pl.{dtype}]")],
                fixed={"s": np.array(value, dtype=DTYPES[dtype])},
            )
        yield simple(
            f"{op}_FP32_literal",
            [("a", (16, 64), "FP32")],
            ["t_c = " + call.format(s="1.5")],
            "t_c",
            (16, 64),
            "FP32",
            lambda a, fn=fn: cast(fn(a["a"], np.float32(1.5)), "FP32"),
        )
    # A literal promotes the tile (FP16 + 1.5 is FP32, INT32 + 3 is INT64).
    for dtype, literal in (("FP16", "1.5"), ("INT32", "3")):
        yield simple(
            f"adds_{dtype}_literal_promotes",
            [("a", (16, 64), dtype)],
            [f"t_c = pl.add(t_a, {literal})"],
            "t_c",
            (16, 64),
            dtype,
            lambda a, dtype=dtype, literal=literal: cast(a["a"] + float(literal), dtype),
            PROMOTING_SCALAR,
        )


UNARY: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "neg": np.negative,
    "exp": np.exp,
    "sqrt": np.sqrt,
    "rsqrt": lambda x: 1 / np.sqrt(x),
    "recip": lambda x: 1 / x,
    "log": np.log,
    "abs": np.abs,
    "relu": lambda x: np.maximum(x, 0),
}


def unary_cases() -> Iterator[Case]:
    for op, fn in UNARY.items():
        for dtype in ("FP32", "FP16"):
            yield simple(
                f"{op}_{dtype}",
                [("a", (16, 64), dtype)],
                [f"t_c = pl.{op}(t_a)"],
                "t_c",
                (16, 64),
                dtype,
                lambda a, fn=fn, dtype=dtype: cast(fn(a["a"].astype(np.float32)), dtype),
            )
    for op in ("exp", "abs"):
        yield simple(
            f"{op}_FP32_32x1",
            [("a", (32, 1), "FP32")],
            [f"t_c = pl.{op}(t_a)"],
            "t_c",
            (32, 1),
            "FP32",
            lambda a, fn=UNARY[op]: cast(fn(a["a"]), "FP32"),
            ONE_COLUMN,
        )


def all_cases() -> list[Case]:
    cases = [
        *binary_cases(),
        *scalar_cases(),
        *unary_cases(),
    ]
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases
