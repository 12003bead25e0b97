"""Cross-core pipes and events (spec pypto-2026-08.md section 9.2), read from the syntax tree.

A pipe carries tiles one way between the cube core (AIC) and the vector cores (AIV): cube to
vector (``tpush_to_aiv`` / ``tpop_from_aic`` / ``tfree_to_aic``) or vector to cube
(``tpush_to_aic`` / ``tpop_from_aiv`` / ``tfree_to_aiv``), on a pipe ``id`` (default 0) that
``aic_initialize_pipe`` / ``aiv_initialize_pipe`` set up with a direction mask.

Per function (``check_pipes``): the op's core (E234), the setup's values (E235), reserved
buffer names (E237), a pop's type (E239); in an AIC / AIV function, which the compiler does not
complete, pipes set up (W045) and pops freed (W046); everywhere, frees of what was popped (W049)
and no use after the free (W048). Per module (``check_module_pipes``): pushes and pops paired per
pipe id and direction (W047), peer buffers that exist (E236), events set and waited (I008).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from enum import Enum

from ..diagnostics import DiagnosticBag, Related
from ..ir.function import FunctionType
from ..ir.span import Span
from ..records import record
from .consteval import ConstEvaluator, NotConstant
from .context import FunctionSignature, ModuleEnv
from .names import DslImports, assigned_name, dsl_path, own_nodes
from .source import SourceText

C2V, V2C = 1, 2
PUSH = {"tpush_to_aiv": C2V, "tpush_to_aic": V2C}
POP = {"tpop_from_aic": C2V, "tpop_from_aiv": V2C}
FREE = {"tfree_to_aic": C2V, "tfree_to_aiv": V2C}
SETUP = ("aic_initialize_pipe", "aiv_initialize_pipe")
CUBE_SIDE = frozenset({"tpush_to_aiv", "tpop_from_aiv", "tfree_to_aiv", "aic_initialize_pipe"})
VECTOR_SIDE = frozenset({"tpush_to_aic", "tpop_from_aic", "tfree_to_aic", "aiv_initialize_pipe"})
EVENTS = ("sync_set", "sync_wait")
_NAMES = frozenset({*PUSH, *POP, *FREE, *SETUP, *EVENTS, "reserve_buffer", "import_peer_buffer"})
_DIRECTION = {C2V: "cube to vector", V2C: "vector to cube"}


@record
class PipeCall:
    name: str  # the op's short name
    call: ast.Call
    stmt: ast.stmt
    target: ast.Name | None  # the assigned name, if any


@record
class Env:
    imports: DslImports
    source: SourceText
    consts: ConstEvaluator
    bag: DiagnosticBag


def pipe_calls(body: list[ast.stmt], imports: DslImports) -> list[PipeCall]:
    """The pipe, buffer and event calls of a function body, in source order."""
    found: list[PipeCall] = []
    for stmt in _statements(body):
        for node in own_nodes(stmt):
            if not isinstance(node, ast.Call):
                continue
            path = dsl_path(node.func, imports)
            if path is None or path[-1] not in _NAMES:
                continue
            if len(path) == 1 or (len(path) == 2 and path[0] in ("system", "tile")):
                found.append(PipeCall(path[-1], node, stmt, assigned_name(stmt, node)))
    return found


def keyword(call: ast.Call, name: str, position: int | None = None) -> ast.expr | None:
    for k in call.keywords:
        if k.arg == name:
            return k.value
    if position is not None and position < len(call.args):
        return call.args[position]
    return None


def constant(env: Env, node: ast.expr | None, default: object = None) -> object:
    if node is None:
        return default
    try:
        return env.consts.evaluate(node)
    except NotConstant:
        return NotConstant


def pipe_id(env: Env, call: ast.Call) -> object:
    value = constant(env, keyword(call, "id"), 0)
    return 0 if value is None else value


# --- per function --------------------------------------------------------------------------------


def check_pipes(sig: FunctionSignature, module: ModuleEnv, bag: DiagnosticBag) -> None:
    if not module.source.mentions(_NAMES):
        return
    calls = pipe_calls(sig.node.body, module.imports)
    if not calls:
        return
    env = Env(module.imports, module.source, module.consts, bag)
    source = module.source
    _wrong_core(env, sig, calls)
    reserved: dict[str, ast.expr] = {}
    setups: dict[object, PipeCall] = {}
    for c in calls:
        if c.name in SETUP:
            _setup_values(env, c.call)
            _setup_id(env, c, setups)
        elif c.name == "reserve_buffer":
            _reserved_name(env, c.call, reserved)
        elif c.name in POP and not _typed_pop(c):
            env.bag.error(
                "E239",
                f"the tile {c.name} pops has no type: give shape= and dtype=, or annotate the "
                "assignment (x: pl.Tile[[16, 16], pl.FP16] = ...)",
                source.span(c.call),
            )
    if sig.func_type in (FunctionType.AIC, FunctionType.AIV):
        _set_up(env, calls)
    _splits(env, calls)
    _frees(env, sig, calls)


def _wrong_core(env: Env, sig: FunctionSignature, calls: list[PipeCall]) -> None:
    wrong = {FunctionType.AIC: VECTOR_SIDE, FunctionType.AIV: CUBE_SIDE}.get(sig.func_type)
    if wrong is None:
        return
    core, other = ("cube", "vector") if sig.func_type is FunctionType.AIC else ("vector", "cube")
    for c in calls:
        if c.name in wrong:
            env.bag.error(
                "E234",
                f"{c.name} runs on the {other} core; '{sig.name}' is an {sig.func_type.name} "
                f"function (the {core} core)",
                _name_span(env, c.call),
            )


def _setup_values(env: Env, call: ast.Call) -> None:
    values = {
        name: constant(env, keyword(call, name))
        for name in ("dir_mask", "slot_size", "slot_num", "local_slot_num")
    }

    def bad(name: str, why: str) -> None:
        node = keyword(call, name)
        assert node is not None
        env.bag.error("E235", f"{name} {why}, got {values[name]}", env.source.span(node))

    mask, slot_num, local = values["dir_mask"], values["slot_num"], values["local_slot_num"]
    if isinstance(mask, int) and mask not in (1, 2, 3):
        bad("dir_mask", "must be 1 (cube to vector), 2 (vector to cube) or 3 (both)")
    for name in ("slot_size", "slot_num", "local_slot_num"):
        value = values[name]
        if isinstance(value, int) and not isinstance(value, bool) and value <= 0:
            bad(name, "must be positive")
    if isinstance(local, int) and isinstance(slot_num, int) and 0 < slot_num < local:
        bad("local_slot_num", f"must be at most slot_num ({slot_num})")


def _setup_id(env: Env, c: PipeCall, setups: dict[object, PipeCall]) -> None:
    """E235: a pipe id is set up once per function (PTOAS binds each op to the one setup)."""
    key = pipe_id(env, c.call)  # (per side: an InCore function may set up both ends)
    first = setups.setdefault((c.name, key), c) if key is not NotConstant else c
    if first is c:
        return
    node = keyword(c.call, "id")
    env.bag.error(
        "E235",
        f"pipe {key} is already set up in this function (each id once)",
        env.source.span(node) if node is not None else _name_span(env, c.call),
        related=(Related(_name_span(env, first.call), "the first setup"),),
    )


def _reserved_name(env: Env, call: ast.Call, reserved: dict[str, ast.expr]) -> None:
    node = keyword(call, "name")
    name = constant(env, node)
    if node is None or not isinstance(name, str):
        return
    first = reserved.get(name)
    if first is None:
        reserved[name] = node
        return
    env.bag.error(
        "E237",
        f"a buffer named '{name}' is already reserved in this function",
        env.source.span(node),
        related=(Related(env.source.span(first), "the first one"),),
    )


def _typed_pop(c: PipeCall) -> bool:
    if keyword(c.call, "shape") is not None and keyword(c.call, "dtype") is not None:
        return True
    return isinstance(c.stmt, ast.AnnAssign) and c.stmt.value is c.call


def _set_up(env: Env, calls: list[PipeCall]) -> None:
    """W045: in an AIC / AIV function, every push and pop on a pipe a setup of it covers."""
    masks: dict[object, int] = {}
    for c in calls:
        if c.name in SETUP:
            key, mask = pipe_id(env, c.call), constant(env, keyword(c.call, "dir_mask"))
            if key is NotConstant or not isinstance(mask, int):
                return  # a setup ptoc cannot read: nothing to say
            masks[key] = masks.get(key, 0) | mask
    for c in calls:
        direction = PUSH.get(c.name) or POP.get(c.name)
        key = pipe_id(env, c.call)
        if direction is None or key is NotConstant or masks.get(key, 0) & direction:
            continue
        setup = "aic_initialize_pipe" if c.name in CUBE_SIDE else "aiv_initialize_pipe"
        env.bag.error(
            "W045",
            f"{c.name} uses pipe {key} ({_DIRECTION[direction]}), which no {setup} of this "
            f"function sets up (dir_mask {direction} or 3)",
            _name_span(env, c.call),
        )


def _splits(env: Env, calls: list[PipeCall]) -> None:
    """E238: one pipe (id and direction) of a function moves its tiles split or unsplit, not
    both (PTOAS v0.57 rejects a pipe that mixes ``split = 0`` with a split mode)."""
    first: dict[tuple[object, int], tuple[bool, PipeCall]] = {}
    for c in calls:
        direction = PUSH.get(c.name) or POP.get(c.name) or FREE.get(c.name)
        node = keyword(c.call, "split")
        mode = constant(env, node, None if c.name in FREE else 0)
        if isinstance(mode, Enum):  # pl.SplitMode.UP_DOWN
            mode = mode.value
        key = (pipe_id(env, c.call), direction or 0)
        if direction is None or not isinstance(mode, int) or key[0] is NotConstant:
            continue
        split = mode != 0
        seen = first.setdefault(key, (split, c))
        if seen[0] != split:
            what = "unsplit (split=0)" if seen[0] is False else "split"
            env.bag.error(
                "E238",
                f"pipe {key[0]} ({_DIRECTION[direction]}) moves its tiles {what} at "
                f"{seen[1].name}; a pipe cannot mix split=0 with a split mode",
                env.source.span(node) if node is not None else _name_span(env, c.call),
            )
            return


def _frees(env: Env, sig: FunctionSignature, calls: list[PipeCall]) -> None:
    """W046 (AIC / AIV only), W048 and W049: pops and frees of each name."""
    popped: dict[str, tuple[int, PipeCall]] = {}  # name -> (direction, the pop)
    for c in calls:
        if c.name in POP and c.target is not None:
            popped[c.target.id] = (POP[c.name], c)
        elif c.name in FREE:
            tile = keyword(c.call, "tile", 0)
            if not isinstance(tile, ast.Name):
                continue
            held = popped.pop(tile.id, None)
            if held is None or held[0] != FREE[c.name]:
                pop_name = next(k for k, v in POP.items() if v == FREE[c.name])
                env.bag.error(
                    "W049",
                    f"{c.name} frees '{tile.id}', which no {pop_name} of this function "
                    "produced (or which is already freed)",
                    env.source.span(tile),
                )
                continue
            _used_after(env, sig, tile.id, c.stmt, _freed_tiles(calls))
    if sig.func_type in (FunctionType.AIC, FunctionType.AIV):
        for name, (direction, pop) in popped.items():
            free = next(k for k, v in FREE.items() if v == direction)
            assert pop.target is not None
            env.bag.error(
                "W046",
                f"'{name}' is popped but never released: add {free}({name}) after its last use",
                env.source.span(pop.target),
            )


def _freed_tiles(calls: list[PipeCall]) -> set[int]:
    """The tile arguments of the frees (a second free is W049's, not a use)."""
    return {id(keyword(c.call, "tile", 0)) for c in calls if c.name in FREE}


def _used_after(
    env: Env, sig: FunctionSignature, name: str, free: ast.stmt, frees: set[int]
) -> None:
    end = (free.end_lineno or free.lineno, free.end_col_offset or 0)
    names = [
        node
        for node in ast.walk(sig.node)
        if isinstance(node, ast.Name) and node.id == name and id(node) not in frees
    ]
    for node in sorted(names, key=lambda n: (n.lineno, n.col_offset)):  # in source order
        if (node.lineno, node.col_offset) < end:
            continue
        if not isinstance(node.ctx, ast.Load):
            return  # bound again: a new tile from here on
        env.bag.error(
            "W048",
            f"'{name}' is used after {_free_name(free)} released its slot",
            env.source.span(node),
        )
        return


def _free_name(stmt: ast.stmt) -> str:
    if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
        func = stmt.value.func
        return func.attr if isinstance(func, ast.Attribute) else ast.unparse(func)
    return "its free"


# --- per module ----------------------------------------------------------------------------------


def check_module_pipes(
    sigs: Iterable[FunctionSignature], module: ModuleEnv, bag: DiagnosticBag
) -> None:
    if not module.source.mentions(_NAMES):
        return
    env = Env(module.imports, module.source, module.consts, bag)
    by_function = {sig.name: pipe_calls(sig.node.body, module.imports) for sig in sigs}
    every = [c for calls in by_function.values() for c in calls]
    if not every:
        return
    _pairs(env, every)
    _events(env, every)
    for c in every:
        if c.name == "import_peer_buffer":
            _peer_buffer(env, c.call, by_function)


def _pairs(env: Env, calls: list[PipeCall]) -> None:
    ends: dict[tuple[str, int, object], list[PipeCall]] = {}
    for c in calls:
        for kind, table in (("push", PUSH), ("pop", POP)):
            if c.name in table:
                key = pipe_id(env, c.call)
                if key is NotConstant:
                    return  # an id ptoc cannot read: nothing to say
                ends.setdefault((kind, table[c.name], key), []).append(c)
    for (kind, direction, key), found in ends.items():
        other = "pop" if kind == "push" else "push"
        if (other, direction, key) in ends:
            continue
        for c in found:
            env.bag.error(
                "W047",
                f"{c.name} on pipe {key} ({_DIRECTION[direction]}) has no matching {other} "
                "in this file",
                _name_span(env, c.call),
            )


def _events(env: Env, calls: list[PipeCall]) -> None:
    ids: dict[str, dict[object, list[PipeCall]]] = {"sync_set": {}, "sync_wait": {}}
    for c in calls:
        if c.name in ids:
            event = constant(env, keyword(c.call, "event_id", 0))
            if not isinstance(event, int):
                return
            ids[c.name].setdefault(event, []).append(c)
    for name, other in (("sync_wait", "sync_set"), ("sync_set", "sync_wait")):
        for event, found in ids[name].items():
            if event in ids[other]:
                continue
            for c in found:
                env.bag.error(
                    "I008",
                    f"no pl.system.{other} of event {event} in this file answers this {name}",
                    _name_span(env, c.call),
                )


def _peer_buffer(env: Env, call: ast.Call, by_function: dict[str, list[PipeCall]]) -> None:
    peer = keyword(call, "peer_func")
    if peer is None:
        return
    if isinstance(peer, ast.Constant) and isinstance(peer.value, str):
        func = peer.value
    elif (
        isinstance(peer, ast.Attribute)
        and isinstance(peer.value, ast.Name)
        and peer.value.id == "self"
    ):
        func = peer.attr  # self.cube
    else:
        return
    if func not in by_function:
        env.bag.error(
            "E236", f"peer_func '{func}' is no function of this program", env.source.span(peer)
        )
        return
    name = constant(env, keyword(call, "name"))
    reserved = [
        constant(env, keyword(c.call, "name"))
        for c in by_function[func]
        if c.name == "reserve_buffer"
    ]
    if isinstance(name, str) and NotConstant not in reserved and name not in reserved:
        env.bag.error(
            "E236",
            f"'{func}' reserves no buffer named '{name}'"
            + (f" (it reserves {', '.join(repr(r) for r in reserved)})" if reserved else ""),
            env.source.span(keyword(call, "name") or call),
        )


# --- syntax helpers ------------------------------------------------------------------------------


def _statements(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    for stmt in body:
        yield stmt
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for name in ("body", "orelse", "finalbody"):
            nested = getattr(stmt, name, None)
            if isinstance(nested, list):
                yield from _statements(nested)


def _name_span(env: Env, call: ast.Call) -> Span:
    func = call.func
    if isinstance(func, ast.Attribute):
        return env.source.attr_name_span(func)
    return env.source.span(func)
