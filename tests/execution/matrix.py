"""The generated matrix of execution kernels: every op the CCE back end lowers, x the dtypes it
accepts, x shapes and control-flow forms. Each case is a complete PyPyTO program with one InCore
function ``kernel``, an independent numpy statement of what it computes (the reference
interpreter is checked against it), and, for kernels that fail today because of a known
code-generation defect, the defect's name (the test is ``xfail(strict=True)``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import numpy as np

Arrays = dict[str, np.ndarray]

# Known CCE code-generation defects (issue #10). A case names the one that breaks it.
# Not a code-generation defect: pto-isa declares a real bfloat16_t only when
# include/pto/common/type.hpp:452 holds (`__has_include(<stdfloat>) && __cplusplus >= 202302L
# && defined(__STDCPP_BFLOAT16_T__)`, GCC 13+ with -std=c++23); no define of pto-isa's turns
# it on (PTO_CPU_SIM_ENABLE_BF16 is an #error without them). clang-19 with Debian 12's
# libstdc++ 12 has no <stdfloat> and no __STDCPP_BFLOAT16_T__, so line 463 makes it _Float16.
NO_SIM_BF16 = (
    "pto-isa include/pto/common/type.hpp:463 `typedef _Float16 bfloat16_t;`: real BF16 needs "
    "C++23 <stdfloat> with __STDCPP_BFLOAT16_T__ (line 452), which clang-19 / libstdc++ 12 lack"
)

DTYPES = {
    "FP32": np.float32,
    "FP16": np.float16,
    "INT32": np.int32,
    "INT16": np.int16,
    "INT8": np.int8,
    "UINT8": np.uint8,
    "UINT16": np.uint16,
    "INT64": np.int64,
}


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
                yield simple(
                    f"{op}_{dtype}_{shape[0]}x{shape[1]}",
                    [("a", shape, dtype), ("b", shape, dtype)],
                    [f"t_c = pl.{op}(t_a, t_b)"],
                    "t_c",
                    shape,
                    dtype,
                    lambda a, fn=fn, dtype=dtype: cast(fn(a["a"], a["b"]), dtype),
                )
    yield simple(
        "add_BF16_16x64",
        [("a", (16, 64), "BF16"), ("b", (16, 64), "BF16")],
        ["t_c = pl.add(t_a, t_b)"],
        "t_c",
        (16, 64),
        "BF16",
        lambda a: a["a"] + a["b"],
        NO_SIM_BF16,
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
    # A literal promotes the tile (FP16 + 1.5 is FP32, INT32 + 3 is INT64); the result is
    # stored into a tensor of the promoted type (a store does not convert: E321).
    for dtype, literal, promoted in (("FP16", "1.5", "FP32"), ("INT32", "3", "INT64")):
        yield simple(
            f"adds_{dtype}_literal_promotes",
            [("a", (16, 64), dtype)],
            [f"t_c = pl.add(t_a, {literal})"],
            "t_c",
            (16, 64),
            promoted,
            lambda a, promoted=promoted, literal=literal: cast(
                a["a"].astype(DTYPES[promoted]) + DTYPES[promoted](float(literal)), promoted
            ),
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
        )


def round_half_away(x: np.ndarray) -> np.ndarray:
    return np.sign(x) * np.floor(np.abs(x) + 0.5)


def reduction_cases() -> Iterator[Case]:
    reducers = {"sum": np.sum, "max": np.max, "min": np.min}
    for op, fn in reducers.items():
        for dtype in ("FP32", "FP16"):
            for axis in (0, 1):
                shape = (1, 64) if axis == 0 else (16, 1)
                yield simple(
                    f"{op}_{dtype}_axis{axis}",
                    [("a", (16, 64), dtype)],
                    [f"t_c = pl.{op}(t_a, axis={axis}, keepdim=True)"],
                    "t_c",
                    shape,
                    dtype,
                    lambda a, fn=fn, dtype=dtype, axis=axis: cast(
                        fn(a["a"].astype(np.float32), axis=axis, keepdims=True), dtype
                    ),
                )
        yield simple(
            f"row_{op}_FP32_with_tmp",
            [("a", (16, 64), "FP32")],
            [
                "t_tmp = pl.create_tile([16, 64], dtype=pl.FP32)",
                f"t_c = pl.row_{op}(t_a, t_tmp)",
            ],
            "t_c",
            (16, 1),
            "FP32",
            lambda a, fn=fn: cast(fn(a["a"], axis=1, keepdims=True), "FP32"),
        )


def expand_cases() -> Iterator[Case]:
    row_ops = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
    for op, fn in row_ops.items():
        yield simple(
            f"row_expand_{op}_FP32",
            [("a", (16, 64), "FP32"), ("v", (16, 1), "FP32")],
            [f"t_c = pl.row_expand_{op}(t_a, t_v)"],
            "t_c",
            (16, 64),
            "FP32",
            lambda a, fn=fn: cast(fn(a["a"], a["v"]), "FP32"),
        )
    col_ops = {
        "": lambda t, v: np.broadcast_to(v, t.shape),
        "_mul": np.multiply,
        "_div": np.divide,
        "_sub": np.subtract,
    }
    for suffix, fn in col_ops.items():
        yield simple(
            f"col_expand{suffix}_FP32",
            [("a", (16, 64), "FP32"), ("v", (1, 64), "FP32")],
            [f"t_c = pl.col_expand{suffix}(t_a, t_v)"],
            "t_c",
            (16, 64),
            "FP32",
            lambda a, fn=fn: cast(fn(a["a"], a["v"]), "FP32"),
        )


CASTS: list[tuple[str, str, str, Callable[[np.ndarray], np.ndarray]]] = [
    ("FP32", "FP16", "round", lambda x: x),
    ("FP16", "FP32", "none", lambda x: x),
    ("FP32", "INT32", "round", round_half_away),
    ("FP32", "INT32", "rint", np.rint),
    ("FP32", "INT32", "floor", np.floor),
    ("FP32", "INT32", "ceil", np.ceil),
    ("FP32", "INT32", "trunc", np.trunc),
    ("INT32", "FP32", "none", lambda x: x),
    ("FP16", "INT16", "round", round_half_away),
    ("INT16", "FP16", "none", lambda x: x),
]


def cast_cases() -> Iterator[Case]:
    for source, target, mode, fn in CASTS:
        yield simple(
            f"cast_{source}_to_{target}_{mode}",
            [("a", (16, 64), source)],
            [f"t_c = pl.cast(t_a, target_type=pl.{target}, mode='{mode}')"],
            "t_c",
            (16, 64),
            target,
            lambda a, fn=fn, target=target: cast(fn(a["a"].astype(np.float64)), target),
        )


COMPARE = {
    "EQ": np.equal,
    "NE": np.not_equal,
    "LT": np.less,
    "LE": np.less_equal,
    "GT": np.greater,
    "GE": np.greater_equal,
}


def overlapping(period: int, dtype: str) -> np.ndarray:
    """Values from a short cycle, so two such tiles are equal in some places (random floats
    never are: EQ would be all 0, NE all 1, and LT would equal LE)."""
    return cast((np.arange(16 * 64).reshape(16, 64) % period) - period // 2, dtype)


def compare_cases() -> Iterator[Case]:
    for number, (mode, fn) in enumerate(COMPARE.items()):
        yield simple(
            f"cmp_FP32_{mode}",
            [("a", (16, 64), "FP32"), ("b", (16, 64), "FP32")],
            [f"t_c = pl.cmp(t_a, t_b, cmp_type={number})"],
            "t_c",
            (16, 64),
            "FP32",
            lambda a, fn=fn: cast(fn(a["a"], a["b"]), "FP32"),
            fixed={"a": overlapping(7, "FP32"), "b": overlapping(5, "FP32")},
        )
    for dtype, number, mode in (("FP16", 4, "GT"), ("INT32", 0, "EQ"), ("INT32", 3, "LE")):
        yield simple(
            f"cmp_{dtype}_{mode}",
            [("a", (16, 64), dtype), ("b", (16, 64), dtype)],
            [f"t_c = pl.cmp(t_a, t_b, cmp_type={number})"],
            "t_c",
            (16, 64),
            dtype,
            lambda a, fn=COMPARE[mode], dtype=dtype: cast(fn(a["a"], a["b"]), dtype),
            fixed={"a": overlapping(7, dtype), "b": overlapping(5, dtype)},
        )
    # sel picks where its mask is nonzero: cmp's 1 / 0, or any tile of values.
    yield simple(
        "sel_FP32_by_cmp_is_maximum",
        [("a", (16, 64), "FP32"), ("b", (16, 64), "FP32")],
        ["t_c = pl.sel(pl.cmp(t_a, t_b, cmp_type=4), t_a, t_b)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: np.maximum(a["a"], a["b"]),
    )
    for dtype in ("FP32", "FP16", "INT32"):
        yield simple(
            f"sel_{dtype}_by_a_tile_of_values",
            [("m", (16, 64), "FP32"), ("a", (16, 64), dtype), ("b", (16, 64), dtype)],
            ["t_c = pl.sel(t_m, t_a, t_b)"],
            "t_c",
            (16, 64),
            dtype,
            lambda a: np.where(a["m"] != 0, a["a"], a["b"]),
            fixed={"m": overlapping(3, "FP32")},
        )
    # The 1 / 0 result is a value like any other: here it masks a tile (a ReLU), and the
    # mask's scratch tiles share buffers with the dead operands.
    yield simple(
        "cmp_FP32_result_masks_a_tile",
        [("a", (16, 64), "FP32"), ("b", (16, 64), "FP32")],
        ["t_m = pl.cmp(t_a, t_b, cmp_type=4)", "t_c = pl.mul(t_a, t_m)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: cast(np.where(a["a"] > a["b"], a["a"], 0), "FP32"),
    )
    for number, (mode, fn) in enumerate(COMPARE.items()):
        yield simple(
            f"cmps_FP32_{mode}",
            [("a", (16, 64), "FP32")],
            [f"t_c = pl.cmps(t_a, 1.0, cmp_type={number})"],
            "t_c",
            (16, 64),
            "FP32",
            lambda a, fn=fn: cast(fn(a["a"], 1.0), "FP32"),
            fixed={"a": overlapping(5, "FP32")},
        )
    # A scalar parameter of the tile's dtype keeps the comparison in it (a literal would
    # promote FP16 to FP32, INT32 to INT64: no TCMPS form).
    for dtype, number, mode in (("FP16", 5, "GE"), ("INT32", 0, "EQ"), ("INT32", 2, "LT")):
        yield simple(
            f"cmps_{dtype}_{mode}",
            [("a", (16, 64), dtype)],
            [f"t_c = pl.cmps(t_a, s, cmp_type={number})"],
            "t_c",
            (16, 64),
            dtype,
            lambda a, fn=COMPARE[mode], dtype=dtype: cast(fn(a["a"], a["s"]), dtype),
            scalars=[("s", f"pl.Scalar[pl.{dtype}]")],
            fixed={"a": overlapping(5, dtype), "s": cast(np.array(1), dtype)},
        )


def bitwise_cases() -> Iterator[Case]:
    binary = {
        "and": np.bitwise_and,
        "or": np.bitwise_or,
        "shl": np.left_shift,
        "shr": np.right_shift,
    }
    for dtype in ("INT32", "INT16"):
        for op, fn in binary.items():
            yield simple(
                f"{op}_{dtype}",
                [("a", (16, 64), dtype), ("b", (16, 64), dtype)],
                [
                    (
                        f"t_c = pl.{op}_(t_a, t_b)"
                        if op in ("and", "or")
                        else f"t_c = pl.{op}(t_a, t_b)"
                    )
                ],
                "t_c",
                (16, 64),
                dtype,
                lambda a, fn=fn, dtype=dtype: cast(fn(a["a"], a["b"]), dtype),
            )
    for dtype in ("INT16", "UINT16"):
        yield simple(
            f"not_{dtype}",
            [("a", (16, 64), dtype)],
            ["t_c = pl.not_(t_a)"],
            "t_c",
            (16, 64),
            dtype,
            lambda a, dtype=dtype: cast(np.invert(a["a"]), dtype),
        )
    for dtype in ("INT32", "INT16"):
        yield simple(
            f"xor_{dtype}_with_tmp",
            [("a", (16, 64), dtype), ("b", (16, 64), dtype)],
            [
                f"t_tmp = pl.create_tile([16, 64], dtype=pl.{dtype})",
                "t_c = pl.xor(t_a, t_b, t_tmp)",
            ],
            "t_c",
            (16, 64),
            dtype,
            lambda a, dtype=dtype: cast(np.bitwise_xor(a["a"], a["b"]), dtype),
        )
    scalar = {
        "ands": np.bitwise_and,
        "ors": np.bitwise_or,
        "shls": np.left_shift,
        "shrs": np.right_shift,
    }
    for op, fn in scalar.items():
        yield simple(
            f"{op}_INT32_parameter",
            [("a", (16, 64), "INT32")],
            [f"t_c = pl.{op}(t_a, s)"],
            "t_c",
            (16, 64),
            "INT32",
            lambda a, fn=fn: cast(fn(a["a"], a["s"]), "INT32"),
            scalars=[("s", "pl.Scalar[pl.INT32]")],
            fixed={"s": np.array(2, dtype=np.int32)},
        )


def misc_cases() -> Iterator[Case]:
    yield simple(
        "full_FP32_plus_tile",
        [("a", (16, 64), "FP32")],
        ["t_f = pl.block.full([16, 64], dtype=pl.FP32, value=2.5)", "t_c = pl.add(t_a, t_f)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: cast(a["a"] + 2.5, "FP32"),
    )
    yield simple(
        "expands_FP32",
        [("a", (16, 64), "FP32")],
        ["t_c = pl.expands(t_a, 2.5)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: np.full((16, 64), 2.5, dtype=np.float32),
    )
    yield simple(
        "transpose_FP32",
        [("a", (16, 64), "FP32")],
        ["t_c = pl.transpose(t_a, 0, 1)"],
        "t_c",
        (64, 16),
        "FP32",
        lambda a: np.ascontiguousarray(a["a"].T),
    )
    yield simple(
        "move_transpose_FP32",
        [("a", (16, 64), "FP32")],
        ["t_c = pl.move(t_a, target_memory=pl.MemorySpace.Vec, transpose=True)"],
        "t_c",
        (64, 16),
        "FP32",
        lambda a: np.ascontiguousarray(a["a"].T),
    )
    yield simple(
        "view_FP32_at_offset",
        [("a", (16, 64), "FP32")],
        ["t_c = pl.view(t_a, [8, 64], [8, 0])"],
        "t_c",
        (8, 64),
        "FP32",
        lambda a: a["a"][8:16, :],
    )
    yield simple(
        "reshape_FP32",
        [("a", (16, 64), "FP32")],
        ["t_c = pl.reshape(t_a, [32, 32])"],
        "t_c",
        (32, 32),
        "FP32",
        lambda a: a["a"].reshape(32, 32),
    )
    yield simple(  # the reshape is its source's bytes: t_s must not take t_a's buffer
        "reshape_FP32_source_dead",
        [("a", (16, 64), "FP32")],
        ["t_r = pl.reshape(t_a, [32, 32])", "t_s = pl.mul(t_r, 2.0)", "t_c = pl.add(t_r, t_s)"],
        "t_c",
        (32, 32),
        "FP32",
        lambda a: cast(a["a"].reshape(32, 32) * 3, "FP32"),
    )
    yield simple(
        "lrelu_FP32",
        [("a", (16, 64), "FP32")],
        ["t_c = pl.lrelu(t_a, 0.25)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: cast(np.where(a["a"] > 0, a["a"], a["a"] * np.float32(0.25)), "FP32"),
    )
    yield simple(
        "prelu_FP32_with_tmp",
        [("a", (16, 64), "FP32"), ("b", (16, 64), "FP32")],
        ["t_tmp = pl.create_tile([16, 64], dtype=pl.FP32)", "t_c = pl.prelu(t_a, t_b, t_tmp)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: cast(np.where(a["a"] > 0, a["a"], a["a"] * a["b"]), "FP32"),
    )
    for op, fn in (("addc", lambda x, y, z: x + y + z), ("subc", lambda x, y, z: x - y + z)):
        yield simple(
            f"{op}_FP32",
            [("a", (16, 64), "FP32"), ("b", (16, 64), "FP32"), ("c", (16, 64), "FP32")],
            [f"t_d = pl.{op}(t_a, t_b, t_c)"],
            "t_d",
            (16, 64),
            "FP32",
            lambda a, fn=fn: cast(fn(a["a"], a["b"], a["c"]), "FP32"),
        )
    yield simple(
        "chain_FP32_exp_mul_sub",
        [("a", (16, 64), "FP32"), ("b", (16, 64), "FP32")],
        ["t_e = pl.exp(t_a)", "t_m = pl.mul(t_e, t_b)", "t_c = pl.sub(t_m, t_a)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: cast(np.exp(a["a"]) * a["b"] - a["a"], "FP32"),
    )


MAT = "target_memory=pl.MemorySpace.Mat"


def matmul_body(m: int, k: int, n: int, a_offset: str = "0", b_offset: str = "0") -> list[str]:
    return [
        f"a_mat = pl.load(a, [0, {a_offset}], [{m}, {k}], {MAT})",
        f"b_mat = pl.load(b, [{b_offset}, 0], [{k}, {n}], {MAT})",
        "a_left = pl.move(a_mat, target_memory=pl.MemorySpace.Left)",
        "b_right = pl.move(b_mat, target_memory=pl.MemorySpace.Right)",
    ]


def matmul_cases() -> Iterator[Case]:
    for dtype, acc, (m, k, n) in (
        ("FP16", "FP32", (32, 64, 32)),
        ("FP16", "FP32", (16, 32, 64)),
        ("FP32", "FP32", (16, 32, 16)),
        ("INT8", "INT32", (32, 64, 32)),
    ):
        params = [
            ("a", tensor((m, k), dtype)),
            ("b", tensor((k, n), dtype)),
            ("c", tensor((m, n), acc)),
        ]
        body = [
            *matmul_body(m, k, n),
            "acc = pl.matmul(a_left, b_right)",
            f"out = pl.l0c_store(acc, [0, 0], [{m}, {n}], c)",
            "return out",
        ]
        yield Case(
            f"matmul_{dtype}_{m}x{k}x{n}",
            program(params, body, tensor((m, n), acc)),
            lambda a, acc=acc: {
                "c": cast(a["a"].astype(np.float64) @ a["b"].astype(np.float64), acc)
            },
        )
    # K-tiled: the accumulator is carried through the loop in L0C.
    m, k, n, step = 32, 128, 32, 32
    params = [
        ("a", tensor((m, k), "FP16")),
        ("b", tensor((k, n), "FP16")),
        ("c", tensor((m, n), "FP32")),
    ]
    body = [
        *matmul_body(m, step, n),
        "first = pl.matmul(a_left, b_right)",
        f"for i, (acc,) in pl.range(1, {k // step}, init_values=(first,)):",
        *("    " + line for line in matmul_body(m, step, n, f"i * {step}", f"i * {step}")),
        "    nxt = pl.matmul_acc(acc, a_left, b_right)",
        "    acc_next = pl.yield_(nxt)",
        f"out = pl.l0c_store(acc_next, [0, 0], [{m}, {n}], c)",
        "return out",
    ]
    yield Case(
        "matmul_acc_FP16_k_tiled_loop",
        program(params, body, tensor((m, n), "FP32")),
        lambda a: {"c": cast(a["a"].astype(np.float64) @ a["b"].astype(np.float64), "FP32")},
    )


def loop_program(params: list[tuple[str, str]], body: list[str], returns: str) -> str:
    return program(params, body, returns)


def control_flow_cases() -> Iterator[Case]:
    x, out = tensor((64, 64), "FP32"), tensor((16, 64), "FP32")
    yield Case(
        "loop_carried_sum_of_row_windows",
        loop_program(
            [("x", x), ("out", out)],
            [
                "first = pl.load(x, [0, 0], [16, 64])",
                "for i, (acc,) in pl.range(1, 4, init_values=(first,)):",
                "    rows = pl.load(x, [i * 16, 0], [16, 64])",
                "    total = pl.add(acc, rows)",
                "    acc_next = pl.yield_(total)",
                "done = pl.store(acc_next, [0, 0], [16, 64], out)",
                "return done",
            ],
            out,
        ),
        lambda a: {"out": a["x"].reshape(4, 16, 64).sum(axis=0, dtype=np.float32)},
    )
    yield Case(
        "loop_carried_from_a_tile_the_body_reads",
        loop_program(
            [("x", out), ("y", out)],
            [
                "first = pl.load(x, [0, 0], [16, 64])",
                "for i, (acc,) in pl.range(4, init_values=(first,)):",
                "    total = pl.add(first, acc)",
                "    acc_next = pl.yield_(total)",
                "done = pl.store(acc_next, [0, 0], [16, 64], y)",
                "return done",
            ],
            out,
        ),
        lambda a: {"y": a["x"] * np.float32(5)},
    )
    yield Case(
        "loop_stores_windows_at_offsets",
        loop_program(
            [("x", x), ("y", x)],
            [
                "for i in pl.range(4):",
                "    rows = pl.load(x, [i * 16, 0], [16, 64])",
                "    e = pl.exp(rows)",
                "    pl.store(e, [i * 16, 0], [16, 64], y)",
                "return y",
            ],
            x,
        ),
        lambda a: {"y": np.exp(a["x"])},
    )
    yield Case(
        "nested_loops_over_2x2_windows",
        loop_program(
            [("x", x), ("y", x)],
            [
                "for i in pl.range(2):",
                "    for j in pl.range(2):",
                "        w = pl.load(x, [i * 32, j * 32], [32, 32])",
                "        s = pl.mul(w, 2.0)",
                "        pl.store(s, [i * 32, j * 32], [32, 32], y)",
                "return y",
            ],
            x,
        ),
        lambda a: {"y": a["x"] * np.float32(2.0)},
    )
    t = tensor((16, 64), "FP32")
    yield Case(
        "loop_carried_two_tile_fibonacci",
        loop_program(
            [("a", t), ("b", t), ("out_a", t), ("out_b", t)],
            [
                "ta = pl.load(a, [0, 0], [16, 64])",
                "tb = pl.load(b, [0, 0], [16, 64])",
                "for i, (p, q) in pl.range(3, init_values=(ta, tb)):",
                "    r = pl.add(p, q)",
                "    p_next, q_next = pl.yield_(q, r)",
                "sa = pl.store(p_next, [0, 0], [16, 64], out_a)",
                "sb = pl.store(q_next, [0, 0], [16, 64], out_b)",
                "return sb",
            ],
            t,
        ),
        lambda a: {"out_a": a["a"] + 2 * a["b"], "out_b": 2 * a["a"] + 3 * a["b"]},
    )
    yield Case(
        "loop_carried_tile_scaled_each_step",
        loop_program(
            [("a", t), ("out", t)],
            [
                "ta = pl.load(a, [0, 0], [16, 64])",
                "for i, (acc,) in pl.range(3, init_values=(ta,)):",
                "    e = pl.mul(acc, 0.5)",
                "    f = pl.add(e, acc)",
                "    acc_next = pl.yield_(f)",
                "done = pl.store(acc_next, [0, 0], [16, 64], out)",
                "return done",
            ],
            t,
        ),
        lambda a: {"out": (a["a"] * np.float32(1.5) ** 3).astype(np.float32)},
    )
    for flag in (1, -1):
        yield Case(
            f"if_else_yields_tile_flag_{'pos' if flag > 0 else 'neg'}",
            loop_program(
                [("a", t), ("flag", "pl.Scalar[pl.INT64]"), ("out", t)],
                [
                    "ta = pl.load(a, [0, 0], [16, 64])",
                    "if flag > 0:",
                    "    e = pl.exp(ta)",
                    "    r = pl.yield_(e)",
                    "else:",
                    "    n = pl.neg(ta)",
                    "    r = pl.yield_(n)",
                    "done = pl.store(r, [0, 0], [16, 64], out)",
                    "return done",
                ],
                t,
            ),
            lambda a, flag=flag: {"out": np.exp(a["a"]) if flag > 0 else -a["a"]},
            inputs={"flag": np.array(flag, dtype=np.int64)},
        )
    yield Case(
        "scalar_loop_bound_from_parameter",
        loop_program(
            [("a", t), ("n", "pl.Scalar[pl.INT64]"), ("out", t)],
            [
                "ta = pl.load(a, [0, 0], [16, 64])",
                "for i, (acc,) in pl.range(n, init_values=(ta,)):",
                "    f = pl.add(acc, 1.0)",
                "    acc_next = pl.yield_(f)",
                "done = pl.store(acc_next, [0, 0], [16, 64], out)",
                "return done",
            ],
            t,
        ),
        lambda a: {"out": a["a"] + np.float32(int(a["n"]))},
        inputs={"n": np.array(5, dtype=np.int64)},
    )


def floor_division_cases() -> Iterator[Case]:
    """Scalar // and % floor (the DSL's meaning), where C++'s / and % truncate: negative
    parameters and loop indices tell them apart."""
    t = tensor((16, 64), "FP32")
    n = ("n", "pl.Scalar[pl.INT64]")
    for name, count, value, iterations in (
        ("floordiv", "n // 2 + 6", -7, 2),  # floor(-3.5) = -4; truncation gives 3 iterations
        ("floormod", "n % 3", -7, 2),  # -7 % 3 = 2; C's -1 runs no iteration
        ("floordiv_negative_divisor", "n // -2 + 4", 7, 0),  # -4 + 4; truncation: -3 + 4
    ):
        yield Case(
            f"scalar_{name}_as_loop_count",
            loop_program(
                [("a", t), n, ("out", t)],
                [
                    "ta = pl.load(a, [0, 0], [16, 64])",
                    f"for i, (acc,) in pl.range({count}, init_values=(ta,)):",
                    "    f = pl.add(acc, 1.0)",
                    "    acc_next = pl.yield_(f)",
                    "done = pl.store(acc_next, [0, 0], [16, 64], out)",
                    "return done",
                ],
                t,
            ),
            lambda a, iterations=iterations: {"out": a["a"] + np.float32(iterations)},
            inputs={"n": np.array(value, dtype=np.int64)},
        )
    # j // 4 < 0 holds for j = -6..-1 (6 times); truncation makes it -6..-4 only.
    yield Case(
        "loop_index_floordiv_in_condition",
        loop_program(
            [("a", t), ("out", t)],
            [
                "ta = pl.load(a, [0, 0], [16, 64])",
                "for j, (acc,) in pl.range(-6, 6, init_values=(ta,)):",
                "    if j // 4 < 0:",
                "        e = pl.add(acc, 10.0)",
                "        r = pl.yield_(e)",
                "    else:",
                "        g = pl.add(acc, 100.0)",
                "        r = pl.yield_(g)",
                "    acc_next = pl.yield_(r)",
                "done = pl.store(acc_next, [0, 0], [16, 64], out)",
                "return done",
            ],
            t,
        ),
        lambda a: {"out": a["a"] + np.float32(6 * 10 + 6 * 100)},
    )


def all_cases() -> list[Case]:
    from .realistic import bias_cases, norm_cases, scores_cases, short_column_cases  # noqa: I001

    cases = [
        *binary_cases(),
        *scalar_cases(),
        *unary_cases(),
        *reduction_cases(),
        *expand_cases(),
        *cast_cases(),
        *compare_cases(),
        *bitwise_cases(),
        *misc_cases(),
        *matmul_cases(),
        *control_flow_cases(),
        *floor_division_cases(),
        *norm_cases(),
        *scores_cases(),
        *bias_cases(),
        *short_column_cases(),
    ]
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases
