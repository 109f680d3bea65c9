"""The per-episode record of every call: what the agent did, in order, and how it went.

A result larger than the host's ``trace_result_bytes`` is kept as a bounded summary (its
size and top-level keys): the agent got it in full, but a trace of 10,000 calls must not
hold 10,000 large results for the episode's life (issue #29, failure 3).

The host keeps a trace as a ``Trace``: a plain tuple per call, its result as the JSON text the worker
sent. A record model holding the decoded result cost 5.7 KB of the host's memory per call and about 6
objects the garbage collector walked in every full collection for as long as the episode lived; a
row costs about 1 KB and one tuple (#25, measured with 64 episodes of 100 `get_user` calls each).
Records are built when someone reads the trace (the control API, the shell, the web view, an
export): about 30 us each.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["CallOutcome", "OutcomeKind", "SUMMARY_KEY", "Trace", "TraceRecord", "trace_summary"]

SUMMARY_KEY = "scaleenv/summary"
_SUMMARY_KEYS = 50


class OutcomeKind(str, Enum):
    success = "success"
    tool_error = "tool_error"  # declared domain error or bad arguments: the agent's business
    fault = "fault"  # tool crash, timeout, lost worker: infrastructure, not the agent's failure


class CallOutcome(BaseModel):
    kind: OutcomeKind
    result: dict[str, Any] | None = Field(default=None, description="The tool's result on success.")
    # The same result as the JSON text the worker encoded once: the agent's text content, not
    # encoded again (#25 item 4). Not part of the model's dumps: ``result`` is.
    result_json: str | None = Field(default=None, exclude=True, repr=False)
    error_code: str | None = Field(default=None, description="not_found, invalid_argument, conflict, not_permitted, permission_denied...")
    message: str | None = Field(default=None, description="Error text an agent can act on.")
    duration_ms: float = 0.0
    reads: list[str] = Field(default_factory=list)
    writes: list[str] = Field(default_factory=list)


class TraceRecord(BaseModel):
    index: int
    tool: str
    arguments: dict[str, Any]
    outcome: OutcomeKind
    error_code: str | None = None
    message: str | None = None
    result: dict[str, Any] | None = None
    duration_ms: float


def trace_summary(result: dict[str, Any] | None, size: int) -> dict[str, Any]:
    """What the trace keeps of a large result: ``{"scaleenv/summary": {"bytes", "keys", "lengths"}}``."""
    result = result or {}
    keys = sorted(result)[:_SUMMARY_KEYS]
    lengths = {k: len(result[k]) for k in keys if isinstance(result[k], (list, str, dict))}
    return {SUMMARY_KEY: {"bytes": size, "keys": keys, "lengths": lengths}}


# index, tool, arguments, outcome (the enum's value: an enum member is an object the collector tracks),
# error_code, message, result as JSON text (None: no result), duration_ms
_Row = tuple[int, str, dict[str, Any], str, str | None, str | None, str | None, float]


class Trace:
    """An episode's trace as the host holds it: appended by each call, read as ``TraceRecord``s.

    Rows are tuples of strings, numbers and the call's arguments: no model, no decoded result, so the
    collector walks one small tuple per call (CPython keeps tracking a tuple that holds a dict).
    """

    __slots__ = ("_rows",)

    def __init__(self, records: Iterable[TraceRecord] = ()) -> None:
        self._rows: list[_Row] = [
            (r.index, r.tool, r.arguments, OutcomeKind(r.outcome).value, r.error_code, r.message,
             None if r.result is None else json.dumps(r.result), r.duration_ms) for r in records]

    def add(self, tool: str, arguments: dict[str, Any], outcome: CallOutcome, result_json: str | None) -> None:
        """Record a call; ``result_json`` is its result (or the bounded summary of one) as JSON text."""
        self._rows.append((len(self._rows), tool, arguments, outcome.kind.value, outcome.error_code, outcome.message,
                           result_json, round(outcome.duration_ms, 3)))

    def copy(self) -> Trace:
        """The same records (a fork's): rows are immutable, so they are shared, not copied."""
        twin = Trace()
        twin._rows = list(self._rows)
        return twin

    def __len__(self) -> int:
        return len(self._rows)

    def __iter__(self) -> Iterator[TraceRecord]:
        for index, tool, arguments, outcome, error_code, message, result_json, duration_ms in self._rows:
            yield TraceRecord.model_construct(
                index=index, tool=tool, arguments=dict(arguments), outcome=OutcomeKind(outcome), error_code=error_code,
                message=message, result=None if result_json is None else json.loads(result_json),
                duration_ms=duration_ms)
