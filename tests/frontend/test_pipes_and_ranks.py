"""One mistake per rule of cross-core pipes, events and distributed programs: each file of
tests/data/pipes/ gets exactly its diagnostic, at the range its marked line says."""

from __future__ import annotations

from pathlib import Path

import pytest

from ptoc.frontend import analyze_source

DATA = Path(__file__).parent.parent / "data" / "pipes"

# file -> (code, the text the diagnostic's range covers on the line marked `# CODE`)
MISTAKES = {
    "e230_window_buffer_in_a_list.py": ("E230", "pld.alloc_window_buffer([1, 64], dtype=pl.FP32)"),
    "e231_window_buffer_name_taken.py": ("E231", '"sig"'),
    "e232_world_size_in_a_kernel.py": ("E232", "pld.world_size()"),
    "e232_world_size_in_a_device_scope.py": ("E232", "pld.world_size()"),
    "e233_device_below_host.py": ("E233", "device=0"),
    "e234_setup_on_the_wrong_core.py": ("E234", "aiv_initialize_pipe"),
    "e235_setup_direction_mask.py": ("E235", "4"),
    "e235_setup_local_slots.py": ("E235", "8"),
    "e235_setup_id_taken.py": ("E235", "1"),
    "e236_peer_func_unknown.py": ("E236", '"cube_side"'),
    "e236_peer_buffer_not_reserved.py": ("E236", '"v2c"'),
    "e237_reserved_name_taken.py": ("E237", '"slots"'),
    "e238_split_mixed.py": ("E238", "pl.SplitMode.UP_DOWN"),
    "e239_pop_without_a_type.py": ("E239", "pl.tpop_from_aiv(split=0)"),
    "w045_pipe_not_set_up.py": ("W045", "tpush_to_aic"),
    "w046_pop_never_freed.py": ("W046", "got"),
    "w047_push_without_pop.py": ("W047", "tpush_to_aic"),
    "w048_use_after_free.py": ("W048", "got"),
    "w049_free_of_a_loaded_tile.py": ("W049", "t"),
    "i008_wait_without_set.py": ("I008", "sync_wait"),
}


def diagnostics(name: str) -> list[tuple[str, int, int, int, int]]:
    text = (DATA / name).read_text(encoding="utf-8")
    analysis = analyze_source(text, name)
    return [
        (d.code, d.span.line, d.span.column, d.span.end_line, d.span.end_column)
        for d in analysis.diagnostics
    ]


def marked(name: str, code: str, covered: str) -> tuple[str, int, int, int, int]:
    """The range of ``covered`` on the line marked ``# code`` (its last occurrence before the
    mark, so `t` in `pl.tfree_to_aic(t)` is the argument)."""
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    number = next(i for i, line in enumerate(lines, 1) if line.rstrip().endswith(f"# {code}"))
    line = lines[number - 1].split("  # ")[0]
    column = line.rindex(covered) if covered in ("t", "1") else line.index(covered)
    return (code, number, column, number, column + len(covered))


def test_every_mistake_file_is_listed() -> None:
    files = {p.name for p in DATA.glob("*.py") if not p.name.startswith("ok_")}
    assert files == set(MISTAKES)


@pytest.mark.parametrize("name", sorted(MISTAKES))
def test_a_mistake_gets_exactly_its_diagnostic(name: str) -> None:
    code, covered = MISTAKES[name]
    assert diagnostics(name) == [marked(name, code, covered)]


def test_the_documented_cross_core_pipe_checks_clean() -> None:
    assert diagnostics("ok_cross_core_pipe.py") == []


def test_the_messages_say_what_is_wrong() -> None:
    text = (DATA / "e236_peer_buffer_not_reserved.py").read_text(encoding="utf-8")
    (d,) = analyze_source(text, "p.py").diagnostics
    assert d.message == "'cube' reserves no buffer named 'v2c' (it reserves 'c2v')"
    text = (DATA / "e234_setup_on_the_wrong_core.py").read_text(encoding="utf-8")
    (d,) = analyze_source(text, "p.py").diagnostics
    assert d.message == (
        "aiv_initialize_pipe runs on the vector core; 'cube' is an AIC function (the cube core)"
    )


def test_pipe_ops_are_spelt_pl_x_and_pl_system_x() -> None:
    text = (DATA / "ok_cross_core_pipe.py").read_text(encoding="utf-8")
    text = text.replace("pl.tpush_to_aic(", "pl.system.tpush_to_aic(")
    assert analyze_source(text, "p.py").diagnostics == []


MANGLED = """\
import pypto.language as pl
import pypto.language.distributed as pld


@pl.program
class W:
    @pl.function(type=pl.FunctionType.AIC)
    def cube(self, n: pl.Scalar[pl.INT32]):
        pl.tfree_to_aiv()
        pl.aic_initialize_pipe(0, 0, dir_mask=n, slot_size=512, id=n)
        x = pl.tpop_from_aiv(split=0, id=n)
        pl.tfree_to_aiv(x, id=n)
        pl.tfree_to_aiv(x)
        p = pl.import_peer_buffer(name=n, peer_func=self)
        pl.system.sync_wait(n, pipe=pl.PipeType.V)
        a, b = pld.alloc_window_buffer(8), 1
        pld.tensor.window()
        pld.system()
        pld.remote_store(1, 2)
"""


def test_mangled_calls_get_diagnostics_not_a_crash() -> None:
    found = analyze_source(MANGLED, "w.py").diagnostics
    assert not [d for d in found if d.code.startswith("E9")]
    assert [(d.code, d.span.line) for d in found if d.code in ("W048", "W049", "E236")] == [
        ("W049", 13)  # the second free: not also a use after the first
    ]
    assert ("E230", 16) in [(d.code, d.span.line) for d in found]
