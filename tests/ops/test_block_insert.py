"""``block.insert``: an FP32 Acc tile converted into a window of an FP16 / BF16 Mat tile
(TINSERT Acc -> Mat, the FIX pipe's cast pre-quantisation), which ConvertTensorToBlockOps puts
where a product larger than Acc is cast into a second matmul's operand. Its type rule, its
registration and what the reference interpreter computes for it."""

from __future__ import annotations

import numpy as np
from ir_builder import FP16, FP32, i, ints, tile_t, var
from ops_ir import assert_error, assert_type, deduce, error, opdef

from ptoc.interp.opcall import OpCall
from ptoc.ir import DataType, MemorySpace
from ptoc.ir.span import NO_SPAN
from ptoc.ops import PipeType, Role
from ptoc.ops.registry import op_call
from ptoc.ops.semantics import SEMANTICS

MAT, ACC, VEC = MemorySpace.Mat, MemorySpace.Acc, MemorySpace.Vec
BF16 = DataType.BF16


def mat(rows: int, cols: int, dtype: DataType = BF16, memory: MemorySpace = MAT) -> object:
    return var("cb", tile_t(rows, cols, dtype=dtype, memory=memory))


def acc(rows: int, cols: int, dtype: DataType = FP32) -> object:
    return var("c", tile_t(rows, cols, dtype=dtype, memory=ACC))


def test_the_result_is_the_target_in_mat() -> None:
    found = deduce("block.insert", target=mat(256, 256), source=acc(64, 256), offset=ints(64, 0))
    assert_type(found, tile_t(256, 256, dtype=BF16, memory=MAT))


def test_the_registration() -> None:
    op = opdef("block.insert")
    assert (op.pipe, op.role, op.result_space, op.aliases) == (
        PipeType.FIX,
        Role.MOVE,
        MAT,
        "target",
    )
    assert not op.dsl_visible
    assert (op.cce.instruction, op.cce.operands) == ("TINSERT", ("source", "offset"))
    assert (op.pto.instruction, op.pto.operands) == ("pto.tinsert", ("source", "offset"))


def test_the_window_starts_on_a_fractal_inside_the_target() -> None:
    off_fractal = error(
        "block.insert", target=mat(256, 256), source=acc(64, 256), offset=ints(8, 0)
    )
    assert_error(off_fractal, "E308", "offset", "dimension 0 must start on a fractal (16)")
    outside = error("block.insert", target=mat(256, 256), source=acc(64, 256), offset=ints(224, 0))
    assert_error(outside, "E308", "offset", "[224, 224 + 64) on dimension 0", "inside 256")


def test_only_fp32_acc_converts_into_fp16_or_bf16_mat() -> None:
    same_type = error(
        "block.insert",
        target=mat(64, 64, dtype=FP32),
        source=acc(32, 64),
        offset=ints(0, 0),
    )
    assert_error(same_type, "E320", "target", "converts an FP32 Acc tile into an FP16 or BF16")
    from_fp16 = error(
        "block.insert", target=mat(64, 64), source=acc(32, 64, dtype=FP16), offset=ints(0, 0)
    )
    assert_error(from_fp16, "E320", "target", "not Tile[[32, 64], FP16")
    from_vec = error(
        "block.insert",
        target=mat(64, 64),
        source=var("c", tile_t(32, 64, dtype=FP32, memory=VEC)),
        offset=ints(0, 0),
    )
    assert_error(from_vec, "E320", "source", "must be a tile in Acc")
    into_vec = error(
        "block.insert", target=mat(64, 64, memory=VEC), source=acc(32, 64), offset=ints(0, 0)
    )
    assert_error(into_vec, "E320", "target", "must be a tile in Mat", "load it into Mat")


def test_the_interpreter_rounds_the_window_half_to_even_and_keeps_the_rest() -> None:
    target, source = mat(32, 32, dtype=FP16), acc(16, 32)
    call = op_call(opdef("block.insert"), [target, source, ints(16, 0)], (), NO_SPAN)
    before = np.full((32, 32), 7, np.float16)
    # 1 + 2 ** -11 is halfway between FP16's 1 and its next value: even is 1
    values = np.full((16, 32), 1 + 2.0**-11, np.float32)
    values[0, 0] = 1 + 3 * 2.0**-11  # halfway between 1 + 2 ** -10 and 1 + 2 ** -9: the latter
    after = SEMANTICS["block.insert"](OpCall(call, (before, values, (16, 0))))
    assert after.dtype == np.float16 and np.array_equal(after[:16], before[:16])
    assert np.array_equal(after[17:], np.ones((15, 32), np.float16))
    assert after[16, 0] == np.float16(1 + 2.0**-9) and np.all(after[16, 1:] == 1)
    assert np.all(before == 7)  # (a new value: the target is not changed in place)


def test_the_interpreter_extracts_the_window_the_second_matmul_reads() -> None:
    source = var("m", tile_t(64, 64, dtype=FP16, memory=MAT))
    call = op_call(
        opdef("block.extract"),
        [source, i(0), i(32), ints(64, 32)],
        (("target_memory", MemorySpace.Left),),
        NO_SPAN,
    )
    values = np.arange(64 * 64, dtype=np.float16).reshape(64, 64)
    window = SEMANTICS["block.extract"](OpCall(call, (values, 0, 32, (64, 32))))
    assert np.array_equal(window, values[:, 32:])
