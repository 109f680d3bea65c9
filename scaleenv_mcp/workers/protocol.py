"""Messages between the host and its worker processes.

Plain tuples and dicts over a ``multiprocessing`` pipe: this path runs once per tool call,
so no pydantic here (bench/calls.py measures the cost). A request is ``(op, args...)``;
a reply is ``(status, payload)`` with status one of the constants below. On the wire each
request travels as ``(budget seconds or None, request)``: the worker's own deadline
(``workers.lifetime``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["CallReply", "DomainBundle", "FAULT", "OK", "TOOL_ERROR", "LIMIT"]

OK = "ok"
TOOL_ERROR = "tool_error"
FAULT = "fault"
LIMIT = "limit"


@dataclass(frozen=True)
class DomainBundle:
    """What a worker needs to run a domain's tools: sent once per worker, never read from disk there."""

    content_hash: str
    manifest_json: str
    schema_sql: str
    seed: dict[str, list[dict[str, Any]]]
    tools_source: str
    base_hash: str | None = None  # a variant (validation's mutants): same data as this loaded bundle


@dataclass
class CallReply:
    """Outcome of one tool call inside a worker."""

    status: str
    result: dict[str, Any] | None = None
    error_code: str | None = None
    message: str | None = None
    detail: str | None = None  # traceback for validation reports; never shown to agents
    reads: tuple[str, ...] = ()
    writes: tuple[str, ...] = ()
    result_bytes: int = 0  # size of the result's JSON: the host keeps a summary in the trace past a limit
