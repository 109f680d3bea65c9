"""The operations on episodes that the in-process ``Host`` and the HTTP ``ControlClient`` share.

One Protocol, so synthesis, verification, eval and bench code written against it runs on
either: ``Host`` serves it in this process, ``ControlClient`` over a host's control API,
with the same names, parameters and models (tests/contract/test_host_api.py compares the
signatures; the type checker checks both classes against this one). Tool calls are not part
of it: over HTTP an agent calls tools through MCP on the episode's ``agent_url``; in process
``Host.call`` runs one directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from scaleenv_mcp.episodes.trace import TraceRecord
from scaleenv_mcp.host.control_models import DomainInfo, EpisodeInfo, EpisodeSpec, RewardBatch, TaskCard
from scaleenv_mcp.state.diff import StateDiff
from scaleenv_mcp.state.reward import RewardReport

__all__ = ["EpisodeControl"]


class EpisodeControl(Protocol):
    """Create, inspect, rewind, score and close episodes (the control API's operations)."""

    async def domains(self) -> list[DomainInfo]: ...

    async def create_episodes(self, domain: str, task_id: str | None = None, count: int = 1) -> list[EpisodeInfo]:
        """``count`` fresh episodes of one domain, from its seed or from a task; all or nothing."""
        ...

    async def create_many(self, specs: Iterable[EpisodeSpec | dict[str, Any]]) -> list[EpisodeInfo]:
        """One episode per spec (``{"domain", "task_id"}``); all or nothing."""
        ...

    async def list_episodes(self) -> list[EpisodeInfo]: ...

    async def get_episode(self, episode_id: str) -> EpisodeInfo: ...

    async def keyed_episode(self, domain: str, key: str) -> EpisodeInfo:
        """The episode a key of ``/mcp/{domain}/s/{key}`` holds, without creating one."""
        ...

    async def tasks(self, domain: str, split: str | None = None) -> list[TaskCard]:
        """A domain's tasks as a harness runs them (the user's side and the reference actions), by id."""
        ...

    async def close(self, episode_id: str) -> None: ...

    async def reset(self, episode_id: str) -> EpisodeInfo:
        """Back to the start state; the trace and the call count are cleared."""
        ...

    async def snapshot(self, episode_id: str, pinned: bool = False) -> str:
        """The id of a snapshot of the episode's state; deleted with the episode unless ``pinned``."""
        ...

    async def delete_snapshot(self, snapshot_id: str) -> None: ...

    async def restore(self, episode_id: str, snapshot_id: str) -> EpisodeInfo: ...

    async def fork(self, episode_id: str) -> EpisodeInfo:
        """A new, independent episode with a copy of this one's state and trace."""
        ...

    async def export_episode(self, episode_id: str) -> bytes:
        """The episode as one self-describing file (its state, trace and call count), for ``import_episode``."""
        ...

    async def export_snapshot(self, snapshot_id: str) -> bytes:
        """A snapshot as one file, in the format ``export_episode`` writes (with an empty trace)."""
        ...

    async def import_episode(self, data: bytes, allow_other_version: bool = False) -> EpisodeInfo:
        """A new episode from an exported file (this host's or another's); refused, creating nothing, when
        the file is bad or was made by another version of its domain (unless ``allow_other_version``)."""
        ...

    async def fingerprint(self, episode_id: str) -> str: ...

    async def tables(self, episode_id: str, names: Sequence[str] | None = None) -> dict[str, Any]:
        """Canonical dump, table -> {columns, rows}; all tables unless ``names`` are given."""
        ...

    async def diff(self, episode_id: str, against: str | None = None) -> StateDiff:
        """Diff from the start state, or from a snapshot id or another episode id (``against``)."""
        ...

    async def reward(self, episode_id: str, messages: Sequence[str] | None = None) -> RewardReport:
        """The episode's reward; ``messages`` are what the agent told the user (communicate facts)."""
        ...

    async def rewards(self, episode_ids: Sequence[str]) -> RewardBatch:
        """Rewards of many episodes; one failing episode is an entry in ``errors``."""
        ...

    async def trace(self, episode_id: str) -> list[TraceRecord]: ...
