"""ptols.pipelines.SharedPipelines in process: one computation per narrowed program and
pipeline, shared by threads; failures not kept; background work waits for the foreground."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
from lsp_helpers import KERNEL

from ptoc import driver
from ptoc.frontend import analyze_source
from ptols.pipelines import SharedPipelines


def kernel_program() -> Any:
    (program,) = analyze_source(KERNEL, "k.py").all_programs()
    return driver.narrow(program, "kernel")


def test_threads_asking_for_one_pipeline_share_one_run() -> None:
    shared, program = SharedPipelines(), kernel_program()
    runs: list[int] = []
    started, release = threading.Event(), threading.Event()

    def compute() -> str:
        runs.append(1)
        started.set()
        release.wait(5)
        return "lowered"

    got: list[str] = []
    first = threading.Thread(target=lambda: got.append(shared.lowered(program, "default", compute)))
    first.start()
    assert started.wait(5)
    second = threading.Thread(
        target=lambda: got.append(shared.lowered(program, "default", compute))
    )
    second.start()
    time.sleep(0.05)
    assert got == []  # the second waits for the first's result
    release.set()
    first.join(5)
    second.join(5)
    assert got == ["lowered", "lowered"] and len(runs) == 1
    # another pipeline, or another program, is another result
    assert shared.lowered(program, "ptoas", lambda: "other") == "other"
    (whole,) = analyze_source(KERNEL, "k.py").all_programs()
    assert shared.lowered(whole, "default", lambda: "whole") == "whole"


def test_a_failed_run_is_not_kept() -> None:
    shared, program = SharedPipelines(), kernel_program()

    def fail() -> str:
        raise ValueError("broken pass")

    with pytest.raises(ValueError, match="broken pass"):
        shared.lowered(program, "default", fail)
    assert shared.lowered(program, "default", lambda: "again") == "again"


def test_run_makes_the_driver_use_the_shared_results() -> None:
    shared = SharedPipelines()
    analysis = analyze_source(KERNEL, "k.py")
    first = shared.run(driver.compile_source, analysis, "cce", "kernel")
    again = shared.run(driver.compile_source, analysis, "cce", "kernel")
    assert first.programs[0].pipeline is again.programs[0].pipeline  # the same result object
    alone = driver.compile_source(analysis, "cce", "kernel")  # outside run: not shared
    assert alone.programs[0].pipeline is not first.programs[0].pipeline
    assert alone.text == first.text


def test_an_edited_function_is_not_answered_from_the_old_result() -> None:
    shared = SharedPipelines()
    old = analyze_source(KERNEL, "k.py")
    new = analyze_source(KERNEL.replace("pl.add(", "pl.mul("), "k.py")
    shared.run(driver.compile_source, old, "cce", "kernel")
    assert "TMUL" in shared.run(driver.compile_source, new, "cce", "kernel").text
    assert len(shared.results) == 2
    shared.keep_only(new)
    assert len(shared.results) == 1


def test_pipelines_wait_while_the_foreground_is_busy() -> None:
    quiet = threading.Event()
    shared, program = SharedPipelines(quiet), kernel_program()
    done: list[str] = []
    worker = threading.Thread(
        target=lambda: done.append(shared.lowered(program, "default", lambda: "lowered"))
    )
    worker.start()
    time.sleep(0.1)
    assert done == []  # waits for the edit's analysis
    quiet.set()
    worker.join(5)
    assert done == ["lowered"]


def test_structural_hashes_are_kept_per_function_object() -> None:
    from ptoc.ir.equality import structural_hash

    shared = SharedPipelines()
    (program,) = analyze_source(KERNEL, "k.py").all_programs()
    fn = program.functions[0]
    assert shared.structural_hash(fn) == structural_hash(fn)
    assert shared.hashes[id(fn)] == (fn, structural_hash(fn))


def test_fast_analyses_start_at_once_slow_ones_are_debounced() -> None:
    from ptols.documents import Document
    from ptols.server import MAX_DEBOUNCE, create_server

    server = create_server()
    doc = Document("file:///k.py", KERNEL, 1)
    doc.last_duration = 0.020  # processor seconds of the last analysis
    assert server.debounce(doc) == 0.0
    doc.last_duration = 0.080
    assert server.debounce(doc) == pytest.approx(0.040)
    doc.last_duration = 2.0
    assert server.debounce(doc) == MAX_DEBOUNCE


def test_the_facts_of_a_caller_follow_an_edit_of_its_callee() -> None:
    """`main` inlines `kernel`: its facts (CCE lines by statement) are kept only while both
    are unchanged."""
    from ptoc.frontend import AnalysisCache
    from ptoc.kernel_facts import document_facts

    cache, memo, shared = AnalysisCache(), {}, SharedPipelines()

    def facts(text: str) -> dict[str, Any]:
        analysis = analyze_source(text, "k.py", cache)
        found = document_facts(
            analysis, memo, hash_of=shared.structural_hash, calls_of=shared.direct_calls
        )
        return {f.function: f for f in found}

    def generated(fact: Any) -> list[str]:
        return [line for lines in fact.cce.values() for line in lines if line.startswith("T")]

    before = facts(KERNEL)
    after = facts(KERNEL.replace("pl.add(tile_a, tile_b)", "pl.mul(tile_a, tile_b)"))
    assert "TADD(tile_c, tile_a, tile_b);" in generated(before["main"])
    assert "TMUL(tile_c, tile_a, tile_b);" in generated(after["main"])
    assert "TADD(tile_c, tile_a, tile_b);" not in generated(after["main"])
