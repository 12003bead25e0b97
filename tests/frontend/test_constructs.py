"""Every statement and expression form of the DSL lowers to the expected IR."""

from __future__ import annotations

from frontend_helpers import analyze, codes, only_function

from ptoc.ir import (
    AssignStmt,
    Binary,
    BinaryOp,
    Call,
    ConstFloat,
    ConstInt,
    DataType,
    EvalStmt,
    ForKind,
    ForStmt,
    FunctionType,
    GlobalVar,
    IfStmt,
    ParamDirection,
    ReturnStmt,
    ScalarType,
    ScopeStmt,
    SeqStmts,
    TensorType,
    TileType,
    TupleGetItem,
    TupleType,
    WhileStmt,
    YieldStmt,
    body_stmts,
)
from ptoc.ir.shape import shape_str

T64 = "pl.Tensor[[64, 64], pl.FP32]"


def stmts(fn):
    return body_stmts(fn.body)


def test_program_with_incore_function_and_tile_ops():
    a = analyze(f"""
        @pl.program
        class Prog:
            @pl.function(type=pl.FunctionType.InCore)
            def k(self, a: {T64}, out: pl.Out[{T64}]) -> {T64}:
                t = pl.load(a, [0, 0], [64, 64])
                u = pl.add(t, t)
                r = pl.store(u, [0, 0], [64, 64], out)
                return r
    """)
    assert codes(a) == []
    (program,) = a.programs
    assert program.name == "Prog"
    (fn,) = program.functions
    assert fn.func_type is FunctionType.InCore
    assert [p.name for p in fn.params] == ["a", "out"]
    assert fn.param_directions == (ParamDirection.In, ParamDirection.Out)
    load, add, store, ret = stmts(fn)
    assert isinstance(load, AssignStmt) and isinstance(load.value, Call)
    assert load.value.op_name == "block.load"
    assert isinstance(load.var.type, TileType) and shape_str(load.var.type.shape) == "[64, 64]"
    assert add.value.op_name == "block.add"
    assert store.value.op_name == "block.store"
    assert isinstance(store.var.type, TensorType)
    assert isinstance(ret, ReturnStmt) and ret.values == (store.var,)


def test_module_constants_and_dynamic_dims_in_annotations():
    a = analyze("""
        M = 32 * 2
        N = pl.dynamic("N")
        DT = pl.FP16
        SHAPE = [M, 128]

        @pl.function
        def f(self_less: pl.Tensor[[N, M], DT], b: pl.Tensor[SHAPE, pl.FP16], c: pl.Tensor[[N, M], DT]):
            d = pl.add(self_less, c)
            return d
    """)
    assert codes(a) == []
    fn = only_function(a)
    p0, p1, p2 = fn.params
    assert shape_str(p0.type.shape) == "[N, 64]" and p0.type.dtype is DataType.FP16
    assert shape_str(p1.type.shape) == "[64, 128]"
    # both uses of pl.dynamic("N") are the same dimension: the add type-checks
    (assign, _ret) = stmts(fn)
    assert shape_str(assign.var.type.shape) == "[N, 64]"


def test_scalar_arithmetic_types():
    a = analyze("""
        @pl.function
        def f(n: pl.Scalar[pl.INT32], x: pl.Scalar[pl.FP32]) -> pl.Scalar[pl.FP32]:
            m = n * 4 + 1
            y = x * 2
            z = pl.const(3, pl.INT16)
            b = m > 2
            return y
    """)
    assert codes(a) == []
    m, y, z, b, _ = stmts(fn := only_function(a))
    assert isinstance(m.value, Binary) and m.value.op is BinaryOp.Add
    assert m.var.type == ScalarType(DataType.INT64)  # INT32 * INT64 literal -> the wider
    assert y.var.type == ScalarType(DataType.FP32)
    assert isinstance(y.value.rhs, ConstFloat)  # the int literal adopts the float type
    assert isinstance(z.value, ConstInt) and z.value.type == ScalarType(DataType.INT16)
    assert b.var.type == ScalarType(DataType.BOOL)
    assert fn.return_types == (ScalarType(DataType.FP32),)


def test_for_loop_with_iter_args_and_yield():
    a = analyze("""
        @pl.function
        def loop_sum(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            sum_init: pl.Scalar[pl.INT64] = 0
            for i, (s, p) in pl.range(0, n, 1, init_values=(sum_init, sum_init)):
                s2, p2 = pl.yield_(s + i, p * i)
            return s2
    """)
    assert codes(a) == []
    init, loop, ret = stmts(only_function(a))
    assert isinstance(loop, ForStmt) and loop.kind is ForKind.Sequential
    assert [a.name for a in loop.iter_args] == ["s", "p"]
    assert loop.iter_args[0].init_value is init.var
    assert [v.name for v in loop.return_vars] == ["s2", "p2"]
    assert isinstance(body_stmts(loop.body)[-1], YieldStmt)
    assert ret.values == (loop.return_vars[0],)


def test_range_forms_and_parallel():
    a = analyze("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            for i in pl.range(n):
                x = i + 1
            for j in pl.parallel(2, n):
                y = j + 1
            for k in range(0, 8, 2):
                z = k
            w = x + y
    """)
    assert codes(a) == []
    l1, l2, l3, w = stmts(only_function(a))
    assert (l1.start.value, l1.step.value) == (0, 1)
    assert l2.kind is ForKind.Parallel and l2.start.value == 2
    assert (l3.start.value, l3.stop.value, l3.step.value) == (0, 8, 2)
    # names assigned in a loop body without yields stay visible afterwards
    assert isinstance(w.value, Binary)


def test_if_else_with_yield_and_annotation():
    a = analyze("""
        @pl.function
        def cond(x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            if x > 0:
                y1: pl.Scalar[pl.INT64] = pl.yield_(x * 2)
            else:
                y1: pl.Scalar[pl.INT64] = pl.yield_(x * 3)
            return y1
    """)
    assert codes(a) == []
    branch, ret = stmts(only_function(a))
    assert isinstance(branch, IfStmt)
    assert [v.name for v in branch.return_vars] == ["y1"]
    assert ret.values == branch.return_vars


def test_elif_chain_yields_through_nested_if():
    a = analyze("""
        @pl.function
        def f(x: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            if x > 0:
                r = pl.yield_(x)
            elif x < -5:
                r = pl.yield_(x * 2)
            else:
                r = pl.yield_(x * 3)
            return r
    """)
    assert codes(a) == []
    outer, ret = stmts(only_function(a))
    inner = body_stmts(outer.else_body)
    assert isinstance(inner[0], IfStmt) and isinstance(inner[1], YieldStmt)
    assert inner[1].values == inner[0].return_vars


def test_while_loop_with_cond_and_natural_while():
    a = analyze("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]) -> pl.Scalar[pl.INT64]:
            for (i, acc) in pl.while_(init_values=(0, 0)):
                pl.cond(i < n)
                i2, acc2 = pl.yield_(i + 1, acc + i)
            k = 0
            while k < n:
                k = k + 1
            return acc2
    """)
    assert codes(a) == []
    loop, k, natural, ret = stmts(only_function(a))
    assert isinstance(loop, WhileStmt) and [a.name for a in loop.iter_args] == ["i", "acc"]
    assert isinstance(loop.condition, Binary) and loop.condition.op is BinaryOp.Lt
    assert [v.name for v in loop.return_vars] == ["i2", "acc2"]
    assert isinstance(natural, WhileStmt) and natural.iter_args == ()


def test_incore_scope_and_expression_statement():
    a = analyze(f"""
        @pl.function
        def f(a: {T64}, out: {T64}):
            with pl.incore():
                t = pl.load(a, [0, 0], [64, 64])
                pl.store(t, [0, 0], [64, 64], out)
    """)
    assert codes(a) == []
    (scope,) = stmts(only_function(a))
    assert isinstance(scope, ScopeStmt)
    load, store = body_stmts(scope.body)
    assert isinstance(store, EvalStmt) and store.expr.op_name == "block.store"


def test_self_calls_in_any_order_are_typed():
    a = analyze(f"""
        @pl.program
        class P:
            @pl.function
            def main(self, a: {T64}) -> {T64}:
                b = self.helper(a)
                c = pl.add(b, a)
                return c

            @pl.function
            def helper(self, x: {T64}) -> {T64}:
                return x
    """)
    assert codes(a) == []
    main = a.programs[0].functions[0]
    call_stmt = stmts(main)[0]
    assert isinstance(call_stmt.value.callee, GlobalVar) and call_stmt.value.callee.name == "helper"
    assert isinstance(call_stmt.var.type, TensorType)


def test_tuple_returns_and_unpacking():
    a = analyze(f"""
        @pl.program
        class P:
            @pl.function
            def two(self, x: {T64}) -> tuple[{T64}, {T64}]:
                return x, x

            @pl.function
            def main(self, a: {T64}) -> {T64}:
                p, q = self.two(a)
                r = pl.add(p, q)
                return r
    """)
    assert codes(a) == []
    two, main = a.programs[0].functions
    assert len(two.return_types) == 2
    tmp, p, q, r, ret = stmts(main)
    assert isinstance(tmp.var.type, TupleType)
    assert isinstance(p.value, TupleGetItem) and p.value.index == 0 and q.value.index == 1


def test_inline_function_is_expanded():
    a = analyze(f"""
        @pl.inline
        def double(t):
            u = pl.add(t, t)
            return u

        @pl.function
        def f(a: {T64}) -> {T64}:
            t = pl.load(a, [0, 0], [64, 64])
            d = double(t)
            r = pl.store(d, [0, 0], [64, 64], a)
            return r
    """)
    assert codes(a) == []
    load, inner, d, store, ret = stmts(only_function(a))
    assert inner.var.name == "u" and inner.value.op_name == "block.add"
    assert d.value is inner.var


def test_standalone_function_called_from_program_is_appended():
    a = analyze(f"""
        @pl.function
        def helper(x: {T64}) -> {T64}:
            return x

        @pl.program
        class P:
            @pl.function
            def main(self, a: {T64}) -> {T64}:
                b = helper(a)
                return b
    """)
    assert codes(a) == []
    (program,) = a.programs
    assert [f.name for f in program.functions] == ["main", "helper"]


def test_printed_ir_module_form_with_header():
    a = analyze(
        """
        # pypto.program: my_program
        import pypto.language as pl

        def add(x: pl.INT64, y: pl.INT64) -> pl.INT64:
            z: pl.INT64 = x + y
            return z

        def compute(a: pl.INT64, b: pl.INT64) -> pl.INT64:
            temp1: pl.INT64 = add(a, b)
            temp2: pl.INT64 = temp1 * 2
            return temp2
    """,
        header=False,
    )
    assert codes(a) == []
    (program,) = a.programs
    assert program.name == "my_program"
    assert [f.name for f in program.functions] == ["add", "compute"]


def test_alias_and_from_imports():
    a = analyze(
        """
        import pypto.language as ptl
        from pypto.language import Tensor, FP32

        @ptl.function
        def f(a: Tensor[[8], FP32]) -> ptl.Tensor[[8], ptl.FP32]:
            b = ptl.tensor.add(a, a)
            return b
    """,
        header=False,
    )
    assert codes(a) == []
    assert a.prefix == "ptl"


def test_plain_python_file_gets_nothing():
    a = analyze(
        """
        def f(x):
            return x +
    """,
        header=False,
    )
    assert a.uses_pypto is False
    assert a.diagnostics == []


def test_seq_stmts_for_multi_statement_bodies():
    a = analyze("""
        @pl.function
        def f(n: pl.Scalar[pl.INT64]):
            a = n + 1
            b = a + 1
    """)
    fn = only_function(a)
    assert isinstance(fn.body, SeqStmts) and len(fn.body.stmts) == 2


def test_a_file_that_only_mentions_the_module_is_not_a_kernel_file():
    a = analyze(
        '''
        """Helpers for code that uses pypto.language elsewhere."""
        import modal

        app = modal.App()

        @app.function
        def f(x):
            return x + 1
    ''',
        header=False,
    )
    assert a.uses_pypto is False
    assert a.diagnostics == []
