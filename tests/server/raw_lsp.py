"""A bare-bytes LSP client: for framing, lifecycle and stream faults that a well-behaved client
library cannot produce."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any


def child_processes(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux: read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:  # the field after the command's closing parenthesis: state, then the parent
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):  # gone meanwhile
            continue
        if parent == pid:
            found.append(int(entry.name))
    return found


def frame(message: dict[str, Any], length_delta: int = 0) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return f"Content-Length: {len(body) + length_delta}\r\n\r\n".encode("ascii") + body


class RawServer:
    def __init__(
        self,
        cwd: Path,
        args: tuple[str, ...] = (),
        env: dict[str, str] | None = None,
        command: tuple[str, ...] = (sys.executable, "-m", "ptols"),
    ) -> None:
        self.proc = subprocess.Popen(
            [*command, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
        )
        self.received: list[dict[str, Any]] = []
        self.arrived = threading.Condition()
        self.stderr = b""
        self.output_closed = False
        threading.Thread(target=self._read, daemon=True).start()
        self._stderr_reader = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr_reader.start()

    def _read(self) -> None:
        try:
            self._read_frames()
        except (OSError, ValueError):  # the test closed the stream
            return

    def _chunks(self) -> Iterator[bytes]:
        """The server's output, read from the raw descriptor: a blocked read holds no lock of
        the file object, so the test can close it (``close_output``) at any time."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        while not self.output_closed:
            chunk = os.read(fd, 65536)
            if not chunk or self.output_closed:
                return
            yield chunk

    def _read_frames(self) -> None:
        buffer = b""
        for chunk in self._chunks():
            buffer += chunk
            while True:
                head, separator, rest = buffer.partition(b"\r\n\r\n")
                if not separator:
                    break
                length = 0
                for line in head.split(b"\r\n"):
                    if line.lower().startswith(b"content-length:"):
                        length = int(line.split(b":")[1])
                if len(rest) < length:
                    break
                message = json.loads(rest[:length])
                buffer = rest[length:]
                with self.arrived:
                    self.received.append(message)
                    self.arrived.notify_all()

    def close_output(self) -> None:
        """Stop reading the server's output and close it: its next write fails."""
        assert self.proc.stdout is not None
        self.output_closed = True
        self.proc.stdout.close()

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        self.stderr = self.proc.stderr.read()

    def error_output(self) -> bytes:
        """Everything the process wrote to stderr (call after it ended)."""
        self._stderr_reader.join(10)
        return self.stderr

    def send_bytes(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any], length_delta: int = 0) -> None:
        self.send_bytes(frame({"jsonrpc": "2.0", **message}, length_delta))

    def request(self, msg_id: int, method: str, params: Any) -> None:
        self.send({"id": msg_id, "method": method, "params": params})

    def notify(self, method: str, params: Any) -> None:
        self.send({"method": method, "params": params})

    def first(self, wanted: Callable[[dict[str, Any]], bool], timeout: float) -> dict[str, Any]:
        """The first message received that ``wanted`` accepts (waits for it)."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while True:
                for message in self.received:
                    if wanted(message):
                        return message
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("no such message")
                self.arrived.wait(left)

    def response(self, msg_id: int, timeout: float = 20.0) -> dict[str, Any]:
        """The answer to request ``msg_id``."""
        return self.first(lambda m: m.get("id") == msg_id and "method" not in m, timeout)

    def diagnostics(self, uri: str, version: int, timeout: float = 20.0) -> list[dict[str, Any]]:
        def wanted(m: dict[str, Any]) -> bool:
            params = m.get("params") or {}
            return (
                m.get("method") == "textDocument/publishDiagnostics"
                and params.get("uri") == uri
                and params.get("version") == version
            )

        return list(self.first(wanted, timeout)["params"]["diagnostics"])

    def initialize(self, root: Path) -> None:
        self.request(
            0, "initialize", {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
        )
        assert "result" in self.response(0)
        self.notify("initialized", {})

    def wait(self, timeout: float) -> int:
        return self.proc.wait(timeout=timeout)

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
