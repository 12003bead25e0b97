"""Sample kernels for the pass tests, built with ``ir_builder`` (every node on a line of its
own), and a compact text rendering to assert on."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from typing import Any

from ir_builder import (
    BOOL,
    FP16,
    FP32,
    INDEX,
    INT64,
    Builder,
    FreshLines,
    tensor_t,
    tile_t,
)

from ptoc import driver
from ptoc.codegen import generate_cce, generate_pto
from ptoc.frontend import analyze_source
from ptoc.ir import (
    AssignStmt,
    Binary,
    Call,
    ConstInt,
    EvalStmt,
    Expr,
    ForStmt,
    Function,
    IfStmt,
    IterArg,
    MakeTuple,
    ReturnStmt,
    SeqStmts,
    Stmt,
    Var,
    YieldStmt,
    const_int,
)
from ptoc.ir.types import ShapedType

__all__ = ["BOOL", "FP16", "FP32", "INDEX", "INT64", "tensor_t", "tile_t"]

#: Every node on a line of its own, so tests can check that passes keep (and derive) spans.
span = FreshLines()
_BUILD = Builder(spans=span)
var, ints, mul, gt, op = _BUILD.var, _BUILD.ints, _BUILD.mul, _BUILD.gt, _BUILD.op
assign, seq, function, program = _BUILD.assign, _BUILD.seq, _BUILD.function, _BUILD.program
for_, eval_, yield_ = _BUILD.for_, _BUILD.eval_, _BUILD.yield_


# --- the three kernels -------------------------------------------------------------------------


def simple_add() -> Function:
    """Seed 000's simple_add: load x, load y, add, store."""
    x, y, output = (var(n, tensor_t(128, 64)) for n in ("x", "y", "output"))
    tx = assign("tile_x", op("block.load", x, ints(0, 0), ints(128, 64)))
    ty = assign("tile_y", op("block.load", y, ints(0, 0), ints(128, 64)))
    tz = assign("tile_z", op("block.add", tx.var, ty.var))
    result = assign("result", op("block.store", tz.var, ints(0, 0), ints(128, 64), output))
    return function(
        "simple_add",
        [x, y, output],
        [tx, ty, tz, result, ReturnStmt((result.var,), span=span())],
        returns=[output.type],
    )


def loop_kernel() -> Function:
    """Four 128-row blocks: load, load, add, store into the loop-carried output tensor."""
    x, y, out = (var(n, tensor_t(512, 64)) for n in ("x", "y", "out"))
    i = var("i", INDEX)
    acc = IterArg(out.type, name="acc", init_value=out, span=span())
    tx = assign("tx", op("block.load", x, ints(mul(i, 128), 0), ints(128, 64)))
    ty = assign("ty", op("block.load", y, ints(mul(i, 128), 0), ints(128, 64)))
    tz = assign("tz", op("block.add", tx.var, ty.var))
    stored = assign("stored", op("block.store", tz.var, ints(mul(i, 128), 0), ints(128, 64), acc))
    result = var("result", out.type)
    loop = ForStmt(
        i,
        const_int(0),
        const_int(4),
        const_int(1),
        seq(tx, ty, tz, stored, YieldStmt((stored.var,), span=span())),
        iter_args=(acc,),
        return_vars=(result,),
        span=span(),
    )
    return function(
        "loop_kernel", [x, y, out], [loop, ReturnStmt((result,), span=span())], returns=[out.type]
    )


def if_kernel() -> Function:
    """Load once; add or multiply depending on n; store in both branches."""
    x, out = var("x", tensor_t(128, 64)), var("out", tensor_t(128, 64))
    n = var("n", INDEX)
    tx = assign("tx", op("block.load", x, ints(0, 0), ints(128, 64)))
    t_sum = assign("t_sum", op("block.add", tx.var, tx.var))
    s1 = assign("s1", op("block.store", t_sum.var, ints(0, 0), ints(128, 64), out))
    t_prod = assign("t_prod", op("block.mul", tx.var, tx.var))
    s2 = assign("s2", op("block.store", t_prod.var, ints(0, 0), ints(128, 64), out))
    r = var("r", out.type)
    branch = IfStmt(
        gt(n, 0),
        seq(t_sum, s1, YieldStmt((s1.var,), span=span())),
        seq(t_prod, s2, YieldStmt((s2.var,), span=span())),
        return_vars=(r,),
        span=span(),
    )
    return function(
        "if_kernel", [x, out, n], [tx, branch, ReturnStmt((r,), span=span())], returns=[out.type]
    )


def accumulating_loop() -> tuple[Function, ForStmt]:
    """acc = load; for i: part = load; acc = add(acc, part) -- in the leaking DSL form, where
    the body refers to the first acc."""
    x = var("x", tensor_t(128, 32))
    i = var("i", INDEX)
    acc0 = assign("acc", op("block.load", x, ints(0, 0), ints(32, 32)))
    part = assign("part", op("block.load", x, ints(mul(i, 32), 0), ints(32, 32)))
    acc1 = assign("acc", op("block.add", acc0.var, part.var))
    loop = ForStmt(i, const_int(0), const_int(4), const_int(1), seq(part, acc1), span=span())
    fn = function(
        "k", [x], [acc0, loop, ReturnStmt((acc1.var,), span=span())], returns=[acc1.var.type]
    )
    return fn, loop


# The same in DSL source, followed by an if and a store loop whose result is used after it.
LEAKY = textwrap.dedent("""\
    import pypto.language as pl


    @pl.program
    class K:
        @pl.function(type=pl.FunctionType.InCore)
        def k(
            self,
            x: pl.Tensor[[128, 64], pl.FP32],
            out: pl.Tensor[[128, 64], pl.FP32],
            n: pl.Scalar[pl.INT64],
        ) -> pl.Tensor[[128, 64], pl.FP32]:
            acc = pl.load(x, [0, 0], [32, 64])
            for i in pl.range(4):
                t = pl.load(x, [i * 32, 0], [32, 64])
                acc = pl.add(acc, t)
            if n > 0:
                acc = pl.mul(acc, acc)
            for j in pl.range(4):
                r = pl.store(acc, [j * 32, 0], [32, 64], out)
            return r
    """)


# --- rendering -------------------------------------------------------------------------------


def _memref(v: Expr) -> str:
    t = v.type
    m = t.memref if isinstance(t, ShapedType) else None
    if m is None:
        return ""
    addr = "" if m.addr is None else f"@{m.addr:#x}"
    return f"[{m.memory_space.name}#{m.id}{addr}]"


def expr_text(e: Expr) -> str:
    if isinstance(e, Var):
        return e.name
    if isinstance(e, ConstInt):
        return str(e.value)
    if isinstance(e, Binary):
        return f"{expr_text(e.lhs)} {e.op.symbol} {expr_text(e.rhs)}"
    if isinstance(e, MakeTuple):
        return "[" + ", ".join(expr_text(x) for x in e.elements) + "]"
    if isinstance(e, Call):
        kw: dict[str, Any] = dict(e.kwargs)
        if e.op_name in ("system.sync_src", "system.sync_dst"):
            short = e.op_name.split(".")[1]
            return f"{short}({kw['set_pipe'].name}->{kw['wait_pipe'].name}, event={kw['event_id']})"
        args = [expr_text(a) for a in e.args]
        args += [f"{k}={getattr(v, 'name', v)}" for k, v in e.kwargs]
        return f"{e.op_name}({', '.join(args)})"
    return type(e).__name__


def render(stmt: Stmt | None, memrefs: bool = False, indent: str = "") -> Iterator[str]:
    """One line per statement; nested bodies indented by two spaces."""

    def name(v: Var) -> str:
        return v.name + (_memref(v) if memrefs else "")

    if stmt is None:
        return
    if isinstance(stmt, SeqStmts):
        for s in stmt.stmts:
            yield from render(s, memrefs, indent)
    elif isinstance(stmt, AssignStmt):
        yield f"{indent}{name(stmt.var)} = {expr_text(stmt.value)}"
    elif isinstance(stmt, EvalStmt):
        yield f"{indent}{expr_text(stmt.expr)}"
    elif isinstance(stmt, YieldStmt):
        yield f"{indent}yield {', '.join(expr_text(v) for v in stmt.values)}".rstrip()
    elif isinstance(stmt, ReturnStmt):
        yield f"{indent}return {', '.join(expr_text(v) for v in stmt.values)}".rstrip()
    elif isinstance(stmt, ForStmt):
        carried = ", ".join(
            f"{name(a)}={expr_text(a.init_value)}"
            for a in stmt.iter_args
            if a.init_value is not None
        )
        results = ", ".join(name(v) for v in stmt.return_vars)
        head = f"for {stmt.loop_var.name} in {expr_text(stmt.start)}..{expr_text(stmt.stop)}"
        if carried:
            head += f" carry({carried}) -> {results}"
        yield f"{indent}{head}:"
        yield from render(stmt.body, memrefs, indent + "  ")
    elif isinstance(stmt, IfStmt):
        results = ", ".join(name(v) for v in stmt.return_vars)
        yield f"{indent}if {expr_text(stmt.condition)}" + (f" -> {results}:" if results else ":")
        yield from render(stmt.then_body, memrefs, indent + "  ")
        if stmt.else_body is not None:
            yield f"{indent}else:"
            yield from render(stmt.else_body, memrefs, indent + "  ")
    else:
        yield f"{indent}{type(stmt).__name__}"


def lines(fn: Function, memrefs: bool = False) -> list[str]:
    return list(render(fn.body, memrefs))


def both_targets(source: str) -> tuple[str, str]:
    """The CCE C++ and the PTO MLIR of a one-program source, each through its target's
    pipeline; neither the passes nor the generators may report a problem."""
    (program,) = analyze_source(source, "k.py").all_programs()
    texts = []
    for pipeline, generate in (("default", generate_cce), ("ptoas", generate_pto)):
        lowered = driver.run_pipeline(program, pipeline)
        assert not lowered.has_errors
        generated = generate(lowered.program)
        assert generated.diagnostics == []
        texts.append(generated.text)
    cce, pto = texts
    return cce, pto
