"""The ptoc IR: types, expressions, statements, functions and programs."""

from .dtype import INDEX, DataType, dtype_from_name, promote
from .equality import structural_equal, structural_hash
from .expr import (
    AttrValue,
    Binary,
    BinaryOp,
    Call,
    ConstBool,
    ConstFloat,
    ConstInt,
    Expr,
    GlobalVar,
    IterArg,
    MakeTuple,
    Op,
    Submit,
    TupleGetItem,
    Unary,
    UnaryOp,
    Var,
    const_int,
    make_tuple,
)
from .function import Function, FunctionType, ParamDirection, Program
from .span import NO_SPAN, Span
from .stmt import (
    AssignStmt,
    EvalStmt,
    ForKind,
    ForStmt,
    IfStmt,
    LoopStmt,
    ReturnStmt,
    ScopeKind,
    ScopeStmt,
    SeqStmts,
    Stmt,
    WhileStmt,
    YieldStmt,
    body_stmts,
)
from .types import (
    MEMORY_SPACE_BY_NAME,
    TASK_ID_TYPE,
    UNKNOWN,
    ArrayType,
    BLayout,
    MemorySpace,
    MemRef,
    PadMode,
    ScalarType,
    ShapedType,
    TensorLayout,
    TensorType,
    TileType,
    TileView,
    TupleType,
    Type,
    UnknownType,
)
from .visitor import IRMutator, IRVisitor, children

__all__ = [name for name in dir() if not name.startswith("_")]
