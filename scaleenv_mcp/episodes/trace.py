"""The per-episode record of every call: what the agent did, in order, and how it went.

A result larger than the host's ``trace_result_bytes`` is kept as a bounded summary (its
size and top-level keys): the agent got it in full, but a trace of 10,000 calls must not
hold 10,000 large results for the episode's life (issue #29, failure 3).
"""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["CallOutcome", "OutcomeKind", "SUMMARY_KEY", "TraceRecord", "trace_summary"]

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
