"""Request and response models of the control API (its OpenAPI document is built from them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.episodes.trace import TraceRecord
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport

__all__ = [
    "CreateEpisodes", "EpisodeInfo", "EpisodeList", "ErrorBody", "FingerprintBody", "RestoreBody",
    "RewardBatch", "RewardBatchRequest", "SnapshotBody", "TablesBody", "TraceBody",
]


class EpisodeSpec(BaseModel):
    domain: str = Field(description="Domain slug.")
    task_id: str | None = Field(default=None, description="Start from this task's state; omit for the seed.")


class CreateEpisodes(BaseModel):
    domain: str | None = Field(default=None, description="Domain slug (single form).")
    task_id: str | None = Field(default=None, description="Task id (single form).")
    count: int = Field(default=1, ge=1, le=1000, description="How many episodes of (domain, task_id) to create.")
    episodes: list[EpisodeSpec] | None = Field(default=None, description="Batch form: one entry per episode.")


class EpisodeInfo(BaseModel):
    id: str
    domain: str
    task_id: str | None
    origin: str
    calls: int
    agent_url: str = Field(description="MCP streamable HTTP endpoint of this episode.")


class EpisodeList(BaseModel):
    episodes: list[EpisodeInfo]


class SnapshotBody(BaseModel):
    snapshot_id: str


class RestoreBody(BaseModel):
    snapshot_id: str


class FingerprintBody(BaseModel):
    fingerprint: str


class TablesBody(BaseModel):
    tables: dict[str, Any] = Field(description="table -> {columns, rows} in canonical form.")


class TraceBody(BaseModel):
    trace: list[TraceRecord]


class RewardBatchRequest(BaseModel):
    episode_ids: list[str] = Field(max_length=10000)


class RewardBatch(BaseModel):
    rewards: dict[str, RewardReport | None]
    errors: dict[str, str] = Field(default_factory=dict)


class ErrorBody(BaseModel):
    error: dict[str, str] = Field(description="{code, message}")


DiffBody = StateDiff
