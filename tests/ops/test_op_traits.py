"""The registry's traits drive both back ends and sync insertion: every op of every role is
handled (its instruction appears, or a clear E400 names the op), and no op name is written
anywhere in the compiler or server outside ``ptoc/ops``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from ptoc.codegen import generate_cce, generate_pto
from ptoc.codegen.pto.versions import SUBVIEW
from ptoc.diagnostics import Diagnostic
from ptoc.driver import run_pipeline
from ptoc.editions import Edition
from ptoc.ir import (
    AssignStmt,
    Call,
    ConstFloat,
    DataType,
    EvalStmt,
    Expr,
    Function,
    FunctionType,
    MemorySpace,
    Op,
    Program,
    ScalarType,
    SeqStmts,
    Span,
    Stmt,
    TensorType,
    TileType,
    TupleType,
    Type,
    UnknownType,
    Var,
    const_int,
    make_tuple,
)
from ptoc.ops import REGISTRY, Access, Category, OpDef, OpError, ParamKind, PipeType, Role
from ptoc.ops.registry import VALID_SHAPE_METHOD

ROOT = Path(__file__).resolve().parents[2]
FP32 = DataType.FP32
SPAN = Span("kernel.py", 3, 4, 3, 40)
KERNEL_OPS = [op for op in REGISTRY if op.category is not Category.TENSOR]


def _dtype_for(op: OpDef) -> DataType:
    """An element type the op's rule accepts (integer-only and 16-bit-only families)."""
    if op.name.endswith((".not", ".not_")):
        return DataType.INT16
    if any(word in op.description.lower() for word in ("bitwise", "shift", "integer tile")):
        return DataType.INT32
    return FP32


def _shape(*dims: int) -> Expr:
    return make_tuple(tuple(const_int(d) for d in dims))


class _Kernel:
    """Builds ``def k(src, dst): <tiles>; r = op(...); store r`` around one op call."""

    def __init__(self, op: OpDef) -> None:
        self.op = op
        self.dtype = _dtype_for(op)
        # A2/A3 wants a UINT8 mask of whole 32-byte rows (prelu's tmp, viewed as UINT8)
        self.cols = 32 if op.pto.byte_scratch else 16
        tensor = TensorType((const_int(16), const_int(self.cols)), self.dtype)
        self.src = Var(tensor, name="src")
        self.dst = Var(tensor, name="dst")
        self.body: list[Stmt] = []
        self.count = 0

    def fresh(self, stem: str, type_: Type) -> Var:
        self.count += 1
        return Var(type_, name=f"{stem}{self.count}", span=SPAN)

    def tile(self, space: MemorySpace) -> Var:
        tile_type = TileType((const_int(16), const_int(self.cols)), self.dtype)
        loaded = self.fresh("v", tile_type)
        self.body.append(
            AssignStmt(
                loaded,
                self.call("block.load", [self.src, _shape(0, 0), _shape(16, self.cols)]),
                span=SPAN,
            )
        )
        if space is MemorySpace.Vec:
            return loaded
        moved = self.fresh("m", tile_type)
        self.body.append(
            AssignStmt(moved, self.call("block.move", [loaded], target_memory=space), span=SPAN)
        )
        return moved

    def call(self, op_name: str, args: list[Expr], **kwargs: object) -> Call:
        op = REGISTRY.ops[op_name]
        bound = {p.name: a for p, a in zip(op.expr_params, args, strict=False)}
        try:
            result: Type = op.deduce(bound, dict(kwargs))  # type: ignore[arg-type]
        except OpError:
            result = TileType((const_int(16), const_int(self.cols)), self.dtype)
        return Call(
            result, callee=Op(op_name), args=tuple(args), kwargs=tuple(kwargs.items()), span=SPAN
        )  # type: ignore[arg-type]

    def argument(
        self, name: str, accepts: tuple[str, ...], spaces: tuple[MemorySpace, ...], access: Access
    ) -> Expr:
        kind = accepts[0] if accepts else "scalar"
        if kind == "tensor":
            return self.dst if access is Access.WRITE else self.src
        if kind == "tile":
            return self.tile(spaces[0] if spaces else MemorySpace.Vec)
        if kind == "shape":
            return _shape(0, 0) if "offset" in name else _shape(16, self.cols)
        if self.dtype.is_float:
            return ConstFloat(ScalarType(FP32), value=2.0)
        return const_int(2)

    def attributes(self) -> dict[str, object]:
        samples: dict[str, object] = {
            "dtype": self.dtype,
            "target_type": DataType.FP16,
            "target_memory": MemorySpace.Vec,
            "axis": 1,
            "set_pipe": PipeType.MTE2,
            "wait_pipe": PipeType.V,
            "event_id": 0,
            # 2026-08 ops
            "pipe": PipeType.V,
            "mask_pattern": 1,
            "out_cols": 8,
            "split": 0,
            "dir_mask": 1,
            "slot_size": 512,
            "name": "buf",
            "size": 512,
            "peer_func": "producer",
        }
        return {
            p.name: samples[p.name]
            for p in self.op.params
            if p.kind is ParamKind.ATTR and p.required
        }

    def function(self) -> Function:
        args = [
            self.argument(p.name, p.accepts, p.spaces, p.access)
            for p in self.op.expr_params
            if p.required or p.access is Access.WRITE
        ]
        call = self.call(self.op.name, args, **self.attributes())
        if isinstance(call.type, TileType):
            result = self.fresh("r", call.type)
            self.body.append(AssignStmt(result, call, span=SPAN))
        elif isinstance(call.type, (ScalarType, TensorType, TupleType)):
            self.body.append(AssignStmt(self.fresh("s", call.type), call, span=SPAN))
        else:
            assert isinstance(call.type, UnknownType)
            self.body.append(EvalStmt(call, span=SPAN))
        return Function(
            "k",
            (self.src, self.dst),
            (),
            SeqStmts(tuple(self.body)),
            FunctionType.InCore,
            span=SPAN,
        )


def _names(op: OpDef, target: str) -> list[str]:
    lowering = op.lowering(target)
    # a scalar form's legal A2/A3 form: its tile form with the scalar expanded (pto.tand)
    tile_form = REGISTRY.ops[lowering.tile_form] if lowering.tile_form else None
    names = [
        lowering.instruction,
        lowering.column_form,
        lowering.row_broadcast,
        lowering.col_broadcast,
        tile_form.lowering(target).instruction if tile_form is not None else None,
        lowering.vec_window,  # a window of a Vec tile on A2/A3 (pto.subset) ...
        SUBVIEW if lowering.vec_window else None,  # ... spelled pto.subview by PTOAS v0.57
        # an op A2/A3 has no instruction for, computed as two (AddReductionScratch)
        *(REGISTRY.ops[n].lowering(target).instruction for n in op.pair_form or ()),
    ]
    return [n for n in names if n is not None]


def _errors(diagnostics: list[Diagnostic]) -> list[str]:
    return [f"{d.code} {d.message}" for d in diagnostics if d.code.startswith("E")]


# PTO forms that need what a one-op InCore kernel lacks: a popped tile's type (from its
# annotation) and a reserved buffer's core (an AIC / AIV function). They say so (E400 naming the
# op); tests/ptoas/test_ptoas_pipes.py writes them in context and PTOAS accepts them.
NEEDS_CONTEXT = {"system.tpop_from_aic", "system.tpop_from_aiv", "system.reserve_buffer"}


@pytest.mark.parametrize("op", KERNEL_OPS, ids=lambda op: op.name)
@pytest.mark.parametrize("target", ["cce", "pto"])
def test_every_op_is_handled_by_both_back_ends(op: OpDef, target: str) -> None:
    program = Program("p", (_Kernel(op).function(),))
    # InsertSync replaces the sync ops it finds: keep a sync op under test out of its way.
    pipeline = run_pipeline(program, "default" if target == "cce" and not op.is_sync else "ptoas")
    assert not [e for e in _errors(pipeline.diagnostics) if e.startswith("E9")]
    generate = generate_cce if target == "cce" else generate_pto
    result = generate(pipeline.program)
    errors = _errors(result.diagnostics)
    assert not [e for e in errors if e.startswith("E9")], errors
    lowering = op.lowering(target)
    if lowering.elided:
        return
    if target == "pto" and op.name in NEEDS_CONTEXT:  # (tests/ptoas/test_ptoas_pipes.py)
        assert [e for e in errors if e.startswith(f"E400 {op.name}: ")], errors
        return
    if lowering.instruction is None:  # says so in its registration; the back end says why
        assert lowering.note
        assert any(e.startswith("E400") and op.name in e for e in errors), errors
        return
    emitted = [
        n
        for n in _names(op, target)
        if re.search(rf"(?<![\w.]){re.escape(n)}\b", result.text)
        # a Tile method (set_validshape's r.SetValidShape(rows, cols))
        or (n == VALID_SHAPE_METHOD and f".{n}(" in result.text)
    ]
    assert emitted, (errors, result.text)


def test_every_role_is_in_use_and_every_op_has_one() -> None:
    used = {op.role for op in REGISTRY}
    assert used == set(Role)


def test_written_operands_are_declared_on_the_registration() -> None:
    writers = {
        op.name: op.written_params
        for op in KERNEL_OPS
        if op.written_params and op.since is Edition.V2026_03
    }
    assert writers == {
        "block.store": ("output_tensor",),
        "block.l0c_store": ("output_tensor",),
        "block.xor": ("tmp",),
        "block.xors": ("tmp",),
        "block.prelu": ("tmp",),
        "block.row_sum": ("tmp_tile",),
        "block.row_max": ("tmp_tile",),
        "block.row_min": ("tmp_tile",),
        "block.select_scalar": ("tmp",),
        "block.select_tiles": ("tmp",),
        "block.transpose_scratch": ("tmp",),
    }


def test_sync_insertion_sees_a_written_scratch_operand() -> None:
    # row_sum writes its scratch tile on the vector pipe; a vector op that then reads the
    # scratch tile reads what the same pipe just wrote: it needs a V barrier before it.
    kernel = _Kernel(REGISTRY.ops["block.row_sum"])
    a, tmp = kernel.tile(MemorySpace.Vec), kernel.tile(MemorySpace.Vec)
    rows = kernel.fresh("rows", TileType((const_int(16), const_int(1)), FP32))
    kernel.body.append(AssignStmt(rows, kernel.call("block.row_sum", [a, tmp]), span=SPAN))
    doubled = kernel.fresh("d", TileType((const_int(16), const_int(16)), FP32))
    kernel.body.append(AssignStmt(doubled, kernel.call("block.add", [tmp, tmp]), span=SPAN))
    function = Function(
        "k",
        (kernel.src, kernel.dst),
        (),
        SeqStmts(tuple(kernel.body)),
        FunctionType.InCore,
        span=SPAN,
    )
    text = generate_cce(run_pipeline(Program("p", (function,)), "default").program).text
    body = text.split("// Function body", 1)[1]
    row_sum, barrier, add = (body.index(s) for s in ("TROWSUM(", "pipe_barrier(PIPE_V)", "TADD("))
    assert row_sum < barrier < add


def test_barriers_exist_for_the_target_barrier_pipes() -> None:
    from ptoc.passes.target import Target

    for pipe in Target().barrier_pipes:
        barrier = REGISTRY.barrier(pipe)
        assert barrier is not None and barrier.role is Role.BARRIER


# --- no op name outside ptoc/ops -------------------------------------------------------------

_OP_NAMES = {op.name for op in REGISTRY}


def _string_literals(path: Path) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
    ]


def test_no_op_name_is_a_string_literal_outside_the_registry() -> None:
    sources = [
        *(ROOT / "compiler" / "ptoc").rglob("*.py"),
        *(ROOT / "server" / "ptols").rglob("*.py"),
    ]
    ops_dir = ROOT / "compiler" / "ptoc" / "ops"
    found = []
    for path in sources:
        if ops_dir in path.parents:
            continue
        for line, text in _string_literals(path):
            if text in _OP_NAMES or re.fullmatch(r"(block|tensor|system)\.[a-z_]+", text):
                found.append(f"{path.relative_to(ROOT)}:{line}: {text!r}")
    assert found == []
