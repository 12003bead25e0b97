"""The framing of LSP messages on a byte stream (``Content-Length`` headers), kept apart from
the protocol so that ``initialize`` can be read before pygls and lsprotocol load (early.py)."""

from __future__ import annotations

import json
import re

HEADER_END = b"\r\n\r\n"
CONTENT_LENGTH = re.compile(rb"content-length:[ \t]*(\d+)", re.IGNORECASE)
READ_SIZE = 1 << 16
BODY_WAIT = 0.5  # how long an incomplete body may wait before a complete JSON prefix is taken


def _json_prefix(body: bytes) -> int:
    """The length of a complete JSON value at the start of ``body`` (0: none)."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as error:
        text = body[: error.start].decode("utf-8")
    try:
        _, end = json.JSONDecoder().raw_decode(text)
    except ValueError:
        return 0
    return len(text[:end].encode("utf-8"))


def next_message(buffer: bytearray, waited: bool) -> tuple[bytes | None, bool]:
    """Take the next message body off ``buffer``: (body or None, whether to wait for more bytes).

    A header block without a Content-Length is dropped. A body whose declared length runs into
    the next message, or past what has arrived when the input pauses (``waited``), is cut at
    the end of its JSON value, so one wrong Content-Length costs at most that message.
    """
    while True:
        end = buffer.find(HEADER_END)
        if end < 0:
            return None, True
        lengths = CONTENT_LENGTH.findall(bytes(buffer[:end]))
        if not lengths:
            del buffer[: end + len(HEADER_END)]  # garbage or a header block without a length
            continue
        start = end + len(HEADER_END)
        length = int(lengths[-1])
        if len(buffer) - start >= length:
            body = bytes(buffer[start : start + length])
            if CONTENT_LENGTH.search(body) is None:
                del buffer[: start + length]
                return body, False
            # the declared length swallowed the next message: keep only this one's JSON
            cut = _json_prefix(body)
            if cut:
                del buffer[: start + cut]
                return body[:cut], False
            del buffer[: start + length]
            return body, False
        if waited:
            available = bytes(buffer[start:])
            cut = _json_prefix(available)
            if cut:
                del buffer[: start + cut]
                return available[:cut], False
        return None, True
