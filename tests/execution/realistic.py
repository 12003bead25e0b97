"""Forms of realistic kernels that once compiled in ptoc and failed only at clang (issue 29):
normalisation statistics (RMSNorm, LayerNorm), [16, 1] column vectors scaled by scalars
(TMULS, TDIVS, TADDS) and element-wise ops, which pto-isa runs on row-major tiles only; and
attention scores ``q @ kᵀ`` through ``move(k, Right, transpose=True)``, whose Right operand
TMATMUL reads in one layout; and ``matmul_bias`` of a bias row loaded into Mat, which
TMATMUL_BIAS reads from the bias table (Bias) only."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .matrix import MAT, Case, cast, program, simple, tensor

ROW_SUM = ["t_tmp = pl.create_tile([16, 64], dtype=pl.FP32)"]


def mean_square(a: np.ndarray) -> np.ndarray:
    return (a * a).sum(axis=1, keepdims=True, dtype=np.float32) * np.float32(1 / 64)


def norm_cases() -> Iterator[Case]:
    yield simple(
        "row_mean_square_muls_FP32",
        [("a", (16, 64), "FP32")],
        [*ROW_SUM, "t_sq = pl.mul(t_a, t_a)", "t_s = pl.row_sum(t_sq, t_tmp)"]
        + ["t_c = pl.mul(t_s, 0.015625)"],
        "t_c",
        (16, 1),
        "FP32",
        lambda a: cast(mean_square(a["a"]), "FP32"),
    )
    yield simple(
        "row_mean_divs_FP32",
        [("a", (16, 64), "FP32")],
        [*ROW_SUM, "t_s = pl.row_sum(t_a, t_tmp)", "t_c = pl.div(t_s, 64.0)"],
        "t_c",
        (16, 1),
        "FP32",
        lambda a: cast(a["a"].sum(axis=1, keepdims=True, dtype=np.float32) / 64, "FP32"),
    )
    yield simple(
        "rms_norm_FP32",
        [("a", (16, 64), "FP32")],
        [*ROW_SUM, "t_sq = pl.mul(t_a, t_a)", "t_s = pl.row_sum(t_sq, t_tmp)"]
        + ["t_m = pl.mul(t_s, 0.015625)", "t_e = pl.add(t_m, 0.000001)", "t_r = pl.rsqrt(t_e)"]
        + ["t_c = pl.row_expand_mul(t_a, t_r)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: cast(a["a"] / np.sqrt(mean_square(a["a"]) + np.float32(1e-6)), "FP32"),
    )
    yield simple(
        "layer_norm_FP32",
        [("a", (16, 64), "FP32")],
        [*ROW_SUM, "t_s = pl.row_sum(t_a, t_tmp)", "t_mean = pl.div(t_s, 64.0)"]
        + ["t_d = pl.row_expand_sub(t_a, t_mean)", "t_sq = pl.mul(t_d, t_d)"]
        + ["t_v = pl.row_sum(t_sq, t_tmp)", "t_var = pl.mul(t_v, 0.015625)"]
        + ["t_e = pl.add(t_var, 0.00001)", "t_r = pl.rsqrt(t_e)"]
        + ["t_c = pl.row_expand_mul(t_d, t_r)"],
        "t_c",
        (16, 64),
        "FP32",
        lambda a: cast(layer_norm(a["a"]), "FP32"),
    )


def short_column_cases() -> Iterator[Case]:
    """Row statistics of 4 FP32 rows: a 16-byte column, declared padded to the 32-byte block
    pto-isa's tiles hold a column in (valid rows 4)."""
    yield simple(
        "row_scale_FP32_4x1_loaded",
        [("a", (4, 64), "FP32"), ("r", (4, 1), "FP32")],
        ["t_e = pl.add(t_r, 1.0)", "t_c = pl.row_expand_mul(t_a, t_e)"],
        "t_c",
        (4, 64),
        "FP32",
        lambda a: cast(a["a"] * (a["r"] + np.float32(1)), "FP32"),
    )
    yield simple(
        "row_max_FP32_4x1_scaled",
        [("a", (4, 64), "FP32")],
        ["t_tmp = pl.create_tile([4, 64], dtype=pl.FP32)", "t_m = pl.row_max(t_a, t_tmp)"]
        + ["t_c = pl.mul(t_m, 0.5)"],
        "t_c",
        (4, 1),
        "FP32",
        lambda a: cast(a["a"].max(axis=1, keepdims=True) * np.float32(0.5), "FP32"),
    )
    yield simple(  # TROWSUM reads its source through a view of the result's padded rows
        "row_mean_FP32_4x1",
        [("a", (4, 64), "FP32")],
        ["t_tmp = pl.create_tile([4, 64], dtype=pl.FP32)", "t_s = pl.row_sum(t_a, t_tmp)"]
        + ["t_c = pl.mul(t_s, 0.015625)"],
        "t_c",
        (4, 1),
        "FP32",
        lambda a: cast(a["a"].sum(axis=1, keepdims=True, dtype=np.float32) / 64, "FP32"),
    )


def layer_norm(a: np.ndarray) -> np.ndarray:
    centered = a - a.sum(axis=1, keepdims=True, dtype=np.float32) / np.float32(64)
    variance = mean_square(centered)
    return centered / np.sqrt(variance + np.float32(1e-5))


def cube_program(inputs: list[tuple[str, tuple[int, int], str]], compute: list[str]) -> str:
    """Each input loaded whole into Mat (``<name>_mat``), ``compute``, and ``acc`` stored
    into ``c`` ([rows of the first input, ...] FP32, the last parameter)."""
    *sources, (_, out_shape, _) = inputs
    params = [(name, tensor(shape, dtype)) for name, shape, dtype in inputs]
    body = [f"{n}_mat = pl.load({n}, [0, 0], [{r}, {c}], {MAT})" for n, (r, c), _ in sources]
    body += [*compute, f"out = pl.l0c_store(acc, [0, 0], {list(out_shape)}, c)", "return out"]
    return program(params, body, tensor(out_shape, "FP32"))


LEFT, RIGHT = "target_memory=pl.MemorySpace.Left", "target_memory=pl.MemorySpace.Right"


def scores_cases() -> Iterator[Case]:
    """``q @ kᵀ`` with q and k both [rows, d] in DDR."""
    for dtype, rows, d in (("FP16", 16, 32), ("FP32", 16, 32), ("FP16", 32, 64)):
        inputs = [("q", (rows, d), dtype), ("k", (rows, d), dtype), ("c", (rows, rows), "FP32")]
        compute = [
            f"q_left = pl.move(q_mat, {LEFT})",
            f"k_right = pl.move(k_mat, {RIGHT}, transpose=True)",
            "acc = pl.matmul(q_left, k_right)",
        ]
        yield Case(
            f"scores_q_kT_{dtype}_{rows}x{d}",
            cube_program(inputs, compute),
            lambda a: {"c": cast(a["q"].astype(np.float64) @ a["k"].astype(np.float64).T, "FP32")},
        )


def bias_cases() -> Iterator[Case]:
    """``a @ b + bias`` with the bias row loaded into Mat, as a kernel writes it."""
    for m, k, n in ((16, 32, 64), (32, 64, 32)):
        inputs = [
            ("a", (m, k), "FP16"),
            ("b", (k, n), "FP16"),
            ("bias", (1, n), "FP32"),
            ("c", (m, n), "FP32"),
        ]
        compute = [
            f"a_left = pl.move(a_mat, {LEFT})",
            f"b_right = pl.move(b_mat, {RIGHT})",
            "acc = pl.matmul_bias(a_left, b_right, bias_mat)",
        ]
        yield Case(
            f"matmul_bias_FP16_{m}x{k}x{n}",
            cube_program(inputs, compute),
            lambda a: {"c": cast(a["a"].astype(np.float64) @ a["b"] + a["bias"], "FP32")},
        )
