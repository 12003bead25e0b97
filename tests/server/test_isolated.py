"""Formatting and pass diffs in a child process (ptols.isolated, issue #33): the answers equal
the ones computed in the server's process, and the child's lifetime (replacement, idle exit,
time limit, a child that dies) never costs an answer more than the one job it was running."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path

import pytest
from lsp_helpers import KERNEL, open_document
from pytest_lsp import LanguageClient
from raw_lsp import child_processes
from test_lsp_formatting import format_when_done

from ptoc.frontend import analyze_source
from ptols.features.formatting import format_document
from ptols.isolated import Child, JobFailed
from ptols.jobs import compile_pass_diff, formatted

ROOT = Path(__file__).resolve().parents[2]
MESSY = KERNEL.replace("pl.add(tile_a, tile_b)", "pl.add( tile_a,tile_b )")


@pytest.fixture
def child():
    made = Child("test")
    yield made
    made.close()


def ended(pid: int) -> bool:
    """Whether process ``pid`` has exited (a zombie not yet reaped counts as exited)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def wait_until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return condition()


def test_formatting_in_the_child_equals_formatting_here(child: Child):
    edits, problem = format_document(MESSY, "k.py", 88, child)
    assert len(edits) == 1 and problem == ""
    assert (edits[0].new_text, problem) == formatted(MESSY, "k.py", 88)
    assert format_document(edits[0].new_text, "k.py", 88, child) == ([], "")


def test_a_pass_diff_in_the_child_equals_one_made_here(child: Child):
    path = str(ROOT / "examples" / "flash_attention.py")
    text = Path(path).read_text()
    here = compile_pass_diff(analyze_source(text, path), None, None, False)
    there = child.call("pass_diff", text, path, None, None, None, None, False)
    assert there == here
    assert [stage.name for stage in there[0][0].stages][:2] == ["input", "ConvertToSSA"]


def test_a_job_that_raises_is_reported_with_its_traceback_and_the_child_goes_on(child: Child):
    with pytest.raises(JobFailed, match=r"(?s)Traceback.*KeyError: 'no such job'"):
        child.call("no such job")
    assert child.proc is not None and child.started == 1
    assert child.call("format", MESSY, "k.py", 88)[0] is not None
    assert child.started == 1


def test_the_child_is_replaced_after_its_share_of_jobs(child: Child):
    child.jobs_per_child = 2
    child.call("format", KERNEL, "k.py", 88)
    assert child.proc is not None
    first = child.proc.pid
    child.call("format", KERNEL, "k.py", 88)  # its second: a fresh child waits for the next
    assert child.started == 2 and child.proc is not None and child.proc.pid != first
    assert wait_until(lambda: ended(first))
    assert child.call("format", MESSY, "k.py", 88)[0] is not None


def test_a_child_whose_memory_passed_the_bound_is_replaced(child: Child):
    child.max_rss_kb = 1  # every child is above it
    child.call("format", KERNEL, "k.py", 88)
    assert child.started == 2


def test_an_idle_child_leaves_and_the_next_job_starts_another(child: Child):
    child.idle_exit = 0.5
    child.call("format", KERNEL, "k.py", 88)
    assert child.proc is not None
    pid = child.proc.pid
    assert wait_until(lambda: child.proc is None and ended(pid))
    assert child.call("format", MESSY, "k.py", 88)[0] is not None
    assert child.started == 2


def test_activity_keeps_a_child_from_leaving(child: Child):
    child.idle_exit = 0.6
    child.call("format", KERNEL, "k.py", 88)
    proc = child.proc
    for _ in range(8):  # 1.2 s of activity, each gap shorter than idle_exit
        time.sleep(0.15)
        child.touch()
    assert child.proc is proc and proc is not None and proc.poll() is None


def test_a_job_over_the_time_limit_kills_the_child_and_the_next_job_gets_a_new_one(child: Child):
    child.call("format", KERNEL, "k.py", 88)
    assert child.proc is not None
    pid = child.proc.pid
    child.timeout = 0.05  # less than formatting this takes (over a second)
    with pytest.raises(JobFailed, match=r"the test process took over 0.05 s"):
        child.call("format", MESSY * 40, "k.py", 88)
    assert child.proc is None and wait_until(lambda: ended(pid))
    child.timeout = 60
    assert child.call("format", MESSY, "k.py", 88)[0] is not None


def test_a_child_that_dies_during_a_job_costs_that_job(child: Child):
    import threading

    child.call("format", KERNEL, "k.py", 88)
    assert child.proc is not None
    proc = child.proc
    big = MESSY * 40  # a job long enough to be killed in the middle of
    threading.Timer(0.3, proc.kill).start()
    with pytest.raises(JobFailed, match=r"^the test process stopped before answering$"):
        child.call("format", big, "k.py", 88)
    assert child.proc is None
    assert child.call("format", MESSY, "k.py", 88)[0] is not None


def test_what_the_child_prints_never_reaches_the_answers(tmp_path: Path):
    """The child's stdout is the server's stderr: a job that prints leaves the answers whole."""
    import subprocess
    import sys

    from ptols.isolated import receive, send

    printer = tmp_path / "printer.py"
    printer.write_text("def job(x):\n    print('noise ' * 100)\n    return x + 1\n")
    script = (
        "import sys, ptols.isolated as iso; sys.path.insert(0, sys.argv[1]); "
        "iso.JOBS['print'] = 'printer:job'; iso.serve()"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    proc = subprocess.Popen(
        [sys.executable, "-c", script, str(tmp_path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    send(proc.stdin, ("print", (41,)))
    status, value, rss = receive(proc.stdout)
    proc.stdin.close()
    assert (status, value) == ("ok", 42) and rss > 10_000
    assert proc.wait(10) == 0
    assert proc.stderr.read().startswith(b"noise noise")


async def test_the_server_formats_in_a_child_started_by_the_first_format(
    client: LanguageClient, tmp_path: Path
):
    uri = await open_document(client, tmp_path / "k.py", MESSY)
    server = client._server.pid  # type: ignore[attr-defined]
    await asyncio.sleep(0.5)
    assert isolated_children(server) == []  # no child for a user who never formats
    edits = await format_when_done(client, uri)
    assert edits is not None and "pl.add(tile_a, tile_b)" in edits[0].new_text
    (pid,) = isolated_children(server)
    again = await format_when_done(client, uri)
    assert again == edits and isolated_children(server) == [pid]  # the same child again


def isolated_children(pid: int) -> list[int]:
    """The server's children running ``ptols.isolated``."""
    found = []
    for child in child_processes(pid):
        try:
            command = Path(f"/proc/{child}/cmdline").read_bytes().split(b"\0")
        except OSError:  # gone meanwhile
            continue
        if b"ptols.isolated" in command:
            found.append(child)
    return found


def test_a_child_that_ended_while_idle_costs_nothing(child: Child):
    child.call("format", KERNEL, "k.py", 88)
    assert child.proc is not None
    child.proc.kill()
    child.proc.wait()
    assert child.call("format", MESSY, "k.py", 88)[0] is not None
    assert child.started == 2


def test_formatting_whose_child_failed_leaves_the_file_as_it_was_and_says_why(child: Child):
    child.timeout = 0.05  # less than the child takes to start
    assert format_document(MESSY, "k.py", 88, child) == ([], "the test process took over 0.05 s")
    child.timeout = 60
    assert len(format_document(MESSY, "k.py", 88, child)[0]) == 1


async def test_a_pass_diff_whose_child_failed_answers_e900_and_the_next_one_works(tmp_path: Path):
    from lsprotocol import types

    from ptols.handlers.hardware import pass_diff
    from ptols.protocol import PassDiffParams
    from ptols.server import PtolsServer

    server = PtolsServer()
    server.publish = lambda *args: None  # type: ignore[method-assign]  # no client here
    server.notify = lambda *args: None  # type: ignore[method-assign]
    path = tmp_path / "k.py"
    path.write_text(KERNEL)
    doc = server.store.open(path.as_uri(), KERNEL, 1)
    await server.analyse(doc, 1, doc.text, immediate=True)
    assert doc.current
    ask = PassDiffParams(types.TextDocumentIdentifier(doc.uri))
    try:
        server.pass_diff_child.timeout = 0.05  # less than the child takes to start
        failed = await pass_diff(server, ask)
        assert failed.programs == []
        assert [(d.code, d.message) for d in failed.diagnostics] == [
            (
                "E900",
                "internal error in the pass diff: JobFailed: the pass-diff process took over"
                " 0.05 s",
            )
        ]
        server.pass_diff_child.timeout = 60
        answered = await pass_diff(server, ask)
        assert [p.program for p in answered.programs] == ["Demo"] and answered.diagnostics == []
    finally:
        server.pass_diff_child.close()
        server.format_child.close()


@pytest.mark.parametrize("ending", ["exit", "killed"])
def test_the_children_end_with_the_server(tmp_path: Path, ending: str):
    """`exit` (the server leaves with os._exit) or a kill: the children read the end of their
    input and leave; none outlives the server."""
    import signal

    from raw_lsp import RawServer

    server = RawServer(tmp_path)
    try:
        server.initialize(tmp_path)
        uri = (tmp_path / "k.py").as_uri()
        item = {"uri": uri, "languageId": "python", "version": 1, "text": KERNEL}
        server.notify("textDocument/didOpen", {"textDocument": item})
        ask = {"textDocument": {"uri": uri}, "options": {"tabSize": 4, "insertSpaces": True}}
        server.request(2, "textDocument/formatting", ask)
        server.response(2)
        assert wait_until(lambda: bool(isolated_children(server.proc.pid)), 20)
        (child,) = isolated_children(server.proc.pid)
        if ending == "exit":
            server.request(1, "shutdown", None)
            server.response(1)
            server.notify("exit", None)
            assert server.wait(20) == 0
        else:
            server.proc.send_signal(signal.SIGKILL)
            server.wait(20)
        assert wait_until(lambda: ended(child), 20)
    finally:
        server.close()


@pytest.fixture
def black_elsewhere(child: Child):
    """The IR printer's black runs in ``child`` (as the server sets it up), from nothing kept."""
    from ptoc.printer import black_format
    from ptols.features.formatting import black_in_child

    black_in_child(child)
    black_format.clear_caches()
    yield child
    black_format.set_black_runner(None)


LONG_LINES = [
    "def kernel(self, a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32])"
    " -> pl.Tensor[[128, 128], pl.FP32]:",
    "    tile_a: pl.Tile[[128, 128], pl.FP32] = pl.block.load(a, [0, 0], [128, 128],"
    " target_memory=1)",
    "    return tile_a",
]


def test_the_printers_black_in_the_child_lays_out_what_black_here_does(black_elsewhere: Child):
    from ptoc.printer import black_format

    there = black_format.format_printed(LONG_LINES, 60)
    assert black_elsewhere.started == 1 and black_elsewhere.jobs == 1  # one batch of shapes
    black_format.set_black_runner(None)
    black_format.clear_caches()
    assert black_format.format_printed(LONG_LINES, 60) == there
    assert "    tile_a: pl.Tile[[128, 128], pl.FP32] = pl.block.load(\n" in there


def test_a_failed_black_batch_is_laid_out_here_and_not_kept_as_a_refusal(
    black_elsewhere: Child, caplog: pytest.LogCaptureFixture
):
    from ptoc.printer import black_format

    black_elsewhere.timeout = 0.05  # less than the child takes to start
    here = black_format.format_printed(LONG_LINES, 60)
    assert "the test process took over 0.05 s" in caplog.text
    black_format.set_black_runner(None)
    black_format.clear_caches()
    assert black_format.format_printed(LONG_LINES, 60) == here


async def test_an_ir_preview_with_long_lines_never_loads_black_into_the_server(
    client: LanguageClient, tmp_path: Path
):
    import subprocess
    import sys

    path = tmp_path / "k.py"
    uri = await open_document(client, path, KERNEL)
    found = await client.protocol.send_request_async(
        "ptols/preview", {"textDocument": {"uri": uri}, "target": "ir"}
    )
    assert max(len(line) for line in found.content.splitlines()) <= 88
    printed = subprocess.run(
        [sys.executable, "-m", "ptoc", "compile", str(path), "--target", "ir"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert found.content == printed and "\n        ] = pl.block.load(" in printed  # split
    server = client._server.pid  # type: ignore[attr-defined]
    assert len(isolated_children(server)) == 1  # the formatting child laid it out
    maps = Path(f"/proc/{server}/maps").read_text()
    assert "/black/" not in maps and "__mypyc" not in maps
