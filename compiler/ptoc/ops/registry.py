"""The operator registry: one registration per op, the single source of truth.

A registration holds the op's IR name, its DSL spellings, category, parameters (with docs,
defaults, whether the op reads or writes each operand and where a tile operand may live), its
type-deduction rule, a description, its traits (role, the hardware pipe that executes it,
where its result lives, which operand its result aliases, its scalar form, how the unified
``pl.X`` name dispatches to it), how it lowers on each target, and where in ptoc's source it is
registered (for go-to-definition). The front end, the passes, both code generators, hover,
completion, signature help and the docs generator all read it; no other module keeps a list
of op names.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import Enum
from types import CodeType
from typing import TYPE_CHECKING, Any, NoReturn

from .. import records
from ..editions import RULES, Edition
from ..enums import IdentityEnum
from ..ir.dtype import DataType
from ..ir.expr import AttrValue, Call, Expr, MakeTuple, Op, Var, const_int
from ..ir.shape import shapes_equal
from ..ir.span import Span
from ..ir.types import (
    UNKNOWN,
    MemorySpace,
    PrefetchHandleType,
    ScalarType,
    ShapedType,
    TensorType,
    TileType,
    TileView,
    Type,
    UnknownType,
)
from ..records import field, record

if TYPE_CHECKING:
    from .lazy import DeferredOps


class Category(Enum):
    TENSOR = "TensorOp"
    BLOCK = "BlockOp"
    SYNC = "SyncOp"


class PipeType(IdentityEnum):
    """Hardware pipes (the original's PipeType): who executes an op, for sync insertion."""

    MTE1 = 0
    MTE2 = 1
    MTE3 = 2
    M = 3
    V = 4
    S = 5
    FIX = 6
    ALL = 7


class Role(IdentityEnum):
    """What an op does, as the passes and code generators need to know it (xDSL-style traits).

    Each back end dispatches on the role; a test proves every role is handled by both."""

    LOAD = "load"  # DDR window -> tile
    STORE = "store"  # tile -> DDR window; the result is the output tensor
    CREATE = "create"  # an uninitialised value (a tile's buffer, a tensor): no instruction
    ALLOC = "alloc"  # a buffer inserted by passes: no instruction
    ELEMENTWISE = "elementwise"  # per-element arithmetic, logic, comparison, selection, fill
    BROADCAST = "broadcast"  # a row / column vector expanded across a tile
    REDUCTION = "reduction"  # along one axis (sum / max / min)
    MATMUL = "matmul"  # cube products into Acc
    MOVE = "move"  # between on-chip buffers
    CAST = "cast"  # element type conversion
    VIEW = "view"  # a window / reshape / transpose of a value
    SCALAR = "scalar"  # produces a scalar (block index, element read, dimension)
    SET_FLAG = "set_flag"  # sync: signal an event between two pipes
    WAIT_FLAG = "wait_flag"  # sync: wait for that event
    BARRIER = "barrier"  # sync: order work within one pipe


class Access(Enum):
    """How an op uses an operand: scratch (tmp) operands and output tensors are written."""

    READ = "read"
    WRITE = "write"
    SHAPE = "shape"  # only the operand's shape is used (a result shaped like it): never read


class ParamKind(Enum):
    EXPR = "expr"  # an IR value: tensor, tile, scalar, or a list of integer scalars (MakeTuple)
    ATTR = "attr"  # a compile-time attribute, stored in Call.kwargs


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


REQUIRED: Any = _Required()


@record(frozen=True, slots=True)
class Param:
    name: str
    doc: str
    kind: ParamKind = ParamKind.EXPR
    default: Any = REQUIRED
    # For EXPR params: what it accepts, for docs/completion ("tensor", "tile", "scalar", "shape").
    accepts: tuple[str, ...] = ()
    # For ATTR params: the Python type(s) of the value (int, float, bool, str, DataType,
    # MemorySpace).
    attr_types: tuple[type, ...] = ()
    # For EXPR params: whether the op reads or writes the operand.
    access: Access = Access.READ
    # For tile params: the memory spaces the operand may live in (empty: not constrained).
    spaces: tuple[MemorySpace, ...] = ()
    # For list params: a lone integer stands for a one-element list (2026-08's
    # ``pl.read(t, i)`` of a rank-1 tensor).
    one_index: bool = False
    # For tile params: spaces the operand may also be given in, from which the passes move it
    # into ``spaces[0]`` before the op (AddReductionScratch): a bias row in Mat -> Bias.
    staged_from: tuple[MemorySpace, ...] = ()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def signature(self) -> str:
        text = self.name
        if not self.required:
            text += "=" + _default_str(self.default)
        return text


def _default_str(value: Any) -> str:
    if isinstance(value, Enum):
        return (
            f"pl.{type(value).__name__}.{value.name}"
            if type(value).__name__ == "MemorySpace"
            else f"pl.{value.name}"
        )
    return repr(value)


class OpError(Exception):
    """A type-rule failure. ``at`` names the parameter whose argument is at fault."""

    def __init__(
        self,
        message: str,
        *,
        code: str = "E306",
        at: str | None = None,
        cast: DataType | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.at = at
        # The argument converted to this dtype is accepted: the quick fix wraps it in pl.cast.
        self.cast = cast


@record
class DeduceContext:
    """What a type rule sees: bound arguments (IR expressions) and attributes (defaults filled)."""

    op: OpDef
    args: dict[str, Expr]
    attrs: dict[str, AttrValue]
    # Problems that do not stop the rule (hardware behaviour defined but surprising): W codes.
    warnings: list[OpError] = field(default_factory=list)
    # Every value a loop variable takes, for loops with constant bounds around the call that
    # certainly run it (the front end's knowledge; empty elsewhere): (first, last).
    ranges: Mapping[Var, tuple[int, int]] = field(default_factory=dict)
    # Sizes known when the program is built though not written as numbers (a builder
    # function's parameters): a tile may be shaped by them.
    symbols: frozenset[Var] = frozenset()

    def fail(
        self,
        message: str,
        *,
        at: str | None = None,
        code: str = "E306",
        cast: DataType | None = None,
    ) -> NoReturn:
        raise OpError(message, code=code, at=at, cast=cast)

    def warn(
        self, message: str, *, code: str, at: str | None = None, cast: DataType | None = None
    ) -> None:
        self.warnings.append(OpError(message, code=code, at=at, cast=cast))

    def has(self, name: str) -> bool:
        return name in self.args

    def expr(self, name: str) -> Expr:
        return self.args[name]

    def type(self, name: str) -> Type:
        return self.args[name].type

    def _kind_error(self, name: str, wanted: str) -> NoReturn:
        got = self.type(name).short()
        self.fail(f"{self.op.name}: argument '{name}' must be {wanted}, got {got}", at=name)

    def tensor(self, name: str) -> TensorType:
        t = self.type(name)
        if not isinstance(t, TensorType):
            self._kind_error(name, "a tensor")
        return t

    def tile(self, name: str) -> TileType:
        t = self.type(name)
        if not isinstance(t, TileType):
            self._kind_error(name, "a tile")
        return t

    def scalar(self, name: str) -> ScalarType:
        t = self.type(name)
        if not isinstance(t, ScalarType):
            self._kind_error(name, "a scalar")
        return t

    def shaped(self, name: str) -> ShapedType:
        t = self.type(name)
        if not isinstance(t, ShapedType):
            self._kind_error(name, "a tensor or a tile")
        return t

    def int_list(self, name: str) -> tuple[Expr, ...]:
        """The elements of a list argument (``[0, i * 32]``), each an integer scalar."""
        value = self.expr(name)
        if not isinstance(value, MakeTuple):
            self.fail(f"{self.op.name}: argument '{name}' must be a list of integers", at=name)
        for element in value.elements:
            et = element.type
            if not (isinstance(et, ScalarType) and (et.dtype.is_int)):
                self.fail(
                    f"{self.op.name}: elements of '{name}' must be integer scalars, got "
                    f"{et.short()}",
                    at=name,
                )
        return value.elements

    def attr(self, name: str) -> AttrValue:
        return self.attrs.get(name)


TypeRule = Callable[[DeduceContext], Type]


@record(frozen=True, slots=True)
class LegacyForm:
    """An older positional signature (e.g. seed 004's ``block.load(t, row, col, h, w)``) and
    how its bound arguments become the current ones (``convert`` gets and returns name -> Expr).
    ``regroup`` says how the old positional arguments are written in the current form: an
    index stays one argument, a tuple of indices becomes one list (the quick fix's text)."""

    params: tuple[Param, ...]
    convert: Callable[[dict[str, Expr]], dict[str, Expr]]
    note: str = ""
    regroup: tuple[int | tuple[int, ...], ...] = ()


@record(frozen=True, slots=True)
class EditionForm:
    """The parameters of an op as one edition spells them, and how its lowered value
    arguments (name -> Expr) become the canonical ones; ``convert`` may read their types (a
    store's shapes come from its tile)."""

    edition: Edition
    params: tuple[Param, ...]
    convert: Callable[[dict[str, Expr]], dict[str, Expr]]
    note: str = ""
    # The op the converted arguments call when it is not this one (a 2026-08 store of an Acc
    # tile is an l0c_store): its IR name.
    op_for: Callable[[dict[str, Expr]], str] | None = None
    # The name the form is written with when it is not the op's own (``store`` for both
    # stores), and the parameters ``convert`` fills when a call leaves them out.
    spelled: str | None = None
    derived: tuple[str, ...] = ()
    # (parameter, what it means): an argument that another edition reads otherwise (W032).
    meaning_note: tuple[str, str] | None = None
    # Parameters the form accepts that ptoc does not model: given, they get a W004.
    unmodelled: tuple[str, ...] = ()
    # Under its edition a call spelled so binds this form or fails by it: the op's own
    # parameters, which hold another edition's additions (2026-08's valid_shape= on a tile's
    # window), are not tried.
    exclusive: bool = False


@record(frozen=True, slots=True)
class TypedAttr:
    """An IR attribute written as a typed dialect attribute: ``cmp_type=2`` ->
    ``cmpMode = #pto<cmp lt>``. ``values`` maps each IR value to its enum case."""

    param: str  # the IR attribute
    name: str  # the dialect's attribute name
    enum: str  # the dialect's enum mnemonic (``#pto<cmp ..>``)
    values: tuple[tuple[AttrValue, str], ...]

    def spell(self, value: AttrValue) -> str | None:
        """``#pto<cmp lt>`` for an IR value, None when the enum has no such case."""
        case = next((c for v, c in self.values if v == value and type(v) is type(value)), None)
        return None if case is None else f"#pto<{self.enum} {case}>"


#: The CCE "instruction" of an element of a kernel's tensor parameter read by the scalar unit
#: (tensor.read): C++ indexing of the parameter's ``__gm__`` pointer, no pto-isa instruction.
GM_ELEMENT = "ptr[offset]"


@record(frozen=True, slots=True)
class Lowering:
    """How an op becomes code on one target, spelled as that target spells it (``TMATMUL_ACC``
    in pto-isa C++, ``pto.tmatmul.acc`` in the PTO dialect). ``None`` instruction = not
    supported there (``note`` says why; code generation reports E400)."""

    instruction: str | None
    note: str = ""
    # No instruction at all: the value only declares a buffer, which the generator declares
    # from its MemRef (block.create_tile, block.alloc).
    elided: bool = False
    # Axis reductions: the instruction when the reduced axis is the rows' (axis -2), where
    # ``instruction`` is the one for the last axis (TCOLSUM vs TROWSUM).
    column_form: str | None = None
    # Element-wise binary ops: the instruction when rhs is a per-row vector [M, 1] / a
    # per-column vector [1, N] broadcast against lhs (TROWEXPANDADD / TCOLEXPANDADD).
    row_broadcast: str | None = None
    col_broadcast: str | None = None
    # Attribute parameters that become trailing instruction arguments (cast mode, compare mode).
    attr_args: tuple[str, ...] = ()
    # The value parameters the instruction takes, in its order (None: all, in the op's order);
    # the others are stated by the result's type (``block.expands``' target) or dropped by
    # the instruction's semantics (``block.transpose``' axes of a 2-D tile).
    operands: tuple[str, ...] | None = None
    # The (row / main) instruction takes a scratch tile after its sources (TROWSUM, TTRANS,
    # TSEL); the op's written tile parameter when the call gives one, else the generator
    # provides one shaped like the first source. The column forms take none.
    scratch: bool = False
    # The instruction's result keeps its source's rows: pto-isa's CPU simulator asserts the
    # source tile's rows equal the result's (TROWSUM), on both routes (PTOAS's C++ too). A
    # result declared with padded rows (a short column: CCE declarations.py, PTO
    # mlir_types.py) reads its source through a view of as many rows, whose valid rows are
    # the source's (CCE: a Tile at the source's address; PTO: ``pto.subview``).
    same_rows: bool = False
    # Attributes the target spells as typed attributes of the instruction (PTO's cmpMode,
    # rmode); any other attribute is implied by the operand / result types or must keep its
    # default.
    typed_attrs: tuple[TypedAttr, ...] = ()
    # Attributes the result's type states (fillpad's pad value is the result tile's pad:
    # ``pad=3`` of its tile_buf), which the instruction does not spell.
    stated_by_type: tuple[str, ...] = ()
    # The instruction returns its result (``%r = pto.treshape %s : T1 -> T2``) instead of
    # writing a destination buffer.
    returns_value: bool = False
    # The element types the instruction takes on the target's hardware (PTO: A2/A3, as
    # PTOAS's verifier states them; empty: any). The PTO generator reports another as E400
    # at the call, before PTOAS runs, unless one of the forms below computes the same.
    dtypes: tuple[DataType, ...] = ()
    # A bit-wise instruction: a tile of wider integers runs on its INT16 reinterpretation
    # (``pto.treshape``, no data moves), which computes the same bits.
    bitwise: bool = False
    # A scalar form that takes only these element types (empty: any): for another, the op
    # ``tile_form`` names computes the same with the scalar expanded into a tile
    # (``pto.texpands``) — PTOAS v0.27 cannot lower ``pto.tmaxs`` with an integer scalar.
    scalar_dtypes: tuple[DataType, ...] = ()
    tile_form: str | None = None
    # The type of the scalar operand whatever the tile's (``pto.tlrelu``'s slope is f32).
    scalar_dtype: DataType | None = None
    # The scratch operand is a byte mask (UINT8 on A2/A3): the given tile, reinterpreted.
    byte_scratch: bool = False
    # Scalar operands the dialect types as ``index`` (pto.textract's row and column): a
    # scalar of another integer type is converted.
    index_operands: tuple[str, ...] = ()
    # The (first operand's, result's) memory spaces the instruction takes (empty: any): a
    # call with another pair is E400 at the call (``pl.tile.assemble``'s TINSERT: Vec -> Vec
    # on the V pipe; its Acc -> Mat form converts on the FIX pipe).
    space_pairs: tuple[tuple[MemorySpace, MemorySpace], ...] = ()
    # PTO: the oldest PTOAS version that takes this form (empty: every supported one); an
    # older one chosen is E400 at the call (v0.27 takes pto.tinsert Acc -> Mat only on A2/A3).
    since_ptoas: str = ""
    # A window of a Vec tile (A2/A3's ``pto.textract`` reads Mat only): this aliasing view
    # (``pto.subset``) copied into the result's buffer (codegen/pto/ops.py::_vec_window).
    vec_window: str | None = None


#: The CCE lowering of ``set_validshape``: pto-isa's ``Tile::SetValidShape(rows, cols)``.
VALID_SHAPE_METHOD = "SetValidShape"


@record(frozen=True, slots=True)
class MaskForm:
    """How an op on 1 / 0 values is computed where the instructions work on bit masks
    (pto-isa's TCMP and PTO's pto.tcmp write a uint8 mask; TSEL / TSELS read one). The
    AddReductionScratch pass performs the rewrite.

    * A comparison (``mask_of`` None): ``compare`` writes the mask of the op's own operands,
      ``fill`` makes a tile of ones and ``select`` keeps them where a bit is set and puts 0
      elsewhere (TSELS), so the result has the comparison's dtype and 1 / 0 values.
    * A selection by a tile of values (``mask_of`` names that operand): ``compare`` tests it
      against a ``fill`` of 0 with the attributes ``nonzero`` (``!= 0``), and ``select`` picks
      between the op's two other tile operands by the mask (TSEL)."""

    compare: str
    fill: str
    select: str
    mask_of: str | None = None
    nonzero: tuple[tuple[str, AttrValue], ...] = ()


@record(frozen=True, slots=True, eq=False)
class OpDef:
    name: str  # IR name, e.g. "block.add"
    category: Category
    params: tuple[Param, ...]
    rule: TypeRule
    description: str
    dsl_names: tuple[
        str, ...
    ] = ()  # spellings after `pl.block.` / `pl.tensor.` (default: the short name)
    pipe: PipeType = PipeType.S
    role: Role = Role.ELEMENTWISE
    # Where the result tile lives: a fixed space, or the value of an attribute (e.g. a load's
    # target_memory, whose default applies when it is not given). None: Vec.
    result_space: MemorySpace | None = None
    result_space_attr: str | None = None
    # The parameter whose storage the result is (a store's output tensor, a tensor view's source).
    aliases: str | None = None
    # The op a scalar second operand turns this one into (block.add -> block.adds).
    scalar_form: str | None = None
    # The op computing the same with the scratch tile the target instructions need
    # (block.sum along the last axis -> block.row_sum, block.transpose ->
    # block.transpose_scratch); the AddReductionScratch pass rewrites calls into it.
    scratch_form: str | None = None
    # A move with ``transpose=True`` within Vec: the op computing it (block.move ->
    # block.transpose, TTRANS; A2/A3's TMOV copies, and a ColMajor Vec tile is no operand of
    # the vector instructions); AddReductionScratch rewrites the call into it.
    transpose_form: str | None = None
    # Ops of three tiles computed as two binary ops, ``second(first(lhs, rhs), rhs2)``
    # (block.addc -> block.add, block.add: A2/A3 has no TADDC / TSUBC); AddReductionScratch
    # rewrites the call.
    pair_form: tuple[str, str] | None = None
    # Comparisons whose instruction writes a bit mask: how the 1 / 0 result is computed.
    mask_form: MaskForm | None = None
    # Tile operands that join the result's dtype promotion: the instruction takes them in the
    # result's dtype (pto-isa's TADD static_asserts equal dtypes), so AddReductionScratch
    # converts one of another dtype first (``block.cast`` into a tile of the result's dtype).
    promoted: tuple[str, ...] = ()
    # The unified ``pl.X`` spelling means this op whatever the argument types.
    unified_always: bool = False
    # The op reads its tiles' valid regions (2026-08) as the interpreter and both generators
    # model them: fillpad fills outside the region, a store copies the region. Code
    # generation reports E400 for any other op reading a tile whose valid region is narrower
    # than the tile (codegen/common.py: what the chip computes there is not modelled).
    reads_valid_region: bool = False
    # Element-wise (2026-08, spec §11): the result's valid region is its first tile operand's,
    # and the instruction computes over its destination's valid rows and columns (pto-isa's
    # TADD_IMPL and kin take ``dst.GetValidRow()`` / ``GetValidCol()``), asking each source for
    # the same region. Code generation reports E400 where a source's region differs.
    keeps_valid_region: bool = False
    # Row reductions (2026-08): the instruction reduces its source's valid rows and columns
    # (pto-isa's TROWSUM_IMPL takes ``src.GetValidRow()`` / ``GetValidCol()``); the result's
    # valid region is those rows, one column.
    reduces_valid_region: bool = False
    # Tensor ops: the block op computing the same on tiles (tensor.add -> block.add), which
    # ConvertTensorToBlockOps puts in its place inside InCore functions.
    block_form: str | None = None
    # Matmul ops: the op adding the product to an Acc tile (block.matmul -> block.matmul_acc),
    # which ConvertTensorToBlockOps uses to accumulate over K tiles.
    acc_form: str | None = None
    # BARRIER ops: the pipe they order.
    barrier_pipe: PipeType | None = None
    cce: Lowering = Lowering(None)
    pto: Lowering = Lowering(None)
    type_rule_doc: str = ""  # one line: "t(broadcast, promote)"
    legacy: LegacyForm | None = None
    dsl_visible: bool = (
        True  # False: registered (e.g. inserted by passes) but not callable from the DSL
    )
    # The first edition with the op: every spelling of a 2026-08 op is a 2026-08 spelling.
    since: Edition = Edition.V2026_03
    # Spellings that only one edition has: a rename is the old name with the old edition and
    # the new with the new. ``"name"`` is the spelling in every namespace, ``"pl.name"`` only
    # the unified one (``pl.adds`` is 2026-03, ``pl.tile.adds`` both). Another spelling is both
    # editions' (a namespace of one edition still makes its spellings that edition's).
    edition_names: tuple[tuple[str, Edition], ...] = ()
    # Forms of the op's parameters that another edition spells differently, e.g. 2026-08's
    # ``store(tile, offsets, output_tensor, shapes=None)``: bound when the canonical
    # parameters do not fit, each converting its arguments to the canonical ones.
    edition_forms: tuple[EditionForm, ...] = ()
    # A type rule for an edition where the op's spelling means something else (2026-08's
    # ``tile (+) scalar`` keeps the tile's dtype).
    edition_rules: tuple[tuple[Edition, TypeRule], ...] = ()
    # The scalar result is index-like (a dimension, a block index, a count): of the edition's
    # index dtype (``EditionRules.index_dtype``: INDEX in 2026-08, INT64 in 2026-03).
    index_result: bool = False
    # Where the op is registered (go-to-definition): the file, and the call (``source_line``).
    source_file: str = ""
    source_site: Site | None = field(default=None, repr=False)

    @property
    def source_line(self) -> int:
        """The 1-based line of the registering call (0: unknown)."""
        return 0 if self.source_site is None else line_at(*self.source_site)

    @property
    def short_name(self) -> str:
        return self.name.split(".", 1)[1]

    @property
    def namespace(self) -> str:
        return self.name.split(".", 1)[0]

    @property
    def name_line(self) -> int:
        """The 1-based line of the registration that spells the op's name (a formatted call may
        open on the line before it); the call's own line when no nearby line names it."""
        import linecache  # with tokenize, ~1.5 ms at start-up: only the editor asks

        quoted = (f'"{self.name}"', f'"{self.short_name}"')
        for line in range(self.source_line, self.source_line + 4):
            text = linecache.getline(self.source_file, line)
            if any(q in text for q in quoted):
                return line
        return self.source_line

    def param(self, name: str) -> Param | None:
        for p in self.params:
            if p.name == name:
                return p
        return None

    @property
    def expr_params(self) -> tuple[Param, ...]:
        """The value parameters, in the order they bind ``Call.args``."""
        return _derived(self).expr_params

    @property
    def expr_names(self) -> tuple[str, ...]:
        return _derived(self).expr_names

    def canonical_kwargs(self, attrs: Mapping[str, AttrValue]) -> tuple[tuple[str, AttrValue], ...]:
        """Every attribute given or defaulted, in parameter order: a call spelled with or
        without an explicit default is the same IR."""
        return tuple(
            (name, attrs[name] if name in attrs else default)
            for name, required, default in _derived(self).attrs
            if name in attrs or not required
        )

    def bind(self, args: Sequence[Expr]) -> dict[str, Expr]:
        """Positional value arguments (``Call.args``) by the name of the parameter each binds."""
        return dict(zip(_derived(self).expr_names, args, strict=False))

    @property
    def written_params(self) -> tuple[str, ...]:
        """Names of the value parameters the op writes (scratch tiles, output tensors)."""
        return tuple(p.name for p in self.expr_params if p.access is Access.WRITE)

    @property
    def is_sync(self) -> bool:
        return self.role in (Role.SET_FLAG, Role.WAIT_FLAG, Role.BARRIER)

    @property
    def emits_nothing(self) -> bool:
        """Ops that only declare a value or a buffer: no instruction on any target."""
        return self.role in (Role.CREATE, Role.ALLOC)

    def result_space_for(self, kwargs: dict[str, AttrValue]) -> MemorySpace:
        """Where a call's result tile lives, given the call's attributes."""
        if self.result_space_attr is not None:
            value = kwargs.get(self.result_space_attr)
            if value is None:
                param = self.param(self.result_space_attr)
                value = param.default if param is not None and not param.required else None
            if isinstance(value, MemorySpace):
                return value
        return self.result_space or MemorySpace.Vec

    def column_or_row(self, lowering: Lowering, axis: int, rank: int) -> str | None:
        """An axis reduction's instruction: the row form for the last axis, the column form
        for the one before; None for any other axis."""
        if axis < 0:
            axis += rank
        if axis == rank - 1:
            return lowering.instruction
        if axis == rank - 2:
            return lowering.column_form
        return None

    def lowering(self, target: str) -> Lowering:
        """The lowering on ``target`` ("cce" or "pto")."""
        return self.cce if target == "cce" else self.pto

    def signature(self) -> str:
        return f"{self.name}(" + ", ".join(p.signature() for p in self.params) + ")"

    def spelling_edition(self, spelling: str, namespace: str) -> Edition | None:
        """The one edition that has ``spelling`` of this op in ``namespace`` (``""``: the
        unified ``pl.X``), None when both do."""
        if self.since is not Edition.V2026_03:
            return self.since
        unified = "pl." + spelling
        for name, edition in self.edition_names:
            if name == spelling or (not namespace and name == unified):
                return edition
        return None

    def rule_for(self, edition: Edition | None) -> TypeRule:
        for ruled, rule in self.edition_rules:
            if ruled is edition:
                return rule
        return self.rule

    def deduce(
        self,
        args: dict[str, Expr],
        attrs: dict[str, AttrValue],
        warnings: list[OpError] | None = None,
        ranges: Mapping[Var, tuple[int, int]] | None = None,
        edition: Edition | None = None,
        symbols: frozenset[Var] = frozenset(),
    ) -> Type:
        """Run the type rule. Raises OpError; an argument of unknown type (from an earlier
        error) yields UNKNOWN without a new error, so one mistake is reported once. The
        rule's warnings are appended to ``warnings``. A result tile records where it lives
        (the op's result space; a view's is its source's)."""
        for a in args.values():  # (a prefetch handle is a value of its own, not an error)
            if isinstance(a.type, UnknownType) and not isinstance(a.type, PrefetchHandleType):
                return UNKNOWN
        filled = dict(attrs)
        for name, default in _derived(self).attr_defaults:
            if name not in filled:
                filled[name] = default
        ctx = DeduceContext(self, args, filled, ranges=ranges or {}, symbols=symbols)
        (_operand_space_check or _load_operand_space_check())(ctx)
        result = (self.rule_for(edition) if self.edition_rules else self.rule)(ctx)
        if self.index_result and edition is not None and isinstance(result, ScalarType):
            index = RULES[edition].index_dtype
            if result.dtype is not index and result.dtype is DataType.INT64:
                result = ScalarType(index)
        if warnings is not None:
            warnings.extend(ctx.warnings)
        if self.keeps_valid_region and isinstance(result, TileType):
            result = _with_first_region(args, result)
        elif self.reduces_valid_region and isinstance(result, TileType):
            result = _with_first_region(args, result, reduced=True)
        if isinstance(result, TileType) and result.memref is None:
            memory = self._result_memory(args, filled)
            if result.memory is not memory:  # (MemorySpace members are singletons)
                result = records.replace(result, memory=memory)
        return result

    def _result_memory(
        self, args: dict[str, Expr], attrs: dict[str, AttrValue]
    ) -> MemorySpace | None:
        if self.role is Role.VIEW and self.result_space is None:
            source = next((a.type for a in args.values() if isinstance(a.type, TileType)), None)
            return source.memory_space if source is not None else None
        return self.result_space_for(attrs)


def _with_first_region(
    args: dict[str, Expr], result: TileType, *, reduced: bool = False
) -> TileType:
    """``result`` with the valid region of the first tile operand (of the same shape) when
    that operand has one of its own (spec §11: element-wise results take it); ``reduced``:
    a row reduction's, its rows and one column."""
    first = next((a.type for a in args.values() if isinstance(a.type, TileType)), None)
    view = first.tile_view if first is not None else None
    if view is None or view.valid_shape is None or first is None:
        return result
    valid = view.valid_shape
    if reduced:
        if len(valid) != 2 or result.rank != 2:
            return result
        valid = (valid[0], const_int(1))
        if shapes_equal(valid, result.shape):
            return result  # all rows valid: the whole result
    elif not shapes_equal(first.shape, result.shape):
        return result
    own = result.tile_view or TileView()
    return records.replace(result, tile_view=records.replace(own, valid_shape=valid))


_operand_space_check: Callable[[DeduceContext], None] | None = None


def _load_operand_space_check() -> Callable[[DeduceContext], None]:
    """legality reads this module: import it on the first deduction, not in every one (an
    import statement costs ~2 us a call)."""
    global _operand_space_check
    from .legality import check_operand_spaces

    _operand_space_check = check_operand_spaces
    return check_operand_spaces


class _Derived:
    """What an op's parameters imply, computed once per op (the front end asks per call)."""

    __slots__ = ("expr_params", "expr_names", "attrs", "attr_defaults")

    def __init__(self, op: OpDef) -> None:
        self.expr_params = tuple(p for p in op.params if p.kind is ParamKind.EXPR)
        self.expr_names = tuple(p.name for p in self.expr_params)
        self.attrs = tuple(
            (p.name, p.required, p.default) for p in op.params if p.kind is ParamKind.ATTR
        )
        self.attr_defaults = tuple((name, d) for name, required, d in self.attrs if not required)


_DERIVED: dict[OpDef, _Derived] = {}  # ops compare and hash by identity (eq=False)


def _derived(op: OpDef) -> _Derived:
    derived = _DERIVED.get(op)
    if derived is None:
        derived = _DERIVED[op] = _Derived(op)
    return derived


class OpTable(dict[str, OpDef]):
    """The registered ops by IR name. ``table[name]`` and ``name in table`` of an op a deferred
    module registers (ops/lazy.py) import that module first."""

    __slots__ = ("registry",)

    def __init__(self) -> None:
        super().__init__()
        self.registry: Registry | None = None

    def __missing__(self, name: str) -> OpDef:
        if self.registry is not None and self.registry.load_op(name):
            return dict.__getitem__(self, name)
        raise KeyError(name)

    def __contains__(self, name: object) -> bool:
        if dict.__contains__(self, name):
            return True
        loaded = isinstance(name, str) and self.registry is not None and self.registry.load_op(name)
        return loaded and dict.__contains__(self, name)


@record
class Registry:
    ops: dict[str, OpDef] = field(default_factory=OpTable)
    # The modules whose ops are registered when first looked up (ops/lazy.py); None: every op
    # is registered at import.
    deferred: DeferredOps | None = field(default=None, repr=False)
    _by_dsl: dict[tuple[str, str], OpDef] | None = field(default=None, repr=False)
    _by_dsl_size: int = field(default=-1, repr=False)
    # with_role's answers: the passes and both generators ask per statement, the answer is a
    # scan of every op, and the ops change only as they are registered.
    _by_role: dict[tuple[Role, str | None], tuple[OpDef, ...]] = field(
        default_factory=dict, repr=False
    )
    _by_role_size: int = field(default=-1, repr=False)
    # The ops in registration order (a deferred module's in the place eager loading gives them),
    # for the table's identity and size.
    _ordered: tuple[OpDef, ...] = field(default=(), repr=False)
    _ordered_key: tuple[int, int] = field(default=(0, -1), repr=False)

    def defer(self, deferred: DeferredOps) -> None:
        """Register the ops of ``deferred``'s modules when they are first looked up."""
        self.deferred = deferred
        if isinstance(self.ops, OpTable):
            self.ops.registry = self

    def load_op(self, name: str) -> bool:
        """Import the deferred module registering ``name``; False when none is left to import."""
        return self.deferred is not None and self.deferred.load_op(name)

    def load_all(self) -> None:
        """Import every deferred module (a walk of every op: completion, docs, tests)."""
        if self.deferred is not None and not self.deferred.complete:
            self.deferred.load_all()

    def loaded(self) -> tuple[OpDef, ...]:
        """The ops registered so far, deferred modules left unimported, in registration order."""
        key = (id(self.ops), len(self.ops))
        if key != self._ordered_key:
            ops = tuple(self.ops.values())
            if self.deferred is not None:
                ops = self.deferred.in_order(ops)
            self._ordered, self._ordered_key = ops, key
        return self._ordered

    def add(self, op: OpDef) -> OpDef:
        if dict.__contains__(self.ops, op.name):
            raise ValueError(f"op {op.name} registered twice")
        self.ops[op.name] = op
        return op

    def replace(self, op: OpDef) -> None:
        """Put ``op`` in place of the registered op of its name."""
        if op.name not in self.ops:
            raise KeyError(f"op {op.name} is not registered")
        self.ops[op.name] = op
        self._by_dsl = None
        self._by_role.clear()
        self._ordered_key = (0, -1)

    def get(self, name: str) -> OpDef | None:
        op = self.ops.get(name)
        if op is None and self.load_op(name):
            op = self.ops.get(name)
        return op

    def __iter__(self) -> Iterator[OpDef]:
        self.load_all()
        return iter(self.loaded())

    def __len__(self) -> int:
        self.load_all()
        return len(self.ops)

    def in_namespace(self, namespace: str) -> list[OpDef]:
        if self.deferred is not None:
            self.deferred.load_namespace(namespace)
        return [op for op in self.loaded() if op.namespace == namespace]

    def with_role(self, role: Role, namespace: str | None = None) -> tuple[OpDef, ...]:
        if self.deferred is not None:
            self.deferred.load_role(role, namespace)
        if self._by_role_size != len(self.ops):
            self._by_role.clear()
            self._by_role_size = len(self.ops)
        key = (role, namespace)
        found = self._by_role.get(key)
        if found is None:
            found = self._by_role[key] = tuple(
                op
                for op in self.loaded()
                if op.role is role and (namespace is None or op.namespace == namespace)
            )
        return found

    def first(
        self, role: Role, namespace: str | None, test: Callable[[OpDef], bool]
    ) -> OpDef | None:
        """The first op of a role (in a namespace) that passes ``test``, in registration order.
        Every op registered at import comes before a deferred module's: when one of them
        passes, no module is imported to find the answer."""
        deferred = self.deferred
        if deferred is not None and not deferred.complete:
            for op in self.loaded():
                if op.role is role and (namespace is None or op.namespace == namespace):
                    if op.name not in deferred.ops and test(op):
                        return op
        return next((op for op in self.with_role(role, namespace) if test(op)), None)

    def the(self, role: Role, namespace: str | None = None) -> OpDef:
        """The one op of a role (in a namespace): e.g. the tile creator the passes insert."""
        found = self.with_role(role, namespace)
        if len(found) != 1:
            raise LookupError(f"expected one {role.value} op in {namespace}, found {len(found)}")
        return found[0]

    def barrier(self, pipe: PipeType) -> OpDef | None:
        """The barrier op ordering ``pipe``'s own work."""
        return self.first(Role.BARRIER, None, lambda op: op.barrier_pipe is pipe)

    def by_dsl_name(self, namespace: str, dsl_name: str) -> OpDef | None:
        found = self._by_dsl_name(namespace, dsl_name)
        if found is None and self.deferred is not None:
            if self.deferred.load_spelling(namespace, dsl_name):
                found = self._by_dsl_name(namespace, dsl_name)
        return found

    def _by_dsl_name(self, namespace: str, dsl_name: str) -> OpDef | None:
        if self._by_dsl is None or self._by_dsl_size != len(self.ops):
            index: dict[tuple[str, str], OpDef] = {}
            for op in self.loaded():
                for spelling in op.dsl_names or (op.short_name,):
                    index.setdefault((op.namespace, spelling), op)
            self._by_dsl, self._by_dsl_size = index, len(self.ops)
        return self._by_dsl.get((namespace, dsl_name))


REGISTRY = Registry()


def register(
    name: str,
    category: Category,
    params: list[Param],
    rule: TypeRule,
    description: str,
    **extra: Any,
) -> OpDef:
    """Register an op; records the file and line of the call for go-to-definition."""
    source_file, source_site = call_site(2)
    op = OpDef(
        name=name,
        category=category,
        params=tuple(params),
        rule=rule,
        description=description,
        source_file=source_file,
        source_site=source_site,
        **extra,
    )
    return REGISTRY.add(op)


#: Where a call is: the calling code and the offset of the call's instruction in it.
Site = tuple[CodeType, int]


def call_site(depth: int = 2) -> tuple[str, Site]:
    """The file of the call ``depth`` frames up (2: the caller's caller) and its site. Its line
    is found when asked (``line_at``): ``frame.f_lineno`` reads the code's line table from its
    start, ~20 us a registration down the ops modules' long bodies, ~2 ms of every start."""
    frame = sys._getframe(depth)
    return frame.f_code.co_filename, (frame.f_code, frame.f_lasti)


@functools.cache
def line_at(code: CodeType, offset: int) -> int:
    """The 1-based line of the instruction at ``offset`` in ``code`` (``frame.f_lineno``)."""
    for start, end, line in code.co_lines():
        if start <= offset < end and line is not None:
            return line
    return 0


def op_call(
    op: OpDef, args: Sequence[Expr], kwargs: tuple[tuple[str, object], ...], span: Span
) -> Call:
    """A call of ``op`` typed by its rule, with its attributes as the front end records them:
    every one present (defaults filled), in parameter order. Raises OpError when the rule
    rejects the operands."""
    given = dict(kwargs)
    attrs = [p for p in op.params if p.kind is ParamKind.ATTR]
    for p in attrs:
        if p.name not in given and not p.required:
            given[p.name] = p.default
    canonical = tuple((p.name, given[p.name]) for p in attrs if p.name in given)
    deduced = op.deduce(op.bind(args), dict(canonical))  # type: ignore[arg-type]
    return Call(
        deduced,
        callee=Op(op.name),
        args=tuple(args),
        kwargs=canonical,  # type: ignore[arg-type]
        span=span,
    )
