"""Warming the protocol converter: its readers and writers of every handled method's messages.

cattrs makes each on first use, and a first hover or edit paid tens of ms for it. They are
made once the first analysis is published (made before, they held a first file's diagnostics
back ~60 ms), one method per turn of the message loop, so that a request never waits behind
them all; their code is then kept by ``generated_code`` for the next start.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from lsprotocol import types

log = logging.getLogger("ptols")

#: Idle seconds after `initialized` before the converter is warmed if no document comes.
WARM_DELAY = 0.5


class ConverterWarmer:
    def __init__(self, protocol: Any) -> None:
        self.protocol = protocol
        self.started = False

    def start_later(self, delay: float = 0.0) -> None:
        """Warm every method's messages once, ``delay`` seconds from now on the message loop
        (at once and all together when no loop runs: a test calling this directly)."""
        if self.started:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.start(None)
            return
        loop.call_later(delay, self.start, loop)

    def start(self, loop: asyncio.AbstractEventLoop | None) -> None:
        if not self.started:
            self.started = True
            methods = [*self.protocol.fm.features, types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS]
            self.warm(methods, loop)

    def warm(self, methods: list[str], loop: asyncio.AbstractEventLoop | None) -> None:
        while methods:
            self.warm_method(methods.pop())
            if loop is not None and methods:
                loop.call_soon(self.warm, methods, loop)
                return
        from . import generated_code

        generated_code.flush()  # the hooks' code is compiled once per installation

    def warm_method(self, method: str) -> None:
        converter = self.protocol._converter
        for message in (
            self.protocol.get_message_type(method),
            self.protocol.get_result_type(method),
        ):
            if message is None:
                continue
            try:
                converter.get_structure_hook(message)
                converter.get_unstructure_hook(message)
            except Exception as error:  # only an optimisation
                log.debug("no converter hooks for %s: %s", message, error)
