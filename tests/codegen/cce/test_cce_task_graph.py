"""Orchestration host code for 2026-08's task graph (#28): a pl.submit with no deps is the
plain PTO2 task, pl.scope() the runtime's PTO2_SCOPE; what the PTO2 host calls cannot say
(deps=, predicate=, core_num=, manual scopes, pl.spmd) is an E400 naming it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ptoc import driver
from ptoc.diagnostics import Severity

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "frontend"))
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
