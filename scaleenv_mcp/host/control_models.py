"""Request and response models of the control API (its OpenAPI document is built from them)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from scaleenv_mcp.episodes.trace import TraceRecord
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport

__all__ = [
    "CreateEpisodes", "DomainInfo", "DomainList", "EpisodeInfo", "EpisodeList", "EpisodeSpec", "ErrorBody",
    "ErrorInfo", "FingerprintBody", "RestoreBody", "RewardBatch", "RewardBatchRequest", "RewardRequest", "SnapshotBody",
    "SnapshotRequest",
    "TablesBody",
    "TaskCard",
    "TaskList",
    "TraceBody",
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


class SnapshotRequest(BaseModel):
    pinned: bool = Field(default=False, description="Keep the snapshot after its episode closes, until "
                         "DELETE /snapshots/{id}; unpinned snapshots are deleted with their episode.")


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


class RewardRequest(BaseModel):
    messages: list[str] = Field(default_factory=list, max_length=10000,
                                description="What the agent told the user, in order (for the task's communicate facts).")


class RewardBatchRequest(BaseModel):
    episode_ids: list[str] = Field(max_length=10000)


class ErrorInfo(BaseModel):
    code: str = Field(description="Stable error code (episode_not_found, capacity, limit_exceeded, usage...).")
    message: str = Field(description="What went wrong and what to do about it.")


class RewardBatch(BaseModel):
    rewards: dict[str, RewardReport | None] = Field(description="episode id -> its reward, null when it failed.")
    errors: dict[str, ErrorInfo] = Field(default_factory=dict, description="episode id -> why it has no reward.")


class DomainInfo(BaseModel):
    slug: str
    title: str
    tools: int = Field(description="Number of tools.")
    tasks: int = Field(description="Number of tasks in tasks.jsonl.")


class TaskCard(BaseModel):
    """A task as a harness needs it to run an episode: what the user says and knows, and the reference
    actions (for oracle runs). Never shown to agents; the gold state stays on the host, which scores."""

    id: str
    domain: str
    split: str = Field(description="train or test.")
    difficulty: str
    kind: str = Field(description="action, information or refusal.")
    opening: str = Field(description="The user's first message.")
    instruction: str = Field(description="The user's goal, for a user simulator only.")
    known: dict[str, Any] = Field(description="Facts the user states when asked.")
    withheld: dict[str, Any] = Field(description="Facts the user gives only when asked for them.")
    actions: list[dict[str, Any]] = Field(description="The reference solution: [{tool, arguments}], in order.")
    communicate: list[str] = Field(description="Facts the agent must tell the user.")


class TaskList(BaseModel):
    tasks: list[TaskCard]


class DomainList(BaseModel):
    domains: list[DomainInfo]


class ErrorBody(BaseModel):
    error: ErrorInfo


DiffBody = StateDiff
