"""Messages between the host and its worker processes.

Plain tuples and dicts, pickled with protocol 5, over a socket pair in
``multiprocessing.connection`` framing (a 4-byte big-endian length, or -1 and an 8-byte one
past 2 GiB): this path runs once per tool call, so no pydantic and no dataclasses here
(bench/calls.py measures the cost). A request is ``(op, args...)``; a reply is
``(status, payload)`` with status one of the constants below. On the wire each request travels
as ``(budget seconds or None, request)``: the worker's own deadline (``workers.lifetime``).
A call's payload is a plain tuple in ``CallReply``'s field order; the host reads it as a
``CallReply`` (``CallReply(*payload)``). A result crosses as its JSON text, encoded once in the
worker (which must encode it anyway to prove it is JSON and to measure it): a string pickles and
unpickles in a few microseconds where a nested dict takes tens, and the host hands the same text
to the agent as the call's text content (#25 item 4).
"""

from __future__ import annotations

import pickle
import struct
from dataclasses import dataclass
from typing import Any, NamedTuple

__all__ = ["CallReply", "DomainBundle", "FAULT", "Frames", "LIMIT", "OK", "PICKLE_PROTOCOL", "TOOL_ERROR", "frame"]

OK = "ok"
TOOL_ERROR = "tool_error"
FAULT = "fault"
LIMIT = "limit"
PICKLE_PROTOCOL = 5

_SHORT = struct.Struct("!i")
_LONG = struct.Struct("!Q")


@dataclass(frozen=True)
class DomainBundle:
    """What a worker needs to run a domain's tools: sent once per worker, never read from disk there."""

    content_hash: str
    manifest_json: str
    schema_sql: str
    seed: dict[str, list[dict[str, Any]]]
    tools_source: str
    base_hash: str | None = None  # a variant (validation's mutants): same data as this loaded bundle
    tools_code: bytes | None = None  # tool_loader.checked_code(tools_source): run as checked in the host


class CallReply(NamedTuple):
    """Outcome of one tool call inside a worker (a plain tuple on the wire)."""

    status: str
    result_json: str | None = None  # the result, as the JSON text the agent gets (``json.dumps(..., ensure_ascii=False)``)
    error_code: str | None = None
    message: str | None = None
    detail: str | None = None  # traceback for validation reports; never shown to agents
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    result_bytes: int = 0  # UTF-8 size of ``result_json``: the host keeps a summary in the trace past a limit


def frame(obj: Any) -> bytes:
    """``obj`` pickled and framed as ``Connection.send_bytes`` frames it (what the worker's ``recv_bytes`` reads)."""
    data = pickle.dumps(obj, PICKLE_PROTOCOL)
    size = len(data)
    if size > 0x7FFFFFFF:
        return _SHORT.pack(-1) + _LONG.pack(size) + data
    return _SHORT.pack(size) + data


class Frames:
    """Incremental reader of frames from a byte stream: ``feed(chunk)`` returns the messages it completed."""

    __slots__ = ("buffer",)

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, chunk: bytes) -> list[Any]:
        buffer = self.buffer
        buffer += chunk
        messages = []
        start, end = 0, len(buffer)
        while end - start >= 4:
            size = _SHORT.unpack_from(buffer, start)[0]
            head = 4
            if size == -1:
                if end - start < 12:
                    break
                size = _LONG.unpack_from(buffer, start + 4)[0]
                head = 12
            if end - start - head < size:
                break
            messages.append(pickle.loads(buffer[start + head:start + head + size]))
            start += head + size
        if start:
            del buffer[:start]
        return messages
