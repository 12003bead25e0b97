"""Where distributed PyPTO's constructs may stand (spec pypto-2026-08.md section 12), read from
a function's syntax tree: window buffers only as a plain assignment's value, with names unique in
the function (E230, E231), and ``pld.world_size()`` only in a HOST orchestrator, outside its
device scopes (E232). (``device=`` at HOST level only, E233, is checked where calls are lowered.)
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ..diagnostics import DiagnosticBag, Related
from ..ir.dsl_enums import Level, Role
from .context import FunctionSignature, ModuleEnv
from .names import DslImports, assigned_name, dsl_path, own_nodes
from .source import SourceText

# Scopes whose body runs on the device (in a HOST function): pl.at below HOST level, pl.spmd,
# pl.cluster, pl.incore, and the pl.spmd / pl.split_aiv loops.
_DEVICE_SCOPES = frozenset({"at", "spmd", "cluster", "incore", "auto_incore", "split_aiv"})


def is_host_orchestrator(sig: FunctionSignature) -> bool:
    level, role = sig.level, sig.role
    return (
        isinstance(level, Level) and level.value >= Level.HOST.value and role is not Role.SubWorker
    )


def pld_call(node: ast.AST, imports: DslImports, *names: str) -> bool:
    """Whether ``node`` calls ``pld.X`` / ``pld.<group>.X`` for an X of ``names``."""
    if not isinstance(node, ast.Call):
        return False
    path = dsl_path(node.func, imports)
    return path is not None and path[0] == "pld" and path[-1] in names and len(path) in (2, 3)


#: The pld calls the rules below are about: a file without them has nothing to check.
_CHECKED = frozenset({"alloc_window_buffer", "world_size"})


def check_distributed(sig: FunctionSignature, module: ModuleEnv, bag: DiagnosticBag) -> None:
    imports, source = module.imports, module.source
    if not imports.distributed and not imports.aliases:
        return
    if not source.mentions(_CHECKED):
        return
    buffers: dict[str, ast.AST] = {}
    host = is_host_orchestrator(sig)
    for stmt, call, device in _calls(sig.node.body, imports, False):
        if pld_call(call, imports, "alloc_window_buffer"):
            _window_buffer(stmt, call, buffers, source, bag)
        elif pld_call(call, imports, "world_size") and (not host or device):
            where = (
                "inside a device scope"
                if host
                else f"in '{sig.name}', which is no HOST orchestrator"
            )
            bag.error(
                "E232",
                f"pld.world_size() is only known in a HOST orchestrator outside its device "
                f"scopes, not {where}",
                source.span(call),
            )


def _window_buffer(
    stmt: ast.stmt,
    call: ast.Call,
    buffers: dict[str, ast.AST],
    source: SourceText,
    bag: DiagnosticBag,
) -> None:
    target = assigned_name(stmt, call)
    if target is None:
        bag.error(
            "E230",
            "pld.alloc_window_buffer(...) must be the value of a plain `name = ...` assignment",
            source.span(call),
        )
        return
    named = next((k.value for k in call.keywords if k.arg == "name"), None)
    name = target.id
    at: ast.AST = target
    if isinstance(named, ast.Constant) and isinstance(named.value, str) and named.value:
        name, at = named.value, named
    first = buffers.get(name)
    if first is not None:
        bag.error(
            "E231",
            f"a window buffer named '{name}' is already allocated in this function",
            source.span(at),
            related=(Related(source.span(first), "the first one"),),
        )
    else:
        buffers[name] = at


def _calls(
    body: list[ast.stmt], imports: DslImports, device: bool
) -> Iterator[tuple[ast.stmt, ast.Call, bool]]:
    """Every call of the statements with its statement and whether a device scope holds it."""
    for stmt in body:
        inner = device or _opens_device_scope(stmt, imports)
        for node in own_nodes(stmt):
            if isinstance(node, ast.Call):
                yield stmt, node, device
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for field in ("body", "orelse", "finalbody"):
            nested = getattr(stmt, field, None)
            if isinstance(nested, list):
                yield from _calls(nested, imports, inner)


def _opens_device_scope(stmt: ast.stmt, imports: DslImports) -> bool:
    calls: list[ast.expr] = []
    if isinstance(stmt, ast.With):
        calls = [item.context_expr for item in stmt.items]
    elif isinstance(stmt, ast.For):
        calls = [stmt.iter]
    for call in calls:
        if not isinstance(call, ast.Call):
            continue
        path = dsl_path(call.func, imports)
        if path is None or path[-1] not in _DEVICE_SCOPES or len(path) != 1:
            continue
        if path[-1] == "at" and _at_host_level(call, imports):
            continue
        return True
    return False


def _at_host_level(call: ast.Call, imports: DslImports) -> bool:
    level = next((k.value for k in call.keywords if k.arg == "level"), None)
    if level is None and call.args:
        level = call.args[0]
    path = dsl_path(level, imports) if level is not None else None
    if path is None or len(path) != 2 or path[0] != "Level":
        return False
    member = Level.__members__.get(path[1])
    return member is not None and member.value >= Level.HOST.value
