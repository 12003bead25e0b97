"""The 2026-08 op modules are imported on demand (issue #26): a 2026-03 check imports none of
them, a look-up imports only the module it needs, and whatever order look-ups import them in,
the registry then answers as if every op had been registered at import. The index naming
their ops (ops/lazy_index.py) is what ``python -m ptoc.ops.lazy_build`` writes now."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ptoc.frontend.edition import _op_spellings, op_spelling_editions
from ptoc.ops import REGISTRY, Role, lazy_index, load_all
from ptoc.ops.lazy import DEFERRED, module_of
from ptoc.ops.lazy_build import render

ROOT = Path(__file__).resolve().parents[2]
DEFERRED_MODULES = [f"ptoc.ops.{m}" for m in lazy_index.MODULES]


def _run(code: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.strip().splitlines()[-1]


def _imported_after(code: str) -> list[str]:
    """The deferred modules imported once ``code`` has run in a fresh process."""
    found = _run(
        textwrap.dedent(code)
        + "\nimport json, sys\n"
        + f"print(json.dumps(sorted(m for m in {DEFERRED_MODULES!r} if m in sys.modules)))"
    )
    return list(json.loads(found))


def test_the_index_is_what_lazy_build_writes() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "ptoc.ops.lazy_build", "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_the_index_names_every_2026_08_op_and_no_other() -> None:
    load_all()
    added = {op.name for op in REGISTRY if op.since.value == "2026-08"}
    assert set(lazy_index.OPS) == added
    assert len(added) > 150
    assert module_of("block.sin") == "tile_2608" and module_of("block.add") is None


def test_an_index_row_is_one_line_unless_ruff_would_split_it() -> None:
    long = "a" * 90
    text = render({"block.x": (4, True, "MOVE", ("x",)), "pld.y": (0, False, "SCALAR", (long,))})
    rows = text.split("OPS: dict[str, tuple[int, bool, str, tuple[str, ...]]] = {\n")[1]
    assert rows == (
        '    "block.x": (4, True, "MOVE", ("x",)),\n'
        '    "pld.y": (\n'
        "        0,\n"
        "        False,\n"
        '        "SCALAR",\n'
        f'        ("{long}",),\n'
        "    ),\n"
        "}\n"
    )


def test_importing_the_ops_imports_no_2026_08_module() -> None:
    assert _imported_after("import ptoc.ops") == []


@pytest.mark.parametrize("example", ["simple_add.py", "flash_attention.py", "tensor_add.py"])
def test_a_2026_03_check_imports_no_2026_08_module(example: str) -> None:
    code = f"""
        from ptoc.cli import main
        assert main(["check", "examples/{example}"]) == 0
        from ptoc.frontend.edition import spelling_table
        spelling_table()  # (edition detection: the 2026-08 spellings come from the index)
    """
    assert _imported_after(code) == []


def test_a_look_up_imports_only_the_module_of_its_op() -> None:
    code = """
        from ptoc.ops import REGISTRY
        assert REGISTRY.get("block.sin").name == "block.sin"
        assert REGISTRY.get("block.no_such_op") is None
    """
    assert _imported_after(code) == ["ptoc.ops.tile_2608"]
    pld = "from ptoc.ops import resolve_pld\nassert resolve_pld(('pld', 'window'), None).op"
    assert _imported_after(pld) == ["ptoc.ops.distributed_2608"]
    spelled = "from ptoc.ops import REGISTRY\nassert REGISTRY.by_dsl_name('tensor', 'sin')"
    assert _imported_after(spelled) == ["ptoc.ops.tensor_2608"]
    member = "from ptoc.ops import REGISTRY\nassert 'block.gather' in REGISTRY.ops"
    assert _imported_after(member) == ["ptoc.ops.tile_2608", "ptoc.ops.tile_2608_gather"]


# What a registry answers: every op in order, every spelling's op, every role query, every
# namespace's completion list, the spellings of one edition only.
_ANSWERS = """
import json
from ptoc.frontend.edition import spelling_table
from ptoc.ops import REGISTRY, Role, dsl_spellings, pld_spellings

def answers():
    table = spelling_table()
    ops = list(REGISTRY)
    spaces = sorted({op.namespace for op in ops})
    return {
        "ops": [repr(op).split(" rule=")[0] for op in ops],
        "by_dsl": {
            f"{op.namespace} {s}": REGISTRY.by_dsl_name(op.namespace, s).name
            for op in ops for s in op.dsl_names or (op.short_name,)
        },
        "roles": {
            f"{role.name} {ns}": [op.name for op in REGISTRY.with_role(role, ns)]
            for role in Role for ns in [None, *spaces]
        },
        "first": {
            f"{role.name} {ns}": getattr(REGISTRY.first(role, ns, lambda op: True), "name", None)
            for role in Role for ns in [None, *spaces]
        },
        "spellings": {ns: [(s, op.name) for s, op in dsl_spellings((ns,))] for ns in spaces},
        "unified": [(s, op.name) for s, op in dsl_spellings(())],
        "pld": [(s, op.name) for s, op in pld_spellings(None)],
        "table": sorted((s, e.value) for s, e in table._spellings.items()),
    }
"""


def test_look_ups_in_any_order_answer_as_the_eager_registry() -> None:
    walk = "from ptoc.ops import load_all\nload_all()\nprint(json.dumps(answers()))"
    eager = _run(_ANSWERS + walk)
    # Edition detection first (no module imported), then look-ups that import the modules one
    # by one, out of the index's order, then the walk.
    lazy = _run(
        _ANSWERS
        + """
from ptoc.ops import resolve_op, resolve_pld
spelling_table()
assert REGISTRY.get("block.mgather") is not None  # tile_2608_gather (and tile_2608)
assert REGISTRY.first(Role.MOVE, "block", lambda op: True).name == "block.move"
assert resolve_op(("tensor",), "sin", []).op is not None  # tensor_2608
assert resolve_pld(("pld", "system", "rank"), None).op is not None  # distributed_2608
assert "block.batch_matmul_acc" in REGISTRY.ops  # tile_2608_cube
print(json.dumps(answers()))
"""
    )
    assert json.loads(lazy) == json.loads(eager)


def test_the_index_spells_the_ops_as_their_registrations_do() -> None:
    load_all()
    from_ops = sorted(
        (spelling, str(edition))
        for op in REGISTRY
        if op.dsl_visible
        for spelling, edition in op_spelling_editions(op)
    )
    assert sorted((s, str(e)) for s, e in _op_spellings()) == from_ops


def test_first_is_the_first_op_of_the_role_that_passes() -> None:
    load_all()
    assert DEFERRED.complete
    moves = REGISTRY.with_role(Role.MOVE, "block")
    with_attr = REGISTRY.first(Role.MOVE, "block", lambda op: op.result_space_attr is not None)
    assert with_attr is next(op for op in moves if op.result_space_attr is not None)
    assert REGISTRY.first(Role.MOVE, "block", lambda op: False) is None
