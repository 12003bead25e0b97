"""Orchestration host code for 2026-08's task graph (#28): a pl.submit with no deps is the
plain PTO2 task, pl.scope() the runtime's PTO2_SCOPE; what the PTO2 host calls cannot say
(deps=, predicate=, core_num=, manual scopes, pl.spmd) is an E400 naming it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ptoc import driver
from ptoc.diagnostics import Diagnostic, Severity
from ptoc.frontend import analyze_source
from ptoc.records import replace

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "frontend"))
from frontend_helpers import where  # noqa: E402
from task_mistakes import BODY_LINE, program  # noqa: E402


def compile_cce(body: str) -> tuple[str, list[str]]:
    result = driver.compile_source(program(body), "cce", path="tasks.py")
    errors = [d.format() for d in result.diagnostics if d.severity is Severity.ERROR]
    return result.text, errors


def test_a_submit_in_a_scope_is_a_task_in_a_pto2_scope() -> None:
    code, errors = compile_cce(
        """
with pl.scope():
    out, tid = pl.submit(self.scale, x, out)
    out = self.scale(out, out)
return out
"""
    )
    assert errors == []
    lines = [line.strip() for line in code.splitlines()]
    start = lines.index("PTO2_SCOPE(rt) {")
    assert lines[start + 2 : start + 7] == [
        "// Task 0: scale",
        "PTOParam params_t0[] = {",
        "make_input_param(ext_x),",
        "make_output_param(ext_out),",
        "};",
    ]
    submitted = [line for line in lines if line.startswith("pto2_rt_submit_task")]
    assert submitted == [
        "pto2_rt_submit_task(rt, 0, PTO2_WORKER_VECTOR, params_t0, 2);",
        "pto2_rt_submit_task(rt, 0, PTO2_WORKER_VECTOR, params_t1, 2);",
    ]


@pytest.mark.parametrize(
    ("body", "line", "says"),
    [
        (
            "out, tid = pl.submit(self.scale, x, out)\n"
            "out, t2 = pl.submit(self.scale, out, out, deps=[tid])\nreturn out",
            1,
            "pl.submit(self.scale, ...) with deps= (explicit TaskId edges) has no lowering",
        ),
        (
            "out, tid = pl.spmd_submit(self.scale, x, out, core_num=4)\nreturn out",
            0,
            "core_num= (multi-block launches) has no lowering",
        ),
        (
            "with pl.manual_scope():\n    out = self.scale(x, out)\nreturn out",
            0,
            "pl.manual_scope() (manual dependency tracking) has no lowering",
        ),
        (
            "with pl.spmd(4):\n    out = self.scale(x, out)\nreturn out",
            0,
            "pl.spmd(n) has no lowering to the PTO2 host runtime here",
        ),
    ],
)
def test_what_the_host_runtime_cannot_say_is_an_e400_naming_it(
    body: str, line: int, says: str
) -> None:
    _, errors = compile_cce(body)
    assert len(errors) == 1
    assert f"tasks.py:{BODY_LINE + line}:" in errors[0]
    assert "error[E400]" in errors[0] and says in errors[0]


def test_a_pl_at_region_waiting_on_a_task_is_an_e400_at_its_deps_not_a_dropped_edge() -> None:
    body = """
out, tid = pl.submit(self.scale, x, out)
with pl.at(level=pl.Level.CORE_GROUP, deps=[tid], name_hint="twice") as t2:
    t = pl.load(out, [0, 0], [64, 64])
    out = pl.store(pl.add(t, t), [0, 0], out)
return out
"""
    source = program(body)
    checked = analyze_source(source, "tasks.py")
    assert checked.diagnostics == []  # upstream accepts it: only code generation says no
    for target in ("cce", "pto"):
        result = driver.compile_source(source, target, path="tasks.py")
        assert [(d.code, d.message, tuple(d.span[1:])) for d in result.diagnostics] == [
            (
                "E400",
                "the pl.at(...) region (outlined into main_incore_0) with deps= (explicit "
                "TaskId edges) has no lowering to the PTO2 host runtime here: the generator's "
                "runtime calls (pto2_rt_submit_task) take no TaskId",
                where(source, "deps=[tid]"),
            )
        ]
    # the outlined launch keeps the edge and the TaskId: a submit of the region's kernel
    printed = " ".join(driver.compile_source(source, "ir", path="tasks.py").text.split())
    assert "= pl.submit( self.main_incore_0, out_1, deps=[tid] )" in printed
    assert "t2: pl.Scalar[pl.TASK_ID] = _task0[1]" in printed


NAMED_REGION = """
with pl.at(level=pl.Level.CORE_GROUP, name_hint="prep") as prep:
    t = pl.load(x, [0, 0], [64, 64])
    out = pl.store(pl.add(t, t), [0, 0], out)
{tail}
return out
"""


def test_a_pl_at_region_naming_its_task_id_still_defines_it_after_outlining() -> None:
    # (it was outlined into a plain call: `prep` was left unbound, printed as a free
    # `prep = pl.dynamic("prep")`)
    source = program(NAMED_REGION.format(tail="out = self.scale(out, out)"))
    outlined = driver.compile_source(source, "pass:OutlineIncoreScopes", path="tasks.py")
    assert outlined.diagnostics == []
    printed = " ".join(outlined.text.split())
    assert "pl.dynamic" not in printed
    assert "= pl.submit( self.main_incore_0, x, out )" in printed
    assert "prep: pl.Scalar[pl.TASK_ID] = _task0[1]" in printed
    # with no deps= the launch is the plain PTO2 task, its output the caller's tensor
    code, errors = compile_cce(NAMED_REGION.format(tail="out = self.scale(out, out)"))
    assert errors == []
    lines = [line.strip() for line in code.splitlines()]
    assert [line for line in lines if line.startswith("pto2_rt_submit_task")] == [
        "pto2_rt_submit_task(rt, 0, PTO2_WORKER_VECTOR, params_t0, 2);",
        "pto2_rt_submit_task(rt, 1, PTO2_WORKER_VECTOR, params_t1, 2);",
    ]


WAITS_ON_NAMED_REGION = """with pl.at(level=pl.Level.CORE_GROUP, deps=[prep], name_hint="tail"):
    u = pl.load(out, [0, 0], [64, 64])
    out = pl.store(pl.mul(u, u), [0, 0], out)"""


@pytest.mark.parametrize("target", ["cce", "pto"])
def test_kernels_compile_beside_an_orchestration_without_host_lowering(target: str) -> None:
    """A later `deps=[prep]` has no host lowering: one E400 at it, and the kernels' code
    is still the result (the preview showed an empty pane)."""
    source = program(NAMED_REGION.format(tail=WAITS_ON_NAMED_REGION))
    result = driver.compile_source(source, target, path="tasks.py")
    assert [(d.code, tuple(d.span[1:])) for d in result.diagnostics] == [
        ("E400", where(source, "deps=[prep]"))
    ]
    kernels = (
        ["void runScale(", "void runMainIncore0(", "void runMainIncore1("]
        if target == "cce"
        else ["func.func @scale(", "func.func @main_incore_0(", "func.func @main_incore_1("]
    )
    for kernel in kernels:
        assert kernel in result.text
    said = result.diagnostics[0].message
    assert [line.strip() for line in result.text.splitlines() if "// error" in line] == [
        f"// error: main: {said}"
    ]
    assert len(result.line_spans) == len(result.text.splitlines())


def test_the_preview_shows_the_kernels_and_the_e400() -> None:
    from ptols.features.preview import compile_preview

    source = program(NAMED_REGION.format(tail=WAITS_ON_NAMED_REGION))
    preview = compile_preview(analyze_source(source, "tasks.py"), "cce", None, None)
    assert [d.code for d in preview.diagnostics] == ["E400"]
    assert "void runMainIncore1(" in preview.content
    assert len(preview.line_spans) == len(preview.content.splitlines())


def test_a_kernel_error_beside_a_host_error_still_hides_the_text() -> None:
    """Partial code is shown only when every error is the orchestration's host code: a
    kernel that fails to generate (an error of its own) keeps the result empty."""
    source = program(NAMED_REGION.format(tail=WAITS_ON_NAMED_REGION))
    result = driver.compile_source(source, "cce", path="tasks.py")
    (host,) = result.back_end
    assert result.programs[0].host_errors == [host] and result.text
    kernel = Diagnostic("E401", Severity.ERROR, "a kernel's own failure", host.span)
    result.back_end.append(kernel)
    assert result.text == "" and result.line_spans == []
    result.back_end.remove(kernel)
    result.back_end.append(replace(kernel, severity=Severity.WARNING))
    assert result.text  # (a warning hides nothing)


EXAMPLES = Path(__file__).resolve().parents[4] / "shared" / "pypto-2026-08" / "examples"


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="no upstream examples")
@pytest.mark.parametrize("target", ["cce", "pto"])
def test_the_phase_fence_example_s_kernels_compile_beside_its_manual_scopes(target: str) -> None:
    """Two built programs submitting kernel_stripe in a pl.manual_scope(): each kernel's code
    (sized by the builder's defaults through chained_snapshot_shape), each manual scope an
    E400 of its own line."""
    path = EXAMPLES / "utils" / "phase_fence_dep_compression.py"
    result = driver.compile_source(path.read_text(encoding="utf-8"), target, path=str(path))
    assert [(d.code, d.span.line) for d in result.diagnostics] == [("E400", 77), ("E400", 131)]
    assert all(
        "pl.manual_scope() (manual dependency tracking)" in d.message for d in result.diagnostics
    )
    kernel = "void runKernelStripe(" if target == "cce" else "func.func @kernel_stripe("
    assert result.text.count(kernel) == 2
    shape = "float, 32, 32" if target == "cce" else "sizes = [%c32, %c32]"
    assert shape in result.text


def test_ptoc_compile_prints_the_kernels_and_exits_1_on_a_host_e400(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from ptoc.cli import main

    source = tmp_path / "tasks.py"
    source.write_text(program(NAMED_REGION.format(tail=WAITS_ON_NAMED_REGION)), encoding="utf-8")
    assert main(["compile", str(source)]) == 1
    printed = capsys.readouterr()
    assert "void runMainIncore1(" in printed.out
    assert printed.err.count("error[E400]") == 1
