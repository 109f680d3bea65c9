"""The per-episode record of every call: what the agent did, in order, and how it went."""

from __future__ import annotations

from enum import Enum
from typing import Any

from pydantic import BaseModel, Field

__all__ = ["CallOutcome", "OutcomeKind", "TraceRecord"]


class OutcomeKind(str, Enum):
    success = "success"
    tool_error = "tool_error"  # declared domain error or bad arguments: the agent's business
    fault = "fault"  # tool crash, timeout, lost worker: infrastructure, not the agent's failure


class CallOutcome(BaseModel):
    kind: OutcomeKind
    result: dict[str, Any] | None = Field(default=None, description="The tool's result on success.")
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
